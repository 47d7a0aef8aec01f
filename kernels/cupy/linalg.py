"""CuPy rules for cupy.linalg (and cupy.cross) on CUDA fakes.

Each rule replays the Python code of CuPy 14 (cupy/linalg/_solve.py, _decomposition.py,
_eigenvalue.py, _norms.py, _product.py, _util.py; cupy/cublas.py ``batched_gesv``;
cupyx/_cusolver.pyx batched helpers) on ArrayMeta records so the *returned* array gets
the exact layout: fresh arrays, transposed / sliced views of temporaries (a non-None
``base``), reshapes that are views. Facts that differ from NumPy:
- dtypes come from ``_util.linalg_common_type``: float16 raises TypeError (not for
  eigh/eigvalsh: float16 in, float16 out), bool/int compute in float64;
- ``svd``/``qr``/``eigh`` results are often transposed views of a fresh buffer
  (e.g. 2-d ``svd`` of a wide matrix returns ``u`` as a slice of the copied input);
- ``slogdet`` returns views (``.reshape(shape)`` of a ``where`` result), ``inv`` of an
  F-contiguous matrix is F-ordered, ``eig`` returns complex even for real input (empty
  input: the real result type), ``matrix_power(M, 1)`` returns M itself;
- ``lstsq`` residuals have a value-dependent shape when ``m > n`` (``rank != n``).
The cuSOLVER availability checks (``geev`` needs CUDA >= 12.6) are assumed to pass.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from .core import on_cupy
from .core import (cupy_module, check_dtype, cp_empty_like, cupy_ufunc_call, current_device, device_of,
                   is_device_array, register_rules, temp)
from .views import norm_axis
from ...layout import broadcast_shapes, c_strides, cupy_reshape, f_strides, like_strides
from ..numpy.linalg import stacked_square  # _util.py's checks and messages are NumPy's
from ...meta import ArrayMeta


_F8 = np.dtype(np.float64)
_I4 = np.dtype(np.int32)
_I8 = np.dtype(np.int64)
_B1 = np.dtype(bool)

from numpy.linalg import LinAlgError


# --- intermediates: ArrayMeta records (view_of: a view of an input; base_shape: a view of a
# fresh temporary of that shape; neither: a fresh buffer) -----------------------------------

def input_meta(x: Any) -> ArrayMeta:
    return ArrayMeta(tuple(x.shape), x.dtype, tuple(x.strides), view_of=x)


def new_meta(shape: tuple, dt: Any, order: str = "C") -> ArrayMeta:
    """``cupy.empty(shape, dt, order)`` (and zeros, eye, identity): a fresh buffer."""
    dt = np.dtype(dt)
    shape = tuple(shape)
    st = f_strides(shape, dt.itemsize) if order == "F" else c_strides(shape, dt.itemsize)
    return ArrayMeta(shape, dt, st, device=current_device())


def view_meta(p: ArrayMeta, shape: Sequence[int], strides: Sequence[int], off: int = 0) -> ArrayMeta:
    """A view of p: of its input, or of the fresh temporary it is or views."""
    shape, strides = tuple(shape), tuple(strides)
    if p.view_of is not None:
        return p._replace(shape=shape, strides=strides, offset=p.offset + off)
    owner = p.shape if p.base_shape is None else p.base_shape
    return p._replace(shape=shape, strides=strides, offset=p.offset + off, base_shape=owner)


def astype_meta(p: ArrayMeta, dt: Any, order: str = "K", copy: bool = True) -> ArrayMeta:
    """core.pyx ``_astype``: p itself when no copy is needed, else a fresh C/F/K array."""
    dt = np.dtype(dt)
    c, f = p.flags.c_contiguous, p.flags.f_contiguous
    if dt == p.dtype and not copy and (order == "K" or (order == "C" and c)
                                       or (order == "F" and f)):
        return p
    if order == "K":  # internal._update_order_char
        order = "C" if c else ("F" if f else "K")
    if order == "K":
        return ArrayMeta(p.shape, dt, like_strides(p.shape, p.strides, dt.itemsize, c, f),
                         device=current_device())
    return new_meta(p.shape, dt, order)


def _copy(p: ArrayMeta) -> ArrayMeta:
    return new_meta(p.shape, p.dtype, "C")


def reshape_meta(p: ArrayMeta, shape: tuple) -> ArrayMeta:
    """_routines_manipulation.pyx ``_reshape``: a view (``view()`` for the same shape) or a
    copy that owns its data."""
    shape, st, copied = cupy_reshape(p.shape, p.strides, p.dtype.itemsize, shape)
    return ArrayMeta(shape, p.dtype, st, device=current_device()) if copied else view_meta(p, shape, st)


def permuted(p: ArrayMeta, axes: list) -> ArrayMeta:
    return view_meta(p, [p.shape[i] for i in axes], [p.strides[i] for i in axes])


def _swap(p: ArrayMeta, i: int = -2, j: int = -1) -> ArrayMeta:
    ax = list(range(p.ndim))
    ax[i], ax[j] = ax[j], ax[i]
    return permuted(p, ax)


def _T(p: ArrayMeta) -> ArrayMeta:
    return permuted(p, list(range(p.ndim))[::-1])


def _slice_last(p: ArrayMeta, axis: int, stop: int) -> ArrayMeta:
    """``p[..., :stop]`` on ``axis`` (a view at the same start)."""
    shape = list(p.shape)
    shape[axis] = min(stop, shape[axis])
    return view_meta(p, shape, p.strides)


def _conj(p: ArrayMeta) -> ArrayMeta:
    """_routines_math.pyx ``_ndarray_conj``: a fresh C array for complex, else p itself."""
    return _copy(p) if p.dtype.kind == "c" else p


# --- checks (cupy/linalg/_util.py) -----------------------------------------------------------

def _cuda_input(name: str, *arrays: Any, strict: bool = True) -> None:
    """``_assert_cupy_array`` (LinAlgError for a non-CuPy array) and the device of the call."""
    dev = current_device()
    for a in arrays:
        if not (is_device_array(a) and device_of(a) != "cpu"):
            if strict:
                raise LinAlgError("cupy.linalg only supports cupy.ndarray")
            raise UnsupportedOperationError(name, "a non-CuPy input")
        check_dtype(a.dtype)
        if device_of(a) != dev:
            raise UnsupportedOperationError(name, "an array on another device than the current one")


def _square_input(name: str, a: Any, *more: Any, strict: bool = True) -> None:
    """A CUDA input ``a`` (and ``more``) for a routine on stacked square matrices: _util.py
    ``_assert_cupy_array``, ``_assert_stacked_2d`` and ``_assert_stacked_square`` on a."""
    _cuda_input(name, a, *more, strict=strict)
    stacked_square(a)


def common_type(*arrays: Any, reject_float16: bool = True) -> tuple:
    """``_util.linalg_common_type``: (compute dtype, result dtype)."""
    from cupy.linalg import _util
    if _util._default_precision is not None:
        raise UnsupportedOperationError("cupy.linalg", "CUPY_DEFAULT_PRECISION is set")
    dts = [np.dtype(a.dtype) for a in arrays]
    if reject_float16 and np.dtype(np.float16) in dts:
        raise TypeError("float16 is unsupported in linalg")
    res = np.result_type(*[d if d.kind in "fc" else _F8 for d in dts])
    comp = np.dtype(np.float32) if res == np.float16 else res
    return comp, res


def _real(dt: np.dtype) -> np.dtype:
    return np.dtype(dt.char.lower())


# --- solve / inv / pinv / tensor* / lstsq (cupy/linalg/_solve.py) -----------------------

def _batched_gesv(a: Any, b: ArrayMeta) -> Any:
    """cupy/cublas.py ``batched_gesv``: the answer is a transposed view of a fresh copy of b."""
    dtype, out_dtype = common_type(a, b)
    if a.size == 0:
        return new_meta(b.shape, out_dtype)
    bs = math.prod(a.shape[:-2]) if a.ndim > 2 else 1
    n = a.shape[-1]
    nrhs = b.shape[-1] if a.ndim == b.ndim else 1
    if b.size == 0:
        raise UnsupportedOperationError("cupy.linalg.solve", "an empty right-hand side")
    t = permuted(reshape_meta(b, (bs, n, nrhs)), [0, 2, 1])
    # ascontiguousarray
    bb = t if (t.flags.c_contiguous and t.dtype == dtype) else new_meta(t.shape, dtype)
    if bb is t and t.view_of is not None:
        bb = _copy(bb)  # a view of b keeps b.data.ptr: ``b = b.copy()``
    return astype_meta(reshape_meta(permuted(bb, [0, 2, 1]), b.shape), out_dtype, copy=False)


def _gesv_limit() -> int:
    """cupy/cublas.py ``get_batched_gesv_limit()`` (256 unless changed; the module needs
    cuBLAS to import, so its default stands in when it cannot be imported)."""
    try:
        from cupy.cublas import get_batched_gesv_limit
    except Exception:
        return 256
    return get_batched_gesv_limit()


def _solve(a: Any, b: Any) -> ArrayMeta:
    _square_input("cupy.linalg.solve", a, b)
    bb = input_meta(b)
    if b.ndim == 0:
        raise ValueError("b must have at least one dimension")
    if b.ndim == 1:
        if a.shape[-1] != b.size:
            raise ValueError("a must have (..., M, M) shape and b must have (M,) for "
                             "one-dimensional b")
        shape = a.shape[:-1]  # cupy.broadcast_to(b, a.shape[:-1])
        bb = view_meta(bb, shape, (0,) * (len(shape) - 1) + b.strides)
    elif a.shape[:-1] != b.shape[:-1]:
        raise ValueError("a must have (..., M, M) shape and b must have (..., M, K) for "
                         "multidimensional b")
    if a.ndim > 2 and a.shape[-1] <= _gesv_limit():
        return _batched_gesv(a, bb)
    dtype, out_dtype = common_type(a, b)
    if a.size == 0:
        return new_meta(bb.shape, out_dtype)
    if a.ndim == 2:
        return astype_meta(astype_meta(bb, dtype, "F"), out_dtype, copy=False)
    # cupy.empty_like(b, dtype=out_dtype): order K
    c, f = bb.flags.c_contiguous, bb.flags.f_contiguous
    if bb.ndim <= 1 or c or not f:
        st = c_strides(bb.shape, out_dtype.itemsize) if (c or bb.ndim <= 1) else \
            like_strides(bb.shape, bb.strides, out_dtype.itemsize, c, f)
    else:
        st = f_strides(bb.shape, out_dtype.itemsize)
    return ArrayMeta(bb.shape, out_dtype, st, device=current_device())


def cp_solve(a: Any, b: Any) -> ArrayMeta:
    """_solve.py ``solve``: batched_gesv for small stacked systems, gesv otherwise."""
    return _solve(a, b)


def _inv(a: Any) -> ArrayMeta:
    _square_input("cupy.linalg.inv", a)
    dtype, out_dtype = common_type(a)
    if a.size == 0:
        return new_meta(a.shape, out_dtype)
    if a.ndim >= 3:  # _batched_inv: c = empty_like(C copy); c.reshape(a_shape)
        c = new_meta((math.prod(a.shape[:-2]),) + a.shape[-2:], dtype)
        return astype_meta(reshape_meta(c, a.shape), out_dtype, copy=False)
    order = "F" if a.flags.f_contiguous else "C"
    return astype_meta(new_meta(a.shape, dtype, order), out_dtype, copy=False)


def _inv_a(p: ArrayMeta) -> ArrayMeta:
    """``inv`` of an intermediate 2-d array (tensorinv): order from its F-contiguity."""
    dtype, out_dtype = common_type(p)
    if p.size == 0:
        return new_meta(p.shape, out_dtype)
    order = "F" if p.flags.f_contiguous else "C"
    return astype_meta(new_meta(p.shape, dtype, order), out_dtype, copy=False)


def cp_inv(a: Any) -> ArrayMeta:
    """_solve.py ``inv``: F order for an F-contiguous matrix, else C; batched: a reshape view."""
    return _inv(a)


def cp_pinv(a: Any, rcond: Any = 1e-15) -> ArrayMeta:
    """_solve.py ``pinv``: ``matmul(vt.swapaxes, s[..., None] * u.swapaxes)``, fresh C."""
    _cuda_input("cupy.linalg.pinv", a)
    if is_device_array(rcond) or isinstance(rcond, np.ndarray):
        raise UnsupportedOperationError("cupy.linalg.pinv", "an array rcond")
    if a.size == 0:
        _, out_dtype = common_type(a)
        m, n = a.shape[-2:]
        if m == 0 or n == 0:
            out_dtype = a.dtype
        return new_meta(a.shape[:-2] + (n, m), out_dtype)
    u, s, vt = _svd(_conj(input_meta(a)), a, False, True)
    prod = cupy_ufunc_call(_ufunc("multiply"), _shape(s.shape + (1,), s.dtype),
                           _shape(_swap(u).shape, u.dtype))
    dt = check_dtype(np.promote_types(vt.dtype, prod.dtype))
    bat = broadcast_shapes(vt.shape[:-2], prod.shape[:-2])
    return new_meta(bat + (vt.shape[-1], prod.shape[-1]), dt)


def cp_tensorinv(a: Any, ind: int = 2) -> ArrayMeta:
    """_solve.py ``tensorinv``: ``inv(a.reshape(prod, -1)).reshape(*invshape)``."""
    _cuda_input("cupy.linalg.tensorinv", a)
    if ind <= 0:
        raise ValueError("Invalid ind argument")
    old = a.shape
    inv_shape = old[ind:] + old[:ind]
    prod = math.prod(old[ind:])
    if prod == 0 or a.size == 0:
        raise UnsupportedOperationError("cupy.linalg.tensorinv", "an empty tensor")
    r = reshape_meta(input_meta(a), (prod, -1))
    if r.shape[0] != r.shape[1]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return reshape_meta(_inv_a(r), inv_shape)


def cp_tensorsolve(a: Any, b: Any, axes: Any = None) -> ArrayMeta:
    """_solve.py ``tensorsolve``: ``solve(a.reshape(-1, prod), b.ravel()).reshape(oldshape)``."""
    _cuda_input("cupy.linalg.tensorsolve", a, b, strict=False)
    p = input_meta(a)
    if axes is not None:
        allaxes = list(range(a.ndim))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(a.ndim, k)
        p = permuted(p, allaxes)
    old = p.shape[-(p.ndim - b.ndim):]
    prod = math.prod(old)
    if p.size == 0 or b.size == 0 or prod == 0:
        raise UnsupportedOperationError("cupy.linalg.tensorsolve", "an empty tensor")
    a2 = reshape_meta(p, (-1, prod))
    stacked_square(a2)
    dtype, out_dtype = common_type(a, b)
    if a2.shape[0] != b.size:
        raise ValueError("a must have (..., M, M) shape and b must have (M,) for "
                         "one-dimensional b")
    res = astype_meta(new_meta((b.size,), dtype, "F"), out_dtype, copy=False)  # 2-d solve
    return reshape_meta(res, old)


def _shape(shape: tuple, dtype: Any) -> Any:
    """A fresh C-contiguous operand on the current device for ``cupy_ufunc_call``."""
    return temp(tuple(shape), np.dtype(dtype), current_device())


def _ufunc(name: str) -> Any:
    f = getattr(cupy_module(), name)
    return getattr(f, "__wrapped__", f)


def ufunc_dtype(name: str, *dts: Any) -> np.dtype:
    """The output dtype CuPy's ufunc loop table picks for these operand dtypes."""
    args = [_shape((), d) if isinstance(d, np.dtype) else d for d in dts]
    return np.dtype(cupy_ufunc_call(_ufunc(name), *args).dtype)


