"""numpy/lib/_function_base_impl.py's functions: the window functions (bartlett, blackman,
hamming, hanning, kaiser), np.vectorize, median, quantile and percentile (via _ureduce),
angle, sinc, i0, diff, trapezoid, digitize, interp, average, unwrap, cov, corrcoef, gradient.

Each kernel replays NumPy's own composition on fresh ``ArrayMeta`` intermediates, so the
final result has the layout NumPy's last step gives it, and its allocations on a ``Steps``
timeline beside the rule. Checks that read values (NaN scans that only warn or replace
values) are skipped: they change values, never layouts. Results whose shape or dtype depend
on values raise DataDependentError.
"""
from __future__ import annotations

import math
import operator
import warnings
from builtins import range as builtins_range
from typing import Any

import numpy as np
from numpy._core import umath as _umath

from ..._errors import DataDependentError, UnsupportedOperationError
from ..._numpy_version import QUANTILE_WEAK_Q, ufunc_array
from ...layout import (c_strides, like_strides, normalize_axes, normalize_axis, reshape_strides,
                       shape_args, sorted_stride_perm, strides_in_order, contiguity,
                       iterator_out_strides)
from ...meta import ArrayMeta, as_meta, check_writeable, is_fake, is_meta, nested_fakes
from .. import flops
from ..registry import pyarray_return, quiet, register, scalar_result, transient, unmodelled
from ._common import BOOL, along, c_fresh, chainable, chained_ufunc, complex_part, known_values
from .convert_datatype import cast_loop
from .creation import arange, fresh
from .hidden import captured
from .reductions import final_result, like_copy, mean_steps, stays_array
from .temporaries import (Steps, Val, array_bytes, asarray_bytes, binary, call, carray_bytes,
                          copyto_bytes, scalar_ctor_bytes,
                          divide_by_count_bytes, partition_bytes, setitem_bytes, take_bytes,
                          ufunc_bytes, unary, used)
from .umath import ufunc_call

_NoValue = np._NoValue
_INTP = np.dtype(np.intp)
_F8 = np.dtype("f8")


# --- window functions ------------------------------------------------------------------------

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


def _view(m: Any, shape: tuple, strides: tuple) -> ArrayMeta:
    """A view of an intermediate (layout only: offsets of temporaries do not matter),
    read-only where ``m`` is (median's ``overwrite_input`` writes through it)."""
    return ArrayMeta(tuple(shape), m.dtype, tuple(strides),
                     writeable=None if m.flags.writeable else False)


def _moveaxis(m: Any, src: int, dst: int) -> ArrayMeta:
    order = [i for i in range(m.ndim) if i != src]
    order.insert(dst, src)
    return _view(m, tuple(m.shape[i] for i in order), tuple(m.strides[i] for i in order))


def _reshape(m: Any, shape: tuple) -> tuple[ArrayMeta, bool]:
    """(result, copied) of ``m.reshape(shape)`` in C order (copy: a C array, a view of it)."""
    shape, st = reshape_strides(m.shape, m.strides, m.dtype.itemsize, shape)
    if st is None:
        return c_fresh(shape, m.dtype), True
    return _view(m, shape, st), False


def _numeric(m: Any, name: str, kinds: str = "biufc") -> None:
    if m.dtype.kind not in kinds:
        raise UnsupportedOperationError(name, f"dtype {m.dtype}")


# --- median (via _ureduce) -----------------------------------------------------------------

def _out_slot(out: Any, axes: tuple | None, nd: int) -> Any:
    """``out[(..., 0 on reduced axes, : elsewhere)]`` of ureduce with keepdims."""
    sel = [i in axes if axes is not None else True for i in range(nd)]
    if out.ndim < nd:
        raise IndexError(f"too many indices for array: array is {out.ndim}-dimensional, "
                         f"but {nd} were indexed")
    lead = out.ndim - nd
    for i, s in enumerate(sel):
        if s and out.shape[lead + i] == 0:
            raise IndexError(f"index 0 is out of bounds for axis {lead + i} with size 0")
    keep = list(range(lead)) + [lead + i for i, s in enumerate(sel) if not s]
    return ArrayMeta(tuple(out.shape[i] for i in keep), out.dtype,
                     tuple(out.strides[i] for i in keep), writeable=out.flags.writeable)


def ureduce(a: Any, func: Any, keepdims: Any, axis: Any, out: Any, _name: str = "np.median",
             **kw: Any) -> Any:
    """ureduce: axis tuples merged into one trailing axis (weights= with them), keepdims
    by newaxis views."""
    m = as_meta(a)
    kd = False if keepdims is _NoValue else bool(keepdims)
    nd = m.ndim
    axes = None
    inner_out = out
    if out is not None and not is_meta(out):
        raise UnsupportedOperationError(_name, "a non-array out")
    if axis is not None:
        axes = normalize_axes(axis, nd, None)
        if kd and out is not None:
            inner_out = _out_slot(out, axes, nd)
        if len(axes) == 1:
            ax = axes[0]
        else:
            keep = [i for i in range(nd) if i not in axes]
            order = keep + [i for i in range(nd) if i not in keep]
            mv = _view(m, tuple(m.shape[i] for i in order), tuple(m.strides[i] for i in order))
            n = 1
            for i in axes:
                n *= m.shape[i]
            if 0 in mv.shape[:len(keep)]:
                raise ValueError(f"cannot reshape array of size 0 into shape "
                                 f"{mv.shape[:len(keep)] + (-1,)}")
            m, copied = _reshape(mv, mv.shape[:len(keep)] + (n,))
            if copied:  # the reshaped copy lives while func runs
                transient(array_bytes(m.shape, m.dtype))
            w = kw.get("weights")
            if w is not None:  # reshape_arr(weights): the same moveaxis and reshape
                w = as_meta(w)
                wv = _view(w, tuple(w.shape[i] for i in order), tuple(w.strides[i] for i in order))
                kw["weights"], wcopied = _reshape(wv, wv.shape[:len(keep)] + (-1,))
                if wcopied:
                    transient(array_bytes(kw["weights"].shape, w.dtype))
            ax = -1
    else:
        ax = None
        if kd and out is not None:
            inner_out = _out_slot(out, None, nd)
    r = func(m, ax, inner_out, **kw)
    if out is not None:
        return out
    if kd:
        shape = tuple(1 if axes is None or i in axes else None for i in range(nd))
        lead = r.ndim - sum(1 for s in shape if s is None)  # quantile's q axes come first
        rs = list(r.shape[lead:])
        st = list(r.strides[lead:])
        newshape, newstrides = list(r.shape[:lead]), list(r.strides[:lead])
        for s in shape:
            if s == 1:
                newshape.append(1)
                newstrides.append(0)
            else:
                newshape.append(rs.pop(0))
                newstrides.append(st.pop(0))
        return ArrayMeta(tuple(newshape), r.dtype, tuple(newstrides), base_shape=tuple(r.shape))
    return final_result(r)


def _median(m: Any, axis: Any, out: Any, overwrite_input: bool = False) -> Any:
    """_median: partition a copy, mean of the middle one or two entries along the axis.
    With ``overwrite_input`` the array itself is partitioned (``a.partition(kth, axis)``, or
    ``a.ravel()`` for axis None: a view where a is C-contiguous, else a copy), so the
    mean reads its layout.

    Recorded in ``steps()`` (numpy/lib/_function_base_impl.py, _median): the partitioned
    copy, partition's kth arrays and axis buffer, the mean (its own buffers with it), and
    _median_nancheck's ``take(-1)``, ``isnan`` of it and ``any()``; the copy dies last."""
    _numeric(m, "np.median")
    copied = True
    if overwrite_input and (axis is not None or m.flags.c_contiguous):
        check_writeable(m, "partition array")
        part = m if axis is not None else _view(m, (m.size,), (m.dtype.itemsize,))
        copied = False
    else:
        part = like_copy(m) if axis is not None else c_fresh((m.size,), m.dtype)
    ax = 0 if axis is None else normalize_axis(axis, part.ndim)
    n = part.shape[ax]
    width = 1 if n % 2 else min(2, n)  # slice(-1, 1) of an empty axis is empty
    sl = _view(part, part.shape[:ax] + (width,) + part.shape[ax + 1:], part.strides)
    # _function_base_impl.py _median: partition(a, kth) copies a (kth becomes an intp array
    # in PyArray_Partition), the mean of the middle entries, then _median_nancheck's
    # ``isnan(part.take(-1, axis)).any()`` for inexact types (its NaN branch needs values)
    steps = Steps()
    copy = steps.new(array_bytes(part.shape, part.dtype) if copied else 0)
    nans = part.dtype.kind in "fcmM"
    steps.temp(partition_bytes(part.shape, part.strides, part.dtype, ax,
                               (2 if n % 2 == 0 else 1) + nans))  # kth of sz=0: [-1, 0]
    res = mean_steps(sl, ax, None, out, _NoValue, _NoValue, steps)
    if nans and math.prod(part.shape):  # _median_nancheck returns at once for empty data
        rest = part.shape[:ax] + part.shape[ax + 1:]
        if not part.dtype.isnative and math.prod(rest) > 1:
            unmodelled("median of byte-swapped data along an axis: the mean's and isnan's "
                       "casting buffers over the kept axes are not replayed")
        tmp = steps.new(take_bytes(part.shape, part.strides, part.dtype, 1))
        taken = steps.new(array_bytes(rest, part.dtype))
        steps.free(tmp)
        flags = steps.new(array_bytes(rest, BOOL))
        steps.temp(1)
        steps.free(taken, flags)
    steps.free(copy)
    if not stays_array(res, out is None):  # a NumPy scalar; the fake's 0-d array comes last
        steps.keep(res.dtype.itemsize)
    steps.done()
    return res


