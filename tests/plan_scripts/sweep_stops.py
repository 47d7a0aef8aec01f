"""A program that needs a value (stops a plan) for N above 50; N kB otherwise.

python sweep_stops.py N
"""
import sys

import numpy as np

n = int(sys.argv[1])
a = np.ones(n * 1000, dtype=np.uint8)
if n > 50 and a.sum() > 0:  # the sum's value steers control flow: a plan stops here
    print("positive")
