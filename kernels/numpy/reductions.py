"""Reductions: ufunc.reduce / accumulate / reduceat / outer / at and the NumPy functions
and ndarray methods built on them (sum, mean, var, argmax, cumsum, cumulative_sum, nansum,
nanmean, ...; median and quantile are in function_base.py, nanvar and nanmedian in
nanfunctions.py).

Layout facts (numpy 2.4, reduction.c and nditer_constr.c): a reduction allocates its
result with NpyIter in K order of the operand (and of a ``where`` mask), without
negating strides; with ``keepdims`` a reduced axis takes the running stride without
multiplying it in. Python-level functions are reproduced step by step on fresh ``ArrayMeta``
intermediates, so their final layout is the one NumPy's own composition gives.
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy._core import _exceptions as _np_exc

from ..._bounded import BoundedCache
from ..._errors import DataDependentError, UnsupportedOperationError
from ..._numpy_version import COUNT_NONZERO_INTP, check_out_ellipsis
from ...layout import (AxisError, broadcast_shapes, c_strides, contiguity, iterator_order,
                     like_strides, normalize_axis)
from ... import converters
from ...meta import ArrayMeta, as_meta, check_writeable, contig, has_values, is_aligned, is_meta
from ...converters import Casting
from .hidden import (cast_copy_bytes, kept_bytes, needs_cast_copy, overlap_copy_bytes,
                     scalar_bytes, steps)
from .. import flops
from ..registry import register, scratch, transient
from .temporaries import (Steps, array_bytes, asarray_bytes, copyto_bytes, divide_by_count_bytes,
                          remake_bytes, scalar_binop_bytes,
                          ufunc_bytes)
from .convert_datatype import value_cast_reason
from .convert_datatype import cast_loop
from .umath import IterOp, where_meta, iterator_buffer_bytes, ufunc_call
from ._common import along, chainable

_NoValue = np._NoValue
_INTP = np.dtype(np.intp)
_BOOL = np.dtype(bool)
_F8 = np.dtype("f8")
_COMPLEX_TO_FLOAT: dict[np.dtype, np.dtype] = {np.dtype(np.csingle): np.dtype(np.single),
                     np.dtype(np.cdouble): np.dtype(np.double)}
if np.dtype(np.longdouble) != np.dtype(np.double):
    _COMPLEX_TO_FLOAT[np.dtype(np.clongdouble)] = np.dtype(np.longdouble)


# --- intermediates -----------------------------------------------------------

def step_input(x: Any) -> ArrayMeta:
    """A kernel's fresh result as the next step's input: a plain fresh ArrayMeta (a 0-d
    result stays a 0-d array inside a composite; only its final value becomes a scalar)."""
    if type(x) is ArrayMeta:
        if x.view_of is not None or x.base_shape is not None:
            raise UnsupportedOperationError("reduction", "intermediate view")
        return ArrayMeta(x.shape, x.dtype, x.strides)
    return x


def final_result(x: Any) -> Any:
    """A composite's result: an ArrayMeta, or an input (out=) as is.

    A ``scalar`` one was a 0-d array until PyArray_Return (numpy/_core/src/multiarray/
    scalarapi.c) turned it into a NumPy scalar: that array is the call's transient."""
    if type(x) is ArrayMeta and x.scalar:
        transient(x.dtype.itemsize)
    return x


def like_copy(m: Any, dtype: Any = None) -> ArrayMeta:
    """An order-K copy (np.array(copy=True), astype) of m, PyArray_NewLikeArray's layout."""
    dt = converters.alloc_dtype(m.dtype if dtype is None else np.dtype(dtype))
    return ArrayMeta(tuple(m.shape), dt, like_strides(m.shape, m.strides, dt.itemsize,
                                                      m.flags.c_contiguous, m.flags.f_contiguous))


def _scalar_ok(dt: np.dtype, name: str) -> None:
    if dt.kind == "O":
        raise UnsupportedOperationError(name, "an object-dtype scalar result is a Python object")


# --- the reduction machinery ---------------------------------------------------

_red_cache = BoundedCache("reductions red_cache", 512 * 1024)


def resolve_reduce(ufunc: np.ufunc, keys: tuple, sig: Any) -> tuple:
    """Loop dtypes of a reduce-like call (resolve_dtypes with reduction=True), cached."""
    ck = (ufunc, keys, sig)
    r = _red_cache.get(ck)
    if r is None:
        try:
            if sig is None:
                r = ufunc.resolve_dtypes(keys, casting="unsafe", reduction=True)
            else:
                r = ufunc.resolve_dtypes(keys, signature=sig, casting="unsafe", reduction=True)
        except Exception as e:  # re-raised with NumPy's type
            r = e
        if len(_red_cache) > 5000:
            _red_cache.clear()
        _red_cache[ck] = r
    if isinstance(r, Exception):
        raise r
    return r


def check_reduce_ufunc(ufunc: np.ufunc, what: str) -> None:
    if ufunc.signature is not None:
        raise RuntimeError("Reduction not defined on ufunc with signature")
    if ufunc.nin != 2:
        raise ValueError(f"{what} only supported for binary functions")
    if ufunc.nout != 1:
        raise ValueError(f"{what} only supported for functions returning a single value")


def _sig(dtype: Any) -> Any:
    if dtype is None:
        return None
    return (np.dtype(dtype), None, None)


def reduce_loop(ufunc: np.ufunc, arr: Any, dtype: Any, out: Any, uniform: bool, what: str) -> np.dtype:
    """The result dtype of a reduce-like call (NumPy's reducelike_promote_and_resolve)."""
    keys = (None if out is None else out.dtype, arr.dtype, None)
    try:
        loop = resolve_reduce(ufunc, keys, _sig(dtype))
    except TypeError as e:
        if uniform and type(e) is TypeError and "No loop matching" in str(e):
            # NumPy raises this or, once its promotion cache holds the loop, the subclass
            raise _np_exc._UFuncNoLoopError(ufunc, (type(arr.dtype), type(arr.dtype))) from None
        raise
    if arr.size and value_cast_reason(arr.dtype, loop[1]):
        raise DataDependentError(f"{ufunc.__name__}.{what} casts {arr.dtype} values to "
                                 f"{loop[1]}: whether that succeeds depends on the values")
    if uniform and not np.can_cast(loop[0], loop[1], "equiv"):
        _probe_uniform(ufunc, arr.dtype, dtype, None if out is None else out.dtype, what,
                       arr.ndim, loop[2])
        raise TypeError(f"the resolved dtypes are not compatible with {ufunc.__name__}.{what}. "
                        f"Resolved {loop!r}")
    return loop[2]


def reduce_casts(ufunc: np.ufunc, arr: Any, dtype: Any, out: Any, what: str) -> None:
    """The cast loops of a reduce-like call, once its arguments are checked
    (convert_datatype.py): the operand to the loop dtype, the result into an ``out`` of
    another dtype (reduce: twice, its initial values and its result)."""
    keys = (None if out is None else out.dtype, arr.dtype, None)
    loop = resolve_reduce(ufunc, keys, _sig(dtype))
    cast_loop(arr.dtype, loop[1])
    if out is not None:
        cast_loop(loop[2], out.dtype, 2 if what == "reduce" else 1)


