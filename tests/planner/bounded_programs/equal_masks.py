"""Masks recomputed where they are used (``x[x > t] = x[x > t] ** 2``, the line of an n-body
code's inverse cubes, a conjunction of two conditions): equal masks, one size. ``fill``
chooses the threshold for real runs: "random", "all" (every mask all true), "none" (all
false)."""
import sys

import numpy as np

THRESHOLD = {"random": 0.5, "all": -np.inf, "none": np.inf}


def main(n=2000, fill="random"):
    rng = np.random.default_rng(0)
    t = THRESHOLD[fill]
    x = rng.standard_normal(n)
    x[x > t] = x[x > t] ** 2
    a = rng.standard_normal(n)
    b = rng.random(n)
    y = rng.random((n, 3))
    y[(a > t) & (b < 2)] = 0
    m = max(n // 20, 2)
    inv_r3 = np.abs(rng.standard_normal((m, m))) + 0.25
    inv_r3[inv_r3 > t] = inv_r3[inv_r3 > t] ** (-1.5)
    return x.sum() + y.sum() + inv_r3.sum()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000)
