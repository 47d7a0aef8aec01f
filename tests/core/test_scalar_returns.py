"""NumPy scalar or 0-d array: every call below returns a NumPy scalar (np.float64, ...) for
NumPy when its result is 0-d, and must return a fake standing for a scalar (read-only, not
charged as an array, no storage shared) where NumPy does, and a 0-d array where NumPy does.

``GAPS`` lists the calls whose kernels still return a 0-d array where NumPy returns a
scalar; each is a strict xfail, so the list can only shrink.
"""
from __future__ import annotations

import numpy as np
import pytest

import faketensor as ft
from faketensor._storage import SCALAR

V = np.arange(1.0, 6.0)
M = np.arange(1.0, 10.0).reshape(3, 3) + np.eye(3)
Z = np.array(2.5)
S = np.array([b"ab", b"c"])
REC = np.zeros(3, dtype=[("x", "f8"), ("y", "i4")])

CALLS = {
    "getitem-int": (lambda a: a[1], V),
    "getitem-2int": (lambda a: a[1, 2], M),
    "getitem-0d": (lambda a: a[()], Z),
    "getitem-ellipsis-0d": (lambda a: a[...], Z),
    "getitem-npint": (lambda a: a[np.int8(-1)], V),
    "getitem-record": (lambda a: a[0], REC),
    "getitem-bytes": (lambda a: a[0], S),
    "sum": (np.sum, V),
    "sum-keepdims": (lambda a: np.sum(a, keepdims=True).reshape(()), V),
    "add-0d": (lambda a: np.add(a, 1), Z),
    "add-0d-out-ellipsis": (lambda a: np.add(a, 1, out=...), Z),
    "dot-1d": (lambda a: np.dot(a, a), V),
    "vdot": (lambda a: np.vdot(a, a), V),
    "matmul-1d": (lambda a: a @ a, V),
    "vecdot": (lambda a: np.vecdot(a, a), V),
    "trace": (np.trace, M),
    "flip-0d": (np.flip, Z),
    "angle-0d": (np.angle, Z),
    "angle-deg-0d": (lambda a: np.angle(a, deg=True), Z),
    "average": (np.average, V),
    "average-returned": (lambda a: np.average(a, returned=True)[1], V),
    "average-weights": (lambda a: np.average(a, weights=a), V),
    "mean": (np.mean, V),
    "ptp": (np.ptp, V),
    "copy-0d": (lambda a: a.copy(), Z),
    "asarray-0d": (np.asarray, Z),
    "reshape-0d": (lambda a: a.reshape(()), np.ones(1)),
    # still 0-d arrays in faketensor (GAPS)
    "inner-1d": (lambda a: np.inner(a, a), V),
    "det": (np.linalg.det, M),
    "slogdet": (lambda a: np.linalg.slogdet(a)[0], M),
    "norm": (np.linalg.norm, V),
    "vector_norm": (np.linalg.vector_norm, V),
    "cond": (np.linalg.cond, M),
    "multi_dot-1d-ends": (lambda a: np.linalg.multi_dot([a[:3], np.eye(3), a[:3]]), V),
    "median": (np.median, V),
    "median-f2": (np.median, V.astype(np.float16)),
    "mean-f2": (np.mean, V.astype(np.float16)),
    "iscomplex-0d": (np.iscomplex, Z),
    "nan_to_num-0d": (np.nan_to_num, Z),
    "isclose-0d": (lambda a: np.isclose(a, 1.0), Z),
    "interp-scalar": (lambda a: np.interp(2.5, a, a), V),
    "polyval-scalar": (lambda a: np.polyval(a, 2.0), V),
    "einsum-full": (lambda a: np.einsum("i,i", a, a), V),
    "unstack-1d": (lambda a: np.unstack(a)[0], V),
    "lexsort-0d-key": (lambda a: np.lexsort(a), np.array([3, 1])),
    "unravel_index": (lambda a: np.unravel_index(3, a.shape)[0], M),
    "searchsorted-scalar": (lambda a: np.searchsorted(a, 2.0), V),
    "round-0d": (np.round, Z),
    "take-int": (lambda a: np.take(a, 2), V),
}

GAPS: set = set()  # calls whose kernel still returns a 0-d array where NumPy returns a scalar




def _case(name):
    marks = [pytest.mark.xfail(strict=True, reason="kernel returns a 0-d array")] \
        if name in GAPS else []
    return pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", [_case(n) for n in CALLS])
def test_scalar_or_0d_array_as_numpy(name):
    fn, arg = CALLS[name]
    real = fn(arg.copy())
    with ft.FakeMode():
        fake = fn(ft.to_fake(arg))
    real_scalar = isinstance(real, np.generic) and not (isinstance(real, np.void)
                                                        and real.base is not None)
    fake_scalar = fake.storage._tracker is SCALAR
    assert np.shape(real) == fake.shape
    assert fake_scalar == real_scalar, \
        f"{name}: NumPy gives {type(real).__name__}, fake a {'scalar' if fake_scalar else '0-d array'}"
    if fake_scalar:
        assert not fake.flags.writeable
