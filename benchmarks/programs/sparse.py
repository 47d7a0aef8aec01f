"""Sparse-matrix work written with index arrays: COO assembly, CSR, SpMV, PageRank.

A random graph of ``n`` nodes with 8 edges per node as COO triplets: duplicate edges
summed with np.add.at into a dense degree vector, the edges sorted into CSR order with
np.lexsort, row pointers by np.searchsorted, sparse matrix-vector products by np.add.reduceat
and by np.add.at, a fixed number of PageRank iterations, and each row's top-3 neighbours
by argsort and np.take_along_axis on a padded neighbour table.
"""
import numpy as np

DEG, ITERS, DAMPING, TOP = 8, 20, 0.85, 3


def main(n):
    rng = np.random.default_rng(0)
    nnz = n * DEG
    rows = np.repeat(np.arange(n), DEG)
    cols = rng.integers(0, n, size=nnz)
    vals = rng.random(nnz)

    out_degree = np.zeros(n)
    np.add.at(out_degree, rows, vals)
    in_degree = np.zeros(n)
    np.add.at(in_degree, cols, 1.0)

    order = np.lexsort((cols, rows))
    rows, cols, vals = rows[order], cols[order], vals[order]
    indptr = np.searchsorted(rows, np.arange(n + 1))
    x = rng.standard_normal(n)
    y_reduceat = np.add.reduceat(vals * x[cols], indptr[:-1])
    y_at = np.zeros(n)
    np.add.at(y_at, rows, vals * x[cols])

    weight = vals / out_degree[rows]
    rank = np.full(n, 1.0 / n)
    for _ in range(ITERS):
        contrib = np.zeros(n)
        np.add.at(contrib, cols, weight * rank[rows])
        rank = (1.0 - DAMPING) / n + DAMPING * contrib

    table = np.full((n, DEG), -1.0)
    slot = np.arange(nnz) - np.repeat(indptr[:-1], DEG)
    table[rows, slot] = vals
    top = np.argsort(-table, axis=1)[:, :TOP]
    top_vals = np.take_along_axis(table, top, axis=1)
    top_cols = cols.reshape(n, DEG)[np.arange(n)[:, None], top]
    bucket = np.searchsorted(np.linspace(0, 1, 11), rank / rank.max(), side="right")
    return y_reduceat, y_at, rank, top_vals, top_cols, in_degree, bucket


if __name__ == "__main__":
    import sys
    main(int(sys.argv[1]))
