"""Polynomials: poly, polyval, polyadd, ..., polyfit (numpy/lib/_polynomial_impl.py)."""
from __future__ import annotations
from typing import Any
import numpy as np
from ..._errors import DataDependentError, UnsupportedOperationError
from .creation import fresh
from ...layout import c_strides
from ...meta import ArrayMeta, as_meta, is_fake
from .. import flops
from ..registry import quiet, register, scalar_result, transient, unmodelled
from .temporaries import (Steps, Val, array_bytes, asarray_bytes, binary, scalar_binop_bytes,
                          ufunc_bytes)
from .numeric import convolve
from .umath import ufunc_call
from .hidden import call_step, captured, stepped, steps
from .index_tricks import F8, INTP, WEAK
def _meta(r: Any) -> ArrayMeta:
    return ArrayMeta(r.shape, r.dtype, r.strides)


def _u(ufunc: np.ufunc, *args: Any) -> ArrayMeta:
    return _meta(ufunc_call(ufunc, *args))


def _atleast_1d(x: Any) -> Any:
    m = as_meta(x)
    if m.ndim == 0:
        return ArrayMeta((1,), m.dtype, (m.dtype.itemsize,))
    return m


def _c1(n: int, dt: np.dtype) -> ArrayMeta:
    return ArrayMeta((n,), dt, c_strides((n,), dt.itemsize))


def _no_poly1d(*xs: Any) -> None:
    if any(isinstance(x, np.poly1d) for x in xs):
        raise UnsupportedOperationError("numpy polynomial", "poly1d arguments")


def _out(m: Any) -> Any:
    """A chained result as a fresh output (or the input itself): stand-ins are already
    fresh ArrayMeta records."""
    return m


@register(np.poly, tags=("copy",))
@stepped
def poly(seq_of_zeros: Any) -> Any:
    """convolve of (1, -zero) factors: a fresh C (n + 1,) array; complex roots decide by value."""
    _no_poly1d(seq_of_zeros)
    m = _atleast_1d(seq_of_zeros)
    sh = m.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        raise DataDependentError("np.poly of a matrix: eigvals is real or complex by values")
    if len(sh) != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = m.dtype if m.dtype.kind == "O" else np.dtype(np.mintypecode(m.dtype.char))
    if dt.kind == "c" and sh[0]:
        raise DataDependentError("np.poly of complex roots is real when they come in conjugate pairs")
    return _poly_steps(seq_of_zeros, sh[0], dt)


def _poly_steps(seq: Any, n: int, dt: np.dtype) -> Any:
    """_polynomial_impl.py poly of 1-d roots: ``seq.astype(dt)`` (a copy, alive to the end),
    ``a = ones((1,))``, then per root ``a = convolve(a, array([1, -zero], dtype=dt))`` (the
    pair dies after its convolve, the old ``a`` when rebound)."""
    st = steps()
    made = st.alloc(asarray_bytes(seq))  # atleast_1d of a list or scalar, dropped when
    held = st.alloc(array_bytes((n,), dt))  # the name is rebound to its astype copy
    st.free(made)
    if n == 0:
        st.free(held)
        return 1.0
    a: Any = _c1(1, dt)
    ab = st.alloc(array_bytes((1,), dt))
    for _ in range(n):
        pair = st.alloc(array_bytes((2,), dt))
        a, nb = call_step(st, convolve, a, _c1(2, dt), "full")
        st.free(pair, ab)
        ab = nb
    st.free(held)
    return fresh(a.shape, dt)


