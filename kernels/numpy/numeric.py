"""numpy/_core/numeric.py's functions: roll, isclose, allclose, array_equal, array_equiv, cross,
correlate, convolve."""
from __future__ import annotations
from typing import Any
import numpy as np
from ..._errors import DataDependentError, UnsupportedOperationError
from ...layout import broadcast_shapes, c_strides, fill_strides, normalize_axis
from ... import converters
import operator
from ...meta import ArrayMeta, as_meta, is_meta
from .. import flops
from ..registry import pyarray_return, register, transient
from .hidden import stepped, steps
from .misc import WEAK, ufunc_meta, k_copy, k_copy_out
from .temporaries import (Steps, Val, array_bytes, asarray_bytes, binary, call, ufunc_bytes,
                          unary, used)
from .umath import ufunc_call
from ._common import BOOL, c_fresh
@register(np.roll, tags=("copy",))
def roll(a: Any, shift: Any, axis: Any = None) -> ArrayMeta:
    """empty_like(a) along axes; for axis=None a C 1-d result reshaped (a view of it)."""
    m = as_meta(a)
    if axis is None:
        n = m.size
        if np.ndim(shift) > 1 if not is_meta(shift) else shift.ndim > 1:
            raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
        # numeric.py roll: roll(a.ravel(), shift, 0).reshape(a.shape); ravel copies a
        # non-C-contiguous a, alive until the inner roll returns
        steps = Steps()
        flat = steps.new(0 if m.flags.c_contiguous else array_bytes(m.shape, m.dtype))
        _roll_steps(steps, shift, 1, m, flat)
        if m.ndim == 1:
            return ArrayMeta(m.shape, m.dtype, c_strides(m.shape, m.dtype.itemsize), base_shape=(n,))
        return ArrayMeta(m.shape, m.dtype, fill_strides(m.shape, m.dtype.itemsize), base_shape=(n,))
    axes = converters.axis_tuple(axis, m.ndim, allow_duplicate=True)
    sh = shift.shape if is_meta(shift) else np.shape(shift)
    try:
        b = broadcast_shapes(tuple(sh), (len(axes),))
    except ValueError:
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape") from None
    if len(b) > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    _roll_steps(Steps(), shift, len(axes), m)
    return k_copy_out(m)
def _roll_steps(steps: Steps, shift: Any, naxes: int, m: Any, held: int = 0) -> None:
    """numeric.py roll: ``broadcast(shift, axis)`` makes arrays of shift and the axis tuple,
    alive with ``empty_like(a)``; ``held`` bytes of the caller die after it."""
    b = steps.new(asarray_bytes(shift) + naxes * 8)
    steps.new(array_bytes(m.shape, m.dtype))
    steps.free(held, b)
    steps.done()


def isclose_meta(a: Any, b: Any, rtol: Any, atol: Any, equal_nan: bool) -> Any:
    """The ufunc chain of numpy.isclose on metadata."""
    x, y, atol, rtol = (v if type(v) in WEAK else as_meta(v) for v in (a, b, atol, rtol))
    if type(y) not in WEAK and y.dtype.kind != "m":
        dt = np.result_type(y.dtype, 1.0)
        if dt != y.dtype:
            y = k_copy(y, dt)
    elif type(y) is int:
        y = float(y)
    ay = ufunc_meta(np.absolute, y) if type(y) not in WEAK else abs(y)
    lhs = ufunc_meta(np.absolute, ufunc_meta(np.subtract, x, y))
    rhs = ufunc_meta(np.add, atol, ufunc_meta(np.multiply, rtol, ay))
    res = ufunc_meta(np.bitwise_or,
                     ufunc_meta(np.bitwise_and, ufunc_meta(np.less_equal, lhs, rhs),
                                ufunc_meta(np.isfinite, y)),
                     ufunc_meta(np.equal, x, y))
    if equal_nan:
        res = ufunc_meta(np.bitwise_or, res,
                         ufunc_meta(np.bitwise_and, ufunc_meta(np.isnan, x), ufunc_meta(np.isnan, y)),
                         out=res)
    if res.ndim == 0:
        return ArrayMeta((), res.dtype, ())
    return ArrayMeta(res.shape, res.dtype, res.strides, base_shape=res.shape)


