"""Stops where a value is needed: the branch on the sum."""
import numpy as np

x = np.ones((1000, 100))
y = x * 2
if y.sum() > 0:  # DATA-DEPENDENT LINE
    print("positive")
