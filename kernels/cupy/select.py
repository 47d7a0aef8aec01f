"""CuPy rules for selection, index, set, packing, memory and polynomial functions on CUDA fakes.

Every rule cites the CuPy 14 source it follows (github.com/cupy/cupy). Facts that matter:
- ``take_along_axis`` indexes with a tuple of integer arrays (``_getitem_multiple``):
  a fresh C array of the broadcast index shape;
- ``choose`` (``_routines_indexing.pyx _ndarray_choose``) allocates ``ndarray(shape,
  choices.dtype)``; mode 'raise' reads the index values (``(a < n).all()``);
- ``compress`` / ``extract`` / ``delete`` / set operations / ``unique_*`` /
  ``trim_zeros`` size their result by counting values: data-dependent, except where
  the count is known (an empty condition, a slice or integer ``delete``, ...);
- ``isin`` is ``in1d(...).reshape(shape)``: a view of a fresh (n,) bool array;
- ``shares_memory`` compares element *start addresses* (``_get_memory_ptrs``), not
  byte ranges: a float64 array and an int32 view offset by 4 bytes share none;
- ``packbits`` / ``unpackbits`` ravel and return fresh 1-d uint8 arrays.
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Any

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from ..registry import keep_real
from . import core as _cr
from ..numpy.polynomial import check_polyfit_args
from .ops import concat_meta, fresh_c, view_of
from .core import (cupy_module, may_share_bounds, check_array, check_dtype, copy_out, cupy_reduce,
                   cupy_ufunc_call,
                   current_device, device_of, is_device_array, register_rules,
                   temp, temp_reshape)
from ...layout import cupy_broadcast_shapes
from .views import check_take, norm_axis, take_out_shape
from ...meta import ArrayMeta
from ..numpy.overlap import PointerOnly, byte_bounds


_I8 = np.dtype(np.int64)
_U1 = np.dtype(np.uint8)
_B1 = np.dtype(bool)
_F8 = np.dtype(np.float64)


def _is_cuda(x: Any) -> bool:
    return is_device_array(x) and device_of(x) != "cpu"


def _on_device(x: Any) -> bool:
    """A CUDA fake, or a real cupy.ndarray an argument kept real (``keep_real``)."""
    return _is_cuda(x) or (hasattr(x, "__cuda_array_interface__")
                           and type(x).__module__.startswith("cupy"))


def _need_cuda(a: Any, name: str) -> Any:
    if _is_cuda(a):
        return a
    raise UnsupportedOperationError(f"cupy.{name}", "only CUDA fake inputs are supported")


def _dd(name: str) -> DataDependentError:
    return DataDependentError(f"cupy.{name} on a CUDA fake: the result depends on its values")


# --- take_along_axis / put_along_axis (indexing.py, lib/_shape_base.py) -------------------

def cp_take_along_axis(a: Any, indices: Any, axis: Any) -> ArrayMeta:
    """indexing.py ``take_along_axis``: ``a[tuple(fancy_index)]`` (fresh C, broadcast shape)."""
    a = _need_cuda(a, "take_along_axis")
    if indices.dtype.kind not in ("i", "u"):
        raise IndexError("`indices` must be an integer array")
    shape = tuple(a.shape)
    if axis is None:
        shape, axis = (a.size,), 0
    ndim = len(shape)
    axis = norm_axis(axis, ndim)
    if ndim != indices.ndim:
        raise ValueError("`indices` and `a` must have the same number of dimensions")
    shapes = [tuple(indices.shape) if i == axis else (1,) * i + (n,) + (1,) * (ndim - i - 1)
              for i, n in enumerate(shape)]
    if ndim == 1:
        return _cr.fresh(check_take(a.size, tuple(indices.shape)), a.dtype)
    try:
        out = cupy_broadcast_shapes(shapes)
    except ValueError:
        raise ValueError("operands could not be broadcast together with shapes "
                         + " ".join(str(x) for x in shapes)) from None  # internal.pyx
    check_array(a, current_device())
    if _is_cuda(indices):
        check_array(indices, current_device())
    return _cr.fresh(check_take(a.size, out), a.dtype)


def cp_put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> None:
    """lib/_shape_base.py ``put_along_axis``: ``arr[fancy_index] = values`` (in place)."""
    arr = _need_cuda(arr, "put_along_axis")
    if indices.dtype.kind not in ("i", "u"):
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if indices.ndim != 1:
            raise NotImplementedError("Tuple setitem isn't supported for flatiter.")
        from .manipulation import cp_put
        return cp_put(arr, indices, values)  # cupy.put(arr, indices, values)
    ndim = arr.ndim
    axis = norm_axis(axis, ndim)
    if ndim != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    shapes = [tuple(indices.shape) if i == axis else (1,) * i + (n,) + (1,) * (ndim - i - 1)
              for i, n in enumerate(arr.shape)]
    try:
        target = cupy_broadcast_shapes(shapes)
    except ValueError:
        raise ValueError("operands could not be broadcast together with shapes "
                         + " ".join(str(x) for x in shapes)) from None  # internal.pyx
    vshape = tuple(values.shape) if is_device_array(values) \
        else np.asarray(values, dtype=arr.dtype).shape
    if ndim == 1:
        target = tuple(indices.shape)
    from .views import broadcast_to_shape, squeeze_lead
    if _is_cuda(values):  # core.pyx __setitem__ drops a CuPy value's leading unit dims
        vshape = squeeze_lead(vshape)
    broadcast_to_shape(vshape, target)
    check_array(arr, current_device())
    return None


# --- choose / compress / extract / select / piecewise / putmask ------------------------------

def ndarray_choose(self: Any, choices: Any, out: Any = None, mode: str = "raise") -> Any:
    """_routines_indexing.pyx _ndarray_choose: broadcast ``a`` and ``choices``, allocate
    ``ndarray(shape[1:], choices.dtype)``; mode 'raise' checks the index values."""
    n_shape = choices.shape  # AttributeError for a list, as CuPy
    if not _is_cuda(choices):
        raise UnsupportedOperationError("cupy.ndarray.choose", "choices that are not a CUDA fake")
    ashape, cshape = tuple(self.shape), tuple(n_shape)
    if len(ashape) < len(cshape) - 1:
        ashape = (1,) * (len(cshape) - 1 - len(ashape)) + ashape
    elif len(ashape) > len(cshape) - 1:
        cshape = cshape[:1] + (1,) * (len(ashape) + 1 - len(cshape)) + cshape[1:]
    try:
        bshape = cupy_broadcast_shapes([ashape, cshape])
    except ValueError:
        raise ValueError(f"operands could not be broadcast together with shapes "
                         f"{tuple(self.shape)} {tuple(choices.shape)}") from None
    shape = bshape[1:]
    if out is not None:
        if not _is_cuda(out):
            raise TypeError("Output arguments type must be cupy.ndarray")
    if mode == "raise":
        raise DataDependentError("cupy choose(mode='raise') checks the index values")
    if mode not in ("wrap", "clip"):
        raise ValueError("clipmode not understood")
    dev = current_device()
    for x in (self, choices):
        check_array(x, dev)
    if out is None:
        return _cr.fresh(shape, choices.dtype, device=dev)
    check_array(out, dev)
    if out.dtype != choices.dtype:
        raise TypeError(f"Type is mismatched. y {choices.dtype} {out.dtype}")
    try:
        ok = cupy_broadcast_shapes([shape, tuple(out.shape)]) == tuple(out.shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError("Out shape is mismatched")
    return out


def cp_choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> Any:
    """indexing.py ``choose``: ``a.choose(choices, out, mode)``."""
    return ndarray_choose(_need_cuda(a, "choose"), choices, out, mode)


def ndarray_compress(self: Any, condition: Any, axis: Any = None, out: Any = None) -> Any:
    """_routines_indexing.pyx _ndarray_compress: ``take(nonzero(condition)[0])``; the count
    of non-zeros is data-dependent unless the condition is empty."""
    if np.isscalar(condition):
        raise ValueError("condition must be a 1-d array")
    if not _on_device(condition):
        shp = np.asarray(condition, dtype=int).shape  # core.array(condition, dtype=int)
        if len(shp) != 1:
            raise ValueError("condition must be a 1-d array")
        size = shp[0]
    else:
        if _is_cuda(condition):
            check_array(condition, current_device())
        size = condition.size
    if size != 0:
        raise DataDependentError("cupy compress: the result length is the condition's "
                                 "count of non-zeros")
    return _take_empty(self, axis, out)


def _take_empty(a: Any, axis: Any, out: Any) -> Any:
    """_ndarray_take with a (0,) int64 index array (_routines_indexing.pyx _take)."""
    shape = take_out_shape(a, (0,), axis, out)
    return out if out is not None else _cr.fresh(shape, a.dtype)


def cp_compress(condition: Any, a: Any, axis: Any = None, out: Any = None) -> Any:
    """indexing.py ``compress``: ``a.compress(condition, axis, out)``."""
    return ndarray_compress(_need_cuda(a, "compress"), condition, axis, out)


keep_real(ndarray_compress, 1, "condition")
keep_real(cp_compress, 0, "condition")


def cp_extract(condition: Any, a: Any) -> Any:
    """indexing.py ``extract``: ``a.ravel().take(condition.ravel().nonzero()[0])``."""
    if not _is_cuda(a):
        raise TypeError("extract requires input array to be cupy.ndarray")
    size = condition.size if _on_device(condition) else np.asarray(condition).size
    if size != 0:
        raise _dd("extract")
    return _cr.fresh((0,), a.dtype)


keep_real(cp_extract, 0, "condition")


def _scalar_like(x: Any) -> bool:
    """cupy.isscalar (numpy.isscalar)."""
    return np.isscalar(x)


def cp_select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    """indexing.py ``select``: ``empty(shape, result_type(*choices))`` filled by copyto."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    if not _scalar_like(default):
        raise TypeError("default only accepts scalar values")
    for i in range(len(choicelist)):
        if not _is_cuda(choicelist[i]):
            raise TypeError("choicelist only accepts lists of cupy ndarrays")
        if condlist[i].dtype.type is not np.bool_:
            raise ValueError(f"invalid entry {i} in condlist: should be boolean ndarray")
    dt = np.result_type(*[c.dtype for c in choicelist])
    for c in condlist:
        if not _is_cuda(c):
            raise UnsupportedOperationError("cupy.select", "conditions that are not CUDA fakes")
    cshape = _bshape([tuple(c.shape) for c in condlist])
    chshape = _bshape([tuple(c.shape) for c in choicelist])
    shape = cshape if len(chshape) == 0 else _bshape([cshape, chshape])
    res = temp(shape, check_dtype(dt), current_device())
    from .manipulation import cp_copyto
    cp_copyto(res, default)
    for ch, c in zip(choicelist, condlist):
        cp_copyto(res, temp(chshape, ch.dtype, ch), where=temp(cshape, _B1, c))
    return _cr.fresh(shape, res.dtype)


