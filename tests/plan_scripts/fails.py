"""Raises its own error after some array work."""
import numpy as np


def check(x):
    raise ValueError(f"bad shape {x.shape}")


x = np.zeros((10, 10))
check(x.T)
