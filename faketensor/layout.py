"""Stride and layout rules shared by the kernels, as NumPy computes them."""
from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from ._sizes import BoundedSize, check_same

AxisError = np.exceptions.AxisError

MAX_INTP = 2**63 - 1  # npy_intp: NumPy computes sizes in it and reports overflow
MAXDIMS = 64  # NPY_MAXDIMS
TOO_BIG = ("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
           "possible size.")


def check_shape(shape: tuple, itemsize: int) -> int:
    """The byte size of a new array of this shape, or the ValueError NumPy raises for it.

    Every array NumPy makes, view or not, passes PyArray_NewFromDescr_int (ctors.c): at most
    64 dimensions, none negative, and size * itemsize, with zero-length axes counted as 1,
    within npy_intp.
    """
    if len(shape) > MAXDIMS:
        raise ValueError(f"number of dimensions must be within [0, {MAXDIMS}], got {len(shape)}")
    nbytes = itemsize
    empty = False
    for n in shape:
        if n == 0:
            empty = True
        elif n < 0:
            raise ValueError("negative dimensions are not allowed")
        else:
            nbytes *= int(n)  # a NumPy integer would wrap
            if nbytes > MAX_INTP or n > MAX_INTP:
                raise ValueError(TOO_BIG)
    return 0 if empty else nbytes


def new_buffer_dtype(shape: tuple, dtype: np.dtype) -> tuple:
    """(shape, dtype) of a freshly allocated array as PyArray_NewFromDescr_int (ctors.c)
    makes it: a subarray dtype's dimensions join the shape (its base dtype stays), and an
    unsized string dtype gets one character (``np.empty(3, "S")`` is S1)."""
    while dtype.subdtype is not None:
        dtype, sub = dtype.subdtype
        shape = tuple(shape) + sub
    return shape, alloc_dtype(dtype)


def alloc_dtype(dt: np.dtype) -> np.dtype:
    """The dtype a new array of ``dt`` gets: S0 and U0 become S1 and U1 (the string part of
    ``new_buffer_dtype``, for copies whose layout follows an existing array)."""
    if dt.itemsize == 0 and dt.kind in "SU":
        return np.dtype(dt.kind + "1").newbyteorder(dt.byteorder)
    return dt


def wrap_intp(v: int) -> int:
    """v as unchecked npy_intp arithmetic in C leaves it (two's complement wrap-around)."""
    return (v + 2**63) % 2**64 - 2**63


def as_intp(obj, msg: str = "an integer is required") -> int:
    """One npy_intp from a Python object: PyArray_PyIntAsIntp (conversion_utils.c).

    Bools (Python and NumPy) are refused with TypeError(msg); anything else goes through
    ``__index__``; a value outside npy_intp raises OverflowError.
    """
    if type(obj) is int:
        v = obj
    elif type(obj) is bool or isinstance(obj, np.bool_):
        raise TypeError(msg)
    else:
        v = operator.index(obj)
    if not -MAX_INTP - 1 <= v <= MAX_INTP:
        raise OverflowError("Python int too large to convert to C long")
    return v


def as_dim(obj) -> int:
    """One dimension of a shape argument: as_intp, overflow reported as ValueError
    (dimension_from_scalar, conversion_utils.c)."""
    try:
        return as_intp(obj)
    except OverflowError:
        raise ValueError("Maximum allowed dimension exceeded") from None


def shape_args(fn: Any, *where: int | str) -> None:
    """Mark a kernel's shape and count arguments (positions, keyword names): real arrays
    given there reach it unconverted, since NumPy reads their values
    (``np.zeros(np.array([2, 3]))``); a fake there lacks the values (DataDependentError)."""
    fn.keep_real = frozenset(where)


def as_shape(obj) -> tuple:
    """A shape argument as NumPy's PyArray_IntpConverter reads it (conversion_utils.c).

    None is refused; an int, or anything that is not an iterable sequence, is one dimension
    (TypeError "expected a sequence of integers or a single integer" when it is not an
    integer); a sequence gives one dimension per item, at most 64. Negative values pass:
    the caller decides (reshape's -1, the array constructor's ValueError).
    """
    if obj is None:
        raise TypeError("Use () not None as shape arguments")
    t = type(obj)
    if t is tuple or t is list:
        items = obj
    elif t is int or not hasattr(t, "__getitem__") or isinstance(obj, dict):
        items = None
    else:
        try:
            items = list(obj)  # PySequence_Fast; a 0-d array or a NumPy scalar is not iterable
        except TypeError:
            items = None
    if items is None:
        try:
            return (as_dim(obj),)
        except TypeError:
            raise TypeError("expected a sequence of integers or a single integer, "
                            f"got '{obj!r:.100}'") from None
    if len(items) > MAXDIMS:
        raise ValueError(f"maximum supported dimension for an ndarray is currently {MAXDIMS}, "
                         f"found {len(items)}")
    return tuple(as_dim(n) for n in items)


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


