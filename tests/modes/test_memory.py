"""Memory accounting: what a mode charges, when it frees, and what it never charges."""
from __future__ import annotations

import gc
import threading
import time
import weakref

import numpy as np
import pytest

from locations import ROOT
import faketensor as ft
from faketensor import _bounded, _cache
from faketensor._array import FakeArray
from faketensor._storage import FakeStorage


def _walk(obj, seen=None):
    """Every object reachable through tuples, lists, dicts and named tuples."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, (tuple, list, frozenset)):
        for x in obj:
            yield from _walk(x, seen)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk(k, seen)
            yield from _walk(v, seen)


def _program(x):
    y = x.T
    z = x[::2] + 1
    w = np.concatenate([z, z])
    u, s, vt = np.linalg.svd(x[:8, :8])
    return y.sum(axis=0), w[1:], np.split(w, 2), s


@pytest.mark.parametrize("cache", [True, False])
def test_no_cache_keeps_a_fake_or_a_storage_alive(cache):
    old = ft.set_cache_enabled(cache)
    try:
        with ft.FakeMode() as mode:
            x = np.zeros((16, 16))
            outs = _program(x)
            refs = [weakref.ref(x)] + [weakref.ref(o) for o in ft._pytree.tree_leaves(outs)
                                       if isinstance(o, FakeArray)]
            stores = [weakref.ref(r().storage) for r in refs]
            del x, outs
            gc.collect()
            assert all(r() is None for r in refs)
            assert all(r() is None for r in stores)
            assert mode.memory.live["cpu"] == 0
        for c in _bounded.CACHES:
            for obj in _walk(dict(c)):
                assert not isinstance(obj, (FakeArray, FakeStorage)), c.name
    finally:
        ft.set_cache_enabled(old)


def _figures(cache: bool):
    old = ft.set_cache_enabled(cache)
    try:
        with ft.FakeMode() as mode:
            for _ in range(3):  # later rounds are cache hits when the cache is on
                x = np.ones((64, 32), np.float32)
                outs = _program(x)
                del x, outs
            return dict(mode.memory.live), dict(mode.memory.peak), mode.memory.allocations
    finally:
        ft.set_cache_enabled(old)


def test_cache_on_and_off_give_identical_figures():
    assert _figures(True) == _figures(False)


@pytest.mark.parametrize("fn", [
    np.linalg.svd, np.linalg.qr, np.linalg.eigh,
    lambda a: np.linalg.slogdet(np.stack([a, a])),  # of one matrix: two NumPy scalars
    lambda a: np.linalg.eig(a.astype(np.complex128)),
    lambda a: np.linalg.svd(a, full_matrices=False),
])
def test_named_tuple_results_are_counted(fn):
    with ft.FakeMode() as mode:
        a = np.zeros((6, 6))
        before = mode.memory.live["cpu"]
        res = fn(a)
        parts = [p for p in res if isinstance(p, FakeArray)]
        assert parts
        # a NumPy scalar (slogdet of one matrix) is a read-only 0-d fake holding no buffer
        held = [p for p in parts if p.ndim or p.flags.writeable]
        assert mode.memory.live["cpu"] - before == sum(p.storage.nbytes for p in
                                                       {id(p.storage): p for p in held}.values())


def test_converted_arrays_are_never_charged():
    real = np.ones((100, 100))
    fa = ft.to_fake(real)  # before the mode
    with ft.FakeMode() as mode:
        v = fa[1:]          # a view of pre-existing data
        fa[:] = 1.0         # written in place
        r = np.zeros((50, 100)) + real[::2]   # a real array reaching the mode is converted
        b = fa.T.copy()
    assert mode.memory.live["cpu"] == r.nbytes + b.nbytes
    assert mode.memory.peak["cpu"] == r.nbytes + b.nbytes  # np.zeros died before b was made
    assert mode.memory.preexisting["cpu"] == real.nbytes  # the one real buffer it converted
    del v


def test_fakes_made_outside_any_mode_are_never_charged():
    a = ft.empty((1000,))
    b = a + 1          # no mode: a fake no mode charges
    with ft.FakeMode() as mode:
        c = b[::2]
        b += 1
        d = a.reshape(10, 100)
    assert mode.memory.live.get("cpu", 0) == 0
    # only ``b += 1``'s 0-d temporaries (the 1 as int64, then as float64) were allocated
    assert mode.memory.peak.get("cpu", 0) == 16
    del c, d


def test_ft_empty_inside_a_mode_is_charged_there():
    with ft.FakeMode() as mode:
        a = ft.empty((10, 10), np.float32)
        assert mode.memory.live["cpu"] == 400
        del a
        assert mode.memory.live["cpu"] == 0


def test_nested_modes_count_for_the_outer_mode():
    with ft.FakeMode() as outer:
        x = np.zeros(100)
        with ft.FakeMode() as inner:
            y = np.zeros(200)
            z = x + 1
        assert inner.memory.live["cpu"] == 1600 + 800
        assert outer.memory.live["cpu"] == 800 + 1600 + 800
        del y
        assert inner.memory.live["cpu"] == 800
        assert outer.memory.live["cpu"] == 1600
    assert outer.memory.peak["cpu"] == 800 + 1600 + 800 + 8  # and x + 1's 0-d float64
    del x, z


def test_one_mode_shared_by_threads_keeps_exact_totals():
    mode = ft.FakeMode()
    n_threads, rounds = 8, 200
    errors = []

    def work():
        try:
            with mode:
                keep = []
                for i in range(rounds):
                    keep.append(np.zeros(10))        # 80 bytes each, kept
                    tmp = np.zeros(1000)              # freed at once
                    del tmp
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
        del keep

    threads = [threading.Thread(target=work) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    gc.collect()
    assert mode.memory.live["cpu"] == 0
    assert mode.memory.allocations == n_threads * rounds * 2
    assert 8000 + 80 <= mode.memory.peak["cpu"] <= n_threads * (rounds * 80 + 8000)


def test_threads_hammering_the_caches_raise_nothing(monkeypatch):
    """Eight threads, shared and private fakes, a cache small enough to evict all the time."""
    monkeypatch.setattr(_cache.ENTRIES, "max_bytes", 20_000)
    shared = ft.empty((32, 16))
    errors = []
    stop = time.monotonic() + 10.0

    def work(seed):
        mine = ft.empty((8 + seed, 16), order="F")
        try:
            i = 0
            while time.monotonic() < stop:
                i += 1
                for a in (shared, mine):
                    (a + i % 7)
                    a[i % 4:, ::2].sum(axis=i % 2)
                    a.reshape(-1)[: i % 50 + 1].mean()  # never empty: that warns
                    a.T @ a
        except Exception as e:
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert _cache.ENTRIES.nbytes <= 20_000


def test_every_cache_is_bounded_and_reported():
    assert _bounded.total_budget() <= 32 * 1024 * 1024
    info = ft.cache_info()
    assert info.nbytes == sum(n for _, n in info.caches.values())
    assert "kernel results" in info.caches and info.entries == len(_cache.ENTRIES)
    for c in _bounded.CACHES:
        assert isinstance(c, _bounded.BoundedCache)


def test_kernel_cache_stays_within_its_budget(monkeypatch):
    ft.clear_cache()
    monkeypatch.setattr(_cache.ENTRIES, "max_bytes", 50_000)
    for n in range(1, 400):
        ft.empty((n, 3)).sum(axis=1)
    assert 0 < _cache.ENTRIES.nbytes <= 50_000
    assert len(_cache.ENTRIES) < 399


def test_long_index_lists_bypass_the_cache():
    ft.clear_cache()
    a = ft.empty((2000,))
    before = len(_cache.ENTRIES)
    r = a[[0] * 1024]
    assert r.shape == (1024,)
    assert len(_cache.ENTRIES) == before
    assert ft.cache_info().nbytes < 32 * 1024 * 1024


def test_transient_bytes_raise_the_peak_not_the_live(monkeypatch):
    """The per-call record: a kernel's transient bytes count at the moment of the call."""
    from faketensor.kernels import registry
    op = np.copy.__wrapped__  # the kernel is registered for NumPy's own function
    entry = registry.REGISTRY[(op, "numpy")]

    def copy_with_a_buffer(a, *args, **kwargs):
        registry.transient(1000)
        registry.scratch(64)
        return entry.fn(a, *args, **kwargs)

    monkeypatch.setitem(registry.REGISTRY, (op, "numpy"), entry._replace(fn=copy_with_a_buffer))
    monkeypatch.setattr(ft._runner, "_resolved", {})
    for cache in (True, False):
        old = ft.set_cache_enabled(cache)
        try:
            for record in (False, True):
                with ft.FakeMode(record=record) as mode:
                    a = np.zeros(100)
                    for _ in range(2):  # the second call is a cache hit when the cache is on
                        b = np.copy(a)
                        del b
                assert mode.memory.peak["cpu"] == 800 + 800 + 1000
                assert mode.memory.live["cpu"] == 800
                assert mode.memory.scratch_peak["cpu"] == 64
                if record:
                    assert [(e.transient, e.scratch) for e in mode.trace[1:]] == [(1000, 64)] * 2
        finally:
            ft.set_cache_enabled(old)


