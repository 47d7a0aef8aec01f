"""CuPy rules for array manipulation on CUDA fakes: repeat, tile, flip, roll, rot90, pad,
tril/triu, diag, meshgrid, copyto, asfortranarray, append, resize, fill_diagonal, put.

Each rule traces the CuPy 14 source it cites (github.com/cupy/cupy); most functions are
Python compositions, so the result has the layout of the composition's last step.
Facts that differ from NumPy:
- ``repeat`` and ``tile`` return a *view of a temporary* (``ret.reshape(shape)`` of a
  fresh C array; even when the shapes agree, ``_reshape`` returns ``self.view()``);
  ``roll(axis=None)`` likewise (``roll(a.ravel(), ...).reshape(a.shape)``), and
  ``append(axis=None)`` (``concatenate(...).ravel()``);
- ``roll`` with an axis allocates ``empty_like(a)`` (order K), not C;
- ``meshgrid`` with one input returns the input itself (even with copy=True);
- ``diag`` of a 2-d array is a fresh copy, not a view (``cupy.array(v.diagonal(k))``);
- ``tril``/``triu`` of a 1-d array broadcast it to (n, n) through ``cupy.where``;
- ``pad`` allocates F order for an F-not-C input (``_pad_simple``);
- ``asfortranarray`` of a 0-d array is a (1,) view of it;
- ``copyto`` refuses NumPy arrays of more than one element (ValueError).
"""
from __future__ import annotations

import math
import numbers
import operator
from typing import Any, cast

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from ...layout import broadcast_shapes, f_strides
from ...meta import ArrayMeta
from ...converters import Casting

from . import core as _cr
from .core import cupy_module
from . import views as _cv
from .core import (check_array, check_dtype, cupy_ufunc_call, current_device, device_of, fresh,
                   is_device_array, register_rules, temp, temp_reshape)
from .ops import concat_meta

_INTP = np.dtype(np.intp)
_ON_DEVICE = object()  # repeats whose values live on the device


# --- helpers -------------------------------------------------------------------------------

def _is_cuda(x: Any) -> bool:
    return is_device_array(x) and device_of(x) != "cpu"


def _need_cuda(a: Any, name: str) -> Any:
    """A CUDA fake; anything else (CuPy would transfer it, or fail oddly) is not supported."""
    if _is_cuda(a):
        return a
    raise UnsupportedOperationError(f"cupy.{name}", "only CUDA fake inputs are supported")


def _typed(a: Any, what: str = "a") -> Any:
    """A Cython ``_ndarray_base`` parameter: a CUDA fake, else TypeError."""
    if _is_cuda(a):
        return a
    raise TypeError(f"Argument '{what}' has incorrect type (expected "
                    f"cupy._core.core._ndarray_base, got {type(a).__name__})")




def _copy_runs(a: Any) -> None:
    """An elementwise copy out of ``a`` on the current device (_kernel.pyx peer check)."""
    check_array(a, current_device())


def _is_sequence(x: Any) -> bool:
    """CPython's PySequence_Check: __getitem__ and not a dict."""
    return hasattr(type(x), "__getitem__") and not isinstance(x, dict)


# --- repeat (cupy/_core/_routines_manipulation.pyx _repeat) --------------------------------

