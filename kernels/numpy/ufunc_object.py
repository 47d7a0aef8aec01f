"""``ufunc.at`` and ``ufunc.reduceat`` (numpy/_core/src/umath/ufunc_object.c ``ufunc_at``,
``PyUFunc_Reduceat``; reduce, accumulate and outer are in reductions.py).

Both take index values the metadata does not have. A real index (a list, a tuple of
integers, an ndarray) is kept real (``keep_real``) and checked as NumPy checks it; a fake
index has no values, so an out-of-bounds index among them cannot be seen: the fake accepts
it where NumPy raises IndexError on the real data (except on an empty axis, where every index
is out of bounds).
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ..._bounded import BoundedCache
from ..._errors import UnsupportedOperationError
from ...layout import iterator_order, normalize_axis
from ... import converters
from ...meta import ArrayMeta, as_meta, is_fake, is_meta
from .indexing import FANCY, fancy_shape, getitem, parse_index, view_from_index
from .overlap import fake_shares_memory
from .reductions import _check_reduce_ufunc, _final, _loop, _split_out, _ufunc_axes
from .temporaries import asarray_bytes
from .. import flops
from ..registry import register, transient, uncached

_INTP = np.dtype(np.intp)
_F8 = np.dtype(np.float64)
_PYSCALARS = (int, float, complex)

# --- ufunc.at ----------------------------------------------------------------------------------

_at_cache = BoundedCache("ufunc.at loops", 256 * 1024)


def _probe_operand(x: Any, zero_d: bool) -> Any:
    """A one-element stand-in for the second operand: a Python scalar as itself (NEP 50 weak
    scalars resolve by their Python type, and a str by its length), an array as zeros."""
    if type(x) in _PYSCALARS or type(x) is bool or type(x) is str:
        return x
    return np.zeros(() if zero_d else (1,), x.dtype)


def _at_key(x: Any) -> Any:
    if type(x) is int:
        return (int, x if -(1 << 64) < x < (1 << 64) else "big")
    if type(x) in (float, complex, bool):
        return type(x)
    if type(x) is str:
        return (str, len(x))
    return (x.dtype, x.ndim == 0)


def _at_loop(ufunc: np.ufunc, a: Any, b: Any) -> None:
    """ufunc_at's dtype resolution (promote_and_get_ufuncimpl, resolve_descriptors with unsafe
    casting, the first operand also the output), answered by NumPy on one-element arrays: a
    loop NumPy lacks raises its own error (UFuncTypeError, ...), as the real call does first."""
    key = (ufunc, a.dtype, a.ndim == 0, None if b is None else _at_key(b))
    r = _at_cache.get(key)
    if r is None:
        zero = a.ndim == 0
        op1 = np.zeros(() if zero else (1,), a.dtype)
        idx = () if zero else np.zeros(1, _INTP)
        args = (op1, idx) if b is None else (op1, idx, _probe_operand(b, b is not None
                                                                        and getattr(b, "ndim", 0) == 0))
        try:
            with np.errstate(all="ignore"):
                ufunc.at(*args)
            r = True
        except ValueError as e:
            # a 1-d second operand of a 0-d first fails later, on the shapes (checked below)
            r = True if "not broadcastable" in str(e) else e
        except Exception as e:  # re-raised with NumPy's type
            r = e
        _at_cache.put(key, r)
    if r is not True:
        raise type(r)(*r.args)


def _index_entries(indices: Any) -> tuple:
    return indices if type(indices) is tuple else (indices,)


def _index_bytes(entries: tuple, a_shape: tuple) -> tuple[int, bool]:
    """(data bytes prepare_index allocates for the index, whether it has an index array):
    sequences become arrays (PyArray_FromAny; empty ones then intp), boolean arrays become
    intp arrays of their nonzero positions (values known: the index is real)."""
    total = 0
    fancy = False
    for obj in entries:
        if obj is None or obj is Ellipsis or type(obj) is slice:
            continue
        if is_meta(obj):
            if obj.ndim == 0 and obj.dtype.kind in "iu":
                continue
            fancy = True
            if obj.dtype.kind == "b" and isinstance(obj, np.ndarray):
                total += max(int(np.count_nonzero(obj)) * obj.ndim * _INTP.itemsize, 1)
            continue
        if isinstance(obj, (int, np.integer)) and not isinstance(obj, (bool, np.bool_)):
            continue
        arr = np.asarray(obj)
        fancy = True
        total += max(arr.nbytes, 1)
        if arr.dtype.kind == "b":
            total += max(int(np.count_nonzero(arr)) * max(arr.ndim, 1) * _INTP.itemsize, 1)
        elif arr.size == 0 and arr.dtype != _INTP:
            total += 1
    return total, fancy


def _overlaps(a: Any, b: Any) -> bool:
    """solve_may_share_memory(a, b, max_work=1) != 0 (mem_overlap.c): overlapping, or too
    hard to tell with one unit of work."""
    if not (is_fake(a) and is_fake(b)) or a.storage is not b.storage:
        return False
    uncached()  # depends on offsets, which the kernel cache does not key on
    try:
        return fake_shares_memory(a, b, max_work=1)
    except np.exceptions.TooHardError:
        return True


def _broadcast_values(vshape: tuple, shape: tuple) -> None:
    """PyArray_BroadcastToShape (iterators.c): the values fit the indexed shape one way."""
    if len(vshape) > len(shape) or any(
            v != 1 and v != s for v, s in zip(vshape[::-1], shape[::-1])):
        raise ValueError("array is not broadcastable to correct shape")


@register("ufunc.at", tags=("inplace",), flops=flops.ufunc_at)
def ufunc_at(ufunc: np.ufunc, *args: Any, **kwargs: Any) -> None:
    """ufunc.at(a, indices[, b]): ``a`` changed in place (returns None), NumPy's checks in its
    order: the ufunc, the arguments, the loop, the index, writeability, b's shape.

    Memory: an array made of a list or scalar ``b``, arrays made of list indices (boolean ones
    then their nonzero positions), the 0-d intp index NumPy adds when there is no index array,
    and a whole copy of ``a`` when ``b`` or an index array may share its memory
    (PyArray_MapIterArrayCopyIfOverlap, mapping.c). A fake index's values are unknown: an
    out-of-bounds index NumPy would refuse with IndexError is accepted."""
    name = ufunc.__name__
    if ufunc.signature is not None:
        raise TypeError(f"{name}.at does not support ufunc with non-trivial signature: "
                        f"{name} has signature {ufunc.signature}.")
    if ufunc.nin > 2:
        raise ValueError("Only unary and binary ufuncs supported at this time")
    if ufunc.nout != 1:
        raise ValueError("Only single output ufuncs supported at this time")
    if kwargs:
        raise TypeError("ufunc.at() takes no keyword arguments")
    if len(args) > 3:
        raise TypeError(f"at() takes at most 3 arguments ({len(args)} given)")
    if len(args) < 2:
        raise TypeError(f"at() takes at least 2 arguments ({len(args)} given)")
    a, indices = args[0], args[1]
    b = args[2] if len(args) == 3 else None
    if ufunc.nin == 2 and b is None:
        raise ValueError("second operand needed for ufunc")
    if ufunc.nin == 1 and b is not None:
        raise ValueError("second operand provided when ufunc is unary")
    if not is_meta(a):
        raise TypeError("first operand must be array")
    bm = None
    if b is not None:
        bm = b if type(b) in _PYSCALARS or type(b) in (bool, str) else as_meta(b)
    _at_loop(ufunc, a, bm)
    entries = _index_entries(indices)
    if any(type(e) is str for e in entries):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                         "(`None`) and integer or boolean arrays are valid indices")
    shape = tuple(a.shape)
    p = parse_index(shape, indices)
    sub, _, _ = view_from_index(shape, tuple(a.strides), p)  # integer indices' bounds
    if p.index_type & FANCY:
        fancy_shape(p)
    # MapIterNew iterates (and so checks writeable) a subspace of more than one element only
    if p.index_type != FANCY and math.prod(sub) != 1 and not a.flags.writeable:
        raise ValueError("operand array with iterator write flag set is read-only")
    view = getitem(ArrayMeta(shape, _F8, tuple(a.strides)), indices)
    if bm is not None:
        _broadcast_values(tuple(getattr(bm, "shape", ())), tuple(view.shape))
    nbytes, fancy = _index_bytes(entries, tuple(a.shape))
    if not fancy:
        nbytes += _INTP.itemsize  # MapIterNew's dummy 0-d index
    if bm is not None and not is_meta(b):
        nbytes += asarray_bytes(b)
    others = [e for e in entries if is_fake(e)] + ([b] if is_fake(b) else [])
    if any(_overlaps(a, o) for o in others):
        nbytes += a.size * a.dtype.itemsize
    transient(nbytes)
    return None


ufunc_at.keep_real = frozenset({1})
