"""distributed's plugins for planning on a cluster (imported only where distributed is used):
``FakeTasks`` on the workers, ``ClusterRecorder`` on the scheduler (see meta_utils/planner/cluster.py)."""
from __future__ import annotations

import math
import pickle
import uuid
from concurrent.futures import Executor, Future
from typing import Any, Callable

from distributed.diagnostics.plugin import SchedulerPlugin, WorkerPlugin
from distributed.protocol.serialize import dask_deserialize, dask_serialize
from distributed.worker import _run_task, _run_task_simple

from ..._array import FakeArray, make_fake
from ..._dispatch import claim
from ..._stack import paused
from ...layout import c_strides, contiguity
from ..._storage import FakeStorage
from ...modes.dask_support import in_task, task_inputs_to_fakes
from ...modes.fake_mode import FakeMode
from .cluster_summary import PLUGIN, RECORDER, register_recorder, summarize


class FakeMeter:
    """Runs one task under a fresh ``FakeMode`` of its own (no mode of the thread's context,
    such as the planner's, underneath), marked as a dask task (modes/dask_support.py
    ``in_task``: dask's code in it computes on fakes; outside one it builds graphs for real),
    with the real arrays among its inputs (a graph's embedded arrays) made fakes; its figure:
    the mode's peak bytes."""

    #: a task may be run a second time, on unaligned received inputs (FakeTasks)
    reruns = True

    def setup(self) -> None:
        """Called once per worker when the plugin is set up."""

    def __call__(self, fn: Callable, args: tuple, kwargs: dict) -> tuple[Any, dict]:
        mode = FakeMode()
        with paused(), mode, in_task():
            out = fn(*task_inputs_to_fakes(args, mode), **kwargs)
        peak = mode.memory.peak
        figures: dict[str, Any] = {"peak": int(peak.get("cpu", 0))}
        if any(d != "cpu" for d in peak):
            figures["peaks"] = {d: int(n) for d, n in peak.items()}
        return out, figures


def unaligned_twin(x: FakeArray) -> FakeArray:
    """A fake with ``x``'s layout on a storage of its own whose start is not aligned (as a
    buffer received at an odd offset of a message), pre-existing (call with modes paused)."""
    storage = FakeStorage(x.storage.nbytes, x.storage.device, alignment=1)
    claim(storage)
    twin = make_fake(x.shape, x.dtype, x.strides, storage, x.storage_offset, None, x._writeable)
    return twin


def as_received(x: FakeArray) -> FakeArray:
    """The fake a worker gets for ``x`` sent over a serializing comm (TCP): distributed
    sends an ndarray's data, not its base (protocol/numpy.py ``serialize_numpy_ndarray``),
    and rebuilds it over a buffer of its own at offset 0 (``deserialize_numpy_ndarray``):
    C or F contiguous (and 0-d) arrays keep their strides; others arrive as a C copy
    (writeable); a broadcast (stride 0) array sends one element along those axes and keeps
    the zero strides, made C-contiguous first when that piece is neither C nor F. Call with
    modes paused: the buffer is pre-existing where it arrives."""
    if x.dtype.hasobject or x.pytype is not None or x.storage.device != "cpu":
        return x  # pickled as it is (protocol/numpy.py's pickle path, or not an ndarray)
    shape, strides, itemsize = x.shape, x.strides, x.dtype.itemsize
    writeable = x._writeable
    if 0 in strides:
        piece = tuple(min(n, 1) if s == 0 else n for n, s in zip(shape, strides))
        c, f = contiguity(piece, strides, itemsize)
        if not (c or f):
            cs = c_strides(piece, itemsize)
            strides = tuple(0 if s == 0 else t for s, t in zip(strides, cs))
        nbytes = itemsize * math.prod(piece)
    else:
        c, f = contiguity(shape, strides, itemsize)
        if shape and not (c or f):
            strides, writeable = c_strides(shape, itemsize), True
        nbytes = itemsize * math.prod(shape)
    storage = FakeStorage(nbytes, "cpu")
    claim(storage)
    return make_fake(shape, x.dtype, strides, storage, 0, storage, writeable)  # a buffer's view


