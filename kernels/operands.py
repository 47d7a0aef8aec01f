"""Turning a kernel's array-like arguments into metadata it can read."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

PY_SCALARS = (int, float, complex)


class Shaped:
    """``ndim`` and ``size`` from ``shape``: shared by fakes and the kernels' stand-ins."""

    __slots__ = ()

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)


def is_meta(x: Any) -> bool:
    """True for a fake (anything carrying a storage) or a real ndarray."""
    return hasattr(x, "storage_offset") or isinstance(x, np.ndarray)


def is_fake(x: Any) -> bool:
    return hasattr(x, "storage_offset")


def as_meta(x: Any) -> Any:
    """A fake or ndarray as is; a NumPy scalar, list or other array-like as a small real array."""
    if hasattr(x, "storage_offset") or isinstance(x, np.ndarray):
        return x
    return np.asarray(x)


def is_c_contig(x: Any) -> bool:
    return x.flags.c_contiguous


def is_f_contig(x: Any) -> bool:
    return x.flags.f_contiguous


def check_writeable(x: Any, what: str = "output array") -> None:
    """NumPy's ValueError for writing into a read-only array."""
    if not x.flags.writeable:
        raise ValueError(f"{what} is read-only")
