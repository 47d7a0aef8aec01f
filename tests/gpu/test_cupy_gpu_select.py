"""Differential tests of kernels/cupy/select.py (and the lexsort / sort_complex / pad /
add.reduceat rules): CUDA fakes against real CuPy. Run only where a GPU is present;
skipped, never faked, elsewhere. A fake may refuse (DataDependentError /
UnsupportedOperationError) where CuPy answers, never answer differently.
The operand loops of this file are table entries now (tests/opinfo.py; ``pytest tests/kernels/numpy/test_opinfo.py -k cupy``)."""
import pytest

from gpu_oracle import compare_with_cupy, cupy, needs_gpu, meta  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402

def _compare(fn, *reals):
    compare_with_cupy(fn, reals, may_refuse=True)


@pytest.mark.parametrize("fn", [
    lambda a, b: cupy.shares_memory(a, b), lambda a, b: cupy.may_share_memory(a, b),
])
@pytest.mark.parametrize("pair", [
    lambda: (lambda x: (x, x.view(cupy.int32)[:, 1::2]))(cupy.zeros((3, 4))),
    lambda: (lambda x: (x, x.view(cupy.int32)[:, 2::2]))(cupy.zeros((3, 4))),
    lambda: (lambda x: (x.real, x.imag))(cupy.zeros((4,), cupy.complex128)),
    lambda: (lambda x: (x, x.imag))(cupy.zeros((4,), cupy.complex128)),
    lambda: (lambda x: (x[:, ::2], x[:, 1::2]))(cupy.zeros((3, 4))),
    lambda: (lambda x: (x[:1], x[2:]))(cupy.zeros((3, 4))),
    lambda: (lambda x: (x.T, x[::-1]))(cupy.zeros((3, 4))),
    lambda: (cupy.zeros(3), cupy.zeros(3)),
])
def test_memory_pairs(fn, pair):
    a, b = pair()
    _compare(fn, a, b)


@pytest.mark.parametrize("fn", [
    lambda a, b: cupy.polyadd(a, b), lambda a, b: cupy.polysub(a, b),
    lambda a, b: cupy.polysub(b, a), lambda a, b: cupy.polyval(a, b),
    lambda a, b: cupy.polyval(a, b[None]), lambda a, b: cupy.polyval(a, 2),
    lambda a, b: cupy.polyval(a[:0], b), lambda a, b: cupy.roots(a[:1]),
    lambda a, b: cupy.poly(a[:0]), lambda a, b: cupy.polymul(a, b),
    lambda a, b: cupy.polyfit(b, b, -1),
])
@pytest.mark.parametrize("dts", [(cupy.float64, cupy.float32), (cupy.int8, cupy.int32),
                                 (bool, bool), (cupy.complex64, cupy.float16)])
def test_polynomials(fn, dts):
    a = cupy.arange(1, 4).astype(dts[0])
    b = cupy.arange(1, 6).astype(dts[1])
    _compare(fn, a, b)


def test_inside_mode():
    want = cupy.delete(cupy.zeros((4, 5)), slice(1, 3), 1)
    with ft.FakeMode(device="cuda:0"):
        got = cupy.delete(cupy.zeros((4, 5)), slice(1, 3), 1)
    assert meta(got) == meta(want)