@register(np.median, tags=("reduction",))
def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
    """np.median: ureduce over _median (overwrite_input partitions the input instead)."""
    if overwrite_input:
        return ureduce(a, _median, keepdims, axis, out, overwrite_input=True)
    return ureduce(a, _median, keepdims, axis, out)


# --- quantile, percentile (via _ureduce) --------------------------------------------------
# numpy/lib/_function_base_impl.py quantile / percentile / _quantile_ureduce_func / _quantile.
# The result dtype comes from NumPy's own _quantile run on a stand-in of at most one element
# per axis (dtype rules and dtype errors only depend on dtypes and on ``weak_q``); shapes and
# layouts are replayed. Value checks on fake q or fake weights (q in [0, 1], weights >= 0) are
# skipped: they only raise.

def _fb() -> Any:
    import numpy.lib._function_base_impl as fb
    return fb


_Q_SMALL = 64  # a real q array of more elements is taken by its metadata, as a fake q


def _q_arg(q: Any, percent: bool, dt: np.dtype) -> tuple[Any, bool]:
    """(q as _quantile sees it: a meta for a fake q, else a small real array, weak_q).

    A real q array of more than _Q_SMALL elements is taken as a fake one (no work in
    proportion to it inside a mode): its range is not checked; so is a list holding fakes
    (the array NumPy stacks it into). Before NumPy 2.4 (``QUANTILE_WEAK_Q``) there is no
    weak q: quantile casts a Python number q to a float ``a``'s dtype, percentile divides
    by 100 of that dtype (2.3 numpy/lib/_function_base_impl.py quantile, percentile)."""
    weak = type(q) in (int, float) and QUANTILE_WEAK_Q
    hundred: Any = 100 if QUANTILE_WEAK_Q or dt.kind != "f" else dt.type(100)
    if is_meta(q) or nested_fakes(q) or (isinstance(q, np.ndarray) and q.size > _Q_SMALL):
        qm = ArrayMeta(tuple(q.shape), q.dtype, tuple(q.strides)) \
            if isinstance(q, np.ndarray) else as_meta(q)
        if percent:
            qm = chainable(ufunc_call(np.true_divide, qm, hundred, out=Ellipsis))
        if qm.size == 0 and qm.ndim != 1:  # _quantile_is_valid: q.min() of an empty q
            raise ValueError("zero-size array to reduction operation minimum which has no identity")
        unmodelled("quantile of a q without values (a fake, or a real array of more than "
                   f"{_Q_SMALL} elements): how many partition indices, and _get_indexes' "
                   "fixes at the bounds, depend on q's values")
        return qm, weak
    if percent:
        real = ufunc_array(np.true_divide, q, hundred)
    elif not QUANTILE_WEAK_Q and isinstance(q, (int, float)) and dt.kind == "f":
        real = np.asanyarray(q, dtype=dt)
    else:
        real = np.asanyarray(q)
    if not _fb()._quantile_is_valid(real):
        raise ValueError("Percentiles must be in the range [0, 100]" if percent
                         else "Quantiles must be in the range [0, 1]")
    return real, weak


def quantile_args(a: Any, q: Any, axis: Any, method: Any, weights: Any, percent: bool) -> tuple:
    """The checks _quantile_is_valid / _nanquantile_unchecked's callers make first, in NumPy's
    order: real data, then q, then weights. Returns (a's meta, q, q is weak, weights)."""
    m = as_meta(a)
    if m.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    qv, weak = _q_arg(q, percent, m.dtype)
    w = None if weights is None else _weights_check(weights, m, axis, method)
    return m, qv, weak, w


