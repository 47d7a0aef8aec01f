"""A 1-d Poisson problem and a few implicit heat-equation steps on n points, in
scipy.sparse: the operators built from structure (diags, eye, kron), solved with spsolve,
applied with sparse products; a 2-d operator (kron) applied to a grid."""
import sys

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def main(n: int = 64, steps: int = 3):
    h = 1.0 / (n + 1)
    lap = sp.diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(n, n), format="csr") / h ** 2
    x = np.linspace(h, 1.0 - h, n)
    f = np.sin(np.pi * x)
    u = spla.spsolve(lap.tocsc(), f)                 # Poisson: lap u = f
    r = 0.5 * h * h / 0.01
    step = sp.diags_array([-r, 1.0 + 2.0 * r, -r], offsets=[-1, 0, 1], shape=(n, n),
                          format="csc")
    heat = np.outer(np.ones(4), f)
    for _ in range(steps):                           # implicit Euler steps
        heat = spla.spsolve(step, heat.T).T
    grid = sp.kron(sp.eye(n, format="csr"), lap, format="csr")   # 2-d: lap along rows
    g = grid @ np.outer(f, f).ravel()
    resid = lap @ u - f
    return np.concatenate([u, resid, heat.ravel(), g])


if __name__ == "__main__":
    out = main(int(sys.argv[1]) if len(sys.argv) > 1 else 64)
    print("poisson", out.shape, out.dtype)
