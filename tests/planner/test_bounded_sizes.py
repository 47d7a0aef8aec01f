"""Bounded sizes (faketensor/_sizes.py): lengths that depend on the data (boolean masks,
np.nonzero and its composites, np.unique and the set functions), planned at each end of
their bounds.

Every rule that makes or accepts a bounded size is checked against real NumPy at both ends:
the fake run assumes every size at its upper (lower) bound, the real run has masks all true
(all false), values all distinct (all equal). The programs of tests/planner/bounded_programs
and examples/obstacles.py plan to completion, and their real peaks lie in the planned range,
at its ends for the extreme masks.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import faketensor as ft
from memtools import measure_peak
from locations import ROOT
from oracle import compare_meta

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "bounded_programs")
# the lattice-Boltzmann program is the documented example itself (examples/obstacles.py)
LBM = str(ROOT / "examples" / "obstacles.py")

# NumPy's first Generator in a process caches 16 bytes for good: made before any measurement
np.random.default_rng(0)

# --- the rules, at each end ------------------------------------------------------------------

LAYOUTS = {
    "C": lambda a: a,
    "F": lambda a: np.asfortranarray(a),
    "T": lambda a: np.ascontiguousarray(a.T).T,
    "neg": lambda a: a[::-1],
}


def _fake_like(a: np.ndarray, layout: str):
    """A fake of a's shape, dtype and layout whose values are unknown (made in the mode)."""
    base = {"C": lambda: np.empty(a.shape, a.dtype),
            "F": lambda: np.empty(a.shape, a.dtype, order="F"),
            "T": lambda: np.empty(a.shape[::-1], a.dtype).T,
            "neg": lambda: np.empty(a.shape, a.dtype)[::-1]}[layout]
    return base()


# name -> fn(x, m, m1, z): x a (6, 4) float array, m a (6, 4) mask, m1 a (6,) mask, z (6,)
MASK_RULES = {
    "getitem full mask": lambda x, m, m1, z: x[m],
    "getitem rows": lambda x, m, m1, z: x[m1, :],
    "getitem rows only": lambda x, m, m1, z: x[m1],
    "getitem columns": lambda x, m, m1, z: x.T[:, m1],
    "getitem rows slice": lambda x, m, m1, z: x[m1, 1:3],
    "getitem rows int": lambda x, m, m1, z: x[m1, 2],
    "nonzero": lambda x, m, m1, z: np.nonzero(m),
    "ndarray.nonzero": lambda x, m, m1, z: m.nonzero(),
    "where one argument": lambda x, m, m1, z: np.where(m),
    "flatnonzero": lambda x, m, m1, z: np.flatnonzero(m),
    "argwhere": lambda x, m, m1, z: np.argwhere(m),
    "extract": lambda x, m, m1, z: np.extract(m, x),
    "compress axis 0": lambda x, m, m1, z: np.compress(m1, x, axis=0),
    "compress flat": lambda x, m, m1, z: np.compress(m1, z),
    "ndarray.compress": lambda x, m, m1, z: x.compress(m1, axis=0),
    # rules that accept a bounded size
    "elementwise": lambda x, m, m1, z: x[m1] * 2 + x[m1],
    "broadcast with a row": lambda x, m, m1, z: x[m1] - x[0],
    "broadcast with a column": lambda x, m, m1, z: x[m1] * z[m1][:, None],
    "reduction along it": lambda x, m, m1, z: x[m1].sum(axis=0),
    "reduction across it": lambda x, m, m1, z: x[m1].max(axis=1),
    "cumsum": lambda x, m, m1, z: np.cumsum(x[m1], axis=0),
    "argsort": lambda x, m, m1, z: np.argsort(x[m1], axis=0),
    "concatenate": lambda x, m, m1, z: np.concatenate([x[m1], x[m1]]),
    "concatenate other axis": lambda x, m, m1, z: np.concatenate([x[m1], x[m1]], axis=1),
    "stack": lambda x, m, m1, z: np.stack([x[m1], x[m1]]),
    "matmul": lambda x, m, m1, z: x[m1].T @ x[m1],
    "matmul inner": lambda x, m, m1, z: x[m1] @ x[m1].T,
    "reshape": lambda x, m, m1, z: x[m1].reshape(-1, 2),
    "transpose copy": lambda x, m, m1, z: x[m1].T.copy(),
    "reverse view": lambda x, m, m1, z: x[m1][::-1],
    "take": lambda x, m, m1, z: np.take(x[m1], [0, 2], axis=1),
    "gather by nonzero": lambda x, m, m1, z: x[np.nonzero(m1)[0]],
    "setitem through the mask": lambda x, m, m1, z: x.__setitem__((m1, slice(None)),
                                                                    x[m1, :][:, ::-1]),
    "setitem values": lambda x, m, m1, z: z.__setitem__(m1, z[m1] * 2),
    "setitem scalar": lambda x, m, m1, z: x.__setitem__(m, 1.5),
    "setitem rows scalar": lambda x, m, m1, z: x.__setitem__(m1, 1.5),
}


def _mask_inputs(fill: bool, layout: str):
    x = LAYOUTS[layout](np.arange(24.0).reshape(6, 4))
    return x, np.full((6, 4), fill), np.full(6, fill), np.arange(6.0)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("end", ["upper", "lower"])
