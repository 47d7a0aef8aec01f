"""np.fft: the pocketfft transforms (numpy/fft/_pocketfft.py) and fftshift / ifftshift.

Every 1-d transform allocates ``empty_like(a, shape=..., dtype=...)`` (order K of its
input) unless ``out=`` is given, and the pocketfft gufunc writes into it; the n-d
transforms chain 1-d ones, the last axis first.

This module never imports numpy.fft itself: NumPy loads it lazily, and ``register_all``
registers the rules once it is loaded (modes/installer.py's import hook, or
``kernels.load_all``).
"""
from __future__ import annotations

import operator
import sys
from typing import Any, Callable

import numpy as np

from ..._errors import UnsupportedOperationError
from ...layout import as_shape, like_strides, normalize_axis, shape_args
from .hidden import cast_copy_bytes, nbytes, scalar_bytes, stepped, steps, unbuffered_out_copy_bytes
from ...meta import ArrayMeta, as_meta, check_writeable
from .. import flops
from ..registry import once_loaded, register, scratch
from .temporaries import array_bytes
from .umath import resolve_loop

_DEFERRED: list = []  # (name in np.fft, register's keywords, rule), registered by register_all


def _deferred(name: str, **kw: Any) -> Callable:
    """``register(np.fft.NAME, **kw)``, once numpy.fft is loaded (``register_all``)."""
    def deco(fn: Callable) -> Callable:
        _DEFERRED.append((name, kw, fn))
        return fn
    return deco


@once_loaded("numpy.fft")
def register_all(fft: Any) -> None:
    """Register every np.fft rule, once numpy.fft is loaded (NumPy imports it lazily;
    modes/installer.py's import hook calls this when it loads, ``kernels.load_all`` too)."""
    for name, kw, fn in _DEFERRED:
        register(getattr(fft, name), **kw)(fn)


def _pocketfft() -> Any:
    """numpy.fft's gufuncs (numpy/fft/_pocketfft_umath.cpp), loaded with numpy.fft."""
    return sys.modules["numpy.fft._pocketfft_umath"]


def _fft(name: str) -> Any:
    """``np.fft.NAME`` (numpy.fft is loaded by the time a rule runs)."""
    return getattr(sys.modules["numpy.fft"], name)


_NORMS = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _swap(norm: Any) -> Any:
    try:
        return _NORMS[norm]
    except (KeyError, TypeError):
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or '
                         '"forward".') from None


def _raw(a: Any, n: Any, axis: Any, is_real: bool, forward: bool, norm: Any, out: Any) -> Any:
    """_raw_fft on metadata: the checks, the dtypes, the empty_like output or ``out``."""
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    if not forward:
        norm = _swap(norm)
    rdt = np.result_type(np.empty(0, a.dtype).real.dtype, 1.0)
    if norm is None or norm == "backward":
        fkey: Any = int
    elif norm in ("ortho", "forward"):
        fkey = rdt
    else:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
    n_out = n
    _pfu = _pocketfft()
    if is_real:
        if forward:
            uf = _pfu.rfft_n_even if n % 2 == 0 else _pfu.rfft_n_odd
            n_out = n // 2 + 1
        else:
            uf = _pfu.irfft
    else:
        uf = _pfu.fft if forward else _pfu.ifft
    ax = normalize_axis(axis, a.ndim)
    shape = tuple(a.shape[:ax]) + (n_out,) + tuple(a.shape[ax + 1:])
    if out is None:
        shape = as_shape(shape)  # empty_like(a, shape=...) reads it
        odt = rdt if (is_real and not forward) else np.result_type(a.dtype, 1j)
        loop = resolve_loop(uf, (a.dtype, fkey, odt), None, "same_kind")
        res = ArrayMeta(shape, odt, like_strides(shape, a.strides, odt.itemsize,
                                                 a.flags.c_contiguous, a.flags.f_contiguous))
        _fct_bytes(fkey, rdt)
        steps().alloc(array_bytes(shape, odt))  # ctors.c: an empty array takes 1 byte
        _gufunc_buffers(a, 1 if fkey is int else rdt.type(1), loop, res)
        _pocketfft_scratch(uf, n, res, ax, loop)
        return res
    oshape = getattr(out, "shape", None)
    if oshape is not None and (len(oshape) != a.ndim or oshape[ax] != n_out):
        raise ValueError("output array has wrong shape.")
    if oshape is None:
        raise UnsupportedOperationError(uf, "a non-array out=")
    loop = resolve_loop(uf, (a.dtype, fkey, out.dtype), None, "same_kind")
    for i, (x, y) in enumerate(zip(a.shape, oshape)):
        if i != ax and x != y and x != 1:
            raise ValueError(f"non-broadcastable output operand with shape {tuple(oshape)} "
                             f"doesn't match the broadcast shape {shape}")
    check_writeable(out)
    _fct_bytes(fkey, rdt)
    _gufunc_buffers(a, 1 if fkey is int else rdt.type(1), loop, out)
    _pocketfft_scratch(uf, n, out, ax, loop)
    return out


