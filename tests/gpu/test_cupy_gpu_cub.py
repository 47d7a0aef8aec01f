"""Differential tests of CuPy's reductions with CUB on (its default): CUDA fakes against real
CuPy. Run only where a GPU is present; skipped, never faked, elsewhere."""
import numpy as np
import pytest

from gpu_oracle import cupy, needs_gpu, metas  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402

SHAPES = [(3, 4), (5, 3, 4), (128, 3, 4), (127, 3, 4), (200, 2), (0, 4), (4, 0), (7,), ()]
DTYPES = [np.float64, np.float32, np.float16, np.complex64, np.int32, np.int64, np.int8, bool]
LAYOUTS = {
    "C": lambda s, d: cupy.zeros(s, d),
    "F": lambda s, d: cupy.zeros(s, d, order="F"),
    "T": lambda s, d: cupy.zeros(s[::-1], d).T,
    "sliced": lambda s, d: cupy.zeros((2 * s[0],) + s[1:], d)[::2] if s else cupy.zeros(s, d),
}
OPS = [
    lambda a: a.sum(), lambda a: a.sum(axis=0), lambda a: a.sum(axis=-1),
    lambda a: a.sum(keepdims=True), lambda a: a.sum(axis=0, keepdims=True),
    lambda a: a.prod(axis=0), lambda a: a.max(), lambda a: a.max(axis=0), lambda a: a.min(axis=-1),
    lambda a: a.argmax(), lambda a: a.argmin(axis=0), lambda a: a.mean(), lambda a: a.mean(axis=0),
    lambda a: a.var(axis=0), lambda a: a.all(axis=0), lambda a: a.any(),
    lambda a: cupy.nansum(a, axis=0), lambda a: cupy.nanmax(a, axis=0),
    lambda a: cupy.nanargmax(a), lambda a: cupy.ptp(a, axis=0),
    lambda a: a.sum(axis=(0, 1)) if a.ndim > 2 else a.sum(axis=None),
]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op", range(len(OPS)))
def test_reduction_layouts_match_cupy(shape, dtype, layout, op):
    real = LAYOUTS[layout](shape, dtype)
    fn = OPS[op]
    try:
        want = fn(real)
    except Exception as e:
        with pytest.raises((type(e), ft.UnsupportedOperationError)):
            fn(ft.to_fake(real))
        return
    try:
        got = fn(ft.to_fake(real))
    except ft.UnsupportedOperationError:
        return  # refusing is allowed; answering differently is not
    assert metas(got) == metas(want)