def _repeat(a: Any, repeats: Any, axis: Any) -> ArrayMeta:
    """``_repeat``: scalar repeats go through ``_broadcast_repeat`` (a view of a temporary),
    per-element repeats through ``take`` (fresh C)."""
    dt = a.dtype
    rep_val: Any = None
    reps: Any = None  # a real 1-d intp array, or _ON_DEVICE
    if _is_cuda(repeats):
        if not np.can_cast(repeats.dtype, _INTP, casting="safe"):
            raise TypeError(f"Cannot cast array data from dtype('{repeats.dtype}') to "
                            f"dtype('{_INTP}') according to the rule 'safe'")
        if repeats.ndim > 1:
            raise ValueError("object too deep for desired array")
        reps = _ON_DEVICE
    elif is_device_array(repeats) or isinstance(repeats, np.ndarray):
        raise TypeError("'repeats' does not accept numpy.ndarray; convert with cupy.array() first")
    else:
        try:
            rep_val = operator.index(repeats)
        except TypeError:
            if not _is_sequence(repeats):
                raise ValueError(f"'repeats' should be int or sequence: {repeats}") from None
            reps = np.array(repeats, dtype=_INTP)
            if reps.ndim > 1:
                raise ValueError("object too deep for desired array")
    ravel = axis is None
    if ravel:
        shape, ax = (a.size,), 0
    else:
        shape, ax = tuple(a.shape), _cv.norm_axis(axis, a.ndim)
    if reps is not None:
        n = repeats.size if reps is _ON_DEVICE else reps.size
        if n == 1:
            if reps is _ON_DEVICE:
                raise DataDependentError("cupy.repeat with a one-element CuPy array of repeats "
                                         "needs its value")
            rep_val = int(reps.ravel()[0])
        else:  # _repeat_perelement
            if n != shape[ax]:
                raise ValueError("'repeats' and 'axis' of 'a' should be same length:"
                                 f" {shape[ax]} != {n}")
            if n == 0:
                return fresh(shape[:ax] + (0,) + shape[ax + 1:], dt)
            if reps is _ON_DEVICE:
                raise DataDependentError("cupy.repeat with a CuPy array of repeats: the result "
                                         "length is their sum")
            total = int(reps.sum())
            if int(reps.min()) < 0:
                raise ValueError("all elements of 'repeats' should not be negative")
            out = shape[:ax] + (total,) + shape[ax + 1:]
            if total:
                _ravel_copy(a, ravel)
                _copy_runs(a)  # cupy.take(a, src_idx, axis=axis)
            return fresh(out, dt)
    if rep_val < 0:
        raise ValueError(f"'repeats' should not be negative: {rep_val}")
    # _broadcast_repeat
    out = shape[:ax] + (shape[ax] * rep_val,) + shape[ax + 1:]
    _ravel_copy(a, ravel)
    if out[ax] == 0:
        return fresh(out, dt)
    expand = shape[:ax + 1] + (rep_val,) + shape[ax + 1:]
    _copy_runs(a)  # elementwise_copy(a.reshape(insert_shape), ret_expanded)
    return temp_reshape(expand, dt, out)


def _ravel_copy(a: Any, ravel: bool) -> None:
    """``a.ravel()`` copies (through elementwise_copy) when it cannot be a view."""
    if ravel and _cv.ndarray_ravel(a).view_of is None:
        _copy_runs(a)


def ndarray_repeat(self: Any, repeats: Any, axis: Any = None) -> ArrayMeta:
    """core.pyx ``ndarray.repeat`` -> ``_repeat``."""
    return _repeat(self, repeats, axis)


def cp_repeat(a: Any, repeats: Any, axis: Any = None) -> ArrayMeta:
    """cupy/_manipulation/tiling.py ``repeat``: ``a.repeat(repeats, axis)``."""
    return _repeat(_need_cuda(a, "repeat"), repeats, axis)


# --- tile (cupy/_manipulation/tiling.py tile) ----------------------------------------------

def cp_tile(A: Any, reps: Any) -> ArrayMeta:
    """tiling.py ``tile``: an all-ones reps copies (``cupy.array(A, ndmin=d)``); otherwise
    ``ret.reshape(shape_out)`` of a fresh C ``ret``, or a fresh C array for an empty A."""
    A = _need_cuda(A, "tile")
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    d = len(tup)
    if tup.count(1) == len(tup):
        return _cv.cp_array(A, copy=True, ndmin=d)
    try:
        tup = tuple(operator.index(t) for t in tup)
    except TypeError:
        raise UnsupportedOperationError("cupy.tile", "non-integer repetitions") from None
    cshape = (1,) * max(d - A.ndim, 0) + tuple(A.shape)  # cupy.array(A, copy=False, ndmin=d)
    if d < len(cshape):
        tup = (1,) * (len(cshape) - d) + tup
    shape_out = tuple(s * t for s, t in zip(cshape, tup))
    dt = A.dtype
    if math.prod(cshape) == 0:
        return _cr.cp_empty(shape_out, dt)
    ret_shape: list = []
    for dim_in, nrep in zip(cshape, tup):
        if nrep == 1 or dim_in == 1:
            ret_shape.append(nrep if dim_in == 1 else dim_in)
        else:
            ret_shape += [nrep, dim_in]
    ret = _cr.cp_empty(tuple(ret_shape), dt)  # ValueError for negative dimensions
    if math.prod(ret.shape):
        _copy_runs(A)
    return temp_reshape(ret.shape, dt, shape_out)


