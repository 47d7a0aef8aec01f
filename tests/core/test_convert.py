"""Real -> fake conversion: metadata, byte offsets and memory sharing equal the real arrays'."""
from __future__ import annotations

import dataclasses
import gc
import itertools
import mmap
import warnings
import weakref
from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given, strategies as st

import faketensor as ft
from numpy.lib.stride_tricks import as_strided, sliding_window_view
from oracle import DTYPE_FAMILIES, arrays, check, root_range

FLAGS = ("c_contiguous", "f_contiguous", "writeable", "owndata", "aligned")


def assert_like(real: np.ndarray, fake) -> None:
    assert ft.is_fake(fake)
    assert (fake.shape, fake.dtype, fake.strides) == (real.shape, real.dtype, real.strides)
    for fl in FLAGS:
        assert getattr(fake.flags, fl) == getattr(real.flags, fl), fl
    assert (fake.base is None) == (real.base is None)
    assert fake.storage_offset == real.__array_interface__["data"][0] - root_range(real)


def assert_pairs(reals: list, fakes: list) -> None:
    for (i, r1), (j, r2) in itertools.combinations(enumerate(reals), 2):
        f1, f2 = fakes[i], fakes[j]
        assert np.shares_memory(f1, f2) == np.shares_memory(r1, r2), (i, j)
        assert np.may_share_memory(f1, f2) == np.may_share_memory(r1, r2), (i, j)


def _views(a: np.ndarray) -> list:
    out = [a]
    if a.ndim:
        out += [a[1:], a[::-1], a[::2], a[1::2]]
    if a.ndim > 1:
        out += [a.T, a[:, 1:][::-1], a[..., ::-2]]
    return out


@given(arrays(dtypes=DTYPE_FAMILIES[:-2] + [DTYPE_FAMILIES[-1]]))
def test_views_of_hypothesis_arrays(a):
    reals = _views(a)
    fakes = ft.to_fake(reals)
    for r, f in zip(reals, fakes):
        assert_like(r, f)
    assert_pairs(reals, fakes)


def _buf():
    return np.arange(64, dtype=np.int64)


AWKWARD = {
    "view of view": lambda: [(b := _buf()), b[4:][::3], b[4:][::3][1:]],
    "negative": lambda: [(b := _buf()), b[::-1], b[::-3][2:]],
    "2-d reversed": lambda: [(b := _buf().reshape(8, 8)), b[::-1, ::-1], b[1:, ::-2].T],
    "F order": lambda: [(b := np.asfortranarray(_buf().reshape(8, 8))), b[:, 2:], b.T],
    "broadcast": lambda: [(b := _buf()), np.broadcast_to(b[:1], (5, 3)),
                          np.broadcast_to(b, (2, 64))],
    "read-only": lambda: [(b := _buf()), (v := b[3:]).setflags(write=False) or v],
    "offset": lambda: [(b := _buf()), b[7:9], b[63:]],
    "0-d": lambda: [(b := _buf()), b[5, ...], np.array(3.0)],
    "empty": lambda: [(b := _buf()), b[5:5], np.empty((0, 3)), np.empty((3, 0), order="F")],
    "interleaved": lambda: [(b := _buf()), b[::2], b[1::2]],
    "partial overlap": lambda: [(b := _buf()), b[:40], b[20:]],
    "structured": lambda: [(b := np.zeros(10, [("a", "i4"), ("b", "f8")])), b["b"], b[::2]["a"]],
    "strings": lambda: [(b := np.array(["ab", "cde", "f"] * 3)), b[::-2], b.view("U1")],
    "unaligned": lambda: [(b := np.zeros(80, np.uint8)), b[1:65].view(np.int64), b[3:11].view("f8")],
    "bytes": lambda: [(s := bytes(range(64))) and np.frombuffer(s, np.uint8),
                      np.frombuffer(s, np.int32, offset=4), np.frombuffer(s, "i2", count=5)],
    "bytearray": lambda: [np.frombuffer(bb := bytearray(64), np.int32),
                          np.frombuffer(bb, np.uint8)[5:], np.frombuffer(memoryview(bb)[8:], "i8")],
    "mmap": lambda: [np.frombuffer(mm := mmap.mmap(-1, 8192), np.uint8),
                     np.frombuffer(mm, np.float64, count=10, offset=64)],
    # zero-size views whose pointer lies outside their (zero-size) buffer
    "zero-size field": lambda: [(b := np.zeros(0, [("a", "f8"), ("b", "f8")])), b["b"], b["a"]],
    "zero-size imag": lambda: [(b := np.zeros((0, 3), complex)), b.imag, b.real, b.imag[:, 1:]],
    "zero-size past end": lambda: [(z := np.zeros(0)),
                                   as_strided(z, shape=(5, 0), strides=(8, 8))[3],
                                   as_strided(z, shape=(5, 0), strides=(-8, 8))[3]],
    "zero-size after full": lambda: [(b := _buf()), as_strided(b, shape=(9, 0), strides=(64, 8))[8]],
    # as_strided's result is owned by an interface holder whose base is the source
    "as_strided": lambda: [as_strided((b := _buf())[2:], shape=(3, 4), strides=(16, 8)), b,
                           as_strided(b[60:], shape=(2,), strides=(24,))],
    "sliding window": lambda: [sliding_window_view((b := _buf())[10:20], 3)[::2], b[:5], b],
}


