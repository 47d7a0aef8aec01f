"""A dask.array pipeline sized for a 100-worker cluster, planned on a laptop.

Standardize an 800 GB matrix (2,000,000 x 50,000 float64, 100 row blocks of 8 GB) and form
its 50,000 x 50,000 covariance. For real it would run on a cluster of 100 workers; here a
LocalCluster of 100 in-process workers stands in for it, and the planner runs every task on
fakes:

    faketensor run --memory-limit worker=64GiB --html cluster.html examples/plan_cluster.py

(``python examples/plan_cluster.py tcp://scheduler:8786`` would run it on a real cluster.)
"""
import sys

import dask.array as da
from distributed import Client, LocalCluster

ROWS, COLS, BLOCK = 2_000_000, 50_000, 20_000

if __name__ == "__main__":
    if len(sys.argv) > 1:
        client = Client(sys.argv[1])
    else:
        client = Client(LocalCluster(n_workers=100, threads_per_worker=1, processes=False,
                                     dashboard_address=":0"))
    with client:
        x = da.random.random((ROWS, COLS), chunks=(BLOCK, COLS))
        y = (x - x.mean(axis=0)) / x.std(axis=0)
        cov = (y.T @ y) / ROWS
        result = cov.compute()
        print(result.shape, result.dtype)
