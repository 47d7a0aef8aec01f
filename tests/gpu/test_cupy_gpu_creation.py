"""Differential tests of kernels/cupy/creation.py: CUDA fakes (inside FakeMode for the
factories) against real CuPy. Run only where a GPU is present; skipped elsewhere.
The operand loops of this file are table entries now (tests/opinfo.py; ``pytest tests/kernels/numpy/test_opinfo.py -k cupy``)."""
import io

import numpy as np
import pytest

from gpu_oracle import cupy, needs_gpu, meta, metas  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402


def _compare_factory(fn):
    """fn() for real, then inside FakeMode: same metadata, or the same exception type."""
    try:
        want = fn()
    except Exception as e:
        with ft.FakeMode(device="cuda:0"):
            with pytest.raises((type(e), ft.DataDependentError, ft.UnsupportedOperationError)):
                fn()
        return
    with ft.FakeMode(device="cuda:0"):
        try:
            got = fn()
        except (ft.DataDependentError, ft.UnsupportedOperationError):
            return
        assert metas(got) == metas(want)


FACTORIES = [
    lambda: cupy.tri(3), lambda: cupy.tri(3, 5, 1, dtype=cupy.int8), lambda: cupy.tri(0, 4),
    lambda: cupy.tri(-1), lambda: cupy.tri(2.5), lambda: cupy.tri(2, 2, -5, dtype=bool),
    lambda: cupy.tril_indices(4), lambda: cupy.tril_indices(4, 1, 6), lambda: cupy.tril_indices(5, -9),
    lambda: cupy.triu_indices(4), lambda: cupy.triu_indices(4, 2, 3), lambda: cupy.triu_indices(0),
    lambda: cupy.diag_indices(5), lambda: cupy.diag_indices(3, 4), lambda: cupy.diag_indices(0, 1),
    lambda: cupy.indices((2, 3)), lambda: cupy.indices((4,), cupy.float32), lambda: cupy.indices(()),
    lambda: cupy.indices((2, 0)), lambda: cupy.indices((2, 2), bool), lambda: cupy.indices((3,), bool),
    lambda: cupy.indices((3,), cupy.complex64), lambda: cupy.indices((2, -1)),
    lambda: cupy.mask_indices(4, cupy.triu), lambda: cupy.mask_indices(4, cupy.tril, -1),
    lambda: cupy.mask_indices(0, cupy.triu), lambda: cupy.mask_indices(3, cupy.triu, 5),
    lambda: cupy.vander([1, 2, 3]), lambda: cupy.vander([1.5, 2.0], 4, True),
    lambda: cupy.bartlett(5), lambda: cupy.blackman(1), lambda: cupy.hamming(0),
    lambda: cupy.hanning(-2), lambda: cupy.kaiser(6, 2.0), lambda: cupy.kaiser(1, 2.0),
    lambda: cupy.hanning(2.5),
    lambda: cupy.fromfunction(lambda i, j: i + j, (3, 4)),
    lambda: cupy.fromfunction(lambda i, j: i * 2, (3, 4), dtype=cupy.float32),
    lambda: cupy.fromfunction(lambda i: i > 1, (5,), dtype=int),
    lambda: cupy.fromfunction(lambda: 3, ()),
    lambda: cupy.frombuffer(b"\0" * 16, dtype=cupy.int16),
    lambda: cupy.frombuffer(b"\0" * 16, dtype=cupy.float32, count=2, offset=4),
    lambda: cupy.frombuffer(b"\0" * 5, dtype=cupy.float32),
    lambda: cupy.fromstring(b"\0" * 8, sep=""),
    lambda: cupy.fromstring("1 2 3", sep=" "), lambda: cupy.fromiter(range(4), cupy.int16),
    lambda: cupy.fromiter(range(2), float, count=5),
    lambda: cupy.ix_([1, 2], [3, 4, 5]), lambda: cupy.ix_([]),
]


@pytest.mark.parametrize("fn", FACTORIES)
def test_factories(fn):
    _compare_factory(fn)


def test_diag_indices_identity():
    with ft.FakeMode(device="cuda:0"):
        r = cupy.diag_indices(4, 3)
    assert r[0] is r[1] is r[2]
    real = cupy.diag_indices(4, 3)
    assert real[0] is real[1]


def test_load(tmp_path):
    np.save(tmp_path / "c.npy", np.zeros((3, 4), np.float32))
    np.save(tmp_path / "f.npy", np.zeros((3, 4), np.int16, order="F"))
    np.save(tmp_path / "e.npy", np.zeros((0, 2)))
    np.savez(tmp_path / "z.npz", a=np.zeros(5), b=np.zeros((2, 3), np.complex64, order="F"))
    for name in ("c.npy", "f.npy", "e.npy"):
        want = cupy.load(tmp_path / name)
        with ft.FakeMode(device="cuda:0"):
            got = cupy.load(tmp_path / name)
        assert meta(got) == meta(want)
    want = cupy.load(tmp_path / "z.npz")
    with ft.FakeMode(device="cuda:0"):
        got = cupy.load(tmp_path / "z.npz")
        gb = got["b"]
    assert meta(gb) == meta(want["b"])


def test_fromfile(tmp_path):
    p = tmp_path / "x.bin"
    p.write_bytes(b"\0" * 100)
    for kw in ({}, {"dtype": cupy.int32, "offset": 3}, {"dtype": cupy.int8, "count": 7},
               {"count": 50}, {"offset": 200}):
        want = cupy.fromfile(str(p), **kw)
        with ft.FakeMode(device="cuda:0"):
            got = cupy.fromfile(str(p), **kw)
        assert meta(got) == meta(want)


def test_writers_raise():
    x = ft.to_fake(cupy.zeros(3))
    for f in (cupy.save, cupy.savez, cupy.savetxt):
        with pytest.raises(ft.UnsupportedOperationError):
            f(io.BytesIO(), x)
