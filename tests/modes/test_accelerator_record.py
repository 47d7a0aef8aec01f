"""The recording mode's per-op pieces in C (faketensor/_speedups_record.c,
docs/internals/accelerator.md) against their pure-Python references: ``FakeMode._record``'s
common op, ``TraceIds.ref`` / ``args_spec``, ``Sites.here``'s common path and
``PeakFold.feed``. Whole programs run in two fresh interpreters (with and without
``FAKETENSOR_PURE_PYTHON=1``) and give the same trace, sites, specs, figures and timelines;
the pieces are also compared side by side in this process."""
import ast
import gc
import importlib.util
import os
import random
import subprocess
import sys
import threading

import numpy as np
import pytest

import faketensor as ft
from faketensor import _accel
from faketensor.modes.memory import PeakFold
from faketensor.modes.sites import Sites
from faketensor.modes.trace import TraceIds

# built (a fresh interpreter without FAKETENSOR_PURE_PYTHON=1 uses it), and used here
BUILT = importlib.util.find_spec("faketensor._speedups") is not None
needs_build = pytest.mark.skipif(_accel.RECORD_METHOD is None,
                                 reason="the compiled accelerator is not built or turned off")

PROGRAM = r'''
import sys, threading
import numpy as np
import faketensor as ft
from faketensor import _accel
from faketensor.modes.memory import analyze


def layer(x, w):
    h = x @ w
    return np.maximum(h, 0)


def powers(x, n):  # ops inside a generator's frame
    for i in range(n):
        yield x * i


def nested(x):
    def inner(y):
        return (y + 1).sum(axis=0)
    return inner(x) * 2


def program():
    x = np.ones((64, 32))
    w = np.zeros((32, 32))
    for _ in range(3):
        x = layer(x, w)  # the peak rises in a nested frame: its whole stack is kept
    big = [t for t in powers(x, 4)]
    s = nested(x)
    del big
    y = np.concatenate([x, x])  # a list argument: the Python spec
    z = np.add(x, 1, out=np.empty_like(x))  # keywords: the Python method
    q = x.T.copy()
    for _ in range(2):  # findings (an upcast, a copying reshape), the second time from the cache
        up = np.ones(3, np.int32) + np.ones(3, np.float32)
        flat = x.T.reshape(-1)
    c = ft.empty((1000,), np.float32, device="cuda:0")  # pool rounding in the fold
    d = c + c
    del c
    e = d * 2
    f = np.empty((0,)) + 1  # an empty array: one byte on the cpu
    for _ in range(200):  # new fakes dying at once: the id tables sweep
        x + 1
    for _ in range(2):  # cached hits with several outputs, keywords, a tuple out=, costs
        halves = np.split(x, 2, axis=1)
        m = x.mean(-1, keepdims=True)
        o = np.multiply(x, 2.0, out=(np.empty_like(x),))
        t = x.reshape(2, 32, 32).transpose(0, 2, 1)
        g = np.float32(0.5) * x
    return y, z, q, up, flat, e, s, f, halves, m, o, t, g


def dump(mode, ordered=True):
    sites = mode.sites
    rows = []
    for e in mode.trace:
        frames = [(fr["file"].rsplit("/", 1)[-1], fr["line"], fr["function"])
                  for fr in sites.frames(e.site)]
        rows.append((e.op, repr(e._args), repr(e._kwargs), [int(i) for i in e.out_ids],
                     repr(e.meta), e.nbytes, e.transient, e.scratch, e.flops, frames,
                     sites.complete(e.site), [int(i) for i in e.in_ids], e.alias))
    figures = {d: (f.live, f.peak, f.pool_live, f.pool_peak, f.allocations, f.allocated,
                   f.peak_op, f.peak_row) for d, f in mode.memory.figures().items()}
    devs, timeline = analyze(mode.memory.log)
    report = {d: (r.peak, r.peak_op, r.live_end, r.allocated, r.held) for d, r in devs.items()}
    if not ordered:  # threads: the order of their ops is the scheduler's
        # without serials, and the innermost frame only: which op first took the peak
        # higher (and kept its whole stack) is the scheduler's too
        rows = sorted(repr(r[0:1] + r[4:9] + (r[9][:1],)) for r in rows)
        return {"rows": rows, "live": {d: v[0] for d, v in figures.items()},
                "allocations": {d: v[4] for d, v in figures.items()}, "flops": mode.flops}
    return {"rows": rows, "figures": figures, "report": report, "timeline": timeline,
            "flops": mode.flops, "findings": [repr(f) for f in mode.findings],
            "stacks": len(sites.stacks), "whole": sorted(sites.whole),
            "storage_of": sorted((int(k), v) for k, v in mode.ids.storage_of.items()), "rows_by_id": len(mode.ids._by_id)}


out = {"accelerated": _accel.RECORD_METHOD is not None}
with ft.FakeMode(record=True) as mode:
    keep = program()
out["program"] = dump(mode)

shared = ft.FakeMode(record=True)


def work(t):
    with shared:
        for _ in range(30):
            a = np.ones(10 + t) * 2
            b = layer(np.ones((4, 4)), np.ones((4, 4)))


threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
for th in threads:
    th.start()
for th in threads:
    th.join()
out["threads"] = dump(shared, ordered=False)
print(repr(out))
'''


