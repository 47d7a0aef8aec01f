"""Polynomial fits and interpolation of noisy measurements.

``n`` noisy samples of a smooth curve: least-squares polynomial fits of several degrees
(np.polyfit, np.polynomial.Polynomial.fit, a Chebyshev fit with weights), evaluated on a
fine grid (np.polyval, the series' __call__), residual RMS, derivatives and integrals of
the fitted polynomial, and linear and periodic interpolation onto the grid (np.interp),
a Vandermonde solve and a cubic Hermite-style resampling with np.gradient.
"""
import numpy as np

DEGREES = (1, 3, 5, 9)


def main(n):
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(-1.0, 1.0, size=n))
    truth = np.sin(3 * x) + 0.5 * x ** 2
    y = truth + 0.05 * rng.standard_normal(n)
    grid = np.linspace(-1.0, 1.0, 4 * n)
    fits = {}
    for deg in DEGREES:
        coefs = np.polyfit(x, y, deg)
        fits[deg] = np.polyval(coefs, grid)
    rms = np.array([np.sqrt(np.mean((np.polyval(np.polyfit(x, y, d), x) - y) ** 2)) for d in DEGREES])
    p = np.polynomial.Polynomial.fit(x, y, 7)
    smooth = p(grid)
    slope = p.deriv()(grid)
    area = p.integ()(1.0) - p.integ()(-1.0)
    w = 1.0 / (0.05 + np.abs(x))
    cheb = np.polynomial.chebyshev.chebfit(x, y, 8, w=w)
    cheb_vals = np.polynomial.chebyshev.chebval(grid, cheb)
    lin = np.interp(grid, x, y)
    angles = rng.uniform(0, 360, size=n)
    periodic = np.interp(np.linspace(0, 720, 2 * n), angles, np.cos(np.deg2rad(angles)), period=360)
    v = np.vander(x[:6], 6)
    exact = np.linalg.solve(v, y[:6])
    dy = np.gradient(lin, grid)
    return fits, rms, smooth, slope, area, cheb_vals, lin, periodic, exact, dy


if __name__ == "__main__":
    import sys
    main(int(sys.argv[1]))
