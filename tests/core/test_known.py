"""Fakes known to hold one value (faketensor/_known.py), against real NumPy: where the value
is known the fake answers ``bool()``/``float()``/``nonzero`` as the real array does; after
any write it cannot follow, it refuses (DataDependentError) instead of answering."""
import numpy as np
import pytest

import faketensor as ft
from faketensor import _known


def _unknown(xp, shape=(4,), dtype=float):
    """An array whose values the fake does not know (real: some values)."""
    if xp is _REAL:
        return np.arange(1, 1 + int(np.prod(shape)), dtype=dtype).reshape(shape)
    return np.empty(shape, dtype)


_REAL = object()

# programs whose final value is one number; the fake must give the same from known values
KNOWN_PROGRAMS = {
    "zeros.any": lambda u: bool(np.zeros((3, 4), bool).any()),
    "ones.all": lambda u: bool(np.ones((3, 4)).all()),
    "full*2": lambda u: float((np.full((2, 3), 3.5) * 2)[1, 2]),
    "zeros_like|ones_like": lambda u: bool(np.logical_or(np.zeros_like(u(), bool),
                                                         np.ones_like(u(), bool)).all()),
    "astype+copy": lambda u: float(np.full((3,), 2.5, np.float32).astype(np.int16).copy()[0]),
    "reshape.T.broadcast": lambda u: float(np.broadcast_to(np.ones((2, 3)).T.reshape(-1),
                                                           (4, 6))[3, 5]),
    "concatenate equal": lambda u: float(np.concatenate([np.zeros(2), np.zeros((3,))])[4]),
    "where known cond": lambda u: float(np.where(np.zeros(4, bool), u(), np.full(4, 7.0))[0]),
    "where equal branches": lambda u: float(np.where(u() > 2, np.ones(4), np.ones(4))[1]),
    "0-d array from a number": lambda u: float(np.asarray(4.0) / 2),
    "max of known": lambda u: float(np.full((2, 2), -3.0).max()),
    "sum of empty": lambda u: float(np.empty((0, 3)).sum()),
    "any of empty axis": lambda u: bool(np.empty((0, 3)).any(axis=0)[2]),
    "dtype view": lambda u: bool(np.zeros(4).view(np.int64).any()),
    "logical_or.reduce": lambda u: bool(np.logical_or.reduce(np.zeros((2, 3)), axis=1)[0]),
    "nonzero count": lambda u: np.nonzero(np.ones((2, 3)))[1].shape[0],
    "nonzero of zeros": lambda u: np.nonzero(np.zeros(5))[0].shape[0],
    "fill then read": lambda u: _fill_then(np.empty(3)),
    "setitem whole": lambda u: _set_all(np.empty(3)),
    "setitem same value": lambda u: _set_same(np.zeros(3)),
    "iadd known": lambda u: _iadd(np.ones(3)),
    "divmod": lambda u: float(np.divmod(np.full(2, 7.0), 2.0)[1][0]),
    "array of a list": lambda u: float(np.add(np.array([3.0]), 1)[0]),
}


def _fill_then(a):
    a.fill(2.0)
    return float(a[1])


def _set_all(a):
    a[...] = 5
    return float(a[2])


def _set_same(a):
    a[1] = 0.0
    return bool(a.any())


def _iadd(a):
    a += 2
    return float(a[0])


@pytest.mark.parametrize("name", sorted(KNOWN_PROGRAMS))
def test_known_values_follow_numpy(name):
    prog = KNOWN_PROGRAMS[name]
    real = prog(lambda *a: _unknown(_REAL, *a))
    with ft.FakeMode():
        fake = prog(lambda *a: _unknown(None, *a))
    assert type(fake) is type(real) and fake == real


# programs after which the values are not known: the fake must refuse to answer. Each
# takes n, the arrays' length: at n = BIG no storage is small enough to keep its content
# (faketensor/_known.py ``MAX_CONTENT_BYTES``), so only the one-value knowledge is tested;
# at n = 4 the programs marked in SMALL_KNOWN are known through the contents instead.
BIG = 20000
FORGOTTEN = {
    "setitem part unknown": lambda u, n: _setitem(np.zeros(n), 1, u()[0]),
    "setitem part other": lambda u, n: _setitem(np.zeros(n), 1, 3.0),
    "out= unknown": lambda u, n: _out(np.zeros(n), u()),
    "write through a view": lambda u, n: _view_write(np.zeros(n), u()),
    "copyto unknown": lambda u, n: _copyto(np.zeros(n), u((n,))),
    "ufunc.at": lambda u, n: _at(np.zeros(n)),
    "fill unknown": lambda u, n: _fill_unknown(np.zeros(n), u()),
    "sort in place": lambda u, n: _sort(np.zeros(n)),
    "empty": lambda u, n: bool(np.empty(n).any()),
    "elementwise with unknown": lambda u, n: bool((np.zeros(n) * u((n,))).any()),
    "part of a real array": lambda u, n: bool(np.asarray(np.arange(float(n))[1:2]).any()),
}
SMALL_KNOWN = {"setitem part other", "ufunc.at", "sort in place", "part of a real array"}


