"""Statistics and related Python-level NumPy functions: partition, median, nan-variants of
cumulative reductions, diff, gradient-like differences, elementwise helpers (angle, sinc,
i0, nan_to_num, ...), histograms, convolve (np.cross is in numeric.py).

Each kernel replays NumPy's own composition (numpy/lib/_function_base_impl.py,
_nanfunctions_impl.py, _histograms_impl.py, numpy/_core/numeric.py) on fresh ``ArrayMeta``
intermediates, so the final result has the layout NumPy's last step gives it. Checks that
read values (NaN scans that only warn or replace values) are skipped: they change values,
never layouts. Results whose shape or dtype depend on values raise DataDependentError.
"""
from __future__ import annotations

import math
import operator
from builtins import range as builtins_range
import warnings
from typing import Any

import numpy as np
from numpy._core import umath as _umath

from .convert_datatype import cast_loop
from ..._errors import DataDependentError, UnsupportedOperationError
from ..._numpy_version import DEPRECATIONS_EXPIRED_23, QUANTILE_WEAK_Q, ufunc_array
from ...layout import (broadcast_shapes, c_strides, like_strides, reshape_strides,
                     normalize_axis, normalize_axes)
from ... import _known, converters
from ...meta import ArrayMeta, as_meta, check_writeable, is_fake, is_meta, nested_fakes
from .reductions import final_result, stays_array, like_copy, mean_steps
from .hidden import captured, stepped, steps
from .sorting import kth_bytes, sort_buffer_bytes
from .. import flops
from ..registry import (pyarray_return, quiet, register, scalar_result, transient, uncached,
                        unmodelled)
from .temporaries import (Steps, Val, array_bytes, asarray_bytes, binary, call, copyto_bytes,
                          divide_by_count_bytes, partition_bytes, setitem_bytes, take_bytes,
                          ufunc_bytes, unary, used)
from .umath import ufunc_call

_NoValue = np._NoValue
_INTP = np.dtype(np.intp)
BOOL = np.dtype(bool)
_F8 = np.dtype("f8")


# --- intermediates ---------------------------------------------------------------------

def c_fresh(shape: tuple, dtype: Any) -> ArrayMeta:
    """A fresh C-contiguous intermediate."""
    dt = np.dtype(dtype)
    shape = tuple(shape)
    return ArrayMeta(shape, dt, c_strides(shape, dt.itemsize))


def _view(m: Any, shape: tuple, strides: tuple) -> ArrayMeta:
    """A view of an intermediate (layout only: offsets of temporaries do not matter)."""
    return ArrayMeta(tuple(shape), m.dtype, tuple(strides))


def _of_tmp(m: Any, tmp: Any) -> ArrayMeta:
    """The final result ``m``: a view of the temporary ``tmp`` (owndata False, own storage)."""
    return ArrayMeta(m.shape, m.dtype, m.strides, base_shape=tuple(tmp.shape))


def _moveaxis(m: Any, src: int, dst: int) -> ArrayMeta:
    order = [i for i in range(m.ndim) if i != src]
    order.insert(dst, src)
    return _view(m, tuple(m.shape[i] for i in order), tuple(m.strides[i] for i in order))


def _reshape(m: Any, shape: tuple) -> tuple[ArrayMeta, bool]:
    """(result, copied) of ``m.reshape(shape)`` in C order (copy: a C array, a view of it)."""
    shape, st = reshape_strides(m.shape, m.strides, m.dtype.itemsize, shape)
    if st is None:
        return c_fresh(shape, m.dtype), True
    return _view(m, shape, st), False


def _index_of(x: Any, name: str) -> int:
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer") from None


def _values(x: Any, name: str) -> np.ndarray:
    """A small argument whose values matter (kth, bins, ...): real, never a fake."""
    if hasattr(x, "storage_offset"):
        raise DataDependentError(f"{name}: values of a fake array")
    return np.asarray(x)


def _numeric(m: Any, name: str, kinds: str = "biufc") -> None:
    if m.dtype.kind not in kinds:
        raise UnsupportedOperationError(name, f"dtype {m.dtype}")


# --- partition, argpartition ----------------------------------------------------------------

def _kth_check(kth: Any, shape: tuple, axis: int) -> None:
    """partition_prep_kth_array (item_selection.c): bool/int checks, rank, bounds."""
    k = _values(kth, "np.partition")
    if k.dtype == BOOL:
        if DEPRECATIONS_EXPIRED_23:
            raise ValueError("Booleans unacceptable as partition index")
        warnings.warn("Passing booleans as partition index is deprecated (warning added in "
                      "NumPy 1.22)", DeprecationWarning, stacklevel=2)
        k = k.astype(_INTP)
    if k.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if k.ndim > 1:
        raise ValueError("kth array must have dimension <= 1")
    n = shape[axis]
    size = 1
    for d in shape:
        size *= d
    for i in k.reshape(-1).astype(np.intp):
        v = int(i) + n if i < 0 else int(i)
        if size and not 0 <= v < n:
            raise ValueError(f"kth(={v}) out of bounds ({n})")


def _sortable(m: Any, order: Any, name: str) -> None:
    if order is not None and m.dtype.names is None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if m.dtype.kind in "OV":
        raise UnsupportedOperationError(name, f"dtype {m.dtype}")


def _partitioned(m: Any, kth: Any, axis: Any, kind: Any = "introselect",
                 order: Any = None) -> ArrayMeta:
    """np.partition's copy (flatten for axis None, else a K-order copy), checked."""
    if axis is None:
        part = c_fresh((m.size,), m.dtype)
        ax = 0
    else:
        part = like_copy(m)
        ax = normalize_axis(axis, part.ndim)
    converters.selectkind(kind)
    _sortable(part, order, "np.partition")
    _kth_check(kth, part.shape, ax)
    transient(kth_bytes(kth) + sort_buffer_bytes(part, ax, False))
    return part


@register(np.partition, tags=("copy",))
def partition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
              order: Any = None) -> ArrayMeta:
    """np.partition: a K-order copy (C 1-d for axis None) partitioned in place."""
    return final_result(_partitioned(as_meta(a), kth, axis, kind, order))


partition.keep_real = (1, "kth")


@register(np.argpartition, tags=("copy",))
def argpartition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
                 order: Any = None) -> ArrayMeta:
    """ndarray.argpartition: fresh C intp of the input's shape (0-d and axis None: 1-d)."""
    m = as_meta(a)
    if axis is None or m.ndim == 0:
        shape = (m.size,)
        ax = converters.axis_index(-1 if axis is None else axis, 1, None, False,
                                   "an integer is required for the axis")
    else:
        shape = m.shape
        ax = converters.axis(axis, m.ndim)
    converters.selectkind(kind)
    _sortable(m, order, "np.argpartition")
    _kth_check(kth, shape, ax)
    if axis is None or m.ndim == 0:  # PyArray_CheckAxis ravels: a copy unless C-contiguous
        flat = c_fresh(shape, m.dtype)
        transient(0 if m.flags.c_contiguous else m.size * m.dtype.itemsize)
    else:
        flat = m
    transient(kth_bytes(kth) + sort_buffer_bytes(flat, ax, True))
    return ArrayMeta(shape, _INTP, c_strides(shape, _INTP.itemsize))


argpartition.keep_real = (1, "kth")


@register("ndarray.partition", tags=("inplace",))
def ndarray_partition(self: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
                      order: Any = None) -> None:
    """In place (array_partition, numpy/_core/src/multiarray/methods.c, then
    PyArray_Partition in item_selection.c): kind and order first, then the axis (an int,
    never None), the writeable check, the kth checks; the sort buffer of a strided axis
    (see sort_buffer_bytes) and the kth array are the call's transients."""
    converters.selectkind(kind)
    if axis is None or isinstance(axis, (float, complex)):
        raise TypeError(f"{type(axis).__name__!r} object cannot be interpreted as an integer")
    _sortable(self, order, "ndarray.partition")
    ax = converters.axis(axis, self.ndim)
    check_writeable(self, "partition array")
    _kth_check(kth, self.shape, ax)
    transient(kth_bytes(kth) + sort_buffer_bytes(self, ax, False))
    return None


ndarray_partition.keep_real = (1, "kth")
register("ndarray.argpartition", tags=("copy",))(argpartition)  # np.argpartition calls it


# --- median (via _ureduce) -----------------------------------------------------------------

def _out_slot(out: Any, axes: tuple | None, nd: int) -> Any:
    """``out[(..., 0 on reduced axes, : elsewhere)]`` of ureduce with keepdims."""
    sel = [i in axes if axes is not None else True for i in range(nd)]
    if out.ndim < nd:
        raise IndexError(f"too many indices for array: array is {out.ndim}-dimensional, "
                         f"but {nd} were indexed")
    lead = out.ndim - nd
    for i, s in enumerate(sel):
        if s and out.shape[lead + i] == 0:
            raise IndexError(f"index 0 is out of bounds for axis {lead + i} with size 0")
    keep = list(range(lead)) + [lead + i for i, s in enumerate(sel) if not s]
    return ArrayMeta(tuple(out.shape[i] for i in keep), out.dtype,
                     tuple(out.strides[i] for i in keep), writeable=out.flags.writeable)


def ureduce(a: Any, func: Any, keepdims: Any, axis: Any, out: Any, _name: str = "np.median",
             **kw: Any) -> Any:
    """ureduce: axis tuples merged into one trailing axis (weights= with them), keepdims
    by newaxis views."""
    m = as_meta(a)
    kd = False if keepdims is _NoValue else bool(keepdims)
    nd = m.ndim
    axes = None
    inner_out = out
    if out is not None and not is_meta(out):
        raise UnsupportedOperationError(_name, "a non-array out")
    if axis is not None:
        axes = normalize_axes(axis, nd, None)
        if kd and out is not None:
            inner_out = _out_slot(out, axes, nd)
        if len(axes) == 1:
            ax = axes[0]
        else:
            keep = [i for i in range(nd) if i not in axes]
            order = keep + [i for i in range(nd) if i not in keep]
            mv = _view(m, tuple(m.shape[i] for i in order), tuple(m.strides[i] for i in order))
            n = 1
            for i in axes:
                n *= m.shape[i]
            if 0 in mv.shape[:len(keep)]:
                raise ValueError(f"cannot reshape array of size 0 into shape "
                                 f"{mv.shape[:len(keep)] + (-1,)}")
            m, copied = _reshape(mv, mv.shape[:len(keep)] + (n,))
            if copied:  # the reshaped copy lives while func runs
                transient(array_bytes(m.shape, m.dtype))
            w = kw.get("weights")
            if w is not None:  # reshape_arr(weights): the same moveaxis and reshape
                w = as_meta(w)
                wv = _view(w, tuple(w.shape[i] for i in order), tuple(w.strides[i] for i in order))
                kw["weights"], wcopied = _reshape(wv, wv.shape[:len(keep)] + (-1,))
                if wcopied:
                    transient(array_bytes(kw["weights"].shape, w.dtype))
            ax = -1
    else:
        ax = None
        if kd and out is not None:
            inner_out = _out_slot(out, None, nd)
    r = func(m, ax, inner_out, **kw)
    if out is not None:
        return out
    if kd:
        shape = tuple(1 if axes is None or i in axes else None for i in range(nd))
        lead = r.ndim - sum(1 for s in shape if s is None)  # quantile's q axes come first
        rs = list(r.shape[lead:])
        st = list(r.strides[lead:])
        newshape, newstrides = list(r.shape[:lead]), list(r.strides[:lead])
        for s in shape:
            if s == 1:
                newshape.append(1)
                newstrides.append(0)
            else:
                newshape.append(rs.pop(0))
                newstrides.append(st.pop(0))
        return ArrayMeta(tuple(newshape), r.dtype, tuple(newstrides), base_shape=tuple(r.shape))
    return final_result(r)


def _median(m: Any, axis: Any, out: Any) -> Any:
    """_median: partition a copy, mean of the middle one or two entries along the axis.

    Recorded in ``steps()`` (numpy/lib/_function_base_impl.py, _median): the partitioned
    copy, partition's kth arrays and axis buffer, the mean (its own buffers with it), and
    _median_nancheck's ``take(-1)``, ``isnan`` of it and ``any()``; the copy dies last."""
    _numeric(m, "np.median")
    part = like_copy(m) if axis is not None else c_fresh((m.size,), m.dtype)
    ax = 0 if axis is None else normalize_axis(axis, part.ndim)
    n = part.shape[ax]
    width = 1 if n % 2 else min(2, n)  # slice(-1, 1) of an empty axis is empty
    sl = _view(part, part.shape[:ax] + (width,) + part.shape[ax + 1:], part.strides)
    # _function_base_impl.py _median: partition(a, kth) copies a (kth becomes an intp array
    # in PyArray_Partition), the mean of the middle entries, then _median_nancheck's
    # ``isnan(part.take(-1, axis)).any()`` for inexact types (its NaN branch needs values)
    steps = Steps()
    copy = steps.new(array_bytes(part.shape, part.dtype))
    nans = part.dtype.kind in "fcmM"
    steps.temp(partition_bytes(part.shape, part.strides, part.dtype, ax,
                               (2 if n and n % 2 == 0 else 1) + nans))
    res = mean_steps(sl, ax, None, out, _NoValue, _NoValue, steps)
    if nans and n:
        rest = part.shape[:ax] + part.shape[ax + 1:]
        tmp = steps.new(take_bytes(part.shape, part.strides, part.dtype, 1))
        taken = steps.new(array_bytes(rest, part.dtype))
        steps.free(tmp)
        flags = steps.new(array_bytes(rest, BOOL))
        steps.temp(1)
        steps.free(taken, flags)
    steps.free(copy)
    if not stays_array(res, out is None):  # a NumPy scalar; the fake's 0-d array comes last
        steps.keep(res.dtype.itemsize)
    steps.done()
    return res


@register(np.median, tags=("reduction",))
def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
    """np.median: ureduce over _median (overwrite_input partitions the input instead)."""
    if overwrite_input:
        raise UnsupportedOperationError("np.median", "overwrite_input=True")
    return ureduce(a, _median, keepdims, axis, out)


