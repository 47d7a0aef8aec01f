"""View and copy kernels: transpose, reshape, ravel, squeeze, broadcasting, dtype views,
real/imag, diagonal, as_strided, flips, astype and copies, as NumPy 2.4 lays them out."""
from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import warnings

import numpy as np

from .convert_datatype import cast_loop, check_value_cast
from ..._errors import DataDependentError, UnsupportedOperationError
from ...layout import (AxisError, as_intp, as_shape, broadcast_shapes, broadcast_strides,
                     c_strides, check_shape, dense_in_stride_order, f_strides, fill_strides,
                     legacy_broadcast, like_strides, normalize_axis, reshape_strides,
                     resolve_shape, shape_args)
from ... import converters
from ...meta import ArrayMeta, as_meta, check_writeable, is_fake
from ..._storage import SCALAR
from ..registry import pyarray_return, register, transient

_stride_tricks = np.lib.stride_tricks


# --- helpers -------------------------------------------------------------------


def _geo(m: Any, dtype: np.dtype | None = None, offset: int = 0) -> ArrayMeta:
    """m's own layout (shape, dtype, strides; offset 0) as a record: the geometry a view
    kernel transforms and ``emit`` turns into a view of m."""
    return ArrayMeta(tuple(m.shape), m.dtype if dtype is None else dtype, tuple(m.strides),
                     None, offset)


def emit(src: Any, g: ArrayMeta, writeable: bool | None = None, warn_on_write: bool = False,
         inherit_warn: bool = True) -> ArrayMeta:
    """``g`` (shape, dtype, strides, byte offset from src's first element) as a view of
    ``src``; a view of a temporary when src is not a fake."""
    if is_fake(src):
        if inherit_warn and getattr(src, "_warn_on_write", False) is True:  # as NumPy's views
            warn_on_write = True
        # positional (view_of, offset, writeable, base_shape, device, warn_on_write): a hot path
        return ArrayMeta(g.shape, g.dtype, g.strides, src, g.offset, writeable, None, None,
                         warn_on_write)
    return ArrayMeta(g.shape, g.dtype, g.strides, None, g.offset, writeable, tuple(src.shape))


def itself(src: Any) -> Any:
    """The input returned as is (a fake), or the fresh temporary a non-array became."""
    if is_fake(src):
        return src
    return ArrayMeta(tuple(src.shape), src.dtype, tuple(src.strides))


def isfortran(m: Any) -> bool:
    """NumPy's PyArray_ISFORTRAN: F-contiguous and not C-contiguous."""
    return bool(m.flags.f_contiguous and not m.flags.c_contiguous)


def permute(g: ArrayMeta, perm: tuple) -> ArrayMeta:
    return ArrayMeta(tuple(g.shape[p] for p in perm), g.dtype,
                     tuple(g.strides[p] for p in perm), None, g.offset)


def flip_axes(g: ArrayMeta, axes: tuple) -> ArrayMeta:
    """Reverse the given axes (basic slicing with ::-1)."""
    shape, strides, off = g.shape, list(g.strides), g.offset
    for ax in axes:
        n = shape[ax]
        if n > 0:  # an empty slice keeps step 1 (and its stride)
            off += (n - 1) * strides[ax]
            strides[ax] = -strides[ax]
    return ArrayMeta(shape, g.dtype, tuple(strides), None, off)


def _fresh(shape: tuple, dtype: np.dtype, order: str = "C", writeable: bool | None = None) -> ArrayMeta:
    st = f_strides(shape, dtype.itemsize) if order == "F" else c_strides(shape, dtype.itemsize)
    return ArrayMeta(shape, dtype, st, writeable=writeable)


# --- transpose family --------------------------------------------------------------


def transpose_geo(m: Any, axes: Any) -> ArrayMeta:
    """PyArray_Transpose: reverse, or the permutation ``axes`` checked as NumPy does."""
    g = _geo(m)
    nd = len(g.shape)
    if axes is None:
        return permute(g, tuple(range(nd - 1, -1, -1)))
    axes = converters.intp_tuple(axes)
    if len(axes) != nd:
        raise ValueError("axes don't match array")
    perm = tuple(normalize_axis(a, nd) for a in axes)
    if len(set(perm)) != nd:
        raise ValueError("repeated axis in transpose")
    return permute(g, perm)


@register("ndarray.transpose", tags=("view",))
def ndarray_transpose(self, *axes) -> ArrayMeta:
    arg: Any = axes
    if len(axes) == 0:
        arg = None
    elif len(axes) == 1:
        arg = axes[0]
    return emit(self, transpose_geo(self, arg))


