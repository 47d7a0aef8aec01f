"""The data-allocator bytes of NumPy's Python-level functions beyond their outputs.

Functions written in Python (numpy/_core/numeric.py, numpy/lib/_function_base_impl.py,
_twodim_base_impl.py, _methods.py, ...) make intermediate arrays: masks, casts, 0-d arrays
of Python scalars, index arrays. Their kernels replay those allocations in order on a
``Steps`` record; its ``done()`` reports what was alive at the call's worst moment beyond
what survives it (the outputs) as ``registry.transient``, so ``mode.memory.peak`` is
NumPy's to the byte. The small conversions every such function makes are written once here.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...meta import as_number, is_meta
from ...converters import Casting
from ..registry import transient

_PY_SCALARS = (bool, int, float, complex)


class Steps:
    """Buffers allocated and freed in the order the real function does it (bytes only).

    ``new`` allocates (and returns the byte count, for the matching ``free``); ``temp``
    is a buffer made and dropped within one statement. What is still alive at ``done()``
    are the outputs the fake charges itself: the transient is the peak above them.
    """

    __slots__ = ("live", "peak")

    def __init__(self) -> None:
        self.live = 0
        self.peak = 0

    def new(self, nbytes: int) -> int:
        self.live += nbytes
        if self.live > self.peak:
            self.peak = self.live
        return nbytes

    def free(self, *nbytes: int) -> None:
        for n in nbytes:
            self.live -= n

    def temp(self, nbytes: int) -> None:
        self.new(nbytes)
        self.free(nbytes)

    def keep(self, nbytes: int) -> None:
        """The fake keeps ``nbytes`` alive that the real call frees: a 0-d array standing
        for the NumPy scalar the real call returns (the peak is the real one)."""
        self.live += nbytes

    def done(self) -> None:
        """Report the peak above what stays alive (the outputs) as the call's transient bytes."""
        if self.peak > self.live:
            transient(self.peak - self.live)


def array_bytes(shape: tuple, dtype: Any) -> int:
    """Bytes NumPy's allocator hands out for a new array (zero-size arrays get 1 byte,
    numpy/_core/src/multiarray/ctors.c ``PyArray_NewFromDescr_int``)."""
    return max(math.prod(shape) * np.dtype(dtype).itemsize, 1)


def asarray_bytes(obj: Any) -> int:
    """Bytes ``np.asarray(obj)`` allocates: none for arrays (real or fake), a new buffer for
    Python and NumPy scalars and for sequences of them. A sequence holding arrays is stacked
    into one buffer, counted as the parts' total (exact when they share a dtype)."""
    if isinstance(obj, np.ndarray) or is_meta(obj):
        return 0
    if isinstance(obj, (list, tuple)) and any(isinstance(x, (list, tuple, np.ndarray))
                                              or is_meta(x) for x in obj):
        return sum(array_bytes(x.shape, x.dtype) if isinstance(x, np.ndarray) or is_meta(x)
                   else asarray_bytes(x) for x in obj)
    return max(np.asarray(obj).nbytes, 1)


def copyto_bytes(dtype: Any, value: Any) -> int:
    """Bytes ``np.copyto(dst, value, casting='unsafe')`` allocates for a scalar value.

    The scalar becomes a 0-d array of its own dtype (``np.asarray``). A Python int, float or
    complex is then re-made in the dtype NEP 50 gives it next to ``dst``
    (numpy/_core/src/multiarray/multiarraymodule.c ``array_copyto``:
    ``npy_find_descr_for_scalar`` + ``npy_update_operand_for_scalar``), except when that is
    already its dtype; a Python int is always re-made. Python bools and arrays are used as
    they are. Measured on numpy 2.4 for every dtype family.
    """
    value = as_number(value)  # a fake Python number is copied as the number is
    if isinstance(value, np.ndarray) or is_meta(value):
        return 0
    first = asarray_bytes(value)
    t = type(value)
    if t not in _PY_SCALARS or t is bool:
        return first
    try:
        res = np.result_type(np.dtype(dtype), value)
    except (TypeError, OverflowError):
        return first
    if t is int or res != np.asarray(value).dtype:
        return first + res.itemsize
    return first


