"""The data-allocator bytes of NumPy's Python-level functions beyond their outputs.

Functions written in Python (numpy/_core/numeric.py, numpy/lib/_function_base_impl.py,
_twodim_base_impl.py, _methods.py, ...) make intermediate arrays: masks, casts, 0-d arrays
of Python scalars, index arrays. Their kernels replay those allocations in order on a
``Steps`` record; its ``done()`` reports what was alive at the call's worst moment beyond
what survives it (the outputs) as ``registry.transient``, so ``mode.memory.peak`` is
NumPy's to the byte. The small conversions every such function makes are written once here.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .operands import is_meta
from .registry import transient

_PY_SCALARS = (bool, int, float, complex)


class Steps:
    """Buffers allocated and freed in the order the real function does it (bytes only).

    ``new`` allocates (and returns the byte count, for the matching ``free``); ``temp``
    is a buffer made and dropped within one statement. What is still alive at ``done()``
    are the outputs the fake charges itself: the transient is the peak above them.
    """

    __slots__ = ("live", "peak")

    def __init__(self) -> None:
        self.live = 0
        self.peak = 0

    def new(self, nbytes: int) -> int:
        self.live += nbytes
        if self.live > self.peak:
            self.peak = self.live
        return nbytes

    def free(self, *nbytes: int) -> None:
        for n in nbytes:
            self.live -= n

    def temp(self, nbytes: int) -> None:
        self.new(nbytes)
        self.free(nbytes)

    def done(self) -> None:
        """Report the peak above what stays alive (the outputs) as the call's transient bytes."""
        if self.peak > self.live:
            transient(self.peak - self.live)


def array_bytes(shape: tuple, dtype: Any) -> int:
    """Bytes NumPy's allocator hands out for a new array (zero-size arrays get 1 byte,
    numpy/_core/src/multiarray/ctors.c ``PyArray_NewFromDescr_int``)."""
    return max(math.prod(shape) * np.dtype(dtype).itemsize, 1)


def asarray_bytes(obj: Any) -> int:
    """Bytes ``np.asarray(obj)`` allocates: none for arrays (real or fake), a new buffer for
    Python and NumPy scalars and for sequences of them."""
    if isinstance(obj, np.ndarray) or is_meta(obj):
        return 0
    if isinstance(obj, (list, tuple)) and any(isinstance(x, (list, tuple, np.ndarray))
                                              or is_meta(x) for x in obj):
        return sum(asarray_bytes(x) or _nbytes_of(x) for x in obj)
    return max(np.asarray(obj).nbytes, 1)


def _nbytes_of(x: Any) -> int:
    return max(math.prod(x.shape) * x.dtype.itemsize, 1) if is_meta(x) or isinstance(x, np.ndarray) else 0


def copyto_bytes(dtype: Any, value: Any) -> int:
    """Bytes ``np.copyto(dst, value, casting='unsafe')`` allocates for a scalar value.

    The scalar becomes a 0-d array of its own dtype (``np.asarray``). A Python int, float or
    complex is then re-made in the dtype NEP 50 gives it next to ``dst``
    (numpy/_core/src/multiarray/multiarraymodule.c ``array_copyto``:
    ``npy_find_descr_for_scalar`` + ``npy_update_operand_for_scalar``), except when that is
    already its dtype; a Python int is always re-made. Python bools and arrays are used as
    they are. Measured on numpy 2.4 for every dtype family.
    """
    if isinstance(value, np.ndarray) or is_meta(value):
        return 0
    first = asarray_bytes(value)
    t = type(value)
    if t not in _PY_SCALARS or t is bool:
        return first
    try:
        res = np.result_type(np.dtype(dtype), value)
    except (TypeError, OverflowError):
        return first
    if t is int or res != np.asarray(value).dtype:
        return first + res.itemsize
    return first


def setitem_bytes(dtype: Any, value: Any) -> int:
    """Bytes ``a[...] = value`` allocates for a scalar value: a 0-d array of ``a``'s dtype
    (numpy/_core/src/multiarray/mapping.c ``array_assign_subscript`` packs the scalar)."""
    if isinstance(value, np.ndarray) or is_meta(value):
        return 0
    if type(value) in _PY_SCALARS or isinstance(value, np.generic):
        return np.dtype(dtype).itemsize
    return asarray_bytes(value)
