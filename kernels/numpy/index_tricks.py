"""Index-generating functions (indices, ix_, *_indices, ravel_multi_index, unravel_index;
numpy/lib/_index_tricks_impl.py) and arrays from buffers, strings, iterators and files:
sizes follow from the arguments' values where those are Python values, and from metadata
for fakes. Windows are in function_base.py, polynomials in polynomial.py, vander in
twodim_base.py."""
from __future__ import annotations

import inspect
import itertools
import math
import operator
import os
from typing import Any

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from .creation import arange, fresh, tri, tri_mask
from ...layout import (as_shape, broadcast_shapes, c_strides, iterator_order, iterator_out_strides,
                     shape_args, strides_in_order)
from ... import converters
from ...meta import ArrayMeta, as_meta, is_fake, is_meta
from .function_base import unpatched
from ..registry import pyarray_return, quiet, register, transient, unmodelled
from .temporaries import Steps, array_bytes
from .views import reshape_out

INTP = np.dtype(np.intp)
F8 = np.dtype(np.float64)
WEAK = (int, float, complex)


def _reshaped(m: Any, shape: tuple) -> tuple:
    """Strides of the reshape view of the stand-in m (NumPy's reshape rules)."""
    return reshape_out(m, shape).strides


@register(np.indices, tags=("factory",))
def indices(dimensions: Any, dtype: Any = int, sparse: bool = False) -> Any:
    """Dense: a fresh C (N, *dims) array; sparse: reshape views of fresh aranges
    (``arange(dim, dtype).reshape(1, .., dim, .., 1)``, numpy/_core/numeric.py)."""
    dims = tuple(dimensions)
    dt = np.dtype(dtype)
    nd = len(dims)
    out = None if sparse else fresh(as_shape((nd,) + dims), dt)
    res = []
    steps = Steps()
    if out is not None:
        steps.new(array_bytes(out.shape, dt))
    prev = 0
    for i, d in enumerate(dims):
        n = arange(d, dtype=dt).shape[0]
        np.arange(min(n, 3), dtype=dt)  # NumPy's errors for dtypes arange cannot fill
        src = ArrayMeta((n,), dt, c_strides((n,), dt.itemsize))
        r = reshape_out(src, (1,) * i + (as_shape(d)[0],) + (1,) * (nd - i - 1))
        res.append(ArrayMeta(r.shape, dt, r.strides, base_shape=(n,)))
        if out is not None:  # each arange is made while the previous one is still bound
            cur = steps.new(array_bytes((n,), dt))
            steps.free(prev)
            prev = cur
    steps.free(prev)
    steps.done()
    return tuple(res) if sparse else out


shape_args(indices, 0, "dimensions")


@register(np.ix_, tags=("view",))
def ix_(*args: Any) -> tuple:
    """Each sequence reshaped to (1, .., n, .., 1): a view of a fake input, else of a temporary."""
    out = []
    nd = len(args)
    for k, a in enumerate(args):
        real = not is_meta(a)
        m = as_meta(a)
        if m.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if real and m.size == 0:
            m = m.astype(INTP)
        if m.dtype == np.bool_:
            if is_fake(m):
                raise DataDependentError("np.ix_ of a boolean fake: nonzero depends on values")
            m = np.nonzero(m)[0]
            real = True
        shape = (1,) * k + (m.size,) + (1,) * (nd - k - 1)
        if real or not is_fake(m):
            st = _reshaped(ArrayMeta(m.shape, m.dtype, m.strides), shape)
            out.append(ArrayMeta(shape, m.dtype, st, base_shape=tuple(m.shape)))
        else:
            out.append(reshape_out(m, shape))
    return tuple(out)


def tril_count(n: int, k: int, m: int) -> int:
    """Number of true entries of np.tri(n, m, k): sum over rows i of clip(i + k + 1, 0, m)."""
    n, m = max(n, 0), max(m, 0)
    a = min(max(0, -k), n)              # first row with a positive count
    c = min(max(a, m - k - 1), n)       # first row that is full
    mid = (c - a) * (a + c - 1) // 2 + (c - a) * (k + 1)
    return mid + (n - c) * m


