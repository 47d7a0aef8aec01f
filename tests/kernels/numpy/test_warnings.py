"""The oracle compares warnings (meta_utils/surveys/oracle.py compare_warnings), and the known gaps
it leaves aside (oracle.UNMIRRORED) each have a strict xfail here: fixed, it fails, and
its entry goes from the list."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils.surveys import oracle as fo


def _categories(fn, *args, **kwargs) -> list[str]:
    """The categories of the warnings fn gives (not the floating-point reports of values)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(*args, **kwargs)
        except Exception:  # the warnings before a failure count too
            pass
    return sorted({w.category.__name__ for w in caught if not fo.value_warning(w)})


def test_a_fake_that_does_not_warn_is_a_mismatch() -> None:
    def warns_on_real_arrays(a):
        if not ft.is_fake(a):
            warnings.warn("only the real call warns", UserWarning)
        return a + 1
    with pytest.raises(fo.Mismatch, match="real warned UserWarning: only the real call"):
        fo.check(warns_on_real_arrays, np.ones(3))


def test_a_fake_that_warns_alone_is_a_mismatch() -> None:
    def warns_on_fakes(a):
        if ft.is_fake(a):
            warnings.warn("only the fake call warns", DeprecationWarning)
        return a + 1
    with pytest.raises(fo.Mismatch, match="fake warned DeprecationWarning"):
        fo.check(warns_on_fakes, np.ones(3))


@pytest.mark.parametrize("kwargs, warns", [
    ({"where": np.array([True, False, True])}, True),
    pytest.param({"where": np.array([True, False, True]), "out": None}, False,
                 marks=pytest.mark.xfail(strict=True, reason=(
                     "NumPy's override protocol drops out=None before __array_ufunc__: the "
                     "fake cannot tell it from no out, and warns as for no out"))),
    ({"where": True}, False),
])
def test_where_without_out_warns_as_numpy(kwargs, warns) -> None:
    """ufunc_object.c: a mask and no output array given warns (UserWarning), also when the
    call then fails; the oracle checks the fake does the same."""
    fo.check(np.add, np.ones(3), np.ones(3), **kwargs)
    with ft.FakeMode():
        got = _categories(np.add, np.ones(3), np.ones(3), **kwargs)
    assert got == (["UserWarning"] if warns else [])
    fo.check(np.add, np.array(True), np.array(True), where=np.array(True), dtype=np.int8,
             casting="no")  # warns, then raises UFuncTypeError: both sides


def test_floating_point_reports_are_left_aside() -> None:
    """0/0 warns from the values: the fake cannot, and the comparison does not ask it to."""
    fo.check(np.divide, np.zeros(3), np.zeros(3))


