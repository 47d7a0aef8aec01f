"""A script that imports scipy and pandas (their module code runs paused) and plans NumPy."""
import numpy as np
import pandas as pd
import scipy.linalg

a = np.ones((400, 400))
b = a @ a.T
print("libraries", scipy.linalg.__name__, pd.__name__, b.shape)