def carray_bytes(x: Any, dt: Any, writeable: bool = True) -> int:
    """Bytes ``PyArray_FromAny(x, dt, NPY_ARRAY_CARRAY)`` allocates: none for an array (real
    or fake) of exactly ``dt`` that is C-contiguous, aligned and writeable (``writeable``
    False: NPY_ARRAY_CARRAY_RO, read-only too), else a C copy in ``dt``; a Python object is
    converted straight into ``dt`` (empty ones get 1 byte)."""
    dt = np.dtype(dt)
    if not (is_meta(x) or isinstance(x, np.ndarray)):
        return max(np.asarray(as_number(x), dtype=dt).nbytes, 1)
    fl = x.flags
    if fl.c_contiguous and fl.aligned and (fl.writeable or not writeable) and x.dtype == dt:
        return 0
    return array_bytes(tuple(x.shape), dt)


def along_axis_bytes(ashape: tuple, ax: int) -> int:
    """_shape_base_impl.py _make_along_axis_idx: ``arange(n)`` for every axis but ``ax``,
    alive while the fancy index is used (take_along_axis, put_along_axis)."""
    return sum(array_bytes((n,), _INTP) for d, n in enumerate(ashape) if d != ax)


def setitem_bytes(dtype: Any, value: Any) -> int:
    """Bytes ``a[...] = value`` allocates for a scalar value: a 0-d array of ``a``'s dtype
    (numpy/_core/src/multiarray/mapping.c ``array_assign_subscript`` packs the scalar)."""
    value = as_number(value)
    if isinstance(value, np.ndarray) or is_meta(value):
        return 0
    if type(value) in _PY_SCALARS or isinstance(value, np.generic):
        return np.dtype(dtype).itemsize
    return asarray_bytes(value)


_INTP = np.dtype(np.intp)
BUFSIZE = 8192  # NPY_BUFSIZE: elements per buffered operand (numpy/_core/include/numpy/ndarraytypes.h)


def divide_by_count_bytes(shape: tuple, dtype: Any, count: Any = _INTP) -> int:
    """Bytes of ``true_divide(ret, count, out=ret, casting='unsafe')`` with ``count`` a NumPy
    scalar (_methods.py ``_mean``, ``_var``): the count as a 0-d array and its cast to the
    loop dtype; ``ret`` itself is cast into a copy when it is 0-d or 1-d of at most
    NPY_BUFSIZE elements (numpy/_core/src/umath/ufunc_object.c ``check_for_trivial_loop``
    copies such inputs; larger or N-d ones are cast in the iterator's buffers, off the data
    allocator). Measured on numpy 2.4 for float16/32/64, longdouble, complex and int ``ret``.
    """
    dtype, count = np.dtype(dtype), np.dtype(count)
    try:
        loop = np.true_divide.resolve_dtypes((dtype, count, None))
    except (TypeError, ValueError):
        return 0
    n = count.itemsize + (loop[1].itemsize if loop[1] != count else 0)
    if loop[0] != dtype and len(shape) <= 1 and math.prod(shape) <= BUFSIZE:
        n += array_bytes(shape, loop[0])
    return n