# --- NumPy's integer and axis converters (conversion_utils.c ``PyArray_PyIntAsIntp``,
# numeric.py ``normalize_axis_tuple``), here because the axis rules below use them;
# converters.py re-exports them with the other argument converters.

def tp_name(obj: Any) -> str:
    """``Py_TYPE(obj)->tp_name`` as C error messages print it: 'int', 'numpy.int64'."""
    t = type(obj)
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def index(obj: Any, allow_bool: bool = False, msg: str = "an integer is required") -> int:
    """``PyArray_PyIntAsIntp_ErrMsg``: ``__index__`` (ints, NumPy integers, integer 0-d
    arrays), else TypeError; bools are refused with ``msg`` unless ``allow_bool`` (the
    Python-level ``normalize_axis_index`` and ``ndarray.sort`` take them); out of the intp
    range OverflowError."""
    if not allow_bool and isinstance(obj, (bool, np.bool_)):
        raise TypeError(msg)
    try:
        v = operator.index(obj)
    except TypeError:
        if getattr(obj, "ndim", None) is not None:  # arrays, real or fake
            raise TypeError("only integer scalar arrays can be converted to a scalar index") from None
        raise TypeError(f"'{tp_name(obj)}' object cannot be interpreted as an integer") from None
    if not -2 ** 63 <= v < 2 ** 63:
        raise OverflowError("Python int too large to convert to C long")
    return v



def axis_index(obj: Any, ndim: int, argname: str | None = None, allow_bool: bool = True,
               msg: str = "an integer is required") -> int:
    """One axis in range(ndim): ``normalize_axis_index`` (bools taken) or, with
    ``allow_bool=False``, ``check_and_adjust_axis`` after ``PyArray_PyIntAsInt``."""
    ax = index(obj, allow_bool, msg)
    if not -ndim <= ax < ndim:
        raise AxisError(ax, ndim, argname)
    return ax + ndim if ax < 0 else ax


def axis_tuple(obj: Any, ndim: int, argname: str | None = None,
               allow_duplicate: bool = False) -> tuple:
    """``normalize_axis_tuple`` (numpy/_core/numeric.py): one integer-like, or any iterable
    of them (lists, integer arrays); repeats raise ValueError unless allowed."""
    if type(obj) not in (tuple, list):
        try:
            obj = [operator.index(obj)]
        except TypeError:
            pass
    axes = tuple(axis_index(a, ndim, argname) for a in obj)
    if not allow_duplicate and len(set(axes)) != len(axes):
        if argname:
            raise ValueError(f"repeated axis in `{argname}` argument")
        raise ValueError("repeated axis")
    return axes


def normalize_axis(axis, ndim: int, argname: str | None = None) -> int:
    """An axis in range(ndim), or NumPy's AxisError (``normalize_axis_index``; see
    axis_index for the C converters that refuse bools)."""
    return axis_index(axis, ndim, argname)


def normalize_axes(axis, ndim: int, argname: str | None = None) -> tuple:
    """A tuple of distinct axes, None = all (``normalize_axis_tuple``: integer arrays and
    lists taken)."""
    if axis is None:
        return tuple(range(ndim))
    return axis_tuple(axis, ndim, argname)


def try_broadcast(shapes: Sequence[tuple]) -> tuple | None:
    """The broadcast of several shapes (aligned at their last axes, a length 1 stretched),
    or None where two lengths disagree: the caller raises its function's own error."""
    nd = max(len(s) for s in shapes)
    out = [1] * nd
    for s in shapes:
        off = nd - len(s)
        for i, n in enumerate(s):
            cur = out[off + i]
            if n is not cur and type(n) is BoundedSize and type(cur) is BoundedSize:
                check_same(cur, n)  # two data-dependent lengths (faketensor/_sizes.py)
            if cur == 1:
                out[off + i] = n
            elif n != 1 and n != cur:
                check_same(cur, n)  # unequal here, but perhaps not for other values
                return None
    return tuple(out)