def _bshape(shapes: list) -> tuple:
    try:
        return cupy_broadcast_shapes(shapes)
    except ValueError:
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape") from None


def cp_piecewise(x: Any, condlist: Any, funclist: Any) -> Any:
    """piecewise.py ``piecewise``: ``zeros(x.shape, x.dtype)`` or ``full(...)``, written in
    place by an elementwise kernel per condition (fresh C)."""
    x = _need_cuda(x, "piecewise")
    if np.isscalar(condlist):
        condlist = [condlist]
    condlen, funclen = len(condlist), len(funclist)
    if condlen == funclen:
        pass
    elif condlen + 1 == funclen:
        func = funclist[-1]
        funclist = funclist[:-1]
        if callable(func):
            raise NotImplementedError("Callable functions are not supported currently")
        np.array(func).astype(x.dtype)  # cupy.full(x.shape, func, x.dtype)
    else:
        raise ValueError(f"with {condlen} condition(s), either {condlen} or {condlen + 1} "
                         "functions are expected")
    shape = tuple(x.shape)
    out = temp(shape, x.dtype, current_device())
    for cond, func in zip(condlist, funclist):
        if callable(func):
            raise NotImplementedError("Callable functions are not supported currently")
        if _is_cuda(func):
            func = temp(func.shape, x.dtype, func)
        if not _is_cuda(cond):
            raise UnsupportedOperationError("cupy.piecewise", "conditions that are not CUDA fakes")
        shapes = [tuple(cond.shape), shape] + ([tuple(func.shape)] if is_device_array(func) else [])
        try:
            ok = cupy_broadcast_shapes(shapes) == shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError("Out shape is mismatched")
        check_array(cond, current_device())
    return _cr.fresh(shape, x.dtype)