def _ints(*vals: Any) -> tuple:
    return tuple(operator.index(v) for v in vals)


def _tri_extent(func: Any, n: Any, k: Any, m: Any) -> tuple:
    """(rows, cols, k) of the np.tri(n, m, k) that tril/triu_indices build (its own errors);
    a k that is not integral is left unsupported (arange would cast its values)."""
    with quiet():  # the bytes are tril/triu_indices' own (_tri_indices_steps)
        rows, cols = tri(n, m, k).shape
    try:
        k = operator.index(k)
    except TypeError:
        if not float(k).is_integer():
            raise UnsupportedOperationError(func, "a non-integral k") from None
        k = int(k)
    return rows, cols, k


@register(np.tril_indices, tags=("factory",))
def tril_indices(n: Any, k: Any = 0, m: Any = None) -> tuple:
    """Two fresh intp arrays, one entry per true element of tri(n, m, k)."""
    n, m, k = _tri_extent(np.tril_indices, n, k, m)
    c = tril_count(n, k, m)
    _tri_indices_steps(n, m, k, c, invert=False)
    return fresh((c,), INTP), fresh((c,), INTP)


shape_args(tril_indices, 0, 1, 2, "n", "k", "m")


def _tri_indices_steps(n: int, m: int, k: int, count: int, invert: bool) -> None:
    """_twodim_base_impl.py tril/triu_indices: tri's bool mask (``~`` makes a second one for
    triu), ``indices(shape, sparse=True)`` (an intp column and row), then one boolean
    selection per index array, each made while the mask and both index arrays live."""
    steps = Steps()
    mask = tri_mask(steps, max(n, 0), max(m, 0), k)
    if invert:
        inv = steps.new(mask)
        steps.free(mask)
        mask = inv
    rows = steps.new(array_bytes((max(n, 0), 1), INTP) + array_bytes((1, max(m, 0)), INTP))
    steps.new(array_bytes((count,), INTP))
    steps.new(array_bytes((count,), INTP))
    steps.free(mask, rows)
    steps.done()


@register(np.triu_indices, tags=("factory",))
def triu_indices(n: Any, k: Any = 0, m: Any = None) -> tuple:
    """Two fresh intp arrays, one entry per false element of tri(n, m, k - 1)."""
    n, m, k = _tri_extent(np.triu_indices, n, k - 1, m)
    c = n * m - tril_count(n, k, m)
    _tri_indices_steps(n, m, k, c, invert=True)
    return fresh((c,), INTP), fresh((c,), INTP)


shape_args(triu_indices, 0, 1, 2, "n", "k", "m")


def _two_d(arr: Any) -> Any:
    m = as_meta(arr)
    if m.ndim != 2:
        raise ValueError("input array must be 2-d")
    return m


@register(np.tril_indices_from, tags=("factory",))
def tril_indices_from(arr: Any, k: Any = 0) -> tuple:
    m = _two_d(arr)
    return tril_indices(m.shape[-2], k=k, m=m.shape[-1])


@register(np.triu_indices_from, tags=("factory",))
def triu_indices_from(arr: Any, k: Any = 0) -> tuple:
    m = _two_d(arr)
    return triu_indices(m.shape[-2], k=k, m=m.shape[-1])


@register(np.diag_indices, tags=("factory",))
def diag_indices(n: Any, ndim: Any = 2) -> tuple:
    """(arange(n),) * ndim: one fresh array, repeated."""
    n = operator.index(n)
    return (fresh((max(n, 0),), INTP),) * operator.index(ndim)


