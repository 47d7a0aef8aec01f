"""CuPy rules for statistics on CUDA fakes: order statistics, averages, nan-reductions, histograms.

Every rule follows CuPy 14's source (github.com/cupy/cupy): cupy/_statistics/order.py,
meanvar.py, histogram.py, correlation.py; cupy/_math/sumprod.py, misc.py;
cupy/_logic/*; cupy/_core/_routines_statistics.pyx. Facts that differ from NumPy:
- ``nanvar``/``nanstd`` of a real float array keep its dtype whatever ``dtype=`` says
  (``_nanvar_core``: ``'S x, ...' -> 'S out'``); ``nanmean`` of ints is ``a.mean()``;
- ``median``/``quantile`` results are fresh C (``where``/``_internal_ascontiguousarray``)
  or views of a temporary (a squeezed / reshaped one); a 0-d input with ``keepdims``
  gives shape (1,); ``quantile`` accepts q when *some* q >= 0 and *some* q <= 1;
- ``average(returned=True)`` of a full reduction gives a NumPy scalar as the sum of weights;
- ``bincount`` and ``real_if_close`` of complex input are data-dependent.
"""
from __future__ import annotations

import functools
import math
import operator
import warnings
from typing import Any, Sequence

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from .ops import rollaxis_perm, concat_meta, fresh_c, scan_meta, view_of
from .core import on_cupy
from .core import (REDUCTIONS, check_cast, cupy_module, table_loop, check_array, check_dtype, copy_out,
                   cp_empty_like, cupy_ufunc_call, current_device, device_of,
                   fresh, guess_loop, is_device_array, ndarray_mean,
                   ndarray_prod, ndarray_std, ndarray_sum, ndarray_var,
                   reduce_shape, reduction_order, register_rules, temp)
from .sorting import partition_checks, sort_checks, cp_searchsorted
from ...layout import cupy_c_contiguity, cupy_nocopy_strides, cupy_reshape
from ...layout import AxisError, normalize_axis
from ...meta import ArrayMeta

_F8 = np.dtype(np.float64)
_I8 = np.dtype(np.int64)
_B1 = np.dtype(bool)

# cdef reduction tables of cupy/_core/_routines_statistics.pyx
_NANMEAN = "e->e f->f d->d F->F D->D"
_NANARG = "?->q B->q h->q H->q i->q I->q l->q L->q q->q Q->q e->q f->q d->q F->q D->q"
_ARG = " ".join(f"{d}->{r}" for r in "qlihb" for d in "?BhHiIlLqQ") + \
    " e->q f->q d->q F->q D->q"
_MEAN = "?->d B->d h->d H->d i->d I->d l->d L->d q->d Q->d e->e f->f d->d F->F D->D"


def _cuda(a: Any, name: str) -> Any:
    """A CUDA fake on the current device; anything else is not reproduced."""
    if not (is_device_array(a) and device_of(a) != "cpu"):
        raise UnsupportedOperationError(f"cupy.{name}", "only CUDA fakes are supported")
    if device_of(a) != current_device():
        raise UnsupportedOperationError(f"cupy.{name}", "an array on another device")
    return a


def _uf(name: str) -> Any:
    f = getattr(cupy_module(), name)
    return getattr(f, "__wrapped__", f)


def _ufunc(name: str, *args: Any, **kw: Any) -> Any:
    """A cupy ufunc by name on fakes / ArrayMeta records / scalars (its result or out)."""
    return cupy_ufunc_call(_uf(name), *args, **kw)


def _v(x: Any) -> Any:
    """An ArrayMeta or fake as something a ufunc rule accepts (a record with no device: fresh)."""
    return x if is_device_array(x) else view_of(x)


# --- a temporary's geometry -------------------------------------------------------------

def _t_view(t: ArrayMeta, shape: Sequence[int], strides: Sequence[int]) -> ArrayMeta:
    """A view of the temporary ``t`` (its ``base_shape`` names the allocation it views)."""
    owner = t.base_shape if t.base_shape is not None else t.shape
    return t._replace(shape=tuple(shape), strides=tuple(strides), base_shape=owner)


def _t_permute(t: ArrayMeta, axes: list | None) -> ArrayMeta:
    if axes is None:
        return t
    return _t_view(t, [t.shape[i] for i in axes], [t.strides[i] for i in axes])


def _t_reshape(t: ArrayMeta, shape: tuple) -> ArrayMeta:
    """_routines_manipulation.pyx _reshape of a temporary: a view, or a fresh reshaped copy."""
    shape, st, copied = cupy_reshape(t.shape, t.strides, t.dtype.itemsize, shape)
    return temp(shape, t.dtype, strides=st) if copied else _t_view(t, shape, st)


def _t_contiguous(t: ArrayMeta) -> ArrayMeta:
    """core.pyx _internal_ascontiguousarray."""
    return t if t.flags.c_contiguous else temp(t.shape, t.dtype)


# --- reductions ------------------------------------------------------------------------

def _reduce(name: str, a: Any, axis: Any, dtype: Any, out: Any, keepdims: bool,
            table: Any = None, kernel: Any = None, identity: bool = True) -> Any:
    """A create_reduction_func call (_reduction.pyx): loop from ``table`` or ``kernel._ops``,
    a fresh output (C, or F after a CUB block reduction: cupy_rules.reduction_order; 0-d for a
    full reduction), ValueError for an empty one without identity."""
    dev = current_device()
    if out is not None:
        check_array(out, dev)
    if dtype is not None:
        dtype = np.dtype(dtype)
    if kernel is not None:
        odt = np.dtype(guess_loop(kernel._ops, kernel.name, (a.dtype,), None, dtype).out_types[0])
    elif dtype is None:
        odt = table_loop(table, a.dtype)
    else:
        outs = {np.dtype(t.split("->")[1]) for t in table.split()}
        if dtype not in outs:
            raise TypeError(f"Wrong type ({dtype}) of arguments for {name}")
        odt = dtype
    shape = reduce_shape(tuple(a.shape), axis, keepdims)
    if out is not None:
        if tuple(out.shape) != shape:
            raise ValueError("Out shape is mismatched")
        reduction_order(a, axis, shape, out)
        return out
    if math.prod(shape) and not identity and 0 in a.shape:
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    return fresh(shape, check_dtype(odt), reduction_order(a, axis, shape), device=dev)


