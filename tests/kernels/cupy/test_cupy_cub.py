"""CuPy reductions with CUB on (CuPy's default, CUPY_ACCELERATORS="cub"): the routine path
(cupy/cuda/cub.pyx cub_reduction) and the block path (_cub_reduction.pyx) decide the output
layout. Expected layouts are derived from those files; no GPU needed."""
import numpy as np
import pytest

import faketensor as ft
from cuda_fakes import cuda

cupy = pytest.importorskip("cupy")
from cupy._core import _accelerator  # noqa: E402

F8, I8, I4 = np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.int32)


def lay(x):
    return x.shape, x.dtype, x.strides, x.base is None


@pytest.fixture
def no_cub():
    r, k = _accelerator.get_routine_accelerators(), _accelerator.get_reduction_accelerators()
    _accelerator.set_routine_accelerators([])
    _accelerator.set_reduction_accelerators([])
    yield
    _accelerator.set_routine_accelerators(r)
    _accelerator.set_reduction_accelerators(k)


def test_cub_is_cupys_default():
    assert _accelerator.ACCELERATOR_CUB in _accelerator.get_routine_accelerators()
    assert _accelerator.ACCELERATOR_CUB in _accelerator.get_reduction_accelerators()


@pytest.mark.parametrize("fn,want", [
    # device_reduce: a fresh 0-d of the input dtype
    (lambda: cuda((3, 4)).sum(), ((), F8, (), True)),
    (lambda: cuda((3, 4), order="F").max(), ((), F8, (), True)),
    # keepdims: y.reshape(out_shape), a view of the 0-d result
    (lambda: cuda((3, 4)).sum(keepdims=True), ((1, 1), F8, (8, 8), False)),
    # argmax/argmin: y[0:4].view(int32).astype(int64)[0].reshape(()): a view of a (1,) int64
    (lambda: cuda((3, 4)).argmax(), ((), I8, (), False)),
    (lambda: cupy.argmin(cuda((3, 4), np.float32, order="F")), ((), I8, (), False)),
    (lambda: cuda((3, 4), bool, order="F").argmax(), ((), I8, (), False)),  # cast to int8 first
    (lambda: cuda((3, 4), bool).argmax(), ((), I8, (), True)),  # bool: no CUB, reduction kernel
    (lambda: cuda((3, 4)).T[::2].argmax(), ((), I8, (), True)),  # not contiguous: no CUB
    # device_segmented_reduce: the input's order (C first, then F)
    (lambda: cuda((5, 3, 4), order="F").sum(axis=0), ((3, 4), F8, (8, 24), True)),
    (lambda: cuda((5, 3, 4), order="F").sum(axis=(0, 1)), ((4,), F8, (8,), True)),
    (lambda: cuda((5, 3, 4), order="F").sum(axis=0, keepdims=True), ((1, 3, 4), F8, (8, 8, 24), True)),
    (lambda: cuda((5, 3, 4), np.int32, order="F").max(axis=0), ((3, 4), I4, (4, 12), True)),
    (lambda: cuda((5, 3, 4), order="F").mean(axis=0), ((3, 4), F8, (8, 24), True)),
    (lambda: cuda((3, 4, 5)).sum(axis=-1), ((3, 4), F8, (32, 8), True)),
    # F input reduced over trailing axes: not segmented-compatible, the C kernel output
    (lambda: cuda((5, 3, 4), order="F").sum(axis=2), ((5, 3), F8, (24, 8), True)),
    # int32 sum promotes: no routine CUB; the block reduction needs >= 128 items per output
    (lambda: cuda((5, 3, 4), np.int32, order="F").sum(axis=0), ((3, 4), I8, (32, 8), True)),
    (lambda: cuda((128, 3, 4), np.int32, order="F").sum(axis=0), ((3, 4), I8, (8, 24), True)),
    (lambda: cuda((128, 3, 4), bool, order="F").any(axis=0), ((3, 4), np.dtype(bool), (1, 3), True)),
    (lambda: cuda((128, 3, 4), np.int16, order="F").mean(axis=0), ((3, 4), F8, (8, 24), True)),
    (lambda: cuda((128, 3, 4), order="F").argmax(axis=0), ((3, 4), I8, (8, 24), True)),
    (lambda: cuda((127, 3, 4), order="F").argmax(axis=0), ((3, 4), I8, (32, 8), True)),
    # var/std: a two-input reduction kernel, never CUB
    (lambda: cuda((128, 3, 4), order="F").var(axis=0), ((3, 4), F8, (32, 8), True)),
    # empty: full sum reduces to a fresh 0-d; an empty reduced axis falls back to the kernel
    (lambda: cuda((0, 4)).sum(), ((), F8, (), True)),
    (lambda: cuda((0, 4)).sum(axis=0), ((4,), F8, (8,), True)),
    (lambda: cuda((0, 4)).sum(axis=1), ((0,), F8, (0,), True)),  # zero-size: strides 0
    # nan-reductions are reduction kernels too
    (lambda: cupy.nansum(cuda((128, 3, 4), np.float32, order="F"), axis=0), ((3, 4), np.dtype(np.float32), (4, 12), True)),
    (lambda: cupy.nanargmax(cuda((3, 4), np.int32)), ((), I8, (), False)),
])
def test_layouts(fn, want):
    assert lay(fn()) == want


def test_without_cub_every_reduction_is_a_fresh_c_array(no_cub):
    assert lay(cuda((3, 4)).argmax()) == ((), I8, (), True)
    assert lay(cuda((3, 4)).sum(keepdims=True)) == ((1, 1), F8, (8, 8), True)
    assert lay(cuda((128, 3, 4), order="F").sum(axis=0)) == ((3, 4), F8, (32, 8), True)


def test_errors_on_the_cub_paths():
    with pytest.raises(ValueError, match="CUPY_CUB_MAX"):
        cuda((0, 4)).max()
    with pytest.raises(ValueError, match="wrong number of dimensions"):
        cuda((3, 4)).sum(out=cuda((1, 1)))
    with pytest.raises(ValueError, match="wrong shape"):
        cuda((5, 3, 4), order="F").sum(axis=0, out=cuda((4, 3)))
    with pytest.raises(ft.UnsupportedOperationError):
        cuda((3, 4)).min(out=cuda(()))  # CuPy hands `out` to CUB as the dtype


def test_out_is_returned_and_a_c_out_is_not_silently_restrided():
    o = cuda((3, 4), order="F")
    assert cuda((128, 3, 4), np.int32, order="F").sum(axis=0, out=o) is o
    with pytest.raises(ft.UnsupportedOperationError, match="re-strides"):
        cuda((128, 3, 4), np.int32, order="F").sum(axis=0, out=cuda((3, 4), np.int64))


def test_inside_fake_mode():
    with ft.FakeMode(device="cuda:0") as mode:
        a = cupy.zeros((256, 4, 4), order="F")
        s = a.sum(axis=0)
        m = cupy.argmax(a)
    assert lay(s) == ((4, 4), F8, (8, 32), True) and s.fake_device == "cuda:0"
    assert lay(m) == ((), I8, (), False) and m.base.shape == (1,)
    assert mode.memory.peak["cuda:0"] >= a.nbytes + s.nbytes
