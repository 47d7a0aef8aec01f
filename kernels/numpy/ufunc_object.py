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
from typing import Any

import numpy as np

from ..._bounded import BoundedCache
from ...layout import c_strides
from ...meta import ArrayMeta, as_meta, check_writeable, is_fake, is_meta
from .indexing import FANCY, fancy_shape, getitem, parse_index, view_from_index
from .overlap import fake_shares_memory
from .reductions import (check_reduce_ufunc, reduce_casts, reduce_loop, reduce_strides, single_axis,
                         split_out)
from .temporaries import asarray_bytes
from .. import flops
from ..registry import register, transient, uncached

_INTP = np.dtype(np.intp)
_F8 = np.dtype(np.float64)
_PYSCALARS = (int, float, complex)

# --- ufunc.at ----------------------------------------------------------------------------------

_at_cache = BoundedCache("ufunc.at loops", 16 * 1024)


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
    if isinstance(r, Exception):
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


# --- ufunc.reduceat ----------------------------------------------------------------------------

def _reduceat_indices(indices: Any) -> tuple[Any, int]:
    """PyArray_FromAny(indices, intp, 1, 1, NPY_ARRAY_CARRAY) (ufunc_object.c
    PyUFunc_GenericReduction): (the index array, the bytes of the copy it makes: a list's
    array, a cast to intp (safe casting), or a C-contiguous copy)."""
    if is_meta(indices):
        m = indices
        if m.ndim == 0:
            raise ValueError("object of too small depth for desired array")
        if m.ndim > 1:
            raise ValueError("object too deep for desired array")
        if not np.can_cast(m.dtype, _INTP, "safe"):
            raise TypeError(f"Cannot cast array data from {m.dtype!r} to {_INTP!r} "
                            "according to the rule 'safe'")
        copy = m.dtype != _INTP or not m.flags.c_contiguous or not m.flags.aligned
        return m, (max(m.size * _INTP.itemsize, 1) if copy else 0)
    if not isinstance(indices, (list, tuple)):
        try:
            np.asarray(indices)
        except Exception:
            pass
        raise ValueError("object of too small depth for desired array")
    arr = np.array(indices, dtype=_INTP, ndmin=0)  # NumPy's own error for a bad sequence
    if arr.ndim != 1:
        raise ValueError("object too deep for desired array" if arr.ndim > 1
                         else "object of too small depth for desired array")
    return arr, max(arr.nbytes, 1)


def _reduceat_args(args: tuple, kwargs: dict) -> tuple:
    """(indices, axis, dtype, out) as npy_parse_arguments("reduceat", ...) takes them."""
    names = ("indices", "axis", "dtype", "out")
    if len(args) > 4:
        raise TypeError(f"reduceat() takes at most 5 arguments ({len(args) + 1} given)")
    vals = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"reduceat() got an unexpected keyword argument '{k}'")
        if k in vals:
            raise TypeError(f"argument for reduceat() given by name ('{k}') and position")
        vals[k] = v
    if "indices" not in vals:
        raise TypeError("reduceat() missing required argument 'indices' (pos 2)")
    return vals["indices"], vals.get("axis", 0), vals.get("dtype"), vals.get("out")