# --- flips and rotations (cupy/_manipulation/rearrange.py) ----------------------------------

def _flip_geo(g: Any, axes: Any, empty: bool) -> Any:
    """rearrange.py ``_flip``: ``a[::-1]`` on each axis, by _routines_indexing.pyx
    _view_getitem (a length-0 axis keeps its stride; an empty array does not move)."""
    shape, strides, off = list(g.shape), list(g.strides), g.offset
    for ax in axes:
        n, s = shape[ax], strides[ax]
        if n == 0:
            continue
        strides[ax] = -s
        off += (n - 1) * s
    if empty:
        off = g.offset
    return ArrayMeta(tuple(shape), g.dtype, tuple(strides), view_of=g.view_of, offset=off)


def cp_flip(a: Any, axis: Any = None) -> ArrayMeta:
    """rearrange.py ``flip``: ``internal._normalize_axis_indices`` then ``_flip`` (a view)."""
    a = _need_cuda(a, "flip")
    nd = a.ndim
    if axis is None:
        axes = list(range(nd))
    else:
        axes = []
        for ax in (axis if isinstance(axis, tuple) else (axis,)):
            ax = _cv.norm_axis(ax, nd)
            if ax in axes:
                raise ValueError("duplicate value in 'axis'")
            axes.append(ax)
    return _flip_geo(_cv.geo(a), axes, a.size == 0)


def cp_fliplr(a: Any) -> ArrayMeta:
    """rearrange.py ``fliplr``: ``a[::, ::-1]`` (ValueError below 2-d)."""
    a = _need_cuda(a, "fliplr")
    if a.ndim < 2:
        raise ValueError("Input must be >= 2-d")
    return _flip_geo(_cv.geo(a), [1], a.size == 0)


def cp_flipud(a: Any) -> ArrayMeta:
    """rearrange.py ``flipud``: ``a[::-1]`` (ValueError for 0-d)."""
    a = _need_cuda(a, "flipud")
    if a.ndim < 1:
        raise ValueError("Input must be >= 1-d")
    return _flip_geo(_cv.geo(a), [0], a.size == 0)


def cp_rot90(a: Any, k: Any = 1, axes: Any = (0, 1)) -> ArrayMeta:
    """rearrange.py ``rot90``: ``a[:]``, ``_flip`` or a transpose of a flip (all views)."""
    a = _need_cuda(a, "rot90")
    nd = a.ndim
    if nd < 2:
        raise ValueError("Input must be >= 2-d")
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == nd:
        raise ValueError("axes must be different")
    if not (-nd <= axes[0] < nd and -nd <= axes[1] < nd):
        raise ValueError("axes must be >= %d and < %d" % (-nd, nd))
    k = k % 4
    g = _cv.geo(a)
    empty = a.size == 0
    if k == 0:
        return g
    ax = [x % nd for x in axes]
    if k == 2:
        return _flip_geo(g, ax, empty)
    perm = list(range(nd))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return _cv.permute(_flip_geo(g, [ax[1]], empty), perm)
    return _flip_geo(_cv.permute(g, perm), [ax[1]], empty)


# --- roll (cupy/_manipulation/rearrange.py roll) -------------------------------------------