@register(np.isclose, tags=("copy",), flops=flops.elementwise)
def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """A bool array laid out as the chain of ufuncs leaves it, returned as result[()]."""
    out = isclose_meta(a, b, rtol, atol, equal_nan)
    if all(type(v) in (float, int) for v in (rtol, atol)) and out.shape:
        _isclose_steps(a, b, rtol, atol, equal_nan)
    elif all(type(v) in (float, int) for v in (rtol, atol)) and not equal_nan and all(
            type(v) in WEAK or as_meta(v).ndim == 0 for v in (a, b)):
        _isclose_0d_steps(a, b, rtol, atol)
        return out._replace(scalar=True)
    return pyarray_return(out)


def _isclose_0d_steps(a: Any, b: Any, rtol: Any, atol: Any) -> None:
    """isclose of 0-d operands: each ufunc on a 0-d array gives a NumPy scalar (its 0-d
    result freed); ufuncs on NumPy scalars and Python numbers make 0-d arrays of them (the
    operators on two scalars are scalar math); result[()] is the scalar itself."""
    from .umath import ufunc_steps
    steps = Steps()
    x, y = (v if type(v) in WEAK else as_meta(v) for v in (a, b))
    held = 0
    if type(y) not in WEAK:
        dt = np.result_type(y.dtype, 1.0) if y.dtype.kind != "m" else y.dtype
        held = steps.new(0 if dt == y.dtype else array_bytes((), dt))
        y = ArrayMeta((), dt, ())
    elif type(y) is int:
        y = float(y)
    if type(x) in WEAK and type(y) in WEAK:
        lhs: Any = abs(x - y)
    else:
        lhs, _ = ufunc_steps(steps, np.subtract, x, y)
    ay = abs(y) if type(y) in WEAK else ufunc_steps(steps, np.absolute, y)[0]
    rhs = atol + rtol * ay if type(ay) in WEAK else ay.dtype.type(0)
    ufunc_steps(steps, np.less_equal, lhs, rhs)
    ufunc_steps(steps, np.isfinite, y)
    ufunc_steps(steps, np.equal, x, y)
    steps.free(held)
    steps.done()


def _isclose_steps(a: Any, b: Any, rtol: Any, atol: Any, equal_nan: bool) -> None:
    """numeric.py isclose, operation by operation (Python float tolerances): y as float
    (a copy of an int y), ``less_equal(abs(x - y), atol + rtol * abs(y)) & isfinite(y) |
    (x == y)``, then ``result |= isnan(x) & isnan(y)`` for equal_nan."""
    steps = Steps()
    x, y = (v if type(v) in WEAK else as_meta(v) for v in (a, b))
    x = x if type(x) in WEAK else Val(x.shape, x.dtype)
    held = 0
    if type(y) not in WEAK:
        dt = np.result_type(y.dtype, 1.0) if y.dtype.kind != "m" else y.dtype
        held = steps.new(0 if dt == y.dtype else array_bytes(y.shape, dt))
        y = Val(y.shape, dt)
    elif type(y) is int:
        y = float(y)
    lhs = unary(steps, np.absolute, binary(steps, np.subtract, x, y))
    ay = abs(y) if type(y) in WEAK else unary(steps, np.absolute, y)
    if type(ay) in WEAK:  # Python arithmetic: no array
        rhs = atol + rtol * ay
    else:
        rhs = binary(steps, np.add, atol, binary(steps, np.multiply, rtol, ay, True), True)
    le = call(steps, np.less_equal, lhs, rhs)
    fin = call(steps, np.isfinite, y)
    res = binary(steps, np.bitwise_or, binary(steps, np.bitwise_and, le, fin, True),
                 binary(steps, np.equal, x, y), True)
    if equal_nan:
        both = binary(steps, np.bitwise_and, call(steps, np.isnan, x), call(steps, np.isnan, y), True)
        steps.temp(ufunc_bytes(np.bitwise_or, res, both, out=res))
        used(steps, both)
    steps.free(held)
    steps.done()


@register(np.allclose, tags=("data-dependent",))
def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    isclose_meta(a, b, rtol, atol, equal_nan)
    raise DataDependentError("np.allclose returns a Python bool computed from the values")


