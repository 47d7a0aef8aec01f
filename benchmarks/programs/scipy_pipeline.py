"""A SciPy pipeline: DCT compression of image tiles, a Cholesky solve of a smoothing
system and a spectral estimate.

``n`` is the image side. The image is cut into 8x8 tiles (reshape and swapaxes), each tile
is transformed with scipy.fft.dctn, the small coefficients zeroed, and the tiles rebuilt
with idctn; a ridge-regularised smoothing system (a second-difference operator built with
scipy.linalg.toeplitz) is solved with scipy.linalg.cho_factor / cho_solve and checked with
scipy.linalg.solve; a Welch-style averaged periodogram with a scipy.signal window and
scipy.fft.rfft; and scipy.special.expit / logsumexp on the result.
"""
import numpy as np
import scipy.fft
import scipy.linalg
import scipy.signal
import scipy.special

TILE, KEEP, SEG = 8, 0.1, 128


def main(n):
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:n, 0:n]
    img = np.sin(xx / 7.0) * np.cos(yy / 11.0) + 0.2 * rng.standard_normal((n, n))
    tiles = img.reshape(n // TILE, TILE, n // TILE, TILE).swapaxes(1, 2)
    coef = scipy.fft.dctn(tiles, axes=(2, 3), norm="ortho")
    cutoff = np.quantile(np.abs(coef), 1.0 - KEEP)
    coef[np.abs(coef) < cutoff] = 0.0
    rebuilt = scipy.fft.idctn(coef, axes=(2, 3), norm="ortho").swapaxes(1, 2).reshape(n, n)
    err = np.sqrt(np.mean((rebuilt - img) ** 2))

    row = img[n // 2]
    first = np.zeros(n)
    first[:3] = [6.0, -4.0, 1.0]
    d2 = scipy.linalg.toeplitz(first)
    system = np.eye(n) + 10.0 * d2
    factor = scipy.linalg.cho_factor(system)
    smooth = scipy.linalg.cho_solve(factor, row)
    check = scipy.linalg.solve(system, row, assume_a="pos")

    window = scipy.signal.get_window("hann", SEG)
    segs = np.lib.stride_tricks.sliding_window_view(img.ravel(), SEG)[::SEG // 2]
    spectra = np.abs(scipy.fft.rfft(segs * window, axis=-1)) ** 2
    psd = spectra.mean(axis=0) / (window ** 2).sum()
    probs = scipy.special.expit(rebuilt)
    lse = scipy.special.logsumexp(rebuilt, axis=1)
    return rebuilt, err, smooth, check, psd, probs, lse


if __name__ == "__main__":
    import sys
    main(int(sys.argv[1]))