def _math_kernel(name: str) -> Any:
    import cupy._core._routines_math as m
    return getattr(m, name)


def _nan_sum_prod(name: str):
    def kernel(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
               keepdims: bool = False) -> Any:
        """_routines_math.pyx _nansum/_nanprod: complex / auto / keep-dtype reduction
        (identity 0 / 1)."""
        _cuda(a, name)
        k = "complex" if a.dtype.kind == "c" else "auto" if dtype is None else "keep"
        return _reduce(f"cupy_{name}", a, axis, dtype, out, keepdims,
                       kernel=_math_kernel(f"_{name}_{k}_dtype"))
    kernel.__name__ = f"cp_{name}"
    return kernel


cp_nansum, cp_nanprod = _nan_sum_prod("nansum"), _nan_sum_prod("nanprod")


def _nanminmax(name: str):
    def kernel(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
        """order.py nanmin/nanmax: _core.nanmin/nanmax (no identity); the all-NaN warning
        needs the values and is not given."""
        _cuda(a, name)
        import cupy._core._routines_statistics as s
        return _reduce(f"cupy_{name}", a, axis, None, out, keepdims, kernel=getattr(s, name),
                       identity=False)
    kernel.__name__ = f"cp_{name}"
    return kernel


def _nanarg(name: str):
    def kernel(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
               keepdims: bool = False) -> Any:
        """search.py nanargmax/nanargmin: argmax/argmin for b/i/u, else _nanarg* ('->q')."""
        _cuda(a, name)
        if a.dtype.kind in "biu" and dtype is not None and np.dtype(dtype) != _I8:
            raise UnsupportedOperationError(f"cupy.{name}", "dtype= on the CUB argmax path")
        if a.dtype.kind in "biu":  # a.argmax(...): CuPy's method, CUB routine first
            return REDUCTIONS[name[3:]](a, axis, out, dtype=dtype, keepdims=keepdims)
        return _reduce(f"cupy_{name}", a, axis, dtype, out, keepdims, table=_NANARG,
                       identity=False)
    kernel.__name__ = f"cp_{name}"
    return kernel


def cp_nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
               keepdims: bool = False) -> Any:
    """meanvar.py nanmean: ``a.mean()`` for b/i/u, else _nanmean_func (no identity)."""
    _cuda(a, "nanmean")
    if a.dtype.kind in "biu":
        return ndarray_mean(a, axis, dtype, out, keepdims)
    return _reduce("cupy_nanmean", a, axis, dtype, out, keepdims, table=_NANMEAN, identity=False)


def _nanvar(name: str, a: Any, axis: Any, dtype: Any, out: Any, ddof: Any, keepdims: bool) -> Any:
    """_routines_statistics.pyx _nanvar: the output keeps x's dtype (complex: its real)."""
    if dtype is not None:
        dtype = np.dtype(dtype)
    cp_nansum(a, axis, dtype, None, True)  # arrsum: its dtype checks
    shape = reduce_shape(tuple(a.shape), axis, keepdims)
    operator.index(ddof)
    if out is not None:
        check_array(out, current_device())
        if tuple(out.shape) != shape:
            raise ValueError("Out shape is mismatched")
        return out
    if a.dtype == np.complex64 or dtype == np.complex64:
        odt: np.dtype = np.dtype(np.float32)
    elif a.dtype == np.complex128 or dtype == np.complex128:
        odt = _F8
    else:
        odt = a.dtype
    return fresh_c(shape, odt)


def cp_nanvar(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
              keepdims: bool = False) -> Any:
    """meanvar.py nanvar: ``a.var()`` for b/i/u, else _nanvar."""
    _cuda(a, "nanvar")
    if a.dtype.kind in "biu":
        return ndarray_var(a, axis, dtype, out, keepdims, ddof=ddof)
    return _nanvar("nanvar", a, axis, dtype, out, ddof, keepdims)


def cp_nanstd(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
              keepdims: bool = False) -> Any:
    """meanvar.py nanstd: ``a.std()`` for b/i/u, else ``_sqrt(_nanvar(...), dtype, out)``."""
    _cuda(a, "nanstd")
    if a.dtype.kind in "biu":
        return ndarray_std(a, axis, dtype, out, keepdims, ddof=ddof)
    var = _nanvar("nanstd", a, axis, dtype, None, ddof, keepdims)
    return _ufunc("sqrt", view_of(var), dtype=dtype, out=out)


def cp_product(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
               keepdims: bool = False) -> Any:
    """sumprod.py product: a DeprecationWarning, then ``a.prod()``."""
    warnings.warn("Please use `prod` instead.", DeprecationWarning, stacklevel=2)
    return ndarray_prod(_cuda(a, "product"), axis, dtype, out, keepdims)


