"""dask.array in a FakeMode: graphs built in the mode have the real run's chunks, dtype,
``_meta`` and names; ``.compute()`` / ``dask.compute`` run every task in the mode (the
threaded scheduler's pool threads included), give fakes with the real result's metadata, and
charge what the real compute allocates: byte for byte with one worker (synchronous or
threaded ``num_workers=1``), measured with tracemalloc on the same program at a small size.
No chunk is made for real. Value-dependent sizes (``da.unique``, boolean masks) stay unknown
(nan) as in dask, and computing them raises DataDependentError."""
import sys
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import faketensor as ft
from memtools import measure_peak, numpy_tracing

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

X = np.arange(1200.0).reshape(40, 30)  # a real input (from_array)
SMALL = X % 3 + 1
XF = np.asfortranarray(np.arange(600, dtype=np.float32).reshape(20, 30))


def _fake_x():
    """A fake input made outside any mode (from_array of a fake)."""
    return ft.empty((40, 30), np.float64)


# each builds a dask array (or a tuple of them) from the namespace it runs in
PROGRAMS = {
    "ones-add-sum": lambda: (da.ones((40, 30), chunks=(10, 15)) + 1).sum(axis=0),
    "zeros-mean": lambda: da.zeros((40, 30), chunks=(10, 15)).mean(),
    "empty-full": lambda: da.empty((8, 6), chunks=4, dtype="i4") + da.full((8, 6), 3, chunks=4),
    "arange-reshape": lambda: da.arange(120, chunks=25).reshape(12, 10) * 2,
    "linspace": lambda: da.linspace(0, 1, 50, chunks=20) ** 2,
    "rng-std": lambda: da.random.default_rng(0).standard_normal((40, 30), chunks=(10, 15)).std(axis=1),
    "rng-integers": lambda: da.random.default_rng(1).integers(0, 10, (30, 20), chunks=10, dtype=np.int16),
    "randomstate-max": lambda: da.random.RandomState(0).normal(size=(40, 30), chunks=(10, 15)).max(axis=0),
    "random-random": lambda: da.random.random((20, 20), chunks=10).var(axis=0),
    "matmul": lambda: da.ones((40, 30), chunks=(10, 15)) @ da.ones((30, 20), chunks=(15, 10)),
    "dot-tensordot": lambda: da.tensordot(da.ones((6, 8, 4), chunks=3), da.ones((8, 4, 5), chunks=4),
                                          axes=([1, 2], [0, 1])),
    "einsum": lambda: da.einsum("ij,jk->ik", da.from_array(X, chunks=10), da.ones((30, 5), chunks=10)),
    "rechunk": lambda: (da.ones((40, 30), chunks=(10, 15)) * 3).rechunk((20, 30)),
    "from-array-T": lambda: (da.from_array(X, chunks=(10, 15)) + 1).T,
    "from-array-F": lambda: da.from_array(XF, chunks=(10, 10)) * 2,
    "argmax": lambda: (da.from_array(X, chunks=(10, 15)) + 1).argmax(axis=0),
    "reductions": lambda: (da.from_array(X, chunks=(10, 15)).min(axis=1),
                           da.from_array(SMALL, chunks=(10, 15)).prod(axis=0, dtype="f4"),
                           da.from_array(X, chunks=(10, 15)).any()),
    "slicing": lambda: da.from_array(X, chunks=(10, 15))[::3, 5:-2][1:, None, ::-1],
    "concat-stack": lambda: da.stack([da.concatenate([da.ones((4, 6), chunks=2)] * 3),
                                      da.zeros((12, 6), chunks=4)], axis=-1),
    "map-blocks": lambda: da.from_array(X, chunks=(10, 15)).map_blocks(lambda b: np.cumsum(b, axis=0)),
    "blockwise": lambda: da.blockwise(np.outer, "ij", da.arange(20, chunks=5), "i",
                                      da.arange(10, chunks=5), "j", dtype=np.int64),
    "elementwise": lambda: np.sin(da.from_array(X, chunks=(10, 15))) * np.float32(2) > 0.5,
    "where-cast": lambda: da.where(da.from_array(X, chunks=10) > 3, 1.0, 0).astype(np.int8),
    "cumsum": lambda: da.from_array(X, chunks=(10, 15)).cumsum(axis=1),
    "transpose-reshape": lambda: da.from_array(X, chunks=(10, 15)).T.reshape(30, 4, 10),
}