def _probe_uniform(ufunc: np.ufunc, dt: np.dtype, dtype: Any, out_dt: Any, what: str,
                   ndim: int, loop_out: np.dtype) -> None:
    """NumPy's own error for a loop accumulate / reduceat refuses (reducelike_promote_and_resolve
    retries with the output's DType and may find no loop at all: UFuncTypeError), from the
    call on one-element arrays of the same dtypes."""
    z = np.zeros((1,) * max(ndim, 1), dt)
    out = None if out_dt is None else np.zeros(z.shape, out_dt)
    try:
        with np.errstate(all="ignore"):
            if what == "reduceat":
                ufunc.reduceat(z, [0], dtype=dtype, out=out)
            else:
                ufunc.accumulate(z, dtype=dtype, out=out)
    except TypeError as e:
        if type(e) is TypeError and "No loop matching" in str(e):
            # which of the two NumPy raises depends on its promotion cache; the subclass is
            # the one that is an instance of both
            raise _np_exc._UFuncNoLoopError(ufunc, (type(loop_out), type(dt))) from None
        raise type(e)(*e.args) from None
    except Exception:
        pass


def split_out(out: Any, positional: bool = False) -> tuple[Any, bool]:
    """(out array or None, return_scalar) from an ``out`` argument of a reduce-like call."""
    check_out_ellipsis(out)
    if out is Ellipsis:
        if positional:
            raise TypeError("out=... is only allowed as a keyword argument.")
        return None, False
    if out is None:
        return None, True
    if type(out) is tuple and not positional:  # only the keyword takes a tuple (of arrays)
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
        out = out[0]
    if not is_meta(out):
        raise TypeError("return arrays must be of ArrayType")
    return out, False


def _ufunc_axes(axis: Any, ndim: int) -> tuple:
    """Reduction axes as PyUFunc_GenericReduction parses them (_NoValue: the default 0;
    a 0-d operand takes axis 0 or -1 as no axis)."""
    if axis is _NoValue:
        return () if ndim == 0 else (0,)
    return converters.multi_axis(axis, ndim)


_reorder_cache = BoundedCache("reductions reorder_cache", 512 * 1024)


def _reorderable(ufunc: np.ufunc, dt: np.dtype, dtype: Any) -> bool:
    """Whether the reduction loop allows several axes (probed on a 1x1 real array)."""
    key = (ufunc, dt, dtype)
    r = _reorder_cache.get(key)
    if r is None:
        try:
            ufunc.reduce(np.zeros((1, 1), dt), axis=(0, 1), dtype=dtype)
            r = True
        except ValueError as e:
            r = "reorderable" not in str(e)
        except Exception:
            r = True
        _reorder_cache[key] = r
    return r


def _has_initial(ufunc: np.ufunc, dt: np.dtype, empty: bool) -> bool:
    """Whether the loop supplies an initial value (get_reduction_initial)."""
    if ufunc.identity is None:
        return False
    if dt.kind == "O" and not empty:
        return False
    return True


def reduce_strides(shape: tuple, strides: tuple, axes: tuple, keepdims: bool,
                   itemsize: int, voters: list) -> tuple[tuple, tuple]:
    """(shape, strides) of the result NpyIter allocates for a reduction over ``axes``."""
    nd = len(shape)
    red = set(axes)
    oshape = tuple(1 if i in red else n for i, n in enumerate(shape) if keepdims or i not in red)
    if 0 in oshape:
        return oshape, (0,) * len(oshape)
    perm = iterator_order(shape, voters) if nd > 1 else list(range(nd))
    pos = {}
    j = 0
    for i in range(nd):
        if keepdims or i not in red:
            pos[i] = j
            j += 1
    out = [0] * len(oshape)
    s = itemsize
    for ax in perm:
        if ax in red:
            if keepdims:
                out[pos[ax]] = s
            continue
        out[pos[ax]] = s
        s *= shape[ax]
    return oshape, tuple(out)


def do_reduce(ufunc: np.ufunc, arr: Any, axes: tuple, dtype: Any = None, out: Any = None,
              keepdims: bool = False, initial: Any = _NoValue, where: Any = True,
              return_scalar: bool = True, copy_0d: bool = False) -> Any:
    """ufunc.reduce on metadata with normalized axes: a fresh ArrayMeta (``scalar`` when
    PyArray_Return makes it a NumPy scalar), or ``out`` itself."""
    name = ufunc.__name__
    arr = as_meta(arr)
    rdt = reduce_loop(ufunc, arr, dtype, out, False, "reduce")
    nd = arr.ndim
    if len(axes) > 1 and not _reorderable(ufunc, arr.dtype, dtype):
        raise ValueError(f"reduction operation '{name}' is not reorderable, "
                         "so at most one axis may be specified")
    red = set(axes)
    oshape = tuple(1 if i in red else n for i, n in enumerate(arr.shape)
                   if keepdims or i not in red)
    if out is not None:
        if out.ndim != len(oshape):
            extra = " (must match the operand's when keepdims=True)" if keepdims else ""
            raise ValueError(f"output parameter for reduction operation {name} has the wrong "
                             f"number of dimensions: Found {out.ndim} but expected "
                             f"{len(oshape)}{extra}")
        if out.shape != oshape:
            raise ValueError(f"non-broadcastable output operand with shape {out.shape} "
                             f"doesn't match the broadcast shape {oshape}")
        check_writeable(out)
    wm = None if where is True else where_meta(where)
    voters = [(arr.shape, arr.strides)]
    if wm is not None:
        if broadcast_shapes(arr.shape, wm.shape) != arr.shape:
            raise ValueError(f"operands could not be broadcast together with remapped shapes "
                             f"{arr.shape} {wm.shape}")
        voters.append((wm.shape, wm.strides))
    reduce_casts(ufunc, arr, dtype, out, "reduce")
    empty = 0 in arr.shape
    if initial is None:
        has_init = False
    elif initial is not _NoValue:
        try:
            np.empty((), rdt)[()] = initial
        except Exception as e:
            raise type(e)(*e.args) from None
        has_init = True
    else:
        has_init = _has_initial(ufunc, rdt, empty)
    if not has_init:
        if wm is not None:
            raise ValueError(f"reduction operation '{name}' does not have an identity, so to "
                             "use a where mask one has to specify 'initial'")
        if any(arr.shape[a] == 0 for a in axes):
            raise ValueError(f"zero-size array to reduction operation {name} "
                             "which has no identity")
    scratch(_reduce_buffer_bytes(arr, axes, rdt, out, wm))
    if copy_0d and nd == 0 and (arr.dtype != rdt or not arr.dtype.isnative
                                or not is_aligned(arr)):
        # nditer_constr.c npyiter_allocate_arrays: a 0-d operand that needs a cast is copied
        # to a new 0-d array of the loop dtype (not buffered), alive with the result (the
        # composites that replay their steps count it themselves: asked for by the public
        # reductions only)
        transient(rdt.itemsize)
    if out is not None:
        return out
    shape, strides = reduce_strides(arr.shape, arr.strides, axes, keepdims, rdt.itemsize, voters)
    if return_scalar and not shape:
        _scalar_ok(rdt, f"np.{name}.reduce")
        return ArrayMeta(shape, rdt, strides, scalar=True)
    return ArrayMeta(shape, rdt, strides)


