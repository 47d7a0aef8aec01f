"""Part of the mlpkg package: weights and a forward pass."""
import numpy as np


def init(width, depth):
    return [np.full((width, width), 0.01) for _ in range(depth)]


def forward(x, weights):
    for w in weights:
        x = np.tanh(x @ w)
    return x
