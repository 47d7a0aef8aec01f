"""Differential tests of the statistics kernels against real NumPy: median, quantile, average,
cov, gradient, ... (kernels/numpy/function_base.py), partition (sorting.py), nanvar and the
nan-cumulatives (nanfunctions.py), histograms (histograms.py, twodim_base.py), iscomplex,
nan_to_num, ... (type_check.py), convolve and correlate (numeric.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import faketensor as ft
from tests import oracle
from tests.oracle import check

SET = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
DTS = [np.dtype(d) for d in (np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32,
                             np.float64, np.complex64)]
REAL = [d for d in DTS if d.kind != "c"]
TIMES = [np.dtype(d) for d in ("M8[h]", ">M8[s]", "M8[D]", "m8[ms]", ">m8[s]")]
SHAPES = [(), (0,), (5,), (4, 6), (3, 0, 2), (2, 3, 4), (1, 4, 1)]


def cases(dts=DTS, shapes=SHAPES) -> list:
    """Every awkward layout (oracle.every_layout) of ones(shape) for each dtype and shape."""
    return [pytest.param(a, id=f"{dt}-{shape}-{name}") for shape in shapes for dt in dts
            for name, a in oracle.every_layout(np.ones(shape, dt))]


ALL = cases()
SMALL = cases(dts=[np.dtype(np.int16), np.dtype(np.float32), np.dtype(np.complex128)],
              shapes=[(), (0,), (5,), (4, 6), (3, 0, 2), (2, 3, 4)])


def _dd(fn, a):
    """fn raises DataDependentError on the fake."""
    with pytest.raises(ft.DataDependentError):
        fn(ft.to_fake(a))


# --- partition, median ----------------------------------------------------------------

MEDIAN = [lambda a, ax=ax, kd=kd: np.median(a, axis=ax, keepdims=kd)
          for ax in (None, 0, -1, (0, -1), (0, 1, 2)) for kd in (False, True)]


@pytest.mark.parametrize("a", ALL)
def test_median_layouts(a):
    for fn in MEDIAN:
        check(fn, a)


MEDIAN_OVERWRITE = [lambda a, ax=ax, kd=kd: np.median(a, axis=ax, keepdims=kd, overwrite_input=True)
                    for ax in (None, 0, -1, (0, -1), (0, 1, 2)) for kd in (False, True)]


@pytest.mark.parametrize("a", ALL)
def test_median_overwrite_input_layouts(a):
    """overwrite_input partitions the input itself (or a.ravel(), a copy where a is not
    C-contiguous): the mean reads the input's layout; a read-only input (broadcast, or
    made read-only) raises where NumPy writes it and not where it writes a copy."""
    for fn in MEDIAN_OVERWRITE:
        check(fn, a)


QUANTILE_OVERWRITE = [
    lambda a, ax=ax, m=m, q=q: np.quantile(a, q, axis=ax, method=m, overwrite_input=True)
    for ax in (None, 0, 1, -1, (0, -1)) for m in ("linear", "nearest", "midpoint")
    for q in (0.4, [0.3, 0.6])]


@pytest.mark.parametrize("a", ALL)
def test_quantile_overwrite_input_layouts(a):
    """overwrite_input with one axis partitions the input itself: _lerp's result keeps the
    kept axes in the input's memory order (advanced indexing of the partitioned input)."""
    for fn in QUANTILE_OVERWRITE:
        check(fn, a)


NAN_OVERWRITE = [lambda x: np.nanmedian(x, overwrite_input=True),
                 lambda x: np.nanpercentile(x, 50, overwrite_input=True),
                 lambda x: np.nanquantile(x, [0.5], axis=0, overwrite_input=True)]


@pytest.mark.parametrize("fn", NAN_OVERWRITE)
def test_nan_functions_overwrite_a_read_only_input(fn):
    """On the whole input (axis None, or 1-d), overwrite_input writes ``a.ravel()``: a
    read-only C-contiguous input raises NumPy's ValueError for integers; for floats NumPy
    raises unless every value is NaN, which a fake cannot know; a strided input's ravel is
    a copy (no error)."""
    ints = np.arange(6)
    ints.flags.writeable = False
    check(fn, ints)
    strided = np.arange(24.0).reshape(4, 6)[:, ::2]
    strided.flags.writeable = False
    check(fn, strided)
    floats = np.arange(6.0)
    floats.flags.writeable = False
    with pytest.raises(ValueError):
        fn(floats)
    with ft.FakeMode(), pytest.raises(ft.DataDependentError, match="unless every value is NaN"):
        fn(ft.to_fake(floats))


