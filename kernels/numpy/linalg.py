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

from ..._errors import DataDependentError, UnsupportedOperationError
from ... import _known
from ...layout import (broadcast_shapes, c_strides, dense_in_stride_order, iterator_order,
                     like_strides, reshape_strides, strides_in_order)
from .hidden import call_step, captured, cast_copy_bytes, scalar_bytes, stepped, steps
from .temporaries import BUFSIZE, Steps, Val, array_bytes, asarray_bytes, binary
from .lapack_scratch import gufunc_scratch
from ...meta import ArrayMeta, as_meta, is_aligned, is_fake, is_meta
from .reductions import step_input as meta  # a kernel's fresh result as the next step's input
from .. import flops
from ..registry import assume, note, quiet, register, scalar_result, scratch, uncached

_L = np.linalg
from numpy.linalg._linalg import EigResult, EighResult, QRResult, SlogdetResult, SVDResult  # noqa: E402
_F8, _C16 = np.dtype(np.float64), np.dtype(np.complex128)
_REAL: dict[np.dtype, np.dtype] = {np.dtype(np.float32): np.dtype(np.float32), np.dtype(np.float64): _F8,
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


def gufunc_outs(ins: list, outs: list, t: np.dtype | None = None) -> list:
    """Outputs a gufunc allocates: ``ins`` are (meta, number of core axes), ``outs``
    (core shape, dtype). Loop axes in NpyIter's K order of the inputs, core axes C.

    Recorded in the running kernel's ``steps()``: with the inputs' loop dtype ``t``, the
    whole copy of each input of another dtype (gufuncs do not buffer; the matrices'
    Fortran-order copies for LAPACK are malloc'd, see ``_lapack_scratch``), then the outputs."""
    st = steps()
    copies = 0 if t is None else sum(cast_copy_bytes(m, t) for m, _ in ins)
    note("implicit_copy", copies)
    st.alloc(copies)
    res = _gufunc_out_metas(ins, outs)
    for r in res:
        st.alloc(array_bytes(r.shape, r.dtype))
    st.free(copies)
    return res


def _gufunc_out_metas(ins: list, outs: list) -> list:
    lshapes = [tuple(m.shape[:m.ndim - k]) for m, k in ins]
    lshape = broadcast_shapes(*lshapes)
    nl = len(lshape)
    res = []
    for core, dt in outs:
        shape = lshape + tuple(core)
        if len(shape) <= 1 or 0 in shape:
            res.append(ArrayMeta(shape, dt, c_strides(shape, dt.itemsize)))
            continue
        ops = []
        for (m, k), ls in zip(ins, lshapes):
            pad = nl - len(ls)
            ops.append(((1,) * pad + ls + (1,) * len(core),
                        (0,) * pad + tuple(m.strides[:len(ls)]) + (0,) * len(core)))
        res.append(ArrayMeta(shape, dt, strides_in_order(shape, dt.itemsize,
                                                    iterator_order(shape, ops))))
    return res


def astype(m: Any, dt: np.dtype, dies: bool | None = None) -> Any:
    """``m.astype(dt, copy=False)`` of a fresh intermediate: itself or an order-K copy,
    recorded in ``steps()``. The converted intermediate (an ArrayMeta) dies with it unless
    ``dies`` is False (it stays referenced); ``dies=False`` also records a copy of an input."""
    if m.dtype == dt:
        return m
    r = ArrayMeta(m.shape, dt, like_strides(m.shape, m.strides, dt.itemsize,
                                       m.flags.c_contiguous, m.flags.f_contiguous))
    if type(m) is ArrayMeta or dies is not None:  # a step of the composite (not its input as is)
        st = steps()
        st.alloc(array_bytes(r.shape, r.dtype))
        if dies is not False:
            st.free(array_bytes(m.shape, m.dtype))
    return r


def out(m: Any) -> ArrayMeta:
    """A fresh intermediate as the kernel's result."""
    if type(m) is ArrayMeta:
        return m
    return ArrayMeta(m.shape, m.dtype, m.strides)


def lapack(ms: Any, op: str, t: np.dtype, n: int, **kw: Any) -> None:
    """Report the C-heap blocks of one _umath_linalg gufunc (none for an empty stack)."""
    if all(math.prod(m.shape[:-2]) for m in ms):
        b = gufunc_scratch(op, t, n, **kw)
        if b is not None:
            scratch(b)


def swap_last(m: Any) -> ArrayMeta:
    """swapaxes(m, -1, -2) as metadata (the wrappers' ``transpose``)."""
    sh, st = list(m.shape), list(m.strides)
    sh[-1], sh[-2] = sh[-2], sh[-1]
    st[-1], st[-2] = st[-2], st[-1]
    return ArrayMeta(tuple(sh), m.dtype, tuple(st))


# --- the direct gufunc wrappers ---------------------------------------------------


@register(_L.inv, tags=("copy",), flops=flops.inv)
@stepped
def inv(a: Any) -> ArrayMeta:
    """_umath_linalg.inv then astype(result_t)."""
    a = _arr(a, _L.inv)
    stacked_square(a)
    t, rt = common_type(_L.inv, a)
    n = a.shape[-1]
    (r,) = gufunc_outs([(a, 2)], [((n, n), t)], t)
    lapack([a], "gesv", t, n, nrhs=n)
    return out(astype(r, rt))


@register(_L.cholesky, tags=("copy",), flops=flops.cholesky)
@stepped
def cholesky(a: Any, /, *, upper: bool = False) -> ArrayMeta:
    """cholesky_lo / cholesky_up: the layout of inv."""
    a = _arr(a, _L.cholesky)
    stacked_square(a)
    t, rt = common_type(_L.cholesky, a)
    n = a.shape[-1]
    (r,) = gufunc_outs([(a, 2)], [((n, n), t)], t)
    lapack([a], "potrf", t, n)
    return out(astype(r, rt))


def _core_mismatch(name: str, iop: int, dim: int, sig: str, got: int, want: int) -> None:
    raise ValueError(f"{name}: Input operand {iop} has a mismatch in its core dimension {dim}, "
                     f"with gufunc signature {sig} (size {got} is different from {want})")


@register(_L.solve, tags=("copy",), flops=flops.solve)
@stepped
def solve(a: Any, b: Any) -> ArrayMeta:
    """solve1 for a 1-d b, solve otherwise; loop axes from both operands."""
    a = _arr(a, _L.solve)
    stacked_square(a)
    b = _arr(b, _L.solve)
    t, rt = common_type(_L.solve, a, b)
    n = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != n:
            _core_mismatch("solve1", 1, 0, "(m,m),(m)->(m)", b.shape[0], n)
        (r,) = gufunc_outs([(a, 2), (b, 1)], [((n,), t)], t)
    else:
        if b.ndim < 2:
            raise ValueError("solve: Input operand 1 does not have enough dimensions (has 0, "
                             "gufunc core with signature (m,m),(m,n)->(m,n) requires 2)")
        if b.shape[-2] != n:
            _core_mismatch("solve", 1, 0, "(m,m),(m,n)->(m,n)", b.shape[-2], n)
        (r,) = gufunc_outs([(a, 2), (b, 2)], [((n, b.shape[-1]), t)], t)
    lapack([a], "gesv", t, n, nrhs=1 if b.ndim == 1 else b.shape[-1])
    return out(astype(r, rt))


@register(_L.det, tags=("copy",), flops=flops.det)
@stepped
def det(a: Any) -> ArrayMeta:
    """det's stack shape (a scalar for one matrix)."""
    a = _arr(a, _L.det)
    stacked_square(a)
    t, rt = common_type(_L.det, a)
    (r,) = gufunc_outs([(a, 2)], [((), t)], t)
    lapack([a], "getrf", t, a.shape[-1])
    return scalar_result(out(astype(r, rt)))  # one matrix: the gufunc returns a NumPy scalar


@register(_L.slogdet, tags=("copy",), flops=flops.det)
@stepped
def slogdet(a: Any) -> Any:
    """SlogdetResult(sign of the result dtype, logabsdet of its real dtype)."""
    a = _arr(a, _L.slogdet)
    stacked_square(a)
    t, rt = common_type(_L.slogdet, a)
    s, ld = gufunc_outs([(a, 2)], [((), t), ((), real_of(t))], t)
    lapack([a], "getrf", t, a.shape[-1])
    return SlogdetResult(scalar_result(out(astype(s, rt))), scalar_result(out(astype(ld, real_of(rt)))))


def _uplo(uplo: Any) -> None:
    if uplo.upper() not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")


@register(_L.eigh, tags=("copy",), flops=flops.eigh)
@stepped
def eigh(a: Any, UPLO: str = "L") -> Any:
    """EighResult(eigenvalues (..., m) real, eigenvectors (..., m, m))."""
    _uplo(UPLO)
    a = _arr(a, _L.eigh)
    stacked_square(a)
    t, rt = common_type(_L.eigh, a)
    n = a.shape[-1]
    w, v = gufunc_outs([(a, 2)], [((n,), real_of(t)), ((n, n), t)], t)
    lapack([a], "syevd", t, n, jobz="V")
    return EighResult(out(astype(w, real_of(rt))), out(astype(v, rt)))


def _eigvalsh_meta(a: Any, name: Any) -> ArrayMeta:
    a = _arr(a, name)
    stacked_square(a)
    t, rt = common_type(name, a)
    (w,) = gufunc_outs([(a, 2)], [((a.shape[-1],), real_of(t))], t)
    lapack([a], "syevd", t, a.shape[-1], jobz="N")
    return astype(w, real_of(rt))


@register(_L.eigvalsh, tags=("copy",), flops=flops.eigvalsh)
@stepped
def eigvalsh(a: Any, UPLO: str = "L") -> ArrayMeta:
    _uplo(UPLO)
    return out(_eigvalsh_meta(a, _L.eigvalsh))


_EIG_ASSUMED = ("{}: the eigenvalues of a real matrix were taken not to be all real (complex "
                "results, as for a typical non-symmetric matrix; one whose eigenvalues are all "
                "real gives real results: eigh/eigvalsh for a symmetric one)")


def _eig_common(a: Any, name: Any) -> tuple:
    """(a, result dtype, loop dtype, whether the results are real). For real input NumPy
    returns real results when every eigenvalue is real (numpy/linalg/_linalg.py eig:
    ``all(w.imag == 0.0)``), else complex ones: known values decide (faketensor/_known.py),
    else placeholder mode assumes complex ones (``assume``), else DataDependentError."""
    a = _arr(a, name)
    stacked_square(a)
    t, rt = common_type(name, a)
    if t.kind == "c":
        return a, rt, t, False
    vals = _known.real(a) if is_fake(a) else None
    if vals is not None:
        uncached()  # the outcome depends on the values, which the kernel cache does not key on
        try:
            with np.errstate(all="ignore"):
                w = np.linalg.eigvals(vals)
        except Exception:  # NumPy's own error: a non-finite matrix, ...
            w = None
        if w is not None:
            return a, rt, t, bool(w.dtype.kind != "c")
    if not assume(_EIG_ASSUMED.format(f"np.linalg.{name.__name__}")):
        raise DataDependentError(f"{name.__name__} of a real matrix: the result is real only "
                                 "when every eigenvalue is, which depends on the values")
    return a, rt, t, False


def _eig_results(ms: list, rt: np.dtype, real: bool) -> list:
    """The complex gufunc outputs as NumPy's wrapper returns them: complex of the result
    type, or (all eigenvalues real) their ``.real`` views, cast to the real result type."""
    if not real:
        crt = rt if rt.kind == "c" else np.dtype(np.complex64) if rt.itemsize == 4 else _C16
        return [out(astype(m, crt)) for m in ms]
    res = []
    for m in ms:
        view = ArrayMeta(m.shape, _F8, m.strides, view_of=m)
        res.append(view if rt == _F8 else out(astype(view, rt)))
    return res


def _assert_finite(a: Any) -> None:
    """``isfinite(a).all()`` (numpy/linalg/_linalg.py _assert_finite) in ``steps()``: a bool
    array of the input's size and the reduction's 0-d result."""
    steps().temp(array_bytes(a.shape, np.bool_) + 1)


def _all_real_check(w: ArrayMeta, t: np.dtype, zero: Any) -> None:
    """``all(w.imag == zero)``, the test of a real input's eigenvalues (numpy/linalg/_linalg.py
    eig: ``0.0``, eigvals: ``0``), in ``steps()``: the scalar's 0-d arrays, the bool array
    of the comparison and the reduction's 0-d result, while the outputs are alive."""
    if t.kind == "c":
        return
    st = steps()
    held, converting = scalar_bytes(zero, _F8)
    cmp_b = array_bytes(w.shape, np.bool_)
    st.temp(converting)
    st.temp(held + cmp_b)
    st.temp(cmp_b + 1)


@register(_L.eig, tags=("copy",), flops=flops.eig)
@stepped
def eig(a: Any) -> Any:
    """EigResult(eigenvalues (..., m), eigenvectors (..., m, m)): complex, or real when the
    input is real and every eigenvalue is (``_eig_common``)."""
    a, rt, t, real = _eig_common(a, _L.eig)
    n = a.shape[-1]
    _assert_finite(a)
    w, v = gufunc_outs([(a, 2)], [((n,), _C16), ((n, n), _C16)], t)
    _all_real_check(w, t, 0.0)
    return EigResult(*_eig_results([w, v], rt, real))


@register(_L.eigvals, tags=("copy",), flops=flops.eigvals)
@stepped
def eigvals(a: Any) -> ArrayMeta:
    a, rt, t, real = _eig_common(a, _L.eigvals)
    _assert_finite(a)
    (w,) = gufunc_outs([(a, 2)], [((a.shape[-1],), _C16)], t)
    _all_real_check(w, t, 0)
    return _eig_results([w], rt, real)[0]


def _svdvals_meta(a: Any, name: Any) -> ArrayMeta:
    stacked_2d(a)
    t, rt = common_type(name, a)
    (s,) = gufunc_outs([(a, 2)], [((min(a.shape[-2:]),), real_of(t))], t)
    lapack([a], "gesdd", t, a.shape[-1], m=a.shape[-2], jobz="N")
    return astype(s, real_of(rt))


def _svd_hermitian_values(a: Any) -> ArrayMeta:
    """abs(eigvalsh(a)), sorted (a K-order copy), reversed along the last axis: a view."""
    from .umath import ufunc_call
    w = meta(ufunc_call(np.absolute, _eigvalsh_meta(a, _L.svd)))
    srt = like_strides(w.shape, w.strides, w.dtype.itemsize, w.flags.c_contiguous,
                       w.flags.f_contiguous)
    n = w.shape[-1]
    st = srt[:-1] + (-srt[-1],)
    off = (n - 1) * srt[-1] if n and 0 not in w.shape else 0
    return ArrayMeta(w.shape, w.dtype, st, offset=off, base_shape=w.shape)


def _svd_hermitian(a: Any) -> SVDResult:
    """_linalg.py svd(hermitian=True, compute_uv=True), statement by statement:
    ``s, u = eigh(a)``; ``sgn = copysign(1.0, s)``; ``s = abs(s)``;
    ``sidx = argsort(s)[..., ::-1]``; sgn, s and u taken along the last axis by sidx;
    ``vt = transpose(u * sgn[..., None, :]).conjugate()`` (for a real dtype the transposed
    product itself: a view). ``full_matrices`` plays no part."""
    from .indexing import take_along_axis
    from .sorting import argsort
    from .umath import ufunc_steps
    st = steps()
    with captured() as cap:
        s0, u0 = eigh(a)  # its outputs and copies are recorded in ``st`` (gufunc_outs)
    st.temp(cap.transient)
    s0, u0 = meta(s0), meta(u0)
    sb0, ub0 = array_bytes(s0.shape, s0.dtype), array_bytes(u0.shape, u0.dtype)
    sgn, gb = ufunc_steps(st, np.copysign, 1.0, s0)
    s1, sb1 = ufunc_steps(st, np.absolute, s0)
    st.free(sb0)
    idx, ib = call_step(st, argsort, s1)
    n = idx.shape[-1]
    isz = idx.dtype.itemsize
    rev = ArrayMeta(idx.shape, idx.dtype, tuple(idx.strides[:-1]) + (-idx.strides[-1],),
                    offset=(n - 1) * isz if n and idx.size else 0, base_shape=idx.shape)
    sgn2, gb2 = call_step(st, take_along_axis, meta(sgn), rev, -1)
    st.free(gb)
    s2, sb2 = call_step(st, take_along_axis, meta(s1), rev, -1)
    st.free(sb1)
    rev_u = ArrayMeta(idx.shape[:-1] + (1, n), idx.dtype, rev.strides[:-1] + (0, rev.strides[-1]),
                      offset=rev.offset, base_shape=idx.shape)
    u2, ub2 = call_step(st, take_along_axis, u0, rev_u, -1)
    st.free(ub0)
    g = meta(sgn2)
    gv = ArrayMeta(g.shape[:-1] + (1,) + g.shape[-1:], g.dtype, g.strides[:-1] + (0,) + g.strides[-1:])
    prod, pb = ufunc_steps(st, np.multiply, meta(u2), gv)
    prod = meta(prod)
    tr = swap_last(prod)
    if prod.dtype.kind == "c":
        vt, vb = ufunc_steps(st, np.conjugate, tr)
        st.free(pb)
        vt = out(vt)
    else:  # ndarray.conjugate of a real array is the array itself: a view of the product
        vt = ArrayMeta(tr.shape, tr.dtype, tr.strides, base_shape=prod.shape)
    st.free(ib, gb2)  # sidx and sgn die with the function's frame
    return SVDResult(out(u2), out(s2), vt)


@register(_L.svd, tags=("copy",), flops=flops.svd)
@stepped
def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Any:
    """svd_f / svd_s / svd; hermitian goes through eigh / eigvalsh (``_svd_hermitian``)."""
    a = _arr(a, _L.svd)
    if hermitian:
        if compute_uv:
            return _svd_hermitian(a)
        return _svd_hermitian_values(a)
    if not compute_uv:
        return out(_svdvals_meta(a, _L.svd))
    stacked_2d(a)
    t, rt = common_type(_L.svd, a)
    m, n = a.shape[-2:]
    p = min(m, n)
    cores = ((m, m), (p,), (n, n)) if full_matrices else ((m, p), (p,), (p, n))
    u, s, vh = gufunc_outs([(a, 2)], [(cores[0], t), (cores[1], real_of(t)), (cores[2], t)], t)
    lapack([a], "gesdd", t, n, m=m, jobz="A" if full_matrices else "S")
    return SVDResult(out(astype(u, rt)), out(astype(s, real_of(rt))), out(astype(vh, rt)))


@register(_L.svdvals, tags=("copy",), flops=flops.svdvals)
@stepped
def svdvals(x: Any, /) -> ArrayMeta:
    return out(_svdvals_meta(_arr(x, _L.svdvals), _L.svdvals))


_QR_MODES = ("reduced", "complete", "r", "raw")


@register(_L.qr, tags=("copy",), flops=flops.qr)
@stepped
def qr(a: Any, mode: str = "reduced") -> Any:
    """qr_r_raw on an order-K copy of a, then qr_reduced / qr_complete and triu.

    Recorded in ``steps()``: the copy and tau live to the end; triu's mask and its
    result come after q (_linalg.py ``qr``)."""
    from .twodim_base import triu
    if mode not in _QR_MODES:
        if mode in ("f", "full", "e", "economic"):
            raise UnsupportedOperationError(_L.qr, f"the deprecated mode {mode!r}")
        raise ValueError(f"Unrecognized mode '{mode}'")
    a = _arr(a, _L.qr)
    stacked_2d(a)
    m, n = a.shape[-2:]
    t, rt = common_type(_L.qr, a)
    a = ArrayMeta(a.shape, t, like_strides(a.shape, a.strides, t.itemsize, a.flags.c_contiguous,
                                      a.flags.f_contiguous))  # a.astype(t, copy=True)
    steps().alloc(array_bytes(a.shape, a.dtype))
    mn = min(m, n)
    (tau,) = gufunc_outs([(a, 2)], [((mn,), t)])

    def top(k: int) -> ArrayMeta:
        return ArrayMeta(a.shape[:-2] + (min(k, m), n), t, a.strides)

    def upper(k: int) -> ArrayMeta:
        """triu(a[..., :k, :]) with its mask and zeros beside its result."""
        return _step(lambda: meta(triu(top(k))))

    if mode == "r":
        return out(astype(upper(mn), rt))
    if mode == "raw":
        q = swap_last(a)
        if rt == t:
            qo = ArrayMeta(q.shape, t, q.strides, base_shape=a.shape)
        else:
            qo = out(astype(q, rt, dies=False))  # a view of the copy, which stays alive
        return (qo, out(astype(tau, rt)))
    mc = m if (mode == "complete" and m > n) else mn
    (q,) = gufunc_outs([(a, 2), (tau, 1)], [((m, mc), t)])
    r = upper(mc)
    return QRResult(out(astype(q, rt)), out(astype(r, rt)))


@register(_L.lstsq, tags=("copy",), flops=flops.lstsq)
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
    full = m > n > 0
    if full and not assume("np.linalg.lstsq: the matrix was taken to have full rank "
                           "(residuals of one element per right-hand side; a "
                           "rank-deficient one has none)"):
        raise DataDependentError("lstsq with more rows than columns: the residuals are empty "
                                 "unless the rank is full, which depends on the values")
    k = max(nrhs, 1)
    x = (n, k)
    xm = ArrayMeta(x, t, c_strides(x, t.itemsize))
    if nrhs == 0:
        xm = ArrayMeta((n, 0), t, xm.strides)
    if is_1d:
        xm = ArrayMeta(xm.shape[:1], t, xm.strides[:1])
    if m <= n:
        res = ArrayMeta((0,), rrt, (0,))
    else:  # full rank (n == 0: the rank is 0 == n), the residuals are kept
        rs = c_strides((k,), rrt.itemsize)
        if nrhs == 0:  # resids[..., :0] of the (1,) gufunc output, copied if cast
            res = ArrayMeta((0,), rrt, (0,)) if rrt != _F8 else ArrayMeta((0,), rrt, rs, base_shape=(1,))
        else:
            res = ArrayMeta((k,), rrt, rs)
    xo = ArrayMeta(xm.shape, rt, like_strides(xm.shape, xm.strides, rt.itemsize,
                                        xm.flags.c_contiguous, xm.flags.f_contiguous))
    p = min(m, n)
    _lstsq_steps(a, b, rcond, m, n, nrhs, t, rt)
    # the gufunc's 0-d output; under the full-rank assumption its value is that rank
    rank = ArrayMeta((), np.dtype(np.int32), (), scalar=True, value=n if full else None)
    return (xo, res, rank, ArrayMeta((p,), rrt, c_strides((p,), rrt.itemsize)))


def _lstsq_steps(a: Any, b: Any, rcond: Any, m: int, n: int, nrhs: int, t: np.dtype,
                 rt: np.dtype) -> None:
    """numpy/linalg/_linalg.py lstsq's buffers, in order: ``zeros((m, 1))`` for no
    right-hand side, the gufunc's casts of a and b to the computation type (a gufunc casts
    whole operands) and of rcond (a 0-d double), its four outputs (the 0-d rank becomes a
    NumPy scalar), ``array([])`` for the residuals when m <= n, the astype copies of s and
    the residuals to the result type (when it differs), then ``x.astype(copy=True)``. The
    LAPACK workspace is malloc'd (off the data allocator). A rank-deficient matrix with
    m > n would also replace the residuals: that case is assumed away (registry.assume)."""
    k = max(nrhs, 1)
    real_t, rrt = real_of(t), real_of(rt)
    st = Steps()
    zb = st.new(array_bytes((m, 1), b.dtype) if nrhs == 0 else 0)
    ca = st.new(array_bytes(a.shape, t) if a.dtype != t else 0)
    cb = st.new(array_bytes((m, k), t) if (b.dtype if nrhs else b.dtype) != t else 0)
    given = as_meta(rcond) if is_fake(rcond) or isinstance(rcond, np.ndarray) else None
    rc = st.new(0 if given is not None and given.dtype == _F8 else 8)
    x = st.new(array_bytes((n, k), t))
    res = st.new(array_bytes((k,), real_t))
    rank = st.new(4)
    sv = st.new(array_bytes((min(m, n),), real_t))
    st.free(ca, cb, rc, rank)
    if m <= n:  # resids = array([], result_real_t)
        st.new(1)
        st.free(res)
    elif real_t != rrt:
        st.new(array_bytes((nrhs,), rrt))  # resids (sliced to nrhs) astype(copy=False)
        st.free(res)
    if real_t != rrt:
        st.new(array_bytes((min(m, n),), rrt))
        st.free(sv)
    st.new(array_bytes((n, nrhs) if b.ndim == 2 else (n,), rt))
    st.free(x, zb)
    st.done()


# --- compositions -------------------------------------------------------------------


def _matmul(x: Any, y: Any) -> ArrayMeta:
    from .umath import ufunc_call
    return meta(ufunc_call(np.matmul, x, y))


@register(_L.matrix_power, tags=("copy",), flops=flops.matrix_power)
@stepped
def matrix_power(a: Any, n: Any) -> Any:
    """empty_like for n == 0, the input itself for n == 1, else matmul by binary powering."""
    m = as_meta(a)
    if m.dtype.kind not in "biufc":
        raise UnsupportedOperationError(_L.matrix_power, f"{m.dtype} operands")
    stacked_square(m)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        return ArrayMeta(m.shape, m.dtype, like_strides(m.shape, m.strides, m.dtype.itemsize,
                                                   m.flags.c_contiguous, m.flags.f_contiguous))
    if n < 0:
        m = meta(inv(m))
        n = abs(n)
    if n == 1:
        return a if m is as_meta(a) else out(m)
    st = steps()

    def mm(x: Any, y: Any, *dead: Any) -> Any:
        """A product; then the intermediates that die with this assignment are freed."""
        with captured() as c:
            r = _matmul(x, y)
        st.alloc(array_bytes(r.shape, r.dtype))
        st.hold(c.transient)
        for t in dead:
            st.free(array_bytes(t.shape, t.dtype))
        return r

    if n == 2:
        return out(mm(m, m))
    if n == 3:
        t = mm(m, m)
        return out(mm(t, m, t))
    z = result = None
    while n > 0:
        if z is None:
            z = m
        else:
            z = mm(z, z, *([z] if z is not m and z is not result else []))
        n, bit = divmod(n, 2)
        if bit:
            if result is None:
                result = z
            else:
                result = mm(result, z, *([result] if result is not m and result is not z else []))
    return out(result)


@register(_L.tensorinv, tags=("copy",), flops=flops.tensorinv)
def tensorinv(a: Any, ind: int = 2) -> ArrayMeta:
    """inv of a.reshape(prod, -1), reshaped: a view of inv's result."""
    from .views import reshape_out
    m = _arr(a, _L.tensorinv)
    old = tuple(m.shape)
    if ind > 0:
        invshape = old[ind:] + old[:ind]
        p = math.prod(old[ind:])
    else:
        raise ValueError("Invalid ind argument.")
    flat = reshape_out(m, (p, -1))
    ia = meta(inv(ArrayMeta(flat.shape, m.dtype, c_strides(flat.shape, m.dtype.itemsize))))
    r = reshape_out(ia, invshape)
    return ArrayMeta(r.shape, r.dtype, r.strides, base_shape=ia.shape)


@register(_L.tensorsolve, tags=("copy",), flops=flops.tensorsolve)
def tensorsolve(a: Any, b: Any, axes: Any = None) -> ArrayMeta:
    """solve of the reshaped operands; the 1-d result gets ``shape`` set in place (empty
    operands included: solve of a (0, 0) and a (0,) array is a (0,) array)."""
    am, bm = _arr(a, _L.tensorsolve), _arr(b, _L.tensorsolve)
    an = am.ndim
    shape = list(am.shape)
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        shape = [shape[i] for i in allaxes]
    k = an - bm.ndim
    oldshape = tuple(shape[-k:]) if k else tuple(shape)
    p = math.prod(oldshape)
    if am.size != p ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement             "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    r = solve(ArrayMeta((p, p), am.dtype, c_strides((p, p), am.dtype.itemsize)),
              ArrayMeta((bm.size,), bm.dtype, c_strides((bm.size,), bm.dtype.itemsize)))
    # ``res.shape = oldshape`` reshapes solve's result in place (a fresh empty result has
    # strides 0, which the very shape keeps; any other shape gets contiguous strides)
    _, st = reshape_strides(tuple(r.shape), tuple(r.strides), r.dtype.itemsize, oldshape)
    return ArrayMeta(oldshape, r.dtype, st)


