"""scipy.sparse built from structure, as fakes (modes/sparse.py, kernels/scipy/sparse.py),
against real SciPy: every construction, conversion and product run for real and in a
FakeMode at the same small size, compared on the sparse results' class, format, shape,
dtype, stored count and index dtype (and each array's metadata), the dense results' full
metadata, and NumPy's peak and live bytes (tracemalloc). Value-dependent calls raise
DataDependentError naming the SciPy function; a Poisson/heat-equation script is planned
with ``faketensor run`` and its peak compared with the real run's."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import faketensor as ft
from memtools import measure_peak
from script_checks import main_fake_equals_real, run_plans_the_real_peak
from oracle import compare_meta

pytest.importorskip("scipy")
import scipy.sparse as sp  # noqa: E402
import scipy.sparse.linalg as spla  # noqa: E402
from locations import TESTS  # tests/ and the checkout

HERE = str(TESTS)
N = 12
# structure arrays made before the mode: real, so their values are known in it (an array
# made in the mode is a fake of unknown values)
AR32 = np.arange(N + 1, dtype=np.int32)
AR64 = np.arange(N + 1)
REV = np.arange(N)[::-1].copy()
OFFS = np.array([-2, 3])
I3, J3, P3 = np.array([0, 2, 1]), np.array([1, 0, 3]), np.array([0, 1, 3, 3])
PRUNED_IND, PRUNED_PTR = np.array([0, 1, 2, 0, 0, 0]), np.array([0, 1, 2])


def _arrays_of(A):
    if A.format == "lil":
        return {"data": A.data, "rows": A.rows}
    if A.format == "dia":
        return {"data": A.data, "offsets": A.offsets}
    if A.format == "coo":
        return {"data": A.data, "row": A.coords[0], "col": A.coords[1]}
    return {"data": A.data, "indices": A.indices, "indptr": A.indptr}


def compare_sparse(real, fake, where=""):
    """Class, format, shape, dtype, stored count, and each array's metadata."""
    assert ft.is_fake(fake.data), where
    assert fake.__class__ is type(real), (where, fake.__class__, type(real))
    assert isinstance(fake, type(real)) and sp.issparse(fake)
    assert (fake.format, fake.shape, fake.dtype, fake.nnz, fake.ndim) == \
        (real.format, real.shape, real.dtype, real.nnz, real.ndim), where
    ra, fa = _arrays_of(real), _arrays_of(fake)
    for k in ra:
        r, f = ra[k], fa[k]
        assert (f.shape, f.dtype, f.strides) == (r.shape, r.dtype, r.strides), (where, k)


def compare_any(real, fake, where=""):
    if sp.issparse(real):
        compare_sparse(real, fake, where)
    elif isinstance(real, tuple):
        assert isinstance(fake, tuple) and len(fake) == len(real), where
        for r, f in zip(real, fake):
            compare_any(r, f, where)
    else:
        assert type(fake) is (ft.FakeArray if type(real) is np.ndarray else type(fake)), where
        compare_meta(real, fake, [], [], where)


def both(fn, memory=True):
    """fn() for real and in a FakeMode: same results' metadata and (``memory``) the same
    NumPy peak and live bytes."""
    keep: list = []
    with warnings.catch_warnings(record=True) as rw:
        warnings.simplefilter("always")
        real_peak, real_live = measure_peak(lambda: keep.append(fn()))
    with warnings.catch_warnings(record=True) as fw:
        warnings.simplefilter("always")
        with ft.FakeMode() as mode:
            fake = fn()
            got = (mode.memory.peak.get("cpu", 0), mode.memory.live.get("cpu", 0))
            compare_any(keep[0], fake)  # (a DIA's nnz computes with NumPy: after the peak)
            del fake
    assert [type(w.message) for w in fw] == [type(w.message) for w in rw]
    assert [str(w.message) for w in fw] == [str(w.message) for w in rw]
    if memory:
        assert got == (real_peak, real_live)
    return keep[0]


def tri(fmt=None, n=N, dtype=None):
    return sp.diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(n, n), format=fmt, dtype=dtype)


def tri_array(fmt=None, n=N, dtype=None):
    return sp.diags_array([1.0, -2.0, 1.0], offsets=[-1, 0, 1], shape=(n, n), format=fmt,
                          dtype=dtype)


# --- constructions ---------------------------------------------------------------------

