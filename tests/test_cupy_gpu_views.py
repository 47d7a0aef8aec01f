"""Differential tests of CuPy's indexing and shape/view rules: CUDA fakes against real
CuPy. Run only where a GPU is present (``pytest tests/test_cupy_gpu_views.py``);
skipped, never faked, elsewhere."""
import numpy as np
import pytest

from gpu_oracle import cupy, needs_gpu  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402


def meta(x):
    return (x.shape, np.dtype(x.dtype), tuple(x.strides), bool(x.flags.c_contiguous),
            bool(x.flags.f_contiguous), bool(x.flags.owndata))


def _root(x):
    return x.base if x.base is not None else x


def offset(x):
    """Bytes from the owning array's pointer (CuPy) or from the storage start (fake)."""
    if ft.is_fake(x):
        return x.storage_offset
    return x.data.ptr - _root(x).data.ptr


def inputs():
    base = cupy.arange(120, dtype=cupy.float64).reshape(4, 5, 6)
    return [base, cupy.asfortranarray(base), base.transpose(2, 0, 1), base[:, ::2, ::-1],
            base[1:2, 2:3, 3:4], cupy.broadcast_to(cupy.arange(6.0), (4, 5, 6)),
            cupy.zeros((0, 5, 6)), cupy.zeros((4, 0, 6))[:, :, 1:], cupy.asarray(1.5)[None, None, None]]


OPS = [
    lambda a: a.reshape(-1), lambda a: a.reshape(2, -1), lambda a: a.reshape(1, a.size, 1),
    lambda a: a.reshape(a.shape[::-1], order="F"), lambda a: a.reshape(a.shape),
    lambda a: a.ravel(), lambda a: a.ravel("K"), lambda a: a.ravel("F"), lambda a: a.flatten(),
    lambda a: a.flatten("K"), lambda a: cupy.expand_dims(a, 1), lambda a: cupy.expand_dims(a, (0, -1)),
    lambda a: a.squeeze(), lambda a: cupy.broadcast_to(a, (2,) + a.shape), lambda a: a.T,
    lambda a: a.swapaxes(0, 2), lambda a: cupy.moveaxis(a, 0, -1), lambda a: a.transpose(1, 0, 2),
    lambda a: a.diagonal(), lambda a: a.diagonal(1, 2, 0), lambda a: a.diagonal(-2), lambda a: a.view(cupy.float32),
    lambda a: cupy.atleast_3d(a[0, 0]), lambda a: a.real, lambda a: a.imag,
    lambda a: a[1], lambda a: a[1:1], lambda a: a[:, 3:1], lambda a: a[..., None, ::-2],
    lambda a: a[-1, :, 2], lambda a: a[0.5], lambda a: a[[0, 2]], lambda a: a[:, [1, 7]],
    lambda a: a[[0, 1], :, [1, 2]], lambda a: a[cupy.array([[0], [1]]), 0], lambda a: a[np.array(0)],
    lambda a: a[np.array([True, False, True, False])], lambda a: a[True], lambda a: a[[]],
    lambda a: a.take([0, 3], axis=1), lambda a: cupy.take(a, 2), lambda a: a[[0, 1], [1, 2, 3]],
]


@pytest.mark.parametrize("i", range(9))
@pytest.mark.parametrize("k", range(len(OPS)))
def test_matches_real_cupy(k, i):
    fn = OPS[k]
    real = inputs()[i]
    fake = ft.to_fake(real)
    try:
        want = fn(real)
    except Exception as e:
        with pytest.raises(type(e)):
            fn(fake)
        return
    got = fn(fake)
    assert meta(got) == meta(want)
    if want.size:
        assert (got.storage is fake.storage) == cupy.shares_memory(want, real)
        if got.storage is fake.storage:
            assert offset(got) - offset(fake) == offset(want) - offset(real)
    assert (got is fake) == (want is real)


@pytest.mark.parametrize("kw", [dict(ndmin=3), dict(ndmin=4, copy=False), dict(ndmin=3, order="F")])
@pytest.mark.parametrize("i", range(9))
def test_array_ndmin_matches_real_cupy(kw, i):
    real = inputs()[i][0]
    want = cupy.array(real, **kw)
    got = cupy.array(ft.to_fake(real), **kw)
    assert meta(got) == meta(want)


@pytest.mark.parametrize("key,make", [  # values made lazily: no device use at collection
    (np.s_[:], lambda: np.zeros((4, 5, 6))), (np.s_[1], lambda: [1.0] * 6),
    (np.s_[[0, 1]], lambda: cupy.zeros((3, 5, 6))), (np.s_[0], lambda: cupy.zeros((1, 1, 5, 6))),
    (np.s_[[0, 1], [0, 1, 2]], lambda: 1.0),
])
def test_setitem_errors_match_real_cupy(key, make):
    value = make()
    real = cupy.zeros((4, 5, 6))
    try:
        real[key] = value
    except Exception as e:
        fake = ft.to_fake(real)
        with pytest.raises(type(e)):
            fake[key] = ft.to_fake(value) if isinstance(value, cupy.ndarray) else value
    else:
        fake = ft.to_fake(real)
        fake[key] = ft.to_fake(value) if isinstance(value, cupy.ndarray) else value