# draws from dask's global RandomState: two builds get different seeds, so different names
FRESH_NAMES = {"random-random"}
# from_array of a real array: in the mode the array is a fake input, so the token (a name
# says which bytes it holds) and the meta's type differ; shapes, dtypes and chunks do not
FAKE_SOURCE = {"einsum", "from-array-T", "from-array-F", "argmax", "reductions", "slicing",
               "map-blocks", "elementwise", "where-cast", "cumsum", "transpose-reshape"}


def _meta(x):
    return (x.shape, x.dtype, x.strides, x.flags.c_contiguous, x.flags.f_contiguous,
            x.flags.owndata, x.flags.writeable)


def _is_scalar(r):
    if type(r) is ft.FakeArray:
        return r.storage._tracker is ft._storage.SCALAR
    return isinstance(r, np.generic)


def _check_result(r, f):
    if isinstance(r, tuple):
        assert isinstance(f, tuple) and len(f) == len(r)
        for a, b in zip(r, f):
            _check_result(a, b)
        return
    assert type(f) is ft.FakeArray
    assert _meta(f) == _meta(r)
    assert _is_scalar(f) == _is_scalar(r)


def _check_graph(g, gf, names=True, fake_meta=False):
    if isinstance(g, tuple):
        for a, b in zip(g, gf):
            _check_graph(a, b, names, fake_meta)
        return
    assert gf.chunks == g.chunks and gf.dtype == g.dtype
    assert (gf.name == g.name) is names
    assert type(gf._meta) is (ft.FakeArray if fake_meta else type(g._meta))
    assert (gf._meta.shape, gf._meta.dtype) == (g._meta.shape, g._meta.dtype)


def _compute(g, **kw):
    return dask.compute(g, **kw)[0] if isinstance(g, tuple) else g.compute(**kw)


