"""CuPy code: a matrix product and an elementwise update on the GPU.

python cupy_step.py N
"""
import sys

import cupy as cp

n = int(sys.argv[1])
a = cp.ones((n, n), dtype=cp.float32)
b = cp.ones((n, n), dtype=cp.float32)
c = a @ b
c += 1
d = cp.exp(c)
print("computed", d.shape)