def test_median_overwrite_input_read_only_and_out():
    ro = np.arange(24.0).reshape(2, 3, 4)
    ro.flags.writeable = False
    for fn in MEDIAN_OVERWRITE:
        check(fn, ro)  # C-contiguous: ravel and the axes' reshape are views, so ValueError
        check(fn, ro[:, :, ::2])  # axis None and the axes' reshape copy: no error
    for ax in (None, 0, -1, (0, 2)):  # np.quantile partitions the same arrays in place
        for m in ("linear", "nearest"):
            check(lambda x: np.quantile(x, 0.5, axis=ax, overwrite_input=True, method=m), ro)
            check(lambda x: np.percentile(x, [10, 50], axis=ax, overwrite_input=True, method=m),
                  ro[:, :, ::2])
    check(lambda x, o: np.median(x, axis=0, out=o, overwrite_input=True), np.ones((3, 4)),
          np.empty(4))
    check(lambda x, o: np.median(x, axis=(0, 2), out=o, keepdims=True, overwrite_input=True),
          np.ones((3, 4, 5)), np.empty((1, 4, 1)))


@pytest.mark.parametrize("fn", [lambda y, o: np.median(y, axis=0, out=o, overwrite_input=True),
                                lambda y, o: np.quantile(y, 0.5, out=o, overwrite_input=True),
                                lambda y, o: np.percentile(y, 50, axis=0, out=o, overwrite_input=True)])
def test_overwrite_input_forgets_known_values(fn):
    """A fake that knows its values and is partitioned in place by ``overwrite_input``: its
    values are what NumPy leaves where the call runs for real on them, else unknown."""
    real = np.array([3.0, 1.0, 2.0, 0.0, 5.0])
    fn(real, None)
    with ft.FakeMode():
        y = np.array([3.0, 1.0, 2.0, 0.0, 5.0])
        fn(y, None)  # every input known: computed for real, in place
        assert y.tolist() == real.tolist()
        y = np.array([3.0, 1.0, 2.0, 0.0, 5.0])
        fn(y, np.empty(()))  # an out without values: y's values are forgotten
        with pytest.raises(ft.DataDependentError):
            y.tolist()


@pytest.mark.parametrize("a", SMALL)
def test_partition_layouts(a):
    check(lambda x: np.partition(x, 0), a)
    check(lambda x: np.partition(x, -1, axis=None), a)
    check(lambda x: np.partition(x, [0, 1], axis=0), a)
    check(lambda x: np.argpartition(x, [0, 1], axis=0), a)
    check(lambda x: np.argpartition(x, 0, axis=None), a)
    check(lambda x: np.argpartition(x, -1), a)


@SET
@given(a=oracle.arrays(dtypes=REAL, max_dims=3), kd=st.booleans(),
       ax=st.sampled_from([None, 0, -1, (0, 1), (1, -1), 5]))
def test_median_hypothesis(a, kd, ax):
    check(lambda x: np.median(x, axis=ax, keepdims=kd), a)


def test_median_out():
    a = np.ones((3, 4, 5))
    check(lambda x, o: np.median(x, axis=1, out=o), a, np.empty((3, 5)))
    check(lambda x, o: np.median(x, axis=(0, 2), out=o, keepdims=True), a, np.empty((1, 4, 1)))
    check(lambda x, o: np.median(x, axis=None, out=o, keepdims=True), a, np.empty((1, 1, 1)))
    check(lambda x, o: np.median(x, axis=1, out=o), a, np.empty((3, 4)))  # wrong shape
    check(lambda x, o: np.median(x, axis=1, out=o), a, np.empty((3, 5), np.int8))  # casting
    check(lambda x, o: np.median(x, axis=1, out=o), a, np.empty((5, 3)).T)
    ro = np.empty((3, 5))
    ro.flags.writeable = False
    check(lambda x, o: np.median(x, axis=1, out=o), a, ro)