@pytest.mark.parametrize("name", list(MASK_RULES))
def test_mask_rules_at_each_end(name, end, layout):
    fn = MASK_RULES[name]
    real_in = _mask_inputs(end == "upper", layout)
    real = fn(*real_in)
    with ft.FakeMode(sizes=ft.SizePolicy(end)) as mode:
        fake_in = [_fake_like(a, layout if a.ndim == 2 and a.dtype.kind == "f" else "C")
                   for a in real_in]
        fake = fn(*fake_in)
    compare_meta(real if real is not None else None, fake, [], [], f"{name} ({end}, {layout})")
    assert mode.sizes.made, "the rule made no bounded size"
    if real is None:  # an assignment: the destination's metadata is unchanged
        return
    shapes = [a.shape for a in (fake if isinstance(fake, tuple) else (fake,))]
    assert all(type(n) is int or type(n) is ft.BoundedSize for s in shapes for n in s)


# a 0-d boolean index adds an axis of length 1 (True) or 0 (False): a bounded size 0..1.
# name -> fn(a, m): a a (2, 3, 4) float array, m a 0-d boolean (a fake's 0-d array, a NumPy
# scalar read from a fake mask, or a 0-d view of one)
BOOL0D_RULES = {
    "a[m]": lambda a, m: a[m],
    "a[..., m]": lambda a, m: a[..., m],
    "a[m, 0]": lambda a, m: a[m, 0],
    "a[0, m]": lambda a, m: a[0, m],
    "a[:, m, 1:]": lambda a, m: a[:, m, 1:],
    "a[m, [0]]": lambda a, m: a[m, [0]],
    "a[m, :, [0]]": lambda a, m: a[m, :, [0]],
    "a[m, m]": lambda a, m: a[m, m],
    "a[None, m]": lambda a, m: a[None, m],
    "a[m] * 2": lambda a, m: a[m] * 2,
    "a[m].sum(0)": lambda a, m: a[m].sum(axis=0),
    "a[m] = 1": lambda a, m: a.__setitem__(m, 1.0),
    "a[m] = a[m] * 2": lambda a, m: a.__setitem__(m, a[m] * 2),
    "a[..., m] = 0": lambda a, m: a.__setitem__((Ellipsis, m), 0.0),
    "a[m, [0]] = 3": lambda a, m: a.__setitem__((m, [0]), 3.0),
}
BOOL0D_MASKS = {
    "0-d array": (lambda v: np.array(v), lambda: np.empty((), bool)),
    "scalar of a mask": (lambda v: np.full(3, v)[1], lambda: np.empty(3, bool)[1]),
    "0-d view": (lambda v: np.full((2, 2), v)[0, 0, ...], lambda: np.empty((2, 2), bool)[0, 0, ...]),
}


@pytest.mark.parametrize("mask", list(BOOL0D_MASKS))
@pytest.mark.parametrize("end", ["upper", "lower"])
@pytest.mark.parametrize("name", list(BOOL0D_RULES))
def test_0d_boolean_index_at_each_end(name, end, mask):
    """The fake assumes the 0-d mask True (False) at the upper (lower) end; so is the real."""
    fn = BOOL0D_RULES[name]
    real_m, fake_m = BOOL0D_MASKS[mask]
    a = np.arange(24.0).reshape(2, 3, 4)
    real = fn(a, real_m(end == "upper"))
    with ft.FakeMode(sizes=ft.SizePolicy(end)) as mode:
        fake = fn(np.empty((2, 3, 4)), fake_m())
    compare_meta(real, fake, [], [], f"{name} ({end}, {mask})")
    assert [(k.lo, k.hi, k.op) for k in mode.sizes.made] == [(0, 1, "a 0-d boolean index")]


@pytest.mark.parametrize("end", ["upper", "lower"])
@pytest.mark.parametrize("name", list(BOOL0D_RULES))
def test_0d_boolean_index_memory_at_each_end(name, end):
    """The 1-d intp array NumPy makes of a 0-d boolean (1 element or none) is charged."""
    fn = BOOL0D_RULES[name]
    a, m = np.arange(24.0).reshape(2, 3, 4), np.array(end == "upper")
    keep: list = []
    real = measure_peak(lambda: keep.append(fn(a, m)))
    with ft.FakeMode(sizes=ft.SizePolicy(end)) as mode:
        fa, fm = np.empty((2, 3, 4)), np.empty((), bool)
        base = mode.memory.live["cpu"]
        mode.memory.peak["cpu"] = base
        out = fn(fa, fm)  # noqa: F841  (alive while live is read)
        fake = (mode.memory.peak["cpu"] - base, mode.memory.live["cpu"] - base)
    assert fake == real


_KNOWN_0D_KEYS = [True, False, np.True_, np.False_, (True, None), (Ellipsis, False)]


@pytest.mark.parametrize("assign", [False, True])
@pytest.mark.parametrize("key,ndim", [(k, n) for n in (0, 3) for k in _KNOWN_0D_KEYS]
                         + [((True, [0]), 3), ((False, [0]), 3)], ids=repr)
