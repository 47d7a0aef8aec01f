"""Differential tests of kernels/cupy/statistics.py: CUDA fakes against real CuPy. Run only where a
GPU is present; skipped, never faked, elsewhere.
The operand loops of this file are table entries now (tests/opinfo.py; ``pytest tests/kernels/numpy/test_opinfo.py -k cupy``)."""
import warnings

from gpu_oracle import cupy, needs_gpu, meta, metas  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402


def test_inside_mode():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real = [cupy.median(cupy.zeros((3, 4)), axis=0), cupy.quantile(cupy.zeros((3, 4)), 0.5),
                cupy.nanvar(cupy.zeros((3, 4), cupy.float32), dtype=cupy.float64),
                cupy.gradient(cupy.zeros((4, 3)).T)]
        with ft.FakeMode(device="cuda:0"):
            got = [cupy.median(cupy.zeros((3, 4)), axis=0),
                   cupy.quantile(cupy.zeros((3, 4)), 0.5),
                   cupy.nanvar(cupy.zeros((3, 4), cupy.float32), dtype=cupy.float64),
                   cupy.gradient(cupy.zeros((4, 3)).T)]
    assert metas(got) == metas(real)
    assert meta(got[0]) == meta(real[0])
