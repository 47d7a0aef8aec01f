"""Functions of NumPy's multiarray and fromnumeric that have no family module: where, clip,
meshgrid, round, bincount, and the data-dependent set functions (unique). Sorting is in
sorting.py, tril/triu/diag in twodim_base.py, roll/isclose/allclose in numeric.py."""
from __future__ import annotations

import operator
from typing import Any

import warnings

import numpy as np
from numpy._core import umath as _umath

from ..._errors import DataDependentError, UnsupportedOperationError
from ..._numpy_version import DEPRECATIONS_EXPIRED_23
from ...layout import (broadcast_shapes, c_strides, iterator_order, like_strides, reshape_strides,
                     strides_in_order)
from ... import converters
from ...meta import ArrayMeta, as_meta, as_number, check_writeable, is_fake, is_meta
from .. import flops
from ..registry import keep_real, pyarray_return, register, transient
from .convert_datatype import legacy_cast_bytes
from .hidden import scalar_bytes
from .temporaries import Steps, array_bytes, asarray_bytes
from .umath import ufunc_call

INTP = np.dtype(np.intp)

WEAK = (int, float, complex)


def _arr(x: Any) -> Any:
    """Python int/float/complex stay (weak scalars), a fake one becomes one (meta.as_number);
    everything else as array metadata."""
    x = as_number(x)
    return x if type(x) in WEAK else as_meta(x)


def _meta(res: Any) -> ArrayMeta:
    """A kernel result (ArrayMeta or an input returned as is) as a fresh ArrayMeta for chaining."""
    return ArrayMeta(res.shape, res.dtype, res.strides)


def ufunc_meta(ufunc: np.ufunc, *args: Any, **kw: Any) -> ArrayMeta:
    return _meta(ufunc_call(ufunc, *args, **kw))


def k_copy(m: Any, dtype: Any = None) -> ArrayMeta:
    """A K-order copy of m (PyArray_NewLikeArray), optionally cast."""
    dt = converters.alloc_dtype(np.dtype(dtype) if dtype is not None else m.dtype)
    return ArrayMeta(m.shape, dt, like_strides(m.shape, m.strides, dt.itemsize, m.flags.c_contiguous,
                                           m.flags.f_contiguous))


def k_copy_out(m: Any, dtype: Any = None) -> ArrayMeta:
    c = k_copy(m, dtype)
    return ArrayMeta(c.shape, c.dtype, c.strides)


# --- where ----------------------------------------------------------------------


def where_meta(cond: Any, x: Any, y: Any) -> ArrayMeta:
    """PyArray_Where: NEP 50 result type of x and y, NpyIter K-order layout of all three."""
    ops = [as_meta(cond), _arr(x), _arr(y)]
    xs = [o if type(o) in WEAK else o.dtype for o in ops[1:]]
    dt = np.result_type(*xs)
    metas = [o for o in ops if type(o) not in WEAK]
    shape = broadcast_shapes(*[m.shape for m in metas])
    perm = iterator_order(shape, [(m.shape, m.strides) for m in metas])
    return ArrayMeta(shape, dt, strides_in_order(shape, dt.itemsize, perm))


@register(np.where, tags=("copy",))
def where(condition: Any, x: Any = None, y: Any = None, /) -> ArrayMeta:
    """The three-argument form; the one-argument form is np.nonzero (PyArray_Where:
    ``PyArray_Nonzero`` of the condition), its length a bounded size."""
    if x is None and y is None:
        from .indexing import nonzero_of
        return nonzero_of(condition, "np.where")
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    out = where_meta(condition, x, y)
    transient(where_operand_bytes(as_number(condition), np.dtype(np.bool_))  # cast to bool
              + sum(where_operand_bytes(as_number(v), out.dtype) for v in (x, y)))
    transient(sum(legacy_cast_bytes(v.dtype, out.dtype) for v in (x, y)  # the iterator's casts
                  if is_meta(v) and v.ndim))
    return out


def where_operand_bytes(v: Any, dtype: np.dtype) -> int:
    """What PyArray_Where allocates for one operand (multiarraymodule.c): a scalar becomes a
    0-d array, cast into a second one when the result dtype differs (measured on numpy 2.4;
    arrays are cast in the iterator's buffers)."""
    if is_meta(v) and not (v.ndim == 0 and v.dtype != dtype):
        return 0
    first = asarray_bytes(v)
    m = as_meta(v)  # a list holding fakes is the array np.asarray stacks it into
    return first + (dtype.itemsize if m.dtype != dtype and m.ndim == 0 else 0)