def cp_roll(a: Any, shift: Any, axis: Any = None) -> ArrayMeta:
    """rearrange.py ``roll``: ``empty_like(a)`` (order K) filled by slices, or advanced
    indexing (fresh C) for a CuPy shift; axis=None rolls ``a.ravel()`` and reshapes back."""
    a = _need_cuda(a, "roll")
    dev = current_device()
    if axis is None:
        n = a.size
        _ravel_copy(a, True)
        if _is_cuda(shift):
            _roll_array_shift(temp((n,), a.dtype, a), shift, (0,))
        _copy_runs(a)  # result[...] = a[...]
        return temp_reshape((n,), a.dtype, tuple(a.shape))
    axes = (axis,) if np.isscalar(axis) else axis
    axes = tuple(_cv.norm_axis(ax, a.ndim) for ax in axes)
    if _is_cuda(shift):
        return _roll_array_shift(a, shift, axes)
    b = np.broadcast(shift, axes)
    if b.nd > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    for sh, _ in b:
        int(sh)
    if a.ndim == 0:  # zip(*()) of the only index pair
        raise ValueError("not enough values to unpack (expected 2, got 0)")
    res = _cr.cp_empty_like(a)
    check_array(a, dev)
    return res


def _roll_array_shift(a: Any, shift: Any, axes: tuple) -> ArrayMeta:
    """The CuPy-array shift branch: index arrays, then ``a[tuple(indices)]`` (fresh C)."""
    if a.ndim == 0:
        raise UnsupportedOperationError("cupy.roll", "a 0-d array with a CuPy shift")
    n_axes = max(len(axes), shift.size)
    np.broadcast_to(np.asarray(axes), (n_axes,))
    if shift.size not in (1, n_axes):
        raise ValueError(f"operands could not be broadcast together with shape ({shift.size},) "
                         f"and requested shape ({n_axes},)")
    dev = current_device()
    check_array(shift, dev)
    check_array(a, dev)
    return fresh(tuple(a.shape), a.dtype, device=dev)


# --- tril / triu / diag / diagflat (cupy/_creation/matrix.py) ------------------------------

def _where_ufunc() -> Any:
    from cupy._sorting.search import _where_ufunc
    return _where_ufunc


def _tri_mask(m: Any, k: Any) -> ArrayMeta:
    """matrix.py ``tri(*m.shape[-2:], k=k, dtype=bool)``: cupy.empty((N, M), bool)."""
    dims = tuple(m.shape[-2:])
    if not dims:
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    N = dims[0]
    M = dims[1] if len(dims) > 1 else N
    out = _cr.cp_empty((N, M), bool)
    return temp(out.shape, out.dtype, current_device())


def _tri(m: Any, k: Any, lower: bool) -> ArrayMeta:
    m = _need_cuda(m, "tril" if lower else "triu")  # cupy.asarray(m)
    mask = _tri_mask(m, k)
    zero = m.dtype.type(0)
    args = (mask, m, zero) if lower else (mask, zero, m)
    return cupy_ufunc_call(_where_ufunc(), *args)


def cp_tril(m: Any, k: Any = 0) -> ArrayMeta:
    """matrix.py ``tril``: ``cupy.where(tri(...), m, 0)`` (fresh C, broadcast shape)."""
    return _tri(m, k, True)


def cp_triu(m: Any, k: Any = 0) -> ArrayMeta:
    """matrix.py ``triu``: ``cupy.where(tri(...), 0, m)`` (fresh C, broadcast shape)."""
    return _tri(m, k, False)


def cp_diag(v: Any, k: Any = 0) -> ArrayMeta:
    """matrix.py ``diag``: 1-d -> fresh C zeros (n+|k|)^2 with the diagonal set; 2-d ->
    ``cupy.array(v.diagonal(k))`` (a fresh 1-d copy, not a view as in NumPy)."""
    if _is_cuda(v):
        ndim, shape, dt = v.ndim, tuple(v.shape), v.dtype
    elif is_device_array(v) or isinstance(v, (np.ndarray, list, tuple)) or np.isscalar(v):
        m = np.asarray(v) if not is_device_array(v) else v
        ndim, shape, dt = m.ndim, tuple(m.shape), check_dtype(m.dtype)
    else:
        raise UnsupportedOperationError("cupy.diag", "this input type")
    if ndim == 1:
        size = shape[0] + abs(k)
        out = _cr.cp_empty((size, size), dt)
        if _is_cuda(v):
            _copy_runs(v)  # ret.diagonal(k)[:] = v
        return out
    if ndim == 2:
        k = _cv.ssize(k)
        n = max(0, min(shape[0] + min(k, 0), shape[1] - max(k, 0)))
        return fresh((n,), dt)
    raise ValueError("Input must be 1- or 2-d.")


