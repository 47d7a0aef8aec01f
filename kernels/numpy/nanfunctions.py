"""nanmedian, nanquantile, nanpercentile, nanvar, nanstd, nancumsum, nancumprod
(numpy/lib/_nanfunctions_impl.py; nansum, nanmean and the other nan-reductions are in
reductions.py, next to the reductions they call).

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
from ..registry import assume, register, transient, unmodelled
from .reductions import nanmean
from .. import flops
from ._common import BOOL, c_fresh, complex_part
from .function_base import check_weight_totals, q_held, quantile_func, ureduce, quantile_args
from .hidden import stepped
from .reductions import final_result, stays_array
from .temporaries import (Steps, array_bytes, asarray_bytes, copyto_bytes, scalar_binop_bytes,
                          ufunc_bytes)
from .umath import ufunc_call

_INTP = np.dtype(np.intp)

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
        _overwrite_read_only(m, overwrite_input, name)
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


def _overwrite_read_only(m: Any, overwrite_input: Any, name: str) -> None:
    """``overwrite_input`` on the whole input (axis None, or 1-d): _remove_nan_1d moves the
    non-NaN values over the NaNs of ``a.ravel()`` (a view where the input is C-contiguous),
    then partitions it; a read-only input raises NumPy's ValueError, unless every value is
    NaN (nothing is written then), which integers and booleans cannot be."""
    if not overwrite_input or m.flags.writeable or not m.flags.c_contiguous:
        return
    if m.dtype.kind in "fcmM" and not assume(
            f"{name}: the read-only input was taken not to be all NaN (overwrite_input "
            "raises then)"):
        raise DataDependentError(
            f"{name}(overwrite_input=True) of a read-only array raises ValueError unless "
            "every value is NaN: that depends on the values")
    raise ValueError("partition array is read-only")


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
    if m.size == 0:  # the q array (percentile's q / 100) is alive while nanmean runs
        res = nanmean(m, axis, out=out, keepdims=keepdims)
        transient(q_held(q, qv, percent))
        return res
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
        _overwrite_read_only(m, overwrite_input, "np.nanmedian")
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


# --- nancumsum, nancumprod -------------------------------------------------------------------

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
    if not arr.ndim and arr.dtype.kind == "f" and out is None and mean is _NoValue \
            and where is True:
        return _nanvar_0d_steps(arr, dtype, ddof, keepdims, std)
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
    sqr = complex_part(arr) if arr.dtype.kind == "c" else arr
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
    else:  # _divide_by_count: ``a.dtype.type(a / b)``, NumPy scalars (float32 / intp promotes)
        st.temp(scalar_binop_bytes(np.true_divide, var.dtype, dof.dtype))
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


def _nanvar_0d_steps(arr: Any, dtype: Any, ddof: Any, keepdims: Any, std: bool) -> Any:
    """nanvar of a 0-d float array: ``isnan`` gives a NumPy bool, every sum a NumPy scalar
    (keepdims of 0-d), so only the copy stays alive; the rest are 0-d temporaries one at a
    time: copyto's, ``sum(~mask, dtype=intp)`` (the bool's 0-d array, its intp cast, the
    result), the sums, the scalar divisions (float32 / intp promotes), subtract's 0-d of
    the mean and where=, multiply's where=, ``np.any(isbad)``. Measured on numpy 2.4."""
    from .reductions import kw_reduce
    from .umath import ufunc_steps
    st = Steps()
    st.temp(1)  # isnan
    copy = st.new(array_bytes((), arr.dtype))
    st.temp(copyto_bytes(arr.dtype, 0))
    st.temp(1 + 2 * _INTP.itemsize)
    avg = kw_reduce(np.add, arr, None, dtype, None, True, _NoValue, True)
    st.temp(avg.dtype.itemsize)
    st.temp(scalar_binop_bytes(np.true_divide, avg.dtype, _INTP))
    st.temp(ufunc_bytes(np.subtract, arr, avg.dtype.type(0), out=arr, casting="unsafe") + 1)
    st.temp(copyto_bytes(arr.dtype, 0))
    st.temp(1)  # multiply's where=
    var = kw_reduce(np.add, arr, None, dtype, None, keepdims, _NoValue, True)
    st.temp(var.dtype.itemsize)
    st.temp(scalar_binop_bytes(np.true_divide, var.dtype, _INTP))
    st.temp(2)  # np.any of a NumPy bool
    st.free(copy)
    if std:
        ufunc_steps(st, np.sqrt, var.dtype.type(0))
    st.done()
    return ArrayMeta(var.shape, var.dtype, var.strides, scalar=True)


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
