"""nanmedian, nanquantile, nanpercentile (numpy/lib/_nanfunctions_impl.py).

NumPy removes each slice's NaNs before its median or quantiles: the slices' sizes, the
copies made and whether a slice is all NaN depend on values, the layout of the result does
not, except where an all-NaN slice changes the result dtype (below). Memory: the fake counts
the result and, for one slice (axis None or 1-d input), the quantile of the whole input as
if it held no NaN; NumPy's NaN scans, masks and per-slice copies are not counted, so the
fake is a lower bound of NumPy's peak (docs/guide/memory.md).
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from ...layout import c_strides, like_strides, normalize_axis
from ...meta import ArrayMeta, as_meta, check_writeable, is_meta
from ..registry import assume, register, unmodelled
from .reductions import nanmean
from .statistics import c_fresh, check_weight_totals, quantile_func, ureduce, quantile_args

_NoValue = np._NoValue


def _assign_out(out: Any, res: Any) -> Any:
    """``out[...] = result`` (broadcast shape check), returning out."""
    check_writeable(out)
    try:
        fits = np.broadcast_shapes(tuple(res.shape), tuple(out.shape)) == tuple(out.shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"could not broadcast input array from shape {tuple(res.shape)} into "
                         f"shape {tuple(out.shape)}")
    return out


def _along(m: Any, ax: int, res_shape: tuple, dt: np.dtype) -> ArrayMeta:
    """apply_along_axis's result: a C buffer of the other axes + res_shape, transposed so
    that res's axes stand where ``ax`` was (numpy/lib/_shape_base_impl.py)."""
    lead = tuple(m.shape[:ax]) + tuple(m.shape[ax + 1:])
    buff = c_fresh(lead + tuple(res_shape), dt)
    nb, nr = buff.ndim, len(res_shape)
    perm = list(range(ax)) + list(range(nb - nr, nb)) + list(range(ax, nb - nr))
    return ArrayMeta(tuple(buff.shape[p] for p in perm), dt,
                     tuple(buff.strides[p] for p in perm), base_shape=tuple(buff.shape))


# --- nanquantile, nanpercentile -------------------------------------------------------

def _nanquantile_func(m: Any, axis: Any, out: Any, q: Any, weights: Any, overwrite_input: Any,
                      method: Any, weak_q: bool, name: str, kept: bool = False) -> Any:
    """_nanquantile_ureduce_func: one _nanquantile_1d of the raveled input, else
    apply_along_axis over the slices (q's axes moved to the front), else (weights) a loop
    into ``empty_like(a moved, shape=q.shape + a.shape[:-1])``."""
    if axis is None or m.ndim == 1:
        flat = ArrayMeta((m.size,), m.dtype, c_strides((m.size,), m.dtype.itemsize))
        res = quantile_func(flat, None, None, q, weights, overwrite_input, method, weak_q, name)
        _all_nan_dtype(m.dtype, res.dtype, name)
        if out is not None:
            return _assign_out(out, res)
        if res.ndim and not kept:  # _nanquantile_1d of an all-NaN input: a view of np.full (q's shape)
            _no_all_nan(m.dtype, name, "the input is all NaN")
        return res
    ax = normalize_axis(axis, m.ndim)
    if weights is None:
        one = ArrayMeta((m.shape[ax],), m.dtype, (m.dtype.itemsize,))
        res = quantile_func(one, None, None, q, None, overwrite_input, method, weak_q, name)
        _all_nan_dtype(m.dtype, res.dtype, name)
        r = _along(m, ax, tuple(q.shape), res.dtype)
        if q.ndim:  # np.moveaxis(result, [axis + i ...], range(q.ndim)), axis as given
            src = [normalize_axis(axis + i, r.ndim) for i in range(q.ndim)]
            order = [i for i in range(r.ndim) if i not in src]
            for dst, s in sorted(zip(range(q.ndim), src)):
                order.insert(dst, s)
            r = ArrayMeta(tuple(r.shape[i] for i in order), r.dtype,
                          tuple(r.strides[i] for i in order), base_shape=r.base_shape)
        if out is not None:
            return _assign_out(out, r)
        return r
    one = ArrayMeta((m.shape[ax],), m.dtype, (m.dtype.itemsize,))
    res = quantile_func(one, None, None, q, ArrayMeta(one.shape, as_meta(weights).dtype,
                                                       (8,)), overwrite_input, method, weak_q,
                         name)
    moved_order = [i for i in range(m.ndim) if i != ax] + [ax]
    shape = tuple(q.shape) + tuple(m.shape[i] for i in moved_order[:-1])
    w = as_meta(weights)
    for i, j in enumerate(moved_order[:-1]):  # ``weights[ii]`` of weights shaped 1 there
        if w.shape[j] == 1 and m.shape[j] > 1:
            raise IndexError(f"index 1 is out of bounds for axis {i} with size 1")
    if out is not None:
        return _assign_out(out, ArrayMeta(shape, res.dtype, c_strides(shape, 8)))
    mv_shape = tuple(m.shape[i] for i in moved_order)
    mv_strides = tuple(m.strides[i] for i in moved_order)
    dt = m.dtype
    if len(shape) == len(mv_shape):  # empty_like: a's order (K) when the ndim is a's
        from ...layout import contiguity
        c, f = contiguity(mv_shape, mv_strides, dt.itemsize)
        return ArrayMeta(shape, dt, like_strides(shape, mv_strides, dt.itemsize, c, f))
    return c_fresh(shape, dt)


