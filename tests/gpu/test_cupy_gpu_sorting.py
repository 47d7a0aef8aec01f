"""Differential tests of kernels/cupy/sorting.py: CUDA fakes against real CuPy. Run only
where a GPU is present; skipped, never faked, elsewhere.
The operand loops of this file are table entries now (tests/opinfo.py; ``pytest tests/kernels/numpy/test_opinfo.py -k cupy``)."""
from gpu_oracle import cupy, needs_gpu, meta  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402


def test_where_and_sort_inside_mode():
    real = cupy.where(cupy.zeros((3, 4)) > 0, 1, cupy.ones((4,), cupy.float32))
    with ft.FakeMode(device="cuda:0"):
        got = cupy.where(cupy.zeros((3, 4)) > 0, 1, cupy.ones((4,), cupy.float32))
    assert meta(got) == meta(real)
