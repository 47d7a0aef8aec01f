"""Lid-driven cavity flow: 2-D incompressible Navier-Stokes, finite differences.

Projection method on an (n, n) grid: a pressure Poisson equation solved by a fixed
number of Jacobi sweeps per step, then explicit momentum updates with slices.
"""
import numpy as np

STEPS, PRESSURE_ITERS, RHO, NU, DT = 10, 20, 1.0, 0.1, 0.001


def build_b(u, v, dx, dy):
    b = np.zeros_like(u)
    b[1:-1, 1:-1] = RHO * (1 / DT * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)
                                     + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))
                           - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)) ** 2
                           - 2 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy)
                                  * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx))
                           - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) ** 2)
    return b


def pressure_poisson(p, b, dx, dy):
    for _ in range(PRESSURE_ITERS):
        pn = p.copy()
        p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy ** 2
                          + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx ** 2)
                         / (2 * (dx ** 2 + dy ** 2))
                         - dx ** 2 * dy ** 2 / (2 * (dx ** 2 + dy ** 2)) * b[1:-1, 1:-1])
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[:, 0] = p[:, 1]
        p[-1, :] = 0
    return p


def main(n):
    rng = np.random.default_rng(0)
    dx = dy = 2.0 / (n - 1)
    u = rng.standard_normal((n, n)) * 1e-3
    v = np.zeros((n, n))
    p = np.zeros((n, n))
    for _ in range(STEPS):
        un, vn = u.copy(), v.copy()
        b = build_b(un, vn, dx, dy)
        p = pressure_poisson(p, b, dx, dy)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1]
                         - un[1:-1, 1:-1] * DT / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * DT / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
                         - DT / (2 * RHO * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
                         + NU * (DT / dx ** 2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                                 + DT / dy ** 2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1]
                         - un[1:-1, 1:-1] * DT / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * DT / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
                         - DT / (2 * RHO * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
                         + NU * (DT / dx ** 2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2])
                                 + DT / dy ** 2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u[0, :] = 0
        u[:, 0] = 0
        u[:, -1] = 0
        u[-1, :] = 1
        v[0, :] = 0
        v[-1, :] = 0
        v[:, 0] = 0
        v[:, -1] = 0
    speed = np.hypot(u, v)
    vorticity = np.gradient(v, dx, axis=1) - np.gradient(u, dy, axis=0)
    return speed, vorticity
