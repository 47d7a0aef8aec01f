"""What NumPy's casting code does besides converting values, for the kernels that decide a
cast (numpy/_core/src/multiarray/convert_datatype.c).

``cast_loop(src, dst)`` stands for one cast loop set up (``PyArray_GetDTypeTransferFunction``
and the iterator's buffers call ``get_loop`` once per operand that needs a cast): a complex to
real loop warns ``ComplexWarning`` there (``complex_to_noncomplex_get_loop``), on every call,
for empty arrays too, before a single value moves. The ufunc machinery (umath.py inputs and
outputs, reductions.py ``_loop`` for reduce / accumulate / reduceat), the joins
(shape_base.py), array construction with a dtype (creation.py) and item assignment
(indexing.py) call it where they decide the cast, so every function built on them warns as
NumPy does.

A cast loop NumPy still runs through the old ``PyArray_ArrFuncs.cast`` functions (numbers to
or from strings, datetimes and void; bytes to or from str) also allocates a one-element
"dummy" array of each dtype for the old functions' array arguments
(``get_legacy_dtype_cast_function`` in dtype_transfer.c), freed with the loop:
``legacy_cast_bytes`` gives their size, and ``cast_loop`` reports it.
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..._errors import DataDependentError
from ..registry import transient

_MESSAGE = "Casting complex values to real discards the imaginary part"


def cast_loop(src: np.dtype, dst: np.dtype, count: int = 1, dummies: bool = True) -> None:
    """``count`` cast loops from src to dst are set up, alive together: a complex to integer
    or floating one warns (complex to bool, object, strings and complex keep the imaginary
    part's meaning and do not); an old-style one holds its dummy arrays (reported unless
    ``dummies`` is False: the caller reports them, for loops alive one at a time)."""
    if src.kind == "c" and dst.kind in "iuf":
        for _ in range(count):
            warnings.warn(_MESSAGE, np.exceptions.ComplexWarning, stacklevel=3)
    if dummies:
        transient(count * legacy_cast_bytes(src, dst))


_GROUP = {"b": "number", "i": "number", "u": "number", "f": "number", "c": "number"}


def legacy_cast_bytes(src: np.dtype, dst: np.dtype) -> int:
    """Bytes of the dummy arrays of one cast loop from src to dst: 0 for a new-style cast
    (within numbers, within one of S, U, V, M, m; S to or from M; to or from object).
    A function of the two dtypes, worked out once per pair (every ufunc call asks it per
    operand)."""
    try:
        return _LEGACY_BYTES[src, dst]
    except KeyError:
        n = _legacy_cast_bytes(src, dst)
        if len(_LEGACY_BYTES) < 4096:
            _LEGACY_BYTES[src, dst] = n
        return n
    except TypeError:  # an unhashable dtype
        return _legacy_cast_bytes(src, dst)


_LEGACY_BYTES: dict = {}  # (src, dst) -> legacy_cast_bytes(src, dst)


def _legacy_cast_bytes(src: np.dtype, dst: np.dtype) -> int:
    if dst.names is not None:  # a cast into each field (structured casts, one loop per field)
        sources = _field_dtypes(src) if src.names is not None else [src] * len(dst.names)
        total = 0
        for s, d in zip(sources, _field_dtypes(dst)):
            total += legacy_cast_bytes(s, d)
        return total
    if src.names is not None or "O" in (src.kind, dst.kind):
        return 0
    a, b = _GROUP.get(src.kind, src.kind), _GROUP.get(dst.kind, dst.kind)
    if a == b or {a, b} == {"S", "M"}:
        return 0
    if (a, b) == ("U", "M"):  # str to bytes of as many characters (old-style), then bytes to datetime
        return src.itemsize + src.itemsize // 4
    if (a, b) == ("M", "U"):  # datetime to bytes, then bytes to str (old-style)
        return dst.itemsize + dst.itemsize // 4
    if a == "m" and b in "SU":  # timedelta to at most 21 characters (old-style), then resized
        width = 4 if b == "U" else 1
        return src.itemsize + min(dst.itemsize // width, 21) * width
    if a == "V":  # void to bool (the only old-style cast from unstructured void that NumPy allows)
        return 3 * src.itemsize + dst.itemsize
    return src.itemsize + dst.itemsize


def _field_dtypes(dt: np.dtype) -> list[np.dtype]:
    """The dtypes of a structured dtype's fields, in order."""
    fields: Any = dt.fields
    return [fields[n][0] for n in dt.names or ()]


def value_cast_reason(src: np.dtype, dst: np.dtype) -> str | None:
    """Why casting src values to dst succeeds or fails depending on the values, or None:
    text parsed as numbers or times ('' and 'abc' raise ValueError, '300' into int8
    OverflowError). Other values are assumed valid, as everywhere in faketensor: objects
    convert, and text cast between bytes and str is ASCII."""
    if dst.names is not None:  # each field is cast from src
        return next(filter(None, (value_cast_reason(src, f) for f in _field_dtypes(dst))), None)
    if src.kind in "SU" and dst.kind in "iufcMm":
        return (f"casting strings to {dst} raises ValueError or not depending on the strings "
                "('' and non-numbers raise)")
    return None


def check_value_cast(m: Any, dt: np.dtype) -> None:
    """DataDependentError for a cast of m's values to dt whose success depends on them
    (``value_cast_reason``, and datetimes into a string dtype shorter than their longest
    ISO form); an empty m casts no value."""
    if not math.prod(m.shape):
        return
    if (m.dtype.kind in "Mm" and dt.kind in "SU"
            and dt.itemsize < np.empty((0,), m.dtype).astype(dt.kind).dtype.itemsize):
        raise DataDependentError("whether datetimes fit a short string dtype depends on their values")
    reason = value_cast_reason(m.dtype, dt)
    if reason is not None:
        raise DataDependentError(reason)