BAD_PARTITION = [
    lambda x: np.partition(x, 7),
    lambda x: np.partition(x, -8),
    lambda x: np.partition(x, 1.0),
    lambda x: np.partition(x, True),
    lambda x: np.partition(x, [[1]]),
    lambda x: np.partition(x, 1, axis=3),
    lambda x: np.partition(x, 1, kind="quick"),
    lambda x: np.partition(x, 1, order="a"),
    lambda x: np.argpartition(x, 9),
    lambda x: np.argpartition(x, 1, axis=-4),
    lambda x: np.argpartition(x, [1, 2.5]),
    lambda x: np.median(x, axis=4),
    lambda x: np.median(x, axis=(0, 0)),
    lambda x: np.median(x, axis=1.5),
]


@pytest.mark.parametrize("fn", BAD_PARTITION)
def test_partition_bad(fn):
    check(fn, np.ones((2, 3, 4)))


def test_partition_zero_d_and_empty():
    for fn in (lambda x: np.partition(x, 0), lambda x: np.argpartition(x, 0),
               lambda x: np.argpartition(x, 0, axis=0), lambda x: np.median(x, axis=0)):
        check(fn, np.ones(()))
    check(lambda x: np.partition(x, 5, axis=0), np.ones((0, 3)))
    check(lambda x: np.median(x, axis=(0, 1)), np.ones((3, 0, 2)))  # reshape of size 0


# --- elementwise helpers ----------------------------------------------------------------

ELEMENTWISE = [np.angle, lambda a: np.angle(a, deg=True), np.iscomplex, np.isreal, np.sinc,
               np.i0, np.nan_to_num, lambda a: np.nan_to_num(a, copy=False, nan=1.0),
               np.real_if_close]


@pytest.mark.parametrize("a", ALL)
def test_elementwise_layouts(a):
    for fn in ELEMENTWISE:
        if fn is np.real_if_close and a.dtype.kind == "c" and a.size:
            _dd(fn, a)
            continue
        if fn is np.i0 and a.dtype.kind == "c":
            check(fn, a)  # TypeError
            continue
        check(fn, a)


def test_array_equiv_data_dependent():
    _dd(lambda x: np.array_equiv(x, x), np.ones((2, 3)))
    check(lambda x: np.array_equiv(x, np.ones((0, 3))), np.ones((1, 3)))
    check(lambda x: np.array_equiv(x, np.ones((2, 4))), np.ones((2, 3)))


def test_nan_to_num_readonly():
    ro = np.ones((2, 3))
    ro.flags.writeable = False
    check(lambda x: np.nan_to_num(x, copy=False), ro)
    check(lambda x: np.nan_to_num(x, copy=False), ro.astype(np.int32))
    check(lambda x: np.nan_to_num(x, copy=True), ro)


@SET
@given(a=oracle.arrays(max_dims=3))
def test_elementwise_hypothesis(a):
    for fn in (np.angle, np.isreal, np.iscomplex, np.sinc, np.nan_to_num):
        check(fn, a)


# --- differences, cumulative reductions, trapezoid -----------------------------------------

DIFFS = [np.diff, lambda a: np.diff(a, 2, axis=0), lambda a: np.diff(a, 0),
         lambda a: np.diff(a, prepend=0, append=np.float32(1)),
         lambda a: np.diff(a, prepend=a), np.ediff1d,
         lambda a: np.ediff1d(a, to_begin=[1, 2], to_end=3), np.trapezoid,
         lambda a: np.trapezoid(a, axis=0),
         lambda a: np.trapezoid(a, x=np.ones(a.shape[-1] if a.ndim else 1)),
         lambda a: np.trapezoid(a, x=a), np.cumulative_sum,
         lambda a: np.cumulative_prod(a, axis=-1, include_initial=True),
         lambda a: np.cumulative_sum(a, axis=0, dtype=np.float32),
         np.nancumsum, lambda a: np.nancumprod(a, axis=0)]


@pytest.mark.parametrize("a", ALL)
def test_differences_layouts(a):
    for fn in DIFFS:
        check(fn, a)


@SET
@given(a=oracle.arrays(max_dims=3), n=st.integers(0, 3), ax=st.integers(-3, 2))
def test_diff_hypothesis(a, n, ax):
    check(lambda x: np.diff(x, n, axis=ax), a)
    check(lambda x: np.cumulative_sum(x, axis=ax, include_initial=True), a)


