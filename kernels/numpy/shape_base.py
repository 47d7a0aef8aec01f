"""Joining and splitting: concatenate, the stack family, the split family, tile, repeat, append."""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .convert_datatype import cast_loop, legacy_cast_bytes
from ..._errors import DataDependentError, UnsupportedOperationError
from ..._sizes import check_same
from ... import converters
from ...layout import (MAX_INTP, as_shape, attempt_nocopy_reshape, c_strides, check_shape,
                     contiguity, like_strides, normalize_axis, prepend_ones_strides, shape_args,
                     strides_in_order, vote_sort, wrap_intp)
from ...meta import PY_SCALARS, ArrayMeta, as_meta, check_writeable, is_fake, is_meta
from ...converters import Casting

from ..registry import register, transient
from .temporaries import Steps, array_bytes, asarray_bytes, carray_bytes
from .views import reshape_out



def meta_of(x: Any) -> ArrayMeta:
    """The layout (shape, dtype, strides) of a fake, ndarray, ArrayMeta, scalar or array-like."""
    if type(x) is ArrayMeta:
        return x
    m = as_meta(x)
    return ArrayMeta(tuple(m.shape), m.dtype, tuple(m.strides))


def operand_of(x: Any) -> Any:
    """An item of concatenate's sequence: a Python scalar stays itself (a NEP 50 weak
    operand for the result dtype), anything else its ``meta_of``."""
    return x if type(x) in PY_SCALARS else meta_of(x)


def data_of(x: Any, what: str) -> np.ndarray:
    """The values of an argument the result's metadata depends on (a fake has none)."""
    if is_fake(x):
        raise DataDependentError(f"{what} depends on the values of a fake array")
    if isinstance(x, (list, tuple)) and any(is_fake(v) for v in x):
        raise DataDependentError(f"{what} depends on the values of a fake array")
    return np.asarray(x)


def sequence_metas(arrays: Any) -> list:
    """The items of concatenate's first argument as ``operand_of`` (a fake is iterated over
    its rows)."""
    if is_meta(arrays):
        m = as_meta(arrays)
        if m.ndim == 0:
            raise TypeError("len() of unsized object")
        row = ArrayMeta(tuple(m.shape[1:]), m.dtype, tuple(m.strides[1:]))
        return [row] * m.shape[0]
    if isinstance(arrays, (str, bytes)) or not hasattr(arrays, "__len__") \
            or not hasattr(arrays, "__getitem__"):
        raise TypeError("The first input argument needs to be a sequence")
    return [operand_of(x) for x in arrays]


def result_dtype(ops: list, dtype: Any) -> np.dtype:
    """PyArray_FindConcatenationDescriptor: dtype= as given, else the NEP 50 result type."""
    if dtype is not None:
        dt = np.dtype(dtype)
        if dt.itemsize == 0 and dt.kind in "SUV":
            raise UnsupportedOperationError(np.concatenate, "unsized flexible dtype=")
        return dt
    return np.result_type(*[x if type(x) in PY_SCALARS else x.dtype for x in ops])


def check_casting(ops: list, dt: np.dtype, casting: Casting) -> None:
    """The TypeError NumPy raises when an input (``operand_of``) cannot be cast to the
    result dtype; then each input's cast into the result (convert_datatype.py)."""
    for x in ops:
        weak = type(x) in PY_SCALARS
        if weak and casting in ("same_kind", "unsafe"):
            continue
        if not np.can_cast(x if weak else x.dtype, dt, casting):
            raise TypeError(f"Cannot cast array data from {meta_of(x).dtype!r} to {dt!r} according to "
                            f"the rule {casting!r}")
    arrays = [x for x in ops if type(x) not in PY_SCALARS]
    for x in arrays:  # PyArray_AssignArray of each input into the result: a cast loop each,
        cast_loop(x.dtype, dt, dummies=False)  # freed before the next one is set up
    transient(max((legacy_cast_bytes(x.dtype, dt) for x in arrays), default=0))


