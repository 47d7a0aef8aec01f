"""Differential tests of kernels/cupy/linalg.py: CUDA fakes against real CuPy. Run only
where a GPU is present; skipped, never faked, elsewhere.
The operand loops of this file are table entries now (tests/opinfo.py; ``pytest tests/kernels/numpy/test_opinfo.py -k cupy``)."""
import numpy as np
import pytest

from gpu_oracle import compare_with_cupy, cupy, needs_gpu, meta, metas  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402

la = cupy.linalg


def _compare(fn, *real):
    compare_with_cupy(fn, real, may_refuse=True)


@pytest.mark.parametrize("sa,sb,kw", [
    ((3,), (3,), {}), ((4, 3), (3,), {}), ((4, 3), (4, 2), {}), ((2,), (2,), {}),
    ((3, 4), (3, 4), {"axis": 0}), ((2, 3, 4), (3, 4), {"axisa": 1, "axisb": 0, "axisc": 0}),
    ((5, 3), (5, 3), {"axisc": 0}), ((3,), (4,), {}), ((3,), (3,), {"axisa": 1}),
])
@pytest.mark.parametrize("dts", [("f8", "f8"), ("f4", "i2"), ("c8", "f8"), ("?", "?")])
def test_cross_against_cupy(sa, sb, kw, dts):
    a = cupy.ones(sa, dts[0])
    b = cupy.ones(sb, dts[1])
    _compare(lambda x, y: cupy.cross(x, y, **kw), a, b)
    if sa == sb and not kw:
        _compare(lambda x, y: la.cross(x, y), a, b)


@pytest.mark.parametrize("sa,sb", [((2, 3, 6), (2, 3)), ((6, 2, 3), (6,)), ((4, 4), (4,))])
def test_tensorsolve_against_cupy(sa, sb):
    a = cupy.eye(int(np.prod(sb))).reshape(sa) if int(np.prod(sb)) ** 2 == int(np.prod(sa)) \
        else cupy.ones(sa)
    _compare(la.tensorsolve, a, cupy.ones(sb))


@pytest.mark.parametrize("n,b", [(300, (2, 300, 2)), (300, (300,)), (4, (2, 4, 3))])
def test_solve_paths_against_cupy(n, b):
    a = cupy.broadcast_to(cupy.eye(n), (2, n, n)).copy()
    _compare(la.solve, a, cupy.ones(b))
    _compare(la.solve, cupy.asfortranarray(a), cupy.asfortranarray(cupy.ones(b)))


def test_linalg_inside_mode():
    real = la.svd(cupy.ones((5, 3)))
    with ft.FakeMode(device="cuda:0"):
        got = la.svd(cupy.ones((5, 3)))
    assert metas(got) == metas(real)
    real = la.inv(cupy.eye(3, order="F"))
    with ft.FakeMode(device="cuda:0"):
        got = la.inv(cupy.eye(3, order="F"))
    assert meta(got) == meta(real)