def test_known_0d_boolean_index_memory(key, ndim, assign):
    """A bool scalar index: NumPy's 1-d intp array of positions (1 or 0 of them), or, alone
    on a 0-d array, its 0-d boolean mask; a list index's intp array in an assignment too."""
    shape = (2, 3, 4) if ndim else ()
    fn = (lambda a: a.__setitem__(key, 1.0)) if assign else (lambda a: a[key])
    a = np.zeros(shape)
    keep: list = []
    real = measure_peak(lambda: keep.append(fn(a)))
    with ft.FakeMode() as mode:
        fa = np.empty(shape)
        base = mode.memory.live["cpu"]
        mode.memory.peak["cpu"] = base
        out = fn(fa)  # noqa: F841  (alive while live is read)
        fake = (mode.memory.peak["cpu"] - base, mode.memory.live["cpu"] - base)
    assert fake == real


def test_0d_boolean_index_the_same_mask_gives_the_same_size():
    """One 0-d mask (an array, a view, or one NumPy scalar read once), one size; each read
    ``m[0]`` is a new scalar, so a new size."""
    with ft.FakeMode():
        a = np.random.rand(5, 4)
        m = np.random.rand(3) > 0.5
        m0, v0 = m[0], m[0, ...]
        k = a[m0].shape[0]
        assert a[..., m0].shape[-1] is k and a[m[1]].shape[0] is not k
        a[m0] = a[m0] * 2                          # the same size: the assignment plans
        assert a[v0].shape[0] is a[m[0, ...]].shape[0]   # two 0-d views of one element
        with pytest.raises(ft.DataDependentError, match="must agree"):
            a[m[2]] = a[m[2]] * 2


def _distinct(n: int, start: int = 0) -> np.ndarray:
    return np.arange(start, start + n)


# name -> (fn(x, y), real inputs at the upper end, at the lower end); x has 12 elements
# (3, 4), y 5: upper = every count at its most, lower = at its least
SET_RULES = {
    "unique": (lambda x, y: np.unique(x),
               (_distinct(12).reshape(3, 4), _distinct(5)), (np.zeros((3, 4), int), _distinct(5))),
    "unique inverse": (lambda x, y: np.unique(x, return_inverse=True),
                       (_distinct(12).reshape(3, 4), _distinct(5)),
                       (np.zeros((3, 4), int), _distinct(5))),
    "unique all outputs": (lambda x, y: np.unique(x, return_index=True, return_inverse=True,
                                                  return_counts=True),
                           (_distinct(12).reshape(3, 4), _distinct(5)),
                           (np.full((3, 4), 7), _distinct(5))),
    "unique float equal_nan=False": (lambda x, y: np.unique(x.astype(float), equal_nan=False),
                                     (_distinct(12).reshape(3, 4), _distinct(5)),
                                     (np.zeros((3, 4), int), _distinct(5))),
    "unique axis 0": (lambda x, y: np.unique(x, axis=0),
                      (_distinct(12).reshape(3, 4), _distinct(5)),
                      (np.zeros((3, 4), int), _distinct(5))),
    "unique_values": (lambda x, y: np.unique_values(x),
                      (_distinct(12).reshape(3, 4), _distinct(5)),
                      (np.zeros((3, 4), int), _distinct(5))),
    "unique_counts": (lambda x, y: tuple(np.unique_counts(x)),
                      (_distinct(12).reshape(3, 4), _distinct(5)),
                      (np.zeros((3, 4), int), _distinct(5))),
    "unique_inverse": (lambda x, y: tuple(np.unique_inverse(x)),
                       (_distinct(12).reshape(3, 4), _distinct(5)),
                       (np.zeros((3, 4), int), _distinct(5))),
    "unique_all": (lambda x, y: tuple(np.unique_all(x)),
                   (_distinct(12).reshape(3, 4), _distinct(5)),
                   (np.zeros((3, 4), int), _distinct(5))),
    "union1d": (lambda x, y: np.union1d(x, y),
                (_distinct(12).reshape(3, 4), _distinct(5, 100)),
                (np.zeros((3, 4), int), np.zeros(5, int))),
    "intersect1d": (lambda x, y: np.intersect1d(x, y),
                    (_distinct(12).reshape(3, 4), _distinct(5)),
                    (np.zeros((3, 4), int), np.ones(5, int))),
    "intersect1d indices": (lambda x, y: np.intersect1d(x, y, return_indices=True),
                            (_distinct(12).reshape(3, 4), _distinct(5)),
                            (np.zeros((3, 4), int), np.ones(5, int))),
    "setdiff1d": (lambda x, y: np.setdiff1d(x, y),
                  (_distinct(12).reshape(3, 4), _distinct(5, 100)),
                  (np.zeros((3, 4), int), np.zeros(5, int))),
    "setxor1d": (lambda x, y: np.setxor1d(x, y),
                 (_distinct(12).reshape(3, 4), _distinct(5, 100)),
                 (np.zeros((3, 4), int), np.zeros(5, int))),
}




def _as(dtype: str, fn):
    """A set rule on inputs cast to ``dtype`` (floating-point values: equal_nan's NaN check)."""
    return lambda x, y: fn(x.astype(dtype), y.astype(dtype))