def ufunc_bytes(ufunc: np.ufunc, *operands: Any, out: Any = None, casting: Casting = "same_kind") -> int:
    """Bytes a ufunc call allocates besides its output (no ``where=``), as measured on numpy 2.4.

    - a Python scalar becomes a 0-d array of its loop dtype;
    - a NumPy scalar becomes a 0-d array of its loop dtype; with ``out=`` given, a 0-d array
      of its own dtype, cast into a second one when the loop wants another dtype;
    - array inputs (in order) whose dtype differs from the loop's are cast into copies while
      they are 0-d or 1-d of at most NPY_BUFSIZE elements; the first that is not (or cannot
      be cast safely under ``casting``) ends the copying: the iterator casts the rest in its
      buffers, off the data allocator
      (numpy/_core/src/umath/ufunc_object.c ``check_for_trivial_loop``); 0-d inputs are
      cast into copies wherever they stand.
    Known gap: ``f4 (4, 4) * np.intp(3)`` allocates 16 bytes, counted 8 (``np.intp(3) * a``
    allocates 8).
    """
    keys: list = []
    operands = tuple(as_number(x) for x in operands)
    for x in operands:
        t = type(x)
        keys.append(t if t in (int, float, complex) else
                    (np.dtype(type(x)) if isinstance(x, np.generic) else x.dtype))
    outs = tuple(o.dtype if o is not None else None
                 for o in (out if type(out) is tuple else (out,) * ufunc.nout))
    try:
        loop = ufunc.resolve_dtypes(tuple(keys) + outs, casting="unsafe")
    except (TypeError, ValueError):
        return 0
    n = 0
    copying = True
    for x, dt in zip(operands, loop):
        t = type(x)
        if t in (int, float, complex, bool):
            n += dt.itemsize
            continue
        if isinstance(x, np.generic):
            own = np.dtype(type(x))
            n += dt.itemsize if out is None else own.itemsize + (dt.itemsize if own != dt else 0)
            continue
        fl = getattr(x, "flags", None)  # an unaligned array needs its copy as a cast does
        aligned = fl.aligned if fl is not None else getattr(x, "aligned", True)
        if (x.dtype == dt and aligned) or not (copying or x.ndim == 0):
            continue
        if not np.can_cast(x.dtype, dt, casting) or not (
                x.ndim == 0 or (x.ndim == 1 and x.shape[0] <= BUFSIZE)):
            copying = False
            continue
        n += array_bytes(x.shape, dt)
    return n


def scalar_ctor_bytes(dtype: Any) -> int:
    """Bytes ``dtype.type(number)`` allocates for a Python number: the 0-d array NumPy's
    scalar constructors convert through (numpy/_core/src/multiarray/scalartypes.c.src), its
    itemsize; float64 subclasses Python's float and is made directly. Measured on numpy 2.4
    for every number dtype."""
    dt = np.dtype(dtype)
    return 0 if dt == np.float64 else dt.itemsize


def scalar_binop_bytes(ufunc: np.ufunc, x: Any, y: Any) -> int:
    """Peak bytes of a Python operator on two NumPy scalars of dtypes ``x`` and ``y``
    (``np.float32(s) / np.intp(n)``). Scalar math (numpy/_core/src/umath/scalarmath.c.src
    ``convert_to_<name>``) computes without arrays when one operand casts safely to the
    other's type; otherwise (promotion required: float32 and int64 give float64) the generic
    array path makes a 0-d array of each operand, replaced by a 0-d copy in the loop dtype
    when that differs (``check_for_trivial_loop``), then the 0-d result. Measured on numpy
    2.4: float32 / int64 24 bytes, complex64 / int64 48, float64 / int64 none (number types
    other than bool: a NumPy bool takes the array path)."""
    x, y = np.dtype(x), np.dtype(y)
    if x == y or np.can_cast(y, x, "safe") or np.can_cast(x, y, "safe"):
        return 0
    try:
        loop = ufunc.resolve_dtypes((x, y, None))
    except (TypeError, ValueError):
        return 0
    live = peak = 0
    for own, dt in zip((x, y), loop):
        live += own.itemsize
        peak = max(peak, live)
        if own != dt:
            live += dt.itemsize - own.itemsize
            peak = max(peak, live + own.itemsize)
    return max(peak, live + loop[2].itemsize)


