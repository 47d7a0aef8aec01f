"""Factories (zeros, ones, empty, full, arange, linspace, eye, ...) and the *_like family."""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .convert_datatype import cast_loop, check_value_cast, legacy_cast_bytes
from ...layout import (as_shape, broadcast_shapes, c_strides, check_shape, contiguity, f_strides,
                     like_strides, new_buffer_dtype, normalize_axis, prepend_ones_strides,
                     shape_args, wrap_intp)
from ..._errors import DataDependentError, UnsupportedOperationError
from ... import _known, converters
from ..._storage import SCALAR
from ...meta import ArrayMeta, as_meta, has_values, is_fake, is_meta, nested_fakes, stack_shape
from ..registry import register, transient, uncached
from .hidden import kept_bytes, stepped, steps
from .temporaries import Steps, array_bytes, asarray_bytes, copyto_bytes, setitem_bytes


def norm_shape(shape: Any) -> tuple:
    """A shape argument read as NumPy reads it (layout.as_shape); the array constructor's
    checks (negative, too big) come with the output (layout.check_shape)."""
    if is_meta(shape) and not isinstance(shape, np.ndarray):
        raise DataDependentError("a shape held in a fake array needs its values")
    return as_shape(shape)


def norm_order(order: Any, allowed: str = "CF") -> str:
    """A factory's order argument (None is C); see converters.order."""
    return converters.order(order, "C", allowed)


def check_device(device: Any) -> None:
    if device is not None and device != "cpu":
        raise ValueError(f'Device not understood. Only "cpu" is allowed, but received: {device}')


def fresh(shape: tuple, dtype: np.dtype, order: str = "C") -> ArrayMeta:
    """A newly allocated C or F array (subarray and unsized string dtypes as NumPy's
    constructor resolves them)."""
    shape, dtype = new_buffer_dtype(shape, dtype)
    check_shape(shape, dtype.itemsize)
    st = f_strides(shape, dtype.itemsize) if order == "F" else c_strides(shape, dtype.itemsize)
    return ArrayMeta(shape, dtype, st)


@register(np.empty, np.zeros, tags=("factory",))
def zeros(shape, dtype=None, order="C", *, device=None, like=None):
    check_device(device)
    return fresh(norm_shape(shape), np.dtype(dtype if dtype is not None else float), norm_order(order))


shape_args(zeros, 0, "shape")


@register(np.ones, tags=("factory",))
def ones(shape, dtype=None, order="C", *, device=None, like=None):
    """empty, then ``copyto(a, 1, casting='unsafe')`` (numeric.py ``ones``): 1's 0-d arrays."""
    out = zeros(shape, dtype, order, device=device)
    transient(copyto_bytes(out.dtype, 1))
    return out


shape_args(ones, 0, "shape")


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
        from ...layout import broadcast_shapes
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


shape_args(full, 0, "shape")


def _like_out(proto: Any, dtype: Any, order: str, shape: Any) -> ArrayMeta:
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
        return ArrayMeta(shp, dt, st)
    return fresh(shp, dt, order)


@register(np.empty_like, tags=("factory",))
def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    check_device(device)
    return _like_out(prototype, dtype, order, shape)


shape_args(empty_like, 4, "shape")


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


shape_args(zeros_like, 4, "shape")
shape_args(ones_like, 4, "shape")


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


shape_args(full_like, 5, "shape")


def _arange_len(start: Any, stop: Any, step: Any) -> int:
    """arange's length as _calc_length and _arange_safe_ceil_to_intp compute it (ctors.c):
    ceil of the double ``(stop - start) / step`` (Python or NumPy scalar arithmetic), NaN and
    values beyond npy_intp refused, 2**63 itself wrapping to a negative (so empty) length."""
    delta = stop - start
    val = delta / step
    value = float(val)
    if val == 0 and delta != 0:  # underflow, or a division by infinity
        return 0 if math.copysign(1.0, value) < 0 else 1
    value = float(np.ceil(value))
    if math.isnan(value):
        raise ValueError("arange: cannot compute length")
    if not -2.0**63 <= value <= 2.0**63:
        raise ValueError("Maximum allowed size exceeded")
    return max(wrap_intp(int(value)), 0)