def _all_nan_dtype(adt: np.dtype, rdt: np.dtype, name: str) -> None:
    """An all-NaN slice gives ``np.full(q.shape, nan, dtype=a.dtype)``: when the quantile's
    dtype is another (float16/float32 data, q an array), the result's dtype (and for
    apply_along_axis, its buffer's, taken from the first slice) depends on the values."""
    if adt.kind in "fc" and adt != rdt:
        raise DataDependentError(f"{name}: the result dtype is {rdt} unless a slice is all NaN "
                                 f"({adt}); pass q as a Python float or the data as float64")


def _no_all_nan(dt: np.dtype, name: str, when: str) -> None:
    """Where NumPy's result owns its data or is a view depending on whether a slice is all
    NaN (layout, dtype and shape agree on both paths; ``owndata`` and ``base`` do not), the
    fake answers for inputs with no such slice only as a listed assumption (placeholder
    mode); otherwise DataDependentError. Integers and booleans hold no NaN."""
    if dt.kind in "fcmM" and not assume(f"{name}: no slice was taken to be all NaN (when {when}, NumPy's result "
                  "owns its data instead of being a view)"):
        raise DataDependentError(
            f"{name}: whether the result owns its data depends on the values (when {when}, "
            "NumPy's result is a new array, else a view); keepdims=True or out= give one "
            "answer for any values")


# numpy/lib/_nanfunctions_impl.py: each slice's copy without its NaNs (_remove_nan_1d,
# _nanmedian_small's masked array) is as long as the values that are not NaN
_WITHOUT_NANS = "the copies without NaNs are as long as the values that are not NaN"


def _nanquantile_entry(a: Any, q: Any, axis: Any, out: Any, overwrite_input: Any, method: Any,
                       keepdims: Any, weights: Any, percent: bool, name: str) -> Any:
    m, qv, weak, w = quantile_args(a, q, axis, method, weights, percent)
    check_weight_totals(weights, a, m, axis, True)
    if m.size == 0:
        return nanmean(m, axis, out=out, keepdims=keepdims)
    unmodelled(_WITHOUT_NANS)
    return ureduce(m, _nanquantile_func, keepdims, axis, out, name, q=qv, weights=w,
                    overwrite_input=overwrite_input, method=method, weak_q=weak, name=name,
                    kept=keepdims is not _NoValue and bool(keepdims))


@register(np.nanquantile, tags=("reduction",))
def nanquantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: Any = _NoValue, *, weights: Any = None) -> Any:
    """np.nanquantile: quantiles of each slice without its NaNs."""
    return _nanquantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights,
                              False, "np.nanquantile")


@register(np.nanpercentile, tags=("reduction",))
def nanpercentile(a: Any, q: Any, axis: Any = None, out: Any = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: Any = _NoValue, *, weights: Any = None) -> Any:
    """np.nanpercentile: nanquantile of q / 100."""
    return _nanquantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights,
                              True, "np.nanpercentile")


nanquantile.keep_real = frozenset({1, "q", "weights"})
nanpercentile.keep_real = frozenset({1, "q", "weights"})


# --- nanmedian ---------------------------------------------------------------------------

def _median_dtype(dt: np.dtype) -> np.dtype:
    """np.nanmedian's dtype (and dtype errors) from NumPy's own on a one-element stand-in."""
    if dt.kind == "O":
        raise UnsupportedOperationError("np.nanmedian", "object arrays")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(np.nanmedian(np.zeros((1, 1), dt), axis=1)).dtype


def _nanmedian_func(m: Any, axis: Any, out: Any, overwrite_input: Any, kept: bool) -> Any:
    """_nanmedian: a NumPy scalar for one slice; else np.ma.median (axis shorter than 600,
    the input's order; ``filled`` gives a view) or apply_along_axis (a C array, viewed)."""
    dt = _median_dtype(m.dtype)
    if axis is None or m.ndim == 1:
        res = ArrayMeta((), dt, (), scalar=True)
        if out is not None:
            return _assign_out(out, res)
        return res
    ax = normalize_axis(axis, m.ndim)
    rest = tuple(m.shape[:ax]) + tuple(m.shape[ax + 1:])
    if m.shape[ax] < 600:
        # np.ma.median of masked_array(a, isnan(a)): the result follows the mask's order
        # (isnan's K-order output: a stride-0 axis does not count)
        from ...layout import contiguity
        from .umath import ufunc_call
        from ..registry import quiet
        with quiet():
            mask = ufunc_call(np.isnan, ArrayMeta(tuple(m.shape), m.dtype, tuple(m.strides)))
        st = tuple(mask.strides[:ax]) + tuple(mask.strides[ax + 1:])
        c, f = contiguity(rest, st, m.dtype.itemsize)
        r = ArrayMeta(rest, dt, like_strides(rest, st, dt.itemsize, c, f), base_shape=rest)
        if out is None and not kept and rest:  # MaskedArray.filled: a copy if any is masked
            _no_all_nan(m.dtype, "np.nanmedian", "a slice is all NaN")
    else:  # apply_along_axis: a transposed view of its buffer
        r = ArrayMeta(rest, dt, c_strides(rest, dt.itemsize), base_shape=rest)
    if out is not None:
        return _assign_out(out, r)
    return r


@register(np.nanmedian, tags=("reduction",))
def nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: Any = _NoValue) -> Any:
    """np.nanmedian: nanmean of an empty input, else ureduce over _nanmedian."""
    m = as_meta(a)
    if m.size == 0:
        return nanmean(m, axis, out=out, keepdims=keepdims)
    if out is not None and not is_meta(out):
        raise UnsupportedOperationError("np.nanmedian", "a non-array out")
    unmodelled(_WITHOUT_NANS)
    return ureduce(m, _nanmedian_func, keepdims, axis, out, "np.nanmedian",
                    overwrite_input=overwrite_input,
                    kept=keepdims is not _NoValue and bool(keepdims))
