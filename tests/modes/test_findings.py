"""Findings in every plan: upcast, implicit_copy, overlap_copy (modes/findings.py).

Each case is one line of user code (a one-line ``def`` below, so its line is the finding's
line) on inputs a ``make`` builds. The same code runs three ways: planned at a size that
does not fit in memory, planned at a small size, and run for real at that small size. The
real run decides what each finding must say: the real result's itemsize against its widest
operand (upcast), whether a reshape returned a view (``np.shares_memory``), and the bytes
NumPy's data allocator really handed out beyond the result (tracemalloc in NumPy's domain,
tests/memtools.py) for the copies made inside an operation.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import faketensor as ft
from faketensor.kernels.registry import CALL, note, transient
from faketensor.kernels.numpy.hidden import captured
from faketensor.modes import findings as fr
from memtools import measure_peak

HERE = os.path.abspath(__file__)
SMALL = 64
BIG = 2**36  # rows: every case's arrays are hundreds of GiB to TiB at this size


# --- the user lines (one line each: the finding's line is the def's line) ---------------------

def scalar_upcast(a): return a / np.sqrt(64)  # noqa: E704  (np.sqrt(64) is a float64 scalar)
def zero_d_upcast(a, s): return a * s  # noqa: E704
def op_upcast(a): return a / 2  # noqa: E704  (int32 / int: the loop is float64)
def mean_upcast(a): return a.mean(axis=1)  # noqa: E704  (int16 mean: float64)
def python_float(a): return a * 2.5  # noqa: E704
def python_float_int8(a): return a + 1.5  # noqa: E704  (float64 for real, from the literal)
def same_width(a, b): return a * b  # noqa: E704  (float32 * float64 array: no wider than b)
def explicit_cast(a): return a.astype(np.float64)  # noqa: E704
def explicit_dtype(a): return np.add(a, a, dtype=np.float64)  # noqa: E704
def index_result(a): return np.argmax(a, axis=1)  # noqa: E704
def complex_fft(a): return np.fft.fft(a, axis=1)  # noqa: E704  (float32 -> complex64)
def factory(n): return np.linspace(0, 1, n * 8)  # noqa: E704
def reshape_copy(a): return a.T.reshape(-1)  # noqa: E704
def ravel_copy(a): return np.ravel(a[:, ::2])  # noqa: E704
def reshape_view(a): return a.reshape(-1)  # noqa: E704
def strided_view(a): return a[::2].reshape(-1, 2, 4)  # noqa: E704  (not contiguous, a view)
def matmul_cast(a, b): return a @ b  # noqa: E704
def dot_cast(a, b): return np.dot(a, b)  # noqa: E704
def dot_layout(a, b): return np.dot(a[:, ::2], b)  # noqa: E704  (BLAS wants a contiguous matrix)
def matmul_same(a, b): return a @ b  # noqa: E704
def einsum_mixed(a, b): return np.einsum("ij,jk->ik", a, b)  # noqa: E704  (casts in its buffers)
def overlap_iadd(x): x[1:] += x[:-1]  # noqa: E704
def overlap_out(x): np.negative(x[:-2], out=x[2:])  # noqa: E704
def inplace_self(x, y): x += y  # noqa: E704
def inplace_scale(x): x *= 2  # noqa: E704
def out_self(x, y): np.add(x, y, out=x)  # noqa: E704


def f32(n): return (np.ones((n, 8), np.float32),)  # noqa: E704
def f32_and(dt, shape=()): return lambda n: (np.ones((n, 8), np.float32), np.ones(shape, dt))  # noqa: E704
def of(dt, cols=8): return lambda n: (np.ones((n, cols), dt),)  # noqa: E704
def mat(dta, dtb, cols=32): return lambda n: (np.ones((n, cols), dta), np.ones((cols // (2 if cols == 64 else 1), 8), dtb))  # noqa: E704,E501
def vec(n): return (np.ones(n * 8),)  # noqa: E704
def vecs(n): return (np.ones(n * 8), np.ones(n * 8))  # noqa: E704


# (case, the line, make, expected kind or None)
CASES = [
    ("numpy scalar", scalar_upcast, f32, "upcast"),
    ("0-d array", zero_d_upcast, f32_and(np.float64), "upcast"),
    ("the op itself", op_upcast, of(np.int32), "upcast"),
    ("int mean", mean_upcast, of(np.int16), "upcast"),
    ("python float", python_float, f32, None),
    ("python float on int8", python_float_int8, of(np.int8), None),
    ("as wide as an operand", same_width, f32_and(np.float64, (8,)), None),
    ("astype", explicit_cast, f32, None),
    ("dtype=", explicit_dtype, f32, None),
    ("argmax", index_result, f32, None),
    ("fft to complex64", complex_fft, f32, None),
    ("factory", factory, lambda n: (n,), None),
    ("reshape of a transpose", reshape_copy, f32, "implicit_copy"),
    ("ravel of a strided array", ravel_copy, f32, "implicit_copy"),
    ("reshape as a view", reshape_view, f32, None),
    ("strided reshape as a view", strided_view, f32, None),
    ("matmul float32 @ float64", matmul_cast, mat(np.float32, np.float64), "implicit_copy"),
    ("dot float16, float32", dot_cast, mat(np.float16, np.float32), "implicit_copy"),
    ("dot of a strided matrix", dot_layout, mat(np.float64, np.float64, 64), "implicit_copy"),
    ("matmul of one dtype", matmul_same, mat(np.float32, np.float32), None),
    ("einsum float32, float64", einsum_mixed, mat(np.float32, np.float64), None),
    ("a[1:] += a[:-1]", overlap_iadd, vec, "overlap_copy"),
    ("out= overlapping an input", overlap_out, vec, "overlap_copy"),
    ("a += b", inplace_self, vecs, None),
    ("a *= 2", inplace_scale, vec, None),
    ("out= the input itself", out_self, vecs, None),
]
IDS = [c[0] for c in CASES]


def planned(op, make, n):
    """The plan of ``op(*make(n))`` (its result in ``p.result``)."""
    def program(n):
        return op(*make(n))
    return ft.plan(program, n)


def line_of(op):
    return op.__code__.co_firstlineno


def real_facts(op, make):
    """What the real run at SMALL says: (result, operands, bytes allocated beyond the result)."""
    args = make(SMALL)
    copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    keep = []
    peak, _ = measure_peak(lambda: keep.append(op(*copies)))
    res = keep[0]
    fresh = 0
    if isinstance(res, np.ndarray) and not any(
            isinstance(a, np.ndarray) and np.shares_memory(res, a) for a in copies):
        fresh = res.nbytes
    return res, copies, peak - fresh


def widest(args):
    return max(a.dtype.itemsize for a in args if isinstance(a, np.ndarray) and a.ndim)


@pytest.mark.parametrize("case, op, make, kind", CASES, ids=IDS)
def test_findings_match_the_real_run(case, op, make, kind):
    p = planned(op, make, SMALL)
    assert p.status == "completed", p.stopped_at
    got = [(f["kind"], f["file"], f["line"], f["count"]) for f in p.findings]
    assert got == ([(kind, HERE, line_of(op), 1)] if kind else [])
    res, args, hidden = real_facts(op, make)
    if isinstance(res, np.ndarray):
        assert p.result.dtype == res.dtype and p.result.shape == res.shape
    nbytes = p.findings[0]["bytes"] if kind else 0
    if kind == "upcast":
        assert res.dtype.itemsize > widest(args)
        assert nbytes == res.nbytes - res.size * widest(args)
    elif kind == "implicit_copy" and op in (reshape_copy, ravel_copy):
        assert not np.shares_memory(res, args[0]) and nbytes == res.nbytes
    elif kind in ("implicit_copy", "overlap_copy"):
        assert nbytes == hidden > 0  # what NumPy's allocator handed out for the copy
    elif op in (reshape_view, strided_view):
        assert np.shares_memory(res, args[0])
    elif op in (inplace_self, out_self, einsum_mixed, matmul_same):
        assert hidden == 0
    elif op is inplace_scale:  # only the scalar's 0-d arrays: no copy of x
        assert 0 < hidden < args[0].itemsize * 4
    elif op is python_float_int8:  # widened for real, by the literal alone (NEP 50)
        assert res.dtype.itemsize > widest(args)


@pytest.mark.parametrize("case, op, make, kind", [c for c in CASES if c[3]],
                         ids=[c[0] for c in CASES if c[3]])
def test_findings_at_a_size_that_does_not_fit(case, op, make, kind):
    """The same findings at BIG rows (hundreds of GiB): bytes are affine in the rows, so
    two small plans give the figure at BIG."""
    small, twice, big = (planned(op, make, n) for n in (SMALL, 2 * SMALL, BIG))
    assert big.status == "completed", big.stopped_at
    assert max(big.peak.values()) > 2**38
    strip = [{k: v for k, v in f.items() if k != "bytes"} for f in small.findings]
    assert [{k: v for k, v in f.items() if k != "bytes"} for f in big.findings] == strip
    assert [f["bytes"] for f in big.findings] == [
        a["bytes"] + (b["bytes"] - a["bytes"]) * (BIG - SMALL) // SMALL
        for a, b in zip(small.findings, twice.findings)]


def test_repeated_lines_aggregate_and_cache_hits_keep_their_notes():
    """Rows are per (kind, file, line): a loop's copies add up; the second matmul is a kernel
    cache hit and still carries its note."""
    def program(n):
        a, b = np.ones((n, 32), np.float32), np.ones((32, 8))
        for _ in range(3):
            c = a @ b  # noqa: F841
        x = np.ones(n)
        for _ in range(2):
            x[1:] += x[:-1]
    p = ft.plan(program, 100)
    rows = {f["kind"]: f for f in p.findings}
    assert set(rows) == {"implicit_copy", "overlap_copy"}
    assert rows["implicit_copy"]["count"] == 3 and rows["implicit_copy"]["bytes"] == 3 * 100 * 32 * 8
    assert rows["overlap_copy"]["count"] == 2 and rows["overlap_copy"]["bytes"] == 2 * 99 * 8
    assert all(f["function"] == "program" and f["message"] for f in p.findings)


def test_a_clean_program_has_no_findings():
    def program(n):
        x = np.ones((n, 16), np.float32)
        w = np.ones((16, 16), np.float32)
        h = np.maximum(x @ w, np.float32(0)) * 0.5
        h = h.reshape(n, 4, 4).transpose(0, 2, 1)
        h += 1
        return (h / np.float32(np.sqrt(16))).sum(axis=-1)
    p = ft.plan(program, 1 << 30)
    assert p.status == "completed" and p.findings == [] and p.to_json()["findings"] == []


# --- the rules alone ----------------------------------------------------------------------

@pytest.mark.parametrize("result, widest, kinds, expected", [
    ("f8", 4, "f", True), ("f4", 4, "f", False), ("c8", 4, "f", False), ("c16", 4, "f", True),
    ("i8", 4, "f", False),   # an index of float operands
    ("i8", 1, "b", False),   # a count of booleans
    ("i8", 4, "i", True), ("f8", 4, "i", True), ("f2", 2, "f", False)])
def test_is_upcast(result, widest, kinds, expected):
    assert fr.is_upcast(np.dtype(result), widest, kinds) is expected


def test_upcast_bytes_and_precision():
    assert fr.upcast_bytes(10, np.dtype("f8"), 4) == 40
    assert fr.upcast_bytes(10, np.dtype("c16"), 4) == 80  # against complex64
    assert fr.precision(np.dtype("c8")) == 4 and fr.precision(np.dtype("f2")) == 2


def test_python_scalars_are_weak_but_the_loop_is_not():
    """int8 + 1.5 is float64 only because of the literal; int32 / 2 is float64 whatever
    the int's type: the ufunc's own loop (resolve_dtypes) decides, as the real call."""
    i8, i4 = ft.empty((3,), np.int8), ft.empty((3,), np.int32)
    assert not fr.widened_without_python_scalars(np.add, (i8, 1.5), np.dtype("f8"), 1)
    assert fr.widened_without_python_scalars(np.true_divide, (i4, 2), np.dtype("f8"), 4)
    assert (np.ones(3, np.int8) + 1.5).dtype == np.float64  # the real call widens
    assert (np.ones(3, np.int32) / np.int32(2)).dtype == np.float64


def test_notes_pass_through_captured_blocks_and_drop_with_quiet():
    from faketensor.kernels.registry import quiet
    saved, CALL.costs = CALL.costs, None
    try:
        with captured() as cap:
            transient(16, kind="implicit_copy")
        assert cap.transient == 16 and CALL.costs.notes == (("implicit_copy", 16),)
        assert CALL.costs.transient == 0  # the bytes are the caller's to place
        with quiet():
            note("overlap_copy", 8)
        assert CALL.costs.notes == (("implicit_copy", 16),)
    finally:
        CALL.costs = saved


# --- reports and the CLI ------------------------------------------------------------------

SCRIPT = """\
import numpy as np
n = int(__import__("sys").argv[1])
x = np.ones((n, 64), np.float32)
y = x / np.sqrt(64)
z = x.T.reshape(-1)
x[1:] += x[:-1]
"""


def run_cli(tmp_path, *args, script=SCRIPT, n="1000000000"):
    path = tmp_path / "prog.py"
    path.write_text(script)
    out = tmp_path / "plan.json"
    if out.exists():
        out.unlink()
    exe = os.path.join(os.path.dirname(sys.executable), "faketensor")
    r = subprocess.run([exe, "run", "--json", str(out), *args, str(path), n],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    data = json.loads(out.read_text()) if out.exists() else None
    return r.returncode, r.stderr, data


def test_cli_reports_findings_and_fails_on_kinds(tmp_path):
    rc, err, data = run_cli(tmp_path)
    assert rc == 0
    rows = {f["kind"]: f for f in data["findings"]}
    n = 10**9
    assert rows["upcast"]["line"] == 4 and rows["upcast"]["bytes"] == n * 64 * 4
    assert rows["implicit_copy"]["line"] == 5 and rows["implicit_copy"]["bytes"] == n * 64 * 4
    assert rows["overlap_copy"]["line"] == 6 and rows["overlap_copy"]["bytes"] == (n - 1) * 64 * 4
    assert set(rows["upcast"]) == {"kind", "file", "line", "function", "bytes", "count", "message"}
    assert "findings (3):" in err and "prog.py:4" in err
    rc, err, data = run_cli(tmp_path, "--fail-on", "overlap_copy,upcast")
    assert rc == 4 and data is not None and len(data["findings"]) == 3
    assert "failing on findings" in err
    rc, _, _ = run_cli(tmp_path, "--fail-on", "upcast",
                       script=SCRIPT.replace("np.sqrt(64)", "np.float32(8)"))
    assert rc == 0
    rc, err, data = run_cli(tmp_path, "--fail-on", "upcsat")
    assert rc == 2 and "unknown finding kind upcsat" in err and data is None


def test_html_lists_findings():
    from faketensor.meta_utils.planner.html import render_html
    p = planned(scalar_upcast, f32, SMALL)
    page = render_html(p.to_json())
    assert 'id="findings"' in page and "widened float32 to float64" in page
    clean = render_html(planned(python_float, f32, SMALL).to_json())
    assert 'id="no-findings"' in clean


# --- CuPy code, --device cuda: CuPy's rules ------------------------------------------------

CUPY_SCRIPT = """\
import sys
import numpy as np
import {xp} as xp
n = int(sys.argv[1])
x = xp.ones((n, 64), dtype=xp.float32)
y = x / np.sqrt(64)
z = x.T.reshape(-1)
v = x.reshape(-1)
x[1:] += x[:-1]
x += x[:]
v[::2] += v[1::2]
x += y.astype(xp.float32)
xp.add(x, 1, out=x)
"""


@pytest.mark.parametrize("xp", ["numpy", "cupy"])
def test_cupy_code_follows_cupys_rules(xp, tmp_path):
    """The same code as CuPy under --device cuda and as NumPy. Both widen through the float64
    scalar and copy the transposed reshape; both copy an input partially overlapping the
    output. A CuPy ufunc also copies an input that is not the output object but whose byte
    bounds overlap it (_kernel.pyx _copy_in_args_if_needed, may_share_bounds): ``x[:]``
    added into ``x``, and the odd elements added into the even ones, which share no element
    (NumPy copies neither; np.shares_memory is False for the second, checked for real)."""
    pytest.importorskip(xp)
    path = tmp_path / "prog.py"
    path.write_text(CUPY_SCRIPT.format(xp=xp))
    n = 1 << 30
    p = ft.plan_script(str(path), [str(n)], device="cuda" if xp == "cupy" else None)
    assert p.status == "completed", p.stopped_at
    got = {(f["kind"], f["line"]): f["bytes"] for f in p.findings}
    row = n * 64 * 4
    expected = {("upcast", 6): row, ("implicit_copy", 7): row,
                ("overlap_copy", 9): (n - 1) * 64 * 4}
    if xp == "cupy":
        expected[("overlap_copy", 10)] = row
        expected[("overlap_copy", 11)] = row // 2
    assert got == expected
    v = np.ones(16)
    assert not np.shares_memory(v[::2], v[1::2]) and np.shares_memory(v, v[:])


def test_cupy_overlap_copy_counts_in_the_gpu_peak():
    """The copy CuPy makes is pool memory alive during the kernel: the CUDA peak of
    ``x[1:] += x[:-1]`` is x plus the copy, each rounded to the pool's 512 B."""
    pytest.importorskip("cupy")
    from faketensor.modes.memory import pool_bytes
    with ft.FakeMode(device="cuda") as mode:
        import cupy as cp
        x = cp.ones(1000)
        x[1:] += x[:-1]
    assert mode.memory.peak["cuda:0"] == 8000 + 999 * 8
    assert mode.memory.pool_peak["cuda:0"] == pool_bytes(8000) + pool_bytes(999 * 8)


