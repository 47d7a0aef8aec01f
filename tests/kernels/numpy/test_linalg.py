"""Differential tests: dot, vdot, inner, outer, tensordot, kron, trace, einsum, matmul family."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import faketensor as ft
from oracle import NUMERIC, arrays, check

SET = settings(max_examples=60, deadline=None)
NUM = [d for d in NUMERIC]
SIDE = st.integers(0, 3)


@st.composite
def dot_pair(draw):
    """Operands of compatible shapes for dot (any ndim 0..3)."""
    na, nb = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    k = draw(SIDE)
    sa = [draw(SIDE) for _ in range(na)]
    sb = [draw(SIDE) for _ in range(nb)]
    if na:
        sa[-1] = k
    if nb:
        sb[-2 if nb > 1 else 0] = k
    if draw(st.booleans()) and na and nb:  # sometimes a mismatch
        sb[-2 if nb > 1 else 0] = k + 1
    a = draw(arrays(dtypes=NUM, shape=tuple(sa)))
    b = draw(arrays(dtypes=NUM, shape=tuple(sb)))
    return a, b


@SET
@given(dot_pair())
def test_dot_hypothesis(ab):
    check(np.dot, *ab)
    check(lambda a, b: a.dot(b), *ab)


@SET
@given(dot_pair())
def test_inner_outer_vdot_hypothesis(ab):
    a, b = ab
    check(np.outer, a, b)
    check(np.vdot, a, b)
    bt = np.swapaxes(b, -1, -2) if b.ndim > 1 else b
    check(np.inner, a, bt)
    try:
        check(np.kron, a, b)
    except ft.UnsupportedOperationError:
        pass


@SET
@given(arrays(dtypes=NUM, max_dims=4), arrays(dtypes=NUM, max_dims=4), st.integers(0, 2))
def test_tensordot_hypothesis(a, b, n):
    check(lambda x, y: np.tensordot(x, y, n), a, b)
    if a.ndim and b.ndim:
        check(lambda x, y: np.tensordot(x, y, ([0], [-1])), a, b)


@SET
@given(arrays(dtypes=NUM, min_dims=2, max_dims=4), st.integers(-2, 2), st.integers(-3, 3),
       st.integers(-3, 3))
def test_trace_hypothesis(a, off, ax1, ax2):
    check(lambda x: np.trace(x, off, ax1, ax2), a)
    check(lambda x: x.trace(off, ax1, ax2, dtype=np.float32), a)


@st.composite
def matmul_pair(draw, vec_a=True, vec_b=True):
    batch = draw(st.lists(SIDE, max_size=2))
    n, k, m = draw(SIDE), draw(SIDE), draw(SIDE)
    a_shape = tuple(batch) + (n, k) if not (vec_a and draw(st.booleans())) else (k,)
    b_shape = tuple(batch[draw(st.integers(0, len(batch))):]) + (k, m) \
        if not (vec_b and draw(st.booleans())) else (k,)
    if draw(st.integers(0, 5)) == 0:
        b_shape = b_shape[:-2] + (k + 1,) + b_shape[-1:] if len(b_shape) > 1 else (k + 1,)
    a = draw(arrays(dtypes=NUM, shape=a_shape))
    b = draw(arrays(dtypes=NUM, shape=b_shape))
    return a, b


@SET
@given(matmul_pair())
def test_matmul_hypothesis(ab):
    check(np.matmul, *ab)
    check(lambda a, b: a @ b, *ab)


@SET
@given(st.data())
def test_vecdot_matvec_vecmat_hypothesis(data):
    batch = data.draw(st.lists(SIDE, max_size=2))
    n, k = data.draw(SIDE), data.draw(SIDE)
    m = data.draw(arrays(dtypes=NUM, shape=tuple(batch) + (n, k)))
    v = data.draw(arrays(dtypes=NUM, shape=tuple(batch[1:]) + (k,)))
    w = data.draw(arrays(dtypes=NUM, shape=(n,)))
    check(np.vecdot, v, v)
    check(np.matvec, m, v)
    check(np.vecmat, w, m)


C = np.ones((3, 4))
F = np.asfortranarray(C)
I8 = np.ones((4, 3), np.int8).T
AWKWARD = [
    (np.dot, C, F.T),
    (np.dot, I8, np.ones((4, 2), np.int16)),
    (np.dot, I8, 5),
    (np.dot, I8, np.int8(5)),
    (np.dot, np.ones((), np.int16), I8),
    (np.dot, np.ones((), np.float16), F),
    (np.dot, F, 2.0),
    (np.dot, np.ones(3, np.float32), np.ones(3, np.float32)),
    (np.dot, np.ones(3, np.int64), np.ones(3, np.int64)),
    (np.dot, np.ones(3, bool), np.ones(3, bool)),
    (np.dot, np.ones(3, ">f8"), np.ones(3, "<f8")),
    (np.dot, np.ones((2, 3, 4)), np.ones((5, 4, 2))),
    (lambda a, b, o: np.dot(a, b, out=o), C, F.T, np.empty((3, 3))),
    (lambda a, b, o: np.dot(a, b, out=o), C, F.T, np.empty((3, 3), order="F")),
    (lambda a, b, o: np.dot(a, b, out=o), C, F.T, np.empty((3, 3), np.float32)),
    (lambda a, b, o: np.dot(a, b, out=o), C, F.T, np.empty((3, 4))),
    (lambda a, b, o: np.dot(a, b, out=o), C, F.T, np.empty((9,))),
    (lambda a, b, o: np.dot(a, b, out=o), I8, 3, np.empty((3, 4), order="F")),
    (lambda a, b, o: np.dot(a, b, out=o), F, 3.0, np.empty((3, 4), order="F")),
    (np.inner, C, F),
    (np.inner, I8, 2),
    (np.outer, C, F),
    (lambda a, b, o: np.outer(a, b, out=o), I8, F, np.empty((12, 12), np.int8)),
    (lambda a, b, o: np.outer(a, b, out=o), I8, F, np.empty((12, 12), np.float32)),
    (np.vdot, C, F),
    (np.vdot, C, np.ones(5)),
    (np.kron, C, F),
    (np.kron, F, I8),
    (np.kron, C, np.ones(2)),
    (lambda a, b: np.tensordot(a, b, ((0, 1), (1, 0))), C, C.T),
    (lambda a, b: np.tensordot(a, b, ((0, 0), (1, 0))), C, C.T),
    (lambda a, b: np.tensordot(a, b, 3), C, C.T),
    (lambda a, b: np.tensordot(a, b, 0), C, np.ones(0)),
    (lambda a, b: np.tensordot(a, b, (1, 0)), np.ones((0, 3)), np.ones((3, 2))),
    (np.matmul, C, 3),
    (np.matmul, np.ones(()), C),
    (lambda a, b, o: np.matmul(a, b, out=o), C, F.T, np.empty((3, 3), np.float32)),
    (lambda a, b, o: np.matmul(a, b, out=o), C, F.T, np.empty((3, 4))),
    (lambda a, b, o: np.matmul(a, b, out=o), C, F.T, np.empty((2, 3, 3))),
    (lambda a, b: np.matmul(a, b, dtype=np.float32), C, F.T),
    (lambda a, b: np.matmul(a, b, casting="no", dtype=np.float32), C, F.T),
    (np.matmul, np.ones((2, 3), "U1"), np.ones((3, 2), "U1")),
    (np.matmul, np.ones((2, 3), bool), np.ones((3, 2), np.int8)),
    (np.matmul, np.ones((2, 3), object), np.ones((3, 2))),
    (np.vecdot, np.ones((3, 4, 2)).transpose(1, 0, 2), np.ones((4, 1, 2))),
    (lambda a, b: np.vecdot(a, b, axis=0), C, C),
    (lambda a, b: np.matmul(a, b, axes=[(0, 1), (0, 1), (0, 1)]), C.T, C),
    (np.trace, np.ones((2, 3, 4, 5)).transpose(3, 1, 0, 2)),
    (lambda a: np.trace(a, out=np.empty(4)), np.ones((2, 3, 4))),
    (np.trace, np.ones((3, 3), np.uint8)),
    (np.trace, np.ones((3, 3), bool)),
    (np.trace, np.ones((3, 3), np.float16)),
]


# Calls whose kernel refuses (UnsupportedOperationError) rather than guess; each must keep
# refusing until it is supported (then remove it here).
UNSUPPORTED: dict = {}


@pytest.mark.parametrize("i", range(len(AWKWARD)))
def test_awkward(i):
    fn, *args = AWKWARD[i]
    if i in UNSUPPORTED:
        with pytest.raises(ft.UnsupportedOperationError):
            check(fn, *args)
        return
    check(fn, *args)


BAD = [
    lambda a: np.dot(a, a),
    lambda a: np.dot(a, np.ones(3)),
    lambda a: np.inner(a, np.ones(3)),
    lambda a: np.tensordot(a, a, 1),
    lambda a: np.tensordot(a, a, 3),
    lambda a: np.tensordot(a, a, ((0, 1), (0,))),
    lambda a: np.trace(np.ones(3)),
    lambda a: np.trace(a, axis1=2),
    lambda a: np.trace(a, axis1=1, axis2=-1),
    lambda a: np.matmul(a, a),
    lambda a: np.matmul(a, 3.0),
    lambda a: np.vecdot(a, np.ones(3)),
    lambda a: np.vdot(a, np.ones(3)),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_inputs(i):
    check(BAD[i], np.ones((3, 4)))


EINSUM = [
    ("ij->ji", [(3, 4)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij", [(3, 4)]), ("ji", [(3, 4)]),
    ("i->", [(3,)]), ("...ij->...ji", [(2, 3, 4)]), ("ij...->...", [(2, 3, 4)]),
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ij,kj->ik", [(2, 3), (4, 3)]),
    ("ij,jk->ki", [(2, 3), (3, 4)]), ("i,j->ij", [(2,), (3,)]), ("i,i->", [(3,), (3,)]),
    ("i,i", [(3,), (1,)]), ("...i,...i->...", [(2, 3), (4, 1, 3)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]), ("iij->j", [(3, 3, 2)]), ("Ab,bA->", [(2, 3), (3, 2)]),
    ("ba,cb", [(2, 3), (4, 2)]), ("i...,i...", [(3, 2), (3, 2)]), ("ij,ij->ij", [(3, 4), (3, 4)]),
    (",i->i", [(), (3,)]), ("ij,jk->ik", [(2, 3), (4, 4)]), ("ij->ik", [(2, 3)]), ("ii->i", [(2, 3)]),
    ("i,j->jj", [(2,), (2,)]), ("ij", [(2,)]), ("i,j", [(2,)]), ("ij->i$", [(2, 3)]),
    ("i..j->i", [(2, 3)]), ("ij->j", [(0, 3)]), ("ij,jk->ik", [(2, 0), (0, 3)]),
]


@SET
@given(st.data())
def test_einsum_hypothesis(data):
    spec, shapes = data.draw(st.sampled_from(EINSUM))
    ops = [data.draw(arrays(dtypes=NUM, shape=s)) for s in shapes]
    check(lambda *o: np.einsum(spec, *o), *ops)
    if spec.count(",") == len(ops) - 1:
        dt = data.draw(st.sampled_from([None, np.float32, np.int8, np.complex128]))
        order = data.draw(st.sampled_from(["K", "C", "F"]))
        casting = data.draw(st.sampled_from(["safe", "unsafe", "same_kind"]))
        check(lambda *o: np.einsum(spec, *o, dtype=dt, order=order, casting=casting), *ops)


def test_einsum_out_and_gaps():
    a, b = np.ones((2, 3)), np.ones((3, 4))
    check(lambda x, y, o: np.einsum("ij,jk->ik", x, y, out=o), a, b, np.empty((2, 4), order="F"))
    check(lambda x, y, o: np.einsum("ij,jk->ik", x, y, out=o), a, b, np.empty((2, 4), np.int8))
    check(lambda x, y, o: np.einsum("ij,jk->ik", x, y, out=o), a, b, np.empty((2, 5)))
    check(lambda x, o: np.einsum("ij->ji", x, out=o), a, np.empty((3, 2)))
    check(lambda x, y: np.einsum("ij,jk", x, y, optimize=True), a, b)  # tests/kernels/numpy/test_quantiles_sets.py
    check(lambda x: np.einsum(x, [0, 1], [1, 0]), a)  # the sublist form (test_real_call_fixes)


def _layout(a, kind):
    if kind == "f":
        return np.asfortranarray(a)
    if kind == "rev" and a.ndim:
        return a[::-1]
    if kind == "bcast" and a.ndim and a.shape[0]:
        return np.broadcast_to(a[:1], a.shape)
    return a


@pytest.mark.parametrize("spec,shapes", EINSUM)
def test_einsum_layouts(spec, shapes):
    import itertools
    for lay in itertools.product(["c", "f", "rev", "bcast"], repeat=len(shapes)):
        ops = [_layout(np.ones(s), k) for s, k in zip(shapes, lay)]
        for kw in ({}, {"order": "C"}, {"order": "F"}, {"dtype": np.float32}):
            check(lambda *o: np.einsum(spec, *o, **kw), *ops)


# --- scalar results: det, slogdet, cond, multi_dot of 1-d ends --------------------------------
# For one matrix NumPy returns NumPy scalars (the 0-d results freed on the way); the bytes
# must still equal tracemalloc's.
_SCALAR_CALLS = {
    "det": np.linalg.det,
    "slogdet": np.linalg.slogdet,
    "cond": np.linalg.cond,
    "cond1": lambda a: np.linalg.cond(a, 1),
    "cond-2": lambda a: np.linalg.cond(a, -2),
    "multi_dot": lambda a: np.linalg.multi_dot([a[-1, :, 0], np.eye(len(a[-1])), a[-1, :, 0]])
    if a.ndim == 3 else np.linalg.multi_dot([a[:, 0], np.eye(len(a)), a[:, 0]]),
}


@pytest.mark.parametrize("name", list(_SCALAR_CALLS))
@pytest.mark.parametrize("dt", ["f4", "f8", "c8", "c16", "i8"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 4, 4), (1, 1)], ids=str)
def test_scalar_results_memory(name, dt, shape):
    from memtools import op_peaks

    def setup():
        return [np.eye(shape[-1], dtype=dt) * 2 + np.zeros(shape, dt)]
    real, fake = op_peaks(setup, _SCALAR_CALLS[name])
    assert fake == real


# --- eig / eigvals bytes: the finiteness check, the all-real test and real results --------------
# For a real input NumPy runs ``isfinite(a).all()`` before the gufunc and ``all(w.imag == 0)``
# after it; when every eigenvalue is real it returns ``.real`` views that keep the complex
# buffers alive. Inputs' values are known here, so both outcomes are measured.
_EIG_INPUTS = {
    "real-eigs": lambda: 4 * np.eye(3) + np.arange(9.0).reshape(3, 3) / 20,
    "complex-eigs": lambda: np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 2.0]]),
    "transposed": lambda: (4 * np.eye(3) + np.arange(9.0).reshape(3, 3) / 20).T,
    "f4": lambda: (4 * np.eye(3) + np.arange(9.0).reshape(3, 3) / 20).astype(np.float32),
    "i8": lambda: np.eye(3, dtype=np.int64),
    "c16": lambda: (4 * np.eye(3) + np.arange(9.0).reshape(3, 3) / 20).astype(complex),
    "stacked-mixed": lambda: np.stack([np.array([[0, 1.0], [-1, 0]]), np.eye(2)]),
    "empty": lambda: np.zeros((0, 0)),
    "stacked-empty": lambda: np.zeros((2, 0, 0)),
    "20x20": lambda: np.eye(20) + np.arange(400.0).reshape(20, 20) / 1000,
}


@pytest.mark.parametrize("fn", [np.linalg.eig, np.linalg.eigvals], ids=lambda f: f.__name__)
@pytest.mark.parametrize("name", list(_EIG_INPUTS))
def test_eig_memory(fn, name):
    from faketensor.meta_utils.surveys.memsurvey import measure_call
    m = measure_call(lambda: ((_EIG_INPUTS[name](),), {}), lambda: fn)
    assert m.verdict == "exact", m.difference()
    check(fn, _EIG_INPUTS[name]())
