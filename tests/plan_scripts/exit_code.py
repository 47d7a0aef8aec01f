"""Exits with the status given as its first argument (a message when it is not a number)."""
import sys

import numpy as np

x = np.zeros(1000)
arg = sys.argv[1]
sys.exit(int(arg) if arg.isdigit() else arg)