def broadcast_shapes(*shapes: tuple) -> tuple:
    """The broadcast of several shapes, with NumPy's ValueError message; a broadcast whose
    size overflows npy_intp raises ValueError as NumPy's iterators do (a zero-length axis
    ends the product first: PyArray_OverflowMultiplyList, common.h)."""
    if len(shapes) == 1:
        return shapes[0]
    out = try_broadcast(shapes)
    if out is None:
        desc = " ".join(str(tuple(x)).replace(",)", ")").replace(" ", "") for x in shapes)
        raise ValueError(f"operands could not be broadcast together with shapes {desc} ")
    size = 1
    for n in out:
        if n == 0:
            break
        size *= n
        if size > MAX_INTP:
            raise ValueError("broadcast dimensions too large.")
    return out


def legacy_broadcast(shapes: list) -> tuple:
    """np.broadcast's result shape (PyArray_Broadcast, iterators.c): at most 32 dimensions
    per operand (RuntimeError), a mismatch named by the first two arguments that disagree
    on the leftmost axis, then broadcast_shapes' size check."""
    if not shapes:
        return ()
    for s in shapes:
        if len(s) > 32:
            raise RuntimeError("this function only supports up to 32 dimensions but the "
                               f"array has {len(s)}.")
    nd = max(len(s) for s in shapes)
    for i in range(nd):
        first = None
        for k, s in enumerate(shapes):
            n = s[i + len(s) - nd] if i + len(s) >= nd else 1
            if n == 1:
                continue
            if first is None:
                first = k, n
            elif n != first[1]:
                j = first[0]
                raise ValueError(
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch "
                    f"is between arg {j} with shape {shapes[j]} and arg {k} with shape {s}.")
    return broadcast_shapes(*shapes)


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

    ``operands`` are (shape, strides, ...) tuples. Start from reversed C order, then sort by
    |stride|; operands with stride 0 on an axis do not vote and C order wins conflicts
    (nditer_constr.c: npyiter_find_best_axis_ordering).
    """
    nd = len(shape)
    keys = [tuple(abs(s) if s else None for s in broadcast_strides(shape, op[0], op[1]))
            for op in operands]
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
    perm = iterator_order(shape, operands)
    return strides_in_order(shape, itemsize, perm)


def sorted_stride_perm(strides: tuple) -> list:
    """PyArray_CreateSortedStridePerm (numpy/_core/src/multiarray/shape.c): the axes by
    |stride|, largest first, ties kept in axis order (a stable sort)."""
    return sorted(range(len(strides)), key=lambda ax: -abs(strides[ax]))


def like_strides(shape: tuple, strides: tuple, itemsize: int, c: bool, f: bool) -> tuple:
    """Order-K strides of a new array like a prototype (PyArray_NewLikeArray, ctors.c).

    C if C-contiguous or ndim <= 1, else F if F-contiguous, else dense in the order of
    ``sorted_stride_perm``.
    """
    nd = len(shape)
    if c or nd <= 1:
        return c_strides(shape, itemsize)
    if f:
        return f_strides(shape, itemsize)
    return strides_in_order(shape, itemsize, sorted_stride_perm(strides)[::-1])


def dense_in_stride_order(shape: tuple, strides: tuple, itemsize: int) -> bool:
    """PyArray_Ravel's order-K test (numpy/_core/src/multiarray/shape.c): walking the axes
    from the smallest |stride| (``sorted_stride_perm``, length-1 axes skipped) each stride is
    the dense one, so ``ravel('K')`` is a view. An empty array is contiguous: true."""
    if 0 in shape:
        return True
    step = itemsize
    for ax in reversed(sorted_stride_perm(strides)):
        n = shape[ax]
        if n == 1:
            continue
        if strides[ax] != step:
            return False
        step *= n
    return True


def prepend_ones_strides(shape: tuple, strides: tuple, itemsize: int, ndmin: int,
                         fortran: bool) -> tuple:
    """Strides of ``np.array(..., ndmin=)``'s view of the converted array with leading
    length-1 axes (_prepend_ones, numpy/_core/src/multiarray/multiarraymodule.c): each new
    axis strides by the itemsize for order F (``fortran``), an F-not-C array or a 0-d one,
    else by ``strides[0] * shape[0]``; the old axes keep theirs."""
    c, f = contiguity(shape, strides, itemsize)
    if fortran or (f and not c) or not shape:
        new = itemsize
    else:
        new = strides[0] * shape[0]
    return (new,) * (ndmin - len(shape)) + tuple(strides)


def fill_strides(shape: tuple, itemsize: int, fortran: bool = False) -> tuple:
    """Strides NumPy fills in for a view made with no strides given (``_array_fill_strides``,
    numpy/_core/src/multiarray/ctors.c): dense, length-0 axes counted as length 1."""
    out = [0] * len(shape)
    s = itemsize
    for i in (range(len(shape)) if fortran else range(len(shape) - 1, -1, -1)):
        out[i] = s
        if shape[i]:
            s *= shape[i]
    return tuple(out)


def resolve_shape(shape: tuple, newshape: tuple) -> tuple:
    """``newshape`` with its one -1 worked out from ``shape``'s element count, or NumPy's
    ValueError (``_fix_unknown_dimension``, numpy/_core/src/multiarray/shape.c)."""
    size = math.prod(shape)
    known = 1
    unknown = -1
    for i, n in enumerate(newshape):
        if n < 0:
            if unknown != -1:
                raise ValueError("can only specify one unknown dimension")
            unknown = i
        else:
            known *= n
    msg = f"cannot reshape array of size {size} into shape {_shape_str(newshape)}"
    if unknown >= 0:
        if known == 0 or size % known:
            raise ValueError(msg)
        return newshape[:unknown] + (size // known,) + newshape[unknown + 1:]
    if known != size:
        raise ValueError(msg)
    return newshape


def _shape_str(vals: tuple) -> str:
    """convert_shape_to_string (numpy/_core/src/common/common.c): -1 reads "newaxis" and
    leading ones are left out."""
    k = next((i for i, v in enumerate(vals) if v >= 0), len(vals))
    if k == len(vals):
        return "()"
    parts = [str(vals[k])] + ["newaxis" if v < 0 else str(v) for v in vals[k + 1:]]
    return "(" + ",".join(parts) + ("," if len(vals) == 1 else "") + ")"


def reshape_strides(shape: tuple, strides: tuple, itemsize: int, newshape: tuple,
                    fortran: bool = False, contiguous: bool | None = None) -> tuple:
    """(shape, strides) of ``a.reshape(newshape)`` as a view in order C (F when ``fortran``);
    strides None when NumPy must copy. _reshape_with_copy_arg (numpy/_core/src/multiarray/
    shape.c): the very shape given keeps its strides (checked before -1 is resolved); an
    array contiguous in that order gets filled strides; else _attempt_nocopy_reshape.
    ``contiguous``: that order's contiguity flag, when the caller already has it."""
    shape, newshape = tuple(shape), tuple(newshape)
    if newshape == shape:
        return shape, tuple(strides)
    newshape = resolve_shape(shape, newshape)
    if contiguous is None:
        contiguous = contiguity(shape, strides, itemsize)[1 if fortran else 0]
    if contiguous:
        return newshape, fill_strides(newshape, itemsize, fortran)
    return newshape, attempt_nocopy_reshape(shape, tuple(strides), itemsize, newshape, fortran)


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