CONSTRUCTIONS = {
    "diags": lambda: tri(),
    "diags-csr": lambda: tri("csr"),
    "diags-csc": lambda: tri("csc"),
    "diags-coo": lambda: tri("coo"),
    "diags-f32": lambda: tri("csr", dtype=np.float32),
    "diags-c16": lambda: tri("csr", dtype=np.complex128),
    "diags-int-warns": lambda: sp.diags([1, -2, 1], [-1, 0, 1], shape=(N, N)),
    "diags-int-none": lambda: sp.diags([1, -2, 1], [-1, 0, 1], shape=(N, N), dtype=None,
                                       format="csr"),
    "diags-arrays": lambda: sp.diags([np.ones(N - 1), -2 * np.ones(N), np.ones(N - 1)],
                                     [-1, 0, 1], format="csr"),
    "diags-far": lambda: sp.diags([np.full(N - 3, 2.0), np.full(N - 2, 5.0)], [-3, 2],
                                  format="csc"),
    "diags-rect": lambda: sp.diags([1.0, 3.0], [0, 4], shape=(N, N + 5), format="csr"),
    "diags-rect-tall": lambda: sp.diags([1.0, 3.0], [-6, 1], shape=(N + 7, N), format="csr"),
    "diags-one": lambda: sp.diags(np.ones(N), 0, format="csr"),
    "diags-real-offsets": lambda: sp.diags([1.0, 2.0], OFFS, shape=(N, N)),
    "diags_array": lambda: tri_array(),
    "diags_array-csr": lambda: tri_array("csr"),
    "diags_array-csc": lambda: tri_array("csc"),
    "diags_array-coo": lambda: tri_array("coo"),
    "diags_array-i8": lambda: sp.diags_array([1, 2, 1], offsets=[-1, 0, 1], shape=(N, N),
                                             dtype=np.int64, format="csr"),
    "spdiags": lambda: sp.spdiags(np.ones((3, N)), [-1, 0, 1], N, N),
    "spdiags-csr": lambda: sp.spdiags(np.ones((3, N)), [-1, 0, 1], N, N, format="csr"),
    # offsets made by NumPy calls in the mode: small known contents (pic-python's gradient)
    "spdiags-mode-offsets": lambda: sp.spdiags(np.vstack((-np.ones(N), np.ones(N))),
                                               np.array([-1, 1]), N, N),
    "spdiags-mode-offsets-csr": lambda: sp.spdiags(np.ones((3, N)), np.arange(3) - 1, N, N,
                                                   format="csr"),
    "diags_array-mode-offsets": lambda: sp.diags_array([1.0, 2.0], offsets=np.arange(2),
                                                       shape=(N, N), format="csr"),
    "csr_array-mode-indptr": lambda: sp.csr_array(
        (np.ones(N), np.arange(N, dtype=np.int32), np.arange(N + 1, dtype=np.int32)),
        shape=(N, N)),
    "spdiags-shape": lambda: sp.spdiags(np.full((2, N), 3.0), OFFS, (N, N + 2),
                                        format="csc"),
    "eye": lambda: sp.eye(N),
    "eye-csr": lambda: sp.eye(N, format="csr"),
    "eye-csc-f4": lambda: sp.eye(N, dtype=np.float32, format="csc"),
    "eye-coo": lambda: sp.eye(N, format="coo"),
    "eye-k": lambda: sp.eye(N, N + 3, k=2, format="csr"),
    "eye-k-neg": lambda: sp.eye(N, k=-3),
    "eye_array": lambda: sp.eye_array(N),
    "eye_array-csr": lambda: sp.eye_array(N, format="csr"),
    "eye_array-coo-i4": lambda: sp.eye_array(N, dtype=np.int32, format="coo"),
    "eye_array-k": lambda: sp.eye_array(N, 2 * N, k=5, format="csc"),
    "identity": lambda: sp.identity(N),
    "identity-csr": lambda: sp.identity(N, format="csr"),
    "identity-coo": lambda: sp.identity(N, dtype=np.complex64, format="coo"),
    "kron-csr": lambda: sp.kron(sp.eye(4, format="csr"), tri("csr", 5), format="csr"),
    "kron-coo": lambda: sp.kron(tri("csr", 4), sp.eye(5), format="coo"),
    "kron-array-csc": lambda: sp.kron(sp.eye_array(3, format="csr"), tri_array("csr", 6),
                                      format="csc"),
    "kron-dia": lambda: sp.kron(tri("dia", 3), tri("dia", 4), format="csr"),
    "block_diag": lambda: sp.block_diag([sp.eye(3, format="csr"), tri("csr", 4)]),
    "block_diag-csr": lambda: sp.block_diag([tri("csr", 5), sp.eye(2)], format="csr"),
    "block_diag-dense": lambda: sp.block_diag([np.ones((2, 3)), sp.eye_array(4)],
                                              format="csc"),
    "random": lambda: sp.random(N, N + 3, density=0.2, rng=np.random.default_rng(1)),
    "random-csr": lambda: sp.random(N, N, density=0.3, format="csr",
                                    rng=np.random.default_rng(2)),
    "random_array": lambda: sp.random_array((N, N), density=0.25,
                                            rng=np.random.default_rng(0)),
    "random_array-csc-f4": lambda: sp.random_array((N, 2 * N), density=0.1, format="csc",
                                                   dtype=np.float32,
                                                   rng=np.random.default_rng(3)),
    "csr_array-arrays": lambda: sp.csr_array(
        (np.ones(N), np.arange(N, dtype=np.int32), AR32), shape=(N, N)),
    "csr_array-i8": lambda: sp.csr_array((np.ones(N), np.arange(N), AR64), shape=(N, N)),
    "csr_matrix-i8": lambda: sp.csr_matrix((np.ones(N), np.arange(N), AR64), shape=(N, N)),
    "csr_matrix-i8-known": lambda: sp.csr_matrix((np.ones(3), I3, P3), shape=(3, 4)),
    "csc_array-arrays": lambda: sp.csc_array(
        (np.ones(N, np.float32), np.arange(N, dtype=np.int32), AR32), shape=(N, N)),
    "csr-pruned": lambda: sp.csr_array((np.ones(6), PRUNED_IND, PRUNED_PTR), shape=(2, 3)),
    "coo_array-ij": lambda: sp.coo_array((np.ones(N), (np.arange(N), REV)), shape=(N, N)),
    "coo_matrix-ij": lambda: sp.coo_matrix((np.ones(N), (np.arange(N), REV)), shape=(N, N)),
    "coo_matrix-ij-i4": lambda: sp.coo_matrix(
        (np.ones(N), (np.arange(N, dtype=np.int32), np.zeros(N, np.int32))), shape=(N, 2)),
    "csr_array-ij-known": lambda: sp.csr_array((np.ones(3), (I3, J3)), shape=(3, 4)),
    "csr_matrix-ij-known": lambda: sp.csr_matrix((np.ones(3), (I3, J3)), shape=(3, 4)),
    "csr_matrix-shape": lambda: sp.csr_matrix((N, N + 1)),
    "csc_array-shape-f4": lambda: sp.csc_array((N, 3), dtype=np.float32),
    "coo_array-shape": lambda: sp.coo_array((N, N)),
    "dia_matrix-shape": lambda: sp.dia_matrix((N, N)),
    "dia_array-data": lambda: sp.dia_array((np.ones((2, N)), [0, 1]), shape=(N, N)),
    "csr_from_dia": lambda: sp.csr_array(tri_array()),
    "csc_matrix_from_csr": lambda: sp.csc_matrix(tri("csr")),
    "coo_from_csr": lambda: sp.coo_matrix(tri("csr")),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCTIONS))