@register(np.transpose, tags=("view",))
def transpose(a, axes=None) -> ArrayMeta:
    m = as_meta(a)
    return emit(m, transpose_geo(m, axes))


def swap_geo(m: Any, axis1: Any, axis2: Any) -> ArrayMeta:
    nd = m.ndim
    a1 = normalize_axis(axis1, nd, "axis1")
    a2 = normalize_axis(axis2, nd, "axis2")
    perm = list(range(nd))
    perm[a1], perm[a2] = a2, a1
    return permute(_geo(m), tuple(perm))


@register(np.swapaxes, tags=("view",))
def swapaxes(a, axis1, axis2) -> ArrayMeta:
    m = as_meta(a)
    return emit(m, swap_geo(m, axis1, axis2))


@register("ndarray.swapaxes", tags=("view",))
def ndarray_swapaxes(self, axis1, axis2) -> ArrayMeta:
    return emit(self, swap_geo(self, axis1, axis2))


@register(np.matrix_transpose, tags=("view",))
def matrix_transpose(x) -> ArrayMeta:
    m = as_meta(x)
    if m.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {m.ndim}")
    return emit(m, swap_geo(m, -1, -2))


@register(np.moveaxis, tags=("view",))
def moveaxis(a, source, destination) -> ArrayMeta:
    m = as_meta(a)
    nd = m.ndim
    src = converters.axis_tuple(source, nd, "source")
    dst = converters.axis_tuple(destination, nd, "destination")
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(nd) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return emit(m, permute(_geo(m), tuple(order)))


@register(np.rollaxis, tags=("view",))
def rollaxis(a, axis, start=0) -> ArrayMeta:
    m = as_meta(a)
    n = m.ndim
    axis = normalize_axis(axis, n)
    start = operator.index(start)
    if not -n <= start < n + 1:
        raise AxisError(f"'start' arg requires {-n} <= start < {n + 1}")
    if start < 0:
        start += n
    if axis < start:
        start -= 1
    if axis == start:
        return emit(m, _geo(m))
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return emit(m, permute(_geo(m), tuple(axes)))


# --- reshape, ravel, flatten, squeeze, expand_dims ------------------------------------


def reshape_out(m: Any, newshape: tuple, order: Any = "C", copy: Any = None) -> ArrayMeta:
    """NumPy's _reshape_with_copy_arg: a view when possible, else a view of a C/F copy."""
    order = converters.order(order, "C")
    if order == "A":
        order = "F" if isfortran(m) else "C"
    elif order == "K":
        raise ValueError("order 'K' is not permitted for reshaping")
    always = copy is not None and bool(copy) and copy is not np._CopyMode.IF_NEEDED
    never = copy is not None and not always and copy is not np._CopyMode.IF_NEEDED
    shape = tuple(m.shape)
    isz = m.dtype.itemsize
    fortran = order == "F"
    if always:
        newshape = resolve_shape(shape, newshape)
    else:
        newshape, st = reshape_strides(shape, m.strides, isz, newshape, fortran,
                                       m.flags.f_contiguous if fortran else m.flags.c_contiguous)
        if st is not None:
            return emit(m, ArrayMeta(newshape, m.dtype, st))
        if never:
            raise ValueError("Unable to avoid creating a copy while reshaping.")
    return ArrayMeta(newshape, m.dtype, fill_strides(newshape, isz, fortran), base_shape=shape)


def _reshape_args(args: tuple) -> tuple | None:
    if len(args) == 0:
        raise TypeError("reshape() takes exactly 1 argument (0 given)")
    if len(args) == 1:
        if args[0] is None:
            return None
        return converters.intp_tuple(args[0])
    return converters.intp_tuple(args)


@register("ndarray.reshape", tags=("view",))
def ndarray_reshape(self, *shape, order="C", copy=None) -> ArrayMeta:
    newshape = _reshape_args(shape)
    if newshape is None:
        return emit(self, _geo(self))
    return reshape_out(self, newshape, order, copy)


shape_args(ndarray_reshape, *range(1, 65), "shape")


@register(np.reshape, tags=("view",))
def reshape(a, /, shape, order="C", *, copy=None) -> ArrayMeta:
    m = as_meta(a)
    return ndarray_reshape(m, shape, order=order, copy=copy)


shape_args(reshape, 1, "shape")


