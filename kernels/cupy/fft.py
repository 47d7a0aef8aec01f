"""CuPy rules for cupy.fft on CUDA fakes.

cupy/fft/_fft.py is Python over cuFFT plans, so each rule replays its control flow on
metadata records (ArrayMeta) and returns the layout of the array CuPy returns. Facts:
- dtypes (``_output_dtype``): C2C/C2R inputs float16/float32 -> complex64, other
  non-complex -> complex128; R2C inputs complex -> their real type, float16 -> float32,
  non-float -> float64; the conversion is ``astype`` (order K);
- the 1-D path (``_fft``/``_exec_fft``) transforms one axis at a time: the axis is
  swapped to the end, the plan writes a fresh C array, which is swapped back, so a
  transform whose last processed axis is not the last axis returns a *non-contiguous
  view of a temporary*; transforms on a zero-length axis raise ValueError, zero-size
  batches do not;
- ``_default_fft_func`` routes fft2/fftn/rfft2/... with two or three adjacent axes that
  include the first or the last axis (and no F-contiguous input for R2C/C2R) to the N-d
  plan (``_fftn``), whose output is a fresh array in the input's order (C when C-contiguous,
  else F) and which refuses any zero-length axis (ValueError);
- ``irfft`` (and irfft2/irfftn with one axis) cast to ``result_type(a.real.dtype, 1.0)``
  with copy=False (a float16 input gives a float16 copy); ``ihfft`` returns ``rfft(...).conj()``
  (fresh C); ``hfft`` is ``irfft(a.conj(), ...)``;
- ``s`` entries are applied with ``a[0:s]`` slicing or zero padding, so a negative entry
  shortens the axis (Python slicing), and ``s == a.shape`` skips the C2R halving of s[-1];
- fftfreq/rfftfreq: ``hstack``/``arange`` float64 on the current device, divided by ``n*d``;
  fftshift/ifftshift: ``cupy.roll`` on the given axes (``empty_like``, order K).
cuFFT plans as context managers, callbacks, multi-GPU and ROCm are not modelled
(UnsupportedOperationError), nor sizes a cuFFT plan rejects.
"""
from __future__ import annotations

import math
import numbers
import operator
from typing import Any, Sequence

import numpy as np

from ..._errors import UnsupportedOperationError
from ...layout import c_strides, f_strides, like_strides
from ...meta import ArrayMeta, is_fake

from . import core as _cr
from .core import cupy_module
from .core import current_device, device_of, is_device_array, register_rules, temp

_INT_MAX = 2 ** 31 - 1
_C8, _C16 = np.dtype(np.complex64), np.dtype(np.complex128)
_F4, _F8 = np.dtype(np.float32), np.dtype(np.float64)


def _is_array(a: Any) -> bool:
    """An array in the replay: an input (a fake or NumPy array) or an ArrayMeta made from one."""
    return is_fake(a) or isinstance(a, np.ndarray) or type(a) is ArrayMeta


def _is_cupy(a: Any) -> bool:
    """An array CuPy's isinstance check accepts: one on a CUDA device."""
    return (is_fake(a) or type(a) is ArrayMeta) and device_of(a) != "cpu"


def _fresh(shape: Sequence[int], dt: np.dtype, order: str = "C") -> ArrayMeta:
    shape = tuple(shape)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    st = f_strides(shape, dt.itemsize) if order == "F" else c_strides(shape, dt.itemsize)
    return ArrayMeta(shape, dt, st, device=current_device())


def _view(a: ArrayMeta, shape: Sequence[int], strides: Sequence[int]) -> ArrayMeta:
    """A view: of the input (``view_of`` it) or of a fresh owner (``base_shape`` its shape)."""
    if type(a) is not ArrayMeta or a.view_of is not None:
        src = a if type(a) is not ArrayMeta else a.view_of
        return ArrayMeta(tuple(shape), a.dtype, tuple(strides), view_of=src, device=device_of(src))
    owner = a.shape if a.base_shape is None else a.base_shape
    return a._replace(shape=tuple(shape), strides=tuple(strides), base_shape=owner)


