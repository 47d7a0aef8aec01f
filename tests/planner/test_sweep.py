"""``faketensor sweep`` and ``ft.sweep``: the largest parameter value whose plan fits a limit.

The scripts of tests/plan_scripts/sweep_*.py have peaks known in closed form; each closed form
is checked against real runs at small sizes (NumPy's tracemalloc domain, as tests/planner/test_plan.py
measures), and the sweep's answer against the largest value the closed form lets fit.
"""
from __future__ import annotations

import os
import sys
from fractions import Fraction

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils.planner import cli
from faketensor.meta_utils.planner.sweep import (Trial, fit_peak, interpolate, poly_text, substitute,
                                         sweep_program)
from test_plan import SCRIPTS, real_peak, run_cli

CLOSED = {  # script -> (peak bytes as a function of the argument values)
    "sweep_linear.py": lambda b, t: 4 * b * t + 256 * t + 516 * b,
    "sweep_square.py": lambda n: 32 * n * n + 8 * n,
    "sweep_cube.py": lambda n: 3 * n ** 3 // 2,  # even n
    "sweep_helper.py": lambda n: 16 * n + 16,
}


def largest(f, lo: int, hi: int, limit: int, step: int = 1) -> int | None:
    """The largest multiple of ``step`` in [lo, hi] with f(value) <= limit, by brute force."""
    fits = [v for v in range(lo, hi + 1) if v % step == 0 and f(v) <= limit]
    return max(fits) if fits else None


def sweep_cli(*args: str, tmp_path=None) -> tuple:
    """(returncode, stdout, stderr, JSON or None) of ``faketensor sweep ARGS`` in plan_scripts."""
    return run_cli(*args, tmp_path=tmp_path, command="sweep")


def sweep_here(script: str, argv, param: str, lo: int, hi: int, **kw):
    """sweep_program on a script of plan_scripts, run from that folder."""
    cwd = os.getcwd()
    os.chdir(SCRIPTS)
    try:
        return sweep_program(script, list(argv), param, lo, hi, **kw)
    finally:
        os.chdir(cwd)


# --- the closed forms are the real peaks -----------------------------------------------------

@pytest.mark.parametrize("script,args", [
    ("sweep_linear.py", (7, 33)), ("sweep_linear.py", (20, 64)),
    ("sweep_square.py", (9,)), ("sweep_square.py", (31,)),
    ("sweep_cube.py", (10,)), ("sweep_cube.py", (16,)),
    ("sweep_helper.py", (10,)), ("sweep_helper.py", (57,)),
])
def test_closed_form_is_the_real_peak(script, args):
    assert real_peak(script, *map(str, args)) == CLOSED[script](*args)


# --- the CLI ---------------------------------------------------------------------------------

def test_cli_two_params_json_and_fit(tmp_path):
    limit = 8 * 2 ** 20
    rc, out, err, data = sweep_cli("--memory-limit", "8MiB", "--param", "B=1:4096",
                                   "--param", "T=1024", "sweep_linear.py", "{B}", "{T}",
                                   tmp_path=tmp_path)
    want = largest(lambda b: CLOSED["sweep_linear.py"](b, 1024), 1, 4096, limit)
    assert rc == 0, err
    assert out.strip() == str(want) == "1762"
    assert data["largest_fitting"] == want and data["exit_code"] == 0
    assert data["param"] == "B" and data["fixed"] == {"T": 1024} and data["limits"] == {"cpu": limit}
    for t in data["trials"]:  # every plan's peak is the closed form's
        assert t["params"]["T"] == 1024
        assert t["peak_bytes"]["cpu"] == CLOSED["sweep_linear.py"](t["value"], 1024)
        assert t["result"] == ("fits" if t["peak_bytes"]["cpu"] <= limit else "over")
    values = [t["value"] for t in data["trials"]]
    assert values == sorted(values) and {want, want + 1} <= set(values)
    assert len(values) <= 16  # bisection, not a scan
    assert data["fit"]["cpu"]["polynomial"] == "4612*B + 262144"
    assert data["fit"]["cpu"]["points"] == len(values) and data["monotone"]
    assert "largest fitting: B=1762" in err and "peak cpu(B) = 4612*B + 262144 bytes" in err
    assert "assumes" in err


def test_cli_step_and_a_rational_fit(tmp_path):
    limit = 100 * 10 ** 6
    rc, out, err, data = sweep_cli("--memory-limit", "100MB", "--step", "2", "--param",
                                   "N=1:1000", "sweep_cube.py", "{N}", tmp_path=tmp_path)
    want = largest(CLOSED["sweep_cube.py"], 1, 1000, limit, step=2)
    assert rc == 0, err
    assert out.strip() == str(want) == "404"
    assert all(t["value"] % 2 == 0 for t in data["trials"])
    assert data["fit"]["cpu"]["polynomial"] == "3/2*N^3"
    assert data["fit"]["cpu"]["coefficients"] == ["0", "0", "0", "3/2"]