# floating-point, complex and timedelta values with equal_nan=True (the default): the count
# is bounded whatever the NaN check reads; the rule assumes no NaN, as the inputs here hold
for _dt in ("f8", "f2", "c16", "m8[s]"):
    for _name in ("unique", "unique inverse", "unique all outputs", "unique axis 0",
                  "unique_values", "unique_counts", "unique_inverse", "unique_all", "union1d",
                  "intersect1d", "intersect1d indices", "setdiff1d", "setxor1d"):
        _fn, _up, _low = SET_RULES[_name]
        SET_RULES[f"{_name} {_dt}"] = (_as(_dt, _fn), _up, _low)
# 0-d floats: at the lower end the NaN check (isnan of a NumPy scalar: its 0-d array and the
# 0-d bool) is the call's peak
SET_RULES["union1d 0-d f8"] = (lambda x, y: np.union1d(x, y), (np.array(0.0), np.array(1.0)),
                               (np.array(2.0), np.array(2.0)))
SET_RULES["unique small f4"] = (lambda x, y: np.unique(x), (np.arange(3, dtype="f4"), _distinct(5)),
                                (np.ones(3, "f4"), _distinct(5)))
SET_RULES["unique counts f8"] = (lambda x, y: np.unique(x.astype(float), return_counts=True),
                                 *SET_RULES["unique"][1:])
SET_RULES["unique index f8"] = (lambda x, y: np.unique(x.astype(float), return_index=True),
                                *SET_RULES["unique"][1:])


@pytest.mark.parametrize("end", ["upper", "lower"])
@pytest.mark.parametrize("name", list(SET_RULES))
def test_unique_and_set_rules_at_each_end(name, end):
    fn, upper, lower = SET_RULES[name]
    x, y = upper if end == "upper" else lower
    real = fn(x, y)
    with ft.FakeMode(sizes=ft.SizePolicy(end)) as mode:
        fake = fn(np.empty(x.shape, x.dtype), np.empty(y.shape, y.dtype))
    compare_meta(real, fake, [], [], f"{name} ({end})")
    assert mode.sizes.made


def test_float_unique_assumes_no_nan_and_says_so():
    """equal_nan=True reads ``isnan(aux[-1])`` on the sorting path: the size is made anyway,
    its op naming the assumption; with equal_nan=False, or on the hash path (complex
    values), nothing is assumed."""
    with ft.FakeMode() as mode:
        x = np.random.rand(100)
        u, inv = np.unique(x, return_inverse=True)
        np.unique(x, equal_nan=False, return_counts=True)
        np.unique(x.astype(complex))
    ops = [(k.lo, k.hi, k.op) for k in mode.sizes.made]
    assert ops == [(1, 100, "np.unique, assuming no NaN"), (1, 100, "np.unique"),
                   (1, 100, "np.unique")]
    assert u.shape[0] is mode.sizes.made[0] and inv.shape == (100,)
    p = ft.plan(lambda: np.unique(np.random.rand(1000), return_counts=True)[1].sum())
    assert p.status == "completed" and p.bounded_sizes["sizes"][0]["op"].endswith("no NaN")


@pytest.mark.parametrize("end", ["upper", "lower"])
@pytest.mark.parametrize("name", ["getitem rows", "setitem through the mask", "extract",
                                  "flatnonzero", "argwhere", "compress axis 0", "nonzero"])
def test_mask_rules_memory_at_each_end(name, end):
    """Peak and live bytes of one call, real (mask all true / all false) against fake."""
    fn = MASK_RULES[name]
    real_in = _mask_inputs(end == "upper", "C")
    keep: list = []
    real = measure_peak(lambda: keep.append(fn(*real_in)))
    with ft.FakeMode(sizes=ft.SizePolicy(end)) as mode:
        fake_in = [np.empty(a.shape, a.dtype) for a in real_in]
        base = mode.memory.live["cpu"]
        mode.memory.peak["cpu"] = base
        out = fn(*fake_in)  # noqa: F841  (alive while live is read, as ``keep`` holds real's)
        fake = (mode.memory.peak["cpu"] - base, mode.memory.live["cpu"] - base)
    assert fake == real


@pytest.mark.parametrize("end", ["upper", "lower"])
@pytest.mark.parametrize("name", ["unique", "unique inverse", "unique all outputs", "union1d",
                                  "unique f8", "unique inverse f8", "unique all outputs c16",
                                  "unique counts f8", "union1d f8", "intersect1d f2",
                                  "setdiff1d f8", "setxor1d m8[s]", "unique_all f8",
                                  "union1d 0-d f8", "unique small f4"])
def test_unique_memory_at_each_end(name, end):
    fn, upper, lower = SET_RULES[name]
    x, y = upper if end == "upper" else lower
    keep: list = []
    real = measure_peak(lambda: keep.append(fn(x, y)))
    with ft.FakeMode(sizes=ft.SizePolicy(end)) as mode:
        fx, fy = np.empty(x.shape, x.dtype), np.empty(y.shape, y.dtype)
        base = mode.memory.live["cpu"]
        mode.memory.peak["cpu"] = base
        out = fn(fx, fy)  # noqa: F841  (alive while live is read)
        fake = (mode.memory.peak["cpu"] - base, mode.memory.live["cpu"] - base)
    assert fake == real


# --- what a bounded size is -----------------------------------------------------------------