def _reduce_buffer_bytes(arr: Any, axes: tuple, rdt: np.dtype, out: Any, wm: Any) -> int:
    """C-heap bytes of a reduction's iterator buffers (reduction.c ``PyUFunc_ReduceWrapper``:
    buffered, GROWINNER, DONT_NEGATE_STRIDES): the result (allocated, or ``out``) with stride 0
    on the reduced axes as the reduce operand, the input, and the ``where`` mask
    (ufuncs.iterator_buffer_bytes)."""
    cast = arr.dtype != rdt or not arr.dtype.isnative or not is_aligned(arr)
    if out is None and wm is None and not cast and any(contig(arr)):
        return 0  # the input and the result it lays out walk every core with one stride
    red = frozenset(axes)
    if out is None:
        res = IterOp(arr.shape, None, rdt.itemsize, reduce=True, zero_axes=red)
    else:
        st = iter(out.strides) if out.ndim < arr.ndim else None
        full = tuple(0 if i in red else next(st) for i in range(arr.ndim)) if st is not None \
            else tuple(0 if i in red else s for i, s in enumerate(out.strides))
        res = IterOp(arr.shape, full, rdt.itemsize,
                     out.dtype != rdt or not out.dtype.isnative or not out.flags.aligned, True)
    ops: tuple[IterOp, ...] = (res, IterOp(arr.shape, arr.strides, rdt.itemsize, cast))
    if wm is not None:
        ops += (IterOp(wm.shape, wm.strides, 1),)
    return iterator_buffer_bytes(arr.shape, ops, False, "K")


@register("ufunc.reduce", tags=("reduction",))
def ufunc_reduce(ufunc: np.ufunc, array: Any, axis: Any = _NoValue, dtype: Any = None,
                 out: Any = _NoValue, keepdims: bool = False, initial: Any = _NoValue,
                 where: Any = True) -> Any:
    """ufunc.reduce: K-order allocation, keepdims running strides, out returned as is."""
    check_reduce_ufunc(ufunc, "reduce")
    out, scal = split_out(None if out is _NoValue else out)
    if out is not None:  # _set_out_array checks it before anything else
        check_writeable(out)
    arr = as_meta(array)
    axes = _ufunc_axes(axis, arr.ndim)
    return final_result(do_reduce(ufunc, arr, axes, dtype, out, bool(keepdims), initial, where, scal,
                                  copy_0d=True))


def np_axes(axis: Any, ndim: int) -> tuple:
    """Axes for np.sum-style functions (default None = all)."""
    return _ufunc_axes(None if axis is _NoValue else axis, ndim)


def kw_reduce(ufunc: np.ufunc, a: Any, axis: Any, dtype: Any, out: Any, keepdims: Any,
               initial: Any = _NoValue, where: Any = True, copy_0d: bool = False) -> Any:
    if not is_meta(a):  # ufunc.reduce converts an array-like (PyArray_FromAny), alive till it ends
        transient(asarray_bytes(a))
    arr = as_meta(a)
    out, scal = split_out(out, positional=True)
    axes = np_axes(axis, arr.ndim)
    kd = False if keepdims is _NoValue else bool(keepdims)
    if where is _NoValue:
        where = True
    return do_reduce(ufunc, arr, axes, dtype, out, kd, initial, where, scal, copy_0d)


# --- sum, prod, min, max, all, any ----------------------------------------------

@register(np.sum, "ndarray.sum", tags=("reduction",))
def sum_(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = _NoValue,
         initial: Any = _NoValue, where: Any = _NoValue) -> Any:
    """np.sum / ndarray.sum: np.add.reduce."""
    return final_result(kw_reduce(np.add, a, axis, dtype, out, keepdims, initial, where,
                                  copy_0d=True))


@register(np.prod, "ndarray.prod", tags=("reduction",))
def prod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = _NoValue,
         initial: Any = _NoValue, where: Any = _NoValue) -> Any:
    """np.prod / ndarray.prod: np.multiply.reduce."""
    return final_result(kw_reduce(np.multiply, a, axis, dtype, out, keepdims, initial, where,
                                  copy_0d=True))


@register(np.max, np.amax, "ndarray.max", tags=("reduction",))
def amax(a: Any, axis: Any = None, out: Any = None, keepdims: Any = _NoValue,
         initial: Any = _NoValue, where: Any = _NoValue) -> Any:
    """np.max / ndarray.max: np.maximum.reduce."""
    return final_result(kw_reduce(np.maximum, a, axis, None, out, keepdims, initial, where,
                                  copy_0d=True))


@register(np.min, np.amin, "ndarray.min", tags=("reduction",))
def amin(a: Any, axis: Any = None, out: Any = None, keepdims: Any = _NoValue,
         initial: Any = _NoValue, where: Any = _NoValue) -> Any:
    """np.min / ndarray.min: np.minimum.reduce."""
    return final_result(kw_reduce(np.minimum, a, axis, None, out, keepdims, initial, where,
                                  copy_0d=True))


def _all_any(ufunc, a, axis, dtype, out, keepdims, where):
    return final_result(kw_reduce(ufunc, a, axis, _BOOL if dtype is None else dtype, out, keepdims,
                             _NoValue, where, copy_0d=True))


@register(np.all, tags=("reduction",))
def all_(a: Any, axis: Any = None, out: Any = None, keepdims: Any = _NoValue, *,
         where: Any = _NoValue) -> Any:
    """np.all: np.logical_and.reduce with dtype bool."""
    return _all_any(np.logical_and, a, axis, None, out, keepdims, where)


@register(np.any, tags=("reduction",))
def any_(a: Any, axis: Any = None, out: Any = None, keepdims: Any = _NoValue, *,
         where: Any = _NoValue) -> Any:
    """np.any: np.logical_or.reduce with dtype bool."""
    return _all_any(np.logical_or, a, axis, None, out, keepdims, where)


@register("ndarray.all", tags=("reduction",))
def ndarray_all(a: Any, axis: Any = None, out: Any = None, keepdims: Any = False, *,
                where: Any = True) -> Any:
    """ndarray.all."""
    return _all_any(np.logical_and, a, axis, None, out, keepdims, where)


@register("ndarray.any", tags=("reduction",))
def ndarray_any(a: Any, axis: Any = None, out: Any = None, keepdims: Any = False, *,
                where: Any = True) -> Any:
    """ndarray.any."""
    return _all_any(np.logical_or, a, axis, None, out, keepdims, where)


# --- mean, var, std, ptp ---------------------------------------------------------

def _rcount(arr: Any, axis: Any, axes: tuple, keepdims: bool, where: Any) -> Any:
    """_count_reduce_items: an intp scalar, or the intp sum of the broadcast mask."""
    if where is True:
        if arr.ndim == 0 and axis is not None and type(axis) is not tuple:
            raise AxisError(converters.index(axis), 0)
        return np.intp(1)
    wm = as_meta(where)
    if broadcast_shapes(wm.shape, arr.shape) != arr.shape:
        raise ValueError(f"cannot broadcast a non-scalar to a scalar array" if not arr.shape
                         else f"operands could not be broadcast together with remapped shapes "
                              f"{wm.shape} and requested shape {arr.shape}")
    bm = ArrayMeta(arr.shape, wm.dtype, (0,) * arr.ndim)
    return do_reduce(np.add, bm, axes, _INTP, None, keepdims)


