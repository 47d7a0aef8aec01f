"""Third-party NumPy programs planned unmodified (tests/corpus/programs.py), against real runs.

For each program: the pinned file is copied from the local snapshot of its repository into a
temporary folder with only its listed size/iteration/data-path edits (each matching exactly
once), the data it reads is made here, then it is run for real at that size (NumPy's data peak,
tracemalloc in NumPy's domain, tests/memtools.py, matplotlib on Agg) and planned with
``faketensor run`` (default ``--data-dependent stop``). The plan must complete, or stop at the
line where control flow needs values (the reason asserted), with the real program's peak up to
that line, to the byte.
"""
from __future__ import annotations

import gzip
import importlib
import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from programs import DRIVER, MIRROR, PROGRAMS, Program

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
FAKETENSOR = os.path.join(os.path.dirname(sys.executable), "faketensor")
PREIMPORT = ("matplotlib.pyplot", "scipy.sparse", "scipy.sparse.linalg", "scipy.special",
             "scipy.optimize")
ENV = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}

# The real run: NumPy's data peak of the script run as __main__ (the program's own: what
# matplotlib allocates in its calls is left out, as a plan leaves it out), up to (not
# including) the first time line STOP_LINE of STOP_FILE runs, when given.
MEASURE = """
import os, runpy, sys
sys.path.insert(1, {tests!r})
import numpy as np
from memtools import measure_peak
np.random.default_rng(0)  # NumPy's first Generator caches 16 bytes for good (test_memory_programs)
# a plan runs library imports with the mode paused and charges nothing for them: import the
# libraries the corpus uses before measuring, so their module-level arrays are not counted
import importlib
for name in {preimport!r}:
    importlib.import_module(name)
stop_file, stop_line, target, *args = sys.argv[1:]
stop_file, stop_line = os.path.realpath(stop_file) if stop_file else "", int(stop_line)
sys.argv = [target, *args]
sys.path[0] = os.getcwd()

class Stop(Exception):
    pass

def local(frame, event, arg):
    if event == "line" and frame.f_lineno == stop_line:
        raise Stop
    return local

def tracer(frame, event, arg):
    return local if os.path.realpath(frame.f_code.co_filename) == stop_file else None

# A plan counts the program's arrays, not matplotlib's (docs/guide/sinks.md): what NumPy
# allocates inside a call into matplotlib from the program's code (its copies of plotted data,
# its drawing buffers) is left out here too. At each such call the program's peak so far is
# taken and the peak reset; the bytes matplotlib keeps (or frees) across the call are an
# offset taken off what follows.
import tracemalloc
PACKAGES = tuple(os.sep + p + os.sep for p in ("matplotlib", "mpl_toolkits"))
state = dict(frame=None, live=0, offset=0, peak=0, base=0)

def program_peak():
    return max(state["peak"], tracemalloc.get_traced_memory()[1] - state["offset"] - state["base"])

def profile(frame, event, arg):
    if event == "call" and state["frame"] is None and any(
            p in frame.f_code.co_filename for p in PACKAGES):
        state["peak"] = program_peak()
        state["frame"], state["live"] = frame, tracemalloc.get_traced_memory()[0]
    elif event == "return" and frame is state["frame"]:
        state["offset"] += tracemalloc.get_traced_memory()[0] - state["live"]
        state["frame"] = None
        tracemalloc.reset_peak()

def run():
    state["base"] = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    if stop_file:
        sys.settrace(tracer)
    sys.setprofile(profile)
    try:
        runpy.run_path(target, run_name="__main__")
    except Stop:
        print("STOPPED")
    finally:
        sys.setprofile(None)
        sys.settrace(None)
    state["peak"] = program_peak()

measure_peak(run)
print("REAL", state["peak"])
"""


# --- data files the programs read, small and of the right format ---------------------------

def _bottle_dat(folder: str) -> None:
    """heat_equation reads a whitespace-separated temperature grid with np.loadtxt."""
    rng = np.random.default_rng(1)
    np.savetxt(os.path.join(folder, "bottle.dat"), rng.uniform(0, 90, (24, 20)), fmt="%.3f")