def cp_cumproduct(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """sumprod.py cumproduct: a DeprecationWarning, then cumprod (scan_core)."""
    warnings.warn("Please use `cumprod` instead.", DeprecationWarning, stacklevel=2)
    return scan_meta("cumprod", _cuda(a, "cumproduct"), axis, dtype, out)


def _nancum(name: str):
    def kernel(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        """sumprod.py nancumsum/nancumprod: ``_replace_nan`` (empty_like) then the scan."""
        _cuda(a, name)
        if out is not None:
            raise UnsupportedOperationError(f"cupy.{name}", "out= is not supported yet")
        return scan_meta(name[3:], a, axis, dtype, None)  # empty_like keeps shape and dtype
    kernel.__name__ = f"cp_{name}"
    return kernel


def _cumulative(name: str):
    def kernel(x: Any, /, *, axis: Any = None, dtype: Any = None, out: Any = None,
               include_initial: bool = False) -> Any:
        """sumprod.py _cumulative_op: atleast_1d, axis checks, the scan or a fresh C result."""
        if not (is_device_array(x) and device_of(x) != "cpu"):
            raise TypeError("`x` should be of type cupy.ndarray")
        _cuda(x, name)
        xs = temp(x.shape or (1,), x.dtype, x)
        nd = len(xs.shape)
        if axis is None:
            if nd >= 2:
                raise ValueError("For arrays which have more than one dimension "
                                 "``axis`` argument is required.")
            axis = 0
        else:
            axis = normalize_axis(operator.index(axis), nd)
        expected: Any = list(xs.shape)
        if include_initial:
            expected[axis] += 1
        expected = tuple(expected)
        if out is not None:
            if tuple(out.shape) != expected:
                raise ValueError(f"out.shape {out.shape} does not match expected shape {expected}")
            raise UnsupportedOperationError(f"cupy.{name}", "out= is not supported yet")
        op = name.split("_")[1].replace("sum", "cumsum").replace("prod", "cumprod")
        if not include_initial:
            return scan_meta(op, xs if not x.shape else x, axis, dtype, None)
        if dtype is None:
            odt = {"b": _I8, "i": _I8, "u": np.dtype(np.uint64)}.get(x.dtype.kind, x.dtype)
        else:
            odt = np.dtype(dtype)
        return fresh_c(expected, check_dtype(odt))
    kernel.__name__ = f"cp_{name}"
    return kernel


# --- median / nanmedian (_routines_statistics.pyx) ----------------------------------------

def _is_seq(x: Any) -> bool:
    return isinstance(x, (list, tuple))


def _median(a: Any, axis: Any, out: Any, overwrite_input: bool, keepdims: bool) -> Any:
    """_routines_statistics.pyx _median: partition, _mean of the middle, where(isnan) for f/c."""
    keep_ndim = a.ndim
    shape, c_contig = tuple(a.shape), a.flags.c_contiguous
    out_shape = None
    if _is_seq(axis):
        if a.size == 0:
            raise UnsupportedOperationError("cupy.median", "an empty input with a tuple axis")
        red = reduce_shape(shape, axis, False)  # AxisError / duplicates
        raxes = sorted(normalize_axis(operator.index(x), keep_ndim) for x in axis)
        oaxes = [i for i in range(keep_ndim) if i not in raxes]
        out_shape = reduce_shape(shape, axis, keepdims)
        shape = tuple(shape[i] for i in oaxes) + (math.prod(shape) // max(math.prod(red), 1),)
        if math.prod(red) == 0:
            raise UnsupportedOperationError("cupy.median", "an empty input with a tuple axis")
        c_contig = True  # ascontiguousarray where needed
        axis = -1
    if axis is None:
        sz = math.prod(shape)
    else:
        axis = operator.index(axis)
        if axis < -keep_ndim or axis >= keep_ndim:
            raise AxisError("Axis overrun")
        sz = shape[axis]
    kth = [sz // 2 - 1, sz // 2] if sz % 2 == 0 else [(sz - 1) // 2]
    if axis is None:
        pshape = (math.prod(shape),)  # part.ravel() (a C copy, or a ravel of a)
        partition_checks("cupy.median", pshape, True, a.dtype, kth, -1)
        axis = 0
    else:
        pshape = shape
        partition_checks("cupy.median", pshape, c_contig or not overwrite_input, a.dtype, kth,
                          axis)
    ax = normalize_axis(axis, len(pshape))
    k = 1 if pshape[ax] % 2 == 1 else 2
    ishape = pshape[:ax] + (k,) + pshape[ax + 1:]
    if keepdims and out_shape is None:
        ishape += (1,) * max(keep_ndim - len(pshape), 0)
    res = _reduce("cupy_mean", temp(ishape, a.dtype, a), ax, None, out, keepdims,
                  table=_MEAN)
    if a.dtype.kind in "fc":
        tnan = res.dtype.type(np.nan)
        res = cupy_ufunc_call(_where_uf(), temp(res.shape, _B1, a), tnan, _v(res))
    if out_shape is not None:
        if res is out:
            raise UnsupportedOperationError("cupy.median", "out= with a tuple axis")
        return _t_reshape(temp(res.shape, res.dtype, strides=res.strides), out_shape)
    return res


def _where_uf() -> Any:
    import importlib
    return importlib.import_module("cupy._sorting.search")._where_ufunc


def cp_median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:
    """meanvar.py median: ``_statistics._median``."""
    return _median(_cuda(a, "median"), axis, out, overwrite_input, keepdims)


def cp_nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                 keepdims: bool = False) -> Any:
    """meanvar.py nanmedian: median for non-floats; _nanmedian: ``full(out_shape, nan)``,
    reshaped and transposed back for keepdims, or copied into out."""
    _cuda(a, "nanmedian")
    if a.dtype.char not in "efdFD":
        return _median(a, axis, out, overwrite_input, keepdims)
    nd = a.ndim
    axes = tuple(range(nd)) if axis is None else (tuple(axis) if _is_seq(axis) else (axis,))
    raxes = [i for i in range(nd) if i in axes or i - nd in axes]
    oaxes = [i for i in range(nd) if i not in raxes]
    oshape = tuple(a.shape[i] for i in oaxes)
    if a.size == 0 or not raxes:
        raise UnsupportedOperationError("cupy.nanmedian", "empty input or nothing reduced")
    b = temp(oshape, a.dtype)  # cupy.full(out_shape, nan, dtype=a.dtype)
    if keepdims:
        b = _t_reshape(b, oshape + (1,) * len(raxes))
        perm = [0] * nd
        for i, j in enumerate(oaxes + raxes):
            perm[j] = i
        b = _t_permute(b, perm)
    if out is None:
        return b
    check_array(out, current_device())
    if tuple(out.shape) != b.shape:
        from ...layout import broadcast_shapes
        if broadcast_shapes(tuple(out.shape), b.shape) != tuple(out.shape):
            raise ValueError("operands could not be broadcast together")
    return out


# --- quantile / percentile (order.py) -------------------------------------------------------

_NEW_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
                "normal_unbiased")


def _q_meta(q: Any) -> tuple:
    """q after ``cupy.asarray``: (shape, dtype, host value or None)."""
    if is_device_array(q):
        return tuple(q.shape), q.dtype, None
    arr = np.asarray(q)
    return arr.shape, check_dtype(arr.dtype), arr


def _quantile(name: str, a: Any, q: Any, axis: Any, out: Any, overwrite_input: bool,
              method: str, keepdims: bool) -> Any:
    """order.py _quantile_unchecked: sort a copy, take (int32 indices) or the weighting kernel
    into ``empty(ap.shape[:-1] + q.shape)`` rolled back, squeeze/reshape, ascontiguousarray."""
    dtype = np.result_type(a.dtype, q.dtype if is_device_array(q) else q)
    qshape, qdt, _ = _q_meta(q)
    zerod = len(qshape) == 0
    if zerod:
        qshape = (1,)
    if len(qshape) > 1:
        raise ValueError(f"Expected q to have a dimension of 1.\nActual: {len(qshape)} != 1")
    if isinstance(axis, int):
        axis = (axis,)
    nd = a.ndim
    if keepdims:
        if axis is None:
            keepdim = (1,) * nd
        else:
            kd = list(a.shape)
            for ax in axis:
                kd[ax % nd] = 1
            keepdim = tuple(kd)
    if axis is None:
        apshape, contig = (a.size,), True
    else:
        axis = tuple(ax % nd for ax in axis)
        keep = set(range(nd)) - set(axis)
        nkeep = len(keep)
        perm = list(range(nd))
        for i, s in enumerate(sorted(keep)):
            perm[i], perm[s] = perm[s], perm[i]
        sw = [a.shape[i] for i in perm]
        st = [a.strides[i] for i in perm]
        rest = math.prod(sw[nkeep:])
        if rest == 0 and math.prod(sw[:nkeep]) == 0:
            raise UnsupportedOperationError(f"cupy.{name}", "an empty input")
        apshape = tuple(sw[:nkeep]) + (rest,)
        contig = True
        if overwrite_input:
            rs = cupy_nocopy_strides(tuple(sw), tuple(st), a.itemsize, apshape) \
                if apshape != tuple(sw) else tuple(st)
            contig = rs is None or cupy_c_contiguity(apshape, rs, a.itemsize)
    sort_checks(apshape, contig, a.dtype, -1)
    if apshape[-1] == 0:
        raise UnsupportedOperationError(f"cupy.{name}", "an empty reduction")
    if method in _NEW_METHODS:
        raise ValueError(f"'{method}' method is not yet supported. Please use any other method.")
    if method not in ("lower", "higher", "midpoint", "nearest", "linear"):
        raise ValueError("Unexpected interpolation method.\nActual: '{}' not in ('linear', "
                         "'lower', 'higher', 'midpoint')".format(method))
    if out is not None:
        raise UnsupportedOperationError(f"cupy.{name}", "out= is not supported yet")
    rest_shape = apshape[:-1]
    if method in ("lower", "higher", "nearest"):
        ret = temp(qshape + rest_shape, a.dtype)  # rollaxis(ap, -1).take(indices, 0)
    else:
        r = temp(rest_shape + qshape, check_dtype(dtype))
        ret = _t_permute(r, rollaxis_perm(len(r.shape), len(r.shape) - 1, 0))
    if zerod:
        ret = _t_view(ret, ret.shape[1:], ret.strides[1:])
    if keepdims:
        qsize = math.prod(qshape)
        ret = _t_reshape(ret, ((-1,) + keepdim) if qsize > 1 else keepdim)
    return _t_contiguous(ret)


def _check_method(method: Any, interpolation: Any, fname: str) -> Any:
    if interpolation is None:
        return method
    warnings.warn(f"the `interpolation=` argument to {fname} was renamed to `method=`, which "
                  "has additional options.", DeprecationWarning, stacklevel=3)
    if method != "linear":
        raise TypeError("You shall not pass both `method` and `interpolation`!\n"
                        "(`interpolation` is Deprecated in favor of `method`)")
    return interpolation


def _q_valid(q: Any) -> bool:
    """order.py _quantile_is_valid: *some* q >= 0 and *some* q <= 1 (a fake q: assumed)."""
    if is_device_array(q):
        return True
    return bool(np.count_nonzero(0.0 <= q) and np.count_nonzero(q <= 1.0))


def cp_quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, interpolation: Any = None) -> Any:
    """order.py quantile."""
    _cuda(a, "quantile")
    method = _check_method(method, interpolation, "quantile")
    if isinstance(q, (tuple, list)):
        q = np.asarray(q)
    if not _q_valid(q):
        raise ValueError("Quantiles must be in the range [0, 1]")
    return _quantile("quantile", a, q, axis, out, overwrite_input, method, keepdims)


def cp_percentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False, *,
                  interpolation: Any = None) -> Any:
    """order.py percentile: q / 100, then as quantile."""
    _cuda(a, "percentile")
    method = _check_method(method, interpolation, "percentile")
    if isinstance(q, (tuple, list)):
        q = np.asarray(q)
    if is_device_array(q):
        q = temp(q.shape, _ufunc("true_divide", q, 100).dtype, q)
    else:
        q = q / 100
    if not _q_valid(q):
        raise ValueError("Percentiles must be in the range [0, 100]")
    return _quantile("percentile", a, q, axis, out, overwrite_input, method, keepdims)