def _inplace(ufunc: np.ufunc, ret: Any, *others: Any, casting: Casting = "same_kind") -> Any:
    """An in-place ufunc step (``out=ret``): checks dtypes and shapes, keeps ret."""
    ufunc_call(ufunc, ret, *others, out=ret, casting=casting)
    return ret


def stays_array(ret: Any, scal: bool) -> bool:
    """Whether a reduce-like result stays an array: PyArray_Return makes a 0-d result a
    NumPy scalar unless the call was given an output (``scal`` False, from split_out)."""
    return ret.ndim > 0 or not scal


def _moments_args(a: Any, axis: Any, out: Any, keepdims: Any, where: Any) -> tuple:
    """_methods.py _mean / _var's common start: the array, out and whether a 0-d result is
    a scalar, the axes, keepdims, where, and the count of reduced elements."""
    arr = as_meta(a)
    out, scal = split_out(out, positional=True)
    axes = np_axes(axis, arr.ndim)
    kd = False if keepdims is _NoValue else bool(keepdims)
    where = True if where is _NoValue else where
    return arr, out, scal, axes, kd, where, _rcount(arr, axis, axes, kd, where)


def few_items(arr: Any, axes: tuple, where: Any, ddof: Any = 0, each: bool = False) -> bool:
    """Whether some slice reduced over ``axes`` holds at most ``ddof`` items (``ddof >=
    rcount``, _methods.py ``_mean`` / ``_var``), as far as the metadata tells: ``where=True``
    counts the reduced length; a mask with values (a Python list, a real array) is counted on
    its own shape; a fake mask counts for sure only when the reduced length is 0 (whether
    one of its slices is all False is its values: no warning is given for that)."""
    if not has_values(ddof) or isinstance(ddof, np.ndarray):
        return False  # a fake ddof's values decide
    n = math.prod(arr.shape[a] for a in axes)
    if where is True:  # ``each``: ``np.any(isbad)`` over the slices (nan-functions)
        if each and 0 in (s for i, s in enumerate(arr.shape) if i not in axes):
            return False
        return bool(ddof >= n)
    if 0 in (s for i, s in enumerate(arr.shape) if i not in axes):
        return False  # umr_any of an empty count array
    if n == 0:
        return bool(ddof >= 0)
    if not has_values(where):
        return False
    w = np.asarray(where, dtype=bool)
    w = w.reshape((1,) * (arr.ndim - w.ndim) + w.shape)
    own = tuple(a for a in axes if w.shape[a] != 1)
    spread = math.prod(arr.shape[a] for a in axes if w.shape[a] == 1)
    counts = w.sum(axis=own, dtype=np.intp) * spread
    return bool(np.any(ddof >= counts))


def _repeated_axes(a: Any, axis: Any, where: Any, ddof: Any, message: str) -> None:
    """_count_reduce_items multiplies the length of each axis of a tuple as given, before
    the sum finds an axis repeated (and raises): that count warns first."""
    masked = not (where is True or where is _NoValue)
    if type(axis) is not tuple or masked or not has_values(ddof):
        return
    arr = as_meta(a)
    try:
        axes = [normalize_axis(converters.index(ax), arr.ndim) for ax in axis]
    except Exception:  # noqa: BLE001  (the sum raises NumPy's own error)
        return
    if len(set(axes)) != len(axes) and ddof >= math.prod(arr.shape[ax] for ax in axes):
        warn_few_items(message)


def warn_few_items(message: str) -> None:
    """NumPy's RuntimeWarning for a slice with too few items (``stacklevel=2``)."""
    warnings.warn(message, RuntimeWarning, stacklevel=3)


def mean_steps(a: Any, axis: Any, dtype: Any, out: Any, keepdims: Any, where: Any,
          steps: Steps | None = None) -> Any:
    """_methods.py _mean; its allocations go to ``steps`` (a caller's replay) or are reported."""
    _repeated_axes(a, axis, where, 0, "Mean of empty slice")
    arr, out, scal, axes, kd, where, rcount = _moments_args(a, axis, out, keepdims, where)
    if few_items(arr, axes, where):
        warn_few_items("Mean of empty slice")
    f16 = False
    if dtype is None:
        if issubclass(arr.dtype.type, (np.integer, np.bool_)):
            dtype = _F8
        elif issubclass(arr.dtype.type, np.float16):
            dtype, f16 = np.dtype("f4"), True
    ret = do_reduce(np.add, arr, axes, dtype, out, kd, _NoValue, where, scal, copy_0d=True)
    if stays_array(ret, scal):
        _inplace(np.true_divide, ret, rcount, casting="unsafe")
        own = steps is None  # the sum, divided in place by the count (float16: cast back)
        steps = Steps() if steps is None else steps
        total = steps.new(0 if out is not None else array_bytes(ret.shape, ret.dtype))
        if has_values(rcount):  # an intp scalar (no where mask): _divide_by_count's 0-d array
            steps.temp(divide_by_count_bytes(ret.shape, ret.dtype))
        if f16 and out is None:
            ret = like_copy(ret, np.float16)
            steps.new(array_bytes(ret.shape, ret.dtype))
            steps.free(total)
        if own:
            steps.done()
        return ret
    if has_values(rcount) and out is None:
        # ``ret.dtype.type(ret / rcount)`` (float16: ``arr.dtype.type``) on the NumPy scalar
        # the sum's 0-d array became: final_result reports the result's 0-d array; the
        # division, after that array is gone, may take more (float32 / intp promotes)
        div = scalar_binop_bytes(np.true_divide, ret.dtype, _INTP)
        if steps is not None:  # a caller's replay: there, with what it holds
            steps.temp(max(ret.dtype.itemsize, div))
        else:  # do_reduce reported a 0-d input's cast copy, alive with the sum's 0-d array
            copy0 = ret.dtype.itemsize if not arr.ndim and (
                arr.dtype != ret.dtype or not arr.dtype.isnative or not is_aligned(arr)) else 0
            during = copy0 + ret.dtype.itemsize
            transient(max(during, div) - copy0 - (2 if f16 else ret.dtype.itemsize))
    if f16:
        return ArrayMeta((), np.dtype(np.float16), (), scalar=True)
    return ret


@register(np.mean, "ndarray.mean", tags=("reduction",))
def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = _NoValue,
         *, where: Any = _NoValue) -> Any:
    """np.mean / ndarray.mean: a sum in f8 (f4 for float16), divided in place."""
    return final_result(mean_steps(a, axis, dtype, out, keepdims, where))


