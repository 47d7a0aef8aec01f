"""Differential tests of the reduction kernels against real NumPy."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import faketensor as ft
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import oracle
from tests.oracle import check

# Real reductions of empty samples warn from NumPy (mean of an empty slice, 0/0): the
# oracle compares those warnings itself; the other tests here are about the results.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Mean of empty slice:RuntimeWarning",
    "ignore:invalid value encountered:RuntimeWarning")

SET = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
NUM = [np.dtype(d) for d in (np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float16,
                             np.float32, np.float64, np.complex64, np.complex128)]
REAL = [d for d in NUM if d.kind != "c"]


@st.composite
def axis_for(draw, ndim: int, allow_tuple: bool = True):
    kind = draw(st.sampled_from(["none", "int", "tuple", "bad"] if allow_tuple else ["none", "int", "bad"]))
    if kind == "none" or (ndim == 0 and kind != "bad"):
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    if kind == "tuple":
        axes = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
        return tuple(a - ndim if draw(st.booleans()) else a for a in axes)
    return draw(st.sampled_from([ndim, -ndim - 1]))


@st.composite
def where_for(draw, shape):
    if draw(st.booleans()):
        return True
    wshape = tuple(n if draw(st.booleans()) else 1 for n in shape)
    wshape = wshape[draw(st.integers(0, len(wshape))):]
    return oracle.layouts(np.ones(wshape, bool), draw)


def _quiet(fn):
    def run(*a, **k):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*a, **k)
    run.__name__ = getattr(fn, "__name__", "fn")
    return run


# --- ufunc.reduce ------------------------------------------------------------------

UFUNCS = [np.add, np.multiply, np.maximum, np.minimum, np.logical_and, np.logical_or,
          np.subtract, np.bitwise_xor, np.fmax, np.hypot]


@SET
@given(st.data())
def test_ufunc_reduce(data):
    a = data.draw(oracle.arrays(dtypes=NUM))
    uf = data.draw(st.sampled_from(UFUNCS))
    kw = {}
    if data.draw(st.booleans()):
        kw["axis"] = data.draw(axis_for(a.ndim))
    if data.draw(st.booleans()):
        kw["keepdims"] = True
    if data.draw(st.booleans()):
        kw["dtype"] = data.draw(st.sampled_from([None, np.float64, np.int32, bool, np.complex64]))
    if data.draw(st.booleans()):
        kw["initial"] = data.draw(st.sampled_from([0, 1, None]))
    if data.draw(st.booleans()):
        kw["where"] = data.draw(where_for(a.shape))
    check(_quiet(lambda x: uf.reduce(x, **kw)), a)


@SET
@given(st.data())
def test_reduce_out(data):
    a = data.draw(oracle.arrays(dtypes=REAL, min_dims=1))
    axis = data.draw(axis_for(a.ndim))
    keepdims = data.draw(st.booleans())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            shape = np.sum(a, axis=axis, keepdims=keepdims).shape
        except Exception:
            shape = (2,)
    if data.draw(st.booleans()) and shape:
        shape = shape[:-1] + (shape[-1] + 1,)
    out = np.zeros(shape, data.draw(st.sampled_from([np.float64, np.int16, np.complex128])))
    fn = data.draw(st.sampled_from([np.sum, np.prod, np.max, np.min, np.mean, np.var, np.std,
                                    np.all, np.any, np.ptp]))
    check(_quiet(lambda x, o: fn(x, axis=axis, out=o, keepdims=keepdims)), a, out)


# --- functions and methods ----------------------------------------------------------

FUNCS = {
    "sum": (np.sum, True, True), "prod": (np.prod, True, True), "max": (np.max, False, True),
    "min": (np.min, False, True), "amax": (np.amax, False, True), "all": (np.all, False, False),
    "any": (np.any, False, False), "mean": (np.mean, True, False), "var": (np.var, True, False),
    "std": (np.std, True, False),
}


@SET
@given(st.data())
def test_functions(data):
    name = data.draw(st.sampled_from(sorted(FUNCS)))
    fn, has_dtype, has_initial = FUNCS[name]
    a = data.draw(oracle.arrays(dtypes=NUM))
    kw = {"axis": data.draw(axis_for(a.ndim)), "keepdims": data.draw(st.booleans())}
    if has_dtype and data.draw(st.booleans()):
        kw["dtype"] = data.draw(st.sampled_from([np.float32, np.float64, np.int64, np.complex128]))
    if has_initial and data.draw(st.booleans()):
        kw["initial"] = 1
    if data.draw(st.booleans()):
        kw["where"] = data.draw(where_for(a.shape))
        if name in ("max", "min", "amax") and "initial" not in kw:
            kw["initial"] = 0
    check(_quiet(lambda x: fn(x, **kw)), a)
    if name in ("sum", "prod", "max", "min", "all", "any", "mean", "var", "std"):
        check(_quiet(lambda x: getattr(x, name)(**kw)), a)


@SET
@given(st.data())
def test_mean_var_std_ddof(data):
    a = data.draw(oracle.arrays(dtypes=NUM))
    fn = data.draw(st.sampled_from([np.var, np.std]))
    axis = data.draw(axis_for(a.ndim))
    kd = data.draw(st.booleans())
    check(_quiet(lambda x: fn(x, axis=axis, ddof=1, keepdims=kd)), a)
    m = np.mean(a, axis=axis, keepdims=True) if axis is None or isinstance(axis, int) and -a.ndim <= axis < a.ndim else None
    if m is not None and a.ndim:
        check(_quiet(lambda x, mm: fn(x, axis=axis, mean=mm)), a, m)


@SET
@given(st.data())
def test_argminmax(data):
    a = data.draw(oracle.arrays(dtypes=REAL))
    fn = data.draw(st.sampled_from([np.argmax, np.argmin]))
    axis = data.draw(axis_for(a.ndim, allow_tuple=False))
    kd = data.draw(st.booleans())
    check(lambda x: fn(x, axis=axis, keepdims=kd), a)
    check(lambda x: getattr(x, fn.__name__)(axis=axis, keepdims=kd), a)


@SET
@given(st.data())
def test_cumulative(data):
    a = data.draw(oracle.arrays(dtypes=NUM))
    fn = data.draw(st.sampled_from([np.cumsum, np.cumprod]))
    axis = data.draw(axis_for(a.ndim, allow_tuple=False))
    dtype = data.draw(st.sampled_from([None, np.float32, np.int8]))
    check(_quiet(lambda x: fn(x, axis=axis, dtype=dtype)), a)
    check(_quiet(lambda x: getattr(x, fn.__name__)(axis=axis, dtype=dtype)), a)


@SET
@given(st.data())
def test_accumulate(data):
    a = data.draw(oracle.arrays(dtypes=NUM))
    uf = data.draw(st.sampled_from([np.add, np.multiply, np.maximum, np.logical_or, np.subtract]))
    kw = {}
    if data.draw(st.booleans()):
        kw["axis"] = data.draw(axis_for(a.ndim))
    if data.draw(st.booleans()):
        kw["dtype"] = data.draw(st.sampled_from([np.float64, np.int32]))
    check(_quiet(lambda x: uf.accumulate(x, **kw)), a)


@SET
@given(st.data())
def test_ptp(data):
    a = data.draw(oracle.arrays(dtypes=REAL))
    axis = data.draw(axis_for(a.ndim))
    kd = data.draw(st.booleans())
    check(_quiet(lambda x: np.ptp(x, axis=axis, keepdims=kd)), a)


# --- awkward cases and bad inputs ------------------------------------------------------

def _awkward():
    c = np.ones((3, 4, 5))
    return [
        np.array(2.5), np.ones((0,)), np.ones((0, 3)), np.ones((3, 0)), c, c.T, c[::-1, :, ::2],
        np.asfortranarray(c), np.broadcast_to(np.ones(5), (3, 4, 5)), c.transpose(1, 2, 0),
        np.ones((3, 1, 4)), np.ones((1, 1)), np.ones((2, 3), np.int8)[:, ::-1],
        np.ones((4, 3), np.float16).T, np.ones((3, 4), np.complex64)[::2],
    ]


CASES = [
    lambda x: np.sum(x), lambda x: np.sum(x, axis=0), lambda x: np.sum(x, axis=-1, keepdims=True),
    lambda x: np.max(x, axis=0), lambda x: np.min(x, axis=None, initial=3),
    lambda x: np.prod(x, axis=(0, -1)), lambda x: np.mean(x, axis=0), lambda x: x.mean(),
    lambda x: np.var(x, axis=-1), lambda x: np.std(x, axis=(0,), keepdims=True),
    lambda x: np.argmax(x), lambda x: np.argmin(x, axis=0), lambda x: np.cumsum(x),
    lambda x: np.cumprod(x, axis=-1), lambda x: np.all(x, axis=0), lambda x: np.any(x, keepdims=True),
    lambda x: np.ptp(x, axis=0), lambda x: np.add.reduce(x), lambda x: np.maximum.reduce(x),
    lambda x: np.add.accumulate(x), lambda x: np.subtract.reduce(x, axis=None),
    lambda x: np.sum(x, dtype="U3"),
    lambda x: np.add.reduce(x, axis=[0]), lambda x: np.sum(x, axis=0.0),
    lambda x: np.argmax(x, axis=(0,)), lambda x: np.maximum.reduce(x, axis=0, where=True),
    lambda x: np.add.reduce(x, axis=0, where=np.array(1)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_awkward_table(case):
    fn = _quiet(CASES[case])
    for a in _awkward():
        check(fn, a)


def test_bad_inputs():
    a = np.ones((3, 4))
    check(lambda x: np.sum(x, axis=2), a)  # AxisError
    check(lambda x: np.sum(x, axis=(0, 0)), a)  # ValueError duplicate
    check(lambda x: np.max(x, axis=1), np.ones((3, 0)))  # no identity
    check(lambda x: np.argmax(x, axis=1), np.ones((3, 0)))
    check(lambda x: np.maximum.reduce(x, where=np.ones(4, bool)), a)
    check(lambda x: np.subtract.reduce(x, axis=(0, 1)), a)
    check(lambda x: np.add.accumulate(x, axis=None), a)
    check(lambda x: np.add.accumulate(x), np.array(1.0))
    check(lambda x: np.sum(x, where=np.ones(4)), a)  # TypeError: float mask
    check(lambda x, o: np.sum(x, axis=0, out=o), a, np.ones(3))
    check(lambda x, o: np.sum(x, axis=0, out=o), a, np.ones((1, 4)))
    check(lambda x, o: np.sum(x, axis=0, out=o), a, np.broadcast_to(np.ones(4), (4,)))
    check(lambda x, o: np.argmax(x, axis=0, out=o), a, np.ones(3, np.intp))
    check(lambda x, o: np.cumsum(x, axis=0, out=o), a, np.ones((4, 3)))
    check(lambda x: np.add.reduce(x, dtype="m8[s]"), a)
    check(lambda x: np.add.reduce(x), np.ones(3, "M8[s]"))
    check(lambda x: np.negative.reduce(x), a)
    check(lambda x: np.sum(x, initial="abc"), a)
    check(lambda x: np.std(x, dtype=int), np.ones((2, 2), int))


def test_out_returned_itself():
    a = np.ones((3, 4))
    for fn in (np.sum, np.mean, np.var, np.std, np.max, np.ptp):
        r = check(lambda x, o: fn(x, axis=1, out=o), a, np.empty(3))
        assert r is not None


def test_full_reduction_is_0d_fake():
    import faketensor as ft
    f = ft.to_fake(np.ones((3, 4)))
    r = np.sum(f)
    assert ft.is_fake(r) and r.shape == () and r.dtype == np.float64
    assert np.mean(ft.to_fake(np.ones(3, np.int8))).dtype == np.float64
    assert np.mean(ft.to_fake(np.ones((2, 3), np.float16)), axis=0).dtype == np.float16


NANFUNCS = [np.nansum, np.nanprod, np.nanmin, np.nanmax, np.nanmean]


@SET
@given(st.data())
def test_nanfunctions(data):
    a = data.draw(oracle.arrays(dtypes=REAL))
    fn = data.draw(st.sampled_from(NANFUNCS))
    kw = {"axis": data.draw(axis_for(a.ndim)), "keepdims": data.draw(st.booleans())}
    if data.draw(st.booleans()):
        kw["where"] = data.draw(where_for(a.shape))
        if fn in (np.nanmin, np.nanmax):
            kw["initial"] = 0
    check(_quiet(lambda x: fn(x, **kw)), a)


@SET
@given(st.data())
def test_nanarg_and_count_nonzero(data):
    a = data.draw(oracle.arrays(dtypes=REAL))
    axis = data.draw(axis_for(a.ndim, allow_tuple=False))
    kd = data.draw(st.booleans())
    fn = data.draw(st.sampled_from([np.nanargmax, np.nanargmin]))
    check(_quiet(lambda x: fn(x, axis=axis, keepdims=kd)), a)
    check(lambda x: np.count_nonzero(x, axis=axis, keepdims=kd), a)  # no axis: an intp scalar
    tup = data.draw(axis_for(a.ndim))
    if tup is not None:
        check(lambda x: np.count_nonzero(x, axis=tup), a)


@SET
@given(st.data())
def test_outer(data):
    a = data.draw(oracle.arrays(dtypes=NUM, max_dims=2))
    b = data.draw(oracle.arrays(dtypes=NUM, max_dims=2))
    uf = data.draw(st.sampled_from([np.add, np.multiply, np.maximum, np.subtract, np.greater]))
    check(_quiet(lambda x, y: uf.outer(x, y)), a, b)


def test_out_ellipsis_keeps_a_0d_array():
    x = np.ones(3)
    real = np.add.reduce(x, out=...)
    fake = np.add.reduce(ft.to_fake(x), out=...)
    assert type(real) is np.ndarray and fake.flags.writeable == real.flags.writeable


@pytest.mark.parametrize("shape,kw", [((5,), {}), ((2, 3), {}), ((2, 3), {"axis": 0}),
                                      ((2, 3), {"keepdims": True}), ((), {})])
def test_ptp_scalar_result(shape, kw):
    """np.ptp over every element is a NumPy scalar, as np.max's is: read-only, and it holds
    no data-allocator bytes once returned (its 0-d array is the call's transient)."""
    x = np.ones(shape)
    real = np.ptp(x, **kw)
    with ft.FakeMode() as mode:
        f = ft.to_fake(x)
        before = mode.memory.live.get("cpu", 0)
        fake = np.ptp(f, **kw)
        assert fake.flags.writeable == real.flags.writeable
        assert mode.memory.live.get("cpu", 0) - before == (real.nbytes if real.flags.writeable else 0)


def test_mean_float16_scalar_result():
    x = np.ones(5, np.float16)
    real = np.mean(x)
    with ft.FakeMode():
        fake = np.mean(ft.to_fake(x))
    assert fake.flags.writeable == real.flags.writeable