def _swapaxes(a: ArrayMeta, ax1: Any, ax2: Any) -> ArrayMeta:
    """_routines_manipulation.pyx _ndarray_swapaxes (ValueError 'Axis out of range')."""
    nd = a.ndim
    ax1, ax2 = operator.index(ax1), operator.index(ax2)
    if not (-nd <= ax1 < nd and -nd <= ax2 < nd):
        raise ValueError("Axis out of range")
    perm = list(range(nd))
    i, j = ax1 % nd, ax2 % nd
    perm[i], perm[j] = perm[j], perm[i]
    return _view(a, [a.shape[k] for k in perm], [a.strides[k] for k in perm])


def _astype_k(a: ArrayMeta, dt: np.dtype) -> ArrayMeta:
    """``a.astype(dt)`` (copy, order K): C for C-contiguous or ndim <= 1, F, else by |stride|."""
    c, f = a.flags.c_contiguous, a.flags.f_contiguous
    if a.ndim <= 1 or c:
        return _fresh(a.shape, dt)
    if f:
        return _fresh(a.shape, dt, "F")
    return ArrayMeta(a.shape, dt, like_strides(a.shape, a.strides, dt.itemsize, c, f),
                     device=current_device())


def _result(a: ArrayMeta) -> Any:
    """The kernel output for the replay's final array."""
    if type(a) is not ArrayMeta:  # the input itself
        return a
    if a.view_of is not None:  # pragma: no cover - every path copies before returning
        raise UnsupportedOperationError("cupy.fft", "a view of the input")
    return a


# --- inputs ----------------------------------------------------------------------------

def _need_cuda() -> None:
    if cupy_module() is None:
        raise UnsupportedOperationError("cupy.fft", "CUDA fakes follow CuPy's rules; install cupy")
    if cupy_module().cuda.runtime.is_hip:
        raise UnsupportedOperationError("cupy.fft", "hipFFT paths are not modelled")
    from cupy.fft import config
    if config.get_current_callback_manager() is not None or config.devices is not None:
        raise UnsupportedOperationError("cupy.fft", "cuFFT callbacks / multi-GPU FFT")
    plan = _current_plan()
    if plan is not None:
        raise UnsupportedOperationError("cupy.fft", "a cuFFT plan used as a context manager")


def _current_plan() -> Any:
    try:
        from cupy.cuda import cufft
    except Exception:  # no cuFFT library on this machine: no plan can be current
        return None
    return cufft.get_current_plan()


def _arg(a: Any) -> Any:
    """An array argument for the replay: CUDA fakes on the current device; NumPy arrays and
    CPU fakes as non-CuPy arrays (CuPy's isinstance check refuses them); others as is."""
    if is_device_array(a):
        dev = device_of(a)
        if dev != "cpu" and dev != current_device():
            raise UnsupportedOperationError("cupy.fft", "an array on another device than the "
                                            "current one (cuFFT would read it across devices)")
        return a
    if isinstance(a, (np.ndarray, np.generic)):
        return np.asarray(a)
    return a


def _attr(a: Any, name: str) -> None:
    """CuPy reads an attribute of ``a`` first: AttributeError for non-arrays."""
    if not _is_array(a):
        getattr(a, name)


# --- cupy/fft/_fft.py, replayed ------------------------------------------------------

def _output_dtype(dt: np.dtype, value_type: str) -> np.dtype:
    if value_type != "R2C":
        if dt in (np.float16, np.float32):
            return _C8
        if dt not in (np.complex64, np.complex128):
            return _C16
    else:
        if dt in (np.complex64, np.complex128):
            return np.dtype(dt.char.lower())
        if dt == np.float16:
            return _F4
        if dt not in (np.float32, np.float64):
            return _F8
    return dt


def _convert_dtype(a: ArrayMeta, value_type: str) -> ArrayMeta:
    dt = _output_dtype(a.dtype, value_type)
    return _astype_k(a, dt) if dt != a.dtype else a


