"""CuPy rules for sorting, searching, clipping, rounding and comparisons on CUDA fakes.

Every rule cites the CuPy 14 source it follows (github.com/cupy/cupy). Facts that differ
from NumPy:
- ``ndarray.sort``/``partition`` raise NotImplementedError for a non-C-contiguous array
  and AxisError for a 0-d one (``_routines_sorting.pyx _ndarray_sort``); ``kind`` must
  be None or 'stable' (``core.pyx _check_kind_sort``, ValueError);
- ``argsort(axis=k)`` (k not last) returns a view of a fresh index array laid out with
  axis k innermost (``_ndarray_argsort``: ``rollaxis(idx_array, -1, axis)``); a 0-d
  input gives shape (1,) (``atleast_1d``); ``argpartition`` of an empty axis returns
  shape (0,) whatever the input shape, and otherwise a view (``reshape`` of the
  ``unravel_index`` result, ``_ndarray_argpartition``);
- ``round`` of a bool array is float16 (``core.pyx _round_ufunc`` loop '?q->e');
  ``clip`` has no complex loop (TypeError) and no default bound for bool;
- ``count_nonzero``, ``allclose`` and ``trace`` return 0-d arrays, not scalars;
  ``searchsorted`` of an empty ``a`` is ``zeros(v.shape, int64)``;
- ``conj()`` of a non-complex array is the array itself (``_routines_math.pyx _ndarray_conj``).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from .ops import as_device_array, rollaxis_perm, fresh_c, view_of
from .core import on_cupy
from .core import (check_cast, cupy_module, cscalar, check_array, copy_out, cp_empty_like, cupy_reduce,
                   cupy_ufunc_call, current_device, device_of, guess_loop,
                   is_device_array, ndarray_max, ndarray_sum, reduce_shape,
                   register_rules, temp)
from .views import norm_axis, ssize, ndarray_diagonal
from ...layout import AxisError, c_strides, cupy_c_contiguity, cupy_nocopy_strides
from ...meta import ArrayMeta


_I8 = np.dtype(np.int64)
_B1 = np.dtype(bool)
_THRUST_CHARS = "?bhilqBHILQefdFD"  # cupy/cuda/cupy_thrust.cu dtype ids (common._get_dtype_id)


def _internal(path: str, name: str) -> Any:
    """A CuPy-internal ufunc (cupy._core.core._round_ufunc, ...)."""
    import importlib
    return getattr(importlib.import_module(path), name)


def _cuda_only(a: Any, name: str) -> Any:
    """A CUDA fake on the current device; anything else is not reproduced."""
    if not (is_device_array(a) and device_of(a) != "cpu"):
        raise UnsupportedOperationError(name, "only CUDA fakes are supported")
    if device_of(a) != current_device():
        raise UnsupportedOperationError(name, "an array on another device than the current one")
    return a


def _check_util_array(a: Any, name: str) -> Any:
    """cupy/_util.pyx check_array: TypeError for anything but a cupy.ndarray."""
    if not (is_device_array(a) and device_of(a) != "cpu"):
        raise TypeError(f"'a' must be a cupy.ndarray object, not {type(a)}.")
    return a


def _check_kind(kind: Any) -> None:
    """core.pyx ndarray._check_kind_sort."""
    if kind is not None and kind != "stable":
        raise ValueError("kind can only be None or 'stable'")


def thrust_dtype(dt: np.dtype) -> None:
    """cupy/cuda/thrust.pyx sort/argsort: NotImplementedError for other dtypes."""
    if dt.char not in _THRUST_CHARS:
        raise NotImplementedError(f"Sorting arrays with dtype '{dt}' is not supported")


# --- sort / argsort (cupy/_sorting/sort.py, cupy/_core/_routines_sorting.pyx) -----------

def _sort_axis(shape: tuple, c_contig: bool, axis: Any) -> int:
    """The checks _ndarray_sort and _ndarray_partition start with: rank, contiguity, axis."""
    if not shape:
        raise AxisError("Sorting arrays with the rank of zero is not supported")
    if not c_contig:
        raise NotImplementedError("Sorting non-contiguous array is not supported.")
    return norm_axis(axis, len(shape))


def sort_checks(shape: tuple, c_contig: bool, dt: np.dtype, axis: Any) -> None:
    """_routines_sorting.pyx _ndarray_sort: every check, in CuPy's order (in place)."""
    ax = _sort_axis(shape, c_contig, axis)
    if shape[ax] <= 1:
        return
    thrust_dtype(dt)