def _weights_check(weights: Any, m: Any, axis: Any, method: Any) -> Any:
    """quantile's weights checks (_weights_are_valid): the weights as a meta shaped like a."""
    if method != "inverted_cdf":
        raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
    axes = normalize_axes(axis, m.ndim, None) if axis is not None else None
    if not is_meta(weights):
        real = np.asanyarray(weights)
        if real.size <= _Q_SMALL and np.any(real < 0):  # larger ones: as a fake's, unchecked
            raise ValueError("Weights must be non-negative.")
        w = ArrayMeta(real.shape, real.dtype, real.strides)
    else:
        w = as_meta(weights)
    if tuple(w.shape) != tuple(m.shape):
        if axes is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if tuple(w.shape) != tuple(m.shape[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        perm = sorted(builtins_range(len(axes)), key=lambda i: axes[i])  # argsort(axis)
        wt = _view(w, tuple(w.shape[i] for i in perm), tuple(w.strides[i] for i in perm))
        w, _ = _reshape(wt, tuple(s if ax in axes else 1 for ax, s in enumerate(m.shape)))
    return w


_BAD_WEIGHTS = "Weights included NaN, inf or were all zero."


def check_weight_totals(weights: Any, a: Any, m: Any, axis: Any, nan_skipping: bool) -> None:
    """NumPy's ``_quantile`` divides the weights' cumulative sum by its last value and raises
    ValueError when that gives NaN: a total over the reduced axes that is zero, NaN or
    infinite (numpy/lib/_function_base_impl.py). Checked where the weights' values are known
    (faketensor/_known.py); unknown weights cannot raise it (docs/guide/known-values.md).
    ``nan_skipping`` (nanquantile): the weights of NaN elements are dropped, and a slice that
    is all NaN gives NaN without the check, so a's values decide: known, they are used;
    unknown, a total that would raise is a DataDependentError."""
    if weights is None or m.size == 0:
        return
    vals = known_values(weights)
    if vals is None or (not is_fake(weights) and vals.size > _Q_SMALL):
        return  # a larger real array is taken as a fake's, as the non-negativity check
    axes = None if axis is None else normalize_axes(axis, m.ndim, None)
    with np.errstate(all="ignore"):
        v = vals.astype(np.float64)
        if v.shape != tuple(m.shape) and axes is not None:  # weights of the reduced axes
            v = v.transpose(sorted(builtins_range(len(axes)), key=lambda i: axes[i]))
            v = np.broadcast_to(np.expand_dims(v, tuple(i for i in builtins_range(m.ndim)
                                                        if i not in axes)), m.shape)
        if nan_skipping:
            av = known_values(a)
            if av is None:
                if _bad_totals(v.sum(axis=axes)):
                    raise DataDependentError(
                        "nanquantile weights: whether they raise depends on where the values "
                        "are NaN (their weights are dropped; a slice all NaN gives NaN)")
                return
            nan = np.isnan(av)
            v = np.where(nan, 0.0, v)
            bad = _bad_totals(v.sum(axis=axes), ~nan.all(axis=axes))
        else:
            bad = _bad_totals(v.sum(axis=axes))
    if bad:
        raise ValueError(_BAD_WEIGHTS)


def _bad_totals(total: Any, checked: Any = True) -> bool:
    """Whether a total NumPy divides by gives NaN (zero, NaN or infinite) where checked."""
    return bool(np.any(((total == 0) | ~np.isfinite(total)) & checked))


def _standin(shape: tuple, dt: np.dtype) -> np.ndarray:
    """Zeros of ``dt`` with at most one element per axis (empty axes stay empty)."""
    return np.zeros(tuple(min(d, 1) for d in shape), dt)


def quantile_func(m: Any, axis: Any, out: Any, q: Any, weights: Any, overwrite_input: Any,
                   method: Any, weak_q: bool, name: str, q_held: int = 0) -> Any:
    """_quantile_ureduce_func and _quantile: a C copy of a (a.flatten() for axis None, a
    itself with overwrite_input), partitioned (or argsorted for weights), read at the
    quantiles' indices: a fresh C array of shape q.shape + the kept axes."""
    fb = _fb()
    if q.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    if axis is None:
        arr = c_fresh((m.size,), m.dtype)
        copied = not (overwrite_input and m.flags.c_contiguous)
        ax = 0
    else:
        arr = m if overwrite_input else c_fresh(m.shape, m.dtype)
        copied = not overwrite_input
        ax = normalize_axis(axis, m.ndim)
    n = arr.shape[ax]
    rest = arr.shape[:ax] + arr.shape[ax + 1:]
    if weights is None and method not in fb._QuantileMethods:
        raise ValueError(f"{method!r} is not a valid method. Use one of: "
                         f"{fb._QuantileMethods.keys()}")
    if overwrite_input and weights is None and (axis is not None or m.flags.c_contiguous):
        # _quantile's arr.partition (a itself, or a.ravel()) comes before its index and
        # _lerp errors (an empty axis, bool subtraction)
        check_writeable(m, "partition array")
    # dtypes (and NumPy's dtype errors) from NumPy's own _quantile on a stand-in
    sa = _standin((n,) + rest, arr.dtype)
    sq = q if isinstance(q, np.ndarray) else _standin(q.shape, q.dtype)
    sq = sq if sq.ndim == 0 else _standin(sq.shape, sq.dtype)  # dtypes only: one element
    sw = None if weights is None else np.ones(sa.shape, as_meta(weights).dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        since_24 = {"weak_q": weak_q} if QUANTILE_WEAK_Q else {}
        r = fb._quantile(sa, quantiles=sq, axis=0, method=method, out=None, weights=sw,
                         **since_24)
    dt = np.dtype(object) if arr.dtype.kind == "O" else r.dtype
    shape = tuple(q.shape) + rest
    if dt.kind == "O" and not shape:
        raise DataDependentError(f"{name} of an object array to a 0-d result is a Python object "
                                 "whose type depends on the values")
    _quantile_steps(arr, ax, shape, dt, q, weights, method, weak_q, copied, out, q_held)
    if weights is not None:
        moved = _moveaxis(arr, ax, 0)
        from .sorting import argsort as _argsort
        from .indexing import take_along_axis as _tala
        from ..registry import quiet
        with quiet():
            idx = _argsort(moved, axis=0)
            srt = _tala(moved, idx, axis=0)
        if out is not None:
            if tuple(out.shape) != shape:
                raise ValueError(f"Wrong shape of argument 'out', shape={shape} is required; "
                                 f"got shape={tuple(out.shape)}.")
            check_writeable(out)
            return out
        if len(shape) == srt.ndim:  # empty_like(arr, shape=...): arr's order (K)
            return ArrayMeta(shape, dt, like_strides(shape, srt.strides, dt.itemsize,
                                                     srt.flags.c_contiguous, srt.flags.f_contiguous))
        return c_fresh(shape, dt)
    if out is not None:
        res = ArrayMeta(shape, arr.dtype, c_strides(shape, arr.dtype.itemsize))
        if dt == arr.dtype and _discrete(method, sq, n):
            from .indexing import take_meta
            return take_meta(_moveaxis(arr, ax, 0), ArrayMeta(tuple(q.shape), _INTP,
                                                          c_strides(tuple(q.shape), 8)),
                         0, out, "clip")
        pdt = _prod_dtype(arr.dtype, sq, n, method, weak_q)
        pm = ArrayMeta(shape, pdt, c_strides(shape, pdt.itemsize))
        return ufunc_call(np.add, res, pm, out=out)
    if not shape:
        return ArrayMeta((), dt, (), scalar=True)
    if (not copied and len(rest) > 1 and math.prod(rest) > 1
            and not _discrete(method, sq, n)):
        # overwrite_input: _lerp adds ``arr[previous_indexes]``, whose kept axes keep the
        # memory order of the input's (advanced indexing allocates its subspace in the
        # source's stride order, mapping.c), the quantiles' axes outermost
        sub = strides_in_order(rest, dt.itemsize, sorted_stride_perm(
            arr.strides[:ax] + arr.strides[ax + 1:])[::-1])
        fancy = c_strides(tuple(q.shape), dt.itemsize * math.prod(rest)) + sub
        _, f = contiguity(shape, fancy, dt.itemsize)
        return ArrayMeta(shape, dt, iterator_out_strides(shape, dt.itemsize,
                                                         [(shape, fancy, f)]))
    return c_fresh(shape, dt)


def _discrete(method: str, sq: Any, n: int) -> bool:
    """_quantile's take branch: methods without gamma, or linear on integer indices."""
    props = _fb()._QuantileMethods[method]
    if props["fix_gamma"] is None:
        return True
    vi = np.asanyarray(props["get_virtual_index"](max(n, 1), sq))
    return method == "linear" and np.issubdtype(vi.dtype, np.integer)


def _gamma(sq: Any, n: int, method: str, weak_q: bool) -> Any:
    """_lerp's ``t`` on the stand-in q: a Python float (weak_q) or an array of gamma's dtype."""
    fb = _fb()
    props = fb._QuantileMethods[method]
    vi = np.asanyarray(props["get_virtual_index"](max(n, 1), sq))
    prev, _ = fb._get_indexes(np.zeros(1), vi, max(n, 1))
    g = fb._get_gamma(vi, prev, props)
    return float(g) if weak_q else g


def _kth_count(q: Any, dt: np.dtype, n: int, method: str) -> int:
    """How many distinct partition indices _quantile's lerp branch asks for: computed from a
    real q (the indexes depend on q and the axis length only); for a fake q, the most."""
    if not isinstance(q, np.ndarray):
        return 2 + 2 * math.prod(q.shape)
    fb = _fb()
    vi = np.asanyarray(fb._QuantileMethods[method]["get_virtual_index"](n, q))
    with np.errstate(all="ignore"):
        prev, nxt = fb._get_indexes(np.zeros(1, dt), vi, n)
    return len(np.unique(np.concatenate(([0, -1], prev.ravel(), nxt.ravel()))))


def _prod_dtype(dt: np.dtype, sq: Any, n: int, method: str, weak_q: bool) -> np.dtype:
    """The dtype of _lerp's ``diff_b_a * t``."""
    if dt.kind == "O":
        return dt
    d = np.zeros((), dt)
    return np.asarray((d - d) * _gamma(sq, n, method, weak_q)).dtype


def _quantile_steps(arr: Any, ax: int, shape: tuple, dt: np.dtype, q: Any, weights: Any,
                    method: str, weak_q: bool, copied: bool, out: Any, q_held: int = 0) -> None:
    """The input-sized buffers of _quantile, in order: the copy of a, partition's lane
    buffer, NaN check of the last row, then (take) the result, or (lerp) ``previous`` and
    ``next`` (arr[indices]), ``b - a``, ``diff * t``, the result and the second
    ``diff * (1 - t)``. The small arrays of q's size are not counted."""
    steps = Steps()
    qb = steps.new(q_held)
    copy = steps.new(array_bytes(arr.shape, arr.dtype) if copied else 0)
    rest = arr.shape[:ax] + arr.shape[ax + 1:]
    nans = arr.dtype.kind in "fcmM"
    if weights is not None:
        # argsort (its lane buffers), take_along_axis of arr and of the weights, the float64
        # cumsum and, for a float q, its astype copy; the result; all live until the return
        moved = _moveaxis(arr, ax, 0)
        from .sorting import sort_buffer_bytes
        idx = steps.new(array_bytes(arr.shape, _INTP))
        steps.temp(sort_buffer_bytes(moved, 0, True))
        srt = steps.new(array_bytes(arr.shape, arr.dtype))
        w = steps.new(array_bytes(arr.shape, as_meta(weights).dtype))
        nanmask = steps.new(array_bytes(rest, BOOL) if nans else 0)
        cdf = steps.new(array_bytes(arr.shape, _F8))
        if q.dtype.kind == "f":
            cdf2 = steps.new(array_bytes(arr.shape, q.dtype))
            steps.free(cdf)
            cdf = cdf2
        steps.new(0 if out is not None else array_bytes(shape, dt))
        steps.free(qb, idx, copy, srt, w, cdf, nanmask)
        steps.done()
        return
    moved = _moveaxis(arr, ax, 0)
    sq = q if isinstance(q, np.ndarray) else _standin(q.shape, q.dtype)
    if _discrete(method, sq, arr.shape[ax]):
        # virtual_indexes; ``partition(concatenate((vi.ravel(), [-1])))`` (without the -1
        # for types without NaN): the kth array, then partition's own buffers
        qn = math.prod(q.shape)
        vdt = np.asanyarray(_fb()._QuantileMethods[method]["get_virtual_index"](
            max(arr.shape[ax], 1), sq)).dtype
        vi = steps.new(array_bytes(tuple(q.shape), vdt))
        kth = steps.new(8 * (qn + 1) if nans else 0)
        # an intp kth array is used as is; PyArray_Partition sorts a copy of it
        steps.temp(partition_bytes(moved.shape, moved.strides, moved.dtype, 0, 0)
                   + 8 * (qn + nans))
        steps.free(kth)
        # isnan(arr[-1, ...]), or np.array(False) for types without NaN
        nanmask = steps.new(array_bytes(rest, BOOL) if nans else 1)
        res = steps.new(0 if out is not None else array_bytes(shape, dt))
        # take's index conversion makes nothing for intp indices, only the C copy of arr
        steps.temp(take_bytes(moved.shape, moved.strides, moved.dtype, 0 if vdt == _INTP else qn))
        if not shape and out is None:  # take's 0-d result becomes a NumPy scalar
            steps.free(res)
            steps.keep(res)
        steps.free(qb, vi, copy, nanmask)
        steps.done()
        return
    qs = tuple(q.shape)
    qn = math.prod(qs)
    n = arr.shape[ax]
    vdt = np.asanyarray(_fb()._QuantileMethods[method]["get_virtual_index"](max(n, 1), sq)).dtype
    # virtual_indexes, previous_indexes and next_indexes (intp)
    small = [steps.new(array_bytes(qs, vdt)), steps.new(2 * array_bytes(qs, _INTP))]
    # kth = unique(concatenate(([0, -1], previous.ravel(), next.ravel()))): the concatenation,
    # unique's flattened copy and its k distinct values; partition sorts a copy of them
    k = _kth_count(q, arr.dtype, n, method)
    cat = steps.new(8 * (2 + 2 * qn))
    steps.temp(8 * (2 + 2 * qn) + 8 * k)
    steps.free(cat)
    kth = steps.new(8 * k)
    steps.temp(partition_bytes(moved.shape, moved.strides, moved.dtype, 0, 0) + 8 * k)
    steps.free(kth)
    nanmask = steps.new(array_bytes(rest, BOOL) if nans else 0)
    small.append(steps.new(0 if weak_q else array_bytes(qs, vdt)))  # gamma
    if not shape:  # 0-d indices: previous, next and their products are NumPy scalars
        steps.new(0 if out is not None else array_bytes(shape, dt))
        steps.free(*small)
        diff = prev = nxt = 0
    else:
        part = array_bytes(shape, arr.dtype)
        prev, nxt = steps.new(part), steps.new(part)
        diff = steps.new(part)
        pdt = _prod_dtype(arr.dtype, sq, n, method, weak_q)
        pm = ArrayMeta(shape, arr.dtype, c_strides(shape, arr.dtype.itemsize))
        prodm = ArrayMeta(shape, pdt, c_strides(shape, pdt.itemsize))
        tshape = qs + (1,) * len(rest)
        t = 0.5 if weak_q else ArrayMeta(tshape, vdt, c_strides(tshape, vdt.itemsize))
        prod = array_bytes(shape, pdt)
        resm = ArrayMeta(shape, dt, c_strides(shape, dt.itemsize))
        tmp = steps.new(prod + ufunc_bytes(np.multiply, pm, t))  # diff_b_a * t
        steps.free(tmp - prod)
        steps.new(0 if out is not None else array_bytes(shape, dt))
        steps.temp(ufunc_bytes(np.add, pm, prodm, out=out if out is not None else None))
        steps.free(prod)
        one_minus_t = 0 if weak_q else steps.new(array_bytes(qs, vdt))  # ``1 - t``
        tmp = steps.new(prod + ufunc_bytes(np.multiply, pm, 0.5 if weak_q else t))
        steps.free(tmp - prod, one_minus_t)
        where = steps.new(0 if weak_q else array_bytes(qs, BOOL))  # ``t >= 0.5``
        steps.temp(ufunc_bytes(np.subtract, pm, prodm, out=out if out is not None else resm,
                               casting="unsafe"))
        steps.free(prod, where, *small)
    steps.free(qb, diff, prev, nxt, copy, nanmask)
    if not shape and out is None:  # lerp[()]: the 0-d array becomes a NumPy scalar
        steps.free(array_bytes(shape, dt))
        steps.keep(array_bytes(shape, dt))
    steps.done()


def _quantile_entry(a: Any, q: Any, axis: Any, out: Any, overwrite_input: Any, method: Any,
                    keepdims: Any, weights: Any, percent: bool, name: str) -> Any:
    m, qv, weak, w = quantile_args(a, q, axis, method, weights, percent)
    check_weight_totals(weights, a, m, axis, False)
    res = ureduce(m, quantile_func, keepdims, axis, out, name, q=qv, weights=w,
                   overwrite_input=overwrite_input, method=method, weak_q=weak, name=name,
                   q_held=q_held(q, qv, percent))
    transient(asarray_bytes(a))  # ``a = np.asanyarray(a)`` of a sequence, alive to the end
    return res


def q_held(q: Any, qv: Any, percent: bool) -> int:
    """The q array _quantile holds: percentile's ``true_divide(q, 100)``, quantile's
    ``asanyarray(q)`` (nothing new for an array)."""
    if percent or not (is_meta(q) or isinstance(q, np.ndarray)):
        return array_bytes(tuple(qv.shape), qv.dtype)
    return 0


@register(np.quantile, tags=("reduction",))
def quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Any:
    """np.quantile: ureduce over _quantile (every method; weights with inverted_cdf)."""
    return _quantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights, False,
                           "np.quantile")


@register(np.percentile, tags=("reduction",))
def percentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Any:
    """np.percentile: quantile of q / 100."""
    return _quantile_entry(a, q, axis, out, overwrite_input, method, keepdims, weights, True,
                           "np.percentile")


quantile.keep_real = frozenset({1, "q", "weights"})
percentile.keep_real = frozenset({1, "q", "weights"})


# --- angle, sinc, i0 -------------------------------------------------------------------------

@register(np.angle, tags=("ufunc",))
def angle(z: Any, deg: bool = False) -> Any:
    """np.angle: arctan2(z.imag, z.real) (arctan2(0, z) for real z), times 180/pi in place
    (numpy/lib/_function_base_impl.py); each ufunc's 0-d operands are replayed in order."""
    from .umath import ufunc_steps
    m = as_meta(z)
    st = Steps()
    if m.dtype.kind == "c":
        a = ufunc_steps(st, np.arctan2, complex_part(m), complex_part(m))[0]
    else:
        a = ufunc_steps(st, np.arctan2, 0, m)[0]
    a = chainable(a) if is_meta(a) else scalar_result(ArrayMeta((), np.dtype(type(a)), ()))
    if deg:
        ufunc_steps(st, np.multiply, a, 180 / np.pi, out=a)
    st.done()
    return scalar_result(a)


@register(np.sinc, tags=("ufunc",))
def sinc(x: Any) -> Any:
    """np.sinc: y = where(pi*x, pi*x, eps); sin(y) / y."""
    m = as_meta(x)
    px = chained_ufunc(np.multiply, np.pi, m)
    if px.dtype.kind == "f":
        eps = np.finfo(px.dtype).eps
    else:
        eps = 1e-20
    from .misc import where_operand_bytes, where_meta
    y = chainable(where_meta(px, px, eps))
    # _function_base_impl.py sinc: x = pi * x and y = where(x, x, eps) are named (alive to
    # the return); sin(y) / y reuses sin's temporary when NumPy's elision applies
    steps = Steps()
    if not m.shape:
        # 0-d: ``pi * x`` is a NumPy scalar (its 0-d result freed); where() makes a 0-d array
        # of each scalar (the condition's also cast to bool) and returns a 0-d array; sin(y)
        # is a scalar again (its 0-d result freed), divided by the 0-d y into a scalar
        isz = y.dtype.itemsize
        steps.temp(ufunc_bytes(np.multiply, np.pi, Val((), m.dtype)) + isz)
        ops = steps.new(isz + (isz if y.dtype != BOOL else 0) + 1 + where_operand_bytes(eps, y.dtype))
        yb = steps.new(isz)
        steps.free(ops)
        steps.temp(isz)
        steps.temp(ufunc_bytes(np.true_divide, y.dtype.type(1), Val((), y.dtype)) + isz)
        steps.free(yb)
        steps.done()
        return ufunc_call(np.true_divide, chained_ufunc(np.sin, y), y)
    xs = binary(steps, np.multiply, np.pi, Val(m.shape, m.dtype), True)
    xs.temp = False
    ys = Val(y.shape, y.dtype)
    eb = steps.new(where_operand_bytes(eps, y.dtype))  # alive while where() makes y
    steps.new(ys.nbytes)
    steps.free(eb)
    binary(steps, np.true_divide, call(steps, np.sin, ys), ys)  # the result stays alive
    steps.free(xs.nbytes, ys.nbytes)
    steps.done()
    return ufunc_call(np.true_divide, chained_ufunc(np.sin, y), y)


@register(np.i0, tags=("ufunc",))
def i0(x: Any) -> Any:
    """np.i0: piecewise(abs(x as float), ...) -> zeros_like(abs(x)), a K-order array."""
    m = as_meta(x)
    if m.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    if m.dtype.kind not in "biuf":
        raise UnsupportedOperationError("np.i0", f"dtype {m.dtype}")
    cast = m.dtype.kind != "f"
    if cast:
        m = like_copy(m, _F8)
    ax = chained_ufunc(np.absolute, m)
    if m.size:  # as np.piecewise: each piece evaluates x[cond], whose size the values decide
        unmodelled("piecewise evaluates each branch on the elements that take it")
    else:
        _i0_empty_steps(cast)
    return final_result(like_copy(ax))


def _i0_empty_steps(cast: bool) -> None:
    """_function_base_impl.py i0 of an empty array (every buffer 1 byte, no piece called):
    an integer input's float copy (dropped once abs makes x), ``x <= 8.0`` (the float's 0-d
    array), piecewise's ``asarray(condlist, bool)`` and its "otherwise" condition, then
    ``zeros_like(x)`` (the result; its copyto's 0-d array of the 0). Measured on numpy 2.4."""
    st = Steps()
    copy = st.new(1) if cast else 0
    x = st.new(1)
    st.free(copy)
    st.temp(8)
    held = [x, st.new(1), st.new(1), st.new(1)]
    st.new(1)  # y, the result
    st.temp(8)
    st.free(*held)
    st.done()


# --- diff, trapezoid -------------------------------------------------------------------------

def _diff(m: Any, n: int, ax: int) -> Any:
    op = np.not_equal if m.dtype == BOOL else np.subtract
    for _ in range(n):
        k = max(m.shape[ax] - 1, 0)
        m = chained_ufunc(op, along(m, ax, k), along(m, ax, k))
    return m


def _bcast_end(e: Any, m: Any, ax: int) -> Any:
    e = as_meta(e)
    if e.ndim == 0:
        shape = m.shape[:ax] + (1,) + m.shape[ax + 1:]
        return ArrayMeta(tuple(shape), e.dtype, (0,) * len(shape))
    return e


@register(np.diff, tags=("copy",), flops=flops.diff)
def diff(a: Any, n: Any = 1, axis: Any = -1, prepend: Any = _NoValue,
         append: Any = _NoValue) -> Any:
    """np.diff: op(a[1:], a[:-1]) n times along the axis (after concatenating the ends)."""
    if n == 0:
        return as_meta(a)
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    m = as_meta(a)
    if m.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = normalize_axis(axis, m.ndim)
    parts = []
    if prepend is not _NoValue:
        parts.append(_bcast_end(prepend, m, ax))
    parts.append(m)
    if append is not _NoValue:
        parts.append(_bcast_end(append, m, ax))
    # _function_base_impl.py diff: the ends as arrays (alive to the return), their
    # concatenation with a, then n differences, each made while the previous one lives
    steps = Steps()
    ends = steps.new(sum(asarray_bytes(e) for e in (prepend, append) if e is not _NoValue))
    cur = Val(m.shape, m.dtype)
    if len(parts) > 1:
        from .shape_base import concatenate
        m = chainable(concatenate(parts, ax))
        cur = Val(m.shape, m.dtype, True)
        steps.new(cur.nbytes)
    n = operator.index(n)
    op = np.not_equal if m.dtype == BOOL else np.subtract
    for _ in range(n):
        part = Val(cur.shape[:ax] + (max(cur.shape[ax] - 1, 0),) + cur.shape[ax + 1:], cur.dtype)
        nxt = call(steps, op, part, part)
        used(steps, cur)
        cur = nxt
    steps.free(ends)
    steps.done()
    return final_result(_diff(m, n, ax))


@register(np.trapezoid, tags=("reduction",), flops=flops.per_input(4))
def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: Any = -1) -> Any:
    """np.trapezoid: (d * (y[1:] + y[:-1]) / 2.0).sum(axis) along the axis."""
    from .reductions import sum_
    m = as_meta(y)
    nd = m.ndim
    if x is None:
        d = dx if type(dx) in (int, float, complex) else as_meta(dx)
    else:
        xm = as_meta(x)
        if xm.ndim == 1:
            d = _diff(xm, 1, 0)
            shape = [1] * nd
            shape[axis] = d.shape[0]
            if d.size != int(np.prod(shape)):
                raise ValueError(f"cannot reshape array of size {d.size} into shape {tuple(shape)}")
            d, _ = _reshape(d, tuple(shape))
        else:
            if xm.ndim == 0:
                raise ValueError("diff requires input that is at least one dimensional")
            ax2 = normalize_axis(axis, xm.ndim)
            d = _diff(xm, 1, ax2)
    sl = [m.shape[i] for i in range(nd)]
    sl[axis] = None  # an IndexError / TypeError for a bad axis, as NumPy's slice list
    ax = axis + nd if axis < 0 else axis
    k = max(m.shape[ax] - 1, 0)
    s = chained_ufunc(np.add, along(m, ax, k), along(m, ax, k))
    s = chained_ufunc(np.true_divide, chained_ufunc(np.multiply, d, s), 2.0)
    res = sum_(s, axis)
    if type(d) in (int, float, complex) or x is not None:
        _trapezoid_steps(m, ax, k, d if x is None else Val(d.shape, d.dtype), res)
    return res


def _trapezoid_steps(m: Any, ax: int, k: int, d: Any, res: Any) -> None:
    """_function_base_impl.py trapezoid: d = diff(x) (alive to the return), then
    ``(d * (y[1:] + y[:-1]) / 2.0).sum(axis)`` with NumPy's temporary elision."""
    steps = Steps()
    held = steps.new(d.nbytes) if isinstance(d, Val) else 0
    if held:
        d.temp = False
    part = Val(m.shape[:ax] + (k,) + m.shape[ax + 1:], m.dtype)
    s = binary(steps, np.true_divide,
               binary(steps, np.multiply, d, binary(steps, np.add, part, part, True), True), 2.0)
    steps.new(array_bytes(res.shape, res.dtype))
    used(steps, s)
    if not res.shape:  # a NumPy scalar: its 0-d array dies; the fake's lives
        steps.free(array_bytes((), res.dtype))
        steps.keep(array_bytes((), res.dtype))
    steps.free(held)
    steps.done()


# --- digitize --------------------------------------------------------------------------------

@register(np.digitize, tags=("copy",))
def digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """np.digitize: searchsorted(bins, x) (len(bins) - that for decreasing bins): same layout."""
    from .sorting import searchsorted
    xm, bm = as_meta(x), as_meta(bins)
    if xm.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bm.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if bm.ndim > 1:
        raise ValueError("object too deep for desired array")
    if bm.dtype.kind not in "biuf" or xm.dtype.kind not in "biuf":
        raise UnsupportedOperationError("np.digitize", f"dtypes {xm.dtype}, {bm.dtype}")
    return _digitize_steps(x, bins, xm, bm, "left" if right else "right")


def _digitize_steps(x: Any, bins: Any, xm: Any, bm: Any, side: str) -> ArrayMeta:
    """_function_base_impl.py digitize: ``asarray`` of x and bins (alive to the end), then
    ``searchsorted(bins, x)`` (its cast copies, kernels/misc.py), or for decreasing bins
    ``len(bins) - searchsorted(bins[::-1], x)``. Known gap: the direction of fake bins is a
    value; they are taken to increase (decreasing ones allocate one more result)."""
    from .sorting import searchsorted
    from .umath import ufunc_steps
    st = Steps()
    held = st.new(asarray_bytes(x) + asarray_bytes(bins))
    xs, bs = (m if is_fake(m) else ArrayMeta(m.shape, m.dtype, m.strides) for m in (xm, bm))
    decreasing = not is_fake(bins) and bm.size > 1 and np.asarray(bins)[0] > np.asarray(bins)[-1]
    if decreasing:
        bs = ArrayMeta(bs.shape, bs.dtype, tuple(-s for s in bs.strides))
    with captured() as cap:
        res = searchsorted(bs, xs, side=side)
    if not res.shape:  # a 0-d x: searchsorted returns a NumPy scalar (its 0-d array, in
        st.temp(cap.transient)  # its transient bytes); ``len(bins) - scalar`` is scalar math
        st.free(held)
        st.done()
        return ArrayMeta((), _INTP, (), scalar=True)
    res_b = st.new(array_bytes(res.shape, res.dtype))
    st.temp(cap.transient)
    if decreasing:
        res = ufunc_steps(st, np.subtract, bm.shape[0], ArrayMeta(res.shape, res.dtype, res.strides))[0]
        st.free(res_b)
        res = ArrayMeta(res.shape, res.dtype, res.strides)
    st.free(held)
    st.done()
    return res


# --- interp ----------------------------------------------------------------------------------

@register(np.interp, tags=("copy",), flops=flops.interp)
def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> ArrayMeta:
    """np.interp: a fresh C f8 (c16 for complex fp) array of x's shape (a scalar for 0-d x)."""
    xm, xpm, fpm = as_meta(x), as_meta(xp), as_meta(fp)
    cplx = fpm.dtype.kind == "c"
    dt = np.dtype(np.complex128 if cplx else np.float64)
    if period is not None:
        if hasattr(period, "storage_offset"):
            raise DataDependentError("np.interp: a fake period")
        if period == 0:
            raise ValueError("period must be a non-zero value")
        left = right = None
        cast_loop(xm.dtype, _F8)  # x = asarray(x, dtype=float64), xp likewise
        cast_loop(xpm.dtype, _F8)
        for m in (xm, xpm):
            if m.dtype.kind not in "biufc":
                raise UnsupportedOperationError("np.interp", f"dtype {m.dtype}")
        if xpm.ndim != 1 or fpm.ndim != 1:
            raise ValueError("Data points must be 1D sequences")
        if xpm.shape[0] != fpm.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        _interp_period_steps(x, xp, fp, xm, xpm, fpm, dt)
        n = xpm.shape[0] + 2
        xm, xpm, fpm = c_fresh(xm.shape, _F8), c_fresh((n,), _F8), c_fresh((n,), dt)
    for m, to in ((fpm, dt), (xpm, _F8), (xm, _F8)):
        if m is not xm and m.ndim == 0:
            raise ValueError("object of too small depth for desired array")
        if m is not xm and m.ndim > 1:
            raise ValueError("object too deep for desired array")
        if not np.can_cast(m.dtype, to, "safe"):
            raise TypeError(f"Cannot cast array data from {m.dtype!r} to {to!r} according "
                            "to the rule 'safe'")
    if xpm.shape[0] == 0 and xm.size != 0:
        raise ValueError("array of sample points is empty")
    if fpm.shape[0] != xpm.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    for v in (left, right):
        if v is not None and not cplx and isinstance(v, complex):
            raise TypeError("must be real number, not complex")
    if period is None:
        # _function_base_impl.py interp: fp = np.asarray(fp); compiled_base.c arr_interp:
        # fp, xp and x as contiguous float64 (complex128 fp), alive with the result (the
        # slopes table is PyArray_malloc'd, off the data allocator)
        transient(asarray_bytes(fp) + _as_contiguous_bytes(np.asarray(fp) if not is_meta(fp) else fp, dt)
                  + _as_contiguous_bytes(xp, _F8) + _as_contiguous_bytes(x, _F8))
    # arr_interp ends in PyArray_Return: a 0-d x gives a NumPy scalar
    return pyarray_return(ArrayMeta(xm.shape, dt, c_strides(xm.shape, dt.itemsize)))


def _interp_period_steps(x: Any, xp: Any, fp: Any, xm: Any, xpm: Any, fpm: Any,
                         dt: np.dtype) -> None:
    """_function_base_impl.py interp with ``period``: fp, x, xp as arrays of their dtypes
    (copies where they differ), ``x % period`` and ``xp % period`` (the Python period a 0-d
    double while each runs), ``argsort(xp)`` (alive to the return), xp and fp gathered by
    it, each closed with one element from either end (two 1-element arrays and their 0-d
    period) by ``concatenate``, then compiled_base.c arr_interp's result (its inputs are
    contiguous of their dtypes already; the slopes table is PyArray_malloc'd)."""
    st = Steps()
    fa = st.new(asarray_bytes(fp))  # fp = np.asarray(fp)
    n = xpm.shape[0]
    cx = st.new(array_bytes(xm.shape, _F8) if not is_meta(x) or xm.dtype != _F8 else 0)
    cxp = st.new(array_bytes((n,), _F8) if not is_meta(xp) or xpm.dtype != _F8 else 0)
    cfp = st.new(array_bytes((n,), dt) if fpm.dtype != dt else 0)
    xmod = st.new(array_bytes(xm.shape, _F8))
    st.temp(8)
    st.free(cx)
    if not xm.shape:  # a 0-d x % period is a NumPy scalar: arr_interp converts it again
        st.free(xmod)
        xmod = 0
    xpmod = st.new(array_bytes((n,), _F8))
    st.temp(8)
    st.free(cxp)
    order = st.new(array_bytes((n,), _INTP))
    from .sorting import sort_buffer_bytes
    st.temp(sort_buffer_bytes(c_fresh((n,), _F8), 0, True))
    xs = st.new(array_bytes((n,), _F8))
    st.free(xpmod)
    fs = st.new(array_bytes((n,), dt))
    st.free(cfp, fa)
    lo = st.new(array_bytes((1,), _F8) + 8)  # xp[-1:] - period, its 0-d period freed below
    st.free(8)
    hi = st.new(array_bytes((1,), _F8) + 8)
    st.free(8)
    xc = st.new(array_bytes((n + 2,), _F8))
    st.free(lo - 8, hi - 8, xs)
    fc = st.new(array_bytes((n + 2,), dt))
    st.free(fs)
    conv = st.new(0 if xm.shape else 8)
    st.new(array_bytes(xm.shape, dt))  # the result
    st.free(xmod, order, xc, fc, conv)
    st.done()


def _as_contiguous_bytes(x: Any, dtype: np.dtype) -> int:
    """Bytes ``PyArray_ContiguousFromAny(x, dtype)`` allocates: none for a C-contiguous,
    aligned and writeable array of that dtype (NPY_ARRAY_DEFAULT), else a converted copy
    (scalars and lists convert straight to dtype; a read-only or unaligned array is copied)."""
    if not is_meta(x):
        return array_bytes(np.shape(x), dtype)
    return carray_bytes(x, dtype)


# --- average -------------------------------------------------------------------------------------

def _weights_meta(w: Any, m: Any, axes: tuple | None) -> Any:
    """_weights_are_valid: weights as is, or transposed and reshaped to broadcast against a."""
    if w.shape == m.shape:
        return w
    if axes is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    if w.shape != tuple(m.shape[ax] for ax in axes):
        raise ValueError("Shape of weights must be consistent with "
                         "shape of a along specified axis.")
    perm = [int(i) for i in np.argsort(axes)]
    t = ArrayMeta(tuple(w.shape[i] for i in perm), w.dtype, tuple(w.strides[i] for i in perm))
    return _reshape(t, tuple(s if ax in axes else 1 for ax, s in enumerate(m.shape)))[0]


def _average_steps(scl: Any, a: Any, w: Any, prod: Any, total: Any, avg: Any,
                   returned: bool) -> None:
    """np.average's weighted path (_function_base_impl.py ``average``): ``scl =
    wgt.sum(...)`` stays alive; ``np.any(scl == 0.0)`` makes the 0-d 0.0, the bool
    array and the 1-byte 0-d result; then ``np.multiply(a, wgt, dtype=...)`` and its
    ``.sum(axis)`` are alive together before the division. A full reduction's sums are
    NumPy scalars (their 0-d arrays freed at once). ``returned`` returns ``scl`` too, or
    with another shape than the average's its broadcast copy."""
    st = Steps()
    s = st.new(array_bytes(scl.shape, scl.dtype))
    if scl.shape:
        st.temp(array_bytes(scl.shape, BOOL) + ufunc_bytes(np.equal, scl, 0.0))
    else:
        st.free(s)
        s = 0
    cast = st.new(ufunc_bytes(np.multiply, a, w, out=prod))  # dtype=: operands cast
    p = st.new(array_bytes(prod.shape, prod.dtype))
    st.free(cast)
    t = st.new(array_bytes(total.shape, total.dtype))
    st.free(p)
    st.new(array_bytes(avg.shape, avg.dtype))
    st.free(t)
    if returned and scl.shape != avg.shape:
        st.new(array_bytes(avg.shape, scl.dtype))
    if not returned or scl.shape != avg.shape:
        st.free(s)
    if not avg.shape:  # the division's 0-d result is the NumPy scalar returned
        st.free(array_bytes((), avg.dtype))
    st.done()


@register(np.average, tags=("reduction",), flops=flops.average)
def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
            keepdims: Any = _NoValue) -> Any:
    """np.average: mean, or sum(a * w) / sum(w) in the promoted dtype; scl copied when
    ``returned`` and its shape differs (the weight-sum test for zero reads values)."""
    from .reductions import sum_
    m = as_meta(a)
    axes = None if axis is None else normalize_axes(axis, m.ndim, "axis")
    if m.dtype.kind not in "biufc":
        raise UnsupportedOperationError("np.average", f"dtype {m.dtype}")
    if weights is None:
        with captured() as cap:
            avg = mean_steps(m, axes, None, None, keepdims, _NoValue)
        if avg.size == 0:
            raise ZeroDivisionError("division by zero")
        # ``np.asanyarray(avg)`` (a 0-d array of a scalar mean), then ``scl =
        # avg_as_array.dtype.type(a.size / avg_as_array.size)`` made from a Python float;
        # after the mean's own temporaries (its 0-d sum: reported by final_result below)
        zero_d = avg.dtype.itemsize if avg.scalar else 0
        after = zero_d + scalar_ctor_bytes(avg.dtype)
        transient(max(cap.transient + zero_d, after) - zero_d)
        scl = c_fresh((), avg.dtype)
    else:
        w = _weights_meta(as_meta(weights), m, axes)
        if w.dtype.kind not in "biufc":
            raise UnsupportedOperationError("np.average", f"weights of dtype {w.dtype}")
        if m.dtype.kind in "bui":
            rdt = np.result_type(m.dtype, w.dtype, "f8")
        else:
            rdt = np.result_type(m.dtype, w.dtype)
        with quiet():  # _average_steps counts the bytes
            scl = chainable(sum_(w, axes, rdt, None, keepdims))
        cnt = 1
        for ax in (range(w.ndim) if axes is None else axes):
            cnt *= w.shape[ax]
        if cnt == 0 and scl.size:  # an empty sum is 0 whatever the values
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        with quiet():
            prod = chained_ufunc(np.multiply, m, w, dtype=rdt)
            total = chainable(sum_(prod, axes, None, None, keepdims))
            avg = chained_ufunc(np.true_divide, total, scl)
        _average_steps(scl, m, w, prod, total, avg, returned)
    if returned:
        if scl.shape != avg.shape:
            scl = c_fresh(avg.shape, scl.dtype)
        return scalar_result((final_result(avg), final_result(scl)))
    return scalar_result(final_result(avg))


