"""The oracle compares warnings (meta_utils/oracle.py compare_warnings), and the known gaps
it leaves aside (oracle.UNMIRRORED) each have a strict xfail here: fixed, it fails, and
its entry goes from the list."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils import oracle as fo


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


# One call per known gap (oracle.UNMIRRORED), each warning on the real arrays.
GAPS = {
    "Mean of empty slice": (np.mean, (np.ones((2, 0)),), {"axis": 1}),
    "Degrees of freedom <= 0 for slice": (np.var, (np.ones(1),), {"ddof": 1}),
    "Casting complex values to real discards": (np.cumsum, (np.ones(3, complex),),
                                                {"dtype": float}),
}


def test_every_gap_has_a_sample() -> None:
    assert set(GAPS) == set(fo.UNMIRRORED)
    for fn, args, kwargs in GAPS.values():
        assert _categories(fn, *args, **kwargs), fn  # the real call warns


@pytest.mark.xfail(strict=True, reason="the fakes do not give these metadata-determined "
                   "warnings yet (oracle.UNMIRRORED names where NumPy gives them)")
@pytest.mark.parametrize("gap", sorted(GAPS))
def test_known_gap(gap: str) -> None:
    fn, args, kwargs = GAPS[gap]
    want = _categories(fn, *args, **kwargs)
    with ft.FakeMode():
        got = _categories(fn, *args, **kwargs)
    assert got == want
