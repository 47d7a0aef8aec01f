"""np.shares_memory (exact) and np.may_share_memory (extents), answered from metadata."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...layout import extent
from ...meta import as_meta, is_fake
from .. import flops
from ..registry import register

_BASE = 1 << 12


class PointerOnly:
    """An __array_interface__ at a made-up address: NumPy's overlap solver reads no data."""

    __slots__ = ("__array_interface__",)

    def __init__(self, m: Any, start: int | None = None) -> None:
        """``start``: the byte offset in the buffer (default ``m.storage_offset``)."""
        start = m.storage_offset if start is None else start
        self.__array_interface__ = {
            "shape": m.shape, "typestr": f"|V{m.dtype.itemsize}",
            "data": (_BASE + start, True), "strides": m.strides, "version": 3,
        }


def byte_bounds(m: Any) -> tuple[int, int]:
    lo, hi = extent(m.shape, m.strides, m.dtype.itemsize)
    return m.storage_offset + lo, m.storage_offset + hi


def _same_buffer(a: Any, b: Any) -> bool:
    if is_fake(a) and is_fake(b):
        return a.storage is b.storage
    return False


def fake_shares_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    """Exact overlap of two fakes (NumPy's own bounded Diophantine solver on made-up addresses)."""
    if not _same_buffer(a, b):
        return False
    alo, ahi = byte_bounds(a)
    blo, bhi = byte_bounds(b)
    if alo >= bhi or blo >= ahi or alo == ahi or blo == bhi:
        return False
    if a.flags.c_contiguous and b.flags.c_contiguous or a.flags.f_contiguous and b.flags.f_contiguous:
        return True
    return bool(np.shares_memory(np.asarray(PointerOnly(a)), np.asarray(PointerOnly(b)),
                                 max_work=max_work))


def _check(a: Any, b: Any) -> tuple[Any, Any]:
    am, bm = as_meta(a), as_meta(b)
    if is_fake(am) != is_fake(bm):
        return None, None  # a fake never aliases a real array
    return am, bm


@register(np.shares_memory, flops=flops.zero)
def shares_memory(a, b, max_work=None):
    am, bm = _check(a, b)
    if am is None:
        return False
    return fake_shares_memory(am, bm, max_work)


@register(np.may_share_memory, flops=flops.zero)
def may_share_memory(a, b, max_work=None):
    am, bm = _check(a, b)
    if am is None:
        return False
    if max_work is not None and max_work != 0:
        return fake_shares_memory(am, bm, max_work)
    if not _same_buffer(am, bm):
        return False
    alo, ahi = byte_bounds(am)
    blo, bhi = byte_bounds(bm)
    return not (alo >= bhi or blo >= ahi or alo == ahi or blo == bhi)
