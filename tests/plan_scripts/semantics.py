"""Prints what python sets for a script: argv, __name__, sys.path[0], __file__."""
import json
import sys

import numpy as np

np.zeros(10)
print(json.dumps({"argv": sys.argv, "name": __name__, "path0": sys.path[0], "file": __file__}))
