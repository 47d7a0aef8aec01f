"""Differential tests: CUDA fakes against real CuPy. Run only where a GPU is present
(``pytest tests/test_cupy_gpu.py``); skipped, never faked, elsewhere."""
import numpy as np
import pytest

from gpu_oracle import cupy, needs_gpu, meta  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402


def inputs():
    base = cupy.arange(120, dtype=cupy.float64).reshape(4, 5, 6)
    return [base, cupy.asfortranarray(base), base.transpose(2, 0, 1), base[:, ::2, ::-1],
            base[0], cupy.float32(2) * base[..., :1], cupy.zeros((0, 3)), cupy.asarray(1.5)]


@pytest.mark.parametrize("i", range(8))
@pytest.mark.parametrize("fn", [
    lambda a: a + a, lambda a: cupy.sqrt(a), lambda a: a * 2, lambda a: a.astype(cupy.float32),
    lambda a: a.copy(), lambda a: cupy.copy(a), lambda a: a.sum(), lambda a: a.max(axis=-1),
    lambda a: a.mean(axis=0, keepdims=True), lambda a: a.argmax(axis=0), lambda a: a < 3,
    lambda a: cupy.asnumpy(a),
])
def test_matches_real_cupy(fn, i):
    real = inputs()[i]
    try:
        want = fn(real)
    except Exception as e:
        with pytest.raises(type(e)):
            fn(ft.to_fake(real))
        return
    got = fn(ft.to_fake(real))
    assert meta(got) == meta(want)


def test_pool_bytes_match_real_pool():
    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    before = pool.used_bytes()
    keep = [cupy.empty(n, dtype=cupy.uint8) for n in (0, 1, 511, 512, 513, 4096)]
    used = pool.used_bytes() - before
    with ft.FakeMode() as m:
        fakes = [cupy.empty(n, dtype=cupy.uint8) for n in (0, 1, 511, 512, 513, 4096)]
    assert m.memory.pool_peak["cuda:0"] == used
    del keep, fakes