def test_construction(name):
    both(CONSTRUCTIONS[name])


def test_fakes_given_outside_a_mode():
    """Fake arrays given outside any mode make fake sparse arrays too (no real allocation)."""
    data = ft.empty((3, 10 ** 9))
    A = sp.spdiags(data, [-1, 0, 1], 10 ** 9, 10 ** 9)
    assert A.nnz == 3 * 10 ** 9 - 2 and A.format == "dia" and ft.is_fake(A.data)
    assert isinstance(A, sp.dia_matrix) and A.offsets.dtype == np.int32
    x = ft.empty((10 ** 9,))
    y = A @ x
    assert ft.is_fake(y) and y.shape == (10 ** 9,)


def test_index_dtype_at_full_size():
    """int64 indices where SciPy needs them: shape or stored count past int32."""
    with ft.FakeMode():
        A = sp.diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(10 ** 8, 10 ** 8), format="csr")
        assert (A.indices.dtype, A.indptr.dtype, A.nnz) == (np.int32, np.int32, 3 * 10 ** 8 - 2)
        A = sp.diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(10 ** 9, 10 ** 9), format="csr")
        assert (A.indices.dtype, A.indptr.dtype, A.nnz) == (np.int64, np.int64, 3 * 10 ** 9 - 2)
        assert A.offsets.dtype if A.format == "dia" else True
        B = sp.eye_array(3 * 10 ** 9, format="csr")
        assert B.indices.dtype == np.int64 and B.nnz == 3 * 10 ** 9
        C = sp.kron(sp.eye(10 ** 5, format="csr"), sp.eye(10 ** 5, format="csr"), format="csr")
        assert C.shape == (10 ** 10, 10 ** 10) and C.indices.dtype == np.int64


# --- conversions -------------------------------------------------------------------------

SOURCES = {
    "dia": lambda: tri(),
    "dia-array": lambda: tri_array(),
    "csr": lambda: tri("csr"),
    "csc-array": lambda: tri_array("csc"),
    "coo": lambda: tri("coo"),
    "coo-array-eye": lambda: sp.eye_array(N, format="coo"),
    "csr-f4": lambda: tri("csr", dtype=np.float32),
}
CONVERSIONS = {
    "tocsr": lambda A: A.tocsr(),
    "tocsc": lambda A: A.tocsc(),
    "tocoo": lambda A: A.tocoo(),
    "T": lambda A: A.T,
    "transpose": lambda A: A.transpose(),
    "astype-f4": lambda A: A.astype(np.float32),
    "astype-c16": lambda A: A.astype(np.complex128),
    "astype-same": lambda A: A.astype(A.dtype),
    "copy": lambda A: A.copy(),
    "asformat-csr": lambda A: A.asformat("csr"),
    "T.tocsr": lambda A: A.T.tocsr(),
    "toarray": lambda A: A.toarray(),
    "todense": lambda A: A.todense(),
}