@register(_L.multi_dot, tags=("copy",), flops=flops.multi_dot)
@stepped
def multi_dot(arrays: Any, *, out: Any = None) -> Any:
    """dot in the cheapest order; raveled (a view) or [0, 0] for 1-d ends. ``out`` goes to
    the last dot only (linalg.py ``_multi_dot_three`` / ``_multi_dot``), so it must have the
    2-d shape of the product; the 1-d ends then ravel it or take its [0, 0]."""
    from .products import dot_meta
    from .views import ravel_out
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    ms = [as_meta(x) for x in arrays]
    if n == 2:
        return dot_meta(ms[0], ms[1], out)
    nd0, nd1 = ms[0].ndim, ms[-1].ndim
    if nd0 == 1:
        ms[0] = ArrayMeta((1,) + tuple(ms[0].shape), ms[0].dtype, (0,) + tuple(ms[0].strides))
    if nd1 == 1:
        ms[-1] = ArrayMeta(tuple(ms[-1].shape) + (1,), ms[-1].dtype, tuple(ms[-1].strides) + (0,))
    for x in ms:
        if x.ndim != 2:
            raise LinAlgError(f"{x.ndim}-dimensional array given. Array must be two-dimensional")

    st = steps()
    given = {id(x) for x in ms}
    if n > 3:  # _multi_dot_matrix_chain_order's cost (freed) and split (kept) arrays
        st.hold(n * n * 8)
        st.alloc(n * n * 8)

    def d(x: Any, y: Any, o: Any = None) -> Any:
        """dot(x, y) with its copies; an intermediate operand dies once the product exists."""
        with captured() as c:
            r = dot_meta(x, y, o)
        if o is not None:
            st.hold(c.transient)
            for t in (x, y):
                if id(t) not in given:
                    st.free(array_bytes(t.shape, t.dtype))
            return o
        r = ArrayMeta(r.shape, r.dtype, r.strides)
        st.alloc(array_bytes(r.shape, r.dtype))
        st.hold(c.transient)
        for t in (x, y):
            if id(t) not in given:
                st.free(array_bytes(t.shape, t.dtype))
        return r

    if n == 3:
        A, B, C = ms
        a0, a1b0 = A.shape
        b1c0, c1 = C.shape
        if a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0):
            res = d(d(A, B), C, out)
        else:
            res = d(A, d(B, C), out)
    else:
        p = [x.shape[0] for x in ms] + [ms[-1].shape[1]]
        cost = [[0.0] * n for _ in range(n)]
        split = [[0] * n for _ in range(n)]
        for ln in range(1, n):
            for i in range(n - ln):
                j = i + ln
                cost[i][j] = math.inf
                for k in range(i, j):
                    q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                    if q < cost[i][j]:
                        cost[i][j] = q
                        split[i][j] = k

        def chain(i: int, j: int, o: Any = None) -> Any:
            if i == j:
                return ms[i]
            return d(chain(i, split[i][j]), chain(split[i][j] + 1, j), o)

        res = chain(0, n - 1, out)
        del chain  # a recursive closure is a reference cycle through its cell: it would keep
        # the inputs alive until the cyclic collector runs, where NumPy frees them at once
    dt = res.dtype
    if out is not None:
        if nd0 == 1 and nd1 == 1:  # out[0, 0]
            return ArrayMeta((), dt, (), scalar=True)
        if nd0 == 1 or nd1 == 1:  # out.ravel(): a view of out when it is contiguous
            return ravel_out(as_meta(out))
        return out
    if nd0 == 1 and nd1 == 1:  # result[0, 0]: a NumPy scalar, the (1, 1) product freed
        return ArrayMeta((), dt, (), scalar=True)
    if nd0 == 1 or nd1 == 1:
        return ArrayMeta((res.size,), dt, (dt.itemsize,), base_shape=res.shape)
    return ArrayMeta(res.shape, dt, res.strides)


