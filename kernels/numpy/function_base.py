"""Window functions: bartlett, blackman, hamming, hanning, kaiser
(numpy/lib/_function_base_impl.py)."""
from __future__ import annotations
import math
from typing import Any
import numpy as np
from ..._errors import UnsupportedOperationError
from .creation import arange, fresh
from ...layout import shape_args
from ...meta import ArrayMeta, is_fake
from ..registry import register, unmodelled
from .temporaries import Steps, Val, array_bytes, binary, call, copyto_bytes, used


def unpatched(fn: Any) -> Any:
    """The real function behind a namespace patch (modes/patching), so it runs for real here."""
    if type(fn).__name__ == "PatchedFunction" or getattr(fn, "_ft_patch", False):
        return fn.__wrapped__
    return fn


def _window(fn: Any, M: Any, *rest: Any) -> ArrayMeta:
    """A window of M points: NumPy's own function for small M; for large M the values come
    from ``arange(1 - M, M, 2)`` (function_base.py), so its length rule decides."""
    fn = unpatched(fn)
    if isinstance(M, (int, np.integer)) and not isinstance(M, bool) and M > 16:
        dt = fn(17, *rest).dtype
        return fresh((arange(1 - M, M, 2).shape[0],), dt)
    r = fn(M, *rest)
    return fresh(r.shape, r.dtype)


def _window_steps(out: ArrayMeta, formula: Any) -> None:
    """The allocations of a window function of _function_base_impl.py: ``values =
    np.array([0.0, M])`` alive throughout; for M > 1 ``n = arange(1 - M, M, 2)`` and
    ``formula(steps, n, m1)`` (m1 = ``M - 1``, a float64 scalar) gives the result; for M == 1
    ``ones(1)``."""
    steps = Steps()
    values = steps.new(16)
    m = out.shape[0]
    if m == 1:
        steps.new(8)
        steps.temp(copyto_bytes(np.float64, 1))
    elif m > 1:
        n = Val((m,), np.float64)
        arange = steps.new(n.nbytes)
        formula(steps, n, np.float64(m - 1))
        steps.free(arange)
    steps.free(values)
    steps.done()


def _cosine_sum(*coefs: float) -> Any:
    """``c0 + c1 * cos(pi * n / (M - 1)) + c2 * cos(2.0 * pi * n / (M - 1))`` (hanning,
    hamming, blackman), left to right."""
    def formula(steps: Steps, n: Val, m1: Any) -> Val:
        total: Any = coefs[0]
        for k, c in enumerate(coefs[1:], 1):
            scaled = binary(steps, np.multiply, 2.0 * np.pi if k == 2 else np.pi, n, True)
            arg = binary(steps, np.true_divide, scaled, m1)
            term = binary(steps, np.multiply, c, call(steps, np.cos, arg), True)
            total = binary(steps, np.add, total, term, True)
        return total
    return formula


def _bartlett_formula(steps: Steps, n: Val, m1: Any) -> None:
    """``where(less_equal(n, 0), 1 + n / (M - 1), 1 - n / (M - 1))``."""
    cond = call(steps, np.less_equal, n, 0)
    up = binary(steps, np.add, 1, binary(steps, np.true_divide, n, m1), True)
    down = binary(steps, np.subtract, 1, binary(steps, np.true_divide, n, m1))
    steps.new(array_bytes(n.shape, np.float64))
    used(steps, cond, up, down)


@register(np.bartlett, tags=("factory",))
def bartlett(M: Any) -> ArrayMeta:
    out = _window(np.bartlett, M)
    _window_steps(out, _bartlett_formula)
    return out


@register(np.blackman, tags=("factory",))
def blackman(M: Any) -> ArrayMeta:
    out = _window(np.blackman, M)
    _window_steps(out, _cosine_sum(0.42, 0.5, 0.08))
    return out


@register(np.hamming, tags=("factory",))
def hamming(M: Any) -> ArrayMeta:
    out = _window(np.hamming, M)
    _window_steps(out, _cosine_sum(0.54, 0.46))
    return out


@register(np.hanning, tags=("factory",))
def hanning(M: Any) -> ArrayMeta:
    out = _window(np.hanning, M)
    _window_steps(out, _cosine_sum(0.5, 0.5))
    return out


@register(np.kaiser, tags=("factory",))
def kaiser(M: Any, beta: Any) -> ArrayMeta:
    if is_fake(beta):
        raise UnsupportedOperationError(np.kaiser, "a fake beta")
    out = _window(np.kaiser, M, beta)
    if out.shape != (1,):  # i0 of the window: np.piecewise, whose pieces the values size
        unmodelled("i0's piecewise evaluates each branch on the elements that take it")
    return out