def _arange_dtype(vals: tuple) -> np.dtype:
    """PyArray_ArangeObj's dtype: npy_intp promoted with each bound's discovered dtype."""
    dt = np.dtype(np.intp)
    for v in vals:
        if v is not None:
            d = np.asarray(v).dtype
            try:
                dt = np.promote_types(dt, d)
            except TypeError:
                raise TypeError(f"arange() not supported for inputs with DType {type(d)}.") from None
    return dt


@register(np.arange, tags=("factory",))
def arange(start_or_stop=None, /, stop=None, step=None, dtype=None, *, device=None, like=None,
           **kw):
    check_device(device)
    if "start" in kw:
        start_or_stop, stop = kw.pop("start"), (start_or_stop if stop is None else stop)
    if kw:
        raise TypeError(f"arange() got an unexpected keyword argument '{next(iter(kw))}'")
    bounds = []
    for v in (start_or_stop, stop, step):
        if is_meta(v) and not isinstance(v, np.ndarray):
            k = _known.scalar_value(v)  # a bound whose value is known (faketensor/_known.py)
            if k is None:
                raise DataDependentError("np.arange with a fake array bound needs its value")
            uncached()  # the result depends on the value, which the cache does not key on
            v = k
        bounds.append(v)
    start_or_stop, stop, step = bounds
    if start_or_stop is None and stop is None:
        raise TypeError("arange() requires stop to be specified.")
    dt = _arange_dtype((start_or_stop, stop, step)) if dtype is None else np.dtype(dtype)
    if stop is None:
        start, stop = 0, start_or_stop
    else:
        start = 0 if start_or_stop is None else start_or_stop
    if step is None:
        step = 1
    if any(np.iscomplexobj(v) for v in (start, stop, step)):
        raise TypeError("arange() got complex arguments")
    n = _arange_len(start, stop, step)
    if dt.kind == "b" and n > 2:
        raise TypeError("arange() is only supported for booleans when the result has at most length 2.")
    out = fresh((n,), dt)
    if dt.kind in "iu":  # the first two values are stored with setitem: range-checked
        for v in (start, start + step)[:n]:
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                info = np.iinfo(dt)
                if not info.min <= int(v) <= info.max:
                    raise OverflowError(f"Python integer {int(v)} out of bounds for {dt}")
    return out


shape_args(arange, 0, 1, 2, "start", "stop", "step")


def _linspace_meta(start: Any, stop: Any, num: Any, endpoint: Any, dtype: Any, axis: Any) -> tuple:
    """linspace's output as function_base.linspace builds it: ``arange(0, num)`` reshaped to
    (num, 1, ..), scaled in place for scalar bounds with a step (a view of the arange), else
    multiplied by the bounds' step or delta (a ufunc output in order K), moved to ``axis``
    when axis != 0 (a transposed view), and cast by ``astype(dtype, copy=False)``.

    Returns (ArrayMeta, div, bounds' shape, computing dtype, length)."""
    from .umath import ufunc_call
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    sm, em = as_meta(start), as_meta(stop)
    bshape = broadcast_shapes(sm.shape, em.shape)
    base_dt = np.result_type(start if isinstance(start, _PY_NUMBERS) else sm.dtype,  # NEP 50: weak
                             stop if isinstance(stop, _PY_NUMBERS) else em.dtype, float(num))
    dt = np.dtype(dtype) if dtype is not None else base_dt
    n = arange(0, num, dtype=base_dt).shape[0]  # arange's own length rule (it may wrap to 0)
    div = num - 1 if endpoint else num
    if endpoint and num > 1 and n == 0:  # y[-1, ...] = stop
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    ax = normalize_axis(axis, len(bshape) + 1)
    buf = (n,) + bshape
    if not bshape:  # a scalar delta: y *= step in place, or y * delta
        view = div > 0
        yst = c_strides(buf, base_dt.itemsize)
    else:
        y0 = (n,) + (1,) * len(bshape)
        y0 = _stand_in(y0, c_strides(y0, base_dt.itemsize), base_dt)
        delta = _as_meta_array(ufunc_call(np.subtract, em, sm, dtype=base_dt))
        other = _as_meta_array(ufunc_call(np.true_divide, delta, div)) if div > 0 else delta
        yst = ufunc_call(np.multiply, y0, other).strides
        view = False
    if dtype is not None and np.issubdtype(dt, np.integer) and base_dt.kind == "c":
        raise TypeError("ufunc 'floor' not supported for the input types, and the inputs could "
                        "not be safely coerced to any supported types according to the casting "
                        "rule ''safe''")  # _nx.floor(y, out=y)
    moved = operator.index(axis) != 0
    perm = list(range(1, ax + 1)) + [0] + list(range(ax + 1, len(buf)))
    shape = tuple(buf[i] for i in perm)
    st = tuple(yst[i] for i in perm)
    if dt != base_dt:  # astype copies in order K
        c, f = contiguity(shape, st, base_dt.itemsize)
        return ArrayMeta(shape, dt, like_strides(shape, st, dt.itemsize, c, f)), div, bshape, base_dt, n
    if view or moved:
        return ArrayMeta(shape, dt, st, base_shape=buf), div, bshape, base_dt, n
    return ArrayMeta(shape, dt, st), div, bshape, base_dt, n


