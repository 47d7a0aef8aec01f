"""Differential tests of CuPy's indexing and shape/view rules: CUDA fakes against real
CuPy. Run only where a GPU is present (``pytest tests/gpu/test_cupy_gpu_views.py``);
skipped, never faked, elsewhere.
The operand loops of this file are table entries now (tests/opinfo.py; ``pytest tests/kernels/numpy/test_opinfo.py -k cupy``)."""
import numpy as np
import pytest

from gpu_oracle import cupy, needs_gpu  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402


def meta(x):
    return (x.shape, np.dtype(x.dtype), tuple(x.strides), bool(x.flags.c_contiguous),
            bool(x.flags.f_contiguous), bool(x.flags.owndata))


def inputs():
    base = cupy.arange(120, dtype=cupy.float64).reshape(4, 5, 6)
    return [base, cupy.asfortranarray(base), base.transpose(2, 0, 1), base[:, ::2, ::-1],
            base[1:2, 2:3, 3:4], cupy.broadcast_to(cupy.arange(6.0), (4, 5, 6)),
            cupy.zeros((0, 5, 6)), cupy.zeros((4, 0, 6))[:, :, 1:], cupy.asarray(1.5)[None, None, None]]


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
