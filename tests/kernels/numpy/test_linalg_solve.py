"""Differential tests for np.linalg kernels (kernels/numpy/linalg.py) against real NumPy."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import faketensor as ft
from memtools import op_peaks
from oracle import check, run_both

L = np.linalg
VALUE_ERRORS = ("Singular", "not positive definite", "did not converge", "Incorrect argument")
FAST = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
DTS = [np.float64, np.float32, np.complex64, np.complex128, np.int64, np.int8, np.bool_,
       np.uint16, np.float16, np.longdouble, np.dtype(">f8")]


def vcheck(fn, *args, **kw):
    """check(), skipping cases where NumPy raised a value-dependent LinAlgError."""
    r, f, ri, fi = run_both(fn, args, kw)
    if isinstance(f, ft.DataDependentError):
        return f
    if isinstance(r, L.LinAlgError) and any(s in str(r) for s in VALUE_ERRORS):
        assert not isinstance(f, Exception) or isinstance(f, L.LinAlgError), f
        return r
    return check(fn, *args, **kw)


def mat(shape, dt, kind="c", rng=None):
    """A well-conditioned (diagonally dominant, symmetric) real array of an awkward layout."""
    dt = np.dtype(dt)
    base = np.zeros(shape, dt)
    if len(shape) >= 2 and 0 not in shape:
        m, n = shape[-2:]
        k = np.arange(m)[:, None] + np.arange(n)[None, :]
        vals = (np.eye(m, n) * 4 + 1 / (1 + k)) if dt.kind != "b" else np.eye(m, n)
        base[...] = vals.astype(dt) if dt.kind not in "iu" else (np.eye(m, n) * 4 + 1).astype(dt)
    elif 0 not in shape:
        base[...] = 1
    return lay(base, kind)


def lay(a, kind):
    if kind == "f":
        return np.asfortranarray(a)
    if kind == "t" and a.ndim:
        return np.ascontiguousarray(a.T).T
    if kind == "rev" and a.ndim > 2:
        return a[::-1]
    if kind == "step" and a.ndim:
        big = np.repeat(a, 2, axis=0)
        return big[::2]
    if kind == "bcast" and a.ndim > 2:
        return np.broadcast_to(a[:1], a.shape)
    if kind == "perm" and a.ndim > 2:
        p = list(range(a.ndim))[::-1]
        return np.ascontiguousarray(a.transpose(p)).transpose(p)
    return a


KINDS = ["c", "f", "t", "rev", "step", "bcast", "perm"]
SQUARE = [(3, 3), (2, 4, 4), (3, 2, 2, 2), (0, 0), (2, 0, 0), (0, 3, 3), (1, 1), (2, 3, 1, 1)]
RECT = SQUARE + [(3, 2), (2, 5), (2, 3, 4), (4, 1), (0, 3), (3, 0), (2, 2, 0)]


@st.composite
def mats(draw, shapes, dts=DTS):
    return mat(draw(st.sampled_from(shapes)), draw(st.sampled_from(dts)),
               draw(st.sampled_from(KINDS)))


def _cases(shapes, dts, kinds=KINDS):
    return [(s, d, k) for s in shapes for d in dts for k in kinds]


SQ_CASES = _cases(SQUARE, [np.float64, np.float32, np.complex64, np.int16, np.bool_])
UNARY = [L.inv, L.det, L.slogdet, L.eigh, L.eigvalsh, L.cholesky, L.svdvals]


@pytest.mark.parametrize("fn", UNARY, ids=lambda f: f.__name__)
def test_square_unary(fn):
    for shape, dt, kind in SQ_CASES:
        vcheck(fn, mat(shape, dt, kind))


def test_cholesky_upper_and_uplo():
    for shape, dt, kind in SQ_CASES[::3]:
        a = mat(shape, dt, kind)
        vcheck(L.cholesky, a, upper=True)
        vcheck(L.eigh, a, UPLO="u")
        vcheck(L.eigvalsh, a, "U")
        vcheck(L.eigh, a, UPLO="X")


def test_eig_complex_and_data_dependent_real():
    for shape, dt, kind in _cases(SQUARE, [np.complex64, np.complex128]):
        a = mat(shape, dt, kind)
        check(L.eig, a)
        check(L.eigvals, a)
    f = ft.empty((3, 3))  # values unknown: real or complex results depend on them
    with pytest.raises(ft.DataDependentError):
        L.eig(f)
    with pytest.raises(ft.DataDependentError):
        L.eigvals(f)
    # a small real matrix converted with its values (faketensor/_known.py): NumPy's choice
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    for a in (np.eye(3), rot, rot.astype(np.float32), np.eye(3)[None].repeat(2, 0).T,
              np.arange(9.0).reshape(3, 3)[::-1]):
        check(L.eig, a)
        check(L.eigvals, a)


@pytest.mark.parametrize("dt", [np.float16, np.longdouble, np.clongdouble])
def test_unsupported_dtypes_raise_typeerror(dt):
    for fn in UNARY + [L.qr, L.svd, L.eig]:
        check(fn, np.ones((2, 2), dt))


@pytest.mark.parametrize("fn", UNARY + [L.eig, L.eigvals, L.qr, L.svd],
                         ids=lambda f: f.__name__)
def test_bad_shapes(fn):
    for a in (np.ones(3), np.ones(()), np.ones((2, 3)), np.ones((4, 2, 3))):
        vcheck(fn, a)


def test_svd_qr_rectangular():
    for shape, dt, kind in _cases(RECT, [np.float64, np.float32, np.complex64, np.int8],
                                  ["c", "f", "t", "bcast", "perm"]):
        a = mat(shape, dt, kind)
        vcheck(L.svd, a)
        vcheck(L.svd, a, full_matrices=False)
        vcheck(L.svd, a, compute_uv=False)
        vcheck(L.svd, a, compute_uv=False, hermitian=True)
        for mode in ("reduced", "complete", "r", "raw", "nonsense"):
            vcheck(L.qr, a, mode)


SOLVE_SHAPES = [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 1)),
                ((2, 3, 3), (3, 4)), ((1, 3, 3), (4, 3, 2)), ((2, 3, 3), (4, 3, 2)),
                ((3, 3), (4,)), ((3, 3), ()), ((0, 0), (0,)), ((2, 0, 0), (2, 0, 3)),
                ((3, 3), (2, 2, 3, 2)), ((3, 2), (3,))]


def test_solve():
    for sa, sb in SOLVE_SHAPES:
        for da, db in [(np.float64, np.float64), (np.float32, np.int32), (np.complex64, np.float32),
                       (np.float32, np.float32), (np.float16, np.float64)]:
            for ka, kb in [("c", "c"), ("f", "t"), ("bcast", "rev"), ("perm", "step"), ("t", "perm")]:
                vcheck(L.solve, mat(sa, da, ka), lay(np.ones(sb, db), kb))


LSTSQ_SHAPES = [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3), (2,)), ((2, 3), (2, 0)), ((3, 0), (3, 2)),
                ((3, 0), (3, 0)), ((0, 3), (0, 2)), ((0, 0), (0,)), ((3, 3), (4,)),
                ((2, 3, 3), (2, 3)), ((3,), (3,)), ((2, 3), (2, 4))]


def test_lstsq():
    for sa, sb in LSTSQ_SHAPES:
        for da, db in [(np.float64, np.float64), (np.float32, np.float32), (np.complex64, np.int8),
                       (np.float32, np.complex64)]:
            for ka, kb in [("c", "c"), ("f", "t"), ("t", "step")]:
                vcheck(L.lstsq, mat(sa, da, ka), lay(np.ones(sb, db), kb))
                vcheck(L.lstsq, mat(sa, da, ka), lay(np.ones(sb, db), kb), rcond=1e-3)


def test_lstsq_tall_is_data_dependent():
    with pytest.raises(ft.DataDependentError):
        L.lstsq(*ft.to_fake((np.ones((4, 2)), np.ones(4))))


def test_compositions():
    for shape, dt, kind in _cases(SQUARE + [(3,), (2, 3)], [np.float64, np.float32, np.int32,
                                                           np.complex64]):
        a = mat(shape, dt, kind)
        for n in (0, 1, 2, 3, 5, -1, -3, 1.5):
            vcheck(L.matrix_power, a, n)
        check(L.matrix_transpose, a)
        check(L.diagonal, a)
        check(L.diagonal, a, offset=1)
        check(L.trace, a)
        check(L.trace, a, dtype=np.float32)
        check(L.matmul, a, a)
        check(L.vecdot, a, a)
        check(L.outer, a, a)
        check(L.tensordot, a, a, axes=1)


def test_tensorinv_tensorsolve():
    for shape, ind in [((4, 2, 2), 1), ((2, 2, 4), 2), ((2, 3, 6), 2), ((6, 2, 3), 1), ((4, 4), 1),
                       ((2, 3, 2, 3), 2), ((3, 3), 0), ((4, 2, 3), 2)]:
        square = ind and np.prod(shape[:ind]) ** 2 == np.prod(shape)
        base = np.eye(int(np.prod(shape[:ind]))).reshape(shape) * 3 if square else np.ones(shape)
        for dt, kind in [(np.float64, "c"), (np.float32, "f"), (np.int8, "t"), (np.complex64, "perm")]:
            a = lay(base.astype(dt), kind)
            vcheck(L.tensorinv, a, ind=ind)
            vcheck(L.tensorsolve, a, np.ones(shape[:ind], dt))
    a = (np.eye(6) * 2).reshape(2, 3, 6)
    vcheck(L.tensorsolve, a.transpose(2, 0, 1).copy(), np.ones(6), axes=(0,))


def _hermitian(shape, dt, kind):
    base = np.zeros(shape, dt)
    if shape[-1]:
        base[...] = (np.eye(shape[-1]) * 3 + 0.5).astype(dt)
    if kind == "bcast" and len(shape) > 2:
        return np.broadcast_to(base[:1], shape)
    return lay(base, kind)


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.complex64, np.complex128, np.int64,
                                np.float16])
def test_svd_hermitian_compute_uv(dt):
    """eigh, then the singular values sorted by argsort and taken along the last axis; vt the
    conjugated transpose of ``u * sgn`` (for a real dtype a view of that product); the bytes of
    every statement's arrays at the moment NumPy frees them."""
    for shape in [(3, 3), (1, 1), (0, 0), (2, 3, 3), (2, 0, 0), (0, 2, 2), (4, 4)]:
        for kind in ("c", "f", "t", "bcast"):
            a = _hermitian(shape, dt, kind)
            for fm in (True, False):
                fn = lambda x, fm=fm: L.svd(x, full_matrices=fm, hermitian=True)  # noqa: E731
                vcheck(fn, a)
                if dt is not np.float16:
                    real, fake = op_peaks(lambda: [a.copy(order="K")], fn)
                    assert fake == real, (shape, kind, fm)


