"""Differential tests: where, clip, sort/argsort, roll, tril/triu, diag, meshgrid,
searchsorted, round, isclose and the data-dependent functions."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import faketensor as ft
from oracle import NUMERIC, arrays, check, compare_meta, shapes_broadcastable

SET = settings(max_examples=60, deadline=None)
REAL = [d for d in NUMERIC if d.kind != "c"]
SCALARS = st.sampled_from([0, 1, -3, 300, 1.5, 2j, True])


@SET
@given(st.data())
def test_where_hypothesis(data):
    shapes = data.draw(shapes_broadcastable(3))
    c = data.draw(arrays(dtypes=[np.dtype(bool), np.dtype(np.int8)], shape=shapes[0]))
    x = data.draw(arrays(shape=shapes[1]))
    y = data.draw(arrays(shape=shapes[2]))
    check(np.where, c, x, y)
    s = data.draw(SCALARS)
    check(lambda c, x: np.where(c, x, s), c, x)
    check(lambda c, y: np.where(c, s, y), c, y)
    check(lambda c: np.where(c, s, 1.0), c)


@SET
@given(st.data())
def test_clip_hypothesis(data):
    shapes = data.draw(shapes_broadcastable(3))
    a = data.draw(arrays(dtypes=REAL, shape=shapes[0]))
    lo = data.draw(arrays(dtypes=REAL, shape=shapes[1]))
    hi = data.draw(arrays(dtypes=REAL, shape=shapes[2]))
    check(np.clip, a, lo, hi)
    check(lambda a, h: a.clip(max=h), a, hi)
    s = data.draw(st.sampled_from([0, 1, -300, 300, 2**70, 1.5, None]))
    check(lambda a, h: np.clip(a, s, h), a, hi)
    check(lambda a: np.clip(a, s, 1), a)
    check(lambda a: a.clip(s), a)


@SET
@given(arrays(dtypes=REAL, max_dims=4), st.sampled_from([None, 0, -1, 1, 3, -5]))
def test_sort_hypothesis(a, axis):
    check(lambda x: np.sort(x, axis=axis), a)
    check(lambda x: np.argsort(x, axis=axis), a)
    check(lambda x: x.argsort(axis=axis, kind="stable"), a)
    if axis is not None:
        check(lambda x: x.sort(axis=axis), a)


@SET
@given(arrays(max_dims=4), st.one_of(st.none(), st.integers(-4, 3), st.just((0, -1))))
def test_roll_hypothesis(a, axis):
    shift = (1, 2) if isinstance(axis, tuple) else 1
    check(lambda x: np.roll(x, shift, axis=axis), a)


@SET
@given(arrays(min_dims=1, max_dims=4), st.integers(-3, 3))
def test_tril_triu_diag_hypothesis(a, k):
    check(lambda x: np.tril(x, k), a)
    check(lambda x: np.triu(x, k), a)
    check(lambda x: np.diag(x, k), a)
    check(lambda x: np.diagflat(x, k), a)


@SET
@given(st.lists(arrays(max_dims=2, max_side=3), min_size=0, max_size=3), st.booleans(),
       st.booleans(), st.sampled_from(["xy", "ij"]))
def test_meshgrid_hypothesis(xs, copy, sparse, indexing):
    try:
        check(lambda *x: np.meshgrid(*x, copy=copy, sparse=sparse, indexing=indexing), *xs)
    except ft.UnsupportedOperationError:
        assert not copy


@SET
@given(arrays(dtypes=REAL, min_dims=1, max_dims=1), arrays(dtypes=REAL, max_dims=3),
       st.sampled_from(["left", "right"]))
def test_searchsorted_hypothesis(a, v, side):
    check(lambda x, y: np.searchsorted(x, y, side=side), a, v)
    check(lambda x: x.searchsorted(3, side), a)


@SET
@given(arrays(max_dims=3), st.integers(-2, 2))
def test_round_hypothesis(a, d):
    check(lambda x: np.round(x, d), a)
    check(lambda x: x.round(d, out=np.empty(x.shape, np.float32)), a)
    check(lambda x: np.around(x, d, out=np.empty(x.shape, order="F")), a)


@SET
@given(st.data())
def test_isclose_hypothesis(data):
    shapes = data.draw(shapes_broadcastable(2))
    a = data.draw(arrays(shape=shapes[0]))
    b = data.draw(arrays(shape=shapes[1]))
    check(np.isclose, a, b)
    check(lambda x: np.isclose(x, 1, equal_nan=True), a)
    check(lambda x: np.isclose(2.0, x, rtol=np.float32(1e-3)), b)


C = np.ones((3, 4))
F = np.asfortranarray(C)
I8 = np.ones((4, 3), np.int8).T
AWKWARD = [
    (np.where, C.astype(bool), F, I8),
    (np.where, F.astype(bool), I8, 300),
    (np.where, F.astype(bool), "abc", I8.astype("U2")),
    (np.where, np.ones((3, 1), bool), np.ones((1, 4), np.float32), 1.0),
    (lambda c, x: np.where(c, x, [1, 2, 3, 4]), C.astype(bool), I8),
    (np.clip, I8, 300, -300),
    (np.clip, I8, np.int16(3), 5),
    (lambda a, o: np.clip(a, 0, 1, out=o), F, np.empty((3, 4), np.float32)),
    (lambda a, o: np.clip(a, 0, 1, out=o), F, np.empty((3, 4), np.int8)),
    (lambda a, o: np.clip(a, 0, 1, out=o, casting="unsafe"), F, np.empty((3, 4), np.int8)),
    (lambda a, o: a.clip(0, 1, o), F, np.empty((2, 3, 4))),
    (lambda a: np.clip(a, min=0), F),
    (lambda a: np.clip(a, 0, 1, min=0), F),
    (lambda a: np.clip(a, 0), F),
    (lambda a: np.clip(a, None, None), F),
    (lambda a: np.clip(a, 0, 1, dtype=np.float32), I8),
    (lambda a: np.sort(a, kind="stable"), F),
    (lambda a: np.sort(a, kind="bogus"), F),
    (lambda a: np.sort(a, order="x"), F),
    (lambda a: np.sort(a, kind="stable", stable=True), F),
    (lambda a: np.sort(a), np.ones((2, 3, 4)).transpose(1, 2, 0)),
    (lambda a: np.argsort(a, axis=0), np.ones(())),
    (lambda a: np.argsort(a), np.ones(())),
    (lambda a: np.sort(a), np.ones(())),
    (lambda a: a.sort(), np.broadcast_to(np.ones(4), (3, 4))),
    (lambda a: np.sort(a), np.ones((3, 4), "U3")),
    (lambda a: np.diag(a), np.ones((3, 4))[::-1, 1:]),
    (lambda a: np.diag(a, 5), C),
    (lambda a: np.diag(a), np.ones((2, 2, 2))),
    (lambda a: np.tril(a), np.ones((2, 3, 4)).transpose(2, 0, 1)),
    (lambda a: np.triu(a, -1), I8),
    (lambda a: np.searchsorted(a, 2), np.ones(4)),
    (lambda a, v: np.searchsorted(a, v), np.ones(4), F),
    (lambda a, s: np.searchsorted(a, 1, sorter=s), np.ones(4), np.arange(4)),
    (lambda a, s: np.searchsorted(a, 1, sorter=s), np.ones(4), np.arange(3)),
    (lambda a: np.searchsorted(a, 1), C),
    (lambda a: np.searchsorted(a, 1, side="bogus"), np.ones(4)),
    (lambda a: np.round(a, 1), np.ones((3, 4), np.complex64).T),
    (lambda a: np.round(a, 1), np.ones((3, 4), bool)),
    (lambda a: np.round(a, -1), I8),
    (lambda a: np.round(a, out=np.empty(5)), I8),
    (lambda a: np.round(a, out=np.empty((3, 4), np.int8)), F),
    (lambda a: np.roll(a, (1, 2), axis=(0, 1, 1)), F),
    (lambda a: np.roll(a, [[1]]), F),
    (lambda a: np.roll(a, 1, axis=2), F),
    (lambda a: np.meshgrid(a, indexing="bogus"), np.ones(3)),
    (lambda a, b: np.meshgrid(a, b, copy=False), np.ones(3)[::2], np.ones((2, 2))),
    (lambda a, b: np.meshgrid(a, b, sparse=True, copy=False), np.ones(3)[::-1], np.ones(2)),
    (lambda a, b: np.isclose(a, b), np.ones(3, "m8[s]"), np.ones(3, "m8[s]")),
    (lambda a, b: np.isclose(a, b), np.ones(3, np.int8), np.ones(3, np.uint64)),
    (lambda a, b: np.array_equal(a, b), C, np.ones(3)),
    (lambda a: np.where(a, 1), C),
]


@pytest.mark.parametrize("i", range(len(AWKWARD)))
def test_awkward(i):
    fn, *args = AWKWARD[i]
    check(fn, *args)


@pytest.mark.parametrize("fn", [lambda a: np.allclose(a, a), lambda a: np.array_equal(a, a)])
def test_data_dependent(fn):
    with pytest.raises(ft.DataDependentError):
        fn(ft.empty((3, 4)))


@pytest.mark.parametrize("fn,lo", [(np.unique, 1), (np.unique_values, 1),
                                   (lambda a: np.where(a)[0], 0)])
def test_data_dependent_lengths_are_bounded_sizes(fn, lo):
    """A length that depends on values is a bounded size (docs/guide/bounded-sizes.md)."""
    k = fn(ft.empty((3, 4), np.int64)).shape[0]
    assert isinstance(k, ft.BoundedSize) and (k.lo, k.hi) == (lo, 12)


@pytest.mark.parametrize("args,kw", [
    ((0, 1, 5), {}), ((0, 1, 1), {}), ((0, 1, 5), {"dtype": int}), ((0, 1, 5), {"endpoint": False}),
    ((0, 1, 0), {}), ((0, 1, 0), {"endpoint": False}), ((0, 1, 5), {"dtype": np.float32}),
    ((0, 1, 5), {"dtype": float}), ((0, 1, 5), {"axis": -1}), ((1, 1, 5), {}),
    ((np.float32(0), 1, 5), {}), ((0j, 1, 3), {}), ((np.zeros(2), 1, 5), {}),
    ((np.zeros(2), 1, 5), {"axis": 1}), ((np.zeros((2, 3)), np.ones(3), 4), {"axis": -1}),
    ((0, 1, 3), {"retstep": True}), ((0, 1, 1), {"retstep": True}),
    ((np.zeros(2), 1, 3), {"retstep": True}), ((0, 1, -1), {}),
])
def test_linspace_layout_and_step(args, kw):
    """function_base.py linspace: with scalar bounds the result is scaled in place, a view of
    its arange (owndata False) unless astype copies; the step is NumPy's scalar."""
    try:
        real = np.linspace(*args, **kw)
    except Exception as e:
        with pytest.raises(type(e)), ft.FakeMode():
            np.linspace(*args, **kw)
        return
    with ft.FakeMode():
        fake = np.linspace(*args, **kw)
    if kw.get("retstep"):
        (real, step), (fake, fstep) = real, fake
        if isinstance(step, np.ndarray):
            compare_meta(step, fstep, [], [], "linspace step")
        else:
            assert type(fstep) is type(step) and (fstep == step or np.isnan(step))
    compare_meta(real, fake, [], [], "linspace")
    assert fake.flags.owndata == real.flags.owndata