def _cnn_program():
    import importlib.util
    import os
    path = os.path.join(ROOT, "benchmarks", "programs", "cnn.py")
    spec = importlib.util.spec_from_file_location("_peak_rule_cnn", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_one_peak_rule_online_and_offline_agree_on_a_real_plan():
    """The figures a mode folds while it runs (``MemoryStats``, dropping its log; a recording
    mode, keeping it) and ``analyze`` over the kept log are one fold (``PeakFold``): on a
    real program, with a CUDA device beside the cpu, they agree to the byte, and the op that
    ``analyze`` names for each peak is one the recording mode saw rise (its whole stack kept)."""
    from faketensor.modes.memory import analyze
    from faketensor.meta_utils.planner.plan import plan

    cnn = _cnn_program()

    def program():
        cnn.main(8)
        a = ft.empty((1000,), np.float32, device="cuda:0")
        b = a + a
        del a
        return b.sum()

    p = plan(program)
    rec = p.mode
    with ft.FakeMode() as plain:
        program()
    devs, timeline = analyze(rec.memory.log)
    assert set(devs) == {"cpu", "cuda:0"}
    for dev, rep in devs.items():
        pool = dev != "cpu"
        online_peak = (rec.memory.pool_peak if pool else rec.memory.peak)[dev]
        online_live = (rec.memory.pool_live if pool else rec.memory.live)[dev]
        assert rep.peak == online_peak == p.peak[dev] > 0
        assert rep.live_end == online_live
        assert plain.memory.peak[dev] == rec.memory.peak[dev]
        assert rec.memory.figures()[dev].peak_op == rep.peak_op
        # the op of the peak rose when it ran: the mode kept its whole call stack
        assert rep.peak_op >= 0 and rec.sites.complete(rec.trace[rep.peak_op].site)
        assert [pt[2] for pt in timeline if pt[1] == dev][-1] == rep.live_end
    assert plain.memory.allocations == rec.memory.allocations
    assert not plain.memory.log  # a mode that does not record drops what it folded
