"""Gray-Scott reaction-diffusion on an (n, n) periodic grid, laplacian by np.roll."""
import numpy as np

STEPS, DU, DV, F, KILL, DT = 20, 0.16, 0.08, 0.035, 0.065, 1.0


def laplacian(z):
    return (np.roll(z, 1, axis=0) + np.roll(z, -1, axis=0)
            + np.roll(z, 1, axis=1) + np.roll(z, -1, axis=1) - 4 * z)


def main(n):
    rng = np.random.default_rng(0)
    u = np.ones((n, n))
    v = np.zeros((n, n))
    c, r = n // 2, max(n // 8, 1)
    u[c - r:c + r, c - r:c + r] = 0.50
    v[c - r:c + r, c - r:c + r] = 0.25
    u += 0.05 * rng.random((n, n))
    v += 0.05 * rng.random((n, n))
    for _ in range(STEPS):
        uvv = u * v * v
        u += DT * (DU * laplacian(u) - uvv + F * (1 - u))
        v += DT * (DV * laplacian(v) + uvv - (F + KILL) * v)
    return u, v