def cp_putmask(a: Any, mask: Any, values: Any) -> None:
    """insert.py ``putmask``: type and shape checks, then a masked write (in place)."""
    if not _is_cuda(a):
        raise TypeError("`a` should be of type cupy.ndarray")
    if not _is_cuda(mask):
        raise TypeError("`mask` should be of type cupy.ndarray")
    if not (np.isscalar(values) or _is_cuda(values)):
        raise TypeError("`values` should be of type cupy.ndarray")
    if tuple(a.shape) != tuple(mask.shape):
        raise ValueError("mask and data must be the same size")
    if np.isscalar(values):
        if a.size == 0:
            return None
        np.asarray(values, dtype=a.dtype)  # core.array(value, dtype=a.dtype)
        check_array(a, current_device())
        return None
    if not np.can_cast(values.dtype, a.dtype):
        raise TypeError(f"Cannot cast array data from {values.dtype} to {a.dtype} "
                        "according to the rule 'safe'")
    check_array(a, current_device())
    return None


# --- delete (add_remove.py) ---------------------------------------------------------------------

def cp_delete(arr: Any, indices: Any, axis: Any = None) -> Any:
    """add_remove.py ``delete``: a bool mask with ``mask[indices,] = False`` then
    ``compress(mask, arr, axis)``; the kept count is known for an int or a slice."""
    if not _is_cuda(arr):
        raise ValueError("delete(): arr must be a cupy.ndarray")
    shape = tuple(arr.shape)
    if axis is None:
        shape = (arr.size,)
        axis = 0
    else:
        axis = norm_axis(axis, arr.ndim)
    size = shape[axis]
    if isinstance(indices, slice):
        removed = len(range(*indices.indices(size)))
    elif isinstance(indices, (int, np.integer)) and not isinstance(indices, (bool, np.bool_)):
        i = operator.index(indices)
        if not -size <= i < size:
            raise IndexError(f"index {i} is out of bounds for axis 0 with size {size}")
        removed = 1
    else:
        if _on_device(indices):
            raise DataDependentError("cupy.delete with device indices: the kept count "
                                     "depends on their values")
        idx = np.asarray(indices)
        if idx.dtype == np.bool_:
            if idx.ndim != 1 or idx.shape[0] != size:
                raise ValueError("boolean array argument indices to delete must be one "
                                 f"dimensional and match the axis length of {size}")
            raise DataDependentError("cupy.delete with a boolean mask")
        raise DataDependentError("cupy.delete with an index list: duplicates decide the "
                                 "kept count (the indices are copied to the device)")
    n = size - removed  # compress -> take: fresh C, the axis shortened
    check_array(arr, current_device())
    return _cr.fresh(shape[:axis] + (n,) + shape[axis + 1:], arr.dtype)


keep_real(cp_delete, 1, "indices")


# --- packbits / unpackbits (cupy/_binary/packing.py) -----------------------------------------

