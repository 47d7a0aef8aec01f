"""CuPy rules for the remaining array-creation and index-generating functions, and
cupy's file I/O, on CUDA fakes.

Each rule follows the CuPy 14 function it names (github.com/cupy/cupy); all outputs
are fresh C-contiguous arrays on the current device unless said otherwise. Facts:
- ``tri`` is ``empty((N, M), dtype)`` filled by a kernel; ``tril_indices``/``triu_indices``
  mask ``indices(...)`` with it, so their length is the triangle's element count;
- ``diag_indices`` returns ONE ``arange(n)`` array ``ndim`` times (the same object);
- ``indices`` has no ``sparse=``; it fills ``empty((N,) + dims)`` from ``arange(dim,
  dtype)``, so a bool dtype with a dimension longer than 2 raises TypeError;
- ``ix_`` returns reshape views of its (converted) inputs; bool inputs need ``nonzero``;
- ``mask_indices`` with ``cupy.tril``/``cupy.triu`` returns two strided views of one
  (count, 2) ``argwhere`` buffer (``_ndarray_nonzero``); other mask functions need values;
- ``unravel_index`` and ``ravel_multi_index(mode='raise')`` test values on the host;
- window functions are float64 ``(M,)`` (``(0,)`` for M <= 0);
- ``frombuffer``, ``fromfile``... are ``asarray(numpy.X(...))`` (``fromfunction`` too: it
  calls user code, so modes/cupy_patching.py runs it in the mode); the host step
  of frombuffer/fromstring/fromiter is the project's NumPy kernel when there is one;
  loadtxt/genfromtxt parse text (DataDependentError);
- ``load`` is ``cupy.array(numpy.load(...))`` (.npz members on access); ``save``/``savez``/
  ``savetxt`` need the data and raise UnsupportedOperationError as ``np.save`` of a fake does.
"""
from __future__ import annotations

import functools
import math
import numbers
import operator
import os
from typing import Any

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from ...layout import c_strides, contiguity, cupy_nocopy_strides
from ..registry import lookup
from ...meta import ArrayMeta
from . import core as _cr
from .core import cupy_module
from .core import (shape_arg, check_dtype, current_device, device_of, fresh, is_device_array,
                   register_rules, temp)

_I8 = np.dtype(np.int64)
_F8 = np.dtype(np.float64)
_B1 = np.dtype(bool)
_INT32 = (-(2 ** 31), 2 ** 31 - 1)


# --- helpers -------------------------------------------------------------------------

def _is_cuda(x: Any) -> bool:
    return is_device_array(x) and device_of(x) != "cpu"


def _int_param(name: str, *vals: Any) -> None:
    """An ``int32`` ElementwiseKernel parameter: integers in range (else not modelled)."""
    for v in vals:
        if not isinstance(v, (numbers.Integral, np.integer)) or not _INT32[0] <= int(v) <= _INT32[1]:
            raise UnsupportedOperationError(name, f"an int32 kernel parameter of {v!r}")


def _sum_clamp(lo: int, hi: int, m: int) -> int:
    """sum(clip(x, 0, m) for x in range(lo, hi + 1))."""
    if hi < lo or m <= 0:
        return 0
    total = 0
    a, b = max(lo, 1), min(hi, m - 1)
    if a <= b:
        total += (a + b) * (b - a + 1) // 2
    a = max(lo, m)
    if a <= hi:
        total += (hi - a + 1) * m
    return total


def _tril_count(n: int, m: int, k: int) -> int:
    """Number of True entries of ``tri(n, m, k)`` (col <= row + k)."""
    return _sum_clamp(k + 1, k + n, m) if n > 0 else 0


# --- tri and the triangle indices (cupy/_creation/matrix.py, cupy/_indexing/generate.py) ---

def _tri_shape(N: Any, M: Any, k: Any, dtype: Any) -> tuple:
    if M is None:
        M = N
    shape = shape_arg((N, M))
    dt = check_dtype(dtype if dtype is not None else float)
    if math.prod(shape):
        _int_param("cupy.tri", M, k)
    return shape, dt


