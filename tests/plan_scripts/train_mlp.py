"""Train a two-layer MLP with SGD on random data for a fixed number of steps.

python train_mlp.py BATCH HIDDEN STEPS
"""
import sys

import numpy as np

from mlp_helpers import relu, relu_grad

batch, hidden, steps = (int(a) for a in sys.argv[1:4])
features, classes, lr = 64, 10, 0.01

rng = np.random.default_rng(0)
x = rng.standard_normal((batch, features)).astype(np.float32)
y = rng.standard_normal((batch, classes)).astype(np.float32)
w1 = (rng.standard_normal((features, hidden)) * 0.1).astype(np.float32)
w2 = (rng.standard_normal((hidden, classes)) * 0.1).astype(np.float32)

for step in range(steps):
    h = x @ w1
    a = relu(h)
    out = a @ w2
    err = out - y
    loss = (err ** 2).mean()
    g_out = 2 * err / batch
    g_w2 = a.T @ g_out
    g_a = g_out @ w2.T
    g_h = g_a * relu_grad(h)
    g_w1 = x.T @ g_h
    w1 -= lr * g_w1
    w2 -= lr * g_w2
print("trained", w1.shape, w2.shape)
