"""isin, ediff1d and the set functions (numpy/lib/_arraysetops_impl.py).

``isin`` is exact: a bool array of the element's shape, a view of the 1-d mask ``_isin``
makes, whatever the values. ``unique*``, ``intersect1d``, ``union1d``, ``setdiff1d`` and
``setxor1d`` return arrays whose lengths are the number of distinct values: bounded sizes
(faketensor/_sizes.py), NumPy's own Python run on fakes (see below).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import _known, _sizes
from ..._numpy_version import UNIQUE_HASH, UNIQUE_HASH_EQUAL_NAN
from ..._stack import paused
from ...layout import c_strides, reshape_strides
from ...meta import ArrayMeta, as_meta, is_fake, is_meta
from ..registry import register, uncached, unmodelled
from .temporaries import BUFSIZE, Steps, array_bytes, asarray_bytes
from .. import flops
from ..registry import transient
from ._common import along, c_fresh
from .reductions import final_result
from .umath import ufunc_call

_BOOL = np.dtype(bool)


def _meta(x: Any) -> Any:
    """A fake's metadata, or the small array NumPy makes of a real argument."""
    return as_meta(x) if is_meta(x) else np.asarray(x)


def _promoted(a: Any, b: Any) -> np.dtype:
    """concatenate's dtype of two 1-d arrays (its promotion error when there is none)."""
    return np.result_type(a.dtype, b.dtype)


# --- isin --------------------------------------------------------------------------------

@register(np.isin, tags=("copy",))
def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False,
         *, kind: Any = None) -> ArrayMeta:
    """np.isin: ``_isin(...).reshape(element.shape)``, a view of a fresh 1-d bool mask (with
    assume_unique on the sort path, a view of the first n1 of n1 + n2 flags).

    Memory: the ravel copies of non-contiguous inputs and, on the loop path (few test
    elements, or object arrays: ``mask |= ar1 == a``), one comparison temporary; on the sort
    path with assume_unique, its concatenation, argsort, sorted copy and flags. The table
    path and the sort path without assume_unique make buffers whose sizes depend on the
    values (the range of test_elements; np.unique's lengths): there the call is listed as
    unmodelled (``registry.unmodelled``)."""
    e, t = _meta(element), _meta(test_elements)
    if kind not in {None, "sort", "table"}:
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    ints = all(m.dtype.kind in "uib" for m in (e, t))
    if kind == "table" and not ints:
        raise ValueError("The 'table' method is only supported for boolean or integer arrays. "
                         "Please select 'sort' or None for kind.")
    n1, n2 = int(e.size), int(t.size)
    hasobj = e.dtype.hasobject or t.dtype.hasobject
    loop = not (ints and kind in {None, "table"}) and (n2 < 10 * n1 ** 0.145 or hasobj)
    sort = not loop and not (ints and kind in {None, "table"})
    if sort:
        dt = _promoted(e, t)  # np.concatenate((ar1, ar2))
    steps = Steps()
    # np.asarray(x).ravel(): a sequence becomes an array, a non-contiguous array is copied
    ravel = [steps.new(asarray_bytes(x) if not (is_meta(x) or isinstance(x, np.ndarray)) else
                       0 if m.flags.c_contiguous else array_bytes(m.shape, m.dtype))
             for x, m in ((element, e), (test_elements, t))]
    base = n1
    if loop:
        steps.new(array_bytes((n1,), _BOOL))  # the mask (the result)
        if n2:  # ``ar1 == a``: the 0-d array of the scalar a, and the comparison
            steps.temp(_loop_compare_bytes(element, e, t, hasobj))
        steps.free(*ravel)
        steps.done()
    elif sort and assume_unique:
        # ar = concatenate, its mergesort argsort, sar = ar[order], sar[1:] != sar[:-1],
        # flag = concatenate((bool_ar, [invert])), ret: all alive at the return of
        # ret[:len(ar1)], a view of ret (n1 + n2 bools)
        n = n1 + n2
        held = [steps.new(array_bytes((n,), dt)), steps.new(array_bytes((n,), np.intp)),
                steps.new(array_bytes((n,), dt)), steps.new(array_bytes((max(n - 1, 0),), _BOOL))]
        inv = steps.new(1)  # the array of [invert]
        held.append(steps.new(array_bytes((n,), _BOOL)))
        steps.free(inv)
        steps.new(array_bytes((n,), _BOOL))  # ret
        steps.free(*held, *ravel)
        steps.done()
        base = n
    else:  # the table's length is the range of test_elements; np.unique's, the distinct values
        unmodelled("the table path's and np.unique's buffers depend on the values")
    shape, strides = reshape_strides((n1,), (1,), 1, tuple(e.shape))
    return ArrayMeta(shape, _BOOL, strides, base_shape=(base,))


