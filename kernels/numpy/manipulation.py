"""Array manipulation functions written in Python in NumPy (pad, insert, delete, resize,
select, ...) and a few C ones (choose, lexsort, packbits, putmask, place): their results'
layouts follow the NumPy code path, step by step, on metadata."""
from __future__ import annotations

import math
import operator
import sys
import warnings
from typing import Any, cast

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .convert_datatype import cast_loop
from ..._errors import DataDependentError, UnsupportedOperationError
from ..._numpy_version import TRIM_ZEROS_AXES
from ..._storage import PREEXISTING, SCALAR
from .creation import fresh
from .hidden import Steps, call_step
from .indexing import assign_to_view, flat_value, getitem, self_copy_bytes
from ...layout import (as_shape, attempt_nocopy_reshape, broadcast_shapes, c_strides, f_strides,
                     normalize_axes, normalize_axis, shape_args, wrap_intp)
from ... import converters
from ...meta import ArrayMeta, as_meta, is_fake, is_meta
from ..registry import pyarray_return, register, transient, uncached, unmodelled
from .temporaries import (Val, along_axis_bytes, array_bytes, asarray_bytes, binary, carray_bytes, copyto_bytes,
                          setitem_bytes)
from .views import copy_like, ndarray_astype

INTP = np.dtype(np.intp)
_NUMERIC = "biufc"


def _fnc(m: Any) -> str:
    """'F' for an array that is Fortran and not also C contiguous (NumPy's ``flags.fnc``)."""
    return "F" if m.flags.f_contiguous and not m.flags.c_contiguous else "C"


def _values(obj: Any, what: str) -> np.ndarray:
    """A Python object's values as a real array; a fake's values are unknown."""
    if is_fake(obj):
        raise DataDependentError(f"{what}: the result depends on the values of a fake array")
    return np.asarray(obj)


def _stand_in(m: Any, shape: tuple | None = None) -> ArrayMeta:
    shape = tuple(m.shape) if shape is None else shape
    return ArrayMeta(shape, m.dtype, c_strides(shape, m.dtype.itemsize))


def _flat_prelude(arr: Any, axis: Any) -> tuple:
    """insert/delete: (array metadata, axis, order of the result) after ravel when axis is None."""
    arr = as_meta(arr)
    order = _fnc(arr)
    if axis is None:
        if arr.ndim != 1:
            arr = _stand_in(arr, (arr.size,))
        return arr, arr.ndim - 1, order
    return arr, normalize_axis(axis, arr.ndim), order


# --- pad ------------------------------------------------------------------------------

_PAD_KWARGS = {"empty": (), "edge": (), "wrap": (), "constant": ("constant_values",),
               "linear_ramp": ("end_values",), "maximum": ("stat_length",),
               "mean": ("stat_length",), "median": ("stat_length",),
               "minimum": ("stat_length",), "reflect": ("reflect_type",),
               "symmetric": ("reflect_type",)}


def _pairs(x: Any, ndim: int, as_index: bool = False) -> list:
    from numpy.lib._arraypad_impl import _as_pairs
    return [tuple(p) for p in _as_pairs(x, ndim, as_index=as_index)]


@register(np.pad, tags=("copy",))
def pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
    """A fresh array, F when the input is F and not C contiguous, else C (_pad_simple)."""
    a = as_meta(array)
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * a.ndim
        for ax, w in pad_width.items():
            seq[ax] = (w, w) if isinstance(w, int) else tuple(w)
        pad_width = seq
    if is_fake(pad_width):
        raise DataDependentError("np.pad: pad widths given as a fake array")
    pw = np.asarray(pad_width)
    if pw.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    widths = _pairs(pw, a.ndim, as_index=True)
    # _pad_simple (arraypad.py) sums the widths in npy_intp, then copies the input into
    # padded[left:left + size]: a wrapped sum leaves a slice the input cannot fill
    widths = [(int(lo), int(hi)) for lo, hi in widths]
    shape = tuple(wrap_intp(lo + n + hi) for n, (lo, hi) in zip(a.shape, widths))
    if all(k >= 0 for k in shape):
        area = tuple(len(range(k)[lo:wrap_intp(lo + n)]) for k, n, (lo, _) in
                     zip(shape, a.shape, widths))
        if any(k != n and n != 1 for k, n in zip(area, a.shape)):
            raise ValueError(f"could not broadcast input array from shape {tuple(a.shape)} "
                             f"into shape {area}")
    order = _fnc(a)
    steps = Steps()
    # pad: np.asarray(pad_width) and _as_pairs's copy, np.round and intp cast of it, alive
    # before the output (measured on numpy 2.4 for int, tuple, nested and array widths)
    held = steps.alloc(asarray_bytes(pad_width))
    steps.hold(_index_pairs_bytes(pw))
    steps.free(held)
    if callable(mode):
        return _pad_callable(array, a, widths, shape, order, mode, kwargs)
    if mode not in _PAD_KWARGS:
        raise ValueError(f"mode '{mode}' is not supported")
    bad = set(kwargs) - set(_PAD_KWARGS[mode])
    if bad:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {bad}")
    out = fresh(shape, a.dtype, order)
    kept = steps.alloc(array_bytes(shape, a.dtype))
    if mode == "constant":
        vals = kwargs.get("constant_values", 0)
        if is_meta(vals) and is_fake(vals):
            raise UnsupportedOperationError(np.pad, "constant_values given as a fake array")
        pairs = _pairs(vals, len(shape))
        if vals is not None:  # _as_pairs's np.array(values)
            steps.hold(array_bytes(np.shape(vals), np.asarray(vals).dtype))
        for pair in pairs:
            for v in pair:
                np.empty(1, a.dtype)[...] = v
                steps.hold(setitem_bytes(a.dtype, v))
        steps.report(kept)
        return out
    if mode == "empty":
        steps.report(kept)
        return out
    if a.size == 0:
        for ax, pair in enumerate(widths):
            if a.shape[ax] == 0 and any(pair):
                raise ValueError(f"can't extend empty axis {ax} using modes other than "
                                 "'constant' or 'empty'")
        steps.report(kept)
        return out
    if a.dtype.kind not in _NUMERIC:
        raise UnsupportedOperationError(np.pad, f"mode {mode!r} on {a.dtype} arrays")
    if mode in _STAT_MODES:
        lengths = kwargs.get("stat_length")
        pairs = _pairs(lengths, len(shape), as_index=True)
        if lengths is not None:  # _as_pairs's np.array, np.round and intp cast (as pad_width's)
            steps.hold(_index_pairs_bytes(np.asarray(lengths)))
        _pad_stat_steps(steps, a, shape, order, widths, pairs, mode)
    elif mode == "linear_ramp":
        ends = kwargs.get("end_values", 0)
        pairs = _pairs(ends, len(shape))
        for pair in pairs:
            if not all(isinstance(v, (int, float, complex, np.number)) for v in pair):
                raise UnsupportedOperationError(np.pad, "non-numeric end_values")
        steps.hold(asarray_bytes(ends))  # _as_pairs's np.array(end_values)
        _pad_ramp_steps(steps, a, shape, order, widths, pairs)
    else:
        _pad_fill_steps(steps, a, shape, order, widths, mode,
                        kwargs.get("reflect_type", "even"))
    steps.report(kept)
    return out


shape_args(pad, 1, "pad_width")


def _index_pairs_bytes(x: np.ndarray) -> int:
    """_as_pairs(x, as_index=True): np.array(x), np.round of it and its intp cast, alive
    together (measured on numpy 2.4 for int, tuple, nested and array widths)."""
    return (2 * array_bytes(x.shape, x.dtype) + (x.size * INTP.itemsize if x.dtype != INTP else 0)
            + (8 if x.size == 1 else 0))