@pytest.mark.parametrize("case", sorted(AWKWARD))
def test_awkward_any_order(case):
    """The memo finds one buffer whichever of its arrays is converted first."""
    reals = AWKWARD[case]()[::-1]
    fakes = ft.to_fake(reals)
    for r, f in zip(reals, fakes):
        assert_like(r, f)
    assert_pairs(reals, fakes)


def test_zero_size_outside_buffer_in_ops():
    """Fakes of zero-size views lying past their buffer behave as the real views in ops."""
    b = np.zeros((0, 3), complex)
    for real in (b.imag, np.zeros(0, [("a", "f8"), ("b", "i4")])["b"]):
        check(lambda x: x.copy(), real)
        check(lambda x: x.T, real)
        check(lambda x: x + 1, real)
        check(lambda x: x.reshape(-1, 1), real)
        check(lambda x: np.shares_memory(x, x), real)


@pytest.mark.parametrize("case", sorted(AWKWARD))
def test_awkward(case):
    reals = AWKWARD[case]()
    fakes = ft.to_fake(reals)
    for r, f in zip(reals, fakes):
        assert_like(r, f)
    assert_pairs(reals, fakes)
    del fakes, reals
    gc.collect()


def test_memmap(tmp_path):
    p = tmp_path / "m.dat"
    m = np.memmap(p, dtype="f4", mode="w+", shape=(10, 4))
    reals = [m, m[2:], m.T, np.memmap(p, dtype="f4", mode="r", shape=(40,))]
    fakes = ft.to_fake(reals)
    for r, f in zip(reals, fakes):
        assert_like(r, f)
    assert_pairs(reals, fakes)
    del m, reals


def test_one_memo_across_calls_and_trees():
    P = namedtuple("P", "w b")

    @dataclasses.dataclass(frozen=True)
    class D:
        x: object
        y: object

    a = np.arange(20.0)
    conv = ft.Converter()
    fa = conv.to_fake(a)
    tree = conv.to_fake({"p": P(a[1:], 3), "d": D([a[::2], None], ("s", 1.5)), "t": (a,)})
    assert tree["p"].w.storage is fa.storage and tree["p"].b == 3
    assert isinstance(tree["p"], P) and isinstance(tree["d"], D)
    assert tree["d"].x[0].storage is fa.storage and tree["d"].x[1] is None
    assert tree["d"].y == ("s", 1.5)
    assert tree["t"][0] is fa  # the same real array gives the same fake
    assert tree["p"].w.storage_offset == 8 and tree["p"].w.base is fa
    assert conv.to_fake(fa) is fa and ft.to_fake(fa) is fa


def test_memo_is_weak_and_bounded():
    conv = ft.Converter()
    refs = []
    for _ in range(200):
        a = np.ones(100)
        refs.append(weakref.ref(a))
        conv.to_fake([a, a[1:], a[::2]])
        del a
    gc.collect()
    assert all(r() is None for r in refs)
    assert len(conv) == 0 and len(conv._arrays) == 0 and not conv._starts
    keep = np.ones(4)
    f = conv.to_fake(keep)
    assert len(conv) == 1
    del keep
    gc.collect()
    assert len(conv) == 0 and f.shape == (4,)


def test_memo_notices_metadata_change():
    a = np.zeros(6)
    conv = ft.Converter()
    f1 = conv.to_fake(a)
    a.shape = (2, 3)
    f2 = conv.to_fake(a)
    assert f2.shape == (2, 3) and f2.storage is f1.storage
    a.flags.writeable = False
    assert not conv.to_fake(a).flags.writeable


def test_bad_inputs():
    for bad in (object(), {1, 2}, [1, object()], np.ones):
        with pytest.raises(TypeError, match="type"):
            ft.to_fake(bad)
    assert ft.to_fake([1, 2.5, "x", None, b"y"]) == [1, 2.5, "x", None, b"y"]


def test_object_arrays_warn():
    a = np.array([1, "x", None], dtype=object)
    conv = ft.Converter()
    with pytest.warns(ft.ObjectArrayWarning):
        f = conv.to_fake(a)
    assert f.dtype == object and f.shape == (3,) and conv.object_arrays == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ft.to_fake(np.ones(3))


def test_wrapped_and_device():
    a = np.ones((2, 3))
    assert ft.to_fake(ft.wrap(a)).shape == (2, 3)
    f = ft.to_fake(a, device="cuda:1")
    assert f.fake_device == "cuda:1"


def test_cupy_metadata_only():
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception:
        pytest.skip("no CUDA device")
    a = cupy.arange(24, dtype=cupy.float32).reshape(4, 6)
    fa, fv = ft.to_fake((a, a[1:, ::2]))
    assert fa.storage is fv.storage and fv.strides == a[1:, ::2].strides
    assert fv.storage_offset == 24 and fa.fake_device == f"cuda:{a.device.id}"


def test_converted_storages_are_preexisting():
    """Data that existed before a mode is never charged, converted inside it or before."""
    from faketensor._storage import PREEXISTING
    a = np.ones(1000)
    f = ft.to_fake(a)
    assert f.storage._tracker is PREEXISTING
    with ft.FakeMode() as m:
        v = f[1:]
        w = np.asarray(a)[::2] + 0  # a real input converted by the mode; the sum allocates
        assert v.storage is f.storage and m.memory.live.get("cpu", 0) == w.nbytes
        c = v.copy()
        assert m.memory.live["cpu"] == w.nbytes + c.nbytes
