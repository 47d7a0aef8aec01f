"""Planning a function, a script or a module: run it under ``FakeMode(record=True)`` and
report memory per device (peak, where, what holds it), FLOPs and where it stopped.

``plan(fn, *args, **kwargs)``, ``plan_script(path, argv)`` and ``plan_module(name,
argv)`` return a ``Plan``; ``faketensor run`` (meta_utils/planner/cli.py) prints its report. A
script runs as ``python SCRIPT ARGS`` would run it: ``sys.argv``, ``__name__ ==
"__main__"``, ``sys.path[0]`` (the script's folder; the current one for ``-m``), exit codes.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from typing import Any, Callable, Sequence, cast

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from ..._pytree import tree_map
from ..._sizes import BoundedSize, SizePolicy
from ...modes.fake_mode import FakeMode
from ...modes.imports import script_imports
from ...modes.threads import inherit_mode_in_threads
from ...modes.memory import RecordingStats, analyze
from .peakstacks import peak_stacks, site_timeline
from ..._paths import is_user_file
from ...modes.findings import KINDS as FINDING_KINDS, aggregate as _aggregate_findings
from .progress import Progress

JSON_VERSION = 1
STATUS_EXIT = {"completed": 0, "error": 1, "data_dependent": 2, "unsupported": 2}
EXIT_OVER_LIMIT = 3
EXIT_FINDINGS = 4  # faketensor run --fail-on KIND: a finding of that kind occurred


class Plan:
    """What planning a program found. ``to_json()`` is the stable machine form (docs/reference/json-report.md,
    schema in docs/schema/plan-report.schema.json); the attributes hold the same figures:

    - ``status``: "completed" | "error" | "data_dependent" | "unsupported";
      ``exit_code``: what ``faketensor run`` exits with (before memory limits);
      ``stopped_at``: ``{"file", "line", "function", "message"}`` or None.
    - ``peak`` / ``live_end`` / ``allocated``: bytes per device (CUDA devices as CuPy's
      pool counts them); ``peak_at``: per device ``{"file", "line", "function", "stack",
      "op", "op_index"}``, the stack outermost call first.
    - ``top_sites``: ``[{"device", "file", "line", "bytes", "count"}]``, the allocation
      sites holding the most at each device's peak; ``peak_stacks`` and ``site_timeline``
      per device (meta_utils/planner/peakstacks.py); ``timeline``: ``[[op_index, device,
      live_bytes], ...]``; ``flops`` and ``flops_by_line``; ``ops``; ``wall_time``.
    - ``io``: the files the program wrote or would have written (``mode.io``,
      modes/io.py): ``{"file", "line", "function", "op", "path", "bytes", "exact",
      "written", "arrays", "note"}`` each.
    - ``findings``: ``[{"kind", "file", "line", "function", "bytes", "count", "message"}]``,
      the upcasts and hidden copies (modes/findings.py), one row per (kind, file, line).
    - ``sinks``: ``[{"kind", "call", "file", "line", "function", "message", "count"}]``, the
      values sent to output and skipped (formatting, logging, plotting; faketensor/_sinks.py):
      a plan stops only where a value steers the program.
    """

    result: Any  # what the planned function returned (set by ft.plan only)

    def __init__(self, mode: FakeMode, *, status: str, exit_code: int,
                 stopped_at: dict | None, wall_time: float, log_end: int | None = None,
                 error: BaseException | None = None, top: int = 10, name: str = "",
                 clusters: list | None = None) -> None:
        self.mode = mode
        #: what the program's dask.distributed clusters did (meta_utils/planner/cluster.py); the
        #: one that ran the most tasks is ``cluster``, any others ``other_clusters``
        ranked = sorted(clusters or [], key=lambda c: -c["tasks"]["count"])
        self.cluster = ranked[0] if ranked else None
        self.other_clusters = ranked[1:]
        self.status = status
        self.exit_code = exit_code
        self.stopped_at = stopped_at
        self.wall_time = wall_time
        self.error = error
        self.name = name
        self.ops = len(mode.trace)
        self.flops = mode.flops
        self.flops_uncounted = dict(mode.flops_uncounted)
        #: calls whose bytes besides their outputs no rule models (the peak may be low)
        self.memory_unmodelled = [
            {"function": k, "reason": why, "calls": n}
            for k, (why, n) in sorted(getattr(mode, "memory_unmodelled", {}).items())]
        #: how many times the program entered a FakeMode of its own (not counted here)
        self.program_fake_modes = getattr(mode, "program_modes", 0)
        self.placeholders = list(getattr(mode, "placeholders", ()) or ())
        self.io = [dict(e) for e in getattr(mode, "io", ()) or ()]
        self.sinks = [dict(e) for e in getattr(mode, "sinks", ()) or ()]
        log = cast(RecordingStats, mode.memory).log
        log = log if log_end is None else log[:log_end]
        devices, self.timeline = analyze(log)
        for dev in ("cpu", mode.device or "cpu"):
            devices.setdefault(dev, None)
        trace, sites = mode.trace, mode.sites
        self.peak: dict[str, int] = {}
        self.live_end: dict[str, int] = {}
        self.allocated: dict[str, int] = {}
        self.peak_at: dict[str, dict] = {}
        self.top_sites: list[dict] = []
        #: per device: what is held at the peak by call stack, live memory by site over time
        self.peak_stacks: dict[str, list] = {}
        self.site_timeline: dict[str, dict] = {}
        for dev in sorted(devices, key=lambda d: (d != "cpu", d)):
            rep = devices[dev]
            if rep is None:
                self.peak[dev] = self.live_end[dev] = self.allocated[dev] = 0
                self.peak_at[dev] = _where(None, sites, -1)
                self.peak_stacks[dev] = []
                self.site_timeline[dev] = {"sites": [], "ops": [], "bytes": [], "other": []}
                continue
            self.peak[dev], self.live_end[dev] = rep.peak, rep.live_end
            self.allocated[dev] = rep.allocated
            op = rep.peak_op
            self.peak_at[dev] = _where(trace[op] if 0 <= op < len(trace) else None, sites, op)
            held: dict[tuple, list] = {}
            for op_i, nbytes in rep.held:
                site = trace[op_i].site if 0 <= op_i < len(trace) else 0
                key = sites.line(site)[:2]
                row = held.setdefault(key, [0, 0])
                row[0] += nbytes
                row[1] += 1
            rows = sorted(held.items(), key=lambda kv: -kv[1][0])[:top]
            dev_sites = [{"device": dev, "file": f, "line": ln, "bytes": b, "count": c}
                         for (f, ln), (b, c) in rows]
            self.top_sites += dev_sites
            self.peak_stacks[dev] = peak_stacks(rep.held, trace, sites)
            self.site_timeline[dev] = site_timeline(log, trace, sites, dev, dev_sites,
                                                    self.peak_stacks[dev])
        by_line: dict[tuple, int] = {}
        for e in trace:
            if e.flops:
                key = sites.line(e.site)[:2]
                by_line[key] = by_line.get(key, 0) + e.flops
        self.flops_by_line = [{"file": f, "line": ln, "flops": n}
                              for (f, ln), n in sorted(by_line.items(), key=lambda kv: -kv[1])]
        self.findings = _aggregate_findings(getattr(mode, "findings", []), sites)
        self.findings_failed = dict(getattr(mode, "findings_failed", {}))
        #: the data-dependent lengths the program made (faketensor/_sizes.py) and the range
        #: of the figures they make (``bounded_sizes``); None when it made none
        self.bounded_sizes: dict | None = None
        made = getattr(getattr(mode, "sizes", None), "made", None)
        self._size_bytes = {dev: _bytes_by_size(devices[dev], trace) for dev in devices
                            if devices[dev] is not None} if made else {}

    def _bound(self, upper: SizePolicy, lower: "Plan | None", lower_policy: SizePolicy | None,
               fixed: dict) -> None:
        """Figures as ranges: this plan ran with every bounded size at its upper bound,
        ``lower`` (when run) at its lower bound; each bound exact for its assumption."""
        lows = {k.name: int(k) for k in lower_policy.made} if lower_policy is not None else {}
        rows = []
        for k in upper.made:
            f = upper.fraction(k.file, k.line)
            rows.append({"name": k.name, "file": k.file, "line": k.line, "op": k.op,
                         "lo": k.lo, "hi": k.hi, "upper": int(k), "lower": lows.get(k.name),
                         "fixed": f,
                         "bytes_at_peak": {d: b.get(k.name, 0)
                                           for d, b in self._size_bytes.items()}})
        lower_ok = lower is not None and (lower.status == self.status or
                                          lower.status == "completed")
        ranges: dict = {}
        for key, figs in (("peak", self.peak), ("live_end", self.live_end)):
            # every size fixed (no lower run): the one assumption is both ends
            low = (getattr(lower, key) if lower_ok and lower is not None
                   else figs if lower_policy is None else None)
            ranges[key] = {d: {"lower": (low.get(d, 0) if low is not None else None),
                               "upper": v} for d, v in figs.items()}
        dominant = {}
        for d, b in self._size_bytes.items():
            if b:
                name = max(b, key=lambda n: b[n])
                dominant[d] = {"name": name, "bytes": b[name]}
        self.bounded_sizes = {
            "sizes": rows,
            "peak": ranges["peak"],
            "live_end": ranges["live_end"],
            "dominant": dominant,
            "lower_run": None if lower is None else {
                "status": lower.status, "stopped_at": lower.stopped_at, "ops": lower.ops,
                "exact": lower_ok},
            "fixed": [{"spec": k, "fraction": v, "used": k in upper.used}
                      for k, v in fixed.items()],
        }

    def failing(self, kinds: Sequence[str]) -> list[dict]:
        """The findings of these kinds (``faketensor run --fail-on``)."""
        return [f for f in self.findings if f["kind"] in kinds]

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data (version 1; docs/reference/json-report.md)."""
        return {
            "version": JSON_VERSION,
            "status": self.status,
            "exit_code": self.exit_code,
            "stopped_at": self.stopped_at,
            "devices": {dev: {"peak_bytes": self.peak[dev], "peak_at": self.peak_at[dev],
                              "live_end_bytes": self.live_end[dev],
                              "allocated_bytes": self.allocated[dev],
                              "peak_stacks": self.peak_stacks[dev],
                              "site_timeline": self.site_timeline[dev]} for dev in self.peak},
            "top_sites": self.top_sites,
            "flops": self.flops,
            "flops_by_line": self.flops_by_line,
            "flops_uncounted": sorted(self.flops_uncounted),
            "memory_unmodelled": self.memory_unmodelled,
            "program_fake_modes": self.program_fake_modes,
            "ops": self.ops,
            "timeline": self.timeline,
            "wall_seconds": round(self.wall_time, 6),
            "placeholders": self.placeholders,
            "io": self.io,
            "sinks": self.sinks,
            "findings": self.findings,
            "cluster": self.cluster,
            **({"other_clusters": self.other_clusters} if self.other_clusters else {}),
            "bounded_sizes": self.bounded_sizes,
        }

    def save_json(self, path: str) -> None:
        import json  # here: import faketensor stays light
        with open(path, "w") as f:
            json.dump(self.to_json(), f, indent=1)
            f.write("\n")

    def save_html(self, path: str) -> None:
        """One self-contained HTML page: live memory over the program, the peak, top sites
        and FLOPs per line (meta_utils/planner/html.py)."""
        from .html import render_html
        with open(path, "w", encoding="utf-8") as f:
            f.write(render_html(self.to_json()))

    def report(self, top: int = 10, limits: dict | None = None) -> str:
        """The text report ``faketensor run`` prints (meta_utils/planner/report.py)."""
        from .report import format_report
        return format_report(self.to_json(), top=top, limits=limits, name=self.name)

    def over_limit(self, limits: dict) -> list[str]:
        """The devices whose peak exceeds their limit in ``limits`` (device -> bytes), and
        the cluster's workers whose predicted peak exceeds theirs (``limits["worker"]``, else
        the worker's own memory limit)."""
        from .cluster import workers_over
        over = [d for d, lim in limits.items() if d != "worker" and self.peak.get(d, 0) > lim]
        return over + [w for c in [self.cluster, *self.other_clusters] if c
                       for w in workers_over(c, limits.get("worker"))]

    def __repr__(self) -> str:
        peaks = ", ".join(f"{d}={b}" for d, b in self.peak.items())
        return f"Plan(status={self.status!r}, ops={self.ops}, peak={{{peaks}}}, flops={self.flops})"