BAD_DIFF = [lambda x: np.diff(x, -1), lambda x: np.diff(x, 1.5), lambda x: np.diff(x, axis=3),
            lambda x: np.diff(x, prepend=np.ones((3, 3))),
            lambda x: np.ediff1d(x, to_begin=1.5),
            lambda x: np.ediff1d(x.astype(bool)),
            lambda x: np.trapezoid(x, axis=4), lambda x: np.trapezoid(x, x=np.ones(7)),
            lambda x: np.cumulative_sum(x), lambda x: np.cumulative_sum(x, axis=2),
            lambda x: np.cumulative_sum(x, axis=0, out=np.empty((3, 3))),
            lambda x: np.cumulative_sum(x, axis=1, out=np.empty((2, 4)), include_initial=True),
            lambda x: np.nancumsum(x, axis=5)]


@pytest.mark.parametrize("fn", BAD_DIFF)
def test_differences_bad(fn):
    check(fn, np.ones((2, 3), np.int32))


def test_cumulative_out():
    a = np.ones((2, 3))
    check(lambda x, o: np.cumulative_sum(x, axis=1, out=o, include_initial=True), a,
          np.empty((2, 4)))
    check(lambda x, o: np.cumulative_prod(x, axis=0, out=o), a, np.empty((3, 2)).T)
    check(lambda x, o: np.nancumsum(x, axis=0, out=o), a, np.empty((2, 3), np.float32))


# --- histograms, bincount, digitize ---------------------------------------------------------

RD = [d for d in REAL]
HISTS = [np.histogram, lambda a: np.histogram(a, 3, range=(0, 2)),
         lambda a: np.histogram(a, [0, 1, 2.5]),
         lambda a: np.histogram(a, 4, weights=a, density=True),
         lambda a: np.histogram(a, np.arange(3), weights=a.astype(np.float32), density=True),
         np.histogram_bin_edges, lambda a: np.histogram(a, range=(1, 1)),
         lambda a: np.histogram_bin_edges(a, 5, range=(np.float32(0), 2)),
         lambda a: np.histogramdd(a.reshape(-1, 1) if a.ndim != 2 else a, bins=3),
         lambda a: np.histogramdd(a.reshape(-1, 1) if a.ndim != 2 else a, bins=2, density=True),
         lambda a: np.histogram2d(a.ravel(), a.ravel(), bins=[2, np.arange(4.)]),
         lambda a: np.histogram2d(a.ravel(), a.ravel(), bins=3, density=True,
                                  range=[(0, 1), (0, 4)]),
         lambda a: np.digitize(a, [1, 2]), lambda a: np.digitize(a, np.array([3., 1.]), right=True)]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("a", cases(dts=RD))
def test_histogram_layouts(a):
    for fn in HISTS:
        check(fn, a)
    if a.ndim == 1 and a.size == 0:
        check(np.bincount, a)
        check(lambda x: np.bincount(x, minlength=3), a)
        check(lambda x: np.histogram_bin_edges(x, "auto"), a)
    elif a.ndim == 1 and a.dtype.kind == "f":
        check(np.bincount, a)  # TypeError: no safe cast to intp
    elif a.ndim == 1:
        _dd(np.bincount, a)
        _dd(lambda x: np.histogram(x, "auto"), a)
    else:
        check(np.bincount, a)  # ValueError on the rank


def test_histogram_bins_fake_is_returned():
    a, b = np.ones(5), np.arange(3.0)
    fa, fb = ft.to_fake((a, b))
    assert np.histogram(fa, fb)[1] is fb
    check(lambda x, e: np.histogram(x, e), a, b)


@pytest.mark.parametrize("a", [pytest.param(a, id=f"{dt}-{shape}-{name}")
                               for shape in [(0,), (5,), (4, 6), (2, 3, 4)] for dt in TIMES
                               for name, a in oracle.every_layout(
                                   (np.arange(math.prod(shape)) ** 2).astype(dt).reshape(shape))])
