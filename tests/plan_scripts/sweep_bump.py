"""A program whose memory is not monotone in N: N kB, except 10 MB for N in [40, 60).

python sweep_bump.py N
"""
import sys

import numpy as np

n = int(sys.argv[1])
a = np.ones(10_000_000 if 40 <= n < 60 else n * 1000, dtype=np.uint8)