# --- CuPy's rules (cupy/_core) ---
# Each rule mirrors the CuPy 14 source it names; tests/kernels/cupy/test_cupy_layout.py checks each.


def cupy_contiguous_strides(shape: tuple, itemsize: int, c: bool = True,
                            zeros_for_zerosize: bool = True) -> tuple:
    """Dense C (or F) strides as internal.pyx ``get_contiguous_strides_inplace`` lays them:
    length-1 and empty axes do not grow the stride; a zero-size array gets all strides 0
    when ``zeros_for_zerosize`` (every fresh allocation), else the dense layout."""
    if zeros_for_zerosize and 0 in shape:
        return (0,) * len(shape)
    out = [0] * len(shape)
    st = itemsize
    for i in (range(len(shape) - 1, -1, -1) if c else range(len(shape))):
        out[i] = st
        if shape[i] > 1:
            st *= shape[i]
    return tuple(out)


def cupy_c_contiguity(shape: tuple, strides: tuple, itemsize: int) -> bool:
    """internal.pyx ``get_c_contiguity``: one run of mergeable axes ending in ``itemsize``
    (length-1 axes ignored, any empty axis contiguous). core.pyx ``_update_f_contiguity`` is
    the same rule on the reversed axes; both agree with NumPy's flags (``contiguity``), which
    is what ``ArrayMeta.flags`` reports for CuPy records."""
    if not strides or (len(strides) == 1 and strides[0] == itemsize):
        return True
    runs, prev, st = 0, None, 0
    for n, s in zip(shape, strides):
        if n == 0:
            return True
        if n == 1:
            continue
        st = s
        if prev is None or prev != n * s:
            runs += 1
        prev = s
    return runs == 0 or (runs == 1 and st == itemsize)


