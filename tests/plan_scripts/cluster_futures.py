"""A dask.distributed program without dask.array: blocks made and combined by plain NumPy
functions submitted to a LocalCluster (tests/planner/test_cluster.py plans it)."""
import sys

import numpy as np
from distributed import Client, LocalCluster


def block(n):
    return np.ones((n, n)) * 2.0          # a transient (n, n) before the output


def combine(a, b):
    return a @ b + a                      # a transient product before the sum


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    processes = sys.argv[2:] == ["processes"]  # worker processes: comms over TCP
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=processes,
                      dashboard_address=":0", memory_limit="1GiB") as cluster, \
            Client(cluster) as client:
        blocks = client.map(block, [n] * 4, pure=False)
        pairs = [client.submit(combine, blocks[i], blocks[(i + 1) % 4]) for i in range(4)]
        out = client.gather(pairs)
        print(len(out), out[0].shape)