def test_histogram_datetime_layouts(a):
    """datetime64 / timedelta64 data with the edges given: intp (or the weights') counts
    and the edges as given; edges of another unit, weights, density, histogram_bin_edges.
    A number of bins NumPy cannot turn into edges of datetimes (its error depends on the
    values): refused."""
    e = np.array([0, 3, 9, 40], "i8").astype(a.dtype)
    check(lambda x, b: np.histogram(x, b), a, e)
    check(lambda x, b: np.histogram(x, b), a, e.astype(f"{e.dtype.kind}8[ms]"))
    check(lambda x, b: np.histogram(x, b, weights=np.ones(x.shape, "f4")), a, e)
    check(lambda x, b: np.histogram(x, b, density=True), a, e)
    check(lambda x: np.histogram(x, list(e)), a)  # a list of NumPy scalars
    check(lambda x, b: np.histogram(x, b[::-1]), a, e)  # not monotonic: ValueError
    check(lambda x, b: np.histogram_bin_edges(x, b), a, e)
    for bins in (3, "auto"):
        with pytest.raises(ft.UnsupportedOperationError):
            np.histogram(ft.to_fake(a), bins)


BAD_HIST = [lambda x: np.histogram(x, 0), lambda x: np.histogram(x, 2.5),
            lambda x: np.histogram(x, "nope"), lambda x: np.histogram(x, "auto", weights=x),
            lambda x: np.histogram(x, np.ones((2, 2))), lambda x: np.histogram(x, range=(2, 1)),
            lambda x: np.histogram(x, range=(0, np.inf)), lambda x: np.histogram(x, weights=x[:2]),
            lambda x: np.histogramdd(x.reshape(-1, 2), bins=[2, 3, 4]),
            lambda x: np.histogramdd(x.reshape(-1, 2), bins=[0, 3]),
            lambda x: np.histogramdd(x.reshape(-1, 2), range=[(0, 1)]),
            lambda x: np.histogram2d(x, x[:2]),
            lambda x: np.bincount(x.astype(np.float32)), lambda x: np.bincount(x[:0], minlength=-1),
            lambda x: np.bincount(x[:0], minlength=None),
            lambda x: np.digitize(x + 1j, [1]), lambda x: np.digitize(x, np.ones((2, 2))),
            lambda x: np.digitize(x, 1)]


@pytest.mark.parametrize("fn", BAD_HIST)
def test_histogram_bad(fn):
    check(fn, np.ones(6, np.int64))


# --- convolve, correlate, cross, interp --------------------------------------------------------

VEC_SHAPES = [(), (0,), (5,), (3,), (2,), (4, 3), (3, 2, 3)]
VECS = [np.convolve, lambda a: np.convolve(a, np.ones(2), "same"),
        lambda a: np.correlate(a, np.ones(7, np.int8), "valid"),
        lambda a: np.correlate(np.ones(2), a, 2), lambda a: np.cross(a, a),
        lambda a: np.cross(a, np.ones(3), axisa=0),
        lambda a: np.cross(a, np.ones((3, 1)), axisb=0, axisc=0),
        lambda a: np.cross(a, np.ones(2), axis=-1),
        lambda a: np.interp(a, [1, 2], [3, 4]),
        lambda a: np.interp(a, [1, 2], [3j, 4], period=2),
        lambda a: np.interp(np.ones(2), a, a)]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("a", cases(shapes=VEC_SHAPES))
def test_vector_functions_layouts(a):
    for fn in VECS:
        check(fn, a)


BAD_VEC = [lambda x: np.convolve(x, x, "x"), lambda x: np.convolve(x, x, 3),
           lambda x: np.convolve(x[:0], x), lambda x: np.correlate(x, x[:0]),
           lambda x: np.correlate(x.reshape(1, 3), x), lambda x: np.cross(x, x[:2, None]),
           lambda x: np.cross(x, x, axisa=2), lambda x: np.cross(x, x, axisc=-2),
           lambda x: np.cross(x.astype(bool), x.astype(bool)),
           lambda x: np.interp(x, [1, 2], [3]), lambda x: np.interp(x, [], []),
           lambda x: np.interp(x, 1, 2), lambda x: np.interp(x + 1j, [1, 2], [3, 4]),
           lambda x: np.interp(x, [1, 2], [3, 4], period=0),
           lambda x: np.interp(x, [1, 2], [3, 4], left=1j)]


@pytest.mark.parametrize("fn", BAD_VEC)
def test_vector_functions_bad(fn):
    check(fn, np.ones(3))


