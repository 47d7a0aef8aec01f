"""The kernel cache's hit path in C (faketensor/_speedups_cache.c) against its Python twins,
which stay the reference: the same cache key (equal, same hash, same types all the way down)
and the same ``fakes`` for any mix of arguments, fakes and storages that cannot be told apart
from Python-made ones, the same results, counts and costs from a cache hit, and a fallback to
Python (never a crash) for anything the C code does not know.

The compiled functions are set up here even when ``FAKETENSOR_PURE_PYTHON=1`` keeps the
package on its Python code, so both runs of the suite compare the two."""
import gc
import importlib
import os
import pickle
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import faketensor as ft
from faketensor import _accel, _array, _cache, _runner, _sizes, _storage
from faketensor._array import FakeArray, FakeSlots, make_fake_python
from faketensor._storage import SCALAR, FakeStorage
from faketensor.meta import ArrayMeta

from tests import oracle

try:
    SPEEDUPS = importlib.import_module("faketensor._speedups")
except ImportError:  # built without a compiler: the Python code is all there is
    SPEEDUPS = None
BUILT = SPEEDUPS is not None
needs_build = pytest.mark.skipif(not BUILT, reason="the accelerator is not built here (no C "
                                 "compiler at install time)")


def _set_up() -> bool:
    """Set the compiled functions up with the package's objects, as the package does when it
    uses them (again, harmlessly, when it already has)."""
    s = SPEEDUPS
    return bool(s.setup("make_fake", FakeSlots, FakeArray, make_fake_python)
                and s.setup("new_storage", FakeStorage)
                and s.setup("signature", _cache.signature_python, _cache._value_key, SCALAR,
                            _cache._VALUES, _cache.SIZES_MADE, _sizes.bounded_shape,
                            _cache.NOKEY, _cache._NESTED, _cache._KWARGS, _cache.MAX_SEQUENCE)
                and s.setup("run_fake", _runner._run_fake_python, _runner._run_miss,
                            _runner._instantiate, _cache.ENTRIES, _cache.INFO,
                            _cache.CacheEntry, _cache.FreshOut, _cache.ViewOut, ArrayMeta))


if BUILT:
    assert _set_up()


def same(a, b) -> bool:
    """Equal and of the same types all the way down (``1 == True`` is not enough)."""
    if type(a) is not type(b):
        return False
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a is b or a == b


def both_signatures(func, args, kwargs):
    """The compiled and the Python key of one call and the fakes each collected."""
    fc, fp = [], []
    kc = SPEEDUPS.signature(func, args, kwargs, fc)
    kp = _cache.signature_python(func, args, kwargs, fp)
    return kc, kp, fc, fp


def assert_same_signature(func, args, kwargs) -> None:
    kc, kp, fc, fp = both_signatures(func, args, kwargs)
    assert (kc is _cache.NOKEY) == (kp is _cache.NOKEY), (kc, kp)
    if kp is not _cache.NOKEY:
        assert same(kc, kp), (kc, kp)
        try:
            hp = hash(kp)
        except TypeError:  # an unhashable func or value: the compiled key is unhashable too
            with pytest.raises(TypeError):
                hash(kc)
        else:
            assert hash(kc) == hp
    assert len(fc) == len(fp) and all(a is b for a, b in zip(fc, fp)), (fc, fp)


# --- the argument mixes ---------------------------------------------------------------


@st.composite
def fake_pool(draw):
    """Fakes of awkward layouts (tests/oracle.py), views sharing their storages, a scalar,
    a fake Python number and a CUDA fake."""
    reals = draw(st.lists(oracle.arrays(max_dims=3), min_size=1, max_size=3))
    with ft.FakeMode():
        fakes = [ft.to_fake(r) for r in reals]
        f0 = fakes[0]
        if f0.ndim:
            fakes += [f0[1:], f0[::-1], f0.T]  # one storage, other offsets
        fakes.append(f0.sum())  # a NumPy scalar's fake: its storage's tracker is SCALAR
        fakes.append(np.random.default_rng(0).normal())  # a fake Python float (pytype)
        ro = f0.view()
        ro.flags.writeable = False
        fakes.append(ro)
    fakes.append(ft.empty((2, 3), device="cuda"))
    assert any(type(f) is FakeArray and f.storage._tracker is SCALAR for f in fakes)
    return fakes


class Opaque:
    """A value the cache has no key for."""


def pick(pool):
    """One of ``pool``, by index (sampled_from would hash a scalar's fake, which needs its
    value)."""
    return st.integers(0, len(pool) - 1).map(pool.__getitem__)