@pytest.mark.parametrize("scheduler", [{"scheduler": "sync"},
                                       {"scheduler": "threads", "num_workers": 1}],
                         ids=["sync", "threads-1"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compute_matches_real(name, scheduler):
    """Fake compute vs the same graph computed for real: result metadata, the dask array's
    metadata, and peak / live bytes of the compute, byte for byte."""
    build = PROGRAMS[name]
    g = build()
    keep = []
    real = measure_peak(lambda: keep.append(_compute(g, **scheduler)))
    with ft.FakeMode() as mode:
        gf = build()
        base = mode.memory.live.get("cpu", 0)
        mode.memory.reset_peak("cpu")
        f = _compute(gf, **scheduler)
        fake = mode.memory.peak["cpu"] - base, mode.memory.live.get("cpu", 0) - base
    _check_graph(g, gf, names=name not in FRESH_NAMES | FAKE_SOURCE,
                 fake_meta=name in FAKE_SOURCE)
    _check_result(keep[0], f)
    assert fake == real


def test_var_over_all_axes_reads_a_value():
    """dask's ``moment_agg`` (var/std over every axis) compares the count, a NumPy scalar,
    with 0: a value read. The count follows from the chunks' shapes, so the fake knows it
    (faketensor/_known.py) and follows the real branch, with no placeholder: the real run's
    result (metadata and bytes)."""
    build = lambda: da.from_array(X, chunks=(10, 15)).std()  # noqa: E731
    g = build()
    keep = []
    real = measure_peak(lambda: keep.append(g.compute(scheduler="sync")))
    with ft.FakeMode(data_dependent="placeholder") as mode:
        gf = build()
        base = mode.memory.live["cpu"]
        mode.memory.reset_peak("cpu")
        f = gf.compute(scheduler="threads", num_workers=1)
        fake = mode.memory.peak["cpu"] - base, mode.memory.live["cpu"] - base
    _check_result(keep[0], f)
    assert fake == real
    assert list(mode.placeholders) == []


def test_from_array_of_a_fake():
    """A fake made outside the mode as a dask array's source, against a real array of the
    same layout: results, chunks and the bytes charged."""
    def program(x):
        a = da.from_array(x, chunks=(10, 15))
        return a, ((a[::2] + 1).sum(axis=1), a.T, a[3:7, ::-1])

    real_x = np.zeros((30, 40), np.float32).T
    g, parts = program(real_x)
    keep = []
    real = measure_peak(lambda: keep.append(dask.compute(*parts, scheduler="sync")))
    fake_x = ft.empty((30, 40), np.float32).T
    with ft.FakeMode() as mode:
        gf, parts_f = program(fake_x)  # from_array copies its input (charged, as for real)
        assert mode.memory.live["cpu"] == fake_x.nbytes + 1  # and a 0-size meta: 1 byte
        base = mode.memory.live["cpu"]
        mode.memory.reset_peak("cpu")
        f = dask.compute(*parts_f, scheduler="sync")
        fake = mode.memory.peak["cpu"] - base, mode.memory.live["cpu"] - base
    assert type(gf._meta) is ft.FakeArray and _meta(gf._meta)[:2] == _meta(g._meta)[:2]
    assert gf.chunks == g.chunks
    _check_result(keep[0], f)
    assert fake == real


def test_threaded_default_scheduler_reaches_pool_threads():
    """The default (threaded) scheduler with its own pool: every chunk is a fake made in the
    mode. An 8 TB array would not fit: NumPy allocates a few bytes (graph bookkeeping)."""
    with ft.FakeMode() as mode:
        big = da.ones((10**6, 10**6), chunks=(10**5, 10**5))
        s = (big * 2 + 1).sum(axis=1)
        with numpy_tracing():
            tracemalloc.reset_peak()
            r = s.compute()
            _, real_peak = tracemalloc.get_traced_memory()
    assert type(r) is ft.FakeArray and r.shape == (10**6,) and r.dtype == np.float64
    assert real_peak < 4096
    # each task's chunk (10**5 x 10**5 float64 = 80 GB) is charged; how many are alive at
    # once depends on the pool's schedule, but at least one
    assert mode.memory.peak["cpu"] >= 8 * 10**10
    assert mode.memory.live["cpu"] == 8 * 10**6


def test_threaded_schedule_peaks_bounded():
    """With several workers the peak depends on which chunks run together; it lies between
    the one-worker peak and the sum of every task's output (stated, not byte-exact)."""
    build = PROGRAMS["ones-add-sum"]
    with ft.FakeMode() as one:
        build().compute(scheduler="sync")
    with ft.FakeMode() as many:
        build().compute(scheduler="threads", num_workers=4)
    assert one.memory.peak["cpu"] <= many.memory.peak["cpu"] <= 12 * (1200 * 8 + 120 + 8)
    assert many.memory.live == one.memory.live


def test_user_thread_pool():
    """A ThreadPoolExecutor given as dask's pool (which does not copy contexts) runs the tasks
    in the mode too."""
    with ft.FakeMode() as mode:
        a = (da.from_array(X, chunks=(10, 15)) + 1).sum(axis=0)
        with dask.config.set(pool=ThreadPoolExecutor(2)):
            with numpy_tracing():
                r = a.compute()
                real, _ = tracemalloc.get_traced_memory()
    assert type(r) is ft.FakeArray and r.shape == (30,)
    assert real < 1200  # neither copied (from_array copies its input) nor added to for real
    assert mode.memory.live["cpu"] == X.nbytes + 1 + 240  # the copy, a 0-size meta, the sum


def test_dask_compute_several_and_persist():
    def program():
        a = da.ones((10, 10), chunks=5)
        return a, (a.sum(), a.mean(axis=0), a.T, a[::3, 1])

    _, parts = program()
    r = dask.compute(*parts)
    with ft.FakeMode():
        a, parts_f = program()
        f = dask.compute(*parts_f)
        p = (a + 1).persist()
    _check_result(r, f)
    assert all(type(b) is ft.FakeArray for b in p.__dask_graph__().values())
    assert p.chunks == a.chunks and type(p._meta) is np.ndarray


def test_processes_scheduler_refused():
    with ft.FakeMode():
        a = da.ones((4, 4), chunks=2).sum()
        with pytest.raises(ft.UnsupportedOperationError, match="processes scheduler"):
            a.compute(scheduler="processes")


def test_value_dependent_sizes():
    """Unknown chunk sizes until compute (as dask gives them); computed, each chunk's mask
    count is a bounded size (faketensor/_sizes.py), here at its upper bound; reading the
    counts as values is DataDependentError; np.unique of floats assumes no NaN (its NaN
    check), at the upper bound here as X's distinct values are."""
    real_u = da.unique(da.from_array(X, chunks=10))
    b = da.from_array(X, chunks=10)
    real_m = b[b > 3]
    with ft.FakeMode() as mode:
        u = da.unique(da.from_array(X, chunks=10))
        bf = da.from_array(X, chunks=10)
        m = bf[bf > 3]
        assert (str(u.chunks), str(m.chunks)) == (str(real_u.chunks), str(real_m.chunks))
        assert u.compute().shape == real_u.compute().shape
        assert any(k.op == "np.unique, assuming no NaN" for k in mode.sizes.made)
        assert m.compute().shape == (X.size,)
        masks = [k for k in mode.sizes.made if k.op == "a boolean mask"]
        assert masks and all(int(k) == k.hi for k in masks)  # each at its upper bound
        with pytest.raises(ft.DataDependentError):
            m.compute_chunk_sizes()


def test_graph_bookkeeping_is_real():
    """dask's own NumPy calls while building a graph (chunk arithmetic, metas) run for real
    inside the mode, and charge nothing."""
    with ft.FakeMode() as mode:
        a = da.ones((40, 30), chunks=(10, 15)).rechunk((7, 11)).sum(axis=0)
    assert type(a._meta) is np.ndarray
    assert mode.memory.peak.get("cpu", 0) == 0


def test_import_order_and_tokens(tmp_path):
    """dask imported before or after faketensor: same names (tokens) for the same graph,
    and reductions work (dask.utils.getargspec looks through the namespace patches)."""
    import subprocess
    code = ("import {first}, {second}\nimport numpy as np, dask.array as da, faketensor as ft\n"
            "a = (da.ones((40, 30), chunks=(10, 15)) + 1).sum(axis=0)\n"
            "with ft.FakeMode():\n    b = (da.ones((40, 30), chunks=(10, 15)) + 1).sum(axis=0)\n"
            "    r = b.compute()\n"
            "print(a.name, b.name, r.shape)")
    outs = []
    for first, second in (("dask.array", "faketensor"), ("faketensor", "dask.array")):
        run = subprocess.run([sys.executable, "-c", code.format(first=first, second=second)],
                             capture_output=True, text=True, check=True)
        outs.append(run.stdout.split())
    assert outs[0] == outs[1]
    assert outs[0][0] == outs[0][1] and outs[0][2] == "(30,)"


def test_graph_building_computes_nothing():
    """``da.std`` asks ``np.iscomplexobj`` of the dask array; dask answers it from its own
    table (keyed by NumPy's original function as well as faketensor's patch), so building
    the graph computes nothing, in the mode (no op recorded) and out of it (no warning)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        da.ones((8, 8), chunks=4).std(axis=0)
        with ft.FakeMode(record=True) as mode:
            x = da.random.default_rng(0).standard_normal((400, 300), chunks=100)
            y = (x - x.mean(axis=0)) / x.std(axis=0)
            (y.T @ y).sum(axis=1)
    assert mode.trace == [] and mode.memory.peak.get("cpu", 0) == 0


@pytest.mark.parametrize("target", [("40", "30", "10"), ("53", "21", "8", "threads")])
def test_faketensor_run_on_a_dask_script(target, tmp_path):
    """``faketensor run`` on a dask.array script (tests/plan_scripts/dask_pipeline.py): the
    plan completes, its ops are sited at the script's compute() lines, and its peak is the
    real script's at the same size, less the graph's own bookkeeping, which runs for real
    and is not charged (each chunk's SeedSequence, the 0-size metas: under 1 KB here). With
    one worker the computes themselves are byte-exact (test_compute_matches_real)."""
    from test_plan import line_of, real_peak, run_cli
    script = ("dask_pipeline.py", *target)
    rc, out, err, data = run_cli(*script, tmp_path=tmp_path)
    assert rc == 0, err
    assert data["status"] == "completed" and data["exit_code"] == 0
    compute_lines = {line_of("dask_pipeline.py", "sums, top = "),
                     line_of("dask_pipeline.py", "ones = ")}
    cpu = data["devices"]["cpu"]
    assert cpu["peak_at"]["line"] == line_of("dask_pipeline.py", "sums, top = ")
    assert {s["line"] for s in data["top_sites"]} <= compute_lines
    assert {s["line"] for s in data["flops_by_line"]} == compute_lines
    plan, real = cpu["peak_bytes"], real_peak(*script)
    if len(target) == 3:  # synchronous: the computes are exact, the bookkeeping is not charged
        assert 0 < real - plan < 1024
    else:  # threaded: the pool's schedule decides which chunks are alive together
        assert plan > 0


def test_unadapted_dask_version_refuses_in_a_mode(monkeypatch):
    """A dask module faketensor cannot adapt (another version) never breaks ``import dask``;
    dask computes in a FakeMode then raise instead of risking real work."""
    import types
    from faketensor.modes import dask_support
    monkeypatch.setattr(dask_support, "SETUP_FAILED", {})
    dask_support.dask_imported(types.ModuleType("dask.array.core"))  # no from_array, ...
    assert "dask.array.core" in dask_support.SETUP_FAILED
    assert da.ones((4, 4), chunks=2).sum().compute() == 16  # outside a mode: dask as usual
    with ft.FakeMode():
        for scheduler in ("sync", "threads"):
            with pytest.raises(ft.UnsupportedOperationError, match="could not adapt"):
                da.ones((4, 4), chunks=2).sum().compute(scheduler=scheduler)


def test_task_helpers_for_other_schedulers():
    """``in_task`` and ``task_inputs_to_fakes`` run one task of a graph built for real (as a
    scheduler other than dask.local's would) on fakes in the mode, computing nothing."""
    from faketensor.modes.dask_support import in_task, task_inputs_to_fakes
    a = da.from_array(X, chunks=(10, 15)) + 1
    dsk = dict(a.__dask_graph__())
    task = dsk[a.__dask_keys__()[0][0]]
    data = {k: dsk[k] for k in task.dependencies}  # from_array: the chunks themselves
    assert all(type(v) is np.ndarray for v in data.values())
    with ft.FakeMode() as mode:
        with numpy_tracing():
            t, d = task_inputs_to_fakes((task, data), mode)
            with in_task():
                r = t(d)
            real, _ = tracemalloc.get_traced_memory()
    assert all(type(v) is ft.FakeArray for v in d.values())
    assert type(r) is ft.FakeArray and r.shape == (10, 15) and r.dtype == np.float64
    # the converter's bookkeeping and, X being small, its known values (a copy of its
    # buffer) and the chunk's sum computed on them (faketensor/_known.py); nothing else
    assert real < X.nbytes + 10 * 15 * 8 + 1024
    assert r.tolist() == (X[:10, :15] + 1).tolist()
    assert mode.memory.live["cpu"] == 10 * 15 * 8