def _roi(padded: ArrayMeta, a: Any, widths: list, ax: int) -> ArrayMeta:
    """_view_roi: the axes after ``ax`` limited to the input's area."""
    roi = padded
    for k in range(ax + 1, len(padded.shape)):
        roi = _at(roi, k, slice(widths[k][0], widths[k][0] + a.shape[k]))
    return roi


def _padded(shape: tuple, order: str, dt: np.dtype) -> ArrayMeta:
    """pad's output; its regions are views of it, ``offset`` bytes from its start."""
    dt = np.dtype(dt)
    return ArrayMeta(shape, dt, (c_strides if order == "C" else f_strides)(shape, dt.itemsize))


def _at(r: ArrayMeta, axis: int, sl: slice) -> ArrayMeta:
    """``r[_slice_at_axis(sl, axis)]`` of a region of pad's output."""
    start, stop, step = sl.indices(r.shape[axis])
    shape, strides = list(r.shape), list(r.strides)
    shape[axis], strides[axis] = len(range(start, stop, step)), strides[axis] * step
    return r._replace(shape=tuple(shape), strides=tuple(strides),
                      offset=r.offset + start * r.strides[axis])


def _view(r: ArrayMeta) -> ArrayMeta:
    """A region as a kernel's input: its layout (the output is a temporary)."""
    return r._replace(offset=0)


def _stat_funcs() -> dict:
    from .reductions import amax, amin, mean
    from .function_base import median
    return {"maximum": amax, "minimum": amin, "mean": mean, "median": median}


_STAT_MODES = ("maximum", "minimum", "mean", "median")


def _pad_stat_steps(steps: Steps, a: Any, shape: tuple, order: str, widths: list, lengths: list,
                    mode: str) -> None:
    """pad's maximum, minimum, mean and median modes (_arraypad_impl.py _get_stats): per axis
    the statistic of the first and last ``stat_length`` values of the input's area (one, when
    both cover it all), computed with keepdims, rounded in place for integer arrays; each
    axis's pair lives until the next axis's pair replaces it."""
    fn = _stat_funcs()[mode]
    dt = a.dtype
    padded = _padded(shape, order, dt)
    prev = 0
    for ax, ((lw, rw), (ll, rl)) in enumerate(zip(widths, lengths)):
        roi = _roi(padded, a, widths, ax)
        left, right = lw, roi.shape[ax] - rw
        n = right - left
        ll = n if ll is None or n < ll else int(ll)
        rl = n if rl is None or n < rl else int(rl)
        if (ll == 0 or rl == 0) and mode in ("maximum", "minimum"):
            raise ValueError("stat_length of 0 yields no value for padding")
        made = call_step(steps, fn, _view(_at(roi, ax, slice(left, left + ll))), axis=ax,
                         keepdims=True)[1]
        if not ll == rl == n:
            made += call_step(steps, fn, _view(_at(roi, ax, slice(right - rl, right))),
                              axis=ax, keepdims=True)[1]
        steps.free(prev)
        prev = made


def _pad_ramp_steps(steps: Steps, a: Any, shape: tuple, order: str, widths: list,
                    ends: list) -> None:
    """pad's linear_ramp mode (_arraypad_impl.py _get_linear_ramps): per axis two
    ``linspace(end_value, edge.squeeze(axis), width, endpoint=False, dtype, axis)`` ramps,
    alive until the next axis's pair replaces them."""
    from .creation import linspace
    dt = a.dtype
    padded = _padded(shape, order, dt)
    prev = 0
    for ax, ((lw, rw), pair) in enumerate(zip(widths, ends)):
        roi = _roi(padded, a, widths, ax)
        n = roi.shape[ax] - rw
        made = 0
        for end, edge, width in zip(pair, (_at(roi, ax, slice(lw, lw + 1)),
                                           _at(roi, ax, slice(n - 1, n))), (lw, rw)):
            sq = ArrayMeta(edge.shape[:ax] + edge.shape[ax + 1:], np.dtype(dt),
                           edge.strides[:ax] + edge.strides[ax + 1:])
            made += call_step(steps, linspace, end, sq, num=width, endpoint=False, dtype=dt,
                              axis=ax)[1]
            # linspace computes in result_type(start, stop, float), then astype(dtype)
            cast_loop(np.result_type(end, sq.dtype, 1.0), np.dtype(dt))
        steps.free(prev)
        prev = made


def _pad_fill_steps(steps: Steps, a: Any, shape: tuple, order: str, widths: list, mode: str,
                    method: str) -> None:
    """The buffers of pad's edge, wrap, reflect and symmetric fills (_arraypad_impl.py): each
    chunk of the output assigned to another part of it is copied first where their extents
    overlap (PyArray_AssignArray), and reflect_type='odd' computes ``2 * edge - chunk``."""
    dt = a.dtype
    padded = _padded(shape, order, dt)

    def assign(dst: ArrayMeta, src: ArrayMeta) -> None:
        steps.hold(self_copy_bytes(dt, dst.shape, dst.strides, dst.offset,
                                   dt, src.shape, src.strides, src.offset))

    def set_area(roi: ArrayMeta, ax: int, lw: int, rw: int, left: Any, right: Any) -> None:
        """_set_pad_area with chunks of the output (edges)."""
        assign(_at(roi, ax, slice(None, lw)), left)
        assign(_at(roi, ax, slice(roi.shape[ax] - rw, None)), right)

    def edges(roi: ArrayMeta, ax: int, lw: int, rw: int) -> tuple:
        n = roi.shape[ax] - rw
        return _at(roi, ax, slice(lw, lw + 1)), _at(roi, ax, slice(n - 1, n))

    for ax, (lw, rw) in enumerate(widths):
        roi = _roi(padded, a, widths, ax)
        n = a.shape[ax]
        if mode == "edge" or (mode in ("reflect", "symmetric") and n == 1 and (lw or rw)):
            if mode != "edge":
                roi = padded
            set_area(roi, ax, lw, rw, *edges(roi, ax, lw, rw))
            continue
        while lw > 0 or rw > 0:
            lw, rw = (_wrap_steps if mode == "wrap" else _reflect_steps)(
                steps, assign, roi, ax, lw, rw, n, mode == "symmetric", method, dt)


def _wrap_steps(steps: Steps, assign: Any, roi: ArrayMeta, ax: int, lw: int, rw: int, n: int,
                include_edge: bool, method: str, dt: np.dtype) -> tuple:
    """_set_wrap_both: one round of wrapped chunks on both sides."""
    period = (roi.shape[ax] - rw - lw) // n * n
    new_l = new_r = 0
    if lw > 0:
        chunk = _at(roi, ax, slice(lw + period - min(period, lw), lw + period))
        if lw > period:
            area, new_l = _at(roi, ax, slice(lw - period, lw)), lw - period
        else:
            area = _at(roi, ax, slice(None, lw))
        assign(area, chunk)
    if rw > 0:
        start = -rw - period
        chunk = _at(roi, ax, slice(start, start + min(period, rw)))
        if rw > period:
            area, new_r = _at(roi, ax, slice(-rw, -rw + period)), rw - period
        else:
            area = _at(roi, ax, slice(-rw, None))
        assign(area, chunk)
    return new_l, new_r


