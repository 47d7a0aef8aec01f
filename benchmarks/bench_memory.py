"""Predicted vs measured peak memory of real NumPy programs (benchmarks/programs).

For each program: NumPy's real data peak (tracemalloc in NumPy's own domain, see
tests/memtools.py), the peak ``FakeMode`` predicts (``mode.memory.peak['cpu']``) with the
kernel cache on and off, their ratio, live bytes at the end, and run times. One run
prints every figure (times: best of 3 runs; fake runs with the cache on are warm).
``--small`` uses the sizes the tests use.

``--ops`` prints real vs fake figures of single operations that allocate more than their
outputs (rules the memory model still has to learn; see NOT_EXACT in
tests/planner/test_memory_programs.py). ``--lines PROGRAM [N]`` finds where a prediction goes
wrong: it runs the program for real and under FakeMode with a line tracer and prints every
program line whose figures differ (peak above the live bytes at the line's start, and
live change); ``--min-diff BYTES`` hides the small differences.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import tracemalloc

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), os.path.join(os.path.dirname(HERE), "tests")]

import faketensor as ft  # noqa: E402
from benchmarks.programs import MODE_OPTIONS, PROGRAMS  # noqa: E402
from memtools import measure_peak, numpy_tracing, op_peaks  # noqa: E402

np.random.default_rng(0)  # NumPy's first Generator caches 16 bytes for good: not the programs' doing
np.median(np.ones(4))  # its first call imports numpy.ma, whose module arrays stay alive


def fake_peak(fn, cache: bool, options: dict | None = None) -> tuple[int, int, float]:
    """(peak, live at the end, seconds) of fn() under FakeMode(**options), kernel cache on
    or off."""
    old = ft.set_cache_enabled(cache)
    ft.clear_cache()
    mode_of = lambda: ft.FakeMode(**(options or {}))  # noqa: E731
    try:
        with mode_of() as mode:
            fn()
        dt = best_time(fn, mode_of)  # cache on: these runs hit the entries made above
    finally:
        ft.set_cache_enabled(old)
    return mode.memory.peak.get("cpu", 0), mode.memory.live.get("cpu", 0), dt


def best_time(fn, context=contextlib.nullcontext, repeat: int = 3) -> float:
    """The shortest of ``repeat`` timed runs of fn() (the machine is shared and noisy)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        with context():
            fn()
        best = min(best, time.perf_counter() - t0)
    return best


def figures(name: str, n: int) -> dict:
    """Every figure the table prints, for one program at size n."""
    mod = PROGRAMS[name][0]
    fn = lambda: mod.main(n)  # noqa: E731
    real_s = best_time(fn)
    real_peak, real_end = measure_peak(fn)
    on = fake_peak(fn, True, MODE_OPTIONS.get(name))
    off = fake_peak(fn, False, MODE_OPTIONS.get(name))
    return dict(name=name, n=n, real=real_peak, real_end=real_end, real_s=real_s,
                on=on[0], on_end=on[1], on_s=on[2], off=off[0], off_end=off[1], off_s=off[2])


def table(small: bool) -> None:
    print(f"numpy {np.__version__}; peaks in bytes of NumPy data (real: tracemalloc, NumPy's domain)")
    print(f"{'program':11} {'n':>7} {'measured':>10} {'predicted':>10} {'diff':>8} {'ratio':>8} "
          f"{'no cache':>10} {'diff':>8} {'end r/f/f0':>11} {'real s':>7} {'fake s':>7} "
          f"{'nocache s':>9}")
    exact = 0
    for name, (_, n_small, n_large) in PROGRAMS.items():
        f = figures(name, n_small if small else n_large)
        exact += f["on"] == f["real"] == f["off"]
        print(f"{name:11} {f['n']:>7} {f['real']:>10} {f['on']:>10} {f['on'] - f['real']:>+8} "
              f"{f['on'] / f['real']:>8.5f} {f['off']:>10} {f['off'] - f['real']:>+8} "
              f"{'%d/%d/%d' % (f['real_end'], f['on_end'], f['off_end']):>11} "
              f"{f['real_s']:>7.3f} {f['on_s']:>7.3f} {f['off_s']:>9.3f}", flush=True)
    print(f"{exact} of {len(PROGRAMS)} programs predicted to the byte (cache on and off)")


