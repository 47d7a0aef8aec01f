"""scipy.fft's compiled core: ``scipy.fft._pocketfft.pypocketfft`` (pypocketfft.cxx) before
SciPy 1.18, ``scipy.fft._duccfft.pyduccfft`` from 1.18 (the same transforms and signatures;
``_numpy_version.scipy_fft_core`` decides which).

scipy.fft's Python layer (scipy/fft/_pocketfft|_duccfft/basic.py, realtransforms.py, helper.py:
``_asfarray``, ``_fix_shape``, the norm and worker checks, the n-d loops) runs on fakes
through NumPy's kernels; only the pybind11 transforms it ends in are rules here. Each
allocates its output with ``py::array_t<T>(shape)`` (C order) unless ``out`` is given, and
writes into ``out`` otherwise; the plan and work arrays are C++ heap, not NumPy's data.
"""
from __future__ import annotations

import operator
from typing import Any

import importlib

import numpy as np

from ..._numpy_version import scipy_fft_core

_CORE = scipy_fft_core()
_pocketfft = importlib.import_module(f"{_CORE.package}.{_CORE.module}")
_DUCC = _CORE.module == "pyduccfft"


class _Originals:
    """The core's own transforms (not their patches, when SciPy was patched first)."""

    def __getattr__(self, name: str):
        fn = getattr(_pocketfft, name)
        return fn.__wrapped__ if getattr(fn, "_ft_patch", False) else fn


_pfft = _Originals()

from ...layout import c_strides
from ...meta import ArrayMeta, as_meta, check_writeable
from .. import flops
from ..registry import register

# pypocketfft's dtype dispatch (pypocketfft.cxx: c2c, r2c, ... test isPyarr<T> for these)
_REAL = {np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.longdouble)}
_COMPLEX = {np.dtype(np.complex64), np.dtype(np.complex128), np.dtype(np.clongdouble)}
_TO_COMPLEX: dict[Any, Any] = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128),
               np.dtype(np.longdouble): np.dtype(np.clongdouble)}
_TO_REAL = {v: k for k, v in _TO_COMPLEX.items()}


def _input(a: Any, accept: set, name: Any) -> Any:
    m = as_meta(a)
    if not hasattr(m, "shape"):
        raise TypeError(f"{name.__name__}(): incompatible function arguments")
    if m.dtype not in accept or not m.dtype.isnative:
        raise RuntimeError("unsupported data type")
    return m


def _axes(axes: Any, ndim: int) -> list:
    """makeaxes (pypocketfft.cxx): None is every axis; each must be in range."""
    if axes is None:
        return list(range(ndim))
    out = []
    for ax in axes:
        ax = operator.index(ax)
        if ax < 0:
            ax += ndim
        if ax < 0 or ax >= ndim:
            raise ValueError("axes exceeds dimensionality of output")
        out.append(ax)
    return out


def _output(shape: tuple, dt: np.dtype, out: Any) -> Any:
    """prepare_output (pypocketfft.cxx; ducc0's pybind_utils.h from SciPy 1.18): a fresh C
    array, or ``out`` of that shape and type."""
    if out is None:
        return ArrayMeta(shape, dt, c_strides(shape, dt.itemsize))
    o = as_meta(out)
    if _DUCC:  # get_optional_Pyarr / to_vmav: type, then shape, then strides and writeability
        if o.dtype != dt:
            raise RuntimeError("out: incorrect data type")
        if tuple(o.shape) != tuple(shape):
            raise RuntimeError("out: dimension mismatch")
        if any(st == 0 and n > 1 for n, st in zip(o.shape, o.strides)):
            raise RuntimeError("detected zero stride in writable array")
        if not o.flags.writeable:
            raise ValueError("array is not writeable")
        return out
    if o.dtype != dt:
        raise RuntimeError("unexpected data type for output array")
    if tuple(o.shape) != tuple(shape):
        raise ValueError("output array has wrong shape")  # pocketfft corrupts memory here
    check_writeable(o)
    return out


@register(_pfft.c2c, tags=("copy",), flops=flops.pocketfft(False))
def c2c(a: Any, axes: Any = None, forward: bool = True, inorm: int = 0, out: Any = None,
        nthreads: int = 1) -> Any:
    """A complex transform; a real input gives the complex type of its precision (c2c_sym)."""
    m = _input(a, _REAL | _COMPLEX, _pfft.c2c)
    _axes(axes, m.ndim)
    return _output(tuple(m.shape), _TO_COMPLEX.get(m.dtype, m.dtype), out)


@register(_pfft.r2c, tags=("copy",), flops=flops.pocketfft(True, "in"))
def r2c(a: Any, axes: Any = None, forward: bool = True, inorm: int = 0, out: Any = None,
        nthreads: int = 1) -> Any:
    """Real to complex: the last transformed axis keeps n // 2 + 1 entries."""
    m = _input(a, _REAL, _pfft.r2c)
    ax = _axes(axes, m.ndim)
    shape = list(m.shape)
    if ax:
        shape[ax[-1]] = shape[ax[-1]] // 2 + 1
    return _output(tuple(shape), _TO_COMPLEX[m.dtype], out)


@register(_pfft.c2r, tags=("copy",), flops=flops.pocketfft(True))
def c2r(a: Any, axes: Any = None, lastsize: int = 0, forward: bool = True, inorm: int = 0,
        out: Any = None, nthreads: int = 1) -> Any:
    """Complex (Hermitian) to real: the last transformed axis becomes ``lastsize`` long
    (0: 2 * (n - 1))."""
    m = _input(a, _COMPLEX, _pfft.c2r)
    ax = _axes(axes, m.ndim)
    shape = list(m.shape)
    if ax:
        n = operator.index(lastsize)
        n = n if n != 0 else 2 * shape[ax[-1]] - 2
        if n // 2 + 1 > shape[ax[-1]]:
            raise ValueError("bad lastsize")
        shape[ax[-1]] = n
    return _output(tuple(shape), _TO_REAL[m.dtype], out)


def _real_same(name: Any, axes_at: int):
    def kernel(a: Any, *args: Any, **kwargs: Any) -> Any:
        m = _input(a, _REAL, name)
        # r2r_fftpack(a, axes, real2hermitian, forward, inorm, out, nthreads);
        # dct/dst(a, type, axes, inorm, out, nthreads, ortho)
        if name is _pfft.r2r_fftpack:
            axes = args[0] if args else kwargs.get("axes")
            out = args[4] if len(args) > 4 else kwargs.get("out")
        else:
            typ = args[0] if args else kwargs.get("type", 2)
            if typ not in (1, 2, 3, 4):
                raise ValueError("invalid DCT type" if name is _pfft.dct else "invalid DST type")
            axes = args[1] if len(args) > 1 else kwargs.get("axes")
            out = args[3] if len(args) > 3 else kwargs.get("out")
        _axes(axes, m.ndim)
        return _output(tuple(m.shape), m.dtype, out)
    kernel.__name__ = name.__name__
    kernel.__doc__ = f"pypocketfft.{name.__name__}: a real transform, the input's shape and type."
    return register(name, tags=("copy",), flops=flops.pocketfft(True, axes_at=axes_at))(kernel)


for _f, _at in ((_pfft.r2r_fftpack, 0), (_pfft.dct, 1), (_pfft.dst, 1)):
    _real_same(_f, _at)


CORE = (_pfft.c2c, _pfft.r2c, _pfft.c2r, _pfft.r2r_fftpack, _pfft.dct, _pfft.dst)
