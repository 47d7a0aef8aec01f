"""Factories (zeros, ones, empty, full, arange, linspace, eye, ...) and the *_like family."""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .layout import attempt_nocopy_reshape, c_strides, contiguity, f_strides, like_strides
from .._errors import DataDependentError, UnsupportedOperationError
from . import converters
from .operands import as_meta, is_fake, is_meta
from .registry import Out, register


def norm_shape(shape: Any) -> tuple:
    """A shape tuple with NumPy's errors for negative or non-integer dimensions."""
    if is_meta(shape) and not isinstance(shape, np.ndarray):
        raise DataDependentError("a shape held in a fake array needs its values")
    try:
        shape = (operator.index(shape),)
    except TypeError:
        try:
            shape = tuple(operator.index(n) for n in shape)
        except TypeError:
            raise TypeError("'" + type(shape).__name__ + "' object cannot be interpreted as an integer") from None
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    if len(shape) > 64:
        raise ValueError(f"maximum supported dimension for an ndarray is currently 64, found {len(shape)}")
    nbytes = math.prod(shape)
    if nbytes > np.iinfo(np.intp).max:
        raise ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.")
    return shape


def norm_order(order: Any, allowed: str = "CF") -> str:
    """A factory's order argument (None is C); see converters.order."""
    return converters.order(order, "C", allowed)


def check_device(device: Any) -> None:
    if device is not None and device != "cpu":
        raise ValueError(f'Device not understood. Only "cpu" is allowed, but received: {device}')