# --- unwrap ----------------------------------------------------------------------------------

@register(np.unwrap, tags=("copy",))
def unwrap(p: Any, discont: Any = None, axis: Any = -1, *, period: Any = 2 * np.pi) -> ArrayMeta:
    """np.unwrap: ``np.array(p, copy=True, dtype=result_type(diff(p), period))``, K order,
    with the corrected slice assigned into it."""
    m = as_meta(p)
    if m.dtype.kind not in "biufc":
        raise UnsupportedOperationError("np.unwrap", f"dtype {m.dtype}")
    if m.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = normalize_axis(axis, m.ndim)
    dd = _diff(m, 1, ax)
    if hasattr(period, "storage_offset"):
        raise DataDependentError("np.unwrap: a fake period")
    dt = np.result_type(dd.dtype, period)
    if np.issubdtype(dt, np.integer):
        high = divmod(period, 2)[0]
    else:
        high = period / 2
    low = -high
    shifted = chained_ufunc(np.subtract, dd, low)  # the ufunc steps' errors (Python int range, complex)
    chained_ufunc(np.add, chained_ufunc(np.remainder, shifted, period), low)
    if type(period) in (int, float) and (discont is None or type(discont) in (int, float)) \
            and dd.dtype.kind in "fiub":
        _unwrap_steps(m, ax, dd, dt, low, high, period, period / 2 if discont is None else discont)
    return ArrayMeta(m.shape, dt, like_strides(m.shape, m.strides, dt.itemsize,
                                         m.flags.c_contiguous, m.flags.f_contiguous))