def multi_sorted_perm(metas: list, ndim: int) -> list:
    """PyArray_CreateMultiSortedStridePerm: axes slowest first, by |stride| over all inputs.

    A stable insertion sort in which only inputs with length != 1 on both axes vote and the
    first input that votes decides (C order wins conflicts).
    """
    keys = [tuple(-abs(st) if n != 1 else None for n, st in zip(m.shape, m.strides))
            for m in metas]
    return vote_sort(list(range(ndim)), keys)


def concat_metas(ops: list, axis: Any, out: Any, dtype: Any, casting: Casting) -> Any:
    """The result of concatenating operands described by ``ops`` (``operand_of`` each)."""
    casting = converters.casting(casting)
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, but both "
                        "were provided.")
    if out is not None and not is_meta(out):
        raise TypeError("'out' must be an array")
    if axis is not None:  # PyArray_AxisConverter at argument parsing: no bools
        axis = converters.index(axis, False, "an integer is required for the axis")
    if not ops:
        raise ValueError("need at least one array to concatenate")
    metas = [meta_of(x) for x in ops]
    if axis is None:
        total = sum(int(np.prod(m.shape)) for m in metas)
        shape: Any = (total,)
        if out is not None:
            if out.ndim != 1:
                raise ValueError("Output array must be 1D")
            if out.size != total:
                raise ValueError("Output array is the wrong size")
            check_casting(ops, out.dtype, casting)
            check_writeable(out)
            return out
        dt = result_dtype(ops, dtype)
        check_casting(ops, dt, casting)
        return ArrayMeta(shape, dt, c_strides(shape, dt.itemsize))
    ndim = len(metas[0].shape)
    if ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = converters.axis_index(axis, ndim)
    shape = list(metas[0].shape)
    for i, m in enumerate(metas[1:], 1):
        if len(m.shape) != ndim:
            raise ValueError("all the input arrays must have same number of dimensions, but the "
                             f"array at index 0 has {ndim} dimension(s) and the array at index "
                             f"{i} has {len(m.shape)} dimension(s)")
        for d in range(ndim):
            if d == axis:
                shape[d] += m.shape[d]
                continue
            check_same(shape[d], m.shape[d])  # data-dependent lengths (faketensor/_sizes.py)
            if shape[d] != m.shape[d]:
                raise ValueError("all the input array dimensions except for the concatenation "
                                 f"axis must match exactly, but along dimension {d}, the array "
                                 f"at index 0 has size {shape[d]} and the array at index {i} has "
                                 f"size {m.shape[d]}")
    shape = tuple(shape)
    if out is not None:
        if out.ndim != ndim:
            raise ValueError("Output array has wrong dimensionality")
        if tuple(out.shape) != shape:
            raise ValueError("Output array is the wrong shape")
        check_casting(ops, out.dtype, casting)
        check_writeable(out)
        return out
    dt = result_dtype(ops, dtype)
    check_casting(ops, dt, casting)
    perm = multi_sorted_perm(metas, ndim)
    return ArrayMeta(shape, dt, strides_in_order(shape, dt.itemsize, perm[::-1]))


@register(np.concatenate, tags=("copy",))
def concatenate(arrays: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None,
                casting: Casting = "same_kind") -> Any:
    """A fresh array laid out in the inputs' common stride order (or ``out``)."""
    metas = sequence_metas(arrays)
    if not is_meta(arrays):  # PyArray_ConcatenateInto converts each array-like item (alive
        transient(sum(asarray_bytes(x) for x in arrays if not is_meta(x)))  # till it ends)
    return concat_metas(metas, axis, out, dtype, casting)


def expand(m: ArrayMeta, axis: int) -> ArrayMeta:
    """m with a length-1 axis inserted (its stride never votes, so 0)."""
    return m._replace(shape=m.shape[:axis] + (1,) + m.shape[axis:],
                      strides=m.strides[:axis] + (0,) + m.strides[axis:])