# --- quantile, percentile (via _ureduce) --------------------------------------------------
# numpy/lib/_function_base_impl.py quantile / percentile / _quantile_ureduce_func / _quantile.
# The result dtype comes from NumPy's own _quantile run on a stand-in of at most one element
# per axis (dtype rules and dtype errors only depend on dtypes and on ``weak_q``); shapes and
# layouts are replayed. Value checks on fake q or fake weights (q in [0, 1], weights >= 0) are
# skipped: they only raise.

def _fb() -> Any:
    import numpy.lib._function_base_impl as fb
    return fb


_Q_SMALL = 64  # a real q array of more elements is taken by its metadata, as a fake q


def _q_arg(q: Any, percent: bool, dt: np.dtype) -> tuple[Any, bool]:
    """(q as _quantile sees it: a meta for a fake q, else a small real array, weak_q).

    A real q array of more than _Q_SMALL elements is taken as a fake one (no work in
    proportion to it inside a mode): its range is not checked; so is a list holding fakes
    (the array NumPy stacks it into). Before NumPy 2.4 (``QUANTILE_WEAK_Q``) there is no
    weak q: quantile casts a Python number q to a float ``a``'s dtype, percentile divides
    by 100 of that dtype (2.3 numpy/lib/_function_base_impl.py quantile, percentile)."""
    weak = type(q) in (int, float) and QUANTILE_WEAK_Q
    hundred: Any = 100 if QUANTILE_WEAK_Q or dt.kind != "f" else dt.type(100)
    if is_meta(q) or nested_fakes(q) or (isinstance(q, np.ndarray) and q.size > _Q_SMALL):
        qm = ArrayMeta(tuple(q.shape), q.dtype, tuple(q.strides)) \
            if isinstance(q, np.ndarray) else as_meta(q)
        if percent:
            qm = _m(ufunc_call(np.true_divide, qm, hundred, out=Ellipsis))
        if qm.size == 0 and qm.ndim != 1:  # _quantile_is_valid: q.min() of an empty q
            raise ValueError("zero-size array to reduction operation minimum which has no identity")
        unmodelled("quantile of a q without values (a fake, or a real array of more than "
                   f"{_Q_SMALL} elements): how many partition indices, and _get_indexes' "
                   "fixes at the bounds, depend on q's values")
        return qm, weak
    if percent:
        real = ufunc_array(np.true_divide, q, hundred)
    elif not QUANTILE_WEAK_Q and isinstance(q, (int, float)) and dt.kind == "f":
        real = np.asanyarray(q, dtype=dt)
    else:
        real = np.asanyarray(q)
    if not _fb()._quantile_is_valid(real):
        raise ValueError("Percentiles must be in the range [0, 100]" if percent
                         else "Quantiles must be in the range [0, 1]")
    return real, weak


def quantile_args(a: Any, q: Any, axis: Any, method: Any, weights: Any, percent: bool) -> tuple:
    """The checks _quantile_is_valid / _nanquantile_unchecked's callers make first, in NumPy's
    order: real data, then q, then weights. Returns (a's meta, q, q is weak, weights)."""
    m = as_meta(a)
    if m.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    qv, weak = _q_arg(q, percent, m.dtype)
    w = None if weights is None else _weights_check(weights, m, axis, method)
    return m, qv, weak, w


