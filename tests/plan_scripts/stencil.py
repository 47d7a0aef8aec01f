"""Explicit heat-equation steps on an N x N grid (five-point stencil).

python stencil.py N STEPS
"""
import sys

import numpy as np

n, steps = int(sys.argv[1]), int(sys.argv[2])
u = np.zeros((n, n))
u[n // 4: n // 2, n // 4: n // 2] = 1.0
alpha = 0.1
for _ in range(steps):
    lap = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
    u[1:-1, 1:-1] += alpha * lap
total = u.sum()
print("simulated", u.shape)
