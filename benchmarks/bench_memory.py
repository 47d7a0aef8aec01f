"""Predicted vs measured peak memory of real NumPy programs (benchmarks/programs).

For each program: NumPy's real data peak (tracemalloc in NumPy's own domain, see
tests/memtools.py), the peak ``FakeMode`` predicts (``mode.memory.peak['cpu']``) with the
kernel cache on and off, their ratio, live bytes at the end, and run times. One run
prints every figure. ``--small`` uses the sizes the tests use.

``--lines PROGRAM [N]`` finds where a prediction goes wrong: it runs the program for real
and under FakeMode with a line tracer and prints every program line whose real and fake
figures differ (peak above the live bytes at the line's start, and live change).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), os.path.join(os.path.dirname(HERE), "tests")]

import faketensor as ft  # noqa: E402
from benchmarks.programs import PROGRAMS  # noqa: E402
from memtools import measure_peak, numpy_tracing  # noqa: E402


def fake_peak(fn, cache: bool) -> tuple[int, int, float]:
    """(peak, live at the end, seconds) of fn() under FakeMode, kernel cache on or off."""
    old = ft.set_cache_enabled(cache)
    ft.clear_cache()
    try:
        t0 = time.perf_counter()
        with ft.FakeMode() as mode:
            fn()
        dt = time.perf_counter() - t0
    finally:
        ft.set_cache_enabled(old)
    return mode.memory.peak.get("cpu", 0), mode.memory.live.get("cpu", 0), dt


def figures(name: str, n: int) -> dict:
    """Every figure the table prints, for one program at size n."""
    mod = PROGRAMS[name][0]
    fn = lambda: mod.main(n)  # noqa: E731
    t0 = time.perf_counter()
    fn()
    real_s = time.perf_counter() - t0
    real_peak, real_end = measure_peak(fn)
    on = fake_peak(fn, True)
    off = fake_peak(fn, False)
    return dict(name=name, n=n, real=real_peak, real_end=real_end, real_s=real_s,
                on=on[0], on_end=on[1], on_s=on[2], off=off[0], off_end=off[1], off_s=off[2])


def table(small: bool) -> None:
    print(f"numpy {np.__version__}; peaks in bytes of NumPy data (real: tracemalloc, NumPy's domain)")
    print(f"{'program':11} {'n':>7} {'measured':>11} {'predicted':>11} {'ratio':>8} "
          f"{'no cache':>11} {'ratio':>8} {'end r/f/f0':>12} {'real s':>7} {'fake s':>7} "
          f"{'nocache s':>9}")
    exact = 0
    for name, (_, n_small, n_large) in PROGRAMS.items():
        f = figures(name, n_small if small else n_large)
        exact += f["on"] == f["real"] == f["off"]
        print(f"{name:11} {f['n']:>7} {f['real']:>11} {f['on']:>11} {f['on'] / f['real']:>8.5f} "
              f"{f['off']:>11} {f['off'] / f['real']:>8.5f} "
              f"{'%d/%d/%d' % (f['real_end'], f['on_end'], f['off_end']):>12} "
              f"{f['real_s']:>7.3f} {f['on_s']:>7.3f} {f['off_s']:>9.3f}", flush=True)
    print(f"{exact} of {len(PROGRAMS)} programs predicted to the byte (cache on and off)")


class LineTracer:
    """Cuts a run into segments at every line, call and return event in the program's file.

    ``read()`` gives (live now, peak since the last reset); ``reset(live)`` restarts the
    peak. Each segment records (file:line, live at start, peak rise above it, live change).
    """

    def __init__(self, files: set, read, reset) -> None:
        self.files, self.read, self.reset = files, read, reset
        self.rows: list = []
        self.where = None
        self.start = 0

    def _cut(self, where) -> None:
        live, peak = self.read()
        if self.where is not None:
            self.rows.append((self.where, self.start, peak - self.start, live - self.start))
        self.reset(live)
        self.where, self.start = where, live

    def __call__(self, frame, event, arg):
        code = frame.f_code
        if code.co_filename not in self.files:
            return None
        self._cut(f"{os.path.basename(code.co_filename)}:{frame.f_lineno} {event}")
        return self

    def run(self, fn) -> list:
        sys.settrace(self)
        try:
            fn()
        finally:
            sys.settrace(None)
        self._cut(None)
        return self.rows


def line_diff(name: str, n: int, min_diff: int = 0, limit: int = 60) -> None:
    """Print the program lines whose real and fake memory figures differ by more than min_diff."""
    mod = PROGRAMS[name][0]
    files = {mod.__file__}
    fn = lambda: mod.main(n)  # noqa: E731
    with numpy_tracing():
        real = LineTracer(files, tracemalloc.get_traced_memory, lambda live: tracemalloc.reset_peak()).run(fn)
    with ft.FakeMode() as mode:
        mem = mode.memory

        def read():
            return mem.live.get("cpu", 0), mem.peak.get("cpu", 0)

        def reset(live):
            mem.peak["cpu"] = live
        fake = LineTracer(files, read, reset).run(fn)
    if len(real) != len(fake):
        print(f"the real and fake runs took different paths ({len(real)} vs {len(fake)} segments)")
    shown = 0
    seen: dict = {}
    for r, f in zip(real, fake):
        if max(abs(r[2] - f[2]), abs(r[3] - f[3])) > min_diff:
            key = (r[0], r[2:], f[2:])
            seen[key] = seen.get(key, 0) + 1
    print(f"{name} n={n}: segments whose (peak rise, live change) differ, real vs fake")
    for (where, rv, fv), count in seen.items():
        print(f"  {where:28} real {str(rv):24} fake {str(fv):24} x{count}")
        shown += 1
        if shown >= limit:
            break


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="the sizes the tests use")
    ap.add_argument("--min-diff", type=int, default=0, metavar="BYTES",
                    help="with --lines: show only lines that differ by more than BYTES")
    ap.add_argument("--lines", nargs="+", metavar=("PROGRAM", "N"),
                    help="list the lines of PROGRAM (at size N) where real and fake differ")
    args = ap.parse_args()
    if args.lines:
        name = args.lines[0]
        n = int(args.lines[1]) if len(args.lines) > 1 else PROGRAMS[name][1 if args.small else 2]
        line_diff(name, n, args.min_diff)
    else:
        table(args.small)


if __name__ == "__main__":
    main()
