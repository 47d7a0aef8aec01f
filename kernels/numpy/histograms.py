"""histogram, histogram_bin_edges, histogramdd (numpy/lib/_histograms_impl.py).

The edges come from the range and the bin count (or the bins given), the counts' dtype from
the weights; where the bins are an array their values decide the edges only through their
number, and are checked where known. Each rule replays NumPy's blocks of the uniform-bins
path, its edges and its density on a ``Steps`` timeline (``stepped``).
"""
from __future__ import annotations

import operator
from builtins import range as builtins_range
from typing import Any

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from ...layout import c_strides
from ...meta import ArrayMeta, as_meta, is_meta
from ..registry import register, unmodelled
from ._common import BOOL, c_fresh, chained_ufunc, known_values
from .convert_datatype import cast_loop
from .hidden import stepped, steps
from .reductions import final_result
from .temporaries import Val, array_bytes, binary, call, ufunc_bytes

_INTP = np.dtype(np.intp)
_F8 = np.dtype("f8")


# --- histogram, histogram_bin_edges, histogramdd ---------------------------------------------
# Value checks skipped (they raise only for some data): non-finite autodetected ranges,
# "Too many bins for data range"; non-monotonic bins arrays are refused where their values
# are known (``known_values``), and cannot be otherwise.

def _hist_input(a: Any, weights: Any, name: str, edges_given: bool = False) -> tuple:
    """_ravel_and_check_weights: (dtype of the raveled a, weights meta or None). Datetime
    and timedelta data only with ``edges_given`` (bins an array of edges): edges worked out
    from a number of bins are a float linspace, which NumPy cannot make of datetimes (its
    error, DTypePromotionError or UFuncTypeError, depends on whether all values are equal)."""
    from ..registry import uncached
    m = as_meta(a)
    dt = m.dtype
    if dt == BOOL:
        import warnings
        uncached()
        warnings.warn(f"Converting input from {dt} to {np.dtype(np.uint8)} for compatibility.",
                      RuntimeWarning, stacklevel=4)
        dt = np.dtype(np.uint8)
    if dt.kind not in "iufc" and not (dt.kind in "mM" and edges_given):  # complex: min/max
        raise UnsupportedOperationError(name, f"dtype {m.dtype}")  # and the edges order it
    w = None
    if weights is not None:
        w = as_meta(weights)
        if w.shape != m.shape:
            raise ValueError("weights should have the same shape as a.")
    return m, dt, w


def _outer_edges(dt: np.dtype, size: int, rng: Any) -> tuple:
    """_get_outer_edges with stand-in scalars of the data's dtype (their values never
    change a dtype: equal edges become edge -/+ 0.5 of the same promoted type)."""
    if rng is not None:
        if any(hasattr(r, "storage_offset") for r in rng):
            raise DataDependentError("a range given by fake arrays")
        first, last = rng
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif size == 0:
        first, last = 0, 1
    else:
        first, last = np.zeros((), dt)[()], np.ones((), dt)[()]
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _linspace(first: Any, last: Any, num: int, dtype: Any) -> ArrayMeta:
    """np.linspace of two scalars with num >= 2: the arange it scales in place, reshaped (a
    view of it) unless ``dtype`` differs from the computed one (then an astype copy)."""
    dt = np.result_type(first, last, 1.0)
    if dtype is None or np.dtype(dtype) == dt:
        return ArrayMeta((num,), dt, (dt.itemsize,), base_shape=(num,))
    dt = np.dtype(dtype)
    return ArrayMeta((num,), dt, (dt.itemsize,))