@register(np.diag_indices_from, tags=("factory",))
def diag_indices_from(arr: Any) -> tuple:
    m = as_meta(arr)
    if m.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if any(n != m.shape[0] for n in m.shape):
        raise ValueError("All dimensions of input must be of equal length")
    # _index_tricks_impl.py: ``np.all(diff(arr.shape) == 0)`` (the shape as an intp array,
    # its difference, the comparison with the Python int's 0-d arrays, all()'s 0-d result),
    # all freed before diag_indices makes its arange
    st = Steps()
    nd = m.ndim
    shp = st.new(array_bytes((nd,), np.intp))
    dif = st.new(array_bytes((nd - 1,), np.intp))
    st.free(shp)
    st.temp(16)  # the 0 as an int64 0-d array, re-made as intp
    zero = st.new(8)
    eq = st.new(array_bytes((nd - 1,), np.bool_))
    st.free(zero)
    st.temp(1)
    st.free(dif, eq)
    st.new(array_bytes((m.shape[0],), np.intp))
    st.done()
    return diag_indices(m.shape[0], m.ndim)


@register(np.mask_indices, tags=("factory",))
def mask_indices(n: Any, mask_func: Any, k: Any = 0) -> tuple:
    """nonzero(mask_func(ones((n, n)), k) != 0): counts known for np.triu and np.tril only;
    nonzero's results are views (stride 16) of one (count, 2) buffer."""
    n, k = _ints(n, k)
    if n < 0:
        raise ValueError("negative dimensions are not allowed")  # from ones((n, n))
    if mask_func is np.tril or mask_func is unpatched(np.tril):
        c = tril_count(n, k, n)
    elif mask_func is np.triu or mask_func is unpatched(np.triu):
        c = max(n, 0) ** 2 - tril_count(n, k - 1, n)
    else:
        raise DataDependentError("np.mask_indices: nonzero of the mask function's result")
    _mask_indices_steps(n, mask_func, k, c)
    buf = ArrayMeta((c, 2), INTP, (2 * INTP.itemsize, INTP.itemsize))
    return tuple(ArrayMeta((c,), INTP, (2 * INTP.itemsize,), view_of=buf, offset=j * INTP.itemsize)
                 for j in range(2))


def _mask_indices_steps(n: int, mask_func: Any, k: int, count: int) -> None:
    """_twodim_base_impl.py mask_indices: ``m = ones((n, n), int)`` and ``a = mask_func(m, k)``
    (tril/triu's own temporaries, kernels/misc.py) stay alive while ``a != 0`` and nonzero's
    (count, 2) intp buffer are made."""
    from .hidden import captured
    from .twodim_base import tril, triu
    from .umath import ufunc_steps
    steps = Steps()
    m = ArrayMeta((n, n), INTP, c_strides((n, n), INTP.itemsize))
    ones = steps.new(array_bytes(m.shape, INTP))
    with captured() as cap:
        a = (tril if mask_func is np.tril or mask_func is unpatched(np.tril) else triu)(m, k)
    steps.temp(cap.transient + array_bytes(a.shape, a.dtype))
    kept = steps.new(array_bytes(a.shape, a.dtype))
    ne = ufunc_steps(steps, np.not_equal, ArrayMeta(a.shape, a.dtype, a.strides), 0)[1]
    steps.new(array_bytes((count, 2), INTP))
    steps.free(ones, kept, ne)
    steps.done()


# --- ravel_multi_index / unravel_index ------------------------------------------------------


def _dims(dims: Any) -> tuple:
    if isinstance(dims, (int, np.integer)):
        dims = (dims,)
    return tuple(operator.index(d) for d in dims)


def _intp_castable(m: Any, what: str) -> None:
    if not np.can_cast(m.dtype, INTP, "same_kind") or m.dtype.kind not in "biu":
        raise TypeError(f"Cannot cast array data from {m.dtype!r} to dtype('int64') according "
                        "to the rule 'safe'" if what == "safe" else "only int indices permitted")


