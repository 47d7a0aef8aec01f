"""Factories (zeros, ones, empty, full, arange, linspace, eye, ...) and the *_like family."""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .layout import c_strides, f_strides, like_strides
from .._errors import DataDependentError
from .operands import as_meta, is_fake, is_meta
from .registry import Out, register, transient
from .temporaries import Steps, array_bytes, asarray_bytes, copyto_bytes, setitem_bytes


def norm_shape(shape: Any) -> tuple:
    """A shape tuple with NumPy's errors for negative or non-integer dimensions."""
    if is_meta(shape) and not isinstance(shape, np.ndarray):
        raise TypeError("a fake array cannot be used as a shape")
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
    if order is None:
        return "C"
    if not isinstance(order, str) or order.upper() not in allowed or len(order) != 1:
        raise ValueError(f"order must be one of {', '.join(repr(c) for c in allowed)} (got {order!r})")
    return order.upper()


def check_device(device: Any) -> None:
    if device is not None and device != "cpu":
        raise ValueError(f'Device not understood. Only "cpu" is allowed, but received: {device}')


def fresh(shape: tuple, dtype: np.dtype, order: str = "C") -> Out:
    """A newly allocated C or F array."""
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > np.iinfo(np.intp).max:
        raise ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.")
    st = f_strides(shape, dtype.itemsize) if order == "F" else c_strides(shape, dtype.itemsize)
    return Out(shape, dtype, st)


@register(np.empty, np.zeros, tags=("factory",))
def zeros(shape, dtype=None, order="C", *, device=None, like=None):
    check_device(device)
    return fresh(norm_shape(shape), np.dtype(dtype if dtype is not None else float), norm_order(order))


@register(np.ones, tags=("factory",))
def ones(shape, dtype=None, order="C", *, device=None, like=None):
    """empty, then ``copyto(a, 1, casting='unsafe')`` (numeric.py ``ones``): 1's 0-d arrays."""
    out = zeros(shape, dtype, order, device=device)
    transient(copyto_bytes(out.dtype, 1))
    return out


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
    out = fresh(shape, dt, norm_order(order))
    # numeric.py ``full``: with no dtype, fill_value = asarray(fill_value) (alive until the
    # return), then copyto(a, fill_value, casting='unsafe')
    transient(asarray_bytes(fill_value) if dtype is None else copyto_bytes(dt, fill_value))
    return out


def _like_out(proto: Any, dtype: Any, order: str, shape: Any) -> Out:
    m = as_meta(proto)
    dt = np.dtype(dtype) if dtype is not None else m.dtype
    order = norm_order(order, "CFAK")
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


@register(np.empty_like, tags=("factory",))
def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    check_device(device)
    return _like_out(prototype, dtype, order, shape)


@register(np.zeros_like, tags=("factory",))
def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """empty_like, then ``copyto(res, zeros(1, res.dtype))`` (numeric.py ``zeros_like``)."""
    out = empty_like(a, dtype, order, subok, shape, device=device)
    transient(array_bytes((1,), out.dtype))
    return out


@register(np.ones_like, tags=("factory",))
def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """empty_like, then ``copyto(res, 1, casting='unsafe')`` (numeric.py ``ones_like``)."""
    out = empty_like(a, dtype, order, subok, shape, device=device)
    transient(copyto_bytes(out.dtype, 1))
    return out


@register(np.full_like, tags=("factory",))
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    check_device(device)
    out = _like_out(a, dtype, order, shape)
    if type(fill_value) is int and out.dtype.kind in "iu":
        info = np.iinfo(out.dtype)
        if not info.min <= fill_value <= info.max:
            raise OverflowError(f"Python integer {fill_value} out of bounds for {out.dtype}")
    transient(copyto_bytes(out.dtype, fill_value))  # numeric.py full_like: copyto(res, fill_value)
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
    out = fresh(norm_shape((N, M)), np.dtype(dtype), norm_order(order))
    if k < M:  # _twodim_base_impl.py eye: m[:M - k].flat[i::M + 1] = 1
        transient(setitem_bytes(out.dtype, 1))
    return out


@register(np.identity, tags=("factory",))
def identity(n, dtype=None, *, like=None):
    """numeric.py identity: ``eye(n, dtype=dtype)``."""
    return eye(n, dtype=dtype)


@register(np.tri, tags=("factory",))
def tri(N, M=None, k=0, dtype=float, *, like=None):
    out = fresh(norm_shape((N, N if M is None else M)), np.dtype(dtype))
    steps = Steps()
    mask = tri_mask(steps, *out.shape, k)
    if out.dtype != np.bool_:  # m.astype(dtype, copy=False)
        steps.new(array_bytes(out.shape, out.dtype))
        steps.free(mask)
    steps.done()
    return out


def _min_int(low: int, high: int) -> np.dtype:
    """_twodim_base_impl.py _min_int: the smallest int type holding [low, high]."""
    for t in (np.int8, np.int16, np.int32):
        info = np.iinfo(t)
        if info.min <= low and high <= info.max:
            return np.dtype(t)
    return np.dtype(np.int64)


def tri_mask(steps: Steps, N: int, M: int, k: int) -> int:
    """The allocations of tri's bool mask (returned bytes, alive): ``greater_equal.outer``
    of ``arange(N)`` and ``arange(-k, M - k)`` in the smallest int types
    (_twodim_base_impl.py ``tri``); the aranges die with the statement."""
    a = steps.new(array_bytes((N,), _min_int(0, N)))
    b = steps.new(array_bytes((max(M, 0),), _min_int(-k, M - k)))
    mask = steps.new(array_bytes((N, M), np.bool_))
    steps.free(a, b)
    return mask


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


def _array_impl(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *,
                like=None, device=None, _func=None, **kw):
    check_device(device)
    if _nested_fakes(obj) and not is_meta(obj):
        shape, dt = _stack_shape(obj)
        dt = np.dtype(dtype) if dtype is not None else dt
        o = norm_order(order, "CFAK")
        return fresh((1,) * max(0, ndmin - len(shape)) + shape, dt, "F" if o == "F" else "C")
    if not is_meta(obj):
        real = np.array(obj, dtype=dtype, order=order if order in ("C", "F") else "K", ndmin=ndmin)
        return Out(real.shape, real.dtype, c_strides(real.shape, real.itemsize) if real.ndim <= 1 or real.flags.c_contiguous else real.strides)
    m = obj
    dt = np.dtype(dtype) if dtype is not None else m.dtype
    o = norm_order(order, "CFAK")
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
    if ndmin > len(out.shape):
        add = ndmin - len(out.shape)
        src = out if not isinstance(out, Out) else None
        if src is not None:
            return Out((1,) * add + m.shape, dt, (m.strides[0] * m.shape[0] if m.shape else dt.itemsize,) * add + m.strides, view_of=m)
        return out._replace(shape=(1,) * add + out.shape, strides=(out.strides[0] * out.shape[0] if out.shape else dt.itemsize,) * add + out.strides)
    return out