def _weights_check(weights: Any, m: Any, axis: Any, method: Any) -> Any:
    """quantile's weights checks (_weights_are_valid): the weights as a meta shaped like a."""
    if method != "inverted_cdf":
        raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
    axes = normalize_axes(axis, m.ndim, None) if axis is not None else None
    if not is_meta(weights):
        real = np.asanyarray(weights)
        if real.size <= _Q_SMALL and np.any(real < 0):  # larger ones: as a fake's, unchecked
            raise ValueError("Weights must be non-negative.")
        w = ArrayMeta(real.shape, real.dtype, real.strides)
    else:
        w = as_meta(weights)
    if tuple(w.shape) != tuple(m.shape):
        if axes is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if tuple(w.shape) != tuple(m.shape[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        perm = sorted(builtins_range(len(axes)), key=lambda i: axes[i])  # argsort(axis)
        wt = _view(w, tuple(w.shape[i] for i in perm), tuple(w.strides[i] for i in perm))
        w, _ = _reshape(wt, tuple(s if ax in axes else 1 for ax, s in enumerate(m.shape)))
    return w


_BAD_WEIGHTS = "Weights included NaN, inf or were all zero."


def check_weight_totals(weights: Any, a: Any, m: Any, axis: Any, nan_skipping: bool) -> None:
    """NumPy's ``_quantile`` divides the weights' cumulative sum by its last value and raises
    ValueError when that gives NaN: a total over the reduced axes that is zero, NaN or
    infinite (numpy/lib/_function_base_impl.py). Checked where the weights' values are known
    (faketensor/_known.py); unknown weights cannot raise it (docs/guide/known-values.md).
    ``nan_skipping`` (nanquantile): the weights of NaN elements are dropped, and a slice that
    is all NaN gives NaN without the check, so a's values decide: known, they are used;
    unknown, a total that would raise is a DataDependentError."""
    if weights is None or m.size == 0:
        return
    vals = _known_values(weights)
    if vals is None or (not is_fake(weights) and vals.size > _Q_SMALL):
        return  # a larger real array is taken as a fake's, as the non-negativity check
    axes = None if axis is None else normalize_axes(axis, m.ndim, None)
    with np.errstate(all="ignore"):
        v = vals.astype(np.float64)
        if v.shape != tuple(m.shape) and axes is not None:  # weights of the reduced axes
            v = v.transpose(sorted(builtins_range(len(axes)), key=lambda i: axes[i]))
            v = np.broadcast_to(np.expand_dims(v, tuple(i for i in builtins_range(m.ndim)
                                                        if i not in axes)), m.shape)
        if nan_skipping:
            av = _known_values(a)
            if av is None:
                if _bad_totals(v.sum(axis=axes)):
                    raise DataDependentError(
                        "nanquantile weights: whether they raise depends on where the values "
                        "are NaN (their weights are dropped; a slice all NaN gives NaN)")
                return
            nan = np.isnan(av)
            v = np.where(nan, 0.0, v)
            bad = _bad_totals(v.sum(axis=axes), ~nan.all(axis=axes))
        else:
            bad = _bad_totals(v.sum(axis=axes))
    if bad:
        raise ValueError(_BAD_WEIGHTS)


def _bad_totals(total: Any, checked: Any = True) -> bool:
    """Whether a total NumPy divides by gives NaN (zero, NaN or infinite) where checked."""
    return bool(np.any(((total == 0) | ~np.isfinite(total)) & checked))


def _standin(shape: tuple, dt: np.dtype) -> np.ndarray:
    """Zeros of ``dt`` with at most one element per axis (empty axes stay empty)."""
    return np.zeros(tuple(min(d, 1) for d in shape), dt)


def quantile_func(m: Any, axis: Any, out: Any, q: Any, weights: Any, overwrite_input: Any,
                   method: Any, weak_q: bool, name: str, q_held: int = 0) -> Any:
    """_quantile_ureduce_func and _quantile: a C copy of a (a.flatten() for axis None, a
    itself with overwrite_input), partitioned (or argsorted for weights), read at the
    quantiles' indices: a fresh C array of shape q.shape + the kept axes."""
    fb = _fb()
    if q.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    if axis is None:
        arr = c_fresh((m.size,), m.dtype)
        copied = not (overwrite_input and m.flags.c_contiguous)
        ax = 0
    else:
        arr = m if overwrite_input else c_fresh(m.shape, m.dtype)
        copied = not overwrite_input
        ax = normalize_axis(axis, m.ndim)
    n = arr.shape[ax]
    rest = arr.shape[:ax] + arr.shape[ax + 1:]
    if weights is None and method not in fb._QuantileMethods:
        raise ValueError(f"{method!r} is not a valid method. Use one of: "
                         f"{fb._QuantileMethods.keys()}")
    # dtypes (and NumPy's dtype errors) from NumPy's own _quantile on a stand-in
    sa = _standin((n,) + rest, arr.dtype)
    sq = q if isinstance(q, np.ndarray) else _standin(q.shape, q.dtype)
    sq = sq if sq.ndim == 0 else _standin(sq.shape, sq.dtype)  # dtypes only: one element
    sw = None if weights is None else np.ones(sa.shape, as_meta(weights).dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        since_24 = {"weak_q": weak_q} if QUANTILE_WEAK_Q else {}
        r = fb._quantile(sa, quantiles=sq, axis=0, method=method, out=None, weights=sw,
                         **since_24)
    dt = np.dtype(object) if arr.dtype.kind == "O" else r.dtype
    shape = tuple(q.shape) + rest
    if dt.kind == "O" and not shape:
        raise DataDependentError(f"{name} of an object array to a 0-d result is a Python object "
                                 "whose type depends on the values")
    _quantile_steps(arr, ax, shape, dt, q, weights, method, weak_q, copied, out, q_held)
    if weights is not None:
        moved = _moveaxis(arr, ax, 0)
        from .sorting import argsort as _argsort
        from .indexing import take_along_axis as _tala
        from ..registry import quiet
        with quiet():
            idx = _argsort(moved, axis=0)
            srt = _tala(moved, idx, axis=0)
        if out is not None:
            if tuple(out.shape) != shape:
                raise ValueError(f"Wrong shape of argument 'out', shape={shape} is required; "
                                 f"got shape={tuple(out.shape)}.")
            check_writeable(out)
            return out
        if len(shape) == srt.ndim:  # empty_like(arr, shape=...): arr's order (K)
            return ArrayMeta(shape, dt, like_strides(shape, srt.strides, dt.itemsize,
                                                     srt.flags.c_contiguous, srt.flags.f_contiguous))
        return c_fresh(shape, dt)
    if out is not None:
        res = ArrayMeta(shape, arr.dtype, c_strides(shape, arr.dtype.itemsize))
        if dt == arr.dtype and _discrete(method, sq, n):
            from .indexing import take_meta
            return take_meta(_moveaxis(arr, ax, 0), ArrayMeta(tuple(q.shape), _INTP,
                                                          c_strides(tuple(q.shape), 8)),
                         0, out, "clip")
        pdt = _prod_dtype(arr.dtype, sq, n, method, weak_q)
        pm = ArrayMeta(shape, pdt, c_strides(shape, pdt.itemsize))
        return ufunc_call(np.add, res, pm, out=out)
    if not shape:
        return ArrayMeta((), dt, (), scalar=True)
    return c_fresh(shape, dt)


def _discrete(method: str, sq: Any, n: int) -> bool:
    """_quantile's take branch: methods without gamma, or linear on integer indices."""
    props = _fb()._QuantileMethods[method]
    if props["fix_gamma"] is None:
        return True
    vi = np.asanyarray(props["get_virtual_index"](max(n, 1), sq))
    return method == "linear" and np.issubdtype(vi.dtype, np.integer)


def _gamma(sq: Any, n: int, method: str, weak_q: bool) -> Any:
    """_lerp's ``t`` on the stand-in q: a Python float (weak_q) or an array of gamma's dtype."""
    fb = _fb()
    props = fb._QuantileMethods[method]
    vi = np.asanyarray(props["get_virtual_index"](max(n, 1), sq))
    prev, _ = fb._get_indexes(np.zeros(1), vi, max(n, 1))
    g = fb._get_gamma(vi, prev, props)
    return float(g) if weak_q else g


def _kth_count(q: Any, dt: np.dtype, n: int, method: str) -> int:
    """How many distinct partition indices _quantile's lerp branch asks for: computed from a
    real q (the indexes depend on q and the axis length only); for a fake q, the most."""
    if not isinstance(q, np.ndarray):
        return 2 + 2 * math.prod(q.shape)
    fb = _fb()
    vi = np.asanyarray(fb._QuantileMethods[method]["get_virtual_index"](n, q))
    with np.errstate(all="ignore"):
        prev, nxt = fb._get_indexes(np.zeros(1, dt), vi, n)
    return len(np.unique(np.concatenate(([0, -1], prev.ravel(), nxt.ravel()))))


def _prod_dtype(dt: np.dtype, sq: Any, n: int, method: str, weak_q: bool) -> np.dtype:
    """The dtype of _lerp's ``diff_b_a * t``."""
    if dt.kind == "O":
        return dt
    d = np.zeros((), dt)
    return np.asarray((d - d) * _gamma(sq, n, method, weak_q)).dtype


def _quantile_steps(arr: Any, ax: int, shape: tuple, dt: np.dtype, q: Any, weights: Any,
                    method: str, weak_q: bool, copied: bool, out: Any, q_held: int = 0) -> None:
    """The input-sized buffers of _quantile, in order: the copy of a, partition's lane
    buffer, NaN check of the last row, then (take) the result, or (lerp) ``previous`` and
    ``next`` (arr[indices]), ``b - a``, ``diff * t``, the result and the second
    ``diff * (1 - t)``. The small arrays of q's size are not counted."""
    steps = Steps()
    qb = steps.new(q_held)
    copy = steps.new(array_bytes(arr.shape, arr.dtype) if copied else 0)
    rest = arr.shape[:ax] + arr.shape[ax + 1:]
    nans = arr.dtype.kind in "fcmM"
    if weights is not None:
        # argsort (its lane buffers), take_along_axis of arr and of the weights, the float64
        # cumsum and, for a float q, its astype copy; the result; all live until the return
        moved = _moveaxis(arr, ax, 0)
        from .sorting import sort_buffer_bytes
        idx = steps.new(array_bytes(arr.shape, _INTP))
        steps.temp(sort_buffer_bytes(moved, 0, True))
        srt = steps.new(array_bytes(arr.shape, arr.dtype))
        w = steps.new(array_bytes(arr.shape, as_meta(weights).dtype))
        nanmask = steps.new(array_bytes(rest, BOOL) if nans else 0)
        cdf = steps.new(array_bytes(arr.shape, _F8))
        if q.dtype.kind == "f":
            cdf2 = steps.new(array_bytes(arr.shape, q.dtype))
            steps.free(cdf)
            cdf = cdf2
        steps.new(0 if out is not None else array_bytes(shape, dt))
        steps.free(qb, idx, copy, srt, w, cdf, nanmask)
        steps.done()
        return
    moved = _moveaxis(arr, ax, 0)
    sq = q if isinstance(q, np.ndarray) else _standin(q.shape, q.dtype)
    if _discrete(method, sq, arr.shape[ax]):
        # virtual_indexes; ``partition(concatenate((vi.ravel(), [-1])))`` (without the -1
        # for types without NaN): the kth array, then partition's own buffers
        qn = math.prod(q.shape)
        vdt = np.asanyarray(_fb()._QuantileMethods[method]["get_virtual_index"](
            max(arr.shape[ax], 1), sq)).dtype
        vi = steps.new(array_bytes(tuple(q.shape), vdt))
        kth = steps.new(8 * (qn + 1) if nans else 0)
        # an intp kth array is used as is; PyArray_Partition sorts a copy of it
        steps.temp(partition_bytes(moved.shape, moved.strides, moved.dtype, 0, 0)
                   + 8 * (qn + nans))
        steps.free(kth)
        # isnan(arr[-1, ...]), or np.array(False) for types without NaN
        nanmask = steps.new(array_bytes(rest, BOOL) if nans else 1)
        res = steps.new(0 if out is not None else array_bytes(shape, dt))
        # take's index conversion makes nothing for intp indices, only the C copy of arr
        steps.temp(take_bytes(moved.shape, moved.strides, moved.dtype, 0 if vdt == _INTP else qn))
        if not shape and out is None:  # take's 0-d result becomes a NumPy scalar
            steps.free(res)
            steps.keep(res)
        steps.free(qb, vi, copy, nanmask)
        steps.done()
        return
    qs = tuple(q.shape)
    qn = math.prod(qs)
    n = arr.shape[ax]
    vdt = np.asanyarray(_fb()._QuantileMethods[method]["get_virtual_index"](max(n, 1), sq)).dtype
    # virtual_indexes, previous_indexes and next_indexes (intp)
    small = [steps.new(array_bytes(qs, vdt)), steps.new(2 * array_bytes(qs, _INTP))]
    # kth = unique(concatenate(([0, -1], previous.ravel(), next.ravel()))): the concatenation,
    # unique's flattened copy and its k distinct values; partition sorts a copy of them
    k = _kth_count(q, arr.dtype, n, method)
    cat = steps.new(8 * (2 + 2 * qn))
    steps.temp(8 * (2 + 2 * qn) + 8 * k)
    steps.free(cat)
    kth = steps.new(8 * k)
    steps.temp(partition_bytes(moved.shape, moved.strides, moved.dtype, 0, 0) + 8 * k)
    steps.free(kth)
    nanmask = steps.new(array_bytes(rest, BOOL) if nans else 0)
    small.append(steps.new(0 if weak_q else array_bytes(qs, vdt)))  # gamma
    if not shape:  # 0-d indices: previous, next and their products are NumPy scalars
        steps.new(0 if out is not None else array_bytes(shape, dt))
        steps.free(*small)
        diff = prev = nxt = 0
    else:
        part = array_bytes(shape, arr.dtype)
        prev, nxt = steps.new(part), steps.new(part)
        diff = steps.new(part)
        pdt = _prod_dtype(arr.dtype, sq, n, method, weak_q)
        pm = ArrayMeta(shape, arr.dtype, c_strides(shape, arr.dtype.itemsize))
        prodm = ArrayMeta(shape, pdt, c_strides(shape, pdt.itemsize))
        tshape = qs + (1,) * len(rest)
        t = 0.5 if weak_q else ArrayMeta(tshape, vdt, c_strides(tshape, vdt.itemsize))
        prod = array_bytes(shape, pdt)
        resm = ArrayMeta(shape, dt, c_strides(shape, dt.itemsize))
        tmp = steps.new(prod + ufunc_bytes(np.multiply, pm, t))  # diff_b_a * t
        steps.free(tmp - prod)
        steps.new(0 if out is not None else array_bytes(shape, dt))
        steps.temp(ufunc_bytes(np.add, pm, prodm, out=out if out is not None else None))
        steps.free(prod)
        one_minus_t = 0 if weak_q else steps.new(array_bytes(qs, vdt))  # ``1 - t``
        tmp = steps.new(prod + ufunc_bytes(np.multiply, pm, 0.5 if weak_q else t))
        steps.free(tmp - prod, one_minus_t)
        where = steps.new(0 if weak_q else array_bytes(qs, BOOL))  # ``t >= 0.5``
        steps.temp(ufunc_bytes(np.subtract, pm, prodm, out=out if out is not None else resm,
                               casting="unsafe"))
        steps.free(prod, where, *small)
    steps.free(qb, diff, prev, nxt, copy, nanmask)
    if not shape and out is None:  # lerp[()]: the 0-d array becomes a NumPy scalar
        steps.free(array_bytes(shape, dt))
        steps.keep(array_bytes(shape, dt))
    steps.done()


def _quantile_entry(a: Any, q: Any, axis: Any, out: Any, overwrite_input: Any, method: Any,
                    keepdims: Any, weights: Any, percent: bool, name: str) -> Any:
    m, qv, weak, w = quantile_args(a, q, axis, method, weights, percent)
    check_weight_totals(weights, a, m, axis, False)
    res = ureduce(m, quantile_func, keepdims, axis, out, name, q=qv, weights=w,
                   overwrite_input=overwrite_input, method=method, weak_q=weak, name=name,
                   q_held=_q_held(q, qv, percent))
    transient(asarray_bytes(a))  # ``a = np.asanyarray(a)`` of a sequence, alive to the end
    return res


def _q_held(q: Any, qv: Any, percent: bool) -> int:
    """The q array _quantile holds: percentile's ``true_divide(q, 100)``, quantile's
    ``asanyarray(q)`` (nothing new for an array)."""
    if percent or not (is_meta(q) or isinstance(q, np.ndarray)):
        return array_bytes(tuple(qv.shape), qv.dtype)
    return 0


@register(np.quantile, tags=("reduction",))
def quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Any:
    """np.quantile: ureduce over _quantile (every method; weights with inverted_cdf)."""
    return _quantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights, False,
                           "np.quantile")


@register(np.percentile, tags=("reduction",))
def percentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Any:
    """np.percentile: quantile of q / 100."""
    return _quantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights, True,
                           "np.percentile")


quantile.keep_real = frozenset({1, "q", "weights"})
percentile.keep_real = frozenset({1, "q", "weights"})


# --- elementwise helpers: angle, iscomplex, isreal, real_if_close, sinc, i0, nan_to_num ------

def _m(x: Any) -> Any:
    """A kernel result as a chainable intermediate (views too: only the layout matters)."""
    if type(x) is ArrayMeta:
        return ArrayMeta(x.shape, x.dtype, x.strides, writeable=x.writeable)
    return x


def _u(ufunc: np.ufunc, *args: Any, **kw: Any) -> Any:
    return _m(ufunc_call(ufunc, *args, **kw))


def _part(m: Any) -> ArrayMeta:
    """``z.real`` / ``z.imag`` of a complex array: same strides, half the itemsize."""
    return ArrayMeta(tuple(m.shape), np.dtype(m.dtype.char.lower()), tuple(m.strides))


@register(np.angle, tags=("ufunc",))
def angle(z: Any, deg: bool = False) -> Any:
    """np.angle: arctan2(z.imag, z.real) (arctan2(0, z) for real z), times 180/pi in place
    (numpy/lib/_function_base_impl.py); each ufunc's 0-d operands are replayed in order."""
    from .umath import ufunc_steps
    m = as_meta(z)
    st = Steps()
    if m.dtype.kind == "c":
        a = ufunc_steps(st, np.arctan2, _part(m), _part(m))[0]
    else:
        a = ufunc_steps(st, np.arctan2, 0, m)[0]
    a = _m(a) if is_meta(a) else scalar_result(ArrayMeta((), np.dtype(type(a)), ()))
    if deg:
        ufunc_steps(st, np.multiply, a, 180 / np.pi, out=a)
    st.done()
    return scalar_result(a)


@register(np.iscomplex, tags=("ufunc",))
def iscomplex(x: Any) -> Any:
    """np.iscomplex: ``x.imag != 0`` for complex x, else fresh C bool zeros (``[()]``)."""
    m = as_meta(x)
    if m.dtype.kind == "c":
        return ufunc_call(np.not_equal, _part(m), 0)
    if m.ndim == 0:  # zeros(()) then res[()]
        return pyarray_return(ArrayMeta((), BOOL, ()))
    return ArrayMeta(m.shape, BOOL, c_strides(m.shape, 1), base_shape=m.shape)  # res[()] is a view


@register(np.isreal, tags=("ufunc",))
def isreal(x: Any) -> Any:
    """np.isreal: ``np.imag(x) == 0`` (a real x's imag is a fresh C or F zeros array)."""
    from .umath import ufunc_steps
    from .views import imag
    m = as_meta(x)
    st = Steps()
    im = _m(imag(m))
    zeros = st.new(0 if m.dtype.kind == "c" else array_bytes(m.shape, m.dtype))  # imag's zeros
    res = ufunc_steps(st, np.equal, im, 0)[0]
    st.free(zeros)
    st.done()
    return res if is_meta(res) else scalar_result(ArrayMeta((), BOOL, ()))


@register(np.real_if_close, tags=("data-dependent",))
def real_if_close(a: Any, tol: Any = 100) -> Any:
    """np.real_if_close: the input itself unless complex (then the dtype depends on values)."""
    m = as_meta(a)
    if m.dtype.kind != "c":
        return m
    if m.size == 0:  # all() of nothing is True: a.real
        return ArrayMeta(m.shape, _part(m).dtype, m.strides, view_of=m)
    raise DataDependentError("np.real_if_close: whether the result is real depends on values")


@register(np.array_equiv, tags=("data-dependent",))
def array_equiv(a1: Any, a2: Any) -> Any:
    """np.array_equiv: False when the shapes do not broadcast, else a value."""
    x, y = as_meta(a1), as_meta(a2)
    try:
        broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    if 0 in broadcast_shapes(x.shape, y.shape) and x.dtype.kind in "biufc" \
            and y.dtype.kind in "biufc":
        return True
    raise DataDependentError("np.array_equiv compares values")


@register(np.sinc, tags=("ufunc",))
def sinc(x: Any) -> Any:
    """np.sinc: y = where(pi*x, pi*x, eps); sin(y) / y."""
    m = as_meta(x)
    px = _u(np.multiply, np.pi, m)
    if px.dtype.kind == "f":
        eps = np.finfo(px.dtype).eps
    else:
        eps = 1e-20
    from .misc import where_operand_bytes, where_meta
    y = _m(where_meta(px, px, eps))
    # _function_base_impl.py sinc: x = pi * x and y = where(x, x, eps) are named (alive to
    # the return); sin(y) / y reuses sin's temporary when NumPy's elision applies
    steps = Steps()
    xs = binary(steps, np.multiply, np.pi, Val(m.shape, m.dtype), True)
    xs.temp = False
    ys = Val(y.shape, y.dtype)
    steps.temp(where_operand_bytes(eps, y.dtype))
    steps.new(ys.nbytes)
    binary(steps, np.true_divide, call(steps, np.sin, ys), ys)  # the result stays alive
    steps.free(xs.nbytes, ys.nbytes)
    steps.done()
    return ufunc_call(np.true_divide, _u(np.sin, y), y)


@register(np.i0, tags=("ufunc",))
def i0(x: Any) -> Any:
    """np.i0: piecewise(abs(x as float), ...) -> zeros_like(abs(x)), a K-order array."""
    m = as_meta(x)
    if m.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    if m.dtype.kind not in "biuf":
        raise UnsupportedOperationError("np.i0", f"dtype {m.dtype}")
    if m.dtype.kind != "f":
        m = like_copy(m, _F8)
    ax = _u(np.absolute, m)
    if m.size:  # as np.piecewise: each piece evaluates x[cond], whose size the values decide
        unmodelled("piecewise evaluates each branch on the elements that take it")
    return final_result(like_copy(ax))


@register(np.nan_to_num, tags=("copy",), flops=flops.elementwise)
def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:
    """np.nan_to_num: ``np.array(x, copy=copy)`` (order K), filled in place by copyto."""
    m = as_meta(x)
    if m.dtype.kind in "OV":
        raise UnsupportedOperationError("np.nan_to_num", f"dtype {m.dtype}")
    inexact = m.dtype.kind in "fc"
    if copy:
        r = like_copy(m)
    else:
        r = m
        if inexact:
            check_writeable(m, "assignment destination")
    if inexact:
        pdt = np.dtype(m.dtype.char.lower()) if m.dtype.kind == "c" else m.dtype
        for v in (nan, posinf, neginf):
            if v is not None and not np.can_cast(type(v) if type(v) in (int, float, complex)
                                                 else np.asarray(v).dtype, pdt, "unsafe"):
                raise TypeError(f"Cannot cast scalar to {pdt}")
        if m.dtype.kind == "f" and m.ndim and type(nan) in (int, float):
            _nan_to_num_steps(m, nan)
    if m.ndim == 0:  # x[()] of the 0-d copy (or of x itself)
        res = ArrayMeta((), m.dtype, ())
        return pyarray_return(res) if copy else scalar_result(res)
    return final_result(r)


def _nan_to_num_steps(m: Any, nan: Any) -> None:
    """_type_check_impl.py nan_to_num on a real-float array: isnan, isposinf (isinf,
    ~signbit, logical_and) and isneginf (isinf, signbit, logical_and) masks, then three
    copyto's of the replacement scalars (the copy of x is the output)."""
    steps = Steps()
    d = Val(m.shape, m.dtype)
    isnan = call(steps, np.isnan, d)
    isinf = call(steps, np.isinf, d)
    pos = call(steps, np.logical_and, isinf, unary(steps, np.invert, call(steps, np.signbit, d)))
    neg = call(steps, np.logical_and, call(steps, np.isinf, d), call(steps, np.signbit, d))
    steps.temp(copyto_bytes(m.dtype, nan))
    steps.temp(m.dtype.itemsize)  # the finfo max and min are NumPy scalars: 0-d arrays
    used(steps, isnan, pos, neg)
    steps.done()


# --- differences and cumulative reductions -------------------------------------------------

def _along(m: Any, ax: int, n: int) -> ArrayMeta:
    """``m`` sliced to length n along axis ax (strides kept)."""
    v = ArrayMeta(m.shape[:ax] + (n,) + m.shape[ax + 1:], m.dtype, tuple(m.strides))
    return v


def _diff(m: Any, n: int, ax: int) -> Any:
    op = np.not_equal if m.dtype == BOOL else np.subtract
    for _ in range(n):
        k = max(m.shape[ax] - 1, 0)
        m = _u(op, _along(m, ax, k), _along(m, ax, k))
    return m


def _bcast_end(e: Any, m: Any, ax: int) -> Any:
    e = as_meta(e)
    if e.ndim == 0:
        shape = m.shape[:ax] + (1,) + m.shape[ax + 1:]
        return ArrayMeta(tuple(shape), e.dtype, (0,) * len(shape))
    return e


@register(np.diff, tags=("copy",), flops=flops.diff)
def diff(a: Any, n: Any = 1, axis: Any = -1, prepend: Any = _NoValue,
         append: Any = _NoValue) -> Any:
    """np.diff: op(a[1:], a[:-1]) n times along the axis (after concatenating the ends)."""
    if n == 0:
        return as_meta(a)
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    m = as_meta(a)
    if m.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = normalize_axis(axis, m.ndim)
    parts = []
    if prepend is not _NoValue:
        parts.append(_bcast_end(prepend, m, ax))
    parts.append(m)
    if append is not _NoValue:
        parts.append(_bcast_end(append, m, ax))
    # _function_base_impl.py diff: the ends as arrays (alive to the return), their
    # concatenation with a, then n differences, each made while the previous one lives
    steps = Steps()
    ends = steps.new(sum(asarray_bytes(e) for e in (prepend, append) if e is not _NoValue))
    cur = Val(m.shape, m.dtype)
    if len(parts) > 1:
        from .shape_base import concatenate
        m = _m(concatenate(parts, ax))
        cur = Val(m.shape, m.dtype, True)
        steps.new(cur.nbytes)
    n = operator.index(n)
    op = np.not_equal if m.dtype == BOOL else np.subtract
    for _ in range(n):
        part = Val(cur.shape[:ax] + (max(cur.shape[ax] - 1, 0),) + cur.shape[ax + 1:], cur.dtype)
        nxt = call(steps, op, part, part)
        used(steps, cur)
        cur = nxt
    steps.free(ends)
    steps.done()
    return final_result(_diff(m, n, ax))


@register(np.ediff1d, tags=("copy",), flops=flops.input_elements)
def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """np.ediff1d: ary.ravel()[1:] - [:-1]; with ends, an empty_like 1-d C result filled."""
    m = as_meta(ary)
    k = max(m.size - 1, 0)
    flat = ArrayMeta((m.size,), m.dtype, (m.dtype.itemsize,))
    # _arraysetops_impl.py ediff1d: ary.ravel() (a copy unless C-contiguous) and the ends
    # as arrays live with the result
    transient((0 if m.flags.c_contiguous else array_bytes(m.shape, m.dtype))
              + sum(asarray_bytes(e) for e in (to_begin, to_end) if e is not None))
    if to_begin is None and to_end is None:
        return ufunc_call(np.subtract, _along(flat, 0, k), _along(flat, 0, k))
    n = k
    for end, name in ((to_begin, "to_begin"), (to_end, "to_end")):
        if end is not None:
            e = as_meta(end)
            if not np.can_cast(e.dtype, m.dtype, casting="same_kind"):
                raise TypeError(f"dtype of `{name}` must be compatible "
                                "with input `ary` under the `same_kind` rule.")
            n += e.size
    res = c_fresh((n,), m.dtype)
    ufunc_call(np.subtract, _along(flat, 0, k), _along(flat, 0, k), out=_along(res, 0, k))
    return final_result(res)


@register(np.trapezoid, tags=("reduction",), flops=flops.per_input(4))
def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: Any = -1) -> Any:
    """np.trapezoid: (d * (y[1:] + y[:-1]) / 2.0).sum(axis) along the axis."""
    from .reductions import sum_
    m = as_meta(y)
    nd = m.ndim
    if x is None:
        d = dx if type(dx) in (int, float, complex) else as_meta(dx)
    else:
        xm = as_meta(x)
        if xm.ndim == 1:
            d = _diff(xm, 1, 0)
            shape = [1] * nd
            shape[axis] = d.shape[0]
            if d.size != int(np.prod(shape)):
                raise ValueError(f"cannot reshape array of size {d.size} into shape {tuple(shape)}")
            d, _ = _reshape(d, tuple(shape))
        else:
            if xm.ndim == 0:
                raise ValueError("diff requires input that is at least one dimensional")
            ax2 = normalize_axis(axis, xm.ndim)
            d = _diff(xm, 1, ax2)
    sl = [m.shape[i] for i in range(nd)]
    sl[axis] = None  # an IndexError / TypeError for a bad axis, as NumPy's slice list
    ax = axis + nd if axis < 0 else axis
    k = max(m.shape[ax] - 1, 0)
    s = _u(np.add, _along(m, ax, k), _along(m, ax, k))
    s = _u(np.true_divide, _u(np.multiply, d, s), 2.0)
    res = sum_(s, axis)
    if type(d) in (int, float, complex) or x is not None:
        _trapezoid_steps(m, ax, k, d if x is None else Val(d.shape, d.dtype), res)
    return res