@register(np.ravel_multi_index, tags=("copy",))
def ravel_multi_index(multi_index: Any, dims: Any, mode: Any = "raise", order: Any = "C") -> ArrayMeta:
    """An intp array of the broadcast shape, laid out in NpyIter's K order of the indices."""
    d = _dims(dims)
    idx = [as_meta(i) for i in multi_index]
    if len(idx) != len(d):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(d)}")
    converters.clipmodes(mode, len(d))
    order = converters.order(order, "C", "CF")
    for m in idx:  # converted to intp under same_kind casting (uint64 is accepted)
        _intp_castable(m, "same_kind")
    known = [m for m in idx if not is_fake(m)]
    if len(known) == len(idx):
        r = unpatched(np.ravel_multi_index)(tuple(known), dims, mode=mode, order=order)
        if isinstance(r, np.generic):  # scalar indices: a scalar, from a 0-d array
            transient(INTP.itemsize)
            return ArrayMeta((), INTP, (), scalar=True)
        return ArrayMeta(np.shape(r), INTP, c_strides(np.shape(r), 8))
    shape = broadcast_shapes(*[m.shape for m in idx])
    if 0 in d and math.prod(shape):  # checked per element, so only when there is one
        raise ValueError("cannot unravel if shape has zero entries (is empty).")
    if math.prod(d) > np.iinfo(np.intp).max:
        raise ValueError("invalid dims: array size defined by dims is larger than the maximum "
                         "possible size.")
    if any(n < 0 for n in d):
        raise ValueError("dimensions must be non-negative")
    st = iterator_out_strides(shape, INTP.itemsize,
                              [(m.shape, m.strides, m.flags.f_contiguous) for m in idx])
    # arr_ravel_multi_index returns PyArray_Return of the iterator's output: 0-d is a scalar
    return pyarray_return(ArrayMeta(shape, INTP, st))


shape_args(ravel_multi_index, 1, "dims")


@register(np.unravel_index, tags=("copy",))
def unravel_index(indices: Any, shape: Any, order: Any = "C") -> tuple:
    """One intp view per dimension of a fresh (*indices.shape, len(shape)) buffer whose
    index axes follow the indices' K order and whose last axis is fastest."""
    if not is_meta(indices):  # values at hand (a list, a scalar): NumPy checks them itself
        r = unpatched(np.unravel_index)(indices, shape, order)
        # PyArray_FromAny(indices, intp): a new array of them, alive through the call
        if not (isinstance(indices, np.ndarray) and indices.dtype == INTP):
            transient(array_bytes(np.shape(indices), INTP))
            if isinstance(indices, np.generic) and indices.dtype != INTP:
                transient(indices.dtype.itemsize)  # the scalar's own 0-d array, then cast
        if not r or isinstance(r[0], np.generic):  # a scalar index: scalars, from an (nd,) buffer
            transient(len(r) * INTP.itemsize)
            return tuple(ArrayMeta((), INTP, (), scalar=True) for _ in r)
    d = _dims(shape)
    m = as_meta(indices)
    if m.dtype.kind not in "biu" or not np.can_cast(m.dtype, INTP, "same_kind"):
        raise TypeError("only int indices permitted")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    if not d:
        raise UnsupportedOperationError(np.unravel_index, "an empty shape")
    if is_fake(m) and 0 in d and m.size:  # every index is out of bounds, whatever its value
        raise ValueError("index is out of bounds for array with size 0")
    nd = len(d)
    isz = INTP.itemsize
    shp = tuple(m.shape)
    if 0 in shp:  # an empty iteration keeps C order and plain products of the lengths
        st: Any
        st, s = [0] * len(shp), isz * nd
        for i in range(len(shp) - 1, -1, -1):
            st[i] = s
            s *= shp[i]
        st = tuple(st)
    else:
        perm = iterator_order(shp, [(shp, tuple(m.strides))])
        st = strides_in_order(shp, isz * nd, perm)
    buf = ArrayMeta(shp + (nd,), INTP, tuple(st) + (isz,))
    return tuple(ArrayMeta(shp, INTP, st, view_of=buf, offset=j * isz) for j in range(nd))


shape_args(unravel_index, 1, "shape")


# --- from buffers, strings, iterators, files -------------------------------------------------