def var_steps(a: Any, axis: Any, dtype: Any, out: Any, ddof: Any, keepdims: Any, where: Any,
         mean: Any) -> Any:
    _repeated_axes(a, axis, where, ddof, "Degrees of freedom <= 0 for slice")
    arr, out, scal, axes, kd, where, rcount = _moments_args(a, axis, out, keepdims, where)
    if few_items(arr, axes, where, ddof):
        warn_few_items("Degrees of freedom <= 0 for slice")
    if arr.dtype.kind == "O":
        raise UnsupportedOperationError("np.var", "object arrays")
    if dtype is None and issubclass(arr.dtype.type, (np.integer, np.bool_)):
        dtype = _F8
    # _methods.py _var, step by step: the mean (keepdims), the deviations x (squared in
    # place), their sum, the count less ddof (um.maximum of 0-d arrays), the division
    steps = Steps()
    if mean is not None and mean is not _NoValue:
        arrmean = as_meta(mean)
        held = 0
    elif arr.ndim == 0 and where is True:
        # the keepdims sum of a 0-d array is a NumPy scalar (its 0-d array freed), divided by
        # scalar math; the subtraction below makes a 0-d array of it
        arrmean = do_reduce(np.add, arr, axes, dtype, None, True, _NoValue, where, True)
        steps.temp(array_bytes((), arrmean.dtype))
        steps.temp(scalar_binop_bytes(np.true_divide, arrmean.dtype, _INTP))
        arrmean = arrmean.dtype.type(0)
        held = 0
    else:
        arrmean = do_reduce(np.add, arr, axes, dtype, None, True, _NoValue, where, True)
        held = steps.new(array_bytes(arrmean.shape, arrmean.dtype))
        if arrmean.ndim:
            _inplace(np.true_divide, arrmean, rcount if has_values(rcount)
                     else ArrayMeta(arrmean.shape, _INTP, c_strides(arrmean.shape, 8)),
                     casting="unsafe")
            steps.temp(divide_by_count_bytes(arrmean.shape, arrmean.dtype))
    x = step_input(ufunc_call(np.subtract, arr, arrmean))
    copies = steps.new(ufunc_bytes(np.subtract, arr, arrmean))
    dev = steps.new(array_bytes(x.shape, x.dtype))
    steps.free(copies)
    if issubclass(arr.dtype.type, (np.floating, np.integer)):
        _inplace(np.square, x)
    elif x.dtype in _COMPLEX_TO_FLOAT:
        x = ArrayMeta(x.shape, _COMPLEX_TO_FLOAT[x.dtype], x.strides)
    else:  # ``um.multiply(x, um.conjugate(x), out=x).real``: conjugate's result a temporary
        steps.temp(array_bytes(x.shape, x.dtype))
        ufunc_call(np.multiply, x, x, out=x)
        if x.dtype.kind == "c":
            x = ArrayMeta(x.shape, np.dtype(x.dtype.char.lower()), x.strides)
    ret = do_reduce(np.add, x, axes, dtype, out, kd, _NoValue, where, scal)
    is_array = stays_array(ret, scal)
    if is_array:
        _inplace(np.true_divide, ret, rcount if has_values(rcount) else np.intp(1),
                 casting="unsafe")
        steps.new(0 if out is not None else array_bytes(ret.shape, ret.dtype))
    else:  # the sum's 0-d array becomes a NumPy scalar
        steps.temp(array_bytes((), ret.dtype))
    if has_values(rcount):
        count = np.result_type(_INTP, type(ddof) if type(ddof) in (int, float) else ddof)
        steps.temp(3 * count.itemsize)  # um.maximum(rcount - ddof, 0): two 0-d inputs, a 0-d result
        if is_array:
            steps.temp(divide_by_count_bytes(ret.shape, ret.dtype, count))
        steps.free(held, dev)
        if not is_array:
            steps.keep(ret.dtype.itemsize)
        steps.done()
    return ret, scal


@register(np.var, "ndarray.var", tags=("reduction",), flops=flops.per_input(4))
def var(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
        keepdims: Any = _NoValue, *, where: Any = _NoValue, mean: Any = _NoValue,
        correction: Any = _NoValue) -> Any:
    """np.var / ndarray.var: the sum of squared deviations, divided in place."""
    check_ddof(ddof, correction)
    return final_result(var_steps(a, axis, dtype, out, ddof, keepdims, where, mean)[0])


@register(np.std, "ndarray.std", tags=("reduction",), flops=flops.per_input(4))
def std(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
        keepdims: Any = _NoValue, *, where: Any = _NoValue, mean: Any = _NoValue,
        correction: Any = _NoValue) -> Any:
    """np.std / ndarray.std: var, then sqrt in place."""
    check_ddof(ddof, correction)
    ret, scal = var_steps(a, axis, dtype, out, ddof, keepdims, where, mean)
    if stays_array(ret, scal):
        _inplace(np.sqrt, ret)
    return final_result(ret)


def check_ddof(ddof: Any, correction: Any) -> None:
    if correction is not _NoValue and ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")


@register(np.ptp, tags=("reduction",), flops=flops.per_input(2))
def ptp(a: Any, axis: Any = None, out: Any = None, keepdims: Any = _NoValue) -> Any:
    """np.ptp: subtract(max(a, out=out), min(a), out)."""
    hi = kw_reduce(np.maximum, a, axis, None, out, keepdims)
    lo = kw_reduce(np.minimum, a, axis, None, None, keepdims)
    out, _ = split_out(out, positional=True)
    res = ufunc_call(np.subtract, hi, lo, out=out)
    if out is None and res.ndim:  # _methods.py _ptp: the max and the min live with the result
        transient(2 * array_bytes(res.shape, res.dtype))
    elif out is None:  # NumPy scalars in: each a 0-d array beside the 0-d result
        transient(hi.dtype.itemsize + lo.dtype.itemsize)
    return final_result(res)


# --- argmin, argmax -------------------------------------------------------------

def _argminmax(a: Any, axis: Any, out: Any, keepdims: Any, name: str) -> Any:
    """_PyArray_ArgMinMaxCommon: a fresh C-contiguous intp result."""
    arr = as_meta(a)
    kd = False if keepdims is _NoValue else bool(keepdims)
    nd = arr.ndim
    if axis is None:
        m = arr.size
        oshape = (1,) * nd if kd else ()
    else:
        ax = normalize_axis(converters.index(axis), max(nd, 1))
        m = arr.shape[ax] if nd else 1
        if kd:
            oshape = tuple(1 if i == ax else n for i, n in enumerate(arr.shape))
        else:
            oshape = tuple(n for i, n in enumerate(arr.shape) if i != ax)
    if arr.dtype.kind == "V":
        raise UnsupportedOperationError(f"np.{name}", "structured dtypes")
    if m == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    if out is not None:
        if not is_meta(out):
            raise TypeError("output must be an array")
        if out.shape != oshape:
            raise ValueError(f"output array does not match result of np.{name}.")
        if not np.can_cast(_INTP, out.dtype, "unsafe"):
            raise TypeError(f"Cannot cast array data from {_INTP!r} to {out.dtype!r}")
        check_writeable(out)
        copy_out = not (out.dtype == _INTP and out.flags.c_contiguous and out.flags.aligned)
        transient(_argminmax_copies(arr, axis) + (out.size * _INTP.itemsize if copy_out else 0))
        return out
    transient(_argminmax_copies(arr, axis))
    if not oshape:  # PyArray_Return: a scalar
        transient(_INTP.itemsize)
        return ArrayMeta((), _INTP, (), scalar=True)
    return ArrayMeta(oshape, _INTP, c_strides(oshape, _INTP.itemsize))


