"""Fake -> real: same metadata, one real buffer per fake storage, fills."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given

import faketensor as ft
from oracle import NUMERIC, arrays

FLAGS = ("c_contiguous", "f_contiguous", "writeable", "aligned")


def same_layout(fake, real):
    assert isinstance(real, np.ndarray)
    assert (real.shape, real.dtype, real.strides) == (fake.shape, fake.dtype, fake.strides)
    for fl in FLAGS:
        assert getattr(real.flags, fl) == getattr(fake.flags, fl), fl


def same_aliasing(fakes, reals):
    for i, j in itertools.combinations(range(len(fakes)), 2):
        assert np.shares_memory(reals[i], reals[j]) == np.shares_memory(fakes[i], fakes[j])
        if fakes[i].storage is fakes[j].storage and reals[i].size and reals[j].size:
            d_real = reals[j].__array_interface__["data"][0] - reals[i].__array_interface__["data"][0]
            assert d_real == fakes[j].storage_offset - fakes[i].storage_offset


@given(arrays(dtypes=NUMERIC))
def test_round_trip_of_views(a):
    views = [a, a[::-1] if a.ndim else a, a.T, a[..., 1:] if a.ndim else a]
    fakes = ft.to_fake(views)
    reals = ft.materialize(fakes, fill="zeros")
    for f, r in zip(fakes, reals):
        same_layout(f, r)
        assert not r.any()
    same_aliasing(fakes, reals)
    # one real buffer for the storage: every array sits at its fake offset from one start
    starts = {r.__array_interface__["data"][0] - f.storage_offset for f, r in zip(fakes, reals)}
    assert len(starts) == 1


def test_fresh_fakes_own_their_data():
    for f in (ft.empty((3, 4)), ft.empty((3, 4), order="F"), ft.empty((0, 2)), ft.empty(())):
        r = ft.materialize(f)
        same_layout(f, r)
        assert r.flags.owndata and r.base is None
    with ft.FakeMode():
        x = np.ones((4, 5, 6)).transpose(2, 0, 1) if hasattr(np, "ones") else None
        y = np.add(x, 1.0)  # K order: permuted dense, base None
    r = ft.materialize(y, fill="ones")
    same_layout(y, r)
    assert r.flags.owndata and (r == 1).all()


def test_storage_shared_views_and_offsets():
    with ft.FakeMode():
        w = np.zeros((6, 8), np.float32)
    fakes = [w, ft.to_fake(np.ones(3))]
    a = np.arange(48.0).reshape(6, 8)
    fa = ft.to_fake([a, a[2:, ::-3], a.T[1:]])
    reals = ft.materialize(fa + fakes, fill="ones")
    same_aliasing(fa, reals[:3])
    for f, r in zip(fa + fakes, reals):
        same_layout(f, r)
        assert (r == 1).all()
    assert reals[1].base is not None and not reals[1].flags.owndata


def test_readonly_and_broadcast():
    a = np.arange(6.0)
    b = np.broadcast_to(a, (3, 6))
    fb, fa = ft.to_fake([b, a])
    rb, ra = ft.materialize([fb, fa], fill="zeros")
    same_layout(fb, rb)
    assert not rb.flags.writeable and ra.flags.writeable and np.shares_memory(ra, rb)


def test_fill_callable_and_pytree():
    tree = {"w": ft.empty((2, 3)), "b": [ft.empty(3, dtype=np.int32), 7], "s": "x"}
    out = ft.materialize(tree, fill=lambda f: np.arange(f.size).reshape(f.shape))
    assert out["s"] == "x" and out["b"][1] == 7
    assert (out["w"] == np.arange(6).reshape(2, 3)).all() and out["b"][0].dtype == np.int32


def test_structured_and_strings():
    a = np.zeros(5, [("a", "i4"), ("b", "f8")])
    fakes = ft.to_fake([a, a["b"], np.array(["xy", "z"])])
    reals = ft.materialize(fakes, fill="zeros")
    for f, r in zip(fakes, reals):
        same_layout(f, r)
    assert np.shares_memory(reals[0], reals[1])


def test_bad_fill_and_cuda_without_gpu():
    with pytest.raises(ValueError):
        ft.materialize(ft.empty(3), fill="twos")
    f = ft.empty(3, device="cuda:0")
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        has_gpu = True
    except Exception:
        has_gpu = False
    if has_gpu:
        r = ft.materialize(f, fill="zeros")
        assert r.shape == (3,) and int(r.device.id) == 0
    else:
        with pytest.raises(RuntimeError, match="cuda:0"):
            ft.materialize(f)