def cp_tri(N, M=None, k=0, dtype=float):
    """matrix.py ``tri``: ``_tri_kernel(M, k, empty((N, M), dtype))``."""
    shape, dt = _tri_shape(N, M, k, dtype)
    return fresh(shape, dt)


def _tri_indices(n: Any, k: Any, m: Any, lower: bool) -> tuple:
    (rows, cols), _ = _tri_shape(n, m, k if lower else k - 1, bool)
    count = _tril_count(rows, cols, k) if lower else rows * cols - _tril_count(rows, cols, k - 1)
    return fresh((count,), _I8), fresh((count,), _I8)


def cp_tril_indices(n, k=0, m=None):
    """generate.py ``tril_indices``: ``broadcast_to(inds, shape)[tri(n, m, k, bool)]``."""
    return _tri_indices(n, k, m, True)


def cp_triu_indices(n, k=0, m=None):
    """generate.py ``triu_indices``: the same under ``~tri(n, m, k - 1, bool)``."""
    return _tri_indices(n, k, m, False)


def _from_2d(arr: Any) -> tuple:
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return arr.shape[-2], arr.shape[-1]


def cp_tril_indices_from(arr, k=0):
    n, m = _from_2d(arr)
    return cp_tril_indices(n, k=k, m=m)


def cp_triu_indices_from(arr, k=0):
    n, m = _from_2d(arr)
    return cp_triu_indices(n, k=k, m=m)


# --- diag_indices (cupy/_indexing/insert.py) ------------------------------------------

def cp_diag_indices(n, ndim=2):
    """``idx = cupy.arange(n); return (idx,) * ndim``: one array, repeated."""
    return (_cr.cp_arange(n),) * ndim


def cp_diag_indices_from(arr):
    if not _is_cuda(arr):
        raise TypeError("Argument must be cupy.ndarray")
    if not arr.ndim >= 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return cp_diag_indices(arr.shape[0], arr.ndim)


# --- indices, ix_, index conversions (cupy/_indexing/generate.py) ---------------------

def _arange_check(dim: int, dt: np.dtype) -> None:
    """ranges.py ``arange(dim, dtype=dt)``: bool results longer than 2 raise TypeError."""
    if dt == _B1 and dim > 2:
        raise TypeError("arange() is only supported for booleans when the result has at "
                        "most length 2.")


def cp_indices(dimensions, dtype=int):
    """``res = empty((N,) + dims, dtype)``; ``res[i] = arange(dim, dtype).reshape(...)``."""
    dimensions = tuple(dimensions)
    dt = check_dtype(dtype)
    shape = shape_arg((len(dimensions),) + dimensions)
    for dim in dimensions:
        _arange_check(dim, dt)
    return fresh(shape, dt)


def cp_ix_(*args):
    """``asarray(new)``, 1-d check, empty -> ``astype(intp)``, bool -> nonzero, then
    ``new.reshape((1,) * k + (n,) + (1,) * (nd - k - 1))`` (a view)."""
    out = []
    nd = len(args)
    for k, new in enumerate(args):
        if _is_cuda(new):
            if device_of(new) != current_device():
                raise UnsupportedOperationError("cupy.ix_", "an array on another device")
            shape, dt, src = new.shape, new.dtype, new
        elif is_device_array(new):
            raise UnsupportedOperationError("cupy.ix_", "a NumPy (CPU) array input")
        else:
            m = _np("asarray")(new)
            shape, dt, src = m.shape, check_dtype(m.dtype), None
        if len(shape) != 1:
            raise ValueError("Cross index must be 1 dimensional")
        n = shape[0]
        if n == 0:
            dt, src = np.dtype(np.intp), None
        elif dt == _B1:
            raise DataDependentError("cupy.ix_ of a boolean array needs its values (nonzero)")
        new_shape = (1,) * k + (n,) + (1,) * (nd - k - 1)
        if src is not None:
            strides = src.strides if new_shape == shape else \
                cupy_nocopy_strides(shape, src.strides, dt.itemsize, new_shape)
            if strides is None:  # pragma: no cover - 1-d arrays always reshape as views
                raise UnsupportedOperationError("cupy.ix_", "a reshape that copies")
            out.append(ArrayMeta(new_shape, dt, strides, view_of=src))
        else:
            cst = c_strides((n,), dt.itemsize)
            strides = cst if new_shape == (n,) else \
                cupy_nocopy_strides((n,), cst, dt.itemsize, new_shape)
            out.append(ArrayMeta(new_shape, dt, strides, base_shape=(n,), device=current_device()))
    return tuple(out)