for _window_fn in (bartlett, blackman, hamming, hanning, kaiser):
    shape_args(_window_fn, 0, "M")


# --- np.vectorize (numpy/lib/_function_base_impl.py vectorize) ----------------------------------

_VECTORIZE_CALL = np.vectorize._call_as_normal


def _vectorize_standin(m: Any) -> Any:
    """A zero-stride real array of m's shape (NumPy's shape helpers read shapes only)."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), shape=m.shape,
                                           strides=(0,) * m.ndim)


@register(_VECTORIZE_CALL, tags=("ufunc",), name="np.vectorize.__call__")
def vectorize_call(self: Any, *args: Any, **kwargs: Any) -> Any:
    """np.vectorize(pyfunc, otypes=...)(*args): the function is never called; the results'
    metadata follows NumPy's own steps, exact when ``otypes`` is given.

    Without ``signature`` (vectorize._vectorize_call): each argument as an object array
    (``asanyarray(a, dtype=object)``, order K), the frompyfunc ufunc's object outputs
    (NpyIter's layout for them), each cast to its otype (order K). With ``signature``
    (_vectorize_call_with_signature): C-contiguous ``np.empty`` outputs of the loop shape
    followed by the output core dimensions. Without ``otypes`` NumPy finds the output dtypes
    by calling the function on the first elements: DataDependentError; so also for an output
    core dimension no input has."""
    from ...meta import as_meta
    from ...layout import broadcast_shapes, c_strides, like_strides
    from .umath import trivial_order, elementwise_out_strides
    from ..registry import transient
    from ..._errors import DataDependentError
    if self.pyfunc is np._NoValue:
        raise UnsupportedOperationError("np.vectorize", "the decorator form given a fake")
    excluded = self.excluded
    if not kwargs and not excluded:
        vargs = list(args)
    else:
        vargs = [a for i, a in enumerate(args) if i not in excluded]
        vargs += [v for n, v in kwargs.items() if n not in excluded]
    otypes = self.otypes
    if self.signature is not None:
        from numpy.lib._function_base_impl import _calculate_shapes, _parse_input_dimensions
        ins, outs = self._in_and_out_core_dims
        if len(vargs) != len(ins):
            raise TypeError(f"wrong number of positional arguments: expected {len(ins)!r}, "
                            f"got {len(vargs)!r}")
        metas = [as_meta(a) for a in vargs]
        bshape, dim_sizes = _parse_input_dimensions([_vectorize_standin(m) for m in metas], ins)
        _calculate_shapes(bshape, dim_sizes, ins)
        if otypes is None:
            raise DataDependentError("np.vectorize without otypes calls the function on the "
                                     "first elements to find the output dtypes")
        if any(d not in dim_sizes for dims in outs for d in dims):
            raise DataDependentError("np.vectorize: an output core dimension no input has is "
                                     "known only from the function's result")
        res = []
        for dims, t in zip(outs, otypes):
            dt = np.dtype(t)
            shape = tuple(bshape) + tuple(dim_sizes[d] for d in dims)
            res.append(ArrayMeta(shape, dt, c_strides(shape, dt.itemsize)))
        return res[0] if len(outs) == 1 else tuple(res)
    if not vargs:
        raise DataDependentError("np.vectorize of no arguments calls the function once")
    if otypes is None:
        raise DataDependentError("np.vectorize without otypes calls the function on the first "
                                 "elements to find the output dtypes")
    obj = np.dtype(object)
    metas = []
    nbytes = 0
    for a in vargs:
        m = as_meta(a)
        fresh_obj = ArrayMeta(tuple(m.shape), obj, like_strides(
            tuple(m.shape), tuple(m.strides), obj.itemsize, m.flags.c_contiguous, m.flags.f_contiguous))
        metas.append(fresh_obj)
        if m.dtype != obj or not is_fake(m) and not isinstance(m, np.ndarray):
            nbytes += max(m.size * obj.itemsize, 1)
    shape = broadcast_shapes(*[m.shape for m in metas])
    trivial = trivial_order(metas, (obj,) * len(metas), "K")
    ost = elementwise_out_strides(shape, obj.itemsize, metas, "K", trivial)
    c, f = (ArrayMeta(shape, obj, ost).flags.c_contiguous, ArrayMeta(shape, obj, ost).flags.f_contiguous)
    res = []
    for t in otypes:
        dt = np.dtype(t)
        if dt == obj:
            res.append(ArrayMeta(shape, obj, ost))
        else:
            nbytes += max(math.prod(shape) * obj.itemsize, 1)
            res.append(ArrayMeta(shape, dt, like_strides(shape, ost, dt.itemsize, c, f)))
    transient(nbytes)
    return res[0] if len(otypes) == 1 else tuple(res)