# --- the array-API aliases that are not NumPy's own functions -----------------------


@register(_L.matmul, tags=("copy",), flops=flops.contraction)
def la_matmul(x1: Any, x2: Any, /) -> Any:
    from .umath import ufunc_call
    return ufunc_call(np.matmul, x1, x2)


@register(_L.outer, tags=("copy",), flops=flops.elementwise)
def la_outer(x1: Any, x2: Any, /) -> Any:
    """1-d operands only, then np.outer."""
    from .products import outer
    a, b = as_meta(x1), as_meta(x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={a.ndim!r} and x2.ndim={b.ndim!r}.")
    return outer(a, b)


@register(_L.trace, tags=("reduction",), flops=flops.linalg_trace)
def la_trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    from .products import trace
    return trace(x, offset, -2, -1, dtype)


@register(_L.tensordot, tags=("copy",), flops=flops.tensordot)
def la_tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    from .products import tensordot
    return tensordot(x1, x2, axes)


@register(_L.matrix_transpose, tags=("view",))
def la_matrix_transpose(x: Any, /) -> Any:
    from .views import matrix_transpose
    return matrix_transpose(x)


@register(_L.vecdot, tags=("copy",), flops=flops.contraction)
def la_vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    from .umath import ufunc_call
    if axis != -1:  # numpy/linalg/_linalg.py: _core_vecdot(x1, x2, axis=axis)
        return ufunc_call(np.vecdot, x1, x2, axis=axis)
    return ufunc_call(np.vecdot, x1, x2)


@register(_L.diagonal, tags=("view",))
def la_diagonal(x: Any, /, *, offset: int = 0) -> Any:
    from .views import diagonal
    return diagonal(x, offset, -2, -1)


# --- norms, cond, pinv, matrix_rank, cross: compositions replayed on metadata ---------------


def _u(ufunc: np.ufunc, *args: Any) -> ArrayMeta:
    """A ufunc call on metadata, as the next step's input."""
    from .umath import ufunc_call
    return meta(ufunc_call(ufunc, *args))


def _red(ufunc: np.ufunc, m: Any, axes: Any, keepdims: bool = False, initial: Any = None,
         dtype: Any = None) -> ArrayMeta:
    """ufunc.reduce over normalized ``axes`` (an int or a tuple); ``initial`` None: none given."""
    from ...layout import normalize_axes
    from .reductions import do_reduce
    ax = normalize_axes(axes if isinstance(axes, tuple) else (axes,), m.ndim)
    return do_reduce(ufunc, m, ax, dtype, None, keepdims,
                     np._NoValue if initial is None else initial)


def _view(o: ArrayMeta) -> ArrayMeta:
    """A view's geometry as the next step's input."""
    return ArrayMeta(o.shape, o.dtype, o.strides)


def _real_dt(dt: np.dtype) -> np.dtype:
    """The dtype of ``.real`` (byte order kept)."""
    return np.dtype(dt.char.lower()).newbyteorder(dt.byteorder) if dt.kind == "c" else dt


def _real(m: Any) -> Any:
    """``.real``: a view with the complex strides, or the array itself."""
    if m.dtype.kind != "c":
        return m
    return ArrayMeta(m.shape, _real_dt(m.dtype), m.strides)


def _reshaped(m: Any, shape: tuple) -> ArrayMeta:
    """The final ``ret.reshape(shape)`` of a fresh intermediate: a view of it."""
    from .views import reshape_out
    r = reshape_out(m, tuple(shape))
    return ArrayMeta(r.shape, r.dtype, r.strides, base_shape=tuple(m.shape))


def _returned(m: Any) -> ArrayMeta:
    """A composite's final value: a 0-d one is a NumPy scalar (no buffer once returned)."""
    if type(m) is ArrayMeta and m.ndim == 0 and m.base_shape is None:  # not _reshaped's view
        return ArrayMeta((), m.dtype, (), scalar=True)
    return out(m)


def _check_ord(ord: Any, name: Any) -> None:
    if ord is None or isinstance(ord, str):
        return
    if not isinstance(ord, (int, float, np.integer, np.floating)) or isinstance(ord, np.bool_):
        raise UnsupportedOperationError(name, f"ord={ord!r}")


def _as_float(x: Any, name: Any) -> Any:
    """norm's ``x.astype(float)`` for non-inexact input (an order-K copy, alive to the end)."""
    m = as_meta(x)
    if m.dtype.kind not in "biufc":
        raise UnsupportedOperationError(name, f"{m.dtype} operands")
    if m.dtype.kind in "fc":
        return m
    return astype(m, _F8, dies=False)


def _step(fn: Any, *args: Any, dead: tuple = (), **kw: Any) -> Any:
    """``fn(*args)`` as one statement of a composite replayed in ``steps()``: its result is
    allocated with the call's own buffers beside it, then the temporaries in ``dead``
    (consumed by it) are freed."""
    st = steps()
    with captured() as c:
        r = fn(*args, **kw)
    st.alloc(array_bytes(r.shape, r.dtype))
    st.hold(c.transient)
    if r.ndim == 0:  # returned as a NumPy scalar: the 0-d array dies at once
        st.free(array_bytes((), r.dtype))
    st.free(*(array_bytes(d.shape, d.dtype) for d in dead if d.ndim))
    return r


def _norm_meta(x: Any, ord: Any, axis: Any, keepdims: bool, name: Any) -> Any:
    """np.linalg.norm's chain on metadata: a fresh intermediate, or the final keepdims view.

    Each step is recorded in ``steps()`` with the lifetimes of _linalg.py's ``norm``: the
    float copy of x lives to the end, so do the named intermediates (``s``, ``absx``);
    expression temporaries die once consumed."""
    _check_ord(ord, name)
    x = _as_float(x, name)
    nd = x.ndim
    if axis is None and (ord is None or (isinstance(ord, str) and ord in ("f", "fro") and nd == 2)
                         or (not isinstance(ord, str) and ord == 2 and nd == 1)):
        dense = dense_in_stride_order(tuple(x.shape), tuple(x.strides), x.dtype.itemsize)
        if not dense:
            steps().alloc(array_bytes(x.shape, x.dtype))  # x.ravel(order='K') copies
        sq = ArrayMeta((), _real_dt(x.dtype), ())
        # x.dot(x): a 0-d array, returned as a scalar; an unaligned x (its ravel a view)
        # makes cblas_matrixproduct copy both operands (cblasfuncs.c _bad_strides)
        both = 2 * array_bytes(x.shape, x.dtype) if (
            dense and x.dtype.kind == "f" and not is_aligned(x)) else 0
        steps().hold(both + array_bytes((), sq.dtype))
        ret = _step(_u, np.sqrt, sq)
        return _reshaped(ret, (1,) * nd) if keepdims else ret
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = int(axis)
        except Exception as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
        axis = (axis,)
    s = isinstance(ord, str)

    def absolute() -> ArrayMeta:
        return _step(_u, np.absolute, x)

    def squares() -> ArrayMeta:
        """``(x.conj() * x).real``: conj is a temporary for complex x, x itself otherwise."""
        if x.dtype.kind != "c":
            r = _step(_u, np.multiply, x, x)
            if x.ndim <= 1 and x.size <= BUFSIZE and not is_aligned(x):
                # check_for_trivial_loop copies both short unaligned operands
                steps().hold(2 * array_bytes(x.shape, x.dtype))
            return _real(r)
        c = _step(_u, np.conjugate, x)
        with quiet():  # the product's layout; its bytes as NumPy's ``*`` runs it (elision)
            p = _u(np.multiply, c, x)
        binary(steps(), np.multiply, Val(c.shape, c.dtype, True), Val(x.shape, x.dtype))
        return _real(p)

    if len(axis) == 1:
        if not s and ord in (np.inf, -np.inf):
            a = absolute()
            return _step(_red, np.maximum if ord > 0 else np.minimum, a, axis, keepdims,
                         0 if ord > 0 else None, dead=(a,))
        if not s and ord == 0:
            ne = _step(_u, np.not_equal, x, 0)
            f = astype(ne, _real(x).dtype)  # the mask dies once converted
            return _step(_red, np.add, f, axis, keepdims, dead=(f,))
        if not s and ord == 1:
            a = absolute()
            return _step(_red, np.add, a, axis, keepdims, dead=(a,))
        if ord is None or (not s and ord == 2):
            sq = squares()  # ``s``, alive to the end
            r = _step(_red, np.add, sq, axis, keepdims)
            return _step(_u, np.sqrt, r, dead=(r,))
        if s:
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        absx = absolute()  # alive to the end
        _u(np.power, absx, ord)  # absx **= ord: the in-place cast must be allowed
        steps().hold(scalar_bytes(ord, absx.dtype)[1])
        ret = _step(_red, np.add, absx, axis, keepdims)
        _u(np.power, ret, np.empty((), ret.dtype))
        # reciprocal(ord, dtype=ret.dtype): ord as a 0-d array and the 0-d result
        steps().hold(np.asarray(ord).nbytes + ret.dtype.itemsize)
        return ret
    if len(axis) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    from ...layout import normalize_axis
    row, col = normalize_axis(axis[0], nd), normalize_axis(axis[1], nd)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if not s and ord in (2, -2) or ord == "nuc":
        from .views import moveaxis
        y = _view(moveaxis(x, (row, col), (-2, -1)))
        sv = meta(svd(y, compute_uv=False))
        if ord == -2:
            ret = _step(_red, np.minimum, sv, -1, dead=(sv,))
        else:
            ret = _step(_red, np.maximum if ord == 2 else np.add, sv, -1, False, 0, dead=(sv,))
    elif not s and ord in (1, -1, np.inf, -np.inf):
        first, second = (row, col - 1 if col > row else col) if ord in (1, -1) else \
            (col, row - 1 if row > col else row)
        a = absolute()
        r = _step(_red, np.add, a, first, dead=(a,))
        ret = _step(_red, np.maximum if ord > 0 else np.minimum, r, second, False,
                    0 if ord > 0 else None, dead=(r,))
    elif ord in (None, "fro", "f"):
        sq = squares()
        r = _step(_red, np.add, sq, (row, col), dead=(sq,))
        ret = _step(_u, np.sqrt, r, dead=(r,))
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shp = list(x.shape)
        shp[axis[0]] = 1
        shp[axis[1]] = 1
        return _reshaped(ret, tuple(shp))
    return ret


@register(_L.norm, tags=("reduction",), flops=flops.norm)
@stepped
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """abs/sum/sqrt/max reductions, svd-based orders, then keepdims' reshape (a view)."""
    return _returned(_norm_meta(x, ord, axis, keepdims, _L.norm))


@register(_L.matrix_norm, tags=("reduction",), flops=flops.matrix_norm)
@stepped
def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    """norm over the last two axes."""
    return _returned(_norm_meta(x, ord, (-2, -1), keepdims, _L.matrix_norm))


@register(_L.vector_norm, tags=("reduction",), flops=flops.per_input(2))
@stepped
def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    """norm along axis 0 of a raveled / transposed-and-reshaped x, then keepdims' reshape."""
    from ...layout import normalize_axes
    from .views import reshape_out
    m = as_meta(x)
    if m.dtype.kind not in "biufc":
        raise UnsupportedOperationError(_L.vector_norm, f"{m.dtype} operands")
    shape = list(m.shape)
    if axis is None:  # x.ravel(): a copy unless C-contiguous
        r = reshape_out(m, (m.size,))
        if not m.flags.c_contiguous:
            steps().alloc(array_bytes(r.shape, r.dtype))
            m = _view(r)
        else:  # a view starting where x starts: as aligned as x
            m = ArrayMeta(r.shape, r.dtype, r.strides, view_of=m if not is_aligned(m) else None)
        ax = 0
    elif isinstance(axis, tuple):
        nax = normalize_axes(axis, m.ndim)
        rest = tuple(i for i in range(m.ndim) if i not in nax)
        perm = tuple(normalize_axes(axis, m.ndim)) + rest
        if len(set(perm)) != m.ndim:
            raise UnsupportedOperationError(_L.vector_norm, "repeated axes")
        t = ArrayMeta(tuple(m.shape[i] for i in perm), m.dtype, tuple(m.strides[i] for i in perm))
        new = (math.prod(m.shape[i] for i in axis),) + tuple(m.shape[i] for i in rest)
        r = reshape_out(t, new)
        if reshape_strides(t.shape, t.strides, t.dtype.itemsize, new)[1] is None:
            steps().alloc(array_bytes(r.shape, r.dtype))  # x.reshape(...)'s copy, alive to the end
        m = _view(r)
        ax = 0
    else:
        ax = axis
    res = _norm_meta(m, ord, ax, False, _L.vector_norm)
    if keepdims:
        for i in normalize_axes(tuple(range(len(shape))) if axis is None else axis, len(shape)):
            shape[i] = 1
        return _reshaped(res, tuple(shape))
    return _returned(res)


def _cond_2(m: Any) -> Any:
    """_linalg.py cond for p None, 2, -2: ``s = svd(x, compute_uv=False)`` alive to the end,
    ``r = s[..., 0] / s[..., -1]``, ``r = asarray(r)`` (a 0-d array of a scalar),
    ``nan_mask = isnan(r)`` and ``nan_mask.any()``; ``r[()]`` returns a 0-d one as a scalar."""
    from .umath import ufunc_steps
    st = steps()
    sv, sb = call_step(st, svd, m, compute_uv=False)
    sv = meta(sv)
    col = ArrayMeta(sv.shape[:-1], sv.dtype, sv.strides[:-1])  # s[..., 0], s[..., -1]
    r, rb = ufunc_steps(st, np.divide, col, col)
    if not is_meta(r):  # a scalar: asarray makes it a 0-d array again, r[()] a scalar
        arr = st.new(sv.dtype.itemsize)
        ufunc_steps(st, np.isnan, ArrayMeta((), sv.dtype, ()))
        st.temp(1)  # np.bool_.any()'s 0-d result
        st.free(arr, sb)
        return ArrayMeta((), sv.dtype, (), scalar=True)
    mask = ufunc_steps(st, np.isnan, r)[1]
    st.temp(1)  # nan_mask.any()'s 0-d result
    st.free(mask, sb, rb)
    return out(r)


def _empty_2d(m: Any) -> bool:
    return m.size == 0 and math.prod(m.shape[-2:]) == 0


@register(_L.cond, tags=("copy",), flops=flops.cond)
@stepped
def cond(x: Any, p: Any = None) -> Any:
    """svd values divided (2, -2) or the product of the norms of x and inv(x)."""
    m = _arr(x, _L.cond)
    if _empty_2d(m):
        raise LinAlgError("cond is not defined on empty arrays")
    _check_ord(p, _L.cond)
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        return _cond_2(m)
    stacked_square(m)
    t, rt = common_type(_L.cond, m)
    n = m.shape[-1]
    (inx,) = gufunc_outs([(m, 2)], [((n, n), t)], t)  # _umath_linalg.inv, signature t->t
    lapack([m], "gesv", t, n, nrhs=n)
    nx = call_step(steps(), norm, m, p, (-2, -1))[0]  # each norm's locals die with it
    ninv = call_step(steps(), norm, inx, p, (-2, -1))[0]
    r = _u(np.multiply, meta(nx), meta(ninv))
    return _returned(astype(r, real_of(rt)))


_NoVal = getattr(np, "_NoValue", None)


@register(_L.pinv, tags=("copy",), flops=flops.pinv)
@stepped
def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = _NoVal) -> Any:
    """matmul(vt^T, s[..., None] * u^T) of the reduced svd; empty stacks: empty((..., n, m)).

    Recorded in ``steps()`` (_linalg.py ``pinv``): rcond as an array, the conjugate of a
    complex input, u, s, vt, the cutoff and ``large`` live to the end; ``divide(1, s, ...)``
    and ``s[~large] = 0`` make small temporaries; the scaled u^T lives until the product."""
    m = _arr(a, _L.pinv)
    if rcond is None:
        if rtol is _NoVal:
            rcond = 1e-15
        elif rtol is None:
            max(m.shape[-2:])  # ValueError for 0-d input, as NumPy's
            rcond = max(m.shape[-2:]) * np.finfo(m.dtype).eps  # raises as NumPy does
        else:
            rcond = rtol
    elif rtol is not _NoVal:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if np.ndim(rcond) != 0:
        raise UnsupportedOperationError(_L.pinv, "an array rcond / rtol")
    if is_fake(rcond):
        raise UnsupportedOperationError(_L.pinv, "a fake rcond / rtol")
    rc = np.asarray(rcond)
    st = steps()
    st.alloc(asarray_bytes(rcond))
    if m.size == 0:  # _is_empty_2d: prod(a.shape[-2:]) makes an intp array and a 0-d result
        st.hold(8 * len(m.shape[-2:]) + 8)
    if _empty_2d(m):
        if m.ndim < 2:
            raise UnsupportedOperationError(_L.pinv, "an empty array of fewer than 2 dimensions")
        sh = m.shape[:-2] + (m.shape[-1], m.shape[-2])
        st.alloc(array_bytes(sh, m.dtype))
        return ArrayMeta(sh, m.dtype, c_strides(sh, m.dtype.itemsize))
    if hermitian:
        raise UnsupportedOperationError(_L.pinv, "hermitian=True")
    c = _step(_u, np.conjugate, m) if m.dtype.kind == "c" else m
    u, s, vt = (meta(r) for r in svd(c, full_matrices=False))
    top = _step(_red, np.maximum, s, -1, True)
    cut = _step(_u, np.multiply, ArrayMeta((1,), rc.dtype, (rc.dtype.itemsize,)), top, dead=(top,))
    large = _step(_u, np.greater, s, cut)
    st.hold(scalar_bytes(1, s.dtype)[1])  # divide(1, s, where=large, out=s)
    st.hold(array_bytes(large.shape, large.dtype) + s.dtype.itemsize)  # s[~large] = 0
    snew = ArrayMeta(s.shape + (1,), s.dtype, s.strides + (0,))
    prod_ = _step(_u, np.multiply, snew, swap_last(u))
    return out(_step(_u, np.matmul, swap_last(vt), prod_, dead=(prod_,)))


