"""Stride and layout rules shared by the kernels, as NumPy computes them."""
from __future__ import annotations

import math

import numpy as np

AxisError = np.exceptions.AxisError


def c_strides(shape: tuple, itemsize: int) -> tuple:
    """Dense C strides; a fresh zero-size array has all strides 0, as NumPy gives it."""
    if 0 in shape:
        return (0,) * len(shape)
    out = [0] * len(shape)
    s = itemsize
    for i in range(len(shape) - 1, -1, -1):
        out[i] = s
        s *= shape[i]
    return tuple(out)


def f_strides(shape: tuple, itemsize: int) -> tuple:
    """Dense Fortran strides (all 0 for a zero-size array)."""
    if 0 in shape:
        return (0,) * len(shape)
    out = []
    s = itemsize
    for n in shape:
        out.append(s)
        s *= n
    return tuple(out)


def strides_in_order(shape: tuple, itemsize: int, perm: list) -> tuple:
    """Dense positive strides with axes laid out fastest-first in ``perm`` order."""
    if 0 in shape:
        return (0,) * len(shape)
    out = [0] * len(shape)
    s = itemsize
    for ax in perm:
        out[ax] = s
        s *= shape[ax]
    return tuple(out)


def contiguity(shape: tuple, strides: tuple, itemsize: int) -> tuple:
    """NumPy's (C, F) contiguity flags: length-1 axes ignored, an empty axis makes both true."""
    if 0 in shape:
        return True, True
    c = True
    sd = itemsize
    for i in range(len(shape) - 1, -1, -1):
        n = shape[i]
        if n != 1:
            if strides[i] != sd:
                c = False
                break
            sd *= n
    f = True
    sd = itemsize
    for n, s in zip(shape, strides):
        if n != 1:
            if s != sd:
                f = False
                break
            sd *= n
    return c, f


def normalize_axis(axis, ndim: int, argname: str | None = None) -> int:
    """An axis in range(ndim), or NumPy's AxisError (``normalize_axis_index``; see
    converters.axis_index for the C converters that refuse bools)."""
    from .converters import axis_index
    return axis_index(axis, ndim, argname)


def normalize_axes(axis, ndim: int, argname: str | None = None) -> tuple:
    """A tuple of distinct axes, None = all (``normalize_axis_tuple``: integer arrays and
    lists taken)."""
    if axis is None:
        return tuple(range(ndim))
    from .converters import axis_tuple
    return axis_tuple(axis, ndim, argname)


def broadcast_shapes(*shapes: tuple) -> tuple:
    """The broadcast of several shapes, with NumPy's ValueError message."""
    if len(shapes) == 1:
        return shapes[0]
    nd = max(len(s) for s in shapes)
    out = [1] * nd
    for s in shapes:
        off = nd - len(s)
        for i, n in enumerate(s):
            cur = out[off + i]
            if cur == 1:
                out[off + i] = n
            elif n != 1 and n != cur:
                desc = " ".join(str(tuple(x)).replace(",)", ")").replace(" ", "") for x in shapes)
                raise ValueError(
                    f"operands could not be broadcast together with shapes {desc} ")
    return tuple(out)


def broadcast_strides(shape: tuple, oshape: tuple, ostrides: tuple) -> tuple:
    """The operand's strides viewed at the broadcast shape (0 where broadcast or length 1)."""
    off = len(shape) - len(oshape)
    out = [0] * len(shape)
    for i, (n, s) in enumerate(zip(oshape, ostrides)):
        if n != 1:
            out[off + i] = s
    return tuple(out)


def vote_sort(perm: list, keys: list) -> list:
    """NumPy's stable insertion sort of axes by per-operand keys (in place; returns perm).

    Axis j0 moves in front of an earlier axis j1 only when every operand that votes (key
    not None on both axes) has key[j1] > key[j0]; when none votes the scan goes on.
    """
    for i0 in range(1, len(perm)):
        ipos = i0
        j0 = perm[i0]
        for i1 in range(i0 - 1, -1, -1):
            j1 = perm[i1]
            voted = False
            swap = True
            for k in keys:
                a = k[j0]
                b = k[j1]
                if a is not None and b is not None:
                    voted = True
                    if b <= a:
                        swap = False
                        break
            if voted:
                if not swap:
                    break
                ipos = i1
        if ipos != i0:
            del perm[i0]
            perm.insert(ipos, j0)
    return perm


