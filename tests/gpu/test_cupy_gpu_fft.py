"""Differential tests of kernels/cupy/fft.py: CUDA fakes against real cupy.fft. Run only
where a GPU is present; skipped, never faked, elsewhere.
The operand loops of this file are table entries now (tests/opinfo.py; ``pytest tests/kernels/numpy/test_opinfo.py -k cupy``)."""
import numpy as np
import pytest

from gpu_oracle import cupy, needs_gpu, meta, metas  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402

F = cupy.fft


@pytest.mark.parametrize("n", [0, 1, 2, 7, 10, -3])
@pytest.mark.parametrize("d", [1.0, 0.5, 2, 1j, np.float32(3)])
def test_freqs(n, d):
    want = [F.fftfreq(n, d), F.rfftfreq(n, d)]
    with ft.FakeMode(device="cuda:0"):
        got = [F.fftfreq(n, d), F.rfftfreq(n, d)]
    assert metas(got) == metas(want)


def test_inside_mode():
    want = F.fft(cupy.zeros((16, 8), cupy.complex64), axis=0)
    with ft.FakeMode(device="cuda:0"):
        got = F.fft(cupy.zeros((16, 8), cupy.complex64), axis=0)
    assert meta(got) == meta(want)