def _argminmax_copies(arr: Any, axis: Any) -> int:
    """_PyArray_ArgMinMaxCommon (calculation.c) scans a native C-contiguous writeable array
    with the axis last: PyArray_CheckAxis ravels for axis None (a copy unless C-contiguous),
    the axis is transposed last, and PyArray_FromArray(NPY_ARRAY_DEFAULT) copies what is
    still not C-contiguous, aligned, writeable and native. (An ``out`` that is not a
    C-contiguous intp array is written through a copy.)"""
    nbytes = arr.size * arr.dtype.itemsize
    if axis is None or arr.ndim == 0:
        if not arr.flags.c_contiguous:
            return 2 * nbytes if not arr.dtype.isnative else nbytes
        contiguous = True
    else:
        ax = converters.axis(axis, arr.ndim)
        perm = [i for i in range(arr.ndim) if i != ax] + [ax]
        contiguous = contiguity(tuple(arr.shape[i] for i in perm),
                                tuple(arr.strides[i] for i in perm), arr.dtype.itemsize)[0]
    if contiguous and arr.flags.aligned and arr.flags.writeable and arr.dtype.isnative:
        return 0
    return nbytes


@register(np.argmax, "ndarray.argmax", tags=("reduction",))
def argmax(a: Any, axis: Any = None, out: Any = None, *, keepdims: Any = _NoValue) -> Any:
    """np.argmax / ndarray.argmax."""
    return _argminmax(a, axis, out, keepdims, "argmax")


@register(np.argmin, "ndarray.argmin", tags=("reduction",))
def argmin(a: Any, axis: Any = None, out: Any = None, *, keepdims: Any = _NoValue) -> Any:
    """np.argmin / ndarray.argmin."""
    return _argminmax(a, axis, out, keepdims, "argmin")


# --- accumulate, cumsum, cumprod --------------------------------------------------

def do_accumulate(ufunc: np.ufunc, arr: Any, ax: int, dtype: Any, out: Any) -> Any:
    """PyUFunc_Accumulate: same shape; NpyIter K order of the input for ndim > 1."""
    rdt = reduce_loop(ufunc, arr, dtype, out, True, "accumulate")
    # PyUFunc_Accumulate (ufunc_object.c) cannot buffer: an input of another dtype (or
    # misaligned) is copied whole (NPY_ITER_COPY), an out of another dtype or overlapping
    # the input is written through a copy (UPDATEIFCOPY, COPY_IF_OVERLAP)
    copies = cast_copy_bytes(arr, rdt)
    if out is not None:
        if out.shape != arr.shape:
            raise ValueError("provided out is the wrong size for the accumulation.")
        check_writeable(out)
        reduce_casts(ufunc, arr, dtype, out, "accumulate")
        if needs_cast_copy(out, rdt):
            copies += out.size * rdt.itemsize
        else:
            copies += overlap_copy_bytes([arr], out, rdt, elementwise=True)
        transient(copies)
        return out
    reduce_casts(ufunc, arr, dtype, out, "accumulate")
    transient(copies)
    shape, strides = reduce_strides(arr.shape, arr.strides, (), False, rdt.itemsize,
                                    [(arr.shape, arr.strides)])
    return ArrayMeta(shape, rdt, strides)


@register("ufunc.accumulate", tags=("reduction",))
def ufunc_accumulate(ufunc: np.ufunc, array: Any, axis: Any = _NoValue, dtype: Any = None,
                     out: Any = None) -> Any:
    """ufunc.accumulate."""
    check_reduce_ufunc(ufunc, "accumulate")
    out, _ = split_out(out)
    if out is not None:  # _set_out_array checks it before anything else
        check_writeable(out)
    arr = as_meta(array)
    return final_result(do_accumulate(ufunc, arr, single_axis(arr, axis, "accumulate"), dtype, out))


def single_axis(arr: Any, axis: Any, method: str) -> int:
    """The one axis accumulate and reduceat work along (PyUFunc_GenericReduction's checks)."""
    axes = _ufunc_axes(axis, arr.ndim)
    if arr.ndim == 0:
        raise TypeError(f"cannot {method} on a scalar")
    if len(axes) != 1:
        raise ValueError(f"{method} does not allow multiple axes")
    return axes[0]


def _cum(ufunc: np.ufunc, a: Any, axis: Any, dtype: Any, out: Any) -> Any:
    arr = as_meta(a)
    if (axis is None and arr.ndim != 1) or arr.ndim == 0:
        # PyArray_CheckAxis ravels what has more than one axis: a copy unless C-contiguous,
        # alive through the accumulate; else a view, which the accumulate copies when it is
        # misaligned (do_accumulate; the flat stand-in below is aligned)
        if arr.ndim > 1 and not arr.flags.c_contiguous:
            transient(arr.size * arr.dtype.itemsize)
        elif not arr.flags.aligned:
            transient(max(arr.size * arr.dtype.itemsize, 1))
        arr = ArrayMeta((arr.size,), arr.dtype, (arr.dtype.itemsize,))
    if axis is None:
        axis = -1
    ax = normalize_axis(converters.index(axis), arr.ndim)
    if out is not None and not is_meta(out):
        raise TypeError("return arrays must be of ArrayType")
    return final_result(do_accumulate(ufunc, arr, ax, dtype, out))


@register(np.cumsum, "ndarray.cumsum", tags=("reduction",))
def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """np.cumsum / ndarray.cumsum: np.add.accumulate (axis=None flattens)."""
    return _cum(np.add, a, axis, dtype, out)


@register(np.cumprod, "ndarray.cumprod", tags=("reduction",))
def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """np.cumprod / ndarray.cumprod: np.multiply.accumulate."""
    return _cum(np.multiply, a, axis, dtype, out)


# --- nan-functions, count_nonzero ---------------------------------------------------

def replace_nan(a: Any, val: Any = 0) -> tuple[Any, bool]:
    """replace_nan: inexact (and object) inputs are copied in K order, others kept.

    Recorded in ``steps()``: the mask (``isnan``, bool, K order), the copy, and the 0-d
    arrays of ``val`` in ``copyto(a, val, where=mask)``; mask and copy stay alive."""
    arr = as_meta(a)
    if arr.dtype.kind == "O" or issubclass(arr.dtype.type, np.inexact):
        c = like_copy(arr)
        st = steps()
        if arr.ndim:
            st.alloc(array_bytes(arr.shape, _BOOL))
        else:  # isnan of a 0-d array: a NumPy bool (its 0-d array freed)
            st.hold(1)
        st.alloc(array_bytes(arr.shape, arr.dtype))
        st.hold(scalar_bytes(val, arr.dtype)[1])
        return c, True
    return arr, False


def returned(res: Any) -> Any:
    """The result of a ``stepped`` composite, its fresh outputs recorded as allocated last."""
    steps().alloc(kept_bytes(res))
    return res


@register(np.nansum, tags=("reduction",))
def nansum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
           keepdims: Any = _NoValue, initial: Any = _NoValue, where: Any = _NoValue) -> Any:
    """np.nansum: np.sum of a K-order copy (inexact inputs)."""
    return _nan_reduction(sum_, a, axis, dtype, out, keepdims, initial, where)


def _nan_reduction(reduce: Any, a: Any, axis: Any, dtype: Any, out: Any, keepdims: Any,
                   initial: Any, where: Any) -> Any:
    """``reduce`` (sum or prod) of ``a`` with its NaNs replaced, and replace_nan's steps."""
    arr, _ = replace_nan(a)
    res = reduce(arr, axis, dtype, out, keepdims, initial, where)
    _nan_steps(a, res, out)
    return res


