"""Jacobi relaxation of a square plate until the update is small: a solver whose loop ends
when a value says so (``if delta < tol: break``), which a plan cannot know."""
import sys

import numpy as np


def main(n: int = 200, tol: float = 1e-4, max_iter: int = 500) -> np.ndarray:
    rng = np.random.default_rng(0)
    u = rng.random((n, n))
    u[0, :] = 1.0
    for _ in range(max_iter):
        new = u.copy()
        new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        delta = np.abs(new - u).max()
        u = new
        if delta < tol:
            break
    return u


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