def cp_lstsq(a: Any, b: Any, rcond: Any = None) -> tuple:
    """_solve.py ``lstsq``: x from two dots (fresh C), rank a 0-d int32, s from svd; the
    residuals' shape depends on the rank when m > n (DataDependentError)."""
    _cuda_input("cupy.linalg.lstsq", a, b)
    if a.ndim != 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim > 2:
        raise LinAlgError(f"{b.ndim}-dimensional array given. Array must be at most "
                          "two-dimensional")
    m, n = a.shape
    m2 = b.shape[0]
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    u, s, vh = _svd(input_meta(a), a, False, True)
    # z = (dot(b.T, u.conj()) * s1).T; x = dot(vh.T.conj(), z)
    dz = check_dtype(np.promote_types(b.dtype, u.dtype))
    zt = ufunc_dtype("multiply", dz, s.dtype)
    xdt = check_dtype(np.promote_types(vh.dtype, zt))
    x = new_meta((n,) + b.shape[1:], xdt)
    rank = new_meta((), _I4)
    if m <= n:
        resids = new_meta((0,), s.dtype)
    elif n == 0:
        raise UnsupportedOperationError("cupy.linalg.lstsq", "residuals of an empty system")
    else:
        raise DataDependentError("cupy.linalg.lstsq: the residuals' shape depends on the "
                                 "rank of a (m > n)")
    return x, resids, rank, s