def test_cli_none_fits_exits_3(tmp_path):
    rc, out, err, data = sweep_cli("--memory-limit", "cpu=30", "--param", "N=1:50",
                                   "sweep_square.py", "{N}", tmp_path=tmp_path)
    assert rc == 3 and out == ""
    assert data["largest_fitting"] is None and data["exit_code"] == 3
    assert "no value of N in [1, 50] fits" in err


@pytest.mark.parametrize("args,message", [
    (["--memory-limit", "1GiB", "sweep_square.py", "{N}"], "--param NAME=LO:HI"),
    (["--memory-limit", "1GiB", "--param", "N=5", "sweep_square.py", "{N}"], "first --param"),
    (["--memory-limit", "1GiB", "--param", "N=1:9", "--param", "M=1:3", "sweep_square.py",
      "{N}"], "only the first"),
    (["--memory-limit", "1GiB", "--param", "N=9:1", "sweep_square.py", "{N}"], "LO is above HI"),
    (["--memory-limit", "1GiB", "--param", "N=a:b", "sweep_square.py", "{N}"], "integers"),
    (["--memory-limit", "1GiB", "--param", "N=1:9", "sweep_square.py", "7"], "no {N}"),
    (["--memory-limit", "lots", "--param", "N=1:9", "sweep_square.py", "{N}"], "lots"),
    (["--memory-limit", "1GiB", "--step", "10", "--param", "N=1:9", "sweep_square.py", "{N}"],
     "no multiple of 10"),
    (["--memory-limit", "1GiB", "--param", "N=1:9", "missing.py", "{N}"], "no such file"),
])
def test_cli_bad_arguments_exit_2(args, message, capsys, monkeypatch):
    monkeypatch.chdir(SCRIPTS)
    assert cli.main(["sweep", *args]) == 2
    out, err = capsys.readouterr()
    assert message in err and out == ""


def test_cli_module_in_process(capsys, monkeypatch):
    """``-m``: the target is a module; {N} in its arguments (mlpkg N HIDDEN STEPS)."""
    monkeypatch.chdir(SCRIPTS)
    assert cli.main(["sweep", "--memory-limit", "1MiB", "--param", "N=1:512", "--param",
                     "H=8", "-m", "mlpkg", "{N}", "{H}", "2"]) == 0
    out, err = capsys.readouterr()
    assert int(out) >= 1 and "largest fitting: N=" in err


# --- the engine through Python -----------------------------------------------------------------

def test_each_plan_imports_the_programs_modules_again():
    res = sweep_here("sweep_helper.py", ["{N}"], "N", 1, 1000, memory_limit=1600)
    assert res.largest_fitting == largest(CLOSED["sweep_helper.py"], 1, 1000, 1600) == 99
    assert all(t.peak["cpu"] == CLOSED["sweep_helper.py"](t.value) for t in res.trials)
    assert "sweep_table" not in sys.modules


def test_square_answer_and_fit():
    limit = 10 ** 8
    res = sweep_here("sweep_square.py", ["{N}"], "N", 1, 2000, memory_limit=limit)
    assert res.largest_fitting == largest(CLOSED["sweep_square.py"], 1, 2000, limit) == 1767
    f = res.fits["cpu"]
    assert f.text("N") == "32*N^2 + 8*N" and f.degree == 2 and (f.low, f.high) == (1, 2000)
    assert f(4096) == CLOSED["sweep_square.py"](4096)
    assert not res.contradictions


def test_a_stopped_plan_does_not_fit_and_says_why():
    res = sweep_here("sweep_stops.py", ["{N}"], "N", 1, 100, memory_limit="1GiB")
    assert res.largest_fitting == 50 and res.exit_code == 0
    stopped = [t for t in res.trials if t.result == "stopped"]
    assert stopped and all(t.value > 50 for t in stopped)
    assert all("data_dependent at sweep_stops.py:11" in t.reason for t in stopped)
    assert all(t.result == "fits" for t in res.trials if t.value <= 50)
    assert res.fits["cpu"].text("N") == "1000*N + 9"  # the completed plans only
    assert "stopped" in res.report() and "DataDependentError" in res.report()


def test_a_non_monotone_program_is_reported():
    res = sweep_here("sweep_bump.py", ["{N}"], "N", 1, 100, memory_limit=10 ** 6)
    assert res.largest_fitting == 100
    over = [t for t in res.trials if 40 <= t.value < 60]
    assert over and all(t.result == "over" for t in over)
    assert res.contradictions and not res.to_json()["monotone"]
    assert any("does not fit" in c for c in res.contradictions)
    assert any("peak falls" in c for c in res.contradictions)
    assert "NOT MONOTONE" in res.report()
    assert res.fits["cpu"] is None and "no polynomial fit" in res.report()


def test_the_programs_stdout_is_not_the_sweeps(capsys):
    sweep_here("sweep_square.py", ["{N}"], "N", 1, 20, memory_limit="1MiB")
    assert "stacked" not in capsys.readouterr().out