def ravel_out(m: Any, order: Any = "C") -> ArrayMeta:
    """PyArray_Ravel: a 1-d view when the layout allows it, else a fresh copy."""
    order = converters.order(order, "C")
    c, f = m.flags.c_contiguous, m.flags.f_contiguous
    if order == "K":
        if c:
            order = "C"
        elif f:
            order = "F"
    elif order == "A":
        order = "F" if isfortran(m) else "C"
    isz = m.dtype.itemsize
    size = math.prod(m.shape)
    if (order == "C" and c) or (order == "F" and f):
        return emit(m, ArrayMeta((size,), m.dtype, (isz,)))
    if order == "K" and dense_in_stride_order(tuple(m.shape), tuple(m.strides), isz):
        return emit(m, ArrayMeta((size,), m.dtype, (isz,)))
    return _fresh((size,), m.dtype)


@register("ndarray.ravel", tags=("view",))
def ndarray_ravel(self, order="C") -> ArrayMeta:
    return ravel_out(self, order)


@register(np.ravel, tags=("view",))
def ravel(a, order="C") -> ArrayMeta:
    return ravel_out(as_meta(a), order)


@register("ndarray.flatten", tags=("copy",))
def ndarray_flatten(self, order="C") -> ArrayMeta:
    converters.order(order, "C")
    return _fresh((math.prod(self.shape),), self.dtype)


def squeeze_out(m: Any, axis: Any = None) -> Any:
    """PyArray_Squeeze / SqueezeSelected: the input itself when nothing is removed."""
    nd = m.ndim
    if axis is None:
        drop = {i for i, n in enumerate(m.shape) if n == 1}
    else:
        axes = converters.multi_axis(axis, nd)  # PyArray_ConvertMultiAxis
        for ax in axes:
            if m.shape[ax] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
        drop = set(axes)
    if not drop:
        return itself(m)
    keep = tuple(i for i in range(nd) if i not in drop)
    return emit(m, permute(_geo(m), keep))


@register("ndarray.squeeze", tags=("view",))
def ndarray_squeeze(self, axis=None) -> Any:
    return squeeze_out(self, axis)


@register(np.squeeze, tags=("view",))
def squeeze(a, axis=None) -> Any:
    return squeeze_out(as_meta(a), axis)


@register(np.expand_dims, tags=("view",))
def expand_dims(a, axis) -> ArrayMeta:
    m = as_meta(a)
    if type(axis) not in (tuple, list):
        axis = (axis,)
    out_nd = len(axis) + m.ndim
    axes = converters.axis_tuple(axis, out_nd)
    it = iter(m.shape)
    shape = tuple(1 if ax in axes else next(it) for ax in range(out_nd))
    return reshape_out(m, shape)


def _newaxes(g: ArrayMeta, where: tuple) -> ArrayMeta:
    """Insert stride-0 length-1 axes (indexing with np.newaxis) before the given positions."""
    shape, strides = list(g.shape), list(g.strides)
    for pos in where:
        shape.insert(pos, 1)
        strides.insert(pos, 0)
    return ArrayMeta(tuple(shape), g.dtype, tuple(strides), offset=g.offset)


def _atleast(arys: tuple, nd: int) -> Any:
    res = []
    for a in arys:
        m = as_meta(a)
        if m.ndim >= nd:
            res.append(itself(m))
        elif m.ndim == 0:
            res.append(reshape_out(m, (1,) * nd))
        elif m.ndim == 1:
            res.append(emit(m, _newaxes(_geo(m), (0,) if nd == 2 else (0, 2))))
        else:
            res.append(emit(m, _newaxes(_geo(m), (2,))))
    return res[0] if len(res) == 1 else tuple(res)


@register(np.atleast_1d, tags=("view",))
def atleast_1d(*arys) -> Any:
    return _atleast(arys, 1)


@register(np.atleast_2d, tags=("view",))
def atleast_2d(*arys) -> Any:
    return _atleast(arys, 2)


@register(np.atleast_3d, tags=("view",))
def atleast_3d(*arys) -> Any:
    return _atleast(arys, 3)


# --- broadcasting and strided views ------------------------------------------------


def broadcast_geo(m: Any, shape: tuple) -> ArrayMeta:
    """The nditer view of m at ``shape``: stride 0 on new, broadcast and length-1 axes."""
    off = len(shape) - m.ndim
    if off < 0:
        raise ValueError(f"input operand has more dimensions than allowed by the axis remapping")
    for i, n in enumerate(m.shape):
        if n != 1 and n != shape[off + i]:
            raise ValueError(f"operands could not be broadcast together with remapped shapes "
                             f"[original->remapped]: {tuple(m.shape)} and requested shape {shape}")
    return ArrayMeta(shape, m.dtype, broadcast_strides(shape, m.shape, m.strides))