# --- average -------------------------------------------------------------------------------

def _as_cupy(x: Any) -> Any:
    """cupy.asarray: a CUDA fake as is; host data becomes a fresh device array (an ArrayMeta)."""
    if is_device_array(x) and device_of(x) != "cpu":
        check_array(x, current_device())
        return x
    arr = x if is_device_array(x) else np.asarray(x)
    return temp(arr.shape, check_dtype(arr.dtype), current_device())


def cp_average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
               keepdims: bool = False) -> Any:
    """meanvar.py average: ``a.mean()`` (scale a NumPy scalar), or the weighted sum / scl."""
    a = _as_cupy(a)
    if weights is None:
        avg = ndarray_mean(a, axis, None, None, keepdims)
        scl = avg.dtype.type(math.prod(a.shape) / math.prod(avg.shape))
    else:
        w = _as_cupy(weights)
        if a.dtype.kind in "biu":
            rdt = functools.reduce(np.promote_types, (a.dtype, w.dtype, _F8))
        else:
            rdt = np.promote_types(a.dtype, w.dtype)
        wshape = tuple(w.shape)
        if tuple(a.shape) != wshape:
            if axis is None:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            if len(wshape) != 1:
                raise TypeError("1D weights expected when shapes of a and weights differ.")
            if wshape[0] != a.shape[axis]:
                raise ValueError("Length of weights not compatible with specified axis.")
            ws = [1] * (a.ndim - 1) + [wshape[0]]
            ax = normalize_axis(operator.index(axis), len(ws))
            ws[-1], ws[ax] = ws[ax], ws[-1]
            wshape = tuple(ws)
        wv = temp(wshape, w.dtype, w)
        scl = ndarray_sum(wv, axis, rdt, None, keepdims)
        prod = _ufunc("multiply", a, wv, dtype=rdt)
        s = ndarray_sum(view_of(prod), axis, None, None, keepdims)
        avg = _ufunc("true_divide", view_of(s), view_of(scl))
        # cupy.any(scl == 0.0) raises ZeroDivisionError on zero weights: values not known
    if returned:
        if np.shape(scl) != tuple(avg.shape):
            scl = fresh_c(tuple(avg.shape), np.dtype(scl.dtype))
        return avg, scl
    return avg