def _unwrap_steps(m: Any, ax: int, dd: Any, dt: np.dtype, low: Any, high: Any, period: Any,
                  discont: Any) -> None:
    """_function_base_impl.py unwrap: dd = diff(p); ddmod = mod(dd - low, period) + low;
    copyto(ddmod, high, where=(ddmod == low) & (dd > 0)) (float types); ph_correct =
    ddmod - dd; copyto(ph_correct, 0, where=abs(dd) < discont); up = array(p, copy=True,
    dtype); up[1:] = p[1:] + ph_correct.cumsum(axis). dd, ddmod and ph_correct are named."""
    steps = Steps()
    d = Val(dd.shape, dd.dtype)
    held = [steps.new(d.nbytes)]
    ddmod = binary(steps, np.add, call(steps, np.remainder, binary(steps, np.subtract, d, low),
                                       period), low, True)
    ddmod.temp = False
    held.append(ddmod.nbytes)
    if not np.issubdtype(dt, np.integer):
        cond = binary(steps, np.bitwise_and, binary(steps, np.equal, ddmod, low),
                      binary(steps, np.greater, d, 0), True)
        steps.temp(copyto_bytes(ddmod.dtype, high))
        used(steps, cond)
    fix = binary(steps, np.subtract, ddmod, d)
    fix.temp = False
    held.append(fix.nbytes)
    cond = binary(steps, np.less, unary(steps, np.absolute, d), discont)
    steps.temp(copyto_bytes(fix.dtype, 0))
    used(steps, cond)
    steps.new(array_bytes(m.shape, dt))
    part = Val(m.shape[:ax] + (max(m.shape[ax] - 1, 0),) + m.shape[ax + 1:], m.dtype)
    total = Val(fix.shape, fix.dtype if fix.dtype.kind == "f" else np.dtype(np.intp), True)
    steps.new(total.nbytes)
    used(steps, binary(steps, np.add, part, total, True))
    steps.free(*held)
    steps.done()


