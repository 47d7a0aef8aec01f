"""A dask.array pipeline: standardize random columns, their Gram matrix, its row sums.

Usage: dask_pipeline.py ROWS COLS CHUNK [SCHEDULER]
"""
import sys

import dask
import dask.array as da
import numpy as np

rows, cols, chunk = (int(a) for a in sys.argv[1:4])
scheduler = sys.argv[4] if len(sys.argv) > 4 else "sync"

x = da.random.default_rng(0).standard_normal((rows, cols), chunks=(chunk, chunk))
y = (x - x.mean(axis=0)) / x.std(axis=0)
gram = y.T @ y
sums, top = dask.compute(gram.sum(axis=1), da.argmax(gram, axis=0), scheduler=scheduler)
ones = da.from_array(np.ones((rows, 3)), chunks=chunk).sum(axis=0).compute(scheduler=scheduler)
print(sums.shape, sums.dtype, top.dtype, ones.shape)