@register(np.polyval, tags=("copy",), flops=flops.polyval)
def polyval(p: Any, x: Any) -> Any:
    """y = zeros_like(x); y = y * x + pv for each coefficient (NumPy scalars, not weak)."""
    _no_poly1d(p, x)
    pm = as_meta(p)
    xm = x if type(x) in WEAK else as_meta(x)
    if type(xm) in WEAK:
        xm = np.asarray(xm)
    from .misc import k_copy
    y: Any = k_copy(xm)
    if pm.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    coef = ArrayMeta(pm.shape[1:], pm.dtype, pm.strides[1:])
    seen = []
    for _ in range(pm.shape[0]):
        y = _u(np.add, _u(np.multiply, y, xm), coef)
        key = (y.shape, y.strides, y.dtype)
        if key in seen:
            break
        seen.append(key)
    if pm.ndim == 1 and type(xm) is not np.ndarray:
        _polyval_steps(p, pm, xm)
    res = ArrayMeta(y.shape, y.dtype, y.strides)
    return scalar_result(res) if pm.shape[0] else res  # no coefficient: zeros_like(x) itself


def _polyval_steps(p: Any, pm: Any, xm: Any) -> None:
    """_polynomial_impl.py polyval: p = asarray(p), y = zeros_like(x) (with its zeros(1)),
    then ``y = y * x + pv`` per coefficient (pv a NumPy scalar; the product is a temporary
    the sum may reuse, the old y dies when y is rebound)."""
    steps = Steps()
    held = steps.new(asarray_bytes(p))
    if not xm.shape:  # 0-d x: ``y * x`` is a NumPy scalar (its 0-d result freed), ``+ pv``
        _polyval_0d_steps(steps, pm, xm)  # scalar math
        steps.free(held)
        steps.done()
        return
    y = Val(xm.shape, xm.dtype)
    steps.new(y.nbytes)  # zeros_like: empty_like, then copyto from zeros(1)
    steps.temp(array_bytes((1,), xm.dtype))
    x = Val(xm.shape, xm.dtype)
    pv = pm.dtype.type(1)
    for _ in range(pm.shape[0]):
        new = binary(steps, np.add, binary(steps, np.multiply, y, x), pv, True)
        steps.free(y.nbytes)
        y = Val(new.shape, new.dtype)
    steps.free(held)
    steps.done()


def _polyval_0d_steps(steps: Steps, pm: Any, xm: Any) -> None:
    """polyval's loop for a 0-d x: ``y = zeros_like(x)`` (its copyto's 0-d array of the 0),
    then per coefficient ``y = y * x + pv``: the 0-d y (first) or the scalar y's 0-d array
    (after) times x into a 0-d result made a scalar, plus the NumPy scalar pv by scalar math
    (through 0-d arrays when neither type casts safely to the other)."""
    isz = xm.dtype.itemsize
    y0 = steps.new(isz)
    steps.temp(isz)  # zeros_like's copyto of the 0
    y: Any = Val((), xm.dtype)
    x = Val((), xm.dtype)
    for i in range(pm.shape[0]):
        dt = np.multiply.resolve_dtypes((y.dtype, x.dtype, None))[2]
        steps.temp((isz if i else 0) + ufunc_bytes(np.multiply, y, x) + dt.itemsize)
        out = np.add.resolve_dtypes((dt, pm.dtype, None))[2]
        steps.temp(scalar_binop_bytes(np.add, dt, pm.dtype))
        if not i:  # the 0-d y dies when the name is rebound
            steps.free(y0)
        y = Val((), out)


def _pad_front(m: Any, diff: int) -> ArrayMeta:
    """concatenate((zeros(diff, m.dtype), m)) for 1-d m; the ValueError for other ranks."""
    from .shape_base import concatenate
    z = _c1(diff, m.dtype)
    return _meta(concatenate((z, m)))


def _poly_addsub(ufunc: np.ufunc, a1: Any, a2: Any) -> Any:
    """_polynomial_impl.py polyadd / polysub: the shorter operand padded in front
    (``concatenate((zeros(diff), a))``, both alive to the end), then the ufunc, whose own
    temporaries (an unaligned or other-dtype operand's copy) are NumPy's."""
    from .umath import ufunc_steps
    _no_poly1d(a1, a2)
    a, b = _atleast_1d(a1), _atleast_1d(a2)
    st = Steps()
    held = [st.new(asarray_bytes(x)) for x in (a1, a2)]  # atleast_1d of a non-array
    diff = b.shape[0] - a.shape[0]
    if diff:
        short = a if diff > 0 else b
        held.append(st.new(array_bytes((abs(diff),), short.dtype)))  # zeros(diff, dtype)
        padded = _pad_front(short, abs(diff))
        held.append(st.new(array_bytes(padded.shape, padded.dtype)))
        if diff > 0:
            a = padded
        else:
            b = padded
    res, _ = ufunc_steps(st, ufunc, a, b)
    st.free(*held)
    st.done()
    return _out(_meta(res))


