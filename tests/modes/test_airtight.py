"""An airtight FakeMode: NumPy entry points that build arrays from Python values or real
arrays produce fakes (exact metadata, memory charged as NumPy allocates) instead of
allocating real memory (modes/python_entry.py, kernels/numpy/subclasses.py, the memmap
kernel in meta_utils/convert/files.py, fromiter/loadtxt/genfromtxt in kernels/numpy/index_tricks.py).

``test_survey`` runs tests/airtight_survey.py (every public callable with large arguments,
NumPy's allocations traced) in a subprocess and compares the entry points that still
allocate real memory with ``STILL_REAL``, an explicit list: a new one, or one that no longer
allocates, fails the test.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import faketensor as ft
from memtools import measure_peak
from oracle import compare_meta
from locations import TESTS  # tests/ and the checkout

# np.matrix, np.bmat, r_/c_ with "matrix": NumPy's PendingDeprecationWarning for the matrix
# subclass, given by the real and the faked entry point alike.
# (the survey, a subprocess, runs once: on one worker)
pytestmark = [pytest.mark.filterwarnings(
    "ignore:the matrix subclass is not the recommended way:PendingDeprecationWarning"),
    pytest.mark.xdist_group("airtight")]

A = np.linspace(0.0, 1.0, 12)
F = np.asfortranarray(A.reshape(3, 4))
T = A.reshape(3, 4).T
R = A[::-1]
B = np.broadcast_to(np.arange(4.0), (3, 4))
I8 = np.arange(5, dtype=np.int8)
AI = A.astype(np.int64)  # made before the mode: a method of a real array runs for real
Z = np.ones((0,))
S0 = np.float32(2.5)

# entry points built from Python values or real arrays made before the mode
CASES = {
    "mgrid-2d": lambda: np.mgrid[0:30, 0:40],
    "mgrid-1d-float": lambda: np.mgrid[0:10:0.5],
    "mgrid-1d-int": lambda: np.mgrid[3:40:3],
    "mgrid-complex": lambda: np.mgrid[0:1:5j, 0:2:3j],
    "mgrid-mixed": lambda: np.mgrid[0:4, 0:1:7j],
    "mgrid-neg-step": lambda: np.mgrid[10:0:-2, 0:3],
    "mgrid-empty": lambda: np.mgrid[5:0, 0:3],
    "mgrid-1d-complex": lambda: np.mgrid[-1:1:9j],
    "ogrid-2d": lambda: np.ogrid[0:30, 0:40],
    "ogrid-3d-float": lambda: np.ogrid[0:2:0.25, 0:3, 1:2:4j],
    "ogrid-1d": lambda: np.ogrid[0:100],
    "r_-slice": lambda: np.r_[0:1000],
    "r_-complex": lambda: np.r_[0:1:50j],
    "r_-mixed": lambda: np.r_[A, 0, 1:4, [5, 6], S0],
    "r_-scalars": lambda: np.r_[1, 2.5, 3],
    "r_-int8-weak": lambda: np.r_[I8, 3],
    "r_-int8-overflow": lambda: np.r_[I8, 300],
    "r_-reversed": lambda: np.r_[R, R],
    "r_-2d-axis1": lambda: np.r_["1", F, F],
    "r_-directive-0,2,1": lambda: np.r_["0,2,1", A, A],
    "r_-directive-0,2,0": lambda: np.r_["0,2,0", [1, 2, 3], [4, 5, 6]],
    "r_-directive-1,2": lambda: np.r_["1,2", A, A],
    "r_-directive--1,3,0": lambda: np.r_["-1,3,0", A, R],
    "r_-transposed": lambda: np.r_[T, T],
    "r_-broadcast": lambda: np.r_[B, B],
    "r_-empty": lambda: np.r_[Z, A],
    "c_-1d": lambda: np.c_[A, A],
    "c_-2d": lambda: np.c_[F, F],
    "c_-mixed": lambda: np.c_[A, 0:12, R],
    "c_-neg-stride": lambda: np.c_[R, np.r_[0:12]],
    "fromfunction": lambda: np.fromfunction(lambda i, j: i + 2 * j, (30, 40)),
    "fromfunction-int": lambda: np.fromfunction(lambda i, j: i * j, (3, 4), dtype=int),
    "fromfunction-3d-scalar": lambda: np.fromfunction(lambda i, j, k: i, (2, 3, 4)),
    "fromiter-count": lambda: np.fromiter(range(1000), float, count=500),
    "fromiter-unknown": lambda: np.fromiter(iter(range(3000)), np.int32),
    "fromiter-gen": lambda: np.fromiter((x * x for x in range(77)), float),
    "fromiter-subarray": lambda: np.fromiter(((i, i) for i in range(40)), np.dtype((float, 2))),
    "fromiter-short": lambda: np.fromiter(range(5), float, count=10),
    "fromiter-empty": lambda: np.fromiter([], float),
    "recarray": lambda: np.recarray((30,), dtype=[("a", float), ("b", np.int32)]),
    "recarray-formats-F": lambda: np.recarray((3, 4), formats="f8,i4", names="x,y", order="F"),
    "recarray-aligned": lambda: np.recarray(5, formats=["i1", "f8"], names="p,q", aligned=True),
    "recarray-negative": lambda: np.recarray((-1,), dtype=float),
    "rec.fromarrays": lambda: np.rec.fromarrays([A, AI], names="a,b"),
    "rec.fromarrays-2d": lambda: np.rec.fromarrays([F, F[::-1]], names="a,b"),
    "rec.fromrecords": lambda: np.rec.fromrecords([(1, 2.0), (3, 4.0)], names="a,b"),
    "rec.array-list": lambda: np.rec.array([(1, 2.0), (3, 4.0)], dtype=[("a", int), ("b", float)]),
    "r_-matrix": lambda: np.r_["r", A, A],
    "c_-matrix": lambda: np.r_["c", A, A],
    "bmat": lambda: np.bmat([[np.eye(2)]]),
}
# entry points whose fake is refused (none: np.matrix of fakes is a FakeMatrix)
REFUSED: set = set()


def _both(fn):
    try:
        real = fn()
    except Exception as e:
        real = e
    try:
        with ft.FakeMode():
            fake = fn()
    except Exception as e:
        fake = e
    return real, fake


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("case", sorted(CASES))
def test_entry_point_gives_numpys_metadata(case):
    real, fake = _both(CASES[case])
    if case in REFUSED:
        assert isinstance(fake, ft.UnsupportedOperationError), fake
        return
    if isinstance(real, Exception):
        assert isinstance(fake, type(real)), (real, fake)
        return
    assert not isinstance(fake, Exception), repr(fake)
    compare_meta(real, fake, [], [], case)


MEMORY_CASES = ["mgrid-2d", "mgrid-complex", "mgrid-1d-float", "ogrid-2d", "ogrid-3d-float",
                "r_-slice", "r_-mixed", "r_-directive-0,2,1", "r_-directive--1,3,0",
                "c_-1d", "c_-mixed", "fromfunction", "fromfunction-3d-scalar",
                "fromiter-count", "fromiter-unknown", "recarray", "recarray-formats-F",
                "rec.fromarrays", "rec.fromarrays-2d"]


@pytest.mark.parametrize("case", MEMORY_CASES)
def test_entry_point_memory_as_numpy(case):
    """mode.memory's peak and live bytes equal NumPy's (tracemalloc) for the same call; the
    program's value is kept alive, as the caller would keep it."""
    fn = CASES[case]
    keep: list = []
    real = measure_peak(lambda: keep.append(fn()))
    live_real = real[1]
    del keep
    with ft.FakeMode() as mode:
        base = mode.memory.live.get("cpu", 0)
        out = fn()  # noqa: F841  (alive while live is read)
        fake = mode.memory.peak.get("cpu", 0) - base, mode.memory.live.get("cpu", 0) - base
    assert fake == (real[0], live_real), f"{case}: fake (peak, live) {fake}, real {real}"