def ndarray_sort(self: Any, axis: Any = -1, kind: Any = None) -> None:
    """core.pyx ``sort(self, int axis=-1, kind=None)``: in place, returns None."""
    axis = ssize(axis)
    _check_kind(kind)
    _cuda_only(self, "cupy.ndarray.sort")
    sort_checks(self.shape, self.flags.c_contiguous, self.dtype, axis)
    return None


def cp_sort(a: Any, axis: Any = -1, kind: Any = None) -> ArrayMeta:
    """sort.py ``sort``: ``a.flatten()`` (axis None) or ``a.copy()``, sorted: fresh C."""
    _cuda_only(a, "cupy.sort")
    shape = (a.size,) if axis is None else tuple(a.shape)
    ax = -1 if axis is None else ssize(axis)
    _check_kind(kind)
    sort_checks(shape, True, a.dtype, ax)
    return fresh_c(shape, a.dtype)


def _rolled_index(shape: tuple, axis: int, base_shape: tuple, base_strides: tuple) -> ArrayMeta:
    """``rollaxis(idx, -1, axis)`` of an int64 array (shape ``base_shape``) back to ``shape``."""
    nd = len(base_shape)
    back = rollaxis_perm(nd, nd - 1, axis)
    if back is None:
        return ArrayMeta(base_shape, _I8, base_strides, base_shape=base_shape,
                   device=current_device())
    return ArrayMeta(tuple(base_shape[i] for i in back), _I8, tuple(base_strides[i] for i in back),
               base_shape=base_shape, device=current_device())


def ndarray_argsort(self: Any, axis: Any = -1, kind: Any = None) -> ArrayMeta:
    """_routines_sorting.pyx _ndarray_argsort: fresh C intp, or a rolled view of one."""
    _check_kind(kind)
    _cuda_only(self, "cupy.ndarray.argsort")
    shape = tuple(self.shape) or (1,)  # cupy.atleast_1d(self)
    ndim = len(shape)
    dshape = (math.prod(shape),) if axis is None else shape
    ax = norm_axis(-1 if axis is None else axis, ndim)
    if ax == ndim - 1:
        thrust_dtype(self.dtype)
        return fresh_c(dshape, _I8)
    perm = rollaxis_perm(ndim, ax, ndim)
    assert perm is not None  # ax is not the last axis
    rshape = tuple(shape[i] for i in perm)
    thrust_dtype(self.dtype)
    return _rolled_index(shape, ax, rshape, c_strides(rshape, 8))


def cp_argsort(a: Any, axis: Any = -1, kind: Any = None) -> ArrayMeta:
    """sort.py ``argsort``: ``a.argsort(axis=axis, kind=kind)``."""
    if not is_device_array(a):
        raise UnsupportedOperationError("cupy.argsort", "only CUDA fakes are supported")
    return ndarray_argsort(a, axis, kind)


# --- partition / argpartition (_routines_sorting.pyx) -------------------------------------

def _kth_max(kth: Any, length: int) -> int:
    """The bounds check of _ndarray_partition / _ndarray_argpartition (ValueError)."""
    if isinstance(kth, int):
        kth = (kth,)
    max_k = 0
    for k in kth:
        if k < 0:
            k += length
        if not (0 <= k < length):
            raise ValueError(f"kth(={k}) out of bounds {length}")
        max_k = max(max_k, k)
    return max(32, 1 << int(max_k).bit_length())