def _where(entry: Any, sites: Any, op: int) -> dict:
    if entry is None:
        return {"file": None, "line": None, "function": None, "stack": [], "op": None,
                "op_index": op if op >= 0 else None}
    frames = sites.frames(entry.site)
    f, ln, fn = sites.line(entry.site)
    return {"file": f, "line": ln, "function": fn, "stack": frames[::-1], "op": entry.op,
            "op_index": op}


def _stopped_at(exc: BaseException) -> dict:
    """The innermost user frame of the exception's traceback, and its message."""
    where: dict[str, Any] = {"file": None, "line": None, "function": None}
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if is_user_file(code.co_filename):
            where = {"file": os.path.abspath(code.co_filename), "line": tb.tb_lineno,
                     "function": code.co_name}
        tb = tb.tb_next
    where["message"] = f"{type(exc).__name__}: {exc}"
    return where


def _bytes_by_size(rep: Any, trace: Any) -> dict:
    """Bytes held at a device's peak by buffers whose shape carries each bounded size."""
    out: dict = {}
    for op_i, nbytes in rep.held:
        if not 0 <= op_i < len(trace):
            continue
        meta = trace[op_i].meta
        names: set = set()
        for m in (meta if meta and type(meta[0]) is tuple else (meta,)):
            if m and type(m[0]) is tuple:
                names.update(n.name for n in m[0] if type(n) is BoundedSize)
        for n in names:
            out[n] = out.get(n, 0) + nbytes
    return out