def cp_packbits(a: Any, axis: Any = None, bitorder: str = "big") -> ArrayMeta:
    """packing.py ``packbits``: ``zeros(((a.size + 7) // 8,), uint8)`` (fresh C)."""
    a = _need_cuda(a, "packbits")
    if a.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    if axis is not None:
        raise NotImplementedError("axis option is not supported yet")
    if bitorder not in ("big", "little"):
        raise ValueError("bitorder must be either 'big' or 'little'")
    if a.size:
        check_array(a, current_device())
    return _cr.fresh(((a.size + 7) // 8,), _U1)


def cp_unpackbits(a: Any, axis: Any = None, bitorder: str = "big") -> ArrayMeta:
    """packing.py ``unpackbits``: ``ndarray((a.size * 8,), uint8)`` (fresh C)."""
    a = _need_cuda(a, "unpackbits")
    if a.dtype != _U1:
        raise TypeError("Expected an input array of unsigned byte data type")
    if axis is not None:
        raise NotImplementedError("axis option is not supported yet")
    if bitorder not in ("big", "little"):
        raise ValueError("bitorder must be either 'big' or 'little'")
    return _cr.fresh((a.size * 8,), _U1)


# --- astype / require / asarray_chkfinite / asfarray (creation/basic.py, kind.py) ------------

def _astype(a: Any, dtype: Any, order: Any = "K", copy: Any = True) -> Any:
    """core.pyx ``_astype``: the array itself when no copy is needed (copy False/None),
    ValueError for copy=False when one is; else a copy (order K keeps the stride order)."""
    o = "K" if order is None else str(order)
    oc = "C" if len(o) == 0 else o[0].upper()
    if oc not in "KACF":
        raise ValueError("order not understood")
    dt = check_dtype(dtype)
    if dt == a.dtype and not copy:
        c, f = a.flags.c_contiguous, a.flags.f_contiguous
        if oc == "K" or (oc == "A" and (c or f)) or (oc == "C" and c) or (oc == "F" and f):
            return a
    if not copy and copy is not None:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    return copy_out(a, oc, dt)


def cp_astype(x: Any, dtype: Any, /, *, copy: bool = True) -> Any:
    """creation/basic.py ``astype``: ``x.astype(dtype, copy=copy)`` (TypeError for non-CuPy)."""
    if not _is_cuda(x):
        raise TypeError(f"Input should be a CuPy array. It is a {type(x)} instead.")
    if device_of(x) != current_device():
        raise UnsupportedOperationError("cupy.astype", "an array on another device")
    return _astype(x, dtype, "K", True if copy else None)


_FLAGS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
          "FORTRAN": "F", "O": "OWNDATA", "OWNDATA": "OWNDATA"}


def _device_array(a: Any, dtype: Any, copy: Any, order: str) -> Any:
    """core.pyx ``array(a, dtype, copy, order)`` for a CUDA fake on the current device or a
    host array (fresh, C unless F is asked for or K/A of an F-not-C input)."""
    if _is_cuda(a):
        if device_of(a) != current_device():
            raise UnsupportedOperationError("cupy.array", "an array on another device")
        return _astype(a, dtype if dtype is not None else a.dtype, order,
                       True if copy else None)
    return _cr.to_device(a, dtype, True, order[0].upper() if order else "K", 0)


def cp_require(a: Any, dtype: Any = None, requirements: Any = None) -> Any:
    """kind.py ``require``: ``asanyarray`` without requirements, else ``array(a, dtype,
    order=C_CONTIGUOUS/F_CONTIGUOUS/A, copy=True if OWNDATA else None)``."""
    if not requirements:
        try:
            return _device_array(a, dtype, None, "K")
        except TypeError:
            raise ValueError(f'Incorrect dtype "{dtype}" provided') from None
    try:
        req = {_FLAGS[x.upper()] for x in requirements}
    except KeyError:
        raise ValueError('Incorrect flag "{}" in requirements'.format(
            (set(requirements) - set(_FLAGS)).pop())) from None
    order = "A"
    if req >= {"C", "F"}:
        raise ValueError('Cannot specify both "C" and "F" order')
    elif "F" in req:
        order = "F"
    elif "C" in req:
        order = "C"
    copy = True if "OWNDATA" in req else None
    try:
        return _device_array(a, dtype, copy, order)
    except TypeError:
        raise ValueError(f'Incorrect dtype "{dtype}" provided') from None


def cp_asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None) -> Any:
    """kind.py ``asarray_chkfinite``: ``asarray`` then ``isfinite(a).all()`` read on the
    host: data-dependent unless the array is empty."""
    r = _device_array(a, dtype, None, "K" if order is None else order)
    if math.prod(r.shape) != 0:
        raise DataDependentError("cupy.asarray_chkfinite checks the values for Infs and NaNs")
    return r


def cp_asfarray(a: Any, dtype: Any = np.float64) -> Any:
    """kind.py ``asfarray``: ``asarray(a, dtype)`` with a non-inexact dtype made float64."""
    if not np.issubdtype(dtype, np.inexact):
        dtype = np.float64
    return _device_array(a, dtype, None, "K")


# --- memory (cupy/_misc/memory_ranges.py, byte_bounds.py, _core/_memory_range.pyx) ------------

def cp_may_share_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    """memory_ranges.py ``may_share_memory``: only max_work=None."""
    if max_work is None:
        return may_share_bounds(a, b)
    raise NotImplementedError("Only supported for `max_work` is `None`")