# --- average, unwrap ---------------------------------------------------------------------------

def _w(a, axes):
    return np.ones(tuple(a.shape[i] for i in axes) if a.ndim else 1, np.int8)


AVG = [np.average, lambda a: np.average(a, axis=0, returned=True),
       lambda a: np.average(a, axis=(0, -1), keepdims=True, returned=True),
       lambda a: np.average(a, weights=a, returned=True),
       lambda a: np.average(a, axis=0, weights=_w(a, (0,)).astype(np.float32), returned=True),
       lambda a: np.average(a, axis=(-1, 0), weights=_w(a, (-1, 0)).T[::-1], returned=True,
                            keepdims=True),
       np.unwrap, lambda a: np.unwrap(a, axis=0, period=4),
       lambda a: np.unwrap(a, period=np.float32(1))]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("a", ALL)
def test_average_unwrap_layouts(a):
    for fn in AVG:
        check(fn, a)


BAD_AVG = [lambda x: np.average(x, axis=3), lambda x: np.average(x, weights=np.ones(3)),
           lambda x: np.average(x, axis=1, weights=np.ones(2)),
           lambda x: np.average(x[:, :0], axis=1, weights=np.ones(0)),
           lambda x: np.average(x[:0], axis=1),
           lambda x: np.unwrap(x, axis=2), lambda x: np.unwrap(x + 1j)]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fn", BAD_AVG)
def test_average_unwrap_bad(fn):
    check(fn, np.ones((2, 3)))


# --- nanvar, nanstd, cov, corrcoef, gradient --------------------------------------------------

NANVAR = [lambda a, f=f, ax=ax, kd=kd: f(a, axis=ax, keepdims=kd)
          for f in (np.nanvar, np.nanstd) for ax in (None, 0, -1, (0, -1))
          for kd in (False, True)]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("a", ALL)
def test_nanvar_layouts(a):
    for fn in NANVAR:
        check(fn, a)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("kw", [dict(dtype="f4"), dict(dtype="f8", ddof=1), dict(ddof=2.5),
                                dict(correction=1), dict(ddof=1, correction=1),
                                dict(dtype=int), dict(axis=3), dict(axis=(0, 0)),
                                dict(where=np.array([True, False, True, True])),
                                dict(axis=1, mean=np.zeros((3, 1))), dict(axis=1, mean=np.zeros((2, 1)))])
def test_nanvar_kwargs(kw):
    for f in (np.nanvar, np.nanstd):
        for a in (np.ones((3, 4)), np.ones((4, 3), "f4").T, np.ones((3, 4), "c8")[:, ::-1],
                  np.ones((3, 4), "i2")):
            check(lambda x: f(x, **kw), a)


@pytest.mark.filterwarnings("ignore")
def test_nanvar_out():
    for f in (np.nanvar, np.nanstd):
        for o in (np.empty(4), np.empty(4, "f4"), np.empty(4, int), np.empty(3), np.empty((1, 4))):
            check(lambda x, o: f(x, axis=0, out=o), np.ones((3, 4)), o)
            check(lambda x, o: f(x, axis=0, out=o, keepdims=True), np.ones((3, 4), "i4"), o)


COVS = [np.ones(()), np.ones(0), np.ones(5), np.ones((3, 4)), np.ones((4, 3), order="F"),
        np.ones((3, 4), "f4")[::-1, ::2], np.ones((1, 5)), np.ones((0, 3)), np.ones((3, 0)),
        np.ones((3, 4), "c8").T, np.ones((2, 3), int), np.ones((2, 3), bool),
        np.ones((2, 3), "f2"), np.broadcast_to(np.ones(4), (3, 4)), np.ones((2, 3, 2))]
COV_KW = [{}, dict(rowvar=False), dict(bias=True), dict(ddof=0), dict(ddof=1.5),
          dict(dtype="f4"), dict(dtype="c16"), dict(dtype=int), dict(dtype="f2", rowvar=False)]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("a", COVS, ids=range(len(COVS)))