def _bin_edges(m: Any, dt: np.dtype, bins: Any, rng: Any, w: Any) -> tuple:
    """_get_bin_edges: (edges ArrayMeta or input, number of bins)."""
    if isinstance(bins, str):
        from numpy.lib._histograms_impl import _hist_bin_selectors
        if bins not in _hist_bin_selectors:
            raise ValueError(f"{bins!r} is not a valid estimator for `bins`")
        if w is not None:
            raise TypeError("Automated estimation of the number of "
                            "bins is not supported for weighted data")
        _outer_edges(dt, m.size, rng)
        if m.size and (rng is None or m.size):
            raise DataDependentError(f"bins={bins!r}: the number of bins depends on values")
        n = 1
    elif (bins.ndim if is_meta(bins) else np.ndim(bins)) == 0:
        if is_meta(bins) and hasattr(bins, "storage_offset"):
            raise DataDependentError("bins given by a fake 0-d array")
        try:
            n = operator.index(bins)
        except TypeError as e:
            raise TypeError('`bins` must be an integer, a string, or an array') from e
        if n < 1:
            raise ValueError('`bins` must be positive, when an integer')
    elif (bins.ndim if is_meta(bins) else np.ndim(bins)) == 1:
        em = as_meta(bins)
        vals = known_values(bins)
        if vals is not None and vals.dtype.kind in "biufmM" and np.any(vals[:-1] > vals[1:]):
            raise ValueError('`bins` must increase monotonically, when an array')
        return (em if hasattr(em, "storage_offset") else ArrayMeta(em.shape, em.dtype, c_strides(
            em.shape, em.dtype.itemsize))), max(em.shape[0] - 1, 0), em.dtype, False
    else:
        raise ValueError('`bins` must be 1d, when an array')
    first, last = _outer_edges(dt, m.size, rng)
    bt = np.result_type(first, last, dt)
    if np.issubdtype(bt, np.integer):
        bt = np.result_type(bt, float)
    return _linspace(first, last, n + 1, bt), n, bt, True


def _hist_counts(n: int, w: Any, uniform: bool, density: Any) -> ArrayMeta:
    ntype = _INTP if w is None else w.dtype
    if w is not None and not (np.can_cast(ntype, np.double) or np.can_cast(ntype, complex)):
        raise UnsupportedOperationError("np.histogram", f"weights of dtype {ntype}")
    if ntype.kind not in "biufc":
        raise UnsupportedOperationError("np.histogram", f"weights of dtype {ntype}")
    cnt = c_fresh((n,), ntype)
    if density:
        cnt = chained_ufunc(np.true_divide, chained_ufunc(np.true_divide, cnt, c_fresh((n,), _F8)), c_fresh((), ntype))
    return final_result(cnt)


@register(np.histogram, tags=("copy",))
@stepped
def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None,
              weights: Any = None) -> tuple:
    """np.histogram: (counts, edges), fresh 1-d arrays; edges are ``bins`` when given."""
    m, dt, w = _hist_input(a, weights, "np.histogram", _edges_given(bins))
    edges, n, bt, uniform = _bin_edges(m, dt, bins, range, w)
    counts = _hist_counts(n, w, uniform, density)
    if not uniform:
        _cumulative_hist_steps(m, dt, edges, bins, w)
        if density:
            _hist_density_steps(n, bt, _INTP if w is None else w.dtype)
    if uniform:
        outer = _outer_edges(dt, m.size, range)
        ntype = _INTP if w is None else w.dtype
        _hist_edges_steps(m, dt, bt, outer, range, n, ntype, w)
        if dt.kind == "c" and m.size:  # f_indices.astype(np.intp) drops the imaginary part
            import warnings
            from ..registry import uncached
            uncached()
            warnings.warn("Casting complex values to real discards the imaginary part",
                          np.exceptions.ComplexWarning, stacklevel=3)
        if ntype.kind != "c":  # complex weights: n.real / n.imag bincounts, not replayed
            _uniform_hist_steps(m, dt, bt, outer, n, w)
            if density:
                _hist_density_steps(n, bt, ntype)
    if density and bt.kind == "c":  # db = np.array(np.diff(bin_edges), float)
        cast_loop(bt, np.dtype(float))
    return counts, edges