def _bounded(run_once: Callable[[SizePolicy], tuple[Plan, Any]],
             assume_sizes: dict | None) -> tuple[Plan, Any]:
    """Run at the upper assumption; when the program made a bounded size that is not fixed,
    again at the lower one: the plan's figures become ranges (``Plan.bounded_sizes``)."""
    fixed = {str(k): float(v) for k, v in (assume_sizes or {}).items()}
    upper = SizePolicy("upper", fixed)
    p, result = run_once(upper)
    if not upper.made:
        return p, result
    lower_policy: SizePolicy | None = None
    lower = None
    if any(upper.fraction(k.file, k.line) is None for k in upper.made):
        lower_policy = SizePolicy("lower", fixed)
        with contextlib.redirect_stdout(io.StringIO()):  # the program printed once already
            lower, _ = run_once(lower_policy)
    p._bound(upper, lower, lower_policy, fixed)
    return p, result


def _run(body: Callable[[FakeMode], Any], *, device: Any, data_dependent: str, top: int,
         name: str, script_dir: str | None = None, clients: tuple = (),
         sizes: SizePolicy | None = None) -> tuple[Plan, Any]:
    """Run ``body(mode)`` under a recording FakeMode; (the Plan, what body returned).

    Threads the program starts run under the same mode; with ``script_dir``, only modules
    under that folder run their module code under the mode (libraries import paused).
    dask.distributed clusters and clients the program starts, and ``clients`` given, run
    their tasks on fakes and are recorded (meta_utils/planner/cluster.py ``planning``)."""
    if data_dependent not in ("stop", "placeholder"):
        raise ValueError(f"data_dependent must be 'stop' or 'placeholder', not {data_dependent!r}")
    kw: dict = {"data_dependent": data_dependent} if data_dependent != "stop" else {}
    mode = FakeMode(device=device, record=True, skip_sinks=True, sizes=sizes, **kw)
    mode.planning = True
    mode.sites.stop = body.__code__  # the frames above are the planner's and its caller's
    status, code, stopped, result = "completed", 0, None, None
    error: BaseException | None = None
    t0 = time.perf_counter()
    imports = script_imports(script_dir) if script_dir is not None else contextlib.nullcontext()
    from .cluster import planning
    with Progress(mode), mode, inherit_mode_in_threads(), imports, planning(clients) as session:
        try:
            result = body(mode)
        except SystemExit as e:
            code = _exit_code(e.code)
        except DataDependentError as e:
            status, stopped, error = "data_dependent", _stopped_at(e), e
        except UnsupportedOperationError as e:
            status, stopped, error = "unsupported", _stopped_at(e), e
        except Exception as e:  # the script's own failure: reported, never raised here
            status, stopped, error = "error", _stopped_at(e), e
        log_end = len(cast(RecordingStats, mode.memory).log)  # live at the end: before the program's objects go
    clusters = session.summaries(top)
    wall = time.perf_counter() - t0
    if status != "completed":
        code = STATUS_EXIT[status]
    return Plan(mode, status=status, exit_code=code, stopped_at=stopped, wall_time=wall,
                log_end=log_end, error=error, top=top, name=name, clusters=clusters), result