def _cook_shape(a: ArrayMeta, s: Any, axes: Any, value_type: str, order: str = "C") -> ArrayMeta:
    if s is None or s == a.shape:
        return a
    if value_type == "C2R" and s[-1] is not None:
        s = list(s)
        s[-1] = s[-1] // 2 + 1
    for sz, axis in zip(s, axes):
        if sz is not None and sz != a.shape[axis]:
            if not isinstance(sz, (numbers.Integral, np.integer)):
                raise UnsupportedOperationError("cupy.fft", "a non-integer entry in s / n")
            shape = list(a.shape)
            if shape[axis] > sz:
                n = len(range(*slice(0, sz).indices(shape[axis])))
                shape[axis] = n
                a = _view(a, shape, a.strides)
            else:
                shape[axis] = sz
                a = _fresh(shape, a.dtype, order)
    return a


def _fft_type(dt: np.dtype, value_type: str) -> None:
    """_convert_fft_type: the six (value type, dtype) pairs cuFFT has, else ValueError."""
    ok = {"C2C": (_C8, _C16), "R2C": (_F4, _F8), "C2R": (_C8, _C16)}[value_type]
    if dt not in ok:
        raise ValueError


def _out_dtype(dt: np.dtype, value_type: str) -> np.dtype:
    if value_type == "C2R":
        return _F4 if dt == _C8 else _F8
    if value_type == "R2C":
        return _C8 if dt == _F4 else _C16
    return dt


def _exec_fft(a: ArrayMeta, value_type: str, axis: Any, out_size: Any = None) -> ArrayMeta:
    """_exec_fft: swap the axis to the end, Plan1d into a fresh C array, swap back."""
    _fft_type(a.dtype, value_type)
    swap = axis % a.ndim != a.ndim - 1
    if swap:
        a = _swapaxes(a, axis, -1)
    n = a.shape[-1]
    if n < 1:
        raise ValueError("Invalid number of FFT data points (%d) specified." % n)
    if out_size is None:
        out_size = n
    batch = a.size // n
    if out_size > _INT_MAX or batch > _INT_MAX or out_size < -_INT_MAX - 1:
        raise OverflowError("value too large to convert to int")  # Plan1d(int nx, ..., int batch)
    if batch != 0 and out_size < 1:
        raise UnsupportedOperationError("cupy.fft", f"cuFFT rejects a plan of {out_size} points")
    shape = list(a.shape)
    if value_type == "R2C":
        shape[-1] = shape[-1] // 2 + 1
    elif value_type == "C2R":
        shape[-1] = out_size
    out = _fresh(shape, _out_dtype(a.dtype, value_type))
    if swap:
        out = _swapaxes(out, axis, -1)
    return out


def _check_norm(norm: Any) -> None:
    if norm not in ("backward", "ortho", "forward"):
        raise ValueError('Invalid norm value %s, should be "backward", '
                         '"ortho", or "forward".' % norm)


def _get_fftn_out_size(in_shape: tuple, s: Any, last_axis: int, value_type: str) -> Any:
    if value_type == "C2R":
        if s is None or s[-1] is None:
            return 2 * (in_shape[last_axis] - 1)
        return s[-1]
    if value_type == "R2C":
        return in_shape[last_axis] // 2 + 1
    return None