# --- clip -----------------------------------------------------------------------


def clip_meta(a: Any, lo: Any, hi: Any, out: Any, kwargs: dict, report: bool = False) -> Any:
    """_methods._clip: positive / minimum / maximum / the clip ufunc (``report``: count the
    ufunc's temporaries, for a clip the program calls)."""
    if a.dtype.kind in "iu":
        info = np.iinfo(a.dtype)
        if type(lo) is int and lo <= info.min:
            lo = None
        if type(hi) is int and hi >= info.max:
            hi = None
    lo, hi = (v if v is None or type(v) in WEAK else as_meta(v)
              for v in (as_number(lo), as_number(hi)))
    if lo is None and hi is None:
        return ufunc_call(np.positive, a, out=out, _report=report, **kwargs)
    if lo is None:
        return ufunc_call(np.minimum, a, hi, out=out, _report=report, **kwargs)
    if hi is None:
        return ufunc_call(np.maximum, a, lo, out=out, _report=report, **kwargs)
    return ufunc_call(_umath.clip, a, lo, hi, out=out, _report=report, **kwargs)


_NO = np._NoValue


@register(np.clip, tags=("ufunc",))
def clip(a: Any, a_min: Any = _NO, a_max: Any = _NO, out: Any = None, *, min: Any = _NO,
         max: Any = _NO, **kwargs: Any) -> Any:
    if a_min is _NO and a_max is _NO:
        a_min = None if min is _NO else min
        a_max = None if max is _NO else max
    elif a_min is _NO:
        raise TypeError("clip() missing 1 required positional argument: 'a_min'")
    elif a_max is _NO:
        raise TypeError("clip() missing 1 required positional argument: 'a_max'")
    elif min is not _NO or max is not _NO:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` are "
                         "provided is forbidden.")
    return clip_meta(as_meta(a), a_min, a_max, out, kwargs, report=True)


@register("ndarray.clip", tags=("ufunc",))
def ndarray_clip(self: Any, min: Any = None, max: Any = None, out: Any = None, **kwargs: Any) -> Any:
    return clip_meta(self, min, max, out, kwargs, report=True)


RADIX = frozenset("?bBhH")  # npysort: stable sorts of <= 16-bit integers are radix sorts


# --- roll, tril/triu, diag ----------------------------------------------------------


# --- meshgrid ---------------------------------------------------------------------


@register(np.meshgrid, tags=("copy",))
def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple:
    """C copies (copy=True), or the reshaped / broadcast views of the inputs."""
    ndim = len(xi)
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    metas = [as_meta(x) for x in xi]
    shapes: list[Any] = []
    for i, m in enumerate(metas):
        s = [1] * ndim
        s[i] = m.size
        shapes.append(s)
    if indexing == "xy" and ndim > 1:
        shapes[0] = [1, metas[0].size] + [1] * (ndim - 2)
        shapes[1] = [metas[1].size, 1] + [1] * (ndim - 2)
    shapes = [tuple(s) for s in shapes]
    full = broadcast_shapes(*shapes) if shapes else ()
    out_shapes = shapes if sparse else [full] * ndim
    if copy:
        return tuple(ArrayMeta(s, m.dtype, c_strides(s, m.dtype.itemsize))
                     for s, m in zip(out_shapes, metas))
    outs = []
    for i, (s, m, x) in enumerate(zip(shapes, metas, xi)):
        # function_base.meshgrid: x.reshape(s0[:i] + (-1,) + s0[i + 1:]), axes 0, 1 swapped for xy
        k = 1 - i if indexing == "xy" and ndim > 1 and i < 2 else i
        st = reshape_strides(m.shape, m.strides, m.dtype.itemsize, s[:k] + (-1,) + s[k + 1:])[1]
        if st is None or not is_meta(x):
            raise UnsupportedOperationError(np.meshgrid, "copy=False with inputs that reshape "
                                            "to a copy")
        if not sparse and s != full:  # broadcast_to: stride 0 wherever the input has length 1
            st = tuple(0 if n == 1 else t for n, t in zip(s, st))
            outs.append(ArrayMeta(full, m.dtype, st, view_of=x, warn_on_write=True))
        else:
            outs.append(ArrayMeta(s, m.dtype, st, view_of=x))
    return tuple(outs)


# --- rounding and closeness ---------------------------------------------------------


def round_meta(a: Any, decimals: Any, out: Any) -> Any:
    """PyArray_Round on metadata."""
    decimals = operator.index(decimals)
    if out is not None:
        if not is_meta(out):
            raise TypeError("return arrays must be of ArrayType")
        if out.size != a.size:
            raise ValueError("invalid output shape")
    kind = a.dtype.kind
    if kind not in "biufc":
        raise UnsupportedOperationError(np.round, f"rounding {a.dtype} arrays")
    if kind == "c":
        if out is not None:  # out.real = ...; out.imag = ...
            if out.dtype.kind != "c":
                raise TypeError("array does not have imaginary part to set")
            if broadcast_shapes(tuple(out.shape), tuple(a.shape)) != tuple(out.shape):
                raise ValueError(f"could not broadcast input array from shape {a.shape} into "
                                 f"shape {out.shape}")
            check_writeable(out)
            _round_parts_bytes(a, decimals)
            return out
        res = k_copy_out(a)
        _round_parts_bytes(a, decimals)
        return res
    if decimals >= 0 and kind in "iu":
        if out is not None:
            if not np.can_cast(a.dtype, out.dtype, "same_kind"):
                raise TypeError(f"Cannot cast array data from {a.dtype!r} to {out.dtype!r} "
                                "according to the rule 'same_kind'")
            check_writeable(out)
            return out
        return k_copy_out(a)
    if decimals == 0:
        res = ufunc_call(np.rint, a, out=out)
        if out is None and not a.shape:  # rint's 0-d result, returned as a NumPy scalar
            transient(res.dtype.itemsize)
        transient(short_copy_bytes(a, res.dtype))
        return res
    fortran = a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous
    if out is None:
        dt = np.dtype(np.float64) if kind in "iu" else a.dtype
        st = (c_strides if not fortran else _f)(tuple(a.shape), dt.itemsize)
        tmp = ArrayMeta(a.shape, dt, st)
        # PyArray_Round (calculation.c): ret = PyArray_Empty, op(a, 10**decimals, ret), rint,
        # op back (the Python float's 0-d array, re-made in the loop dtype, each time), and
        # for integers a cast of ret back to a's dtype
        loop = ufunc_call(np.multiply if decimals > 0 else np.true_divide, a, 1.0, out=tmp).dtype
        steps = Steps()
        made = steps.new(array_bytes(a.shape, dt))
        held, converting = scalar_bytes(1.0, loop)  # then a's copy, beside the held 0-d
        steps.temp(max(converting, held + short_copy_bytes(a, loop)))
        if kind in "iu":
            st = (c_strides if not fortran else _f)(tuple(a.shape), a.dtype.itemsize)
            steps.new(array_bytes(a.shape, a.dtype))
            steps.free(made)
        steps.done()
        return ArrayMeta(tuple(a.shape), a.dtype, st)
    res = ufunc_call(np.multiply if decimals > 0 else np.true_divide, a, 1.0, out=out,
                     _report=True)
    ufunc_call(np.rint, res, out=res)
    return res


def short_copy_bytes(m: Any, dt: np.dtype) -> int:
    """The copy check_for_trivial_loop (ufunc_object.c) makes of a 0-d or short 1-d operand
    (at most NPY_BUFSIZE elements) that needs a cast to the loop dtype or is unaligned."""
    from .temporaries import BUFSIZE
    from .umath import needs_copy
    if m.ndim > 1 or (m.ndim == 1 and m.shape[0] > BUFSIZE) or not needs_copy(m, dt):
        return 0
    return array_bytes(tuple(m.shape), dt)


def _round_parts_bytes(a: Any, decimals: int) -> None:
    """PyArray_Round of a complex array: ``arr.real = a.real.round(decimals)``, then the
    imaginary part likewise; each part's rounded array (with, for decimals != 0, the Python
    float's 0-d array) is alive until it is copied in. A 0-d part rounds to a NumPy scalar
    that the assignment turns back into a 0-d array."""
    part = np.dtype(a.dtype.char.lower())
    view = ArrayMeta(a.shape, part, a.strides, view_of=a if is_meta(a) else None)
    copy = short_copy_bytes(view, part)  # a part of an unaligned array is unaligned
    steps = Steps()
    if not a.shape and decimals == 0:
        steps.temp(part.itemsize + copy)  # rint's 0-d result, made a scalar
        steps.temp(part.itemsize)  # the scalar as a 0-d array for the assignment
    else:
        rounded = steps.new(array_bytes(a.shape, part))
        kept, converting = scalar_bytes(1.0, part) if decimals else (0, 0)
        steps.temp(max(converting, kept + copy))
        steps.free(rounded)
    steps.done()


def _f(shape: tuple, itemsize: int) -> tuple:
    from ...layout import f_strides
    return f_strides(shape, itemsize)


@register(np.round, np.around, "ndarray.round", tags=("copy",), flops=flops.elementwise)
def round_(a: Any, decimals: Any = 0, out: Any = None) -> Any:
    if not is_meta(a) and type(a) in WEAK:
        raise UnsupportedOperationError(np.round, "Python scalar input")
    res = round_meta(as_meta(a), decimals, out)
    # the C method ends in PyArray_Return (calculation.c PyArray_Round): a 0-d result is
    # a NumPy scalar for every decimals
    return pyarray_return(res) if out is None else res


# unique and the set functions: kernels/numpy/arraysetops.py


# --- ndarray.conj / conjugate ----------------------------------------------------------------

@register("ndarray.conjugate", "ndarray.conj", tags=("ufunc",), flops=flops.conjugate_method)
def ndarray_conjugate(self: Any, out: Any = None, /) -> Any:
    """PyArray_Conjugate (numpy/_core/src/multiarray/calculation.c): complex and object arrays
    go through the conjugate ufunc (into ``out`` when given); other numbers (bool included)
    return the array itself, or ``out`` after a same_kind copy (PyArray_AssignArray); other
    dtypes raise TypeError. ``out`` must be an array (PyArray_OutputConverter)."""
    if out is not None and not (is_meta(out) or isinstance(out, np.ndarray)):
        raise TypeError("output must be an array")
    dt = self.dtype
    if dt.kind in "cO":
        if out is None:
            return ufunc_call(np.conjugate, self, _report=True)
        return ufunc_call(np.conjugate, self, out=out, _report=True)
    if dt.kind not in "biuf":
        if DEPRECATIONS_EXPIRED_23:
            raise TypeError("cannot conjugate non-numeric dtype")
        warnings.warn("attempting to conjugate non-numeric dtype; this will error in the "
                      "future to match the behavior of np.conjugate", DeprecationWarning,
                      stacklevel=2)
    if out is None:
        return self
    from .indexing import copyto
    copyto(out, self)
    return out


# --- datetime_as_string -----------------------------------------------------------------------

@register(np.datetime_as_string, tags=("copy",))
def datetime_as_string(arr: Any, unit: Any = None, timezone: Any = "naive",
                       casting: Any = "same_kind") -> Any:
    """multiarray/datetime_strings.c array_datetime_as_string: a fresh unicode array whose
    length is ``get_datetime_iso_8601_strlen(local, unit)`` (the unit and the timezone
    only, never the values: NumPy's own function on one element of the dtype gives it and
    its errors), allocated by ``PyArray_NewLikeArray(arr, NPY_KEEPORDER)``; a 0-d input gives
    a str_ scalar."""
    m = as_meta(arr)
    if is_meta(timezone) or isinstance(timezone, np.ndarray):
        raise UnsupportedOperationError(np.datetime_as_string, "an array of timezones")
    one = np.zeros(1, m.dtype)
    dt = np.datetime_as_string(one, unit=unit, timezone=timezone, casting=casting).dtype
    shape = tuple(m.shape)
    strides = like_strides(shape, tuple(m.strides), dt.itemsize, m.flags.c_contiguous,
                           m.flags.f_contiguous)
    return pyarray_return(ArrayMeta(shape, dt, strides))


# --- from_dlpack ------------------------------------------------------------------------------

class _Exporter:
    """A pointer-only array of a fake's layout at a made-up address with the fake's alignment:
    its ``__dlpack__`` capsule points at that address and NumPy reads nothing."""

    __slots__ = ("__array_interface__",)

    def __init__(self, m: Any) -> None:
        lo = sum(s * (n - 1) for s, n in zip(m.strides, m.shape) if s < 0 and n)
        self.__array_interface__ = {
            "shape": tuple(m.shape), "descr": m.dtype.descr, "typestr": m.dtype.str,
            "data": ((1 << 44) - lo + (0 if m.flags.aligned else 1), not m.flags.writeable),
            "strides": tuple(m.strides), "version": 3}


@register(np.from_dlpack, tags=("view",))
def from_dlpack(x: Any, /, *, device: Any = None, copy: Any = None) -> ArrayMeta:
    """multiarray/dlpack.c from_dlpack of a fake: ``x.__dlpack__()``'s checks (dtype, byte
    order, strides, device) from NumPy's own export of a pointer-only array of the same
    layout; the result views x (read-only where x is), or with ``copy=True`` views an
    order-K copy made for the export."""
    if not is_meta(x):
        raise UnsupportedOperationError(np.from_dlpack, f"a {type(x).__name__} exporter")
    m = as_meta(x)
    r = np.from_dlpack(np.asarray(_Exporter(m)), device=device, copy=False if copy is False else None)
    if copy is True:
        shape = tuple(m.shape)
        return ArrayMeta(shape, m.dtype, like_strides(shape, tuple(m.strides), m.dtype.itemsize,
                                                      m.flags.c_contiguous, m.flags.f_contiguous),
                         base_shape=shape)
    return ArrayMeta(tuple(r.shape), r.dtype, tuple(r.strides), view_of=x,
                     writeable=None if r.flags.writeable else False)


# --- printing -----------------------------------------------------------------------------------

def _formatter(fn: Any) -> Any:
    """numpy/_core/arrayprint.py array2string / array_repr / array_str of a fake: the text is
    made of the values (DataDependentError), except for an empty array, whose text NumPy
    makes from its shape and dtype alone (NumPy's own function on an empty array of both). A
    real array reaches the kernel unconverted and is printed for real."""
    import inspect
    sig = inspect.signature(fn)
    name = fn.__name__

    first = next(iter(sig.parameters))

    def kernel(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        a = bound.arguments[first]
        if not is_fake(a):  # a real array (kept real): its values exist, printed for real
            return fn(*bound.args, **bound.kwargs)
        m = as_meta(a)
        if m.size:
            raise DataDependentError(f"np.{name} formats the values of the array")
        bound.arguments[first] = np.empty(m.shape, m.dtype)
        return fn(*bound.args, **bound.kwargs)
    kernel.__name__ = name
    kernel.__doc__ = _formatter.__doc__
    keep_real(kernel, 0, first)
    return register(fn, tags=("data-dependent",))(kernel)


for _fn in (np.array2string, np.array_repr, np.array_str):
    _formatter(_fn)


# --- bincount (multiarray/compiled_base.c arr_bincount) --------------------------------------
# Value checks skipped (they raise only for some data): negative entries.

@register(np.bincount, tags=("data-dependent",))
def bincount(x: Any, weights: Any = None, minlength: Any = 0) -> Any:
    """np.bincount: its length is max(x) + 1, a value, unless x is empty (minlength, intp)."""
    m = as_meta(x)
    if m.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if m.ndim > 1:
        raise ValueError("object too deep for desired array")
    if not is_meta(x):  # compiled_base.c arr_bincount: a sequence converts by its values
        if m.size and m.dtype.kind not in "biu":
            warnings.warn("Non-integer input passed to bincount. In a future version of "
                          "NumPy, this will be an error. (Deprecated NumPy 2.1)",
                          DeprecationWarning, stacklevel=2)
    elif m.dtype.kind not in "iu" and not np.can_cast(m.dtype, INTP, "safe"):
        raise TypeError(f"Cannot cast array data from {m.dtype!r} to {INTP!r} according "
                        "to the rule 'safe'")
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    ml = operator.index(minlength)
    if ml < 0:
        raise ValueError("'minlength' must not be negative")
    if m.size == 0:
        return ArrayMeta((ml,), INTP, c_strides((ml,), 8))
    raise DataDependentError("np.bincount: the length of the result is max(x) + 1")