def _edges_given(bins: Any) -> bool:
    """Are ``bins`` the edges themselves (a 1-d array or sequence), not a number or a name?"""
    return not isinstance(bins, str) and (bins.ndim if is_meta(bins) else np.ndim(bins)) == 1


def _given_edges_steps(m: Any, dt: np.dtype, edges: Any, bins: Any, w: Any) -> None:
    """Up to the edges, given as an array, in ``steps()``: the ravel copies,
    ``np.asarray(bins)`` of a sequence (the edges returned) and _get_bin_edges'
    ``np.any(bin_edges[:-1] > bin_edges[1:])``."""
    st = steps()
    _ravel_steps(m, dt, w)
    ne = edges.shape[0]
    if not is_meta(bins):  # a sequence: np.asarray(bins) is the edges returned
        st.alloc(array_bytes((ne,), edges.dtype))
    st.hold(array_bytes((max(ne - 1, 0),), BOOL) + 1)


def _cumulative_hist_steps(m: Any, dt: np.dtype, edges: Any, bins: Any, w: Any) -> None:
    """histogram with the edges given (_histograms_impl.py ``histogram``'s cumulative path),
    in ``steps()``: ``_given_edges_steps``, ``cum_n = np.zeros(...)``; per
    block of BLOCK values ``sa = np.sort(a[i:i + BLOCK])`` (the previous block's dies once
    it is bound again), the two ``searchsorted`` results of ``_search_sorted_inclusive``
    and their concatenation, added into ``cum_n``; then ``n = np.diff(cum_n)``. With
    weights (argsort, gathered values and weights, their cumsum) the bytes are not
    replayed: listed as unmodelled."""
    from .hidden import call_step
    from .sorting import searchsorted, sort
    st = steps()
    ntype = _INTP if w is None else w.dtype
    _given_edges_steps(m, dt, edges, bins, w)
    ne = edges.shape[0]
    st.alloc(array_bytes((ne,), ntype))  # cum_n
    if w is not None:
        unmodelled("np.histogram with the edges given and weights: the argsort, gathered "
                   "values and weights and their cumsum per block are not replayed")
    else:
        step = edges.strides[0] if edges.ndim else edges.dtype.itemsize
        lo = ArrayMeta((max(ne - 1, 0),), edges.dtype, (step,))  # bin_edges[:-1]
        hi = ArrayMeta((min(ne, 1),), edges.dtype, (step,))  # bin_edges[-1:]
        sa_bytes = 0
        for start in builtins_range(0, m.size, _BLOCK):
            k = min(_BLOCK, m.size - start)
            sa, kept = call_step(st, sort, ArrayMeta((k,), dt, (dt.itemsize,)))
            st.free(sa_bytes)
            sa_bytes = kept
            _, left = call_step(st, searchsorted, sa, lo, "left")
            _, right = call_step(st, searchsorted, sa, hi, "right")
            cat = st.alloc(array_bytes((ne,), _INTP))
            st.free(left, right)
            st.free(cat)  # cum_n += ...
    st.alloc(array_bytes((max(ne - 1, 0),), ntype))  # n = np.diff(cum_n): the counts
    # cum_n and the last sa stay alive to the return (through the density's buffers)


def _hist_density_steps(nbins: int, bt: np.dtype, ntype: np.dtype) -> None:
    """histogram's density tail: ``db = np.array(np.diff(bin_edges), float)`` (the diff and
    its copy), then ``n / db / n.sum()`` (the quotient, ``n.sum()``'s 0-d array, the result)."""
    st = steps()
    diff = st.alloc(array_bytes((nbins,), bt))
    db = st.alloc(array_bytes((nbins,), _F8))
    st.free(diff)
    qt = np.result_type(ntype, _F8)
    q = st.alloc(array_bytes((nbins,), qt))
    total = np.zeros(1, ntype).sum()  # a NumPy scalar of sum's dtype (its 0-d array dies)
    st.hold(total.dtype.itemsize)
    scalar = st.alloc(ufunc_bytes(np.true_divide, Val((nbins,), qt), total))
    st.alloc(array_bytes((nbins,), qt))
    st.free(scalar, q, db)