def _fft(a: Any, s: Any, axes: Any, norm: Any, value_type: str = "C2C") -> ArrayMeta:
    """_fft: one axis at a time."""
    if not (_is_cupy(a)):
        raise TypeError("The input array a must be a cupy.ndarray")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if axes is None:
        dim = a.ndim if s is None else len(s)
        axes = [i for i in range(-dim, 0)]
    else:
        axes = tuple(axes)
    if not axes:
        if value_type == "C2C":
            return a
        raise IndexError("list index out of range")
    if norm is None:
        norm = "backward"
    _check_norm(norm)
    a = _convert_dtype(a, value_type)
    a = _cook_shape(a, s, axes, value_type)
    if value_type == "C2C":
        for axis in axes:
            a = _exec_fft(a, "C2C", axis)
    elif value_type == "R2C":
        a = _exec_fft(a, "R2C", axes[-1])
        for axis in axes[:-1]:
            a = _exec_fft(a, "C2C", axis)
    else:
        for axis in axes[:-1]:
            a = _exec_fft(a, "C2C", axis)
        out_size = _get_fftn_out_size(a.shape, s, axes[-1], "C2R")
        a = _exec_fft(a, "C2R", axes[-1], out_size)
    return a


def _prep_fftn_axes(ndim: int, s: Any = None, axes: Any = None, value_type: str = "C2C") -> tuple:
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if axes is None:
        dim = ndim if s is None else len(s)
        axes = tuple(i + ndim for i in range(-dim, 0))
        return axes, axes
    axes = tuple(axes)
    if not axes:
        return (), ()
    if min(axes) < -ndim or max(axes) > ndim - 1:
        raise ValueError("The specified axes exceed the array dimensions.")
    if value_type == "C2C":
        return axes, tuple(sorted(ax % ndim for ax in axes))
    return axes, tuple(sorted(ax % ndim for ax in axes[:-1])) + (axes[-1] % ndim,)


def _nd_plan_is_possible(axes_sorted: tuple, ndim: int) -> bool:
    return (0 < len(axes_sorted) <= 3
            and (0 in axes_sorted or (ndim - 1) in axes_sorted)
            and all(axes_sorted[n + 1] - axes_sorted[n] == 1 for n in range(len(axes_sorted) - 1)))


def _plan_nd_checks(shape: tuple, value_type: str, axes: tuple, order: str, out_size: Any) -> tuple:
    """_get_cufft_plan_nd's checks; returns the plan's (last_axis, last_size)."""
    ndim = len(shape)
    _, fft_axes = _prep_fftn_axes(ndim, None, axes, value_type)
    if not _nd_plan_is_possible(fft_axes, ndim):
        raise ValueError(
            "An n-dimensional cuFFT plan could not be created. The axes must "
            "be contiguous and non-repeating. Between one and three axes can "
            "be transformed and either the first or last axis must be "
            "included in axes.")
    in_dims = [shape[d] for d in fft_axes]
    if order == "F":
        in_dims = in_dims[::-1]
    plan_dims = list(in_dims)
    if value_type == "C2R" and out_size is not None:
        plan_dims[-1] = out_size
    if fft_axes != tuple(range(ndim)) and 0 in fft_axes and (ndim - 1) in fft_axes:
        raise ValueError("General subsets of FFT axes not currently supported for GPU case "
                         "(Can only batch FFT over the first or last spatial axes).")
    for n in plan_dims:
        if n < 1:
            raise ValueError("Invalid number of FFT data points specified.")
    if any(n > _INT_MAX for n in plan_dims + in_dims) or \
            (out_size is not None and out_size > _INT_MAX):
        raise UnsupportedOperationError("cupy.fft", "plan sizes beyond cuFFT's int range")
    return fft_axes[-1], out_size