def test_cov_corrcoef(a):
    for kw in COV_KW:
        check(lambda x: np.cov(x, **kw), a)
        if "bias" not in kw and "ddof" not in kw:
            check(lambda x: np.corrcoef(x, **kw), a)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("kw", [dict(fweights=np.array([1, 2, 1, 1])),
                                dict(aweights=np.ones(4, "f4")),
                                dict(fweights=np.arange(4), aweights=np.ones(4), ddof=1),
                                dict(fweights=np.ones(3)), dict(aweights=np.ones((2, 4))),
                                dict(fweights=np.array(1)), dict(fweights=np.ones(4), dtype="f4"),
                                dict(aweights=np.ones(4), bias=True)])
def test_cov_weights(kw):
    for a in (np.ones((3, 4)), np.ones((4, 3)).T, np.ones(4, "c8"), np.ones((2, 0))):
        check(lambda x: np.cov(x, **kw), a)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("rowvar", [True, False])
def test_cov_y(rowvar):
    for a, b in ((np.ones((2, 4)), np.ones((3, 4))), (np.ones(4), np.ones(4, "f4")),
                 (np.ones((4, 2)), np.ones((4, 1))), (np.ones((2, 4)), np.ones((2, 3))),
                 (np.ones((2, 4)), np.ones((2, 2, 2))), (np.ones((0, 4)), np.ones((2, 3))),
                 (np.ones((2, 4), "i2"), np.ones(4, "c8"))):
        check(lambda x, y: np.cov(x, y, rowvar=rowvar), a, b)
        check(lambda x, y: np.corrcoef(x, y, rowvar=rowvar), a, b)


GRAD = [lambda a: np.gradient(a), lambda a: np.gradient(a, axis=-1),
        lambda a: np.gradient(a, 2.0, edge_order=2), lambda a: np.gradient(a, axis=(0, -1)),
        lambda a: np.gradient(a, edge_order=3), lambda a: np.gradient(a, 1, 2, 3, 4, 5)]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("a", cases(shapes=[(), (1,), (2,), (5,), (4, 6), (3, 0, 2), (2, 3, 4)]))
def test_gradient_layouts(a):
    for fn in GRAD:
        check(fn, a)


@pytest.mark.filterwarnings("ignore")
def test_gradient_spacing():
    a = np.ones((4, 3), order="F")
    for args in ((np.arange(4.0), np.arange(3)), (np.array([0, 1, 3, 4]), 1.0),
                 (np.ones((4, 1)), 1.0), (np.arange(3.0), 1.0), (np.arange(4, dtype="f4"), [0, 2, 3])):
        for eo in (1, 2):
            check(lambda x: np.gradient(x, *args, edge_order=eo), a)
    check(lambda x: np.gradient(x, np.arange(1.0)), np.ones(1))
    check(lambda x: np.gradient(x, [0, 1, 3], edge_order=1), np.ones(3, bool))
    check(lambda x: np.gradient(x, axis=2), np.ones((3, 3)))
    check(lambda x: np.gradient(x, axis=(0, 0)), np.ones((3, 3)))


GRAD_TIMES = GRAD[:-1] + [lambda a: np.gradient(a, np.array([0.0, 1, 3, 4])[:a.shape[0]], axis=0),
                          lambda a: np.gradient(a, np.arange(a.shape[-1]), axis=-1, edge_order=2)]


@pytest.mark.parametrize("a", [pytest.param(a, id=f"{dt}-{shape}-{name}")
                               for shape in [(), (2,), (5,), (4, 6), (3, 0, 2), (2, 3, 4)]
                               for dt in TIMES for name, a in oracle.every_layout(
                                   (np.arange(math.prod(shape)) ** 2).astype(dt).reshape(shape))])
def test_gradient_datetime_layouts(a):
    """datetime64 f: the gradient is the timedelta of its unit (f viewed as it, native byte
    order by name); timedelta64 f keeps its dtype."""
    for fn in GRAD_TIMES:
        check(fn, a)


@pytest.mark.filterwarnings("ignore")
@SET
@given(oracle.arrays(max_dims=3))
def test_nan_stats_cov_gradient_random(a):
    check(lambda x: np.nanvar(x, axis=-1 if x.ndim else None, ddof=1), a)
    check(lambda x: np.nanstd(x, keepdims=True), a)
    check(np.gradient, a)
    if a.ndim <= 2:
        check(np.cov, a)
        check(lambda x: np.corrcoef(x, rowvar=False), a)
