"""CuPy's rules for cupy.linalg and cupy.cross on CUDA fakes (kernels/cupy/linalg.py),
checked against facts read from CuPy 14's source (cupy/linalg/*.py, cupy/cublas.py,
cupyx/_cusolver.pyx); no GPU needed."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import cuda  # noqa: E402
from faketensor import DataDependentError, UnsupportedOperationError  # noqa: E402

LinAlgError = np.linalg.LinAlgError
F8, F4, F2, C8, C16, I8 = np.float64, np.float32, np.float16, np.complex64, np.complex128, np.int64
la = cupy.linalg


def m(r):
    """(shape, dtype, strides, base is None)."""
    return r.shape, np.dtype(r.dtype), r.strides, r.base is None


def fresh(shape, dtype=F8, order="C"):
    return m(ft.empty(shape, dtype, order=order))


def strided(shape, strides, dtype=F8):
    return ft.empty_strided(shape, strides, dtype, device="cuda:0")


SQUARE = {  # (3, 3) float64 operands with every layout
    "C": lambda: cuda((3, 3)), "T": lambda: cuda((3, 3)).T, "F": lambda: cuda((3, 3), order="F"),
    "neg": lambda: cuda((3, 3))[::-1], "strided": lambda: cuda((6, 6))[::2, ::2],
    "bcast": lambda: strided((3, 3), (0, 8)),
}


# --- inv / solve / pinv / tensor* ---------------------------------------------------------

@pytest.mark.parametrize("kind", SQUARE)
def test_inv_order_follows_f_contiguity(kind):
    # _solve.py inv: order = 'F' if a._f_contiguous else 'C'; b = eye(order) is returned
    a = SQUARE[kind]()
    order = "F" if a.flags.f_contiguous else "C"
    assert m(la.inv(a)) == fresh((3, 3), F8, order)
    assert m(np.linalg.inv(a)) == fresh((3, 3), F8, order)


@pytest.mark.parametrize("dtype,out", [(np.int32, F8), (bool, F8), (F4, F4), (C8, C8), (C16, C16)])
def test_inv_dtypes(dtype, out):
    assert m(la.inv(cuda((3, 3), dtype))) == fresh((3, 3), out)


def test_inv_batched_is_a_reshape_view_and_empty_is_fresh():
    # _batched_inv: c = empty_like(C copy (bs, n, n)); c.reshape(a_shape)
    assert m(la.inv(cuda((2, 3, 3)))) == ((2, 3, 3), np.dtype(F8), (72, 24, 8), False)
    assert m(la.inv(cuda((2, 2, 3, 3), order="F"))) == ((2, 2, 3, 3), np.dtype(F8),
                                                         (144, 72, 24, 8), False)
    assert m(la.inv(cuda((0, 3, 3)))) == fresh((0, 3, 3))
    assert m(la.inv(cuda((0, 0)))) == fresh((0, 0))


@pytest.mark.parametrize("fn", [la.inv, la.cholesky, la.det, la.slogdet, la.eigh, la.eig,
                                la.eigvals, la.eigvalsh, lambda a: la.matrix_power(a, 2)])
@pytest.mark.parametrize("shape,exc", [((3,), LinAlgError), ((), LinAlgError),
                                       ((2, 3), LinAlgError), ((4, 2, 3), LinAlgError)])
def test_stacked_square_checks(fn, shape, exc):
    with pytest.raises(exc):
        fn(cuda(shape))


@pytest.mark.parametrize("fn", [la.inv, la.cholesky, la.det, la.slogdet, la.eig, la.pinv,
                                la.svd, la.qr, la.solve])
def test_float16_is_rejected(fn):
    a = cuda((3, 3), F2)
    with pytest.raises(TypeError):
        fn(a, cuda((3,), F2)) if fn is la.solve else fn(a)


def test_non_cupy_input_is_linalg_error():
    with pytest.raises(LinAlgError):
        la.inv(ft.empty((3, 3)))  # a cpu fake: _assert_cupy_array


@pytest.mark.parametrize("a,b,expected", [
    # 2-d: b.astype(dtype, copy=True, order='F')
    (((3, 3),), ((3, 2),), ((3, 2), np.dtype(F8), (8, 24), True)),
    (((3, 3),), ((3,),), ((3,), np.dtype(F8), (8,), True)),
    # batched_gesv: fresh C copy of b^T, transposed back and reshaped
    (((2, 3, 3),), ((2, 3, 2),), ((2, 3, 2), np.dtype(F8), (48, 8, 24), False)),
    (((2, 3, 3),), ((3,),), ((2, 3), np.dtype(F8), (24, 8), False)),
    (((2, 2, 3, 3),), ((2, 2, 3, 4),), ((2, 2, 3, 4), np.dtype(F8), (192, 96, 8, 24), False)),
    (((2, 3, 3),), ((2, 3, 1),), ((2, 3, 1), np.dtype(F8), (24, 8, 24), False)),
    # size 0: cupy.empty(b.shape, out_dtype)
    (((0, 3, 3),), ((0, 3, 2),), ((0, 3, 2), np.dtype(F8), (0, 0, 0), True)),
])
def test_solve_layouts(a, b, expected):
    assert m(la.solve(cuda(*a), cuda(*b))) == expected


def test_solve_large_stacked_systems_loop():
    # n > get_batched_gesv_limit() (256): x = cupy.empty_like(b, dtype=out_dtype)
    r = la.solve(cuda((2, 300, 300)), cuda((2, 300, 2), order="F"))
    assert m(r) == fresh((2, 300, 2), F8, "F")
    r = la.solve(cuda((2, 300, 300), np.int32), cuda((2, 300, 2)))
    assert m(r) == fresh((2, 300, 2), F8)


def test_solve_dtype_and_errors():
    assert la.solve(cuda((3, 3), F4), cuda((3,), C8)).dtype == C8
    assert la.solve(cuda((3, 3), np.int8), cuda((3,), np.int8)).dtype == F8
    with pytest.raises(ValueError):
        la.solve(cuda((3, 3)), cuda(()))
    with pytest.raises(ValueError):
        la.solve(cuda((3, 3)), cuda((4,)))
    with pytest.raises(ValueError):
        la.solve(cuda((2, 3, 3)), cuda((3, 3, 1)))
    with pytest.raises(LinAlgError):
        la.solve(cuda((3, 4)), cuda((3,)))


@pytest.mark.parametrize("shape,out", [((3, 5), (5, 3)), ((2, 4, 3), (2, 3, 4)),
                                       ((5, 3), (3, 5))])
def test_pinv_is_a_fresh_matmul(shape, out):
    assert m(la.pinv(cuda(shape))) == fresh(out)
    assert m(la.pinv(cuda(shape, C8))) == fresh(out, C8)
    assert m(la.pinv(cuda(shape, np.int16))) == fresh(out, F8)


def test_pinv_empty_keeps_dtype_when_a_side_is_zero():
    # _solve.py pinv: "out_dtype = a.dtype  # NumPy bug?"
    assert m(la.pinv(cuda((0, 3), np.int32))) == fresh((3, 0), np.int32)
    assert m(la.pinv(cuda((0, 2, 3), np.int32))) == fresh((0, 3, 2), F8)


def test_tensorinv_and_tensorsolve():
    r = la.tensorinv(cuda((2, 3, 6)))
    assert m(r) == ((6, 2, 3), np.dtype(F8), (48, 24, 8), False)
    r = la.tensorinv(cuda((6, 2, 3), order="F"), ind=1)  # reshape copies: C inv
    assert r.shape == (2, 3, 6) and r.base is not None
    with pytest.raises(ValueError):
        la.tensorinv(cuda((2, 3)), ind=0)
    r = la.tensorsolve(cuda((2, 3, 6)), cuda((2, 3)))
    assert m(r) == ((6,), np.dtype(F8), (8,), False)  # reshape to the same shape: view()
    r = la.tensorsolve(cuda((6, 2, 3)), cuda((6,)))
    assert m(r) == ((2, 3), np.dtype(F8), (24, 8), False)


def test_lstsq():
    x, res, rank, s = la.lstsq(cuda((3, 5)), cuda((3, 2)))
    assert m(x) == fresh((5, 2)) and m(res) == fresh((0,)) and m(rank) == fresh((), np.int32)
    assert m(s) == fresh((3,))
    x, res, rank, s = la.lstsq(cuda((3, 3), F4), cuda((3,), F4))
    assert m(x) == fresh((3,), F4) and res.dtype == F4
    with pytest.raises(DataDependentError):  # m > n: rank != n decides
        la.lstsq(cuda((5, 3)), cuda((5,)))
    with pytest.raises(LinAlgError):
        la.lstsq(cuda((2, 3, 3)), cuda((3,)))
    with pytest.raises(LinAlgError):
        la.lstsq(cuda((3, 3)), cuda((4,)))
    with pytest.raises(LinAlgError):
        la.lstsq(cuda((3, 3)), cuda((3, 1, 1)))


# --- decompositions -----------------------------------------------------------------------

@pytest.mark.parametrize("kind", SQUARE)
def test_cholesky_fresh_c(kind):
    assert m(la.cholesky(SQUARE[kind]())) == fresh((3, 3))
    assert m(la.cholesky(cuda((2, 3, 3), C8))) == fresh((2, 3, 3), C8)
    assert m(la.cholesky(cuda((0, 3, 3)))) == fresh((0, 3, 3))


@pytest.mark.parametrize("shape,mode,expected", [
    # 2-d: x = a.T C copy (n, m); q = q[:mc].T, r = x[:, :mc].T
    ((5, 3), "reduced", [((5, 3), (8, 40), False), ((3, 3), (8, 40), False)]),
    ((3, 5), "reduced", [((3, 3), (8, 24), False), ((3, 5), (8, 24), False)]),
    ((5, 3), "complete", [((5, 5), (8, 40), False), ((5, 3), (8, 40), False)]),
    ((5, 3), "r", [((3, 3), (8, 40), False)]),
    ((5, 3), "raw", [((3, 5), (40, 8), True), ((3,), (8,), True)]),
    ((0, 3), "complete", [((0, 0), (0, 0), True), ((0, 3), (0, 0), True)]),
    # batched: _geqrf_orgqr_batched then reshapes (views)
    ((2, 5, 3), "reduced", [((2, 5, 3), (120, 8, 40), False), ((2, 3, 3), (120, 8, 40), False)]),
    ((2, 5, 3), "complete", [((2, 5, 5), (200, 8, 40), False), ((2, 5, 3), (120, 8, 40), False)]),
    ((2, 5, 3), "r", [((2, 3, 3), (120, 8, 40), False)]),
    ((2, 5, 3), "raw", [((2, 3, 5), (120, 40, 8), False), ((2, 3), (24, 8), False)]),
    ((0, 5, 3), "reduced", [((0, 5, 3), (0, 0, 0), True), ((0, 3, 3), (0, 0, 0), True)]),
])
def test_qr_layouts(shape, mode, expected):
    r = la.qr(cuda(shape), mode)
    r = r if isinstance(r, tuple) else (r,)
    assert [(x.shape, x.strides, x.base is None) for x in r] == expected


def test_qr_errors():
    with pytest.raises(ValueError):
        la.qr(cuda((3, 3)), "full")
    with pytest.raises(ValueError):
        la.qr(cuda((3, 3)), "nope")
    with pytest.raises(ValueError):
        la.qr(cuda((3,)))


@pytest.mark.parametrize("shape,full,expected", [
    # 2-d gesvd: x C copy of a (or a.T); u / vt are x, a slice of it, or fresh; transposed
    ((3, 5), True, [((3, 3), (40, 8), False), ((3,), (8,), True), ((5, 5), (40, 8), True)]),
    ((5, 3), True, [((5, 5), (8, 40), False), ((3,), (8,), True), ((3, 3), (8, 40), False)]),
    ((3, 5), False, [((3, 3), (24, 8), True), ((3,), (8,), True), ((3, 5), (40, 8), True)]),
    ((5, 3), False, [((5, 3), (8, 40), False), ((3,), (8,), True), ((3, 3), (8, 24), False)]),
    ((0, 3), True, [((0, 0), (0, 0), True), ((0,), (0,), True), ((3, 3), (24, 8), True)]),
    # batched gesvdj (both sides <= 32): swapaxes of fresh (bs, m, m) buffers, reshaped
    ((2, 5, 3), True, [((2, 5, 5), (200, 8, 40), False), ((2, 3), (24, 8), False),
                       ((2, 3, 3), (72, 24, 8), False)]),
    ((2, 5, 3), False, [((2, 5, 3), (200, 8, 40), False), ((2, 3), (24, 8), False),
                        ((2, 3, 3), (72, 24, 8), False)]),
    # batched gesvd loop (a side > 32)
    ((2, 50, 3), True, [((2, 50, 50), (20000, 8, 400), False), ((2, 3), (24, 8), False),
                        ((2, 3, 3), (1200, 8, 400), False)]),
    ((2, 3, 50), False, [((2, 3, 3), (72, 24, 8), False), ((2, 3), (24, 8), False),
                         ((2, 3, 50), (1200, 400, 8), False)]),
])
def test_svd_layouts(shape, full, expected):
    r = la.svd(cuda(shape), full_matrices=full)
    assert [(x.shape, x.strides, x.base is None) for x in r] == expected


def test_svd_dtypes_and_compute_uv():
    u, s, vt = la.svd(cuda((3, 4), C8))
    assert (u.dtype, s.dtype, vt.dtype) == (C8, F4, C8)
    _, _, vt = la.svd(cuda((2, 40, 3), C16))  # gesvd loop: conj of V^H is fresh C
    assert m(vt) == fresh((2, 3, 3), C16)
    assert m(la.svd(cuda((3, 4), np.int8), compute_uv=False)) == fresh((3,), F8)
    assert m(la.svd(cuda((2, 3, 4)), compute_uv=False)) == ((2, 3), np.dtype(F8), (24, 8), False)
    with pytest.raises(ValueError):
        la.svd(cuda((3,)))


def test_eigh_and_eigvalsh():
    w, v = la.eigh(cuda((3, 3)))  # _syevd: w fresh, v an F copy
    assert m(w) == fresh((3,)) and m(v) == fresh((3, 3), F8, "F")
    w, v = la.eigh(cuda((3, 3), F2))  # reject_float16=False: float16 results
    assert m(w) == fresh((3,), F2) and m(v) == fresh((3, 3), F2, "F")
    w, v = la.eigh(cuda((2, 3, 3), C8))  # syevj batched: swapaxes/reshape views
    assert m(w) == ((2, 3), np.dtype(F4), (12, 4), False)
    assert m(v) == ((2, 3, 3), np.dtype(C8), (72, 8, 24), False)
    assert m(la.eigvalsh(cuda((3, 3)))) == fresh((3,))
    assert m(la.eigvalsh(cuda((0, 3, 3)))) == fresh((0, 3))
    with pytest.raises(ValueError):
        la.eigh(cuda((3, 3)), UPLO="X")
    with pytest.raises(TypeError):  # the empty path uses reject_float16=True
        la.eigh(cuda((0, 3, 3), F2))


def test_eig_and_eigvals():
    w, v = la.eig(cuda((3, 3)))  # real input: v is _assemble_complex_evs(...).reshape
    assert m(w) == fresh((3,), C16) and m(v) == ((3, 3), np.dtype(C16), (48, 16), False)
    w, v = la.eig(cuda((3, 3), C8))
    assert m(w) == fresh((3,), C8) and m(v) == fresh((3, 3), C8)
    w, v = la.eig(cuda((2, 3, 3), F4))
    assert m(w) == fresh((2, 3), C8) and m(v) == fresh((2, 3, 3), C8)
    w, v = la.eig(cuda((0, 3, 3)))  # empty: the real result type
    assert m(w) == fresh((0, 3)) and m(v) == fresh((0, 3, 3))
    assert m(la.eigvals(cuda((3, 3), np.int32))) == fresh((3,), C16)


# --- norms, det, rank -------------------------------------------------------------------

@pytest.mark.parametrize("args,kw,expected", [
    (((3, 4),), {}, ((), (), True)),
    (((3, 4),), {"keepdims": True}, ((1, 1), (8, 8), False)),
    (((3, 4),), {"axis": 1}, ((3,), (8,), True)),
    (((3, 4),), {"axis": 0, "keepdims": True}, ((1, 4), (32, 8), True)),
    (((3, 4),), {"ord": 1}, ((), (), True)),
    (((3, 4),), {"ord": np.inf, "keepdims": True}, ((1, 1), (8, 8), False)),
    (((2, 3, 4),), {"axis": (0, 2)}, ((3,), (8,), True)),
    (((2, 3, 4),), {"axis": (2, 1), "ord": 2}, ((2,), (8,), True)),
    (((2, 3, 4),), {"axis": (0, 2), "ord": "nuc", "keepdims": True}, ((1, 3, 1), (24, 8, 8), False)),
    (((4,),), {"ord": 3}, ((), (), True)),
    (((4,),), {"ord": 0, "keepdims": True}, ((1,), (8,), True)),
])
def test_norm_layouts(args, kw, expected):
    r = la.norm(cuda(*args), **kw)
    assert (r.shape, r.strides, r.base is None) == expected and r.dtype == F8


def test_norm_dtypes_and_errors():
    assert la.norm(cuda((3,), C8)).dtype == F4
    assert la.norm(cuda((3,), np.int8)).dtype == F8
    assert la.norm(cuda((3, 3), F2), axis=1).dtype == F2
    with pytest.raises(ValueError):
        la.norm(cuda((2, 3, 4)), ord=1)
    with pytest.raises(ValueError):
        la.norm(cuda((3, 4)), ord=3, axis=(0, 1))
    with pytest.raises(ValueError):
        la.norm(cuda((3, 4)), axis=(0, 0))
    with pytest.raises(ValueError):
        la.norm(cuda((3, 4)), ord="fro", axis=0)
    with pytest.raises(TypeError):
        la.norm(cuda((3, 4)), axis="a")


def test_det_slogdet_cond_matrix_rank():
    sign, logdet = la.slogdet(cuda((2, 3, 3), C8))  # where(...).reshape(shape): views
    assert m(sign) == ((2,), np.dtype(C8), (8,), False)
    assert m(logdet) == ((2,), np.dtype(F4), (4,), False)
    sign, logdet = la.slogdet(cuda((2, 0, 0)))
    assert m(sign) == fresh((2,)) and m(logdet) == fresh((2,))
    assert m(la.det(cuda((2, 3, 3), C8))) == fresh((2,), C8)
    assert m(la.det(cuda((3, 3), np.int32))) == fresh((), F8)
    assert m(la.cond(cuda((2, 3, 3)))) == fresh((2,))
    assert m(la.cond(cuda((3, 3), C8), "fro")) == fresh((), C8)
    with pytest.raises(LinAlgError):
        la.cond(cuda((0, 3)))
    assert m(la.matrix_rank(cuda((2, 3, 4)))) == fresh((2,), I8)
    assert m(la.matrix_rank(cuda((4,), F4))) == fresh((), I8)
    assert m(la.matrix_rank(cuda(()))) == fresh((), I8)


# --- products -----------------------------------------------------------------------------

def test_matrix_power():
    a = cuda((3, 3))
    assert la.matrix_power(a, 1) is a
    assert m(la.matrix_power(a, 3)) == fresh((3, 3))
    assert m(la.matrix_power(cuda((2, 3, 3), np.int32), 6)) == fresh((2, 3, 3), np.int32)
    assert m(la.matrix_power(cuda((3, 3), order="F"), 0)) == fresh((3, 3), F8, "F")  # zeros_like
    assert m(la.matrix_power(cuda((3, 3), order="F"), -1)) == fresh((3, 3), F8, "F")  # inv
    assert m(la.matrix_power(cuda((3, 3), np.int32), -2)) == fresh((3, 3), F8)
    with pytest.raises(TypeError):
        la.matrix_power(a, 2.0)


def test_cross():
    assert m(cupy.cross(cuda((4, 3)), cuda((3,)))) == fresh((4, 3))
    r = cupy.cross(cuda((3, 4)), cuda((3, 4)), axis=0)  # moveaxis(cp, -1, 0): a view
    assert m(r) == ((3, 4), np.dtype(F8), (8, 24), False)
    with pytest.warns(DeprecationWarning):
        r = cupy.cross(cuda((5, 2), F4), cuda((5, 2), np.int16))
    assert m(r) == fresh((5,), F4)
    assert m(la.cross(cuda((2, 3)), cuda((2, 3)))) == fresh((2, 3))
    assert m(np.cross(cuda((2, 3)), cuda((2, 3)))) == fresh((2, 3))
    with pytest.raises(ValueError):
        cupy.cross(cuda((4,)), cuda((4,)))
    with pytest.raises(ValueError):
        la.cross(cuda((2, 3)), cuda((1, 3)))
    with pytest.raises(TypeError):
        cupy.cross(cuda((3,), bool), cuda((3,), bool))
    with pytest.raises(np.exceptions.AxisError):
        cupy.cross(cuda((3,)), cuda((3,)), axisa=2)


def test_matrix_transpose_is_a_view():
    a = cuda((2, 3, 4))
    r = la.matrix_transpose(a)
    assert r.shape == (2, 4, 3) and r.strides == (96, 8, 32) and np.shares_memory(r, a)
    with pytest.raises(ValueError):
        la.matrix_transpose(cuda((3,)))


# --- inside FakeMode ------------------------------------------------------------------

def test_inside_fake_mode_with_memory_accounting():
    with ft.FakeMode(device="cuda:0", record=True) as mode:
        a = cupy.zeros((64, 64), dtype=cupy.float32)
        before = mode.memory.live["cuda:0"]
        ai = cupy.linalg.inv(a)
        assert ft.is_fake(ai) and ai.fake_device == "cuda:0"
        assert mode.memory.live["cuda:0"] - before == 64 * 64 * 4
        u, s, vt = cupy.linalg.svd(a)
        w, v = np.linalg.eigh(a)
        q, r = cupy.linalg.qr(cupy.ones((8, 4)))
        assert q.shape == (8, 4) and r.shape == (4, 4) and s.dtype == np.float32
        assert v.flags.f_contiguous and w.shape == (64,)
        d = cupy.linalg.det(cupy.ones((5, 3, 3)))
        assert d.shape == (5,)
    assert mode.memory.peak["cuda:0"] >= 4 * 64 * 64 * 4