def _starts(a: Any) -> ArrayMeta:
    """The element start addresses of ``a`` as 1-byte elements (a complex array's real and
    imag parts each start one), for NumPy's overlap solver."""
    shape, strides = tuple(a.shape), tuple(a.strides)
    if a.dtype.kind == "c":  # x.real and x.imag
        shape, strides = shape + (2,), strides + (a.dtype.itemsize // 2,)
    return ArrayMeta(shape, _U1, strides, view_of=a)


def _ptrs_overlap(a: Any, b: Any) -> bool:
    """Whether an element of a starts where an element of b starts (_get_memory_ptrs)."""
    if a.storage is not b.storage or a.size == 0 or b.size == 0:
        return False
    try:
        return bool(np.shares_memory(np.asarray(PointerOnly(_starts(a), a.storage_offset)),
                                     np.asarray(PointerOnly(_starts(b), b.storage_offset))))
    except np.exceptions.TooHardError:
        raise UnsupportedOperationError("cupy.shares_memory", "the overlap problem is too "
                                        "hard to solve exactly") from None


def cp_shares_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    """memory_ranges.py ``shares_memory``: ``a is b``, bounds, or equal element pointers."""
    if a is b and a.size != 0:
        return True
    if max_work == "MAY_SHARE_BOUNDS":
        return may_share_bounds(a, b)
    if max_work in (None, "MAY_SHARE_EXACT"):
        dev = current_device()
        for x in (a, b):
            if not _is_cuda(x):
                raise TypeError(f"Unsupported type {type(x)}")
            check_array(x, dev)
        return _ptrs_overlap(a, b)
    raise NotImplementedError("Not supported for integer `max_work`.")


def cp_byte_bounds(a: Any) -> tuple:
    """byte_bounds.py: device pointers, which a fake does not have."""
    _need_cuda(a, "byte_bounds")
    raise UnsupportedOperationError("cupy.byte_bounds", "a fake array has no device address")


def cp_size(a: Any, axis: Any = None) -> int:
    """cupy ``size`` (numpy's): ``a.size`` or ``a.shape[axis]``, a Python int."""
    if axis is None:
        return math.prod(a.shape)
    return a.shape[axis]


# --- set operations and unique_* (cupy/_logic/truth.py, add_remove.py) ---------------------

def cp_in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False) -> ArrayMeta:
    """truth.py ``in1d``: fresh bool (ar1.size,) (``ones``/``zeros`` or ``_exists_kernel``)."""
    ar1, ar2 = _need_cuda(ar1, "in1d"), _need_cuda(ar2, "in1d")
    n = ar1.size
    if n != 0 and ar2.size != 0:
        from .sorting import thrust_dtype
        thrust_dtype(ar2.dtype)  # cupy.sort(ar2)
        dev = current_device()
        check_array(ar1, dev)
        check_array(ar2, dev)
    return fresh_c((n,), _B1)


def cp_isin(element: Any, test_elements: Any, assume_unique: bool = False,
            invert: bool = False) -> ArrayMeta:
    """truth.py ``isin``: ``in1d(...).reshape(element.shape)``: a view of the (n,) result."""
    r = cp_in1d(element, test_elements, assume_unique, invert)
    return temp_reshape(r.shape, _B1, tuple(element.shape))


def cp_intersect1d(arr1: Any, arr2: Any, assume_unique: bool = False,
                   return_indices: bool = False) -> Any:
    """truth.py ``intersect1d``: ``unique`` and a boolean mask: data-dependent (an empty
    ``arr1`` with assume_unique gives ``arr1[mask].astype(common)``, (0,))."""
    arr1, arr2 = _need_cuda(arr1, "intersect1d"), _need_cuda(arr2, "intersect1d")
    common = np.result_type(arr1.dtype, arr2.dtype)
    if assume_unique and not return_indices and arr1.size == 0:
        return fresh_c((0,), check_dtype(common))
    raise _dd("intersect1d")


def cp_setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """truth.py ``setdiff1d``: ``ar1[in1d(...)]``: data-dependent unless ar1 is empty."""
    ar1, ar2 = _need_cuda(ar1, "setdiff1d"), _need_cuda(ar2, "setdiff1d")
    if assume_unique and ar1.size == 0:
        return fresh_c((0,), ar1.dtype)
    raise _dd("setdiff1d")


def cp_setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """truth.py ``setxor1d``: with assume_unique and no elements, the concatenation itself."""
    ar1, ar2 = _need_cuda(ar1, "setxor1d"), _need_cuda(ar2, "setxor1d")
    if assume_unique:
        aux = concat_meta([temp((x.size,), x.dtype, x) for x in (ar1, ar2)], 0)
        if math.prod(aux.shape) == 0:
            return aux
    raise _dd("setxor1d")


def cp_union1d(arr1: Any, arr2: Any) -> Any:
    """truth.py ``union1d``: ``unique(concatenate(...))``: data-dependent."""
    concat_meta([temp((x.size,), x.dtype, x)
                 for x in (_need_cuda(arr1, "union1d"), _need_cuda(arr2, "union1d"))], 0)
    raise _dd("union1d")


def _unique_kernel(name: str):
    def kernel(x: Any) -> Any:
        _need_cuda(x, name)
        raise _dd(name)
    kernel.__name__ = f"cupy_{name}"
    kernel.__doc__ = f"add_remove.py ``{name}``: ``unique(...)``, data-dependent."
    return kernel