def test_a_bounded_size_names_its_bounds_and_line():
    with ft.FakeMode() as mode:
        x = np.random.rand(100)
        y = x[x > 0.5]
    k = y.shape[0]
    assert type(k) is ft.BoundedSize and int(k) == 100 and (k.lo, k.hi) == (0, 100)
    assert k.line is not None and os.path.samefile(k.file, __file__) and k.op == "a boolean mask"
    assert mode.sizes.made == [k] and "k0 (0 <= k0 <= 100" in k.where()


def test_the_same_mask_gives_the_same_size_until_written():
    with ft.FakeMode():
        F = np.random.rand(50, 9)
        m = np.random.rand(50) > 0.3
        a, b = F[m, :], F[m]
        assert a.shape[0] is b.shape[0] is np.nonzero(m)[0].shape[0]
        F[m, :] = a[:, ::-1]                       # the same size: no question asked
        m[3] = True                                 # written: a new count
        c = F[m, :]
        assert c.shape[0] is not a.shape[0] and c.shape[0].name == "k1"


def test_two_different_sizes_that_must_agree_stop():
    with ft.FakeMode():
        x = np.random.rand(50, 9)
        a = x[np.random.rand(50) > 0.3]
        b = x[np.random.rand(50) > 0.6]
        for fn in (lambda: a + b, lambda: np.concatenate([a, b], axis=1),
                   lambda: a.T @ b, lambda: x.__setitem__(np.random.rand(50) > 0.1, a)):
            with pytest.raises(ft.DataDependentError, match="k0 .* k1|k1 .* k0|must"):
                fn()


def test_shape_errors_that_hold_at_every_value_are_raised_at_once():
    """(k, 9) + (k + 1, 9) fails for every k; (k, 9) + (101, 9) too when k <= 100."""
    with ft.FakeMode():
        x = np.random.rand(100, 9)
        a = x[np.random.rand(100) > 0.5]
        for other in (np.ones((a.shape[0] + 1, 9)), np.ones((101, 9)), np.ones((a.shape[0], 8))):
            with pytest.raises(ValueError, match="broadcast"):
                a + other
        with pytest.raises(ValueError):
            np.concatenate([a, np.ones((3, 8))])
        with pytest.raises(ft.DataDependentError, match="must equal 50"):
            a + np.ones((50, 9))  # 50 is within 0..100: whether k == 50 depends on the data


def test_a_bounded_size_survives_rules_that_pass_a_length_through():
    with ft.FakeMode():
        x = np.random.rand(100, 9)
        a = x[np.random.rand(100) > 0.5]
        k = a.shape[0]
        for r in (a * 2, a.sum(axis=1), np.stack([a, a], axis=1), a[::1], a.astype(np.float32),
                  np.concatenate([a, a], axis=1), np.exp(a), a.copy()):
            assert any(n is k for n in r.shape)  # (``k in shape`` would compare: it steers)
        assert a.size == 900 and a.reshape(-1).shape[0] == 900  # computed: a plain int


# --- equal masks: the same elementwise call on the same unwritten inputs --------------------

def _square_positives(x, a, b, t):
    x[x > t] = x[x > t] ** 2
    return x


def _zero_both(x, a, b, t):
    y = np.stack([x, x], axis=1)
    y[(a > t) & (b < 1)] = 0
    return y


def _logical_and_rows(x, a, b, t):
    y = np.stack([x, x], axis=1)
    y[np.logical_and(a > t, b < 1), :] = y[np.logical_and(a > t, b < 1), ::-1] * 2
    return y


def _negated(x, a, b, t):
    x[~(a <= t)] = -x[~(a <= t)]
    return x


def _nbody_line(x, a, b, t):
    inv_r3 = np.abs(np.add.outer(x, a)) + 0.25
    inv_r3[inv_r3 > t] = inv_r3[inv_r3 > t] ** (-1.5)
    return inv_r3


def _isfinite(x, a, b, t):
    x[np.isfinite(a) & (a > t)] = a[np.isfinite(a) & (a > t)]
    return x


EQUAL_MASKS = {"x[x > t] = x[x > t] ** 2": _square_positives,
               "(a > t) & (b < 1)": _zero_both, "logical_and rows": _logical_and_rows,
               "~(a <= t)": _negated, "nbody inv_r3": _nbody_line, "isfinite": _isfinite}


@pytest.mark.parametrize("layout", ["C", "neg"])
@pytest.mark.parametrize("end", ["upper", "lower"])
@pytest.mark.parametrize("name", list(EQUAL_MASKS))
def test_equal_masks_share_their_size_at_each_end(name, end, layout):
    """The fake assumes every mask all true (all false); the real inputs make it so."""
    fn = EQUAL_MASKS[name]
    t = -10.0 if end == "upper" else 10.0
    real_in = [LAYOUTS[layout](a) for a in (np.arange(1.0, 13.0), np.linspace(-1, 1, 12),
                                             np.zeros(12))]
    real = fn(*real_in, t)
    with ft.FakeMode(sizes=ft.SizePolicy(end)) as mode:
        fake = fn(*[_fake_like(a, layout) for a in real_in], t)
    compare_meta(real, fake, [], [], f"{name} ({end}, {layout})")
    assert len(mode.sizes.made) == 1, [k.where() for k in mode.sizes.made]


