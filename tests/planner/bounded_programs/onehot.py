"""One-hot targets from labels: ``np.unique(labels, return_inverse=True)`` numbers the
classes, a (samples, classes) matrix gets a one per row. ``fill`` chooses the labels for
real runs: "random" (50 classes), "all" (every label distinct), "none" (one class)."""
import sys

import numpy as np


def main(n=5_000, fill="random"):
    rng = np.random.default_rng(1)
    labels = rng.integers(0, {"random": 50, "all": 1 << 62, "none": 1}[fill], n)
    if fill == "all":
        labels = labels * n + np.arange(n)  # distinct whatever the draws
    classes, inverse = np.unique(labels, return_inverse=True)
    onehot = np.zeros((n, classes.shape[0]))
    onehot[np.arange(n), inverse] = 1.0
    counts = onehot.sum(axis=0)
    return classes, onehot, counts / n


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