@pytest.mark.parametrize("cache", [True, False])
def test_findings_of_a_cached_call_keep_their_own_line(cache):
    """A recording mode keeps a call's findings in its kernel-cache entry (they are a function
    of the signature); a later call with the same signature finds the same at its own line,
    exactly as with the cache off."""
    old = ft.set_cache_enabled(cache)
    ft.clear_cache()
    try:
        with ft.FakeMode(record=True) as mode:
            a = np.ones((64, 32), np.float32)
            first = a / np.sqrt(64)
            second = a / np.sqrt(64)
            third = a.T.reshape(-1)
            fourth = a.T.reshape(-1)
        from faketensor.modes.findings import aggregate
        got = sorted((r["kind"], r["line"], r["bytes"], r["count"])
                     for r in aggregate(mode.findings, mode.sites))
    finally:
        ft.set_cache_enabled(old)
    line = test_findings_of_a_cached_call_keep_their_own_line.__code__.co_firstlineno  # decorator
    del first, second, third, fourth
    assert [(k, n) for k, _, _, n in got] == [("implicit_copy", 1)] * 2 + [("upcast", 1)] * 2
    assert {ln for _, ln, _, _ in got} == {line + 10, line + 11, line + 12, line + 13}
    assert all(b == 64 * 32 * 4 for k, _, b, _ in got)
