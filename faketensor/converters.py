"""NumPy's argument converters, in one place: kernels parse axis / axes, casting, order,
sort and select kind, search side, clip modes, integer sequences (shapes, permutations) and
``copy=`` here, with NumPy's exception types and messages, and give new arrays NumPy's
descriptor (``new_array_descr``). A dtype argument itself goes through ``np.dtype``, which is
NumPy's own converter.

Mirrors numpy/_core/src/multiarray/conversion_utils.c (``convert_with_str_parser``,
``PyArray_OrderConverter``, ``PyArray_CastingConverter``, ``PyArray_SortkindConverter``,
``PyArray_SelectkindConverter``, ``PyArray_SearchsideConverter``,
``PyArray_ClipmodeConverter``, ``PyArray_ConvertClipmodeSequence``, ``PyArray_AxisConverter``,
``PyArray_ConvertMultiAxis``, ``PyArray_PyIntAsIntp``, ``PyArray_IntpConverter``,
``PyArray_CopyConverter``), ctors.c ``PyArray_NewFromDescr_int`` and numpy/_core/numeric.py
``normalize_axis_tuple``; checked against NumPy's own
``numpy._core._multiarray_tests.run_*_converter`` in tests/core/test_converters.py.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Literal, cast, overload

import numpy as np

from ._errors import DataDependentError, UnsupportedOperationError
# alloc_dtype and the integer and axis converters live in layout.py (its axis rules use
# them) and are re-exported here, where the kernels look for NumPy's converters.
from .layout import (alloc_dtype, as_shape, axis_index, axis_tuple, index,  # noqa: F401
                     new_buffer_dtype, tp_name)
from .meta import is_fake


_NoValue = np._NoValue
AxisError = np.exceptions.AxisError

CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _string(obj: Any, name: str, parse: Callable[[str], Any], message: str) -> Any:
    """``convert_with_str_parser``: str or ASCII/UTF-8 bytes, else TypeError; ``parse``
    returns the value or None, then ValueError "{name} {message} (got {obj!r})"."""
    if isinstance(obj, bytes):
        try:
            s = obj.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{name} {message} (got {obj!r})") from None
    elif isinstance(obj, str):
        s = obj
    else:
        raise TypeError(f"{name} must be str, not {tp_name(obj)}")
    v = parse(s)
    if v is None:
        raise ValueError(f"{name} {message} (got {obj!r})")
    return v


def order(obj: Any, default: str = "K", allowed: str = "CFAK") -> str:
    """``PyArray_OrderConverter``: one letter, any case; None means ``default``.

    ``allowed`` narrows the result afterwards (factories take only C or F: NumPy's
    "only 'C' or 'F' order is permitted")."""
    if obj is None:
        o = default
    else:
        o = _string(obj, "order", lambda s: s.upper() if len(s) == 1 and s.upper() in "CFAK" else None,
                    "must be one of 'C', 'F', 'A', or 'K'")
    if o not in allowed:
        if allowed == "CF":
            raise ValueError("only 'C' or 'F' order is permitted")
        if allowed == "CFA":
            raise ValueError("order 'K' is not permitted for reshaping")
        raise ValueError(f"order must be one of {', '.join(repr(c) for c in allowed)} (got {obj!r})")
    return o


# The casting names NumPy's functions take (numpy's own stubs spell them the same way).
Casting = Literal["no", "equiv", "safe", "same_kind", "same_value", "unsafe"]


def casting(obj: Any, same_value: bool = False) -> Casting:
    """``PyArray_CastingConverter``: one of the five names exactly (no case folding);
    ``same_value`` adds astype's sixth ('same_value', ``PyArray_CastingConverterSameValue``)."""
    names = CASTINGS + ("same_value",) if same_value else CASTINGS
    if type(obj) is str and obj in names:
        return cast(Casting, obj)
    return _string(obj, "casting", lambda s: s if s in names else None,
                   "must be one of " + ", ".join(repr(n) for n in names))


_SORT_KINDS = {"q": "quicksort", "h": "heapsort", "m": "stable", "s": "stable"}


def sortkind(obj: Any) -> str:
    """``PyArray_SortkindConverter``: the first letter decides (q, h, m/s), any case;
    None is the default quicksort. Returns 'quicksort', 'heapsort' or 'stable'."""
    if obj is None:
        return "quicksort"
    return _string(obj, "sort kind", lambda s: _SORT_KINDS.get(s[:1].lower()),
                   "must be one of 'quick', 'heap', or 'stable'")


def selectkind(obj: Any) -> str:
    """``PyArray_SelectkindConverter``: exactly 'introselect' (None is a TypeError)."""
    return _string(obj, "select kind", lambda s: s if s == "introselect" else None,
                   "must be 'introselect'")