_BLOCK = 65536  # _histograms_impl.py histogram's BLOCK


def _hist_edges_steps(m: Any, dt: np.dtype, bt: np.dtype, outer: tuple, rng: Any,
                      nbins: int, ntype: np.dtype | None, w: Any) -> None:
    """The buffers of equal-bins histogram before its loop, in ``steps()``: ``a.ravel()`` (or
    the bool input's uint8 copy), ``np.isfinite`` of a given range, the edges' ``linspace``
    (creation.linspace's own replay), the ``np.any(bin_edges[:-1] >= bin_edges[1:])`` check
    (_histograms_impl.py ``_get_bin_edges``), the counts ``n = np.zeros(nbins, ntype)`` and
    ``_unsigned_subtract(last_edge, first_edge)``'s 0-d arrays (``ntype`` None: up to the
    check, as histogram_bin_edges)."""
    from .creation import linspace
    st = steps()
    _ravel_steps(m, dt, w)
    first, last = outer
    if rng is not None:
        st.hold(ufunc_bytes(np.isfinite, rng[0]) + 1)
        st.hold(ufunc_bytes(np.isfinite, rng[1]) + 1)
    linspace(first, last, nbins + 1, endpoint=True, dtype=bt)
    st.hold(array_bytes((nbins,), BOOL) + 1)
    if ntype is None:  # histogram_bin_edges: the edges are the result
        return
    st.alloc(array_bytes((nbins,), ntype))
    st.hold(_unsigned_subtract_bytes(first, last))


def _ravel_steps(m: Any, dt: np.dtype, w: Any) -> None:
    """_ravel_and_check_weights' copies, in ``steps()``, alive to the return: the bool
    input's ``a.astype(np.uint8)``, ``weights.ravel()`` and ``a.ravel()`` where they copy."""
    st = steps()
    if dt != m.dtype:  # bool input: a.astype(np.uint8)
        st.alloc(array_bytes(m.shape, dt))
    if w is not None and not w.flags.c_contiguous:  # weights.ravel()
        st.alloc(array_bytes((w.size,), w.dtype))
    if dt == m.dtype and not m.flags.c_contiguous:  # a.ravel()
        st.alloc(array_bytes((m.size,), dt))


def _unsigned_subtract_bytes(first: Any, last: Any) -> int:
    """_histograms_impl.py _unsigned_subtract of two scalars: for signed integers both as 0-d
    arrays of their type, cast into 0-d copies of the unsigned loop type, and the 0-d result;
    else ``np.subtract``'s scalar operands and result."""
    dt = np.result_type(first, last)
    if dt.kind == "i":
        return 5 * dt.itemsize
    return ufunc_bytes(np.subtract, last, first) + dt.itemsize