def _reflect_steps(steps: Steps, assign: Any, roi: ArrayMeta, ax: int, lw: int, rw: int, n: int,
                   include_edge: bool, method: str, dt: np.dtype) -> tuple:
    """_set_reflect_both: one round of reflected chunks on both sides; an 'odd' chunk is a
    new array alive until the round ends."""
    old = roi.shape[ax] - rw - lw
    if include_edge:
        old, edge_off = old // n * n, 1
    else:
        old, edge_off = (old - 1) // (n - 1) * (n - 1), 0
    made = []

    def odd(edge: ArrayMeta, chunk: ArrayMeta) -> None:
        res = binary(steps, np.subtract, binary(steps, np.multiply, 2, Val(edge.shape, dt)),
                     Val(chunk.shape, dt))
        made.append(res.nbytes)

    if lw > 0:
        k = min(old, lw)
        stop = lw - edge_off
        chunk = _at(roi, ax, slice(stop + k, stop, -1))
        area = _at(roi, ax, slice(lw - k, lw))
        if method == "odd":
            odd(_at(roi, ax, slice(lw, lw + 1)), chunk)
        else:
            assign(area, chunk)
        lw -= k
    if rw > 0:
        k = min(old, rw)
        start = -rw + edge_off - 2
        chunk = _at(roi, ax, slice(start, start - k, -1))
        area = _at(roi, ax, slice(roi.shape[ax] - rw, roi.shape[ax] - rw + k))
        if method == "odd":
            odd(_at(roi, ax, slice(-rw - 1, -rw)), chunk)
        else:
            assign(area, chunk)
        rw -= k
    steps.free(*made)
    return lw, rw


