"""The planning speed targets of `faketensor run` (issues 13 and 30), measured in one run.

Prints each figure, its ratio and whether the target is met ("ok" / "MISSED"):

- ``import faketensor`` in a fresh interpreter vs ``import numpy`` alone: at most 100 ms more;
- a patched NumPy call outside any mode (``np.zeros(3)``, ``np.sum`` of 3 elements), in a process
  that imported faketensor vs one that did not: <= 0.1 us extra per call;
- planning bench_gpt2.py's GPT-2 XL forward pass vs the same Python code on tiny real arrays
  (same 48 blocks and calls, small dimensions): ``FakeMode(record=True)`` (what
  ``faketensor run`` uses) at most 2x, plain ``FakeMode`` at most 1.2x, and recording at most
  1.5x plain;
- that plan with findings (modes/findings.py: upcasts, hidden copies) vs the same recording
  plan with the findings scan off (``mode.find = False``): <= 1.10x;
- that plan vs PyTorch's ``FakeTensorMode`` and ``jax.eval_shape`` on line-by-line ports
  (benchmarks/ports/), each when installed (skipped otherwise): faketensor ahead of both.

Each plan starts with the tool's dispatch cache empty (``ft.clear_cache()``,
``FakeTensorMode.cache_clear()``; jax gets a new function, so its trace cache misses); after one
warm-up each, the contestants take turns, and each figure is the best of its runs (the least
disturbed by other work on a shared machine): ``--repeat`` of them, and at least ``ROUNDS``
(25) for faketensor's plans and the tiny-NumPy run, whose ratios are the targets and whose
rounds take ~0.1 s (PyTorch and JAX race on their own, ``--repeat`` rounds); recording vs
plain also prints the median of the rounds' paired ratios. ``--table`` also prints the
comparison as a Markdown table. Not a test: only ratios within one run count.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import tempfile
import sys
import time
from typing import Callable, Iterator

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import bench_gpt2  # noqa: E402

#: GPT-2 XL's parameter count, from bench_gpt2's dimensions
PARAMS = (bench_gpt2.VOCAB * bench_gpt2.D + bench_gpt2.CTX * bench_gpt2.D + bench_gpt2.LAYERS
          * (2 * bench_gpt2.D + 4 * bench_gpt2.D ** 2 + 2 * bench_gpt2.D * bench_gpt2.FF))
#: the same program at toy size: every block and op kept, dimensions shrunk
TINY = dict(D=50, HEADS=25, FF=200, VOCAB=64, CTX=16)
#: the least rounds of the planning race (faketensor's plans and the tiny-NumPy run: about
#: 0.1 s a round), whatever ``--repeat`` asks
ROUNDS = 25

_IMPORT = """
import time
t0 = time.perf_counter()
import numpy
t1 = time.perf_counter()
import faketensor
t2 = time.perf_counter()
print(t1 - t0, t2 - t0)
"""

_CALLS = """
import sys, timeit, json
if sys.argv[1] == "1":
    import faketensor
import numpy as np
a = np.ones(3)
out = {}
for name, stmt in (("np.zeros(3)", "np.zeros(3)"), ("np.sum(3 el)", "np.sum(a)")):
    t = timeit.repeat(stmt, globals={"np": np, "a": a}, number=100_000, repeat=5)
    out[name] = min(t) / 100_000 * 1e6
print(json.dumps(out))
"""


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def race(runs: dict[str, Callable[[], object]], repeat: int,
         rounds: dict | None = None) -> tuple[dict, dict]:
    """Best seconds per contestant and each one's last result: one warm-up each, then
    ``repeat`` rounds in which every contestant runs in turn (a noisy machine favours none),
    the order rotated each round (so no contestant always follows the same one, whose
    memory and cache footprint it would inherit). ``rounds``, when given, gets each
    contestant's seconds round by round."""
    results = {name: fn() for name, fn in runs.items()}
    times: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for i in range(repeat):
        for name in names[i % len(names):] + names[:i % len(names)]:
            fn = runs[name]
            t0 = time.perf_counter()
            results[name] = fn()
            times[name].append(time.perf_counter() - t0)
    if rounds is not None:
        rounds.update(times)
    return {name: min(t) for name, t in times.items()}, results


