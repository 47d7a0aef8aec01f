"""Module-level arrays sized by the program's argument (used by sweep_helper.py)."""
import sys

import numpy as np

N = int(sys.argv[1])
table = np.ones(N)