def fresh(shape: tuple, dtype: np.dtype, order: str = "C") -> Out:
    """A newly allocated C or F array."""
    shape, dtype = converters.new_array_descr(shape, dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > np.iinfo(np.intp).max:
        raise ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.")
    st = f_strides(shape, dtype.itemsize) if order == "F" else c_strides(shape, dtype.itemsize)
    return Out(shape, dtype, st)


@register(np.empty, np.zeros, np.ones, tags=("factory",))
def zeros(shape, dtype=None, order="C", *, device=None, like=None):
    check_device(device)
    return fresh(norm_shape(shape), np.dtype(dtype if dtype is not None else float), norm_order(order))


@register(np.full, tags=("factory",))
def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    check_device(device)
    shape = norm_shape(shape)
    if dtype is None:
        dt = as_meta(fill_value).dtype if not isinstance(fill_value, (int, float, complex, bool)) \
            else np.asarray(fill_value).dtype
    else:
        dt = np.dtype(dtype)
    fv = fill_value if not is_meta(fill_value) else None
    if fv is None and is_meta(fill_value):
        from .layout import broadcast_shapes
        if broadcast_shapes(fill_value.shape, shape) != shape:
            raise ValueError(f"could not broadcast input array from shape {fill_value.shape} into shape {shape}")
    elif type(fv) is int and dt.kind in "iu":
        info = np.iinfo(dt)
        if not info.min <= fv <= info.max:
            raise OverflowError(f"Python integer {fv} out of bounds for {dt}")
    return fresh(shape, dt, norm_order(order))


def _like_out(proto: Any, dtype: Any, order: str, shape: Any) -> Out:
    m = as_meta(proto)
    dt = np.dtype(dtype) if dtype is not None else m.dtype
    converters.no_subarray(dt, "np.empty_like")
    order = converters.order(order)
    if shape is not None:
        shp = norm_shape(shape)
        if len(shp) != len(m.shape) and order == "K":
            order = "C"
    else:
        shp = m.shape
    if order == "A":
        order = "F" if m.flags.f_contiguous and not m.flags.c_contiguous and m.ndim > 1 else "C"
        order = "F" if (m.flags.f_contiguous and not m.flags.c_contiguous) else "C"
    if order == "K":
        if shape is not None and shp != m.shape:
            # NumPy keeps the prototype's axis order when only lengths change
            c, f = m.flags.c_contiguous, m.flags.f_contiguous
            st = like_strides(shp, m.strides, dt.itemsize, c, f)
        else:
            st = like_strides(shp, m.strides, dt.itemsize, m.flags.c_contiguous, m.flags.f_contiguous)
        return Out(shp, dt, st)
    return fresh(shp, dt, order)


@register(np.empty_like, np.zeros_like, np.ones_like, tags=("factory",))
def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    check_device(device)
    return _like_out(prototype, dtype, order, shape)


@register(np.full_like, tags=("factory",))
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    check_device(device)
    out = _like_out(a, dtype, order, shape)
    if type(fill_value) is int and out.dtype.kind in "iu":
        info = np.iinfo(out.dtype)
        if not info.min <= fill_value <= info.max:
            raise OverflowError(f"Python integer {fill_value} out of bounds for {out.dtype}")
    return out


def _arange_len(start, stop, step) -> int:
    if step == 0:
        raise ZeroDivisionError("division by zero") if all(type(v) is int for v in (start, stop, step)) \
            else ValueError("Maximum allowed size exceeded")
    n = math.ceil((stop - start) / step)
    return max(int(n), 0)


@register(np.arange, tags=("factory",))
def arange(start_or_stop=None, /, stop=None, step=None, *, dtype=None, device=None, like=None, **kw):
    check_device(device)
    if "start" in kw:
        start_or_stop, stop = kw.pop("start"), (start_or_stop if stop is None else stop)
    if kw:
        raise TypeError(f"arange() got an unexpected keyword argument '{next(iter(kw))}'")
    for v in (start_or_stop, stop, step):
        if is_meta(v) and not isinstance(v, np.ndarray):
            from .._errors import DataDependentError
            raise DataDependentError("np.arange with a fake array bound needs its value")
    if start_or_stop is None and stop is None:
        raise TypeError("arange() requires stop to be specified.")
    if stop is None:
        start, stop = 0, start_or_stop
    else:
        start = 0 if start_or_stop is None else start_or_stop
    if step is None:
        step = 1
    vals = [np.asarray(v) for v in (start, stop, step)]
    if dtype is None:
        dt = np.result_type(*[v if not isinstance(o, (int, float, complex)) else o
                              for v, o in zip(vals, (start, stop, step))])
        if dt.kind == "b":
            dt = np.dtype(np.int64)
    else:
        dt = np.dtype(dtype)
    if any(np.iscomplexobj(v) for v in vals):
        raise TypeError("arange() got complex arguments")
    n = _arange_len(float(start) if dt.kind == "f" else start.item() if hasattr(start, "item") else start,
                    stop.item() if hasattr(stop, "item") else stop,
                    step.item() if hasattr(step, "item") else step)
    if dt.kind == "b" and n > 2:
        raise TypeError("arange() is only supported for booleans when the result has at most length 2.")
    return fresh((n,), dt)


@register(np.linspace, np.logspace, np.geomspace, tags=("factory",))
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, **kw):
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    sm, em = as_meta(start), as_meta(stop)
    from .layout import broadcast_shapes, normalize_axis
    bshape = broadcast_shapes(sm.shape, em.shape)
    base_dt = np.result_type(sm.dtype if not isinstance(start, (int, float)) else start,
                             em.dtype if not isinstance(stop, (int, float)) else stop, float(num))
    dt = np.dtype(dtype) if dtype is not None else base_dt
    nd = len(bshape) + 1
    ax = normalize_axis(axis, nd)
    shape = bshape[:ax] + (num,) + bshape[ax:]
    # the result is computed along axis 0 and moved: a transposed view of a C buffer. With
    # scalar bounds and a step (div > 0) it is scaled in place: a view of its arange, unless
    # astype(dtype) copies.
    buf = (num,) + bshape
    bst = c_strides(buf, dt.itemsize)
    st = bst[1:ax + 1] + (bst[0],) + bst[ax + 1:]
    div = num - 1 if endpoint else num
    in_place = not bshape and div > 0 and dt == base_dt
    out = Out(shape, dt, st) if (ax == 0 or 0 in shape) and not in_place \
        else Out(shape, dt, st, base_shape=buf)
    if retstep:
        return out, _linspace_step(start, stop, div, bshape, base_dt)
    return out


def _linspace_step(start: Any, stop: Any, div: int, bshape: tuple, dt: np.dtype) -> Any:
    """linspace's step: NumPy's own scalar for scalar bounds given as numbers; a fresh array
    (``delta / div``) for array bounds; NaN when there is no step."""
    if div <= 0:
        return math.nan
    if bshape:
        return Out(bshape, dt, c_strides(bshape, dt.itemsize))
    if is_fake(start) or is_fake(stop):
        raise DataDependentError("np.linspace(retstep=True): the step of fake bounds is a value")
    delta = np.zeros((), dt)
    np.subtract(stop, start, dtype=dt, where=start != stop, out=delta)
    return delta / div


@register(np.eye, tags=("factory",))
def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    check_device(device)
    M = N if M is None else M
    return fresh(norm_shape((N, M)), np.dtype(dtype), norm_order(order))


@register(np.identity, tags=("factory",))
def identity(n, dtype=None, *, like=None):
    return fresh(norm_shape((n, n)), np.dtype(dtype if dtype is not None else float))


@register(np.tri, tags=("factory",))
def tri(N, M=None, k=0, dtype=float, *, like=None):
    return fresh(norm_shape((N, N if M is None else M)), np.dtype(dtype))