# --- decompositions (cupy/linalg/_decomposition.py, cupyx/_cusolver.pyx) ------------------

def cp_cholesky(a: Any) -> ArrayMeta:
    """_decomposition.py ``cholesky``: a fresh C copy (cupy.tril of it when batched)."""
    _square_input("cupy.linalg.cholesky", a)
    dtype, out_dtype = common_type(a)
    if a.size == 0:
        return new_meta(a.shape, out_dtype)
    x = astype_meta(input_meta(a), dtype, "C")
    return astype_meta(x, out_dtype, copy=False)


def _qr_raw_2d(a: Any, mode: str) -> Any:
    dtype, out_dtype = common_type(a)
    m, n = a.shape
    k = min(m, n)
    if k == 0:
        if mode == "reduced":
            return new_meta((m, 0), out_dtype), new_meta((0, n), out_dtype)
        if mode == "complete":
            return new_meta((m, m), out_dtype), new_meta((m, n), out_dtype)
        if mode == "r":
            return new_meta((0, n), out_dtype)
        return new_meta((n, m), out_dtype), new_meta((0,), out_dtype)
    x = astype_meta(_T(input_meta(a)), dtype, "C")  # (n, m)
    if mode == "r":
        return astype_meta(_T(_slice_last(x, 1, k)), out_dtype, copy=False)
    if mode == "raw":
        return (astype_meta(x, out_dtype, copy=False),
                astype_meta(new_meta((k,), dtype), out_dtype, copy=False))
    if mode == "complete" and m > n:
        mc, q = m, new_meta((m, m), dtype)
    else:
        mc, q = k, new_meta((n, m), dtype)
    q = _T(_slice_last(q, 0, mc))
    r = _T(_slice_last(x, 1, mc))
    return astype_meta(q, out_dtype, copy=False), astype_meta(r, out_dtype, copy=False)