def _uniform_hist_steps(m: Any, dt: np.dtype, bt: np.dtype, outer: tuple, nbins: int,
                        w: Any = None) -> None:
    """The buffers of histogram's equal-bins loop (_histograms_impl.py ``histogram``), in
    ``steps()``, for data inside the range: per block of BLOCK values the ``keep`` mask, the
    block cast to the edges' type, ``f_indices`` and ``indices`` (NumPy's elision applies),
    the ``decrement`` / ``increment`` masks with the gathered edges, ``bincount``'s counts
    and their cast; a name's previous block dies when it is bound again. The boolean-mask
    corrections (``indices[mask] -= 1``) are counted selecting nothing: their buffers grow
    with the number of values on bin edges, and values outside ``range`` shrink every block
    (``tmp_a[keep]``), so the figure is exact only for such data: the call is listed as
    unmodelled (the data's maximum lies on the last edge whenever ``range`` is not given)."""
    unmodelled("np.histogram with equal bins: values outside range shrink each block "
               "(tmp_a[keep]) and values on bin edges make index buffers, so the bytes "
               "depend on the values")
    st = steps()
    first, last = outer
    size = m.size
    denom = np.subtract(np.asarray(last), np.asarray(first))  # _unsigned_subtract's dtype
    kinds = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16,
             np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}
    denom = np.zeros((), kinds.get(denom.dtype, denom.dtype))[()]
    live: dict = {}

    def bind(name: str, nbytes: int) -> None:
        """``name = <new array>`` once allocated: the previous block's array dies."""
        st.free(live.get(name, 0))
        live[name] = nbytes

    for start in builtins_range(0, size, _BLOCK):
        k = min(_BLOCK, size - start)
        blk = Val((k,), dt)
        bind("tmp_a", 0)  # a[i:i + BLOCK], a view
        scalar = st.alloc(ufunc_bytes(np.greater_equal, blk, first))
        bind("keep", st.alloc(array_bytes((k,), BOOL)))
        st.free(scalar)
        st.hold(array_bytes((k,), BOOL) + ufunc_bytes(np.less_equal, blk, last))
        st.hold(1)  # np.logical_and.reduce(keep)
        if dt != bt:  # tmp_a.astype(bin_edges.dtype, copy=False)
            bind("tmp_a", st.alloc(array_bytes((k,), bt)))
            blk = Val((k,), bt)
        f = binary(st, np.multiply, binary(st, np.true_divide, call(st, np.subtract, blk, first),
                                            denom), nbins)
        bind("f_indices", f.nbytes)
        bind("indices", st.alloc(array_bytes((k,), _INTP)))
        st.hold(array_bytes((k,), BOOL) + 17)  # indices[indices == n_equal_bins] -= 1
        gathered = st.alloc(array_bytes((k,), bt))  # bin_edges[indices]
        dec = st.alloc(array_bytes((k,), BOOL))
        st.free(gathered)
        bind("decrement", dec)
        st.hold(17)  # indices[decrement] -= 1
        plus = st.alloc(array_bytes((k,), _INTP))  # indices + 1
        st.hold(8)
        gathered = st.alloc(array_bytes((k,), bt))
        st.free(plus)
        ge = st.alloc(array_bytes((k,), BOOL))
        st.free(gathered)
        ne = st.alloc(array_bytes((k,), BOOL))
        st.hold(8)
        inc = st.alloc(array_bytes((k,), BOOL))
        st.free(ge, ne)
        bind("increment", inc)
        st.hold(17)  # indices[increment] += 1
        if w is None:
            st.hold(2 * array_bytes((nbins,), _INTP))  # bincount(...).astype(ntype)
            continue
        # bincount(weights=tmp_w): tmp_w as float64 (a copy unless it is), the float64
        # counts, then their astype(ntype) copy
        wcopy = st.alloc(array_bytes((k,), _F8) if w.dtype != _F8 else 0)
        r = st.alloc(array_bytes((nbins,), _F8))
        st.free(wcopy)
        st.hold(array_bytes((nbins,), w.dtype))
        st.free(r)


@register(np.histogram_bin_edges, tags=("copy",))
@stepped
def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    """np.histogram_bin_edges: linspace edges (fresh f8 or the data's float type) or bins;
    equal bins replay np.histogram's buffers up to the edges' check (``_hist_edges_steps``)."""
    m, dt, w = _hist_input(a, weights, "np.histogram_bin_edges", _edges_given(bins))
    edges, n, bt, uniform = _bin_edges(m, dt, bins, range, w)
    if uniform:
        _hist_edges_steps(m, dt, bt, _outer_edges(dt, m.size, range), range, n, None, w)
    else:
        _given_edges_steps(m, dt, edges, bins, w)
    return edges