def _text(folder: str) -> None:
    """min_char_rnn reads a text holding its inference start text."""
    text = "I was anointed king at nine months old.\n" + "the quick brown fox jumps over a lazy dog. " * 4
    with open(os.path.join(folder, "input.txt"), "w") as f:
        f.write(text)


def _mnist_pkl_gz(folder: str) -> None:
    """nielsen_network reads mnist.pkl.gz: three (float32 images (n, 784), int64 labels) pairs."""
    rng = np.random.default_rng(2)

    def part(n: int) -> tuple:
        return rng.random((n, 784), dtype=np.float32), rng.integers(0, 10, n)
    with gzip.open(os.path.join(folder, "mnist.pkl.gz"), "wb") as f:
        pickle.dump((part(30), part(10), part(10)), f, protocol=2)


def _galaxy_csv(folder: str) -> None:
    """artificial_neural_network reads train.csv and test.csv: a label (0, 1, 2) and the
    1024 grey levels of a 32x32 galaxy image a row, comma-separated integers."""
    rng = np.random.default_rng(3)
    for name, n in (("train.csv", 40), ("test.csv", 20)):
        rows = np.column_stack((rng.integers(0, 3, n), rng.integers(0, 256, (n, 1024))))
        np.savetxt(os.path.join(folder, name), rows, fmt="%d", delimiter=",")


DATA = {"bottle_dat": _bottle_dat, "text": _text, "mnist_pkl_gz": _mnist_pkl_gz,
        "galaxy_csv": _galaxy_csv}


# --- the harness ----------------------------------------------------------------------------

def _git_dir(repo: str) -> str:
    base = os.path.join(MIRROR, repo.replace("/", "+"))
    for cand in (os.path.join(base, "repo"), os.path.join(base, "repo", ".git"), base):
        if os.path.isfile(os.path.join(cand, "HEAD")):
            return cand
    return ""


def apply_edits(text: str, edits: tuple, where: str) -> str:
    """The listed substitutions, each asserted to match exactly once."""
    for old, new in edits:
        count = text.count(old)
        assert count == 1, f"{where}: edit {old!r} matches {count} times (upstream changed?)"
        text = text.replace(old, new)
    return text


