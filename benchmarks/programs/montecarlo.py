"""Monte Carlo with np.random.Generator: option pricing, a random walk and an integral.

``n`` paths of a geometric Brownian motion priced as European, Asian and barrier options
with antithetic variates; a 2-D random walk with Poisson jump counts; pi and a
5-dimensional Gaussian integral by uniform sampling; bootstrap confidence intervals of a
mean. Fixed step counts; every draw from one seeded Generator.
"""
import numpy as np

STEPS, S0, STRIKE, RATE, VOL, T, BARRIER, BOOT = 64, 100.0, 105.0, 0.03, 0.2, 1.0, 125.0, 50


def main(n):
    rng = np.random.default_rng(0)
    dt = T / STEPS
    z = rng.standard_normal((n // 2, STEPS))
    z = np.concatenate([z, -z])
    log_paths = np.cumsum((RATE - 0.5 * VOL ** 2) * dt + VOL * np.sqrt(dt) * z, axis=1)
    paths = S0 * np.exp(log_paths)
    disc = np.exp(-RATE * T)
    european = disc * np.maximum(paths[:, -1] - STRIKE, 0.0)
    asian = disc * np.maximum(paths.mean(axis=1) - STRIKE, 0.0)
    knocked = (paths.max(axis=1) >= BARRIER)
    barrier = np.where(knocked, 0.0, european)
    prices = np.array([european.mean(), asian.mean(), barrier.mean()])
    stderr = np.array([european.std(), asian.std(), barrier.std()]) / np.sqrt(n)

    steps = rng.normal(0.0, 1.0, size=(n, STEPS, 2))
    jumps = rng.poisson(0.05, size=(n, STEPS))[..., None] * rng.laplace(0.0, 3.0, size=(n, STEPS, 2))
    walk = np.cumsum(steps + jumps, axis=1)
    dist = np.linalg.norm(walk, axis=2)
    max_excursion = dist.max(axis=1)

    pts = rng.random((n, 2), dtype=np.float32)
    inside = np.count_nonzero((pts ** 2).sum(axis=1) <= 1.0)
    pi_est = 4.0 * inside / n
    u = rng.uniform(-3.0, 3.0, size=(n, 5))
    integral = 6.0 ** 5 * np.exp(-0.5 * (u ** 2).sum(axis=1)).mean()

    sample = rng.gamma(2.0, 1.5, size=n // 8)
    idx = rng.integers(0, sample.size, size=(BOOT, sample.size))
    boot_means = sample[idx].mean(axis=1)
    ci = np.percentile(boot_means, [2.5, 97.5])
    perm = rng.permutation(n)
    return prices, stderr, max_excursion, pi_est, integral, ci, perm


if __name__ == "__main__":
    import sys
    main(int(sys.argv[1]))