def test_ft_sweep_of_a_function():
    def step(n):
        a = np.empty((n, 16))
        b = np.empty(n, np.int8)
        return a, b

    res = ft.sweep(step, (1, 1000), memory_limit=12_900)
    assert res.largest_fitting == 100 and res.param == "n" and res.exit_code == 0
    assert res.fits["cpu"].text("n") == "129*n"
    res = ft.sweep(step, (200, 1000), memory_limit=12_900)
    assert res.largest_fitting is None and res.exit_code == 3


def test_ft_sweep_several_params_and_step():
    seen = []

    def model(B, T, D):
        seen.append((B, T, D))
        x = np.empty((B, T, D), np.float32)
        return x @ np.empty((D, D), np.float32)

    limit = 2 ** 20
    res = ft.sweep(model, {"B": (1, 64), "T": 16, "D": 32}, memory_limit={"cpu": limit}, step=4)
    want = largest(lambda b: 2 * 4 * b * 16 * 32 + 4 * 32 * 32, 1, 64, limit, step=4)
    assert res.largest_fitting == want
    assert all(b % 4 == 0 and (t, d) == (16, 32) for b, t, d in seen)
    assert res.to_json()["fixed"] == {"T": 16, "D": 32}
    with pytest.raises(ValueError, match="only the first"):
        ft.sweep(model, {"B": (1, 4), "T": (1, 4)}, memory_limit=limit)
    with pytest.raises(ValueError, match="range"):
        ft.sweep(model, {"B": 4}, memory_limit=limit)


def test_limits_on_a_cuda_device_only():
    pytest.importorskip("cupy")
    res = sweep_here("cupy_step.py", ["{N}"], "N", 1, 4096, memory_limit="cuda:0=64MiB",
                     device="cuda:0")
    pool = lambda n: 4 * (-(-(n * n * 4) // 512) * 512)  # four n x n float32 buffers, pooled
    assert res.largest_fitting == largest(pool, 1, 4096, 64 * 2 ** 20)
    assert list(res.fits) == ["cuda:0"]


# --- the fit -----------------------------------------------------------------------------------

def _trials(f, values, stopped=()):
    return [Trial(v, {"n": v}, "stopped" if v in stopped else "fits", {"cpu": f(v)}, None, i, 0.0)
            for i, v in enumerate(values)]


def test_interpolate_is_exact_in_rationals():
    pts = [(x, 3 * x ** 3 // 2 - 7 * x + 5) for x in (2, 4, 10, 12)]
    assert interpolate(pts) == (Fraction(5), Fraction(-7), Fraction(0), Fraction(3, 2))


def test_fit_holds_on_a_plan_it_was_not_fitted_through():
    f = fit_peak(_trials(lambda n: 5 * n * n + 3, [1, 2, 3, 50, 70]), "cpu")
    assert f.coefficients == (3, 0, 5) and f.points == 5 and (f.low, f.high) == (1, 70)
    # three points of a quadratic: no lower degree holds, and a quadratic would go unchecked
    assert fit_peak(_trials(lambda n: 5 * n * n + 3, [1, 2, 3]), "cpu") is None
    assert fit_peak(_trials(lambda n: 2 ** n, [1, 2, 3, 4, 5, 6, 7, 8]), "cpu") is None
    assert fit_peak(_trials(lambda n: 7, [3]), "cpu") is None  # nothing held out


def test_fit_covers_the_largest_values_when_small_ones_differ():
    f = fit_peak(_trials(lambda n: 8 * n * n if n >= 100 else 24 * n * n, [1, 10, 100, 200, 400,
                                                                              800]), "cpu")
    assert f.text("n") == "8*n^2" and (f.low, f.high) == (100, 800) and f.points == 4


def test_stopped_plans_are_left_out_of_the_fit():
    f = fit_peak(_trials(lambda n: 3 * n, [1, 2, 3, 4], stopped=(4,)), "cpu")
    assert f.text("n") == "3*n" and f.high == 3


def test_poly_text():
    assert poly_text((Fraction(5), Fraction(-1), Fraction(0), Fraction(3, 2)), "N") == \
        "3/2*N^3 - N + 5"
    assert poly_text((Fraction(0),), "N") == "0"
    assert poly_text((Fraction(-4), Fraction(1)), "N") == "N - 4"
    assert poly_text((Fraction(0), Fraction(-2)), "N") == "-2*N"


def test_substitute_leaves_other_braces():
    assert substitute(["{N}x{N}", "{M}", "{}", "{n}"], {"N": 3}) == ["3x3", "{M}", "{}", "{n}"]


def test_a_program_exiting_non_zero_does_not_fit():
    res = sweep_here("exit_code.py", ["{N}"], "N", 0, 5, memory_limit="1MiB")
    assert res.largest_fitting == 0
    assert all(t.result == "stopped" and t.reason == f"exited with status {t.value}"
               for t in res.trials if t.value)