def _trapezoid_steps(m: Any, ax: int, k: int, d: Any, res: Any) -> None:
    """_function_base_impl.py trapezoid: d = diff(x) (alive to the return), then
    ``(d * (y[1:] + y[:-1]) / 2.0).sum(axis)`` with NumPy's temporary elision."""
    steps = Steps()
    held = steps.new(d.nbytes) if isinstance(d, Val) else 0
    if held:
        d.temp = False
    part = Val(m.shape[:ax] + (k,) + m.shape[ax + 1:], m.dtype)
    s = binary(steps, np.true_divide,
               binary(steps, np.multiply, d, binary(steps, np.add, part, part, True), True), 2.0)
    steps.new(array_bytes(res.shape, res.dtype))
    used(steps, s)
    if not res.shape:  # a NumPy scalar: its 0-d array dies; the fake's lives
        steps.free(array_bytes((), res.dtype))
        steps.keep(array_bytes((), res.dtype))
    steps.free(held)
    steps.done()


def _cumulative(ufunc: np.ufunc, x: Any, axis: Any, dtype: Any, out: Any,
                include_initial: bool) -> Any:
    """_cumulative_func: accumulate on atleast_1d(x); include_initial concatenates identity."""
    from .reductions import ufunc_accumulate
    m = as_meta(x)
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
        o = _along(out, out.ndim - m.ndim + ax, max(out.shape[out.ndim - m.ndim + ax] - 1, 0))
        o = o._replace(writeable=out.flags.writeable)
        ufunc_accumulate(ufunc, m, axis=axis, dtype=dtype, out=o)
        return out
    res = ufunc_accumulate(ufunc, m, axis=axis, dtype=dtype, out=out)
    if include_initial:
        from .creation import full_like
        from .shape_base import concatenate
        r = _m(res)
        ax = normalize_axis(axis, r.ndim)
        init = _m(full_like(r, ufunc.identity, shape=r.shape[:ax] + (1,) + r.shape[ax + 1:]))
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


@register(np.nancumsum, tags=("reduction",))
@stepped
def nancumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """np.nancumsum: np.cumsum of replace_nan's K-order copy (inexact inputs)."""
    from .reductions import replace_nan, cumsum, returned
    return returned(cumsum(replace_nan(a, 0)[0], axis, dtype, out))


@register(np.nancumprod, tags=("reduction",))
@stepped
def nancumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """np.nancumprod: np.cumprod of replace_nan's K-order copy (inexact inputs)."""
    from .reductions import replace_nan, cumprod, returned
    return returned(cumprod(replace_nan(a, 1)[0], axis, dtype, out))


# --- histograms, bincount, digitize -----------------------------------------------------------
# Value checks skipped (they raise only for some data): non-finite autodetected ranges,
# "Too many bins for data range", negative bincount entries; non-monotonic bins arrays are
# refused where their values are known (``_known_values``), and cannot be otherwise.


def _known_values(x: Any) -> np.ndarray | None:
    """The values of an argument where they are known: a sequence or real array, a fake
    that knows its values (faketensor/_known.py; the kernel is then not cached), else None."""
    if is_fake(x):
        vals = _known.real(x)
        if vals is not None:
            uncached()  # the outcome depends on values, which the kernel cache does not key on
        return vals
    if is_meta(x) and not isinstance(x, np.ndarray):
        return None
    try:
        return np.asarray(x)
    except Exception:  # noqa: BLE001 - NumPy's own conversion error comes later, as NumPy's
        return None

def _hist_input(a: Any, weights: Any, name: str) -> tuple:
    """_ravel_and_check_weights: (dtype of the raveled a, weights meta or None)."""
    from ..registry import uncached
    m = as_meta(a)
    dt = m.dtype
    if dt == BOOL:
        import warnings
        uncached()
        warnings.warn(f"Converting input from {dt} to {np.dtype(np.uint8)} for compatibility.",
                      RuntimeWarning, stacklevel=4)
        dt = np.dtype(np.uint8)
    if dt.kind not in "iufc":  # complex: min/max and the edge comparisons order it
        raise UnsupportedOperationError(name, f"dtype {m.dtype}")  # lexicographically
    w = None
    if weights is not None:
        w = as_meta(weights)
        if w.shape != m.shape:
            raise ValueError("weights should have the same shape as a.")
    return m, dt, w


def _outer_edges(dt: np.dtype, size: int, rng: Any) -> tuple:
    """_get_outer_edges with stand-in scalars of the data's dtype (their values never
    change a dtype: equal edges become edge -/+ 0.5 of the same promoted type)."""
    if rng is not None:
        if any(hasattr(r, "storage_offset") for r in rng):
            raise DataDependentError("a range given by fake arrays")
        first, last = rng
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif size == 0:
        first, last = 0, 1
    else:
        first, last = np.zeros((), dt)[()], np.ones((), dt)[()]
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _linspace(first: Any, last: Any, num: int, dtype: Any) -> ArrayMeta:
    """np.linspace of two scalars with num >= 2: the arange it scales in place, reshaped (a
    view of it) unless ``dtype`` differs from the computed one (then an astype copy)."""
    dt = np.result_type(first, last, 1.0)
    if dtype is None or np.dtype(dtype) == dt:
        return ArrayMeta((num,), dt, (dt.itemsize,), base_shape=(num,))
    dt = np.dtype(dtype)
    return ArrayMeta((num,), dt, (dt.itemsize,))


def _bin_edges(m: Any, dt: np.dtype, bins: Any, rng: Any, w: Any) -> tuple:
    """_get_bin_edges: (edges ArrayMeta or input, number of bins)."""
    if isinstance(bins, str):
        from numpy.lib._histograms_impl import _hist_bin_selectors
        if bins not in _hist_bin_selectors:
            raise ValueError(f"{bins!r} is not a valid estimator for `bins`")
        if w is not None:
            raise TypeError("Automated estimation of the number of "
                            "bins is not supported for weighted data")
        _outer_edges(dt, m.size, rng)
        if m.size and (rng is None or m.size):
            raise DataDependentError(f"bins={bins!r}: the number of bins depends on values")
        n = 1
    elif (bins.ndim if is_meta(bins) else np.ndim(bins)) == 0:
        if is_meta(bins) and hasattr(bins, "storage_offset"):
            raise DataDependentError("bins given by a fake 0-d array")
        try:
            n = operator.index(bins)
        except TypeError as e:
            raise TypeError('`bins` must be an integer, a string, or an array') from e
        if n < 1:
            raise ValueError('`bins` must be positive, when an integer')
    elif (bins.ndim if is_meta(bins) else np.ndim(bins)) == 1:
        em = as_meta(bins)
        vals = _known_values(bins)
        if vals is not None and vals.dtype.kind in "biuf" and np.any(vals[:-1] > vals[1:]):
            raise ValueError('`bins` must increase monotonically, when an array')
        return (em if hasattr(em, "storage_offset") else ArrayMeta(em.shape, em.dtype, c_strides(
            em.shape, em.dtype.itemsize))), max(em.shape[0] - 1, 0), em.dtype, False
    else:
        raise ValueError('`bins` must be 1d, when an array')
    first, last = _outer_edges(dt, m.size, rng)
    bt = np.result_type(first, last, dt)
    if np.issubdtype(bt, np.integer):
        bt = np.result_type(bt, float)
    return _linspace(first, last, n + 1, bt), n, bt, True


def _hist_counts(n: int, w: Any, uniform: bool, density: Any) -> ArrayMeta:
    ntype = _INTP if w is None else w.dtype
    if w is not None and not (np.can_cast(ntype, np.double) or np.can_cast(ntype, complex)):
        raise UnsupportedOperationError("np.histogram", f"weights of dtype {ntype}")
    if ntype.kind not in "biufc":
        raise UnsupportedOperationError("np.histogram", f"weights of dtype {ntype}")
    cnt = c_fresh((n,), ntype)
    if density:
        cnt = _u(np.true_divide, _u(np.true_divide, cnt, c_fresh((n,), _F8)), c_fresh((), ntype))
    return final_result(cnt)


