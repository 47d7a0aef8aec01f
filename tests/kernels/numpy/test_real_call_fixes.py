"""Calls that real programs made and the fakes answered wrongly or crashed on, each checked
differentially against real NumPy (and SciPy) on awkward layouts."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils.surveys.samples import A
from oracle import check

LAYOUTS = ("C", "F", "T", "neg", "strided", "bcast")


# --- np.polyfit of a 2-d y: (c.T / scale).T laid out by the ufunc rule ----------------------

@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("deg", [0, 1, 2, 4])
@pytest.mark.parametrize("lay", LAYOUTS)
def test_polyfit_of_2d_y(k, deg, lay):
    check(lambda x, y: np.polyfit(x, y, deg), np.arange(6.0), A(lay, (6, k), "f8").make(np))
    check(lambda x, y: np.polyfit(x, y, deg), np.arange(6.0), A(lay, (6, k), "c16").make(np))


def test_polyfit_of_a_broadcast_column():
    y = np.broadcast_to(np.arange(5.0)[:, None], (5, 1))
    check(lambda x, y: np.polyfit(x, y, 2), np.arange(5.0), y)


# --- np.linspace(retstep=True) of array bounds: the step is (stop - start) / div ------------

@pytest.mark.parametrize("lay", LAYOUTS)
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_step_of_array_bounds(lay, axis, endpoint):
    a = A(lay, (2, 3), "f8").make(np)
    check(lambda a: np.linspace(a, 10, 4, axis=axis, endpoint=endpoint, retstep=True), a)
    check(lambda a: np.linspace(0, a, 4, axis=axis, endpoint=endpoint, retstep=True), a)
    check(lambda a, b: np.linspace(a, b, 4, axis=axis, endpoint=endpoint, retstep=True),
          a, A("F", (2, 3), "f4").make(np))


# --- scipy.fft with overwrite_x=True: a new array object over the input's data ----------------

@pytest.mark.parametrize("fn", ["fft", "ifft", "fftn", "ifftn", "fft2"])
@pytest.mark.parametrize("lay", ["C", "strided", "neg", "T"])
@pytest.mark.parametrize("dt", ["c8", "c16"])
def test_scipy_fft_overwrite_x_gives_a_view_of_the_input(fn, lay, dt):
    sf = pytest.importorskip("scipy.fft")
    f = getattr(sf, fn)
    x = A(lay, (4, 6), dt).make(np)
    real_in = x.copy() if lay == "C" else x
    r = f(real_in, overwrite_x=True)
    with ft.FakeMode():
        fx = ft.to_fake(real_in)
        fr = f(fx, overwrite_x=True)
    assert (fr is fx) == (r is real_in)
    assert np.shares_memory(fr, fx) == np.shares_memory(r, real_in)
    assert (fr.shape, fr.dtype, fr.strides, fr.flags.owndata) == (r.shape, r.dtype, r.strides,
                                                                    r.flags.owndata)


def _in_mode(fn):
    def run(*args):
        if any(ft.is_fake(a) for a in args):
            with ft.FakeMode():
                return fn(*args)
        return fn(*args)
    return run


@pytest.mark.parametrize("x, dt", [
    (np.ones(3), np.dtype("f8").newbyteorder("=")), (np.ones(3), np.dtype(float)),
    (np.ones((4, 3), np.complex64).T, np.dtype("c8").newbyteorder("=")),
    (np.array(["ab"], "U3"), "U3"), (np.ones(3, ">f8"), ">f8"), (np.ones(3, "M8[s]"), "M8[s]"),
    (np.zeros(3, [("a", "i4")]), [("a", "i4")]), (np.ones(3, np.int64), np.int64)])
def test_asarray_with_an_equal_but_other_descriptor_is_a_view(x, dt):
    """np.asarray/np.array(copy=None) give the input itself only for its own descriptor
    object; an equal other one gives a view (scipy.fft's ``_asfarray`` passes
    ``x.dtype.newbyteorder('=')``: SciPy's overwrite_x results are views of the input)."""
    check(_in_mode(lambda x: np.asarray(x, dtype=dt)), x)
    check(_in_mode(lambda x: np.array(x, dtype=dt, copy=None)), x)
    check(_in_mode(lambda x: np.asarray(x, dtype=x.dtype)), x)
    check(_in_mode(lambda x: np.ascontiguousarray(x, dtype=dt)), x)


_SOS = np.array([[1.0, 2.0, 1.0, 1.0, -0.5, 0.1]] * 2)  # real second-order sections


# --- SciPy: a DataDependentError names the public SciPy function the program called ---------

@pytest.mark.parametrize("name, call", [
    ("scipy.ndimage.median_filter", lambda sp, x: sp.ndimage.median_filter(x, 3)),
    ("scipy.signal.sosfilt", lambda sp, x: sp.signal.sosfilt(_SOS, x[0])),
    ("scipy.sparse.csr_array", lambda sp, x: sp.sparse.csr_array(x)),
    ("scipy.sparse.csr_matrix", lambda sp, x: sp.sparse.csr_matrix(x)),
    ("scipy.interpolate.griddata", lambda sp, x: sp.interpolate.griddata(x[:, :2], x[:, 0], x[:3, :2])),
])
def test_scipy_data_dependent_errors_name_the_function(name, call):
    import importlib
    sp = pytest.importorskip("scipy")
    for mod in ("ndimage", "signal", "sparse", "interpolate"):
        importlib.import_module(f"scipy.{mod}")
    with ft.FakeMode():
        x = np.random.rand(8, 8)  # unknown values (np.ones would be known: faketensor/_known.py)
        # DataDependentError where SciPy reads a value, UnsupportedOperationError where it
        # copies the data out: either way the message names the function the program called
        with pytest.raises((ft.DataDependentError, ft.UnsupportedOperationError),
                           match=f"(^|run ){name}[: ]"):
            call(sp, x)
    assert sp.sparse.csr_array(np.eye(3)).nnz == 3  # outside a mode: SciPy as it is


# --- dask: from_array of one fake twice gives one name -----------------------------------------

@pytest.mark.parametrize("in_mode", [False, True])
def test_dask_from_array_of_one_fake_is_deterministic(in_mode):
    da = pytest.importorskip("dask.array")
    import contextlib
    f = ft.to_fake(np.ones((4, 6)).T)
    g = ft.to_fake(np.ones((4, 6)).T)
    with ft.FakeMode() if in_mode else contextlib.nullcontext():
        for chunks in ("auto", 2, (3, 1)):
            a, b = da.from_array(f, chunks=chunks), da.from_array(f, chunks=chunks)
            assert a.name == b.name and a.chunks == b.chunks
            assert da.from_array(g, chunks=chunks).name != a.name  # other bytes, another name
        real = np.ones((4, 6)).T
        assert da.from_array(f).chunks == da.from_array(real).chunks


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_is_fake_of_fake_matrices_and_chararrays():
    with ft.FakeMode():
        m = np.asmatrix(np.ones((2, 3)))
        b = np.bmat([[m, m]])
        c = np.char.array(["ab", "c"])
    assert type(m).__name__ == "FakeMatrix" and ft.is_fake(m) and ft.is_fake(b)
    assert ft.is_fake(c) and not ft.is_fake(np.asmatrix(np.ones((2, 3))))
    assert not ft.is_fake(np.ones(3)) and not ft.is_fake([1, 2])


# --- integer powers: a known negative exponent raises as NumPy does ---------------------------

@pytest.mark.parametrize("lay", LAYOUTS)
@pytest.mark.parametrize("exp", [np.int64(-1), np.int8(-3), -2, np.int64(2), 3])
def test_integer_power_of_a_known_negative_exponent(lay, exp):
    a = A(lay, (3, 4), "i8").make(np)
    check(_in_mode(lambda a: a ** exp), a)
    check(_in_mode(lambda a: np.power(a, exp)), a)
    check(_in_mode(lambda a: np.power(a, np.full(4, exp))), a)  # a uniform known fake
    check(_in_mode(lambda a: np.power(a.astype(np.float64), exp)), a)
    check(_in_mode(lambda a: np.power(a[:0], exp)), a)  # no element: no error


# --- errors that depend on values, raised where the values are known --------------------------

_BINS = {"increasing": [0.0, 2.0, 5.0], "decreasing": [3.0, 2.0, 1.0], "flat": [1.0, 1.0, 2.0],
         "one-step-down": [0, 5, 4, 9]}


@pytest.mark.parametrize("lay", LAYOUTS)
@pytest.mark.parametrize("bins", list(_BINS))
def test_histogram_bins_known_not_increasing(lay, bins):
    a = A(lay, (3, 4), "f8").make(np)
    b = _BINS[bins]
    check(_in_mode(lambda a: np.histogram(a, bins=b)), a)
    check(_in_mode(lambda a: np.histogram(a, bins=np.array(b))), a)  # a known fake in a mode
    check(_in_mode(lambda a: np.histogram_bin_edges(a, bins=b)), a)
    check(_in_mode(lambda a: np.histogram2d(a.ravel(), a.ravel(), bins=[b, 3])), a)
    check(_in_mode(lambda a: np.histogramdd(a.reshape(-1, 2), bins=[3, np.array(b)])), a)


_WEIGHTS = {"ones": [1.0, 1.0, 1.0, 1.0], "zeros": [0.0] * 4, "one-nonzero": [0, 0, 2.0, 0],
            "inf": [1.0, np.inf, 0, 0], "nan": [np.nan, 1.0, 1.0, 1.0]}


@pytest.mark.parametrize("lay", LAYOUTS)
@pytest.mark.parametrize("w", list(_WEIGHTS))
def test_quantile_weights_known_to_sum_to_zero(lay, w):
    a = A(lay, (3, 4), "f8").make(np)
    wv = np.array(_WEIGHTS[w])
    kw = {"method": "inverted_cdf"}
    check(_in_mode(lambda a: np.quantile(a, 0.5, axis=1, weights=wv, **kw)), a)
    check(_in_mode(lambda a: np.percentile(a, [10, 90], axis=-1, weights=wv, **kw)), a)
    check(_in_mode(lambda a: np.quantile(a, 0.5, axis=1, weights=np.broadcast_to(wv, a.shape)
                                         .copy(), **kw)), a)
    full = np.broadcast_to(wv, a.shape).copy()
    check(_in_mode(lambda a: np.nanquantile(a, 0.5, axis=1, weights=full, **kw)), a)
    check(_in_mode(lambda a: np.nanquantile(a, 0.5, axis=(1, 0), weights=full.T, **kw)), a)
    with_nan = a.copy()
    with_nan[:, 2] = np.nan  # the weights there are dropped: known values decide
    check(_in_mode(lambda a: np.nanquantile(a, 0.5, axis=1, weights=full, **kw)), with_nan)


def test_nanquantile_weights_of_unknown_values_refuse():
    with ft.FakeMode():
        a = np.empty((3, 4))  # values unknown: where they are NaN is too
        for w in (np.zeros(4), np.array([1.0, np.inf, 0, 0])):
            with pytest.raises(ft.DataDependentError, match="NaN"):
                np.nanquantile(a, 0.5, axis=1, weights=np.broadcast_to(w, a.shape).copy(),
                               method="inverted_cdf")
        np.nanquantile(a, 0.5, axis=1, weights=np.ones((3, 4)), method="inverted_cdf")


# --- calls refused although their metadata does not depend on values ---------------------------

_TEXT = np.array([[b"a", b"", b"cc"], [b"", b"x", b""]])


@pytest.mark.parametrize("kw", [{"axis": 0}, {"axis": -1, "keepdims": True},
                                {"axis": None, "keepdims": True}, {"axis": (0, 1)}], ids=str)
@pytest.mark.parametrize("x", [_TEXT, _TEXT.astype("U3"), _TEXT.T, _TEXT.astype("U3")[:, ::-1],
                               np.asfortranarray(_TEXT.astype("U3")), _TEXT[:0]],
                         ids=["S", "U", "S.T", "U-neg", "U-F", "S-empty"])
def test_count_nonzero_of_text_along_axes(x, kw):
    from faketensor.meta_utils.surveys.memsurvey import measure_call
    check(lambda a: np.count_nonzero(a, **kw), x)
    m = measure_call(lambda: ((x.copy(),), kw), lambda: np.count_nonzero)
    assert m.verdict == "exact", m.difference()


_A3, _B3, _X = np.ones((3, 4, 5)), np.ones((4, 2, 5)), np.arange(12.0).reshape(3, 4)
GUFUNC_AXES = {
    "matmul-axes-front": (lambda a, b: np.matmul(a, b, axes=[(0, 1), (0, 1), (0, 1)]), (_A3, _B3)),
    "matmul-axes-out-last": (lambda a, b: np.matmul(a, b, axes=[(0, 1), (0, 1), (1, 2)]), (_A3, _B3)),
    "matmul-axes-swapped": (lambda a, b: np.matmul(a, b, axes=[(1, 0), (0, 1), (-1, -2)]),
                            (_A3.transpose(1, 0, 2).copy(), _B3)),
    "matmul-keepdims": (lambda a: np.matmul(a, a.T, keepdims=True), (_X,)),
    "vecdot-axis": (lambda x: np.vecdot(x, x, axis=0), (_X,)),
    "vecdot-axis-keepdims": (lambda x: np.vecdot(x, x, axis=0, keepdims=True), (_X,)),
    "vecdot-T-keepdims": (lambda x: np.vecdot(x.T, x.T, axis=1, keepdims=True), (_X,)),
    "vecdot-keepdims": (lambda x: np.vecdot(x, x, keepdims=True), (_X,)),
    "vecdot-1d-axis": (lambda x: np.vecdot(x[0], x[0], axis=0), (_X,)),
    "vecdot-axes-ints": (lambda x: np.vecdot(x, x, axes=[0, 0]), (_X,)),
    "vecdot-axes-keepdims": (lambda a, b: np.vecdot(a, b, axes=[0, 2], keepdims=True),
                             (np.ones((3, 3, 3)), np.ones((3, 1, 3)))),
    "vecdot-axes-out-keepdims": (lambda a, b: np.vecdot(a, b, axes=[0, 2, 1], keepdims=True),
                                 (np.ones((3, 3, 3)), np.ones((3, 1, 3)))),
    "vecdot-axes-full": (lambda x: np.vecdot(x, x, axes=[(0,), (0,), ()]), (_X,)),
    "vecdot-axis-out-of-range": (lambda x: np.vecdot(x, x, axis=2), (_X,)),
    "vecdot-axis-and-axes": (lambda x: np.vecdot(x, x, axis=0, axes=[0, 0]), (_X,)),
    "vecdot-axes-tuple": (lambda x: np.vecdot(x, x, axes=(0, 0)), (_X,)),
    "vecdot-axes-too-many": (lambda x: np.vecdot(x, x, axes=[0, (0, 1)]), (_X,)),
    "vecdot-mixed-dtypes": (lambda x: np.vecdot(x.astype("f4"), x, axis=0), (_X,)),
    "vecdot-neg-keepdims": (lambda x: np.vecdot(x[:, ::-1], x, axis=1, keepdims=True), (_X,)),
    "linalg.vecdot-axis": (lambda x: np.linalg.vecdot(x, x, axis=0), (_X,)),
    "linalg.vecdot-axis-neg": (lambda x: np.linalg.vecdot(x.T, x.T, axis=-2), (_X,)),
    "matvec-axes": (lambda x, v: np.matvec(x, v, axes=[(1, 0), (0,), (0,)]), (_X, np.ones(3))),
    "matvec-axes-mismatch": (lambda x, v: np.matvec(x, v, axes=[(1, 0), (0,), (0,)]),
                             (_X.T.copy(), np.ones(3))),
    "matvec-axis": (lambda x, v: np.matvec(x, v, axis=0), (_X, np.ones(4))),
    "vecmat-axes": (lambda x, v: np.vecmat(v, x, axes=[(0,), (0, 1), (0,)]), (_X, np.ones(3))),
}


@pytest.mark.parametrize("name", list(GUFUNC_AXES))
def test_gufunc_axes_axis_keepdims(name):
    """axes= / axis= / keepdims= of matmul, vecdot, matvec, vecmat: metadata and bytes."""
    from faketensor.meta_utils.surveys.memsurvey import measure_call
    fn, args = GUFUNC_AXES[name]
    check(fn, *args)
    m = measure_call(lambda: (tuple(a.copy() for a in args), {}), lambda: fn)
    assert m.verdict in ("exact", "skip"), m.difference()


_EA, _EB = np.arange(12.0).reshape(3, 4), np.arange(20.0).reshape(4, 5)
EINSUM_SUBLISTS = {
    "matmul": (lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2]), (_EA, _EB)),
    "implicit-out": (lambda a, b: np.einsum(a, [0, 1], b, [1, 2]), (_EA, _EB)),
    "transpose-view": (lambda a: np.einsum(a, [0, 1], [1, 0]), (_EA,)),
    "implicit-T": (lambda a: np.einsum(a, [0, 1]), (_EA.T,)),
    "ellipsis": (lambda a: np.einsum(a, [Ellipsis, 1], [Ellipsis]), (_EA,)),
    "lower-case-labels": (lambda a, b: np.einsum(a, [30, 1], b, [1, 51], [51, 30]), (_EA, _EB)),
    "label-out-of-range": (lambda a: np.einsum(a, [0, 52]), (_EA,)),
    "two-ellipses": (lambda a: np.einsum(a, [Ellipsis, Ellipsis]), (_EA,)),
    "diagonal": (lambda a: np.einsum(a, [0, 0]), (_EA[:, :3],)),
    "optimize": (lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2], optimize=True), (_EA, _EB)),
}


@pytest.mark.parametrize("name", list(EINSUM_SUBLISTS))
def test_einsum_sublist_form(name):
    from faketensor.meta_utils.surveys.memsurvey import measure_call
    fn, args = EINSUM_SUBLISTS[name]
    check(fn, *args)
    m = measure_call(lambda: (tuple(a.copy() for a in args), {}), lambda: fn)
    assert m.verdict in ("exact", "skip"), m.difference()
