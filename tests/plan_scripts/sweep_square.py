"""An N x N grid scaled by a vector and stacked under itself: the planned peak is quadratic.

python sweep_square.py N
peak bytes = 32*N^2 + 8*N: a and a * v (8*N^2 each), their concatenation (16*N^2), v (8*N).
"""
import sys

import numpy as np

n = int(sys.argv[1])
a = np.ones((n, n))
v = np.ones(n)
c = a * v
d = np.concatenate([a, c])
print("stacked", d.shape)
