"""Calls the programs in benchmarks/programs use that the op table does not reach: sorting
structured arrays, np.loadtxt's growing buffer, np.save then np.load in one mode, a chain
of four matrix products, and lstsq of a tall matrix with placeholders. Each against real
NumPy (metadata with oracle.check, bytes with tracemalloc), on awkward inputs.
"""
from __future__ import annotations

import gc
import os

import numpy as np
import pytest

import faketensor as ft
from memtools import measure_peak, op_peaks
from oracle import check

# --- structured arrays: sort, np.sort, argsort (order=) -----------------------------------

ALIGNED = np.dtype([("x", "f8"), ("y", "i4")], align=True)  # every field of every element aligned
PACKED = np.dtype([("s", "U8"), ("t", "M8[s]"), ("x", "f8"), ("h", "f4")])  # 52 bytes: not
SMALL = np.dtype([("s", "U3"), ("x", "i4")])  # 16 bytes, 4-byte fields: aligned

LAYOUTS = {
    "C": lambda a: a,
    "step2": lambda a: a[::2],
    "neg": lambda a: a[::-1],
    "offset": lambda a: a[1:],
    "T 2-d": lambda a: a[:60].reshape(6, 10).T,
}
SORTS = {
    "ndarray.sort order": lambda a: a.sort(order=a.dtype.names[-1]),
    "np.sort stable": lambda a: np.sort(a, kind="stable"),
    "np.sort axis None": lambda a: np.sort(a, axis=None),
    "argsort order list": lambda a: np.argsort(a, order=[a.dtype.names[-1]]),
    "argsort axis None": lambda a: np.argsort(a, axis=None, kind="stable"),
}


def _sample(dt: np.dtype) -> np.ndarray:
    """64 records whose fields decide the order at every level (names, then numbers)."""
    a = np.zeros(64, dt)
    for i, name in enumerate(dt.names):
        kind = dt.fields[name][0].kind
        vals = (np.arange(64) * (7 + i)) % 13
        a[name] = vals.astype(str) if kind == "U" else vals
    return a


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op", list(SORTS))
@pytest.mark.parametrize("dt", [ALIGNED, PACKED, SMALL], ids=["aligned", "packed", "small"])
def test_structured_sort(dt, op, layout):
    """Metadata as NumPy; peak and live bytes to the byte where every field is aligned, and
    listed as unmodelled where VOID_compare copies unaligned fields."""
    fn = lambda a: SORTS[op](a)  # noqa: E731
    make = lambda: [LAYOUTS[layout](_sample(dt))]  # noqa: E731
    check(lambda a: (fn(a), a)[1] if op.startswith("ndarray") else fn(a), *make())
    real, fake = op_peaks(make, fn)
    with ft.FakeMode() as mode:
        fn(*make())
    if dt is PACKED:
        assert list(mode.memory_unmodelled) == [op.split()[0] if op.startswith(("np.", "ndarray"))
                                                else "np.argsort"]
    else:
        assert real == fake and not mode.memory_unmodelled


@pytest.mark.parametrize("order", [["nope"], "s", ["x", "x"], [1]])
def test_structured_sort_order_errors(order):
    """order= is checked by NumPy's own _newnames: the same ValueError for a bad name."""
    check(lambda a: np.sort(a, order=order), _sample(PACKED))
    check(lambda a: np.argsort(a, order=order), _sample(PACKED))


# --- np.loadtxt: the reader's growing buffer (textreading/rows.c) -------------------------

def _write(path, rows: int, cols: int = 4) -> str:
    with open(path, "w") as f:
        f.write("# a header line\n")
        for i in range(rows):
            f.write(",".join(str((i * 7 + j) % 97 + 0.5) for j in range(cols)) + "\n")
    return str(path)


LOADS = {
    "2-d f8, 3000 rows (grown 8 times)": (3000, {}),
    "usecols f4 ndmin=2": (3000, {"usecols": 2, "ndmin": 2, "dtype": np.float32}),
    "unpack": (5000, {"usecols": (0, 3), "unpack": True}),
    "structured": (2500, {"dtype": [("a", "f8"), ("b", "f2"), ("c", "U5"), ("d", "f4")]}),
    "max_rows": (3000, {"max_rows": 100, "skiprows": 1, "comments": None}),
    "one row": (1, {}),
    "one column float16": (5000, {"usecols": 1, "dtype": np.float16}),
}


@pytest.mark.parametrize("case", list(LOADS))
def test_loadtxt_peak(tmp_path, case):
    rows, kw = LOADS[case]
    path = _write(tmp_path / "data.csv", rows)
    real, fake = op_peaks(list, lambda: np.loadtxt(path, delimiter=",", **kw))
    assert real == fake


def test_loadtxt_flexible_dtype_is_listed_unmodelled(tmp_path):
    """A "U" dtype of no size is read in object chunks and cast: not modelled, so listed."""
    path = _write(tmp_path / "data.csv", 10)
    with ft.FakeMode() as mode:
        a = np.loadtxt(path, delimiter=",", dtype="U", skiprows=1, comments=None)
    assert a.shape == (10, 4) and "np.loadtxt" in mode.memory_unmodelled


# --- np.save, then np.load of the file the mode declined to write -------------------------

SAVED = {
    "F view": lambda: np.ones((30, 40), order="F")[:, ::2],
    "structured": lambda: np.zeros(5, dtype=[("s", "U3"), ("x", "f4")]),
    "0-d": lambda: np.array(2.5),
    "big-endian": lambda: np.ones((3, 4), ">i4"),
}