def run_program(tmp_path, pure: bool) -> dict:
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    env = dict(os.environ)
    env["FAKETENSOR_PURE_PYTHON"] = "1" if pure else "0"
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return ast.literal_eval(r.stdout.strip().splitlines()[-1])


def test_both_builds_record_the_same_program(tmp_path):
    pure = run_program(tmp_path, pure=True)
    fast = run_program(tmp_path, pure=False)
    assert pure.pop("accelerated") is False
    assert fast.pop("accelerated") is BUILT
    prog = pure["program"]
    # the program exercises what it means to: whole stacks kept, a CUDA device, a finding,
    # ops in a generator and a nested function, the Python paths (keywords, findings)
    assert prog["whole"] and set(prog["figures"]) == {"cpu", "cuda:0"} and prog["findings"]
    functions = {fr[2] for row in prog["rows"] for fr in row[9]}
    assert {"powers", "inner", "nested", "layer", "program"} <= functions
    assert prog["rows_by_id"] < 200 and fast["program"]["rows_by_id"] < 200  # the sweeps ran
    # the rows a sweep leaves depend on which temporaries have died by then, which the
    # reference's extra Python frames (quick_call's, materialized by the site walk) delay
    prog["rows_by_id"] = fast["program"]["rows_by_id"]
    assert fast["program"] == prog
    assert fast["threads"] == pure["threads"]


# --- side by side, in this process -----------------------------------------------------


def _logs():
    """Event logs in PeakFold's encoding: allocations, frees, transients, on the cpu and a
    CUDA device, with sizes that take the machine-integer path and some that do not."""
    rnd = random.Random(0)
    for big in (False, True):
        log: list = []
        alive: list = []
        for op in range(300):
            dev = rnd.choice(["cpu", "cpu", "cuda:0", "cuda:1"])
            n = rnd.choice([0, 1, 7, 512, 513, 4096, 10**6]) * (2**62 if big and rnd.random() < 0.1 else 1)
            kind = rnd.random()
            if kind < 0.5 or not alive:
                sid = 1000 + op
                d = n if n or dev != "cpu" else 1
                log += (op, sid, dev, d)
                alive.append((sid, dev, d))
            elif kind < 0.8:
                sid, dv, d = alive.pop(rnd.randrange(len(alive)))
                log += (op, sid, dv, -d)
            else:
                log += (op, 0, dev, n)
        yield log


def _fold_state(fold: PeakFold) -> dict:
    return {d: (f.pool, f.live, f.peak, f.pool_live, f.pool_peak, f.allocations, f.allocated,
                f.peak_op, f.peak_row) for d, f in fold.devices.items()}


