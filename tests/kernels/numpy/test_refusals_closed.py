"""Calls faketensor used to refuse although NumPy's metadata does not depend on values: each
checked differentially against real NumPy on awkward layouts, with its bytes against
tracemalloc where it allocates."""
from __future__ import annotations

import numpy as np
import pytest

import faketensor as ft
from memtools import op_peaks
from oracle import check


def _copies(*xs):
    return lambda: [x.copy(order="K") if isinstance(x, np.ndarray) else x for x in xs]


# --- np.logspace with an array base: broadcast with the bounds, expand_dims at axis -------------

BASES = [np.array([2.0, 10.0]), np.array([[2.0], [3.0], [10.0]]), np.arange(2, 8).reshape(2, 3).T,
         np.array([2, 10], np.int32), np.array([[2.0, 3.0]]).T[::-1], [2, 10], [[2.0], [3.0]],
         np.full((2, 0), 2.0), np.array([2.0, 10.0], np.float32)]
BOUNDS = [(np.array(0.0), 1), (np.array([0.0, 1.0]), 3), (np.array([[0.0], [1.0]]), np.array([1.0, 2.0])),
          (0.0, np.arange(3.0)), (np.array(1), 2j), (np.array([1, 2], np.int8), np.array([[3], [4]], np.int8))]
LOGSPACE_KW = [{}, {"axis": 1}, {"axis": -1}, {"num": 4, "endpoint": False}, {"dtype": np.float32},
               {"dtype": int, "num": 3}, {"axis": 2}, {"num": 0}, {"num": 1}]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("b", range(len(BASES)))
def test_logspace_array_base(b):
    base = BASES[b]
    for start, stop in BOUNDS:
        for kw in LOGSPACE_KW:
            fn = lambda s, e, b, kw=kw: np.logspace(s, e, base=b, **kw)  # noqa: E731
            check(fn, start, stop, base)
            try:
                real, fake = op_peaks(_copies(start, stop, base), fn)
            except ValueError:  # shapes that do not broadcast: checked above
                continue
            assert fake == real, (np.shape(base), np.shape(start), np.shape(stop), kw)


def test_logspace_array_base_with_number_bounds_in_a_mode():
    """NumPy dispatches logspace on its bounds only: with number bounds, a mode answers."""
    for base in ([2.0, 10.0], np.array([[2.0], [3.0]]), np.arange(2.0, 8.0).reshape(2, 3).T):
        for kw in ({}, {"axis": 1}, {"axis": -1, "num": 3}, {"dtype": np.float32}):
            real = np.logspace(0, 1, base=base, **kw)
            with ft.FakeMode():
                fake = np.logspace(0, 1, base=base, **kw)
            assert ft.is_fake(fake)
            assert (fake.shape, fake.dtype, fake.strides) == (real.shape, real.dtype, real.strides)
            real_peak, fake_peak = op_peaks(_copies(base), lambda b, kw=kw: np.logspace(0, 1, base=b, **kw))
            assert fake_peak == real_peak