def test_tensorsolve_empty_operands():
    """solve of empty operands is an empty fresh array (strides 0) given its shape in place."""
    for a_shape, b_shape in [((0, 0), (0,)), ((2, 0, 2, 0), (2, 0)), ((0, 3, 0, 3), (0, 3)),
                             ((3, 0, 0), (3, 0)), ((0, 2, 2), (0,)), ((2, 0, 0, 2), (2, 0))]:
        for dt, kind in [(np.float64, "c"), (np.float32, "f"), (np.int8, "t"), (np.complex64, "perm")]:
            vcheck(L.tensorsolve, lay(np.ones(a_shape, dt), kind), np.ones(b_shape, dt))
    vcheck(L.tensorsolve, np.ones((0, 2, 0, 2)).transpose(1, 0, 2, 3), np.ones((2, 0)), axes=(1,))


def test_multi_dot():
    for shapes in [[(3,), (3, 4), (4,)], [(2, 3), (3, 4), (4, 5)], [(3,), (3, 4), (4, 2), (2,)],
                   [(5, 3), (3, 4), (4, 2), (2, 6)], [(2, 3), (3,)], [(3,), (3, 4), (4, 5), (5, 2)],
                   [(2, 3, 3), (3, 3), (3, 3)], [(2, 2)], [(2, 3), (4, 5), (5, 1)]]:
        for dt in (np.float64, np.float32, np.int32, np.complex64):
            arrs = [lay(np.ones(s, dt), k) for s, k in zip(shapes, ["t", "c", "f", "step"])]
            check(L.multi_dot, arrs)