@pytest.mark.parametrize("conv", sorted(CONVERSIONS))
@pytest.mark.parametrize("src", sorted(SOURCES))
def test_conversion(src, conv):
    both(lambda: CONVERSIONS[conv](SOURCES[src]()))


def test_dia_toarray_of_unknown_diagonals_refuses():
    with ft.FakeMode():
        A = sp.diags([np.empty(N - 1), np.empty(N)], [1, 0])
        assert A.format == "dia" and A.nnz == 2 * N - 1
        with pytest.raises(ft.DataDependentError, match="tocsr"):
            A.tocsr()


# --- arithmetic ---------------------------------------------------------------------------

ARITH = {
    "scalar*": lambda A: 3.0 * A,
    "*scalar": lambda A: A * 2,
    "/scalar": lambda A: A / 4.0,
    "neg": lambda A: -A,
    "multiply-scalar": lambda A: A.multiply(0.5),
    "complex*": lambda A: A * (1 + 2j),
    "abs": lambda A: abs(A),
    "+0": lambda A: A + 0,
    "-0": lambda A: A - 0,
    "0-": lambda A: 0 - A,
    "+dense": lambda A: A + np.ones(A.shape),
    "dense+": lambda A: np.ones(A.shape, np.float32) + A,
    "+dense-F": lambda A: A + np.ones(A.shape, order="F"),
    "+row": lambda A: A + np.ones(A.shape[1], np.complex64),
    "-dense": lambda A: A - np.ones(A.shape),
    "dense-": lambda A: np.ones(A.shape) - A,
}


def test_nonzero_scalar_sum_refuses_as_scipy():
    for fn in (lambda: tri("csr") + 1.0, lambda: tri("csr") - 2, lambda: 3 - tri("csr")):
        with pytest.raises(NotImplementedError):
            fn()
        with ft.FakeMode():
            with pytest.raises(NotImplementedError):
                fn()


@pytest.mark.parametrize("op", sorted(ARITH))
@pytest.mark.parametrize("src", ["csr", "dia", "coo-array-eye", "csc-array"])
def test_arithmetic(src, op):
    both(lambda: ARITH[op](SOURCES[src]()))


# --- products ------------------------------------------------------------------------------

def _x(shape, dtype=np.float64, order="C"):
    return np.ones(shape, dtype=dtype, order=order)


PRODUCTS = {
    "A@x": lambda A: A @ _x(A.shape[1]),
    "A.dot(x)": lambda A: A.dot(_x(A.shape[1])),
    "A@x-f4": lambda A: A @ _x(A.shape[1], np.float32),
    "A@x-c16": lambda A: A @ _x(A.shape[1], np.complex128),
    "A@x-i8": lambda A: A @ _x(A.shape[1], np.int64),
    "A@col": lambda A: A @ _x((A.shape[1], 1)),
    "A@X": lambda A: A @ _x((A.shape[1], 3)),
    "A@X-F": lambda A: A @ _x((A.shape[1], 3), order="F"),
    "A@X-strided": lambda A: A @ _x((A.shape[1], 6))[:, ::2],
    "x@A": lambda A: _x(A.shape[0]) @ A,
    "X@A": lambda A: _x((2, A.shape[0])) @ A,
    "A@x-list": lambda A: A @ [1.0] * A.shape[1],
}


@pytest.mark.parametrize("op", sorted(PRODUCTS))
@pytest.mark.parametrize("src", ["csr", "csc-array", "dia", "coo", "csr-f4"])
def test_product(src, op):
    if op == "A@x-list":
        both(lambda: SOURCES[src]() @ ([1.0] * N))
        return
    both(lambda: PRODUCTS[op](SOURCES[src]()))


def test_matrix_star_is_the_product():
    both(lambda: tri("csr") * _x(N))
    both(lambda: tri("csr") * _x((N, 2)))


def test_sparse_product_flops():
    """2 FLOPs per stored element and right-hand column (kernels/scipy/sparse.py)."""
    with ft.FakeMode(record=True) as mode:
        A = tri("csr", 100)
        x = np.ones(100)
        X = np.ones((100, 4))
        n0 = len(mode.trace)
        A @ x
        A @ X
        tri("dia", 100) @ x
        ops = [e for e in mode.trace[n0:] if "matvec" in str(e.op)]
    assert [e.flops for e in ops] == [2 * 298, 2 * 298 * 4, 2 * 298]


# --- solvers --------------------------------------------------------------------------------