def _fct_bytes(fkey: Any, rdt: np.dtype) -> None:
    """_raw_fft's normalization factor for "ortho" / "forward": ``reciprocal(n, dtype=rdt)``
    (or of ``sqrt(n, dtype=rdt)``), a ufunc call on a Python int: its 0-d int64 array, the
    0-d of ``rdt`` made from it (the int64 one freed), then the 0-d result beside it, which
    becomes a NumPy scalar; all freed before the output exists."""
    if fkey is not int:
        steps().temp(max(8 + rdt.itemsize, 2 * rdt.itemsize))


def _largest_prime_factor(n: int) -> int:
    p, f = 1, 2
    while f * f <= n:
        while n % f == 0:
            p, n = f, n // f
        f += 1
    return max(p, n)


def _pocketfft_scratch(uf: Any, n: int, out: Any, ax: int, loop: tuple) -> None:
    """The C-heap blocks of one pocketfft loop (_pocketfft_umath.cpp, pocketfft_hdronly.hpp):
    the plan's twiddle factors (built on the first call for a length, then cached), the
    transform's own work array of one lane, and a lane buffer when the output's axis is
    strided. Complex transforms (fft, ifft) and real forward ones (rfft) whose length
    pocketfft factors directly (no Bluestein plan) only."""
    if n < 1 or 0 in out.shape or (n >= 50 and _largest_prime_factor(n) ** 2 > n):
        return
    odt = loop[-1]
    strided = out.strides[ax] != odt.itemsize
    _pfu = _pocketfft()
    if uf is _pfu.fft or uf is _pfu.ifft:
        scratch(2 * n * odt.itemsize + (n * odt.itemsize if strided else 0))
    elif uf is _pfu.rfft_n_even or uf is _pfu.rfft_n_odd:
        scratch(2 * n * (odt.itemsize // 2) + (out.shape[ax] * odt.itemsize if strided else 0))


def _gufunc_buffers(a: Any, fct: Any, loop: tuple, out: Any) -> None:
    """The pocketfft gufunc's data buffers beside its output: ``fct`` as a 0-d array, and,
    since gufuncs do not buffer, a whole copy of an input of another dtype (a real input to
    a complex transform) and of an output of another dtype (a float32 transform runs the
    complex128 loop) or that overlaps the input (see ufuncs.gufunc_call)."""
    st = steps()
    held, converting = scalar_bytes(fct, loop[1])
    if isinstance(fct, np.generic) and fct.dtype != loop[1]:
        # a gufunc has no trivial-loop copying: its iterator copies the NumPy scalar's 0-d
        # array to the loop dtype while that array stays alive (nditer_constr.c)
        held = converting
    st.alloc(converting)
    st.free(converting - held)
    copies = cast_copy_bytes(a, loop[0]) + unbuffered_out_copy_bytes([a], out, loop[2])
    st.alloc(copies)
    st.free(copies + held)


def _then_free(prev: Any, nxt: Any, src: Any) -> Any:
    """``a = transform(a)`` in a chain from the input ``src``: the previous intermediate (a
    fresh record the chain made, not ``src`` nor ``out``) dies once the next exists."""
    if type(prev) is ArrayMeta and prev is not src and prev is not nxt:
        steps().free(array_bytes(prev.shape, prev.dtype))
    return nxt


def _arr(a: Any, name: Any) -> Any:
    m = as_meta(a)
    if m.dtype.kind not in "biufc":
        raise UnsupportedOperationError(name, f"{m.dtype} input")
    return m


def _n(a: Any, n: Any, axis: Any, default: Any) -> int:
    if n is None:
        return default(a.shape[axis])  # IndexError for a bad axis, as NumPy's a.shape[axis]
    return n


def _one(name: str, is_real: bool, forward: bool, nfun: Any):
    def kernel(a: Any, n: Any = None, axis: int = -1, norm: Any = None, out: Any = None) -> Any:
        a = _arr(a, _fft(name))
        return _raw(a, _n(a, n, axis, nfun), axis, is_real, forward, norm, out)
    kernel.__name__ = name
    kernel.__doc__ = f"np.fft.{name}: empty_like(a) with the transformed axis resized, or out."
    shape_args(kernel, 1, "n")
    rule = (flops.rfft if forward else flops.irfft) if is_real else flops.fft
    return _deferred(name, tags=("copy",), flops=rule)(stepped(kernel))


_same = lambda k: k  # noqa: E731
_inv_real = lambda k: (k - 1) * 2  # noqa: E731
for _f, _r, _fw, _d in (("fft", False, True, _same), ("ifft", False, False, _same),
                        ("rfft", True, True, _same), ("irfft", True, False, _inv_real)):
    _one(_f, _r, _fw, _d)


@_deferred("hfft", tags=("copy",), flops=flops.irfft)
@stepped
def hfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None, out: Any = None) -> Any:
    """irfft(conjugate(a)) with the norm swapped; ``out`` is ignored, as in NumPy."""
    from .umath import ufunc_call
    a = _arr(a, np.fft.hfft)
    n = _n(a, n, axis, _inv_real)
    norm = _swap(norm)
    c = ufunc_call(np.conjugate, a)
    steps().alloc(array_bytes(c.shape, c.dtype))
    return _then_free(c, _raw(c, n, axis, True, False, norm, None), a)


@_deferred("ihfft", tags=("copy",), flops=flops.rfft)
@stepped
def ihfft(a: Any, n: Any = None, axis: int = -1, norm: Any = None, out: Any = None) -> Any:
    """rfft with the norm swapped, conjugated in place."""
    a = _arr(a, np.fft.ihfft)
    n = _n(a, n, axis, _same)
    return _raw(a, n, axis, True, True, _swap(norm), out)


def _cook(a: Any, s: Any, axes: Any, invreal: bool = False) -> tuple[list, list]:
    """_cook_nd_args: the per-axis lengths and the axes, with its DeprecationWarnings for
    ``s`` without ``axes`` (the last len(s) axes) and for None in ``s`` (that axis's default
    length, as the 1-d transform takes ``n=None``)."""
    if s is None:
        shapeless = True
        if axes is None:
            s = list(a.shape)
        else:
            s = list(np.take(np.array(a.shape, np.intp), axes))  # NumPy's take: its errors
    else:
        shapeless = False
    s = list(s)
    if axes is None:
        if not shapeless:
            _deprecated("`axes` should not be `None` if `s` is not `None` "
                        "(Deprecated in NumPy 2.0). In a future version of NumPy, "
                        "this will raise an error and `s[i]` will correspond to "
                        "the size along the transformed axis specified by "
                        "`axes[i]`. To retain current behaviour, pass a sequence "
                        "[0, ..., k-1] to `axes` for an array of dimension k.")
        axes = list(range(-len(s), 0))
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if invreal and shapeless:
        s[-1] = (a.shape[axes[-1]] - 1) * 2
    if None in s:
        _deprecated("Passing an array containing `None` values to `s` is "
                    "deprecated in NumPy 2.0 and will raise an error in "
                    "a future version of NumPy. To use the default behaviour "
                    "of the corresponding 1-D transform, pass the value matching "
                    "the default for its `n` parameter. To use the default "
                    "behaviour for every axis, the `s` argument can be omitted.")
    s = [a.shape[x] if y == -1 else y for y, x in zip(s, axes)]
    if None in s:  # the 1-d transform's n=None: the axis's length, irfft's 2 * (m - 1)
        last = len(s) - 1
        s = [((a.shape[x] - 1) * 2 if invreal and i == last else a.shape[x]) if y is None else y
             for i, (y, x) in enumerate(zip(s, axes))]
    return s, list(axes)


def _deprecated(msg: str) -> None:
    """_cook_nd_args's DeprecationWarning (the call is not cached, so each call warns)."""
    import warnings
    from ..registry import uncached
    uncached()
    warnings.warn(msg, DeprecationWarning, stacklevel=4)


def _chain(a: Any, s: Any, axes: Any, forward: bool, norm: Any, out: Any) -> Any:
    s, axes = _cook(a, s, axes)
    src = a
    for ii in range(len(axes) - 1, -1, -1):
        a = _then_free(a, _raw(a, operator.index(s[ii]), axes[ii], False, forward, norm, out), src)
    return a


def _nd(name: str, forward: bool, default_axes: Any, drop_out: bool = False):
    def kernel(a: Any, s: Any = None, axes: Any = default_axes, norm: Any = None,
               out: Any = None) -> Any:
        a = _arr(a, _fft(name))
        return _chain(a, s, axes, forward, norm, None if drop_out else out)
    kernel.__name__ = name
    kernel.__doc__ = f"np.fft.{name}: 1-d transforms chained from the last axis."
    rule = flops.fftn if default_axes is None else flops.fft2
    return _deferred(name, tags=("copy",), flops=rule)(stepped(kernel))


_nd("fftn", True, None)
_nd("ifftn", False, None)
_nd("fft2", True, (-2, -1))
_nd("ifft2", False, (-2, -1), drop_out=True)  # NumPy's ifft2 drops out=


def _rfftn(a: Any, s: Any, axes: Any, norm: Any, out: Any) -> Any:
    src = a = _arr(a, np.fft.rfftn)
    s, axes = _cook(a, s, axes)
    a = _raw(a, operator.index(s[-1]), axes[-1], True, True, norm, out)
    for ii in range(len(axes) - 2, -1, -1):
        a = _then_free(a, _raw(a, operator.index(s[ii]), axes[ii], False, True, norm, out), src)
    return a


@_deferred("rfftn", tags=("copy",), flops=flops.rfftn)
@stepped
def rfftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None, out: Any = None) -> Any:
    return _rfftn(a, s, axes, norm, out)