def cp_diagflat(v: Any, k: Any = 0) -> ArrayMeta:
    """matrix.py ``diagflat``: ``cupy.diag(v.ravel(), k)``; scalars via numpy.asarray."""
    if np.isscalar(v):
        v = np.asarray(v)
    if not hasattr(v, "ravel"):
        raise AttributeError(f"'{type(v).__name__}' object has no attribute 'ravel'")
    if _is_cuda(v):
        _ravel_copy(v, True)
        size = v.size + abs(k)
        out = _cr.cp_empty((size, size), v.dtype)
        _copy_runs(v)
        return out
    return cp_diag(np.empty(v.size, v.dtype), k)


# --- meshgrid (cupy/_creation/ranges.py meshgrid) ------------------------------------------

def cp_meshgrid(*xi: Any, **kwargs: Any) -> tuple:
    """ranges.py ``meshgrid``: views ``x[None, ..., :, ..., None]``, broadcast (stride 0),
    then ``.copy()`` (fresh C) each when copy=True; one input comes back as is."""
    indexing = kwargs.pop("indexing", "xy")
    copy = bool(kwargs.pop("copy", True))
    sparse = bool(kwargs.pop("sparse", False))
    if kwargs:
        raise TypeError(f"meshgrid() got an unexpected keyword argument '{list(kwargs)[0]}'")
    if indexing not in ["xy", "ij"]:
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    for x in xi:
        if x.ndim != 1:
            raise ValueError("input has to be 1d")
        if not _is_cuda(x):
            raise ValueError("input has to be cupy.ndarray")
    if len(xi) <= 1:
        return tuple(xi)
    n = len(xi)
    meshes = []
    for i, x in enumerate(xi):
        left = (1 if i == 0 else 0 if i == 1 else i) if indexing == "xy" else i
        shape: Any = [1] * n
        strides: Any = [0] * n
        shape[left] = x.shape[0]
        strides[left] = x.strides[0]
        meshes.append((x, tuple(shape), tuple(strides)))
    if not sparse:
        full = broadcast_shapes(*[m[1] for m in meshes])
        meshes = [(x, full, s if sh == full else tuple(
            st if d == f else 0 for d, f, st in zip(sh, full, s))) for x, sh, s in meshes]
    out: list[Any] = []
    for x, shape, strides in meshes:
        if copy:
            out.append(fresh(shape, x.dtype))  # core.pyx copy: on the current device
        else:
            out.append(ArrayMeta(shape, x.dtype, strides, view_of=x))
    return tuple(out)


# --- copyto (cupy/_manipulation/basic.py copyto) -------------------------------------------

