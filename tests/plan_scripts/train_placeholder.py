"""A training loop that branches on values: `if loss < best:` and an early-stop test."""
import numpy as np

rng = np.random.default_rng(0)
x = rng.standard_normal((256, 32))
y = rng.standard_normal((256, 1))
w = np.zeros((32, 1))
best = np.inf
for step in range(5):
    err = x @ w - y
    loss = float((err ** 2).mean())  # PLACEHOLDER FLOAT
    if loss < best:  # PLACEHOLDER COMPARE
        best = loss
    w -= 0.01 * (x.T @ err) / len(x)
print("trained", w.shape)