def _nan_steps(a: Any, res: Any, out: Any) -> None:
    """_nanfunctions_impl.py _replace_nan for inexact a (``mask = isnan(a)``, a copy, and
    ``copyto(a, 0, where=mask)``), alive while the reduction makes ``res``."""
    m = as_meta(a)
    if m.dtype.kind not in "fc":
        return
    steps = Steps()
    mask = steps.new(array_bytes(m.shape, _BOOL))
    if not m.ndim:  # isnan of a 0-d array: a NumPy bool (its 0-d array freed)
        steps.free(mask)
        mask = 0
    copy = steps.new(array_bytes(m.shape, m.dtype))
    steps.temp(copyto_bytes(m.dtype, 0))
    if out is None:
        steps.new(array_bytes(res.shape, res.dtype))
        if not res.shape:  # a NumPy scalar: its 0-d array dies; the fake's lives
            steps.free(array_bytes(res.shape, res.dtype))
            steps.keep(array_bytes(res.shape, res.dtype))
    steps.free(mask, copy)
    steps.done()


@register(np.nanprod, tags=("reduction",))
def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: Any = _NoValue, initial: Any = _NoValue, where: Any = _NoValue) -> Any:
    """np.nanprod: np.prod of a K-order copy (inexact inputs)."""
    return _nan_reduction(prod, a, axis, dtype, out, keepdims, initial, where)


def _nanminmax(ufunc, a, axis, out, keepdims, initial, where):
    arr = as_meta(a)
    if arr.dtype.kind == "O":
        raise UnsupportedOperationError(f"np.nan{ufunc.__name__[1:]}", "object arrays")
    out, scal = split_out(out)
    axes = _ufunc_axes(axis, arr.ndim)
    kd = False if keepdims is _NoValue else bool(keepdims)
    where = True if where is _NoValue else where
    r = do_reduce(ufunc, arr, axes, None, out, kd, initial, where, scal)
    shape = tuple(r.shape)
    scalar = type(r) is ArrayMeta and r.scalar
    res = final_result(r)
    # _nanfunctions_impl.py: ``if np.isnan(res).any()`` (the All-NaN warning): a bool array
    # like res and the 0-d array of any's result; of a scalar res, the 0-d array isnan
    # makes (as large as the reduction's, already counted) and its bool
    transient(1 if scalar else array_bytes(shape, _BOOL) + 1)
    return res


@register(np.nanmin, tags=("reduction",))
def nanmin(a: Any, axis: Any = None, out: Any = None, keepdims: Any = _NoValue,
           initial: Any = _NoValue, where: Any = _NoValue) -> Any:
    """np.nanmin: np.fmin.reduce on the input."""
    return _nanminmax(np.fmin, a, axis, out, keepdims, initial, where)


@register(np.nanmax, tags=("reduction",))
def nanmax(a: Any, axis: Any = None, out: Any = None, keepdims: Any = _NoValue,
           initial: Any = _NoValue, where: Any = _NoValue) -> Any:
    """np.nanmax: np.fmax.reduce on the input."""
    return _nanminmax(np.fmax, a, axis, out, keepdims, initial, where)


@register(np.nanargmin, tags=("reduction",))
def nanargmin(a: Any, axis: Any = None, out: Any = None, *, keepdims: Any = _NoValue) -> Any:
    """np.nanargmin (assumes no all-NaN slice: that ValueError depends on values)."""
    return _nanargminmax(a, axis, out, keepdims, "argmin", np.inf)


@register(np.nanargmax, tags=("reduction",))
def nanargmax(a: Any, axis: Any = None, out: Any = None, *, keepdims: Any = _NoValue) -> Any:
    """np.nanargmax (assumes no all-NaN slice: that ValueError depends on values)."""
    return _nanargminmax(a, axis, out, keepdims, "argmax", -np.inf)


def _nanargminmax(a: Any, axis: Any, out: Any, keepdims: Any, name: str, val: float) -> Any:
    """_nanfunctions_impl.py nanargmin/nanargmax: ``_replace_nan(a, val)`` (mask, copy,
    copyto), ``mask = np.all(mask, axis)`` (the old mask dropped), ``np.any(mask)``, then
    the arg-reduction of the copy (its own copies, _argminmax) while copy and mask live."""
    from .hidden import captured
    m = as_meta(a)
    arr, masked = replace_nan(a)
    with captured() as cap:
        res = _argminmax(arr, axis, out, keepdims, name)
    if not masked or m.dtype.kind == "O":
        transient(cap.transient)
        return res
    st = Steps()
    mask = st.new(array_bytes(m.shape, _BOOL))
    copy = st.new(array_bytes(m.shape, m.dtype))
    st.temp(copyto_bytes(m.dtype, val))
    if m.size:
        rshape = () if axis is None else tuple(
            n for i, n in enumerate(m.shape) if i != normalize_axis(converters.index(axis), m.ndim))
        reduced = st.new(array_bytes(rshape, _BOOL))
        st.free(mask)
        mask = reduced
        if not rshape:  # np.all gave a NumPy scalar; np.any makes a 0-d array of it
            st.free(mask)
            mask = 0
            st.temp(2)
        else:
            st.temp(1)
    fresh = kept_bytes(res) if out is None and res.shape else 0
    st.temp(cap.transient + fresh)
    st.new(fresh)
    st.free(mask, copy)
    st.done()
    return res


@register(np.nanmean, tags=("reduction",))
def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: Any = _NoValue, *, where: Any = _NoValue) -> Any:
    """np.nanmean: np.mean for exact types, else a sum of a copy divided in place."""
    arr, masked = replace_nan(a)
    if not masked:
        return mean(arr, axis, dtype, out, keepdims, where=where)
    if arr.dtype.kind == "O":
        raise UnsupportedOperationError("np.nanmean", "object arrays")
    if dtype is not None and not issubclass(np.dtype(dtype).type, np.inexact):
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and not issubclass(out.dtype.type, np.inexact):
        raise TypeError("If a is inexact, then out must be inexact")
    cnt = kw_reduce(np.add, ArrayMeta(arr.shape, _BOOL, arr.strides), axis, _INTP, None,
                     keepdims, _NoValue, where)
    tot = kw_reduce(np.add, arr, axis, dtype, out, keepdims, _NoValue, where)
    if out is not None or tot.ndim:  # out given, or an array: else a scalar, divided as one
        ufunc_call(np.divide, tot, cnt, out=tot, casting="unsafe")
        if where is _NoValue:
            _nanmean_steps(arr, cnt, tot, out)
    elif where is _NoValue:
        _nanmean_scalar_steps(arr, tot)
    if few_items(arr, np_axes(axis, arr.ndim), True if where is _NoValue else where, each=True):
        # ``isbad = cnt == 0``: certain for empty slices (all-NaN ones: the values)
        warn_few_items("Mean of empty slice")
    return final_result(tot)


def _nanmean_steps(arr: Any, cnt: Any, tot: Any, out: Any) -> None:
    """_nanfunctions_impl.py nanmean with an array result: replace_nan's mask, copy and
    copyto, ``cnt = sum(~mask, dtype=intp)``, ``tot = sum(arr)``, ``divide(tot, cnt,
    out=tot)`` (a small cnt is cast into a copy), ``isbad = (cnt == 0)``, ``isbad.any()``."""
    steps = Steps()
    mask = steps.new(array_bytes(arr.shape, _BOOL))
    copy = steps.new(array_bytes(arr.shape, arr.dtype))
    steps.temp(copyto_bytes(arr.dtype, 0))
    inv = steps.new(array_bytes(arr.shape, _BOOL))
    count = steps.new(array_bytes(cnt.shape, cnt.dtype))
    steps.free(inv)
    steps.new(0 if out is not None else array_bytes(tot.shape, tot.dtype))
    steps.temp(ufunc_bytes(np.divide, tot, cnt, out=tot, casting="unsafe"))
    steps.temp(ufunc_bytes(np.equal, cnt, 0) + remake_bytes(np.equal, cnt, 0))  # the 0's re-make
    bad = steps.new(array_bytes(cnt.shape, _BOOL) + ufunc_bytes(np.equal, cnt, 0))
    steps.temp(1)
    steps.free(bad, mask, copy, count)
    steps.done()