def test_multi_dot_out():
    """out= goes to the last dot of the chain: the product's 2-d shape, raveled (a view of a
    contiguous out) or indexed for 1-d ends; a wrong shape, dtype or layout raises."""
    for shapes in [[(2, 3), (3, 4), (4, 5)], [(5, 3), (3, 4), (4, 2), (2, 6)], [(3,), (3, 4), (4, 5)],
                   [(3,), (3, 4), (4, 2), (2,)], [(2, 3), (3, 4), (4,)]]:
        for dt in (np.float64, np.float32, np.int32, np.complex64):
            arrs = [lay(np.ones(s, dt), k) for s, k in zip(shapes, ["t", "c", "f", "step"])]
            rows = 1 if len(shapes[0]) == 1 else shapes[0][0]
            cols = 1 if len(shapes[-1]) == 1 else shapes[-1][-1]
            for out in [np.zeros((rows, cols), dt), np.zeros((cols, rows), dt).T,
                        np.zeros((rows, cols), np.float64), np.zeros((rows * cols,), dt),
                        np.zeros((rows, 2 * cols), dt)[:, ::2]]:
                check(lambda *a, out: L.multi_dot(list(a), out=out), *arrs, out=out)


@FAST
@given(st.data())
def test_hypothesis_gufunc_wrappers(data):
    a = data.draw(mats(SQUARE))
    fn = data.draw(st.sampled_from(UNARY + [L.svd, L.qr]))
    vcheck(fn, a)
    b = lay(np.ones(a.shape[-1:] if data.draw(st.booleans()) else a.shape[-2:] + (2,),
                    data.draw(st.sampled_from([np.float64, np.float32, np.int8]))),
            data.draw(st.sampled_from(KINDS)))
    vcheck(L.solve, a, b)