def _target_shape(shape: Any) -> tuple:
    """broadcast_to's shape: ``tuple(shape)`` if iterable, as _broadcast_to does, each entry
    an npy_intp for nditer's itershape (PyArray_IntpConverter)."""
    shape = tuple(shape) if np.iterable(shape) else (shape,)
    if any(n < 0 for n in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    return as_shape(shape)


@register(np.broadcast_to, tags=("view",))
def broadcast_to(array, shape, subok=False) -> ArrayMeta:
    m = as_meta(array)
    shape = tuple(shape) if np.iterable(shape) else (shape,)
    if not shape and m.shape:
        raise ValueError("cannot broadcast a non-scalar to a scalar array")
    shape = _target_shape(shape)
    return emit(m, broadcast_geo(m, shape), writeable=False)


shape_args(broadcast_to, 1, "shape")


@register(np.broadcast_shapes, tags=("query",))
def broadcast_shapes_of(*args) -> tuple:
    """np.broadcast_shapes: each argument is a shape for np.empty with a 0-byte dtype (so only
    negative dimensions fail), then np.broadcast's rule."""
    shapes = [as_shape(a) for a in args]
    for s in shapes:
        check_shape(s, 0)
    res = legacy_broadcast(shapes)
    transient(len(shapes))  # each np.empty of the 0-byte dtype takes 1 byte (ctors.c)
    return res


shape_args(broadcast_shapes_of, *range(256))


@register(np.broadcast_arrays, tags=("view",))
def broadcast_arrays(*args, subok=False) -> tuple:
    metas = [as_meta(a) for a in args]
    shape = legacy_broadcast([tuple(m.shape) for m in metas])
    out = []
    for m in metas:
        if tuple(m.shape) == shape:
            out.append(itself(m))
        elif m.flags.writeable:
            out.append(emit(m, broadcast_geo(m, shape), warn_on_write=True))
        else:
            out.append(emit(m, broadcast_geo(m, shape), writeable=False))
    return tuple(out)


def as_strided_out(m: Any, shape: Any = None, strides: Any = None, writeable: bool = True) -> ArrayMeta:
    """np.lib.stride_tricks.as_strided through __array_interface__, as NumPy builds it."""
    c = m.flags.c_contiguous
    # the __array_interface__ tuples are read item by item as C longs (PyArray_IntpFromSequence)
    shp = tuple(m.shape) if shape is None else tuple(as_intp(n) for n in shape)
    if strides is not None:
        st = tuple(as_intp(s) for s in strides)
    elif c:
        st = None
    else:
        st = tuple(m.strides)
    if st is None:
        st = fill_strides(shp, m.dtype.itemsize)
    elif len(st) != len(shp):
        raise ValueError("mismatch in length of strides and shape")
    return emit(m, ArrayMeta(shp, m.dtype, st), writeable=None if writeable else False, inherit_warn=False)


@register(_stride_tricks.as_strided, tags=("view",))
def as_strided(x, shape=None, strides=None, subok=False, writeable=True) -> ArrayMeta:
    return as_strided_out(as_meta(x), shape, strides, writeable)


shape_args(as_strided, 1, 2, "shape", "strides")


@register(_stride_tricks.sliding_window_view, tags=("view",))
def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False) -> ArrayMeta:
    window = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    if any(is_fake(w) for w in window):
        raise DataDependentError("sliding_window_view: window_shape holds a fake array")
    m = as_meta(x)
    # the window's entries reach as_strided unconverted (its shape conversion refuses bools)
    if np.any(np.array(window) < 0):
        raise ValueError("`window_shape` cannot contain negative values")
    if axis is None:
        axis = tuple(range(m.ndim))
        if len(window) != len(axis):
            raise ValueError("Since axis is `None`, must provide window_shape for all dimensions of `x`")
    else:
        axis = converters.axis_tuple(axis, m.ndim, allow_duplicate=True)
        if len(window) != len(axis):
            raise ValueError("Must provide matching length window_shape and axis")
    out_strides = tuple(m.strides) + tuple(m.strides[ax] for ax in axis)
    trimmed = list(m.shape)
    for ax, w in zip(axis, window):
        if trimmed[ax] < w:
            raise ValueError("window shape cannot be larger than input array shape")
        trimmed[ax] -= w - 1
    # _stride_tricks_impl.py: window_shape_array = np.array(window_shape), alive throughout,
    # and np.any(window_shape_array < 0): a 0-d int64 of 0 and a bool result (measured on
    # numpy 2.4: at least 8 bytes for a comparison with a Python int)
    transient(8 * len(window) + 8 + max(len(window), 8))
    return as_strided_out(m, tuple(trimmed) + window, out_strides, writeable)


