"""The real-peak helper (tests/memtools.py) counts NumPy's data buffers and nothing else."""
import numpy as np
import pytest

from memtools import measure_peak


def test_python_objects_count_nothing():
    assert measure_peak(lambda: [object() for _ in range(10000)]) == (0, 0)


def test_one_array_counts_its_bytes():
    assert measure_peak(lambda: np.empty(100000)) == (800000, 0)


def test_live_at_end_counts_what_survives():
    keep = []
    assert measure_peak(lambda: keep.append(np.empty((10, 10), np.float32))) == (400, 400)


def test_peak_is_the_largest_live_total():
    def prog():
        a = np.empty(1000)          # 8000
        b = np.empty(500)           # 4000 -> 12000 live
        del a
        c = np.empty(1500)          # 4000 + 12000 = 16000
        return b, c
    assert measure_peak(prog) == (16000, 0)


@pytest.mark.parametrize("n", [1, 3, 100, 127, 128, 1023, 1024, 4096])
def test_small_block_cache_does_not_change_sizes(n):
    """npy_alloc_cache reuses blocks below 1024 bytes; tracked sizes stay the requested ones."""
    def prog():
        for _ in range(3):  # the second and third come from the cache
            a = np.empty(n, np.uint8)
            del a
        return np.empty(n, np.uint8)
    assert measure_peak(prog) == (n, 0)


def test_zero_byte_arrays_get_one_byte():
    """ctors.c allocates 1 byte for empty arrays (so .data always points somewhere)."""
    assert measure_peak(lambda: np.zeros((3, 0))) == (1, 0)


def test_views_cost_nothing():
    a = np.ones(1000)
    assert measure_peak(lambda: (a[::2], a.T, a.reshape(10, 100))) == (0, 0)


def test_refuses_when_tracemalloc_runs():
    import tracemalloc
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError, match="already tracing"):
            measure_peak(lambda: None)
    finally:
        tracemalloc.stop()


def test_twice_in_a_row_gives_the_same_figures():
    prog = lambda: np.ones((100, 100)) @ np.ones((100, 100))  # noqa: E731
    assert measure_peak(prog) == measure_peak(prog) == (240000, 0)