def _cuda_arg(x: Any, name: str) -> Any:
    if _is_cuda(x):
        if device_of(x) != current_device():
            raise UnsupportedOperationError(name, "an array on another device")
        return x
    raise UnsupportedOperationError(name, "only CUDA fake index arrays are supported")


def cp_ravel_multi_index(multi_index, dims, mode="wrap", order="C"):
    """generate.py ``ravel_multi_index``: ``zeros(broadcast shape, int64)`` accumulated;
    ``mode='raise'`` checks the values on the host."""
    ndim = len(dims)
    if len(multi_index) != ndim:
        raise ValueError(f"parameter multi_index must be a sequence of length {ndim}")
    for d in dims:
        if not isinstance(d, numbers.Integral):
            raise TypeError(f"{type(d)} object cannot be interpreted as an integer")
    if isinstance(mode, str):
        mode = (mode,) * ndim
    if functools.reduce(operator.mul, dims) > np.iinfo(np.int64).max:
        raise ValueError("invalid dims: array size defined by dims is larger "
                         "than the maximum possible size")
    order = "C" if order is None else order.upper()
    if order not in ("C", "F"):
        raise ValueError("order not understood")
    idxs = [_cuda_arg(x, "cupy.ravel_multi_index") for x in multi_index]
    from ...layout import broadcast_shapes
    shape = broadcast_shapes(*[x.shape for x in idxs])
    for idx, m in zip(idxs, mode):
        if not np.can_cast(idx.dtype, _I8, "same_kind"):
            raise TypeError(f"multi_index entries could not be cast from dtype('{idx.dtype}') "
                            "to dtype('int64') according to the rule 'same_kind'")
        if m == "raise":
            raise DataDependentError("cupy.ravel_multi_index(mode='raise') checks the index "
                                     "values on the host")
        if m not in ("clip", "wrap"):
            raise ValueError(f"Unrecognized mode: {m}")
    return fresh(shape, _I8)


def cp_unravel_index(indices, dims, order="C"):
    """generate.py ``unravel_index``: ``(indices < 0).any()`` synchronizes on the values."""
    order = "C" if order is None else order.upper()
    if order not in ("C", "F"):
        raise ValueError("order not understood")
    x = _cuda_arg(indices, "cupy.unravel_index")
    if not np.can_cast(x.dtype, _I8, "same_kind"):
        raise TypeError(f"Iterator operand 0 dtype could not be cast from dtype('{x.dtype}') "
                        "to dtype('int64') according to the rule 'same_kind'")
    raise DataDependentError("cupy.unravel_index checks the index values on the host")


def _is(fn: Any, name: str) -> bool:
    """fn is cupy.NAME / numpy.NAME (patched or not)."""
    fn = getattr(fn, "__wrapped__", fn)
    for mod in (cupy_module(), np):
        f = getattr(mod, name, None)
        if f is not None and fn is getattr(f, "__wrapped__", f):
            return True
    return False


def cp_mask_indices(n, mask_func, k=0):
    """``ones((n, n), int8)``, ``mask_func(a, k).nonzero()``: for tril/triu the count is
    known and nonzero returns ``dst[:, i]`` views of one (count, 2) int64 buffer."""
    shape_arg((n, n))
    if n > 0:
        _int_param("cupy.mask_indices", n, k)
    if _is(mask_func, "tril"):
        count = _tril_count(n, n, k)
    elif _is(mask_func, "triu"):
        count = n * n - _tril_count(n, n, k - 1)
    else:
        raise DataDependentError("cupy.mask_indices with this mask_func needs the mask's "
                                 "values (nonzero)")
    dst = fresh((count, 2), _I8)
    if count == 0:  # an empty array: views do not move the pointer
        return tuple(ArrayMeta((0,), _I8, (dst.strides[0],), view_of=dst) for _ in range(2))
    return tuple(ArrayMeta((count,), _I8, (16,), view_of=dst, offset=8 * i) for i in range(2))