def _pad_callable(array: Any, a: Any, widths: list, shape: tuple, order: str, fn: Any,
                  kwargs: dict) -> Any:
    """mode=callable: the function runs on every 1-d vector of a fresh padded fake."""
    if not is_fake(array):
        raise UnsupportedOperationError(np.pad, "a callable mode on a non-fake input")
    padded = np.empty_like(array, shape=shape, order=cast(Any, order))
    _cap_calls(sum(math.prod(shape) // n for n in shape if n), np.pad)
    for ax in range(len(shape)):
        view = np.moveaxis(padded, ax, -1)
        for ind in np.ndindex(view.shape[:-1]):
            fn(view[ind + (Ellipsis,)], np.array(widths[ax]), ax, kwargs)
    return padded


# --- insert / delete --------------------------------------------------------------------


@register(np.delete, tags=("copy",))
def delete(arr: Any, obj: Any, axis: Any = None) -> ArrayMeta:
    """Fresh C/F (by the input's fnc flag) for a slice or one index; advanced indexing otherwise."""
    a, ax, order = _flat_prelude(arr, axis)
    n = a.shape[ax]
    shape = list(a.shape)
    if isinstance(obj, slice):
        k = len(range(*obj.indices(n)))
        if k <= 0:
            return copy_like(a, None, order)
        shape[ax] -= k
        return fresh(tuple(shape), a.dtype, order)
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
        idx = operator.index(obj)
    else:
        if is_fake(obj) and obj.dtype == np.bool_ and obj.shape != (n,):
            raise ValueError("boolean array argument obj to delete must be one dimensional and "
                             f"match the axis length of {n}")
        vals = _values(obj, "np.delete")
        if vals.size == 0 and not isinstance(obj, np.ndarray):
            vals = vals.astype(INTP)
        elif vals.size == 1 and vals.dtype.kind in "ui":
            return delete(arr, vals.item(), axis)
        if vals.dtype == np.bool_:
            if vals.shape != (n,):
                raise ValueError("boolean array argument obj to delete must be one dimensional "
                                 f"and match the axis length of {n}")
            count = n - int(np.count_nonzero(vals))
        else:
            keep = np.ones(min(n, 1), bool)
            if vals.dtype.kind not in "iu" and vals.size:
                keep[vals,] = False  # NumPy's IndexError for a non-integer index array
            flat = vals.astype(np.int64).ravel() if vals.size else vals.ravel()
            if flat.size and (flat.min() < -n or flat.max() >= n):
                bad = int(flat.min()) if flat.min() < -n else int(flat.max())
                raise IndexError(f"index {bad} is out of bounds for axis {ax} with size {n}")
            count = n - len({int(i) % n for i in flat}) if n else 0
        key = [slice(None)] * a.ndim
        key[ax] = np.zeros(count, INTP)
        res = _index_result(a, tuple(key))
        made = _delete_bytes(arr, obj, axis, n, count, a.ndim)
        if vals.dtype != np.bool_:  # ``keep = ones(N, bool)``: copyto's 0-d arrays of the 1,
            # before the result exists
            made = max(made, made - (array_bytes((count,), INTP) if a.ndim > 1 else 0)
                       + copyto_bytes(np.bool_, 1) - array_bytes(res.shape, res.dtype))
        transient(made)
        return res
    if idx < -n or idx >= n:
        raise IndexError(f"index {idx} is out of bounds for axis {ax} with size {n}")
    shape[ax] -= 1
    return fresh(tuple(shape), a.dtype, order)


def _delete_bytes(arr: Any, obj: Any, axis: Any, n: int, count: int, nd: int) -> int:
    """np.delete with an index array (_function_base_impl.py), alive while ``arr[keep]``
    is made: the ravel copy of a non-C-contiguous input (axis None), ``np.asarray(obj)``,
    ``keep`` (``ones(N, bool)`` or ``~obj``) and, beside other axes, the intp indices
    the boolean index becomes (mapping.c prepare_index: nonzero)."""
    m = as_meta(arr)
    made = asarray_bytes(obj) + array_bytes((n,), np.bool_)
    if axis is None and m.ndim != 1 and not m.flags.c_contiguous:
        made += array_bytes(tuple(m.shape), m.dtype)
    if nd > 1:
        made += array_bytes((count,), INTP)
    return made


def _index_result(a: Any, key: tuple) -> ArrayMeta:
    """``a[key]`` for an advanced index: never a view of ``a``."""
    res = getitem(a if is_fake(a) else _stand_in(a), key)
    if res.view_of is not None:
        raise UnsupportedOperationError(np.delete, "an index result that views its input")
    return res


@register(np.insert, tags=("copy",))
def insert(arr: Any, obj: Any, values: Any, axis: Any = None) -> ArrayMeta:
    """A fresh C/F array (by the input's fnc flag) grown along the axis."""
    a, ax, order = _flat_prelude(arr, axis)
    n = a.shape[ax]
    shape = list(a.shape)
    if isinstance(obj, slice):
        r = range(*obj.indices(n))  # distinct, ordered positions: no collisions
        if len(r) != 1:
            shape[ax] = len(r)
            assign_to_view(tuple(shape), a.dtype, values)
            shape[ax] = n + len(r)
            res = fresh(tuple(shape), a.dtype, order)
            _insert_many_steps(arr, axis, np.arange(r.start, r.stop, r.step, dtype=INTP), values, n, res)
            return res
        idx = np.arange(r.start, r.start + 1, dtype=INTP)
    else:
        if is_fake(obj):
            if obj.dtype == np.bool_ and obj.ndim != 1:
                raise ValueError("boolean array argument obj to insert must be one dimensional")
            raise DataDependentError("np.insert: the result depends on the values of a fake index")
        idx = np.array(obj)
        if idx.dtype == np.bool_:
            if obj.ndim != 1:  # NumPy reads obj.ndim (AttributeError for a list)
                raise ValueError("boolean array argument obj to insert must be one dimensional")
            idx = np.flatnonzero(obj)
        elif idx.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or scalar")
    if _has_fake_list(values):
        raise UnsupportedOperationError(np.insert, "a list of values containing fakes")
    if idx.size == 1:
        index = idx.item()
        if index < -n or index > n:
            raise IndexError(f"index {obj} is out of bounds for axis {ax} with size {n}")
        if is_fake(values):
            vshape = (1,) * max(0, a.ndim - values.ndim) + tuple(values.shape)
        else:
            vshape = np.array(values, copy=None, ndmin=a.ndim, dtype=a.dtype).shape
        if idx.ndim == 0:
            vshape = vshape[1:ax + 1] + vshape[:1] + vshape[ax + 1:]
        numnew = vshape[ax]
        shape[ax] = numnew
        slot = tuple(shape)
        if index != int(index) and not isinstance(index, (int, np.integer)):
            raise TypeError("slice indices must be integers or None or have an __index__ method")
        assign_to_view(slot, a.dtype, _shaped(values, vshape))
        shape[ax] = n + numnew
        # _function_base_impl.py insert, one index: arr.ravel() (axis None, ndim != 1, a copy
        # unless C-contiguous), indices = np.array(obj) (arange for a slice) and values =
        # array(values, ndmin, dtype=arr.dtype) live while the result is filled
        m = as_meta(arr)
        flat = 0 if axis is not None or m.ndim == 1 or m.flags.c_contiguous else \
            array_bytes(m.shape, m.dtype)
        vals = (0 if values.dtype == a.dtype else array_bytes(values.shape, a.dtype)) \
            if is_meta(values) else array_bytes(vshape, a.dtype)
        transient(flat + (0 if isinstance(obj, np.ndarray) else max(idx.nbytes, 1)) + vals)
        return fresh(tuple(shape), a.dtype, order)
    if idx.size == 0 and not isinstance(obj, np.ndarray):
        idx = idx.astype(INTP)
    numnew = len(idx)
    total = n + numnew
    if idx.dtype.kind not in "iu":
        np.ones(1, bool)[idx] = False  # NumPy's IndexError for non-integer indices
    pos = idx.astype(np.int64)
    pos[pos < 0] += n
    pos[np.argsort(pos, kind="mergesort")] += np.arange(numnew)
    if numnew and (pos.min() < -total or pos.max() >= total):
        bad = int(pos.max()) if pos.max() >= total else int(pos.min())
        raise IndexError(f"index {bad} is out of bounds for axis 0 with size {total}")
    if total - len({int(p) % total for p in pos}) != n and n != 1:  # colliding positions
        raise ValueError("NumPy boolean array indexing assignment cannot assign input "
                         "values to the output values where the mask is true")
    shape[ax] = numnew
    assign_to_view(tuple(shape), a.dtype, values)
    shape[ax] = total
    res = fresh(tuple(shape), a.dtype, order)
    if np.asarray(obj).dtype != np.bool_:
        _insert_many_steps(arr, axis, np.array(obj), values, n, res)
    return res


def _insert_many_steps(arr: Any, axis: Any, indices: np.ndarray, values: Any, n: int,
                       res: ArrayMeta) -> None:
    """_function_base_impl.py insert with several indices: ``arr.ravel()`` (axis None),
    ``indices``: ``np.array(obj)`` (intp when empty) or the slice's ``arange``, then
    ``indices[indices < 0] += N`` (a mask, the
    negative entries and their sums), ``argsort`` and ``indices[order] += arange(numnew)``,
    the ``old_mask`` of kept positions (``ones``, with its own 0-d arrays), the result, the values' 0-d array, and the intp
    positions NumPy makes of ``old_mask`` to assign ``arr`` (its nonzero)."""
    from .umath import ufunc_steps
    m = as_meta(arr)
    st = Steps()
    flat = st.new(0 if axis is not None or m.ndim == 1 or m.flags.c_contiguous else
                  array_bytes(m.shape, m.dtype))
    ind = st.new(max(indices.nbytes, 1))
    idx = indices
    if idx.size == 0:  # indices.astype(intp) of an empty list
        idx = idx.astype(INTP)
        st.new(array_bytes(idx.shape, idx.dtype))
        st.free(ind)
        ind = array_bytes(idx.shape, idx.dtype)
    numnew = len(idx)
    im = ArrayMeta(idx.shape, idx.dtype, idx.strides)
    neg = ufunc_steps(st, np.less, im, 0)[1]
    k = int(np.count_nonzero(idx < 0))
    sel = st.new(array_bytes((k,), idx.dtype))
    ufunc_steps(st, np.add, ArrayMeta((k,), idx.dtype, (idx.dtype.itemsize,)), n,
                out=ArrayMeta((k,), idx.dtype, (idx.dtype.itemsize,)))
    st.free(sel, neg)
    order = st.new(array_bytes((numnew,), INTP))
    ar = st.new(array_bytes((numnew,), INTP))  # np.arange(numnew)
    st.temp(array_bytes((numnew,), idx.dtype))  # indices[order], added to in place
    st.free(ar)
    mask = st.new(array_bytes((n + numnew,), np.bool_))
    st.temp(copyto_bytes(np.bool_, 1))  # ones(): copyto(a, 1)
    st.temp(1)  # old_mask[indices] = False
    st.new(array_bytes(res.shape, res.dtype))
    st.temp(setitem_bytes(res.dtype, values))
    if len(res.shape) > 1:  # new[..., old_mask] = arr: NumPy indexes with old_mask's nonzero
        st.temp(array_bytes((n,), INTP))
    st.free(mask, order, ind, flat)
    st.done()


def _has_fake_list(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and any(is_fake(x) or _has_fake_list(x) for x in v)


def _shaped(values: Any, vshape: tuple) -> Any:
    """The values insert assigns, reshaped as NumPy has them (ndmin, moveaxis)."""
    if is_fake(values):
        return ArrayMeta(vshape, values.dtype, c_strides(vshape, values.dtype.itemsize))
    return np.asarray(values).reshape(vshape) if np.size(values) == math.prod(vshape) else values


# --- resize / unstack -------------------------------------------------------------------


@register(np.resize, tags=("copy",))
def resize(a: Any, new_shape: Any) -> ArrayMeta:
    """np.resize (fromnumeric.py): zeros_like for an empty input or size; else
    ``concatenate((a,) * repeats)[:size]`` (a tuple of Python size) reshaped to new_shape."""
    if isinstance(new_shape, (int, np.integer)):
        new_shape = (new_shape,)
    m = as_meta(a)
    size = 1
    for n in new_shape:
        size *= n
        if n < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
    dt = m.dtype
    # fromnumeric.py resize: a = ravel(a) (a copy unless C-contiguous) lives to the return;
    # an empty case is zeros_like(a, shape=new_shape) (with its zeros(1))
    flat = 0 if m.flags.c_contiguous else array_bytes(m.shape, dt)
    if m.size == 0 or size == 0:
        transient(flat + array_bytes((1,), dt))
        return fresh(as_shape(new_shape), dt)
    transient(flat)
    reps = (size + m.size - 1) // m.size
    if reps > sys.maxsize:  # (a,) * repeats
        raise OverflowError("cannot fit 'int' into an index-sized integer")
    if reps <= 0:  # a size wrapped in NumPy integers
        raise ValueError("need at least one array to concatenate")
    shape = as_shape(new_shape)
    dt = dt.newbyteorder("=") if dt.byteorder not in "=|" else dt  # concatenate's result
    st = attempt_nocopy_reshape((size,), (dt.itemsize,), dt.itemsize, shape, False)
    assert st is not None  # one C buffer: the reshape is a view
    return ArrayMeta(shape, dt, st, base_shape=(reps * m.size,))


shape_args(resize, 1, "new_shape")


@register("ndarray.resize", tags=("inplace",))
def ndarray_resize(self: Any, *new_shape: Any, refcheck: Any = True) -> ArrayMeta | None:
    """array_resize (numpy/_core/src/multiarray/methods.c) and PyArray_Resize (shape.c), the
    checks in their order: no shape (or None) is a no-op; the array must be one segment;
    negative dimensions, then byte-size overflow; when the byte size changes, the array must
    own its data and have no base. Exact where the answer is known from metadata: the errors,
    and a resize to the array's own shape (nothing changes). Other resizes change the fake's
    geometry and storage in place (``FakeArray.resize`` adopts the record returned here: a
    view of self for a new shape of the same byte size, a fresh array when the data is
    reallocated), strides by ``_array_fill_strides`` (F order for an F- and not C-contiguous
    array). Reallocating with ``refcheck`` depends on the array's reference count, which
    faketensor's own references change: UnsupportedOperationError; with ``refcheck=False``
    it is exact for a program holding no weak reference to the array (NumPy refuses one;
    faketensor's trace holds its own, so the fake cannot tell)."""
    operator.index(refcheck) if not isinstance(refcheck, bool) else None  # "|i"
    if not new_shape or (len(new_shape) == 1 and new_shape[0] is None):
        return None
    shape_arg = new_shape[0] if len(new_shape) == 1 else new_shape
    try:
        shape = as_shape(shape_arg)
    except TypeError as e:
        raise TypeError(str(e) or "invalid shape") from None
    if not (self.flags.c_contiguous or self.flags.f_contiguous):
        raise ValueError("resize only works on single-segment arrays")
    size = 1
    for n in shape:
        if n == 0:
            size = 0
            break
        if n < 0:
            raise ValueError("negative dimensions not allowed")
        size *= n
        if size > sys.maxsize:
            raise MemoryError()
    itemsize = self.dtype.itemsize
    if size * itemsize > sys.maxsize:
        raise MemoryError()
    if size * itemsize != self.size * itemsize:
        if not self.flags.owndata:
            raise ValueError("cannot resize this array: it does not own its data")
        if getattr(self, "base", None) is not None:
            raise ValueError("cannot resize an array that references or is referenced\n"
                             "by another array in this way. Use the np.resize function.")
        if refcheck:
            raise UnsupportedOperationError("ndarray.resize", "reallocating with refcheck depends "
                                            "on the array's reference count")
        return ArrayMeta(shape, self.dtype, _fill_strides(self, shape))
    if shape == tuple(self.shape):
        return None
    return ArrayMeta(shape, self.dtype, _fill_strides(self, shape), view_of=self)


def _fill_strides(m: Any, shape: tuple) -> tuple:
    """_array_fill_strides (ctors.c) with the array's flags: F strides when it is F- and not
    C-contiguous, else C strides."""
    step = m.dtype.itemsize
    fortran = m.flags.f_contiguous and not m.flags.c_contiguous
    out = [0] * len(shape)
    for i in (range(len(shape)) if fortran else range(len(shape) - 1, -1, -1)):
        out[i] = step
        if shape[i]:  # a zero length does not multiply the stride
            step *= shape[i]
    return tuple(out)


@register(np.unstack, tags=("view",))
def unstack(x: Any, /, *, axis: int = 0) -> tuple:
    """Views of x, one per index along axis (iterating over moveaxis(x, axis, 0))."""
    m = as_meta(x)
    if m.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    ax = normalize_axis(axis, m.ndim, "destination" if False else "source")
    shape = tuple(n for i, n in enumerate(m.shape) if i != ax)
    st = tuple(s for i, s in enumerate(m.strides) if i != ax)
    if not is_fake(m):
        raise UnsupportedOperationError(np.unstack, "a non-array input")
    if m.ndim == 1 and m.dtype.hasobject:
        raise DataDependentError("np.unstack of a 1-d object array gives its elements")
    if m.ndim == 1:  # iterating a 1-d array gives NumPy scalars (native byte order)
        dt = m.dtype.newbyteorder("=") if m.dtype.byteorder not in "=|" else m.dtype
        return tuple(ArrayMeta((), dt, (), scalar=True) for _ in range(m.shape[0]))
    return tuple(ArrayMeta(shape, m.dtype, st, view_of=m, offset=i * m.strides[ax])
                 for i in range(m.shape[ax]))


# --- choose / lexsort / sort_complex ------------------------------------------------------

_MODES = {"raise": 0, "wrap": 1, "clip": 2}


@register(np.choose, "ndarray.choose", tags=("copy",))
def choose(a: Any, choices: Any, out: Any = None, mode: Any = "raise") -> Any:
    """PyArray_Choose: a fresh C array of the broadcast shape, or out."""
    converters.clipmode(mode)
    idx = as_meta(a)
    if is_meta(choices):
        cm = as_meta(choices)
        if cm.ndim == 0:
            raise ValueError("0-d arrays can't be chosen from")  # pragma: no cover - checked below
        items = [ArrayMeta(cm.shape[1:], cm.dtype, cm.strides[1:])] * cm.shape[0]
        dts: list = [cm.dtype] * cm.shape[0]
    else:
        items = [c if type(c) in (int, float, complex, bool) else as_meta(c) for c in choices]
        dts = [c if type(c) in (int, float, complex, bool) else c.dtype for c in items]
    if not items:
        raise ValueError("0-length sequence.")
    if len(items) + 1 > 64:  # PyArray_Choose's multi-iterator takes NPY_MAXARGS operands
        raise ValueError("Need at least 0 and at most 64 array objects.")
    if not np.can_cast(idx.dtype, INTP, "safe"):
        raise TypeError(f"Cannot cast array data from {idx.dtype!r} to dtype('int64') "
                        "according to the rule 'safe'")
    dt = np.result_type(*dts)
    shapes = [idx.shape] + [getattr(c, "shape", ()) for c in items]
    try:
        shape = broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.") from None
    if len(shape) > 32:  # the legacy multi-iterator's NPY_MAXDIMS_LEGACY_ITERS
        raise RuntimeError("this function only supports up to 32 dimensions but the array "
                           f"has {len(shape)}.")
    if out is not None:
        if tuple(out.shape) != shape:
            raise ValueError("choose: invalid shape for output array.")
        if not out.flags.writeable:
            raise ValueError("output array is read-only")
    # np.choose of a sequence: fromnumeric._wrapit's asarray(a), alive through the method
    transient(_choose_bytes(idx, items, dt, out, mode) + asarray_bytes(a))
    if out is not None:
        return out  # PyArray_Choose converts into out with NPY_ARRAY_FORCECAST: any dtype
    return fresh(shape, dt)


def _choose_bytes(idx: Any, items: list, dt: np.dtype, out: Any, mode: Any) -> int:
    """PyArray_Choose (item_selection.c), all alive to the end: PyArray_ConvertToCommonType's
    array of n pointers (PyDataMem_NEW) and each choice as a C array of the common dtype
    (a scalar's 0-d array), the index array as a C intp array, and ``out`` through a
    writeback copy unless it is a C array of that dtype (always with mode='raise', or when
    it may overlap a choice)."""
    n = 8 * len(items)
    for c in items:
        n += dt.itemsize if type(c) in (int, float, complex, bool) else carray_bytes(c, dt)
    n += carray_bytes(idx, INTP)
    if out is not None:
        st = getattr(out, "storage", None)
        shared = st is not None and any(getattr(c, "storage", None) is st for c in items)
        if shared or converters.clipmode(mode) == "raise":
            if shared:
                uncached()  # whether out shares a choice's buffer is not in the cache key
            n += array_bytes(tuple(out.shape), dt)
        else:
            n += carray_bytes(out, dt)
    return n


@register(np.lexsort, tags=("copy",))
def lexsort(keys: Any, axis: int = -1) -> ArrayMeta:
    """PyArray_LexSort: a fresh C intp array of the keys' (common) shape."""
    if is_meta(keys):
        km = as_meta(keys)
        if km.ndim == 0:
            raise UnsupportedOperationError(np.lexsort, "0-d keys array")
        if km.shape[0] == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        shapes = [km.shape[1:]] * km.shape[0]
        ks = [ArrayMeta(km.shape[1:], km.dtype, km.strides[1:])] * km.shape[0]
    else:
        ks = [as_meta(k) for k in keys]
        if not ks:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        shapes = [k.shape for k in ks]
    if any(s != shapes[0] for s in shapes):
        raise ValueError("all keys need to be the same shape")
    shape = shapes[0]
    if not shape:
        if axis not in (0, -1):
            raise np.exceptions.AxisError(axis, 0)
        # keys of a 1-d array are its elements: each a NumPy scalar made a 0-d array
        transient(km.size * km.dtype.itemsize if is_meta(keys) else
                  sum(asarray_bytes(k) for k in keys))
        return pyarray_return(fresh((), INTP))  # PyArray_Return: a scalar
    ax = normalize_axis(axis, len(shape))
    transient(_lexsort_buffers(ks, shape, ax) + sum(asarray_bytes(k) for k in (
        () if is_meta(keys) else keys)))
    return fresh(shape, INTP)


def _lexsort_buffers(ks: list, shape: tuple, ax: int) -> int:
    """PyArray_LexSort (item_selection.c): when the result's axis is not its last, or a key
    is byte-swapped, unaligned or strided along the axis, each lane is copied into a value
    buffer of N * the largest itemsize and an index buffer of N intp (PyDataMem_UserNEW)."""
    n = shape[ax]
    if n <= 1 or 0 in shape:
        return 0
    need = ax != len(shape) - 1 or any(
        not k.dtype.isnative or not k.flags.aligned or k.strides[ax] != k.dtype.itemsize
        for k in ks)
    return n * (max(k.dtype.itemsize for k in ks) + INTP.itemsize) if need else 0


@register(np.sort_complex, tags=("copy",))
def sort_complex(a: Any) -> ArrayMeta:
    """A K-order sorted copy, cast to complex (F for b/h/B/H, G for g, D otherwise)."""
    m = as_meta(a)
    if m.dtype.kind not in _NUMERIC:
        raise UnsupportedOperationError(np.sort_complex, f"{m.dtype} input")
    if m.ndim == 0:
        raise np.exceptions.AxisError(-1, 0)
    b = copy_like(m, None, "K")
    if m.dtype.kind == "c":
        return b
    dt = np.dtype("F" if m.dtype.char in "bhBH" else "G" if m.dtype.char == "g" else "D")
    transient(array_bytes(b.shape, b.dtype))  # the sorted copy, freed once cast
    return copy_like(ArrayMeta(b.shape, b.dtype, b.strides), dt, "K")


# --- in-place writes ---------------------------------------------------------------------


def _writeable(a: Any, name: str) -> None:
    if not a.flags.writeable:
        raise ValueError("assignment destination is read-only")


@register(np.put_along_axis, tags=("inplace",))
def put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> None:
    """Checks of ``arr[fancy index] = values`` (into a flat copy when axis is None)."""
    if not is_meta(indices):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'ndim'")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        ashape, ax, target = (arr.size,), 0, arr
        if not arr.flags.c_contiguous:  # np.array(arr.flat) is then a read-only copy
            raise ValueError("assignment destination is read-only")
    else:
        ax = normalize_axis(axis, arr.ndim)
        ashape, target = tuple(arr.shape), arr
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if len(ashape) != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    _writeable(target, "put_along_axis")
    rest = tuple(1 if i == ax else n for i, n in enumerate(ashape))
    try:
        shape = broadcast_shapes(rest, tuple(indices.shape))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together") from None
    n = ashape[ax]
    if math.prod(shape):
        if is_fake(indices):
            if n == 0:
                raise IndexError(f"index 0 is out of bounds for axis {ax} with size 0")
        elif indices.size and (indices.min() < -n or indices.max() >= n):
            bad = int(indices.max()) if indices.max() >= n else int(indices.min())
            raise IndexError(f"index {bad} is out of bounds for axis {ax} with size {n}")
    assign_to_view(shape, arr.dtype, values)
    if axis is not None:  # the aranges of the fancy index, and the value packed (mapping.c)
        transient(along_axis_bytes(ashape, ax) + setitem_bytes(arr.dtype, values))
    return None


@register(np.putmask, tags=("inplace",))
def putmask(a: Any, /, mask: Any, values: Any) -> None:
    """PyArray_PutMask: mask must have a's size; values are repeated; nothing returned."""
    if not is_meta(a):
        raise TypeError("argument a of putmask must be a numpy array")
    m = as_meta(mask)
    if m.size != a.size:
        raise ValueError("putmask: mask and data must be the same size")
    _writeable(a, "putmask")
    # PyArray_FromAny(values, a.dtype) (numpy/_core/src/multiarray/item_selection.c): an
    # array, real or fake, is cast 'safe'ly; anything else is coerced to a.dtype directly
    if is_meta(values):
        if not np.can_cast(values.dtype, a.dtype, "safe"):
            raise TypeError(f"Cannot cast array data from {values.dtype!r} to {a.dtype!r} "
                            "according to the rule 'safe'")
    else:
        np.asarray(values, dtype=a.dtype)
    # PyArray_PutMask: a writeback copy of a that is not a C array, the mask as a C bool
    # array, the values as a C array of a's dtype, all alive to the end
    transient(carray_bytes(a, a.dtype) + carray_bytes(mask, np.bool_)
              + carray_bytes(values, a.dtype))
    return None


@register(np.place, tags=("inplace",))
def place(arr: Any, mask: Any, vals: Any) -> None:
    """_place: sizes must match; empty vals with any true mask entry fails (values)."""
    if not is_meta(arr):
        raise TypeError("argument 1 must be numpy.ndarray, not " + type(arr).__name__)
    m = as_meta(mask)
    if m.size != arr.size:
        raise ValueError("place: mask and data must be the same size")
    _writeable(arr, "place")
    v = as_meta(vals)
    if v.size == 0 and arr.size:
        if is_fake(m):
            raise DataDependentError("np.place with empty vals fails if any mask entry is true")
        if np.any(m):
            raise ValueError("Cannot insert from an empty array!")
    # compiled_base.c arr_place: as PyArray_PutMask, a writeback C copy of arr, the mask as
    # a C bool array and the values as a C array of arr's dtype
    transient(carray_bytes(arr, arr.dtype) + carray_bytes(mask, np.bool_)
              + carray_bytes(vals, arr.dtype))
    return None


# np.extract runs NumPy's own Python on fakes (modes/python_entry.py): take(ravel(arr),
# nonzero(ravel(condition))[0]), its length a bounded size (faketensor/_sizes.py)


@register(np.fill_diagonal, tags=("inplace",))
def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
    """Writes a.flat[...] in place: checks only."""
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and any(n != a.shape[0] for n in a.shape):
        raise ValueError("All dimensions of input must be of equal length")
    _writeable(a, "fill_diagonal")
    flat_value(val, a.dtype)  # ``a.flat[:end:step] = val``
    return None


# --- select / piecewise --------------------------------------------------------------------


@register(np.select, tags=("copy",))
def select(condlist: Any, choicelist: Any, default: Any = 0) -> ArrayMeta:
    """np.full of the result shape and common dtype (C), filled by copyto."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    weak = (int, float, complex)
    ch = [c if type(c) in weak else as_meta(c) for c in choicelist]
    d = default if type(default) in weak else as_meta(default)
    ch.append(d)
    try:
        dt = np.result_type(*[c if type(c) in weak else c.dtype for c in ch])
    except TypeError as e:
        raise TypeError(f"Choicelist and default value do not have a common dtype: {e}") from None
    conds = [as_meta(c) for c in condlist]
    cshape = broadcast_shapes(*[c.shape for c in conds])
    chshape = broadcast_shapes(*[np.shape(c) if type(c) in weak else c.shape for c in ch])
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    shape = cshape if len(chshape) == 0 else broadcast_shapes(cshape, chshape)
    broadcast_shapes(shape, cshape)
    broadcast_shapes(shape, chshape)
    if len(shape) < max(len(cshape), len(chshape)) or broadcast_shapes(shape, chshape) != shape \
            or broadcast_shapes(shape, cshape) != shape:
        raise ValueError(f"could not broadcast to the result shape {shape}")
    # _function_base_impl.py select: ``np.asarray`` of each choice and of the default, and
    # broadcast_arrays' arrays of the conditions, alive until the result is filled
    transient(sum(asarray_bytes(c) for c in (*choicelist, default, *condlist)))
    return fresh(shape, dt)


@register(np.piecewise, tags=("copy",))
def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> Any:
    """zeros_like(x) (K order) filled per condition; a callable piece reads x[cond] (values)."""
    m = as_meta(x)
    n2 = len(funclist)
    if np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray))
                                 and not is_fake(condlist[0]) and m.ndim != 0):
        condlist = [condlist]
    conds = [as_meta(c) for c in condlist] if not is_meta(condlist) else [
        ArrayMeta(condlist.shape[1:], condlist.dtype, condlist.strides[1:])] * len(condlist)
    n = len(conds)
    if n == n2 - 1:
        n += 1
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    if any(c.shape != m.shape for c in conds):
        raise UnsupportedOperationError(np.piecewise, "conditions of another shape than x")
    if m.size and any(callable(f) for f in funclist):
        raise DataDependentError("np.piecewise calls its functions on x[cond], whose size depends on values")
    for f in funclist:
        if not callable(f):
            if is_fake(f):
                raise UnsupportedOperationError(np.piecewise, "fake values")
            np.empty(1, m.dtype)[...] = f
    res = copy_like(m, None, "K")
    _piecewise_steps(m, condlist, len(conds), n, funclist)
    return res


def _piecewise_steps(m: Any, condlist: Any, given: int, n: int, funclist: Any) -> None:
    """_function_base_impl.py piecewise (constant pieces): ``asarray(condlist, bool)`` (a
    new array unless a bool array is given), for one condition short ``condelse =
    ~np.any(condlist, axis=0, keepdims=True)`` and the concatenation (condelse stays
    referenced), ``y = zeros_like(x)``, then ``y[cond] = value`` per piece (the value's
    0-d array, array_assign_subscript's boolean path)."""
    st = Steps()
    one = array_bytes(tuple(m.shape), np.bool_)
    given_bool = (is_meta(condlist) or isinstance(condlist, np.ndarray)) and condlist.dtype == np.bool_
    conds = st.new(0 if given_bool else array_bytes((given,) + tuple(m.shape), np.bool_))
    other = 0
    if n == given + 1:
        anyb = st.new(one)
        other = st.new(one)
        st.free(anyb)
        cat = st.new(array_bytes((n,) + tuple(m.shape), np.bool_))
        st.free(conds)
        conds = cat
    st.new(array_bytes(tuple(m.shape), m.dtype))  # y, the result
    for f in funclist:  # a 0-d x: ``y[cond]`` with a 0-d boolean, made a 1-byte index array
        st.temp(setitem_bytes(m.dtype, f) + (0 if m.shape else 1))
    st.free(conds, other)
    st.done()


# --- bits -----------------------------------------------------------------------------------


def _bitorder(bitorder: Any) -> None:
    if bitorder is None or not isinstance(bitorder, str):
        raise TypeError("'bitorder' must be either 'little' or 'big'")
    if bitorder.lower()[:1] not in ("l", "b"):
        raise ValueError("'order' must be either 'little' or 'big'")


@register(np.packbits, tags=("copy",))
def packbits(a: Any, /, axis: Any = None, bitorder: str = "big") -> ArrayMeta:
    """uint8, ceil(n / 8) along axis; F when the input is F and not C contiguous."""
    m = as_meta(a)
    _bitorder(bitorder)
    if m.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    dt = np.dtype(np.uint8)
    if axis is None:
        return fresh((-(-m.size // 8),), dt)
    if m.ndim == 0:  # PyArray_CheckAxis makes a 0-d input 1-d
        m = ArrayMeta((1,), m.dtype, (m.dtype.itemsize,))
    ax = normalize_axis(axis, m.ndim)
    shape = list(m.shape)
    shape[ax] = -(-shape[ax] // 8)
    return fresh(tuple(shape), dt, _fnc(m))


@register(np.unpackbits, tags=("copy",))
def unpackbits(a: Any, /, axis: Any = None, count: Any = None, bitorder: str = "big") -> ArrayMeta:
    """uint8, 8n (cut or padded by count) along axis; F when the input is F and not C."""
    m = as_meta(a)
    if m.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    _bitorder(bitorder)
    if axis is None or m.ndim == 0:
        if axis is not None:
            normalize_axis(axis, 1)
        shape, ax, order = [m.size], 0, "C"
    else:
        ax = normalize_axis(axis, m.ndim)
        shape, order = list(m.shape), _fnc(m)
    n = shape[ax] * 8
    if count is not None:
        count = operator.index(count)
        if count < 0:
            count += n
            if count < 0:
                raise ValueError("-count larger than number of elements")
        n = count
    shape[ax] = n
    return fresh(tuple(shape), np.dtype(np.uint8), order)


# --- astype / require / trim_zeros -----------------------------------------------------------


@register(np.astype, tags=("copy",))
def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
    """x.astype(dtype, copy=copy) after the array-API checks."""
    if isinstance(x, np.generic):  # numeric.py astype: scalar.astype, a scalar result
        raise UnsupportedOperationError(np.astype, "a NumPy scalar input")
    if not is_meta(x):
        if np.isscalar(x):  # numeric.py astype lets scalars through to x.astype
            raise AttributeError(f"{type(x).__name__!r} object has no attribute 'astype'")
        raise TypeError(f"Input should be a NumPy array. It is a {type(x)} instead.")
    if device is not None and device != "cpu":
        raise ValueError(f'Device not understood. Only "cpu" is allowed, but received: {device}')
    _parsed_cast(x, dtype)
    return ndarray_astype(x, dtype, copy=copy)


def _parsed_cast(m: Any, dtype: Any) -> None:
    """Casting strings or objects to numbers parses values: whether it fails depends on them."""
    if dtype is None:
        return
    dt = np.dtype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.empty(0, m.dtype).astype(dt)  # NumPy's TypeError for casts that never work
    if not m.size:
        return
    if m.dtype.kind in "USO" and dt.kind not in "USO" and dt != m.dtype:
        raise DataDependentError(f"casting {m.dtype} to {dt} succeeds or not by the values")


_FLAGS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
          "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O",
          "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


@register(np.require, tags=("copy",))
def require(a: Any, dtype: Any = None, requirements: Any = None, *, like: Any = None) -> Any:
    """np.array(a, dtype, order, copy=None), copied again when a flag is still missing."""
    from .creation import array_impl
    if is_meta(a):
        _parsed_cast(a, dtype)
    if not requirements:
        return array_impl(a, dtype, None, "K")
    reqs = {_FLAGS[r.upper()] for r in requirements}
    reqs.discard("E")
    order = "A"
    if reqs >= {"C", "F"}:
        raise ValueError('Cannot specify both "C" and "F" order')
    if "C" in reqs or "F" in reqs:
        order = "C" if "C" in reqs else "F"
        reqs.discard(order)
    # np.array(order="A") casts with NewLikeArray in K order unless the input is F-contiguous
    res = array_impl(a, dtype, None, "K" if order == "A" else order)
    for flag in reqs:
        if isinstance(res, ArrayMeta):
            fresh_ = res.view_of is None and res.base_shape is None
            have = {"A": True, "W": res.writeable is not False and (fresh_ or res.view_of.flags.writeable),
                    "O": fresh_}[flag]
        else:
            have = {"A": res.flags.aligned, "W": res.flags.writeable, "O": res.flags.owndata}[flag]
        if not have:
            src = res if not isinstance(res, ArrayMeta) else ArrayMeta(res.shape, res.dtype, res.strides)
            return copy_like(src, None, order)
    return res


@register(np.trim_zeros, tags=("data-dependent",))
def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """Slices found by the first and last nonzero entries: values decide."""
    m = as_meta(filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    if TRIM_ZEROS_AXES:
        axes = tuple(range(m.ndim)) if axis is None else normalize_axes(axis, m.ndim, "axis")
        if not axes:
            return filt
    elif axis is None or m.ndim == 1:  # before 2.4: a 1-d input ignores axis
        axes = tuple(range(m.ndim))
    else:  # before 2.4: one axis (normalize_axis_index, which takes no tuple)
        axes = (normalize_axis_index(axis, m.ndim),)
    if m.size == 0 and is_fake(m):  # no nonzero entry: every trimmed axis becomes [0:0]
        key = tuple(slice(0, 0) if ax in axes else slice(None) for ax in range(m.ndim))
        _trim_zeros_empty_steps(m)
        return getitem(m, key[0] if len(key) == 1 else key)
    raise DataDependentError("np.trim_zeros: the result's shape depends on where the zeros are")


def _trim_zeros_empty_steps(m: Any) -> None:
    """_function_base_impl.py trim_zeros of an empty array: _arg_trim_zeros's ``argwhere``
    (nonzero's buffer, then the stacked positions; 1 byte each), ``start = stop =
    np.array([], intp)``, ``stop += 1`` (the Python int's 0-d array, re-made as intp), then
    ``start = stop = np.zeros(ndim, intp)``; the result is a view of the input."""
    st = Steps()
    nz = st.new(1)
    pos = st.new(1)
    st.free(nz)
    empty = st.new(1)
    st.free(pos)
    e = ArrayMeta((0,), np.dtype(np.intp), (8,))
    from .umath import ufunc_steps
    ufunc_steps(st, np.add, e, 1, out=e)
    zeros = st.new(array_bytes((m.ndim,), np.dtype(np.intp)))
    st.free(empty, zeros)
    st.done()


# --- functions that call the user's function ----------------------------------------------


@register(np.apply_over_axes, tags=("copy",))
def apply_over_axes(func: Any, a: Any, axes: Any) -> Any:
    """func(val, axis) per axis, with expand_dims when the function drops the axis."""
    val = a
    nd = a.ndim
    st = Steps()
    st.temp(asarray_bytes(axes))  # ``array(axes).ndim``
    if np.ndim(axes) == 0:
        axes = (axes,)
    held = 0
    for axis in axes:
        if axis < 0:
            axis = nd + axis
        res = func(val, axis)
        made = _call_result_bytes(res, a)
        if _is_fake_scalar(res):
            st.temp(made)
            made = 0
        else:
            st.new(made)
        if res.ndim != val.ndim:
            res = np.expand_dims(res, axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        st.free(held)  # the previous result, rebound
        held, val = made, res
    st.done()
    return _as_result(val, a)


def _is_fake_scalar(r: Any) -> bool:
    """A fake NumPy scalar (the 0-d result of a reduction the user's function called)."""
    return getattr(getattr(r, "storage", None), "_tracker", None) is SCALAR


def _call_result_bytes(r: Any, *inputs: Any) -> int:
    """Data bytes of what one call of the user's function returned: a NumPy scalar's 0-d
    array (made and freed inside the call), or the buffer of a fake array the call made (not
    one of ``inputs``' storages, nor one held before). Only results are seen: temporaries
    the function made and freed on its way are not (calls inside a kernel run without the
    mode's accounting)."""
    if _is_fake_scalar(r):
        return r.dtype.itemsize
    st = getattr(r, "storage", None)  # made by a call run without a mode: "pre-existing"
    if st is None or st._tracker not in (None, PREEXISTING) or any(
            getattr(x, "storage", None) is st for x in inputs):
        return 0
    return max(st.nbytes, 1)


def _as_result(val: Any, a: Any) -> Any:
    """The kernel's answer for a fake the user's function returned: the input itself, a NumPy
    scalar, or a fresh array (a view, such as expand_dims's, of a fresh buffer: base_shape)."""
    if _is_fake_scalar(val):
        return ArrayMeta((), val.dtype, (), scalar=True)
    if val is a or not is_fake(val) or _call_result_bytes(val, a) == 0:
        return val
    if val.storage_offset:  # a view into a fresh buffer, not at its start: given as it is
        unmodelled("the user's function returned a view into an array it made: that "
                   "buffer is not charged")
        return val
    if val.base is None:
        return ArrayMeta(val.shape, val.dtype, val.strides)
    return ArrayMeta(val.shape, val.dtype, val.strides,
                     base_shape=(val.storage.nbytes // val.dtype.itemsize,))


@register(np.apply_along_axis, tags=("copy",))
def apply_along_axis(func1d: Any, axis: Any, arr: Any, *args: Any, **kwargs: Any) -> ArrayMeta:
    """func1d on every 1-d slice (fake views); the result is a transposed view of a fresh
    C buffer of shape (other dims + result dims)."""
    if not is_fake(arr):
        raise UnsupportedOperationError(np.apply_along_axis, "a non-fake input")
    nd = arr.ndim
    ax = normalize_axis(axis, nd)
    dims = list(range(nd))
    view = np.transpose(arr, dims[:ax] + dims[ax + 1:] + [ax])
    _cap_calls(math.prod(view.shape[:-1]), np.apply_along_axis)
    inds = iter(np.ndindex(view.shape[:-1]))
    try:
        ind0 = next(inds)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0") from None
    # _shape_base_impl.py: ``res = asanyarray(func1d(first slice))`` alive to the end, ``buff
    # = zeros(...)``, then ``buff[ind] = asanyarray(func1d(slice))`` per slice (a NumPy
    # scalar's 0-d array made, then asanyarray's); see _call_result_bytes
    st = Steps()
    r0 = func1d(view[ind0 + (Ellipsis,)], *args, **kwargs)
    res = _result_meta(r0)
    made = _call_result_bytes(r0, arr)
    first = st.new(made or asarray_bytes(r0))
    bshape = view.shape[:-1] + res.shape
    st.new(array_bytes(bshape, res.dtype))
    for ind in inds:
        r1 = func1d(view[ind + (Ellipsis,)], *args, **kwargs)
        r = _result_meta(r1)
        assign_to_view(res.shape, res.dtype, r if is_meta(r) else r)
        st.temp(_call_result_bytes(r1, arr) or asarray_bytes(r1))
    st.free(first)
    st.done()
    bst = c_strides(bshape, res.dtype.itemsize)
    bd = list(range(len(bshape)))
    perm = bd[:ax] + bd[len(bshape) - res.ndim:] + bd[ax:len(bshape) - res.ndim]
    return ArrayMeta(tuple(bshape[p] for p in perm), res.dtype, tuple(bst[p] for p in perm),
               base_shape=bshape)


MAX_CALLS = 1 << 16


def _cap_calls(n: int, func: Any) -> None:
    """NumPy calls the user's function once per 1-d slice; too many calls are refused."""
    if n > MAX_CALLS:
        raise UnsupportedOperationError(func, f"{n} calls of the user's function (at most {MAX_CALLS})")


def _result_meta(r: Any) -> Any:
    return r if is_fake(r) else np.asanyarray(r)