def _stand_in(shape: tuple, strides: tuple, dtype: np.dtype) -> Any:
    """A metadata stand-in for an intermediate array of NumPy's own Python code."""
    return ArrayMeta(tuple(shape), np.dtype(dtype), tuple(strides))


def _as_meta_array(o: Any) -> Any:
    return _stand_in(o.shape, o.strides, o.dtype)


@register(np.linspace, tags=("factory",))
@stepped
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    check_device(device)
    out, div, bshape, base_dt, _ = _linspace(start, stop, num, endpoint, dtype, axis)
    if retstep:
        return out, _linspace_step(start, stop, div, bshape, base_dt)
    return out


shape_args(linspace, 2, "num")


def _linspace(start: Any, stop: Any, num: Any, endpoint: Any, dtype: Any, axis: Any) -> tuple:
    """_linspace_meta, with the real function's allocations recorded in ``steps()``."""
    r = _linspace_meta(start, stop, num, endpoint, dtype, axis)
    _linspace_steps(steps(), start, stop, endpoint, r[0], *r[1:])
    return r


_PY_NUMBERS = (int, float, complex)


def _bound(x: Any, keep_python: bool) -> Any:
    """A bound as ``_array_converter(start, stop).as_arrays()`` hands it to linspace: arrays as
    they are, Python numbers kept when not both bounds are Python numbers
    (multiarray/array_converter.c, ``convert_if_no_array``), anything else as its array."""
    if is_meta(x) or (keep_python and type(x) in _PY_NUMBERS):
        return x
    m = np.asarray(x)
    return _stand_in(m.shape, m.strides, m.dtype)