# --- vander (cupy/_creation/matrix.py) --------------------------------------------------

def cp_vander(x, N=None, increasing=False):
    """``v = empty((len(x), N), promote_types(x.dtype, int))``; ``power(x.reshape(-1, 1),
    arange(N), out=v or v[:, ::-1])``; returns v."""
    from .ops import view_of
    xa = _cr.cp_asarray(x)
    if xa is not x and _is_cuda(x):
        raise UnsupportedOperationError("cupy.vander", "an array on another device")
    if len(xa.shape) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = xa.shape[0]
    if N is None:
        N = n
    dt = check_dtype(np.promote_types(xa.dtype, int))
    v = fresh(shape_arg((n, N)), dt)
    vv = view_of(v)
    ar = _cr.cp_arange(N)
    r = _cr.cupy_ufunc_call(_ufunc("power"), view_of(xa, (n, 1)),
                            temp(ar.shape, ar.dtype, vv))
    if not np.can_cast(r.dtype, dt, "same_kind"):  # power(..., out=tmp)
        raise TypeError(f"Cannot cast ufunc 'output operand' from {r.dtype!r} to {dt!r} "
                        "with casting rule 'same_kind'")
    return v


def _ufunc(name: str) -> Any:
    f = getattr(cupy_module(), name)
    return getattr(f, "__wrapped__", f)


# --- window functions (cupy/_math/window.py) ------------------------------------------

def _window(name: str):
    def kernel(M, *params):
        if is_device_array(M) or any(is_device_array(p) for p in params):
            raise UnsupportedOperationError(f"cupy.{name}", "array-valued window parameters")
        if M == 1:
            return fresh((1,), _F8)
        if M <= 0:
            return fresh((0,), _F8)
        return fresh(shape_arg(M), _F8)
    kernel.__name__ = f"cupy_{name}"
    return kernel


def cp_kaiser(M, beta):
    return _window("kaiser")(M, beta)


# --- from host data (cupy/_creation/from_data.py) --------------------------------------

def _np(name: str) -> Any:
    f = getattr(np, name)
    return getattr(f, "__wrapped__", f)


def _host_to_device(h: Any) -> Any:
    """``cupy.asarray`` of a host result (an ArrayMeta or a fake): F when F- and not C-contiguous."""
    if is_device_array(h):
        return _cr.cp_asarray(h)
    c, f = contiguity(h.shape, h.strides, h.dtype.itemsize)
    return fresh(tuple(h.shape), check_dtype(h.dtype), "F" if f and not c else "C")


def _via_numpy(name: str, fallback: Any):
    """``cupy.NAME = asarray(numpy.NAME(...))``: the project's NumPy kernel for the host step
    when there is one (kernels/numpy/index_tricks.py), else ``fallback``."""
    def kernel(*args, **kwargs):
        k = lookup(_np(name))
        if k is None or k.backend == "cupy":
            return fallback(*args, **kwargs)
        return _host_to_device(k.fn(*args, **kwargs))
    kernel.__name__ = f"cupy_{name}"
    return kernel


def _frombuffer(*args, **kwargs):
    """NumPy views the real buffer (no copy, no data read)."""
    return _cr.cp_asarray(_np("frombuffer")(*args, **kwargs))


def _np_fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    if like is not None:
        raise UnsupportedOperationError("cupy.fromfile", "like=")
    if sep != "" or not isinstance(file, (str, bytes, os.PathLike)):
        raise UnsupportedOperationError("cupy.fromfile", "text mode or an open file object")
    dt = np.dtype(dtype)
    if dt.hasobject or dt.itemsize == 0:
        raise UnsupportedOperationError("cupy.fromfile", f"dtype {dt}")
    size = os.path.getsize(file)  # FileNotFoundError as NumPy's open
    if offset < 0:
        raise OSError(22, "Invalid argument")
    avail = max(0, size - operator.index(offset)) // dt.itemsize
    count = operator.index(count)
    return dt, (avail if count < 0 else min(count, avail))  # NumPy 2.4 reads what is there


def cp_fromfile(*args, **kwargs):
    """``asarray(numpy.fromfile(...))``: binary files sized from the file's length."""
    dt, n = _np_fromfile(*args, **kwargs)
    return fresh((n,), check_dtype(dt))