@register(np.polyadd, tags=("copy",), flops=flops.elementwise)
def polyadd(a1: Any, a2: Any) -> Any:
    return _poly_addsub(np.add, a1, a2)


@register(np.polysub, tags=("copy",), flops=flops.elementwise)
def polysub(a1: Any, a2: Any) -> Any:
    return _poly_addsub(np.subtract, a1, a2)


@register(np.polymul, tags=("copy",), flops=flops.polymul)
def polymul(a1: Any, a2: Any) -> Any:
    """convolve(poly1d(a1), poly1d(a2)): poly1d trims leading zeros, by value."""
    _no_poly1d(a1, a2)
    for x in (a1, a2):
        if _atleast_1d(x).ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
    raise DataDependentError("np.polymul: poly1d trims the coefficients' leading zeros")


@register(np.polyder, tags=("copy",), flops=flops.elementwise)
@stepped
def polyder(p: Any, m: Any = 1) -> Any:
    """p[:-1] * arange(n, 0, -1), m times; p itself for m == 0. Replayed frame by frame
    (_polynomial_impl.py polyder recurses on ``y``): each level's arange dies after its
    product, every level's ``y`` stays alive until the deepest call returns, and only the
    one returned (level m's input) survives."""
    from .umath import ufunc_steps
    _no_poly1d(p)
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    st = steps()
    made = st.new(asarray_bytes(p))
    chain = [as_meta(p)]
    kept = []
    for _ in range(m + 1):  # each level also differentiates the (discarded) last result
        cur = chain[-1]
        if cur.ndim == 0:
            raise TypeError("len() of unsized object")
        n = max(cur.shape[0] - 1, 0)
        head = ArrayMeta((n,) + cur.shape[1:], cur.dtype, cur.strides,  # p[:-1]: a view
                         view_of=cur if is_fake(cur) else None)  # (keeps p's alignment)
        ab = st.new(array_bytes((n,), INTP))  # arange(n, 0, -1)
        y, yb = ufunc_steps(st, np.multiply, head, _c1(n, INTP))
        st.free(ab)
        kept.append(yb)
        chain.append(_meta(y))
    if m == 0:
        st.free(*kept)
        return _out(chain[0])
    st.free(made, *(b for i, b in enumerate(kept) if i != m - 1))
    return _out(chain[m])