def _ones(shape, dtype=np.float64):
    return lambda: np.ones(shape, dtype)


# (label, inputs made before the op, the op): each allocates more than its outputs for real
OPS = [
    ("a32 * 2.0 (Python scalar)", lambda: [_ones(1000, np.float32)()], lambda a: a * 2.0),
    ("a64 * 2.0", lambda: [_ones(1000)()], lambda a: a * 2.0),
    ("a32 *= 3.0 (out= given)", lambda: [_ones(1000, np.float32)()], lambda a: a.__imul__(3.0)),
    ("a32 * np.float32(2)", lambda: [_ones(1000, np.float32)()], lambda a: a * np.float32(2)),
    ("a32 > 0", lambda: [_ones(1000, np.float32)()], lambda a: a > 0),
    ("a64 ** -1.5", lambda: [_ones(1000)()], lambda a: a ** -1.5),
    ("b[1:3] = 0.5 (setitem scalar)", lambda: [_ones((16, 16))()], lambda a: a.__setitem__(slice(1, 3), 0.5)),
    ("int64 (1000,) / 8.0 (cast copy)", lambda: [np.arange(1000)], lambda a: a / 8.0),
    ("int64 (8193,) / 8.0 (buffered)", lambda: [np.arange(8193)], lambda a: a / 8.0),
    ("f32 (1000,) + f64 (1000,)", lambda: [_ones(1000, np.float32)(), _ones(1000)()], lambda a, b: a + b),
    ("f32 (10,100) + f64 (10,100)", lambda: [_ones((10, 100), np.float32)(), _ones((10, 100))()],
     lambda a, b: a + b),
    ("f32 (128,64) * f16 (64,)", lambda: [_ones((128, 64), np.float32)(), _ones(64, np.float16)()],
     lambda a, b: a * b),
    ("f32 (8,640) @ f16 (640,640)", lambda: [_ones((8, 640), np.float32)(), _ones((640, 640), np.float16)()],
     lambda a, b: a @ b),
    ("f64 (1000,).sum() -> scalar", lambda: [_ones(1000)()], lambda a: a.sum()),
    ("f32 (16,16).mean(axis=0)", lambda: [_ones((16, 16), np.float32)()], lambda a: a.mean(axis=0)),
    ("f64 (16,16).mean(axis=0)", lambda: [_ones((16, 16))()], lambda a: a.mean(axis=0)),
    ("np.ones((16,16))", lambda: [], lambda: np.ones((16, 16))),
    ("np.ones((16,16), float32)", lambda: [], lambda: np.ones((16, 16), np.float32)),
    ("np.zeros_like(f64 (16,16))", lambda: [_ones((16, 16))()], lambda a: np.zeros_like(a)),
    ("np.full((16,16), 2.5)", lambda: [], lambda: np.full((16, 16), 2.5)),
    ("np.triu(f32 (400,400), 1)", lambda: [_ones((400, 400), np.float32)()], lambda a: np.triu(a, 1)),
    ("np.roll(f64 (16,16), 1, axis=0)", lambda: [_ones((16, 16))()], lambda a: np.roll(a, 1, axis=0)),
    ("np.fft.rfftfreq(1024)", lambda: [], lambda: np.fft.rfftfreq(1024, d=0.5)),
    ("np.fft.fftfreq(1024)", lambda: [], lambda: np.fft.fftfreq(1024, d=0.5)),
    ("np.hanning(256)", lambda: [], lambda: np.hanning(256)),
    ("np.gradient(f64 (16,16), 0.1, axis=1)", lambda: [_ones((16, 16))()], lambda a: np.gradient(a, 0.1, axis=1)),
    ("np.gradient(f64 (256,256), 0.1, axis=1)", lambda: [_ones((256, 256))()],
     lambda a: np.gradient(a, 0.1, axis=1)),
    ("sliding_window_view(f64 (16,16), (3,3))", lambda: [_ones((16, 16))()],
     lambda a: np.lib.stride_tricks.sliding_window_view(a, (3, 3))),
    ("np.fft.rfft(f64 (1024,))", lambda: [_ones(1024)()], lambda a: np.fft.rfft(a)),
    ("np.fft.irfft(c128 (513,), n=1024)", lambda: [_ones(513, complex)()], lambda a: np.fft.irfft(a, n=1024)),
    ("(f64 (100000,) * 1.0) + b (elision)", lambda: [_ones(100000)(), _ones(100000)()],
     lambda a, b: (a * 1.0) + b),
    ("0.05 * (f64 (100000,) * 1.0) (elision)", lambda: [_ones(100000)()], lambda a: 0.05 * (a * 1.0)),
    ("np.random.default_rng(0)", lambda: [], lambda: np.random.default_rng(0)),
    # NumPy functions written in Python (kernels/numpy/temporaries.py replays their allocations)
    ("np.median(f64 (64,64) F, axis=0)", lambda: [_ones((64, 64))().T], lambda a: np.median(a, axis=0)),
    ("np.cov(f64 (32,100))", lambda: [_ones((32, 100))()], lambda a: np.cov(a)),
    ("np.isclose(f32 (300,300), int32)", lambda: [_ones((300, 300), np.float32)(), _ones((300, 300), np.int32)()],
     lambda a, b: np.isclose(a, b)),
    ("np.tile(f64 (16,16).T, (2,3))", lambda: [_ones((16, 16))().T], lambda a: np.tile(a, (2, 3))),
    ("np.diff(f32 (100,100), n=3, axis=0)", lambda: [_ones((100, 100), np.float32)()], lambda a: np.diff(a, 3, 0)),
    ("np.nanmean(f64 (64,64), axis=1)", lambda: [_ones((64, 64))()], lambda a: np.nanmean(a, axis=1)),
    ("np.var(f32 (64,64), axis=0)", lambda: [_ones((64, 64), np.float32)()], lambda a: np.var(a, axis=0)),
    ("np.triu_indices(300, 1)", lambda: [], lambda: np.triu_indices(300, 1)),
    ("np.polyval([1,2,3], f64 (300,300))", lambda: [_ones((300, 300))()], lambda a: np.polyval([1, 2, 3], a)),
    ("np.interp(f32 (1000,), xp, fp)", lambda: [_ones(1000, np.float32)()], lambda a: np.interp(a, [0, 1, 2], [0, 1, 4])),
]