def _loop_compare_bytes(element: Any, e: Any, t: Any, hasobj: bool) -> int:
    """The peak of ``ar1 == a`` on isin's loop path, ``a`` a NumPy scalar of test_elements'
    dtype: a copy of the raveled ``ar1`` (at most NPY_BUFSIZE elements) when the loop casts
    it or it is unaligned (a C-contiguous input's ravel is a view keeping its alignment),
    then ``a``'s 0-d array, copied into the loop dtype when that differs (both alive while
    it is copied), then the comparison's result."""
    n1 = int(e.size)
    res = array_bytes((n1,), _BOOL)
    if hasobj:
        return res + t.dtype.itemsize
    try:
        loop = np.equal.resolve_dtypes((e.dtype, t.dtype, None))
    except (TypeError, ValueError):
        return res + t.dtype.itemsize
    copy = 0
    view = is_meta(element) or isinstance(element, np.ndarray)
    unaligned = view and e.flags.c_contiguous and not e.flags.aligned
    if (e.dtype != loop[0] or unaligned) and n1 <= BUFSIZE:
        copy = array_bytes((n1,), loop[0])
    own = t.dtype.itemsize
    converting = own + (loop[1].itemsize if loop[1] != t.dtype else 0)
    return copy + max(converting, loop[1].itemsize + res)


# --- value-dependent sizes ------------------------------------------------------------------
# np.unique, the unique_* functions and the set functions run NumPy's own Python on fakes
# (modes/python_entry.py): their lengths are bounded sizes (faketensor/_sizes.py) made by the
# boolean masks of _unique1d (``aux[mask]``; 1 <= k <= n for n > 0) and of the set functions,
# and every step is charged as NumPy allocates it. The hash-table path of _unique1d (NumPy
# >= 2.3) is the one C call among them:


def unique_hash(ar: Any, *, equal_nan: bool = True) -> ArrayMeta:
    """_unique_hash (numpy/_core/src/multiarray/unique.cpp): the distinct values of a 1-d
    array in a fresh 1-d array of its dtype, their count a bounded size ``1 <= k <= n``.
    The hash set itself lives in C++'s allocator, outside NumPy's data memory."""
    m = as_meta(ar)
    uncached()
    vals = _known.real(ar) if is_fake(ar) and _known.has_values(ar) else None
    if vals is not None:  # known values (faketensor/_known.py): the count itself
        k: int = len(_UNIQUE_HASH(vals, **({"equal_nan": equal_nan} if UNIQUE_HASH_EQUAL_NAN
                                          else {})))
    else:
        k = _sizes.make(1 if m.size else 0, m.size, "np.unique", ar, kind="unique")
    return ArrayMeta((k,), m.dtype, c_strides((k,), m.dtype.itemsize))


if UNIQUE_HASH:
    from numpy.lib import _arraysetops_impl as _impl
    _UNIQUE_HASH: Any = getattr(_impl, "_unique_hash")  # a C function (NumPy >= 2.3)
    register(_UNIQUE_HASH, tags=("data-dependent",))(unique_hash)


def unique_nan_check(last: Any) -> Any:
    """``np.isnan(aux[-1])`` as _unique1d asks it with ``equal_nan`` (floating-point, complex
    and datetime values on its sorting path): the op the rebound code calls for a fake
    (modes/python_entry.py); NumPy's own isnan on real values."""
    return np.isnan(last)


@register(unique_nan_check, tags=("data-dependent",))
def unique_nan_check_rule(last: Any) -> Any:
    """Whether the largest sorted value is NaN: known values answer; unknown ones are
    assumed not NaN (the count is ``1 <= k <= n`` either way; the size's op says so:
    ``np.unique, assuming no NaN``). Memory: isnan of a NumPy scalar converts it to a 0-d
    array and writes a 0-d bool, both alive at once, both freed (itemsize + 1 bytes)."""
    m = as_meta(last)
    uncached()
    steps = Steps()
    held = steps.new(array_bytes((), m.dtype))
    steps.new(array_bytes((), _BOOL))
    steps.free(held, 1)
    steps.done()
    v = _known.scalar_value(last) if is_fake(last) else last
    if v is None:
        return np.False_
    with paused():
        return np.isnan(v)


# --- ediff1d ---------------------------------------------------------------------------------

@register(np.ediff1d, tags=("copy",), flops=flops.input_elements)
def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """np.ediff1d: ary.ravel()[1:] - [:-1]; with ends, an empty_like 1-d C result filled."""
    m = as_meta(ary)
    k = max(m.size - 1, 0)
    flat = ArrayMeta((m.size,), m.dtype, (m.dtype.itemsize,))
    # _arraysetops_impl.py ediff1d: ary.ravel() (a copy unless C-contiguous) and the ends
    # as arrays live with the result
    transient((0 if m.flags.c_contiguous else array_bytes(m.shape, m.dtype))
              + sum(asarray_bytes(e) for e in (to_begin, to_end) if e is not None))
    if m.flags.c_contiguous and not m.flags.aligned and k <= BUFSIZE:
        # the ravel is a view, unaligned: the subtraction copies both short 1-d operands
        # (ufunc_object.c check_for_trivial_loop)
        transient(2 * array_bytes((k,), m.dtype))
    if to_begin is None and to_end is None:
        return ufunc_call(np.subtract, along(flat, 0, k), along(flat, 0, k))
    n = k
    for end, name in ((to_begin, "to_begin"), (to_end, "to_end")):
        if end is not None:
            e = as_meta(end)
            if not np.can_cast(e.dtype, m.dtype, casting="same_kind"):
                raise TypeError(f"dtype of `{name}` must be compatible "
                                "with input `ary` under the `same_kind` rule.")
            n += e.size
    res = c_fresh((n,), m.dtype)
    ufunc_call(np.subtract, along(flat, 0, k), along(flat, 0, k), out=along(res, 0, k))
    return final_result(res)