def cp_trim_zeros(filt: Any, trim: str = "fb") -> Any:
    """add_remove.py ``trim_zeros``: a 0-d input itself; 'f'/'b' read the values; neither
    gives ``filt[0:size]``, a view."""
    filt = _need_cuda(filt, "trim_zeros")
    if filt.ndim == 0:
        return filt
    if filt.ndim > 1:
        raise NotImplementedError("Multi-dimensional trim is not supported")
    t = trim.upper()
    if "F" in t or "B" in t:
        raise _dd("trim_zeros")
    return ArrayMeta(tuple(filt.shape), filt.dtype, tuple(filt.strides), view_of=filt)


# --- apply_along_axis / apply_over_axes (lib/_shape_base.py) ----------------------------------

def _calls_user_function(name: str):
    def kernel(*args: Any, **kwargs: Any) -> Any:
        raise UnsupportedOperationError(f"cupy.{name}", "it calls a user function on "
                                        "slices; its result layout is not reproduced")
    kernel.__name__ = f"cupy_{name}"
    return kernel


# --- polynomials (cupy/lib/_routines_poly.py) --------------------------------------------------

def _coeffs(x: Any, name: str) -> Any:
    """_wraps_polyroutine ``_get_coeffs``: a 1-d device array (atleast_1d)."""
    if cupy_module() is not None and isinstance(x, cupy_module().poly1d):
        raise UnsupportedOperationError(f"cupy.{name}", "poly1d operands")
    if np.isscalar(x):
        return temp((1,), check_dtype(np.asarray(x).dtype), current_device())
    if _is_cuda(x):
        if x.ndim == 0:
            return temp((1,), x.dtype, x)
        if x.ndim == 1:
            return x
        raise ValueError("Multidimensional inputs are not supported")
    raise TypeError("Unsupported type")


def _poly_addsub(name: str, a1: Any, a2: Any) -> ArrayMeta:
    a1, a2 = _coeffs(a1, name), _coeffs(a2, name)
    dt = check_dtype(np.result_type(a1.dtype, a2.dtype))
    long_, short = (a1, a2) if a1.size >= a2.size else (a2, a1)
    if name == "polysub":
        long_, short = (a2, a1) if a1.shape[0] <= a2.shape[0] else (a1, a2)
    n = long_.size
    out = temp((n,), dt, current_device())
    if name == "polyadd":
        cupy_ufunc_call(_ufunc("add"), out, long_, out=out)
    elif a1.shape[0] <= a2.shape[0]:
        cupy_ufunc_call(_ufunc("subtract"), out, a2, out=out)
    else:
        t = cupy_ufunc_call(_ufunc("multiply"), 2, out)
        t = cupy_ufunc_call(_ufunc("subtract"), view_of(t), a1)
        cupy_ufunc_call(_ufunc("subtract"), out, view_of(t), out=out)
    return fresh_c((n,), dt)


def _ufunc(name: str) -> Any:
    f = getattr(cupy_module(), name)
    return getattr(f, "__wrapped__", f)


def cp_polyadd(a1: Any, a2: Any) -> ArrayMeta:
    """_routines_poly.py ``polyadd``: ``pad`` of the shorter, ``astype``, ``+=``: fresh C."""
    return _poly_addsub("polyadd", a1, a2)


def cp_polysub(a1: Any, a2: Any) -> ArrayMeta:
    """_routines_poly.py ``polysub``: ``pad``, ``astype``, ``-=``: fresh C."""
    return _poly_addsub("polysub", a1, a2)


def cp_polymul(a1: Any, a2: Any) -> Any:
    """_routines_poly.py ``polymul``: ``trim_zeros(trim='f')`` reads the values."""
    _coeffs(a1, "polymul"), _coeffs(a2, "polymul")
    raise _dd("polymul")


def cp_polyval(p: Any, x: Any) -> Any:
    """_routines_poly.py ``polyval``: ``(p[::-1] * x[..., None] ** arange(n)).sum(-1)``,
    ``zeros(x.shape)`` for an empty p, ``p.any() * x + p[-1]`` for bool: fresh C."""
    if cupy_module() is not None and isinstance(p, cupy_module().poly1d):
        raise UnsupportedOperationError("cupy.polyval", "poly1d operands")
    if not _is_cuda(p) or p.ndim == 0:
        raise TypeError("p must be 1d ndarray or poly1d object")
    if p.ndim > 1:
        raise ValueError("p must be 1d array")
    if cupy_module() is not None and isinstance(x, cupy_module().poly1d):
        raise UnsupportedOperationError("cupy.polyval", "poly1d operands")
    if not _is_cuda(x):
        if is_device_array(x):
            raise UnsupportedOperationError("cupy.polyval", "a host fake x")
        m = np.asarray(x)
        x = temp(m.shape, check_dtype(m.dtype), current_device())
    dt = check_dtype(np.result_type(p.dtype, x.dtype))
    shape = tuple(x.shape)
    if p.size == 0:
        return fresh_c(shape, dt)
    if dt == _B1:
        t = cupy_ufunc_call(_ufunc("multiply"), temp((), _B1, p), x)
        return cupy_ufunc_call(_ufunc("add"), view_of(t), temp((), _B1, p))
    xs = temp(shape + (1,), dt, x)
    pw = cupy_ufunc_call(_ufunc("power"), xs, temp((p.size,), dt, current_device()))
    pr = cupy_ufunc_call(_ufunc("multiply"), temp((p.size,), dt, p), view_of(pw))
    return cupy_reduce("sum", view_of(pr), -1, dt)


