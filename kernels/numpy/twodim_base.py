"""Two-dimensional functions: tril, triu, diag, diagflat, vander, histogram2d
(numpy/lib/_twodim_base_impl.py)."""
from __future__ import annotations
import operator
from typing import Any
import numpy as np
from ...layout import as_shape, c_strides, shape_args
from ...meta import ArrayMeta, as_meta, is_meta
from ..registry import register, transient
from .creation import fresh, tri_mask
from .temporaries import Steps, Val, array_bytes, asarray_bytes, binary, setitem_bytes, used
from .misc import where_meta
from .histograms import histdd


def _tri_like(m: Any, k: int) -> ArrayMeta:
    """``where(tri(*m.shape[-2:], k, dtype=bool), zeros(1, m.dtype), m)``: where's layout
    over the mask and m; the mask and the zero are alive with the result."""
    if m.ndim == 0:  # ``tri(*m.shape[-2:], ...)`` with no N
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    n, mm = (m.shape[-2], m.shape[-1]) if m.ndim >= 2 else (m.shape[0], m.shape[0])
    steps = Steps()
    mask = tri_mask(steps, n, mm, k)
    zero = steps.new(array_bytes((1,), m.dtype))
    out = where_meta(ArrayMeta((n, mm), np.dtype(np.bool_), c_strides((n, mm), 1)),
                     ArrayMeta((1,), m.dtype, (m.dtype.itemsize,)), m)
    steps.new(array_bytes(out.shape, out.dtype))
    steps.free(mask, zero)
    steps.done()
    return out


@register(np.tril, tags=("copy",))
def tril(m: Any, k: Any = 0) -> ArrayMeta:
    """_twodim_base_impl.py tril: the mask is ``tri(..., k=k)``."""
    return _tri_like(as_meta(m), operator.index(k))


@register(np.triu, tags=("copy",))
def triu(m: Any, k: Any = 0) -> ArrayMeta:
    """_twodim_base_impl.py triu: the mask is ``tri(..., k=k - 1)``."""
    return _tri_like(as_meta(m), operator.index(k) - 1)


def diagonal_view(m: Any, k: int) -> tuple:
    """(length, stride, byte offset) of the k-th diagonal of the last two axes."""
    n0, n1 = m.shape[-2], m.shape[-1]
    s0, s1 = m.strides[-2], m.strides[-1]
    if k >= 0:
        length = min(n0, n1 - k)
        off = k * s1
    else:
        length = min(n0 + k, n1)
        off = -k * s0
    if length < 0:
        return 0, s0 + s1, 0
    return length, s0 + s1, off


@register(np.diag, tags=("view",))
def diag(v: Any, k: Any = 0) -> ArrayMeta:
    """A fresh C square matrix for 1-d input, a read-only diagonal view for 2-d input."""
    k = operator.index(k)
    m = as_meta(v)
    if m.ndim == 1:
        n = m.shape[0] + abs(k)
        return ArrayMeta((n, n), m.dtype, c_strides((n, n), m.dtype.itemsize))
    if m.ndim != 2:
        raise ValueError("Input must be 1- or 2-d.")
    length, st, off = diagonal_view(m, k)
    if is_meta(v):
        return ArrayMeta((length,), m.dtype, (st,), view_of=v, offset=off, writeable=False)
    return ArrayMeta((length,), m.dtype, (st,), offset=off, writeable=False, base_shape=m.shape)


@register(np.diagflat, tags=("copy",))
def diagflat(v: Any, k: Any = 0) -> ArrayMeta:
    m = as_meta(v)
    k = operator.index(k)
    n = m.size + abs(k)
    # _twodim_base_impl.py diagflat: v.ravel() (a copy unless C-contiguous), res = zeros,
    # i = arange(...), fi = i + k + i * n (k < 0: i + (i + k) * n), res.flat[fi] = v
    steps = Steps()
    flat = steps.new(0 if m.flags.c_contiguous else array_bytes(m.shape, m.dtype))
    steps.new(array_bytes((n, n), m.dtype))
    i = Val((n - abs(k),), np.intp)
    idx = steps.new(i.nbytes)
    if k >= 0:
        fi = binary(steps, np.add, binary(steps, np.add, i, k), binary(steps, np.multiply, i, n), True)
    else:
        fi = binary(steps, np.add, i, binary(steps, np.multiply, binary(steps, np.add, i, k), n), True)
    used(steps, fi)
    steps.free(idx, flat)
    steps.done()
    return ArrayMeta((n, n), m.dtype, c_strides((n, n), m.dtype.itemsize))


@register(np.vander, tags=("copy",))
def vander(x: Any, N: Any = None, increasing: bool = False) -> ArrayMeta:
    """A fresh C (len(x), N) array of x's dtype promoted with int; ``tmp[:, 0] = 1`` packs
    the 1 into a 0-d array of that dtype while the result exists (_twodim_base_impl.py)."""
    m = as_meta(x)
    if m.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    shape = as_shape((m.shape[0], m.shape[0] if N is None else N))  # empty((len(x), N))
    dt = np.promote_types(m.dtype, int)
    if shape[1] > 1:
        np.multiply.accumulate(np.zeros((1, 2), dt), axis=1)  # NumPy's error for the dtype
    # _twodim_base_impl.py: asarray(x) alive to the end; ``tmp[:, 0] = 1`` packs the 1 into
    # a 0-d array of v's dtype
    transient(asarray_bytes(x) + (setitem_bytes(dt, 1) if shape[1] > 0 else 0))
    return fresh(shape, dt)


shape_args(vander, 1, "N")


# --- histogram2d (histograms.histdd on [x, y]) -----------------------------------------------

@register(np.histogram2d, tags=("copy",))
def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None) -> tuple:
    """np.histogram2d: histogramdd([x, y]) -> (hist, xedges, yedges)."""
    xm, ym = as_meta(x), as_meta(y)
    if (xm.shape[0] if xm.ndim else None) != (ym.shape[0] if ym.ndim else None) or not xm.ndim:
        if not xm.ndim or not ym.ndim:
            raise TypeError("len() of unsized object")
        raise ValueError('x and y must have the same length.')
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb not in {1, 2}:
        e = as_meta(bins)
        bins = [e, e]
    hist, edges = histdd([xm, ym], bins, range, density, weights)
    return hist, edges[0], edges[1]