# --- cov, corrcoef -------------------------------------------------------------------------------
# Value checks skipped: integral / non-negative fweights, non-negative aweights, weights that
# sum to zero (except over zero observations), fact <= 0 (a warning).

def _weight(w: Any, n: int, which: str) -> ArrayMeta:
    wm = as_meta(w)
    if wm.dtype.kind not in "biuf":
        raise UnsupportedOperationError("np.cov", f"{which} of dtype {wm.dtype}")
    if wm.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {which}")
    if wm.ndim == 0:
        raise IndexError("tuple index out of range")
    if wm.shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {which}")
    return c_fresh(wm.shape, _F8)


def _cov(m: Any, y: Any, rowvar: Any, bias: Any, ddof: Any, fweights: Any, aweights: Any,
         dtype: Any, steps: Steps | None = None) -> tuple:
    """cov's steps: (final c meta, n variables); c is a fresh C (n, n) array. Its
    allocations are replayed on ``steps`` (weights: not yet)."""
    if ddof is not None:
        if hasattr(ddof, "storage_offset"):
            raise DataDependentError("np.cov: a fake ddof")
        if ddof != int(ddof):
            raise ValueError("ddof must be integer")
    mm = as_meta(m)
    if mm.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    ym = None
    if y is not None:
        ym = as_meta(y)
        if ym.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    for x in (mm, ym):
        if x is not None and x.dtype.kind not in "biufc":
            raise UnsupportedOperationError("np.cov", f"dtype {x.dtype}")
    if dtype is None:
        dtype = np.result_type(mm.dtype, *([ym.dtype] if ym is not None else []), _F8)
    dt = np.dtype(dtype)
    if dt.kind not in "biufc":
        raise UnsupportedOperationError("np.cov", f"dtype {dt}")
    cast_loop(mm.dtype, dt)  # X = array(m, ndmin=2, dtype=dtype)
    xs = (1,) * (2 - mm.ndim) + mm.shape
    if not rowvar and mm.ndim != 1:
        xs = xs[::-1]
    if xs[0] == 0:  # ``np.array([]).reshape(0, 0)`` made while X is alive
        if steps is not None:
            x = steps.new(array_bytes(xs, dt))
            steps.new(1)
            steps.free(x)
        return None, 0
    rows = xs[0]
    if ym is not None:
        cast_loop(ym.dtype, dt)  # y = array(y, ndmin=2, dtype=dtype)
        ys = (1,) * (2 - ym.ndim) + ym.shape
        if not rowvar and ys[0] != 1:
            ys = ys[::-1]
        if ys[1] != xs[1]:
            raise ValueError("all the input array dimensions except for the concatenation "
                             "axis must match exactly, but along dimension 1, the array at "
                             f"index 0 has size {xs[1]} and the array at index 1 has size "
                             f"{ys[1]}")
        rows += ys[0]
    X = c_fresh((rows, xs[1]), dt)
    w = None
    if fweights is not None:
        w = _weight(fweights, xs[1], "fweights")
    if aweights is not None:
        aw = _weight(aweights, xs[1], "aweights")
        w = aw if w is None else w
    if w is not None and xs[1] == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    adt = _F8 if w is None and dt.kind in "biu" else dt if w is None else \
        np.result_type(dt if dt.kind not in "biu" else _F8, w.dtype)
    if w is None:  # average(X, axis=1) is X.mean(axis=1); fact = X.shape[1] - ddof
        from .reductions import warn_few_items
        if xs[1] == 0:
            warn_few_items("Mean of empty slice")
        eff = (0 if bias else 1) if ddof is None else int(ddof)
        if xs[1] - eff <= 0:
            warn_few_items("Degrees of freedom <= 0 for slice")
    avg = c_fresh((rows, 1), adt)
    ufunc_call(np.subtract, X, avg, out=X)
    xt = X if w is None else chained_ufunc(np.multiply, X, w)
    cdt = np.result_type(X.dtype, xt.dtype)
    c = c_fresh((rows, rows), cdt)
    ufunc_call(np.multiply, c, np.float64(1.0), out=c)
    if steps is not None and w is None:
        held = tuple(0 if v is None or is_meta(v) else asarray_bytes(v) for v in (m, y))
        _cov_steps(steps, mm, ym, dt, X, adt, c, held)
    return c, rows