# --- differences -----------------------------------------------------------------------------

def _host_or_cuda(x: Any) -> Any:
    """cupy.asanyarray of prepend/append values."""
    return _as_cupy(x)


def cp_diff(a: Any, n: Any = 1, axis: Any = -1, prepend: Any = None, append: Any = None) -> Any:
    """sumprod.py diff: concatenate, then n fresh ``subtract``/``not_equal`` results."""
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = _as_cupy(a)
    nd = len(a.shape)
    axis = normalize_axis(operator.index(axis), nd)

    def edge(v: Any) -> Any:
        """A prepend/append value; a scalar is broadcast to a length-1 slab along axis."""
        p = _host_or_cuda(v)
        if p.shape:
            return p
        return temp(a.shape[:axis] + (1,) + a.shape[axis + 1:], p.dtype, p)

    combined = ([edge(prepend)] if prepend is not None else []) + [a] + \
        ([edge(append)] if append is not None else [])
    cur = a
    if len(combined) > 1:
        cur = view_of(concat_meta(combined, axis))
    res = cur
    for _ in range(operator.index(n)):
        shp = list(res.shape)
        shp[axis] = max(shp[axis] - 1, 0)
        v = temp(tuple(shp), res.dtype, res)
        op = "not_equal" if res.dtype == _B1 else "subtract"
        res = _ufunc(op, v, v)
        res_out = res
        res = view_of(res)
    return res_out