def _nested_fakes(obj: Any) -> bool:
    if is_meta(obj) and not isinstance(obj, np.ndarray):
        return True
    if isinstance(obj, (list, tuple)):
        return any(_nested_fakes(x) for x in obj)
    return False


def _stack_shape(obj: Any) -> tuple:
    """Shape and dtype of np.array(list) whose leaves include fakes (all leaves equal shape)."""
    if isinstance(obj, (list, tuple)):
        if not obj:
            return (0,), np.dtype(float)
        subs = [_stack_shape(x) for x in obj]
        shapes = {s for s, _ in subs}
        if len(shapes) != 1:
            raise ValueError("setting an array element with a sequence. The requested array has "
                             "an inhomogeneous shape after 1 dimensions.")
        dt = np.result_type(*[d for _, d in subs])
        return (len(obj),) + subs[0][0], dt
    m = as_meta(obj)
    return m.shape, m.dtype


@register(np.array, tags=("factory",))
def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    """np.array: the input itself when no copy is needed and allowed, else a fresh copy."""
    return _array_impl(object, dtype, copy, order, subok, ndmin)


@register(np.asarray, np.asanyarray, np.asarray_chkfinite, tags=("factory",))
def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    return _array_impl(a, dtype, copy, "K" if order is None else order, device=device)


@register(np.ascontiguousarray, tags=("factory",))
def ascontiguousarray(a, dtype=None, *, like=None):
    return _array_impl(a, dtype, None, "C", ndmin=1)


@register(np.asfortranarray, tags=("factory",))
def asfortranarray(a, dtype=None, *, like=None):
    return _array_impl(a, dtype, None, "F", ndmin=1)


@register(np.copy, tags=("factory", "copy"))
def copy(a, order="K", subok=False):
    return _array_impl(a, None, True, order)


def _prepend_ones(out: Any, ndmin: int, order: str) -> Any:
    """np.array(..., ndmin=): leading length-1 axes added by a view of the result (of the input
    itself when no copy was made, else of the copy: owndata False), strided as the no-copy
    reshape gives them, in F order when ``order`` is F or the result is F-ordered, else in C
    order (checked against numpy 2.4: ``_prepend_ones`` and ``PyArray_Newshape``)."""
    shape, strides = tuple(out.shape), tuple(out.strides)
    if ndmin <= len(shape):
        return out
    c, f = contiguity(shape, strides, out.dtype.itemsize)
    new_shape = (1,) * (ndmin - len(shape)) + shape
    new_strides = attempt_nocopy_reshape(shape, strides, out.dtype.itemsize, new_shape,
                                         order == "F" or (f and not c))
    if not isinstance(out, Out):  # the input itself
        return Out(new_shape, out.dtype, new_strides, view_of=out)
    if out.view_of is not None:
        return out._replace(shape=new_shape, strides=new_strides)
    return out._replace(shape=new_shape, strides=new_strides, base_shape=shape)


def _array_impl(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *,
                like=None, device=None, _func=None, **kw):
    check_device(device)
    copy = converters.copy(copy)
    if _nested_fakes(obj) and not is_meta(obj):
        if dtype is not None and np.dtype(dtype).hasobject:  # ragged nesting is allowed there
            raise UnsupportedOperationError("np.array", "an object array built from nested fakes")
        shape, dt = _stack_shape(obj)
        dt = np.dtype(dtype) if dtype is not None else dt
        o = converters.order(order)
        return _prepend_ones(fresh(shape, dt, "F" if o == "F" else "C"), ndmin, o)
    if not is_meta(obj):
        real = np.array(obj, dtype=dtype, order=order if order in ("C", "F") else "K", ndmin=ndmin,
                        copy=copy)
        if real.base is not None:  # ndmin's view of the converted array, or a read-only view
            # of a np.void scalar's own memory: the same flags, a view of a temporary
            return Out(real.shape, real.dtype, real.strides, writeable=real.flags.writeable,
                       base_shape=real.base.shape if isinstance(real.base, np.ndarray) else real.shape)
        return Out(real.shape, real.dtype, c_strides(real.shape, real.itemsize) if real.ndim <= 1 or real.flags.c_contiguous else real.strides)
    m = obj
    dt = np.dtype(dtype) if dtype is not None else m.dtype
    o = converters.order(order)
    need = dt != m.dtype
    if need:
        from .views import check_value_cast
        check_value_cast(m, dt)
    if o == "C" and not m.flags.c_contiguous or o == "F" and not m.flags.f_contiguous:
        need = True
    if copy is True or (need and copy is None):
        from .views import copy_like
        out = copy_like(m, dt, o)
    elif need:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    else:
        out = m if dt == m.dtype else Out(m.shape, dt, m.strides, view_of=m)
    return _prepend_ones(out, ndmin, o)
