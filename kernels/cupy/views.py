"""CuPy's layout rules for indexing and shape/view operations on CUDA fakes.

Every rule cites the CuPy 14 source it reproduces (github.com/cupy/cupy). Where CuPy
differs from NumPy (kernels/numpy/views.py, kernels/numpy/indexing.py) the CuPy rule wins:
- ``_routines_manipulation.pyx _get_strides_for_nocopy_reshape``: size-1 arrays get
  all strides = itemsize, zero-size arrays get C strides (not zeros), inserted
  length-1 axes take the running stride of the reduced dims; a reshape that must copy
  returns a fresh array that owns its data (NumPy: a view of a temporary);
  ``infer_unknown_dimension`` takes any negative entry as the unknown one;
- ``_routines_indexing.pyx _view_getitem``: an empty slice still moves the data pointer
  by ``start * stride`` (NumPy: not at all), and nothing moves it when the array is
  empty; float scalars index as ``int(s)``; a 0-d index array and any advanced index
  give a fresh C-contiguous copy; out-of-range integer arrays wrap (no IndexError);
- ``_diagonal``: an empty diagonal is a fresh array, not a view;
- ``squeeze`` with nothing to squeeze, ``moveaxis`` with source == destination and
  ``real`` of a non-complex array return the input itself; views are always writeable
  (``broadcast_to``, ``diagonal``), CuPy has no read-only arrays.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from ... import _sizes
from ..._errors import DataDependentError, UnsupportedOperationError
from ..registry import keep_real, uncached
from ...layout import AxisError, broadcast_shapes, c_strides
from ...layout import cupy_broadcast_shapes, cupy_infer_unknown, cupy_nocopy_strides
from ...meta import ArrayMeta, is_fake

from . import core as _cr
from .core import cupy_module
from .core import to_device, check_array, current_device, fresh, register_rules

_I8 = np.dtype(np.int64)


# --- shared helpers ----------------------------------------------------------------


def _view(a: Any, shape: Sequence[int], strides: Sequence[int], offset: int = 0, dtype: Any = None) -> ArrayMeta:
    """A view of the CUDA fake ``a`` (CuPy views are always writeable)."""
    return ArrayMeta(tuple(shape), a.dtype if dtype is None else dtype, tuple(strides), view_of=a,
               offset=offset)


def _order_char(order: Any, allow_k: bool = True) -> str:
    """internal.pyx _normalize_order: first letter of a string (TypeError for non-sized)."""
    c = "C" if len(order) == 0 else str(order[0]).upper()
    if c == "K" and not allow_k:
        raise ValueError("order 'K' is not permitted")
    if c not in "KACF" or len(c) != 1:
        raise ValueError("order not understood")
    return c


def ssize(x: Any) -> int:
    """A Cython ``Py_ssize_t`` argument: __index__ only (TypeError for floats)."""
    if isinstance(x, (bool, np.bool_)):
        return int(x)
    return operator.index(x)


def norm_axis(axis: Any, ndim: int) -> int:
    """internal.pyx _normalize_axis_index (AxisError)."""
    axis = ssize(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis + ndim if axis < 0 else axis


def _norm_axis_tuple(axis: Any, ndim: int) -> list:
    """_routines_manipulation.pyx _normalize_axis_tuple ('repeated axis' ValueError)."""
    if np.isscalar(axis):
        axis = (axis,)
    out: list = []
    for ax in axis:
        ax = norm_axis(ax, ndim)
        if ax in out:
            raise ValueError("repeated axis")
        out.append(ax)
    return out


def _cuda(a: Any, name: str) -> Any:
    """The input of a cupy function typed ``_ndarray_base``: a CUDA fake, else TypeError."""
    if is_fake(a) and a.storage.device != "cpu":
        return a
    raise TypeError(f"Argument 'a' has incorrect type (expected cupy._core.core._ndarray_base, "
                    f"got {type(a).__name__}) in {name}")




# --- reshape (cupy/_core/_routines_manipulation.pyx) ---------------------------------








def shape_setter_view(a: Any, newshape: Any) -> ArrayMeta:
    """_routines_manipulation.pyx _ndarray_shape_setter: ``a.shape = newshape`` is a no-copy
    reshape (CuPy's own stride rule) or AttributeError."""
    if not isinstance(newshape, (tuple, list, range)):
        newshape = (newshape,)
    shape = cupy_infer_unknown(tuple(operator.index(n) for n in newshape), math.prod(a.shape))
    st = cupy_nocopy_strides(tuple(a.shape), tuple(a.strides), a.dtype.itemsize, shape)
    if st is None or len(st) != len(shape):
        raise AttributeError("Incompatible shape for in-place modification. Use `.reshape()` "
                             "to make a copy with the desired shape.")
    return ArrayMeta(shape, a.dtype, st, view_of=a)


def geo(a: Any) -> ArrayMeta:
    """``a`` as a record rules can chain like CuPy's calls: a view of it, its own geometry
    (a record with no ``view_of`` stands for a fresh array on the current device)."""
    return ArrayMeta(tuple(a.shape), a.dtype, tuple(a.strides), view_of=a)


def _regeo(g: ArrayMeta, shape: Any, strides: Any) -> ArrayMeta:
    """``g`` with another shape and strides (what it views, or its freshness, kept)."""
    return g._replace(shape=tuple(shape), strides=tuple(strides))


def _T(g: ArrayMeta) -> ArrayMeta:
    """_routines_manipulation.pyx _T: reversed shape and strides (a view)."""
    return _regeo(g, g.shape[::-1], g.strides[::-1])


def permute(g: ArrayMeta, axes: list) -> ArrayMeta:
    return _regeo(g, [g.shape[i] for i in axes], [g.strides[i] for i in axes])


def _transpose(g: ArrayMeta, axes: Any) -> ArrayMeta:
    """_routines_manipulation.pyx _transpose (an empty axes list means _T)."""
    axes = list(axes)
    if not axes:
        return _T(g)
    ndim = len(g.shape)
    if len(axes) != ndim:
        raise ValueError("axes don't match array")
    seen = [False] * ndim
    norm = []
    for ax in axes:
        ax = ssize(ax)
        if ax < -ndim or ax >= ndim:
            raise AxisError(ax, ndim)
        ax %= ndim
        if seen[ax]:
            raise ValueError("repeated axis in transpose")
        seen[ax] = True
        norm.append(ax)
    return permute(g, norm)


def _fresh_c(g: ArrayMeta, shape: tuple | None = None) -> ArrayMeta:
    """``x.copy()`` (order C) / ``core.ndarray(shape)``: fresh C strides, zeros when empty."""
    shape = g.shape if shape is None else tuple(shape)
    return ArrayMeta(shape, g.dtype, c_strides(shape, g.dtype.itemsize), device=current_device())


def _reshape(g: ArrayMeta, newshape: tuple, copy: Any = None) -> ArrayMeta:
    """_routines_manipulation.pyx _reshape."""
    shape = cupy_infer_unknown(tuple(newshape), g.size)
    isz = g.dtype.itemsize
    if shape == g.shape:
        return _fresh_c(g) if copy else g
    st = cupy_nocopy_strides(g.shape, g.strides, isz, shape)
    if st is not None:
        v = _regeo(g, shape, st)
        return _fresh_c(v) if copy else v
    if copy is False:
        raise ValueError("Unable to avoid creating a copy while reshaping.")
    c = _fresh_c(g)
    return _regeo(c, shape, cupy_nocopy_strides(c.shape, c.strides, isz, shape))


def _shape_arg(shape: tuple) -> tuple:
    """ndarray.reshape(*shape): one sequence argument is the shape; entries are Py_ssize_t."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)) and hasattr(shape[0], "__len__"):
        shape = tuple(shape[0])
    return tuple(ssize(n) for n in shape)


def _copy_flag(copy: Any) -> Any:
    if copy is not None:
        if isinstance(copy, str):
            raise ValueError("strings are not allowed for 'copy' keyword. Use True/False/None instead.")
        copy = bool(copy)
    return copy


def reshape_geo(g: ArrayMeta, shape: tuple, order: Any = "C", copy: Any = None) -> ArrayMeta:
    """_routines_manipulation.pyx _ndarray_reshape: C directly, F via _T(_reshape(_T(a)))."""
    copy = _copy_flag(copy)
    o = _order_char(order, False)
    if o == "A":
        c, f = g.flags.c_contiguous, g.flags.f_contiguous
        o = "F" if f and not c else "C"
    if o == "C":
        return _reshape(g, shape, copy)
    return _T(_reshape(_T(g), shape[::-1], copy))


def ndarray_reshape(self, *shape, order="C", copy=None) -> Any:
    """core.pyx ndarray.reshape."""
    return reshape_geo(geo(self), _shape_arg(shape), order, copy)


def cp_reshape(a, newshape, order="C", *, copy=None) -> Any:
    """cupy/_manipulation/shape.py reshape: ``a.reshape(newshape, order=order, copy=copy)``."""
    return ndarray_reshape(_cuda(a, "reshape"), newshape, order=order, copy=copy)


def k_order_axes(strides: tuple) -> list:
    """_routines_manipulation.pyx _npyiter_k_order_axes (ravel/flatten order K)."""
    axes: list = []
    for i0 in reversed(range(len(strides))):
        s0 = abs(strides[i0])
        if s0 == 0:
            axes.insert(0, i0)
            continue
        ipos = 0
        for k, i1 in enumerate(axes):
            s1 = abs(strides[i1])
            if s1 == 0:
                continue
            if s1 <= s0:
                break
            ipos = k + 1
        axes.insert(ipos, i0)
    return axes


def _a_order(g: ArrayMeta, o: str) -> str:
    if o == "A":
        c, f = g.flags.c_contiguous, g.flags.f_contiguous
        return "F" if f and not c else "C"
    return o


def ndarray_ravel(self, order="C") -> Any:
    """core.pyx ravel: _internal_ascontiguousarray(_ndarray_ravel(self, order))."""
    g = geo(self)
    o = _a_order(g, _order_char(order))
    n = (g.size,)
    if o == "C":
        r = _reshape(g, n)
    elif o == "F":
        r = _reshape(_T(g), n)
    else:
        r = _reshape(_transpose(g, k_order_axes(g.strides)) if g.shape else g, n)
    if not r.flags[0]:
        r = _fresh_c(r)
    return r


def ndarray_flatten(self, order="C") -> ArrayMeta:
    """_routines_manipulation.pyx _ndarray_flatten_order_c: a fresh copy, strides (itemsize,)."""
    o = _a_order(geo(self), _order_char(order))  # noqa: F841 - order only validated
    return ArrayMeta((self.size,), self.dtype, (self.dtype.itemsize,), device=current_device())


def cp_ravel(a, order="C") -> Any:
    return ndarray_ravel(_cuda(a, "ravel"), order)


def ndarray_squeeze(self, axis=None) -> Any:
    """_routines_manipulation.pyx _ndarray_squeeze: ``self`` itself when nothing is squeezed."""
    shape, ndim = tuple(self.shape), self.ndim
    flags = [False] * ndim
    if axis is None:
        flags = [n == 1 for n in shape]
    elif isinstance(axis, tuple):
        for ax in axis:
            ax = norm_axis(ax, ndim)
            if flags[ax]:
                raise ValueError("duplicate value in 'axis'")
            flags[ax] = True
    else:
        ax = ssize(axis)
        if not (ndim == 0 and ax in (0, -1)):
            flags[norm_axis(ax, ndim)] = True
    any_ones = False
    for i in range(ndim):
        if flags[i]:
            if shape[i] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
            any_ones = True
    if not any_ones:
        return self
    keep = [i for i in range(ndim) if not flags[i]]
    return _view(self, [shape[i] for i in keep], [self.strides[i] for i in keep])


def cp_squeeze(a, axis=None) -> Any:
    return ndarray_squeeze(_cuda(a, "squeeze"), axis)


def cp_expand_dims(a, axis) -> Any:
    """cupy/_manipulation/dims.py expand_dims -> _routines_manipulation.pyx _expand_dims."""
    a = _cuda(a, "expand_dims")
    if type(axis) not in (tuple, list):
        axis = (axis,)
    out_ndim = a.ndim + len(axis)
    norm = _norm_axis_tuple(tuple(axis), out_ndim)
    it = iter(a.shape)
    shape = tuple(1 if (i in norm) else next(it) for i in range(out_ndim))
    return _reshape(geo(a), shape)


def _atleast(n: int, arys: tuple) -> Any:
    """cupy/_manipulation/dims.py _atleast_nd_helper: cupy.asarray, then reshape."""
    res = []
    for a in arys:
        if not (is_fake(a) and a.storage.device != "cpu"):
            raise UnsupportedOperationError(f"cupy.atleast_{n}d", "only CUDA fakes are supported")
        shp = tuple(a.shape)
        if a.ndim < n:
            new = {(1, 0): (1,), (2, 0): (1, 1), (2, 1): (1,) + shp, (3, 0): (1, 1, 1),
                   (3, 1): (1,) + shp + (1,), (3, 2): shp + (1,)}[(n, a.ndim)]
            res.append(_reshape(geo(a), new))
        else:
            res.append(a)
    return res[0] if len(res) == 1 else res


def broadcast_to(array, shape) -> ArrayMeta:
    """_routines_manipulation.pyx broadcast_to: stride 0 on new axes, a writeable view."""
    a = _cuda(array, "broadcast_to")
    shape = tuple(shape) if np.iterable(shape) else (shape,)
    shape = tuple(ssize(n) for n in shape)
    ndim, length = a.ndim, len(shape)
    if ndim > length:
        raise ValueError("input operand has more dimensions than allowed by the axis remapping")
    strides = [0] * length
    for i in range(ndim):
        j = i + length - ndim
        if shape[j] == a.shape[i]:
            strides[j] = a.strides[i]
        elif a.shape[i] != 1:
            raise ValueError(f"operands could not be broadcast together with shape {a.shape} "
                             f"and requested shape {shape}")
    if any(n < 0 for n in shape):
        raise UnsupportedOperationError("cupy.broadcast_to", "negative sizes make a broken array")
    return _view(a, shape, strides)


def broadcast_arrays(*args) -> tuple:
    """internal.pyx _broadcast_core: arrays of the broadcast shape as is, others stride-0 views."""
    arrs = [a for a in args if is_fake(a)]
    for a in arrs:
        if a.storage.device == "cpu":
            raise UnsupportedOperationError("cupy.broadcast_arrays", "NumPy inputs")
    if len(arrs) != len(args):
        raise UnsupportedOperationError("cupy.broadcast_arrays", "non-array inputs")
    if not arrs:
        return ()
    try:
        shape = broadcast_shapes(*[tuple(a.shape) for a in arrs])
    except ValueError:
        raise ValueError("operands could not be broadcast together with shapes "
                         + " ".join(str(tuple(a.shape)) for a in arrs)) from None
    out = []
    nd = len(shape)
    for a in arrs:
        if tuple(a.shape) == shape:
            out.append(a)
            continue
        st = [0] * nd
        for j, (n, s) in enumerate(zip(a.shape, a.strides)):
            if n == shape[j + nd - a.ndim]:
                st[j + nd - a.ndim] = s
        out.append(_view(a, shape, st))
    return tuple(out)


# --- transpose family ------------------------------------------------------------------


def ndarray_transpose(self, *axes) -> ArrayMeta:
    """_routines_manipulation.pyx _ndarray_transpose."""
    g = geo(self)
    if len(axes) == 0 or (len(axes) == 1 and axes[0] is None):
        return _T(g)
    if len(axes) == 1 and hasattr(axes[0], "__len__"):
        axes = tuple(axes[0])
    if len(axes) == 0:
        return _T(g)
    return _transpose(g, axes)


def cp_transpose(a, axes=None) -> ArrayMeta:
    return ndarray_transpose(_cuda(a, "transpose"), axes)


def ndarray_swapaxes(self, axis1, axis2) -> ArrayMeta:
    """_routines_manipulation.pyx _ndarray_swapaxes: ValueError('Axis out of range')."""
    ndim = self.ndim
    axis1, axis2 = ssize(axis1), ssize(axis2)
    if not (-ndim <= axis1 < ndim and -ndim <= axis2 < ndim):
        raise ValueError("Axis out of range")
    axes = list(range(ndim))
    a1, a2 = axis1 % ndim, axis2 % ndim
    axes[a1], axes[a2] = axes[a2], axes[a1]
    return permute(geo(self), axes)


def cp_swapaxes(a, axis1, axis2) -> ArrayMeta:
    return ndarray_swapaxes(_cuda(a, "swapaxes"), axis1, axis2)


def cp_matrix_transpose(x, /) -> ArrayMeta:
    """cupy/_manipulation/transpose.py matrix_transpose (ValueError below 2-d)."""
    x = _cuda(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return ndarray_swapaxes(x, -1, -2)


def cp_moveaxis(a, source, destination) -> Any:
    """transpose.py moveaxis: single ints go to _move_single_axis (``a`` itself if no move)."""
    a = _cuda(a, "moveaxis")
    ndim = a.ndim
    if not (hasattr(source, "__len__") or hasattr(destination, "__len__")):
        s, d = norm_axis(source, ndim), norm_axis(destination, ndim)
        if s == d:
            return a
        order = [i for i in range(ndim) if i != s]
        order.insert(d, s)
        return _transpose(geo(a), order)
    src, dst = _norm_axis_tuple(source, ndim), _norm_axis_tuple(destination, ndim)
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [i for i in range(ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _transpose(geo(a), order)


def cp_rollaxis(a, axis, start=0) -> Any:
    """_routines_manipulation.pyx rollaxis (ValueError('Axis out of range'); ``a`` if no move)."""
    a = _cuda(a, "rollaxis")
    ndim = a.ndim
    axis, start = ssize(axis), ssize(start)
    if axis < 0:
        axis += ndim
    if start < 0:
        start += ndim
    if not (0 <= axis < ndim and 0 <= start <= ndim):
        raise ValueError("Axis out of range")
    if axis < start:
        start -= 1
    if axis == start:
        return a
    axes = list(range(ndim))
    del axes[axis]
    axes.insert(start, axis)
    return permute(geo(a), axes)


# --- diagonal, dtype views, real/imag ---------------------------------------------------


def ndarray_diagonal(self, offset=0, axis1=0, axis2=1) -> ArrayMeta:
    """_routines_indexing.pyx _diagonal: a view, or a fresh array when the diagonal is empty."""
    offset, axis1, axis2 = ssize(offset), ssize(axis1), ssize(axis2)
    ndim = self.ndim
    if not (-ndim <= axis1 < ndim and -ndim <= axis2 < ndim):
        raise AxisError(f"axis1(={axis1}) and axis2(={axis2}) must be within range (ndim={ndim})")
    axis1 %= ndim
    axis2 %= ndim
    tr = list(range(ndim))
    del tr[max(axis1, axis2)]
    del tr[min(axis1, axis2)]
    g = geo(self)
    if offset >= 0:
        g = _transpose(g, tr + [axis1, axis2])
    else:
        g = _transpose(g, tr + [axis2, axis1])
        offset = -offset
    n = max(0, min(g.shape[-2], g.shape[-1] - offset))
    shape = g.shape[:-2] + (n,)
    if n == 0:
        return fresh(shape, self.dtype)
    # a[..., :n, offset:offset + n]: the pointer moves only when the array is not empty
    off = offset * g.strides[-1] if offset > 0 and self.size != 0 else 0
    return _view(self, shape, g.strides[:-2] + (g.strides[-1] + g.strides[-2],), off)


def cp_diagonal(a, offset=0, axis1=0, axis2=1) -> ArrayMeta:
    return ndarray_diagonal(_cuda(a, "diagonal"), offset, axis1, axis2)


def ndarray_view(self, dtype=None, array_class=None) -> Any:
    """core.pyx ndarray.view: the last axis is rescaled; its stride becomes the new itemsize."""
    if dtype is not None and isinstance(dtype, type) and cupy_module() is not None \
            and issubclass(dtype, cupy_module().ndarray):
        if array_class is not None:
            raise ValueError("Cannot specify output type twice.")
        dtype = None
    if array_class is not None:
        raise UnsupportedOperationError("cupy.ndarray.view", "array_class= is not supported")
    shape, strides = list(self.shape), list(self.strides)
    if dtype is None:
        return _view(self, shape, strides)
    dt = np.dtype(dtype)
    v_is, self_is = dt.itemsize, self.dtype.itemsize
    if v_is == self_is:
        return _view(self, shape, strides, dtype=dt)
    ndim = len(shape)
    if ndim == 0:
        raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize "
                         "is unchanged")
    ax = ndim - 1
    if shape[ax] != 1 and self.size != 0 and strides[ax] != self_is:
        raise ValueError("To change to a dtype of a different size, the last axis must be contiguous")
    strides[ax] = v_is
    tmp = shape[ax] * self_is
    if tmp % v_is:
        raise ValueError("When changing to a larger dtype, its size must be a divisor of the "
                         "total size in bytes of the last axis of the array.")
    shape[ax] = tmp // v_is
    return _view(self, shape, strides, dtype=dt)


def real_of(val) -> Any:
    """_routines_math.pyx _ndarray_real_getter: a view for complex, else ``self``."""
    a = _cuda(val, "real")
    if a.dtype.kind == "c":
        return _view(a, a.shape, a.strides, dtype=np.dtype(a.dtype.char.lower()))
    return a


def imag_of(val) -> Any:
    """_ndarray_imag_getter: a view at +itemsize/2 (not for a null pointer), else fresh zeros."""
    a = _cuda(val, "imag")
    if a.dtype.kind == "c":
        off = a.dtype.itemsize // 2 if a.storage.nbytes else 0
        return _view(a, a.shape, a.strides, off, np.dtype(a.dtype.char.lower()))
    return fresh(tuple(a.shape), a.dtype)


# --- indexing (cupy/_core/_routines_indexing.pyx) ----------------------------------------


# After _prepare_slice_list an index array is a fake (values unknown; a CUDA one is checked
# for its device at kernel launch) or a real ndarray (what core.array sends over: values known).

def _is_index_array(s: Any) -> bool:
    return isinstance(s, np.ndarray) or is_fake(s)


def _as_idx(s: Any) -> Any:
    """core.array(s) for an index: fakes stay, NumPy arrays and lists become real ndarrays."""
    if is_fake(s):
        return s
    is_seq = isinstance(s, (list, tuple))
    arr = s if isinstance(s, np.ndarray) else np.asarray(s)
    if arr.dtype.kind in "OUSVMm" or arr.dtype.byteorder == ">":
        if isinstance(s, np.ndarray):
            if arr.dtype.kind not in "biu":
                raise IndexError("arrays used as indices must be of integer or boolean type "
                                 f"(actual: {arr.dtype.type})")
            raise UnsupportedOperationError("cupy.ndarray.__getitem__", "big-endian index arrays")
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                         "and integer or boolean arrays are valid indices")
    if is_seq and arr.size == 0:
        return arr.astype(np.int32)  # _prepare_slice_list: an empty list means empty indices
    return arr


def _true_count(m: Any) -> int | None:
    """The number of True values of a mask: known for a real one and an empty fake."""
    if isinstance(m, np.ndarray):
        return int(np.count_nonzero(m))
    return 0 if m.size == 0 else None


def prepare_slice_list(key: Any) -> list:
    """_routines_indexing.pyx _prepare_slice_list: arrays become index arrays, scalars stay."""
    items = list(key) if isinstance(key, tuple) else [key]
    out: list[Any] = []
    for s in items:
        if s is None or s is Ellipsis or isinstance(s, slice):
            out.append(s)
        elif isinstance(s, (bool, np.bool_)):
            out.append(np.asarray(bool(s)))
        elif not isinstance(s, (list, tuple)) and not is_fake(s) and np.isscalar(s):
            out.append(s)  # keep scalars (int(s) below; floats too)
        else:
            out.append(_as_idx(s))
    return out


def _complete_slice(s: slice, dim: int) -> tuple:
    """internal.pyx complete_slice: (start, stop, step) clipped as CuPy does."""
    def elem(x: Any, what: str) -> int:
        try:
            return x.__index__()
        except AttributeError:
            try:
                return int(x)
            except (TypeError, ValueError):
                raise TypeError(f"slice.{what} must be int or None or have __index__ method: "
                                f"{s}") from None
    step = 1 if s.step is None else elem(s.step, "step")
    if step == 0:
        raise ValueError("Slice step must be nonzero.")
    start = None if s.start is None else elem(s.start, "start")
    stop = None if s.stop is None else elem(s.stop, "stop")
    if start is not None and start < 0:
        start += dim
    if stop is not None and stop < 0:
        stop += dim
    if step > 0:
        start = 0 if start is None else max(0, min(dim, start))
        stop = dim if stop is None else max(start, min(dim, stop))
    else:
        start = dim - 1 if start is None else max(-1, min(dim - 1, start))
        stop = -1 if stop is None else max(-1, min(start, stop))
    return start, stop, step


def view_getitem(a: Any, sl: list) -> tuple:
    """_routines_indexing.pyx _view_getitem: (view geometry, remaining arrays, start axis)."""
    axis_a, has_ell = 0, False
    for s in sl:
        if s is None:
            continue
        if s is Ellipsis:
            if has_ell:
                raise IndexError("an index can only have a single ellipsis ('...')")
            has_ell = True
        elif _is_index_array(s):
            if s.dtype.kind == "b":
                axis_a += s.ndim
            elif s.dtype.kind in "iu":
                axis_a += 1
            else:
                raise IndexError("arrays used as indices must be of integer or boolean type. "
                                 f"(actual: {s.dtype.type})")
        else:
            axis_a += 1
    if not has_ell:
        sl = sl + [Ellipsis]
    ndim_a = a.ndim
    if axis_a > ndim_a:
        raise IndexError(f"too many indices for array: array is {ndim_a}-dimensional, "
                         f"but {axis_a} were indexed")
    n_ell = ndim_a - axis_a
    ashape, astrides = tuple(a.shape), tuple(a.strides)
    shape: list = []
    strides: list = []
    flags: list = []
    index_list: list = []
    axis_a = axis_v = offset = 0
    for s in sl:
        if s is None:
            shape.append(1)
            strides.append(0)
            axis_v += 1
            flags.append(False)
        elif s is Ellipsis or _is_index_array(s):  # axes kept as they are (for now)
            if s is Ellipsis:
                k = n_ell
            else:
                k = s.ndim if s.dtype.kind == "b" else 1
                index_list.append((s, axis_v, k))
                if s.dtype.kind == "b":  # _check_mask_shape: a mask length 0 matches any length
                    for i, m in enumerate(s.shape):
                        n = ashape[axis_a + i]
                        if m not in (0, n):
                            raise IndexError(
                                "boolean index did not match indexed array along dimension "
                                f"{axis_a + i}; dimension is {n} but corresponding boolean "
                                f"dimension is {m}")
            shape.extend(ashape[axis_a:axis_a + k])
            strides.extend(astrides[axis_a:axis_a + k])
            axis_a += k
            axis_v += k
            flags.append(s is not Ellipsis)
        elif isinstance(s, slice):
            start, stop, step = _complete_slice(s, ashape[axis_a])
            if step > 0:
                dim = (stop - start - 1) // step + 1
            else:
                dim = (stop - start + 1) // step + 1
            strides.append(astrides[axis_a] if dim == 0 else astrides[axis_a] * step)
            if start > 0:
                offset += astrides[axis_a] * start
            shape.append(dim)
            axis_a += 1
            axis_v += 1
            flags.append(False)
        else:
            ind = int(s)
            n = ashape[axis_a]
            if ind < 0:
                ind += n
            if not 0 <= ind < n:
                raise IndexError(f"Index {s} is out of bounds for axis {axis_a} with size {n}")
            offset += ind * astrides[axis_a]
            axis_a += 1
            flags.append(True)
    if a.size == 0:
        offset = 0
    g = ArrayMeta(tuple(shape), a.dtype, tuple(strides), view_of=a, offset=offset)
    if not index_list:
        return g, [], None
    k = 0
    for f in flags:
        if k == 0:
            k = 1 if f else 0
        elif k == 1:
            if not f:
                k = 2
        elif f:
            break
    else:
        return g, [s for s, _, _ in index_list], index_list[0][1]
    axes: list = []
    for _, av, k in index_list:
        axes.extend(range(av, av + k))
    axes.extend(d for d in range(len(shape)) if d not in axes)
    return permute(g, axes), [s for s, _, _ in index_list], 0


def _mask_count(m: Any, what: str) -> int:
    n = _true_count(m)
    if n is not None:
        return n
    raise DataDependentError(f"indexing a CUDA fake with {what}: the result shape depends on "
                             "the mask's values")


def bounded_count(m: Any) -> int:
    """The count of True of a single mask (_prepare_mask_indexing_single's ``n_true``): known,
    or a bounded size ``0 <= k <= m.size`` (faketensor/_sizes.py), the same object for the
    same unwritten mask, as NumPy's masks give (kernels/numpy/indexing.py ``mask_count``)."""
    n = _true_count(m)
    if n is not None:
        return n
    uncached()
    return _sizes.make(0, m.size, "a boolean mask", m)


def _take_shape(vshape: tuple, ishape: tuple, start: int, stop: int) -> tuple:
    """_routines_indexing.pyx _take: the output shape."""
    if start == 0 and stop == len(vshape):
        return tuple(ishape)
    return vshape[:start] + tuple(ishape) + vshape[stop:]


def check_take(vsize: int, shape: tuple) -> tuple:
    """_take: a non-empty take from an empty array raises IndexError."""
    if vsize == 0 and math.prod(shape) != 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    return shape


def advanced_shape(g: ArrayMeta, arrays: list, axis: int) -> tuple:
    """The result shape of CuPy's advanced indexing on view ``g`` (a fresh C array)."""
    vshape = g.shape
    if len(arrays) == 1:
        s = arrays[0]
        if s.dtype.kind == "b":  # _getitem_mask_single / _prepare_mask_indexing_single
            n = bounded_count(s)
            return vshape[:axis] + (n,) + vshape[axis + s.ndim:]
        return check_take(g.size, _take_shape(vshape, s.shape, axis, axis + 1))
    bshape, n_idx = multi_shape(arrays)  # _getitem_multiple
    return check_take(g.size, _take_shape(vshape, bshape, axis, axis + n_idx))


def multi_shape(arrays: list) -> tuple:
    """_prepare_multiple_array_indexing: (broadcast index shape, number of axes indexed);
    a mask becomes its argwhere columns, so its length is its count of True."""
    shapes, n_idx = [], 0
    for s in arrays:
        if s.dtype.kind == "b":
            shapes.append((_mask_count(s, "a boolean mask among several index arrays"),))
            n_idx += s.ndim
        else:
            shapes.append(s.shape)
            n_idx += 1
    return cupy_broadcast_shapes(shapes), n_idx




def _field_key(self: Any, key: Any) -> bool:
    return self.dtype.fields is not None and (
        isinstance(key, str) or (isinstance(key, list) and all(isinstance(s, str) for s in key)))


def ndarray_getitem(self, key) -> Any:
    """core.pyx __getitem__ -> _routines_indexing.pyx _ndarray_getitem."""
    if _field_key(self, key):
        raise UnsupportedOperationError("cupy.ndarray.__getitem__", "field access is not supported yet")
    dev = current_device()
    sl = prepare_slice_list(key)
    g, arrays, axis = view_getitem(self, sl)
    if axis is None:
        return _view(self, g.shape, g.strides, g.offset)
    shape = advanced_shape(g, arrays, axis)
    _check_devices(self, arrays, dev)
    return fresh(shape, self.dtype, device=dev)


def _check_devices(a: Any, arrays: list, dev: str) -> None:
    """The gather/scatter kernel launch: every CUDA operand on the current device (ValueError)."""
    check_array(a, dev)
    for s in arrays:
        if is_fake(s) and s.storage.device != "cpu":
            check_array(s, dev)


keep_real(ndarray_getitem, 1)


def _value_shape(value: Any, dt: np.dtype) -> tuple:
    """The shape of ``core.array(value, dtype=a.dtype)`` (or of a CuPy value); conversion
    errors (OverflowError for an out-of-range Python int) are NumPy's own."""
    if is_fake(value):
        return tuple(value.shape)
    return np.asarray(value, dtype=dt).shape


def squeeze_lead(shape: tuple) -> tuple:
    """_routines_indexing.pyx _squeeze_leading_unit_dims."""
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return shape[i:]


def broadcast_to_shape(vshape: tuple, target: tuple) -> None:
    """broadcast_to's checks (ValueError)."""
    if len(vshape) > len(target):
        raise ValueError("input operand has more dimensions than allowed by the axis remapping")
    for i, n in enumerate(vshape):
        t = target[i + len(target) - len(vshape)]
        if n != t and n != 1:
            raise ValueError(f"operands could not be broadcast together with shape {vshape} "
                             f"and requested shape {target}")


def ndarray_setitem(self, key, value) -> None:
    """core.pyx __setitem__ -> _routines_indexing.pyx _scatter_op(..., 'update')."""
    if _field_key(self, key):
        raise UnsupportedOperationError("cupy.ndarray.__setitem__", "field access is not supported yet")
    dev = current_device()
    cuda_value = is_fake(value) and value.storage.device != "cpu"
    g, arrays, axis = view_getitem(self, prepare_slice_list(key))
    dt = self.dtype
    if axis is None:
        if not cuda_value:  # y.fill(value): numpy.asarray(value, dtype), scalars only (gh-2079)
            shp = tuple(value.shape) if is_fake(value) else np.asarray(value, dtype=dt).shape
            if shp != ():
                raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
            return None
        check_array(value, dev)  # elementwise_copy(x, y): x broadcast to y's shape
        vshape = squeeze_lead(tuple(value.shape))
        try:
            ok = broadcast_shapes(vshape, g.shape) == g.shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"operands could not be broadcast together with shapes "
                             f"{tuple(value.shape)} {g.shape}")
        return None
    if len(arrays) == 1 and arrays[0].dtype.kind == "b":  # _scatter_op_mask_single
        m = arrays[0]
        lshape, rshape = g.shape[:axis], g.shape[axis + m.ndim:]
        n = bounded_count(m)  # a bounded size when the mask's values are unknown
        target = lshape + (n,) + rshape
        if 0 in target:
            return None
        vshape = _value_shape(value, dt)
        if cuda_value:
            vshape = squeeze_lead(vshape)
        for a, b in zip(vshape[::-1], target[::-1]):
            if a != 1:
                _sizes.check_same(a, b)  # another size or a length within the bounds: stop
        try:
            broadcast_to_shape(vshape, target)
        except ValueError:
            if _sizes.is_bounded(n):  # with no True CuPy checks nothing: it depends on the mask
                raise DataDependentError("assigning through a boolean mask of a CUDA fake: "
                                         "whether the value fits depends on the mask") from None
            raise
        _check_devices(self, arrays, dev)
        if cuda_value:
            check_array(value, dev)
        return None
    if len(arrays) == 1:  # _scatter_op_single
        ishape, start, stop = arrays[0].shape, axis, axis + 1
    else:  # _prepare_multiple_array_indexing
        ishape, n_idx = multi_shape(arrays)
        start, stop = axis, axis + n_idx
    vshape = _value_shape(value, dt)
    if cuda_value:
        vshape = squeeze_lead(vshape)
    broadcast_to_shape(vshape, g.shape[:start] + tuple(ishape) + g.shape[stop:])
    _check_devices(self, arrays, dev)
    if cuda_value:
        check_array(value, dev)
    return None


keep_real(ndarray_setitem, 1, 2)


def take_out_shape(a: Any, ishape: tuple, axis: Any, out: Any) -> tuple:
    """_routines_indexing.pyx _take: the result's shape for index shape ``ishape`` along
    ``axis`` (None: the flattened array), and the dtype/shape checks of ``out``."""
    ndim = a.ndim
    if axis is None:
        start, stop = 0, ndim
    elif ndim == 0:
        norm_axis(axis, 1)
        start = stop = 0
    else:
        start = norm_axis(axis, ndim)
        stop = start + 1
    shape = _take_shape(tuple(a.shape), ishape, start, stop)
    if out is not None:
        if out.dtype != a.dtype:
            raise TypeError("Output dtype mismatch")
        if tuple(out.shape) != shape:
            raise ValueError("Output shape mismatch")
    return shape


def ndarray_take(self, indices, axis=None, out=None) -> Any:
    """_routines_indexing.pyx _ndarray_take -> _take: a fresh C array (indices wrap)."""
    dev = current_device()
    if np.isscalar(indices):
        if isinstance(indices, (float, complex, str, bytes, np.inexact)):
            raise UnsupportedOperationError("cupy.take", "non-integer scalar indices")
        ishape: tuple = ()
    else:
        if is_fake(indices) and indices.storage.device != "cpu":
            if indices.dtype.kind not in "biu":
                raise UnsupportedOperationError("cupy.take", "non-integer index arrays")
            ishape = tuple(indices.shape)
        else:  # core.array(indices, dtype=int)
            ishape = tuple(indices.shape) if is_fake(indices) else np.asarray(indices, dtype=int).shape
    shape = take_out_shape(self, ishape, axis, out)
    check_take(self.size, shape)
    check_array(self, dev)
    if is_fake(indices) and indices.storage.device != "cpu":
        check_array(indices, dev)
    if out is not None:
        check_array(out, dev)
        return out
    return fresh(shape, self.dtype, device=dev)


keep_real(ndarray_take, 1, "indices")


def cp_take(a, indices, axis=None, out=None) -> Any:
    return ndarray_take(_cuda(a, "take"), indices, axis, out)


keep_real(cp_take, 1, "indices")


# --- cupy.array(..., ndmin=) (cupy/_core/core.pyx array) ----------------------------------


def _pad_ndmin(res: Any, src: Any, ndmin: int) -> Any:
    """_array_from_cupy_ndarray: ``a.shape = (1,) * k + a.shape`` (the no-copy reshape rule)."""
    shape = tuple(res.shape)
    if ndmin <= len(shape):
        return res
    new = (1,) * (ndmin - len(shape)) + shape
    st = cupy_nocopy_strides(shape, tuple(res.strides), res.dtype.itemsize, new)
    assert st is not None  # adding length-1 axes never copies
    if res is src:  # a = a.view(), then reshaped in place
        return _view(src, new, st)
    return ArrayMeta(new, res.dtype, st, device=res.device or current_device())


def cp_array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False) -> Any:
    """core.pyx array: CuPy arrays through _array_from_cupy_ndarray, others _array_default."""
    if subok:
        raise NotImplementedError
    ndmin = ssize(ndmin)
    if order is None:
        order = "K"
    if is_fake(obj) and obj.storage.device != "cpu":
        return _pad_ndmin(to_device(obj, dtype, copy, order, 0), obj, ndmin)
    if ndmin <= (obj.ndim if is_fake(obj) else np.ndim(obj)):
        return to_device(obj, dtype, copy, order, 0)
    if isinstance(obj, (list, tuple)) and any(is_fake(x) for x in obj):
        raise UnsupportedOperationError("cupy.array", "sequences of arrays with ndmin=")
    # _array_default: numpy.array(obj, dtype, ndmin=ndmin), then a fresh C / F allocation;
    # K and A mean F only for an F-not-C NumPy array (judged before the padding).
    o = _order_char(order)
    if o in "KA":
        fnc = (is_fake(obj) or isinstance(obj, np.ndarray)) and \
            obj.flags.f_contiguous and not obj.flags.c_contiguous
        o = "F" if fnc else "C"
    if is_fake(obj):
        shape = (1,) * (ndmin - obj.ndim) + tuple(obj.shape)
        dt = np.dtype(dtype) if dtype is not None else obj.dtype
    else:
        tmp = np.array(obj, dtype=dtype, copy=None, ndmin=ndmin)
        shape, dt = tmp.shape, tmp.dtype
    return fresh(shape, _cr.check_dtype(dt), o)