def _dd_sample(sample: Any) -> tuple:
    """(N, D, column dtypes) of histogramdd's sample (a 2-d array or a sequence of 1-d)."""
    if is_meta(sample) and sample.ndim == 2:
        return sample.shape[0], sample.shape[1], [sample.dtype] * sample.shape[1]
    if is_meta(sample):
        if sample.ndim > 2:
            raise UnsupportedOperationError("np.histogramdd", "a sample of ndim > 2")
        n = sample.shape[0] if sample.ndim else 1
        return n, 1, [sample.dtype]
    cols = [as_meta(c) for c in sample]
    if not cols or any(c.ndim != 1 for c in cols) or len({c.shape for c in cols}) != 1:
        raise UnsupportedOperationError("np.histogramdd", "a ragged or nested sample list")
    dt = np.result_type(*[c.dtype for c in cols])
    return cols[0].shape[0], len(cols), [dt] * len(cols)


_HISTDD_UNMODELLED = ("np.histogramdd's temporaries (the stacked sample, each dimension's "
                      "bin indices, the flat index, bincount's counts) are not modelled, and "
                      "values on the last edge make index buffers: bytes set by the values")


def histdd(sample: Any, bins: Any, rng: Any, density: Any, weights: Any) -> tuple:
    n, d, dts = _dd_sample(sample)
    unmodelled(_HISTDD_UNMODELLED)
    for dt in dts:
        if dt.kind not in "biufc":
            raise UnsupportedOperationError("np.histogramdd", f"dtype {dt}")
    if weights is not None:
        wm = as_meta(weights)
        if wm.dtype.kind not in "biuf":
            raise UnsupportedOperationError("np.histogramdd", f"weights of dtype {wm.dtype}")
        if wm.ndim != 1 or wm.shape[0] != n:
            raise UnsupportedOperationError("np.histogramdd", "weights not of the sample's length")
    try:
        if isinstance(bins, str):
            raise TypeError
        m_ = len(bins)
        if m_ != d:
            raise ValueError('The dimension of bins must be equal to the dimension of the '
                             'sample x.')
    except TypeError:
        bins = d * [bins]
    if rng is None:
        rng = (None,) * d
    elif len(rng) != d:
        raise ValueError('range argument must have one entry per dimension')
    edges, nbin = [], []
    for i in range(d):
        b = bins[i]
        nd = b.ndim if is_meta(b) else np.ndim(b)
        if nd == 0:
            if hasattr(b, "storage_offset"):
                raise DataDependentError("bins given by a fake 0-d array")
            if b < 1:
                raise ValueError(f'`bins[{i}]` must be positive, when an integer')
            first, last = _outer_edges(dts[i], n, rng[i])
            try:
                k = operator.index(b)
            except TypeError as e:
                raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from e
            edges.append(_linspace(first, last, k + 1, None))
            nbin.append(k + 2)
        elif nd == 1:
            em = as_meta(b)
            vals = known_values(b)
            if vals is not None and vals.dtype.kind in "biufmM" and np.any(vals[:-1] > vals[1:]):
                raise ValueError(f'`bins[{i}]` must be monotonically increasing, when an array')
            edges.append(em if hasattr(em, "storage_offset")
                         else ArrayMeta(em.shape, em.dtype, c_strides(em.shape, em.dtype.itemsize)))
            nbin.append(em.shape[0] + 1)
        else:
            raise ValueError(f'`bins[{i}]` must be a scalar or 1d array')
    full = tuple(nbin)
    shape = tuple(k - 2 if k >= 2 else 0 for k in full)
    st = c_strides(full, 8)
    if density:
        h = ArrayMeta(shape, _F8, st)
        for i in range(d):
            bs = tuple(k - 2 if j == i else 1 for j, k in enumerate(full))
            h = chained_ufunc(np.true_divide, h, ArrayMeta(bs, _F8, c_strides(bs, 8)))
        return final_result(h), edges
    return ArrayMeta(shape, _F8, st, base_shape=full), edges


@register(np.histogramdd, tags=("copy",))
def histogramdd(sample: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None) -> tuple:
    """np.histogramdd: float64 counts (a view hist[1:-1, ...] of the full count array)."""
    return histdd(sample, bins, range, density, weights)