def _warned(fn, *args, **kwargs) -> tuple[list, str | None]:
    """(category, message) of each warning fn gives, in order (not the floating-point
    reports of values), and the type of the exception it raises after them, if any."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(*args, **kwargs)
            err = None
        except Exception as e:  # the warnings before a failure count too
            err = type(e).__name__
    return [(w.category.__name__, str(w.message)) for w in caught if not fo.value_warning(w)], err


E, Z, X, CZ = np.ones((2, 0)), np.ones((0, 3)), np.ones((3, 4)), np.ones(3, complex)

# Warnings NumPy gives from metadata alone: an empty slice (_methods.py _mean,
# nanfunctions), ddof >= the slice's length (_var, nanvar, cov), a complex to real cast loop
# (convert_datatype.c complex_to_noncomplex_get_loop: every cast set up, empty arrays too)
METADATA_WARNINGS = {
    "mean_axis": (np.mean, (E,), {"axis": 1}), "mean_all": (np.mean, (E,), {}),
    "mean_rows": (np.mean, (Z,), {"axis": 0}), "mean_1d": (np.mean, (np.ones(0),), {}),
    "mean_method": (lambda a: a.mean(), (E,), {}), "mean_nonempty": (np.mean, (X,), {"axis": 0}),
    "mean_no_slices": (np.mean, (E,), {"axis": 0}),
    "mean_where_empty": (np.mean, (E,), {"axis": 1, "where": np.ones((2, 0), bool)}),
    "mean_where_no_slices": (np.mean, (Z,), {"axis": 1, "where": np.ones((0, 3), bool)}),
    "mean_where_list": (np.mean, (X,), {"axis": 1, "where": [True, False, False, False]}),
    "mean_where_list_empty": (np.mean, (X,), {"axis": 0, "where": [[False], [False], [False]]}),
    "mean_dtype": (np.mean, (E,), {"axis": 1, "dtype": "i4"}),
    "mean_then_raise": (np.mean, (E,), {"axis": 1, "out": np.ones(3)}),
    "mean_bad_axis": (np.mean, (E,), {"axis": 5}),
    "var_ddof": (np.var, (np.ones(1),), {"ddof": 1}), "var_axis": (np.var, (X,), {"ddof": 4, "axis": 1}),
    "var_ok": (np.var, (X,), {"ddof": 3, "axis": 1}), "std_all": (np.std, (X,), {"ddof": 12}),
    "std_empty": (np.std, (E,), {}), "var_rows": (np.var, (Z,), {"axis": 0}),
    "var_float_ddof": (np.var, (X,), {"ddof": 5.5, "axis": 0}),
    "std_method": (lambda a: a.std(ddof=2), (np.ones((1, 3)),), {}),
    "var_then_raise": (np.var, (X,), {"ddof": 4, "axis": 1, "dtype": "i4"}),
    "nanmean": (np.nanmean, (E,), {"axis": 1}), "nanmean_rows": (np.nanmean, (Z,), {"axis": 1}),
    "nanmean_int": (np.nanmean, (E.astype(int),), {"axis": 1}), "nanmean_1d": (np.nanmean, (np.ones(0),), {}),
    "nanvar": (np.nanvar, (X,), {"ddof": 4, "axis": 1}), "nanstd": (np.nanstd, (E,), {"axis": 1}),
    "nanvar_int": (np.nanvar, (X.astype(int),), {"ddof": 4, "axis": 1}),
    "average": (np.average, (E,), {"axis": 1}), "median": (np.median, (E,), {"axis": 1}),
    "median_1d": (np.median, (np.ones(0),), {}), "nanmedian": (np.nanmedian, (np.ones(0),), {}),
    "nanmedian_axis": (np.nanmedian, (E,), {"axis": 1}),
    "nanquantile": (np.nanquantile, (E,), {"q": 0.5, "axis": 1}),
    "nanpercentile": (np.nanpercentile, (E,), {"q": 50, "axis": 1}),
    "quantile": (np.quantile, (E,), {"q": 0.5, "axis": 1}),
    "cov_one_obs": (np.cov, (np.ones((2, 1)),), {}), "cov_1d": (np.cov, (np.ones(1),), {}),
    "cov_ddof": (np.cov, (X,), {"ddof": 4}), "cov_no_obs": (np.cov, (np.ones((2, 0)),), {}),
    "cov_bias": (np.cov, (np.ones((2, 1)),), {"bias": True}), "corrcoef": (np.corrcoef, (np.ones((2, 1)),), {}),
    "cumsum": (np.cumsum, (CZ,), {"dtype": float}), "cumsum_empty": (np.cumsum, (np.ones(0, complex),), {"dtype": float}),
    "accumulate": (np.add.accumulate, (CZ,), {"dtype": float}), "cumprod": (np.cumprod, (CZ,), {"dtype": "f4"}),
    "accumulate_empty": (np.multiply.accumulate, (np.ones((2, 0), complex),), {"dtype": float}),
    "reduceat": (np.add.reduceat, (CZ, [0, 1]), {"dtype": float}),
    "reduce": (np.add.reduce, (CZ,), {"dtype": float}), "sum": (np.sum, (CZ,), {"dtype": float}),
    "sum_axis": (np.sum, (np.ones((2, 2), complex),), {"axis": 0, "dtype": "i8"}),
    "sum_to_bool": (np.sum, (CZ,), {"dtype": bool}),
    "reduce_out": (np.add.reduce, (CZ,), {"out": np.ones(()), "casting": "unsafe"}),
    "concatenate": (np.concatenate, ([CZ, CZ],), {"dtype": float, "casting": "unsafe"}),
    "concatenate_out": (np.concatenate, ([CZ, CZ],), {"out": np.ones(6), "casting": "unsafe"}),
    "concatenate_mixed": (np.concatenate, ([CZ, np.ones(3)],), {"dtype": "i4", "casting": "unsafe"}),
    "stack": (np.stack, ([CZ, CZ],), {"dtype": float, "casting": "unsafe"}),
    "require": (np.require, (CZ,), {"dtype": float}), "array": (np.array, (CZ,), {"dtype": float}),
    "asarray": (np.asarray, (CZ,), {"dtype": float}), "astype": (lambda a: a.astype("i2"), (CZ,), {}),
    "trace": (np.trace, (np.ones((3, 3), complex),), {"dtype": float}),
    "trace_out": (np.trace, (np.ones((3, 3), complex),), {"out": np.ones(()), "dtype": complex}),
    "trace_out_default": (np.trace, (np.ones((3, 3), complex),), {"out": np.ones(())}),
    "sum_out": (np.sum, (np.ones((2, 0), complex),), {"axis": 1, "out": np.ones(2)}),
    "accumulate_out": (np.add.accumulate, (CZ,), {"dtype": complex, "out": np.ones(3)}),
    "reduceat_out": (np.add.reduceat, (CZ, [0, 1]), {"dtype": complex, "out": np.ones(2)}),
    "reduce_then_raise": (np.maximum.reduce, (np.ones(0, complex),), {"dtype": float}),
    "add_out": (np.add, (CZ, CZ), {"out": np.ones(3), "casting": "unsafe"}),
    "add_dtype": (np.add, (CZ, CZ), {"dtype": float, "casting": "unsafe"}),
    "add_python_complex": (np.add, (np.ones(3), 1j), {"out": np.ones(3), "casting": "unsafe"}),
    "add_then_raise": (np.add, (CZ, CZ), {"out": np.ones(4), "casting": "unsafe"}),
    "add_same_kind": (np.add, (CZ, CZ), {"out": np.ones(3)}),
    "matmul": (np.matmul, (CZ, CZ), {"dtype": float, "casting": "unsafe"}),
    "copyto": (np.copyto, (np.ones(3), CZ), {"casting": "unsafe"}),
    "setitem": (lambda a, b: a.__setitem__(slice(None), b), (np.ones(3), CZ), {}),
    "setitem_scalar": (lambda a: a.__setitem__(0, np.complex128(1j)), (np.ones(3),), {}),
    "fill_diagonal": (np.fill_diagonal, (np.ones((3, 3)), CZ), {}),
    "put": (np.put, (np.ones(3), [0], np.ones(1, complex)), {}),
    "clip_out": (np.clip, (CZ, 0, 1), {"out": np.ones(3), "casting": "unsafe"}),
}


@pytest.mark.parametrize("name", sorted(METADATA_WARNINGS))
def test_metadata_warnings_as_numpy(name: str) -> None:
    """The fake warns as NumPy does: same categories and messages, as many times, in the
    same order, before the same exception."""
    fn, args, kwargs = METADATA_WARNINGS[name]
    want = _warned(fn, *fo.copy_tree(args), **kwargs)
    with ft.FakeMode():
        got = _warned(fn, *args, **kwargs)
    assert got == want


def test_every_family_warns_in_the_table() -> None:
    """The table holds calls that warn each way (so it tests the warnings, not silence)."""
    said = {m for fn, args, kwargs in METADATA_WARNINGS.values()
            for _, m in _warned(fn, *fo.copy_tree(args), **kwargs)[0]}
    assert {"Mean of empty slice", "Degrees of freedom <= 0 for slice",
            "Degrees of freedom <= 0 for slice.",
            "Casting complex values to real discards the imaginary part"} <= said


def test_nothing_is_left_unmirrored() -> None:
    assert fo.UNMIRRORED == {}


@pytest.mark.parametrize("call", [
    lambda: np.mean(X, axis=1, where=np.zeros((3, 4), bool)),  # an all-False fake mask
    lambda: np.nanmean(np.full(3, np.nan)),  # an all-NaN slice
])
def test_warnings_that_come_from_values_are_not_given(call) -> None:
    """Whether a fake mask has an all-False slice, or a slice is all NaN, is the values: the
    real call warns, the fake cannot know and does not."""
    assert _warned(call)[0]
    with ft.FakeMode():
        assert _warned(call)[0] == []