shape_args(sliding_window_view, 1, "window_shape")


# --- dtype views, real/imag, diagonal -------------------------------------------------


def dtype_view_geo(m: Any, new: np.dtype) -> ArrayMeta:
    """The geometry of ``m.view(new)``: NumPy's _check_compatibility_with_new_dtype."""
    old = m.dtype
    if (old.hasobject or new.hasobject) and old != new:
        raise TypeError("Cannot change data-type for array of references.")
    if new.itemsize == old.itemsize and new.subdtype is None:
        return _geo(m, new)
    g = _geo(m)
    if new.subdtype is not None:
        if new.itemsize != old.itemsize:
            raise ValueError("Changing the dtype to a subarray type is only supported "
                             "if the total itemsize is unchanged")
        base, sub = new.subdtype
        if base.subdtype is not None:
            raise UnsupportedOperationError("ndarray.view", "nested subarray dtypes")
        return ArrayMeta(g.shape + sub, base, g.strides + c_strides(sub, base.itemsize))
    if new.kind == "V" and new.itemsize == 0 and new.names is None:
        return _geo(m, np.dtype(f"V{old.itemsize}"))
    if m.ndim == 0:
        raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize is unchanged")
    last = m.shape[-1]
    if last != 1 and math.prod(m.shape) != 0 and m.strides[-1] != old.itemsize:
        raise ValueError("To change to a dtype of a different size, the last axis must be contiguous")
    if new.itemsize < old.itemsize:
        if new.itemsize == 0 or old.itemsize % new.itemsize:
            raise ValueError("When changing to a smaller dtype, its size must be a divisor of "
                             "the size of original dtype")
        last *= old.itemsize // new.itemsize
    else:
        if (last * old.itemsize) % new.itemsize:
            raise ValueError("When changing to a larger dtype, its size must be a divisor of "
                             "the total size in bytes of the last axis of the array.")
        last = last * old.itemsize // new.itemsize
    return ArrayMeta(g.shape[:-1] + (last,), new, g.strides[:-1] + (new.itemsize,))


@register("ndarray.view", tags=("view",))
def ndarray_view(self, dtype=None, type=None) -> ArrayMeta:
    if isinstance(dtype, builtins.type) and issubclass(dtype, np.ndarray):
        dtype, type = None, dtype
    if type is np.recarray and dtype is None:  # np.rec.array: a FakeArray, not a recarray
        # records.py recarray.__array_finalize__: a structured dtype becomes (np.record, dtype)
        dt = self.dtype
        if dt.names is not None and dt.type is not np.record:
            dtype = np.dtype((np.record, dt))
    elif type is not None and type is not np.ndarray:
        raise UnsupportedOperationError("ndarray.view", f"views as {type!r} are not supported "
                                        "(a fake is a FakeArray)")
    if dtype is None:
        return emit(self, _geo(self))
    try:
        new = np.dtype(dtype)
    except TypeError:
        raise TypeError("data type not understood") from None
    return emit(self, dtype_view_geo(self, new))


def _field_geo(m: Any, dtype: Any, offset: Any) -> ArrayMeta:
    """The geometry of ``m.getfield(dtype, offset)`` (PyArray_GetField)."""
    new = np.dtype(dtype)
    offset = operator.index(offset)
    old = m.dtype
    if new.hasobject or old.hasobject:
        ok = offset == 0 and new == old
        if not ok and old.names is not None:
            ok = any(old.fields[n][1] == offset and old.fields[n][0] == new for n in old.names)
        if not ok:
            raise TypeError("Cannot get/set field of an object array")
    if new.itemsize > old.itemsize:
        raise ValueError("new type is larger than original type")
    if offset < 0:
        raise ValueError("offset is negative")
    if offset > old.itemsize - new.itemsize:
        raise ValueError("new type plus offset is larger than original type")
    g = _geo(m, new, offset)
    if new.subdtype is not None:
        base, sub = new.subdtype
        if base.subdtype is not None:
            raise UnsupportedOperationError("ndarray.getfield", "nested subarray dtypes")
        return ArrayMeta(g.shape + sub, base, g.strides + c_strides(sub, base.itemsize),
                         offset=offset)
    return g


@register("ndarray.getfield", tags=("view",))
def ndarray_getfield(self, dtype, offset=0) -> ArrayMeta:
    return emit(self, _field_geo(self, dtype, offset))


