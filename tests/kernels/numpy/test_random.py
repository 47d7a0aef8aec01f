"""np.random under FakeMode: exact metadata for every function and method, never a crash.

The generated table (tests/random_corpus.py) runs in subprocesses, because a call that
lets NumPy's C code write into a fake kills the interpreter; the rest are targeted checks.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import faketensor as ft
from faketensor.modes.fake_generator import FakeGenerator
from faketensor.modes.random_gen import RealDrawInModeError

from oracle import compare_meta
import random_corpus
from locations import TESTS  # tests/ and the checkout

HERE = str(TESTS)
N_CALLS = len(random_corpus.calls())
CHUNKS = 2


def _run_slice(start: int, stop: int) -> tuple[list, list]:
    """Run calls[start:stop] in subprocesses; (failures, crashes). After a crash the rest
    of the slice runs in a new process, so every crashing call is named."""
    bad: list = []
    crashed: list = []
    i = start
    while i < stop:
        proc = subprocess.run([sys.executable, os.path.join(HERE, "random_corpus.py"), str(i), str(stop)],
                              capture_output=True, text=True, cwd=HERE, timeout=300)
        last = None
        for line in proc.stdout.splitlines():
            kind, _, rest = line.partition(" ")
            if kind == "START":
                last = int(rest)
            elif kind == "BAD":
                bad.append(rest)
                last = None
            elif kind == "OK":
                last = None
        if proc.returncode == 0:
            break
        if last is None:  # died outside a call
            crashed.append(f"worker exited {proc.returncode} after call {i}: {proc.stderr[-2000:]}")
            break
        c = random_corpus.calls()[last]
        crashed.append(f"call {last} {c.owner}.{c.name}{c.args!r}{c.kwargs!r}: exit {proc.returncode}")
        i = last + 1
    return bad, crashed


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_generated_calls(chunk):
    step = -(-N_CALLS // CHUNKS)
    bad, crashed = _run_slice(chunk * step, min(N_CALLS, (chunk + 1) * step))
    assert not crashed, "interpreter killed by:\n" + "\n".join(crashed)
    assert not bad, f"{len(bad)} calls differ from NumPy:\n" + "\n".join(bad[:40])


def test_corpus_covers_every_public_function_and_method():
    covered = {(c.owner, c.name) for c in random_corpus.calls()}
    from faketensor.kernels.numpy.random import NOT_DRAWS
    for name in dir(np.random.Generator):
        if not name.startswith("_") and name not in NOT_DRAWS:
            assert ("gen", name) in covered, name
    for name in dir(np.random.RandomState):
        if not name.startswith("_") and name not in NOT_DRAWS:
            assert ("rs", name) in covered, name
    for name in dir(np.random):
        fn = getattr(np.random, name)
        if callable(fn) and not isinstance(fn, type) and not name.startswith("_") and name not in (
                "seed", "get_state", "set_state", "default_rng", "get_bit_generator",
                "set_bit_generator", "test"):  # test: numpy's PytestTester
            assert ("mod", name) in covered, name


# --- the cases named in the issue -----------------------------------------------------


def _both(fn, *arrays):
    """fn(owner, *arrays) on a real Generator and real arrays, and in FakeMode on fakes."""
    real = fn(np.random.default_rng(0), *arrays)
    fakes = ft.to_fake(arrays)
    with ft.FakeMode():
        fake = fn(np.random.default_rng(0), *fakes)
    compare_meta(real, fake, list(arrays), list(fakes), getattr(fn, "__name__", "call"))
    return fake


def test_choice_axis_1_on_f_order():
    a = np.asfortranarray(np.ones((4, 3)))
    f = _both(lambda g, x: g.choice(x, 2, axis=1), a)
    assert f.shape == (4, 2) and f.flags.c_contiguous


def test_permutation_axis_1_is_numpy_advanced_indexing_layout():
    a = np.asfortranarray(np.ones((3, 4, 5)))
    _both(lambda g, x: g.permutation(x, axis=1), a)
    _both(lambda g, x: g.permutation(x, axis=2), np.ones((5, 4, 3)).T)


def test_permuted_keeps_f_order():
    f = _both(lambda g, x: g.permuted(x, axis=0), np.asfortranarray(np.ones((3, 4))))
    assert f.flags.f_contiguous and not f.flags.c_contiguous


def test_legacy_choice_on_2d_fake_raises_value_error():
    with ft.FakeMode():
        x = np.zeros((3, 4))
        with pytest.raises(ValueError, match="1-dimensional"):
            np.random.choice(x)


def test_ranf_and_sample_give_fakes_and_replay():
    with ft.FakeMode(record=True) as mode:
        a = np.random.ranf((2, 3))
        b = np.random.sample(4)
        c = np.random.mtrand.ranf(5)  # the same function under another module path
    assert [x.shape for x in (a, b, c)] == [(2, 3), (4,), (5,)]
    assert [e.op for e in mode.trace] == ["np.random.ranf", "np.random.sample", "np.random.ranf"]
    np.random.seed(3)
    expect = np.random.random_sample((2, 3))
    np.random.seed(3)
    real = ft.replay(mode, a)
    assert np.array_equal(real, expect)


# --- generators made outside the mode, or RandomState made inside ----------------------


@pytest.mark.parametrize("make", ["gen_outside", "rs_outside", "rs_inside", "legacy_alias"])
def test_real_generator_inside_mode_refuses_and_names_the_method(make):
    g = np.random.default_rng(0)
    rs = np.random.RandomState(0)
    before = (g.bit_generator.state, rs.get_state(legacy=False))
    with ft.FakeMode() as mode:
        with pytest.raises(ft.UnsupportedOperationError) as info:
            if make == "gen_outside":
                g.normal(size=(1000, 1000))
            elif make == "rs_outside":
                rs.randint(5, size=(1000, 1000))
            elif make == "rs_inside":
                np.random.RandomState(1).standard_normal((1000, 1000))
            else:
                np.random.mtrand._rand.uniform(size=(1000, 1000))
    name = {"gen_outside": "Generator.normal", "rs_outside": "RandomState.randint",
            "rs_inside": "RandomState.standard_normal", "legacy_alias": "RandomState.uniform"}[make]
    assert name in str(info.value) and "default_rng" in str(info.value)
    assert isinstance(info.value, RealDrawInModeError)
    assert mode.memory.peak.get("cpu", 0) == 0
    assert g.bit_generator.state == before[0]


def test_state_and_seeding_work_inside_mode():
    with ft.FakeMode():
        np.random.seed(5)
        st = np.random.get_state()
        rs = np.random.RandomState(2)
        rs.seed(3)
        bg = np.random.PCG64(7)
        g = np.random.default_rng(bg)
        kids = g.spawn(2)
        g2 = pickle.loads(pickle.dumps(g))
        x = kids[0].normal(size=3)
        with pytest.raises(ft.UnsupportedOperationError):
            bg.random_raw(10)  # a bit generator's raw draws are real work too
    assert isinstance(st, tuple) and all(type(k) is FakeGenerator for k in kids)
    assert isinstance(g2, np.random.Generator) and ft.is_fake(x)
    assert type(np.random.PCG64(0).random_raw(3)) is np.ndarray  # outside again: real


def test_default_rng_inside_wraps_existing_generators_and_random_state():
    rs = np.random.RandomState(0)
    g = np.random.default_rng(1)
    with ft.FakeMode():
        a = np.random.default_rng(rs)
        b = np.random.default_rng(g)
        c = np.random.default_rng(a)
    assert type(a) is FakeGenerator and a.bit_generator is rs._bit_generator
    assert type(b) is FakeGenerator and b.bit_generator is g.bit_generator
    assert c is a


def test_fake_generator_outside_mode_with_fake_arguments_gives_fakes():
    with ft.FakeMode():
        g = np.random.default_rng(0)
    out = ft.empty((2, 3))
    assert g.random(out=out) is out
    assert g.permuted(ft.empty((3, 4), order="F")).flags.f_contiguous
    assert type(g.random(3)) is np.ndarray  # no fake among the arguments: a real draw
    assert g.shuffle(ft.empty((10 ** 9,))) is None  # never loops over a fake in Python
    assert np.random.shuffle(ft.empty((10 ** 9,))) is None
    assert np.random.normal(ft.empty((2, 3))).shape == (2, 3)


def test_outside_any_mode_real_generators_on_fakes_do_not_crash():
    code = """