def remake_bytes(ufunc: np.ufunc, *operands: Any) -> int:
    """Bytes of the Python numbers' own 0-d arrays alive while each is re-made in its loop
    dtype, before the outputs exist (ufunc_object.c ``convert_ufunc_arguments`` then
    ``npy_update_operand_for_scalar``): a Python int always (int64 first), a float or complex
    when the loop dtype is another; a NumPy scalar's when it is cast into a copy. ``ufunc_bytes`` counts the re-made arrays; these raise
    the peak only where the outputs are smaller (empty and 0-d results). Measured on numpy
    2.4: ``np.add(np.arange(0), 1)`` peaks at 16 bytes."""
    operands = tuple(as_number(x) for x in operands)
    if not any(type(x) in (int, float, complex) or isinstance(x, np.generic) for x in operands):
        return 0
    keys = [type(x) if type(x) in (int, float, complex, bool) else
            (np.dtype(type(x)) if isinstance(x, np.generic) else x.dtype) for x in operands]
    try:
        loop = ufunc.resolve_dtypes(tuple(keys) + (None,) * ufunc.nout, casting="unsafe")
    except (TypeError, ValueError):
        return 0
    n = 0
    for x, dt in zip(operands, loop):
        t = type(x)
        if t in (int, float, complex):
            try:
                own = np.asarray(x).dtype
            except OverflowError:
                continue
            if t is int or own != dt:
                n += own.itemsize
        elif isinstance(x, np.generic) and np.dtype(type(x)) != dt:
            n += np.dtype(type(x)).itemsize  # a NumPy scalar's 0-d array, cast into a copy
    return n


# --- elementwise expressions: Python operators on arrays, as NumPy runs them -----------------

ELIDE_BYTES = 256 * 1024  # NPY_MIN_ELIDE_BYTES (numpy/_core/src/multiarray/temp_elide.c)


class Val:
    """An operand of a replayed expression: an input (or a view of one: ``temp`` False) or
    a temporary the expression made (``temp`` True, freed when it is used up)."""

    __slots__ = ("shape", "dtype", "temp", "aligned")

    def __init__(self, shape: tuple, dtype: Any, temp: bool = False, aligned: bool = True) -> None:
        self.shape, self.dtype, self.temp = tuple(shape), np.dtype(dtype), temp
        self.aligned = aligned  # a view of an unaligned input (temporaries are aligned)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        return array_bytes(self.shape, self.dtype)


def _elides(t: Any, other: Any, res: np.dtype) -> bool:
    """temp_elide.c ``can_elide_temp`` for a temporary ``t``: at least NPY_MIN_ELIDE_BYTES, a
    number dtype, ``other`` a scalar or an array of t's shape castable safely to t's dtype,
    and the result in t's dtype."""
    if not isinstance(t, Val) or not t.temp or t.dtype.kind not in "biufc" or res != t.dtype:
        return False
    if t.nbytes < ELIDE_BYTES:
        return False
    if type(other) in _PY_SCALARS or isinstance(other, np.generic):  # as PyArray_EnsureArray
        return np.can_cast(np.asarray(other).dtype, t.dtype, "safe")  # makes them (faketensor/_elide.py)
    return (other.ndim == 0 or other.shape == t.shape) and np.can_cast(other.dtype, t.dtype, "safe")