def cp_polyfit(x: Any, y: Any, deg: Any, rcond: Any = None, full: bool = False, w: Any = None,
               cov: bool = False) -> Any:
    """_routines_poly.py ``polyfit``: the input checks; the fit itself (lstsq, in-place
    scaling) is not reproduced."""
    x, y = _need_cuda(x, "polyfit"), _need_cuda(y, "polyfit")
    if x.dtype.char == "e" and y.dtype.kind == "b":
        raise NotImplementedError("float16 x and bool y are not currently supported")
    if y.dtype == np.float16:
        raise TypeError("float16 y are not supported")
    check_polyfit_args(x, y, int(deg))
    raise UnsupportedOperationError("cupy.polyfit", "the least-squares fit's layout")


def cp_roots(p: Any) -> Any:
    """_routines_poly.py ``roots``: ``cupy.array([])`` below two coefficients; the rest trims
    leading zeros (data-dependent)."""
    if cupy_module() is not None and isinstance(p, cupy_module().poly1d):
        raise UnsupportedOperationError("cupy.roots", "poly1d operands")
    p = _need_cuda(p, "roots")
    if p.dtype.kind == "b":
        raise NotImplementedError("boolean inputs are not supported")
    if p.ndim == 0:
        raise TypeError("0-dimensional input is not allowed")
    if p.size < 2:
        return fresh_c((0,), _F8)
    raise _dd("roots")


def cp_poly(seq_of_zeros: Any) -> Any:
    """_routines_poly.py ``poly``: 1.0 for no zeros; a square 2-d input is compared with
    its conjugate transpose (values); other layouts are not reproduced."""
    x = _need_cuda(seq_of_zeros, "poly")
    if x.ndim == 2 and x.shape[0] == x.shape[1] and x.shape[0] != 0:
        raise _dd("poly")
    if x.ndim != 1:
        raise ValueError("Input must be 1d or non-empty square 2d array.")
    np.mintypecode(x.dtype.char)
    if x.size == 0:
        return 1.0
    raise UnsupportedOperationError("cupy.poly", "the FFT convolution's result layout")


# --- ndarray methods ---------------------------------------------------------------------------

def ndarray_byteswap(self: Any, inplace: bool = False) -> Any:
    """core.pyx ``byteswap``: TypeError for structured dtypes; one-byte items give self
    (inplace) or ``self.copy()``; wider items are not reproduced yet."""
    if self.dtype.names is not None:
        raise TypeError("byteswap is not supported for structured dtypes")
    if self.dtype.itemsize == 1:
        if inplace:
            return self
        return copy_out(self, "C")
    if inplace:
        check_array(self, current_device())
        return self
    raise UnsupportedOperationError("cupy.ndarray.byteswap", "the swapped copy's layout")


def ndarray_reduced_view(self: Any, dtype: Any = None) -> Any:
    """core.pyx ``reduced_view``: self for ndim <= 1, a flat view when C-contiguous, else
    the merged dims of ``internal.get_reduced_dims`` (self when nothing merges)."""
    if dtype is not None:
        raise UnsupportedOperationError("cupy.ndarray.reduced_view", "the deprecated dtype=")
    shape, strides, isz = tuple(self.shape), tuple(self.strides), self.dtype.itemsize
    if len(shape) <= 1:
        return self
    if self.flags.c_contiguous:
        return ArrayMeta((self.size,), self.dtype, (isz,), view_of=self)
    rs, rst = [], []
    prev, idx = 0, -1
    for sh, st in zip(shape, strides):
        if sh == 0:
            rs, rst = [0], [isz]
            break
        if sh == 1:
            continue
        if idx == -1 or prev != sh * st:
            rs.append(sh)
            rst.append(st)
            idx += 1
        else:
            rs[idx] *= sh
            rst[idx] = st
        prev = st
    if len(rs) == len(shape):
        return self
    return ArrayMeta(tuple(rs), self.dtype, tuple(rst), view_of=self)


def ndarray_set(self: Any, arr: Any, stream: Any = None) -> None:
    """core.pyx ``set``: a host copy into self (in place) after CuPy's checks."""
    if not (isinstance(arr, np.ndarray) or (is_device_array(arr) and device_of(arr) == "cpu")):
        raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
    if self.dtype != arr.dtype:
        raise TypeError(f"{arr.dtype} array cannot be set to {self.dtype} array")
    if tuple(self.shape) != tuple(arr.shape):
        raise ValueError(f"Shape mismatch. Old shape: {tuple(self.shape)}, "
                         f"new shape: {tuple(arr.shape)}")
    if not (self.flags.c_contiguous or self.flags.f_contiguous):
        raise RuntimeError("Cannot set to non-contiguous array")
    return None


keep_real(ndarray_set, 1, "arr")


def _scatter(op: str, ufunc_name: str):
    def kernel(self: Any, slices: Any, value: Any) -> None:
        warnings.warn(f"`ndarray.scatter_{op}` is deprecated. Please use "
                      f"`cupy.{ufunc_name}.at` instead.", DeprecationWarning, stacklevel=3)
        return _scatter_op(self, slices, value, op, ufunc_name)
    kernel.__name__ = f"ndarray_scatter_{op}"
    kernel.__doc__ = (f"core.pyx ``scatter_{op}``: ``_scatter_op(slices, value, '{op}')`` "
                      "(in place, returns None).")
    return kernel