def _qr_batched(a: Any, mode: str) -> Any:
    batch = a.shape[:-2]
    bs = math.prod(batch)
    m, n = a.shape[-2:]
    k = min(m, n)
    dtype, out_dtype = common_type(a)
    if bs == 0 or k == 0:
        if mode == "reduced":
            return new_meta(batch + (m, k), out_dtype), new_meta(batch + (k, n), out_dtype)
        if mode == "complete":
            return new_meta(batch + (m, m), out_dtype), new_meta(batch + (m, n), out_dtype)
        if mode == "r":
            return new_meta(batch + (k, n), out_dtype)
        return new_meta(batch + (n, m), out_dtype), new_meta(batch + (k,), out_dtype)
    # _geqrf_orgqr_batched(a.reshape(-1, m, n), mode)
    x = new_meta((bs, n, m), dtype)  # a.swapaxes(-2, -1).astype(dtype, order='C', copy=True)
    if mode == "r":
        out = astype_meta(_swap(_slice_last(x, 2, k)), out_dtype, copy=False)
        return reshape_meta(out, batch + out.shape[-2:])
    if mode == "raw":
        q = astype_meta(x, out_dtype, copy=False)
        r = astype_meta(new_meta((bs, k), dtype), out_dtype, copy=False)
        return reshape_meta(q, batch + q.shape[-2:]), reshape_meta(r, batch + r.shape[-1:])
    if mode == "complete" and m > n:
        mc, q = m, new_meta((bs, m, m), dtype)
    else:
        mc, q = k, new_meta((bs, n, m), dtype)
    q = astype_meta(_swap(_slice_last(q, 1, mc)), out_dtype, copy=False)
    r = astype_meta(_swap(_slice_last(x, 2, mc)), out_dtype, copy=False)
    return reshape_meta(q, batch + q.shape[-2:]), reshape_meta(r, batch + r.shape[-2:])