def _subarrays(length: int, max_k: int, size: int) -> int:
    """The ``sz`` of _ndarray_partition (ZeroDivisionError for an empty axis)."""
    sz = 512
    while sz > 0 and length // sz < max_k + 32 * 4:
        sz //= 2
    return sz * (size // length)


def partition_checks(name: str, shape: tuple, c_contig: bool, dt: np.dtype, kth: Any,
                      axis: int) -> None:
    """_routines_sorting.pyx _ndarray_partition: every check, in CuPy's order."""
    ax = _sort_axis(shape, c_contig, axis)
    length = shape[ax]
    max_k = _kth_max(kth, length)
    _subarrays(length, max_k, math.prod(shape))
    if dt.char not in _THRUST_CHARS:
        raise UnsupportedOperationError(name, f"dtype {dt}")


def ndarray_partition(self: Any, kth: Any, axis: Any = -1) -> None:
    """core.pyx ``partition(self, kth, int axis=-1)``: in place, returns None."""
    axis = ssize(axis)
    _cuda_only(self, "cupy.ndarray.partition")
    partition_checks("cupy.ndarray.partition", tuple(self.shape), self.flags.c_contiguous,
                      self.dtype, kth, axis)
    return None


def cp_partition(a: Any, kth: Any, axis: Any = -1) -> ArrayMeta:
    """sort.py ``partition``: a fresh C copy (flattened for axis None), partitioned."""
    _cuda_only(a, "cupy.partition")
    shape = (a.size,) if axis is None else tuple(a.shape)
    ax = -1 if axis is None else ssize(axis)
    partition_checks("cupy.partition", shape, True, a.dtype, kth, ax)
    return fresh_c(shape, a.dtype)


def ndarray_argpartition(self: Any, kth: Any, axis: Any = -1) -> ArrayMeta:
    """_routines_sorting.pyx _ndarray_argpartition: ``(idx % n).reshape(shape)``, a view."""
    _cuda_only(self, "cupy.ndarray.argpartition")
    shape = (self.size,) if axis is None else tuple(self.shape)
    ndim = len(shape)
    ax = norm_axis(-1 if axis is None else axis, ndim)
    if ax != ndim - 1:
        perm = rollaxis_perm(ndim, ax, ndim)
        assert perm is not None  # ax is not the last axis
        shape = tuple(shape[i] for i in perm)
    length = shape[-1]
    if length == 0:
        return fresh_c((0,), _I8)  # cupy.empty((0,), dtype=cupy.int64)
    max_k = _kth_max(kth, length)
    sz = _subarrays(length, max_k, self.size)
    if length < 32 or sz < 1 or max_k >= 1024:
        thrust_dtype(self.dtype)  # data.argsort(axis=-1): indices of shape ``shape``
        ishape = shape
    else:
        if self.dtype.char not in _THRUST_CHARS:
            raise UnsupportedOperationError("cupy.argpartition", f"dtype {self.dtype}")
        ishape = (math.prod(shape),)  # cupy.arange(0, data.size)
    # unravel_index(indices, shape)[-1] is ``indices % shape[-1]``: fresh C; then reshape
    strides: tuple | None
    if ishape == shape:
        strides = c_strides(shape, 8)  # self.view()
    else:
        strides = cupy_nocopy_strides(ishape, c_strides(ishape, 8), 8, shape)
    assert strides is not None  # a contiguous source: the reshape is a view
    if ax == ndim - 1:
        return ArrayMeta(shape, _I8, strides, base_shape=ishape, device=current_device())
    back = rollaxis_perm(ndim, ndim - 1, ax)
    assert back is not None  # ax is not the last axis
    return ArrayMeta(tuple(shape[i] for i in back), _I8, tuple(strides[i] for i in back),
               base_shape=ishape, device=current_device())


def cp_argpartition(a: Any, kth: Any, axis: Any = -1) -> ArrayMeta:
    """sort.py ``argpartition``: ``a.argpartition(kth, axis=axis)``."""
    if not is_device_array(a):
        raise UnsupportedOperationError("cupy.argpartition", "only CUDA fakes are supported")
    return ndarray_argpartition(a, kth, axis)


# --- where / data-dependent searches (cupy/_sorting/search.py) -----------------------------

def cp_where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """search.py ``where``: ``_where_ufunc(condition.astype('?', copy=False), x, y)``."""
    missing = (x is None, y is None).count(True)
    if missing == 1:
        raise ValueError("Must provide both 'x' and 'y' or neither.")
    if missing == 2:
        return cp_nonzero(condition)
    if not (is_device_array(condition) or hasattr(condition, "astype")):
        raise AttributeError(f"'{type(condition).__name__}' object has no attribute 'astype'")
    cond = condition
    if is_device_array(condition) and device_of(condition) != "cpu" and condition.dtype != _B1:
        cond = temp(condition.shape, _B1, condition)
    return cupy_ufunc_call(_internal("cupy._sorting.search", "_where_ufunc"), cond, x, y)


def _data_dependent(name: str):
    def kernel(a: Any, *args: Any, **kwargs: Any) -> Any:
        _check_util_array(a, name)
        raise DataDependentError(f"cupy.{name} on a CUDA fake: the result shape depends on "
                                 "its values")
    kernel.__name__ = f"cupy_{name}"
    kernel.__doc__ = f"search.py ``{name}``: data-dependent, raises DataDependentError."
    return kernel


cp_nonzero = _data_dependent("nonzero")
cp_flatnonzero = _data_dependent("flatnonzero")
cp_argwhere = _data_dependent("argwhere")


def cp_unique(ar: Any, *args: Any, **kwargs: Any) -> Any:
    """add_remove.py ``unique``: the result size depends on the values."""
    if not (is_device_array(ar) and device_of(ar) != "cpu"):
        raise UnsupportedOperationError("cupy.unique", "only CUDA fakes are supported")
    raise DataDependentError("cupy.unique on a CUDA fake: the result shape depends on its values")


def ndarray_nonzero(self: Any) -> Any:
    """core.pyx ``nonzero``: data-dependent."""
    raise DataDependentError("cupy.ndarray.nonzero on a CUDA fake: the result shape depends "
                             "on its values")


def cp_searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> ArrayMeta:
    """search.py ``_searchsorted``: ``zeros(v.shape, int64)`` filled by a kernel (fresh C)."""
    if not (is_device_array(a) and device_of(a) != "cpu"):
        raise NotImplementedError("Only int or ndarray are supported for a")
    if not (is_device_array(v) and device_of(v) != "cpu"):
        if not isinstance(v, (int, float, complex)):
            raise NotImplementedError("Only python scalars or ndarrays are supported for v")
        v = as_device_array(v)
    if a.ndim > 1:
        raise ValueError("object too deep for desired array")
    if a.ndim < 1:
        raise ValueError("object of too small depth for desired array")
    if a.size == 0:
        return fresh_c(tuple(v.shape), _I8)
    if sorter is not None:
        if sorter.dtype.kind not in ("i", "u"):
            raise TypeError("sorter must be of integer type")
        if sorter.size != a.size:
            raise ValueError("sorter.size must equal a.size")
        if not is_device_array(sorter) or device_of(sorter) == "cpu":
            raise UnsupportedOperationError("cupy.searchsorted", "a non-CuPy sorter")
    dev = current_device()
    check_array(v, dev)
    check_array(a, dev)
    return fresh_c(tuple(v.shape), _I8)


def ndarray_searchsorted(self: Any, v: Any, side: str = "left", sorter: Any = None) -> ArrayMeta:
    """core.pyx ``searchsorted``: ``cupy.searchsorted(self, v, side, sorter)``."""
    return cp_searchsorted(self, v, side, sorter)


def cp_count_nonzero(a: Any, axis: Any = None) -> ArrayMeta:
    """count.py ``_count_nonzero`` reduction: int64 ('l'), fresh C, 0-d for axis=None."""
    if not (is_device_array(a) and device_of(a) != "cpu"):
        raise UnsupportedOperationError("cupy.count_nonzero", "only CUDA fakes are supported")
    check_array(a, current_device())
    return fresh_c(reduce_shape(tuple(a.shape), axis, False), _I8)


# --- clip / round / conj / nan_to_num (cupy/_math, cupy/_core/_routines_math.pyx) ---------

def ndarray_clip(self: Any, min: Any = None, max: Any = None, out: Any = None) -> Any:
    """_routines_math.pyx _ndarray_clip: dtype-wide defaults, then the ``_clip`` ufunc."""
    kind = self.dtype.kind
    if min is None:
        if kind == "f":
            min = self.dtype.type("-inf")
        elif kind in "iu":
            min = np.iinfo(self.dtype).min
    if max is None:
        if kind == "f":
            max = self.dtype.type("inf")
        elif kind in "iu":
            max = np.iinfo(self.dtype).max
    return cupy_ufunc_call(_internal("cupy._core._routines_math", "_clip"), self, min, max, out=out)


def cp_clip(a: Any, a_min: Any, a_max: Any, out: Any = None) -> Any:
    """misc.py ``clip``: ``a.clip(a_min, a_max, out=out)``."""
    if not (is_device_array(a) and device_of(a) != "cpu"):
        raise UnsupportedOperationError("cupy.clip", "only CUDA fakes are supported")
    return ndarray_clip(a, a_min, a_max, out)


def ndarray_round(self: Any, decimals: Any = 0, out: Any = None) -> Any:
    """core.pyx ``round``: ``_round_ufunc_neg_uint`` for integers with decimals < 0."""
    if decimals < 0 and issubclass(self.dtype.type, np.integer):
        uf = _internal("cupy._core.core", "_round_ufunc_neg_uint")
        return cupy_ufunc_call(uf, self, -decimals, out=out)
    return cupy_ufunc_call(_internal("cupy._core.core", "_round_ufunc"), self, decimals, out=out)


def cp_around(a: Any, decimals: Any = 0, out: Any = None) -> Any:
    """rounding.py ``around``: ``_core.array(a, copy=False).round(decimals, out=out)``."""
    if is_device_array(a) and device_of(a) != "cpu":
        if device_of(a) != current_device():
            raise UnsupportedOperationError("cupy.around", "an array on another device")
        return ndarray_round(a, decimals, out)
    return ndarray_round(as_device_array(a), decimals, out)


def cp_round_(a: Any, decimals: Any = 0, out: Any = None) -> Any:
    """rounding.py ``round_``: a DeprecationWarning, then ``around``."""
    import warnings
    warnings.warn("Please use `round` instead.", DeprecationWarning, stacklevel=2)
    return cp_around(a, decimals, out)


def ndarray_conj(self: Any) -> Any:
    """_routines_math.pyx _ndarray_conj: the array itself unless complex."""
    if self.dtype.kind == "c":
        return cupy_ufunc_call(_internal("cupy._core._routines_math", "_conjugate"), self)
    return self


def _nan_inf_dtype(dt: np.dtype) -> np.dtype:
    """misc.py ``_check_nan_inf``: ``asanyarray(x, dtype)`` with complex lowered to real."""
    return np.dtype(dt.char.lower()) if dt.char in "FD" else dt


def cp_nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
                  neginf: Any = None) -> Any:
    """misc.py ``nan_to_num``: into ``empty_like(x)`` (order K) or x itself (copy=False)."""
    if is_device_array(x) and device_of(x) != "cpu":
        out = cp_empty_like(x) if copy else x
        odt = out.dtype
    elif isinstance(x, (bool, int, float, complex, np.generic)):
        odt = np.array(x).dtype  # cupy.full((), x)
        out = fresh_c((), odt)
    else:
        raise UnsupportedOperationError("cupy.nan_to_num", "only CUDA fakes and scalars")
    dev = current_device()
    vdt = _nan_inf_dtype(odt)
    uf = _internal("cupy._math.misc", "_nan_to_num")
    if is_device_array(x):
        check_array(x, dev)
        in_dtypes, weaks = (x.dtype, vdt, vdt, vdt), None
    else:
        s = cscalar(x)
        in_dtypes, weaks = (s.descr, vdt, vdt, vdt), (s.weak_t, False, False, False)
        if not s.weak_t:
            weaks = None
    op = guess_loop(uf._ops, uf.name, in_dtypes, weaks, None)
    check_cast(np.dtype(op.out_types[0]), odt, "same_kind")
    return out