@register("ufunc.reduceat", tags=("reduction",))
def ufunc_reduceat(ufunc: np.ufunc, array: Any, *args: Any, **kwargs: Any) -> Any:
    """ufunc.reduceat (PyUFunc_Reduceat): the reduction of each slice ``indices[i]:indices[i+1]``
    along ``axis``; the result is ``array``'s shape with ``len(indices)`` on that axis.

    Layout: a 1-d aligned input of the loop's dtype without ``out`` gets a fresh 1-d result;
    else NpyIter allocates it in K order of the input (its reduced axis not voting) and of
    the indices (voting only on that axis). Memory: the intp copy of the indices, an array
    made of a list input, the input's cast copy (NPY_ITER_COPY: no buffering), a copy of an
    ``out`` of another dtype or overlapping the input (UPDATEIFCOPY, COPY_IF_OVERLAP).
    Index values: a real index's bounds are checked as NumPy does; a fake index's values are
    unknown, so it is accepted (NumPy raises IndexError for one outside [0, n)), except on an
    empty axis, where no index is in bounds."""
    name = ufunc.__name__
    check_reduce_ufunc(ufunc, "reduceat")
    if args and "indices" in kwargs:  # __array_ufunc__ passes a keyword index both ways
        kwargs.pop("indices")
    indices, axis, dtype, out = _reduceat_args(args, kwargs)
    ind, ind_bytes = _reduceat_indices(indices)
    out, _ = split_out(out)
    if out is not None:  # _set_out_array checks it before anything else
        check_writeable(out)
    nbytes = ind_bytes
    if not is_meta(array):
        nbytes += asarray_bytes(array)
    arr = as_meta(array)
    ax = single_axis(arr, axis, "reduceat")
    n = arr.shape[ax]
    vals = ind if isinstance(ind, np.ndarray) else None
    if vals is not None:
        for v in vals.tolist():
            if v < 0 or v >= n:
                raise IndexError(f"index {v} out-of-bounds in {name}.reduceat [0, {n})")
    elif n == 0 and ind.size:
        raise IndexError(f"index out-of-bounds in {name}.reduceat [0, 0)")
    rdt = reduce_loop(ufunc, arr, dtype, out, True, "reduceat")
    if rdt.hasobject and rdt.kind != "O":
        raise TypeError("reduceat currently only supports `object` dtype with references")
    m = ind.shape[0]
    oshape = arr.shape[:ax] + (m,) + arr.shape[ax + 1:]
    outer = (out is not None or arr.ndim > 1 or not arr.flags.aligned
             or not np.can_cast(arr.dtype, rdt, "equiv"))
    if outer:
        nbytes += 0 if (arr.dtype == rdt and arr.dtype.isnative and arr.flags.aligned) \
            else arr.size * rdt.itemsize  # NPY_ITER_COPY | NPY_ITER_ALIGNED of the input
    if out is not None:
        if tuple(out.shape) != oshape:
            if broadcast_ok(tuple(out.shape), oshape):
                raise ValueError(f"non-broadcastable output operand with shape {out.shape} "
                                 f"doesn't match the broadcast shape {oshape}")
            raise ValueError(f"operands could not be broadcast together with remapped shapes "
                             f"{out.shape} {arr.shape} ({m},)")
        check_writeable(out)
        if out.dtype != rdt or not out.dtype.isnative or not out.flags.aligned:
            nbytes += out.size * rdt.itemsize
        elif _overlaps(out, arr):
            nbytes += out.size * rdt.itemsize
        reduce_casts(ufunc, arr, dtype, out, "reduceat")
        transient(nbytes)
        return out
    reduce_casts(ufunc, arr, dtype, out, "reduceat")
    transient(nbytes)
    if not outer:
        return ArrayMeta(oshape, rdt, c_strides(oshape, rdt.itemsize))
    arr_shape = arr.shape[:ax] + (1,) + arr.shape[ax + 1:]
    arr_strides = arr.strides[:ax] + (0,) + arr.strides[ax + 1:]
    ind_shape = (1,) * ax + (m,) + (1,) * (arr.ndim - ax - 1)
    ind_strides = (0,) * ax + (_INTP.itemsize,) + (0,) * (arr.ndim - ax - 1)
    shape, strides = reduce_strides(oshape, arr_strides, (), False, rdt.itemsize,
                                    [(arr_shape, arr_strides), (ind_shape, ind_strides)])
    return ArrayMeta(shape, rdt, strides)


ufunc_reduceat.keep_real = frozenset({1, "indices"})


def broadcast_ok(shape: tuple, to: tuple) -> bool:
    """Whether ``shape`` broadcasts to ``to`` (same length, ones allowed)."""
    return len(shape) <= len(to) and all(s == 1 or s == t for s, t in zip(shape[::-1], to[::-1]))
