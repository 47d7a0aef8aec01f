"""Gravitational N-body: pairwise forces by broadcasting, leapfrog integration, energies.

``n`` bodies in 3-D with softened gravity; a fixed number of kick-drift-kick steps.
"""
import numpy as np

STEPS, DT, SOFTENING, G = 5, 0.01, 0.1, 1.0


def accelerations(pos, mass):
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]          # (n, n, 3)
    inv_r3 = (np.sum(d ** 2, axis=2) + SOFTENING ** 2) ** -1.5  # (n, n)
    return G * np.einsum("ijk,ij,j->ik", d, inv_r3, mass)


def energy(pos, vel, mass):
    kinetic = 0.5 * np.sum(mass[:, None] * vel ** 2)
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]
    inv_r = 1.0 / np.sqrt(np.sum(d ** 2, axis=2) + SOFTENING ** 2)
    potential = -G * np.sum(np.triu(-(mass[:, None] * mass[None, :]) * inv_r, 1))
    return kinetic, potential


def main(n):
    rng = np.random.default_rng(0)
    mass = 20.0 * np.ones(n) / n
    pos = rng.standard_normal((n, 3))
    vel = rng.standard_normal((n, 3))
    vel -= np.mean(mass[:, None] * vel, axis=0) / np.mean(mass)
    acc = accelerations(pos, mass)
    energies = [energy(pos, vel, mass)]
    for _ in range(STEPS):
        vel += acc * DT / 2.0
        pos += vel * DT
        acc = accelerations(pos, mass)
        vel += acc * DT / 2.0
        energies.append(energy(pos, vel, mass))
    return pos, vel, energies
