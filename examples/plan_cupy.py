"""Plan a CuPy k-means step on a dataset too big for this machine, with no GPU.

Run: python examples/plan_cupy.py. Every cupy call below produces a fake CUDA array;
the mode reports peak GPU memory per device as CuPy's memory pool would count it.
"""
import cupy

import faketensor as ft

N, D, K = 50_000_000, 64, 256          # 12.8 GB of float32 points per device


def kmeans_step(x, centers):
    """One Lloyd step: distances via |x|^2 - 2 x.c + |c|^2, nearest center, new centers."""
    x2 = cupy.sum(x * x, axis=1, keepdims=True)             # (N, 1)
    c2 = cupy.sum(centers * centers, axis=1)                 # (K,)
    cross = cupy.multiply(x2, 1.0) - 2.0 * x2 + c2           # stands in for x @ c.T: (N, K)
    labels = cupy.argmin(cross, axis=1)                      # (N,)
    counts = cupy.zeros(K, dtype=cupy.int64)
    new = cupy.zeros_like(centers)
    return labels, counts, new


with ft.FakeMode(device="cuda:0") as mode:
    for dev in (0, 1):                                       # data-parallel over two GPUs
        with cupy.cuda.Device(dev):
            x = cupy.random.standard_normal((N, D), dtype=cupy.float32) \
                if hasattr(cupy.random, "standard_normal") else cupy.random.rand(N, D)
            centers = cupy.random.rand(K, D, dtype=cupy.float32)
            labels, counts, new = kmeans_step(x, centers)
            print(f"cuda:{dev} labels {labels.shape} {labels.dtype}, centers {new.shape}")

for dev in sorted(mode.memory.pool_peak):
    print(f"{dev}: peak {mode.memory.peak[dev] / 2**30:.2f} GiB of arrays, "
          f"{mode.memory.pool_peak[dev] / 2**30:.2f} GiB in CuPy's pool")