def values(pool):
    fake = pick(pool)
    plain = st.one_of(
        st.integers(-2**70, 2**70), st.floats(allow_nan=False), st.booleans(), st.none(),
        st.just(Ellipsis), st.text(max_size=3), st.complex_numbers(allow_nan=False),
        st.sampled_from([int, float, np.float32, np.dtype("f4"), np.dtype(">i2"),
                         np.float32(1.5), np.int64(3), np.bool_(True)]))
    odd = st.sampled_from([Opaque(), {"a": 1}, {1, 2}, [[1]] * 65, list(range(70)),
                           np.zeros(2), lambda: 0, slice(Opaque(), None)])
    ends = st.one_of(st.none(), st.integers(-5, 5), st.booleans(), st.floats(0, 2), fake,
                     st.sampled_from([np.int64(2), np.float32(1)]))
    leaf = st.one_of(fake, plain, st.builds(slice, ends, ends, ends))
    nested = st.recursive(leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.lists(inner, max_size=4).map(tuple)),
                          max_leaves=10)
    return nested, odd


@st.composite
def calls(draw):
    pool = draw(fake_pool())
    value, odd = values(pool)
    args = draw(st.lists(st.one_of(value, pick(pool)), max_size=5))
    if draw(st.booleans()):
        args.insert(draw(st.integers(0, len(args))), draw(odd))
    if draw(st.booleans()):  # the same fake twice
        args.append(args[0] if args and type(args[0]) is FakeArray else pool[0])
    kwargs = draw(st.dictionaries(st.sampled_from(["axis", "out", "dtype", "where", "k"]), value,
                                  max_size=3))
    func = draw(st.sampled_from([np.add, np.concatenate, np.ndarray.__getitem__, "a name",
                                 [np.add]]))  # a list: an unhashable func
    return func, tuple(args), kwargs


@needs_build
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(calls())
def test_compiled_signature_is_the_python_one(call):
    assert_same_signature(*call)


@needs_build
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(calls())
def test_compiled_signature_is_the_python_one_after_a_size_was_made(call):
    with ft.FakeMode():
        k = _sizes.make(0, 5, "test")  # a bounded size: the signature now asks bounded_shape
    base = ft.empty((5, 2))
    bounded = make_fake_python((k, 2), base.dtype, base.strides, base.storage)
    assert _cache.SIZES_MADE[0] and _sizes.bounded_shape(bounded.shape)
    func, args, kwargs = call
    assert_same_signature(func, args + (bounded,), kwargs)
    assert_same_signature(func, ([bounded],) + args, kwargs)
    assert both_signatures(func, (bounded,), {})[0] is _cache.NOKEY


@needs_build
def test_compiled_signature_in_the_corners():
    with ft.FakeMode():
        x = ft.to_fake(oracle.layout(np.ones((3, 4), np.float32), "step"))
        many = [x[i:] for i in range(3)] * 100  # 300 fakes: more than the compiled pairing takes
        y = np.empty((2, 2))
    cases = [
        (np.add, (x, x), {}), (np.add, (x, x.T), {}), (np.add, (x, y), {}),
        (np.add, (x, y, x[1:], y.T, x), {}),
        (np.concatenate, (many[:64],), {}), (np.concatenate, (many[:65],), {}),
        (np.concatenate, ([many[:60], many[:60], many[:60], many[:60], many[:60]],), {}),
        (np.add, (x,), {"out": (x,), "where": True}), (np.add, (x,), {"out": None}),
        (np.add, [x, y], {}),  # args as a list: the Python signature decides
        (np.add, (x, y), None),
        (np.add, (slice(x, 1.5, y), slice(np.int64(1), None), slice(True, None, None)), {}),
        (np.add, (slice(ft.empty(2, device="cuda"), x, None),), {}),  # NOKEY, x still collected
        (np.add, ([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],), {}),
        (np.add, ((1, 2.0, 3j, True, "s", None, ..., int, np.float32(1)),), {}),
        (np.add, (2**80, -2**80), {}),
        (np.add, (x,), {"axis": np.dtype("f4"), "k": np.random.default_rng(0)}),
    ]
    for func, args, kwargs in cases:
        assert_same_signature(func, args, kwargs)


@needs_build
def test_compiled_signature_falls_back_on_what_it_does_not_know():
    with ft.FakeMode():
        x = np.empty((2, 3))
    big = make_fake_python(x.shape, x.dtype, x.strides, x.storage, 2**70)  # a huge offset
    odd = make_fake_python(x.shape, x.dtype, x.strides, x.storage, True)  # a bool offset
    other = FakeStorage(48, "cpu")
    other.device = np.str_("cpu")  # a str subclass as device
    strange = make_fake_python(x.shape, x.dtype, x.strides, other)
    for args in [(big,), (x, big), (odd, x), (strange,), (x, [strange])]:
        assert_same_signature(np.add, args, {})

    class MyList(list):
        pass
    fc, fp = MyList(), MyList()
    assert same(SPEEDUPS.signature(np.add, (x, x), {}, fc),
                _cache.signature_python(np.add, (x, x), {}, fp))
    assert list(fc) == list(fp) == [x, x]
    unset = FakeArray.__new__(FakeArray)  # no slot filled: Python's AttributeError, not a crash
    with pytest.raises(AttributeError):
        _cache.signature_python(np.add, (unset,), {}, [])
    with pytest.raises(AttributeError):
        SPEEDUPS.signature(np.add, (unset,), {}, [])