@register(np.frombuffer, tags=("factory",))
def frombuffer(buffer: Any, dtype: Any = float, count: Any = -1, offset: Any = 0, *,
               like: Any = None) -> ArrayMeta:
    """A view of the buffer: its metadata from NumPy on the real buffer (no copy made)."""
    if is_fake(buffer):
        raise UnsupportedOperationError(np.frombuffer, "a fake buffer")
    r = unpatched(np.frombuffer)(buffer, dtype=dtype, count=count, offset=offset)
    # a read-only buffer (bytes) never lets the array be made writeable: warn_on_write None
    return ArrayMeta(r.shape, r.dtype, r.strides, writeable=r.flags.writeable, base_shape=r.shape,
                     warn_on_write=False if r.flags.writeable else None)


@register(np.fromstring, tags=("factory",))
def fromstring(string: Any, dtype: Any = float, count: Any = -1, *, sep: str = "",
               like: Any = None) -> ArrayMeta:
    """Parsed for real (the string is in memory): a fresh 1-d array of what was read."""
    r = np.fromstring(string, dtype=dtype, count=count, sep=sep)
    return fresh(r.shape, r.dtype)


@register(np.fromiter, tags=("factory",))
def fromiter(iter: Any, dtype: Any, count: Any = -1, *, like: Any = None) -> ArrayMeta:
    """Consumes the iterable as NumPy does (its items are Python values already in memory):
    NumPy's own fromiter on the first 16 items gives the dtype, its errors and a subarray
    dtype's item shape; the rest are counted, not stored."""
    count = operator.index(count)
    it = builtins_iter(iter)
    head_n = 16 if count < 0 else min(count, 16)
    head = unpatched(np.fromiter)(itertools.islice(it, head_n), dtype=dtype, count=-1)
    n = head.shape[0]
    if n == head_n:
        rest = itertools.islice(it, None if count < 0 else count - head_n)
        n += sum(1 for _ in rest)
    if 0 <= count and n < count:
        raise ValueError(f"iterator too short: Expected {count} but iterator had only {n} items.")
    # the array grows as items come (ctors.c PyArray_FromIter): C strides even when empty
    shape = (n,) + head.shape[1:]
    return ArrayMeta(shape, head.dtype, c_strides((1,) + shape[1:], head.dtype.itemsize))


def builtins_iter(x: Any) -> Any:
    import builtins
    return builtins.iter(x)


@register(np.fromfile, tags=("factory",))
def fromfile(file: Any, dtype: Any = float, count: Any = -1, sep: str = "", offset: Any = 0, *,
             like: Any = None) -> ArrayMeta:
    """Binary files named by path: the length from the file's size; otherwise unsupported."""
    dt = np.dtype(dtype)
    if sep != "" or not isinstance(file, (str, bytes, os.PathLike)):
        raise UnsupportedOperationError(np.fromfile, "text mode or an open file object")
    if dt.itemsize == 0:
        raise ValueError("The elements are 0-sized.")
    size = os.path.getsize(file) - operator.index(offset)
    avail = max(size, 0) // dt.itemsize
    count = operator.index(count)
    n = avail if count < 0 else count
    if n > avail:
        raise UnsupportedOperationError(np.fromfile, "a count beyond the end of the file")
    return fresh((n,), dt)


_LOADTXT = inspect.signature(np.loadtxt)
_MIN_BLOCK_SIZE = 1 << 13  # textreading/rows.c MIN_BLOCK_SIZE


def _grow(size: int, min_grow: int) -> int:
    """textreading/growth.c grow_size_and_multiply (rows): +25%, at least min_grow, at most
    2**20; NumPy clears the min_grow bit (``&= ~min_grow``), it does not round."""
    growth = size >> 2
    if growth <= min_grow:
        return size + min_grow
    return (size + min(growth, 1 << 20) + min_grow - 1) & ~min_grow