def _nanmean_scalar_steps(arr: Any, tot: Any) -> None:
    """nanmean to a scalar: as ``_nanmean_steps`` up to the sums, whose 0-d results become
    NumPy scalars (the fake's ``tot`` stays a 0-d meta, reported by ``final_result``); the
    division and ``isbad`` are scalar arithmetic."""
    steps = Steps()
    mask = steps.new(array_bytes(arr.shape, _BOOL))
    if not arr.ndim:  # isnan of a 0-d array: a NumPy bool (its 0-d array freed)
        steps.free(mask)
        mask = 0
    copy = steps.new(array_bytes(arr.shape, arr.dtype))
    steps.temp(copyto_bytes(arr.dtype, 0))
    if arr.ndim:
        inv = steps.new(array_bytes(arr.shape, _BOOL))
        steps.temp(_INTP.itemsize)
        steps.free(inv)
    else:  # ``~mask`` a NumPy bool: the sum makes its 0-d array, an intp cast and the result
        steps.temp(1 + 2 * _INTP.itemsize)
    item = steps.new(tot.dtype.itemsize)
    steps.free(item)
    # _divide_by_count: ``a.dtype.type(a / b)`` of two NumPy scalars (float32 / intp promotes)
    steps.temp(scalar_binop_bytes(np.true_divide, tot.dtype, _INTP))
    steps.keep(item)
    steps.free(mask, copy)
    steps.done()


@register(np.count_nonzero, tags=("reduction",))
def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
    """np.count_nonzero: without an axis an np.intp scalar (multiarray.count_nonzero, any
    dtype); with one an intp sum of a bool view or copy (numpy/_core/numeric.py)."""
    arr = as_meta(a)
    made = asarray_bytes(a)  # a sequence made an array, alive to the end
    if axis is None and not keepdims:
        transient(made)
        return ArrayMeta((), _INTP, (), scalar=True, pytype=None if COUNT_NONZERO_INTP else int)
    if arr.dtype.kind in "US":  # ``a != a.dtype.type()``: a bool array of the ufunc's layout
        b = step_input(ufunc_call(np.not_equal, arr, arr.dtype.type()))
        res = sum_(b, axis, _INTP, None, keepdims)
        transient(made + array_bytes(arr.shape, _BOOL))
        return res
    if arr.dtype.kind in "OVT":
        raise UnsupportedOperationError("np.count_nonzero", f"dtype {arr.dtype}")
    b = arr if arr.dtype == _BOOL else like_copy(arr, _BOOL)
    res = sum_(b, axis, _INTP, None, keepdims)
    # ``a.astype(bool, copy=False)``: a copy unless bool, alive while the sum runs
    transient(made + (0 if b is arr else array_bytes(arr.shape, _BOOL)))
    return res


# --- outer ---------------------------------------------------------------------------

@register("ufunc.outer", tags=("ufunc",))
def ufunc_outer(ufunc: np.ufunc, *args: Any, **kwargs: Any) -> Any:
    """ufunc.outer(A, B): the ufunc on A viewed with B.ndim trailing length-1 axes, and B."""
    if ufunc.signature is not None:
        raise TypeError("method outer is not allowed in ufunc with non-trivial signature")
    if ufunc.nin != 2:
        raise ValueError("outer product only supported for binary functions")
    if len(args) != 2:
        raise TypeError("exactly two arguments expected")
    a, b = as_meta(args[0]), as_meta(args[1])
    nd = a.ndim + b.ndim
    if nd > 64:
        raise ValueError(f"maximum supported dimension for an ndarray is 64, but "
                         f"`{ufunc.__name__}.outer()` result would have {nd}.")
    # a view of A (as aligned as A; a list's fresh array is aligned)
    view = ArrayMeta(a.shape + (1,) * b.ndim, a.dtype, a.strides + (a.dtype.itemsize,) * b.ndim,
                     None if type(a) is ArrayMeta else a)
    res = ufunc_call(ufunc, view, b, _report=True, **kwargs)
    # prepare_input_arguments_for_outer (ufunc_object.c): PyArray_FromObject of each operand
    # (a Python scalar becomes a 0-d array, an operand like any other), alive through the call
    transient(asarray_bytes(args[0]) + asarray_bytes(args[1]))
    return res


# --- cumulative_sum, cumulative_prod (numpy/_core/fromnumeric.py) ----------------------------

def _cumulative(ufunc: np.ufunc, x: Any, axis: Any, dtype: Any, out: Any,
                include_initial: bool) -> Any:
    """_cumulative_func: accumulate on atleast_1d(x); include_initial concatenates identity."""
    from .reductions import ufunc_accumulate
    m = as_meta(x)
    transient(asarray_bytes(x))  # atleast_1d of a sequence: its array, alive to the end
    if m.ndim == 0:
        m = ArrayMeta((1,), m.dtype, (m.dtype.itemsize,))
    if axis is None:
        if m.ndim >= 2:
            raise ValueError("For arrays which have more than one dimension "
                             "``axis`` argument is required.")
        axis = 0
    if out is not None and include_initial:
        ax = normalize_axis(axis, m.ndim)
        if out.ndim < m.ndim:
            raise IndexError("too many indices for array")
        o = along(out, out.ndim - m.ndim + ax, max(out.shape[out.ndim - m.ndim + ax] - 1, 0))
        o = o._replace(writeable=out.flags.writeable)
        ufunc_accumulate(ufunc, m, axis=axis, dtype=dtype, out=o)
        return out
    res = ufunc_accumulate(ufunc, m, axis=axis, dtype=dtype, out=out)
    if include_initial:
        from .creation import full_like
        from .shape_base import concatenate
        r = chainable(res)
        ax = normalize_axis(axis, r.ndim)
        init = chainable(full_like(r, ufunc.identity, shape=r.shape[:ax] + (1,) + r.shape[ax + 1:]))
        return concatenate([init, r], axis=ax)
    return res


@register(np.cumulative_sum, tags=("reduction",))
def cumulative_sum(x: Any, /, *, axis: Any = None, dtype: Any = None, out: Any = None,
                   include_initial: bool = False) -> Any:
    """np.cumulative_sum: np.add.accumulate on atleast_1d(x)."""
    return _cumulative(np.add, x, axis, dtype, out, include_initial)


@register(np.cumulative_prod, tags=("reduction",))
def cumulative_prod(x: Any, /, *, axis: Any = None, dtype: Any = None, out: Any = None,
                    include_initial: bool = False) -> Any:
    """np.cumulative_prod: np.multiply.accumulate on atleast_1d(x)."""
    return _cumulative(np.multiply, x, axis, dtype, out, include_initial)
