"""A script whose helper module (sweep_table.py, next to it) allocates at import from N: a sweep
must import the helper again for each value. python sweep_helper.py N
peak bytes = 16*N + 16: two float64 arrays of N, and 16 bytes np.ones holds while it fills the
second (its fill value as arrays).
"""
import numpy as np

from sweep_table import N, table

grid = np.ones(N)
print("sizes", table.shape, grid.shape)