import numpy as np, faketensor as ft
g = np.random.default_rng(0); rs = np.random.RandomState(0); f = ft.empty((3,))
for call in (lambda: g.normal(f), lambda: g.permuted(f), lambda: g.choice(f),
             lambda: rs.permutation(f), lambda: g.integers(f), lambda: g.dirichlet(f),
             lambda: g.multinomial(3, f), lambda: g.permuted(np.zeros(3), out=f),
             lambda: rs.shuffle(ft.empty((4,))), lambda: g.shuffle(ft.empty((4, 2)))):
    try:
        call()
    except Exception:
        pass
print("alive")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "alive" in proc.stdout, proc.stderr[-2000:]


# --- memory ------------------------------------------------------------------------------


def test_draws_count_as_fresh_allocations():
    with ft.FakeMode() as mode:
        g = np.random.default_rng(0)
        a = g.normal(size=(1000, 1000))
        b = np.random.randint(5, size=1000, dtype=np.int8)
        pool = 16  # the generator's SeedSequence entropy pool, uint32[4]
        assert mode.memory.live["cpu"] == pool + 8_000_000 + 1000
        del a, b
        assert mode.memory.live["cpu"] == pool
        c = g.random(size=10, dtype=np.float32)
        assert mode.memory.live["cpu"] == pool + 40 and c.dtype == np.float32
        del g
        assert mode.memory.live["cpu"] == 40