def _exit_code(code: Any) -> int:
    """What ``python`` exits with for ``sys.exit(code)`` (a message is printed, then 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def plan(fn: Callable, *args: Any, assume_sizes: dict | None = None, **kwargs: Any) -> Plan:
    """Plan ``fn(*args, **kwargs)`` on fakes: real arrays among the arguments are
    converted (their bytes are pre-existing, not the plan's). ``plan.result`` is what fn
    returned (fakes). A dask.distributed ``Client`` among the arguments gets the planner's
    plugins for the call: its cluster's tasks run on fakes and ``plan.cluster`` reports them.

    When fn makes a data-dependent length (a boolean mask's count, np.unique's: see
    docs/guide/bounded-sizes.md), fn runs twice, every such size at its upper and then at
    its lower bound, and ``plan.bounded_sizes`` holds the ranges; ``assume_sizes`` (``{LINE
    or "FILE:LINE": FRACTION}``) fixes the sizes made at those lines."""
    name = getattr(fn, "__qualname__", None) or repr(fn)

    def call(mode: FakeMode) -> Any:
        a, k = tree_map(lambda x: mode._convert(x) if _is_real_array(x) else x, (args, kwargs))
        return fn(*a, **k)

    clients = tuple(x for x in (*args, *kwargs.values()) if _is_client(x))
    p, result = _bounded(lambda sizes: _run(call, device=None, data_dependent="stop", top=10,
                                            name=name, clients=clients, sizes=sizes),
                         assume_sizes)
    p.result = result
    return p


def _is_client(x: Any) -> bool:
    """A dask.distributed Client (without importing distributed)."""
    return type(x).__name__ == "Client" and type(x).__module__.startswith("distributed")


def _is_real_array(x: Any) -> bool:
    return isinstance(x, np.ndarray) or (hasattr(x, "__cuda_array_interface__")
                                         and type(x).__module__.startswith("cupy"))


class _ScriptState:
    """sys.argv, sys.path[0] and ``__main__`` as ``python`` sets them for a program, put
    back afterwards (plan_script from a notebook leaves the interpreter as it was)."""

    def __init__(self, argv0: str, argv: Sequence[str], path0: str) -> None:
        self.argv = [argv0, *argv]
        self.path0 = path0

    def __enter__(self) -> None:
        self.saved = (sys.argv, list(sys.path), sys.modules.get("__main__"))
        sys.argv = list(self.argv)
        if sys.path:
            sys.path[0] = self.path0
        else:
            sys.path.insert(0, self.path0)

    def __exit__(self, *exc: Any) -> None:
        sys.argv, sys.path[:], main = self.saved
        if main is not None:
            sys.modules["__main__"] = main


def plan_script(path: str, argv: Sequence[str] = (), *, device: Any = None,
                data_dependent: str = "stop", top: int = 10,
                assume_sizes: dict | None = None) -> Plan:
    """Plan the script at ``path`` run as ``python path *argv`` would run it (twice when it
    makes data-dependent lengths: see ``plan``)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"can't open file {path!r}: no such file")
    import runpy
    folder = os.path.dirname(os.path.realpath(path))

    def once(sizes: SizePolicy) -> tuple[Plan, Any]:
        with _ScriptState(path, argv, folder):
            return _run(lambda mode: _exec(runpy.run_path, path, run_name="__main__"),
                        device=device, data_dependent=data_dependent, top=top, name=path,
                        script_dir=folder, sizes=sizes)
    return _bounded(once, assume_sizes)[0]