def test_namedtuple_results_are_fakes():
    f = ft.to_fake(np.eye(3, dtype=np.float32))
    r = L.eigh(f)
    assert type(r).__name__ == "EighResult" and ft.is_fake(r.eigenvalues)
    assert r.eigenvectors.dtype == np.float32
    u, s, vh = L.svd(f)
    assert ft.is_fake(L.svd(f).U) and s.shape == (3,)
    again = L.slogdet(f)  # from the kernel cache
    assert type(again).__name__ == "SlogdetResult" and ft.is_fake(again.sign)


def test_full_norms():
    for shape in [(3,), (2, 3), (2, 3, 4), (), (0,), (0, 3)]:
        for dt in (np.float64, np.float32, np.float16, np.int8, np.bool_, np.complex64,
                   np.longdouble, np.dtype(">f4")):
            for kind in ("c", "f", "t", "rev"):
                a = lay(np.ones(shape, dt), kind)
                check(L.norm, a)
                check(L.vector_norm, a)
                if a.ndim == 2:
                    check(L.norm, a, "fro")
                if a.ndim == 1:
                    check(L.norm, a, 2)


# --- norms with ord / axis / keepdims, cond, pinv, matrix_rank, cross -------------------

NORM_DTS = [np.float64, np.float32, np.float16, np.complex64, np.int16, np.bool_,
            np.clongdouble, np.dtype(">f4"), np.dtype(">c16")]
ORDS = [None, 1, -1, 2, -2, 0, np.inf, -np.inf, 3, 0.5, "fro", "nuc", "bad"]
AXES = [None, 0, -1, (0, 1), (-1, 0), (1,), (0, 0), (0, 1, 2), 1.5, [0]]


def _awkward(shapes, dts, kinds=("c", "f", "t", "rev", "step", "bcast", "perm")):
    """Each layout of each shape and dtype once: a kind that leaves the array as it is (``rev``,
    ``bcast``, ``perm`` below 3 dimensions, ``f`` of an array already Fortran-contiguous)
    returns the very same array as an earlier kind, and is not checked again."""
    for shape in shapes:
        for dt in dts:
            base = np.asarray((np.arange(math.prod(shape)).reshape(shape) % 3 + 1).astype(dt))
            seen: list = []
            for kind in kinds:
                a = lay(base, kind)
                if not any(a is s for s in seen):
                    seen.append(a)
                    yield a


# one test per dtype, spread over the workers
@pytest.mark.parametrize("dt", NORM_DTS, ids=lambda d: np.dtype(d).str)
def test_norm_ord_axis_keepdims(dt):
    for a in _awkward([(3,), (2, 3), (2, 3, 4), (0, 3), (2, 0), ()], [dt],
                      ("c", "f", "t", "rev", "bcast")):
        for ord in ORDS:
            for axis in AXES:
                for kd in (False, True):
                    check(L.norm, a, ord, axis, kd)