@register(np.histogram, tags=("copy",))
@stepped
def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None,
              weights: Any = None) -> tuple:
    """np.histogram: (counts, edges), fresh 1-d arrays; edges are ``bins`` when given."""
    m, dt, w = _hist_input(a, weights, "np.histogram")
    edges, n, bt, uniform = _bin_edges(m, dt, bins, range, w)
    counts = _hist_counts(n, w, uniform, density)
    if uniform:
        outer = _outer_edges(dt, m.size, range)
        ntype = _INTP if w is None else w.dtype
        _hist_edges_steps(m, dt, bt, outer, range, n, ntype, w)
        if dt.kind == "c" and m.size:  # f_indices.astype(np.intp) drops the imaginary part
            import warnings
            from ..registry import uncached
            uncached()
            warnings.warn("Casting complex values to real discards the imaginary part",
                          np.exceptions.ComplexWarning, stacklevel=3)
        if ntype.kind != "c":  # complex weights: n.real / n.imag bincounts, not replayed
            _uniform_hist_steps(m, dt, bt, outer, n, w)
            if density:
                _hist_density_steps(n, bt, ntype)
    if density and bt.kind == "c":  # db = np.array(np.diff(bin_edges), float)
        cast_loop(bt, np.dtype(float))
    return counts, edges


def _hist_density_steps(nbins: int, bt: np.dtype, ntype: np.dtype) -> None:
    """histogram's density tail: ``db = np.array(np.diff(bin_edges), float)`` (the diff and
    its copy), then ``n / db / n.sum()`` (the quotient, ``n.sum()``'s 0-d array, the result)."""
    st = steps()
    diff = st.alloc(array_bytes((nbins,), bt))
    db = st.alloc(array_bytes((nbins,), _F8))
    st.free(diff)
    qt = np.result_type(ntype, _F8)
    q = st.alloc(array_bytes((nbins,), qt))
    total = np.zeros(1, ntype).sum()  # a NumPy scalar of sum's dtype (its 0-d array dies)
    st.hold(total.dtype.itemsize)
    scalar = st.alloc(ufunc_bytes(np.true_divide, Val((nbins,), qt), total))
    st.alloc(array_bytes((nbins,), qt))
    st.free(scalar, q, db)


_BLOCK = 65536  # _histograms_impl.py histogram's BLOCK


def _hist_edges_steps(m: Any, dt: np.dtype, bt: np.dtype, outer: tuple, rng: Any,
                      nbins: int, ntype: np.dtype | None, w: Any) -> None:
    """The buffers of equal-bins histogram before its loop, in ``steps()``: ``a.ravel()`` (or
    the bool input's uint8 copy), ``np.isfinite`` of a given range, the edges' ``linspace``
    (creation.linspace's own replay), the ``np.any(bin_edges[:-1] >= bin_edges[1:])`` check
    (_histograms_impl.py ``_get_bin_edges``), the counts ``n = np.zeros(nbins, ntype)`` and
    ``_unsigned_subtract(last_edge, first_edge)``'s 0-d arrays (``ntype`` None: up to the
    check, as histogram_bin_edges)."""
    from .creation import linspace
    st = steps()
    if dt != m.dtype:  # bool input: a.astype(np.uint8)
        st.alloc(array_bytes(m.shape, dt))
    if w is not None and not w.flags.c_contiguous:  # weights.ravel()
        st.alloc(array_bytes((w.size,), w.dtype))
    if dt == m.dtype and not m.flags.c_contiguous:  # a.ravel()
        st.alloc(array_bytes((m.size,), dt))
    first, last = outer
    if rng is not None:
        st.hold(ufunc_bytes(np.isfinite, rng[0]) + 1)
        st.hold(ufunc_bytes(np.isfinite, rng[1]) + 1)
    linspace(first, last, nbins + 1, endpoint=True, dtype=bt)
    st.hold(array_bytes((nbins,), BOOL) + 1)
    if ntype is None:  # histogram_bin_edges: the edges are the result
        return
    st.alloc(array_bytes((nbins,), ntype))
    st.hold(_unsigned_subtract_bytes(first, last))


def _unsigned_subtract_bytes(first: Any, last: Any) -> int:
    """_histograms_impl.py _unsigned_subtract of two scalars: for signed integers both as 0-d
    arrays of their type, cast into 0-d copies of the unsigned loop type, and the 0-d result;
    else ``np.subtract``'s scalar operands and result."""
    dt = np.result_type(first, last)
    if dt.kind == "i":
        return 5 * dt.itemsize
    return ufunc_bytes(np.subtract, last, first) + dt.itemsize


def _uniform_hist_steps(m: Any, dt: np.dtype, bt: np.dtype, outer: tuple, nbins: int,
                        w: Any = None) -> None:
    """The buffers of histogram's equal-bins loop (_histograms_impl.py ``histogram``), in
    ``steps()``, for data inside the range: per block of BLOCK values the ``keep`` mask, the
    block cast to the edges' type, ``f_indices`` and ``indices`` (NumPy's elision applies),
    the ``decrement`` / ``increment`` masks with the gathered edges, ``bincount``'s counts
    and their cast; a name's previous block dies when it is bound again. The boolean-mask
    corrections (``indices[mask] -= 1``) are counted selecting nothing: their buffers grow
    with the number of values on bin edges, and values outside ``range`` shrink every block
    (``tmp_a[keep]``), so the figure is exact only for such data: the call is listed as
    unmodelled (the data's maximum lies on the last edge whenever ``range`` is not given)."""
    unmodelled("np.histogram with equal bins: values outside range shrink each block "
               "(tmp_a[keep]) and values on bin edges make index buffers, so the bytes "
               "depend on the values")
    st = steps()
    first, last = outer
    size = m.size
    denom = np.subtract(np.asarray(last), np.asarray(first))  # _unsigned_subtract's dtype
    kinds = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16,
             np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}
    denom = np.zeros((), kinds.get(denom.dtype, denom.dtype))[()]
    live: dict = {}

    def bind(name: str, nbytes: int) -> None:
        """``name = <new array>`` once allocated: the previous block's array dies."""
        st.free(live.get(name, 0))
        live[name] = nbytes

    for start in builtins_range(0, size, _BLOCK):
        k = min(_BLOCK, size - start)
        blk = Val((k,), dt)
        bind("tmp_a", 0)  # a[i:i + BLOCK], a view
        scalar = st.alloc(ufunc_bytes(np.greater_equal, blk, first))
        bind("keep", st.alloc(array_bytes((k,), BOOL)))
        st.free(scalar)
        st.hold(array_bytes((k,), BOOL) + ufunc_bytes(np.less_equal, blk, last))
        st.hold(1)  # np.logical_and.reduce(keep)
        if dt != bt:  # tmp_a.astype(bin_edges.dtype, copy=False)
            bind("tmp_a", st.alloc(array_bytes((k,), bt)))
            blk = Val((k,), bt)
        f = binary(st, np.multiply, binary(st, np.true_divide, call(st, np.subtract, blk, first),
                                            denom), nbins)
        bind("f_indices", f.nbytes)
        bind("indices", st.alloc(array_bytes((k,), _INTP)))
        st.hold(array_bytes((k,), BOOL) + 17)  # indices[indices == n_equal_bins] -= 1
        gathered = st.alloc(array_bytes((k,), bt))  # bin_edges[indices]
        dec = st.alloc(array_bytes((k,), BOOL))
        st.free(gathered)
        bind("decrement", dec)
        st.hold(17)  # indices[decrement] -= 1
        plus = st.alloc(array_bytes((k,), _INTP))  # indices + 1
        st.hold(8)
        gathered = st.alloc(array_bytes((k,), bt))
        st.free(plus)
        ge = st.alloc(array_bytes((k,), BOOL))
        st.free(gathered)
        ne = st.alloc(array_bytes((k,), BOOL))
        st.hold(8)
        inc = st.alloc(array_bytes((k,), BOOL))
        st.free(ge, ne)
        bind("increment", inc)
        st.hold(17)  # indices[increment] += 1
        if w is None:
            st.hold(2 * array_bytes((nbins,), _INTP))  # bincount(...).astype(ntype)
            continue
        # bincount(weights=tmp_w): tmp_w as float64 (a copy unless it is), the float64
        # counts, then their astype(ntype) copy
        wcopy = st.alloc(array_bytes((k,), _F8) if w.dtype != _F8 else 0)
        r = st.alloc(array_bytes((nbins,), _F8))
        st.free(wcopy)
        st.hold(array_bytes((nbins,), w.dtype))
        st.free(r)


@register(np.histogram_bin_edges, tags=("copy",))
@stepped
def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    """np.histogram_bin_edges: linspace edges (fresh f8 or the data's float type) or bins;
    equal bins replay np.histogram's buffers up to the edges' check (``_hist_edges_steps``)."""
    m, dt, w = _hist_input(a, weights, "np.histogram_bin_edges")
    edges, n, bt, uniform = _bin_edges(m, dt, bins, range, w)
    if uniform:
        _hist_edges_steps(m, dt, bt, _outer_edges(dt, m.size, range), range, n, None, w)
    return edges


def _dd_sample(sample: Any) -> tuple:
    """(N, D, column dtypes) of histogramdd's sample (a 2-d array or a sequence of 1-d)."""
    if is_meta(sample) and sample.ndim == 2:
        return sample.shape[0], sample.shape[1], [sample.dtype] * sample.shape[1]
    if is_meta(sample):
        if sample.ndim > 2:
            raise UnsupportedOperationError("np.histogramdd", "a sample of ndim > 2")
        n = sample.shape[0] if sample.ndim else 1
        return n, 1, [sample.dtype]
    cols = [as_meta(c) for c in sample]
    if not cols or any(c.ndim != 1 for c in cols) or len({c.shape for c in cols}) != 1:
        raise UnsupportedOperationError("np.histogramdd", "a ragged or nested sample list")
    dt = np.result_type(*[c.dtype for c in cols])
    return cols[0].shape[0], len(cols), [dt] * len(cols)


_HISTDD_UNMODELLED = ("np.histogramdd's temporaries (the stacked sample, each dimension's "
                      "bin indices, the flat index, bincount's counts) are not modelled, and "
                      "values on the last edge make index buffers: bytes set by the values")


def _histdd(sample: Any, bins: Any, rng: Any, density: Any, weights: Any) -> tuple:
    n, d, dts = _dd_sample(sample)
    unmodelled(_HISTDD_UNMODELLED)
    for dt in dts:
        if dt.kind not in "biufc":
            raise UnsupportedOperationError("np.histogramdd", f"dtype {dt}")
    if weights is not None:
        wm = as_meta(weights)
        if wm.dtype.kind not in "biuf":
            raise UnsupportedOperationError("np.histogramdd", f"weights of dtype {wm.dtype}")
        if wm.ndim != 1 or wm.shape[0] != n:
            raise UnsupportedOperationError("np.histogramdd", "weights not of the sample's length")
    try:
        if isinstance(bins, str):
            raise TypeError
        m_ = len(bins)
        if m_ != d:
            raise ValueError('The dimension of bins must be equal to the dimension of the '
                             'sample x.')
    except TypeError:
        bins = d * [bins]
    if rng is None:
        rng = (None,) * d
    elif len(rng) != d:
        raise ValueError('range argument must have one entry per dimension')
    edges, nbin = [], []
    for i in range(d):
        b = bins[i]
        nd = b.ndim if is_meta(b) else np.ndim(b)
        if nd == 0:
            if hasattr(b, "storage_offset"):
                raise DataDependentError("bins given by a fake 0-d array")
            if b < 1:
                raise ValueError(f'`bins[{i}]` must be positive, when an integer')
            first, last = _outer_edges(dts[i], n, rng[i])
            try:
                k = operator.index(b)
            except TypeError as e:
                raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from e
            edges.append(_linspace(first, last, k + 1, None))
            nbin.append(k + 2)
        elif nd == 1:
            em = as_meta(b)
            vals = _known_values(b)
            if vals is not None and vals.dtype.kind in "biuf" and np.any(vals[:-1] > vals[1:]):
                raise ValueError(f'`bins[{i}]` must be monotonically increasing, when an array')
            edges.append(em if hasattr(em, "storage_offset")
                         else ArrayMeta(em.shape, em.dtype, c_strides(em.shape, em.dtype.itemsize)))
            nbin.append(em.shape[0] + 1)
        else:
            raise ValueError(f'`bins[{i}]` must be a scalar or 1d array')
    full = tuple(nbin)
    shape = tuple(k - 2 if k >= 2 else 0 for k in full)
    st = c_strides(full, 8)
    if density:
        h = ArrayMeta(shape, _F8, st)
        for i in range(d):
            bs = tuple(k - 2 if j == i else 1 for j, k in enumerate(full))
            h = _u(np.true_divide, h, ArrayMeta(bs, _F8, c_strides(bs, 8)))
        return final_result(h), edges
    return ArrayMeta(shape, _F8, st, base_shape=full), edges


@register(np.histogramdd, tags=("copy",))
def histogramdd(sample: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None) -> tuple:
    """np.histogramdd: float64 counts (a view hist[1:-1, ...] of the full count array)."""
    return _histdd(sample, bins, range, density, weights)



@register(np.histogram2d, tags=("copy",))
def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None) -> tuple:
    """np.histogram2d: histogramdd([x, y]) -> (hist, xedges, yedges)."""
    xm, ym = as_meta(x), as_meta(y)
    if (xm.shape[0] if xm.ndim else None) != (ym.shape[0] if ym.ndim else None) or not xm.ndim:
        if not xm.ndim or not ym.ndim:
            raise TypeError("len() of unsized object")
        raise ValueError('x and y must have the same length.')
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb not in {1, 2}:
        e = as_meta(bins)
        bins = [e, e]
    hist, edges = _histdd([xm, ym], bins, range, density, weights)
    return hist, edges[0], edges[1]


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
    elif m.dtype.kind not in "iu" and not np.can_cast(m.dtype, _INTP, "safe"):
        raise TypeError(f"Cannot cast array data from {m.dtype!r} to {_INTP!r} according "
                        "to the rule 'safe'")
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    ml = operator.index(minlength)
    if ml < 0:
        raise ValueError("'minlength' must not be negative")
    if m.size == 0:
        return ArrayMeta((ml,), _INTP, c_strides((ml,), 8))
    raise DataDependentError("np.bincount: the length of the result is max(x) + 1")