def _cov_steps(steps: Steps, mm: Any, ym: Any, dt: np.dtype, X: Any, adt: np.dtype, c: Any,
               held: tuple = (0, 0)) -> None:
    """_function_base_impl.py cov without weights: m = np.asarray(m) and y likewise (``held``:
    bytes of array-likes converted; m's alive to the end, y's until a dtype copy replaces it);
    X = array(m, ndmin=2, dtype) (a copy),
    y likewise (a copy only to change its dtype) concatenated to it; average(X, axis=1,
    returned=True): the mean, and the weight sum broadcast into a copy (dropped at once);
    c = dot(X, X_T.conj()) (conj copies a complex X); c *= true_divide(1, fact) (three 0-d arrays, then the float64
    scalar's 0-d array). X and the mean die at the return."""
    conv, yconv = steps.new(held[0]), steps.new(held[1])
    x = steps.new(array_bytes(mm.shape, dt))
    yc = 0
    if ym is not None:
        yc = steps.new(0 if ym.dtype == dt else array_bytes(ym.shape, dt))
        if yc:  # y = array(y, ..., dtype=dtype) rebinds y: its converted array dies
            steps.free(yconv)
            yconv = 0
        steps.new(array_bytes(X.shape, dt))
        steps.free(x)
        x = array_bytes(X.shape, dt)
    rows = X.shape[0]
    avg = steps.new(array_bytes((rows,), adt))
    steps.temp(divide_by_count_bytes((rows,), adt))
    steps.temp(array_bytes((rows,), adt))
    conj = steps.new(array_bytes(X.shape, dt) if dt.kind == "c" else 0)  # X_T.conj()
    steps.new(array_bytes(c.shape, c.dtype))
    steps.free(conj)
    steps.temp(24)
    steps.temp(ufunc_bytes(np.multiply, c, np.float64(1.0), out=c))
    steps.free(x, yc, avg, conv, yconv)


def _squeezed(c: Any, n: int) -> ArrayMeta:
    """c.squeeze(): c itself for n > 1, a 0-d view of it for n == 1; the empty case's
    ``np.array([]).reshape(0, 0)`` is a view of a 1-d f8 temporary."""
    if c is None:
        return ArrayMeta((0, 0), _F8, (8, 8), base_shape=(0,))
    if n == 1:
        return ArrayMeta((), c.dtype, (), base_shape=(1, 1))
    return final_result(c)


@register(np.cov, tags=("copy",), flops=flops.cov)
def cov(m: Any, y: Any = None, rowvar: Any = True, bias: Any = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> ArrayMeta:
    """np.cov: dot(X, X_T.conj()) scaled in place, squeezed (a fresh C (n, n) array)."""
    steps = Steps()
    c, n = _cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype, steps)
    steps.done()
    return _squeezed(c, n)


@register(np.corrcoef, tags=("copy",), flops=flops.corrcoef)
def corrcoef(x: Any, y: Any = None, rowvar: Any = True, *, dtype: Any = None) -> Any:
    """np.corrcoef: cov divided in place by its diagonal's sqrt (c / c for a 0-d cov)."""
    steps = Steps()
    c, n = _cov(x, y, rowvar, False, None, None, None, dtype, steps)
    if n == 1:  # ``c / c`` of cov's 0-d view: a NumPy scalar (its 0-d result freed); c dies
        z = ArrayMeta((), c.dtype, ())
        if c is not None and c.shape:
            steps.temp(c.dtype.itemsize)
            steps.free(array_bytes(c.shape, c.dtype))
            steps.done()
        return ufunc_call(np.true_divide, z, z)
    if c is None:  # the empty (0, 0) c: stddev (1 byte), then the clip's -1 and 1 as 0-d
        sd = steps.new(1)  # float64 arrays, the second's int64 0-d alive while it is re-made
        steps.temp(3 * 8)
        steps.free(sd)
        steps.done()
    if c is not None:  # stddev = sqrt(diag(c).real), then np.clip(c.real, -1, 1, out=c.real)
        part = complex_part(c) if c.dtype.kind == "c" else c
        sd = steps.new(array_bytes((n,), part.dtype))
        steps.temp(ufunc_bytes(_umath.clip, part, -1, 1, out=part))
        steps.free(sd)
        steps.done()
    return _squeezed(c, n)


