"""k-means clustering, PCA and a least-squares fit on a labelled point cloud.

``n`` points in 16 dimensions from 8 Gaussian clusters: PCA by SVD of the centred data and
by eigh of the covariance, a fixed number of Lloyd iterations (pairwise distances by the
expansion |x|^2 - 2 x.c + |c|^2, argmin, centroid sums by np.add.at), then a linear model
of one coordinate from the others by np.linalg.pinv and by the normal equations, and
the whitening transform.
"""
import numpy as np

DIM, K, ITERS, COMPONENTS = 16, 8, 10, 3


def main(n):
    rng = np.random.default_rng(0)
    true_centers = rng.uniform(-10, 10, size=(K, DIM))
    labels_true = rng.integers(0, K, size=n)
    x = true_centers[labels_true] + rng.standard_normal((n, DIM))

    mean = x.mean(axis=0)
    xc = x - mean
    u, s, vt = np.linalg.svd(xc, full_matrices=False)
    projected = xc @ vt[:COMPONENTS].T
    explained = s ** 2 / np.sum(s ** 2)
    cov = xc.T @ xc / (n - 1)
    evals, evecs = np.linalg.eigh(cov)
    order = np.argsort(evals)[::-1]
    evecs = evecs[:, order]
    whitened = xc @ evecs / np.sqrt(evals[order])

    centers = x[rng.choice(n, size=K, replace=False)]
    for _ in range(ITERS):
        d2 = (x ** 2).sum(axis=1)[:, None] - 2 * x @ centers.T + (centers ** 2).sum(axis=1)
        labels = np.argmin(d2, axis=1)
        sums = np.zeros((K, DIM))
        np.add.at(sums, labels, x)
        counts = np.zeros(K)
        np.add.at(counts, labels, 1)
        centers = sums / np.maximum(counts, 1)[:, None]
    inertia = np.take_along_axis(d2, labels[:, None], axis=1).sum()

    a = np.column_stack([np.ones(n), x[:, 1:]])
    coef = np.linalg.pinv(a) @ x[:, 0]
    coef_ne = np.linalg.solve(a.T @ a, a.T @ x[:, 0])
    fitted = a @ coef
    return projected, explained, whitened, centers, labels, inertia, coef, coef_ne, fitted


if __name__ == "__main__":
    import sys
    main(int(sys.argv[1]))