# --- fakes and storages made in C ----------------------------------------------------


@needs_build
def test_compiled_fakes_and_storages_are_the_python_ones():
    with ft.FakeMode():
        x = np.empty((3, 4), np.float32)
    st_c = SPEEDUPS.new_storage(64, "cpu")
    st_p = FakeStorage(64, "cpu")
    assert type(st_c) is FakeStorage
    for name in FakeStorage.__slots__[:-1]:
        assert same(getattr(st_c, name), getattr(st_p, name)), name
    assert st_c.alignment == 64 and gc.is_tracked(st_c) == gc.is_tracked(st_p)
    assert weakref.ref(st_c)() is st_c
    assert SPEEDUPS.new_storage(np.int64(8), "cpu").nbytes.__class__ is int  # converted by int()
    for args in [(x.shape, x.dtype, x.strides, st_c),
                 (x.shape, x.dtype, x.strides, st_c, 16, x, False)]:
        fc, fp = SPEEDUPS.make_fake(*args), make_fake_python(*args)
        assert type(fc) is FakeArray
        for name in FakeSlots.__slots__[:-1]:
            assert same(getattr(fc, name), getattr(fp, name)), name
        assert weakref.ref(fc)() is fc and gc.is_tracked(fc) == gc.is_tracked(fp)
        assert fc.flags.writeable == fp.flags.writeable and fc.base is fp.base
        back = pickle.loads(pickle.dumps(fc))
        assert (back.shape, back.strides, back.dtype) == (fp.shape, fp.strides, fp.dtype)
    assert same(SPEEDUPS.make_fake(x.shape, x.dtype, x.strides, st_c, writeable=False).__class__,
                FakeArray)  # a keyword: the Python function
    fc = SPEEDUPS.make_fake(x.shape, x.dtype, x.strides, st_c)
    fc.shape = (4, 3)  # FakeArray's checked setter still guards it
    assert fc.strides == (12, 4) and fc.flags.c_contiguous


class Recorder:
    """A tracker that records the storages it is told are freed."""

    def __init__(self):
        self.freed = []

    def _free(self, storage):
        self.freed.append(storage.nbytes)


@needs_build
def test_a_compiled_storage_is_freed_when_it_dies():
    rec = Recorder()
    st = SPEEDUPS.new_storage(96, "cpu")
    st._tracker = rec
    wr = weakref.ref(st)
    del st
    assert rec.freed == [96] and wr() is None
    st = SPEEDUPS.new_storage(32, "cpu")  # in a reference cycle: the collector runs __del__
    st._tracker = rec
    cycle = [st]
    cycle.append(cycle)
    st.content = cycle
    del st, cycle
    gc.collect()
    assert rec.freed == [96, 32]


@pytest.mark.parametrize("record", [False, True])
def test_a_mode_charges_and_frees_what_a_cache_hit_makes(record):
    """Fresh outputs made by a hit (compiled or not) are charged, and freed when they die."""
    with ft.FakeMode(record=record) as m:
        x = np.empty((100, 10))
        y = x * x
        base = m.memory.live["cpu"]
        for _ in range(3):
            z = x * x  # a hit each time
            assert m.memory.live["cpu"] == base + 8000
            del z
            assert m.memory.live["cpu"] == base
        del y
        assert m.memory.live["cpu"] == 8000
    assert m.memory.peak["cpu"] == 3 * 8000


# --- a whole hit ---------------------------------------------------------------------


def _describe(res, args=()):
    """A result's metadata; its base named by position among ``args``, or described."""
    if type(res) in (tuple, list):
        return type(res), [_describe(r, args) for r in res]
    if type(res) is not FakeArray:
        return res
    base = res._base
    if type(base) is FakeArray:
        mine = [i for i, a in enumerate(args) if a is base]
        base = ("input", mine[0]) if mine else ("new", _describe(base))
    return (res.shape, res.strides, res.dtype, res.storage_offset, res.storage.nbytes,
            res.storage.device, res.flags.writeable, res._warn_on_write, res.flags.owndata,
            res.pytype, res.storage._tracker is SCALAR,
            base)