def searchside(obj: Any) -> str:
    """``PyArray_SearchsideConverter``: exactly 'left' or 'right'. A string that only
    starts like one (the deprecated prefix forms, now errors) gets NumPy's other message."""
    def parse(s: str) -> Any:
        if s in ("left", "right"):
            return s
        if s[:1].lower() in ("l", "r"):
            raise ValueError("search side must be one of 'left' or 'right'")
        return None
    return _string(obj, "search side", parse, "must be 'left' or 'right'")


_CLIP = ("clip", "wrap", "raise")


def clipmode(obj: Any) -> str:
    """``PyArray_ClipmodeConverter``: 'clip', 'wrap', 'raise', NumPy's CLIP/WRAP/RAISE
    integers (0, 1, 2), or None (raise)."""
    if obj is None:
        return "raise"
    if isinstance(obj, (str, bytes)):
        def parse(s: str) -> Any:
            if s in _CLIP:
                return s
            if s[:1].lower() in ("c", "w", "r"):
                raise ValueError("Use one of 'clip', 'raise', or 'wrap' for clip mode")
            return None
        return _string(obj, "clipmode", parse, "must be one of 'clip', 'raise', or 'wrap'")
    if isinstance(obj, (bool, np.bool_)):
        raise TypeError("clipmode not understood")
    try:
        n = operator.index(obj)
    except TypeError:
        raise TypeError("clipmode not understood") from None
    if n not in (0, 1, 2):
        raise ValueError("integer clipmode must be RAISE, WRAP, or CLIP from "
                         "'numpy._core.multiarray'")
    return ("clip", "wrap", "raise")[n]


def clipmodes(obj: Any, n: int) -> tuple:
    """``PyArray_ConvertClipmodeSequence``: one clip mode for all ``n`` dimensions, or a
    tuple/list of exactly ``n``."""
    if isinstance(obj, (tuple, list)):
        if len(obj) != n:
            raise ValueError(f"list of clipmodes has wrong length ({len(obj)} instead of {n})")
        return tuple(clipmode(m) for m in obj)
    return (clipmode(obj),) * n


@overload
def axis(obj: None, ndim: int, argname: str | None = None) -> None: ...
@overload
def axis(obj: Any, ndim: int, argname: str | None = None) -> int: ...


def axis(obj: Any, ndim: int, argname: str | None = None) -> int | None:
    """``PyArray_AxisConverter`` + check: None stays None (the flattened array), else one
    axis in range(ndim) (sort, argmax, take, cumsum, ...)."""
    if obj is None:
        return None
    return axis_index(obj, ndim, argname, False, "an integer is required for the axis")


def multi_axis(obj: Any, ndim: int) -> tuple:
    """``PyArray_ConvertMultiAxis`` (ufunc reductions, ``np.sum``...): None or _NoValue is
    every axis, a *tuple* of axes (no list: a list is not an integer), or one axis.
    Repeats raise ValueError. A 0-d array takes the integer 0 or -1 as no axis (a legacy
    special case in numpy/_core/src/multiarray/conversion_utils.c)."""
    if obj is None or obj is _NoValue:
        return tuple(range(ndim))
    if ndim == 0 and type(obj) is not tuple and index(obj) in (0, -1):
        return ()
    if type(obj) is tuple:
        axes = tuple(axis_index(a, ndim, None, False) for a in obj)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        return axes
    return (axis_index(obj, ndim, None, False),)


# The descriptor of a new array: one rule, in layout.py.
new_array_descr = new_buffer_dtype


def copy(obj: Any) -> bool | None:
    """``PyArray_CopyConverter``: None (copy if needed), True (always) or False (never);
    strings are refused, ``np._CopyMode`` members and other objects go by their truth."""
    if obj is None or obj is np._CopyMode.IF_NEEDED:
        return None
    if isinstance(obj, str):
        raise ValueError("strings are not allowed for 'copy' keyword. Use True/False/None instead.")
    if isinstance(obj, np._CopyMode):
        return obj is np._CopyMode.ALWAYS
    return bool(obj)


def intp_tuple(obj: Any) -> tuple:
    """``PyArray_IntpConverter`` (shapes, ``transpose`` axes): layout.as_shape, plus the
    refusal of a fake array, whose values a fake call does not have."""
    if is_fake(obj):
        raise DataDependentError("a shape held in a fake array needs its values")
    return as_shape(obj)


def no_subarray(dt: np.dtype, name: str) -> None:
    """Kernels that lay out a copy like an existing array do not model subarray dtypes
    (whose shape NumPy appends to the array's)."""
    if dt.subdtype is not None:
        raise UnsupportedOperationError(name, "subarray dtypes are not supported")