def at_least(m: ArrayMeta, nd: int) -> ArrayMeta:
    """atleast_1d / 2d / 3d: where the new length-1 axes go."""
    n = len(m.shape)
    if n >= nd:
        return m
    if n == 0:
        return m._replace(shape=(1,) * nd, strides=(0,) * nd)
    if n == 1:
        if nd == 2:
            return expand(m, 0)
        return expand(expand(m, 0), 2)
    return expand(m, 2)


def _tuple_metas(tup: Any, fname: str) -> list:
    """The stack family's items, ``meta_of`` each (asanyarray: a Python scalar is not weak)."""
    if is_meta(tup):
        return sequence_metas(tup)
    if not isinstance(tup, (list, tuple)):
        raise TypeError("arrays to stack must be passed as a \"sequence\" type such as list or tuple.")
    return [meta_of(x) for x in tup]


@register(np.stack, tags=("copy",))
def stack(arrays: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None,
          casting: Casting = "same_kind") -> Any:
    """Concatenation of the inputs with a new length-1 axis at ``axis``."""
    metas = _tuple_metas(arrays, "stack")
    if not metas:
        raise ValueError("need at least one array to stack")
    if len({m.shape for m in metas}) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis(axis, len(metas[0].shape) + 1)
    return concat_metas([expand(m, axis) for m in metas], axis, out, dtype, casting)


@register(np.hstack, tags=("copy",))
def hstack(tup: Any, *, dtype: Any = None, casting: Casting = "same_kind") -> Any:
    metas = [at_least(m, 1) for m in _tuple_metas(tup, "hstack")]
    axis = 0 if metas and len(metas[0].shape) == 1 else 1
    return concat_metas(metas, axis, None, dtype, casting)


@register(np.vstack, *( [np.row_stack] if hasattr(np, "row_stack") else []), tags=("copy",))
def vstack(tup: Any, *, dtype: Any = None, casting: Casting = "same_kind") -> Any:
    metas = [at_least(m, 2) for m in _tuple_metas(tup, "vstack")]
    return concat_metas(metas, 0, None, dtype, casting)


@register(np.dstack, tags=("copy",))
def dstack(tup: Any) -> Any:
    metas = [at_least(m, 3) for m in _tuple_metas(tup, "dstack")]
    return concat_metas(metas, 2, None, None, "same_kind")


@register(np.column_stack, tags=("copy",))
def column_stack(tup: Any) -> Any:
    metas = []
    for m in _tuple_metas(tup, "column_stack"):
        if len(m.shape) == 0:
            m = m._replace(shape=(1, 1), strides=(0, 0))
        elif len(m.shape) == 1:
            m = expand(m, 1)
        metas.append(m)
    return concat_metas(metas, 1, None, None, "same_kind")


# --- splitting ------------------------------------------------------------------


def _split_views(ary: Any, div_points: list, axis: int) -> list:
    n = ary.shape[axis]
    st = ary.strides[axis]
    outs = []
    for a, b in zip(div_points[:-1], div_points[1:]):
        start, stop, _ = slice(a, b).indices(n)
        length = max(0, stop - start)
        shape = ary.shape[:axis] + (length,) + ary.shape[axis + 1:]
        outs.append(ArrayMeta(shape, ary.dtype, ary.strides, view_of=ary, offset=start * st))
    return outs


def _as_array_meta(ary: Any) -> Any:
    if not is_meta(ary):
        raise UnsupportedOperationError(np.split, "splitting a non-array (list) input")
    return ary