@pytest.mark.parametrize("dt", NORM_DTS, ids=lambda d: np.dtype(d).str)
def test_matrix_and_vector_norm(dt):
    for a in _awkward([(4,), (2, 3), (3, 2, 4), (0, 2, 3), ()], [dt]):
        for kd in (False, True):
            for ord in ORDS:
                check(L.matrix_norm, a, ord=ord, keepdims=kd)
            for ord in (2, 1, 0, -1, np.inf, -np.inf, 3, "fro"):
                for axis in (None, 0, -1, (0, 2), (2, 0), (1,), (0, 1, 2), (0, 0), (5,)):
                    check(L.vector_norm, a, axis=axis, keepdims=kd, ord=ord)


def test_cond():
    for a in _awkward([(3, 3), (2, 3), (2, 3, 3), (2, 2, 4), (0, 3), (0, 3, 3), (3,), ()],
                      [np.float64, np.float32, np.complex64, np.int8, np.bool_, np.float16]):
        for p in (None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc", 3):
            vcheck(L.cond, a, p)


def test_pinv():
    for a in _awkward([(3, 3), (2, 3), (3, 2), (2, 4, 3), (0, 3), (2, 0, 3), (3,), ()],
                      [np.float64, np.float32, np.complex128, np.int32, np.bool_, np.float16]):
        check(L.pinv, a)
        check(L.pinv, a, 1e-3)
        check(L.pinv, a, rtol=None)
        check(L.pinv, a, rtol=0.5)
        check(L.pinv, a, 0.1, rtol=0.1)
    with pytest.raises(ft.UnsupportedOperationError):
        L.pinv(ft.to_fake(np.eye(3)), hermitian=True)


@pytest.mark.parametrize("dt", ["f8", "f4", "c16", "i8"])
def test_matrix_rank_bytes(dt):
    """svdvals, the tolerance (a keepdims max times rtol, or tol's 0-d array), the comparison
    and the count, each freed when NumPy drops it."""
    for shape in [(3, 3), (2, 4, 3), (4, 2), (1, 1), (2, 2, 2)]:
        a = np.broadcast_to((np.eye(*shape[-2:]) * 3 + 0.1).astype(dt), shape).copy()
        for kw in ({}, {"tol": 0.5}, {"rtol": 0.1}, {"hermitian": True}):
            if kw.get("hermitian") and shape[-1] != shape[-2]:
                continue
            fn = lambda x, kw=kw: L.matrix_rank(x, **kw)  # noqa: E731
            check(fn, a)
            real, fake = op_peaks(lambda: [a.copy()], fn)
            assert fake == real, (shape, kw)


def test_matrix_rank():
    for a in _awkward([(3, 3), (2, 3), (2, 4, 3), (0, 3), (2, 0, 3), (0,)],
                      [np.float64, np.float32, np.complex64, np.int8, np.bool_, np.float16]):
        for kw in ({}, {"tol": 0.5}, {"rtol": 0.5}, {"hermitian": True}, {"tol": 1, "rtol": 1}):
            vcheck(L.matrix_rank, a, **kw)
    with pytest.raises(ft.DataDependentError):
        L.matrix_rank(ft.to_fake(np.ones(3)))


def test_linalg_cross():
    cases = [((3,), (3,), -1), ((2, 3), (3,), -1), ((3, 2), (3, 2), 0), ((2,), (3,), -1),
             ((4, 3), (2, 1, 3), -1), ((3,), (3,), 1), ((), (3,), -1), ((3, 4), (3, 4), 0),
             ((2, 3), (2, 3), 0), ((0, 3), (3,), -1)]
    for sa, sb, ax in cases:
        for dt in (np.float32, np.int8, np.bool_, np.complex64):
            for kind in ("c", "f", "t", "rev"):
                check(L.cross, lay(np.ones(sa, dt), kind), np.ones(sb), axis=ax)


@FAST
@given(st.data())
def test_hypothesis_norms(data):
    from oracle import arrays
    a = data.draw(arrays(dtypes=[np.dtype(t) for t in (np.float64, np.float32, np.complex64,
                                                       np.int32, np.bool_)], max_dims=3))
    ord = data.draw(st.sampled_from(ORDS))
    axis = data.draw(st.sampled_from([None, 0, -1, (0, -1), (-1,)]))
    kd = data.draw(st.booleans())
    check(L.norm, a, ord, axis, kd)
    if not isinstance(ord, str):
        check(L.vector_norm, a, axis=axis, keepdims=kd, ord=2 if ord is None else ord)
