"""dask integration: fakes as first-class dask chunks, and dask.array computed in a mode.

Nothing here imports dask: the import hook in ``modes/patching.py`` calls ``dask_imported``
when ``dask.sizeof`` is first imported (before or after ``import faketensor``), which
registers ``sizeof`` for fakes. ``FakeArray.__dask_tokenize__`` (faketensor/_array.py) gives
dask's tokens; pickling is ``FakeArray.__reduce__`` (plain metadata, no buffers).
"""
from __future__ import annotations

import sys
from typing import Any

from .._array import FakeArray
from .._storage import SCALAR


def sizeof_fake(x: FakeArray) -> int:
    """What ``dask.sizeof`` reports for the real array the fake stands for (dask/sizeof.py):
    an ndarray's ``nbytes``, counting a broadcast (stride 0) axis once; a CuPy array's
    ``nbytes``; ``sys.getsizeof`` of a NumPy scalar or a Python number. Virtual bytes: a
    view reports its own ``nbytes``, as dask does for a real view."""
    if x.pytype is not None or x.storage._tracker is SCALAR:
        return sys.getsizeof(x._zeros())  # the Python object dask measures; no data
    if x.storage.device != "cpu":
        return int(x.nbytes)  # sizeof_cupy_ndarray
    n = x.itemsize  # sizeof_numpy_ndarray: x[slice(1) where the stride is 0].nbytes
    for length, stride in zip(x.shape, x.strides):
        n *= min(length, 1) if stride == 0 else length
    return int(n)


def dask_imported(module: Any) -> None:
    """Register fakes with a freshly imported ``dask.sizeof`` (the import hook calls this)."""
    module.sizeof.register(FakeArray, sizeof_fake)