def cupy_infer_unknown(newshape: tuple, size: int) -> tuple:
    """internal.pyx ``infer_unknown_dimension``: any negative entry is the unknown one."""
    cnt, index, known = 0, -1, 1
    for i, n in enumerate(newshape):
        if n < 0:
            cnt += 1
            index = i
        else:
            known *= n
    if cnt == 0 and known == size:
        return newshape
    if cnt > 1:
        raise ValueError("can only specify one unknown dimension")
    if cnt == 0 or known == 0 or size % known:
        raise ValueError(f"cannot reshape array of size {size} into shape {newshape}")
    return newshape[:index] + (size // known,) + newshape[index + 1:]


def cupy_reduced_dims(shape: tuple, strides: tuple, itemsize: int) -> tuple:
    """internal.pyx ``get_reduced_dims``: drop length-1 axes, merge mergeable neighbours."""
    rs: list = []
    rt: list = []
    prev = 0
    for n, s in zip(shape, strides):
        if n == 0:
            return [0], [itemsize]
        if n == 1:
            continue
        if not rs or prev != n * s:
            rs.append(n)
            rt.append(s)
        else:
            rs[-1] *= n
            rt[-1] = s
        prev = s
    return rs, rt


def cupy_nocopy_strides(shape: tuple, strides: tuple, itemsize: int,
                        newshape: tuple) -> tuple | None:
    """_routines_manipulation.pyx ``_get_strides_for_nocopy_reshape``: the strides of the
    reshaped view, or None when the reshape must copy."""
    size = math.prod(shape)
    if size == 1:
        return (itemsize,) * len(newshape)
    if size == 0:
        return cupy_contiguous_strides(newshape, itemsize, True, zeros_for_zerosize=False)
    rs, rt = cupy_reduced_dims(shape, strides, itemsize)
    ndim, dim = len(rs), 0
    last = rs[0] * rt[0]
    out = []
    for n in newshape:
        if n <= 1:
            out.append(last)
            continue
        if dim >= ndim or rs[dim] % n:
            return None
        rs[dim] //= n
        last = rs[dim] * rt[dim]
        out.append(last)
        if rs[dim] == 1:
            dim += 1
    return tuple(out)


def cupy_reshape(shape: tuple, strides: tuple, itemsize: int, newshape: tuple) -> tuple:
    """_routines_manipulation.pyx ``_reshape`` (C order, copy=None): ``(shape, strides,
    copied)``, the strides of the view when no copy is needed, else those of the reshaped
    fresh C copy (``copied`` True)."""
    newshape = cupy_infer_unknown(tuple(newshape), math.prod(shape))
    if newshape == tuple(shape):
        return newshape, tuple(strides), False
    st = cupy_nocopy_strides(tuple(shape), tuple(strides), itemsize, newshape)
    if st is not None:
        return newshape, st, False
    c = cupy_contiguous_strides(tuple(shape), itemsize)
    return newshape, cupy_nocopy_strides(tuple(shape), c, itemsize, newshape), True


def cupy_broadcast_shapes(shapes: list) -> tuple:
    """internal.pyx ``_broadcast_shapes`` (CuPy's message, no space after 'shapes')."""
    nd = max(len(s) for s in shapes)
    out = []
    for dims in zip(*[(1,) * (nd - len(s)) + tuple(s) for s in shapes]):
        d = [x for x in dims if x != 1]
        o = d[0] if d else 1
        if any(x != o for x in d):
            raise ValueError("operands could not be broadcast together with shapes"
                             + " ".join(str(tuple(s)) for s in shapes))
        out.append(o)
    return tuple(out)
