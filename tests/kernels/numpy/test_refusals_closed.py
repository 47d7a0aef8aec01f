"""Calls faketensor used to refuse although NumPy's metadata does not depend on values: each
checked differentially against real NumPy on awkward layouts, with its bytes against
tracemalloc where it allocates."""
from __future__ import annotations

import numpy as np
import pytest

import faketensor as ft
from memtools import op_peaks
from oracle import check


def _copies(*xs):
    return lambda: [x.copy(order="K") if isinstance(x, np.ndarray) else x for x in xs]


# --- np.logspace with an array base: broadcast with the bounds, expand_dims at axis -------------

BASES = [np.array([2.0, 10.0]), np.array([[2.0], [3.0], [10.0]]), np.arange(2, 8).reshape(2, 3).T,
         np.array([2, 10], np.int32), np.array([[2.0, 3.0]]).T[::-1], [2, 10], [[2.0], [3.0]],
         np.full((2, 0), 2.0), np.array([2.0, 10.0], np.float32)]
BOUNDS = [(np.array(0.0), 1), (np.array([0.0, 1.0]), 3), (np.array([[0.0], [1.0]]), np.array([1.0, 2.0])),
          (0.0, np.arange(3.0)), (np.array(1), 2j), (np.array([1, 2], np.int8), np.array([[3], [4]], np.int8))]
LOGSPACE_KW = [{}, {"axis": 1}, {"axis": -1}, {"num": 4, "endpoint": False}, {"dtype": np.float32},
               {"dtype": int, "num": 3}, {"axis": 2}, {"num": 0}, {"num": 1}]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("b", range(len(BASES)))
def test_logspace_array_base(b):
    base = BASES[b]
    for start, stop in BOUNDS:
        for kw in LOGSPACE_KW:
            fn = lambda s, e, b, kw=kw: np.logspace(s, e, base=b, **kw)  # noqa: E731
            check(fn, start, stop, base)
            try:
                real, fake = op_peaks(_copies(start, stop, base), fn)
            except ValueError:  # shapes that do not broadcast: checked above
                continue
            assert fake == real, (np.shape(base), np.shape(start), np.shape(stop), kw)


def test_logspace_array_base_with_number_bounds_in_a_mode():
    """NumPy dispatches logspace on its bounds only: with number bounds, a mode answers."""
    for base in ([2.0, 10.0], np.array([[2.0], [3.0]]), np.arange(2.0, 8.0).reshape(2, 3).T):
        for kw in ({}, {"axis": 1}, {"axis": -1, "num": 3}, {"dtype": np.float32}):
            real = np.logspace(0, 1, base=base, **kw)
            with ft.FakeMode():
                fake = np.logspace(0, 1, base=base, **kw)
            assert ft.is_fake(fake)
            assert (fake.shape, fake.dtype, fake.strides) == (real.shape, real.dtype, real.strides)
            real_peak, fake_peak = op_peaks(_copies(base), lambda b, kw=kw: np.logspace(0, 1, base=b, **kw))
            assert fake_peak == real_peak


# --- sort / argsort of void dtypes: unstructured (memcmp), nested and subarray fields -----------

VOIDS = [np.dtype("V8"), np.dtype("V3"), np.dtype([("a", "i4"), ("b", [("c", "f8"), ("d", "i2")])]),
         np.dtype([("a", "i4"), ("b", [("c", "f8"), ("d", "i2")])], align=True),
         np.dtype([("a", "i4"), ("b", "f8", (2,))]), np.dtype([("a", "<i8"), ("b", "f4", (2,))], align=True),
         np.dtype([("a", "u1"), ("b", "i1")]), np.dtype([("a", "V4"), ("b", "S3")]),
         np.dtype([("a", ">i4"), ("b", "i2")])]
# VOID_compare copies no field of these (aligned everywhere, native): their bytes are exact
ALIGNED = {0, 1, 3, 5, 6, 7}
SORTS = {"sort": np.sort, "sort0": lambda x: np.sort(x, axis=0), "sortN": lambda x: np.sort(x, axis=None),
         "argsort": np.argsort, "argsortN": lambda x: np.argsort(x, axis=None),
         "stable": lambda x: np.sort(x, kind="stable"), "method": lambda x: x.sort(),
         "astable": lambda x: np.argsort(x, stable=True), "order": lambda x: np.sort(x, order="b")}


def _void_layout(shape, dt, kind):
    a = np.zeros(shape, dt)
    if kind == "T" and a.ndim == 2:
        return a.T
    if kind == "neg" and a.ndim:
        return a[::-1]
    if kind == "step" and a.ndim:
        return np.concatenate([a, a])[::2]
    return a


@pytest.mark.parametrize("d", range(len(VOIDS)))
def test_sort_of_void_dtypes(d):
    from faketensor.meta_utils.surveys.memsurvey import measure_call
    dt = VOIDS[d]
    for shape in [(5,), (3, 4), (0, 3), (1,), ()]:
        for kind in ("C", "T", "neg", "step"):
            for name, fn in SORTS.items():
                check(fn, _void_layout(shape, dt, kind))
                m = measure_call(lambda: ((_void_layout(shape, dt, kind),), {}), lambda: fn)
                allowed = ("exact", "skip") if d in ALIGNED else ("exact", "skip", "unmodelled")
                assert m.verdict in allowed, (shape, kind, name, m)


def test_sort_of_object_fields_is_refused():
    with pytest.warns(ft.ObjectArrayWarning):
        f = ft.to_fake(np.zeros(3, [("a", "O"), ("b", "i4")]))
    with pytest.raises(ft.UnsupportedOperationError, match="Python objects compared"):
        np.sort(f)