@needs_build
def test_fold_feed_equals_peak_fold_in_steps():
    for log in _logs():
        ref, fast = PeakFold(), PeakFold()
        pos = 0
        rnd = random.Random(1)
        while pos < len(log):
            end = min(len(log), pos + 4 * rnd.randint(1, 6))
            assert _accel.FOLD_FEED(fast, log, pos, end) == ref.feed(log, pos, end)
            assert _fold_state(fast) == _fold_state(ref)
            pos = end


@needs_build
def test_fold_feed_figures_read_and_set_between_feeds():
    """The compiled fold keeps a device's figures as machine integers between feeds: read
    from Python they are up to date, and one set from Python (or past the machine-integer
    range) is what the next feed goes on from, as the Python fold does."""
    for log in _logs():
        ref, fast = PeakFold(), PeakFold()
        pos = 0
        rnd = random.Random(2)
        while pos < len(log):
            end = min(len(log), pos + 4 * rnd.randint(1, 6))
            assert _accel.FOLD_FEED(fast, log, pos, end) == ref.feed(log, pos, end)
            for dev, f in fast.devices.items():
                g = ref.devices[dev]
                assert (f.live, f.peak, f.allocations, f.allocated) == \
                    (g.live, g.peak, g.allocations, g.allocated)
                if rnd.random() < 0.2:  # the program's peak restarted (MemoryStats.reset_peak)
                    f.peak = g.peak = f.live
                if rnd.random() < 0.05:
                    f.allocated = g.allocated = 2 ** 62  # beyond the machine integers' range
            pos = end
        assert _fold_state(fast) == _fold_state(ref)
    fold = PeakFold()
    _accel.FOLD_FEED(fold, [0, 1, "cpu", 8], 0, 4)
    f = fold.devices["cpu"]
    del f.live
    with pytest.raises(AttributeError):
        f.live


@needs_build
def test_fold_feed_hands_a_timeline_to_python():
    log = next(_logs())
    ref, fast = PeakFold(timeline=True), PeakFold(timeline=True)
    assert _accel.FOLD_FEED(fast, log, 0, len(log)) == ref.feed(log, 0, len(log))
    assert fast.timeline == ref.timeline and _fold_state(fast) == _fold_state(ref)


@needs_build
def test_fold_feed_given_something_else_falls_back_or_raises_as_python_does():
    fold = PeakFold()
    log = (0, 1, "cpu", 8)  # a tuple, not a list: the Python method
    assert _accel.FOLD_FEED(fold, log, 0, 4) is True and fold.devices["cpu"].live == 8
    with pytest.raises(IndexError):
        PeakFold().feed([0, 1, "cpu"], 0, 4)
    with pytest.raises(IndexError):
        _accel.FOLD_FEED(PeakFold(), [0, 1, "cpu"], 0, 4)


def _fakes_and_views():
    fakes = [ft.empty((3, i + 1)) for i in range(5)]
    views = [f.T for f in fakes] + [fakes[0][1:]]
    return fakes, views


@needs_build
@pytest.mark.parametrize("seen_before", [False, True], ids=["first", "seen by other ids"])
def test_ids_ref_and_args_spec_equal_the_python_reference(seen_before):
    """Two ids given the same program's fakes (each its own copy) give the same serials and
    tables, kept on the fakes and storages when they see them first, in the id tables when
    another ids did."""
    fast, ref = TraceIds(), TraceIds()
    specs = []
    for ids, make_ref, make_spec in ((fast, fast.ref, fast.args_spec),
                                     (ref, ref._py_ref, ref._py_args_spec)):
        fakes, views = _fakes_and_views()
        if seen_before:
            other = TraceIds()
            for f in fakes + views:
                other.ref(f)
        order = fakes + views + fakes[::-1] + views
        serials = [int(make_ref(f)) for f in order]
        args = (fakes[1], 3, None, slice(1, 2), [fakes[2], (views[0],)], np.float64(2.0))
        spec = make_spec(args)
        assert all(ids.weak[r]() is f for r, f in zip(make_spec(tuple(fakes)), fakes))
        assert [ids.get(f) for f in order] == serials
        specs.append((serials, repr(spec), [type(x) for x in spec], len(ids._by_id),
                      len(ids._storage_ids), fakes, views))
    assert specs[0][:5] == specs[1][:5]
    assert fast.storage_of == ref.storage_of
    assert (specs[0][3] > 0) is seen_before  # the tables only for fakes another ids saw first


