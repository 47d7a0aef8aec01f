"""Per-op time of fake ops vs PyTorch FakeTensorMode (when installed) vs real NumPy.

Prints a table of medians (microseconds per op) and ratios measured in this one run.
Not a test: these machines are shared and noisy, so only the ratios within a run count.
"""
from __future__ import annotations

import statistics
import sys
import timeit

import numpy as np

import faketensor as ft

REPEAT, NUMBER = 15, 2000


def median_us(stmt, number: int = NUMBER) -> float:
    times = timeit.repeat(stmt, repeat=REPEAT, number=number)
    return statistics.median(times) / number * 1e6


def numpy_ops(a, b, m, parts):
    return {
        "add": lambda: a + b,
        "matmul": lambda: m @ m,
        "transpose": lambda: m.T,
        "reshape": lambda: m.reshape(-1),
        "sum(axis)": lambda: m.sum(axis=0),
        "slicing": lambda: m[1:, ::2],
        "astype": lambda: a.astype(np.float32),
        "concatenate": lambda: np.concatenate(parts),
    }


def bench_fake(cache: bool = True) -> dict:
    """Fake ops in FakeMode; with the kernel cache (repeats hit it) or with it off."""
    a, b = ft.empty((1000, 1000)), ft.empty((1000, 1000))
    m = ft.empty((512, 512))
    parts = [ft.empty((256, 512)), ft.empty((256, 512))]
    old = ft.set_cache_enabled(cache)
    try:
        with ft.FakeMode():
            return {k: median_us(f) for k, f in numpy_ops(a, b, m, parts).items()}
    finally:
        ft.set_cache_enabled(old)


def bench_numpy_tiny() -> dict:
    a, b = np.ones(3), np.ones(3)
    m = np.ones((2, 2))  # tiny, so the time is NumPy's per-call overhead
    parts = [np.ones((1, 2)), np.ones((1, 2))]
    return {k: median_us(f) for k, f in numpy_ops(a, b, m, parts).items()}


def bench_wrapped() -> dict:
    a, b = ft.wrap(np.ones(3)), ft.wrap(np.ones(3))
    m = ft.wrap(np.ones((2, 2)))
    parts = [ft.wrap(np.ones((1, 2))), ft.wrap(np.ones((1, 2)))]
    return {k: median_us(f) for k, f in numpy_ops(a, b, m, parts).items()}


def bench_torch() -> dict | None:
    try:
        import torch
        from torch._subclasses.fake_tensor import FakeTensorMode
    except ImportError:
        return None
    with FakeTensorMode():
        a, b = torch.empty(1000, 1000), torch.empty(1000, 1000)
        m = torch.empty(512, 512)
        parts = [torch.empty(256, 512), torch.empty(256, 512)]
        ops = {
            "add": lambda: a + b,
            "matmul": lambda: m @ m,
            "transpose": lambda: m.T,
            "reshape": lambda: m.reshape(-1),
            "sum(axis)": lambda: m.sum(dim=0),
            "slicing": lambda: m[1:, ::2],
            "astype": lambda: a.to(torch.float32 if a.dtype != torch.float32 else torch.float64),
            "concatenate": lambda: torch.cat(parts),
        }
        return {k: median_us(f, number=200) for k, f in ops.items()}


def bench_patch_overhead() -> tuple[float, float]:
    """A patched NumPy factory outside any mode vs the original function."""
    patched = np.zeros
    original = np.zeros.__wrapped__
    return median_us(lambda: patched(3)), median_us(lambda: original(3))


def main() -> None:
    fake = bench_fake()
    nocache = bench_fake(cache=False)
    tiny = bench_numpy_tiny()
    wrapped = bench_wrapped()
    torch_t = bench_torch()
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}; medians of {REPEAT} runs, us/op")
    head = f"{'op':12} {'fake':>8} {'uncached':>9} {'numpy(3el)':>11} {'fake/numpy':>11} {'wrapped':>9} {'wrap-numpy':>11}"
    if torch_t:
        head += f" {'torch fake':>11} {'torch/fake':>11}"
    print(head)
    for k in fake:
        row = (f"{k:12} {fake[k]:8.2f} {nocache[k]:9.2f} {tiny[k]:11.2f} {fake[k] / tiny[k]:11.1f} {wrapped[k]:9.2f} "
               f"{wrapped[k] - tiny[k]:11.2f}")
        if torch_t:
            row += f" {torch_t[k]:11.1f} {torch_t[k] / fake[k]:11.1f}"
        print(row)
    med = statistics.median(fake.values())
    print(f"\nmedian fake op: {med:.2f} us; median numpy op (3 elements): "
          f"{statistics.median(tiny.values()):.2f} us; median fake/numpy ratio: "
          f"{statistics.median(fake[k] / tiny[k] for k in fake):.1f}x")
    print(f"with the kernel cache off (every call runs its kernel): median fake op "
          f"{statistics.median(nocache.values()):.2f} us; median fake/numpy ratio "
          f"{statistics.median(nocache[k] / tiny[k] for k in fake):.1f}x")
    print(f"median wrapped pass-through overhead: "
          f"{statistics.median(wrapped[k] - tiny[k] for k in fake):.2f} us/op")
    if torch_t:
        print(f"median torch FakeTensorMode op: {statistics.median(torch_t.values()):.1f} us; "
              f"median speed-up over it: {statistics.median(torch_t[k] / fake[k] for k in fake):.1f}x "
              f"(cache off: {statistics.median(torch_t[k] / nocache[k] for k in fake):.1f}x)")
    else:
        print("torch is not installed: FakeTensorMode comparison skipped "
              "(pip install torch==2.13.0 to include it)")
    p, o = bench_patch_overhead()
    print(f"patched np.zeros outside any mode: {p:.3f} us vs original {o:.3f} us "
          f"(overhead {p - o:.3f} us)")


if __name__ == "__main__":
    main()
