"""Planning the script programs of benchmarks/programs at full size, and their small-size check.

For each program that runs as a script (``FULL`` in benchmarks/programs/__init__.py):
``ft.plan_script(PROGRAM.py, [N])`` at the full size (as ``faketensor run PROGRAM.py N``
does; placeholders where ``MODE_OPTIONS`` says so), with its planned peak, planning time,
status and the calls it lists as unmodelled or assumed; then, at the test size, NumPy's real
peak (tracemalloc in NumPy's domain) against the planned one. Times: the first plan (kernel
cache cleared) and the best of ``--repeat``; compare only figures from one run.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), os.path.join(os.path.dirname(HERE), "tests")]

import faketensor as ft  # noqa: E402
from benchmarks.programs import BOUNDED, FULL, MODE_OPTIONS, PROGRAMS, STOPS  # noqa: E402
from memtools import measure_peak  # noqa: E402

np.random.default_rng(0)  # NumPy's first Generator caches 16 bytes for good
np.median(np.ones(4))  # its first call imports numpy.ma, whose module arrays stay alive


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return ""


def full_plan(name: str, repeat: int) -> tuple:
    """(plan, seconds of the first plan with the kernel cache cleared, best seconds of the
    repeats) of the program planned at its full size."""
    mod = PROGRAMS[name][0] if name in PROGRAMS else {**STOPS, **BOUNDED}[name][0]
    dd = MODE_OPTIONS.get(name, {}).get("data_dependent", "stop")
    ft.clear_cache()
    times, plan = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        plan = ft.plan_script(mod.__file__, [str(FULL[name])], data_dependent=dd)
        times.append(time.perf_counter() - t0)
    return plan, times[0], min(times)


def small(name: str) -> tuple:
    """(real peak, planned peak) at the test size (None for programs that stop)."""
    if name not in PROGRAMS:
        return None, None
    mod, n = PROGRAMS[name][0], PROGRAMS[name][1]
    real = measure_peak(lambda: mod.main(n))[0]
    with ft.FakeMode(**MODE_OPTIONS.get(name, {})) as mode:
        mod.main(n)
    return real, mode.memory.peak.get("cpu", 0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("names", nargs="*", help="programs (default: every one in FULL)")
    args = ap.parse_args()
    print(f"numpy {np.__version__}; full-size plans: the first (kernel cache cleared) and the best of {args.repeat}; small: bytes")
    print(f"{'program':15} {'full n':>11} {'planned peak':>13} {'first s':>7} {'best s':>7} {'ops':>5}  "
          f"{'small n':>7} {'real':>9} {'planned':>9}  status / notes")
    for name in args.names or list(FULL):
        plan, first, secs = full_plan(name, args.repeat)
        real, fake = small(name)
        notes = [plan.status]
        if plan.stopped_at:
            notes.append(f"at line {plan.stopped_at['line']}: {plan.stopped_at['message']}")
        notes += [f"unmodelled: {u['function']}" for u in plan.memory_unmodelled]
        if plan.placeholders:
            notes.append(f"{sum(p['count'] for p in plan.placeholders)} placeholder uses")
        n_small = PROGRAMS[name][1] if name in PROGRAMS else {**STOPS, **BOUNDED}[name][1]
        ok = "" if real is None else ("=" if real == fake else f"({fake / real:.5f})")
        print(f"{name:15} {FULL[name]:>11,} {_size(plan.peak.get('cpu', 0)):>13} {first:>7.3f} "
              f"{secs:>7.3f} {plan.ops:>5}  {n_small:>7} {real if real is not None else '-':>9} "
              f"{fake if fake is not None else '-':>9}{ok:>2} {'; '.join(notes)}", flush=True)


if __name__ == "__main__":
    main()