def test_large_grids_allocate_nothing_real():
    """At a size NumPy could not allocate here (8 TB), the fakes come back at once."""
    with ft.FakeMode() as mode:
        g = np.mgrid[0:10**6, 0:10**6]
        o = np.ogrid[0:10**12]
        r = np.r_[0:10**12, 0:5]
        c = np.c_[0:10**6, 0:10**6]
        f = np.fromfunction(lambda i, j: i * j, (10**6, 10**6))
        rec = np.recarray((10**12,), dtype=[("a", float)])
    assert g.shape == (2, 10**6, 10**6) and o.shape == (10**12,)
    assert r.shape == (10**12 + 5,) and c.shape == (10**6, 2) and f.shape == (10**6, 10**6)
    assert rec.nbytes == 8 * 10**12 and ft.is_fake(rec)
    assert mode.memory.peak["cpu"] >= 16 * 10**12


def test_size_arithmetic_on_known_values_allocates_nothing_real():
    """Known values (faketensor/_known.py) are computed for real only on small inputs with
    small outputs: size arithmetic that reaches 10**12 elements gives the sizes, and the
    arrays of those sizes stay fakes (nothing real in proportion, in memory or in time)."""
    import time
    import tracemalloc
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with ft.FakeMode() as mode:
            n = int(np.prod((10**6, 10**6)))
            x = np.zeros(n)
            half = int(np.ceil(n / 2))
            y = np.ones((half // 10**6, 2 * 10**6), np.float32)
            r = np.arange(n)
            b = np.broadcast_to(np.arange(3.0), (10**6, 10**6, 3))
            total = b.sum()  # a large input: not computed, so its value is unknown
            with pytest.raises(ft.DataDependentError):
                float(total)
            with pytest.raises(ft.DataDependentError):
                float(x[::10**6].sum())  # 10**6 elements: more than a content holds
            assert float(x[5]) == 0.0  # the one value known of all of np.zeros (any size)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert n == 10**12 and half == 5 * 10**11
    assert x.shape == (10**12,) and y.shape == (5 * 10**5, 2 * 10**6) and r.shape == (n,)
    assert ft.is_fake(x) and ft.is_fake(r) and b.shape == (10**6, 10**6, 3)
    assert mode.memory.peak["cpu"] >= 8 * 10**12 * 2
    assert peak < 8 << 20 and time.perf_counter() - t0 < 30


def test_fromiter_consumes_without_storing():
    n = 10**6
    with ft.FakeMode() as mode:
        x = np.fromiter(range(n), np.float64)
        y = np.fromiter(range(n), np.float64, count=n)
    assert x.shape == y.shape == (n,)
    assert mode.memory.peak["cpu"] == 2 * 8 * n
    with pytest.raises(ValueError, match="iterator too short"):
        with ft.FakeMode():
            np.fromiter(range(3), float, count=4)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_outside_a_mode_the_entry_points_are_numpys():
    for case in ("mgrid-2d", "r_-mixed", "c_-1d", "fromfunction", "recarray", "rec.fromarrays",
                 "r_-matrix"):
        r = CASES[case]()
        for x in (r if isinstance(r, tuple) else (r,)):
            assert isinstance(x, np.ndarray) and not ft.is_fake(x)
    assert type(np.r_["r", A, A]) is np.matrix and type(np.recarray(3, float)) is np.recarray


def test_numpys_own_calls_stay_real():
    """NumPy's own Python code using the index tricks on real data (np.polynomial's
    polyvander2d reaches no r_, but np.lib's ediff1d / diagflat paths do) runs for real."""
    from numpy.lib import _index_tricks_impl as it
    real = np.arange(3.0)

    def numpy_code():
        return it.r_[real, real]
    numpy_code.__globals__  # a function of this test module: the program's code
    g = {"__name__": "numpy.fake_internal", "it": it, "real": real}
    internal = eval(compile("lambda: it.r_[real, real]", "<numpy>", "eval"), g)
    with ft.FakeMode():
        from_program = numpy_code()
        from_numpy = internal()
    assert ft.is_fake(from_program)
    assert type(from_numpy) is np.ndarray and from_numpy.shape == (6,)


# --- memmap, loadtxt, genfromtxt, fromfile ---------------------------------------------------


@pytest.fixture
def datafile(tmp_path):
    p = tmp_path / "data.bin"
    p.write_bytes(np.arange(1000, dtype=np.float64).tobytes())
    return p


MEMMAP_CASES = [
    dict(dtype=np.float64, mode="r"),
    dict(dtype=np.float64, mode="r+"),
    dict(dtype=np.float64, mode="c"),
    dict(dtype=np.float64, mode="readonly", offset=16),
    dict(dtype=np.int32, mode="r", offset=4, shape=(10, 20)),
    dict(dtype=np.float64, mode="r", offset=8 * 999),
    dict(dtype=np.float64, mode="r", offset=4096),
    dict(dtype=np.float64, mode="r", shape=(10, 10), order="F"),
    dict(dtype=np.int16, mode="c", shape=7),
    dict(dtype=np.float64, mode="r", shape=(2000,)),   # beyond the file: ValueError
    dict(dtype=np.float64, mode="x"),                  # bad mode: ValueError
    dict(dtype=np.dtype("V7"), mode="r"),              # 8000 % 7: ValueError
]


@pytest.mark.parametrize("kw", MEMMAP_CASES, ids=[str(sorted(k.items())) for k in MEMMAP_CASES])
def test_memmap_maps_as_numpy(datafile, kw):
    before = datafile.read_bytes()
    try:
        real = np.memmap(datafile, **kw)
    except Exception as e:
        real = e
    with ft.FakeMode() as mode:
        try:
            fake = np.memmap(datafile, **kw)
        except Exception as e:
            fake = e
        assert mode.memory.peak.get("cpu", 0) == 0  # a mapping is not allocator memory
    if isinstance(real, Exception):
        assert type(fake) is type(real), (real, fake)
        return
    assert ft.is_fake(fake)
    for k in ("shape", "dtype", "strides"):
        assert getattr(fake, k) == getattr(real, k), k
    for flag in ("c_contiguous", "f_contiguous", "writeable", "aligned"):
        assert getattr(fake.flags, flag) == getattr(real.flags, flag), flag
    del real
    assert datafile.read_bytes() == before


def test_memmap_w_plus_creates_nothing(tmp_path):
    p = tmp_path / "new.bin"
    with ft.FakeMode() as mode:
        m = np.memmap(p, dtype=np.float32, mode="w+", shape=(10**6, 10**6))
        with pytest.raises(ValueError, match="shape must be given"):
            np.memmap(p, mode="w+")
    assert m.shape == (10**6, 10**6) and m.flags.writeable and not p.exists()
    assert mode.memory.peak.get("cpu", 0) == 0
    with ft.FakeMode(), pytest.raises(FileNotFoundError):
        np.memmap(tmp_path / "missing.bin", mode="r")


def test_loadtxt_genfromtxt_read_the_file(tmp_path):
    p = tmp_path / "t.txt"
    np.savetxt(p, np.arange(12.0).reshape(4, 3))
    for fn, kw in ((np.loadtxt, {}), (np.loadtxt, {"dtype": np.float32, "usecols": (0, 2)}),
                   (np.genfromtxt, {}), (np.loadtxt, {"ndmin": 2, "usecols": 1})):
        real = fn(p, **kw)
        with ft.FakeMode() as mode:
            fake = fn(p, **kw)
            assert mode.memory.live["cpu"] == real.nbytes  # charged as the result
        compare_meta(real, fake, [], [], fn.__name__)
    with ft.FakeMode(), pytest.raises(ft.UnsupportedOperationError, match="genfromtxt"):
        np.genfromtxt(p, usemask=True)


def test_fromfile_reads_the_size_only(datafile):
    real = np.fromfile(datafile, dtype=np.int32)
    with ft.FakeMode() as mode:
        fake = np.fromfile(datafile, dtype=np.int32)
        assert mode.memory.live["cpu"] == real.nbytes
    compare_meta(real, fake, [], [], "fromfile")


# --- the survey ------------------------------------------------------------------------------

# Entry points that still allocate real memory inside a FakeMode, each with the reason.
_UFUNC = ("a ufunc given only real operands runs for real: np.ufunc cannot be subclassed or "
          "wrapped without breaking isinstance(f, np.ufunc) and `ufunc is np.add` checks in "
          "__array_ufunc__ implementations (the standing limit, with ndarray methods and "
          "operators on real arrays)")
_VALUES = ("the kernel reads the real input's values (the result's size or dtype depends on "
           "them): temporaries proportional to that input")
# every ufunc of the namespace may (those whose outputs reach 64 KiB at the survey's size do)
UFUNCS = {f"np.{n}" for n, f in vars(np).items() if isinstance(f, np.ufunc)}
_STRINGS = ("np.strings and np.char: their ufuncs (add, str_len, ...) run for real on real "
            "arguments, as ufuncs do; the Python wrappers have kernels")
STRING_FUNCS = {f"np.{m}.{n}" for m in ("strings", "char") for n in dir(getattr(np, m))
                if isinstance(getattr(getattr(np, m), n), np.ufunc)}
STILL_REAL: dict[str, str] = {
    "np.compress": _VALUES,
    "np.arange": "np.arange(real_array): the kernel converts the real argument before "
                 "raising NumPy's TypeError",
    "np.ma.arange": "as np.arange (numpy.ma's wrapper calls it)",
    "np.lib.stride_tricks.sliding_window_view": "window_shape given as a real array is read "
                                                "with np.array before NumPy's ValueError",
    "Generator.spawn": "a real Generator's spawn(real array) reads the array's values",
}


@pytest.fixture(scope="module")
def survey():
    here = str(TESTS)
    r = subprocess.run([sys.executable, os.path.join(here, "airtight_survey.py")],
                       capture_output=True, text=True, timeout=1800, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def test_survey(survey):
    alloc = {name for name, v in survey.items() if v["alloc"]}
    assert len(alloc & UFUNCS) > 60, "the ufunc rule no longer describes the survey: " + _UFUNC
    assert len(alloc & STRING_FUNCS) >= 4, "the string rule no longer describes it: " + _STRINGS
    alloc -= UFUNCS | STRING_FUNCS
    unexpected = sorted(alloc - set(STILL_REAL))
    fixed = sorted(set(STILL_REAL) - alloc)
    assert not unexpected, "allocate real memory in a FakeMode: " + ", ".join(
        f"{n} ({survey[n]['verdict']}, {survey[n]['peak']} B)" for n in unexpected)
    assert not fixed, f"no longer allocate (drop them from STILL_REAL): {fixed}"
    assert len(survey) > 650