def test_a_write_to_an_input_or_another_scalar_makes_another_size():
    with ft.FakeMode():
        x = np.random.rand(50)
        with pytest.raises(ft.DataDependentError, match="must agree"):
            x[x > 0] = x[x > 1]                    # another scalar: other values
        with pytest.raises(ft.DataDependentError, match="must agree"):
            x[x > 0] = x[x > np.float32(0)]        # another type: another promotion
        with pytest.raises(ft.DataDependentError, match="must agree"):
            x[x > 0] = x[x >= 0]                   # another ufunc
        with pytest.raises(ft.DataDependentError, match="must agree"):
            x[x > 0] = x[x[::-1] > 0][::-1]        # another layout of the input
        m = x > 0.5
        k = x[m].shape[0]
        x[3] = 2.0                                 # the input written: a new count
        assert x[x > 0.5].shape[0] is not k
        assert x[m].shape[0] is k                  # the old mask keeps its values
        y = np.random.rand(50)
        m2 = y > 0.5
        k2 = y[m2].shape[0]
        m2[0] = True                               # the mask itself written
        assert y[m2].shape[0] is not k2 and y[y > 0.5].shape[0] is k2
        z = np.random.rand(50)
        mz = z > 0.5
        kz = z[mz].shape[0]
        np.sin(z, out=z)                           # written by a ufunc's out=
        assert z[z > 0.5].shape[0] is not kz


def test_equal_masks_of_a_real_array_or_objects_do_not_share():
    """A real operand (the program may write it unseen) has no value identity: each mask
    its own size; nor has an object operand."""
    r = np.arange(10.0)
    with ft.FakeMode():
        x = np.random.rand(10)
        with pytest.raises(ft.DataDependentError, match="must agree"):
            x[np.greater(x, r)] = x[np.greater(x, r)]
        with pytest.raises(ft.DataDependentError, match="must agree"):
            x[x > [0.5] * 10] = x[x > [0.5] * 10]


# --- control flow on a bounded size ---------------------------------------------------------

STEERING = {
    "len": lambda y: len(y),
    "iteration": lambda y: [v for v in y],
    "comparison": lambda y: y.shape[0] > 3,
    "equality": lambda y: y.shape[0] == 0,
    "bool of size": lambda y: bool(y.size),
}


@pytest.mark.parametrize("name", list(STEERING))
def test_control_flow_on_a_bounded_size_stops_a_default_plan(name):
    with ft.FakeMode():
        x = np.random.rand(10)
        y = x[x > 0.5]
        with pytest.raises(ft.DataDependentError, match="data-dependent size k0"):
            STEERING[name](y)


@pytest.mark.parametrize("name", list(STEERING))
def test_placeholder_mode_assumes_the_value_and_lists_it(name):
    with ft.FakeMode(data_dependent="placeholder", sizes=ft.SizePolicy("lower")) as mode:
        x = np.random.rand(10)
        y = x[x > 0.5]
        got = STEERING[name](y)
    expected = STEERING[name](np.zeros(0))
    assert got == expected
    assert [p["message"] for p in mode.placeholders][0].endswith("assumed k0 = 0")


def test_inside_faketensor_and_numpy_a_bounded_size_is_an_int():
    """Kernels and NumPy's own Python compare it freely (np.unique's ``len(uniq)``)."""
    with ft.FakeMode() as mode:
        x = np.random.randint(0, 5, (20, 3))
        u = np.unique(x, axis=0)  # NumPy's code calls len() of its bounded result
    k = mode.sizes.made[0]
    assert u.shape == (20, 3) and (k.lo, k.hi, k.op) == (1, 20, "np.unique")


def test_the_policy_fixes_a_size_by_line():
    with ft.FakeMode(sizes=ft.SizePolicy("upper", {"bounded_line": 0.25})):
        pass
    pol = ft.SizePolicy("lower", {"x.py:7": 0.25})
    assert pol.value(0, 100, "/a/x.py", 7) == 25 and pol.value(0, 100, "/a/x.py", 8) == 0
    assert pol.used == {"x.py:7"}
    with pytest.raises(ValueError):
        ft.SizePolicy("middle")
    with pytest.raises(ValueError):
        ft.SizePolicy("upper", {"3": 1.5})


# --- plans ----------------------------------------------------------------------------------

def _path(name: str) -> str:
    return LBM if name == "lbm" else os.path.join(PROGRAMS, name + ".py")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bounded_{name}", _path(name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PROGRAM_SIZES = {"lbm": 40, "filter_reduce": 10_000, "onehot": 2_000, "equal_masks": 2_000}


@pytest.mark.parametrize("name", list(PROGRAM_SIZES))
def test_programs_plan_to_completion_and_bound_the_real_peak(name):
    mod, n = _load(name), PROGRAM_SIZES[name]
    for fill in ("all", "none", "random"):
        real = measure_peak(lambda: mod.main(n, fill=fill))[0]
        p = ft.plan(mod.main, n, fill=fill)
        assert p.status == "completed", p.stopped_at
        b = p.bounded_sizes
        assert b is not None and b["lower_run"]["exact"]
        rng = b["peak"]["cpu"]
        assert rng["upper"] == p.peak["cpu"]
        if fill == "all":
            assert real == rng["upper"]
        elif fill == "none":
            assert real == rng["lower"]
        else:
            assert rng["lower"] < real < rng["upper"]
        assert b["dominant"]["cpu"]["name"] in {k["name"] for k in b["sizes"]}