SOLVES = {
    "spsolve-csc": lambda: spla.spsolve(tri("csc"), _x(N)),
    "spsolve-csr": lambda: spla.spsolve(tri_array("csr"), _x(N)),
    "spsolve-col": lambda: spla.spsolve(tri("csc"), _x((N, 1))),
    "spsolve-2d": lambda: spla.spsolve(tri("csc"), _x((N, 3))),
    "spsolve-f4": lambda: spla.spsolve(tri("csc", dtype=np.float32), _x(N)),
    "spsolve-f4-b": lambda: spla.spsolve(tri("csc", dtype=np.float32), _x(N, np.float32)),
    "spsolve-c16": lambda: spla.spsolve(tri("csc"), _x(N, np.complex128)),
    "spsolve-i8-A": lambda: spla.spsolve(sp.diags_array([1, 3, 1], offsets=[-1, 0, 1],
                                                        shape=(N, N), format="csc",
                                                        dtype=np.int64), _x(N)),
}


@pytest.mark.parametrize("name", sorted(SOLVES))
def test_solve(name):
    both(SOLVES[name])


# --- LIL: construction, item assignment, conversions ------------------------------------

def _lil(src=None, dtype=None):
    return sp.lil_matrix(tri() if src is None else src, dtype=dtype)


def _set(L, *items):
    for i, j, v in items:
        L[i, j] = v
    return L


def _pic(n=N, stacked=True):
    """pmocz/pic-python's gradient matrix: spdiags, LIL, two corners set, divided, CSR
    (``stacked``: the diagonals as one array, as pic gives them, else as a list)."""
    e = np.ones(n)
    G = sp.spdiags(np.vstack((-e, e)) if stacked else [-e, e], np.array([-1, 1]), n, n)
    G = sp.lil_matrix(G)
    G[0, n - 1] = -1
    G[n - 1, 0] = 1
    G /= 2 * 0.125
    return sp.csr_matrix(G)


def _idiv(L, v):
    L /= v
    return L


def _imul(L, v):
    L *= v
    return L


def _iadd(L, v):
    L += v
    return L


# set, replaced (a stored position), deleted (a zero), a zero where nothing is stored,
# negative indices
EDITS = ((0, N - 1, -1), (N - 1, 0, 1.5), (1, 2, 5), (3, 3, 0), (5, 9, 0.0), (-1, -2, 0),
         (-2, 0, np.float32(2)), (4, 4, np.int64(7)))

LILS = {
    "lil_matrix-shape": lambda: sp.lil_matrix((N, N + 3)),
    "lil_array-shape-f4": lambda: sp.lil_array((N, 4), dtype=np.float32),
    "lil_matrix-shape-int": lambda: sp.lil_matrix((N, N), dtype=np.int64),
    "lil-of-dia": lambda: _lil(),
    "lil_array-of-dia": lambda: sp.lil_array(tri_array()),
    "lil-of-csr": lambda: _lil(tri("csr")),
    "lil-of-csc": lambda: _lil(tri("csc")),
    "lil-of-coo": lambda: _lil(tri("coo")),
    "lil-of-lil": lambda: sp.lil_matrix(_lil()),
    "lil-of-lil-copy": lambda: sp.lil_matrix(_lil(), copy=True),
    "lil-dtype": lambda: _lil(dtype=np.float32),
    "tolil": lambda: tri("csr").tolil(),
    "tolil-copy": lambda: tri("csr").tolil(copy=True),
    "dia.tolil": lambda: tri().tolil(),
    "asformat-lil": lambda: tri("csc").asformat("lil"),
    "set": lambda: _set(_lil(), *EDITS),
    "set-empty": lambda: _set(sp.lil_array((N, N)), *EDITS),
    "set-then-tocsr": lambda: _set(_lil(), *EDITS).tocsr(),
    "set-then-csr_matrix": lambda: sp.csr_matrix(_set(_lil(), *EDITS)),
    "set-then-csc": lambda: _set(_lil(), *EDITS).tocsc(),
    "set-then-coo": lambda: _set(_lil(), *EDITS).tocoo(),
    "set-rect": lambda: _set(sp.lil_matrix(sp.diags([1.0, 3.0], [0, 4], shape=(N, N + 5))),
                             (0, N + 4, 1), (0, 4, 0), (N - 1, N + 3, 2)).tocsr(),
    "pic": lambda: _pic(),
    "pic-list": lambda: _pic(stacked=False),
    "lil-of-empty-csr": lambda: _set(sp.lil_matrix(sp.csr_matrix((N, N))), *EDITS).tocsr(),
    "idiv": lambda: _idiv(_lil(), 4.0),
    "idiv-int": lambda: _idiv(_set(sp.lil_matrix((N, N), dtype=np.int64), (1, 1, 3)), 2.0),
    "imul": lambda: _imul(_lil(), 3),
    "imul-zero": lambda: _imul(_lil(), 0),
    "iadd-zero": lambda: _iadd(_set(_lil(), *EDITS), 0),
    "div": lambda: _lil() / 2.0,
    "div-f4": lambda: _lil(dtype=np.float32) / 2.0,
    "mul": lambda: _lil() * 2.5,
    "mul-complex": lambda: _lil() * 1j,
    "rmul": lambda: 2.5 * _lil(),
    "mul-zero": lambda: _lil() * 0,
    "astype": lambda: _lil().astype(np.float32),
    "astype-same": lambda: _lil().astype(np.float64),
    "copy": lambda: _set(_lil(), *EDITS).copy(),
    "T": lambda: _set(_lil(), *EDITS).T,
    "neg": lambda: -_lil(),
    "abs": lambda: abs(_lil()),
    "toarray": lambda: _set(_lil(), *EDITS).toarray(),
    "toarray-empty": lambda: sp.lil_matrix((N, 3)).toarray(),
    "todense": lambda: _lil().todense(),
    "matvec": lambda: _set(_lil(), *EDITS) @ np.ones(N),
    "matmat": lambda: _lil() @ np.ones((N, 3)),
    "plus-dense": lambda: _lil() + np.ones((N, N)),
    "csr-of-empty-rows": lambda: sp.lil_matrix((0, N)).tocsr(),
    "int64-indices": lambda: _set(sp.lil_matrix((50000, 50000)), (3, 49999, 1.0)).tocsr(),
}