# --- registration --------------------------------------------------------------------------

def _register() -> None:
    view = "view"
    register_rules({
        "ndarray.__getitem__": (ndarray_getitem, view),
        "ndarray.__setitem__": (ndarray_setitem, "inplace"),
        "ndarray.reshape": (ndarray_reshape, view), "ndarray.ravel": (ndarray_ravel, view),
        "ndarray.flatten": (ndarray_flatten, "copy"), "ndarray.squeeze": (ndarray_squeeze, view),
        "ndarray.transpose": (ndarray_transpose, view),
        "ndarray.swapaxes": (ndarray_swapaxes, view),
        "ndarray.diagonal": (ndarray_diagonal, view), "ndarray.view": (ndarray_view, view),
        "ndarray.take": (ndarray_take, "copy"),
    })
    register_rules({
        "reshape": (cp_reshape, view), "ravel": (cp_ravel, view),
        "squeeze": (cp_squeeze, view), "expand_dims": (cp_expand_dims, view),
        "broadcast_to": (broadcast_to, view), "broadcast_arrays": (broadcast_arrays, view),
        "transpose": (cp_transpose, view), "swapaxes": (cp_swapaxes, view),
        "matrix_transpose": (cp_matrix_transpose, view), "moveaxis": (cp_moveaxis, view),
        "rollaxis": (cp_rollaxis, view), "diagonal": (cp_diagonal, view),
        "real": (real_of, view), "imag": (imag_of, view), "take": (cp_take, "copy"),
        "atleast_1d": (lambda *a: _atleast(1, a), view),
        "atleast_2d": (lambda *a: _atleast(2, a), view),
        "atleast_3d": (lambda *a: _atleast(3, a), view),
        "array": (cp_array, "factory"),
    }, cupy_module())


_cr.on_cupy(_register)
