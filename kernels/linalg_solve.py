"""np.linalg: the _umath_linalg gufunc wrappers (inv, solve, det, eigh, svd, qr, ...) and
the functions numpy/linalg/_linalg.py composes from them (norm, cond, pinv, ...).

Each wrapper is replayed on metadata: the gufunc allocates its outputs with the loop
axes in NpyIter's K order of the inputs and the core axes C-ordered after them, then
the Python wrapper's ``astype(result_t, copy=False)``, transposes and slices apply.
Value checks (singular matrix, not positive definite, no convergence) cannot be
known from metadata: fakes never raise them.
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
from numpy.linalg import LinAlgError
from numpy.linalg import _umath_linalg as _ul

from .._errors import DataDependentError, UnsupportedOperationError
from .layout import (broadcast_shapes, c_strides, iterator_order, like_strides,
                     normalize_axis, strides_in_order)
from .operands import as_meta
from .reductions import Meta
from .registry import Out, register

_L = np.linalg
from numpy.linalg._linalg import EigResult, EighResult, QRResult, SlogdetResult, SVDResult  # noqa: E402
_F8, _C16 = np.dtype(np.float64), np.dtype(np.complex128)
_REAL = {np.dtype(np.float32): np.dtype(np.float32), np.dtype(np.float64): _F8,
         np.dtype(np.complex64): np.dtype(np.float32), _C16: _F8}


def _arr(x: Any, name: Any) -> Any:
    """The operand as metadata; dtypes linalg cannot take from metadata alone are unsupported."""
    m = as_meta(x)
    if m.dtype.kind not in "biufc":
        raise UnsupportedOperationError(name, f"{m.dtype} operands")
    return m


def common_type(name: Any, *ms: Any) -> tuple[np.dtype, np.dtype]:
    """_commonType: (computation dtype, result dtype); float16 / longdouble raise TypeError."""
    single, cplx = True, False
    for m in ms:
        dt = m.dtype
        if dt.kind in "fc":
            cplx |= dt.kind == "c"
            rt = _REAL.get(dt.newbyteorder("="))
            if rt is None:
                raise TypeError(f"array type {dt.name} is unsupported in linalg")
            if rt == _F8:
                single = False
        else:
            single = False
    res = np.dtype(np.float32) if single else _F8
    if cplx:
        return _C16, np.dtype(np.complex64) if single else _C16
    return _F8, res


def real_of(dt: np.dtype) -> np.dtype:
    return _REAL[dt]


def stacked_2d(*ms: Any) -> None:
    for m in ms:
        if m.ndim < 2:
            raise LinAlgError(f"{m.ndim}-dimensional array given. Array must be at least "
                              "two-dimensional")


def stacked_square(*ms: Any) -> None:
    stacked_2d(*ms)
    for m in ms:
        if m.shape[-1] != m.shape[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def gufunc_outs(ins: list, outs: list) -> list:
    """Outputs a gufunc allocates: ``ins`` are (meta, number of core axes), ``outs``
    (core shape, dtype). Loop axes in NpyIter's K order of the inputs, core axes C."""
    lshapes = [tuple(m.shape[:m.ndim - k]) for m, k in ins]
    lshape = broadcast_shapes(*lshapes)
    nl = len(lshape)
    res = []
    for core, dt in outs:
        shape = lshape + tuple(core)
        if len(shape) <= 1 or 0 in shape:
            res.append(Meta(shape, dt, c_strides(shape, dt.itemsize)))
            continue
        ops = []
        for (m, k), ls in zip(ins, lshapes):
            pad = nl - len(ls)
            ops.append(((1,) * pad + ls + (1,) * len(core),
                        (0,) * pad + tuple(m.strides[:len(ls)]) + (0,) * len(core)))
        res.append(Meta(shape, dt, strides_in_order(shape, dt.itemsize,
                                                    iterator_order(shape, ops))))
    return res


def astype(m: Any, dt: np.dtype) -> Any:
    """``m.astype(dt, copy=False)`` of a fresh intermediate: itself or an order-K copy."""
    if m.dtype == dt:
        return m
    return Meta(m.shape, dt, like_strides(m.shape, m.strides, dt.itemsize,
                                          m.flags.c_contiguous, m.flags.f_contiguous))