@register("ndarray.setfield", tags=("inplace",))
def ndarray_setfield(self, value, dtype, offset=0) -> None:
    g = _field_geo(self, dtype, offset)
    dt = g.dtype
    check_writeable(self, "assignment destination")
    if is_fake(value):
        if broadcast_shapes(tuple(value.shape), g.shape) != g.shape:
            raise ValueError(f"could not broadcast input array from shape {tuple(value.shape)} "
                             f"into shape {g.shape}")
        return None
    v = np.asarray(value) if isinstance(value, (list, tuple)) else value
    if np.ndim(v):
        if broadcast_shapes(np.shape(v), g.shape) != g.shape:
            raise ValueError(f"could not broadcast input array from shape {np.shape(v)} "
                             f"into shape {g.shape}")
        np.empty((0,), dt)[...] = np.empty((0,), np.asarray(v).dtype)
        return None
    np.empty((), dt)[...] = v
    if g.shape:  # PyArray_SetField -> PyArray_CopyObject: packed into a 0-d array, broadcast
        transient(dt.itemsize)
    return None


def _part_dtype(dt: np.dtype) -> np.dtype:
    return np.empty(0, dt).real.dtype


@register(np.real, tags=("view",))
def real(val) -> Any:
    if not (is_fake(val) or isinstance(val, np.ndarray)):
        try:
            return val.real
        except AttributeError:
            pass
    m = as_meta(val)
    if m.dtype.kind != "c":
        return itself(m)
    return emit(m, _geo(m, _part_dtype(m.dtype)))


@register(np.imag, tags=("view",))
def imag(val) -> Any:
    if not (is_fake(val) or isinstance(val, np.ndarray)):
        try:
            return val.imag
        except AttributeError:
            pass
    m = as_meta(val)
    if m.dtype.kind != "c":
        return _fresh(tuple(m.shape), m.dtype, "F" if isfortran(m) else "C", writeable=False)
    dt = _part_dtype(m.dtype)
    return emit(m, _geo(m, dt, dt.itemsize))


