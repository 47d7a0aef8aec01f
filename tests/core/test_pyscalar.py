"""Draws NumPy returns as Python numbers are fake Python numbers: weak operands (NEP 50).

Every call of the np.random table (tests/random_corpus.py) whose real result is a Python
int, float or bool is run again inside FakeMode; the fake must stand for that Python type
(``pytype``), and what is computed from it must have the real metadata.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import faketensor as ft
import random_corpus
from faketensor._storage import SCALAR
from memtools import op_peaks

PY = (bool, int, float, complex)


def _real(call):
    args, kwargs = random_corpus.materialize_args((call.args, call.kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return getattr(random_corpus._real_owner(call), call.name)(*args, **kwargs)
        except Exception:  # not a draw that returns a number
            return None


def _python_number_calls() -> list:
    """The table's calls on Generator methods and np.random functions (the fakes faketensor
    makes) whose real result is a Python number, one per (owner, name, argument form)."""
    seen: set = set()
    out = []
    for c in random_corpus.calls():
        if c.owner not in ("gen", "mod"):
            continue
        r = _real(c)
        if type(r) not in PY:
            continue
        key = (c.owner, c.name, tuple(type(a).__name__ for a in c.args), tuple(sorted(c.kwargs)))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


CALLS = _python_number_calls()

# what user code computes from a draw d (NumPy's dtype rules for Python numbers)
DOWNSTREAM = {
    "f4_array*d": lambda d: np.ones(3, np.float32) * d,
    "i1_array+d": lambda d: np.ones(3, np.int8) + d,
    "u1_array-d": lambda d: np.subtract(np.ones(3, np.uint8), d),
    "d*d": lambda d: d * d,
    "d/2": lambda d: d / 2,
    "d//2": lambda d: d // 2,
    "-d": lambda d: -d,
    "d<0.5": lambda d: d < 0.5,
    "f4_scalar+d": lambda d: np.float32(1) + d,
    "d+f4_scalar": lambda d: d + np.float32(1),
    "f2_scalar*d": lambda d: np.float16(1) * d,
    "np.array([d])": lambda d: np.array([d]),
    "np.array(d)": lambda d: np.array(d),
    "np.full(3,d)": lambda d: np.full(3, d),
    "np.where": lambda d: np.where(np.ones(3, bool), np.ones(3, np.float32), d),
    "np.sqrt(d)": lambda d: np.sqrt(d),
    "f4_array*(d*2)": lambda d: np.ones(3, np.float32) * (d * 2),
    "divmod(d,3)": lambda d: divmod(d, 3),
}


def _describe(x):
    """What the dtype rules see of a result: the Python type of a Python number (real) or of
    a fake one, else the NumPy type and dtype."""
    if isinstance(x, tuple):
        return tuple(_describe(v) for v in x)
    if type(x) in PY:
        return type(x)
    if ft.is_fake(x):
        if x.pytype is not None:
            return x.pytype
        return ("scalar" if x.storage._tracker is SCALAR else "array", x.shape, x.dtype)
    return ("scalar" if isinstance(x, np.generic) else "array", np.shape(x), x.dtype)


@pytest.mark.parametrize("call", CALLS, ids=lambda c: f"{c.owner}.{c.name}{c.args!r}{c.kwargs!r}"[:90])
def test_draw_is_fake_python_number_and_promotes_like_one(call):
    real = _real(call)
    args, kwargs = random_corpus.materialize_args((call.args, call.kwargs))
    conv = ft.Converter()
    fargs = tuple(conv.to_fake(a) if isinstance(a, np.ndarray) else a for a in args)
    fkwargs = {k: conv.to_fake(v) if isinstance(v, np.ndarray) and k != "size" else v
               for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ft.FakeMode():
            owner = np.random.default_rng(0) if call.owner == "gen" else np.random
            fake = getattr(owner, call.name)(*fargs, **fkwargs)
            fake_down = {k: _describe(op(fake)) for k, op in DOWNSTREAM.items()}
        # the real draw's type with a value that no op refuses (a negative int overflows
        # uint8 for real: a value, which a fake number does not have); NumPy's rules for a
        # Python number read only its type otherwise
        one = type(real)(1)
        real_down = {k: _describe(op(one)) for k, op in DOWNSTREAM.items()}
    assert fake.pytype is type(real)
    assert fake_down == real_down


def test_table_holds_every_kind_of_python_number_draw():
    kinds = {(c.owner, c.name, type(_real(c))) for c in CALLS}
    for name in ("normal", "random", "binomial", "zipf", "logseries", "standard_gamma"):
        assert ("gen", name, int if name in random_corpus_int() else float) in kinds, name
    assert ("mod", "rand", float) in kinds and ("mod", "randint", int) in kinds
    assert ("gen", "choice", int) in kinds


def random_corpus_int() -> set:
    from faketensor.kernels.numpy.random import INTEGER_VALUED
    return set(INTEGER_VALUED)


@pytest.mark.parametrize("make", [
    lambda np_: np_.random.default_rng(0).integers(5),
    lambda np_: np_.random.default_rng(0).integers(5, dtype=np_.int32),
    lambda np_: np_.random.default_rng(0).integers(np_.array(5)),
    lambda np_: np_.random.default_rng(0).choice(np_.arange(3)),
    lambda np_: np_.random.random_integers(3),
], ids=["integers", "integers-int32", "integers-0d", "choice-array", "random_integers"])
def test_numpy_scalar_draws_stay_numpy_scalars(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real = make(np)
        with ft.FakeMode():
            fake = make(np)
            down = (np.ones(3, np.int8) + fake).dtype
    assert isinstance(real, np.generic) and fake.pytype is None and fake.dtype == real.dtype
    assert down == (np.ones(3, np.int8) + real).dtype


@pytest.mark.parametrize("make", [
    lambda: np.random.default_rng(0).integers(5, dtype=int),
    lambda: np.random.randint(5, dtype=int),
    lambda: np.random.default_rng(0).choice(np.array(5)),
    lambda: np.random.default_rng(0).random(dtype=np.float32),
    lambda: np.random.default_rng(0).normal(np.array(0.0), 1.0),  # 0-d array parameters
    lambda: np.random.default_rng(0).normal(np.float32(0), 1.0),
], ids=["integers-int", "randint-int", "choice-0d", "random-f4", "normal-0d", "normal-f4"])
def test_more_python_number_forms(make):
    real = make()
    with ft.FakeMode():
        fake = make()
        down = (np.ones(3, np.float32) * fake).dtype, (np.ones(3, np.int8) + fake).dtype
    assert type(real) in PY and fake.pytype is type(real)
    assert down == ((np.ones(3, np.float32) * real).dtype, (np.ones(3, np.int8) + real).dtype)


def test_a_draw_from_a_fake_python_number_parameter_is_one():
    with ft.FakeMode():
        rng = np.random.default_rng(0)
        d = rng.normal(rng.normal(), 1.0)
        assert d.pytype is float


# --- Python arithmetic -------------------------------------------------------------------


def _draws():
    rng = np.random.default_rng(0)
    return rng.normal(), rng.binomial(10, 0.5)


def test_python_arithmetic_gives_python_types():
    rd, ri = _draws()
    ops = [lambda d, i: d * d, lambda d, i: i * i, lambda d, i: i / i, lambda d, i: i // 3,
           lambda d, i: i % 3, lambda d, i: -d, lambda d, i: +i, lambda d, i: abs(d),
           lambda d, i: ~i, lambda d, i: i << 2, lambda d, i: i & 1, lambda d, i: d < 0.5,
           lambda d, i: i == 3, lambda d, i: d + 1j, lambda d, i: 1 - d, lambda d, i: 2 * i,
           lambda d, i: i ** 2, lambda d, i: d ** 2, lambda d, i: i ** -1, lambda d, i: d + True,
           lambda d, i: divmod(i, 4)]
    with ft.FakeMode():
        fd, fi = _draws()
        fake = [op(fd, fi) for op in ops]
        fd += 1
        fi *= 2.0
    for op, f in zip(ops, fake):
        r = op(rd, ri)
        if isinstance(r, tuple):
            assert tuple(x.pytype for x in f) == tuple(type(x) for x in r)
        else:
            assert f.pytype is type(r)
    assert fd.pytype is float and fi.pytype is float


def test_python_arithmetic_whose_type_depends_on_the_value_refuses():
    with ft.FakeMode():
        d, i = _draws()
        with pytest.raises(ft.DataDependentError):
            d ** 0.5  # complex for a negative d
        with pytest.raises(ft.DataDependentError):
            2 ** i  # a float for a negative i
        with pytest.raises(ZeroDivisionError):
            d / 0  # as the Python float does
        with pytest.raises(TypeError):
            d @ d


# --- value reads -------------------------------------------------------------------------


def test_value_reads_refuse_in_stop_mode():
    with ft.FakeMode():
        d, i = _draws()
        for read in (float, int, bool, round, lambda x: f"{x:.3f}", lambda x: round(x, 2)):
            with pytest.raises(ft.DataDependentError):
                read(d)
        with pytest.raises(ft.DataDependentError):
            if d < 0.5:
                pass
        with pytest.raises(ft.DataDependentError):
            range(i)


def test_placeholders_are_python_values_of_the_type():
    with ft.FakeMode(data_dependent="placeholder") as mode:
        d, i = _draws()
        got = [float(d), int(i), bool(d < 0.5), round(d, 2), round(d), f"{d:.2f}",
               operator_index(i)]
    # d, read as 0.0, holds it from then on: d < 0.5 is True (faketensor/_known.py)
    assert got == [0.0, 0, True, 0.0, 0, "0.00", 0]
    assert type(got[3]) is float and type(got[4]) is int
    assert len(mode.placeholders) >= 1
    with ft.FakeMode(data_dependent="placeholder"):
        d, _ = _draws()
        with pytest.raises(TypeError):  # a float is no index, whatever its value
            operator_index(d)


def operator_index(x):
    import operator
    return operator.index(x)


# --- memory -------------------------------------------------------------------------------

MEMORY_OPS = {
    "f4_array*d": (lambda: [np.ones(1000, np.float32), np.random.default_rng(0).normal()],
                   lambda a, d: a * d),
    "np.add(i1, i)": (lambda: [np.ones(1000, np.int8), np.random.default_rng(0).binomial(9, .5)],
                      lambda a, i: np.add(a, i)),
    "f8_array+d": (lambda: [np.ones(1000), np.random.default_rng(0).normal()],
                   lambda a, d: a + d),
    "where": (lambda: [np.ones(1000, np.float32), np.random.default_rng(0).normal()],
              lambda a, d: np.where(a > 0, a, d)),
    "clip": (lambda: [np.ones(1000, np.float32), np.random.default_rng(0).normal()],
             lambda a, d: np.clip(a, d, 2.0)),
    "full": (lambda: [np.ones(1), np.random.default_rng(0).normal()],
             lambda a, d: np.full(1000, d, np.float32)),
    "draw*draw": (lambda: [np.random.default_rng(0).normal(), np.random.default_rng(1).normal()],
                  lambda d, e: d * e),
    # a draw as the parameter of another: converted as the Python number is
    "np.random.normal(d)": (lambda: [np.random.default_rng(0).normal()],
                            lambda d: np.random.normal(d, 1.0, size=3)),
    "rng.normal(d)": (lambda: [np.random.default_rng(0).normal()],
                      lambda d: np.random.default_rng(1).normal(d, 1.0, size=10)),
    "rng.binomial(i)": (lambda: [np.random.default_rng(0).binomial(9, .5)],
                        lambda i: np.random.default_rng(1).binomial(i, 0.5, size=5)),
    "np.random.randint(i)": (lambda: [np.random.default_rng(0).binomial(9, .5)],
                             lambda i: np.random.randint(i + 1, size=5)),
    "np.random.choice(i)": (lambda: [np.random.default_rng(0).binomial(9, .5)],
                            lambda i: np.random.choice(i + 1, size=3)),
    "rng.integers(0, i)": (lambda: [np.random.default_rng(0).binomial(9, .5)],
                           lambda i: np.random.default_rng(1).integers(0, i + 1, size=5)),
}


@pytest.mark.parametrize("name", list(MEMORY_OPS))
def test_memory_of_ops_on_python_number_draws_equals_real(name):
    setup, op = MEMORY_OPS[name]
    real, fake = op_peaks(setup, op)
    assert fake == real


# --- queries and other dtype rules ---------------------------------------------------------

QUERIES = {
    "result_type": lambda d: np.result_type(np.ones(3, np.float32), d),
    "result_type-i1": lambda d: np.result_type(np.int8, d),
    "can_cast": lambda d: np.can_cast(d, np.float32),
    "shape": lambda d: np.shape(d),
    "iscomplexobj": lambda d: np.iscomplexobj(d),
    "clip": lambda d: np.clip(np.ones(3, np.float32), d, 2.0).dtype,
    "stack": lambda d: np.stack([d, d]).dtype,
    "maximum": lambda d: np.maximum(np.ones(3, np.float16), d).dtype,
    "setitem": lambda d: np.ones(3, np.float32).__setitem__(0, d),
}


@pytest.mark.parametrize("name", list(QUERIES))
@pytest.mark.parametrize("draw", ["normal", "binomial"])
def test_queries_see_a_python_number(name, draw):
    def make():
        rng = np.random.default_rng(0)
        return rng.normal() if draw == "normal" else rng.binomial(9, 0.5)

    def outcome(fn, d):
        try:
            return fn(d)
        except Exception as e:  # compared by type
            return type(e)
    real = outcome(QUERIES[name], make())
    with ft.FakeMode():
        fake = outcome(QUERIES[name], make())
    assert fake == real


def test_pickled_fake_python_number_keeps_its_type():
    import pickle
    with ft.FakeMode():
        d, i = _draws()
    for x, t in ((d, float), (i, int)):
        for back in (pickle.loads(pickle.dumps(x)), ft.unpickle(pickle.dumps(x))):
            assert back.pytype is t and back.shape == () and back.dtype == x.dtype