_ADD_TYPES = (np.int32, np.int64, np.float16, np.float32, np.float64, np.uint32, np.uint64,
              np.intc, np.uintc, np.longlong, np.ulonglong)


def _scatter_op(a: Any, slices: Any, value: Any, op: str, ufunc_name: str) -> None:
    """_routines_indexing.pyx ``_scatter_op``: a ufunc into the view for basic indices,
    ``_scatter_op_single`` (broadcast_to the index shape) for integer index arrays."""
    from .views import broadcast_to_shape, multi_shape, prepare_slice_list, view_getitem
    dev = current_device()
    g, arrays, axis = view_getitem(a, prepare_slice_list(slices))
    if axis is None:
        y = temp(g.shape, a.dtype, a)
        cupy_ufunc_call(_ufunc(ufunc_name), y, value, out=y)
        return None
    if any(s.dtype.kind == "b" for s in arrays):
        raise UnsupportedOperationError(f"cupy.ndarray.scatter_{op}", "boolean index arrays")
    if len(arrays) == 1:
        ishape, start, stop = arrays[0].shape, axis, axis + 1
    else:
        ishape, n_idx = multi_shape(arrays)
        start, stop = axis, axis + n_idx
    vshape = tuple(value.shape) if is_device_array(value) \
        else np.asarray(value, dtype=a.dtype).shape
    broadcast_to_shape(vshape, g.shape[:start] + tuple(ishape) + g.shape[stop:])
    if op == "add" and not issubclass(a.dtype.type, _ADD_TYPES):
        raise TypeError("cupy.add.at only supports int32, int64, float16, float32, float64, "
                        "uint32, uint64 as data type")
    if op in ("max", "min") and not issubclass(a.dtype.type, (np.int32, np.int64, np.uint32,
                                                              np.uint64, np.float32,
                                                              np.float64, np.intc, np.uintc,
                                                              np.longlong, np.ulonglong)):
        raise UnsupportedOperationError(f"cupy.ndarray.scatter_{op}", f"dtype {a.dtype}")
    check_array(a, dev)
    return None


def ndarray_unsupported(name: str, why: str):
    def kernel(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise UnsupportedOperationError(f"cupy.ndarray.{name}", why)
    kernel.__name__ = f"ndarray_{name}"
    return kernel


# --- registration ------------------------------------------------------------------------------

def _register() -> None:
    register_rules({
        "ndarray.choose": (ndarray_choose, "copy"),
        "ndarray.compress": (ndarray_compress, "data-dependent"),
        "ndarray.byteswap": (ndarray_byteswap, "copy"),
        "ndarray.reduced_view": (ndarray_reduced_view, "view"),
        "ndarray.set": (ndarray_set, "inplace"),
        "ndarray.scatter_add": (_scatter("add", "add"), "inplace"),
        "ndarray.scatter_max": (_scatter("max", "maximum"), "inplace"),
        "ndarray.scatter_min": (_scatter("min", "minimum"), "inplace"),
        "ndarray.toDlpack": (ndarray_unsupported(
            "toDlpack", "a fake array has no device memory to export"), "copy"),
        "ndarray.mdspan": (ndarray_unsupported(
            "mdspan", "a fake array has no device memory to view"), "copy"),
    })
    table = {
        "take_along_axis": (cp_take_along_axis, "copy"),
        "put_along_axis": (cp_put_along_axis, "inplace"),
        "choose": (cp_choose, "copy"), "compress": (cp_compress, "data-dependent"),
        "extract": (cp_extract, "data-dependent"), "select": (cp_select, "copy"),
        "piecewise": (cp_piecewise, "copy"), "putmask": (cp_putmask, "inplace"),
        "delete": (cp_delete, "copy"), "packbits": (cp_packbits, "copy"),
        "unpackbits": (cp_unpackbits, "copy"), "astype": (cp_astype, "copy"),
        "require": (cp_require, "copy"), "asarray_chkfinite": (cp_asarray_chkfinite, "copy"),
        "asfarray": (cp_asfarray, "copy"), "may_share_memory": (cp_may_share_memory, "query"),
        "shares_memory": (cp_shares_memory, "query"), "byte_bounds": (cp_byte_bounds, "query"),
        "size": (cp_size, "query"), "in1d": (cp_in1d, "copy"), "isin": (cp_isin, "copy"),
        "intersect1d": (cp_intersect1d, "data-dependent"),
        "setdiff1d": (cp_setdiff1d, "data-dependent"),
        "setxor1d": (cp_setxor1d, "data-dependent"), "union1d": (cp_union1d, "data-dependent"),
        "trim_zeros": (cp_trim_zeros, "data-dependent"),
        "apply_along_axis": (_calls_user_function("apply_along_axis"), "copy"),
        "apply_over_axes": (_calls_user_function("apply_over_axes"), "copy"),
        "poly": (cp_poly, "copy"), "polyadd": (cp_polyadd, "copy"),
        "polysub": (cp_polysub, "copy"), "polymul": (cp_polymul, "data-dependent"),
        "polyval": (cp_polyval, "copy"), "polyfit": (cp_polyfit, "copy"),
        "roots": (cp_roots, "data-dependent"),
    }
    for name in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
        table[name] = (_unique_kernel(name), "data-dependent")
    register_rules(table, cupy_module())


_cr.on_cupy(_register)
