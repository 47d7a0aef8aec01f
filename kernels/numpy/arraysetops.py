"""isin and the set functions (numpy/lib/_arraysetops_impl.py).

``isin`` is exact: a bool array of the element's shape, a view of the 1-d mask ``_isin``
makes, whatever the values. ``unique*``, ``intersect1d``, ``union1d``, ``setdiff1d`` and
``setxor1d`` return arrays whose lengths are the number of distinct values: after NumPy's
own argument errors they raise DataDependentError naming that reason.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..._errors import DataDependentError
from ..._numpy_version import UNIQUE_SORTED
from ...layout import normalize_axis, reshape_strides
from ...meta import ArrayMeta, as_meta, is_meta
from ..registry import register, unmodelled
from .temporaries import Steps, array_bytes, asarray_bytes

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
            steps.temp(array_bytes((n1,), _BOOL) + t.dtype.itemsize)
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


# --- value-dependent sizes ------------------------------------------------------------------

def _sizes(what: str) -> DataDependentError:
    return DataDependentError(f"{what}: the output length is the number of distinct values")


@register(np.unique, tags=("data-dependent",))
def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Any = None, *, equal_nan: bool = True,
           sorted: bool = True) -> Any:
    """np.unique: NumPy's axis checks (AxisError, object arrays with an axis), then refused."""
    if not UNIQUE_SORTED and sorted is not True:
        raise TypeError("unique() got an unexpected keyword argument 'sorted'")
    m = _meta(ar)
    if axis is not None:
        if m.ndim == 1:
            normalize_axis(axis, m.ndim)
        else:
            try:
                normalize_axis(axis, m.ndim)
            except np.exceptions.AxisError:
                raise np.exceptions.AxisError(axis, m.ndim) from None
            if m.dtype.hasobject:
                raise TypeError(f"The axis argument to unique is not supported for dtype "
                                f"{m.dtype}")
    if m.size == 0 or (m.size == 1 and axis is None):
        # no values, or one: every length is known (0 or 1) whatever the value, so NumPy's
        # own unique runs on a stand-in of at most one element for the outputs' metadata
        stand = np.zeros(m.shape, m.dtype)
        run: Any = np.unique  # (its overloads want literal flags)
        since_23 = {"sorted": sorted} if UNIQUE_SORTED else {}
        res = run(stand, return_index, return_inverse, return_counts, axis,
                  equal_nan=equal_nan, **since_23)
        return tuple(_fresh(r) for r in res) if isinstance(res, tuple) else _fresh(res)
    raise _sizes("np.unique")


def _fresh(r: np.ndarray) -> ArrayMeta:
    """A real result of NumPy's unique on a stand-in as a fresh record: a view (a reshape
    of the inverse, the values of ``axis=``) stays a view of a temporary owner."""
    root = r
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is r:
        return ArrayMeta(r.shape, r.dtype, r.strides)
    off = r.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return ArrayMeta(r.shape, r.dtype, r.strides, offset=off,
                     base_shape=(root.nbytes // r.dtype.itemsize,))


@register(np.unique_values, tags=("data-dependent",))
def unique_values(x: Any) -> Any:
    """np.unique_values: refused (its length depends on the values)."""
    raise _sizes("np.unique_values")


@register(np.unique_counts, tags=("data-dependent",))
def unique_counts(x: Any) -> Any:
    """np.unique_counts: refused (values and counts have one entry per distinct value)."""
    raise _sizes("np.unique_counts")


@register(np.unique_inverse, tags=("data-dependent",))
def unique_inverse(x: Any) -> Any:
    """np.unique_inverse: the inverse indices have x's shape, but ``values`` does not: the
    whole call is refused."""
    raise _sizes("np.unique_inverse (values)")


@register(np.unique_all, tags=("data-dependent",))
def unique_all(x: Any) -> Any:
    """np.unique_all: refused (values, indices and counts have one entry per distinct value)."""
    raise _sizes("np.unique_all")


def _two(ar1: Any, ar2: Any, name: str) -> None:
    a, b = _meta(ar1), _meta(ar2)
    _promoted(a, b)
    raise _sizes(name)


@register(np.intersect1d, tags=("data-dependent",))
def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False,
                return_indices: bool = False) -> Any:
    """np.intersect1d: refused after the concatenation's dtype check."""
    _two(ar1, ar2, "np.intersect1d")


@register(np.union1d, tags=("data-dependent",))
def union1d(ar1: Any, ar2: Any) -> Any:
    """np.union1d: refused after the concatenation's dtype check."""
    _two(ar1, ar2, "np.union1d")


@register(np.setdiff1d, tags=("data-dependent",))
def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """np.setdiff1d: refused after the dtype check."""
    _two(ar1, ar2, "np.setdiff1d")


@register(np.setxor1d, tags=("data-dependent",))
def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """np.setxor1d: refused after the concatenation's dtype check."""
    _two(ar1, ar2, "np.setxor1d")
