"""Known values (faketensor/_known.py, ``content``): a NumPy call whose inputs all know their
values and whose outputs are small runs for real on them, so the border with ordinary Python
(``int(np.prod(shape))``, ``x.tolist()``, shape arithmetic, library set-up code) follows the
real program. Each pattern runs for real and under a FakeMode: the values must be equal, and
where memory is involved the planned peak equals NumPy's real one (tracemalloc)."""
from __future__ import annotations

import math
import time

import numpy as np
import pytest

import faketensor as ft
from faketensor import _known
from memtools import measure_peak

np.random.default_rng(0)  # NumPy's first Generator caches bytes for good: not in a measurement

SMALL_REAL = np.array([1.5, -2.0, 4.0])  # made before any mode: converted with its values


def _conv(h, p, k, s):
    out_height = (h + 2 * p - k) / s + 1
    assert out_height % 1 == 0
    return int(out_height)


def _inplace():
    a = np.zeros(5)
    a[2] = 7
    a += 1
    np.add(a, a, out=a)
    a[::2] *= 3
    return a.tolist()


def _conv_shapes():
    s = np.sum([30, 2])  # a NumPy scalar of known value
    return _conv(s, 1, 3, np.int64(1) + np.sum([0]))


# name -> program; its result (Python values) must equal the real run's
PROGRAMS = {
    "prod of a tuple": lambda: int(np.prod((8, 6))),
    "prod of a shape": lambda: int(np.prod(np.zeros((4096, 1024), np.float32).shape)),
    "1/sqrt(prod)": lambda: 1 / math.sqrt(np.prod((5, 3, 3))),
    "conv output size": _conv_shapes,
    "ceil of half": lambda: int(np.ceil(np.sum([7, 2]) / 2)),
    "arange.tolist": lambda: np.arange(np.sum([2, 3])).tolist(),
    "max of a list": lambda: int(np.max([np.sum([1, 2]), 5])),
    "in-place and out=": _inplace,
    "index with a known fake": lambda: float(np.arange(10.0)[np.argmax(np.arange(10.0))]),
    "boolean mask": lambda: (lambda a: a[a > 2].tolist())(np.arange(6)),
    "masked write": lambda: (lambda a: (a.__setitem__(a > 2, -1), a.tolist())[1])(np.arange(6)),
    "real small array": lambda: float((SMALL_REAL * 2).sum()),
    "unravel_index": lambda: [x.tolist() for x in np.unravel_index([1, 7], (3, 4))],
    "linspace item": lambda: np.linspace(0.0, 1.0, 11)[3].item(),
    "tobytes": lambda: np.arange(4, dtype=np.int16).tobytes(),
    "bool of a comparison": lambda: bool(np.all(np.arange(3) < 3)),
    "complex": lambda: complex(np.sqrt(np.array(-4.0 + 0j))),
    "float32 rounding": lambda: float(np.float32(0.1) * np.ones(1, np.float32)[0]),
    "eigvals of a symmetric matrix":
        lambda: str(np.linalg.eigvals(np.array([[2.0, 1], [1, 3]])).dtype),
    "eigvals of a rotation": lambda: str(np.linalg.eigvals(np.array([[0.0, -1], [1, 0]])).dtype),
    "eig vectors of float32": lambda: np.linalg.eig(np.eye(2, dtype=np.float32))[1].dtype.str,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_known_values_equal_the_real_run(name):
    prog = PROGRAMS[name]
    real = prog()
    with ft.FakeMode():
        fake = prog()
    assert type(fake) is type(real) and fake == real


def _memory_program():
    n = int(np.prod((30, 20)))
    a = np.arange(n, dtype=np.float64).reshape(30, 20)
    b = a[a > 100.0]  # a known mask: its count is known
    c = np.cumsum(b)
    k = int(c.size // 7)
    d = np.ones((k, 8))
    d[np.argmax(c) % k] = 3
    return float(d.sum()) + float(c[-1])


def test_known_fakes_are_charged_as_numpy_allocates():
    real_peak, real_live = measure_peak(_memory_program)
    p = ft.plan(_memory_program)
    assert p.status == "completed"
    assert p.result == _memory_program()
    assert p.peak["cpu"] == real_peak


def test_cached_kernel_results_still_compute_values():
    """The kernel cache keys on metadata only: a hit must still compute (or forget) values."""
    with ft.FakeMode():
        for i in range(3):
            x = np.full(4, float(i))
            assert (x * 2).tolist() == [2.0 * i] * 4
        u = np.empty(4)
        with pytest.raises(ft.DataDependentError):
            float((u * 2)[0])  # same metadata as above: a hit, values unknown
        assert float((np.ones(4) * 2)[0]) == 2.0  # and known again after


def test_write_of_unknown_values_forgets():
    with ft.FakeMode():
        a = np.arange(4.0)
        a[1:3] = np.empty(2)
        with pytest.raises(ft.DataDependentError):
            a.tolist()
        b = np.arange(4.0)
        np.random.default_rng().random(out=b)  # a draw: values unknown
        with pytest.raises(ft.DataDependentError):
            float(b[0])


def test_large_results_are_not_computed():
    """Outputs beyond MAX_CONTENT_BYTES stay without values (never computed for real)."""
    n = _known.MAX_CONTENT_BYTES // 8 + 1
    with ft.FakeMode():
        a = np.arange(n, dtype=np.float64)
        assert a.storage.content is None
        with pytest.raises(ft.DataDependentError):
            float(a[1])
        small = np.arange(n - 1, dtype=np.float64)
        assert float(small[-1]) == n - 2


def test_remember_keeps_a_real_arrays_values():
    """``_known.remember(fake, real)``: the public way for code that turns real data into
    fakes to keep its values (small ones)."""
    real = np.array([[3, 1], [2, 7]], np.int32)
    fake = ft.empty(real.shape, real.dtype)
    _known.remember(fake, real)
    with ft.FakeMode():
        assert fake.tolist() == real.tolist()
        assert int(fake.max()) == 7
    big = ft.empty((100_000,), np.float64)
    _known.remember(big, np.zeros(100_000))
    assert big.storage.content is None


# --- placeholders are assumed known values ---------------------------------------------

def test_placeholder_arithmetic_follows(tmp_path):
    text = "abcdefghij" * 100
    with ft.FakeMode(data_dependent="placeholder") as mode:
        n = len(text) - 34
        s = np.random.randint(n)
        chunk = text[s:s + 33]
        a = np.zeros(100)
        v = np.random.randint(10, size=())
        part = a[v:v + 5]
    assert chunk == text[0:33] and len(chunk) == 33  # s taken as 0, s + 33 as 33
    assert part.shape == (5,)
    lines = [p["line"] for p in mode.placeholders]
    assert len(lines) == len(set(lines)) == 2  # each assumption listed once, at its line
    assert all(p["count"] == 1 for p in mode.placeholders)


def test_placeholder_is_held_from_then_on():
    with ft.FakeMode(data_dependent="placeholder") as mode:
        x = np.random.rand(3)
        assert float(x[0]) == 0.0
        y = x * 2 + 1  # computed on the assumed values
        assert y.tolist() == [1.0, 1.0, 1.0]
    assert sum(p["count"] for p in mode.placeholders) == 1


def test_eig_of_a_real_matrix():
    with pytest.raises(ft.DataDependentError, match="real only when every eigenvalue is"):
        with ft.FakeMode():
            np.linalg.eigvals(np.random.rand(4, 4))
    with ft.FakeMode(data_dependent="placeholder") as mode:
        w, v = np.linalg.eig(np.random.rand(4, 4))
        w32 = np.linalg.eigvals(np.random.rand(3, 3).astype(np.float32))
    assert w.dtype == v.dtype == np.complex128 and w32.dtype == np.complex64
    assert [p["message"].split(":")[0] for p in mode.placeholders] == [
        "np.linalg.eig", "np.linalg.eigvals"]
    assert "taken not to be all real" in mode.placeholders[0]["message"]


# --- range and list indices --------------------------------------------------------------

def _range_index(n):
    a = np.zeros((n, 10))
    y = np.zeros(n, np.int64)
    b = a[range(n), y]
    c = a[list(range(0, n, 3))]
    return b, c


def test_range_and_list_indices_are_charged_as_numpy_allocates():
    real_peak, _ = measure_peak(lambda: _range_index(3000))
    p = ft.plan(_range_index, 3000)
    assert p.peak["cpu"] == real_peak


def test_a_range_index_costs_the_same_whatever_its_length():
    n = 3_000_000
    with ft.FakeMode():
        a = np.zeros((n, 10))
        y = np.zeros(n, np.int64)
        a[range(n), y]
        t = time.perf_counter()
        for _ in range(10):
            b = a[range(n), y]
        per_use = (time.perf_counter() - t) / 10
        with pytest.raises(IndexError, match="out of bounds"):
            a[range(1, n + 1), y]
        assert np.take(a, range(n - 5, n), axis=0).shape == (5, 10)
    assert b.shape == (n,) and per_use < 0.02


# --- a generator that dies is freed ------------------------------------------------------

def _generator_in_a_function():
    def draw():
        rng = np.random.default_rng()
        x = rng.standard_normal((10,))
        return x.sum()
    y = draw()
    z = np.zeros(100)
    return y, z


def test_a_generator_that_dies_is_freed():
    real_peak, real_live = measure_peak(_generator_in_a_function)
    p = ft.plan(_generator_in_a_function)  # a recording mode
    assert p.peak["cpu"] == real_peak
    with ft.FakeMode(record=True) as mode:
        _generator_in_a_function()
    assert mode.memory.live["cpu"] == real_live


@pytest.mark.parametrize("cache", [True, False])
def test_uniform_factories_read_their_values_with_the_cache_on_and_off(cache):
    """zeros and ones keep only their one value (their content is made when first read):
    value reads, C code and later computations see what NumPy's arrays hold, cache or not."""
    old = ft.set_cache_enabled(cache)
    try:
        with ft.FakeMode():
            a = np.ones((2, 3), np.int16)
            b = np.zeros_like(np.empty(4))
            c = np.zeros(3, "U2")
            assert a.tolist() == np.ones((2, 3), np.int16).tolist()
            assert int(a[1, 2]) == 1 and b.tolist() == [0.0] * 4 and c.tolist() == [""] * 3
            assert (a + np.arange(3, dtype=np.int16)).tolist() == [[1, 2, 3], [1, 2, 3]]
            a[0, 0] = 7
            assert a.tolist() == [[7, 1, 1], [1, 1, 1]]
    finally:
        ft.set_cache_enabled(old)