@register(np.digitize, tags=("copy",))
def digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """np.digitize: searchsorted(bins, x) (len(bins) - that for decreasing bins): same layout."""
    from .sorting import searchsorted
    xm, bm = as_meta(x), as_meta(bins)
    if xm.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bm.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if bm.ndim > 1:
        raise ValueError("object too deep for desired array")
    if bm.dtype.kind not in "biuf" or xm.dtype.kind not in "biuf":
        raise UnsupportedOperationError("np.digitize", f"dtypes {xm.dtype}, {bm.dtype}")
    if xm.ndim == 0:
        res = searchsorted(bm, xm, side="left" if right else "right")
        return ArrayMeta((), _INTP, ())
    return _digitize_steps(x, bins, xm, bm, "left" if right else "right")


def _digitize_steps(x: Any, bins: Any, xm: Any, bm: Any, side: str) -> ArrayMeta:
    """_function_base_impl.py digitize: ``asarray`` of x and bins (alive to the end), then
    ``searchsorted(bins, x)`` (its cast copies, kernels/misc.py), or for decreasing bins
    ``len(bins) - searchsorted(bins[::-1], x)``. Known gap: the direction of fake bins is a
    value; they are taken to increase (decreasing ones allocate one more result)."""
    from .sorting import searchsorted
    from .umath import ufunc_steps
    st = Steps()
    held = st.new(asarray_bytes(x) + asarray_bytes(bins))
    xs, bs = (m if is_fake(m) else ArrayMeta(m.shape, m.dtype, m.strides) for m in (xm, bm))
    decreasing = not is_fake(bins) and bm.size > 1 and np.asarray(bins)[0] > np.asarray(bins)[-1]
    if decreasing:
        bs = ArrayMeta(bs.shape, bs.dtype, tuple(-s for s in bs.strides))
    with captured() as cap:
        res = searchsorted(bs, xs, side=side)
    res_b = st.new(array_bytes(res.shape, res.dtype))
    st.temp(cap.transient)
    if decreasing:
        res = ufunc_steps(st, np.subtract, bm.shape[0], ArrayMeta(res.shape, res.dtype, res.strides))[0]
        st.free(res_b)
        res = ArrayMeta(res.shape, res.dtype, res.strides)
    st.free(held)
    st.done()
    return res


# --- convolve, correlate, cross, interp -------------------------------------------------------

_MODES = {"valid": 0, "same": 1, "full": 2}


def _mode(mode: Any) -> int:
    """PyArray_CorrelatemodeConverter."""
    if isinstance(mode, str):
        if mode not in _MODES:
            raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
        return _MODES[mode]
    try:
        k = operator.index(mode)
    except TypeError:
        raise TypeError("convolve/correlate mode not understood") from None
    if k not in (0, 1, 2):
        raise ValueError("integer convolve/correlate mode must be 0, 1, or 2")
    return k


def _correlate(a: Any, v: Any, mode: Any, name: str, conj: bool = False,
               made: int = 0) -> ArrayMeta:
    """multiarray.correlate / correlate2: a fresh 1-d C array of the common type.

    Its buffers (multiarraymodule.c ``PyArray_Correlate2``): both inputs as C arrays of the
    common type (copies unless already so), correlate2's conjugate of a complex second
    input (replacing its copy), then the result; ``made`` are the bytes of arrays the
    caller made of Python sequences, alive throughout."""
    from .temporaries import carray_bytes
    for m, which in ((a, "first"), (v, "second")):
        if m.ndim == 0:
            raise ValueError("object of too small depth for desired array")
        if m.ndim > 1:
            raise ValueError("object too deep for desired array")
    dt = np.result_type(a.dtype, v.dtype)
    if dt.kind not in "biufc":
        raise UnsupportedOperationError(name, f"dtype {dt}")
    k = _mode(mode)
    n1, n2 = a.shape[0], v.shape[0]
    if n1 == 0:
        raise ValueError("first array argument cannot be empty")
    if n2 == 0:
        raise ValueError("second array argument cannot be empty")
    lo, hi = min(n1, n2), max(n1, n2)
    n = (hi - lo + 1, hi, n1 + n2 - 1)[k]
    st = steps()
    st.new(made)
    st.new(carray_bytes(a, dt))
    copy = st.new(carray_bytes(v, dt))
    if conj and dt.kind == "c":
        st.new(array_bytes(v.shape, dt))
        st.free(copy)
    st.new(array_bytes((n,), dt))
    return ArrayMeta((n,), dt, (dt.itemsize,))


def _seq_bytes(*objs: Any) -> int:
    """Bytes of the arrays NumPy makes of the non-array arguments (lists, scalars)."""
    from .umath import is_scalar
    return sum(x.dtype.itemsize if is_scalar(x) else asarray_bytes(x) for x in objs)


@register(np.correlate, tags=("copy",), flops=flops.correlate)
@stepped
def correlate(a: Any, v: Any, mode: Any = "valid") -> ArrayMeta:
    """np.correlate (multiarray.correlate2); a non-array argument is made straight into an
    array of the common type."""
    am, vm = as_meta(a), as_meta(v)
    dt = np.result_type(am.dtype, vm.dtype)
    made = 0
    if not is_meta(a) and am.ndim == 1:
        am, made = c_fresh(am.shape, dt), made + array_bytes(am.shape, dt)
    if not is_meta(v) and vm.ndim == 1:
        vm, made = c_fresh(vm.shape, dt), made + array_bytes(vm.shape, dt)
    return _correlate(am, vm, mode, "np.correlate", conj=True, made=made)


@register(np.convolve, tags=("copy",), flops=flops.convolve)
@stepped
def convolve(a: Any, v: Any, mode: Any = "full") -> ArrayMeta:
    """np.convolve: correlate of the (at least 1-d) longer input with the other reversed."""
    made = _seq_bytes(a, v)
    a, v = as_meta(a), as_meta(v)
    if a.ndim == 0:
        a = ArrayMeta((1,), a.dtype, (a.dtype.itemsize,))
    if v.ndim == 0:
        v = ArrayMeta((1,), v.dtype, (v.dtype.itemsize,))
    if a.ndim == 1 and a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.ndim == 1 and v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    if v.ndim == 1 and a.ndim == 1 and v.shape[0] > a.shape[0]:
        a, v = v, a
    if v.ndim == 1:  # v[::-1]
        v = ArrayMeta(tuple(v.shape), v.dtype, (-v.strides[0],)) if v.shape[0] > 1 else v
    return _correlate(a, v, mode, "np.convolve", made=made)


@register(np.interp, tags=("copy",), flops=flops.interp)
def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> ArrayMeta:
    """np.interp: a fresh C f8 (c16 for complex fp) array of x's shape (a scalar for 0-d x)."""
    xm, xpm, fpm = as_meta(x), as_meta(xp), as_meta(fp)
    cplx = fpm.dtype.kind == "c"
    dt = np.dtype(np.complex128 if cplx else np.float64)
    if period is not None:
        if hasattr(period, "storage_offset"):
            raise DataDependentError("np.interp: a fake period")
        if period == 0:
            raise ValueError("period must be a non-zero value")
        left = right = None
        cast_loop(xm.dtype, _F8)  # x = asarray(x, dtype=float64), xp likewise
        cast_loop(xpm.dtype, _F8)
        for m in (xm, xpm):
            if m.dtype.kind not in "biufc":
                raise UnsupportedOperationError("np.interp", f"dtype {m.dtype}")
        if xpm.ndim != 1 or fpm.ndim != 1:
            raise ValueError("Data points must be 1D sequences")
        if xpm.shape[0] != fpm.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        _interp_period_steps(x, xp, fp, xm, xpm, fpm, dt)
        n = xpm.shape[0] + 2
        xm, xpm, fpm = c_fresh(xm.shape, _F8), c_fresh((n,), _F8), c_fresh((n,), dt)
    for m, to in ((fpm, dt), (xpm, _F8), (xm, _F8)):
        if m is not xm and m.ndim == 0:
            raise ValueError("object of too small depth for desired array")
        if m is not xm and m.ndim > 1:
            raise ValueError("object too deep for desired array")
        if not np.can_cast(m.dtype, to, "safe"):
            raise TypeError(f"Cannot cast array data from {m.dtype!r} to {to!r} according "
                            "to the rule 'safe'")
    if xpm.shape[0] == 0 and xm.size != 0:
        raise ValueError("array of sample points is empty")
    if fpm.shape[0] != xpm.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    for v in (left, right):
        if v is not None and not cplx and isinstance(v, complex):
            raise TypeError("must be real number, not complex")
    if period is None:
        # _function_base_impl.py interp: fp = np.asarray(fp); compiled_base.c arr_interp:
        # fp, xp and x as contiguous float64 (complex128 fp), alive with the result (the
        # slopes table is PyArray_malloc'd, off the data allocator)
        transient(asarray_bytes(fp) + _as_contiguous_bytes(np.asarray(fp) if not is_meta(fp) else fp, dt)
                  + _as_contiguous_bytes(xp, _F8) + _as_contiguous_bytes(x, _F8))
    # arr_interp ends in PyArray_Return: a 0-d x gives a NumPy scalar
    return pyarray_return(ArrayMeta(xm.shape, dt, c_strides(xm.shape, dt.itemsize)))


def _interp_period_steps(x: Any, xp: Any, fp: Any, xm: Any, xpm: Any, fpm: Any,
                         dt: np.dtype) -> None:
    """_function_base_impl.py interp with ``period``: fp, x, xp as arrays of their dtypes
    (copies where they differ), ``x % period`` and ``xp % period`` (the Python period a 0-d
    double while each runs), ``argsort(xp)`` (alive to the return), xp and fp gathered by
    it, each closed with one element from either end (two 1-element arrays and their 0-d
    period) by ``concatenate``, then compiled_base.c arr_interp's result (its inputs are
    contiguous of their dtypes already; the slopes table is PyArray_malloc'd)."""
    st = Steps()
    fa = st.new(asarray_bytes(fp))  # fp = np.asarray(fp)
    n = xpm.shape[0]
    cx = st.new(array_bytes(xm.shape, _F8) if not is_meta(x) or xm.dtype != _F8 else 0)
    cxp = st.new(array_bytes((n,), _F8) if not is_meta(xp) or xpm.dtype != _F8 else 0)
    cfp = st.new(array_bytes((n,), dt) if fpm.dtype != dt else 0)
    xmod = st.new(array_bytes(xm.shape, _F8))
    st.temp(8)
    st.free(cx)
    if not xm.shape:  # a 0-d x % period is a NumPy scalar: arr_interp converts it again
        st.free(xmod)
        xmod = 0
    xpmod = st.new(array_bytes((n,), _F8))
    st.temp(8)
    st.free(cxp)
    order = st.new(array_bytes((n,), _INTP))
    from .sorting import sort_buffer_bytes
    st.temp(sort_buffer_bytes(c_fresh((n,), _F8), 0, True))
    xs = st.new(array_bytes((n,), _F8))
    st.free(xpmod)
    fs = st.new(array_bytes((n,), dt))
    st.free(cfp, fa)
    lo = st.new(array_bytes((1,), _F8) + 8)  # xp[-1:] - period, its 0-d period freed below
    st.free(8)
    hi = st.new(array_bytes((1,), _F8) + 8)
    st.free(8)
    xc = st.new(array_bytes((n + 2,), _F8))
    st.free(lo - 8, hi - 8, xs)
    fc = st.new(array_bytes((n + 2,), dt))
    st.free(fs)
    conv = st.new(0 if xm.shape else 8)
    st.new(array_bytes(xm.shape, dt))  # the result
    st.free(xmod, order, xc, fc, conv)
    st.done()


def _as_contiguous_bytes(x: Any, dtype: np.dtype) -> int:
    """Bytes ``PyArray_ContiguousFromAny(x, dtype)`` allocates: none for a C-contiguous array
    of that dtype, else a converted copy (scalars and lists convert straight to dtype)."""
    if not is_meta(x):
        return array_bytes(np.shape(x), dtype)
    m = as_meta(x)
    if m.dtype == dtype and m.flags.c_contiguous:
        return 0
    return array_bytes(m.shape, dtype)


# --- average -------------------------------------------------------------------------------------

def _weights_meta(w: Any, m: Any, axes: tuple | None) -> Any:
    """_weights_are_valid: weights as is, or transposed and reshaped to broadcast against a."""
    if w.shape == m.shape:
        return w
    if axes is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    if w.shape != tuple(m.shape[ax] for ax in axes):
        raise ValueError("Shape of weights must be consistent with "
                         "shape of a along specified axis.")
    perm = [int(i) for i in np.argsort(axes)]
    t = ArrayMeta(tuple(w.shape[i] for i in perm), w.dtype, tuple(w.strides[i] for i in perm))
    return _reshape(t, tuple(s if ax in axes else 1 for ax, s in enumerate(m.shape)))[0]


def _average_steps(scl: Any, a: Any, w: Any, prod: Any, total: Any, avg: Any,
                   returned: bool) -> None:
    """np.average's weighted path (_function_base_impl.py ``average``): ``scl =
    wgt.sum(...)`` stays alive; ``np.any(scl == 0.0)`` makes the 0-d 0.0, the bool
    array and the 1-byte 0-d result; then ``np.multiply(a, wgt, dtype=...)`` and its
    ``.sum(axis)`` are alive together before the division. A full reduction's sums are
    NumPy scalars (their 0-d arrays freed at once). ``returned`` returns ``scl`` too, or
    with another shape than the average's its broadcast copy."""
    st = Steps()
    s = st.new(array_bytes(scl.shape, scl.dtype))
    if scl.shape:
        st.temp(array_bytes(scl.shape, BOOL) + ufunc_bytes(np.equal, scl, 0.0))
    else:
        st.free(s)
        s = 0
    cast = st.new(ufunc_bytes(np.multiply, a, w, out=prod))  # dtype=: operands cast
    p = st.new(array_bytes(prod.shape, prod.dtype))
    st.free(cast)
    t = st.new(array_bytes(total.shape, total.dtype))
    st.free(p)
    st.new(array_bytes(avg.shape, avg.dtype))
    st.free(t)
    if returned and scl.shape != avg.shape:
        st.new(array_bytes(avg.shape, scl.dtype))
    if not returned or scl.shape != avg.shape:
        st.free(s)
    if not avg.shape:  # the division's 0-d result is the NumPy scalar returned
        st.free(array_bytes((), avg.dtype))
    st.done()