def loadtxt_buffer_bytes(rows: int, row_size: int, max_rows: int) -> int:
    """The largest buffer textreading/rows.c read_rows holds while reading ``rows`` rows of
    ``row_size`` bytes: with max_rows >= 0 that many rows at once, otherwise a first block
    of the power of two rows that fills 8 KiB, grown by _grow when full (PyDataMem_UserRENEW,
    so one buffer at a time), then shrunk to the rows read. No row read: an empty array."""
    if rows == 0:
        return 1  # PyArray_Empty of no elements: NumPy allocates one byte
    if max_rows >= 0:
        return max(max_rows * row_size, 1)
    per_block = 512 if row_size == 0 else 1
    while row_size and per_block < (_MIN_BLOCK_SIZE + row_size - 1) // row_size:
        per_block *= 2
    allocated = per_block
    while allocated < rows:
        allocated = _grow(allocated, per_block)
    return max(allocated * row_size, 1)


@register(np.loadtxt, tags=("factory", "data-dependent"))
def loadtxt(*args: Any, **kwargs: Any) -> ArrayMeta:
    """Reads the real file (its values decide the shape): a fresh array of the result's
    shape and dtype, charged as its output, and the parser's growing buffer
    (loadtxt_buffer_bytes) before it. Flexible dtypes (``"U"``, ``"S"``, ``"M8"`` without a
    size or unit) are read in object chunks and cast, and converters make Python objects:
    those bytes are left unmodelled (numpy/lib/_npyio_impl.py ``_read``)."""
    r, c = _read_for_real(np.loadtxt, args, kwargs)
    bound = _LOADTXT.bind(*args, **kwargs)
    bound.apply_defaults()
    a = bound.arguments
    dt = np.dtype(a["dtype"]) if a["dtype"] is not None else None
    if dt is None or dt in _FLEXIBLE or a["converters"] is not None:
        unmodelled("np.loadtxt with a flexible dtype or converters: its object chunks and "
                   "Python values are not modelled")
        return r
    cshape = c.shape
    if dt.names is None:  # homogeneous: read_rows makes (rows, columns)
        rows, row_size = cshape[0], dt.itemsize * cshape[1]
    else:
        rows, row_size = cshape[0], dt.itemsize
    max_rows = -1 if a["max_rows"] is None else operator.index(a["max_rows"])
    transient(loadtxt_buffer_bytes(rows, row_size, max_rows), before_outputs=True)
    return r


_FLEXIBLE = {np.dtype("S0"), np.dtype("U0"), np.dtype("M8"), np.dtype("m8")}


@register(np.genfromtxt, tags=("factory", "data-dependent"))
def genfromtxt(*args: Any, **kwargs: Any) -> ArrayMeta:
    """As loadtxt; masked (``usemask``) and record results are left unsupported. The bytes of
    genfromtxt's Python pass (rows as lists, converted columns) are left unmodelled."""
    r = _read_for_real(np.genfromtxt, args, kwargs)[0]
    unmodelled("np.genfromtxt's temporaries (its rows as Python lists, the arrays it builds "
               "from them) are not modelled")
    return r


def _read_for_real(func: Any, args: tuple, kwargs: dict) -> tuple[ArrayMeta, Any]:
    """(the result's metadata, the real array the reader made before any squeeze)."""
    if any(is_fake(a) for a in (*args, *kwargs.values())):
        raise UnsupportedOperationError(func, "a fake argument")
    r = unpatched(func)(*args, **kwargs)
    if type(r) is not np.ndarray:
        raise UnsupportedOperationError(func, f"a {type(r).__name__} result")
    base = r.base
    if isinstance(base, np.ndarray):  # genfromtxt's ``output.squeeze()``: a view of the parse
        if base.base is not None or base.dtype != r.dtype or \
                base.__array_interface__["data"][0] != r.__array_interface__["data"][0]:
            raise UnsupportedOperationError(func, "a result viewing a buffer it does not start")
        return ArrayMeta(r.shape, r.dtype, r.strides, base_shape=base.shape), base
    return ArrayMeta(r.shape, r.dtype, r.strides), r


# --- polynomials ------------------------------------------------------------------------------