def _linspace_steps(st: Any, start: Any, stop: Any, endpoint: Any, out: ArrayMeta, div: int,
                    bshape: tuple, dt: np.dtype, ny: int) -> None:
    """The allocations of function_base.linspace: the converter's arrays of non-array bounds
    (alive to the end), ``delta``, ``arange`` as ``y``, the step and its ``step == 0`` test for
    array bounds, ``y`` scaled (in place for a scalar delta, else a new product), ``y += start``,
    ``y[-1, ...] = stop``, ``floor`` for integer dtypes and the ``astype`` copy.

    Known gap: whether the step is zero (gh-5437's branch: ``y /= div`` first, whose Python
    int makes two 0-d arrays) is a value; it is known for number bounds, and fake bounds are
    taken to differ (a fake ``start == stop`` may be up to 16 bytes over the peak counted)."""
    from .umath import ufunc_steps
    conv = st.new(asarray_bytes(start) + asarray_bytes(stop))
    keep = not (type(start) in _PY_NUMBERS and type(stop) in _PY_NUMBERS)
    lo, hi = _bound(start, keep), _bound(stop, keep)
    delta, delta_b = ufunc_steps(st, np.subtract, hi, lo, dtype=dt)
    y_shape = (ny,) + (1,) * len(bshape)
    y = _stand_in(y_shape, c_strides(y_shape, dt.itemsize), dt)
    y_b = st.new(array_bytes(y_shape, dt))
    step, step_b, zero = delta, 0, False
    if div > 0:
        if bshape:
            step, step_b = ufunc_steps(st, np.true_divide, delta, div)
            st.temp(1)  # (step == 0).any()'s 0-d result
            st.free(ufunc_steps(st, np.equal, step, 0)[1])
        elif has_values(start) and has_values(stop):  # scalar math on NumPy scalars
            with np.errstate(all="ignore"):
                zero = bool(np.subtract(stop, start, dtype=type(dt)) / div == 0)
        if zero:
            ufunc_steps(st, np.true_divide, y, div, out=y)
            step = delta
    if div > 0 and not bshape:
        ufunc_steps(st, np.multiply, y, step, out=y)
    else:
        y, b = ufunc_steps(st, np.multiply, y, step)
        st.free(y_b)
        y_b = b
    ufunc_steps(st, np.add, y, lo, out=y)
    if endpoint and ny > 1:
        st.temp(setitem_bytes(dt, hi))
    if out.dtype != dt:
        if np.issubdtype(out.dtype, np.integer):
            ufunc_steps(st, np.floor, y, out=y)
        st.new(array_bytes(out.shape, out.dtype))
        st.free(y_b)
    st.free(conv, delta_b, step_b)


def _logspace(start: Any, stop: Any, num: Any, endpoint: Any, base: Any, dtype: Any,
              axis: Any) -> ArrayMeta:
    """``power(base, linspace(...)).astype(dtype, copy=False)`` (function_base.logspace), its
    allocations recorded in ``steps()``; an array base is broadcast with the bounds first."""
    from .umath import ufunc_steps
    st = steps()
    made = []
    if not isinstance(base, (float, int)) and np.ndim(base):
        # broadcast with the bounds (np.broadcast(...).ndim), each made an array of that
        # many dimensions (np.array(a, copy=None, ndmin=): a view of an array, a new array
        # of anything else, alive to the end), base given a length-1 axis at ``axis``
        from .views import expand_dims
        shapes = [tuple(x.shape) if is_meta(x) else np.shape(x) for x in (start, stop, base)]
        nd = len(broadcast_shapes(*shapes))
        conv = []
        for x in (start, stop, base):
            if is_meta(x) or isinstance(x, np.ndarray):
                m = as_meta(x)
                sh = tuple(m.shape)
                conv.append(_stand_in((1,) * (nd - len(sh)) + sh, prepend_ones_strides(
                    sh, tuple(m.strides), m.dtype.itemsize, nd, False), m.dtype))
            else:
                arr = np.array(x, copy=None, subok=True, ndmin=nd)
                made.append(st.new(array_bytes(arr.shape, arr.dtype)))
                conv.append(_as_meta_array(arr))
        start, stop = conv[0], conv[1]
        bm = expand_dims(conv[2], axis)
        base = _stand_in(bm.shape, bm.strides, bm.dtype)
    y = _linspace(start, stop, num, endpoint, None, axis)[0]
    p, p_b = ufunc_steps(st, np.power, base, _as_meta_array(y))
    dt = np.dtype(dtype) if dtype is not None else p.dtype
    if dt == p.dtype:
        st.free(kept_bytes(y), *made)
        return ArrayMeta(p.shape, dt, p.strides)
    cast_loop(p.dtype, dt, dummies=False)  # astype: complex to real warns
    st.new(array_bytes(p.shape, dt))
    st.free(p_b, kept_bytes(y), *made)
    return ArrayMeta(p.shape, dt, like_strides(p.shape, p.strides, dt.itemsize, p.flags.c_contiguous,
                                         p.flags.f_contiguous))


@register(np.logspace, tags=("factory",))
@stepped
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return _logspace(start, stop, num, endpoint, base, dtype, axis)


shape_args(logspace, 2, "num")