@needs_build
def test_serials_count_as_itertools_count_and_are_shared_by_both_paths():
    import copy
    import itertools
    import pickle
    s, ref = _accel.SERIALS(3), itertools.count(3)
    assert [next(s) for _ in range(4)] == [next(ref) for _ in range(4)]
    assert next(copy.copy(s)) == next(pickle.loads(pickle.dumps(s))) == 7 and next(s) == 7
    ids = TraceIds()
    a, b, c = ft.empty(2), ft.empty(3), ft.empty(4)
    first = int(ids.ref(a))  # compiled: the fake's serial, then its storage's
    second = int(ids._py_ref(b))  # the Python reference draws from the same counter
    third = int(ids.ref(c))
    assert (first, second, third) == (1, 3, 5)
    assert ids.storage_of == {1: 2, 3: 4, 5: 6}


@needs_build
def test_a_generator_argument_is_specced_by_its_one_twin_as_in_python():
    """A program's Generator is kept in a spec as its twin, made on first sight by the Python
    ``spec`` and found again in C; a generator that died leaves no row that a new one at the
    same address could take."""
    fast, ref = TraceIds(), TraceIds()
    for ids, make_spec in ((fast, fast.args_spec), (ref, ref._py_args_spec)):
        with ft.FakeMode():
            gen = np.random.default_rng(0)
        first, again = make_spec((gen, (2, 3))), make_spec((gen, (2, 3)))
        twin = first[0]
        assert twin is again[0] and twin is not gen and isinstance(twin, np.random.Generator)
        assert first[1:] == again[1:] == ((2, 3),)
        assert ids.generators[id(twin)][1] == gen.bit_generator.state
        old_twin, old_id = twin, id(gen)
        del gen, first, again, twin
        gc.collect()
        with ft.FakeMode():
            new = np.random.default_rng(1)
        got = make_spec((new,))[0]
        assert got is not old_twin and ids.generators[id(got)][1] == new.bit_generator.state
        assert (id(new) == old_id) or ids._twins[old_id][0]() is None


@needs_build
def test_ids_forget_dead_fakes_and_sweep(monkeypatch):
    from faketensor.modes import trace
    monkeypatch.setattr(trace, "SWEEP_MIN", 64)
    ids, first = TraceIds(), TraceIds()
    keep = ft.empty(3)
    first.ref(keep)  # another ids saw them first: ids keeps their rows in its tables
    r = ids.ref(keep)
    serials = set()
    for _ in range(300):
        f = ft.empty(2)
        first.ref(f)
        serials.add(int(ids.ref(f)))  # dies at once: its id may come back
        del f
    assert len(serials) == 300 and ids.ref(keep) == r
    assert len(ids._by_id) <= 2 * 64 + 1 and ids._sweep_at >= 64


def _walk_here(sites, results, depth=1):
    results.append((_accel.SITE_HERE(sites, depth), sites.here(False, depth)))


def _gen_here(sites, results):
    yield _walk_here(sites, results)


