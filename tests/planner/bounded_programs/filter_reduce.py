"""Filter then reduce: the samples above a threshold (``x[x > threshold]``), weighted sums
and norms over them. ``fill`` chooses the threshold for real runs: "random" (about a third
kept), "all" (every sample kept), "none" (none kept)."""
import sys

import numpy as np

THRESHOLD = {"random": 0.5, "all": -np.inf, "none": np.inf}


def main(n=10_000, fill="random"):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n)
    w = rng.random(n)
    keep = x > THRESHOLD[fill]
    sel = x[keep]
    wsel = w[keep]
    total = (sel * wsel).sum()
    norm = np.sqrt((sel ** 2).sum())
    order = np.argsort(sel)
    ranked = np.cumsum(wsel[order])
    return total, norm, ranked


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000)