@register(np.geomspace, tags=("factory",))
@stepped
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """logspace of the bounds' logarithms (copies of the bounds in order K) along axis 0, moved
    to ``axis`` (a view) when axis != 0, then ``astype(dtype, copy=False)``
    (function_base.geomspace); its allocations recorded in ``steps()``."""
    from .umath import ufunc_steps
    for b in (start, stop):
        if not is_meta(b) and np.any(np.asarray(b) == 0):
            raise ValueError("Geometric sequence cannot include zero")
    st = steps()
    sm, em = (x if is_meta(x) else _as_meta_array(np.asarray(x)) for x in (start, stop))
    made = [st.new(asarray_bytes(x)) for x in (start, stop)]  # asanyarray
    for m in (sm, em):  # any(m == 0)
        z, z_b = ufunc_steps(st, np.equal, m, 0)
        st.temp(1 if z_b else 2)
        st.free(z_b)
    num = operator.index(num)
    st.temp(array_bytes((), np.float64 if dtype is None else dtype))  # zeros((), dtype)
    dt = np.result_type(sm.dtype, em.dtype, float(num), np.zeros((), dtype))  # of asanyarray's
    copies, kept = [], []
    for m, b in zip((sm, em), made):  # astype(dt, copy=True), replacing asanyarray's array
        c, f = m.flags.c_contiguous, m.flags.f_contiguous
        copies.append(_stand_in(m.shape, like_strides(m.shape, m.strides, dt.itemsize, c, f), dt))
        kept.append(st.new(array_bytes(m.shape, dt)))
        st.free(b)
    lo, hi = copies
    lo_b, hi_b = kept
    sign, sign_b = ufunc_steps(st, np.sign, lo)
    ufunc_steps(st, np.true_divide, lo, sign, out=lo)
    hi, b = ufunc_steps(st, np.true_divide, hi, sign)
    st.free(hi_b)
    hi_b = b
    log_lo, log_lo_b = ufunc_steps(st, np.log10, lo)
    log_hi, log_hi_b = ufunc_steps(st, np.log10, hi)
    r = _logspace(log_lo, log_hi, num, endpoint, 10.0, dt, 0)
    if num > 1 and endpoint:
        st.temp(setitem_bytes(dt, hi))  # result[-1] = stop (result[0] = start is an array)
    res = _as_meta_array(r)
    ufunc_steps(st, np.multiply, res, sign, out=res)
    out_dt = np.dtype(dtype) if dtype is not None else dt
    if out_dt != r.dtype:
        st.new(array_bytes(r.shape, out_dt))
        st.free(kept_bytes(r))
    st.free(lo_b, hi_b, sign_b, log_lo_b, log_hi_b)
    nd = len(r.shape)
    ax = normalize_axis(axis, nd)
    perm = list(range(1, ax + 1)) + [0] + list(range(ax + 1, nd))
    shape = tuple(r.shape[i] for i in perm)
    strides = tuple(r.strides[i] for i in perm)
    if out_dt != r.dtype:
        c, f = contiguity(shape, strides, r.dtype.itemsize)
        return ArrayMeta(shape, out_dt, like_strides(shape, strides, out_dt.itemsize, c, f))
    if operator.index(axis) != 0:
        return ArrayMeta(shape, out_dt, strides, base_shape=r.shape)
    return ArrayMeta(shape, out_dt, strides)


shape_args(geomspace, 2, "num")


def _linspace_step(start: Any, stop: Any, div: int, bshape: tuple, dt: np.dtype) -> Any:
    """linspace's step: NumPy's own scalar for scalar bounds given as numbers; a fresh array
    (``delta / div``) for array bounds; NaN when there is no step."""
    if div <= 0:
        return math.nan
    if bshape:  # ``(stop - start) / div``: the subtraction's layout (the bounds' K order)
        from .umath import ufunc_call
        from ..registry import quiet
        keep = not (type(start) in _PY_NUMBERS and type(stop) in _PY_NUMBERS)
        with quiet():
            delta = ufunc_call(np.subtract, _bound(stop, keep), _bound(start, keep), dtype=dt)
            step = ufunc_call(np.true_divide, delta, div)
        return ArrayMeta(bshape, dt, tuple(step.strides))
    if is_fake(start) or is_fake(stop):
        raise DataDependentError("np.linspace(retstep=True): the step of fake bounds is a value")
    delta = np.zeros((), dt)
    np.subtract(stop, start, dtype=dt, where=start != stop, out=delta)
    return delta / div