@pytest.mark.parametrize("name", sorted(LILS))
def test_lil(name):
    """LIL results: class, format, shape, dtype, stored count, rows/data (and every array
    of what they convert to) as SciPy's, and NumPy's peak and live bytes."""
    both(LILS[name])


def test_lil_pic_at_full_size():
    """pic's matrices at 10^6 cells: the stored count follows from the structure (the
    diagonals known nonzero: np.ones and its negation), nothing proportional to the size is
    computed. Stacked into one array of unknown values, the diagonals may hold zeros, which
    the conversion to CSR drops: the plan stops there."""
    n = 10 ** 6
    with ft.FakeMode() as mode:
        G = _pic(n, stacked=False)
        assert (G.format, G.nnz, G.indices.dtype) == ("csr", 2 * n, np.int32)
        assert mode.memory.live["cpu"] == 2 * n * (8 + 4) + (n + 1) * 4
        with pytest.raises(ft.DataDependentError, match="dia_matrix.tocsr"):
            _pic(n)


def test_lil_index_errors_as_scipy():
    for key in ((N, 0), (-N - 1, 0), (0, N), (0, -N - 1)):
        with pytest.raises(IndexError) as real:
            _lil()[key] = 1
        with ft.FakeMode():
            with pytest.raises(IndexError) as fake:
                _lil()[key] = 1
        assert str(fake.value) == str(real.value)
    for value, words in ((np.ones(2), "size 1"), ([1.0, 2.0], "sequence")):
        with pytest.raises(ValueError, match=words):
            _lil()[0, 0] = value
        with ft.FakeMode():
            with pytest.raises(ValueError, match=words):
                _lil()[0, 0] = value


LIL_REFUSALS = {
    # whether (0, 0) is stored depends on the index values of the CSR it was made from
    "set into unknown structure": (lambda: _set(sp.lil_matrix(sp.kron(
        tri("csr", 3), tri("csr", 3), format="csr")), (0, 0, 1.0)), "lil_matrix.__setitem__"),
    "tolil of unknown duplicates": (lambda: sp.csr_matrix(
        (np.ones(3), np.empty(3, np.int32), np.array([0, 1, 2, 3])), shape=(3, 3)).tolil(),
        "sum_duplicates"),
    # lil_insert deletes the element for a zero value
    "set an unknown value": (lambda: _set(_lil(), (0, 0, np.random.default_rng(0).random())),
                             "lil_matrix.__setitem__"),
    "dense to lil": (lambda: sp.lil_matrix(np.ones((N, N))), "scipy.sparse.lil_matrix"),
    "mul by an unknown scalar": (lambda: _lil() * np.random.default_rng(0).random(),
                                 "lil_matrix._mul_scalar"),
}


@pytest.mark.parametrize("name", sorted(LIL_REFUSALS))
def test_lil_value_dependent_calls_refuse(name):
    fn, names = LIL_REFUSALS[name]
    fn()  # real SciPy answers
    with ft.FakeMode():
        with pytest.raises(ft.DataDependentError, match=names.replace(".", r"\.")):
            fn()


def test_lil_unmodelled_indexing_refuses():
    with ft.FakeMode():
        L = _lil()
        with pytest.raises(ft.UnsupportedOperationError, match="__setitem__"):
            L[0, :] = 1.0
        with pytest.raises(ft.UnsupportedOperationError, match="__setitem__"):
            L -= np.ones((N, N))  # SciPy: L[:, :] = L - dense
        with pytest.raises(ft.UnsupportedOperationError, match="__getitem__"):
            L[0, 1]
        with pytest.raises(AttributeError):
            L.indices
        assert not hasattr(L, "has_canonical_format")


# --- refusals: what needs the values -------------------------------------------------------

def _fake_ij():
    return np.arange(N) % 5, np.arange(N) // 3