def cp_qr(a: Any, mode: str = "reduced") -> Any:
    """_decomposition.py ``qr``: q and r are transposed views of fresh (n, m)-shaped buffers."""
    _cuda_input("cupy.linalg.qr", a)
    if mode not in ("reduced", "complete", "r", "raw"):
        if mode in ("f", "full", "e", "economic"):
            raise ValueError(f"The deprecated mode '{mode}' is not supported")
        raise ValueError(f"Unrecognized mode '{mode}'")
    if a.ndim > 2:
        res = _qr_batched(a, mode)
    else:
        common_type(a)
        if a.ndim != 2:
            raise ValueError(f"not enough values to unpack (expected 2, got {a.ndim})")
        res = _qr_raw_2d(a, mode)
    return res


def _svd_2d(p: ArrayMeta, full: bool, uv: bool) -> Any:
    dtype, uv_dtype = common_type(p)
    s_dtype = _real(uv_dtype)
    n, m = p.shape
    if m == 0 or n == 0:
        s = new_meta((0,), s_dtype)
        if not uv:
            return s
        if full:
            return new_meta((n, n), uv_dtype), s, new_meta((m, m), uv_dtype)
        return new_meta((n, 0), uv_dtype), s, new_meta((0, m), uv_dtype)
    if m >= n:
        x, trans = astype_meta(p, dtype, "C"), False
    else:
        m, n = p.shape
        x, trans = astype_meta(_T(p), dtype, "C"), True
    k = n
    s = astype_meta(new_meta((k,), _real(dtype)), s_dtype, copy=False)
    if not uv:
        return s
    if full:
        u, vt = new_meta((m, m), dtype), _slice_last(x, 1, n)
    else:
        u, vt = x, new_meta((k, n), dtype)
    u, vt = astype_meta(u, uv_dtype, copy=False), astype_meta(vt, uv_dtype, copy=False)
    return (_T(u), s, _T(vt)) if trans else (vt, s, u)


def _svd_batched(p: ArrayMeta, full: bool, uv: bool) -> Any:
    batch = p.shape[:-2]
    bs = math.prod(batch)
    n, m = p.shape[-2:]
    dtype, uv_dtype = common_type(p)
    s_dtype = _real(uv_dtype)
    if bs == 0 or m == 0 or n == 0:
        k = min(m, n) if bs == 0 else 0
        s = new_meta(batch + (k,), s_dtype)
        if not uv:
            return s
        if full:
            return new_meta(batch + (n, n), uv_dtype), s, new_meta(batch + (m, m), uv_dtype)
        return new_meta(batch + (n, k), uv_dtype), s, new_meta(batch + (k, m), uv_dtype)
    k = min(m, n)
    if m <= 32 and n <= 32:  # _gesvdj_batched on (bs, n, m): m rows below are n here
        s = new_meta((bs, k), _real(dtype))
        u = _swap(new_meta((bs, n, n), dtype))
        v = _swap(new_meta((bs, m, m), dtype))
        if not full:
            u, v = _slice_last(u, 2, k), _slice_last(v, 2, k)
    else:  # _gesvd_batched (returns V, not V^H)
        rows, cols = n, m
        if cols >= rows:
            x, trans, mm, nn = new_meta((bs, rows, cols), dtype), False, cols, rows
        else:
            x, trans, mm, nn = new_meta((bs, cols, rows), dtype), True, rows, cols
        if full:
            uu, vt = new_meta((bs, mm, mm), dtype), _slice_last(x, 2, nn)
        else:
            uu, vt = x, new_meta((bs, nn, nn), dtype)
        s = new_meta((bs, nn), _real(dtype))
        if trans:
            u, v = _swap(uu), _conj(vt)
        else:
            u, v = vt, _conj(_swap(uu))
    if not uv:
        return reshape_meta(astype_meta(s, s_dtype, copy=False), batch + s.shape[-1:])
    u = reshape_meta(astype_meta(u, uv_dtype, copy=False), batch + u.shape[-2:])
    s = reshape_meta(astype_meta(s, s_dtype, copy=False), batch + s.shape[-1:])
    v = reshape_meta(astype_meta(v, uv_dtype, copy=False), batch + v.shape[-2:])
    return u, s, _conj(_swap(v))