@register(np.polyint, tags=("copy",), flops=flops.elementwise)
@stepped
def polyint(p: Any, m: Any = 1, k: Any = None) -> Any:
    """concatenate((p / arange(len(p), 0, -1), [k[0]])), m times; p itself for m == 0.
    Replayed frame by frame (_polynomial_impl.py polyint recurses on ``y``): ``k`` (zeros, or
    k[0] * ones), each level's arange and quotient freed once concatenated with the 1-element
    array of ``[k[0]]``; every level's ``y`` alive until the deepest call returns."""
    from .shape_base import concatenate
    from .umath import ufunc_steps
    _no_poly1d(p)
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if is_fake(k):
        raise UnsupportedOperationError(np.polyint, "fake integration constants")
    st = steps()
    if k is None:
        kk = np.zeros(m, float)
        kb = st.new(array_bytes(kk.shape, kk.dtype))
    else:
        kk = np.atleast_1d(k)
        kb = st.new(0 if isinstance(k, np.ndarray) else array_bytes(kk.shape, kk.dtype))
    if len(kk) == 1 and m > 1:
        ob = st.new(array_bytes((m,), np.float64))  # ones(m, float)
        kk = kk[0] * np.ones(m, float)
        nb = st.new(array_bytes(kk.shape, kk.dtype))
        st.free(ob, kb)
        kb = nb
    if len(kk) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    made = st.new(asarray_bytes(p))
    cur = as_meta(p)
    if m == 0:
        st.free(kb, made)
        return _out(cur)
    kept = []
    for i in range(m):
        if cur.ndim == 0:
            raise TypeError("len() of unsized object")
        ab = st.new(array_bytes((cur.shape[0],), INTP))  # arange(len(p), 0, -1)
        q, qb = ufunc_steps(st, np.true_divide, cur, _c1(cur.shape[0], INTP))
        st.free(ab)
        kv = np.asarray([kk[i]])
        vb = st.new(array_bytes(kv.shape, kv.dtype))  # concatenate's array of [k[0]]
        with captured() as cap:
            y = _meta(concatenate((_meta(q), kv)))
        kept.append(st.new(array_bytes(y.shape, y.dtype)))
        st.temp(cap.transient)
        st.free(qb, vb)
        cur = y
    st.free(kb, made, *kept[:-1])
    return _out(cur)
    for i in range(m):
        if cur.ndim == 0:
            raise TypeError("len() of unsized object")
        q = _u(np.true_divide, cur, _c1(cur.shape[0], INTP))
        kv = np.asarray([kk[i]])
        cur = _meta(concatenate((q, kv)))
    return _out(cur)


@register(np.polydiv, tags=("data-dependent",))
def polydiv(u: Any, v: Any) -> Any:
    """The remainder's leading zeros are trimmed by value."""
    _no_poly1d(u, v)
    a, b = _atleast_1d(u), _atleast_1d(v)
    _u(np.add, a, 0.0)
    _u(np.add, b, 0.0)
    if a.shape[0] == 0 or b.shape[0] == 0:
        n = 0 if a.shape[0] == 0 else 0
        raise IndexError(f"index 0 is out of bounds for axis 0 with size {n}")
    raise DataDependentError("np.polydiv: the remainder's length depends on its values")


@register(np.roots, tags=("data-dependent",))
def roots(p: Any) -> Any:
    """The number of roots depends on leading and trailing zeros."""
    m = _atleast_1d(p)
    if m.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if m.size == 0:  # ``non_zero = nonzero(ravel(p))[0]`` (1 byte) alive while
        transient(asarray_bytes(p) + 1)  # ``array([])`` is made; atleast_1d of a list too
        return fresh((0,), F8)
    raise DataDependentError("np.roots: the number of roots depends on the coefficients' values")


def check_polyfit_args(x: Any, y: Any, deg: int) -> None:
    """numpy/lib/_polynomial_impl.py polyfit's argument checks (CuPy's polyfit makes the same)."""
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")


@register(np.polyfit, tags=("copy",), flops=flops.polyfit)
def polyfit(x: Any, y: Any, deg: Any, rcond: Any = None, full: bool = False, w: Any = None,
            cov: bool = False) -> Any:
    """lstsq's coefficients divided by the column scales: (c.T / scale).T, a view of a temporary."""
    order = int(deg) + 1
    xm = _u(np.add, as_meta(x), 0.0)
    ym = _u(np.add, as_meta(y), 0.0)
    check_polyfit_args(xm, ym, deg)
    if full or cov or w is not None:
        raise UnsupportedOperationError(np.polyfit, "full, cov or weights")
    if xm.dtype.kind == "O" and rcond is None:  # finfo(x.dtype) for the default rcond
        raise ValueError(f"data type {xm.dtype.type} not inexact")
    # lstsq's own refusals (dtypes linalg has no loop for), on tiny stand-ins
    np.linalg.lstsq(np.zeros((1, 1), xm.dtype), np.zeros((1,) + tuple(ym.shape[1:]), ym.dtype),
                    rcond=None)
    if xm.dtype.kind not in "fc" or ym.dtype.kind not in "fc":
        raise UnsupportedOperationError(np.polyfit, f"{xm.dtype} / {ym.dtype} data")
    dt = np.dtype(np.complex128 if "c" in (xm.dtype.kind, ym.dtype.kind) else np.float64)
    shape = (order,) + tuple(ym.shape[1:])
    _polyfit_steps(as_meta(x), as_meta(y), xm, ym, order, dt)
    if len(shape) == 1:
        return ArrayMeta(shape, dt, c_strides(shape, dt.itemsize), base_shape=shape)
    # (c.T / scale).T with c lstsq's C (order, k) solution: the division's layout by the
    # ufunc rule (a (1, order) or (k, 1) c.T is C- and F-contiguous: C wins)
    c = ArrayMeta(shape, dt, c_strides(shape, dt.itemsize))
    ct = ArrayMeta(shape[::-1], dt, tuple(c.strides[::-1]))
    with quiet():
        q = ufunc_call(np.true_divide, ct, ArrayMeta((order,), np.dtype(np.float64), (8,)))
    return ArrayMeta(shape, dt, tuple(q.strides[::-1]), base_shape=tuple(q.shape))