def _serialize_fake(x: FakeArray, context: Any = None) -> tuple[dict, list]:
    """distributed's "dask" serializer for a fake: the fake it arrives as (``as_received``),
    pickled."""
    with paused():
        y = as_received(x)
    return {}, [pickle.dumps(y, protocol=5)]


def _deserialize_fake(header: dict, frames: list) -> FakeArray:
    with paused():
        return pickle.loads(frames[0])


dask_serialize.register(FakeArray)(_serialize_fake)
dask_deserialize.register(FakeArray)(_deserialize_fake)


class MeteredExecutor(Executor):
    """The worker's default executor with each task run through the plugin's meter. Its
    name has no "ThreadPoolExecutor" in it on purpose: for such a pool the worker runs each
    task inside a copy of the event loop's context (distributed/worker.py
    ``Worker.execute``, ``run_in_executor_with_context``), where the task's mode, set in the
    pool thread, would not be seen; for any other executor it calls ``_run_task_simple`` in
    the thread's own context, and ``FakeTasks._run`` calls distributed's ``_run_task`` in its
    place, which sets the thread's state as the worker does for its pool."""

    def __init__(self, inner: Any, plugin: "FakeTasks") -> None:
        self.inner = inner
        self.plugin = plugin

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Any:
        if not getattr(self.plugin.meter, "inline", False):
            return self.inner.submit(self.plugin._run, fn, args, kwargs)
        # a meter that must see the task alone in its process: run it here, on the event
        # loop's thread, which handles no message (and frees no key) until it returns
        done: Future = Future()
        try:
            done.set_result(self.plugin._run(fn, args, kwargs))
        except BaseException as e:
            done.set_exception(e)
        return done

    def shutdown(self, wait: bool = True, **kwargs: Any) -> None:
        self.inner.shutdown(wait=wait, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class FakeTasks(WorkerPlugin):
    """Each task on the worker runs through ``meter`` (default ``FakeMeter``); its figures go
    to the scheduler in the task's metadata under ``"faketensor"``: the plugin's transition
    hook runs right after the worker builds its ``task-finished`` message, whose metadata is
    the task's ``metadata`` dict (worker_state_machine.py ``_get_task_finished_msg``), sent
    afterwards."""

    name = PLUGIN
    idempotent = True

    def __init__(self, meter: Any = None) -> None:
        self.meter = meter if meter is not None else FakeMeter()

    def setup(self, worker: Any) -> None:
        self.worker = worker
        self.pending: dict = {}  # (thread id, compute start) -> figures
        self.received: set = set()  # keys this worker holds that came from another worker
        self.meter.setup()
        inner = worker.executors["default"]
        while isinstance(inner, MeteredExecutor):  # set up again: wrap once
            inner = inner.inner
        self.inner = inner
        worker.executors["default"] = MeteredExecutor(inner, self)

    def teardown(self, worker: Any) -> None:
        ex = worker.executors.get("default")
        if isinstance(ex, MeteredExecutor) and ex.plugin is self:
            worker.executors["default"] = self.inner

    def _run(self, fn: Callable, args: tuple, kwargs: dict) -> Any:
        """In the task's thread: run it through the meter; keep the figures under the thread
        and the start time that the worker records for the task. A task goes through
        distributed's own ``_run_task``, as the worker runs it in a thread pool
        (distributed/worker.py ``Worker.execute``): the thread's state (key, start, the
        worker's execution state) and the worker context variable, so ``get_worker()``,
        ``get_client()``, ``secede()`` and ``rejoin()`` work in a planned task."""
        again = None
        if fn is _run_task_simple and len(args) == 3 and not kwargs:
            fn = self._with_thread_state
            again = self._unaligned_inputs(args[1])
        msg, figures = self.meter(fn, args, kwargs)
        if again and isinstance(msg, dict) and msg.get("status") == "OK":
            extra = self._unaligned_extra(fn, args, again, figures)
            if extra:
                figures["unaligned_extra"] = extra
        if isinstance(msg, dict) and "thread" in msg and "start" in msg:
            self.pending[(msg["thread"], msg["start"])] = figures
        return msg

    def _unaligned_inputs(self, data: dict) -> dict | None:
        """The task's inputs received from other workers, as fakes whose data is not
        aligned; None when there are none (or the meter cannot run a task twice)."""
        if not self.received or not getattr(self.meter, "reruns", False):
            return None
        twins = {k: v for k, v in data.items() if k in self.received and type(v) is FakeArray
                 and v.dtype.alignment > 1 and v.size}
        if not twins:
            return None
        with paused():
            return {k: unaligned_twin(v) for k, v in twins.items()}

    def _unaligned_extra(self, fn: Callable, args: tuple, twins: dict, figures: dict) -> int:
        """The bytes the task's peak would grow by if every array it received arrived
        unaligned (the task run again on fakes with those inputs unaligned): distributed
        reads the first buffer of a message into the buffer holding the message's header,
        at an offset set by the header's length (comm/tcp.py ``read``,
        ``_add_frames_header``), and NumPy copies an unaligned operand where it needs
        aligned data (matmul, BLAS, sorts). Not run for a task that seceded (it may have
        submitted tasks)."""
        task, data, delay = args
        state = self.worker.state
        ts = state.tasks.get(task.key)
        if ts is not None and ts in state.long_running:
            return 0
        msg, again = self.meter(fn, (task, {**data, **twins}, delay), {})
        if not (isinstance(msg, dict) and msg.get("status") == "OK"):
            return 0
        return max(0, again.get("peak", 0) - figures.get("peak", 0))

    def _with_thread_state(self, task: Any, data: dict, delay: float) -> Any:
        w = self.worker
        return _run_task(task, data, w.execution_state, task.key, w.active_threads,
                         w.active_threads_lock, delay)

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if start not in ("executing", "long-running", "resumed", "cancelled"):
            if finish == "memory" and start == "flight":
                self.received.add(key)
            elif finish in ("released", "forgotten"):
                self.received.discard(key)
            return
        state = self.worker.state
        ts = state.tasks.get(key)
        if ts is None:
            return
        began = None
        for s in ts.startstops:
            if s.get("action") == "compute":
                began = s["start"]
        if began is None:
            return
        figures = self.pending.pop((state.threads.get(key), began), None)
        if figures is not None and finish == "memory":
            ts.metadata["faketensor"] = figures


#: a worker holding more keys than this is not grouped at each event (its memory is shown
#: as one "other" band): grouping costs a pass over the keys it holds
MAX_GROUPED_KEYS = 4096


def held_by_prefix(ws: Any) -> dict | None:
    """{task prefix: [bytes, keys]} of what a scheduler's ``WorkerState`` holds (the keys it
    has in memory, by ``key_split`` name, as dask's dashboard groups them); None above
    MAX_GROUPED_KEYS keys."""
    has = ws.has_what
    if len(has) > MAX_GROUPED_KEYS:
        return None
    out: dict = {}
    for ts in has:
        row = out.setdefault(ts.prefix.name, [0, 0])
        row[0] += ts.get_nbytes()
        row[1] += 1
    return out


class ClusterRecorder(SchedulerPlugin):
    """What the scheduler sees of a run (meta_utils/planner/cluster.py); ``summary()``."""

    name = RECORDER
    idempotent = True

    def __init__(self, scheduler: Any = None) -> None:
        self.uid = uuid.uuid4().hex
        self.scheduler: Any = None
        self.seq = 0
        self.graphs = 0
        #: key -> (worker, output bytes, peak, input bytes, input keys, compute start,
        #: compute stop, worker's managed bytes after, seq, the peak's possible growth
        #: when its received inputs arrive unaligned)
        self.tasks: dict = {}
        self.samples: list = []     # (seq, worker, managed bytes) after a key is released
        self.computed_on: dict = {}
        self.holders: dict = {}     # key -> the workers seen holding it
        self.moved: set = set()     # (key, worker): counted as a transfer once
        self.transfers: dict = {}   # (from, to) -> [bytes, count]
        self.workers: dict = {}     # address -> {"name", "nthreads", "memory_limit"}
        #: (seq, worker) -> {task prefix: [bytes, keys]} the worker held then (None: too
        #: many keys to group); at each task's end and each release sample
        self.groups: dict = {}
        self.best: dict = {}        # worker -> its highest peak (own task only) so far
        #: key -> what its worker held at its end, for a task raising the worker's peak
        self.held_at: dict = {}
        if scheduler is not None:
            self._attach(scheduler)

    def _attach(self, scheduler: Any) -> None:
        self.scheduler = scheduler
        register_recorder(self.uid, self)
        for addr in scheduler.workers:
            self.add_worker(scheduler, addr)

    async def start(self, scheduler: Any) -> None:
        if self.scheduler is None:
            self._attach(scheduler)

    def add_worker(self, scheduler: Any, worker: str) -> None:
        ws = scheduler.workers.get(worker)
        if ws is not None:
            self.workers[worker] = {"name": str(ws.name), "nthreads": ws.nthreads,
                                    "memory_limit": ws.memory_limit or None}

    def update_graph(self, scheduler: Any, **kwargs: Any) -> None:
        self.graphs += 1

    def transition(self, key: Any, start: str, finish: str, *args: Any, **kwargs: Any) -> None:
        self.seq += 1
        if start == "processing" and finish == "memory":
            self._finished(key, kwargs)
        elif start == "memory":
            workers = self.holders.pop(key, ())
            all_ws = self.scheduler.workers
            for w in workers:
                ws = all_ws.get(w)
                if ws is not None:
                    self.samples.append((self.seq, w, ws.nbytes))
                    self.groups[(self.seq, w)] = held_by_prefix(ws)

    def _finished(self, key: Any, kw: dict) -> None:
        sched = self.scheduler
        ts = sched.tasks.get(key)
        w = kw.get("worker")
        if ts is None or w is None:
            return
        ws = sched.workers.get(w)
        out = kw.get("nbytes", ts.nbytes)
        figures = (kw.get("metadata") or {}).get("faketensor")
        peak = figures.get("peak") if figures else None
        extra = figures.get("unaligned_extra", 0) if figures else 0
        inputs, in_bytes = [], 0
        holders, computed_on, moved = self.holders, self.computed_on, self.moved
        for d in ts.dependencies:
            k = d.key
            inputs.append(k)
            in_bytes += d.nbytes
            holders.setdefault(k, set()).add(w)
            src = computed_on.get(k)
            if src is not None and src != w and (k, w) not in moved:
                moved.add((k, w))
                row = self.transfers.setdefault((src, w), [0, 0])
                row[0] += d.nbytes
                row[1] += 1
        begin = end = None
        for s in kw.get("startstops") or ():
            if s.get("action") == "compute":
                begin, end = s["start"], s["stop"]
        managed = ws.nbytes if ws is not None else out
        self.tasks[key] = (w, out, peak, in_bytes, tuple(inputs), begin, end,
                           managed, self.seq, extra)
        if ws is not None:
            groups = self.groups[(self.seq, w)] = held_by_prefix(ws)
            spike = managed - out + (peak if peak is not None else out)
            if spike >= self.best.get(w, -1):
                self.best[w] = spike
                self.held_at[key] = groups
        computed_on[key] = w
        holders.setdefault(key, set()).add(w)
        if w not in self.workers and ws is not None:
            self.add_worker(sched, w)

    def summary(self, top: int = 10) -> dict:
        """The plan's "cluster" section (docs/guide/dask-distributed.md)."""
        return summarize(self, top)


__all__ = ["FakeMeter", "MeteredExecutor", "FakeTasks", "ClusterRecorder", "held_by_prefix",
           "MAX_GROUPED_KEYS"]
