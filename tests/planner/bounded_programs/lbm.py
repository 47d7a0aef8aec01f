"""A lattice-Boltzmann flow past obstacles (D2Q9, after the well-known ``latticeboltzmann.py``
tutorial solver): the obstacle mask selects boundary cells that are read, reflected and
written back every step (``bndryF = F[obstacle, :]`` ... ``F[obstacle, :] = bndryF``).

``fill`` chooses the obstacle for real runs: "random" (a porous medium), "all" (every cell),
"none" (no cell); planned, the mask's count is a bounded size whatever ``fill`` is.
"""
import sys

import numpy as np

CUT = {"random": 0.3, "all": 2.0, "none": -1.0}


def main(n=40, steps=3, fill="random"):
    ny, nx, nl = n // 2, n, 9
    cxs = np.array([0, 0, 1, 1, 1, 0, -1, -1, -1])
    cys = np.array([0, 1, 1, 0, -1, -1, -1, 0, 1])
    weights = np.array([4 / 9, 1 / 9, 1 / 36, 1 / 9, 1 / 36, 1 / 9, 1 / 36, 1 / 9, 1 / 36])
    rng = np.random.default_rng(42)
    F = np.ones((ny, nx, nl)) + 0.01 * rng.standard_normal((ny, nx, nl))
    F[:, :, 3] += 2.3
    obstacle = rng.random((ny, nx)) < CUT[fill]
    for _ in range(steps):
        for i in range(nl):
            F[:, :, i] = np.roll(F[:, :, i], int(cxs[i]), axis=1)
            F[:, :, i] = np.roll(F[:, :, i], int(cys[i]), axis=0)
        bndryF = F[obstacle, :]
        bndryF = bndryF[:, [0, 5, 6, 7, 8, 1, 2, 3, 4]]
        rho = np.sum(F, 2)
        ux = np.sum(F * cxs, 2) / rho
        uy = np.sum(F * cys, 2) / rho
        Feq = np.zeros(F.shape)
        for i in range(nl):
            cu = cxs[i] * ux + cys[i] * uy
            Feq[:, :, i] = rho * weights[i] * (1 + 3 * cu + 9 * cu ** 2 / 2
                                               - 3 * (ux ** 2 + uy ** 2) / 2)
        F += -(1.0 / 0.6) * (F - Feq)
        F[obstacle, :] = bndryF
        ux[obstacle] = 0
        uy[obstacle] = 0
    return F, ux, uy


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