def test_legacy_choice_without_replacement_is_a_view_of_the_permutation():
    real = np.random.choice(100, size=(2, 3), replace=False)
    with ft.FakeMode() as mode:
        fake = np.random.choice(100, size=(2, 3), replace=False)
        assert mode.memory.live["cpu"] == 800  # the whole permutation stays alive
    compare_meta(real, fake, [], [], "choice")


def test_python_scalar_checks_and_fake_values_assumed_valid():
    with ft.FakeMode():
        g = np.random.default_rng(0)
        with pytest.raises(ValueError, match="scale < 0"):
            g.normal(0.0, -1.0, size=3)
        with pytest.raises(ValueError, match="scale < 0"):
            g.normal(np.zeros(3), -1.0)  # a known scalar next to a fake
        with pytest.raises(ValueError, match="left > mode"):
            g.triangular(2.0, np.zeros(3), 1.0)  # whatever mode is, left > right fails
        assert g.normal(0.0, np.zeros(3) - 1).shape == (3,)  # values in fakes: assumed valid
        with pytest.raises(TypeError):
            g.normal(np.zeros(3, complex))  # a cast NumPy refuses, from the dtype alone
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            np.random.random_integers(5, size=2)
        assert any(issubclass(x.category, DeprecationWarning) for x in w)


def test_replay_of_generator_and_legacy_draws_matches_recorded_metadata():
    with ft.FakeMode(record=True) as mode:
        g = np.random.default_rng(4)
        x = np.ones((3, 5), order="F")
        outs = (g.choice(x, 2, axis=1), g.permutation(x, axis=1), g.permuted(x, axis=0),
                np.random.choice(10, 4, replace=False), g.multinomial(5, [0.5, 0.5], size=3),
                np.random.ranf(2), g.integers(0, 5, size=(2, 2), dtype=np.int16))
    np.random.seed(0)
    reals = ft.replay(mode, outs)  # checks every replayed result against the recorded fake
    assert [r.shape for r in reals] == [o.shape for o in outs]


def test_nested_fake_modes_still_check_known_parameters():
    with ft.FakeMode() as outer:
        with ft.FakeMode() as inner:
            g = np.random.default_rng(0)
            assert g.normal(0.0, 1.0, size=(2, 3)).shape == (2, 3)
            with pytest.raises(ValueError, match="scale < 0"):
                g.normal(0.0, -1.0)
            assert inner.memory.peak["cpu"] == 112  # seeding's peak (16 + 48 come after)
            assert np.random.choice(5, 3, p=[0.2] * 5).shape == (3,)
            del g
    assert outer.memory.peak == inner.memory.peak and inner.memory.live["cpu"] == 0


def test_a_fake_mode_in_one_thread_leaves_real_draws_in_another():
    import threading
    results = []
    entered, done = threading.Event(), threading.Event()

    def worker():
        entered.wait()
        g = np.random.default_rng(0)
        results.append((type(g.normal(size=3)), type(np.random.randn(2)), type(g.integers(5, size=2))))
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    with ft.FakeMode():
        entered.set()
        done.wait(30)
        assert ft.is_fake(np.random.randn(2))
    t.join()
    assert results == [(np.ndarray, np.ndarray, np.ndarray)]