@register(np.eye, tags=("factory",))
def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    """np.eye: zeros((N, M)), then M and k read as integers unless k >= M (twodim_base.py)."""
    check_device(device)
    M = N if M is None else M
    out = zeros((N, M), dtype, order)
    if not k >= M:
        operator.index(M)
        operator.index(k)
        transient(setitem_bytes(out.dtype, 1))  # _twodim_base_impl.py: m[:M-k].flat[i::M+1] = 1
    return out


shape_args(eye, 0, 1, 2, "N", "M", "k")


@register(np.identity, tags=("factory",))
def identity(n, dtype=None, *, like=None):
    return eye(n, dtype=dtype)


shape_args(identity, 0, "n")


def _min_int(low: Any, high: Any) -> np.dtype:
    """twodim_base._min_int: the smallest signed integer dtype holding [low, high]."""
    for t in (np.int8, np.int16, np.int32):
        info = np.iinfo(t)
        if high <= info.max and low >= info.min:
            return np.dtype(t)
    return np.dtype(np.int64)


@register(np.tri, tags=("factory",))
def tri(N, M=None, k=0, dtype=float, *, like=None):
    """np.tri: ``greater_equal.outer`` of two aranges, so negative N or M give empty axes;
    its bytes are the aranges, the bool mask and the ``astype`` copy (_twodim_base_impl.py)."""
    M = N if M is None else M
    rows = arange(N, dtype=_min_int(0, N)).shape[0]
    cols = arange(-k, M - k, dtype=_min_int(-k, M - k)).shape[0]
    cast = np.zeros((), bool).astype(dtype)  # m.astype(dtype): "S" is S5 ("False")
    out = fresh((rows, cols) + cast.shape, cast.dtype)
    steps = Steps()
    mask = tri_mask(steps, rows, cols, k)
    if out.dtype != np.bool_:  # m.astype(dtype, copy=False)
        steps.new(array_bytes(out.shape, out.dtype))
        steps.free(mask)
    steps.done()
    return out


shape_args(tri, 0, 1, 2, "N", "M", "k")


def tri_mask(steps: Steps, N: int, M: int, k: int) -> int:
    """The allocations of tri's bool mask (returned bytes, alive): ``greater_equal.outer``
    of ``arange(N)`` and ``arange(-k, M - k)`` in the smallest int types
    (_twodim_base_impl.py ``tri``); the aranges die with the statement."""
    a = steps.new(array_bytes((N,), _min_int(0, N)))
    b = steps.new(array_bytes((max(M, 0),), _min_int(-k, M - k)))
    mask = steps.new(array_bytes((N, M), np.bool_))
    steps.free(a, b)
    return mask


@register(np.array, tags=("factory",))
def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    """np.array: the input itself when no copy is needed and allowed, else a fresh copy."""
    return array_impl(object, dtype, copy, order, subok, ndmin)


@register(np.asarray, np.asanyarray, tags=("factory",))
def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    return array_impl(a, dtype, copy, "K" if order is None else order, device=device)


@register(np.asarray_chkfinite, tags=("factory",))
def asarray_chkfinite(a, dtype=None, order=None):
    """np.asarray, then (float and complex dtypes) ``np.isfinite(a).all()``: its bool array
    and the 0-d result of ``all``, beside the result (_function_base_impl.py). The
    ValueError for infinities and NaNs needs the values: the fake answers for finite ones."""
    out = array_impl(a, dtype, None, "K" if order is None else order)
    if out.dtype.char in np.typecodes["AllFloat"]:
        transient(array_bytes(tuple(out.shape), np.bool_) + 1)
    return out


@register(np.ascontiguousarray, tags=("factory",))
def ascontiguousarray(a, dtype=None, *, like=None):
    return array_impl(a, dtype, None, "C", ndmin=1)


@register(np.asfortranarray, tags=("factory",))
def asfortranarray(a, dtype=None, *, like=None):
    return array_impl(a, dtype, None, "F", ndmin=1)