def _svd(p: ArrayMeta, a: Any, full: bool, uv: bool) -> Any:
    if p.ndim > 2:
        return _svd_batched(p, full, uv)
    common_type(p)
    if p.ndim != 2:
        raise ValueError(f"not enough values to unpack (expected 2, got {p.ndim})")
    return _svd_2d(p, full, uv)


def cp_svd(a: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """_decomposition.py ``svd``: u / vt are (transposed) views of the copied input or fresh
    buffers; batched: gesvdj (both sides <= 32) or a gesvd loop, then reshape views."""
    _cuda_input("cupy.linalg.svd", a)
    res = _svd(input_meta(a), a, full_matrices, compute_uv)
    return res


# --- eigenvalues (cupy/linalg/_eigenvalue.py) ----------------------------------------------

def _eigh(a: Any, UPLO: str, vectors: bool) -> Any:
    _square_input("cupy.linalg.eigh", a, strict=False)
    if a.size == 0:
        _, v_dtype = common_type(a)
        w = new_meta(a.shape[:-1], _real(v_dtype))
        return (w, new_meta(a.shape, v_dtype)) if vectors else w
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    dtype, v_dtype = common_type(a, reject_float16=False)
    w_dtype = _real(v_dtype)
    if a.ndim == 2:  # _syevd
        v = new_meta(a.shape, dtype, "F")
        w = astype_meta(new_meta(a.shape[:1], _real(dtype)), w_dtype, copy=False)
        return (w, astype_meta(v, v_dtype, copy=False)) if vectors else w
    batch = a.shape[:-2]
    bs, m = math.prod(batch), a.shape[-1]
    w = astype_meta(_swap(new_meta((bs, m), _real(dtype))), w_dtype, copy=False)
    w = reshape_meta(_swap(w), batch + (m,))
    if not vectors:
        return w
    v = astype_meta(new_meta((bs, m, m), dtype), v_dtype, copy=False)
    return w, reshape_meta(_swap(v), batch + (m, m))


def cp_eigh(a: Any, UPLO: str = "L") -> tuple:
    """_eigenvalue.py ``eigh``: syevd (2-d: w fresh, v F-ordered) or syevj (batched: views)."""
    w, v = _eigh(a, UPLO, True)
    return w, v


def cp_eigvalsh(a: Any, UPLO: str = "L") -> ArrayMeta:
    """_eigenvalue.py ``eigvalsh``."""
    return _eigh(a, UPLO, False)


def _eig(a: Any, vectors: bool) -> Any:
    _square_input("cupy.linalg.eig", a, strict=False)
    if a.size == 0:
        _, v_dtype = common_type(a)
        w = new_meta(a.shape[:-1], v_dtype)
        return (w, new_meta(a.shape, v_dtype)) if vectors else w
    dtype, _ = common_type(a)
    cdt = np.dtype(dtype.char.upper())
    w = new_meta(a.shape[:-1], cdt)
    if not vectors:
        return w
    if a.ndim == 2 and dtype != cdt:  # _assemble_complex_evs(...).reshape(shape)
        return w, reshape_meta(new_meta((a.size,), cdt), a.shape)
    return w, new_meta(a.shape, cdt)


def cp_eig(a: Any) -> tuple:
    """_eigenvalue.py ``eig`` -> ``_geev``: complex results; a real 2-d input's vectors are a
    reshape view of the assembling kernel's 1-d output."""
    w, v = _eig(a, True)
    return w, v


def cp_eigvals(a: Any) -> ArrayMeta:
    """_eigenvalue.py ``eigvals``."""
    return _eig(a, False)


# --- norms and numbers (cupy/linalg/_norms.py) --------------------------------------------

def _keep_reshape(shape: tuple, dt: np.dtype, new: tuple) -> ArrayMeta:
    """``ret.reshape(new)`` of a fresh reduction result: a view of it."""
    return reshape_meta(new_meta(shape, dt), new)


def _norm_axes(axis: Any, nd: int) -> tuple:
    if axis is None:
        return tuple(range(nd))
    if not isinstance(axis, tuple):
        try:
            axis = int(axis)
        except Exception:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from None
        return (axis,)
    return axis


def cp_norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> ArrayMeta:
    """_norms.py ``norm``: reductions (fresh C) of the real dtype; keepdims reshapes them
    (a view of the reduction's result)."""
    _cuda_input("cupy.linalg.norm", x, strict=False)
    dt = x.dtype if issubclass(x.dtype.type, np.inexact) else _F8
    rdt = _real(dt)
    nd = x.ndim
    if axis is None and (ord is None or (nd == 1 and _eq(ord, 2))
                         or (nd == 2 and ord in ("f", "fro"))):
        if keepdims:
            return _keep_reshape((), rdt, (1,) * nd)
        return new_meta((), rdt)
    axis = _norm_axes(axis, nd)
    if len(axis) == 1:
        ax = norm_axis(axis[0], nd)
        shape = tuple(1 if i == ax else s for i, s in enumerate(x.shape)) if keepdims \
            else x.shape[:ax] + x.shape[ax + 1:]
        if ord is not None and not isinstance(ord, str) and ord in (np.inf, -np.inf) \
                and x.shape[ax] == 0 and math.prod(shape):
            raise ValueError("zero-size array to reduction operation which has no identity")
        if isinstance(ord, str):
            try:
                float(ord)
            except (TypeError, ValueError):
                raise ValueError("Invalid norm order for vectors.") from None
        return new_meta(shape, rdt)
    if len(axis) == 2:
        row, col = axis
        if row < 0:
            row += nd
        if col < 0:
            col += nd
        if not (0 <= row < nd and 0 <= col < nd):
            raise ValueError(f"Invalid axis {axis!r} for an array with shape {x.shape!r}")
        if row == col:
            raise ValueError("Duplicate axes given.")
        rest = tuple(s for i, s in enumerate(x.shape) if i not in (row, col))
        if not _matrix_ord(ord):
            raise ValueError("Invalid norm order for matrices.")
        if not isinstance(ord, str) and ord in (2, -2, 1, -1, np.inf, -np.inf) or ord == "nuc":
            if ord in (2, -2, "nuc"):
                common_type(x)
                if min(x.shape[row], x.shape[col]) == 0:
                    raise UnsupportedOperationError("cupy.linalg.norm", "a 2-norm of an empty matrix")
            elif 0 in (x.shape[row], x.shape[col]) and math.prod(rest):
                if x.shape[col if ord in (1, -1) else row] == 0:
                    raise ValueError("zero-size array to reduction operation which has no identity")
        if keepdims:
            shape = list(x.shape)
            shape[axis[0]] = 1
            shape[axis[1]] = 1
            return _keep_reshape(rest, rdt, tuple(shape))
        return new_meta(rest, rdt)
    raise ValueError("Improper number of dimensions to norm.")


def _eq(a: Any, b: Any) -> bool:
    return not isinstance(a, str) and a == b


def _matrix_ord(ord: Any) -> bool:
    if isinstance(ord, str):
        return ord in ("fro", "f", "nuc")
    return ord is None or ord in (2, -2, 1, -1, np.inf, -np.inf)


def cp_cond(x: Any, p: Any = None) -> ArrayMeta:
    """_norms.py ``cond``: svd ratio or ``norm(x) * norm(inv(x))``; NaNs become inf in place."""
    _cuda_input("cupy.linalg.cond", x, strict=False)
    if x.size == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or _eq(p, 2) or _eq(p, -2):
        s = _svd(input_meta(x), x, False, False)
        return new_meta(s.shape[:-1], s.dtype)
    stacked_square(x)
    _, result_t = common_type(x)
    inv = _inv(x)
    if not _matrix_ord(p) or p in (2, -2):
        raise ValueError("Invalid norm order for matrices.")
    r = ufunc_dtype("multiply", _real(x.dtype if x.dtype.kind in "fc" else _F8), _real(inv.dtype))
    return astype_meta(new_meta(x.shape[:-2], r), result_t, copy=False)


def _slogdet(a: Any) -> tuple:
    _square_input("cupy.linalg.slogdet", a, strict=False)
    dtype, sign_dtype = common_type(a)
    logdet_dtype = _real(sign_dtype)
    shape = a.shape[:-2]
    if a.size == 0:
        return new_meta(shape, sign_dtype), new_meta(shape, logdet_dtype)
    # cupy.where(singular, ..., sign).reshape(shape): a view of the where result
    return (reshape_meta(new_meta(shape, sign_dtype), shape),
            reshape_meta(new_meta(shape, logdet_dtype), shape))


def cp_slogdet(a: Any) -> tuple:
    """_norms.py ``slogdet``: two ``where(...).reshape(shape)`` views (fresh when empty)."""
    s, l = _slogdet(a)
    return s, l


def cp_det(a: Any) -> ArrayMeta:
    """_norms.py ``det``: ``sign * exp(logdet)``, a fresh C array."""
    s, l = _slogdet(a)
    return new_meta(s.shape, ufunc_dtype("multiply", s.dtype, ufunc_dtype("exp", l.dtype)))


def cp_matrix_rank(M: Any, tol: Any = None) -> ArrayMeta:
    """_norms.py ``matrix_rank``: ``(S > tol).sum(axis=-1, dtype=intp)``; below 2-d
    ``(M != 0).any().astype(int)``, a 0-d int64."""
    _cuda_input("cupy.linalg.matrix_rank", M, strict=False)
    if M.ndim < 2:
        return new_meta((), _I8)
    S = _svd(input_meta(M), M, False, False)
    if tol is None:
        if S.shape[-1] == 0 and math.prod(S.shape[:-1]):
            raise ValueError("zero-size array to reduction operation cupy_max which has no "
                             "identity")
        shape = S.shape
    elif is_device_array(tol):
        shape = broadcast_shapes(S.shape, tol.shape)
    elif isinstance(tol, np.ndarray):
        raise UnsupportedOperationError("cupy.linalg.matrix_rank", "a NumPy tol")
    else:
        shape = S.shape
    return new_meta(shape[:-1], np.dtype(np.intp))


# --- products (cupy/linalg/_product.py) ---------------------------------------------------

def cp_matrix_power(M: Any, n: Any) -> Any:
    """_product.py ``matrix_power``: identity like M (order K) for 0, M itself for 1,
    matmul results (fresh C) otherwise."""
    _cuda_input("cupy.linalg.matrix_power", M)
    stacked_square(M)
    if not isinstance(n, int):
        raise TypeError("exponent must be an integer")
    if n == 0:
        return cp_empty_like(M)
    p = input_meta(M)
    if n < 0:
        p = _inv(M)
        n = -n
    if n == 1:
        return M if p.view_of is M else p
    return new_meta(p.shape, p.dtype)


def _as_meta(x: Any) -> Any:
    if is_device_array(x) or isinstance(x, np.ndarray):
        return x
    return np.asarray(x)


def cp_cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
             axis: Any = None) -> ArrayMeta:
    """_product.py ``cross``: a fresh C array of the broadcast shape (+3), moved back to
    ``axisc`` by ``moveaxis`` (a transposed view of it)."""
    if axis is not None:
        axisa, axisb, axisc = (axis,) * 3
    a, b = _as_meta(a), _as_meta(b)
    check_dtype(a.dtype)
    check_dtype(b.dtype)
    axa = norm_axis(axisa, a.ndim)
    axb = norm_axis(axisb, b.ndim)
    ash = tuple(s for i, s in enumerate(a.shape) if i != axa) + (a.shape[axa],)
    bsh = tuple(s for i, s in enumerate(b.shape) if i != axb) + (b.shape[axb],)
    if ash[-1] not in (2, 3) or bsh[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if ash[-1] == 2 or bsh[-1] == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead.", DeprecationWarning, stacklevel=3)
    shape = broadcast_shapes(ash[:-1], bsh[:-1])
    three = ash[-1] == 3 or bsh[-1] == 3
    if three:
        shape += (3,)
        axc = norm_axis(axisc, len(shape))
    dt = check_dtype(np.promote_types(a.dtype, b.dtype))
    if dt == _B1:
        raise TypeError("cupy_subtract: boolean subtract is not supported")
    cp = new_meta(shape, dt)
    if not three or axc == len(shape) - 1:
        return cp
    order = list(range(len(shape) - 1))
    order.insert(axc, len(shape) - 1)
    return permuted(cp, order)


def cp_linalg_cross(x1: Any, x2: Any, /, *, axis: int = -1) -> ArrayMeta:
    """_product.py ``linalg_cross``: same shapes, 3-vectors, then ``cross(axis=axis)``."""
    if x1.shape != x2.shape:
        raise ValueError("x1 and x2 must have the same shape")
    if x1.ndim == 0:
        raise ValueError("cross() requires arrays of dimension at least 1")
    if x1.shape[axis] != 3:
        raise ValueError("cross() dimension must equal 3")
    return cp_cross(x1, x2, axis=axis)


def cp_matrix_transpose(a: Any) -> ArrayMeta:
    """_product.py ``matrix_transpose``: ``a.swapaxes(-1, -2)`` (ValueError below 2-d)."""
    if a.ndim < 2:
        raise ValueError("Matrix dimension is less than 2")
    _cuda_input("cupy.linalg.matrix_transpose", a, strict=False)
    return _swap(input_meta(a))


# --- registration -------------------------------------------------------------------------

def _register() -> None:
    import cupy.linalg as cl
    table = {
        "solve": cp_solve, "inv": cp_inv, "pinv": cp_pinv, "tensorinv": cp_tensorinv,
        "tensorsolve": cp_tensorsolve, "lstsq": cp_lstsq, "cholesky": cp_cholesky,
        "qr": cp_qr, "svd": cp_svd, "eigh": cp_eigh, "eigvalsh": cp_eigvalsh, "eig": cp_eig,
        "eigvals": cp_eigvals, "norm": cp_norm, "cond": cp_cond, "det": cp_det,
        "slogdet": cp_slogdet, "matrix_rank": cp_matrix_rank,
        "matrix_power": cp_matrix_power, "cross": cp_linalg_cross,
    }
    register_rules({name: (fn, "copy") for name, fn in table.items()}
                   | {"matrix_transpose": (cp_matrix_transpose, "view")}, cl, "cupy.linalg.")
    register_rules({"cross": (cp_cross, "copy")}, cupy_module())


on_cupy(_register)