def plan_module(name: str, argv: Sequence[str] = (), *, device: Any = None,
                data_dependent: str = "stop", top: int = 10,
                assume_sizes: dict | None = None) -> Plan:
    """Plan ``python -m name *argv`` (sys.path[0] is the current folder)."""
    import runpy

    def once(sizes: SizePolicy) -> tuple[Plan, Any]:
        with _ScriptState(name, argv, os.getcwd()):
            return _run(lambda mode: _exec(runpy.run_module, name, run_name="__main__",
                                           alter_sys=True),
                        device=device, data_dependent=data_dependent, top=top,
                        name=f"-m {name}", script_dir=os.getcwd(), sizes=sizes)
    return _bounded(once, assume_sizes)[0]


def _exec(run: Callable, target: str, **kw: Any) -> dict:
    """Run the program; the globals it leaves are held until planning has read the memory
    at its end (as python holds them until exit)."""
    return run(target, **kw)


def print_error(p: Plan, stream: Any = None) -> None:
    """Print the traceback of a program's own exception as python would: from the
    program's first frame (the planner's own frames left out)."""
    import traceback
    stream = stream if stream is not None else sys.stderr
    if p.error is None:
        return
    tb = p.error.__traceback__
    while tb is not None and not is_user_file(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    traceback.print_exception(type(p.error), p.error, tb or p.error.__traceback__, file=stream)


__all__ = ["Plan", "plan", "plan_script", "plan_module", "JSON_VERSION", "EXIT_OVER_LIMIT",
           "EXIT_FINDINGS", "FINDING_KINDS"]
