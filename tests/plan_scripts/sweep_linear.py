"""A batch through one dense layer: the planned peak is linear in the batch B (T fixed).

python sweep_linear.py B T
peak bytes = 4*B*T + 256*T + 516*B: x (B, T), w (T, 64), h and exp(h) (B, 64), the row sums (B,),
all float32 and all alive at the end.
"""
import sys

import numpy as np

b, t = int(sys.argv[1]), int(sys.argv[2])
x = np.ones((b, t), dtype=np.float32)
w = np.ones((t, 64), dtype=np.float32)
h = x @ w
y = np.exp(h)
s = y.sum(axis=1)
print("rows", s.shape)
