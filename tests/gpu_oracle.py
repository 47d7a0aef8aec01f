"""Shared by the GPU-only differential tests: real CuPy (when a device is present) and the
metadata compared between a CuPy result and its fake. Skipped, never faked, without a GPU."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")
try:
    HAVE_GPU = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # no driver / no device
    HAVE_GPU = False
needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU")


def meta(x):
    """Shape, dtype, strides, contiguity and ownership of an array; other values as they are."""
    if x is None or not hasattr(x, "strides"):
        return x if not isinstance(x, float) or not np.isnan(x) else "nan"
    return (x.shape, np.dtype(x.dtype), tuple(x.strides), bool(x.flags.c_contiguous),
            bool(x.flags.f_contiguous), x.base is None)


def metas(r):
    """meta over nested lists and tuples of results."""
    return [metas(x) for x in r] if isinstance(r, (list, tuple)) else meta(r)