def out(m: Any) -> Out:
    """A fresh intermediate as the kernel's result."""
    if type(m) is Out:
        return m
    return Out(m.shape, m.dtype, m.strides)


def meta(o: Any) -> Any:
    """A kernel's fresh Out as a chainable Meta."""
    if type(o) is Out:
        if o.view_of is not None or o.base_shape is not None:
            raise UnsupportedOperationError("numpy.linalg", "an intermediate view")
        return Meta(o.shape, o.dtype, o.strides)
    return o


def swap_last(m: Any) -> Meta:
    """swapaxes(m, -1, -2) as metadata (the wrappers' ``transpose``)."""
    sh, st = list(m.shape), list(m.strides)
    sh[-1], sh[-2] = sh[-2], sh[-1]
    st[-1], st[-2] = st[-2], st[-1]
    return Meta(tuple(sh), m.dtype, tuple(st))


# --- the direct gufunc wrappers ---------------------------------------------------


@register(_L.inv, tags=("copy",))
def inv(a: Any) -> Out:
    """_umath_linalg.inv then astype(result_t)."""
    a = _arr(a, _L.inv)
    stacked_square(a)
    t, rt = common_type(_L.inv, a)
    n = a.shape[-1]
    (r,) = gufunc_outs([(a, 2)], [((n, n), t)])
    return out(astype(r, rt))


@register(_L.cholesky, tags=("copy",))
def cholesky(a: Any, /, *, upper: bool = False) -> Out:
    """cholesky_lo / cholesky_up: the layout of inv."""
    a = _arr(a, _L.cholesky)
    stacked_square(a)
    t, rt = common_type(_L.cholesky, a)
    n = a.shape[-1]
    (r,) = gufunc_outs([(a, 2)], [((n, n), t)])
    return out(astype(r, rt))


def _core_mismatch(name: str, iop: int, dim: int, sig: str, got: int, want: int) -> None:
    raise ValueError(f"{name}: Input operand {iop} has a mismatch in its core dimension {dim}, "
                     f"with gufunc signature {sig} (size {got} is different from {want})")


@register(_L.solve, tags=("copy",))
def solve(a: Any, b: Any) -> Out:
    """solve1 for a 1-d b, solve otherwise; loop axes from both operands."""
    a = _arr(a, _L.solve)
    stacked_square(a)
    b = _arr(b, _L.solve)
    t, rt = common_type(_L.solve, a, b)
    n = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != n:
            _core_mismatch("solve1", 1, 0, "(m,m),(m)->(m)", b.shape[0], n)
        (r,) = gufunc_outs([(a, 2), (b, 1)], [((n,), t)])
    else:
        if b.ndim < 2:
            raise ValueError("solve: Input operand 1 does not have enough dimensions (has 0, "
                             "gufunc core with signature (m,m),(m,n)->(m,n) requires 2)")
        if b.shape[-2] != n:
            _core_mismatch("solve", 1, 0, "(m,m),(m,n)->(m,n)", b.shape[-2], n)
        (r,) = gufunc_outs([(a, 2), (b, 2)], [((n, b.shape[-1]), t)])
    return out(astype(r, rt))


@register(_L.det, tags=("copy",))
def det(a: Any) -> Out:
    """det's stack shape (a scalar for one matrix)."""
    a = _arr(a, _L.det)
    stacked_square(a)
    t, rt = common_type(_L.det, a)
    (r,) = gufunc_outs([(a, 2)], [((), t)])
    return out(astype(r, rt))


@register(_L.slogdet, tags=("copy",))
def slogdet(a: Any) -> Any:
    """SlogdetResult(sign of the result dtype, logabsdet of its real dtype)."""
    a = _arr(a, _L.slogdet)
    stacked_square(a)
    t, rt = common_type(_L.slogdet, a)
    s, ld = gufunc_outs([(a, 2)], [((), t), ((), real_of(t))])
    return SlogdetResult(out(astype(s, rt)), out(astype(ld, real_of(rt))))