@register(np.average, tags=("reduction",), flops=flops.average)
def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
            keepdims: Any = _NoValue) -> Any:
    """np.average: mean, or sum(a * w) / sum(w) in the promoted dtype; scl copied when
    ``returned`` and its shape differs (the weight-sum test for zero reads values)."""
    from .reductions import sum_
    m = as_meta(a)
    axes = None if axis is None else normalize_axes(axis, m.ndim, "axis")
    if m.dtype.kind not in "biufc":
        raise UnsupportedOperationError("np.average", f"dtype {m.dtype}")
    if weights is None:
        avg = mean_steps(m, axes, None, None, keepdims, _NoValue)
        if avg.size == 0:
            raise ZeroDivisionError("division by zero")
        scl = c_fresh((), avg.dtype)
    else:
        w = _weights_meta(as_meta(weights), m, axes)
        if w.dtype.kind not in "biufc":
            raise UnsupportedOperationError("np.average", f"weights of dtype {w.dtype}")
        if m.dtype.kind in "bui":
            rdt = np.result_type(m.dtype, w.dtype, "f8")
        else:
            rdt = np.result_type(m.dtype, w.dtype)
        with quiet():  # _average_steps counts the bytes
            scl = _m(sum_(w, axes, rdt, None, keepdims))
        cnt = 1
        for ax in (range(w.ndim) if axes is None else axes):
            cnt *= w.shape[ax]
        if cnt == 0 and scl.size:  # an empty sum is 0 whatever the values
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        with quiet():
            prod = _u(np.multiply, m, w, dtype=rdt)
            total = _m(sum_(prod, axes, None, None, keepdims))
            avg = _u(np.true_divide, total, scl)
        _average_steps(scl, m, w, prod, total, avg, returned)
    if returned:
        if scl.shape != avg.shape:
            scl = c_fresh(avg.shape, scl.dtype)
        return scalar_result((final_result(avg), final_result(scl)))
    return scalar_result(final_result(avg))


@register(np.unwrap, tags=("copy",))
def unwrap(p: Any, discont: Any = None, axis: Any = -1, *, period: Any = 2 * np.pi) -> ArrayMeta:
    """np.unwrap: ``np.array(p, copy=True, dtype=result_type(diff(p), period))``, K order,
    with the corrected slice assigned into it."""
    m = as_meta(p)
    if m.dtype.kind not in "biufc":
        raise UnsupportedOperationError("np.unwrap", f"dtype {m.dtype}")
    if m.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = normalize_axis(axis, m.ndim)
    dd = _diff(m, 1, ax)
    if hasattr(period, "storage_offset"):
        raise DataDependentError("np.unwrap: a fake period")
    dt = np.result_type(dd.dtype, period)
    if np.issubdtype(dt, np.integer):
        high = divmod(period, 2)[0]
    else:
        high = period / 2
    low = -high
    shifted = _u(np.subtract, dd, low)  # the ufunc steps' errors (Python int range, complex)
    _u(np.add, _u(np.remainder, shifted, period), low)
    if type(period) in (int, float) and (discont is None or type(discont) in (int, float)) \
            and dd.dtype.kind in "fiu":
        _unwrap_steps(m, ax, dd, dt, low, high, period, period / 2 if discont is None else discont)
    return ArrayMeta(m.shape, dt, like_strides(m.shape, m.strides, dt.itemsize,
                                         m.flags.c_contiguous, m.flags.f_contiguous))


def _unwrap_steps(m: Any, ax: int, dd: Any, dt: np.dtype, low: Any, high: Any, period: Any,
                  discont: Any) -> None:
    """_function_base_impl.py unwrap: dd = diff(p); ddmod = mod(dd - low, period) + low;
    copyto(ddmod, high, where=(ddmod == low) & (dd > 0)) (float types); ph_correct =
    ddmod - dd; copyto(ph_correct, 0, where=abs(dd) < discont); up = array(p, copy=True,
    dtype); up[1:] = p[1:] + ph_correct.cumsum(axis). dd, ddmod and ph_correct are named."""
    steps = Steps()
    d = Val(dd.shape, dd.dtype)
    held = [steps.new(d.nbytes)]
    ddmod = binary(steps, np.add, call(steps, np.remainder, binary(steps, np.subtract, d, low),
                                       period), low, True)
    ddmod.temp = False
    held.append(ddmod.nbytes)
    if not np.issubdtype(dt, np.integer):
        cond = binary(steps, np.bitwise_and, binary(steps, np.equal, ddmod, low),
                      binary(steps, np.greater, d, 0), True)
        steps.temp(copyto_bytes(ddmod.dtype, high))
        used(steps, cond)
    fix = binary(steps, np.subtract, ddmod, d)
    fix.temp = False
    held.append(fix.nbytes)
    cond = binary(steps, np.less, unary(steps, np.absolute, d), discont)
    steps.temp(copyto_bytes(fix.dtype, 0))
    used(steps, cond)
    steps.new(array_bytes(m.shape, dt))
    part = Val(m.shape[:ax] + (max(m.shape[ax] - 1, 0),) + m.shape[ax + 1:], m.dtype)
    total = Val(fix.shape, fix.dtype if fix.dtype.kind == "f" else np.dtype(np.intp), True)
    steps.new(total.nbytes)
    used(steps, binary(steps, np.add, part, total, True))
    steps.free(*held)
    steps.done()


# --- nanvar, nanstd ------------------------------------------------------------------------------
# NaNs only change values (they are zeroed in a copy and not counted); the all-NaN / dof <= 0
# warnings and NaN fills read values and are skipped.

def _nanvar(a: Any, axis: Any, dtype: Any, out: Any, ddof: Any, keepdims: Any, where: Any,
            mean: Any, correction: Any, std: bool) -> Any:
    """nanvar: np.var for exact types, else sums of a K-order copy divided in place."""
    from .reductions import check_ddof, var_steps, stays_array
    arr, masked = _replace(a)
    name = "np.nanstd" if std else "np.nanvar"
    if not masked:
        check_ddof(ddof, correction)
        ret, scal = var_steps(arr, axis, dtype, out, ddof, keepdims, where, mean)
        if std and stays_array(ret, scal):
            ufunc_call(np.sqrt, ret, out=ret)
        return final_result(ret)
    if arr.dtype.kind == "O":
        raise UnsupportedOperationError(name, "object arrays")
    if dtype is not None:
        dtype = np.dtype(dtype)
    if dtype is not None and not issubclass(dtype.type, np.inexact):
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and not issubclass(out.dtype.type, np.inexact):
        raise TypeError("If a is inexact, then out must be inexact")
    check_ddof(ddof, correction)
    if correction is not _NoValue:
        ddof = correction
    res = _nanvar_steps(arr, axis, dtype, out, ddof, keepdims, where, mean, std)
    from .reductions import np_axes, few_items, warn_few_items
    if few_items(arr, np_axes(axis, arr.ndim), True if where is _NoValue else where, ddof,
                 each=True):
        # ``isbad = dof <= 0``: certain where the slices are shorter than ddof + 1, whatever
        # their NaNs (all-NaN slices: the values)
        warn_few_items("Degrees of freedom <= 0 for slice.")
    return res


def _nanvar_steps(arr: Any, axis: Any, dtype: Any, out: Any, ddof: Any, keepdims: Any,
                  where: Any, mean: Any, std: bool) -> Any:
    """_nanfunctions_impl.py nanvar (and nanstd) on inexact input, its allocations in order:
    replace_nan's mask, copy and ``copyto(a, 0, where=mask)``; ``cnt = sum(~mask, intp,
    keepdims=True)``; ``avg = sum(arr, keepdims=True)`` divided in place by cnt; ``arr -= avg``
    and the second copyto; ``arr * arr.conj()`` (a conjugate copy for complex) in place; ``var
    = sum(sqr)``; ``dof = cnt - ddof``; ``var /= dof``; ``isbad = dof <= 0`` and
    ``np.any(isbad)``; all but var die on return, then nanstd's sqrt.
    Known gap: when a slice is all NaN (a value) NumPy also runs ``copyto(var, nan,
    where=isbad)``, whose 0-d arrays are not counted."""
    from .reductions import kw_reduce, split_out
    from .umath import ufunc_steps
    # ``where=np._NoValue`` reaches subtract and multiply: a 0-d bool array, a masked loop
    inplace_where = np.True_ if where is _NoValue else where
    where = True if where is _NoValue else where
    st = Steps()
    held = [st.new(array_bytes(arr.shape, BOOL)), st.new(array_bytes(arr.shape, arr.dtype))]
    st.temp(copyto_bytes(arr.dtype, 0))
    inv = st.new(array_bytes(arr.shape, BOOL))
    cnt = kw_reduce(np.add, ArrayMeta(tuple(arr.shape), BOOL, tuple(arr.strides)), axis, _INTP,
                    None, True, _NoValue, where)
    held.append(st.new(array_bytes(cnt.shape, cnt.dtype)))
    st.free(inv)
    if mean is not _NoValue:
        avg = as_meta(mean)
        held.append(st.new(asarray_bytes(mean)))
    else:
        avg = kw_reduce(np.add, arr, axis, dtype, None, True, _NoValue, where)
        held.append(st.new(array_bytes(avg.shape, avg.dtype)))
        if avg.ndim:
            ufunc_steps(st, np.divide, avg, cnt, out=avg, casting="unsafe")
    w = st.new(asarray_bytes(inplace_where) if inplace_where is not True else 0)
    ufunc_steps(st, np.subtract, arr, avg, out=arr, casting="unsafe", where=inplace_where)
    st.free(w)
    st.temp(copyto_bytes(arr.dtype, 0))
    conj = st.new(array_bytes(arr.shape, arr.dtype) if arr.dtype.kind == "c" else 0)
    st.temp(asarray_bytes(inplace_where) if inplace_where is not True else 0)  # multiply's where
    st.free(conj)
    sqr = _part(arr) if arr.dtype.kind == "c" else arr
    var = kw_reduce(np.add, sqr, axis, dtype, out, keepdims, _NoValue, where)
    _, scal = split_out(out, positional=True)
    scalar = not stays_array(var, scal)
    if type(var) is ArrayMeta and not scalar:  # not out
        st.new(array_bytes(var.shape, var.dtype))
    elif scalar:
        st.temp(var.dtype.itemsize)  # the 0-d array PyArray_Return makes a scalar
    if var.ndim < cnt.ndim:
        cnt = ArrayMeta(var.shape, _INTP, c_strides(var.shape, 8))
    dof, dof_b = ufunc_steps(st, np.subtract, cnt, ddof)
    held.append(dof_b)
    if not scalar:
        ufunc_steps(st, np.divide, var, dof, out=var, casting="unsafe")
    # ``isbad = (dof <= 0)``: of a NumPy scalar dof, scalar math (nothing allocated)
    bad_b = ufunc_steps(st, np.less_equal, dof, 0)[1] if is_meta(dof) else 0
    st.temp(1 if bad_b else 2)  # np.any(isbad)'s 0-d result (and a scalar's 0-d array)
    st.free(bad_b, *held)
    if std:
        if scalar:
            ufunc_steps(st, np.sqrt, var.dtype.type(0))
        else:
            ufunc_steps(st, np.sqrt, var, out=var)
    st.done()
    if scalar:
        return ArrayMeta(var.shape, var.dtype, var.strides, scalar=True)
    return final_result(var)


def _replace(a: Any) -> tuple:
    from .reductions import replace_nan
    return replace_nan(a)


@register(np.nanvar, tags=("reduction",), flops=flops.per_input(4))
def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
           keepdims: Any = _NoValue, *, where: Any = _NoValue, mean: Any = _NoValue,
           correction: Any = _NoValue) -> Any:
    """np.nanvar: squared deviations of a K-order copy summed, divided by count - ddof."""
    return _nanvar(a, axis, dtype, out, ddof, keepdims, where, mean, correction, False)


@register(np.nanstd, tags=("reduction",), flops=flops.per_input(4))
def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
           keepdims: Any = _NoValue, *, where: Any = _NoValue, mean: Any = _NoValue,
           correction: Any = _NoValue) -> Any:
    """np.nanstd: nanvar, then sqrt in place (a scalar stays a scalar)."""
    return _nanvar(a, axis, dtype, out, ddof, keepdims, where, mean, correction, True)


# --- cov, corrcoef -------------------------------------------------------------------------------
# Value checks skipped: integral / non-negative fweights, non-negative aweights, weights that
# sum to zero (except over zero observations), fact <= 0 (a warning).

def _weight(w: Any, n: int, which: str) -> ArrayMeta:
    wm = as_meta(w)
    if wm.dtype.kind not in "biuf":
        raise UnsupportedOperationError("np.cov", f"{which} of dtype {wm.dtype}")
    if wm.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {which}")
    if wm.ndim == 0:
        raise IndexError("tuple index out of range")
    if wm.shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {which}")
    return c_fresh(wm.shape, _F8)