def cp_copyto(dst: Any, src: Any, casting: Casting = "same_kind", where: Any = None) -> None:
    """basic.py ``copyto``: cast check, broadcast check (leading unit dims may be dropped),
    then an elementwise copy (devices checked only with ``where``); returns None."""
    if not _is_cuda(dst):
        raise UnsupportedOperationError("cupy.copyto", "a destination that is not a CUDA fake")
    src_is_scalar = False
    if type(src) in (bool, int, float, complex):
        np.copyto(np.empty((), dtype=dst.dtype), src, casting=casting)
        can_cast, src_dtype, src_is_scalar = True, None, True
    elif isinstance(src, np.ndarray) or (is_device_array(src) and not _is_cuda(src)):
        if src.size != 1:
            raise ValueError("non-scalar numpy.ndarray cannot be used for copyto")
        src_dtype = src.dtype
        can_cast = np.can_cast(src_dtype, dst.dtype, casting)
        src_is_scalar = True
    elif np.isscalar(src):
        src_dtype = src
        can_cast = np.can_cast(src, dst.dtype, casting)
        src_is_scalar = True
    else:
        src_dtype = src.dtype  # AttributeError for a list, as CuPy
        can_cast = np.can_cast(src_dtype, dst.dtype, casting)
    if not can_cast:
        raise TypeError(f"Cannot cast {src_dtype} to {dst.dtype} in {casting} casting mode")
    sshape: tuple = ()
    if not src_is_scalar:
        sshape = tuple(src.shape)
        dshape = tuple(dst.shape)
        pairs = zip(reversed(sshape), reversed(dshape))
        ok = all(s in (d, 1) for s, d in pairs) and all(
            s == 1 for s in sshape[:max(len(sshape) - len(dshape), 0)])
        if not ok:
            raise ValueError(f"could not broadcast input array from shape {sshape} "
                             f"into shape {dshape}")
        sshape = sshape[max(len(sshape) - len(dshape), 0):]
    dev = current_device()
    if where is not None:
        s = temp(sshape, src.dtype, src) if not src_is_scalar else src
        if is_device_array(src) and not _is_cuda(src):
            s = np.asarray(0, dtype=src.dtype)[()]
        from cupy._core._ufuncs import elementwise_copy
        cupy_ufunc_call(elementwise_copy, s, dst, _where=where)
        return None
    if dst.size == 0 or src_is_scalar:
        return None
    return None  # memcpy or elementwise_copy with dst's device current: no device error


# --- asfortranarray (cupy/_core/core.pyx asfortranarray) -----------------------------------

def cp_asfortranarray(a: Any, dtype: Any = None) -> Any:
    """core.pyx ``asfortranarray``: ``a`` itself when F-contiguous (a (1,) view for 0-d),
    else a fresh F array (shape (1,) for a 0-d input with another dtype)."""
    a = _typed(a)
    zero_dim = a.ndim == 0
    dt = a.dtype if dtype is None else check_dtype(dtype)
    same = dt == a.dtype
    if same and a.flags.f_contiguous:
        if zero_dim:  # _ndarray_ravel(a, 'F')
            return ArrayMeta((1,), dt, (dt.itemsize,), view_of=a)
        return a
    shape = (1,) if zero_dim else tuple(a.shape)
    dev = current_device()
    if same and a.flags.c_contiguous and a.ndim == 2 and dt.char in "fd":
        if device_of(a) != dev:
            raise UnsupportedOperationError("cupy.asfortranarray", "a cuBLAS geam copy of an "
                                            "array on another device")
    else:
        check_array(a, dev)  # elementwise_copy(a, newarray)
    return ArrayMeta(shape, dt, f_strides(shape, dt.itemsize), device=dev)


# --- append / resize (cupy/_manipulation/add_remove.py) -------------------------------------

def cp_append(arr: Any, values: Any, axis: Any = None) -> ArrayMeta:
    """add_remove.py ``append``: ``concatenate_method`` (fresh C); axis=None ravels both and
    returns ``.ravel()`` of the result (a view of it)."""
    arr, values = _need_cuda(arr, "append"), _need_cuda(values, "append")
    if axis is None:
        items = [temp((x.size,), x.dtype, x) for x in (arr, values)]
        r = concat_meta(items, 0)
        return temp_reshape(r.shape, r.dtype, r.shape)
    return concat_meta([arr, values], axis)


def cp_resize(a: Any, new_shape: Any) -> ArrayMeta:
    """add_remove.py ``resize``: ``cupy.full`` for a scalar, else a fresh C array."""
    if np.isscalar(a):
        return _cr.cp_full(new_shape, a)
    a = _need_cuda(a, "resize")
    out = _cr.cp_empty(new_shape, a.dtype)
    if a.size:
        check_array(a, current_device())  # _resize_kernel(a, a.size, out)
    return out


