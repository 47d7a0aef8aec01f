"""``faketensor run``, ``ft.plan`` and the plan report (issue 13).

The CLI runs as a subprocess on the scripts in tests/plan_scripts; predicted cpu peaks are
compared with the real peak of the same script at a small size (NumPy's tracemalloc
domain, tests/memtools.py, measured in a subprocess of its own), to the byte.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils.planner.report import parse_limits, parse_size
from faketensor.modes.memory import analyze, pool_bytes

from locations import TESTS  # tests/ and the checkout
HERE = str(TESTS)
SCRIPTS = os.path.join(HERE, "plan_scripts")
ROOT = os.path.dirname(HERE)
FAKETENSOR = os.path.join(os.path.dirname(sys.executable), "faketensor")

MEASURE = """
import os, runpy, sys
sys.path.insert(1, {tests!r})
import numpy as np
from memtools import measure_peak
np.random.default_rng(0)  # NumPy's first Generator caches 16 bytes for good (test_memory_programs)
module, target, *args = sys.argv[1:]
if module == "-m":
    sys.argv = [target, *args]
    sys.path[0] = os.getcwd()
    run = lambda: runpy.run_module(target, run_name="__main__", alter_sys=True)
else:
    sys.argv = [target, *args]
    sys.path[0] = os.path.dirname(os.path.realpath(target))
    run = lambda: runpy.run_path(target, run_name="__main__")