@pytest.mark.parametrize("case", list(SAVED))
def test_save_then_load_in_one_mode(tmp_path, case):
    """The loaded fake is what the real round trip gives; no file is written; the bytes
    equal tracemalloc's."""
    path = str(tmp_path / "a")  # np.save appends .npy

    def program():
        np.save(path, SAVED[case]())
        return np.load(path + ".npy")

    real = program()
    os.remove(path + ".npy")
    peak = measure_peak(program)
    os.remove(path + ".npy")
    with ft.FakeMode() as mode:
        fake = program()
    assert not os.path.exists(path + ".npy")
    assert (fake.shape, fake.dtype, fake.strides, fake.flags.c_contiguous, fake.flags.f_contiguous) \
        == (real.shape, real.dtype, real.strides, real.flags.c_contiguous, real.flags.f_contiguous)
    assert mode.memory.peak["cpu"] == peak[0]
    assert [e["written"] for e in mode.io] == [False]


def test_load_after_a_real_write_reads_the_file(tmp_path):
    """A later write of real arrays to the same path replaces what the mode remembered."""
    path = str(tmp_path / "b.npy")
    with ft.FakeMode():
        np.save(path, np.ones((1000, 3)) * 2)  # a fake: not written
        np.save(path, [1, 2, 3])  # real: written
        a = np.load(path)
    assert a.shape == (3,) and a.dtype == np.int64


# --- multi_dot of four arrays frees its inputs without the cyclic collector ---------------

def test_multi_dot_keeps_no_reference_cycle():
    gc.disable()
    try:
        with ft.FakeMode() as mode:
            arrs = [np.ones(s) for s in [(6, 5), (5, 4), (4, 3), (3, 2)]]
            r = np.linalg.multi_dot(arrs)
            del r, arrs
            assert mode.memory.live["cpu"] == 0
    finally:
        gc.enable()


# --- lstsq of a tall matrix: stop, or with placeholders assume full rank ------------------

TALL = {
    "1-d b": lambda: [np.ones((50, 4)) + np.eye(50, 4), np.ones(50)],
    "f4 b": lambda: [np.ones((50, 4)) + np.eye(50, 4), np.ones(50, np.float32)],
    "c8, 2-d T b": lambda: [(np.ones((50, 4)) + np.eye(50, 4)).astype(np.complex64),
                            np.ones((3, 50), np.complex64).T],
    "F a, no right-hand side": lambda: [np.asfortranarray(np.ones((5, 4)) + np.eye(5, 4)),
                                        np.ones((5, 0))],
}


@pytest.mark.parametrize("case", list(TALL))
def test_lstsq_tall_assumes_full_rank_with_placeholders(case):
    """Stop mode refuses (the residuals' length is the rank's); placeholder mode answers for
    a full-rank matrix, lists the assumption, and its bytes are the real full-rank call's."""
    make = TALL[case]
    with ft.FakeMode():
        with pytest.raises(ft.DataDependentError):
            np.linalg.lstsq(*make())
    ins = make()
    keep: list = []
    real = measure_peak(lambda: keep.append(np.linalg.lstsq(*ins)))
    expect = [(x.shape, x.dtype) for x in keep[0][:2] + keep[0][3:]]
    del keep
    with ft.FakeMode(data_dependent="placeholder") as mode:
        fins = make()
        base = mode.memory.live["cpu"]
        mode.memory.reset_peak("cpu")
        out = np.linalg.lstsq(*fins)
        fake = mode.memory.peak["cpu"] - base, mode.memory.live["cpu"] - base
    assert [(x.shape, x.dtype) for x in out[:2] + out[3:]] == expect
    assert fake == real
    assert "full rank" in mode.placeholders[0]["message"]


# --- numpy.polynomial's evaluators take their ndarray branch for fakes --------------------

P = np.polynomial
POLY_VALS = {
    "polyval 2-d c": (lambda: [np.ones(5), np.ones((3, 2))], lambda x, c: P.polynomial.polyval(x, c)),
    "chebval 2-d x": (lambda: [np.ones((4, 5)), np.ones(3)], lambda x, c: P.chebyshev.chebval(x, c)),
    "Polynomial(...)(x)": (lambda: [np.ones(800)], lambda x: P.Polynomial([1, 2, 3])(x)),
    "hermeval tensor=False": (lambda: [np.ones(5), np.ones((3, 5))],
                              lambda x, c: P.hermite_e.hermeval(x, c, tensor=False)),
    "lagval list x, int c": (lambda: [np.ones((3, 2), int)], lambda c: P.laguerre.lagval([1.0, 2.0], c)),
    "legval T x": (lambda: [np.ones((6, 4)).T, np.ones(4)], lambda x, c: P.legendre.legval(x, c)),
    "hermval scalar x": (lambda: [np.ones((3, 2))], lambda c: P.hermite.hermval(0.5, c)),
}


@pytest.mark.parametrize("case", list(POLY_VALS))
def test_polynomial_evaluators(case):
    """``isinstance(x, np.ndarray) and tensor`` gives c a unit axis per dimension of x: a
    fake x takes that branch too (python_entry.fake_aware), so shapes and bytes are NumPy's
    (a 2-d c used to fail to broadcast)."""
    setup, op = POLY_VALS[case]
    real = op(*setup())
    with ft.FakeMode():
        fake = op(*setup())
    assert (fake.shape, fake.dtype, fake.strides) == (real.shape, real.dtype, real.strides)
    r, f = op_peaks(setup, op)
    assert r == f
