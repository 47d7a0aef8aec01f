"""No public SciPy function kills the interpreter when a fake reaches it: every case of
tests/scipy_crash_cases.py runs on fakes inside a FakeMode in a subprocess (a batch per
process; after a death by a signal the batch goes on in a new process from the next case),
and none may end by a signal. An answer, DataDependentError, UnsupportedOperationError or
SciPy's own exception are all fine here; tests/kernels/scipy/test_scipy.py checks the answers."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("scipy")
import scipy_crash_cases  # noqa: E402
import pathlib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))  # run as a script
from locations import TESTS  # tests/ and the checkout

HERE = str(TESTS)

RUNNER = textwrap.dedent("""
    import sys, warnings, importlib
    warnings.simplefilter("ignore")
    import faketensor as ft
    import scipy
    for mod in ("interpolate", "ndimage", "signal", "signal.windows", "spatial", "spatial.distance",
                "spatial.transform", "linalg", "linalg.blas", "linalg.lapack", "special", "stats",
                "stats.qmc", "stats.contingency", "sparse", "sparse.linalg", "sparse.csgraph",
                "optimize", "integrate", "fft", "fftpack", "cluster.vq", "cluster.hierarchy",
                "io", "io.wavfile"):
        importlib.import_module("scipy." + mod)
    import scipy_crash_cases as cases
    start = int(sys.argv[1])
    with ft.FakeMode():
        env = {"scipy": scipy}
        exec(cases.SETUP, env)
        for i in range(start, len(cases.CASES)):
            print("S", i, flush=True)
            try:
                exec(cases.CASES[i], dict(env))
            except BaseException as e:  # any exception is an answer; only a signal is not
                print("X", i, type(e).__name__, str(e).splitlines()[0][:100] if str(e) else "",
                      flush=True)
            print("E", i, flush=True)
    """)


def survey() -> tuple[list[tuple[str, int]], dict[int, str]]:
    """(case, signal) for every case that killed its process; the outcome line of the others."""
    deaths, outcomes = [], {}
    start, env = 0, dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    while start < len(scipy_crash_cases.CASES):
        p = subprocess.run([sys.executable, "-c", RUNNER, str(start)], capture_output=True,
                           text=True, env=env, timeout=300)
        last = start
        for line in p.stdout.splitlines():
            kind, _, rest = line.partition(" ")
            i = int(rest.split(" ", 1)[0])
            if kind == "S":
                last = i
            elif kind == "X":
                outcomes[i] = rest
        if p.returncode < 0:
            deaths.append((scipy_crash_cases.CASES[last], -p.returncode))
            start = last + 1
        else:
            assert p.returncode == 0, p.stderr[-2000:]
            break
    return deaths, outcomes


def test_no_scipy_function_dies_on_fakes():
    deaths, _ = survey()
    assert deaths == []


if __name__ == "__main__":
    d, o = survey()
    for i, case in enumerate(scipy_crash_cases.CASES):
        print(f"{case:90.90} {o.get(i, 'ok')[:120]}")
    print("DEATHS", d)


@pytest.mark.parametrize("cls", ["Delaunay", "ConvexHull", "Voronoi"])
def test_qhull_refuses_a_fake_and_runs_real_points(cls):
    """Qhull's constructors never hand a fake to SciPy's compiled ``_Qhull`` (its failed
    argument check crashes in its deallocation); real points still run in a mode."""
    import numpy as np
    import scipy.spatial as ss

    import faketensor as ft
    pts = np.random.default_rng(0).random((20, 2))
    real = getattr(ss, cls)(pts)
    with ft.FakeMode():
        assert type(getattr(ss, cls)(pts).points) is np.ndarray
        with pytest.raises(ft.DataDependentError, match=f"scipy.spatial.{cls}"):
            getattr(ss, cls)(ft.to_fake(pts))
    assert real.points.shape == (20, 2)