@_deferred("rfft2", tags=("copy",), flops=flops.rfft2)
@stepped
def rfft2(a: Any, s: Any = None, axes: Any = (-2, -1), norm: Any = None, out: Any = None) -> Any:
    return _rfftn(a, s, axes, norm, out)


def _irfftn(a: Any, s: Any, axes: Any, norm: Any, out: Any) -> Any:
    src = a = _arr(a, np.fft.irfftn)
    s, axes = _cook(a, s, axes, invreal=True)
    for ii in range(len(axes) - 1):
        a = _then_free(a, _raw(a, operator.index(s[ii]), axes[ii], False, False, norm, None), src)
    return _then_free(a, _raw(a, operator.index(s[-1]), axes[-1], True, False, norm, out), src)


@_deferred("irfftn", tags=("copy",), flops=flops.irfftn)
@stepped
def irfftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None, out: Any = None) -> Any:
    return _irfftn(a, s, axes, norm, out)


@_deferred("irfft2", tags=("copy",), flops=flops.irfft2)
@stepped
def irfft2(a: Any, s: Any = None, axes: Any = (-2, -1), norm: Any = None, out: Any = None) -> Any:
    """irfftn; NumPy's irfft2 drops out=."""
    return _irfftn(a, s, axes, norm, None)


def _shift(x: Any, axes: Any, sign: int) -> Any:
    from .numeric import roll
    m = as_meta(x)
    if axes is None:
        axes = tuple(range(m.ndim))
        shift = [sign * (d // 2) for d in m.shape]
    elif isinstance(axes, (int, np.integer)):
        shift = sign * (m.shape[axes] // 2)
    else:
        shift = [sign * (m.shape[ax] // 2) for ax in axes]
    if m.ndim == 0 and isinstance(shift, list):  # np.roll's unpacking of no axes
        raise ValueError("not enough values to unpack (expected 2, got 0)")
    return roll(m, shift, axes)


@_deferred("fftshift", tags=("copy",))
def fftshift(x: Any, axes: Any = None) -> Any:
    """roll by half of each axis."""
    return _shift(x, axes, 1)


@_deferred("ifftshift", tags=("copy",))
def ifftshift(x: Any, axes: Any = None) -> Any:
    return _shift(x, axes, -1)


def _freq(n: Any, d: Any, length: Any, parts: tuple = ()) -> ArrayMeta:
    """``results * val`` of int arrays of lengths ``parts`` (the first is ``results``; all
    alive during the product, numpy/fft/_helper.py), val = 1/(n*d)."""
    val = 1.0 / (n * d)  # ZeroDivisionError as in NumPy
    if hasattr(d, "shape") and getattr(d, "ndim", False):
        raise UnsupportedOperationError(np.fft.fftfreq, "an array d")
    if length < 0:
        raise ValueError("negative dimensions are not allowed")
    dt = np.result_type(np.dtype(int), val)
    if isinstance(val, (float, np.generic)):
        from .temporaries import Steps
        from .umath import ufunc_steps
        st = Steps()
        held = [st.new(array_bytes((k,), int)) for k in parts]
        ufunc_steps(st, np.multiply, ArrayMeta((length,), np.dtype(int), (8,)), val)
        st.free(*held)
        st.done()
    return ArrayMeta((length,), dt, (dt.itemsize,) if length else (0,))


@_deferred("fftfreq", tags=("factory",))
def fftfreq(n: Any, d: Any = 1.0, device: Any = None) -> ArrayMeta:
    """empty(n, int) filled, times 1/(n*d)."""
    if not isinstance(n, (int, np.integer)):
        raise ValueError("n should be an integer")
    return _freq(n, d, n, (n, (n - 1) // 2 + 1, n // 2))  # results, p1, p2


@_deferred("rfftfreq", tags=("factory",))
def rfftfreq(n: Any, d: Any = 1.0, device: Any = None) -> ArrayMeta:
    if not isinstance(n, (int, np.integer)):
        raise ValueError("n should be an integer")
    return _freq(n, d, n // 2 + 1, (n // 2 + 1,))
