"""python -m mlpkg WIDTH DEPTH BATCH: relative imports of the package's own modules."""
import sys

import numpy as np

from .model import forward, init

width, depth, batch = (int(a) for a in sys.argv[1:4])
weights = init(width, depth)
out = forward(np.ones((batch, width)), weights)
print("forward", out.shape, __name__)