# --- pad (cupy/_padding/pad.py pad) ---------------------------------------------------------

def _as_pairs(x: Any, ndim: int) -> list:
    """pad.py ``_as_pairs(x, ndim, as_index=True)`` on a NumPy array."""
    x = np.asarray(np.round(x), dtype=np.intp)
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if x < 0:
                raise ValueError("index can't contain negative values")
            return [(int(x[0]), int(x[0]))] * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if x[0] < 0 or x[1] < 0:
                raise ValueError("index can't contain negative values")
            return [(int(x[0]), int(x[1]))] * ndim
    if x.min() < 0:
        raise ValueError("index can't contain negative values")
    return [tuple(int(v) for v in p) for p in np.broadcast_to(x, (ndim, 2)).tolist()]


_PAD_KWARGS = {"empty": [], "edge": [], "wrap": [], "constant": ["constant_values"],
               "linear_ramp": ["end_values"], "maximum": ["stat_length"],
               "mean": ["stat_length"], "minimum": ["stat_length"],
               "reflect": ["reflect_type"], "symmetric": ["reflect_type"]}


def _pad_mode_checks(a: Any, mode: str, kwargs: dict) -> None:
    """The checks pad.py makes for linear_ramp / maximum / minimum / mean / reflect /
    symmetric before writing into ``padded`` (which every mode returns)."""
    if a.size == 0 or mode in ("constant", "empty", "edge", "wrap"):
        return
    if mode == "linear_ramp":
        ev = kwargs.get("end_values", 0)
        if _is_cuda(ev):
            raise TypeError("Implicit conversion to a NumPy array is not allowed.")
        if not isinstance(ev, numbers.Number):
            x = np.array(ev)
            if not (x.ndim < 3 and (x.size == 1 or (x.size == 2 and x.shape != (2, 1)))):
                x.reshape(a.ndim, 2)  # _as_pairs: ValueError when it does not fit
        if a.dtype.kind == "b":
            raise UnsupportedOperationError("cupy.pad", "linear_ramp of a bool array")
        return
    if mode in ("maximum", "minimum", "mean"):
        length = kwargs.get("stat_length", None)
        if length is None:
            return
        if _is_cuda(length):
            raise TypeError("Implicit conversion to a NumPy array is not allowed.")
        if isinstance(length, numbers.Number):
            n = round(cast(Any, length))  # an int, float or NumPy number
            if n < 0:
                raise UnsupportedOperationError("cupy.pad", "a negative Python stat_length")
            pairs = [(n, n)] * a.ndim
        else:
            pairs = _as_pairs(length, a.ndim)
        if mode != "mean" and any(0 in p for p in pairs):
            raise ValueError("zero-size array to reduction operation which has no identity")
        return
    if kwargs.get("reflect_type", "even") == "odd" and a.dtype.kind == "b":
        raise UnsupportedOperationError("cupy.pad", "reflect_type='odd' of a bool array")


def cp_pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> ArrayMeta:
    """pad.py ``pad``: every mode returns ``_pad_simple``'s array, fresh F for an
    F-not-C input, else fresh C ('median' is not a CuPy mode: ValueError)."""
    a = _need_cuda(array, "pad")
    if isinstance(pad_width, numbers.Integral):
        if pad_width < 0:
            raise UnsupportedOperationError("cupy.pad", "a negative integer pad width")
        pairs = [(int(pad_width), int(pad_width))] * a.ndim
    else:
        if _is_cuda(pad_width):
            raise TypeError("Implicit conversion to a NumPy array is not allowed.")
        pw = np.asarray(pad_width)
        if not pw.dtype.kind == "i":
            raise TypeError("`pad_width` must be of integral type.")
        pairs = _as_pairs(pw, a.ndim)
    if callable(mode):
        raise UnsupportedOperationError("cupy.pad", "a callable mode")
    try:
        bad = set(kwargs) - set(_PAD_KWARGS[mode])
    except (KeyError, TypeError):
        raise ValueError(f"mode '{mode}' is not supported") from None
    if bad:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {bad}")
    _pad_mode_checks(a, mode, kwargs)
    if mode == "constant":
        vals = kwargs.get("constant_values", 0)
        if not isinstance(vals, numbers.Number):
            raise UnsupportedOperationError("cupy.pad", "non-scalar constant_values")
    shape = tuple(l + n + r for n, (l, r) in zip(a.shape, pairs))
    if len(pairs) != a.ndim:
        raise UnsupportedOperationError("cupy.pad", "pad widths that do not match ndim")
    if mode not in ("constant", "empty") and a.size == 0:
        for ax, (l, r) in enumerate(pairs):
            if a.shape[ax] == 0 and (l or r):
                raise ValueError(f"can't extend empty axis {ax} using modes other than "
                                 "'constant' or 'empty'")
    order = "F" if (a.flags.f_contiguous and not a.flags.c_contiguous) else "C"
    out = _cr.cp_empty(shape, a.dtype, order)
    check_array(a, current_device())  # padded[original_area_slice] = array
    return out


