""".npz files with many members: opening and reading every member, np.load vs ft.load.

Not a test: the machines are shared and noisy, so only the ratios within one run count.
``python benchmarks/bench_files.py [MEMBERS]`` (default 40,000 members of 2 float32).
"""
from __future__ import annotations

import io
import os
import sys
import tempfile
import time
import zipfile

import numpy as np

import faketensor as ft


def make_npz(path: str, members: int) -> None:
    one = io.BytesIO()
    np.save(one, np.zeros(2, "f4"))
    with zipfile.ZipFile(path, "w") as zf:
        for i in range(members):
            zf.writestr(f"m{i}.npy", one.getvalue())


def read_all(loader, path: str) -> float:
    """Seconds to open the file and read every member (by its name without .npy)."""
    t = time.perf_counter()
    with loader(path) as z:
        for k in z.files:
            z[k]
    return time.perf_counter() - t


def main(members: int = 40_000) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "many.npz")
        make_npz(path, members)
        real = read_all(np.load, path)
        fake = read_all(ft.load, path)
        half = os.path.join(d, "half.npz")
        make_npz(half, members // 2)
        fake_half = read_all(ft.load, half)
    print(f"{members} members: np.load {real:.2f} s, ft.load {fake:.2f} s "
          f"(ft/np {fake / real:.2f}); ft.load on {members // 2}: {fake_half:.2f} s "
          f"(x{fake / fake_half:.2f} for twice the members: 2 means linear)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40_000)