@register(np.array_equal, tags=("data-dependent",))
def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """False for different shapes (no data needed); otherwise the values decide.
    numeric.py: ``asarray`` of both arguments first (alive together)."""
    if tuple(as_meta(a1).shape) != tuple(as_meta(a2).shape):
        transient(asarray_bytes(a1) + asarray_bytes(a2))
        return False
    raise DataDependentError("np.array_equal depends on the values")


@register(np.cross, tags=("copy",), flops=flops.cross)
@stepped
def cross(a: Any, b: Any, axisa: Any = -1, axisb: Any = -1, axisc: Any = -1,
          axis: Any = None) -> ArrayMeta:
    """np.cross: an empty C result (moveaxis(cp, -1, axisc), a view of it, for 3-vectors)."""
    from ..registry import uncached
    if axis is not None:
        axisa = axisb = axisc = axis
    made = (asarray_bytes(a), asarray_bytes(b))
    a, b = as_meta(a), as_meta(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    axa = normalize_axis(axisa, a.ndim, "axisa")
    axb = normalize_axis(axisb, b.ndim, "axisb")
    na, nb = a.shape[axa], b.shape[axb]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if na == 2 or nb == 2:
        import warnings
        uncached()
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=4)
    sa = a.shape[:axa] + a.shape[axa + 1:]
    sb = b.shape[:axb] + b.shape[axb + 1:]
    shape = broadcast_shapes(sa, sb)
    three = na == 3 or nb == 3
    if three:
        shape += (3,)
        axc = normalize_axis(axisc, len(shape), "axisc")
    dt = np.promote_types(a.dtype, b.dtype)
    if dt.kind not in "biufc":
        raise UnsupportedOperationError("np.cross", f"dtype {dt}")
    if dt == BOOL:  # cp -= ... : NumPy's boolean subtract error
        ufunc_call(np.subtract, c_fresh((), dt), c_fresh((), dt))
    # numeric.py cross: cp = empty(shape); a.astype(dtype), b.astype(dtype) (always copies,
    # alive to the end; the arrays asarray made of lists die with them), then one product
    # of the broadcast vector shape: ``tmp`` for 3 x 3, ``cp2 -= a1 * b0`` otherwise
    steps().new(sum(made))
    steps().new(array_bytes(shape, dt))
    steps().new(array_bytes(a.shape, dt))
    steps().free(made[0])
    steps().new(array_bytes(b.shape, dt))
    steps().free(made[1])
    steps().temp(array_bytes(shape[:-1] if three else shape, dt))
    st = c_strides(shape, dt.itemsize)
    if not three:
        return ArrayMeta(shape, dt, st)
    order = list(range(len(shape) - 1))
    order.insert(axc, len(shape) - 1)
    return ArrayMeta(tuple(shape[i] for i in order), dt, tuple(st[i] for i in order),
               base_shape=shape)


# --- array_equiv -----------------------------------------------------------------------------

@register(np.array_equiv, tags=("data-dependent",))
def array_equiv(a1: Any, a2: Any) -> Any:
    """np.array_equiv: False when the shapes do not broadcast, else a value."""
    x, y = as_meta(a1), as_meta(a2)
    try:
        broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    shape = broadcast_shapes(x.shape, y.shape)
    if 0 in shape and x.dtype.kind in "biufc" and y.dtype.kind in "biufc":
        # ``bool((a1 == a2).all())`` of asarray'd operands: the comparison's temporaries and
        # its empty result, then all()'s 0-d result
        st = Steps()
        held = st.new(asarray_bytes(a1) + asarray_bytes(a2))
        extra = st.new(ufunc_bytes(np.equal, x, y))
        res = st.new(array_bytes(shape, np.bool_))
        st.free(extra)
        st.temp(1)
        st.free(res, held)
        st.done()
        return True
    raise DataDependentError("np.array_equiv compares values")


# --- correlate, convolve ---------------------------------------------------------------------

_MODES = {"valid": 0, "same": 1, "full": 2}