# --- gradient -----------------------------------------------------------------------------------

def _spacing(d: Any, length: int) -> Any:
    """One of gradient's varargs: None for a scalar, else the 1-d spacing's dtype checked."""
    dm = as_meta(d)
    if dm.ndim == 0:
        return None
    if dm.ndim != 1:
        raise ValueError("distances must be either scalars or 1d")
    if dm.shape[0] != length:
        raise ValueError("when 1d, distances must match "
                         "the length of the corresponding dimension")
    if dm.dtype.kind not in "iuf":
        raise UnsupportedOperationError("np.gradient", f"distances of dtype {dm.dtype}")
    if length < 2:
        raise IndexError(f"index 0 is out of bounds for axis 0 with size {max(length - 1, 0)}")
    return dm


@register(np.gradient, tags=("copy",), flops=flops.gradient)
def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: Any = 1) -> Any:
    """np.gradient: one ``empty_like(f, dtype=otype)`` (K order) per axis, filled by slices."""
    m = as_meta(f)
    nd = m.ndim
    axes = normalize_axes(axis, nd)
    n = len(varargs)
    if n == 0:
        dx = [None] * len(axes)
    elif n == 1 and as_meta(varargs[0]).ndim == 0:
        dx = [None] * len(axes)
    elif n == len(axes):
        dx = [_spacing(d, m.shape[axes[i]]) for i, d in enumerate(varargs)]
    else:
        raise TypeError("invalid number of arguments")
    for d in varargs:
        if as_meta(d).dtype.kind not in "biuf":
            raise UnsupportedOperationError("np.gradient", "non-real distances")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if edge_order not in (1, 2):
        raise UnsupportedOperationError("np.gradient", f"edge_order={edge_order!r}")
    if m.dtype.kind not in "biufcmM":
        raise UnsupportedOperationError("np.gradient", f"dtype {m.dtype}")
    if m.dtype.kind == "M":  # f.view(otype): the timedelta of the unit, by name (native order)
        m = ArrayMeta(m.shape, np.dtype(m.dtype.name.replace("datetime", "timedelta")), m.strides)
    if m.dtype.kind in "iu":
        m = like_copy(m, _F8)
    otype = m.dtype if m.dtype.kind in "fcm" else _F8
    src = m if m.dtype.kind == "m" else as_meta(f)  # what the replay reads (a view is no copy)
    outs = []
    for ax, d in zip(axes, dx):
        if m.shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        if m.dtype == BOOL:
            if d is not None and edge_order == 2:
                raise UnsupportedOperationError("np.gradient", "bool f with array spacing")
            ufunc_call(np.subtract, m, m)
        outs.append(final_result(like_copy(m, otype)))
    modelled = False
    if all(d is None for d in dx):
        scalar = (varargs[0] if n else 1.0)
        if type(scalar) in (int, float) or isinstance(scalar, (np.integer, np.floating)):
            _gradient_steps(src, m.dtype, otype, axes, scalar, edge_order)
            modelled = True
    elif len(axes) == 1 and dx[0] is not None and is_meta(varargs[0]):
        _gradient_spacing_steps(src, m.dtype, otype, axes[0], dx[0], edge_order)
    if not modelled:
        # with one axis the figures are those of spacings that are not all equal
        unmodelled("np.gradient with array spacings (or a spacing that is not a number): "
                   "whether they are uniform, which sets its temporaries, depends on the values")
    if len(axes) == 1:
        return outs[0]
    return tuple(outs)


def _gradient_spacing_steps(f: Any, ftype: np.dtype, otype: np.dtype, ax: int, d: Any,
                            edge_order: int) -> None:
    """gradient along one axis with a 1-d array of coordinates ``d``, taking the path of
    coordinates that are not evenly spaced (_function_base_impl.py ``gradient``): d's
    float64 copy if integer (alive to the return), ``diffx = np.diff(d)`` (alive to the
    return) and its ``(diffx == diffx[0]).all()`` test, an int f's float64 copy, the
    output, the coefficient arrays ``a``, ``b``, ``c`` (with NumPy's temporary elision),
    ``shape = np.ones(N, int)`` with its ``shape[axis] = -1``, the interior ``a * f[:-2] +
    b * f[1:-1] + c * f[2:]``, then the edges (edge_order 1: ``(f[1] - f[0]) / diffx[0]``;
    2: the scalars ``a``, ``b``, ``c`` replace the arrays, ``a * f[0] + b * f[1] + c * f[2]``)."""
    st = Steps()
    n = f.shape[ax]
    dcopy = st.new(array_bytes((n,), _F8) if d.dtype.kind in "iu" else 0)
    ddt = _F8 if d.dtype.kind in "iu" else d.dtype
    diffx = Val((n - 1,), ddt)
    held_dx = st.new(diffx.nbytes)
    first = ddt.type(1)  # diffx[0], a NumPy scalar
    test = st.new(array_bytes((n - 1,), BOOL) + ufunc_bytes(np.equal, diffx, first))
    st.temp(1)  # .all()'s 0-d result
    st.free(test)
    held_f = st.new(array_bytes(f.shape, ftype) if ftype != f.dtype else 0)
    st.new(array_bytes(f.shape, otype))  # out: the result
    d1 = d2 = Val((n - 2,), ddt)
    a = binary(st, np.true_divide, unary(st, np.negative, d2),
               binary(st, np.multiply, d1, binary(st, np.add, d1, d2), True))
    b = binary(st, np.true_divide, binary(st, np.subtract, d2, d1), binary(st, np.multiply, d1, d2, True))
    c = binary(st, np.true_divide, d1, binary(st, np.multiply, d2, binary(st, np.add, d1, d2), True))
    coef = [a.nbytes, b.nbytes, c.nbytes]
    shape = st.new(array_bytes((f.ndim,), _INTP))  # np.ones(N, int): empty, then copyto
    st.temp(copyto_bytes(_INTP, 1))
    st.temp(setitem_bytes(_INTP, -1))  # shape[axis] = -1
    bshape = tuple(n - 2 if i == ax else 1 for i in range(f.ndim))
    inner = Val(f.shape[:ax] + (n - 2,) + f.shape[ax + 1:], ftype)
    av, bv, cv = (Val(bshape, ddt) for _ in range(3))  # the reshaped views
    t = binary(st, np.add, binary(st, np.add, binary(st, np.multiply, av, inner),
                                  binary(st, np.multiply, bv, inner), True),
               binary(st, np.multiply, cv, inner), True)
    used(st, t)
    edge = Val(f.shape[:ax] + f.shape[ax + 1:], ftype)
    for end in (0, -1):
        if edge_order == 1:
            used(st, binary(st, np.true_divide, binary(st, np.subtract, edge, edge), first))
            continue
        if end == 0:
            st.free(*coef)  # a, b, c become scalars: the arrays die
            coef = []
        s1 = binary(st, np.add, binary(st, np.multiply, first, edge),
                    binary(st, np.multiply, first, edge), True)
        used(st, binary(st, np.add, s1, binary(st, np.multiply, first, edge), True))
    st.free(dcopy, held_dx, held_f, shape, *coef)
    st.done()


def _gradient_steps(f: Any, ftype: np.dtype, otype: np.dtype, axes: tuple, dx: Any,
                    edge_order: int) -> None:
    """The allocations of _function_base_impl.py gradient with a uniform spacing ``dx``:
    an int f's float64 copy, then per axis the output and the temporaries of the interior
    ``(f[2:] - f[:-2]) / (2. * dx)`` and of the two edges (edge_order 1: ``(f[1] - f[0]) / dx``;
    2: ``a * f[0] + b * f[1] + c * f[2]``), with NumPy's temporary elision."""
    steps = Steps()
    held = steps.new(array_bytes(f.shape, ftype)) if ftype != f.dtype else 0
    for ax in axes:
        steps.new(array_bytes(f.shape, otype))
        aligned = ftype != f.dtype or f.flags.aligned  # views of f, or of its float copy
        inner = Val(f.shape[:ax] + (f.shape[ax] - 2,) + f.shape[ax + 1:], ftype, aligned=aligned)
        edge = Val(f.shape[:ax] + f.shape[ax + 1:], ftype, aligned=aligned)
        used(steps, binary(steps, np.true_divide, binary(steps, np.subtract, inner, inner), 2. * dx))
        for end in (0, -1):
            if edge_order == 1:
                used(steps, binary(steps, np.true_divide, binary(steps, np.subtract, edge, edge), dx))
                continue
            a, b, c = (-1.5 / dx, 2. / dx, -0.5 / dx) if end == 0 else (0.5 / dx, -2. / dx, 1.5 / dx)
            ab = binary(steps, np.add, binary(steps, np.multiply, a, edge),
                        binary(steps, np.multiply, b, edge), commutative=True)
            used(steps, binary(steps, np.add, ab, binary(steps, np.multiply, c, edge), commutative=True))
    steps.free(held)
    steps.done()