def _fftn(a: Any, s: Any, axes: Any, norm: Any, value_type: str = "C2C") -> ArrayMeta:
    """_fftn: one N-d cuFFT plan; a fresh output in the (contiguous) input's order."""
    if not (_is_cupy(a)):
        raise TypeError("The input array a must be a cupy.ndarray")
    if norm is None:
        norm = "backward"
    _check_norm(norm)
    axes, axes_sorted = _prep_fftn_axes(a.ndim, s, axes, value_type)
    if not axes_sorted:
        if value_type == "C2C":
            return a
        raise IndexError("list index out of range")
    a = _convert_dtype(a, value_type)
    if a.flags.f_contiguous:
        order = "F"
    elif a.flags.c_contiguous:
        order = "C"
    else:
        a, order = _fresh(a.shape, a.dtype), "C"
    a = _cook_shape(a, s, axes, value_type, order=order)
    for n in a.shape:
        if n < 1:
            raise ValueError("Invalid number of FFT data points (%d) specified." % n)
    if order == "C" and not a.flags.c_contiguous:
        a = _fresh(a.shape, a.dtype)
    elif order == "F" and not a.flags.f_contiguous:
        a = _fresh(a.shape, a.dtype, "F")
    out_size = _get_fftn_out_size(a.shape, s, axes_sorted[-1], value_type)
    _fft_type(a.dtype, value_type)
    exec_order = "C" if a.flags.c_contiguous else "F"
    if exec_order == "F" and value_type != "C2C":
        # reachable only through an order-K dtype conversion; CuPy's plan code assumes C
        # for R2C/C2R (its out_dimensions are "only valid for C order") and cuFFT may refuse
        raise UnsupportedOperationError("cupy.fft", "an F-order R2C/C2R N-d plan")
    last_axis, last_size = _plan_nd_checks(a.shape, value_type, axes_sorted, exec_order, out_size)
    shape = list(a.shape)
    if value_type != "C2C":
        shape[last_axis] = last_size
    return _fresh(shape, _out_dtype(a.dtype, value_type), exec_order)


def _default_fft_func(a: Any, s: Any, axes: Any, value_type: str = "C2C") -> Any:
    _attr(a, "ndim")
    if a.ndim == 1:
        return _fft
    if a.flags.f_contiguous and value_type != "C2C":
        return _fft
    _, axes_sorted = _prep_fftn_axes(a.ndim, s, axes, value_type)
    if len(axes_sorted) > 1 and _nd_plan_is_possible(axes_sorted, a.ndim):
        return _fftn
    return _fft


def _compat_caster(a: Any, axes: Any):
    _attr(a, "real")
    real = np.result_type(np.dtype(a.dtype.char.lower()) if a.dtype.kind == "c" else a.dtype, 1.0)
    if axes is not None and len(axes) == 1:
        return lambda x: x if x.dtype == real else _astype_k(x, real)
    return lambda x: x


def _swap_direction(norm: Any) -> Any:
    if norm in (None, "backward"):
        return "forward"
    if norm == "forward":
        return "backward"
    if norm != "ortho":
        raise ValueError('Invalid norm value %s; should be "backward", '
                         '"ortho", or "forward".' % norm)
    return norm


# --- the public functions ----------------------------------------------------------------

def cp_fft(a, n=None, axis=-1, norm=None):
    _need_cuda()
    return _result(_fft(_arg(a), (n,), (axis,), norm))


def cp_rfft(a, n=None, axis=-1, norm=None):
    _need_cuda()
    return _result(_fft(_arg(a), (n,), (axis,), norm, "R2C"))


def _irfft(a: Any, n: Any, axis: Any, norm: Any) -> ArrayMeta:
    caster = _compat_caster(a, (axis,))
    return caster(_fft(a, (n,), (axis,), norm, "C2R"))


def cp_irfft(a, n=None, axis=-1, norm=None):
    _need_cuda()
    return _result(_irfft(_arg(a), n, axis, norm))


def cp_hfft(a, n=None, axis=-1, norm=None):
    """``irfft(a.conj(), n, axis, _swap_direction(norm))``: conj of a complex array is a fresh
    C copy, of a real one the array itself."""
    _need_cuda()
    a = _arg(a)
    _attr(a, "conj")
    if _is_cupy(a) and a.dtype.kind == "c":
        a = _fresh(a.shape, a.dtype)
    elif not _is_array(a):
        raise UnsupportedOperationError("cupy.fft.hfft", "a non-array input")
    return _result(_irfft(a, n, axis, _swap_direction(norm)))


def cp_ihfft(a, n=None, axis=-1, norm=None):
    """``rfft(a, n, axis, _swap_direction(norm)).conj()``: a fresh C copy (complex output)."""
    _need_cuda()
    r = _fft(_arg(a), (n,), (axis,), _swap_direction(norm), "R2C")
    return _result(_fresh(r.shape, r.dtype))


