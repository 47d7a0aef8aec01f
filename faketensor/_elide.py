"""NumPy's temporary elision, decided from the fakes' own reference counts.

Mirrors numpy/_core/src/multiarray/temp_elide.c (``can_elide_temp``,
``try_binary_elide``, ``can_elide_temp_unary``) and the operator slots of number.c that
call them: in ``a + b + c`` the temporary ``a + b`` is referenced only by the
interpreter's stack, so NumPy computes ``(a + b) += c`` in place instead of allocating a
third array. The fake operator methods make the same decision on the same evidence (the
operand's reference count), so fakes get the real result's identity, layout and memory.
"""
from __future__ import annotations

import sys

import numpy as np

from ._dispatch import claim
from ._stack import paused
from ._storage import FakeStorage

ELIDE_BYTES = 256 * 1024  # NPY_MIN_ELIDE_BYTES
_NUMBER_KINDS = frozenset("biufc")  # PyArray_ISNUMBER
_PY_SCALARS = (bool, int, float, complex)
getrefcount = sys.getrefcount


def _operand_refs() -> tuple:
    """The reference count a temporary operand shows inside a Python operator method (self,
    other), measured on this interpreter: a named variable adds one."""

    class Probe:
        def __add__(self, other):
            return getrefcount(self), getrefcount(other)

    def make():
        return Probe()

    return make() + make()


TEMP_SELF, TEMP_OTHER = _operand_refs()


def owns_big_buffer(t) -> bool:
    """``can_elide_temp_unary`` less the reference count: an owning, writeable, numeric cpu
    array of at least NPY_MIN_ELIDE_BYTES."""
    if t._base is not None or not t._writeable or t.storage.device != "cpu":
        return False
    dt = t.dtype
    if dt.kind not in _NUMBER_KINDS:
        return False
    n = dt.itemsize
    for d in t.shape:
        n *= d
    return n >= ELIDE_BYTES


def _rhs_dtype(other, shape: tuple):
    """``other`` as ``PyArray_EnsureArray`` sees it when it may take part (an exact array of
    the same dimensions, a 0-d array or any scalar): its dtype, else None.

    A scalar becomes a fresh 0-d array there, allocated and freed at once: it is charged
    as such (``claim``) to the innermost FakeMode, and no call of the program's is made of
    it (the program called no ``np.asarray``; its trace holds none)."""
    t = type(other)
    if t is np.ndarray or getattr(other, "storage_offset", None) is not None:
        if other.ndim != 0 and tuple(other.shape) != shape:
            return None
        return other.dtype
    if t in _PY_SCALARS or isinstance(other, np.generic):
        dt = _SCALAR_DTYPES.get(t)
        if dt is None:
            try:
                with paused():  # a real 0-d array of one scalar: O(1)
                    dt = np.asarray(other).dtype
            except (OverflowError, ValueError, TypeError):
                return None
        claim(FakeStorage(dt.itemsize, "cpu"))  # the 0-d array, freed on return
        return dt
    return None


# Python scalars whose 0-d array's dtype does not depend on the value (int's does: int64,
# uint64 or object by magnitude)
_SCALAR_DTYPES = {bool: np.dtype(np.bool_), float: np.dtype(np.float64),
                  complex: np.dtype(np.complex128)}


def can_elide(t, other) -> bool:
    """``can_elide_temp(t, other)`` for a fake ``t`` already known to be a temporary."""
    if not owns_big_buffer(t):
        return False
    dt = _rhs_dtype(other, t.shape)
    if dt is None:
        return False
    key = (dt, t.dtype)
    ok = _SAFE.get(key)
    if ok is None:
        ok = bool(np.can_cast(dt, t.dtype, "safe"))
        if len(_SAFE) < 1024:
            _SAFE[key] = ok
    return ok


_SAFE: dict = {}  # (dtype, dtype) -> np.can_cast(..., "safe"): numeric dtypes, a few pairs


# Binary operators whose slot tries elision, and whether it may swap the operands
# (number.c: array_add, array_subtract, ..., try_binary_elide(..., commutative)).
ELIDING: dict[np.ufunc, bool] = {
    np.add: True, np.multiply: True, np.bitwise_and: True, np.bitwise_or: True,
    np.bitwise_xor: True, np.subtract: False, np.true_divide: False,
    np.floor_divide: False, np.left_shift: False, np.right_shift: False,
}
# Unary operators whose slot tries elision (array_positive, ..., array_invert).
ELIDING_UNARY = frozenset({np.negative, np.positive, np.absolute, np.invert})


def fast_power(a, exponent):
    """number.c ``fast_scalar_power``: the ufunc ``a ** exponent`` runs instead of np.power
    (square for ``2``, reciprocal for ``-1`` and sqrt for ``0.5`` on inexact arrays), or None."""
    t = type(exponent)
    if t is int:
        if exponent == 2:
            op = np.square
        elif exponent == -1:
            op = np.reciprocal
        else:
            return None
    elif t is float and exponent == 0.5:
        op = np.sqrt
    else:
        return None
    kind = a.dtype.kind
    if kind == "O" or (op is not np.square and kind not in "fc"):
        return None
    return op