# --- transient memory against tracemalloc ---------------------------------------------------
#
# Each case: (setup, op). ``setup`` makes [owner, *arrays] (real outside the mode, fakes
# inside: memtools.op_peaks runs it in both), ``op`` draws; real and fake peaks and live
# bytes must be equal to the byte.

from memtools import op_peaks  # noqa: E402
import faketensor.kernels.numpy.random as _kr  # noqa: E402


_NEUTRAL = {"p": 0.5, "low": 0.0, "loc": 0.0, "mu": 0.0, "mean": 2.0, "left": 0.0, "mode": 1.0,
            "right": 2.0, "ngood": 3, "nbad": 3, "nsample": 2, "a": 2.5, "df": 3.0}
_INT_PARAMS = {("binomial", "n"), ("hypergeometric", "ngood"), ("hypergeometric", "nbad"),
               ("hypergeometric", "nsample"), ("negative_binomial", "n")}
_FORMS = {  # how each parameter is given: (which parameters, maker(value, is_int))
    "scalars": (None, None),
    "first-f8": (0, lambda v, i: np.full(50, v, "i8" if i else "f8")),
    "first-f4-cast": (0, lambda v, i: np.full(50, v, "i4" if i else "f4")),
    "first-reversed": (0, lambda v, i: np.full(100, v, "i8" if i else "f8")[::-2]),
    "all-list": ("all", lambda v, i: [v] * 7),
    "all-bcast2d": ("all", lambda v, i: np.full((5, 1), v, "i8" if i else "f8")),
    "all-i8": ("all", lambda v, i: np.full(50, int(v) if float(v).is_integer() else 1, "i8")),
    "all-big-endian": ("all", lambda v, i: np.full(9, v, ">i8" if i else ">f8")),
    "all-tiny": ("all", lambda v, i: np.full(1, v, "i8" if i else "f8")),
}


def _deprecated(fn, *args, **kwargs):
    with pytest.warns(DeprecationWarning):
        return fn(*args, **kwargs)


def _owner(kind):
    return np.random.default_rng(0) if kind == "gen" else np.random


def _draw_cases():
    out = []
    for name, params in _kr.DISTRIBUTIONS.items():
        if not params:
            continue
        for kind in ("gen", "mod"):
            if not hasattr(np.random.Generator if kind == "gen" else np.random.RandomState, name):
                continue
            for form, (which, make) in _FORMS.items():
                if form == "all-i8" and name in ("zipf", "logseries"):
                    continue  # an int64 1 is outside their domain
                for size in (None, "size"):
                    if size and form in ("all-list", "all-tiny"):
                        continue
                    out.append(pytest.param(name, params, kind, which, make, size,
                                            id=f"{kind}.{name}-{form}-{size or 'nosize'}"))
    return out


@pytest.mark.parametrize("name,params,kind,which,make,size", _draw_cases())
def test_draw_memory_matches_tracemalloc(name, params, kind, which, make, size):
    def setup():
        vals = []
        for i, p in enumerate(params):
            v = _NEUTRAL.get(p, 2.0)
            chosen = which == "all" or which == i
            vals.append(make(v, (name, p) in _INT_PARAMS) if make and chosen else v)
        return [_owner(kind)] + vals

    shape = np.broadcast_shapes(*[np.shape(v) for v in setup()[1:]])

    def op(g, *vals):
        return getattr(g, name)(*vals, size=(3,) + shape if size else None)

    real, fake = op_peaks(setup, op)
    assert real == fake