@needs_build
def test_the_compiled_hit_answers_as_the_python_one():
    with ft.FakeMode():
        x = np.empty((4, 6), np.float32)
        y = np.empty((6,), np.float32)
        ro = x.view()
        ro.flags.writeable = False
        b = np.broadcast_to(y, (4, 6))  # read-only, and NumPy warns on a write to its views
        calls = [(np.multiply, (x, y), {}), (np.add, (x, 1.0), {"dtype": np.float64}),
                 (np.transpose, (x,), {}), (np.sum, (x,), {}), (np.split, (x, 2), {}),
                 (np.reshape, (x.T, (24,)), {}), (np.add, (x, y), {"out": x}),
                 (np.broadcast_to, (y, (3, 6)), {}), (np.divmod, (x, y), {}),
                 (np.ravel, (x,), {}), (np.transpose, (ro,), {}), (np.transpose, (b,), {}),
                 (np.diagonal, (x,), {}), (np.ravel, (x[1:],), {}), (np.ravel, (b,), {})]
        for func, args, kwargs in calls:
            _runner._run_fake_python(func, args, kwargs)  # a miss: the entry is made
            outs = []
            for run in (_runner._run_fake_python, SPEEDUPS.run_fake):
                costs_c, entries = [], []
                before = (_cache.INFO.hits, _cache.INFO.misses)
                fakes: list = []
                res = run(func, args, kwargs, None, None, False, costs_c, entries, fakes)
                hits = _cache.INFO.hits - before[0], _cache.INFO.misses - before[1]
                outs.append((_describe(res, args), hits, costs_c, [id(e) for e in entries],
                             [id(f) for f in fakes]))
                if func is np.add and "out" in kwargs:
                    assert res is x
            assert outs[0] == outs[1], (func, outs)
            assert outs[0][1] == (1, 0)  # a hit each
            again = [run(func, args, kwargs) for run in (_runner._run_fake_python,
                                                         SPEEDUPS.run_fake)]
            assert _describe(again[0], args) == _describe(again[1], args)


@needs_build
def test_the_compiled_hit_with_the_cache_off_and_odd_arguments():
    with ft.FakeMode():
        x = np.empty((4, 6), np.float32)
        old = _cache.set_cache_enabled(False)
        try:
            before = _cache.INFO.hits
            r = SPEEDUPS.run_fake(np.negative, (x,), {})
            assert _cache.INFO.hits == before and r.shape == (4, 6)
        finally:
            _cache.set_cache_enabled(old)
        r = SPEEDUPS.run_fake(np.negative, (x,), {}, fakes=None)  # a keyword: the Python one
        assert r.shape == (4, 6)
        fakes: list = []
        SPEEDUPS.run_fake(np.negative, (x,), {}, None, None, False, None, None, fakes)
        r = SPEEDUPS.run_fake(np.negative, (x,), {}, None, None, False, None, None, fakes)
        assert fakes == [x, x] and r.shape == (4, 6)
        for run in (_runner._run_fake_python, SPEEDUPS.run_fake):
            with pytest.raises(ft.UnsupportedOperationError):  # an unhashable func: no key
                run([np.negative], (x,), {})


# --- set-up ----------------------------------------------------------------------------


@needs_build
def test_set_up_refuses_what_it_does_not_expect():
    s = SPEEDUPS
    assert s.setup("make_fake", object, FakeArray, make_fake_python) is False
    assert s.setup("make_fake", FakeSlots, FakeStorage, make_fake_python) is False
    assert s.setup("make_fake", FakeSlots) is False
    assert s.setup("new_storage", FakeArray) is False
    assert s.setup("new_storage", int) is False
    assert s.setup("signature", 1, 2, 3) is False
    assert s.setup("run_fake") is False
    with pytest.raises(ValueError):
        s.setup("nothing")
    with pytest.raises(TypeError):
        s.setup()
    assert _set_up()  # what was set up before still stands


def test_the_package_uses_the_compiled_functions_when_built():
    compiled = _accel.SIGNATURE is not None
    assert compiled == (_accel.PATCH is not None)  # one module: both or neither
    assert (_cache.signature is _accel.SIGNATURE) == compiled
    assert (_array.make_fake is _accel.MAKE_FAKE) == compiled
    assert (_storage.new_storage is _accel.NEW_STORAGE) == compiled
    assert (_runner._run_fake is _accel.RUN_FAKE) == compiled
    if not compiled:
        assert _cache.signature is _cache.signature_python
        assert _runner._run_fake is _runner._run_fake_python
        assert _storage.new_storage is FakeStorage


@needs_build
def test_pure_python_turns_the_compiled_hit_path_off():
    code = textwrap.dedent("""
        from faketensor import _accel, _cache, _runner
        print(_accel.SIGNATURE is None, _cache.signature is _cache.signature_python,
              _runner._run_fake is _runner._run_fake_python)
    """)
    for pure, want in (("1", "True True True"), ("0", "False False False")):
        env = dict(os.environ, FAKETENSOR_PURE_PYTHON=pure)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=240, env=env)
        assert r.returncode == 0, r.stderr[-3000:]
        assert r.stdout.split() == want.split()
