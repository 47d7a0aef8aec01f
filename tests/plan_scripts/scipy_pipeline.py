"""A short SciPy pipeline: scipy.special ufuncs, scipy.fft transforms (float32 stays
complex64), and scipy.linalg factorizations and solves on the spectrum's products."""
import sys

import numpy as np
import scipy.fft as sf
import scipy.linalg as sl
import scipy.special as sp


def main(n: int = 64):
    x = np.linspace(0.0, 1.0, n * n).reshape(n, n)
    w = sp.expit(x) * sp.erf(x)
    spec = sf.rfft2(w.astype(np.float32), workers=1)
    gain = sp.expit(np.abs(spec) ** 2)
    smooth = sf.irfft2(spec * gain, s=w.shape)
    c = sf.dct(smooth.astype(np.float64), norm="ortho", axis=0)
    a = c.T @ c + n * np.eye(n)
    low = sl.cholesky(a, lower=True)
    y = sl.solve_triangular(low, w, lower=True)
    lu, piv = sl.lu_factor(a)
    z = sl.lu_solve((lu, piv), y)
    inv = sl.inv(a)
    g = sp.gammaln(np.abs(z) + 1.0) + sp.xlogy(2.0, inv @ y)
    return sf.fftshift(sf.fft(g, axis=1), axes=1)


if __name__ == "__main__":
    out = main(int(sys.argv[1]) if len(sys.argv) > 1 else 64)
    print("scipy pipeline", out.shape, out.dtype)
