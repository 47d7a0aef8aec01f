"""The dummy arrays of old-style cast loops (kernels/numpy/convert_datatype.py), real vs fake.

Every pair of a table of dtypes (numbers, datetimes, bytes, str, void, object, structured)
is cast by each of the calls that set up a cast loop: ``astype``, ``np.array(dtype=)``,
``np.copyto``, item assignment and ``np.concatenate(dtype=)``. The peak and live bytes of
NumPy's data allocator must equal what the mode charges, to the byte. Pairs NumPy refuses
(or whose values it cannot convert) are left out; the count of measured pairs is checked.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import faketensor as ft
from memtools import op_peaks

DTYPES = ["?", "i8", "f4", "c16", "M8[s]", "m8[D]", "S7", "U7", "S30", "U30", "V8", "O",
          ">i4", "i4,f8"]
FILL = {"S": "1", "U": "1"}  # strings every numeric and timedelta cast accepts

CALLS = {
    "astype": (lambda a, dt: a.astype(dt)),
    "array": (lambda a, dt: np.array(a, dtype=dt)),
    "copyto": (lambda a, dt, out=None: np.copyto(np.empty(a.shape, dt), a, casting="unsafe")),
    "setitem": (lambda a, dt: np.empty(a.shape, dt).__setitem__(Ellipsis, a)),
    "concatenate": (lambda a, dt: np.concatenate([a, a], dtype=dt, casting="unsafe")),
}


def _strided(dt: str, n: int = 5):
    """A strided view (the cast cannot be a plain copy) of values every cast accepts."""
    a = np.zeros(n, dt)
    if a.dtype.kind in FILL:
        a[...] = FILL[a.dtype.kind]
    return a[::2]




@pytest.mark.parametrize("call", list(CALLS))
def test_cast_loop_bytes_equal_real(call):
    fn = CALLS[call]
    measured, wrong = 0, []
    for src in DTYPES:
        for dst in DTYPES:
            def setup(src=src):
                return [_strided(src)]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn(*setup(), np.dtype(dst))
            except (TypeError, ValueError, RuntimeError):
                continue  # NumPy refuses the cast, or these values
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    real, fake = op_peaks(setup, lambda a: fn(a, np.dtype(dst)))
                except (ft.DataDependentError, ft.UnsupportedOperationError):
                    continue  # the fake cannot see whether these values convert
            measured += 1
            if real != fake:
                wrong.append(f"{src}->{dst}: real {real}, fake {fake}")
    assert not wrong, "\n".join(wrong)
    assert measured >= 100, measured


# other calls whose cast loops are old-style: (inputs, call), each at a short size (the
# ufunc's small-copy path, check_for_trivial_loop) and a long one (the iterator's cast)
OTHERS = {
    "m8 + i8": (("m8[s]", "i8"), lambda a, b: a + b),
    "M8 + ?": (("M8[s]", "?"), lambda a, b: a + b),
    "add(out=m8)": (("i8", "m8[s]"), lambda a, b: np.negative(a, out=b, casting="unsafe")),
    "where(i8, U)": (("i8", "U5"), lambda a, b: np.where(a > 0, a, b)),
    "where(m8, i8)": (("m8[s]", "i8"), lambda a, b: np.where(b > 0, a, b)),
    "array([i8, i8], U20)": (("i8",), lambda a: np.array([a, a], dtype="U20")),
    "asarray([f4], S30)": (("f4",), lambda a: np.asarray([a], dtype="S30")),
    "put(U, i8)": (("U5", "i8"), lambda a, b: np.put(a, [0], b[:1])),
    "put(U contiguous, i8)": (("i8",), lambda b: np.put(np.zeros(10, "U5"), [0, 1], b[:2])),
    "fill_diagonal(U, i8)": (("i8",), lambda b: np.fill_diagonal(np.zeros((3, 3), "U5"), b)),
    "fill_diagonal(f8, [])": ((), lambda: np.fill_diagonal(np.zeros((3, 3)), [])),
    "flat[:3] = i8": (("i8",), lambda b: np.zeros((3, 3), "U5").flat.__setitem__(slice(0, 3), b)),
    "vstack([i8, U])": (("i8", "U5"), lambda a, b: np.vstack([a, b])),
}


@pytest.mark.parametrize("n", [5, 40001])
@pytest.mark.parametrize("label", list(OTHERS))
def test_other_cast_loops_equal_real(label, n):
    dtypes, call = OTHERS[label]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real, fake = op_peaks(lambda: [_strided(d, n) for d in dtypes], call)
    assert fake == real
