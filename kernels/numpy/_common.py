"""Helpers the Python-level rules share (function_base, nanfunctions, histograms, numeric,
type_check, sorting's partition, ...): fresh C intermediates, results chained as the inputs of
the next step, the halves of a complex array, a slice along an axis, and the values of an
argument where they are known."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import _known
from ...layout import c_strides
from ...meta import ArrayMeta, is_fake, is_meta
from ..registry import uncached
from .umath import ufunc_call

BOOL = np.dtype(bool)


def c_fresh(shape: tuple, dtype: Any) -> ArrayMeta:
    """A fresh C-contiguous intermediate."""
    dt = np.dtype(dtype)
    shape = tuple(shape)
    return ArrayMeta(shape, dt, c_strides(shape, dt.itemsize))


def chainable(x: Any) -> Any:
    """A kernel result as a chainable intermediate (views too: only the layout matters)."""
    if type(x) is ArrayMeta:
        return ArrayMeta(x.shape, x.dtype, x.strides, writeable=x.writeable)
    return x


def chained_ufunc(ufunc: np.ufunc, *args: Any, **kw: Any) -> Any:
    """The ufunc's rule on intermediates, its result ``chainable``."""
    return chainable(ufunc_call(ufunc, *args, **kw))


def complex_part(m: Any) -> ArrayMeta:
    """``z.real`` / ``z.imag`` of a complex array: same strides, half the itemsize."""
    return ArrayMeta(tuple(m.shape), np.dtype(m.dtype.char.lower()), tuple(m.strides))


def along(m: Any, ax: int, n: int) -> ArrayMeta:
    """``m`` sliced to length n along axis ax (strides kept)."""
    v = ArrayMeta(m.shape[:ax] + (n,) + m.shape[ax + 1:], m.dtype, tuple(m.strides))
    return v


def known_values(x: Any) -> np.ndarray | None:
    """The values of an argument where they are known: a sequence or real array, a fake
    that knows its values (faketensor/_known.py; the kernel is then not cached), else None."""
    if is_fake(x):
        vals = _known.real(x)
        if vals is not None:
            uncached()  # the outcome depends on values, which the kernel cache does not key on
        return vals
    if is_meta(x) and not isinstance(x, np.ndarray):
        return None
    try:
        return np.asarray(x)
    except Exception:  # noqa: BLE001 - NumPy's own conversion error comes later, as NumPy's
        return None