@needs_build
def test_site_here_equals_the_python_walk():
    sites = Sites()
    results: list = []
    _walk_here(sites, results)  # this frame
    _walk_here(sites, results, 2)  # its caller
    list(_gen_here(sites, results))  # from a generator
    (lambda: _walk_here(sites, results, 3))()

    def nested():
        _walk_here(sites, results, 2)
    nested()
    th = threading.Thread(target=_walk_here, args=(sites, results, 2))
    th.start()
    th.join()
    assert len(results) == 6
    for c, p in results:
        assert c == p
    assert len({c for c, _ in results}) >= 4  # different lines gave different sites
    with pytest.raises(ValueError):  # deeper than the stack: as sys._getframe says
        sites.here(False, 10**4)
    with pytest.raises(ValueError):
        _accel.SITE_HERE(sites, 10**4)


@needs_build
def test_site_answers_remembered_in_c_stay_each_sites_own():
    """Two Sites asked from the same lines (answers remembered in C under each one's serial)
    give each its own indices, equal to the Python walk's, also after one dies and another
    takes its place; a line asked twice gives its first answer."""
    def ask(sites, out):
        _walk_here(sites, out, 2)  # line A
        _walk_here(sites, out, 2)  # line B

    first, results = Sites(), []
    _walk_here(first, [], 2)  # this line first: first's indices of A and B are shifted by one
    ask(first, results)
    second = Sites()
    ask(second, results)
    ask(second, results)
    assert [c for c, _ in results] == [p for _, p in results]
    a1, b1, a2, b2, a3, b3 = (c for c, _ in results)
    assert (a1, b1) == (a2 + 1, b2 + 1) and (a2, b2) == (a3, b3) and a2 != b2
    serial = first._serial
    del first
    third, again = Sites(), []
    ask(third, again)
    assert third._serial > serial and [c for c, _ in again] == [a2, b2]
    assert [c for c, _ in again] == [p for _, p in again]


@needs_build
def test_trace_refs_made_in_place_are_equal_ints():
    """On CPython the compiled ids make TraceRefs without the type call (their digit written in
    place, checked once at import); each one is an exact TraceRef equal to its int, in hash,
    order and arithmetic, up to the largest one-digit serial and past it."""
    from faketensor import _speedups
    from faketensor.modes.trace import TraceRef
    assert _speedups.ref_in_place()
    ids = TraceIds()
    fakes = [ft.empty(1) for _ in range(5)]
    refs = [ids.ref(f) for f in fakes]
    assert all(type(r) is TraceRef and not gc.is_tracked(r) for r in refs)
    assert TraceRef is _speedups.TraceRef and not gc.is_tracked(TraceRef(7))
    assert [int(r) for r in refs] == sorted(int(r) for r in refs) and len(set(refs)) == 5
    for r in refs:
        n = int(r)
        assert r == n and hash(r) == hash(n) and r + 1 == n + 1 and r > n - 1 and str(n) in repr(r)
    big = 2 ** 30  # one CPython digit holds serials below it: later ones take the type call
    ids._count = iter([big - 1, big, big + 1, 2 ** 62, 0, 0])
    more = [ids.ref(ft.empty(1)) for _ in range(2)]
    assert [int(r) for r in more] == [big - 1, big + 1]  # storages took big and 2 ** 62
    assert all(type(r) is TraceRef and r == int(r) for r in more)


def _stats_events(stats, storages, py):
    """One sequence of events on ``stats`` through its compiled or its Python methods: the
    charged bytes returned, and the log."""
    name = (lambda n: "_py" + n) if py else (lambda n: n)
    got = []
    for st in storages:
        got.append(getattr(stats, name("_alloc"))(st))
        got.append(getattr(stats, name("_alloc"))(st))  # once only
    stats._trace.append("op")
    got.append(getattr(stats, name("_charge"))(storages[0]))
    for dev, n in (("cpu", 0), ("cpu", 24), ("cuda:0", 512), ("cpu", np.int64(3))):
        got.append(getattr(stats, name("_transient"))(dev, n))
    for st in storages:
        got.append(getattr(stats, name("_free"))(st))
    return got, [x if not isinstance(x, int) or abs(x) < 2 ** 40 else "id" for x in stats.log]