@register(np.copy, tags=("factory", "copy"))
def copy(a, order="K", subok=False):
    return array_impl(a, None, True, order)


def _prepend_ones(out: Any, ndmin: int, order: str) -> Any:
    """np.array(..., ndmin=): leading length-1 axes added by a view of the result (of the input
    itself when no copy was made, else of the copy: owndata False), strided by the layout
    rule ``prepend_ones_strides``."""
    shape, strides = tuple(out.shape), tuple(out.strides)
    if ndmin <= len(shape):
        return out
    new_shape = (1,) * (ndmin - len(shape)) + shape
    new_strides = prepend_ones_strides(shape, strides, out.dtype.itemsize, ndmin, order == "F")
    if not isinstance(out, ArrayMeta):  # the input itself
        return ArrayMeta(new_shape, out.dtype, new_strides, view_of=out)
    if out.view_of is not None:
        return out._replace(shape=new_shape, strides=new_strides)
    return out._replace(shape=new_shape, strides=new_strides, base_shape=shape)


def _array_leaves(obj: Any) -> Any:
    """The arrays (fake or real) among the leaves of nested lists and tuples, in order."""
    for x in obj:
        if type(x) in (list, tuple):
            yield from _array_leaves(x)
        elif is_meta(x) or isinstance(x, np.ndarray):
            yield x


def _leaf_casts(obj: Any, dt: np.dtype) -> None:
    """PyArray_AssignFromCache copies each array leaf into the result with a cast loop of its
    own (PyArray_AssignArray), set up and freed one leaf at a time."""
    arrays = list(_array_leaves(obj))
    for m in arrays:
        if is_fake(m):
            check_value_cast(m, dt)
        cast_loop(m.dtype, dt, dummies=False)
    transient(max((legacy_cast_bytes(m.dtype, dt) for m in arrays), default=0))


def array_impl(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *,
                like=None, device=None, _func=None, **kw):
    check_device(device)
    copy = converters.copy(copy)
    if nested_fakes(obj) and not is_meta(obj):
        if dtype is not None and np.dtype(dtype).hasobject:  # ragged nesting is allowed there
            raise UnsupportedOperationError("np.array", "an object array built from nested fakes")
        shape, dt = stack_shape(obj)
        dt = np.dtype(dtype) if dtype is not None else dt
        o = converters.order(order)
        _leaf_casts(obj, dt)
        return _prepend_ones(fresh(shape, dt, "F" if o == "F" else "C"), ndmin, o)
    if not is_meta(obj):
        real = np.array(obj, dtype=dtype, order=order if order in ("C", "F") else "K", ndmin=ndmin,
                        copy=copy)
        if real.base is not None:  # ndmin's view of the converted array, or a read-only view
            # of a np.void scalar's own memory: the same flags, a view of a temporary
            return ArrayMeta(real.shape, real.dtype, real.strides, writeable=real.flags.writeable,
                       base_shape=real.base.shape if isinstance(real.base, np.ndarray) else real.shape)
        return ArrayMeta(real.shape, real.dtype, c_strides(real.shape, real.itemsize) if real.ndim <= 1 or real.flags.c_contiguous else real.strides)
    m = obj
    dt = np.dtype(dtype) if dtype is not None else m.dtype
    o = converters.order(order)
    need = dt != m.dtype
    if need:
        check_value_cast(m, dt)
    if o == "C" and not m.flags.c_contiguous or o == "F" and not m.flags.f_contiguous:
        need = True
    if m.shape == () and is_fake(m) and m.storage._tracker is SCALAR:
        need = True  # a NumPy scalar becomes a fresh 0-d array (PyArray_FromScalar)
    if copy is True or (need and copy is None):
        from .views import copy_like
        cast_loop(m.dtype, dt)
        out = copy_like(m, dt, o)
    elif need:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    else:
        # PyArray_FromArray: the input itself only for the very descriptor it has; an
        # equivalent other one (``dtype.newbyteorder('=')``, ``np.dtype('U3')`` made again)
        # gives a view with that descriptor
        out = m if dt is m.dtype else ArrayMeta(m.shape, dt, m.strides, view_of=m)
    return _prepend_ones(out, ndmin, o)