def diagonal_out(m: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> ArrayMeta:
    """PyArray_Diagonal: a read-only view with the diagonal as the last axis."""
    nd = m.ndim
    offset = operator.index(offset)
    if nd < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1 = normalize_axis(axis1, nd, "axis1")
    a2 = normalize_axis(axis2, nd, "axis2")
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    shape, strides = m.shape, m.strides
    d1, d2, s1, s2 = shape[a1], shape[a2], strides[a1], strides[a2]
    if offset >= 0:
        ostride = s2
        d2 -= offset
    else:
        offset = -offset
        ostride = s1
        d1 -= offset
    n = min(d1, d2)
    data = 0
    if n < 0:
        n = 0
    else:
        data = offset * ostride
    keep = [i for i in range(nd) if i not in (a1, a2)]
    g = ArrayMeta(tuple(shape[i] for i in keep) + (n,), m.dtype,
                  tuple(strides[i] for i in keep) + (s1 + s2,), offset=data)
    return emit(m, g, writeable=False)


@register("ndarray.diagonal", tags=("view",))
def ndarray_diagonal(self, offset=0, axis1=0, axis2=1) -> ArrayMeta:
    return diagonal_out(self, offset, axis1, axis2)


@register(np.diagonal, tags=("view",))
def diagonal(a, offset=0, axis1=0, axis2=1) -> ArrayMeta:
    return diagonal_out(as_meta(a), offset, axis1, axis2)


# --- flips ----------------------------------------------------------------------------


def _flip_emit(m: Any, g: ArrayMeta) -> ArrayMeta:
    if not g.shape:  # m[()] on a 0-d array gives a scalar
        if m.dtype.hasobject or m.dtype.kind in "SU":
            raise DataDependentError("np.flip of a 0-d array returns its element, whose type "
                                     "depends on the value for object and string dtypes")
        if m.dtype.kind == "V":  # a record views its array
            return emit(m, g)
        return ArrayMeta((), np.empty((), m.dtype)[()].dtype, (), scalar=True)
    return emit(m, g)


@register(np.flip, tags=("view",))
def flip(m, axis=None) -> ArrayMeta:
    x = as_meta(m)
    axes = tuple(range(x.ndim)) if axis is None else converters.axis_tuple(axis, x.ndim)
    return _flip_emit(x, flip_axes(_geo(x), axes))


@register(np.fliplr, tags=("view",))
def fliplr(m) -> ArrayMeta:
    x = as_meta(m)
    if x.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return emit(x, flip_axes(_geo(x), (1,)))


@register(np.flipud, tags=("view",))
def flipud(m) -> ArrayMeta:
    x = as_meta(m)
    if x.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return emit(x, flip_axes(_geo(x), (0,)))


@register(np.rot90, tags=("view",))
def rot90(m, k=1, axes=(0, 1)) -> ArrayMeta:
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    x = as_meta(m)
    nd = x.ndim
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == nd:
        raise ValueError("Axes must be different.")
    if axes[0] >= nd or axes[0] < -nd or axes[1] >= nd or axes[1] < -nd:
        raise ValueError(f"Axes={axes} out of range for array of ndim={nd}.")
    k = operator.index(k) % 4
    if k % 2:  # _function_base_impl.py rot90: axes_list = arange(0, m.ndim) for k = 1, 3
        transient(8 * nd)
    g = _geo(x)
    a0, a1 = axes[0] % nd, axes[1] % nd
    if k == 0:
        return emit(x, g)
    if k == 2:
        return emit(x, flip_axes(flip_axes(g, (a0,)), (a1,)))
    perm = list(range(nd))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return emit(x, permute(flip_axes(g, (a1,)), tuple(perm)))
    return emit(x, flip_axes(permute(g, tuple(perm)), (a1,)))


# --- copies ---------------------------------------------------------------------------


def copy_like(m: Any, dtype: Any = None, order: str = "K") -> ArrayMeta:
    """A fresh copy of m's shape laid out as PyArray_NewLikeArray does for ``order``."""
    dt = m.dtype if dtype is None else np.dtype(dtype)
    converters.no_subarray(dt, "copy")
    order = converters.order(order, "C")
    shape = tuple(m.shape)
    if order == "A":
        order = "F" if isfortran(m) else "C"
    if order == "K":
        st = like_strides(shape, tuple(m.strides), dt.itemsize, m.flags.c_contiguous,
                          m.flags.f_contiguous)
        return ArrayMeta(shape, dt, st)
    return _fresh(shape, dt, order)


@register("ndarray.copy", tags=("copy",))
def ndarray_copy(self, order="C") -> ArrayMeta:
    """methods.c ``array_copy``; on a NumPy scalar ``gentype_generic_method``
    (scalartypes.c.src): the copy of a 0-d array made from it, returned as a new scalar."""
    if _is_scalar(self) and self.pytype is None:
        converters.order(order)
        transient(self.dtype.itemsize)  # the 0-d array made from the scalar
        return pyarray_return(copy_like(self, None, order))
    return copy_like(self, None, order)


@register("ndarray.__copy__", tags=("copy",))
def ndarray_dunder_copy(self) -> Any:
    """methods.c array_copy_keeporder: ``PyArray_NewCopy(self, NPY_KEEPORDER)``. NumPy
    scalars are immutable and copy as themselves; np.void (a new scalar) is refused."""
    if _is_scalar(self):
        return _copy_scalar(self)
    return copy_like(self, None, "K")


@register("ndarray.__deepcopy__", tags=("copy",))
def ndarray_deepcopy(self, memo, /) -> Any:
    """methods.c array_deepcopy: a KEEPORDER copy (object items deep-copied one by one);
    scalars as ``__copy__``."""
    if _is_scalar(self):
        return _copy_scalar(self)
    return copy_like(self, None, "K")


def _copy_scalar(x: Any) -> Any:
    if x.dtype.kind == "V":  # np.void copies as a new scalar viewing a new 0-d array
        raise UnsupportedOperationError("ndarray.__copy__", "the copy of an np.void scalar "
                                        "(a writeable view of a new 0-d array)")
    return x


def _is_scalar(x: Any) -> bool:
    """A fake NumPy scalar (its storage is the SCALAR kind, faketensor/_storage.py)."""
    return getattr(getattr(x, "storage", None), "_tracker", None) is SCALAR


def _probe(dt: np.dtype) -> np.ndarray:
    """A zero-size real array of dtype dt to ask NumPy's dtype rules (no values involved)."""
    return np.empty((0,), dt)


def _adapt_dtype(src: np.dtype, dtype: Any) -> np.dtype:
    """PyArray_AdaptDescriptorToArray for a dtype request (sizes of flexible types)."""
    if dtype is None:  # PyArray_DescrConverter: None is the default float64
        dtype = np.float64
    converters.no_subarray(np.dtype(dtype), "ndarray.astype")
    if src.hasobject:
        want = np.dtype(dtype)
        if want.kind in "SUV" and want.itemsize == 0 and want.names is None:
            raise UnsupportedOperationError("ndarray.astype",
                                            "the size of a flexible dtype cast from object depends on values")
        return want
    with warnings.catch_warnings():  # the cast's warning is the caller's (cast_loop)
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return _probe(src).astype(dtype).dtype


@register("ndarray.astype", tags=("copy",))
def ndarray_astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True) -> Any:
    """``ndarray.astype`` (methods.c ``array_astype``). On a NumPy scalar it is
    ``gentype_generic_method`` (scalartypes.c.src): the array method on a 0-d array made
    from the scalar, then ``PyArray_Return``, so the result is a new NumPy scalar."""
    res = _astype(self, dtype, order, casting, copy)
    if not (_is_scalar(self) and self.pytype is None):
        return res
    transient(self.dtype.itemsize)  # the 0-d array made from the scalar
    if type(res) is ArrayMeta:
        return pyarray_return(res)
    return ArrayMeta((), self.dtype, (), scalar=True)  # PyArray_Return of that 0-d array