def prepare(program: Program, folder: str) -> str:
    """Copy the program's files into folder, edited; make its data; return the script's path."""
    git = _git_dir(program.repo)
    if not git:
        pytest.skip(f"no local snapshot of {program.repo} under {MIRROR}")
    for source in program.sources:
        r = subprocess.run(["git", "--git-dir", git, "show", f"{program.commit}:{source.path}"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"{program.repo}@{program.commit[:10]}:{source.path} not in the snapshot: "
                        f"{r.stderr.strip()}")
        text = apply_edits(r.stdout, source.edits, source.path)
        with open(os.path.join(folder, os.path.basename(source.path)), "w") as f:
            f.write(text)
    if program.driver is not None:
        with open(os.path.join(folder, DRIVER), "w") as f:
            f.write(program.driver)
    if program.data is not None:
        DATA[program.data](folder)
    return os.path.join(folder, os.path.basename(program.script))


def stop_location(program: Program, folder: str) -> tuple[str, int]:
    """(file, line) where the program must stop, or ("", 0)."""
    if program.stop is None:
        return "", 0
    path = os.path.join(folder, os.path.basename(program.stop.file or program.script))
    with open(path) as f:
        lines = [i for i, text in enumerate(f, 1) if program.stop.line in text]
    assert len(lines) == 1, (program.stop.line, lines)
    return path, lines[0]


def real_stop_location(program: Program, folder: str) -> tuple[str, int]:
    """(file, line) up to which the real run is measured: the stop line, or the line inside
    a library where the plan stops (``Stop.inside``)."""
    if program.stop is None or program.stop.inside is None:
        return stop_location(program, folder)
    module, text = program.stop.inside
    path = os.path.realpath(importlib.import_module(module).__file__)
    with open(path) as f:
        lines = [i for i, line in enumerate(f, 1) if text in line]
    assert len(lines) == 1, (module, text, lines)
    return path, lines[0]


def real_peak(script: str, argv: tuple, stop: tuple[str, int]) -> tuple[int, bool]:
    """NumPy's real data peak of the script (up to the stop line), and whether it got there."""
    r = subprocess.run([sys.executable, "-c", MEASURE.format(tests=TESTS, preimport=PREIMPORT), stop[0], str(stop[1]),
                        script, *argv], cwd=os.path.dirname(script), capture_output=True,
                       text=True, timeout=600, env=ENV)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout.strip().splitlines()
    return int(out[-1].split()[1]), "STOPPED" in out


def plan(script: str, argv: tuple) -> dict:
    """The JSON report of ``faketensor run SCRIPT ARGV`` (default: stop at the first value)."""
    report = os.path.join(os.path.dirname(script), "plan.json")
    r = subprocess.run([FAKETENSOR, "run", "--json", report, script, *argv],
                       cwd=os.path.dirname(script), capture_output=True, text=True, timeout=600,
                       env=ENV)
    assert os.path.exists(report), r.stderr[-3000:]
    with open(report) as f:
        return json.load(f)


def _params() -> list:
    return [pytest.param(p, id=p.name, marks=pytest.mark.xfail(strict=True, reason=p.xfail))
            if p.xfail else pytest.param(p, id=p.name) for p in PROGRAMS]


@pytest.mark.slow
@pytest.mark.parametrize("program", _params())
def test_program_plans_with_the_real_peak(program: Program, tmp_path):
    folder = str(tmp_path)
    script = prepare(program, folder)
    stop = stop_location(program, folder)
    data = plan(script, program.argv)
    if program.stop is None:
        assert data["status"] == "completed", data["stopped_at"]
    else:
        assert data["status"] == "data_dependent", data["status"]
        at = data["stopped_at"]
        assert (os.path.realpath(at["file"]), at["line"]) == (os.path.realpath(stop[0]), stop[1]), at
        assert program.stop.reason in at["message"], at["message"]
    peak, stopped = real_peak(script, program.argv, real_stop_location(program, folder))
    assert stopped == (program.stop is not None)
    assert peak > 0
    assert data["devices"]["cpu"]["peak_bytes"] == peak


@pytest.mark.parametrize("program", [pytest.param(p, id=p.name) for p in PROGRAMS])
def test_edits_match_the_pinned_source_once(program: Program, tmp_path):
    """Each listed edit matches exactly once in the pinned file (checked by prepare)."""
    script = prepare(program, str(tmp_path))
    assert os.path.exists(script)


QUIVER = """
import numpy as np
import matplotlib.pyplot as plt


def main(clear):
    x = np.random.rand(300, 1)
    y = np.random.rand(300, 1)
    u = np.random.rand(300, 1)
    plt.quiver(x, y, u, u)  # the artist keeps views of x and y (not of u: it copies it)
    if clear:
        plt.cla()
    x = x % 0.5
    y = y % 0.5
    return np.ones(300)


main({clear})
"""


@pytest.mark.parametrize("clear", [False, True])
def test_arrays_an_artist_keeps_stay_held_in_the_plan(clear, tmp_path):
    """What matplotlib keeps of the program's arrays (quiver's positions until cla())
    keeps their bytes held in the plan, as in the real run: peaks equal to the byte."""
    script = tmp_path / "quiver_keeps.py"
    script.write_text(QUIVER.format(clear=clear))
    data = plan(str(script), ())
    assert data["status"] == "completed", data["stopped_at"]
    real, stopped = real_peak(str(script), (), ("", 0))
    assert not stopped
    # x, y, u, the two remainders and the ones (x and y held by the artist unless cleared),
    # and the 16 B np.remainder with a Python float takes in NumPy too
    assert data["devices"]["cpu"]["peak_bytes"] == real == 2400 * (4 if clear else 6) + 16