def _setitem(a, i, v):
    a[i] = v
    return bool(a.any())


def _out(a, u):
    np.add(u[:2], 1, out=a[:2])
    return bool(a.any())


def _view_write(a, u):
    v = a[1:3]
    v *= u[:2]
    v += 1
    return bool(a.any())


def _copyto(a, u):
    np.copyto(a, u)
    return bool(a.any())


def _at(a):
    np.add.at(a, [0], 1)
    return bool(a.any())


def _fill_unknown(a, u):
    a.fill(u[0])
    return bool(a.any())


def _sort(a):
    a.sort()
    return bool(a.any())


@pytest.mark.parametrize("n", [BIG, 4])
@pytest.mark.parametrize("name", sorted(FORGOTTEN))
def test_writes_forget(name, n):
    prog = FORGOTTEN[name]
    real = prog(lambda *a: _unknown(_REAL, *a), n)  # runs for real
    with ft.FakeMode():
        if n != BIG and name in SMALL_KNOWN:  # small: the values were computed
            fake = prog(lambda *a: _unknown(None, *a), n)
            assert type(fake) is type(real) and fake == real
            return
        with pytest.raises(ft.DataDependentError):
            prog(lambda *a: _unknown(None, *a), n)


def test_views_share_what_is_known():
    """The knowledge lives on the storage: a view of a known array knows it, a write through
    another view of the same storage that keeps the value keeps it, a different one drops it."""
    with ft.FakeMode():
        a = np.zeros((3, 4))
        v = a.T[1:]
        assert _known.value(v) == 0.0
        a[0, 0] = 0
        assert _known.value(v) == 0.0
        a[0, 0] = 1
        assert _known.value(v) is None and _known.value(a) is None


def test_a_known_nonzero_is_not_cached_for_unknown_values():
    """The kernel cache keys on metadata: a count read from a known value must not answer
    a later call on unknown values of the same metadata."""
    with ft.FakeMode():
        assert np.nonzero(np.ones(6))[0].shape == (6,)
        assert type(np.nonzero(np.empty(6))[0].shape[0]) is ft.BoundedSize


def test_real_one_element_array_written_is_forgotten():
    """A converted real array of one element is known by its value; written for real
    afterwards, or through its fake, its value is no longer known (never re-read as if the
    other write had not happened)."""
    r = np.array([1.0])
    with ft.FakeMode() as mode:
        assert float(mode._convert(r)[0]) == 1.0
        r[0] = 5.0
        with pytest.raises(ft.DataDependentError):
            float(mode._convert(r)[0])
    s = np.array([2.0])
    with ft.FakeMode() as mode:
        f = mode._convert(s)
        assert float(f[0]) == 2.0
        f[0] = 3.0
        with pytest.raises(ft.DataDependentError):
            float(mode._convert(s)[0])


def test_masked_nomask_follows_the_real_branch():
    """numpy.ma's ``if not m.any(): m = nomask`` on masks known all False: nomask, as for
    real, with no assumption recorded."""
    x = np.ones((3, 4))
    real = np.ma.maximum(x, x), np.ma.where(x > 0, np.ma.masked_array(x), 0.0)
    with ft.FakeMode() as mode:
        f = np.ones((3, 4))
        fake = np.ma.maximum(f, f), np.ma.where(f > 0, np.ma.masked_array(f), 0.0)
    for r, q in zip(real, fake):
        assert r._mask is np.ma.nomask and q._mask is np.ma.nomask
    assert not mode.placeholders


def test_ufunc_method_outputs_given_by_position_forget():
    """``np.add.accumulate(x, 0, None, out)``: out written with unknown values."""
    with ft.FakeMode():
        out = np.zeros(4)
        np.add.accumulate(np.empty(4), 0, None, out)
        with pytest.raises(ft.DataDependentError):
            bool(out.any())
        part = np.zeros(6)
        np.logical_or.reduce(np.ones((3, 2), bool), 0, None, part[:2].view(bool)[:2])
        assert _known.value(part) is None