def binary(steps: Steps, ufunc: np.ufunc, x: Any, y: Any, commutative: bool = False) -> Val:
    """``x OP y`` (a Python operator on arrays or scalars): the result, a new temporary or,
    by NumPy's temporary elision, a temporary operand reused in place (number.c
    ``try_binary_elide``, the left operand, or either one for commutative operators);
    temporaries used up are freed."""
    x, y = as_number(x), as_number(y)
    dts = [type(v) if type(v) in _PY_SCALARS else
           (np.dtype(type(v)) if isinstance(v, np.generic) else v.dtype) for v in (x, y)]
    res = ufunc.resolve_dtypes((dts[0], dts[1], None))[2]
    shapes = [getattr(v, "shape", ()) for v in (x, y)]
    shape = tuple(np.broadcast_shapes(*shapes))
    target = x if _elides(x, y, res) and x.shape == shape else (
        y if commutative and _elides(y, x, res) and y.shape == shape else None)
    extra = ufunc_bytes(ufunc, x, y, out=target)
    if target is not None:
        steps.temp(extra)
        other = y if target is x else x
        if isinstance(other, Val) and other.temp:
            steps.free(other.nbytes)
        return target
    steps.new(extra)
    steps.temp(remake_bytes(ufunc, x, y))
    out = Val(shape, res, True)
    steps.new(out.nbytes)
    steps.free(extra)
    for v in (x, y):
        if isinstance(v, Val) and v.temp:
            steps.free(v.nbytes)
    return out


def used(steps: Steps, *vals: Any) -> None:
    """The expression's values are used up (assigned into an output, ``out[...] = v``)."""
    for v in vals:
        if isinstance(v, Val) and v.temp:
            steps.free(v.nbytes)


def call(steps: Steps, ufunc: np.ufunc, *args: Any) -> Val:
    """``ufunc(*args)`` called as a function (no elision): a new result; temporaries among
    the arguments are used up."""
    args = tuple(as_number(v) for v in args)
    dts = [type(v) if type(v) in _PY_SCALARS else
           (np.dtype(type(v)) if isinstance(v, np.generic) else v.dtype) for v in args]
    res = ufunc.resolve_dtypes(tuple(dts) + (None,))[-1]
    extra = steps.new(ufunc_bytes(ufunc, *args))
    steps.temp(remake_bytes(ufunc, *args))
    out = Val(tuple(np.broadcast_shapes(*[getattr(v, "shape", ()) for v in args])), res, True)
    steps.new(out.nbytes)
    steps.free(extra)
    used(steps, *args)
    return out


def partition_bytes(shape: tuple, strides: tuple, dtype: Any, axis: int, nkth: int) -> int:
    """What ``ndarray.partition(kth, axis)`` allocates (item_selection.c
    ``PyArray_Partition``): kth as an intp array and its sorted copy, and a buffer of one
    lane when the axis is not contiguous or the data byte-swapped (``_new_sortlike``'s
    ``needcopy``)."""
    dt = np.dtype(dtype)
    itemsize = dt.itemsize
    n = shape[axis] if shape else 1
    lane = n * itemsize if n > 1 and math.prod(shape) and (  # nothing to sort: no lane
        strides[axis] != itemsize or not dt.isnative) else 0
    return 16 * nkth + lane


def take_bytes(shape: tuple, strides: tuple, dtype: Any, nidx: int) -> int:
    """What ``a.take(indices, axis)`` allocates besides its result (item_selection.c
    ``PyArray_TakeFrom``): the indices as an intp array, and a C-contiguous copy of a
    non-C-contiguous ``a`` (``PyArray_CheckAxis(..., NPY_ARRAY_CARRAY_RO)``)."""
    from ...layout import contiguity
    c = contiguity(tuple(shape), tuple(strides), np.dtype(dtype).itemsize)[0]
    return 8 * nidx + (0 if c else array_bytes(shape, dtype))


def unary(steps: Steps, ufunc: np.ufunc, x: Any) -> Val:
    """``-x``, ``abs(x)``, ``~x`` (a Python operator): a temporary ``x`` of at least
    NPY_MIN_ELIDE_BYTES is reused in place (temp_elide.c ``can_elide_temp_unary``)."""
    if isinstance(x, Val) and x.temp and x.dtype.kind in "biufc" and x.nbytes >= ELIDE_BYTES \
            and ufunc.resolve_dtypes((x.dtype, None))[1] == x.dtype:
        steps.temp(ufunc_bytes(ufunc, x, out=x))
        return x
    return call(steps, ufunc, x)
