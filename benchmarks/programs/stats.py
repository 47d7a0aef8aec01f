"""Descriptive statistics of a sample table: quantiles, histograms, counts, correlations.

``n`` observations of 6 correlated variables (a Cholesky factor mixes independent normals),
summarised the way an analysis notebook does: per-column percentiles and quantiles,
a 2-D histogram and per-column histograms with fixed bins, binned counts and sums
(np.digitize, weighted histograms), covariance and correlation matrices, and
z-scores with outliers clipped.
"""
import numpy as np

NVAR, BINS = 6, 32


def main(n):
    rng = np.random.default_rng(0)
    mix = np.tril(rng.uniform(0.2, 1.0, size=(NVAR, NVAR)))
    data = rng.standard_normal((n, NVAR)) @ mix.T + np.arange(NVAR)
    q = np.percentile(data, [5, 25, 50, 75, 95], axis=0)
    iqr = q[3] - q[1]
    deciles = np.quantile(data[:, 0], np.linspace(0, 1, 11))
    med = np.median(data, axis=0)
    hist2d, xe, ye = np.histogram2d(data[:, 0], data[:, 1], bins=BINS, range=[[-4, 4], [-3, 5]])
    hists = [np.histogram(data[:, j], bins=BINS, range=(j - 5.0, j + 5.0))[0] for j in range(NVAR)]
    edges = np.linspace(-4.0, 4.0, BINS + 1)
    which = np.clip(np.digitize(data[:, 0], edges) - 1, 0, BINS - 1)
    counts = np.histogram(which, bins=BINS, range=(0, BINS))[0]
    sums = np.histogram(which, bins=BINS, range=(0, BINS), weights=data[:, 1])[0]
    binned_mean = sums / np.maximum(counts, 1)
    cov = np.cov(data, rowvar=False)
    corr = np.corrcoef(data.T)
    z = (data - data.mean(axis=0)) / data.std(axis=0, ddof=1)
    z = np.clip(z, -3.0, 3.0)
    weights = rng.exponential(1.0, size=n)
    wmean = np.average(data, axis=0, weights=weights)
    ranks = np.argsort(np.argsort(data[:, 2]))
    return q, iqr, deciles, med, hist2d, xe, ye, hists, binned_mean, cov, corr, z, wmean, ranks


if __name__ == "__main__":
    import sys
    main(int(sys.argv[1]))