def _astype(self, dtype, order, casting, copy) -> Any:
    order = converters.order(order)
    dt = _adapt_dtype(self.dtype, dtype)
    converters.no_subarray(dt, "ndarray.astype")
    if (self.dtype.kind in "SU" and dt.kind == "M" and np.datetime_data(dt)[0] == "generic"
            and math.prod(self.shape)):
        raise DataDependentError("the unit of datetimes parsed from strings depends on the strings")
    casting = converters.casting(casting, same_value=True)
    if casting == "same_value":
        _probe(self.dtype).astype(dt, casting="same_value")  # type-level refusals only
        if not np.can_cast(self.dtype, dt, "safe") and math.prod(self.shape):
            raise DataDependentError("astype(casting='same_value') fails or not depending on the values")
        casting = "unsafe"
    if isinstance(copy, np._CopyMode):
        raise ValueError("_CopyMode enum is not allowed for astype function. Use true/false instead.")
    always = copy is not None and bool(copy)
    c, f = self.flags.c_contiguous, self.flags.f_contiguous
    if not always and (order == "K" or (order == "A" and (c or f)) or (order == "C" and c)
                       or (order == "F" and f)):
        p = _probe(self.dtype)
        with warnings.catch_warnings():  # the cast's warning is given below, once checked
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            same = p.astype(dt, copy=False) is p
        if same:
            return itself(self)
    if not np.can_cast(self.dtype, dt, casting):
        what = "scalar" if self.ndim == 0 else "array data"
        raise TypeError(f"Cannot cast {what} from {self.dtype!r} to {dt!r} according to the rule {casting!r}")
    check_value_cast(self, dt)
    cast_loop(self.dtype, dt)
    return copy_like(self, dt, order)


# --- in place -------------------------------------------------------------------------


@register("ndarray.fill", tags=("inplace",))
def ndarray_fill(self, value) -> None:
    """In place, returns None; the value is checked against the dtype as NumPy does."""
    if is_fake(value):
        if math.prod(value.shape) != 1:
            raise ValueError("setting an array element with a sequence.")
        check_writeable(self, "assignment destination")
        return None
    check_writeable(self, "assignment destination")
    np.empty((), self.dtype).fill(value)
    return None


@register("ndarray.setflags", tags=("inplace",))
def ndarray_setflags(self, write=None, align=None, uic=None) -> None:
    if uic is not None and uic:
        raise ValueError("cannot set WRITEBACKIFCOPY flag to True")
    if align is not None:
        if align and not self.flags.aligned:
            raise ValueError("cannot set aligned flag of mis-aligned array to True")
        if not align:
            raise UnsupportedOperationError("ndarray.setflags", "clearing the ALIGNED flag")
    if write is not None:
        self.flags.writeable = bool(write)
    return None


@register("ndarray.to_device", tags=("view",))
def ndarray_to_device(self, *args, **kwargs) -> Any:
    """methods.c array_to_device: the array itself for ``"cpu"``; NumPy's TypeError or
    ValueError otherwise (its argument checks, run on an empty array)."""
    np.empty(0).to_device(*args, **kwargs)
    return self


@register("ndarray.byteswap", tags=("copy",))
def ndarray_byteswap(self, inplace=False) -> Any:
    """PyArray_Byteswap (numpy/_core/src/multiarray/item_selection.c): in place, the array
    itself (ValueError when read-only); else a copy in order A (PyArray_NewCopy with
    NPY_ANYORDER: Fortran when the array is Fortran-contiguous and not C), then swapped."""
    if inplace:
        check_writeable(self, "array to be byte-swapped")
        return self
    return copy_like(self, None, "A")