@register(np.array_split, tags=("view",))
def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """A list of views of ``ary`` between the division points."""
    ary = _as_array_meta(ary)
    try:
        ntotal = ary.shape[axis]
    except TypeError:
        raise TypeError("tuple indices must be integers or slices, not "
                        f"{type(axis).__name__}") from None
    if is_fake(indices_or_sections):
        raise DataDependentError("split points given by a fake array")
    try:
        nsec = len(indices_or_sections) + 1
    except TypeError:  # a number of sections (shape_base.array_split)
        nsec = int(indices_or_sections)
        if nsec <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extras = divmod(ntotal, nsec)
        sizes = [0] + extras * [each + 1] + (nsec - extras) * [each]
        div = list(np.cumsum(sizes).tolist())
        # _shape_base_impl.py: array(section_sizes, dtype=intp).cumsum(), both alive at once
        transient(2 * 8 * len(sizes))
    else:  # split points, used as slice bounds
        div = [0] + list(indices_or_sections) + [ntotal]
        for i in div:
            if i is None:
                raise UnsupportedOperationError(np.array_split, "None among the split points")
            if not hasattr(type(i), "__index__"):
                raise TypeError("slice indices must be integers or None or have an __index__ "
                                "method")
        div = [operator.index(i) for i in div]
    axis = normalize_axis(axis, ary.ndim)
    return _split_views(ary, div, axis)


shape_args(array_split, 1, "indices_or_sections")


@register(np.split, tags=("view",))
def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    ary = _as_array_meta(ary)
    if not hasattr(indices_or_sections, "__len__") or is_fake(indices_or_sections):
        sections = indices_or_sections
        if is_fake(sections):
            raise DataDependentError("split points given by a fake array")
        n = ary.shape[axis]
        if n % sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


shape_args(split, 1, "indices_or_sections")


@register(np.hsplit, tags=("view",))
def hsplit(ary: Any, indices_or_sections: Any) -> list:
    ary = _as_array_meta(ary)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