# --- isclose / allclose (cupy/_logic/comparison.py) ---------------------------------------

def _as_any(a: Any) -> Any:
    """``cupy.asanyarray``: a CUDA fake on the current device as is, else a device copy."""
    if is_device_array(a) and device_of(a) == current_device():
        return a
    return as_device_array(a)


def cp_isclose(a: Any, b: Any, rtol: Any = 1.e-5, atol: Any = 1.e-8, equal_nan: Any = False) -> Any:
    """comparison.py ``isclose``: ``_is_close`` / ``_is_close_complex`` ufuncs (bool, fresh C)."""
    a, b = _as_any(a), _as_any(b)
    cplx = a.dtype.kind == "c" or b.dtype.kind == "c"
    uf = _internal("cupy._logic.comparison", "_is_close_complex" if cplx else "_is_close")
    return cupy_ufunc_call(uf, a, b, rtol, atol, equal_nan)


def cp_allclose(a: Any, b: Any, rtol: Any = 1.e-5, atol: Any = 1.e-8, equal_nan: Any = False) -> Any:
    """comparison.py ``allclose``: ``isclose(...).all()``, a 0-d bool array."""
    r = cp_isclose(a, b, rtol, atol, equal_nan)
    return cupy_reduce("all", view_of(r))


# --- trace / ptp ----------------------------------------------------------------------------