def _fromstring(*args, **kwargs):
    """With a separator NumPy parses text; without one it raises at once (binary mode removed)."""
    if kwargs.get("sep") is None or kwargs.get("sep") == "":
        return _cr.cp_asarray(_np("fromstring")(*args, **kwargs))
    raise DataDependentError("cupy.fromstring parses the string's text")


def _parses(name: str):
    def kernel(*args, **kwargs):
        raise DataDependentError(f"cupy.{name} parses its input: the shape needs the data")
    kernel.__name__ = f"cupy_{name}"
    return kernel


# --- files (cupy/_io/npz.py, text.py) ----------------------------------------------------

class NpzFile:
    """cupy's ``NpzFile``: members become device arrays (``cupy.array``) on access."""

    def __init__(self, npz_file: Any) -> None:
        self.npz_file = npz_file

    def __enter__(self) -> "NpzFile":
        self.npz_file.__enter__()
        return self

    def __exit__(self, typ: Any, val: Any, tb: Any) -> None:
        self.npz_file.__exit__(typ, val, tb)

    def __getitem__(self, key: str) -> Any:
        # the patched namespace: a CPU fake argument dispatches to the rule
        return cupy_module().array(self.npz_file[key])

    def close(self) -> None:
        self.npz_file.close()


def cp_load(file, mmap_mode=None, allow_pickle=None):
    """npz.py ``load``: ``numpy.load`` (the project's header reader), then ``cupy.array``."""
    allow_pickle = False if allow_pickle is None else allow_pickle
    k = lookup(getattr(np.load, "__wrapped__", np.load))
    if k is None:
        raise UnsupportedOperationError("cupy.load", "no np.load kernel is registered")
    obj = k.fn(file, mmap_mode, allow_pickle)
    if is_device_array(obj):
        return _cr.cp_array(obj)
    if hasattr(obj, "files") and hasattr(obj, "zip"):
        return NpzFile(obj)
    return obj


def _writes(name: str):
    def kernel(*args, **kwargs):
        raise UnsupportedOperationError(f"cupy.{name}", "writing a file needs the array's "
                                        "data; fakes have none")
    kernel.__name__ = f"cupy_{name}"
    return kernel


def _register() -> None:
    table = {
        "tri": (cp_tri, "factory"), "tril_indices": (cp_tril_indices, "factory"),
        "triu_indices": (cp_triu_indices, "factory"),
        "tril_indices_from": (cp_tril_indices_from, "factory"),
        "triu_indices_from": (cp_triu_indices_from, "factory"),
        "diag_indices": (cp_diag_indices, "factory"),
        "diag_indices_from": (cp_diag_indices_from, "factory"),
        "indices": (cp_indices, "factory"), "ix_": (cp_ix_, "view"),
        "ravel_multi_index": (cp_ravel_multi_index, "copy"),
        "unravel_index": (cp_unravel_index, "data-dependent"),
        "mask_indices": (cp_mask_indices, "factory"), "vander": (cp_vander, "copy"),
        "bartlett": (_window("bartlett"), "factory"), "blackman": (_window("blackman"), "factory"),
        "hamming": (_window("hamming"), "factory"), "hanning": (_window("hanning"), "factory"),
        "kaiser": (cp_kaiser, "factory"),
        "frombuffer": (_via_numpy("frombuffer", _frombuffer), "factory"),
        "fromfile": (cp_fromfile, "factory"),
        "fromstring": (_via_numpy("fromstring", _fromstring), "factory"),
        "fromiter": (_via_numpy("fromiter", _parses("fromiter")), "factory"),
        "loadtxt": (_parses("loadtxt"), "data-dependent"),
        "genfromtxt": (_parses("genfromtxt"), "data-dependent"),
        "load": (cp_load, "factory"),
        "save": (_writes("save"), "copy"), "savez": (_writes("savez"), "copy"),
        "savez_compressed": (_writes("savez_compressed"), "copy"),
        "savetxt": (_writes("savetxt"), "copy"),
    }
    register_rules(table, cupy_module())


_cr.on_cupy(_register)