def _other_cases():
    G = lambda: np.random.default_rng(0)  # noqa: E731
    M = lambda: np.random  # noqa: E731
    c = {
        "integers-int-bounds-size": (lambda: [G()], lambda g: g.integers(5, size=(3, 40))),
        "integers-array-high": (lambda: [G(), np.full(40, 5)], lambda g, h: g.integers(h)),
        "integers-float-high": (lambda: [G(), np.full(40, 5.0)], lambda g, h: g.integers(h)),
        "integers-u1-from-i8": (lambda: [G(), np.full(40, 5)], lambda g, h: g.integers(h, dtype=np.uint8)),
        "integers-i2-endpoint": (lambda: [G(), np.zeros(40, np.int64), np.full((2, 1), 9)],
                                 lambda g, lo, hi: g.integers(lo, hi, dtype=np.int16, endpoint=True)),
        "integers-bool-dtype-int": (lambda: [G()], lambda g: g.integers(2, dtype=int)),
        "integers-scalar-u8": (lambda: [G()], lambda g: g.integers(7, dtype=np.uint64)),
        "integers-empty-size": (lambda: [G()], lambda g: g.integers(7, size=0)),
        "randint-array": (lambda: [M(), np.full(40, 5, np.int32)], lambda g, h: g.randint(h)),
        "random_integers": (lambda: [M()], lambda g: _deprecated(g.random_integers, 5, size=(3, 4))),
        "negative_binomial-empty": (lambda: [G(), np.ones(0), np.full(0, 0.5)],
                                    lambda g, n, p: g.negative_binomial(n, p)),
        "negative_binomial-one": (lambda: [G(), np.ones(1), 0.5], lambda g, n, p: g.negative_binomial(n, p)),
        "integers-i2-from-i4": (lambda: [G(), np.full(40, 5, np.int32)],
                                lambda g, h: g.integers(h, dtype=np.int16)),
        "integers-i2-from-i4-one-element": (lambda: [G(), np.full(1, 5, np.int32)],
                                            lambda g, h: g.integers(h, dtype=np.int16)),
        "integers-u1-one-element": (lambda: [G(), np.full(1, 5)], lambda g, h: g.integers(h, dtype=np.uint8)),
        "bytes": (lambda: [G()], lambda g: g.bytes(100)),
        "bytes-legacy-short": (lambda: [M()], lambda g: g.bytes(9)),
        "standard_gamma-f4-from-f8": (lambda: [G(), np.ones(40)],
                                      lambda g, s: g.standard_gamma(s, dtype=np.float32)),
        "standard_gamma-out": (lambda: [G(), np.ones(4), np.empty((3, 4))],
                               lambda g, s, o: g.standard_gamma(s, out=o)),
        "standard_normal-f4": (lambda: [G()], lambda g: g.standard_normal((3, 4), dtype=np.float32)),
        "random-out": (lambda: [G(), np.empty((3, 4), order="F")], lambda g, o: g.random(out=o)),
        "dirichlet-rev": (lambda: [G(), np.ones(20)[::-2]], lambda g, a: g.dirichlet(a, (2, 3))),
        "dirichlet-small-list": (lambda: [G()], lambda g: g.dirichlet([0.05] * 10, 3)),
        "dirichlet-legacy-f4": (lambda: [M(), np.ones(10, "f4")], lambda g, a: g.dirichlet(a, 4)),
        "multinomial-vector": (lambda: [G(), np.full((3, 1), 5, "i4"), np.full((4, 10), 0.1).T.T],
                               lambda g, n, p: g.multinomial(n, p, size=(3, 4))),
        "multinomial-f4": (lambda: [G(), np.full(10, 0.1, "f4")], lambda g, p: g.multinomial(5, p, 4)),
        "multinomial-legacy": (lambda: [M(), np.full(20, 0.1)[::-2]], lambda g, p: g.multinomial(5, p, 4)),
        "mv_hypergeometric-i4": (lambda: [G(), np.full(10, 3, "i4")],
                                 lambda g, c: g.multivariate_hypergeometric(c, 2, size=(2, 3))),
        "mv_hypergeometric-list": (lambda: [G()], lambda g: g.multivariate_hypergeometric([3] * 10, 2)),
        "permutation-int": (lambda: [M()], lambda g: g.permutation(5)),
        "permutation-1d": (lambda: [G(), np.ones(20)[::-2]], lambda g, x: g.permutation(x)),
        "permutation-axis": (lambda: [G(), np.ones((2, 3, 4)).T], lambda g, x: g.permutation(x, axis=1)),
        "permutation-list": (lambda: [M()], lambda g: g.permutation([1.0] * 10)),
        "shuffle-overlapping-slices": (lambda: [G(), np.ones((2, 3, 4)).T], lambda g, x: g.shuffle(x)),
        "shuffle-F": (lambda: [M(), np.ones((6, 4), order="F")], lambda g, x: g.shuffle(x)),
        "permuted-step-out": (lambda: [G(), np.ones((6, 4), "f4"), np.ones((6, 8))[:, ::2]],
                              lambda g, x, o: g.permuted(x, out=o)),
        "permuted-axis": (lambda: [G(), np.ones((6, 4), order="F")], lambda g, x: g.permuted(x, axis=1)),
    }
    for kind in ("gen", "mod"):
        for meth in (("svd", "eigh", "cholesky") if kind == "gen" else ("svd",)):
            for mk, size in ((lambda: np.ones(10, "f4"), (3, 4)), (lambda: np.zeros(200), 5)):
                kw = {"method": meth} if kind == "gen" else {}
                c[f"multivariate_normal-{kind}-{meth}-{size}"] = (
                    lambda kind=kind, mk=mk: [_owner(kind), mk(), np.eye(mk().shape[0])],
                    lambda g, m, cov, kw=kw, size=size: g.multivariate_normal(m, cov, size, **kw))
        for a_k in ("int", "array", "array2d"):
            for size in (None, 5, (3, 4)):
                for replace, p_k in ((True, None), (True, "f4"), (False, None), (False, "f8")):
                    if kind == "mod" and a_k == "array2d":
                        continue
                    if not replace and p_k and size == (3, 4):
                        continue  # redraws after a collision: the gap below
                    def setup(kind=kind, a_k=a_k, p_k=p_k):
                        a = {"int": 20000, "array": np.ones(20000), "array2d": np.ones((20000, 2))}[a_k]
                        p = None if p_k is None else np.full(20000, 1 / 20000, p_k)
                        return [_owner(kind), a, p]
                    c[f"choice-{kind}-{a_k}-{size}-{replace}-{p_k}"] = (
                        setup, lambda g, a, p, size=size, replace=replace: g.choice(a, size, replace, p))
    return [pytest.param(s, o, id=k) for k, (s, o) in c.items()]