def ndarray_trace(self: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1, dtype: Any = None,
                  out: Any = None) -> Any:
    """core.pyx ``trace``: ``self.diagonal(offset, axis1, axis2).sum(-1, dtype, out, False)``."""
    d = ndarray_diagonal(self, offset, axis1, axis2)
    return ndarray_sum(view_of(d), -1, dtype, out, False)


def cp_trace(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1, dtype: Any = None,
             out: Any = None) -> Any:
    """linalg/_norms.py ``trace``: ``a.trace(offset, axis1, axis2, dtype, out)``."""
    if not (is_device_array(a) and device_of(a) != "cpu"):
        raise UnsupportedOperationError("cupy.trace", "only CUDA fakes are supported")
    return ndarray_trace(a, offset, axis1, axis2, dtype, out)


def ndarray_ptp(self: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """_routines_statistics.pyx _ndarray_ptp: ``r = amax(...); r -= amin(...)`` (same layout)."""
    r = ndarray_max(self, axis, out, keepdims)
    sub = getattr(cupy_module().subtract, "__wrapped__", cupy_module().subtract)
    op = guess_loop(sub._ops, sub.name, (r.dtype, self.dtype), None, None)
    check_cast(np.dtype(op.out_types[0]), r.dtype, "same_kind")
    return r


def cp_ptp(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """order.py ``ptp``: ``a.ptp(axis=axis, out=out, keepdims=keepdims)``."""
    if not (is_device_array(a) and device_of(a) != "cpu"):
        raise UnsupportedOperationError("cupy.ptp", "only CUDA fakes are supported")
    return ndarray_ptp(a, axis, out, keepdims)


# --- lexsort / msort / sort_complex (cupy/_sorting/sort.py) ------------------------------------

def cp_lexsort(keys: Any) -> ArrayMeta:
    """sort.py ``lexsort``: a 0-d intp for 1-d keys; (k, N) keys give a fresh (N,) intp
    (thrust.pyx ``lexsort``: TypeError for unsupported dtypes); ndim > 2 NotImplementedError."""
    if not is_device_array(keys):
        raise AttributeError(f"'{type(keys).__name__}' object has no attribute 'ndim'")
    _cuda_only(keys, "cupy.lexsort")
    if keys.ndim == 1:
        return fresh_c((), _I8)  # cupy.array(0, dtype=numpy.intp)
    if keys.ndim > 2:
        raise NotImplementedError("Keys with the rank of three or more is not supported in lexsort")
    if keys.ndim == 0:
        raise IndexError("list index out of range")  # keys._shape[0] of a 0-d array
    out = fresh_c(tuple(keys.shape[1:]), _I8)
    if keys.dtype.char not in _THRUST_CHARS:
        raise TypeError(f"Sorting keys with dtype '{keys.dtype}' is not supported")
    return out


def cp_msort(a: Any) -> ArrayMeta:
    """sort.py ``msort``: a DeprecationWarning, then ``sort(a, axis=0)``."""
    import warnings
    warnings.warn("msort is deprecated, use cupy.sort(a, axis=0) instead", DeprecationWarning,
                  stacklevel=2)
    return cp_sort(a, axis=0)


def cp_sort_complex(a: Any) -> ArrayMeta:
    """sort.py ``sort_complex``: ``a.astype('F' or 'D')`` (order K) sorted in place: the
    K-order copy, which must be C-contiguous to sort (NotImplementedError otherwise)."""
    if not is_device_array(a):
        raise AttributeError(f"'{type(a).__name__}' object has no attribute 'dtype'")
    _cuda_only(a, "cupy.sort_complex")
    dt = np.dtype("F" if a.dtype.char in "bhBHF" else "D")
    out = copy_out(a, "K", dt)
    c = cupy_c_contiguity(out.shape, out.strides, dt.itemsize)
    sort_checks(tuple(out.shape), c, dt, -1)
    return out


# --- registration ---------------------------------------------------------------------------

def _register() -> None:
    copy, elt, red = "copy", "ufunc", "reduction"
    register_rules({
        "ndarray.sort": (ndarray_sort, "inplace"), "ndarray.argsort": (ndarray_argsort, copy),
        "ndarray.partition": (ndarray_partition, "inplace"),
        "ndarray.argpartition": (ndarray_argpartition, copy),
        "ndarray.clip": (ndarray_clip, elt), "ndarray.round": (ndarray_round, elt),
        "ndarray.conj": (ndarray_conj, elt), "ndarray.conjugate": (ndarray_conj, elt),
        "ndarray.nonzero": (ndarray_nonzero, "data-dependent"),
        "ndarray.trace": (ndarray_trace, red), "ndarray.ptp": (ndarray_ptp, red),
        "ndarray.searchsorted": (ndarray_searchsorted, copy),
    })
    register_rules({
        "sort": (cp_sort, copy), "argsort": (cp_argsort, copy),
        "partition": (cp_partition, copy), "argpartition": (cp_argpartition, copy),
        "where": (cp_where, copy), "nonzero": (cp_nonzero, "data-dependent"),
        "flatnonzero": (cp_flatnonzero, "data-dependent"),
        "argwhere": (cp_argwhere, "data-dependent"), "unique": (cp_unique, "data-dependent"),
        "searchsorted": (cp_searchsorted, copy), "count_nonzero": (cp_count_nonzero, red),
        "clip": (cp_clip, elt), "around": (cp_around, elt), "round": (cp_around, elt),
        "round_": (cp_round_, elt), "nan_to_num": (cp_nan_to_num, elt),
        "isclose": (cp_isclose, elt), "allclose": (cp_allclose, red),
        "trace": (cp_trace, red), "ptp": (cp_ptp, red),
        "lexsort": (cp_lexsort, copy), "msort": (cp_msort, copy),
        "sort_complex": (cp_sort_complex, copy),
    }, cupy_module())


on_cupy(_register)
