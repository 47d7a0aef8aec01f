"""Record under FakeMode(record=True), replay with real NumPy: values equal eager runs bit for bit."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import faketensor as ft


def program(x_in):
    a = np.random.randn(4, 5)
    g = np.random.default_rng(0)
    b = g.normal(size=(4, 5))
    c = np.add(a, b)
    c += 1.0
    d = np.multiply(c, x_in)
    e = np.sqrt(np.abs(d))
    unused = np.random.rand(3)  # noqa: F841  (a draw after the last needed op)
    return c, e


def test_replay_matches_eager_bitwise():
    x = np.linspace(0, 1, 5)
    np.random.seed(123)
    with ft.FakeMode(record=True) as mode:
        fc, fe = program(x)
    np.random.seed(123)
    rc, re = ft.replay(mode, (fc, fe))
    np.random.seed(123)
    ec, ee = program(x)
    assert rc.tobytes() == ec.tobytes() and re.tobytes() == ee.tobytes()
    assert re.strides == fe.strides and re.dtype == fe.dtype
    # through materialize, and repeatable (generators restart from their first-use state)
    np.random.seed(123)
    out = ft.materialize({"e": fe}, replay=True, trace=mode)
    assert out["e"].tobytes() == ee.tobytes()


def test_replay_only_needed_ops_and_dead_intermediates():
    calls = []
    with ft.FakeMode(record=True) as mode:
        a = np.ones((3, 3))
        b = np.zeros((2,))                # unrelated: not replayed
        c = np.add(a, 2.0)
        a = None
        c = np.multiply(c, c)
        b = np.add(b, 1.0)
    gc.collect()                          # intermediate fakes are dead now
    real_c = ft.replay(mode, c)
    assert (real_c == 9.0).all()
    ops = [e.op for e in mode.trace]
    assert ops.count("np.add") == 2
    del b, calls


def test_inplace_on_views_is_replayed():
    with ft.FakeMode(record=True) as mode:
        x = np.zeros(6)
        v = x[1:] if _has_getitem() else x
        np.add(v, 1.0, out=v)
        y = np.multiply(x, 2.0)
    ry = ft.replay(mode, y)
    exp = np.zeros(6)
    (exp[1:] if _has_getitem() else exp)[...] += 1.0
    assert np.array_equal(ry, exp * 2.0)


def _has_getitem() -> bool:
    try:
        ft.empty(3)[1:]
        return True
    except ft.UnsupportedOperationError:
        return False


def test_real_inputs_replay_as_themselves():
    x = np.arange(4.0)
    with ft.FakeMode(record=True) as mode:
        y = np.add(x, x)
    assert ft.replay(mode, y).tolist() == [0.0, 2.0, 4.0, 6.0]
    outside = ft.empty(4)
    with ft.FakeMode(record=True) as mode2:
        z = np.add(outside, 1.0)
    with pytest.raises(ValueError, match="inputs="):
        ft.replay(mode2, z)
    assert ft.replay(mode2, z, inputs=[(outside, np.ones(4))]).tolist() == [2.0] * 4


def test_metadata_mismatch_raises():
    with ft.FakeMode(record=True) as mode:
        y = np.add(np.ones(3), 1.0)
    entry = mode.trace[-1]
    shape, dtype, strides, off, dev = entry.meta[0]
    entry.meta = ((shape, np.dtype(np.float32), strides, off, dev),)
    with pytest.raises(ft.MetadataMismatchError, match="dtype"):
        ft.replay(mode, y)


def test_not_recorded():
    with ft.FakeMode() as mode:
        y = np.ones(3)
    with pytest.raises(ValueError):
        ft.replay(mode, y)
    with pytest.raises(TypeError):
        ft.materialize(y, replay=True)


def test_replay_views_and_reductions():
    def prog():
        a = np.random.randn(4, 6)
        s = a.T[1:, ::2]
        r = s.sum(axis=0)
        return s, np.add(r, a.mean())

    np.random.seed(7)
    with ft.FakeMode(record=True) as mode:
        fs, fq = prog()
    np.random.seed(7)
    rs, rq = ft.replay(mode, (fs, fq))
    np.random.seed(7)
    es, eq = prog()
    assert rs.strides == es.strides == fs.strides and not rs.flags.owndata
    assert rs.tobytes() == es.tobytes() and rq.tobytes() == eq.tobytes()
