"""Validated in-place metadata assignment on fakes: ``a.shape = ...``, ``a.strides = ...``,
``a.dtype = ...``, with the checks, errors and deprecation warnings of the real library.

NumPy (numpy/_core/src/multiarray/getset.c): the shape setter takes a C-order reshape that
must not copy; the dtype setter takes ``a.view(dtype)``'s geometry; the strides setter checks
the new strides against the memory of the ultimate base. CuPy (cupy/_core/core.pyx,
_routines_manipulation.pyx ``_ndarray_shape_setter``) only lets ``shape`` be set.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .layout import as_shape, extent

_NP_VERSION = np.lib.NumpyVersion(np.__version__)


def _deprecated(what: str, since: str, hint: str) -> None:
    if _NP_VERSION >= since:
        warnings.warn(f"Setting the {what} on a NumPy array has been deprecated in NumPy "
                      f"{since[:3]}.\n{hint}", DeprecationWarning, stacklevel=3)


def adopt(a: Any, out: Any) -> None:
    """Take a kernel's view of ``a`` as ``a``'s own geometry; AttributeError if it copied."""
    if out.view_of is not a or out.offset != 0:
        raise AttributeError("Incompatible shape for in-place modification. Use `.reshape()` "
                             "to make a copy with the desired shape.")
    object.__setattr__(a, "shape", tuple(out.shape))
    object.__setattr__(a, "strides", tuple(out.strides))
    object.__setattr__(a, "dtype", out.dtype)


def set_shape(a: Any, value: Any) -> None:
    from .kernels.registry import REGISTRY
    if a.storage.device != "cpu":
        from .kernels.cupy import views as cupy_views
        adopt(a, cupy_views.shape_setter_view(a, value))
        return
    _deprecated("shape", "2.5.0", "As an alternative, you can create a new view using "
                "np.reshape (with copy=False if needed).")
    if value is None:  # PyArray_IntpConverter
        raise TypeError("Use () not None as shape arguments")
    adopt(a, REGISTRY[("ndarray.reshape", "numpy")].fn(a, value))


def set_dtype(a: Any, value: Any) -> None:
    from .kernels.registry import REGISTRY
    if a.storage.device != "cpu":
        raise AttributeError("attribute 'dtype' of 'cupy._core.core._ArrayBase' objects is "
                             "not writable")
    _deprecated("dtype", "2.5.0", "Instead of changing the dtype on an array x, create a new "
                "array with x.view(new_dtype)")
    try:
        dt = np.dtype(value)
    except Exception:
        raise TypeError("invalid data-type for array") from None
    adopt(a, REGISTRY[("ndarray.view", "numpy")].fn(a, dt))


def _intp_tuple(value: Any) -> tuple:
    """PyArray_OptionalIntpConverter (layout.as_shape); any failure is TypeError, as
    array_strides_set (getset.c) reports it."""
    try:
        return as_shape(value)
    except (TypeError, ValueError):
        raise TypeError("invalid strides") from None


def set_strides(a: Any, value: Any) -> None:
    if a.storage.device != "cpu":
        raise AttributeError("attribute 'strides' of 'cupy._core.core._ArrayBase' objects is "
                             "not writable")
    _deprecated("strides", "2.4.0", "As an alternative, you can create a new view using "
                "np.lib.stride_tricks.as_strided.")
    strides = _intp_tuple(value)
    if len(strides) != len(a.shape):
        raise ValueError(f"strides must be  same length as shape ({len(a.shape)})")
    root = a
    while root._base is not None and root._base.__class__ is a.__class__:
        root = root._base
    isz = a.dtype.itemsize
    lo, hi = extent(root.shape, root.strides, root.dtype.itemsize)
    offset = a.storage_offset - (root.storage_offset + lo)
    numbytes = hi - lo
    if numbytes == 0:
        numbytes = a.size * isz
    new_lo, new_hi = extent(a.shape, strides, isz)
    if new_hi > numbytes - offset or new_lo < -offset:
        raise ValueError("strides is not compatible with available memory")
    object.__setattr__(a, "strides", strides)


META_SETTERS: dict[str, Callable[[Any, Any], None]] = {
    "shape": set_shape, "dtype": set_dtype, "strides": set_strides}