def _nd(value_type: str, cast: bool = False):
    def kernel(a, s=None, axes=None, norm=None):
        _need_cuda()
        a = _arg(a)
        caster = _compat_caster(a, axes) if cast else (lambda x: x)
        func = _default_fft_func(a, s, axes, value_type)
        return _result(caster(func(a, s, axes, norm, value_type)))
    return kernel


def _nd2(value_type: str, cast: bool = False):
    inner = _nd(value_type, cast)

    def kernel(a, s=None, axes=(-2, -1), norm=None):
        return inner(a, s, axes, norm)
    return kernel


def cp_fftfreq(n, d=1.0):
    """``hstack((arange(0, (n-1)//2+1), arange(-(n//2), 0))) / (n*d)`` (float64 aranges)."""
    _real_n(n)
    return _freq(n, d, _arange_len(0, (n - 1) // 2 + 1) + _arange_len(-(n // 2), 0))


def cp_rfftfreq(n, d=1.0):
    """``arange(0, n//2+1, dtype=float64) / (n*d)``."""
    _real_n(n)
    return _freq(n, d, _arange_len(0, n // 2 + 1))


def _real_n(n: Any) -> None:
    if is_device_array(n) or not isinstance(n, (numbers.Real, np.number)) \
            or isinstance(n, np.complexfloating):
        raise UnsupportedOperationError("cupy.fft.fftfreq", "n that is not a real number")


def _arange_len(start: Any, stop: Any) -> int:
    """Length of ``cupy.arange(start, stop)`` (step 1)."""
    return max(int(math.ceil(stop - start)), 0)


def _freq(n: Any, d: Any, length: int) -> ArrayMeta:
    if is_device_array(d):
        raise UnsupportedOperationError("cupy.fft.fftfreq", "an array d")
    num = temp((length,), _F8, current_device())
    return _cr.cupy_ufunc_call(_ufunc("true_divide"), num, n * d)


def _ufunc(name: str) -> Any:
    f = getattr(cupy_module(), name)
    return getattr(f, "__wrapped__", f)


def _shift(x: Any, axes: Any, sign: int) -> Any:
    """fftshift / ifftshift: ``cupy.roll(asarray(x), [±(shape[ax] // 2)], axes)``."""
    from . import manipulation as cupy_manip
    if is_device_array(x) and device_of(x) == current_device():
        shape = x.shape
        if axes is None:
            axes = list(range(x.ndim))
        elif isinstance(axes, int):
            axes = (axes,)
        shifts = [sign * (shape[ax] // 2) for ax in axes]
        return cupy_manip.cp_roll(x, shifts, axes)
    raise UnsupportedOperationError("cupy.fft.fftshift", "only CUDA fakes on the current device")


def cp_fftshift(x, axes=None):
    return _shift(x, axes, 1)


def cp_ifftshift(x, axes=None):
    return _shift(x, axes, -1)


def _register() -> None:
    import cupy.fft as cf
    table = {
        "fft": cp_fft, "ifft": cp_fft, "rfft": cp_rfft, "irfft": cp_irfft,
        "hfft": cp_hfft, "ihfft": cp_ihfft,
        "fft2": _nd2("C2C"), "ifft2": _nd2("C2C"), "rfft2": _nd2("R2C"),
        "irfft2": _nd2("C2R", cast=True),
        "fftn": _nd("C2C"), "ifftn": _nd("C2C"), "rfftn": _nd("R2C"),
        "irfftn": _nd("C2R", cast=True),
        "fftshift": cp_fftshift, "ifftshift": cp_ifftshift,
    }
    register_rules({name: (fn, "copy") for name, fn in table.items()}
                   | {"fftfreq": (cp_fftfreq, "factory"), "rfftfreq": (cp_rfftfreq, "factory")},
                   cf, "cupy.fft.")


_cr.on_cupy(_register)
