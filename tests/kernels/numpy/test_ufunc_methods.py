"""ufunc.at / reduceat / accumulate / outer: special cases beyond the op table (tests/opinfo.py).

Index values: a real index (list, ndarray) keeps its values and is checked as NumPy checks it;
a fake index has none, so an out-of-bounds value among them is accepted (documented in
kernels/numpy/ufunc_object.py), except on an empty axis, where no index is in bounds.
"""
from __future__ import annotations

import numpy as np
import pytest

import faketensor as ft
from memtools import op_peaks
from oracle import check


def _conv_backward(x, w, dy, idx):
    """The backward pass of a 1-d convolution written with im2col: the input gradient is
    scattered back with np.add.at (as CNN code written in NumPy does)."""
    n, c, length = x.shape
    k = w.shape[-1]
    cols = x[:, :, idx]                                   # (n, c, out, k) gather
    dw = np.einsum("ncok,nfo->fck", cols, dy)
    dcols = np.einsum("fck,nfo->ncok", w, dy)
    dx = np.zeros_like(x)
    np.add.at(dx, (slice(None), slice(None), idx), dcols)
    return dx, dw


def _conv_inputs(n=2, c=3, length=16, f=4, k=3):
    out = length - k + 1
    idx = np.arange(out)[:, None] + np.arange(k)[None, :]
    rng = np.random.default_rng(0)
    return (rng.random((n, c, length)), rng.random((f, c, k)), rng.random((n, f, out)), idx)


def test_cnn_backward_add_at_matches_numpy():
    real = _conv_backward(*_conv_inputs())
    with ft.FakeMode():
        fake = _conv_backward(*_conv_inputs())
    for r, f in zip(real, fake):
        assert ft.is_fake(f)
        assert (f.shape, f.dtype, f.strides) == (r.shape, r.dtype, r.strides)


def test_cnn_backward_peak_matches_tracemalloc():
    def setup():
        return list(_conv_inputs(n=4, c=8, length=256))
    (rp, rl), (fp, fl) = op_peaks(setup, _conv_backward)
    assert (fp, fl) == (rp, rl)


def test_at_is_in_place_and_returns_none():
    with ft.FakeMode():
        a = np.zeros((5, 3))
        before = (a.shape, a.strides, a.storage, a.storage_offset)
        assert np.add.at(a, np.array([0, 1, 1]), np.ones((3, 3))) is None
        assert (a.shape, a.strides, a.storage, a.storage_offset) == before


def test_at_real_index_out_of_bounds_raises_fake_index_is_accepted():
    with ft.FakeMode():
        a = np.zeros(4)
        with pytest.raises(IndexError, match="index 7 is out of bounds"):
            np.add.at(a, [0, 7], 1.0)
        np.add.at(a, np.empty(3, np.intp), 1.0)  # values unknown: accepted
        with pytest.raises(IndexError, match="out of bounds"):
            np.add.at(a, np.full(3, 7), 1.0)  # known values (faketensor/_known.py): checked
        with pytest.raises(IndexError):
            np.add.at(np.zeros(0), np.zeros(2, np.intp), 1.0)  # an empty axis has no valid index


def test_at_fake_boolean_index_is_data_dependent():
    with ft.FakeMode(sizes=ft.SizePolicy("refuse")):  # by default the selection's length is a bounded size
        a = np.zeros(4)
        with pytest.raises(ft.DataDependentError):
            np.add.at(a, np.empty(4, bool), 1.0)  # values unknown
        np.add.at(a, a > 0, 1.0)  # a known mask (faketensor/_known.py): selects none
        np.add.at(a, np.zeros(0, bool), 1.0)  # empty: nothing is selected whatever the values


@pytest.mark.parametrize("case", [
    lambda a, i: np.add.at(a, i, a[: len(i)]),               # values overlap a: a is copied
    lambda a, i: np.multiply.at(a, (i,), 2),
    lambda a, i: np.maximum.at(a.reshape(4, 5), (slice(None), i[:2]), np.ones((4, 1), np.float32)),
    lambda a, i: np.negative.at(a[::-2], i[:3]),
    lambda a, i: np.add.at(a, i.astype(np.int8), [1.0, 2.0, 3.0, 4.0, 5.0]),
])
def test_at_memory_matches_tracemalloc(case):
    def setup():
        return [np.zeros(20), np.arange(5)]
    (rp, rl), (fp, fl) = op_peaks(setup, case)
    assert (fp, fl) == (rp, rl)


def test_at_argument_errors_like_numpy():
    a = np.zeros((3, 4))
    check(lambda a: np.add.at(a, [0]), a)                     # ValueError: second operand needed
    check(lambda a: np.negative.at(a, [0], 1), a)             # ValueError: provided when unary
    check(lambda a: np.divmod.at(a, [0], 1), a)               # ValueError: single output only
    check(lambda a: np.matmul.at(a, [0], 1), a)               # TypeError: signature
    check(lambda a: np.add.at(a, [0], np.ones((2, 4))), a)    # ValueError: not broadcastable
    check(lambda a: np.add.at(a, [0.5], 1), a)                # IndexError: float index
    check(lambda a: np.add.at(a, [0], "x"), a)                # UFuncTypeError
    check(lambda a: np.add.at(a, 0, 1, 2), a)                 # TypeError: too many arguments
    check(lambda a: np.add.at(np.broadcast_to(a[0], (3, 4)), [0], 1), a)  # read-only subspace
    check(lambda a: np.add.at(np.broadcast_to(a[0], (3, 4)), ([0], [1]), 1), a)  # no subspace


def test_reduceat_index_values():
    with ft.FakeMode():
        a = np.ones((6, 2))
        with pytest.raises(IndexError, match=r"index 6 out-of-bounds in add.reduceat \[0, 6\)"):
            np.add.reduceat(a, [0, 6])
        r = np.add.reduceat(a, np.full(3, 99))  # fake indices: accepted
        assert r.shape == (3, 2)
        with pytest.raises(IndexError):
            np.add.reduceat(np.ones((0, 2)), np.zeros(1, np.intp))


@pytest.mark.parametrize("case", [
    lambda a, i: np.add.reduceat(a, i),
    lambda a, i: np.add.reduceat(a.T, i[:2], axis=1),
    lambda a, i: np.add.reduceat(a, i.astype(np.int16), axis=0, dtype=np.float32),
    lambda a, i: np.multiply.reduceat(a[:, 0], [0, 3, 4]),
    lambda a, i: np.add.reduceat(a, i, out=a[:3]),             # out overlaps the input
])
def test_reduceat_memory_matches_tracemalloc(case):
    def setup():
        return [np.ones((64, 32)), np.array([0, 10, 40])]
    (rp, rl), (fp, fl) = op_peaks(setup, case)
    assert (fp, fl) == (rp, rl)


def test_methods_under_crossref():
    a = ft.wrap(np.arange(12.0).reshape(3, 4))
    with ft.CrossRefMode() as mode:
        np.add.at(a, [0, 0, 2], 1.0)
        np.add.reduceat(a, [0, 2], axis=1)
        np.maximum.accumulate(a, axis=0)
        np.subtract.outer(a[0], a[:, 0])
    assert mode.checked >= 4 and not mode.unsupported