def _cov(m: Any, y: Any, rowvar: Any, bias: Any, ddof: Any, fweights: Any, aweights: Any,
         dtype: Any, steps: Steps | None = None) -> tuple:
    """cov's steps: (final c meta, n variables); c is a fresh C (n, n) array. Its
    allocations are replayed on ``steps`` (weights: not yet)."""
    if ddof is not None:
        if hasattr(ddof, "storage_offset"):
            raise DataDependentError("np.cov: a fake ddof")
        if ddof != int(ddof):
            raise ValueError("ddof must be integer")
    mm = as_meta(m)
    if mm.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    ym = None
    if y is not None:
        ym = as_meta(y)
        if ym.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    for x in (mm, ym):
        if x is not None and x.dtype.kind not in "biufc":
            raise UnsupportedOperationError("np.cov", f"dtype {x.dtype}")
    if dtype is None:
        dtype = np.result_type(mm.dtype, *([ym.dtype] if ym is not None else []), _F8)
    dt = np.dtype(dtype)
    if dt.kind not in "biufc":
        raise UnsupportedOperationError("np.cov", f"dtype {dt}")
    cast_loop(mm.dtype, dt)  # X = array(m, ndmin=2, dtype=dtype)
    xs = (1,) * (2 - mm.ndim) + mm.shape
    if not rowvar and mm.ndim != 1:
        xs = xs[::-1]
    if xs[0] == 0:
        return None, 0
    rows = xs[0]
    if ym is not None:
        cast_loop(ym.dtype, dt)  # y = array(y, ndmin=2, dtype=dtype)
        ys = (1,) * (2 - ym.ndim) + ym.shape
        if not rowvar and ys[0] != 1:
            ys = ys[::-1]
        if ys[1] != xs[1]:
            raise ValueError("all the input array dimensions except for the concatenation "
                             "axis must match exactly, but along dimension 1, the array at "
                             f"index 0 has size {xs[1]} and the array at index 1 has size "
                             f"{ys[1]}")
        rows += ys[0]
    X = c_fresh((rows, xs[1]), dt)
    w = None
    if fweights is not None:
        w = _weight(fweights, xs[1], "fweights")
    if aweights is not None:
        aw = _weight(aweights, xs[1], "aweights")
        w = aw if w is None else w
    if w is not None and xs[1] == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    adt = _F8 if w is None and dt.kind in "biu" else dt if w is None else \
        np.result_type(dt if dt.kind not in "biu" else _F8, w.dtype)
    if w is None:  # average(X, axis=1) is X.mean(axis=1); fact = X.shape[1] - ddof
        from .reductions import warn_few_items
        if xs[1] == 0:
            warn_few_items("Mean of empty slice")
        eff = (0 if bias else 1) if ddof is None else int(ddof)
        if xs[1] - eff <= 0:
            warn_few_items("Degrees of freedom <= 0 for slice")
    avg = c_fresh((rows, 1), adt)
    ufunc_call(np.subtract, X, avg, out=X)
    xt = X if w is None else _u(np.multiply, X, w)
    cdt = np.result_type(X.dtype, xt.dtype)
    c = c_fresh((rows, rows), cdt)
    ufunc_call(np.multiply, c, np.float64(1.0), out=c)
    if steps is not None and w is None:
        held = tuple(0 if v is None or is_meta(v) else asarray_bytes(v) for v in (m, y))
        _cov_steps(steps, mm, ym, dt, X, adt, c, held)
    return c, rows


def _cov_steps(steps: Steps, mm: Any, ym: Any, dt: np.dtype, X: Any, adt: np.dtype, c: Any,
               held: tuple = (0, 0)) -> None:
    """_function_base_impl.py cov without weights: m = np.asarray(m) and y likewise (``held``:
    bytes of array-likes converted; m's alive to the end, y's until a dtype copy replaces it);
    X = array(m, ndmin=2, dtype) (a copy),
    y likewise (a copy only to change its dtype) concatenated to it; average(X, axis=1,
    returned=True): the mean, and the weight sum broadcast into a copy (dropped at once);
    c = dot(X, X_T.conj()) (conj copies a complex X); c *= true_divide(1, fact) (three 0-d arrays, then the float64
    scalar's 0-d array). X and the mean die at the return."""
    conv, yconv = steps.new(held[0]), steps.new(held[1])
    x = steps.new(array_bytes(mm.shape, dt))
    yc = 0
    if ym is not None:
        yc = steps.new(0 if ym.dtype == dt else array_bytes(ym.shape, dt))
        if yc:  # y = array(y, ..., dtype=dtype) rebinds y: its converted array dies
            steps.free(yconv)
            yconv = 0
        steps.new(array_bytes(X.shape, dt))
        steps.free(x)
        x = array_bytes(X.shape, dt)
    rows = X.shape[0]
    avg = steps.new(array_bytes((rows,), adt))
    steps.temp(divide_by_count_bytes((rows,), adt))
    steps.temp(array_bytes((rows,), adt))
    conj = steps.new(array_bytes(X.shape, dt) if dt.kind == "c" else 0)  # X_T.conj()
    steps.new(array_bytes(c.shape, c.dtype))
    steps.free(conj)
    steps.temp(24)
    steps.temp(ufunc_bytes(np.multiply, c, np.float64(1.0), out=c))
    steps.free(x, yc, avg, conv, yconv)


def _squeezed(c: Any, n: int) -> ArrayMeta:
    """c.squeeze(): c itself for n > 1, a 0-d view of it for n == 1; the empty case's
    ``np.array([]).reshape(0, 0)`` is a view of a 1-d f8 temporary."""
    if c is None:
        return ArrayMeta((0, 0), _F8, (8, 8), base_shape=(0,))
    if n == 1:
        return ArrayMeta((), c.dtype, (), base_shape=(1, 1))
    return final_result(c)


@register(np.cov, tags=("copy",), flops=flops.cov)
def cov(m: Any, y: Any = None, rowvar: Any = True, bias: Any = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> ArrayMeta:
    """np.cov: dot(X, X_T.conj()) scaled in place, squeezed (a fresh C (n, n) array)."""
    steps = Steps()
    c, n = _cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype, steps)
    steps.done()
    return _squeezed(c, n)


@register(np.corrcoef, tags=("copy",), flops=flops.corrcoef)
def corrcoef(x: Any, y: Any = None, rowvar: Any = True, *, dtype: Any = None) -> Any:
    """np.corrcoef: cov divided in place by its diagonal's sqrt (c / c for a 0-d cov)."""
    steps = Steps()
    c, n = _cov(x, y, rowvar, False, None, None, None, dtype, steps)
    if n == 1:
        z = ArrayMeta((), c.dtype, ())
        return ufunc_call(np.true_divide, z, z)
    if c is not None:  # stddev = sqrt(diag(c).real), then np.clip(c.real, -1, 1, out=c.real)
        part = _part(c) if c.dtype.kind == "c" else c
        sd = steps.new(array_bytes((n,), part.dtype))
        steps.temp(ufunc_bytes(_umath.clip, part, -1, 1, out=part))
        steps.free(sd)
        steps.done()
    return _squeezed(c, n)


# --- gradient -----------------------------------------------------------------------------------

def _spacing(d: Any, length: int) -> Any:
    """One of gradient's varargs: None for a scalar, else the 1-d spacing's dtype checked."""
    dm = as_meta(d)
    if dm.ndim == 0:
        return None
    if dm.ndim != 1:
        raise ValueError("distances must be either scalars or 1d")
    if dm.shape[0] != length:
        raise ValueError("when 1d, distances must match "
                         "the length of the corresponding dimension")
    if dm.dtype.kind not in "iuf":
        raise UnsupportedOperationError("np.gradient", f"distances of dtype {dm.dtype}")
    if length < 2:
        raise IndexError(f"index 0 is out of bounds for axis 0 with size {max(length - 1, 0)}")
    return dm


@register(np.gradient, tags=("copy",), flops=flops.gradient)
def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: Any = 1) -> Any:
    """np.gradient: one ``empty_like(f, dtype=otype)`` (K order) per axis, filled by slices."""
    m = as_meta(f)
    nd = m.ndim
    axes = normalize_axes(axis, nd)
    n = len(varargs)
    if n == 0:
        dx = [None] * len(axes)
    elif n == 1 and as_meta(varargs[0]).ndim == 0:
        dx = [None] * len(axes)
    elif n == len(axes):
        dx = [_spacing(d, m.shape[axes[i]]) for i, d in enumerate(varargs)]
    else:
        raise TypeError("invalid number of arguments")
    for d in varargs:
        if as_meta(d).dtype.kind not in "biuf":
            raise UnsupportedOperationError("np.gradient", "non-real distances")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if edge_order not in (1, 2):
        raise UnsupportedOperationError("np.gradient", f"edge_order={edge_order!r}")
    if m.dtype.kind not in "biufc":
        raise UnsupportedOperationError("np.gradient", f"dtype {m.dtype}")
    if m.dtype.kind in "iu":
        m = like_copy(m, _F8)
    otype = m.dtype if m.dtype.kind in "fc" else _F8
    outs = []
    for ax, d in zip(axes, dx):
        if m.shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        if m.dtype == BOOL:
            if d is not None and edge_order == 2:
                raise UnsupportedOperationError("np.gradient", "bool f with array spacing")
            ufunc_call(np.subtract, m, m)
        outs.append(final_result(like_copy(m, otype)))
    modelled = False
    if all(d is None for d in dx):
        scalar = (varargs[0] if n else 1.0)
        if type(scalar) in (int, float) or isinstance(scalar, (np.integer, np.floating)):
            _gradient_steps(as_meta(f), m.dtype, otype, axes, scalar, edge_order)
            modelled = True
    elif len(axes) == 1 and dx[0] is not None and is_meta(varargs[0]):
        _gradient_spacing_steps(as_meta(f), m.dtype, otype, axes[0], dx[0], edge_order)
    if not modelled:
        # with one axis the figures are those of spacings that are not all equal
        unmodelled("np.gradient with array spacings (or a spacing that is not a number): "
                   "whether they are uniform, which sets its temporaries, depends on the values")
    if len(axes) == 1:
        return outs[0]
    return tuple(outs)


def _gradient_spacing_steps(f: Any, ftype: np.dtype, otype: np.dtype, ax: int, d: Any,
                            edge_order: int) -> None:
    """gradient along one axis with a 1-d array of coordinates ``d``, taking the path of
    coordinates that are not evenly spaced (_function_base_impl.py ``gradient``): d's
    float64 copy if integer (alive to the return), ``diffx = np.diff(d)`` (alive to the
    return) and its ``(diffx == diffx[0]).all()`` test, an int f's float64 copy, the
    output, the coefficient arrays ``a``, ``b``, ``c`` (with NumPy's temporary elision),
    ``shape = np.ones(N, int)`` with its ``shape[axis] = -1``, the interior ``a * f[:-2] +
    b * f[1:-1] + c * f[2:]``, then the edges (edge_order 1: ``(f[1] - f[0]) / diffx[0]``;
    2: the scalars ``a``, ``b``, ``c`` replace the arrays, ``a * f[0] + b * f[1] + c * f[2]``)."""
    st = Steps()
    n = f.shape[ax]
    dcopy = st.new(array_bytes((n,), _F8) if d.dtype.kind in "iu" else 0)
    ddt = _F8 if d.dtype.kind in "iu" else d.dtype
    diffx = Val((n - 1,), ddt)
    held_dx = st.new(diffx.nbytes)
    first = ddt.type(1)  # diffx[0], a NumPy scalar
    test = st.new(array_bytes((n - 1,), BOOL) + ufunc_bytes(np.equal, diffx, first))
    st.temp(1)  # .all()'s 0-d result
    st.free(test)
    held_f = st.new(array_bytes(f.shape, ftype) if ftype != f.dtype else 0)
    st.new(array_bytes(f.shape, otype))  # out: the result
    d1 = d2 = Val((n - 2,), ddt)
    a = binary(st, np.true_divide, unary(st, np.negative, d2),
               binary(st, np.multiply, d1, binary(st, np.add, d1, d2), True))
    b = binary(st, np.true_divide, binary(st, np.subtract, d2, d1), binary(st, np.multiply, d1, d2, True))
    c = binary(st, np.true_divide, d1, binary(st, np.multiply, d2, binary(st, np.add, d1, d2), True))
    coef = [a.nbytes, b.nbytes, c.nbytes]
    shape = st.new(array_bytes((f.ndim,), _INTP))  # np.ones(N, int): empty, then copyto
    st.temp(copyto_bytes(_INTP, 1))
    st.temp(setitem_bytes(_INTP, -1))  # shape[axis] = -1
    bshape = tuple(n - 2 if i == ax else 1 for i in range(f.ndim))
    inner = Val(f.shape[:ax] + (n - 2,) + f.shape[ax + 1:], ftype)
    av, bv, cv = (Val(bshape, ddt) for _ in range(3))  # the reshaped views
    t = binary(st, np.add, binary(st, np.add, binary(st, np.multiply, av, inner),
                                  binary(st, np.multiply, bv, inner), True),
               binary(st, np.multiply, cv, inner), True)
    used(st, t)
    edge = Val(f.shape[:ax] + f.shape[ax + 1:], ftype)
    for end in (0, -1):
        if edge_order == 1:
            used(st, binary(st, np.true_divide, binary(st, np.subtract, edge, edge), first))
            continue
        if end == 0:
            st.free(*coef)  # a, b, c become scalars: the arrays die
            coef = []
        s1 = binary(st, np.add, binary(st, np.multiply, first, edge),
                    binary(st, np.multiply, first, edge), True)
        used(st, binary(st, np.add, s1, binary(st, np.multiply, first, edge), True))
    st.free(dcopy, held_dx, held_f, shape, *coef)
    st.done()


def _gradient_steps(f: Any, ftype: np.dtype, otype: np.dtype, axes: tuple, dx: Any,
                    edge_order: int) -> None:
    """The allocations of _function_base_impl.py gradient with a uniform spacing ``dx``:
    an int f's float64 copy, then per axis the output and the temporaries of the interior
    ``(f[2:] - f[:-2]) / (2. * dx)`` and of the two edges (edge_order 1: ``(f[1] - f[0]) / dx``;
    2: ``a * f[0] + b * f[1] + c * f[2]``), with NumPy's temporary elision."""
    steps = Steps()
    held = steps.new(array_bytes(f.shape, ftype)) if ftype != f.dtype else 0
    for ax in axes:
        steps.new(array_bytes(f.shape, otype))
        inner = Val(f.shape[:ax] + (f.shape[ax] - 2,) + f.shape[ax + 1:], ftype)
        edge = Val(f.shape[:ax] + f.shape[ax + 1:], ftype)
        used(steps, binary(steps, np.true_divide, binary(steps, np.subtract, inner, inner), 2. * dx))
        for end in (0, -1):
            if edge_order == 1:
                used(steps, binary(steps, np.true_divide, binary(steps, np.subtract, edge, edge), dx))
                continue
            a, b, c = (-1.5 / dx, 2. / dx, -0.5 / dx) if end == 0 else (0.5 / dx, -2. / dx, 1.5 / dx)
            ab = binary(steps, np.add, binary(steps, np.multiply, a, edge),
                        binary(steps, np.multiply, b, edge), commutative=True)
            used(steps, binary(steps, np.add, ab, binary(steps, np.multiply, c, edge), commutative=True))
    steps.free(held)
    steps.done()
