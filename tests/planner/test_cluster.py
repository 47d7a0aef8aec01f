"""Planning dask.distributed programs (meta_utils/planner/cluster.py): tasks on fakes on a real
LocalCluster, per-task and per-worker figures against real runs measured in the workers
(tests/cluster_real.py), the plan's cluster section, ``--memory-limit`` for workers.

One cluster per kind, shared by the module (a LocalCluster costs about a second to start);
the real-vs-fake checks use worker processes (tracemalloc is per process) with one thread
each, so that a task's real peak is its own.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("distributed")

import faketensor as ft  # noqa: E402  (before dask: its graphs keep NumPy's patched functions)
import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import cluster_real as cr  # noqa: E402
from faketensor.meta_utils.planner.plan import plan_script  # noqa: E402
from locations import TESTS  # tests/ and the checkout

# each local cluster starts once, on one worker
pytestmark = pytest.mark.xdist_group("cluster")

HERE = str(TESTS)
SCRIPT = os.path.join(HERE, "plan_scripts", "cluster_futures.py")
FAKETENSOR = os.path.join(os.path.dirname(sys.executable), "faketensor")
TIMEOUT = 120
needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None,
                                    reason="chromium is not installed")


def _script_functions():
    import runpy
    return runpy.run_path(SCRIPT, run_name="cluster_futures")


# distributed's sampling profiler off in the clusters whose runs are compared with real ones:
# its periodic samples of the running tasks' frames made runs vary (the real run of
# ``np.ones((n, n)) * 2.0`` in a worker, whose temporary NumPy elides or not by a reference
# count, held one (n, n) array more in some runs under load). The worker processes take this
# configuration from the one in effect when the cluster starts (the nanny passes it on).
NO_PROFILER = {"distributed.worker.profile.enabled": False}


@pytest.fixture(scope="module")
def processes():
    """One worker process with one thread; the scheduler sends one task at a time."""
    with dask.config.set({"distributed.scheduler.worker-saturation": 1.0, **NO_PROFILER}):
        with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                          dashboard_address=":0") as cl, Client(cl, timeout=TIMEOUT) as c:
            yield c


@pytest.fixture(scope="module")
def threads():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cl, Client(cl, timeout=TIMEOUT) as c:
        yield c


def matmul_graph(client):
    x = da.ones((1200, 1200), chunks=300)
    y = da.ones((1200, 600), chunks=300) * 2
    return client.compute(((x @ y) + x.T @ y)[::2])


def futures_graph(client):
    f = _script_functions()
    blocks = [client.submit(f["block"], 300 + 10 * i, key=f"block-{i}") for i in range(4)]
    return [client.submit(f["combine"], blocks[i], blocks[i], key=f"combine-{i}")
            for i in range(4)]


@pytest.mark.parametrize("graph", [matmul_graph, futures_graph])
def test_task_figures_equal_real(processes, graph):
    """Every task's output bytes and peak equal the real ones measured in the worker (two
    real runs, which agree with each other)."""
    real_a, real_b = (cr.run(processes, graph, cr.RealMeter())[1] for _ in range(2))
    result, fake, _ = cr.run(processes, graph)
    assert all(type(r) is ft.FakeArray for r in (result if isinstance(result, list) else [result]))
    keys = set(fake) & set(real_a) & set(real_b)
    assert len(keys) >= len(fake) - 1  # all but the finalize task, whose key is new each run
    for k in keys:
        assert real_a[k][1:] == real_b[k][1:], k
        assert fake[k][1:] == real_a[k][1:], (k, fake[k], real_a[k])


def test_worker_peak_against_real_runs(processes):
    """One worker: its predicted peak agrees with each real run's within what two real runs
    differ by, or one of the graph's 300x300 chunks: the scheduler's order of releases can
    leave one more or one fewer held at a peak, in a real run as in a planned one (on a
    loaded machine a planned run, its tasks quicker, once held one chunk fewer than two real
    runs that agreed; the smallest task output, 8 bytes, had been taken for the slack)."""
    runs = [cr.run(processes, matmul_graph, m) for m in (cr.RealMeter(), cr.RealMeter(), None)]
    (a, b, fake) = (next(iter(r[2]["workers"].values()))["peak_bytes"] for r in runs)
    outputs = [r[1] for r in runs[0][1].values()]
    chunk = 300 * 300 * 8  # one of the graph's chunks (float64), most of its task outputs
    assert outputs.count(chunk) > len(outputs) // 2 and fake > 20 * chunk
    slack = max(abs(a - b), chunk)
    assert abs(fake - a) <= slack and abs(fake - b) <= slack, (a, b, fake, chunk)


def test_plan_script_cluster(processes, tmp_path):
    """faketensor's planner on a script that starts its own LocalCluster: the tasks run on
    fakes in the workers (the client process allocates nothing); each task's peak is the
    real one of the same function measured in a worker."""
    f = _script_functions()
    real = cr.run(processes, lambda c: [c.submit(f["combine"], c.submit(f["block"], 400),
                                                 c.submit(f["block"], 400))],
                  cr.RealMeter())[1]
    real_peak = {k.split("-")[0]: v[2] for k, v in real.items()}
    p = plan_script(SCRIPT, ["400"])
    assert p.status == "completed", p.stopped_at
    c = p.cluster
    assert c is not None and len(c["workers"]) == 2
    assert c["tasks"]["count"] == c["tasks"]["measured"] == 8
    top = {t["key"].split("-")[0] for t in c["tasks"]["top"]}
    assert top == {"block", "combine"}
    for t in c["tasks"]["top"]:
        assert t["output_bytes"] == 400 * 400 * 8
        assert t["peak_bytes"] == real_peak[t["key"].split("-")[0]]
        assert t["input_bytes"] == (0 if t["key"].startswith("block") else 2 * 400 * 400 * 8)
    for w in c["workers"].values():
        assert w["peak_bytes"] >= 3 * 400 * 400 * 8  # two inputs, the output, one more held
        assert w["timeline"] and max(b for _, b in w["timeline"]) == w["peak_bytes"]
    assert c["transfers"]["bytes"] == 8 * 400 * 400 * c["transfers"]["count"]
    assert p.peak["cpu"] == 0
    data = p.to_json()
    assert json.loads(json.dumps(data))["cluster"]["tasks"]["count"] == 8
    text = p.report()
    assert "cluster" in text and "task at" not in text and "at task combine" in text
    html = tmp_path / "p.html"
    p.save_html(str(html))
    page = html.read_text()
    assert 'id="cluster-timeline"' in page and "worker 0" in page
    limit = max(w["peak_bytes"] for w in c["workers"].values())
    assert p.over_limit({"worker": limit}) == []
    assert len(p.over_limit({"worker": limit - 1})) >= 1


def test_cli_worker_memory_limit(tmp_path):
    """``--memory-limit worker=SIZE``: exit 3 and the worker over it named with its task."""
    out = tmp_path / "plan.json"
    r = subprocess.run([FAKETENSOR, "run", "--json", str(out), "--memory-limit", "worker=3MB",
                        SCRIPT, "400"], capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 3, r.stderr
    assert "EXCEEDS its limit 2.86 MiB" in r.stderr and "at task combine-" in r.stderr
    assert json.loads(out.read_text())["cluster"]["tasks"]["measured"] == 8
    # worker processes: the program's event loop receives over TCP into NumPy buffers,
    # which distributed's code makes for real (modes/dask_support.py graph_code)
    r = subprocess.run([FAKETENSOR, "run", "--json", str(out), "--memory-limit", "worker=1GiB",
                        SCRIPT, "400", "processes"], capture_output=True, text=True,
                       timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())["cluster"]
    assert data["tasks"]["measured"] == 8 and data["scheduler"].startswith("tcp://")


def _executor(dask_worker=None):
    return type(dask_worker.executors["default"]).__name__


def test_plan_fn_with_client(threads):
    """ft.plan(fn, client): the client's cluster runs fn's tasks on fakes, then real again."""
    f = _script_functions()

    def program(client):
        return client.gather(client.map(f["block"], [50, 60]))

    p = ft.plan(program, threads)
    assert [type(r) for r in p.result] == [ft.FakeArray, ft.FakeArray]
    assert p.cluster["tasks"]["measured"] == 2
    tasks = sorted(p.cluster["tasks"]["top"], key=lambda t: t["output_bytes"])
    assert [t["output_bytes"] for t in tasks] == [50 * 50 * 8, 60 * 60 * 8]
    assert all(t["peak_bytes"] > t["output_bytes"] for t in tasks)  # no elision this small
    assert set(threads.run(_executor).values()) == {"ThreadPoolExecutor"}
    real = threads.gather(threads.map(f["block"], [50]))
    assert type(real[0]).__name__ == "ndarray"


def test_script_connecting_by_address(threads, tmp_path):
    """A planned script's ``Client(address)``: its preload registers the plugins on that
    cluster and takes them off when the client closes."""
    script = tmp_path / "connect.py"
    script.write_text(
        "import sys\nimport numpy as np\nfrom distributed import Client\n"
        "with Client(sys.argv[1]) as c:\n"
        "    r = c.submit(np.ones, (70, 70)).result()\n"
        "    print(type(r).__name__)\n")
    p = plan_script(str(script), [threads.scheduler.address])
    assert p.status == "completed", p.stopped_at
    assert p.cluster["tasks"]["measured"] == 1
    assert p.cluster["tasks"]["top"][0]["output_bytes"] == 70 * 70 * 8
    assert set(threads.run(_executor).values()) == {"ThreadPoolExecutor"}
    assert type(threads.submit(sum, [1, 2]).result()) is int


def test_overlaps_sum_the_tasks_running_at_each_end():
    """A worker with several threads: at each task's end, the peaks of the other tasks
    running then (started before it ended, ending at or after) count with its own."""
    from faketensor.meta_utils.planner.cluster_summary import _overlaps
    spans = {"a": (0.0, 4.0, 10), "b": (1.0, 2.0, 20), "c": (2.0, 5.0, 40), "d": (4.5, 4.5, 80),
             "e": (6.0, 7.0, 160)}
    rows = [(k, [None, 1, p, 0, (), s, e, 0, 0]) for k, (s, e, p) in spans.items()]
    expected = {k: sum(p2 for k2, (s2, e2, p2) in spans.items() if k2 != k and s2 < e <= e2)
                for k, (s, e, p) in spans.items()}
    assert _overlaps(rows) == expected
    assert expected == {"a": 40, "b": 10, "c": 0, "d": 40, "e": 0}  # c starts as b ends


def test_real_arrays_in_a_graph_become_fakes_in_the_task(processes):
    """A graph built outside any mode from a real array carries it in its tasks: a planned
    task computes on its fake (pre-existing: not the task's bytes) and its figures are those
    of the real run; the array is left as it was."""
    import numpy as np
    real = np.arange(40_000.0).reshape(200, 200)
    before = real.copy()

    def graph(c):
        return c.compute(da.from_array(real, chunks=100) * 2)

    truth = cr.run(processes, graph, cr.RealMeter())[1]
    result, tasks, _ = cr.run(processes, graph)
    assert type(result) is ft.FakeArray and result.shape == (200, 200)
    keys = [k for k in tasks if k in truth]
    assert len(keys) >= 8 and any("mul" in k and tasks[k][2] for k in keys)
    assert all(tasks[k][1:] == truth[k][1:] for k in keys), [(k, tasks[k], truth[k]) for k in keys]
    assert np.array_equal(real, before)


IMPORT_FIRST = """
import pickle
import dask, dask.array as da, distributed
from distributed import Client, LocalCluster
import numpy as np
import faketensor as ft
from faketensor.meta_utils.planner import cluster

x = da.ones((10**6, 10**6), chunks=5 * 10**5)  # wrap.py keeps np.ones_like from before
pickle.dumps(dict(x.__dask_graph__()))  # the original pickles as the name's binding now
with cluster.planning() as session:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cl, Client(cl, timeout=60) as c:
        out = c.compute((x @ x.T).sum(axis=0)).result(timeout=60)
(s,) = session.summaries()
print(type(out).__name__, out.shape, s["tasks"]["count"], s["tasks"]["measured"])
"""


def test_dask_and_distributed_imported_before_faketensor():
    """A program (a notebook) importing dask, dask.array and distributed before faketensor:
    its graphs hold NumPy's originals, which pickle as the patches bound under their names
    (modes/patching.py ``_reduce_original``), so the graph reaches the scheduler and is
    planned on fakes."""
    r = subprocess.run([sys.executable, "-c", IMPORT_FIRST], capture_output=True, text=True,
                       timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr[-3000:]
    kind, shape, count, measured = r.stdout.split()[-4:]
    assert kind == "FakeArray" and shape == "(1000000,)"
    assert int(count) == int(measured) > 0


def _where_and_ones(n):
    import numpy as np
    from distributed import get_worker
    return get_worker().address, np.ones((n, n))


def _fan_out(n):
    """A task that submits tasks and waits for them seceded from the pool (``secede`` and
    ``rejoin`` by hand, as ``worker_client`` does)."""
    import numpy as np
    from distributed import get_client, rejoin, secede
    client = get_client()
    futures = client.map(np.ones, [(n, n), (n, 2 * n)])
    secede()
    parts = client.gather(futures)
    rejoin()
    return np.concatenate(parts, axis=1)


def test_get_worker_and_secede_in_planned_tasks(threads):
    """Planned tasks run with distributed's own thread state: ``get_worker()`` names the
    worker, and a task can submit tasks, ``secede()``, gather and ``rejoin()``; every task,
    the inner ones included, runs on fakes."""
    def program(client):
        a = client.submit(_where_and_ones, 40, key="where").result(timeout=TIMEOUT)
        b = client.submit(_fan_out, 30, key="fan").result(timeout=TIMEOUT)
        return a, b

    p = ft.plan(program, threads)
    (address, ones), fanned = p.result
    assert address in threads.scheduler_info()["workers"]
    assert type(ones) is ft.FakeArray and ones.shape == (40, 40)
    assert type(fanned) is ft.FakeArray and fanned.shape == (30, 90)
    tasks = {t["key"]: t for t in p.cluster["tasks"]["top"]}
    assert p.cluster["tasks"]["count"] == p.cluster["tasks"]["measured"] == 4
    assert tasks["fan"]["output_bytes"] == 30 * 90 * 8
    import numpy as np
    with ft.FakeMode() as m:
        np.ones((40, 40))
    assert tasks["where"]["peak_bytes"] == m.memory.peak["cpu"]
    with ft.FakeMode():
        parts = [np.ones((30, 30)), np.ones((30, 60))]  # gathered: made in other tasks
    with ft.FakeMode() as m:
        np.concatenate(parts, axis=1)
    assert tasks["fan"]["peak_bytes"] == m.memory.peak["cpu"] >= 30 * 90 * 8
    assert set(threads.run(_executor).values()) == {"ThreadPoolExecutor"}


@pytest.fixture(scope="module")
def two_processes():
    """Two worker processes (TCP between them), one thread each."""
    with dask.config.set(NO_PROFILER), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                         dashboard_address=":0") as cl, Client(cl, timeout=TIMEOUT) as c:
        c.wait_for_workers(2, timeout=TIMEOUT)
        yield c


_VIEWS: dict = {"__name__": "transfer_views"}  # functions sent by value to the workers
exec("import numpy as np\n"
     "def half(x):\n    return x[::2]\n"
     "def dense(x):\n    return np.ascontiguousarray(x) * 2\n", _VIEWS)


def transfers_graph(client):
    """Blocks made on both workers, each combined on the first: half of the combines'
    inputs are received from the other worker (several in one message, one at a time);
    a strided view made on the second worker arrives on the first as a C-contiguous copy,
    which ``np.ascontiguousarray`` then keeps."""
    f = _script_functions()
    a, b = sorted(client.scheduler_info()["workers"])
    view = client.submit(_VIEWS["half"], client.submit(f["block"], 300, key="block-v",
                                                       workers=[b]), key="half", workers=[b])
    dense = client.submit(_VIEWS["dense"], view, key="dense", workers=[a])
    left = [client.submit(f["block"], 200 + 8 * i, key=f"left-{i}", workers=[a]) for i in range(3)]
    right = [client.submit(f["block"], 200 + 8 * i, key=f"right-{i}", workers=[b])
             for i in range(3)]
    return [client.submit(f["combine"], left[i], right[i], key=f"combine-{i}", workers=[a])
            for i in range(3)] + [client.submit(f["combine"], left[0], right[0],
                                                key="combine-pair", workers=[a]), dense]


def test_measured_clusters_run_without_the_profiler(processes, two_processes):
    """The workers whose real runs are measured sample no frames (NO_PROFILER above)."""
    def profiling(dask_worker):
        return sorted(k for k in dask_worker.periodic_callbacks if k.startswith("profile"))

    for client in (processes, two_processes):
        assert set(map(tuple, client.run(profiling).values())) == {()}


def test_received_inputs_peaks_are_lower_bounds(two_processes):
    """Tasks whose inputs come from another worker over TCP: distributed may hand them an
    unaligned array (the first buffer of a message lies after its header), which NumPy's
    matmul copies. The plan marks their peaks as lower bounds with the possible extra copy
    bytes; every real peak (two runs, tracemalloc in the workers) lies in that range, and
    the tasks computed from local inputs alone are exact."""
    reals = [cr.run(two_processes, transfers_graph, cr.RealMeter())[1] for _ in range(2)]
    _, fake, summary = cr.run(two_processes, transfers_graph)
    assert set(fake) == set(reals[0]) == set(reals[1])
    for k, (w, out, peak, extra) in fake.items():
        received = k.startswith("combine") or k == "dense"
        assert (extra > 0) == k.startswith("combine"), (k, extra)  # matmul copies
        for real in reals:
            assert real[k][1] == out
            if received:
                assert peak <= real[k][2] <= peak + extra, (k, peak, extra, real[k])
            else:
                assert real[k][2] == peak, (k, peak, real[k])
    assert fake["combine-pair"][3] == 200 * 200 * 8  # its one received operand copied
    assert fake["dense"][2] < 2 * 150 * 300 * 8  # the view arrived contiguous: not copied
    assert summary["tasks"]["lower_bounds"] == 4
    w = summary["workers"][sorted(summary["workers"])[0]]
    assert w["peak_upper_bytes"] > w["peak_bytes"]


@pytest.mark.parametrize("make", [
    lambda b: b, lambda b: b.T, lambda b: b[::2], lambda b: b[:, ::-1], lambda b: b[1:3, 2:5],
    lambda b: b[:1, ::2], lambda b: np.array(3.0), lambda b: np.ones((0, 3))[:, ::2],
    lambda b: np.broadcast_to(np.arange(3.0), (4, 3)), lambda b: np.broadcast_to(b[:, :1], (4, 5)),
    lambda b: np.broadcast_to(b[::2, 1:2], (2, 7)), lambda b: np.ones((3, 1, 4))[:, :, ::2],
    lambda b: np.zeros(5, "c16")[::2], lambda b: np.zeros((2, 3), "M8[s]").T,
    lambda b: np.zeros(4, "i1,f8")[::2], lambda b: np.zeros(6, "U3")[::3],
    lambda b: _readonly(b), lambda b: _readonly(b)[::2]])
def test_fake_arrives_as_distributed_rebuilds_an_ndarray(make):
    """A fake sent between worker processes arrives with the layout distributed's numpy
    serializer gives the real array (strides, offset 0 in a buffer of its own, flags)."""
    from distributed.protocol import deserialize, serialize
    from faketensor.meta_utils.planner import cluster_plugins  # noqa: F401  (registers the serializer)
    real = make(np.arange(24.0).reshape(4, 6))
    header, frames = serialize(real, serializers=("dask",))
    got = deserialize(header, [bytearray(bytes(memoryview(f))) for f in frames])
    fake = ft.FakeMode()._convert(real)
    header, frames = serialize(fake, serializers=("dask",))
    arrived = deserialize(header, [bytes(f) for f in frames])
    assert type(arrived) is ft.FakeArray
    assert (arrived.shape, arrived.dtype, arrived.strides, arrived.storage_offset) == (
        got.shape, got.dtype, got.strides, 0)
    for flag in ("c_contiguous", "f_contiguous", "writeable", "owndata"):
        assert getattr(arrived.flags, flag) == getattr(got.flags, flag), flag


def _readonly(b):
    b = b.copy()
    b.flags.writeable = False
    return b


@pytest.fixture(scope="module")
def matmul_plan(threads):
    """A plan of the matmul graph on two workers with one thread each."""
    def program(client):
        return client.gather(matmul_graph(client))

    return ft.plan(program, threads)


def test_each_worker_peak_by_task_name(matmul_plan):
    """What each worker holds at its peak (``peak_held``: the task running then, the results
    held by task name) adds up to its peak, and the timeline by task name sums to the
    worker's timeline at every point and agrees with ``peak_held`` at the peak."""
    from dask.utils import key_split

    c = matmul_plan.cluster
    busy = {w: d for w, d in c["workers"].items() if d["tasks"]}
    assert busy
    for w, d in busy.items():
        held = d["peak_held"]
        assert held["running"][0]["key"] == d["peak_task"]
        assert sum(r["bytes"] for r in held["running"]) + held["held_bytes"] == d["peak_bytes"]
        assert held["held"] is not None  # one thread: the peak task raised the running peak
        assert sum(g["bytes"] for g in held["held"]) == held["held_bytes"]
        gt = d["group_timeline"]
        assert gt["seq"] == [s for s, _ in d["timeline"]]
        for k, (_, total) in enumerate(d["timeline"]):
            assert sum(r[k] for r in gt["bytes"]) + gt["running"][k] + gt["other"][k] == total
            assert min([r[k] for r in gt["bytes"]] + [gt["running"][k], gt["other"][k]]) >= 0
        k = [b for _, b in d["timeline"]].index(d["peak_bytes"])
        assert gt["running"][k] == sum(r["bytes"] for r in held["running"])
        at_peak = {g: row[k] for g, row in zip(gt["groups"], gt["bytes"]) if row[k]}
        by_name = {g["group"]: g["bytes"] for g in held["held"] if g["bytes"]}
        assert {g: b for g, b in by_name.items() if g in gt["groups"]} == at_peak
        assert sum(b for g, b in by_name.items() if g not in gt["groups"]) == gt["other"][k]
    names = {key_split(t["key"]) for t in c["tasks"]["top"]}
    assert names & {g for d in busy.values() for g in d["group_timeline"]["groups"]}


def test_each_worker_drawn(matmul_plan, tmp_path):
    """The page draws a flame graph per worker, rooted at its peak, with the task at the peak,
    and a panel per worker stacked by task name with its peak line and label (each task
    name one colour on every worker)."""
    import test_html_report as th
    from faketensor.meta_utils.planner.html import render_html

    js = matmul_plan.to_json()
    busy = sorted(((w, d) for w, d in js["cluster"]["workers"].items() if d["tasks"]),
                  key=lambda kv: -kv[1]["peak_bytes"])
    page = render_html(js)
    ids = {a.get("id") for _, a in th.Dom(page).elements}
    for i, (w, d) in enumerate(busy):
        frames = th._flame_frames(page, f"w{i}")
        assert frames[0][2] == d["peak_bytes"] and w in frames[0][1]
        assert any(lbl.startswith(f"running: task {d['peak_task']}"[:40]) for _, lbl, _ in frames)
        assert {f"wsite-{i}-0", f"wsite-peak-{i}", f"wsite-peak-label-{i}"} <= ids
    legend = re.findall(r'<g id="(wsite-\d+)-(\d+)"><title>results of the tasks named (\S+) '
                        r'.*?<path [^>]*style="fill: (#\w+)', page, re.S)
    colour: dict = {}
    for _, _, name, fill in legend:
        assert colour.setdefault(name, fill) == fill, name
    assert len(colour) >= 2


@needs_chromium
def test_browser_each_worker_labels_meet_nothing(matmul_plan, tmp_path):
    """In Chromium: every peak label of the page, the workers' included, meets no other text,
    plot area or legend (screenshot in the test's folder)."""
    import test_html_report as th
    from faketensor.meta_utils.planner.html import render_html

    page = render_html(matmul_plan.to_json())
    busy = [d for d in matmul_plan.cluster["workers"].values() if d["tasks"]]
    labels, met = th.overlaps(page, tmp_path)
    assert labels >= 2 * len(busy) and met == [], met
    path = tmp_path / "workers.html"
    path.write_text(page, encoding="utf-8")
    img, run = th.screenshot(path, tmp_path, size=(1280, 5000))
    print(f"screenshot: {tmp_path / 'workers.png'}")
    assert th.not_blank(img) and th.console_messages(run) == []


def test_group_timeline_puts_ungrouped_results_in_other():
    """Points whose results were not grouped (None), or whose groups disagree with the
    worker's count, put all their results in "other"; the columns always sum to the total."""
    from faketensor.meta_utils.planner.cluster_summary import _group_timeline
    points = [(1, 150, 50, {"a": [100, 1]}), (1, 100, 0, {"a": [60, 1], "b": [40, 2]}),
              (2, 90, 0, None), (3, 80, 0, {"a": [10, 1]})]
    assert _group_timeline(points) == {
        "groups": ["a", "b"], "seq": [1, 1, 2, 3], "bytes": [[100, 60, 0, 0], [0, 40, 0, 0]],
        "running": [50, 0, 0, 0], "other": [0, 0, 90, 80]}


def test_worker_flame_without_the_results_by_name():
    """A worker whose results at the peak were not recorded by name: one bar for them all,
    said so, beside the task at the peak and the tasks running beside it."""
    import test_html_report as th
    from faketensor.meta_utils.planner.html import render_html
    worker = {"name": "0", "nthreads": 2, "memory_limit": None, "peak_bytes": 700,
              "peak_upper_bytes": 700, "peak_task": "f-1", "tasks": 2, "output_bytes": 300,
              "timeline": [[1, 700], [1, 400]],
              "peak_held": {"running": [{"key": "f-1", "bytes": 200}, {"key": None, "bytes": 100}],
                            "held_bytes": 400, "held": None},
              "group_timeline": {"groups": [], "seq": [1, 1], "bytes": [], "running": [300, 0],
                                 "other": [400, 400]}}
    rep = {"version": 1, "status": "completed", "devices": {},
           "cluster": {"workers": {"tcp://w:1": worker}, "tasks": {"top": []},
                       "transfers": {"bytes": 0}}}
    frames = th._flame_frames(render_html(rep), "w0")
    assert [(d, lbl.split("  ")[0], b) for d, lbl, b in frames] == [
        (0, "worker 0 (tcp://w:1): 700 B held at the peak", 700),
        (1, "results held (not broken down)", 400), (1, "running: task f-1", 200),
        (1, "running: tasks beside it", 100)]