@register(np.vsplit, tags=("view",))
def vsplit(ary: Any, indices_or_sections: Any) -> list:
    ary = _as_array_meta(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


@register(np.dsplit, tags=("view",))
def dsplit(ary: Any, indices_or_sections: Any) -> list:
    ary = _as_array_meta(ary)
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


# --- repetition -----------------------------------------------------------------


def _repeated(shape: tuple, ax: int, repeats: Any, itemsize: int) -> tuple:
    """The shape of a repeat along ax (_repeat_len), checked as NumPy's constructor checks it.
    A total past npy_intp that wraps to a size the constructor accepts is refused: NumPy then
    copies every repeated item into that smaller array (out of bounds). Negative counts copy
    nothing, so their wrapped totals stand."""
    total, exact = _repeat_len(shape[ax], repeats)
    out = shape[:ax] + (total,) + shape[ax + 1:]
    check_shape(out, itemsize)
    if exact > MAX_INTP:
        raise UnsupportedOperationError(
            np.repeat, f"{exact} repeated items overflow npy_intp to {total}, a size NumPy "
            "accepts and then writes past")
    return out


def _repeat_len(n: int, repeats: Any) -> tuple:
    """The repeated axis' length as PyArray_Repeat computes it (item_selection.c): counts
    converted to npy_intp (an array only by a safe cast, anything else as int() would); one
    count is multiplied in unchecked npy_intp arithmetic (a negative or wrapped product is
    refused later, by the array constructor); several are checked and summed. Returns that
    total and the exact one."""
    if isinstance(repeats, np.ndarray):
        if not np.can_cast(repeats.dtype, np.intp, "safe"):
            what = "scalar" if repeats.ndim == 0 else "array data"
            raise TypeError(f"Cannot cast {what} from {repeats.dtype!r} to dtype('int64') "
                            "according to the rule 'safe'")
        r = repeats.astype(np.intp)
    else:
        data_of(repeats, "np.repeat's output shape")
        r = np.asarray(repeats, dtype=np.intp)
    if r.ndim > 1:
        raise ValueError("object too deep for desired array")
    if r.size == 1:
        exact = n * int(r.reshape(-1)[0])
        return wrap_intp(exact), exact
    if r.shape[0] != n:
        raise ValueError(f"operands could not be broadcast together with shape ({n},) "
                         f"({r.shape[0]},)")
    if (r < 0).any():
        raise ValueError("repeats may not contain negative values.")
    exact = sum(int(v) for v in r)
    return wrap_intp(exact), exact


@register(np.repeat, "ndarray.repeat", tags=("copy",))
def repeat(a: Any, repeats: Any, axis: Any = None) -> ArrayMeta:
    """A fresh C-contiguous array; the repeat counts are real values."""
    m = meta_of(a)
    if axis is None:
        shape = _repeated((math.prod(m.shape),), 0, repeats, m.dtype.itemsize)
    else:
        if not m.shape:  # PyArray_CheckAxis treats a 0-d array as 1-d
            m = ArrayMeta((1,), m.dtype, (m.dtype.itemsize,))
        ax = converters.axis(axis, len(m.shape))
        shape = _repeated(tuple(m.shape), ax, repeats, m.dtype.itemsize)
    transient(_repeat_bytes(a, m, repeats))
    return ArrayMeta(shape, m.dtype, c_strides(shape, m.dtype.itemsize))


shape_args(repeat, 1, "repeats")


def _repeat_bytes(a: Any, m: Any, repeats: Any) -> int:
    """What PyArray_Repeat allocates besides its result (item_selection.c): the counts as
    an intp array, and a C-contiguous, aligned, writeable copy of ``a`` unless it is one
    (``PyArray_CheckAxis(..., NPY_ARRAY_CARRAY)``; a list becomes an array first)."""
    if isinstance(repeats, np.ndarray):
        counts = 0 if repeats.dtype == np.intp and repeats.flags.c_contiguous else repeats.size * 8
    else:
        counts = np.size(repeats) * 8 if not isinstance(repeats, (int, np.integer)) else 8
    whole = carray_bytes(a, m.dtype) if is_meta(a) else array_bytes(m.shape, m.dtype)
    return counts + whole


@register(np.tile, tags=("copy",))
def tile(A: Any, reps: Any) -> ArrayMeta:
    """np.tile: a K-order copy (with prepended axes), or a reshaped view of the last repeat."""
    if is_fake(reps):
        raise DataDependentError("np.tile's output shape depends on a fake array")
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    d = len(tup)
    m = meta_of(A)
    nd = len(m.shape)
    if all(t == 1 for t in tup) and is_meta(A):
        a = as_meta(A)
        c, f = a.flags.c_contiguous, a.flags.f_contiguous
        st = like_strides(m.shape, m.strides, m.dtype.itemsize, c, f)
        if d <= nd:
            return ArrayMeta(m.shape, m.dtype, st)
        # np.array(A, copy=True, ndmin=d): a view of the copy with length-1 axes in front
        shape = (1,) * (d - nd) + m.shape
        return ArrayMeta(shape, m.dtype, prepend_ones_strides(m.shape, st, m.dtype.itemsize, d, False),
                         base_shape=m.shape)
    if nd > 64 or d > 64:  # np.array(A, ndmin=d)
        raise ValueError(f"ndmin bigger than allowable number of dimensions NPY_MAXDIMS (=64)")
    cnd = max(nd, d)
    tup = (1,) * (cnd - d) + tup
    shape_in = (1,) * (cnd - nd) + m.shape
    shape_out = tuple(s * t for s, t in zip(shape_in, tup))  # Python arithmetic, as tile's
    # NumPy's loop: c.reshape(-1, n).repeat(nrep, 0) for each count that is not 1, each
    # result a new array (checked as the constructor does), then c.reshape(shape_out)
    n = size = math.prod(shape_in)
    last = None
    # _shape_base_impl.py tile: c = c.reshape(-1, n).repeat(nrep, 0) per repeated axis; each
    # result lives until the next is made (the input's reshape may copy, see repeat)
    steps = Steps()
    held, first = 0, True
    if n > 0:
        for dim_in, nrep in zip(shape_in, tup):
            if nrep != 1:
                last = _repeated((size // n, n), 0, nrep, m.dtype.itemsize)
                cur = steps.new(8 + (_tile_first_bytes(A, m, n) if first else 0))
                size = last[0] * n
                steps.new(array_bytes((size,), m.dtype))
                steps.free(cur, held)
                held, first = array_bytes((size,), m.dtype), False
            n //= dim_in
    shape = as_shape(shape_out)
    if math.prod(shape) != size or any(k < 0 for k in shape):
        raise ValueError(f"cannot reshape array of size {size} into shape {shape_out}")
    if last is None:  # no repeat ran: c is np.array(A, copy=None, ndmin=d) itself
        if math.prod(shape_in) == 0 and is_fake(A):  # c.reshape(shape_out), a view of A
            a = as_meta(A)
            if d > nd:  # np.array(A, ndmin=d) of an empty array: a view with all strides 0
                a = ArrayMeta(shape_in, m.dtype, (0,) * cnd)
            return ArrayMeta(shape, m.dtype, reshape_out(a, shape).strides, view_of=A)
        raise UnsupportedOperationError(np.tile, "a non-array input")
    steps.done()
    # c.reshape(shape_out): a view of the last repeat's fresh C array
    src = ArrayMeta(last, m.dtype, c_strides(last, m.dtype.itemsize))
    return ArrayMeta(shape, m.dtype, reshape_out(src, shape).strides, base_shape=last)


shape_args(tile, 1, "reps")


def _tile_first_bytes(A: Any, m: Any, n: int) -> int:
    """The first ``c.reshape(-1, n)`` of tile's input: a view when NumPy can make one (then
    repeat copies it unless C-contiguous, aligned and writeable), else a C copy."""
    if not is_meta(A):
        return array_bytes(m.shape, m.dtype)
    a = as_meta(A)
    rows = (a.size // n) if n else 0
    view = attempt_nocopy_reshape(tuple(a.shape), tuple(a.strides), a.dtype.itemsize, (rows, n), False)
    if view is None:
        return array_bytes(m.shape, m.dtype)
    return 0 if (contiguity((rows, n), view, a.dtype.itemsize)[0] and a.flags.writeable
                 and a.flags.aligned) else array_bytes(m.shape, m.dtype)


@register(np.append, tags=("copy",))
def append(arr: Any, values: Any, axis: Any = None) -> Any:
    """concatenate((arr, values), axis), raveling both when axis is None."""
    a = meta_of(arr)
    if axis is None:
        v = meta_of(values)
        a = ArrayMeta((int(np.prod(a.shape)),), a.dtype, (a.dtype.itemsize,))
        v = ArrayMeta((int(np.prod(v.shape)),), v.dtype, (v.dtype.itemsize,))
        out = concat_metas([a, v], 0, None, None, "same_kind")
        # _function_base_impl.py append: arr.ravel() (for ndim != 1) and ravel(values) copy
        # what is not C-contiguous; both live while the result is made
        transient(_ravel_bytes(arr, skip_1d=True) + _ravel_bytes(values))
        return out
    out = concat_metas([a, operand_of(values)], axis, None, None, "same_kind")
    transient(0 if is_meta(values) else asarray_bytes(values))
    return out


def _ravel_bytes(x: Any, skip_1d: bool = False) -> int:
    """Bytes ``ravel(x)`` allocates: a copy of what is not C-contiguous (a list: its array)."""
    if not is_meta(x):
        return asarray_bytes(x)
    m = as_meta(x)
    if m.flags.c_contiguous or (skip_1d and m.ndim == 1):
        return 0
    return array_bytes(m.shape, m.dtype)


# --- block ----------------------------------------------------------------------


def _block_depth(arrays: Any, index: list) -> tuple:
    """(index of a bottom element, max ndim, total size), with np.block's errors."""
    if isinstance(arrays, tuple):
        raise TypeError(f"arrays{''.join(f'[{i}]' for i in index)} is a tuple. Only lists can be "
                        "used to arrange blocks, and np.block does not allow implicit conversion "
                        "from tuple to ndarray.")
    if isinstance(arrays, list):
        if not arrays:
            return index + [None], 0, 0
        first, nd, size = _block_depth(arrays[0], index + [0])
        for i, a in enumerate(arrays[1:], 1):
            idx, n, s = _block_depth(a, index + [i])
            size += s
            nd = max(nd, n)
            if len(idx) != len(first):
                raise ValueError(f"List depths are mismatched. First element was at depth "
                                 f"{len(first)}, but there is an element at depth {len(idx)}")
            if idx[-1] is None:
                first = idx
        return first, nd, size
    m = meta_of(arrays)
    return index, len(m.shape), int(np.prod(m.shape))


def _block_leaf(a: Any, ndim: int) -> ArrayMeta:
    m = meta_of(a)
    k = ndim - len(m.shape)
    return ArrayMeta((1,) * k + m.shape, m.dtype, (0,) * k + m.strides)


def _block_concat(arrays: Any, max_depth: int, ndim: int, depth: int = 0) -> ArrayMeta:
    if depth < max_depth:
        parts = [_block_concat(a, max_depth, ndim, depth + 1) for a in arrays]
        return concat_metas(parts, -(max_depth - depth), None, None, "same_kind")
    return _block_leaf(arrays, ndim)


def _block_leaves(arrays: Any, max_depth: int, depth: int = 0) -> list:
    if depth < max_depth:
        return [x for a in arrays for x in _block_leaves(a, max_depth, depth + 1)]
    return [arrays]


@register(np.block, tags=("copy",))
def block(arrays: Any) -> ArrayMeta:
    """Repeated concatenation (or, for big results, one C/F allocation filled by slices)."""
    bottom, arr_ndim, size = _block_depth(arrays, [])
    list_ndim = len(bottom)
    if bottom and bottom[-1] is None:
        raise ValueError(f"List at arrays{''.join(f'[{i}]' for i in bottom[:-1])} cannot be empty")
    ndim = max(arr_ndim, list_ndim)
    res = _block_concat(arrays, list_ndim, ndim)
    if list_ndim == 0:
        return ArrayMeta(res.shape, res.dtype, c_strides(res.shape, res.dtype.itemsize))
    if list_ndim * size > 2 * 512 * 512:
        leaves = [as_meta(a) if is_meta(a) else np.asarray(a) for a in _block_leaves(arrays, list_ndim)]
        f = all(m.flags.f_contiguous for m in leaves)
        c = all(m.flags.c_contiguous for m in leaves)
        st = strides_in_order(res.shape, res.dtype.itemsize, list(range(ndim))) if f and not c \
            else c_strides(res.shape, res.dtype.itemsize)
        return ArrayMeta(res.shape, res.dtype, st)
    steps = Steps()
    _block_steps(steps, arrays, list_ndim, ndim)
    steps.done()
    return ArrayMeta(res.shape, res.dtype, res.strides)


def _block_steps(steps: Steps, arrays: Any, max_depth: int, ndim: int, depth: int = 0) -> int:
    """_shape_base_impl.py _block (the concatenation path): each level's concatenation is
    made while its parts, the results of the level below, are alive; leaves are views
    (scalars and lists become arrays). Returns the bytes of this level's result."""
    if depth < max_depth:
        parts = [_block_steps(steps, a, max_depth, ndim, depth + 1) for a in arrays]
        res = _block_concat(arrays, max_depth, ndim, depth)
        n = steps.new(array_bytes(res.shape, res.dtype))
        steps.free(*parts)
        return n
    return steps.new(0 if is_meta(arrays) else asarray_bytes(arrays))