# --- busday_offset / busday_count / is_busday on arrays -----------------------------------------

DAYS = np.array(["2020-01-06", "2020-01-07", "2020-01-08", "2020-01-09", "2020-01-10", "2020-01-13"],
                "M8[D]")


def _days(shape, kind):
    base = np.asarray(DAYS[0] if shape == () else DAYS[:0] if shape == (0,) else DAYS.reshape(shape))
    if kind == "T" and base.ndim == 2:
        return base.T
    if kind == "neg" and base.ndim:
        return base[::-1]
    if kind == "step" and base.ndim:
        return np.concatenate([base, base])[::2]
    if kind == "bcast" and base.ndim == 2:
        return np.broadcast_to(base[:1], base.shape)
    if kind == "big-endian":
        return base.astype(base.dtype.newbyteorder(">"))
    if kind == "weeks":
        return base.astype("M8[W]")
    return base


BUSDAY_CALLS = {
    "is_busday": (np.is_busday, lambda d: ()),
    "is_busday weekmask holidays": (lambda x: np.is_busday(x, weekmask="1111111", holidays=["2020-01-07"]),
                                    lambda d: ()),
    "offset": (lambda x: np.busday_offset(x, 1, roll="forward"), lambda d: ()),
    "offset i4 row": (lambda x, o: np.busday_offset(x, o, roll="following"),
                      lambda d: (np.ones(d.shape[-1:], np.int32),)),
    "offset column": (lambda x, o: np.busday_offset(x, o, roll="forward"),
                      lambda d: (np.ones(d.shape[:1] + (1,) * (d.ndim > 1), np.int64),)),
    "offset python float": (lambda x: np.busday_offset(x, 1.5, roll="forward"), lambda d: ()),
    "offset f8 array": (lambda x, o: np.busday_offset(x, o, roll="forward"), lambda d: (np.ones(d.shape),)),
    "offset bad roll": (lambda x: np.busday_offset(x, 1, roll="nope"), lambda d: ()),
    "count": (lambda x: np.busday_count(x, "2021-01-01"), lambda d: ()),
    "count both": (lambda x, y: np.busday_count(x, y), lambda d: (d.copy(),)),
    "count calendar": (lambda x: np.busday_count(x, "2021-01-01", busdaycal=np.busdaycalendar(weekmask="1111011")),
                       lambda d: ()),
    "count calendar and weekmask": (lambda x: np.busday_count(x, "2021-01-01", weekmask="1111011",
                                                              busdaycal=np.busdaycalendar()), lambda d: ()),
    "count zero weekmask": (lambda x: np.busday_count(x, "2021-01-01", weekmask="0000000"), lambda d: ()),
    "is_busday out": (lambda x, o: np.is_busday(x, out=o), lambda d: (np.zeros(d.shape, bool),)),
    "is_busday out T": (lambda x, o: np.is_busday(x, out=o), lambda d: (np.zeros(d.shape[::-1], bool).T,)),
    "is_busday out i8": (lambda x, o: np.is_busday(x, out=o), lambda d: (np.zeros(d.shape, "i8"),)),
    "is_busday out f4": (lambda x, o: np.is_busday(x, out=o), lambda d: (np.zeros(d.shape, "f4"),)),
    "count out too small": (lambda x, o: np.busday_count(x, x, out=o), lambda d: (np.zeros((1,), "i8"),)),
    "offset out list": (lambda x: np.busday_offset(x, 1, roll="forward", out=[1]), lambda d: ()),
    "holidays 2-d": (lambda x, h: np.is_busday(x, holidays=h), lambda d: (np.array([["2020-01-07"]], "M8[D]"),)),
    "holidays array": (lambda x, h: np.is_busday(x, holidays=h),
                       lambda d: (np.array(["2020-01-07", "2020-01-08"], "M8[D]"),)),
}


@pytest.mark.parametrize("name", list(BUSDAY_CALLS))
def test_busday_functions_on_arrays(name):
    """Output dtype M8[D] / int64 / bool laid out by the iterator (order K over the dates and
    offsets) or ``out``; NumPy's own argument errors; the converted arguments' and 0-d
    copies' bytes (the dates are business days, so roll="raise" would not raise either)."""
    from faketensor.meta_utils.surveys.memsurvey import measure_call
    fn, more = BUSDAY_CALLS[name]
    measured = 0
    for shape in [(6,), (2, 3), (), (0,), (3, 2)]:
        for kind in ("C", "T", "neg", "step", "bcast", "big-endian", "weeks"):
            d = _days(shape, kind)
            args = (d,) + more(d)
            check(fn, *args)
            m = measure_call(lambda: (tuple(x.copy() if isinstance(x, np.ndarray) else x for x in args), {}),
                             lambda: fn)
            assert m.verdict in ("exact", "skip"), (shape, kind, m)
            measured += m.verdict == "exact"
    assert measured or "bad" in name or "zero" in name or "and weekmask" in name or "small" in name \
        or "list" in name or "2-d" in name or "f8 array" in name


def test_busday_offset_into_a_larger_out_and_of_strings():
    check(lambda x, o: np.busday_offset(x, 1, roll="forward", out=o), np.array("2020-01-06", "M8[D]"),
          np.zeros((3, 2), "M8[D]"))
    check(lambda x: np.busday_offset(x, 1, roll="forward"), DAYS.astype("M8[s]"))
    check(lambda x: np.busday_count(["2020-01-01", "2020-02-01"], x), np.zeros(2, "M8[D]"))


def test_busday_fake_weekmask_is_data_dependent():
    with pytest.raises(ft.DataDependentError, match="weekmask"):
        np.is_busday(ft.to_fake(DAYS), weekmask=ft.to_fake(np.ones(7, bool)))