def ops_table() -> None:
    print(f"{'op':42} {'real peak':>10} {'live':>8} {'fake peak':>10} {'live':>8}")
    for label, setup, op in OPS:
        (rp, rl), (fp, fl) = op_peaks(setup, op)
        mark = "" if (rp, rl) == (fp, fl) else "  differs"
        print(f"{label:42} {rp:>10} {rl:>8} {fp:>10} {fl:>8}{mark}")


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
    with ft.FakeMode(**MODE_OPTIONS.get(name, {})) as mode:
        mem = mode.memory

        def read():
            return mem.live.get("cpu", 0), mem.peak.get("cpu", 0)

        def reset(live):
            mem.reset_peak("cpu")
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
    ap.add_argument("--ops", action="store_true", help="real vs fake figures of single ops")
    ap.add_argument("--min-diff", type=int, default=0, metavar="BYTES",
                    help="with --lines: show only lines that differ by more than BYTES")
    ap.add_argument("--lines", nargs="+", metavar=("PROGRAM", "N"),
                    help="list the lines of PROGRAM (at size N) where real and fake differ")
    args = ap.parse_args()
    if args.ops:
        ops_table()
    elif args.lines:
        name = args.lines[0]
        n = int(args.lines[1]) if len(args.lines) > 1 else PROGRAMS[name][1 if args.small else 2]
        line_diff(name, n, args.min_diff)
    else:
        table(args.small)


if __name__ == "__main__":
    main()