@register(_L.matrix_rank, tags=("reduction",), flops=flops.matrix_rank)
@stepped
def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> Any:
    """count_nonzero(svdvals > tol, axis=-1): intp, one count per matrix, replayed statement
    by statement (_linalg.py matrix_rank): ``S = svd(A, compute_uv=False)``; ``tol`` from
    ``S.max(axis=-1, keepdims=True, initial=0) * rtol`` (rtol a NumPy scalar, or
    ``asarray(rtol)[..., newaxis]``) or ``asarray(tol)[..., newaxis]``; ``S > tol`` counted
    along the last axis (a 0-d count returned as a NumPy scalar)."""
    from .umath import ufunc_steps
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    m = _arr(A, _L.matrix_rank)
    if m.ndim < 2:
        if m.size == 0:
            return 0
        raise DataDependentError("matrix_rank of a vector is 0 or 1 by its values")
    for v in (tol, rtol):
        if v is not None and np.ndim(v) != 0:
            raise UnsupportedOperationError(_L.matrix_rank, "an array tol / rtol")
    st = steps()
    s, sb = call_step(st, svd, m, compute_uv=False, hermitian=hermitian)
    s = _view(s)  # hermitian: a reversed view of its sorted copy
    held = []
    if tol is None:
        if rtol is None:
            r: Any = np.finfo(s.dtype).eps  # max(shape) * eps: scalar math, no array
        else:
            ra = np.asarray(rtol)
            held.append(st.new(array_bytes(ra.shape, ra.dtype)))
            r = ArrayMeta((1,), ra.dtype, (ra.dtype.itemsize,))
        mx, mb = call_step(st, _red, np.maximum, s, -1, True, 0)
        t, tb = ufunc_steps(st, np.multiply, mx, r)
        st.free(mb)
        held.append(tb)
    else:
        ta = np.asarray(tol)
        held.append(st.new(array_bytes(ta.shape, ta.dtype)))
        t = ArrayMeta((1,), ta.dtype, (ta.dtype.itemsize,))
    big, bb = ufunc_steps(st, np.greater, s, meta(t))
    res = _red(np.add, meta(big), -1, dtype=np.intp)
    if res.scalar:
        st.temp(res.dtype.itemsize)  # the 0-d count PyArray_Return makes a scalar
    else:
        st.alloc(array_bytes(res.shape, res.dtype))
    st.free(bb, sb, *held)
    return out(res)


@register(_L.cross, tags=("copy",), flops=flops.cross)
def la_cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """Both operands must hold 3-vectors along ``axis``, then np.cross."""
    from .numeric import cross
    a, b = as_meta(x1), as_meta(x2)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, "
                         f"but they are {a.shape[axis]} and {b.shape[axis]} dimensional instead.")
    return cross(x1, x2, axis=axis)