def _uplo(uplo: Any) -> None:
    if uplo.upper() not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")


@register(_L.eigh, tags=("copy",))
def eigh(a: Any, UPLO: str = "L") -> Any:
    """EighResult(eigenvalues (..., m) real, eigenvectors (..., m, m))."""
    _uplo(UPLO)
    a = _arr(a, _L.eigh)
    stacked_square(a)
    t, rt = common_type(_L.eigh, a)
    n = a.shape[-1]
    w, v = gufunc_outs([(a, 2)], [((n,), real_of(t)), ((n, n), t)])
    return EighResult(out(astype(w, real_of(rt))), out(astype(v, rt)))


def _eigvalsh_meta(a: Any, name: Any) -> Meta:
    a = _arr(a, name)
    stacked_square(a)
    t, rt = common_type(name, a)
    (w,) = gufunc_outs([(a, 2)], [((a.shape[-1],), real_of(t))])
    return astype(w, real_of(rt))


@register(_L.eigvalsh, tags=("copy",))
def eigvalsh(a: Any, UPLO: str = "L") -> Out:
    _uplo(UPLO)
    return out(_eigvalsh_meta(a, _L.eigvalsh))


def _eig_common(a: Any, name: Any) -> tuple:
    a = _arr(a, name)
    stacked_square(a)
    t, rt = common_type(name, a)
    if t.kind != "c":
        raise DataDependentError(f"{name.__name__} of a real matrix: the result is real only "
                                 "when every eigenvalue is, which depends on the values")
    return a, rt


@register(_L.eig, tags=("copy",))
def eig(a: Any) -> Any:
    """Complex input only: for real input the result dtype depends on the eigenvalues."""
    a, rt = _eig_common(a, _L.eig)
    n = a.shape[-1]
    w, v = gufunc_outs([(a, 2)], [((n,), _C16), ((n, n), _C16)])
    return EigResult(out(astype(w, rt)), out(astype(v, rt)))


@register(_L.eigvals, tags=("copy",))
def eigvals(a: Any) -> Out:
    a, rt = _eig_common(a, _L.eigvals)
    (w,) = gufunc_outs([(a, 2)], [((a.shape[-1],), _C16)])
    return out(astype(w, rt))


def _svdvals_meta(a: Any, name: Any) -> Meta:
    stacked_2d(a)
    t, rt = common_type(name, a)
    (s,) = gufunc_outs([(a, 2)], [((min(a.shape[-2:]),), real_of(t))])
    return astype(s, real_of(rt))


def _svd_hermitian_values(a: Any) -> Out:
    """abs(eigvalsh(a)), sorted (a K-order copy), reversed along the last axis: a view."""
    from .ufuncs import ufunc_call
    w = meta(ufunc_call(np.absolute, _eigvalsh_meta(a, _L.svd)))
    srt = like_strides(w.shape, w.strides, w.dtype.itemsize, w.flags.c_contiguous,
                       w.flags.f_contiguous)
    n = w.shape[-1]
    st = srt[:-1] + (-srt[-1],)
    off = (n - 1) * srt[-1] if n and 0 not in w.shape else 0
    return Out(w.shape, w.dtype, st, offset=off, base_shape=w.shape)


@register(_L.svd, tags=("copy",))
def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Any:
    """svd_f / svd_s / svd; hermitian with compute_uv goes through eigh (unsupported)."""
    a = _arr(a, _L.svd)
    if hermitian:
        if compute_uv:
            raise UnsupportedOperationError(_L.svd, "hermitian=True with compute_uv=True")
        return _svd_hermitian_values(a)
    if not compute_uv:
        return out(_svdvals_meta(a, _L.svd))
    stacked_2d(a)
    t, rt = common_type(_L.svd, a)
    m, n = a.shape[-2:]
    p = min(m, n)
    cores = ((m, m), (p,), (n, n)) if full_matrices else ((m, p), (p,), (p, n))
    u, s, vh = gufunc_outs([(a, 2)], [(cores[0], t), (cores[1], real_of(t)), (cores[2], t)])
    return SVDResult(out(astype(u, rt)), out(astype(s, real_of(rt))), out(astype(vh, rt)))