@needs_build
def test_recording_stats_events_in_c_equal_the_python_methods():
    """RecordingStats' compiled _alloc/_charge/_free/_transient log what the Python methods
    log (empty cpu storages charged one byte, a CUDA one its bytes, a non-int size through
    the Python method); a subclass's own method is the one that runs."""
    from faketensor._storage import FakeStorage
    from faketensor.modes.memory import RecordingStats
    assert type(RecordingStats.__dict__["_charge"]).__name__ == "method_descriptor"

    def storages():
        return [FakeStorage(0), FakeStorage(80), FakeStorage(64, "cuda:0"), FakeStorage(8)]

    runs = []
    for py in (False, True):
        sts = storages()
        sts[3].nbytes = np.int64(8)  # not an int: the Python method answers
        stats = RecordingStats([])
        got, log = _stats_events(stats, sts, py)
        assert all(st._tracker is stats for st in sts)
        for st in sts:
            st._tracker = None
        runs.append((got, log))
    assert runs[0] == runs[1]
    assert runs[0][1][:4] == [0, "id", "cpu", 1]
    with ft.FakeMode(record=True) as mode:  # a log of atoms: left to reference counting
        ft.empty(3) + 1
    assert len(mode.memory.log) > 0 and not gc.is_tracked(mode.memory.log)

    class Mine(RecordingStats):
        __slots__ = ()

        def _charge(self, storage):
            self.log += (-1, -1, "mine", 7)
            return 7
    mine = Mine([])
    st = FakeStorage(16)
    assert mine._alloc(st) == 7 and mine.log == [-1, -1, "mine", 7]
    mine._transient("cpu", 5)
    assert mine.log[4:] == [0, 0, "cpu", 5]
    st._tracker = None


def test_a_device_fold_pickles_and_copies_by_its_figures():
    import copy
    import pickle
    fold = PeakFold()
    fold.feed([0, 7, "cuda:0", 700, 1, 0, "cuda:0", 5], 0, 8)
    f = fold.devices["cuda:0"]
    state = (f.pool, f.live, f.peak, f.pool_live, f.pool_peak, f.allocations, f.allocated,
             f.peak_op, f.peak_row)
    assert state == (True, 700, 705, 1024, 1536, 1, 1024, 1, 4)
    for g in (pickle.loads(pickle.dumps(f)), copy.deepcopy(f), copy.copy(f)):
        assert type(g) is type(f) and (g.pool, g.live, g.peak, g.pool_live, g.pool_peak,
                                       g.allocations, g.allocated, g.peak_op, g.peak_row) == state


@needs_build
def test_entries_of_numpy_ops_are_left_to_reference_counting():
    """An entry of a NumPy callable with atom arguments is not tracked by the collector (a
    long trace costs it nothing); one whose callable could lead back to the trace (a ufunc of
    a Python function) stays tracked, so the collector still sees a cycle through it."""
    import gc

    with ft.FakeMode(record=True) as mode:
        x = np.ones((8, 4), np.float32)
        for _ in range(2):  # the second call is a cache hit, recorded in C
            y = x * x
            s = y.sum(axis=0, keepdims=True)
            h = np.split(x, 2, axis=1)
    plain = [e for e in mode.trace if e.op in ("np.multiply", "ndarray.sum", "np.split")]
    assert len(plain) == 6 and plain[-1].meta == tuple(
        (a.shape, a.dtype, a.strides, a.storage_offset, "cpu") for a in h)
    assert not any(gc.is_tracked(e) for e in plain[3:])
    assert s.shape == (1, 4)

    m = ft.FakeMode(record=True)
    f = np.frompyfunc(lambda v: m, 1, 1)  # f -> lambda -> m -> trace -> entry -> f
    with m:
        z = np.ones(3, object)
        for _ in range(2):  # the second call a cache hit, recorded in C
            f(z)
    assert [gc.is_tracked(e) for e in m.trace if e.func is f] == [True, True]