def cp_ediff1d(arr: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """sumprod.py ediff1d: ``arr[1:] - arr[:-1]`` or ``empty(l_diff + l_begin + l_end)``."""
    if not (is_device_array(arr) and device_of(arr) != "cpu"):
        raise TypeError("`arr` should be of type cupy.ndarray")
    _cuda(arr, "ediff1d")
    n = arr.size
    d = temp((max(n - 1, 0),), arr.dtype, arr)
    if to_begin is None and to_end is None:
        return _ufunc("subtract", d, d)
    lens = []
    for x, what in ((to_begin, "to_begin"), (to_end, "to_end")):
        if x is None:
            lens.append(0)
            continue
        if not (is_device_array(x) and device_of(x) != "cpu"):
            raise TypeError(f"`{what}` should be of type cupy.ndarray")
        if not np.can_cast(x.dtype, arr.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{what}` must be compatible with input `arr` under the "
                            "`same_kind` rule.")
        lens.append(x.size)
    res = fresh_c((max(n - 1, 0) + sum(lens),), arr.dtype)
    op = guess_loop(_uf("subtract")._ops, "subtract", (arr.dtype, arr.dtype), None, None)
    check_cast(np.dtype(op.out_types[0]), arr.dtype, "same_kind")
    return res


def cp_gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """sumprod.py gradient: one ``empty_like(f, dtype=otype)`` (order K) per axis."""
    f = _as_cupy(f)
    nd = len(f.shape)
    if axis is None:
        axes = list(range(nd))
    else:
        raw = list(axis) if _is_seq(axis) else [axis]
        axes = [normalize_axis(operator.index(x), nd) for x in raw]
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
    n = len(varargs)
    if n == 0 or (n == 1 and np.ndim(varargs[0]) == 0 and not is_device_array(varargs[0])):
        pass
    elif n == 1 and is_device_array(varargs[0]) and varargs[0].ndim == 0:
        pass
    elif n == len(axes):
        for i, dist in enumerate(varargs):
            dnd = dist.ndim if is_device_array(dist) else np.ndim(dist)
            if dnd == 0:
                continue
            if dnd != 1:
                raise ValueError("distances must be either scalars or 1d")
            if len(dist) != f.shape[axes[i]]:
                raise ValueError("when 1d, distances must match the length of the "
                                 "corresponding dimension")
            if not is_device_array(dist):
                raise UnsupportedOperationError("cupy.gradient", "host spacing arrays")
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = f.dtype
    if otype.kind not in "fc":
        otype = _F8
    if f.dtype.kind == "b":
        if any(f.shape[ax] >= edge_order + 1 for ax in axes[:1]):
            raise TypeError("cupy_subtract: boolean subtract is not supported")
    if not is_device_array(f) or type(f) is ArrayMeta:
        raise UnsupportedOperationError("cupy.gradient", "host input")
    outs = []
    for ax in axes:
        if f.shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        if f.dtype.kind in "iu":
            outs.append(copy_out(f, "K", otype))  # empty_like of f.astype(float64) (order K)
        else:
            outs.append(cp_empty_like(f, dtype=otype))
    return outs[0] if len(axes) == 1 else outs


def cp_trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: Any = -1) -> Any:
    """sumprod.py trapezoid: ``(d * (y[1:] + y[:-1]) / 2.0).sum(axis)``."""
    if not (is_device_array(y) and device_of(y) != "cpu"):
        raise TypeError("`y` should be of type cupy.ndarray")
    _cuda(y, "trapezoid")
    nd = y.ndim
    ax = normalize_axis(operator.index(axis), nd)
    shp = list(y.shape)
    shp[ax] = max(shp[ax] - 1, 0)
    ys = temp(tuple(shp), y.dtype, y)
    if x is None:
        d = dx
    else:
        if not (is_device_array(x) and device_of(x) != "cpu"):
            raise TypeError("`x` should be of type cupy.ndarray")
        if x.ndim == 1:
            dd = cp_diff(x)
            s = [1] * nd
            s[axis] = dd.shape[0]
            d = temp(tuple(s), dd.dtype, x)
        else:
            d = view_of(cp_diff(x, axis=axis))
    summed = view_of(_ufunc("add", ys, ys))
    prod = view_of(_ufunc("multiply", d, summed))
    prod = view_of(_ufunc("true_divide", prod, 2.0))
    return ndarray_sum(prod, axis, None, None, False)


def cp_unwrap(p: Any, discont: Any = None, axis: Any = -1, *, period: Any = 2 * np.pi) -> Any:
    """trigonometric.py unwrap: ``cupy.array(p, copy=True, dtype=...)`` (order K) filled in."""
    p = _as_cupy(p)
    dd = view_of(cp_diff(p, axis=axis))
    dtype = np.result_type(dd.dtype, period)
    if np.issubdtype(dtype, np.integer):
        ilow = -divmod(period, 2)[0]
    else:
        ilow = -period / 2
    m = view_of(_ufunc("subtract", dd, ilow))
    _ufunc("remainder", m, period)
    if type(p) is ArrayMeta:
        raise UnsupportedOperationError("cupy.unwrap", "host input")
    return copy_out(p, "K", check_dtype(dtype))


# --- elementwise predicates and helpers -------------------------------------------------------

def cp_angle(z: Any, deg: bool = False) -> Any:
    """arithmetic.py angle: the _core.angle / angle_deg ufunc."""
    import cupy._core as c
    return cupy_ufunc_call(c.angle_deg if deg else c.angle, z)


def _type_test(name: str, op: str, fill: str):
    def kernel(x: Any) -> Any:
        """type_testing.py iscomplex/isreal: ``x.imag !=/== 0`` for complex, else zeros/ones."""
        if np.isscalar(x):
            return getattr(np, name)(x)
        if not (is_device_array(x) and device_of(x) != "cpu"):
            return fresh_c(np.shape(x), _B1)  # cupy.asarray(numpy.isX(x))
        _cuda(x, name)
        if x.dtype.kind == "c":
            return _ufunc(op, temp(x.shape, np.dtype(x.dtype.char.lower()), x), 0)
        return fresh_c(tuple(x.shape), _B1)
    kernel.__name__ = f"cp_{name}"
    return kernel


def _isinf_sign(name: str):
    def kernel(x: Any, out: Any = None) -> Any:
        """content.py isneginf/isposinf: isinf, signbit (TypeError for complex), logical_and."""
        isinf = _ufunc("isinf", x)
        try:
            sb = _ufunc("signbit", x)
        except TypeError as e:
            raise TypeError(f"This operation is not supported for {x.dtype} values because it "
                            "would be ambiguous.") from e
        return _ufunc("logical_and", view_of(isinf), view_of(sb), out=out)
    kernel.__name__ = f"cp_{name}"
    return kernel


def cp_real_if_close(a: Any, tol: Any = 100) -> Any:
    """misc.py real_if_close: a itself unless complex; then a or a.real by the values."""
    if not np.issubdtype(a.dtype, np.complexfloating):
        return a
    raise DataDependentError("cupy.real_if_close of a complex array: the result dtype depends "
                             "on its values")


def cp_array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """comparison.py array_equal: ``cupy.array(False)`` or an ``all()``: a 0-d bool."""
    if tuple(a1.shape) != tuple(a2.shape):
        return fresh_c((), _B1)
    if equal_nan:
        _ufunc("isnan", a1)
        _ufunc("isnan", a2)
    _ufunc("equal", a1, a2)
    return fresh_c((), _B1)


def cp_array_equiv(a1: Any, a2: Any) -> Any:
    """comparison.py array_equiv: False if not broadcastable, else ``(a1 == a2).all()``."""
    from ...layout import broadcast_shapes
    try:
        broadcast_shapes(tuple(np.shape(a1) if not is_device_array(a1) else a1.shape),
                         tuple(np.shape(a2) if not is_device_array(a2) else a2.shape))
    except Exception:
        return fresh_c((), _B1)
    _ufunc("equal", a1, a2)
    return fresh_c((), _B1)


# --- interpolation, histograms ------------------------------------------------------------------

def cp_interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
              period: Any = None) -> Any:
    """misc.py interp: checks, then ``empty(x.shape, 'd' or 'D')``."""
    for v in (x, xp, fp):
        _cuda(v, "interp")
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("xp and fp must be 1D arrays")
    if xp.size != fp.size:
        raise ValueError("fp and xp are not of the same length")
    if xp.size == 0:
        raise ValueError("array of sample points is empty")
    if not x.flags.c_contiguous:
        raise NotImplementedError("Non-C-contiguous x is currently not supported")
    kinds = []
    for v in (x, xp):
        if v.dtype.kind == "b":
            raise TypeError("can't get common type for non-numeric array")
        kinds.append(_F8 if v.dtype.kind in "iu" else v.dtype)
    xdt = functools.reduce(np.promote_types, kinds)
    if not np.can_cast(xdt, np.float64):
        raise TypeError(f"Cannot cast array data from {xdt} to float64 according to the rule "
                        "'safe'")
    if period is not None and period == 0:
        raise ValueError("period must be a non-zero value")
    return fresh_c(tuple(x.shape), np.dtype("D" if fp.dtype.kind == "c" else "d"))


def cp_digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """histogram.py digitize: ``_searchsorted(bins, x)``: zeros(x.shape, int64)."""
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bins.ndim > 1:
        raise ValueError("object too deep for desired array")
    if bins.ndim < 1:
        raise ValueError("object of too small depth for desired array")
    return cp_searchsorted(bins, x)


def cp_bincount(x: Any, weights: Any = None, minlength: Any = None) -> Any:
    """histogram.py bincount: the length is ``max(x) + 1`` (data-dependent) unless x is empty."""
    _cuda(x, "bincount")
    if x.ndim > 1:
        raise ValueError("object too deep for desired array")
    if x.ndim < 1:
        raise ValueError("object of too small depth for desired array")
    if x.dtype.kind == "f":
        raise TypeError("x must be int array")
    if x.size:
        raise DataDependentError("cupy.bincount: the result length is max(x) + 1")
    if weights is not None and tuple(x.shape) != tuple(weights.shape):
        raise ValueError("The weights and list don't have the same length.")
    if minlength is not None:
        minlength = int(minlength)
        if minlength < 0:
            raise ValueError("minlength must be non-negative")
    return fresh_c((minlength or 0,), _I8)


def cp_histogram(x: Any, bins: Any = 10, range: Any = None, density: bool = False,
                 weights: Any = None) -> Any:
    """histogram.py histogram: ``zeros(len(edges) - 1)`` counts (int64 / float64 / complex128
    by the weights) and the edges (``linspace`` for int bins, the cupy bins themselves)."""
    _cuda(x, "histogram")
    if x.dtype.kind == "c":
        raise NotImplementedError("complex number is not supported")
    xdt = x.dtype
    if xdt == _B1:  # _ravel_and_check_weights: a.astype(uint8)
        warnings.warn("Converting input from bool to uint8 for compatibility.", RuntimeWarning,
                      stacklevel=3)
        xdt = np.dtype(np.uint8)
    if weights is not None:
        if not (is_device_array(weights) and device_of(weights) != "cpu"):
            raise ValueError("weights must be a cupy.ndarray")
        if tuple(weights.shape) != tuple(x.shape):
            raise ValueError("weights should have the same shape as a.")
    if isinstance(bins, str):
        raise NotImplementedError("only integer and array bins are implemented")
    if is_device_array(bins) or np.ndim(bins) == 1:
        edges = bins if is_device_array(bins) else np.asarray(bins)
        if is_device_array(edges):
            _cuda(edges, "histogram")
            if edges.ndim != 1:
                raise UnsupportedOperationError("cupy.histogram", "bins of ndim != 1")
        nedges = edges.shape[0]
        if not is_device_array(edges):
            if (edges[:-1] > edges[1:]).any():
                raise ValueError("`bins` must increase monotonically, when an array")
            edges = fresh_c(edges.shape, check_dtype(edges.dtype))  # cupy.asarray
    elif np.ndim(bins) == 0:
        try:
            n = operator.index(bins)
        except TypeError:
            raise TypeError("`bins` must be an integer, a string, or an array") from None
        if n < 1:
            raise ValueError("`bins` must be positive, when an integer")
        if range is not None:
            lo, hi = range
            if lo > hi:
                raise ValueError("max must be larger than min in range parameter.")
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise ValueError(f"supplied range of [{lo}, {hi}] is not finite")
            bdt = np.result_type(lo, hi, xdt)
        elif x.size == 0:
            bdt = np.result_type(0, 1, xdt)
        else:
            bdt = xdt  # a.min(), a.max(): 0-d arrays of a's dtype
        if np.issubdtype(bdt, np.integer):
            bdt = np.result_type(bdt, float)
        nedges = n + 1
        edges = fresh_c((nedges,), check_dtype(bdt))  # cupy.linspace
    else:
        raise ValueError("`bins` must be 1d, when an array")
    if weights is None:
        ydt: np.dtype = _I8
    elif weights.dtype.kind == "c":
        ydt = np.dtype(np.complex128)
    elif weights.dtype.kind in "bui":
        ydt = _I8
    else:
        ydt = _F8
    y = fresh_c((nedges - 1,), ydt)
    if density:
        y = fresh_c((nedges - 1,), np.dtype(np.complex128) if ydt.kind == "c" else _F8)
    return y, edges


def _conv_direct(name: str, a: Any, v: Any, mode: Any) -> Any:
    """misc.py _dot_convolve: ``_dot_kernel`` over (out_size, n2): fresh C of result_type."""
    n1, n2 = a.size, v.size
    if n1 < n2:
        n1, n2 = n2, n1
    dtype = check_dtype(np.result_type(a.dtype, v.dtype))
    if mode == "full":
        size = n1 + n2 - 1
    elif mode == "same":
        size = n1
    elif mode == "valid":
        size = n1 - n2 + 1
    else:
        raise UnboundLocalError("cannot access local variable 'out_size' where it is not "
                                "associated with a value")
    return fresh_c((size,), dtype)


def cp_convolve(a: Any, v: Any, mode: Any = "full") -> Any:
    """misc.py convolve: the direct (dot) path for bool/int operands; the FFT path (a slice of
    an irfft/ifft temporary) is not reproduced."""
    _cuda(a, "convolve")
    _cuda(v, "convolve")
    if a.size == 0:
        raise ValueError("a cannot be empty")
    if v.size == 0:
        raise ValueError("v cannot be empty")
    if v.ndim > 1:
        raise ValueError("v cannot be multidimensional array")
    if a.dtype.kind not in "bui" and v.dtype.kind not in "bui":
        raise UnsupportedOperationError("cupy.convolve", "the FFT path")
    return _conv_direct("convolve", a, v, mode)


def cp_correlate(a: Any, v: Any, mode: Any = "valid") -> Any:
    """correlation.py correlate: as convolve with ``v.conj()[::-1]``."""
    _cuda(a, "correlate")
    _cuda(v, "correlate")
    if a.size == 0 or v.size == 0:
        raise ValueError("Array arguments cannot be empty")
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("object too deep for desired array")
    if a.dtype.kind not in "bui" and v.dtype.kind not in "bui":
        raise UnsupportedOperationError("cupy.correlate", "the FFT path")
    return _conv_direct("correlate", a, v, mode)


# --- not reproduced yet -----------------------------------------------------------------------

def _unsupported(name: str, why: str):
    def kernel(*args: Any, **kwargs: Any) -> Any:
        raise UnsupportedOperationError(f"cupy.{name}", why)
    kernel.__name__ = f"cp_{name}"
    return kernel


_UNSUPPORTED = {
    "histogram2d": "not reproduced yet",
    "histogramdd": "not reproduced yet",
    "cov": "not reproduced yet",
    "corrcoef": "not reproduced yet",
}


# --- registration -----------------------------------------------------------------------------

def _register() -> None:
    red, cp_, elt = "reduction", "copy", "ufunc"
    table = {
        "nansum": (cp_nansum, red), "nanprod": (cp_nanprod, red),
        "nanmax": (_nanminmax("nanmax"), red), "nanmin": (_nanminmax("nanmin"), red),
        "nanargmax": (_nanarg("nanargmax"), red), "nanargmin": (_nanarg("nanargmin"), red),
        "nanmean": (cp_nanmean, red), "nanvar": (cp_nanvar, red), "nanstd": (cp_nanstd, red),
        "product": (cp_product, red), "cumproduct": (cp_cumproduct, red),
        "nancumsum": (_nancum("nancumsum"), red), "nancumprod": (_nancum("nancumprod"), red),
        "cumulative_sum": (_cumulative("cumulative_sum"), red),
        "cumulative_prod": (_cumulative("cumulative_prod"), red),
        "median": (cp_median, red), "nanmedian": (cp_nanmedian, red),
        "quantile": (cp_quantile, red), "percentile": (cp_percentile, red),
        "average": (cp_average, red), "diff": (cp_diff, cp_), "ediff1d": (cp_ediff1d, cp_),
        "gradient": (cp_gradient, cp_), "trapezoid": (cp_trapezoid, red),
        "unwrap": (cp_unwrap, cp_), "angle": (cp_angle, elt),
        "iscomplex": (_type_test("iscomplex", "not_equal", "zeros"), elt),
        "isreal": (_type_test("isreal", "equal", "ones"), elt),
        "isneginf": (_isinf_sign("isneginf"), elt), "isposinf": (_isinf_sign("isposinf"), elt),
        "real_if_close": (cp_real_if_close, "data-dependent"),
        "array_equal": (cp_array_equal, red), "array_equiv": (cp_array_equiv, red),
        "interp": (cp_interp, cp_), "digitize": (cp_digitize, cp_),
        "bincount": (cp_bincount, "data-dependent"), "histogram": (cp_histogram, cp_),
        "convolve": (cp_convolve, cp_), "correlate": (cp_correlate, cp_),
    }
    for name, why in _UNSUPPORTED.items():
        table[name] = (_unsupported(name, why), cp_)
    register_rules(table, cupy_module())


on_cupy(_register)