def test_faketensor_run_reports_the_range(tmp_path):
    out = tmp_path / "plan.json"
    html = tmp_path / "plan.html"
    run = subprocess.run([sys.executable, "-m", "faketensor.meta_utils.planner.cli", "run", "--json",
                          str(out), "--html", str(html), LBM, "40"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "data-dependent sizes" in run.stderr and "k0: 0 <= k0 <= 800" in run.stderr
    assert "dominates the upper bound" in run.stderr
    data = json.loads(out.read_text())
    b = data["bounded_sizes"]
    assert b["sizes"][0]["op"] == "a boolean mask" and b["sizes"][0]["hi"] == 800
    assert b["peak"]["cpu"]["lower"] < b["peak"]["cpu"]["upper"] == data["devices"]["cpu"]["peak_bytes"]
    assert 'id="bounded-sizes"' in html.read_text()


def test_assume_size_fixes_a_size_in_both_runs(tmp_path):
    script = os.path.join(PROGRAMS, "filter_reduce.py")
    with open(script) as f:
        line = next(i for i, t in enumerate(f, 1) if "sel = x[keep]" in t)
    out = tmp_path / "plan.json"
    run = subprocess.run([sys.executable, "-m", "faketensor.meta_utils.planner.cli", "run",
                          "--assume-size", f"filter_reduce.py:{line}=0.5", "--assume-size",
                          "999=0.1", "--json", str(out), script, "1000"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    b = json.loads(out.read_text())["bounded_sizes"]
    k = b["sizes"][0]
    assert k["fixed"] == 0.5 and k["upper"] == 500 and b["lower_run"] is None
    assert b["peak"]["cpu"]["lower"] == b["peak"]["cpu"]["upper"]
    assert [f["used"] for f in b["fixed"]] == [True, False]
    assert "999=0.1: no size was made" in run.stderr
    bad = subprocess.run([sys.executable, "-m", "faketensor.meta_utils.planner.cli", "run",
                          "--assume-size", "x=2", script], capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode == 2 and "--assume-size" in bad.stderr


def test_plan_assume_sizes_in_python():
    mod = _load("filter_reduce")
    with open(mod.__file__) as f:
        line = next(i for i, t in enumerate(f, 1) if "sel = x[keep]" in t)
    p = ft.plan(mod.main, 1000, assume_sizes={line: 0.0})
    real = measure_peak(lambda: mod.main(1000, fill="none"))[0]
    assert p.peak["cpu"] == real and p.bounded_sizes["sizes"][0]["upper"] == 0


def test_a_lower_run_that_fails_is_reported_not_hidden():
    """All false, ``x[m].max()`` raises as NumPy would: no lower figure, the reason given."""
    def program():
        x = np.random.rand(100)
        return x[x > 0.5].max()
    p = ft.plan(program)
    b = p.bounded_sizes
    assert p.status == "completed" and b["lower_run"]["status"] == "error"
    assert not b["lower_run"]["exact"] and b["peak"]["cpu"]["lower"] is None
    assert "zero-size array" in b["lower_run"]["stopped_at"]["message"]
    assert "the run at the lower bounds ended error" in p.report()



def test_sizes_a_loop_makes_alike_are_one_report_line():
    """Forty masks made at one line in a loop are one line of the text report; a size that
    holds bytes at the peak keeps its own line."""
    def program():
        x = np.random.rand(50)
        kept = x[x > 0.2]                  # held at the peak: its own line
        for i in range(40):
            np.sum(x[x > i / 41])          # 40 sizes alike (40 different masks)
        return kept, np.ones(100)
    p = ft.plan(program)
    assert len(p.bounded_sizes["sizes"]) == 41
    lines = [ln for ln in p.report().splitlines() if "a boolean mask at" in ln]
    assert len(lines) == 2, lines
    assert lines[0].lstrip().startswith("k0: 0 <= k0 <= 50") and "at the peak" in lines[0]
    assert lines[1].lstrip().startswith("each of k1 .. k40 (40 sizes): 0 <= k <= 50")

def test_a_program_without_bounded_sizes_runs_once():
    calls = []

    def program():
        calls.append(1)
        return np.ones(10).sum()
    p = ft.plan(program)
    assert p.bounded_sizes is None and len(calls) == 1


def test_explain_and_findings_work_on_bounded_arrays():
    with ft.FakeMode(record=True) as mode:
        x = np.random.rand(100, 9)
        y = x[x[:, 0] > 0.5].T.astype(np.float32) + np.float64(1.0)
    e = ft.explain(y, mode)
    assert "astype" in str(e) or "add" in str(e)
    p = ft.plan(lambda: np.random.rand(100, 9)[np.random.rand(100) > 0.5].T.copy() * 2)
    assert p.status == "completed" and isinstance(p.findings, list)


def _threaded(n, fill="random"):
    """filter_reduce's selection in a thread and in a pool task, one after the other."""
    out: list = []

    def work():
        x = np.random.default_rng(0).standard_normal(n)
        keep = x > {"random": 0.5, "all": -np.inf, "none": np.inf}[fill]
        out.append(np.sort(x[keep] * 2))
    t = threading.Thread(target=work)
    t.start()
    t.join()
    with ThreadPoolExecutor(1) as ex:
        ex.submit(work).result()
    return out


def test_threads_plan_their_sizes_at_each_end():
    """Threads and pool tasks the program starts make their sizes under the run's policy:
    the lower run assumes every one at its lower bound, and both ends equal real runs."""
    for fill in ("all", "none"):
        real = measure_peak(lambda: _threaded(2_000, fill=fill))[0]
        p = ft.plan(_threaded, 2_000, fill=fill)
        b = p.bounded_sizes
        assert p.status == "completed" and b["lower_run"]["exact"]
        assert [(k["upper"], k["lower"]) for k in b["sizes"]] == [(2_000, 0), (2_000, 0)]
        assert real == b["peak"]["cpu"]["upper" if fill == "all" else "lower"]


def _mixed(n):
    """Masks, equal masks, a 0-d boolean index, float np.unique and a set function, each
    twice (a warm kernel cache sees the second)."""
    out = []
    for _ in range(2):
        x = np.random.rand(n, 3)
        x[x > 0.5] = x[x > 0.5] ** 2
        u, inv = np.unique(x[:, 0], return_inverse=True)
        onehot = np.zeros((n, u.shape[0]))
        onehot[np.arange(n), inv] = 1.0
        m0 = x[0, 0] > 0.2
        out.append((x[m0] * 2, onehot.sum(axis=0), np.union1d(x[:, 1], x[:, 2])))
    return out


@pytest.mark.parametrize("name", [*PROGRAM_SIZES, "threaded", "mixed"])
def test_bounded_programs_plan_the_same_with_the_kernel_cache_off(name):
    """The kernel cache keys on metadata and bypasses calls with bounded sizes: with it off
    (every kernel runs) and on (warm), the plans of the bounded programs agree to the byte."""
    if name == "threaded":
        fn, args = _threaded, (2_000,)
    elif name == "mixed":
        fn, args = _mixed, (500,)
    else:
        fn, args = _load(name).main, (PROGRAM_SIZES[name],)

    def figures(p):
        b = p.bounded_sizes
        return (p.status, p.peak, p.live_end, p.flops, b["peak"], b["live_end"],
                [(k["name"], k["lo"], k["hi"], k["upper"], k["lower"], k["op"], k["line"],
                  k["bytes_at_peak"]) for k in b["sizes"]], b["dominant"])

    old = ft.set_cache_enabled(True)
    try:
        ft.plan(fn, *args)                  # warm
        hits = ft.cache_info().hits
        on = figures(ft.plan(fn, *args))
        assert ft.cache_info().hits > hits  # the cache served calls of the program
        ft.set_cache_enabled(False)
        off = figures(ft.plan(fn, *args))
    finally:
        ft.set_cache_enabled(old)
    assert on == off
    assert on[0] == "completed" and on[6]


def _onehot_by_len(m):
    labels = np.random.randint(0, 10, m)
    classes = np.unique(labels)
    n_classes = len(classes)            # a plain int: CPython converts __len__'s result
    return np.zeros((m, n_classes))


def _onehot_by_shape(m):
    labels = np.random.randint(0, 10, m)
    classes = np.unique(labels)
    n_classes = classes.shape[0]        # the bounded size itself
    y = np.zeros((m, n_classes))
    if n_classes > 0:                   # still control flow on it: would stop
        pass
    return y


def test_len_as_a_size_stops_and_names_shape_instead():
    """len() cannot hand a bounded size on (docs/guide/bounded-sizes.md): a default plan
    stops there and says to write ``x.shape[0]``, which keeps the size and its checks."""
    p = ft.plan(_onehot_by_len, 1000)
    assert p.status == "data_dependent"
    assert "len() gives a plain int" in p.stopped_at["message"]
    assert "x.shape[0]" in p.stopped_at["message"]
    p = ft.plan(_onehot_by_shape, 1000)
    assert p.status == "data_dependent"
    assert "a comparison (>) on the data-dependent size k0" in p.stopped_at["message"]
    assert "len()" not in p.stopped_at["message"]
    p = ft.plan(_onehot_sized, 1000)
    assert p.status == "completed" and p.bounded_sizes["sizes"][0]["hi"] == 1000
    assert p.bounded_sizes["peak"]["cpu"]["upper"] >= 1000 * 1000 * 8


def _onehot_sized(m):
    classes = np.unique(np.random.randint(0, 10, m))
    return np.zeros((m, classes.shape[0]))


def test_watched_storages_are_dropped_when_they_die():
    """A mask's storage remembered for its size (or a ufunc input's serial) is watched only
    while it lives: once every such storage is gone, calls skip the write bookkeeping again."""
    import gc

    from faketensor import _sizes

    before = set(_sizes.WATCHED)
    with ft.FakeMode():
        x = np.empty(10)
        m = x > 0
        y = x[m]
        assert set(_sizes.WATCHED) - before  # the mask and x are watched
        del x, m, y
        gc.collect()
    assert set(_sizes.WATCHED) - before == set()