REFUSALS = {
    "sparse @ sparse": (lambda: tri("csr") @ tri("csr"), "__matmul__"),
    "sparse.dot(sparse)": (lambda: tri("csr").dot(tri("csc")), "__matmul__"),
    "A + A": (lambda: tri("csr") + tri("csr"), "__add__"),
    "A - A": (lambda: tri("csr") - tri("csr"), "__sub__"),
    "dense to csr": (lambda: sp.csr_array(np.ones((N, N))), "scipy.sparse.csr_array"),
    "dense to coo": (lambda: sp.coo_matrix(np.ones((N, N))), "scipy.sparse.coo_matrix"),
    "eliminate_zeros": (lambda: tri("csr").eliminate_zeros(), "eliminate_zeros"),
    "count_nonzero": (lambda: tri("csr").count_nonzero(), "count_nonzero"),
    "coo sum_duplicates": (lambda: sp.coo_array((np.ones(N), _fake_ij()), shape=(5, 4))
                           .sum_duplicates(), "sum_duplicates"),
    "coo tocsr": (lambda: sp.coo_array((np.ones(N), _fake_ij()), shape=(5, 4)).tocsr(),
                  "coo_array.tocsr"),
    "csr from (data, (i, j))": (lambda: sp.csr_matrix((np.ones(N), _fake_ij()), shape=(5, 4)),
                                "scipy.sparse.csr_matrix"),
    "unknown indptr": (lambda: sp.csr_array((np.ones(N), np.zeros(N, np.int32),
                                             np.arange(N + 1, dtype=np.int32)
                                             * np.random.default_rng(0).integers(1, 2)),
                                            shape=(N, N)),
                       "scipy.sparse.csr_array"),
    "unknown offsets": (lambda: sp.spdiags(np.ones((2, N)),
                                           np.random.default_rng(0).integers(-1, 2, 2), N, N),
                        "scipy.sparse.spdiags"),
    "unknown diagonals to csr": (lambda: sp.diags([np.empty(N)], [0], format="csr"),
                                 "tocsr"),
    "diags_array unknown offsets": (lambda: sp.diags_array(
        [1.0, 2.0], offsets=np.random.default_rng(0).permutation(2)),
                                    "scipy.sparse.diags_array"),
    "cg": (lambda: spla.cg(tri("csr"), np.ones(N)), "scipy.sparse.linalg.cg"),
    "bicgstab": (lambda: spla.bicgstab(tri("csr"), np.ones(N)), "scipy.sparse.linalg.bicgstab"),
    "gmres": (lambda: spla.gmres(tri("csr"), np.ones(N)), "scipy.sparse.linalg.gmres"),
    "todia": (lambda: tri("csr").todia(), "todia"),
    "has_canonical_format": (lambda: sp.csr_array((np.ones(3), np.empty(3, np.int32),
                                                   [0, 1, 2, 3]), shape=(3, 3))
                             .has_canonical_format, "has_canonical_format"),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_value_dependent_calls_refuse(name):
    fn, names = REFUSALS[name]
    fn()  # real SciPy answers
    with ft.FakeMode():
        with pytest.raises(ft.DataDependentError, match=names.replace(".", r"\.")) as e:
            fn()
    assert "scipy" in str(e.value) or "sparse" in str(e.value)


def test_unknown_index_values_are_taken_as_valid():
    """As NumPy's indexing kernels, fake index arrays are taken to hold valid indices: a
    COO built from them gets the index dtype SciPy gives valid ones."""
    row, col = np.arange(N) % 5, np.arange(N) % 4
    real = sp.coo_array((np.ones(N), (row, col)), shape=(5, 4))
    with ft.FakeMode():
        fake = sp.coo_array((np.ones(N), (np.arange(N) % 5, np.arange(N) % 4)), shape=(5, 4))
        compare_sparse(real, fake)
        assert not fake._dupfree


def test_no_fake_reaches_sparsetools(monkeypatch):
    """The compiled sparsetools functions are never called with a fake."""
    from scipy.sparse import _sparsetools
    called = []
    for name in dir(_sparsetools):
        fn = getattr(_sparsetools, name)
        if callable(fn) and not name.startswith("_"):
            def spy(*a, _fn=fn, _name=name, **k):
                called.append(_name)
                return _fn(*a, **k)
            monkeypatch.setattr(_sparsetools, name, spy)
    with ft.FakeMode():
        A = sp.kron(sp.eye(3, format="csr"), tri("csr", 4), format="csc")
        A.tocsr().tocoo().tocsr() @ np.ones(12)
        A.T @ np.ones((12, 2))
        spla.spsolve(A, np.ones(12))
    assert called == []


def test_unsupported_formats_refuse_fakes():
    with ft.FakeMode():
        with pytest.raises(ft.UnsupportedOperationError, match="todok"):
            tri("csr").todok()
        with pytest.raises(ft.UnsupportedOperationError, match="bsr"):
            sp.bsr_array(tri_array("csr"))
        with pytest.raises(ft.UnsupportedOperationError, match="power"):
            tri("csr").power(2)
        with pytest.raises(ft.UnsupportedOperationError, match="__getitem__"):
            tri("csr")[1:3]
        with pytest.raises(ft.UnsupportedOperationError, match="sum"):
            tri("csr").sum()


def test_repr_and_attributes_do_not_read_values():
    with ft.FakeMode():
        A = tri("csr", 10 ** 8)
        text = repr(A)
        assert "299999998 stored elements" in text and "CSR" in text
        with pytest.raises(TypeError):
            len(A)
        with pytest.raises(NotImplementedError):
            np.asarray(A)


def test_real_sparse_meets_fake_operand():
    """A real sparse matrix built before the mode, with a fake vector: the fake result."""
    A = tri("csr")
    real = A @ np.ones(N)
    with ft.FakeMode():
        fake = sp.csr_matrix(A) @ np.ones(N)
        compare_meta(real, fake, [], [])


# --- a Poisson / heat-equation script --------------------------------------------------------

@pytest.mark.parametrize("n", [16, 33, 64])
def test_poisson_script_fake_equals_real(n):
    main_fake_equals_real("poisson_sparse", n)


def test_faketensor_run_plans_the_poisson_script(tmp_path):
    """``faketensor run`` at a small size: the planned peak is the real run's; at full size
    (10^6 points) it completes in seconds."""
    from test_plan import run_cli
    run_plans_the_real_peak("poisson_sparse.py", "40", "scipy.sparse, scipy.sparse.linalg",
                            tmp_path)
    rc, out, err, data = run_cli("poisson_sparse.py", "1000000", tmp_path=tmp_path)
    assert rc == 0, err
    assert data["status"] == "completed"
    assert data["devices"]["cpu"]["peak_bytes"] > 10 ** 12


def test_scipy_imported_before_faketensor(tmp_path):
    """SciPy's modules bound NumPy's functions by name before faketensor patched them:
    spsolve and kron still get the patches."""
    code = ("import numpy as np, scipy.sparse as sp, scipy.sparse.linalg as spla\n"
            "import faketensor as ft\n"
            "with ft.FakeMode():\n"
            "    A = sp.diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(10**8, 10**8), format='csc')\n"
            "    u = spla.spsolve(A, np.ones(10**8))\n"
            "    K = sp.kron(sp.eye(3, format='csr'), A, format='csr')\n"
            "    print(type(u).__name__, u.shape, K.nnz)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["FakeArray", "(100000000,)", str(3 * (3 * 10 ** 8 - 2))]


@pytest.mark.parametrize("dtype,b_dtype", [(np.float64, np.float64), (np.float32, np.float32),
                                           (np.float64, np.complex128),
                                           (np.float32, np.float64)])
def test_cg_with_placeholders(dtype, b_dtype):
    """Under ``data_dependent="placeholder"`` cg gives the solution's metadata and SciPy's
    peak (the loop allocates the same each iteration from the second on); the assumptions
    are listed. (Without placeholders it refuses: test_value_dependent_calls_refuse.)"""
    def prog():
        A = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(40, 40), format="csr",
                     dtype=dtype)
        x, info = spla.cg(A, np.ones(40, b_dtype))
        return x
    keep: list = []
    real_peak, real_live = measure_peak(lambda: keep.append(prog()))
    with ft.FakeMode(data_dependent="placeholder") as mode:
        x = prog()
        assert (mode.memory.peak["cpu"], mode.memory.live["cpu"]) == (real_peak, real_live)
        compare_meta(keep[0], x, [], [])
    assert any("scipy.sparse.linalg.cg" in p["message"] for p in mode.placeholders)


# --- awkward dense operands -----------------------------------------------------------------

from faketensor.meta_utils.surveys.samples import A as Spec, LAYOUTS  # noqa: E402


@pytest.mark.parametrize("dt", ["f8", "f4", "c16", "i8", "?"])
@pytest.mark.parametrize("lay", LAYOUTS)
@pytest.mark.parametrize("shape", [(N,), (N, 3), (N, 1)])
def test_product_with_awkward_operands(lay, shape, dt):
    """Every layout of the sample generators (C, F, transposed, negative-stride, strided,
    broadcast, offset) and dtype family as the dense operand, on the left and the right."""
    both(lambda: tri("csr") @ Spec(lay, shape, dt).make(np))
    both(lambda: tri_array("csc") @ Spec(lay, shape, dt).make(np))
    both(lambda: tri("dia") @ Spec(lay, shape, dt).make(np))
    both(lambda: sp.eye_array(N, format="coo") @ Spec(lay, shape, dt).make(np))
    both(lambda: Spec(lay, shape[::-1], dt).make(np) @ tri("csr"))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "dia", None])
def test_empty_shapes(fmt):
    both(lambda: sp.eye(0, format=fmt))
    both(lambda: sp.eye_array(3, 0, format=fmt))
    both(lambda: sp.diags([1.0], [0], shape=(0, 0), format=fmt))
    both(lambda: sp.csr_matrix((0, 5)) @ np.ones(5))
