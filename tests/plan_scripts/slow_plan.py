"""A plan that takes SECONDS of wall time (small ops in a loop): for the progress line.

python slow_plan.py SECONDS
"""
import sys
import time

import numpy as np

end = time.monotonic() + float(sys.argv[1])
a = np.ones(1000)
while time.monotonic() < end:
    a = a + 1
    time.sleep(0.001)
print("done")