def paired_median(a: list[float], b: list[float]) -> float:
    """The median over rounds of a's time over b's in the same round: a second view of a
    ratio, in which a burst of other work that slows one round slows both sides of it."""
    r = sorted(x / y for x, y in zip(a, b))
    return (r[len(r) // 2] + r[(len(r) - 1) // 2]) / 2


def import_time(repeat: int) -> tuple[float, float]:
    """Best seconds of ``import numpy`` and of ``import numpy, faketensor`` in fresh processes,
    with bytecode cached as an installed package has it (an editable install under
    PYTHONDONTWRITEBYTECODE would otherwise compile every module on every import)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "faketensor-bench-pyc")
    subprocess.check_output([sys.executable, "-c", _IMPORT], text=True, env=env)  # warm the cache
    runs = [subprocess.check_output([sys.executable, "-c", _IMPORT], text=True, env=env).split()
            for _ in range(repeat)]
    return min(float(r[0]) for r in runs), min(float(r[1]) for r in runs)


def call_overhead(repeat: int) -> dict[str, tuple[float, float]]:
    """Per call (us): {call: (with faketensor imported, plain NumPy)}, processes taking turns,
    best of each."""
    runs: dict[str, list[dict]] = {"1": [], "0": []}
    for _ in range(repeat):
        for flag in runs:
            out = subprocess.check_output([sys.executable, "-c", _CALLS, flag], text=True)
            runs[flag].append(json.loads(out))
    return {name: (min(r[name] for r in runs["1"]), min(r[name] for r in runs["0"]))
            for name in runs["1"][0]}


def plan_numpy(**kwargs) -> tuple[tuple, int, list[str]]:
    """Plan bench_gpt2's forward: (final shape, parameter count, the ops called) from the trace
    (which holds the program's calls only: the 0-d arrays NumPy's temporary elision makes of
    scalar operands are charged to the operator's call, not recorded as calls)."""
    import faketensor as ft
    ft.clear_cache()
    with ft.FakeMode(record=True) as mode:
        bench_gpt2.gpt2_forward(**kwargs)
    last = mode.trace[-1]
    params = sum(int(np.prod(e.meta[0][0])) for e in mode.trace
                 if e.op in ("ndarray.astype", "np.ones"))
    calls = [e.op for e in mode.trace]
    return last.meta[0][0], params, calls


def plan_faketensor(record: bool, find: bool = True) -> Callable[[], None]:
    import faketensor as ft

    def run() -> None:
        ft.clear_cache()
        mode = ft.FakeMode(record=record)
        mode.find = find
        with mode:
            bench_gpt2.gpt2_forward()
    return run


def findings_cost(repeat: int) -> None:
    """Print planning with and without the findings scan, and the ratio (one race)."""
    t, _ = race({"findings": plan_faketensor(True), "no findings": plan_faketensor(True, False)},
                repeat)
    r = t["findings"] / t["no findings"]
    print(f"plan, record=True with findings: {t['findings'] * 1e3:.1f} ms; without: "
          f"{t['no findings'] * 1e3:.1f} ms; {r:.3f}x; target <= 1.10x: {verdict(r <= 1.10)}")


@contextlib.contextmanager
def tiny_dims() -> Iterator[int]:
    """bench_gpt2's dimensions shrunk to TINY for the duration; yields the sequence length."""
    old = {k: getattr(bench_gpt2, k) for k in TINY}
    for k, v in TINY.items():
        setattr(bench_gpt2, k, v)
    try:
        yield TINY["CTX"]
    finally:
        for k, v in old.items():
            setattr(bench_gpt2, k, v)


def plan_torch() -> Callable[[], tuple] | None:
    if importlib.util.find_spec("torch") is None:
        return None
    from torch._subclasses.fake_tensor import FakeTensorMode

    from ports import gpt2_torch

    def run() -> tuple:
        FakeTensorMode.cache_clear()
        with FakeTensorMode():
            ids, params = gpt2_torch.gpt2_forward()
        return tuple(ids.shape), sum(p.numel() for p in params)
    return run


def plan_jax() -> Callable[[], tuple] | None:
    if importlib.util.find_spec("jax") is None:
        return None
    import jax

    from ports import gpt2_jax

    def run() -> tuple:
        ids, params = jax.eval_shape(lambda: gpt2_jax.gpt2_forward())  # a new function each time
        return tuple(ids.shape), sum(p.size for p in params)
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="plans (and processes) per figure")
    ap.add_argument("--findings", action="store_true", help="only the findings figure")
    ap.add_argument("--table", action="store_true", help="also print a Markdown table")
    args = ap.parse_args()
    n = args.repeat
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}; best of {n} "
          f"({max(n, ROUNDS)} for the plans and the tiny-NumPy run)")
    if args.findings:
        findings_cost(n)
        return

    t_np, t_ft = import_time(max(n, 5))
    extra = t_ft - t_np
    print(f"import faketensor, fresh process: {t_ft * 1e3:.1f} ms (numpy alone "
          f"{t_np * 1e3:.1f} ms, faketensor's share {extra * 1e3:.1f} ms); "
          f"target <= numpy + 100 ms: {verdict(extra <= 0.100)}")

    for name, (with_ft, plain) in call_overhead(n).items():
        extra = with_ft - plain
        print(f"{name} outside any mode: {with_ft:.3f} us with faketensor imported vs "
              f"{plain:.3f} us plain NumPy ({with_ft / plain:.2f}x, {extra:+.3f} us); "
              f"target <= +0.1 us: {verdict(extra <= 0.1)}")

    shape, params, calls = plan_numpy()
    assert shape == (1, bench_gpt2.CTX) and params == PARAMS, (shape, params)
    with tiny_dims() as seq:
        assert plan_numpy(seq=seq)[2] == calls  # the same program, call for call
    ops = len(calls)
    print(f"GPT-2 XL forward: {ops} NumPy calls, {params / 1e9:.2f} B parameters, result {shape}")

    def tiny_real() -> None:
        with tiny_dims():
            bench_gpt2.gpt2_forward(seq=seq)
    runs = {"record": plan_faketensor(True), "no record": plan_faketensor(False),
            "tiny": tiny_real}
    per_round: dict = {}
    t, results = race(runs, max(n, ROUNDS), per_round)
    others = {"PyTorch FakeTensorMode": plan_torch(), "jax.eval_shape": plan_jax()}
    installed = {k: v for k, v in others.items() if v is not None}
    if installed:  # seconds a plan: raced on their own, ``--repeat`` rounds
        t_o, results_o = race(installed, n)
        t.update(t_o)
        results.update(results_o)
    t_rec, t_plain, t_tiny = t["record"], t["no record"], t["tiny"]
    print(f"same code on tiny real arrays (D={TINY['D']}, {seq} tokens): {t_tiny * 1e3:.1f} ms "
          f"({t_tiny / ops * 1e6:.2f} us a call)")
    print(f"plan, record=True: {t_rec * 1e3:.1f} ms ({t_rec / ops * 1e6:.2f} us an op); "
          f"{t_rec / t_tiny:.2f}x tiny NumPy; target <= 2x: {verdict(t_rec <= 2 * t_tiny)}")
    print(f"plan, record=False: {t_plain * 1e3:.1f} ms ({t_plain / ops * 1e6:.2f} us an op); "
          f"{t_plain / t_tiny:.2f}x tiny NumPy; target <= 1.2x: "
          f"{verdict(t_plain <= 1.2 * t_tiny)}")
    print(f"recording vs plain: {t_rec / t_plain:.2f}x (median of the paired rounds "
          f"{paired_median(per_round['record'], per_round['no record']):.2f}x); target <= 1.5x: "
          f"{verdict(t_rec <= 1.5 * t_plain)}")
    findings_cost(n)
    for label, run in others.items():
        if run is None:
            print(f"{label}: not installed, skipped")
            continue
        assert results[label] == (shape, PARAMS), (label, results[label])
        print(f"{label} (port, same result shape and parameters): {t[label] * 1e3:.1f} ms; "
              f"faketensor (record=True) {t[label] / t_rec:.2f}x faster; target ahead: "
              f"{verdict(t_rec < t[label])}")
    if args.table:
        rows = [("faketensor FakeMode", t_plain),
                ("faketensor FakeMode(record=True), what `faketensor run` uses", t_rec),
                ("the same Python code on tiny real NumPy arrays", t_tiny)]
        rows += [(f"{label}, line-by-line port", t[label]) for label in others if label in t]
        print()
        print("| system | ms | vs faketensor (plain) |")
        print("|---|---|---|")
        for label, sec in rows:
            print(f"| {label} | {sec * 1e3:,.1f} | {sec / t_plain:.2f} |")


if __name__ == "__main__":
    main()
