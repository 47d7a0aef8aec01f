"""Every other plane of an N x N x N int8 cube copied out: for even N the planned peak is
3/2*N^3 (the cube, N^3 bytes, and the copy of N/2 planes); for odd N it is not a polynomial
(the copy holds (N+1)/2 planes): sweep it with --step 2.

python sweep_cube.py N
"""
import sys

import numpy as np

n = int(sys.argv[1])
x = np.zeros((n, n, n), dtype=np.int8)
z = x[::2].copy()
print("planes", z.shape[0])