# --- fill_diagonal / put / place (cupy/_indexing/insert.py) ---------------------------------

def cp_fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
    """insert.py ``fill_diagonal``: ``a.flat[:end:step] = val`` (in place, returns None)."""
    a = _need_cuda(a, "fill_diagonal")
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    if not _is_cuda(val):  # cupy.asarray(value, dtype=base.dtype)
        np.asarray(val, dtype=a.dtype)
    check_array(a, current_device())
    return None


def ndarray_put(self: Any, indices: Any, values: Any, mode: str = "wrap") -> None:
    """_routines_indexing.pyx ``_ndarray_put``: in place; mode 'raise' reads the indices."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError("clipmode not understood")
    dev = current_device()
    if not _is_cuda(indices):
        np.asarray(indices)
    vsize = values.size if _is_cuda(values) else np.asarray(values, dtype=self.dtype).size
    if vsize == 0:
        return None
    if mode == "raise":
        raise DataDependentError("cupy put(mode='raise') checks the index values")
    for x in (indices, values):
        if _is_cuda(x):
            check_array(x, dev)
    check_array(self, dev)
    return None


def cp_put(a: Any, ind: Any, v: Any, mode: str = "wrap") -> None:
    """insert.py ``put``: ``a.put(ind, v, mode=mode)``."""
    return ndarray_put(_need_cuda(a, "put"), ind, v, mode)


def cp_place(arr: Any, mask: Any, vals: Any) -> None:
    """insert.py ``place``: size check; the rest depends on the mask's values."""
    arr = _need_cuda(arr, "place")
    msize = mask.size if is_device_array(mask) else np.asarray(mask).size
    if arr.size != msize:
        raise ValueError("Mask and data must be the same size.")
    raise DataDependentError("cupy.place: which elements are set depends on the mask")


# --- registration ----------------------------------------------------------------------------

def _register() -> None:
    register_rules({"ndarray.repeat": (ndarray_repeat, "copy"),
                    "ndarray.put": (ndarray_put, "inplace")})
    register_rules({
        "repeat": (cp_repeat, "copy"), "tile": (cp_tile, "copy"), "flip": (cp_flip, "view"),
        "fliplr": (cp_fliplr, "view"), "flipud": (cp_flipud, "view"), "rot90": (cp_rot90, "view"),
        "roll": (cp_roll, "copy"), "tril": (cp_tril, "copy"), "triu": (cp_triu, "copy"),
        "diag": (cp_diag, "copy"), "diagflat": (cp_diagflat, "copy"),
        "meshgrid": (cp_meshgrid, "view"), "copyto": (cp_copyto, "inplace"),
        "asfortranarray": (cp_asfortranarray, "copy"), "append": (cp_append, "copy"),
        "resize": (cp_resize, "copy"), "pad": (cp_pad, "copy"),
        "fill_diagonal": (cp_fill_diagonal, "inplace"), "put": (cp_put, "inplace"),
        "place": (cp_place, "inplace"),
    }, cupy_module())


_cr.on_cupy(_register)