def iterator_order(shape: tuple, operands: list) -> list:
    """NpyIter's K-order axis permutation, fastest axis first.

    ``operands`` are (shape, strides) pairs. Start from reversed C order, then sort by
    |stride|; operands with stride 0 on an axis do not vote and C order wins conflicts
    (nditer_constr.c: npyiter_find_best_axis_ordering).
    """
    nd = len(shape)
    keys = [tuple(abs(s) if s else None for s in broadcast_strides(shape, osh, ost))
            for osh, ost in operands]
    return vote_sort(list(range(nd - 1, -1, -1)), keys)


def iterator_out_strides(shape: tuple, itemsize: int, operands: list, order: str = "K") -> tuple:
    """Strides NpyIter gives an output it allocates, for iteration order ``order``.

    ``operands``: (shape, strides, f_contiguous) of every operand the iterator sees.
    """
    nd = len(shape)
    if order == "C" or nd <= 1:
        return c_strides(shape, itemsize)
    if order == "F":
        return f_strides(shape, itemsize)
    if order == "A":
        if all(f for _, _, f in operands):
            return f_strides(shape, itemsize)
        return c_strides(shape, itemsize)
    perm = iterator_order(shape, [(s, st) for s, st, _ in operands])
    return strides_in_order(shape, itemsize, perm)


def like_strides(shape: tuple, strides: tuple, itemsize: int, c: bool, f: bool) -> tuple:
    """Order-K strides of a new array like a prototype (PyArray_NewLikeArray).

    C if C-contiguous or ndim <= 1, else F if F-contiguous, else axes sorted by
    |stride| descending with ties kept in axis order.
    """
    nd = len(shape)
    if c or nd <= 1:
        return c_strides(shape, itemsize)
    if f:
        return f_strides(shape, itemsize)
    order = sorted(range(nd), key=lambda ax: -abs(strides[ax]))
    return strides_in_order(shape, itemsize, order[::-1])


def attempt_nocopy_reshape(shape: tuple, strides: tuple, itemsize: int,
                           newshape: tuple, is_f_order: bool) -> tuple | None:
    """Strides for viewing ``shape``/``strides`` as ``newshape``, or None if a copy is needed.

    NumPy's _attempt_nocopy_reshape (shape.c): drop length-1 axes, match axis groups
    of equal element count, require each old group to be mergeable, and give trailing
    length-1 new axes the last stride.
    """
    olddims = [n for n in shape if n != 1]
    oldstrides = [s for n, s in zip(shape, strides) if n != 1]
    oldnd = len(olddims)
    newnd = len(newshape)
    newstrides = [0] * newnd
    oi, oj = 0, 1
    ni, nj = 0, 1
    while ni < newnd and oi < oldnd:
        np_ = newshape[ni]
        op = olddims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= newshape[nj]
                nj += 1
            else:
                op *= olddims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if is_f_order:
                if oldstrides[ok + 1] != olddims[ok] * oldstrides[ok]:
                    return None
            else:
                if oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]:
                    return None
        if is_f_order:
            newstrides[ni] = oldstrides[oi]
            for nk in range(ni + 1, nj):
                newstrides[nk] = newstrides[nk - 1] * newshape[nk - 1]
        else:
            newstrides[nj - 1] = oldstrides[oj - 1]
            for nk in range(nj - 1, ni, -1):
                newstrides[nk - 1] = newstrides[nk] * newshape[nk]
        ni = nj
        nj += 1
        oi = oj
        oj += 1
    if ni >= 1:
        last_stride = newstrides[ni - 1]
    else:
        last_stride = itemsize
    if is_f_order:
        last_stride *= newshape[ni - 1] if ni >= 1 else 1
    for nk in range(ni, newnd):
        newstrides[nk] = last_stride
    return tuple(newstrides)


def extent(shape: tuple, strides: tuple, itemsize: int) -> tuple:
    """(lo, hi) byte range touched, relative to the array's first element; (0, 0) if empty."""
    if 0 in shape:
        return 0, 0
    lo = 0
    hi = itemsize
    for n, s in zip(shape, strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi


def size_of(shape: tuple) -> int:
    return math.prod(shape)