peak, live = measure_peak(run)
print("REAL", peak)
"""


def run_cli(*args: str, tmp_path=None, python_m: bool = False, command: str = "run") -> tuple:
    """(returncode, stdout, stderr, JSON report or None) of ``faketensor COMMAND ARGS`` (run
    or sweep) in tests/plan_scripts."""
    out = os.path.join(str(tmp_path), f"{command}.json") if tmp_path is not None else None
    cmd = [sys.executable, "-m", "faketensor"] if python_m else [FAKETENSOR]
    cmd += [command] + (["--json", out] if out else []) + list(args)
    r = subprocess.run(cmd, cwd=SCRIPTS, capture_output=True, text=True, timeout=300)
    data = None
    if out and os.path.exists(out):
        with open(out) as f:
            data = json.load(f)
    return r.returncode, r.stdout, r.stderr, data


def real_peak(*target: str) -> int:
    args = target if target[0] == "-m" else ("", *target)
    r = subprocess.run([sys.executable, "-c", MEASURE.format(tests=HERE), *args], cwd=SCRIPTS,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().splitlines()[-1].split()[1])


def line_of(script: str, marker: str) -> int:
    with open(os.path.join(SCRIPTS, script)) as f:
        return next(i for i, text in enumerate(f, 1) if marker in text)


# --- predicted peaks == real peaks ---------------------------------------------------------

@pytest.mark.parametrize("target", [
    ("train_mlp.py", "32", "128", "3"),   # a training loop: MLP with SGD
    ("train_mlp.py", "7", "33", "2"),
    ("stencil.py", "50", "4"),            # a simulation: five-point stencil
    ("stencil.py", "37", "3"),
    ("-m", "mlpkg", "16", "3", "4"),      # a package run with -m (relative imports)
    ("../../examples/transformer_1b.py", "--layers", "2", "--d-model", "64", "--heads", "4",
     "--seq", "16", "--vocab", "100", "--batch", "2"),  # the README's and docs' example, tiny
])
def test_predicted_cpu_peak_equals_real_peak(target, tmp_path):
    rc, out, err, data = run_cli(*target, tmp_path=tmp_path)
    assert rc == 0, err
    assert data["status"] == "completed" and data["exit_code"] == 0
    assert data["devices"]["cpu"]["peak_bytes"] == real_peak(*target)
    assert "cpu: peak" in err and "cpu: peak" not in out  # the report goes to stderr


def test_stdout_is_the_scripts_and_python_semantics(tmp_path):
    rc, out, err, _ = run_cli("semantics.py", "a", "--json", "x", tmp_path=tmp_path)
    assert rc == 0, err
    seen = json.loads(out)
    assert seen == {"argv": ["semantics.py", "a", "--json", "x"], "name": "__main__",
                    "path0": os.path.realpath(SCRIPTS), "file": "semantics.py"}
    assert "faketensor plan" in err


def test_python_m_faketensor_is_the_same_command(tmp_path):
    a = run_cli("stencil.py", "20", "2", tmp_path=tmp_path)
    b = run_cli("stencil.py", "20", "2", tmp_path=tmp_path, python_m=True)
    assert a[0] == b[0] == 0
    assert a[3]["devices"] == b[3]["devices"] and a[3]["timeline"] == b[3]["timeline"]


# --- CuPy code, --device cuda --------------------------------------------------------------

@pytest.mark.parametrize("device", ["cuda", "cuda:1"])
def test_cupy_script_on_a_fake_gpu(device, tmp_path):
    pytest.importorskip("cupy")
    n = 100
    rc, out, err, data = run_cli("--device", device, "cupy_step.py", str(n), tmp_path=tmp_path)
    assert rc == 0, err
    dev = "cuda:0" if device == "cuda" else device
    assert set(data["devices"]) == {"cpu", dev}
    # a, b, a @ b, exp(c): four n x n float32 buffers, each rounded up by CuPy's pool
    assert data["devices"][dev]["peak_bytes"] == 4 * pool_bytes(n * n * 4)
    assert data["devices"]["cpu"]["peak_bytes"] == 0
    assert data["devices"][dev]["peak_at"]["line"] == line_of("cupy_step.py", "cp.exp")


# --- stops and exit codes ------------------------------------------------------------------

def test_data_dependent_stop_reports_the_line(tmp_path):
    rc, out, err, data = run_cli("data_dependent.py", tmp_path=tmp_path)
    assert rc == 2
    assert data["status"] == "data_dependent" and data["exit_code"] == 2
    stop = data["stopped_at"]
    assert stop["file"] == os.path.join(SCRIPTS, "data_dependent.py")
    assert stop["line"] == line_of("data_dependent.py", "DATA-DEPENDENT LINE")
    assert stop["function"] == "<module>" and "DataDependentError" in stop["message"]
    # the peak so far: x and x * 2, 1000 x 100 float64 each, plus the 0-d sum and comparison
    assert data["devices"]["cpu"]["peak_bytes"] >= 2 * 800_000
    assert "stopped (data_dependent)" in err and "positive" not in out


def test_unsupported_function_stops_with_exit_2(tmp_path):
    script = tmp_path / "unsupported.py"
    # sorting an array with an object field is refused (UnsupportedOperationError): any such
    # call will do
    script.write_text("import numpy as np\nx = np.zeros(3, [('a', 'O'), ('b', 'i4')])\n"
                      "y = np.sort(x)\n")
    r = subprocess.run([FAKETENSOR, "run", "--json", str(tmp_path / "o.json"), str(script)],
                       capture_output=True, text=True, timeout=300)
    data = json.loads((tmp_path / "o.json").read_text())
    assert r.returncode == 2, r.stderr
    assert data["status"] == "unsupported" and data["exit_code"] == 2
    assert data["stopped_at"]["line"] == 3 and "np.sort" in data["stopped_at"]["message"]


@pytest.mark.parametrize("arg, code", [("0", 0), ("7", 7), ("boom", 1)])
def test_sys_exit_codes(arg, code, tmp_path):
    rc, out, err, data = run_cli("exit_code.py", arg, tmp_path=tmp_path)
    assert rc == code and data["exit_code"] == code and data["status"] == "completed"
    if arg == "boom":
        assert err.startswith("boom\n")


def test_script_error_prints_its_traceback_and_exits_1(tmp_path):
    rc, out, err, data = run_cli("fails.py", tmp_path=tmp_path)
    assert rc == 1 and data["status"] == "error" and data["exit_code"] == 1
    assert err.startswith("Traceback (most recent call last):\n  File \"fails.py\", line 10")
    assert "ValueError: bad shape (10, 10)" in err and "plan.py" not in err
    assert data["stopped_at"] == {"file": os.path.join(SCRIPTS, "fails.py"), "line": 6,
                                  "function": "check",
                                  "message": "ValueError: bad shape (10, 10)"}


def test_missing_script_exits_2():
    r = subprocess.run([FAKETENSOR, "run", "no_such_script.py"], cwd=SCRIPTS,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "no_such_script.py" in r.stderr


# --- memory limits -------------------------------------------------------------------------

@pytest.mark.parametrize("limit, code", [("1KiB", 3), ("1GiB", 0), ("cpu=1000", 3),
                                         ("cpu=100MB", 0)])
def test_memory_limit_exit_3(limit, code, tmp_path):
    rc, out, err, data = run_cli("--memory-limit", limit, "stencil.py", "20", "2",
                                 tmp_path=tmp_path)
    assert rc == code, err
    assert data["exit_code"] == 0  # the script's own status; 3 is the limit's verdict
    assert ("EXCEEDS the limit" in err) == (code == 3)


def test_memory_limit_per_device(tmp_path):
    pytest.importorskip("cupy")
    rc, _, err, data = run_cli("--memory-limit", "cpu=1GB,cuda:0=10MiB", "--device", "cuda",
                               "cupy_step.py", "2000", tmp_path=tmp_path)
    assert rc == 3 and data["devices"]["cuda:0"]["peak_bytes"] > 10 * 2**20
    assert "fits within the limit 953.67 MiB" in err
    rc, *_ = run_cli("--memory-limit", "cuda:0=1GiB", "--device", "cuda", "cupy_step.py",
                     "2000", tmp_path=tmp_path)
    assert rc == 0


def test_bad_memory_limit_is_refused():
    r = subprocess.run([FAKETENSOR, "run", "--memory-limit", "24 parsecs", "stencil.py", "4",
                        "1"], cwd=SCRIPTS, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "not a size" in r.stderr


@pytest.mark.parametrize("text, n", [("1000", 1000), ("1K", 1000), ("1KB", 1000),
                                     ("1KiB", 1024), ("24GiB", 24 * 2**30), ("80GB", 80 * 10**9),
                                     ("1.5MiB", 3 * 2**19), ("2t", 2 * 10**12),
                                     ("3TiB", 3 * 2**40), ("512 M", 512 * 10**6)])
def test_parse_size(text, n):
    assert parse_size(text) == n


def test_parse_limits():
    assert parse_limits("24GiB") == {"cpu": 24 * 2**30}
    assert parse_limits("24GiB", "cuda:0") == {"cuda:0": 24 * 2**30}
    assert parse_limits("cpu=24GiB,cuda:0=80GB") == {"cpu": 24 * 2**30, "cuda:0": 80 * 10**9}
    assert parse_limits("cuda=1K") == {"cuda:0": 1000}
    for bad in ("", "12 apples", "cpu=", "gpu=1G"):
        with pytest.raises(ValueError):
            parse_limits(bad)


# --- the JSON report -----------------------------------------------------------------------

def test_json_schema_field_by_field(tmp_path):
    rc, _, err, data = run_cli("--top", "3", "train_mlp.py", "16", "32", "2", tmp_path=tmp_path)
    assert rc == 0, err
    assert set(data) >= {"version", "status", "exit_code", "stopped_at", "devices", "top_sites",
                         "flops", "flops_by_line", "ops", "timeline"}
    assert data["version"] == 1 and data["status"] == "completed" and data["exit_code"] == 0
    assert data["stopped_at"] is None
    assert isinstance(data["flops"], int) and isinstance(data["ops"], int) and data["ops"] > 20
    assert data["flops"] > 0 and data["flops_uncounted"] == []
    cpu = data["devices"]["cpu"]
    assert set(cpu) == {"peak_bytes", "peak_at", "live_end_bytes", "allocated_bytes",
                        "peak_stacks", "site_timeline"}
    assert 0 < cpu["live_end_bytes"] <= cpu["peak_bytes"] <= cpu["allocated_bytes"]
    # held at the peak by call stack (outermost first), summing to the peak
    assert sum(s["bytes"] for s in cpu["peak_stacks"]) == cpu["peak_bytes"]
    for s in cpu["peak_stacks"]:
        assert set(s) == {"frames", "complete", "bytes", "count"} and s["count"] >= 1
        assert all(set(f) == {"file", "line", "function"} for f in s["frames"])
    # live memory by site: the --top sites, columns as long as the ops kept
    st = cpu["site_timeline"]
    assert set(st) == {"sites", "ops", "bytes", "other"} and len(st["sites"]) <= 3
    assert len(st["bytes"]) == len(st["sites"])
    assert all(len(col) == len(st["ops"]) for col in [*st["bytes"], st["other"]])
    assert all(set(s) == {"file", "line", "function", "stack"} for s in st["sites"])
    at = cpu["peak_at"]
    assert set(at) >= {"file", "line", "function", "stack"}
    assert at["file"] == os.path.join(SCRIPTS, "train_mlp.py") and isinstance(at["line"], int)
    assert at["stack"][-1] == {"file": at["file"], "line": at["line"], "function": at["function"]}
    for site in data["top_sites"]:
        assert set(site) >= {"file", "line", "bytes", "count"}
        assert isinstance(site["bytes"], int) and site["count"] >= 1
    assert len(data["top_sites"]) == 3  # --top
    assert data["top_sites"] == sorted(data["top_sites"], key=lambda s: -s["bytes"])
    for row in data["flops_by_line"]:
        assert set(row) == {"file", "line", "flops"}
    ops = [p[0] for p in data["timeline"]]
    assert ops == sorted(ops) and all(p[1] == "cpu" for p in data["timeline"])
    assert max(p[2] for p in data["timeline"]) <= cpu["peak_bytes"]
    assert data["timeline"][-1][2] == cpu["live_end_bytes"]
    json.dumps(data)


# --- ft.plan from Python -------------------------------------------------------------------

def _model(x, w1, w2):
    h = np.tanh(x @ w1)
    return h @ w2  # PEAK


def test_plan_a_function():
    x = np.ones((64, 32))
    w1, w2 = np.ones((32, 256)), np.ones((256, 8))
    p = ft.plan(_model, x, w1, w2)
    assert p.status == "completed" and p.exit_code == 0 and p.stopped_at is None
    assert p.ops == 3 and ft.is_fake(p.result) and p.result.shape == (64, 8)
    # inputs are pre-existing; x @ w1 and tanh are 64 x 256 float64, then the 64 x 8 result
    assert p.peak["cpu"] == 2 * 64 * 256 * 8 == p.mode.memory.peak["cpu"]
    assert p.live_end["cpu"] == 64 * 8 * 8  # the result, held when _model returned
    assert p.peak_at["cpu"]["line"] == _model.__code__.co_firstlineno + 1
    assert p.peak_at["cpu"]["function"] == "_model"
    assert sum(s["bytes"] for s in p.top_sites) == p.peak["cpu"]
    assert p.to_json()["devices"]["cpu"]["peak_bytes"] == p.peak["cpu"]
    assert "cpu: peak 256.00 KiB" in p.report()


def test_plan_reports_a_data_dependent_stop():
    def f():
        x = np.random.rand(5)  # np.ones(5)'s sum would be known: computed on known values
        return float(x.sum())
    p = ft.plan(f)
    assert p.status == "data_dependent" and p.exit_code == 2
    assert p.stopped_at["function"] == "f"
    assert p.stopped_at["line"] == f.__code__.co_firstlineno + 2


def test_plan_script_in_process_leaves_the_interpreter_as_it_was():
    argv, path, main = list(sys.argv), list(sys.path), sys.modules["__main__"]
    p = ft.plan_script(os.path.join(SCRIPTS, "stencil.py"), ["12", "2"])
    assert p.status == "completed" and p.peak["cpu"] > 0
    assert sys.argv == argv and sys.path == path and sys.modules["__main__"] is main


# --- recording: the event log agrees with the running figures ------------------------------

sys.path.insert(0, ROOT)
from benchmarks.programs import MODE_OPTIONS, PROGRAMS  # noqa: E402


def _figures(mode) -> tuple:
    m = mode.memory
    return m.live, m.peak, m.pool_live, m.pool_peak, m.allocations, m.scratch_peak


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_recording_mode_counts_what_an_unrecorded_one_counts(name):
    """(masked: numpy.ma's fill values, real arrays holding a charged fake of their size, are
    kept for replay by value, or the recording mode would keep those fakes alive.)"""
    mod, n = PROGRAMS[name][0], PROGRAMS[name][1]
    options = MODE_OPTIONS.get(name, {})
    with ft.FakeMode(**options) as plain:
        mod.main(n)
    with ft.FakeMode(record=True, **options) as rec:
        mod.main(n)
    # a recording mode keeps a twin of each Generator it saw (for replay), never the
    # program's own: a generator that dies frees its 16-byte seed pool as unrecorded
    assert rec.memory.live["cpu"] == plain.memory.live["cpu"]
    assert _figures(rec)[1:] == _figures(plain)[1:]


def test_recording_mode_counts_cupy_pool_bytes_as_an_unrecorded_one():
    cp = pytest.importorskip("cupy")

    def work():
        a = cp.ones((100, 30), dtype=cp.float32)
        b = cp.zeros(0)
        c = (a @ a.T).sum(axis=0)
        c += 1
        d = cp.sort(cp.exp(c))
        del a, b
        return d

    with ft.FakeMode(device="cuda:0") as plain:
        work()
    with ft.FakeMode(device="cuda:0", record=True) as rec:
        work()
    assert _figures(rec) == _figures(plain) and plain.memory.pool_peak["cuda:0"] > 0
    devs, _ = analyze(rec.memory.log)
    assert devs["cuda:0"].peak == plain.memory.pool_peak["cuda:0"]
    assert devs["cuda:0"].live_end == plain.memory.pool_live["cuda:0"]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_event_log_gives_the_same_peak_and_live(name):
    mod, n = PROGRAMS[name][0], PROGRAMS[name][1]
    with ft.FakeMode(record=True, **MODE_OPTIONS.get(name, {})) as mode:
        mod.main(n)
    devs, timeline = analyze(mode.memory.log)
    assert devs["cpu"].peak == mode.memory.peak["cpu"]
    assert devs["cpu"].live_end == mode.memory.live["cpu"]
    assert timeline[-1][2] == mode.memory.live["cpu"]
    assert sum(b for _, b in devs["cpu"].held) == devs["cpu"].peak
    # the peak op's whole user call stack was kept
    entry = mode.trace[devs["cpu"].peak_op]
    frames = mode.sites.frames(entry.site)
    assert frames[0]["file"] == mod.__file__
    assert "test_event_log_gives_the_same_peak_and_live" in [f["function"] for f in frames]


def test_trace_entries_keep_their_fields():
    with ft.FakeMode(record=True) as mode:
        a = np.zeros((4, 4))
        b = a.T
        a += 1
        c = np.add(a, b, out=np.empty((4, 4)))
    e = mode.trace
    assert [x.op for x in e] == ["np.zeros", "ndarray.transpose", "np.add", "np.empty", "np.add"]
    assert e[0].alias == ("fresh",) and e[1].alias == (("view", 0),)
    assert e[2].alias == (("inplace", 0),) and e[4].alias == (("inplace", 2),)
    assert e[1].inputs[0]() is a and e[1].outputs[0]() is b and e[4].outputs[0]() is c
    assert e[1].args == (e[1].inputs[0],) and e[4].kwargs == {"out": (e[4].inputs[2],)}
    assert e[1].in_ids == (e[0].out_ids[0],)
    assert e[0].meta == (((4, 4), np.dtype(float), (32, 8), 0, "cpu"),) and e[0].nbytes == 128
    assert "ufunc" in e[2].tags
    line = test_trace_entries_keep_their_fields.__code__.co_firstlineno
    assert [mode.sites.line(x.site)[1] - line for x in e] == [2, 3, 4, 5, 5]


def test_trace_ids_sweep_dead_rows_and_keep_live_ones():
    with ft.FakeMode(record=True) as mode:
        keep = np.zeros(3)
        for _ in range(3000):  # 2 fakes per op: the tables pass their 4096-row sweep mark
            keep + 1
        y = keep * 2
    ids = mode.ids
    assert ids._sweep_at >= 4096 and len(ids._by_id) < 2000
    assert ids.get(keep) == mode.trace[0].out_ids[0] and ids.get(y) == mode.trace[-1].out_ids[0]
    assert mode.trace[-1].in_ids == (mode.trace[0].out_ids[0],)
    assert ft.replay(mode, y).shape == (3,)


def test_placeholder_run_plans_a_value_branching_loop_to_the_end(tmp_path):
    rc, out, err, data = run_cli("--data-dependent", "placeholder", "train_placeholder.py",
                                 tmp_path=tmp_path)
    assert rc == 0, err
    assert data["status"] == "completed" and "trained (32, 1)" in out
    uses = {(p["line"], p["count"]) for p in data["placeholders"]}
    assert uses == {(line_of("train_placeholder.py", "PLACEHOLDER FLOAT"), 5)}
    rc, _, _, data = run_cli("train_placeholder.py", tmp_path=tmp_path)
    assert rc == 2 and data["stopped_at"]["line"] == line_of("train_placeholder.py",
                                                              "PLACEHOLDER FLOAT")


def test_script_importing_scipy_and_pandas(tmp_path):
    rc, out, err, data = run_cli("uses_libraries.py", tmp_path=tmp_path)
    assert rc == 0, err
    assert "libraries scipy.linalg pandas (400, 400)" in out
    assert data["devices"]["cpu"]["peak_bytes"] == 2 * 400 * 400 * 8
    assert data["flops"] == 2 * 400 ** 3


def test_html_report_from_the_command(tmp_path):
    pytest.importorskip("matplotlib")
    html = tmp_path / "plan.html"
    rc, _, err, _ = run_cli("--html", str(html), "stencil.py", "64", "3", tmp_path=tmp_path)
    assert rc == 0, err
    page = html.read_text()
    assert "<svg" in page and "stencil.py" in page and "peak" in page


def test_a_fake_mode_the_program_enters_is_not_planned():
    """Run for real, a program's own FakeMode allocates nothing: the plan neither charges
    nor records what runs there (the program's mode still sees all of it), and says so."""
    from faketensor.meta_utils.planner.report import format_report
    seen = {}

    def program():
        a = np.ones(1000)
        with ft.FakeMode(record=True) as own:
            b = np.ones(10**6)
            c = b + 1  # noqa: F841
        seen["ops"], seen["peak"] = len(own.trace), own.memory.peak["cpu"]
        return a.sum()

    def without_it():
        a = np.ones(1000)
        return a.sum()

    p, q = ft.plan(program), ft.plan(without_it)
    assert seen == {"ops": 2, "peak": 2 * 8 * 10**6 + 8}  # ones, add and its 0-d 1
    assert (p.peak, p.ops) == (q.peak, q.ops) and p.ops == 2
    data = p.to_json()
    assert data["program_fake_modes"] == 1
    assert "entered a FakeMode of its own 1x" in format_report(data)
    assert ft.plan(lambda: np.ones(3)).to_json()["program_fake_modes"] == 0