def _polyfit_steps(x: Any, y: Any, xm: Any, ym: Any, order: int, dt: np.dtype) -> None:
    """The buffers of polyfit (numpy/lib/_polynomial_impl.py) and of the lstsq it calls
    (numpy/linalg/_linalg.py), in order: ``x + 0.0`` and ``y + 0.0``, ``vander(x, order)``,
    ``(lhs * lhs).sum(axis=0)`` and its sqrt (``scale``), then lstsq: b cast to the gufunc's
    loop type (a gufunc casts whole operands), its four outputs (``rank`` a NumPy scalar),
    ``array([])`` for the residuals when m <= n, the ``astype(copy=True)`` of the solution,
    then ``(c.T / scale).T``. LAPACK's workspace is malloc'd, off the data allocator. With
    more rows than columns a rank-deficient matrix also replaces the residuals by
    ``array([])``; where that byte could set the peak the call is listed as unmodelled."""
    m = xm.shape[0]
    k = ym.shape[1] if ym.ndim == 2 else 1
    vdt = np.promote_types(xm.dtype, int)
    real = np.dtype(dt.char.lower())

    def run(full_rank: bool) -> Steps:
        st = Steps()
        xs = st.new(array_bytes(xm.shape, xm.dtype))
        st.temp(ufunc_bytes(np.add, x, 0.0))
        ys = st.new(array_bytes(ym.shape, ym.dtype))
        st.temp(ufunc_bytes(np.add, y, 0.0))
        lhs = st.new(array_bytes((m, order), vdt))
        sq = st.new(array_bytes((m, order), vdt))
        tot = st.new(array_bytes((order,), vdt))
        st.free(sq)
        scale = st.new(array_bytes((order,), vdt))
        st.free(tot)
        t = np.result_type(vdt, ym.dtype, np.float64)
        cast_a = st.new(array_bytes((m, order), t) if vdt != t else 0)
        cast_b = st.new(array_bytes((m, k), t) if ym.dtype != t else 0)
        rc = st.new(8)  # rcond as a 0-d double
        sol = st.new(array_bytes((order, k), t))
        res = st.new(array_bytes((k,), real))
        rank = st.new(4)
        sv = st.new(array_bytes((min(m, order),), real))
        st.free(cast_a, cast_b, rc, rank)  # the gufunc's 0-d rank is returned as a scalar
        if m <= order or not full_rank:
            st.new(1)  # array([], result_real_t)
            st.free(res)
            res = 1
        copy = st.new(array_bytes((order, k), dt))
        st.free(sol)
        st.new(array_bytes((order, k), dt))  # (c.T / scale).T
        st.free(copy, res, sv, xs, ys, lhs, scale)
        return st

    exact = run(True)
    if m > order and run(False).peak != exact.peak:
        unmodelled("polyfit: lstsq replaces the residuals by array([]) when the matrix is "
                   "rank-deficient (values), at the call's peak")
    exact.done()
