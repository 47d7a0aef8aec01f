"""NumPy's temporary elision (temp_elide.c), differential: real peak and result metadata vs fakes.

Each case is an expression of the kind ``a + b + c`` whose temporaries NumPy may reuse in
place. The real run is measured in NumPy's tracemalloc domain; the fake run must reach the
same peak and give a result with the same shape, dtype, strides and ownership.
"""
from __future__ import annotations

import numpy as np
import pytest

import faketensor as ft
from memtools import measure_peak

N = 1 << 17          # 1 MiB of float64: above NPY_MIN_ELIDE_BYTES (256 KiB)
M = 1 << 19

ENV = {
    "a": np.ones(N), "b": np.ones(N), "c": np.ones(N),
    "a4": np.ones(M // 4, np.float32), "i4": np.ones(M // 4, np.int32),
    "i8": np.ones(M, np.int8), "F": np.ones((512, 256), order="F"), "C": np.ones((512, 256)),
    "small": np.ones(1000),
}

CASES = {
    "a+b+c": lambda a, b, c, **k: a + b + c,
    "a+(b+c) commutative swap": lambda a, b, c, **k: a + (b + c),
    "a-(b+c) not commutative": lambda a, b, c, **k: a - (b + c),
    "(a+b)+(b+c)": lambda a, b, c, **k: (a + b) + (b + c),
    "float32 temp * Python float (unsafe cast)": lambda a4, **k: a4 * 2.0 * 3.0,
    "float32 temp * np.float32": lambda a4, **k: (a4 + a4) * np.float32(2),
    "int8 temp + Python int": lambda i8, **k: (i8 + i8) + 1,
    "int32 temp + np.int8": lambda i4, **k: (i4 + i4) + np.int8(1),
    "-(a+b)": lambda a, b, **k: -(a + b),
    "abs(a+b)": lambda a, b, **k: abs(a + b),
    "abs of complex temp": lambda a, **k: abs(a * 1j),
    "complex temp * 2": lambda a, **k: (a * 1j) * 2,
    "(a+b)**2 square": lambda a, b, **k: (a + b) ** 2,
    "(a+b)**0.5 sqrt": lambda a, b, **k: (a + b) ** 0.5,
    "(a+b)**-1 reciprocal": lambda a, b, **k: (a + b) ** -1,
    "(a+b)**3 power": lambda a, b, **k: (a + b) ** 3,
    "int temp ** 2": lambda i4, **k: (i4 + i4) ** 2,
    "int temp / 2 (true_divide needs inexact)": lambda i4, **k: (i4 + i4) / 2,
    "(a+b)/2": lambda a, b, **k: (a + b) / 2,
    "(a+b)%2 (remainder never elides)": lambda a, b, **k: (a + b) % 2,
    "2*(a+b) reflected": lambda a, b, **k: 2 * (a + b),
    "1-(a+b) reflected, not commutative": lambda a, b, **k: 1 - (a + b),
    "np.add(a+b, c) (functions never elide)": lambda a, b, c, **k: np.add(a + b, c),
    "(a+b)+c[None] (other ndim)": lambda a, b, c, **k: (a + b) + c[None],
    "(a+b)+True": lambda a, b, **k: (a + b) + True,
    "(a+b)>c (comparisons never elide)": lambda a, b, c, **k: (a + b) > c,
    "F temp + C": lambda F, C, **k: (F + 1) + C,
    "C + F temp": lambda F, C, **k: C + (F + 1),
    "view of a temp": lambda C, **k: (C + 1)[1:] + 1,
    "sum() of arrays": lambda a, b, c, **k: sum([a, b, c]),
    "small temps (under 256 KiB)": lambda small, **k: small + small + small,
    "in-place on a named array": lambda a, b, **k: a.copy().__iadd__(b),
}


def _meta(r):
    return (r.shape, r.dtype, r.strides, r.flags.owndata, r.flags.c_contiguous, r.flags.f_contiguous)


@pytest.mark.parametrize("name", list(CASES))
def test_elision_matches_numpy(name):
    fn = CASES[name]
    box = []
    real_peak, real_live = measure_peak(lambda: box.append(_meta(fn(**ENV))))
    with ft.FakeMode() as mode:
        fenv = {k: ft.to_fake(v) for k, v in ENV.items()}
        r = fn(**fenv)
        fake_meta = _meta(r)
        del r
    assert fake_meta == box[0]
    assert mode.memory.peak.get("cpu", 0) == real_peak
    assert mode.memory.live.get("cpu", 0) == real_live == 0


@pytest.mark.parametrize("scalar", [3.0, 3, True, 3j, np.float32(3)], ids=repr)
def test_scalar_operand_of_elision_is_charged_not_called(scalar):
    """NumPy's elision test makes a 0-d array of a scalar operand (PyArray_EnsureArray) and
    frees it at once: the fake charges that array to the operator's own call and records no
    call the program did not make (no ``np.asarray`` in the trace)."""
    with ft.FakeMode(record=True) as mode:
        (ft.to_fake(ENV["a"]) + 1.0) * scalar
    assert [ft._errors.op_name(e.func) for e in mode.trace] == ["np.add", "np.multiply"]
    log = mode.memory.log
    events = [tuple(log[i:i + 4]) for i in range(0, len(log), 4)]
    zero_d = np.asarray(scalar).nbytes
    made = [e for e in events if e[0] == 1 and e[1] and e[3] == zero_d]  # not transients
    freed = [e for e in events if e[0] == 1 and e[3] == -zero_d]
    assert len(made) == len(freed) == 1 and made[0][1] == freed[0][1]