def _mode(mode: Any) -> int:
    """PyArray_CorrelatemodeConverter."""
    if isinstance(mode, str):
        if mode not in _MODES:
            raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
        return _MODES[mode]
    try:
        k = operator.index(mode)
    except TypeError:
        raise TypeError("convolve/correlate mode not understood") from None
    if k not in (0, 1, 2):
        raise ValueError("integer convolve/correlate mode must be 0, 1, or 2")
    return k


def _correlate(a: Any, v: Any, mode: Any, name: str, conj: bool = False,
               made: int = 0, v_made: int = 0) -> ArrayMeta:
    """multiarray.correlate / correlate2: a fresh 1-d C array of the common type.

    Its buffers (multiarraymodule.c ``PyArray_Correlate2``): both inputs as C arrays of the
    common type (copies unless already so), correlate2's conjugate of a complex second
    input (replacing its copy), then the result; ``made`` are the bytes of arrays the
    caller made of Python sequences, alive throughout; ``v_made``: the array made of a
    sequence ``v``, which the conjugate replaces)."""
    from .temporaries import carray_bytes
    for m, which in ((a, "first"), (v, "second")):
        if m.ndim == 0:
            raise ValueError("object of too small depth for desired array")
        if m.ndim > 1:
            raise ValueError("object too deep for desired array")
    dt = np.result_type(a.dtype, v.dtype)
    if dt.kind not in "biufc":
        raise UnsupportedOperationError(name, f"dtype {dt}")
    k = _mode(mode)
    n1, n2 = a.shape[0], v.shape[0]
    if n1 == 0:
        raise ValueError("first array argument cannot be empty")
    if n2 == 0:
        raise ValueError("second array argument cannot be empty")
    lo, hi = min(n1, n2), max(n1, n2)
    n = (hi - lo + 1, hi, n1 + n2 - 1)[k]
    st = steps()
    st.new(made)
    st.new(carray_bytes(a, dt))
    copy = st.new(v_made + carray_bytes(v, dt))
    if conj and dt.kind == "c":
        st.new(array_bytes(v.shape, dt))
        st.free(copy)
    st.new(array_bytes((n,), dt))
    return ArrayMeta((n,), dt, (dt.itemsize,))


def _seq_bytes(*objs: Any) -> int:
    """Bytes of the arrays NumPy makes of the non-array arguments (lists, scalars)."""
    from .umath import is_scalar
    return sum(x.dtype.itemsize if is_scalar(x) else asarray_bytes(x) for x in objs)


@register(np.correlate, tags=("copy",), flops=flops.correlate)
@stepped
def correlate(a: Any, v: Any, mode: Any = "valid") -> ArrayMeta:
    """np.correlate (multiarray.correlate2); a non-array argument is made straight into an
    array of the common type."""
    am, vm = as_meta(a), as_meta(v)
    dt = np.result_type(am.dtype, vm.dtype)
    made = 0
    if not is_meta(a) and am.ndim == 1:
        am, made = c_fresh(am.shape, dt), made + array_bytes(am.shape, dt)
    v_made = 0
    if not is_meta(v) and vm.ndim == 1:
        vm, v_made = c_fresh(vm.shape, dt), array_bytes(vm.shape, dt)
    return _correlate(am, vm, mode, "np.correlate", conj=True, made=made, v_made=v_made)


@register(np.convolve, tags=("copy",), flops=flops.convolve)
@stepped
def convolve(a: Any, v: Any, mode: Any = "full") -> ArrayMeta:
    """np.convolve: correlate of the (at least 1-d) longer input with the other reversed."""
    made = _seq_bytes(a, v)
    a, v = as_meta(a), as_meta(v)
    if a.ndim == 0:
        a = ArrayMeta((1,), a.dtype, (a.dtype.itemsize,))
    if v.ndim == 0:
        v = ArrayMeta((1,), v.dtype, (v.dtype.itemsize,))
    if a.ndim == 1 and a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.ndim == 1 and v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    if v.ndim == 1 and a.ndim == 1 and v.shape[0] > a.shape[0]:
        a, v = v, a
    if v.ndim == 1:  # v[::-1]
        v = ArrayMeta(tuple(v.shape), v.dtype, (-v.strides[0],)) if v.shape[0] > 1 else v
    return _correlate(a, v, mode, "np.convolve", made=made)
