"""What ``ft.explain`` costs, on bench_gpt2.py's GPT-2 XL forward pass planned under
``FakeMode(record=True)``.

explain adds nothing to the recording path (its index of producers and of arrays per buffer
is built when first asked), so planning takes what it took before; this prints the plan's
time, the first explain of the logits (which builds that index over the whole trace), a
later one, and every array the program passed to an op explained in turn, each as a ratio
of the plan's time. Not a test: only ratios within one run count on a shared machine.
"""
from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import faketensor as ft  # noqa: E402
from bench_gpt2 import gpt2_forward  # noqa: E402


class Keep(ft.Mode):
    """Keeps every array passed to an op alive, so that each can be explained afterwards."""

    def __init__(self) -> None:
        self.seen: dict = {}
        self.last = None  # the first array of the last op: the logits (logits.argmax)

    def __array_dispatch__(self, func, types, args, kwargs):
        for a in args:
            if ft.is_fake(a):
                self.seen[id(a)] = a
                self.last = self.last if a is not args[0] else a
        return func(*args, **kwargs)


def main(repeat: int = 5) -> None:
    plans = []
    for _ in range(repeat):
        ft.clear_cache()
        t0 = time.perf_counter()
        with ft.FakeMode(record=True):
            gpt2_forward()
        plans.append(time.perf_counter() - t0)
    plan_s = statistics.median(plans)
    with ft.FakeMode(record=True) as mode, Keep() as keep:
        gpt2_forward()
    arrays = list(keep.seen.values())
    logits = keep.last
    t0 = time.perf_counter()
    ex = ft.explain(logits)
    first = time.perf_counter() - t0
    again = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        ft.explain(logits)
        again.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    steps = sum(len(ft.explain(a).steps) for a in arrays)
    every = time.perf_counter() - t0
    print(f"GPT-2 XL forward: plan (record=True) {plan_s * 1e3:.1f} ms, median of {repeat}; "
          f"{len(mode.trace)} ops with every array kept alive (no temporaries elided)")
    print(f"explain(logits {logits.shape} {logits.dtype}, {len(ex.steps)} steps): "
          f"first {first * 1e3:.2f} ms (builds the index; {first / plan_s:.3f}x the plan), "
          f"then {statistics.median(again) * 1e3:.3f} ms")
    print(f"explain of each of the {len(arrays)} arrays passed to an op: {every * 1e3:.1f} ms "
          f"({every / len(arrays) * 1e6:.1f} us each, {steps} steps in all; "
          f"{every / plan_s:.2f}x the plan)")
    print("recording path: unchanged by explain (one WeakSet entry per recording mode)")


if __name__ == "__main__":
    main()
