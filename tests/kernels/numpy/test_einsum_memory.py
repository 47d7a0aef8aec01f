"""Peak and live bytes of np.einsum with ``optimize`` against tracemalloc, on contractions
whose operands NumPy's bmm_einsum must reshape by copying (transposed, F-order and C
operands whose contracted axes are not adjacent in memory)."""
from __future__ import annotations

import numpy as np
import pytest

from faketensor._cache import set_cache_enabled
from memtools import op_peaks

SPECS = [
    ("ij,jk,kl->il", [(5, 6), (6, 7), (7, 8)]),
    ("bij,bjk,bkl->bil", [(3, 5, 6), (3, 6, 7), (3, 7, 4)]),
    ("ijk,jkl,lm->im", [(4, 5, 6), (5, 6, 7), (7, 3)]),
    ("abcd,cdef->abef", [(3, 4, 5, 6), (5, 6, 2, 3)]),
    ("abcd,dcef->abfe", [(3, 4, 5, 6), (6, 5, 2, 3)]),
    ("bij,bkj->bik", [(3, 5, 6), (3, 7, 6)]),
]


def _operands(shapes: list, layout: str) -> list:
    if layout == "T":
        return [np.ones(s[::-1]).transpose() for s in shapes]
    return [np.ones(s, order=layout) for s in shapes]


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "nocache"])
@pytest.mark.parametrize("optimize", [True, "greedy", "optimal"])
@pytest.mark.parametrize("layout", ["C", "F", "T"])
@pytest.mark.parametrize("spec,shapes", SPECS, ids=[s for s, _ in SPECS])
def test_einsum_optimize_peak_equals_tracemalloc(spec: str, shapes: list, layout: str,
                                                 optimize: object, cache: bool) -> None:
    before = set_cache_enabled(cache)
    try:
        real, fake = op_peaks(lambda: _operands(shapes, layout),
                              lambda *ops: np.einsum(spec, *ops, optimize=optimize))
    finally:
        set_cache_enabled(before)
    assert fake == real
