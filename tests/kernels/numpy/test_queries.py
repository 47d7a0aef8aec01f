"""Differential tests: metadata queries (np.shape, np.size, np.result_type, ...) on fakes."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import faketensor as ft
from oracle import DTYPE_FAMILIES, arrays, check

AXES = st.sampled_from([None, 0, 1, -1, 3, -5, (0, 1), 1.5])
DTYPES = st.sampled_from([np.float32, np.int8, np.uint64, np.complex64, bool, "S3", "m8[s]"])
CASTING = st.sampled_from(["safe", "same_kind", "unsafe", "no", "bogus"])


@given(arrays(dtypes=DTYPE_FAMILIES), arrays(dtypes=DTYPE_FAMILIES), AXES, DTYPES, CASTING)
def test_queries_match_numpy(a, b, axis, dt, casting):
    check(np.shape, a)
    check(np.ndim, a)
    check(np.size, a)
    check(lambda a: np.size(a, axis), a)
    check(np.iscomplexobj, a)
    check(np.isrealobj, a)
    check(np.isfortran, a)
    check(np.result_type, a, b)
    check(lambda a, b: np.result_type(a, b, 1, 2.0, dt), a, b)
    check(lambda a: np.can_cast(a, dt, casting), a)
    check(np.common_type, a, b)
    if a.ndim:
        check(np.min_scalar_type, a)


@pytest.mark.parametrize("kind", ["i8", "f4", "c8", "?"])
def test_min_scalar_type_of_0d_depends_on_value(kind):
    with pytest.raises(ft.DataDependentError):
        np.min_scalar_type(ft.empty((), kind))


@pytest.mark.parametrize("layout", ["C", "F", "T", "1xN", "0d", "empty-F"])
def test_isfortran_inside_the_mode(layout):
    """Inside a mode np.isfortran reaches its kernel (a namespace patch): it must read the fake's
    own flags, as NumPy reads ``a.flags.fnc``."""
    base = {"C": np.ones((3, 4)), "F": np.asfortranarray(np.ones((3, 4))), "T": np.ones((4, 3)).T,
            "1xN": np.ones((1, 4), order="F"), "0d": np.array(1.0),
            "empty-F": np.ones((0, 3), order="F")}[layout]
    with ft.FakeMode():
        fake = np.asarray(base)
        got = np.isfortran(fake)
    assert got is np.isfortran(base)


def test_queries_inside_mode_and_on_cuda_fakes():
    with ft.FakeMode():
        x = np.zeros((10**6, 10**6), np.float32)
        assert np.shape(x) == (10**6, 10**6) and np.size(x) == 10**12
        assert np.result_type(x, 1.0) == np.float32
    cupy = pytest.importorskip("cupy")
    c = ft.empty((2, 3), np.complex64, device="cuda:0")
    assert np.shape(c) == (2, 3) and np.ndim(c) == 2 and np.iscomplexobj(c)
    assert cupy.shape(c) == (2, 3)
