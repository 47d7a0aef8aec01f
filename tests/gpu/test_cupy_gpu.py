"""CuPy's memory pool against the fake's pool figures. Run only where a GPU is present
(``pytest tests/gpu/test_cupy_gpu.py``); skipped, never faked, elsewhere. The differential
tests of CuPy's ops are the table's (tests/opinfo.py, ``pytest tests/kernels/numpy/test_opinfo.py -k cupy``)."""

from gpu_oracle import cupy, needs_gpu  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402


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