@register(_L.svdvals, tags=("copy",))
def svdvals(x: Any, /) -> Out:
    return out(_svdvals_meta(_arr(x, _L.svdvals), _L.svdvals))


_QR_MODES = ("reduced", "complete", "r", "raw")


@register(_L.qr, tags=("copy",))
def qr(a: Any, mode: str = "reduced") -> Any:
    """qr_r_raw on an order-K copy of a, then qr_reduced / qr_complete and triu."""
    from .misc import triu
    if mode not in _QR_MODES:
        if mode in ("f", "full", "e", "economic"):
            raise UnsupportedOperationError(_L.qr, f"the deprecated mode {mode!r}")
        raise ValueError(f"Unrecognized mode '{mode}'")
    a = _arr(a, _L.qr)
    stacked_2d(a)
    m, n = a.shape[-2:]
    t, rt = common_type(_L.qr, a)
    a = Meta(a.shape, t, like_strides(a.shape, a.strides, t.itemsize, a.flags.c_contiguous,
                                      a.flags.f_contiguous))  # a.astype(t, copy=True)
    mn = min(m, n)
    (tau,) = gufunc_outs([(a, 2)], [((mn,), t)])

    def top(k: int) -> Meta:
        return Meta(a.shape[:-2] + (min(k, m), n), t, a.strides)

    if mode == "r":
        return out(astype(meta(triu(top(mn))), rt))
    if mode == "raw":
        q = swap_last(a)
        if rt == t:
            qo = Out(q.shape, t, q.strides, base_shape=a.shape)
        else:
            qo = out(astype(q, rt))
        return (qo, out(astype(tau, rt)))
    mc = m if (mode == "complete" and m > n) else mn
    (q,) = gufunc_outs([(a, 2), (tau, 1)], [((m, mc), t)])
    r = meta(triu(top(mc)))
    return QRResult(out(astype(q, rt)), out(astype(r, rt)))


@register(_L.lstsq, tags=("copy",))
def lstsq(a: Any, b: Any, rcond: Any = None) -> tuple:
    """Only 2-d operands; the residuals' shape depends on the rank when m > n > 0."""
    a = _arr(a, _L.lstsq)
    b = _arr(b, _L.lstsq)
    is_1d = b.ndim == 1
    bsh = (b.shape[0], 1) if is_1d else tuple(b.shape)
    for nd in (a.ndim, len(bsh)):
        if nd != 2:
            raise LinAlgError(f"{nd}-dimensional array given. Array must be two-dimensional")
    m, n = a.shape
    m2, nrhs = bsh
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    t, rt = common_type(_L.lstsq, a, b)
    rrt = real_of(rt)
    if rcond is not None and len(getattr(rcond, "shape", np.shape(rcond))):
        raise UnsupportedOperationError(_L.lstsq, "an array rcond")
    if m > n > 0:
        raise DataDependentError("lstsq with more rows than columns: the residuals are empty "
                                 "unless the rank is full, which depends on the values")
    k = max(nrhs, 1)
    x = (n, k)
    xm = Meta(x, t, c_strides(x, t.itemsize))
    if nrhs == 0:
        xm = Meta((n, 0), t, xm.strides)
    if is_1d:
        xm = Meta(xm.shape[:1], t, xm.strides[:1])
    if m <= n:
        res = Out((0,), rrt, (0,))
    else:  # n == 0: the rank is 0 == n, the residuals are kept
        rs = c_strides((k,), rrt.itemsize)
        res = Out((nrhs,), rrt, rs, base_shape=(k,)) if nrhs == 0 else Out((k,), rrt, rs)
    xo = Out(xm.shape, rt, like_strides(xm.shape, xm.strides, rt.itemsize,
                                        xm.flags.c_contiguous, xm.flags.f_contiguous))
    p = min(m, n)
    return (xo, res, Out((), np.dtype(np.int32), ()), Out((p,), rrt, c_strides((p,), rrt.itemsize)))