@pytest.mark.parametrize("setup,op", _other_cases())
def test_random_memory_matches_tracemalloc(setup, op):
    real, fake = op_peaks(setup, op)
    assert real == fake


@pytest.mark.parametrize("setup,op", [
    pytest.param(lambda: [np.random.default_rng(0)],
                 lambda g: g.choice(100, (3, 4), replace=False, p=np.full(100, 0.01)),
                 marks=pytest.mark.xfail(strict=True, reason=(
                     "without replacement and with p, picks that collide are redrawn: the "
                     "number of rounds (each a new cdf) depends on the drawn values")),
                 id="choice-p-redraws"),
    pytest.param(lambda: [np.random.default_rng(0), np.full(10, 0.05)],
                 lambda g, a: g.dirichlet(a),
                 marks=pytest.mark.xfail(strict=True, reason=(
                     "Generator.dirichlet keeps a cumulative sum when every alpha < 0.1: "
                     "a fake alpha's values are unknown")),
                 id="dirichlet-small-fake-alpha"),
])
def test_random_memory_known_gaps(setup, op):
    real, fake = op_peaks(setup, op)
    assert real == fake


def test_generator_made_while_the_mode_is_paused_draws_fakes(tmp_path, monkeypatch):
    """A library imported inside a mode runs its module code paused; a Generator it keeps
    at module level draws fakes of NumPy's metadata inside the mode (its state left alone)
    and real numbers outside, as NumPy's."""
    (tmp_path / "ftlib_rng.py").write_text(
        "import numpy as np\nRNG = np.random.default_rng(0)\n"
        "def draw():\n    return RNG.normal(size=(4, 3))\n"
        "def binom():\n    return RNG.binomial(np.full(3, 10), 0.5)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ftlib_rng", raising=False)
    real_gen = np.random.default_rng(0)
    with ft.FakeMode():
        import ftlib_rng
        before = ftlib_rng.RNG.bit_generator.state
        x, b = ftlib_rng.draw(), ftlib_rng.binom()
    assert isinstance(ftlib_rng.RNG, np.random.Generator)
    assert ftlib_rng.RNG.bit_generator.state == before
    first = real_gen.normal(size=(4, 3))
    compare_meta(first, x, [], [], "normal")
    compare_meta(real_gen.binomial(np.full(3, 10), 0.5), b, [], [], "binomial")
    again = ftlib_rng.draw()  # outside: real draws, the stream where it was
    assert type(again) is np.ndarray and np.array_equal(again, first)
