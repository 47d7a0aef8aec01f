"""The HTML form of a plan report: one self-contained page that opens offline.

``render_html(report)`` takes the JSON form of a plan (``faketensor run --json``, ``Plan.to_json()``;
schema in docs/reference/json-report.md) and returns a page with the status, live memory per device over the program
(peak marked and named with its source line), a flame graph per device of what is held at the
peak by call stack, live memory stacked by allocation site, the sites holding the most at the
peak with their source lines, the FLOPs per source line and the findings (upcasts, hidden
copies), each linked to its frames in the flame graphs; for a dask.distributed program, per
worker, a flame graph of what it holds at its peak and its memory stacked by task name; tables
sort on a click. Plots are matplotlib's inline SVG (the ``report`` extra), the flame graph positioned
boxes; the one inline script (``_JS``) only sorts and zooms. No fetched resource, text kept as
text; every string taken from the report is escaped, and none becomes script
(docs/guide/html-report.md).
"""
from __future__ import annotations

import html
import io
import linecache
import os
import re
import zlib
from typing import Any, Iterable, NamedTuple, Sequence

from ..._stack import paused
from .report import human

#: points per device drawn at most; longer timelines keep each bucket's min and max
MAX_POINTS = 4000

_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .4em 0; }
th, td { border: 1px solid #ccc; padding: .2em .6em; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.status { padding: .4em .8em; border-radius: 4px; display: inline-block; }
.completed { background: #e3f4e3; } .stopped { background: #fbe3e3; }
code { font-size: 95%; } svg { max-width: 100%; height: auto; }
th { cursor: pointer; user-select: none; background: #f4f4f4; }
th[aria-sort=ascending]::after { content: " \\25B2"; }
th[aria-sort=descending]::after { content: " \\25BC"; }
.flame { position: relative; border: 1px solid #ddd; margin: .4em 0 1em; overflow: hidden; }
.fr { position: absolute; height: 20px; box-sizing: border-box; border: 1px solid #fff;
      font: 12px/18px system-ui, sans-serif; padding: 0 4px; overflow: hidden;
      white-space: nowrap; text-overflow: ellipsis; cursor: pointer; color: #222; }
.fr.partial { background-image: repeating-linear-gradient(45deg, transparent 0 6px,
      rgba(255,255,255,.5) 6px 9px); }
.hint { color: #666; font-size: 90%; }
pre.src { margin: 0; white-space: pre-wrap; }
.fr.finding { outline: 2px solid #b2182b; outline-offset: -2px; font-weight: 600; }
.fr.hl { box-shadow: inset 0 0 0 3px #2b3a9b; }
pre.flame-detail { margin: -.6em 0 1em; padding: .3em .6em; background: #f7f7f7;
      white-space: pre-wrap; font-size: 90%; min-height: 1.4em; }
.pick { margin: .4em 0; } .pick label { margin-right: 1em; }
"""

#: the page's one script: sortable tables, click-to-zoom flame graphs, findings followed to
#: their frames (no resource fetched)
_JS = r"""
document.querySelectorAll("table").forEach(function (t) {
  t.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var desc = th.getAttribute("aria-sort") !== "descending";
      t.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", desc ? "descending" : "ascending");
      function key(r) {
        var c = r.cells[col], s = c ? c.textContent : "";
        if (c && c.classList.contains("n")) {
          var m = s.match(/\(([\d,]+) B\)/);
          var v = parseFloat((m ? m[1] : s).replace(/[,%\s]/g, ""));
          return isNaN(v) ? -Infinity : v;
        }
        return s;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b), o = x < y ? -1 : x > y ? 1 : 0;
        return desc ? -o : o;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
document.querySelectorAll(".flame").forEach(function (f) {
  var nodes = f.querySelectorAll(".fr");
  var detail = document.getElementById(f.id + "-detail");
  function zoom(lo, hi, depth) {
    nodes.forEach(function (n) {
      var a = +n.dataset.lo, b = +n.dataset.hi, d = +n.dataset.d;
      var vis = b > lo && a < hi && (d >= depth || (a <= lo && b >= hi));
      n.style.display = vis ? "" : "none";
      if (!vis) return;
      var l = Math.max(a, lo), r = Math.min(b, hi);
      n.style.left = (100 * (l - lo) / (hi - lo)) + "%";
      n.style.width = (100 * (r - l) / (hi - lo)) + "%";
    });
  }
  nodes.forEach(function (n) {
    n.addEventListener("click", function () {
      zoom(+n.dataset.lo, +n.dataset.hi, +n.dataset.d);
      if (detail) detail.textContent = n.title;
    });
  });
});
document.querySelectorAll("a.goto").forEach(function (a) {
  a.addEventListener("click", function (ev) {
    var n = document.getElementById(a.dataset.frame);
    if (!n) return;
    ev.preventDefault();
    document.querySelectorAll(".fr.hl").forEach(function (h) { h.classList.remove("hl"); });
    n.click();
    n.classList.add("hl");
    n.scrollIntoView({block: "center"});
  });
});
"""


def render_html(report: dict) -> str:
    """The page for ``report`` (the JSON form of a plan) as one HTML string.

    Raises ImportError naming the ``report`` extra when matplotlib is not installed. Works
    inside a mode too: nothing in it is intercepted (the page is drawn with real NumPy)."""
    with paused():
        _matplotlib()
        return _render(report)


def _render(report: dict) -> str:
    title = "faketensor plan"
    findings = report.get("findings") or []
    links = FlameLinks(findings)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}</title><style>{_CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        _status_section(report),
        '<h2 id="memory">Live memory per device</h2>',
        _timeline_svg(report),
        _devices_table(report.get("devices") or {}),
        '<h2 id="flame">Memory held at the peak, by call stack</h2>',
        _flame_section(report.get("devices") or {}, findings, links),
        '<h2 id="by-site">Live memory by allocation site</h2>',
        _site_timeline_svg(report.get("devices") or {}, findings),
        '<h2 id="top-sites">Allocation sites holding the most memory at the peak</h2>',
        _table(["device", "file", "line", "bytes", "allocations", "source", "findings"],
               [(_text(s.get("device", "")), _loc_file(s), _int(s.get("line")),
                 _bytes(s.get("bytes")), _int(s.get("count")), _source(s),
                 " ".join(f'<a href="#finding-{k}">{_text(findings[k].get("kind"))}</a>'
                          for k in links.of(s)))
                for s in report.get("top_sites") or []], numeric=(2, 3, 4)),
        '<h2 id="flops">FLOPs per source line</h2>',
        _flops_table(report),
    ]
    if report.get("cluster"):
        parts += _cluster_section(report["cluster"])
    parts += ['<h2 id="findings">Findings: upcasts and hidden copies</h2>',
              _table(["kind", "file", "line", "function", "bytes", "count", "message", "source",
                      "in the flame graph"],
                     [(_text(f.get("kind")), _loc_file(f), _int(f.get("line")),
                       _text(f.get("function")), _bytes(f.get("bytes")), _int(f.get("count")),
                       _text(f.get("message")), _source(f), _frame_links(links.frames.get(k)))
                      for k, f in enumerate(findings)],
                     numeric=(2, 4, 5), row_ids=[f"finding-{k}" for k in range(len(findings))])
              if findings else '<p id="no-findings">None.</p>']
    if report.get("memory_unmodelled"):
        parts += ['<h2 id="memory-unmodelled">Calls whose memory is not modelled (the peak '
                  'may be too low)</h2>',
                  _table(["function", "calls", "reason"],
                         [(_text(u.get("function")), _int(u.get("calls")), _text(u.get("reason")))
                          for u in report["memory_unmodelled"]], numeric=(1,))]
    bounded = report.get("bounded_sizes")
    if bounded:
        parts += _bounded_section(bounded)
    if report.get("placeholders"):
        parts += ['<h2 id="placeholders">Placeholder values used</h2>',
                  _table(["file", "line", "function", "message"],
                         [(_loc_file(p), _int(p.get("line")), _text(p.get("function")),
                           _text(p.get("message"))) for p in report["placeholders"]],
                         numeric=(1,))]
    if report.get("sinks"):
        parts += ['<h2 id="sinks">Sinks: output skipped (formatting, logging, plotting)</h2>',
                  _table(["file", "line", "function", "kind", "call", "count", "message"],
                         [(_loc_file(s), _int(s.get("line")), _text(s.get("function")),
                           _text(s.get("kind")), _text(s.get("call")), _int(s.get("count")),
                           _text(s.get("message"))) for s in report["sinks"]],
                         numeric=(1, 5))]
    if report.get("io"):
        parts += ['<h2 id="io">Files written</h2>',
                  _table(["file", "line", "call", "path", "bytes", "exact", "note"],
                         [(_loc_file(e), _int(e.get("line")), _text(e.get("op")),
                           _text(e.get("path")),
                           _bytes(e["bytes"]) if e.get("bytes") is not None else "depends on values",
                           "yes" if e.get("exact") else "no", _text(e.get("note") or ""))
                          for e in report["io"]], numeric=(1, 4))]
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts)


def save_html(report: dict, path: str | os.PathLike) -> None:
    """Write ``render_html(report)`` to ``path`` (UTF-8)."""
    page = render_html(report)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)


def downsample(x: Sequence[float], y: Sequence[float], max_points: int = MAX_POINTS
               ) -> tuple[list, list]:
    """At most about ``max_points`` of the points (x, y), in order: the first, the last and the
    smallest and largest y of each bucket of consecutive points, so the maximum (the peak) and the
    minimum are kept exactly and the drawn envelope is the real one."""
    import numpy as np
    xa, ya = np.asarray(x), np.asarray(y)
    n = len(ya)
    if n <= max_points:
        return xa.tolist(), ya.tolist()
    k = -(-n // (max_points // 2))  # points per bucket
    m = -(-n // k)
    padded = np.concatenate([ya, np.full(m * k - n, ya[-1], ya.dtype)]).reshape(m, k)
    base = np.arange(m) * k
    keep = np.concatenate([[0, n - 1], base + padded.argmax(1), base + padded.argmin(1)])
    keep = np.unique(np.minimum(keep, n - 1))
    return xa[keep].tolist(), ya[keep].tolist()


def _series(timeline: Sequence[Sequence]) -> dict[str, tuple[Any, Any]]:
    """{device: (op indices, live bytes)} from the report's ``[op, device, live]`` rows, as
    arrays (timelines can have millions of rows), devices in order of first appearance."""
    import numpy as np
    if not timeline:
        return {}
    devs = [row[1] for row in timeline]
    ops, lives = np.asarray([row[0] for row in timeline]), np.asarray([row[2] for row in timeline])
    names = np.asarray(devs, dtype=str)
    out = {}
    for dev in dict.fromkeys(devs):
        mask = names == str(dev)
        out[str(dev)] = ops[mask], lives[mask]
    return out


def _matplotlib():
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError("the HTML report draws with matplotlib: "
                          "pip install 'faketensor[report]'") from e
    return matplotlib


# --- pieces of the page ---------------------------------------------------------------------

def _printable(value: Any) -> str:
    """``str(value)`` with characters that are not printable (control, format, lone surrogates)
    written as Python escapes: nothing invisible or unencodable reaches the page."""
    text = "" if value is None else str(value)
    return text if text.isprintable() else "".join(
        c if c.isprintable() else ascii(c)[1:-1] for c in text)


def _text(value: Any) -> str:
    """A string from the report, safe in HTML text and attributes."""
    return html.escape(_printable(value), quote=True)


def _lines(value: str) -> str:
    """Text of several lines (a tooltip) made safe as ``_text`` makes each line: the line
    breaks kept, as a browser shows them in a title."""
    return "\n".join(_text(line) for line in value.split("\n"))


def _int(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else _text(value)


def _bytes(value: Any) -> str:
    if not isinstance(value, int):
        return _text(value)
    return f"{human(value)} ({value:,} B)" if value >= 1024 else f"{value} B"


def _loc_file(rec: dict) -> str:
    return f"<code>{_text(rec.get('file'))}</code>"


def _where(rec: dict | None) -> str:
    """``file:line (function)`` of a location record, as plain text (unescaped)."""
    if not rec:
        return "unknown"
    out = f"{rec.get('file', '?')}:{rec.get('line', '?')}"
    return f"{out} ({rec['function']})" if rec.get("function") else out


def _where_short(rec: dict | None) -> str:
    """``_where`` with the file's base name (a peak's label in a panel's title)."""
    if not rec:
        return "unknown"
    f = rec.get("file")
    return _where({**rec, "file": os.path.basename(f) if isinstance(f, str) else f})


def _bounded_section(b: dict) -> list[str]:
    """The range the data-dependent lengths make: each device's peak at the lower and the
    upper assumption, and the sizes (docs/guide/bounded-sizes.md)."""
    def low(v: Any) -> str:
        return _bytes(v) if v is not None else _text("not known")
    out = ['<h2 id="bounded-sizes">Data-dependent sizes: the peak as a range</h2>',
           _table(["device", "peak, lower bounds", "peak, upper bounds", "dominated by"],
                  [(_text(dev), low(r.get("lower")), _bytes(r.get("upper")),
                    _text((b.get("dominant") or {}).get(dev, {}).get("name", "")))
                   for dev, r in (b.get("peak") or {}).items()], numeric=(1, 2))]
    run = b.get("lower_run")
    if run is not None and not run.get("exact"):
        stop = run.get("stopped_at") or {}
        out.append(f'<p id="lower-run">The run at the lower bounds ended {_text(run.get("status"))}'
                   f': {_text(stop.get("message", ""))}</p>')
    out.append(_table(["size", "file", "line", "op", "lo", "hi", "upper run", "lower run",
                       "fixed"],
                      [(_text(k.get("name")), _loc_file(k), _int(k.get("line")),
                        _text(k.get("op")), _int(k.get("lo")), _int(k.get("hi")),
                        _int(k.get("upper")), _int(k.get("lower")),
                        _text("" if k.get("fixed") is None else k.get("fixed")))
                       for k in b.get("sizes") or []], numeric=(2, 4, 5, 6, 7)))
    return out


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[int] = (),
           row_ids: Sequence[str] = ()) -> str:
    """A table of already escaped cells; ``numeric`` columns are right-aligned; ``row_ids``
    the rows' element ids (plain ASCII names made here)."""
    rows = list(rows)
    if not rows:
        return "<p>None.</p>"
    out = ["<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"]
    for r, row in enumerate(rows):
        rid = f' id="{row_ids[r]}"' if r < len(row_ids) else ""
        out.append(f"<tr{rid}>" + "".join(
            f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>"
            for i, c in enumerate(row)) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _status_section(report: dict) -> str:
    status = report.get("status", "unknown")
    cls = "completed" if status == "completed" else "stopped"
    lines = [f'<p id="status" class="status {cls}">status: <b>{_text(status)}</b>, '
             f"exit code {_int(report.get('exit_code'))}</p>"]
    stop = report.get("stopped_at")
    if stop:
        lines.append(f'<p id="stopped-at">stopped at <code>{_text(_where(stop))}</code>: '
                     f"{_text(stop.get('message'))}</p>")
    wall = report.get("wall_seconds", report.get("wall_s"))
    wall_s = f"{wall:.3f} s" if isinstance(wall, (int, float)) else "unknown"
    lines.append(f"<p>{_int(report.get('ops'))} ops, {_int(report.get('flops'))} FLOPs, "
                 f"planned in {_text(wall_s)}</p>")
    return "\n".join(lines)


def _devices_table(devices: dict) -> str:
    rows = []
    for dev, d in devices.items():
        at = d.get("peak_at") or {}
        stack = at.get("stack") or []
        where = f"<code>{_text(_where(at))}</code>"
        if stack:
            frames = "<br>".join(
                f"<code>{_text(_where(f) if isinstance(f, dict) else f)}</code>" for f in stack)
            where += f"<details><summary>call stack</summary>{frames}</details>"
        rows.append((_text(dev), _bytes(d.get("peak_bytes")), where,
                     _bytes(d.get("live_end_bytes")), _bytes(d.get("allocated_bytes"))))
    return _table(["device", "peak", "peak reached at", "live at the end", "allocated in all"],
                  rows, numeric=(1, 3, 4))


def _flops_table(report: dict) -> str:
    by_line = sorted(report.get("flops_by_line") or [], key=lambda r: -(r.get("flops") or 0))
    total = report.get("flops") or sum(r.get("flops") or 0 for r in by_line)
    rows = [(_loc_file(r), _int(r.get("line")), _int(r.get("flops")),
             f"{100 * r['flops'] / total:.1f}%" if total and isinstance(r.get("flops"), int)
             else "") for r in by_line]
    return _table(["file", "line", "FLOPs", "share"], rows, numeric=(1, 2, 3))


def _timeline_svg(report: dict, xlabel: str = "op", element: str = "timeline") -> str:
    """Live bytes against op index, one panel per device, peak marked and labelled; inline SVG.
    A device record's ``peak_label`` (optional) replaces the peak's source line."""
    series = _series(report.get("timeline") or [])
    if not series:
        return '<p id="no-timeline">No timeline in this report.</p>'
    matplotlib = _matplotlib()
    from matplotlib.figure import Figure

    devices = report.get("devices") or {}
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "faketensor",
                                "font.size": 10}):
        fig = Figure(figsize=(10, 2.6 * len(series) + 0.4), layout="constrained")
        axes = fig.subplots(len(series), 1, squeeze=False, sharex=True)[:, 0]
        for ax, (dev, (xs, ys)) in zip(axes, series.items()):
            name = _printable(dev)
            i = int(ys.argmax())
            top = int(ys[i])
            info = devices.get(dev) or {}
            peak = info.get("peak_bytes")
            peak = peak if isinstance(peak, int) else top
            x_peak = info.get("peak_op")
            x_peak = x_peak if isinstance(x_peak, int) else int(xs[i])
            unit, scale = _unit(max(peak, top))
            px, py = downsample(xs, ys)
            ax.plot(px, [v / scale for v in py], drawstyle="steps-post", color="#1f77b4",
                    linewidth=1.2, gid=f"timeline-{name}")
            ax.plot([x_peak], [peak / scale], "v", color="#d62728", markersize=8,
                    gid=f"peak-{name}")
            where = info.get("peak_label") or _where_short(info.get("peak_at"))
            # in the panel's title, right: never over the line, the marker or the axis, and
            # both titles shortened so that they never meet (the full path is in the tables)
            ax.set_title(f"peak {human(peak)} at {_short(_printable(where), MAX_PEAK_LABEL)}",
                         loc="right",
                         color="#d62728", parse_math=False, fontsize=9).set_gid(
                             f"peak-label-{name}")
            ax.set_ylim(0, max(peak, top) / scale * 1.08 or 1)
            ax.set_title(_short(name), loc="left", parse_math=False).set_gid(f"name-{name}")
            ax.set_ylabel(f"live memory ({unit})")
            ax.grid(alpha=0.3)
        axes[-1].set_xlabel(xlabel)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    return f'<div id="{element}">{svg[svg.index("<svg"):]}</div>'


#: workers drawn at most (those with the highest peaks); the table lists them all
MAX_WORKERS = 8


def _cluster_section(cluster: dict) -> list[str]:
    """Per-worker managed memory over the scheduler's transitions (with running tasks'
    peaks), the table of workers and the tasks with the largest peaks (meta_utils/planner/cluster.py)."""
    workers = cluster.get("workers") or {}
    ranked = sorted(workers.items(), key=lambda kv: -(kv[1].get("peak_bytes") or 0))
    rows, devices = [], {}
    for w, d in ranked[:MAX_WORKERS]:
        name = f"worker {d.get('name')} ({w})"
        rows += [[t[0], name, t[1]] for t in d.get("timeline") or []]
        devices[name] = {"peak_bytes": d.get("peak_bytes"),
                         "peak_label": f"task {d.get('peak_task')}"}
    rows.sort(key=lambda r: r[0])
    tasks = (cluster.get("tasks") or {}).get("top") or []
    return [
        '<h2 id="cluster">Cluster: memory per worker</h2>',
        _timeline_svg({"timeline": rows, "devices": devices}, xlabel="scheduler transition",
                      element="cluster-timeline"),
        _table(["worker", "peak", "peak if received arrays arrive unaligned",
                "task at the peak", "memory limit", "tasks", "outputs"],
               [(_text(f"{d.get('name')} ({w})"), _bytes(d.get("peak_bytes")),
                 _bytes(d.get("peak_upper_bytes", d.get("peak_bytes"))),
                 f"<code>{_text(d.get('peak_task'))}</code>", _bytes(d.get("memory_limit")),
                 _int(d.get("tasks")), _bytes(d.get("output_bytes"))) for w, d in ranked],
               numeric=(1, 2, 4, 5, 6)),
        '<h2 id="cluster-tasks">Tasks with the largest peaks</h2>',
        _table(["task", "worker", "peak", "unaligned: up to +", "output", "inputs"],
               [(f"<code>{_text(t.get('key'))}</code>", _text(t.get("worker")),
                 _bytes(t.get("peak_bytes")), _bytes(t.get("unaligned_extra_bytes", 0)),
                 _bytes(t.get("output_bytes")),
                 _bytes(t.get("input_bytes"))) for t in tasks], numeric=(2, 3, 4, 5)),
        f"<p>Transferred between workers: {_bytes((cluster.get('transfers') or {}).get('bytes'))}"
        "</p>",
        '<h2 id="cluster-flame">Held at each worker\'s peak</h2>',
        _worker_flames(ranked[:MAX_WORKERS]),
        '<h2 id="cluster-by-prefix">Each worker\'s memory by task name</h2>',
        _stacked_svg(panels, "cluster-by-prefix-timeline", "wsite", "transition")
        if (panels := _worker_panels(ranked[:MAX_WORKERS]))
        else '<p id="no-cluster-by-prefix">No timeline by task name in this report.</p>',
    ]


def _keys(n: Any) -> str:
    return "1 key" if n == 1 else f"{n} keys"


def _worker_flames(ranked: Sequence[tuple[str, dict]]) -> str:
    """A flame graph per worker of what it holds at its peak: the task running then (its
    peak: output and transients) and the tasks running beside it, and the results held in
    its memory by task name (dask's key prefix), then by count of keys."""
    out = ['<p class="hint">Each worker\'s peak is at the end of a task: the bars are that '
           "task's own peak (its output and what it allocated meanwhile), the peaks of "
           "tasks running beside it on other threads, and the results held in the worker's "
           "memory by task name. Click a bar to zoom in.</p>"]
    shown = False
    for i, (w, d) in enumerate(ranked):
        held = d.get("peak_held")
        if not held:
            continue
        stacks = [{"frames": [{"file": None, "line": None,
                               "function": (f"running: task {r['key']}" if r.get("key") is not None
                                            else "running: tasks beside it")}],
                   "complete": True, "bytes": r.get("bytes") or 0, "count": 1}
                  for r in held.get("running") or []]
        top = {"file": None, "line": None, "function": "results held"}
        if held.get("held") is None:
            stacks.append({"frames": [{**top, "function": "results held (not broken down)"}],
                           "complete": True, "bytes": held.get("held_bytes") or 0, "count": 0})
        else:
            stacks += [{"frames": [top, {"file": None, "line": None,
                                         "function": f"{g.get('group')} ({_keys(g.get('keys'))})"}],
                        "complete": True, "bytes": g.get("bytes") or 0, "count": g.get("keys") or 0}
                       for g in held["held"]]
        shown = True
        name = f"worker {d.get('name')} ({w})"
        out.append(f'<h3 id="flame-w{i}-title">{_text(name)}</h3>')
        out.append(_flame(f"w{i}", name, stacks, d.get("peak_bytes")))
    return "\n".join(out) if shown else '<p id="no-cluster-flame">Not recorded.</p>'


def _unit(n: int) -> tuple[str, int]:
    """The binary unit the axis of a series reaching ``n`` bytes is drawn in."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return unit, scale
    return "B", 1



# --- flame graph, timeline by site, source lines --------------------------------------------

#: the colours of the sites in the stacked timeline (matplotlib's tab10 without its grey)
SITE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22",
                "#17becf"]
OTHER_COLOUR = "#c7c7c7"


def source_line(file: Any, line: Any) -> str | None:
    """The text of ``file``'s line ``line`` (stripped), read now; None where it cannot be read.
    Only absolute paths are read (plans name files so), never a name looked up on sys.path."""
    if not isinstance(file, str) or not isinstance(line, int) or line < 1:
        return None
    try:
        if not os.path.isabs(file) or not os.path.isfile(file):
            return None
        text = linecache.getline(file, line)
    except (ValueError, OSError, UnicodeError):  # NUL or a lone surrogate in the name
        return None
    return text.strip() or None


def _source(rec: dict) -> str:
    text = source_line(rec.get("file"), rec.get("line"))
    return f'<pre class="src"><code>{_text(text)}</code></pre>' if text else ""


def _frame_label(f: dict) -> str:
    if f.get("file") is None:
        return str(f.get("function") or "?")
    return f"{f.get('function') or '?'}  {os.path.basename(str(f.get('file')))}:{f.get('line')}"


class _Node:
    """One frame of the flame graph: bytes and allocations under it, children by frame."""

    __slots__ = ("frame", "bytes", "count", "children")

    def __init__(self, frame: dict | None) -> None:
        self.frame = frame
        self.bytes = 0
        self.count = 0
        self.children: dict[tuple, _Node] = {}


def _flame_tree(stacks: list[dict]) -> _Node:
    root = _Node(None)
    for s in stacks:
        b, c = s.get("bytes") or 0, s.get("count") or 0
        frames = list(s.get("frames") or [])
        if not frames:
            frames = [{"file": None, "line": None, "function": "(no user frame)"}]
        if not s.get("complete", True):
            frames = [{"file": None, "line": None, "function": "(callers not recorded)"}] + frames
        node = root
        node.bytes += b
        node.count += c
        for f in frames:
            key = (f.get("file"), f.get("line"), f.get("function"))
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = _Node(f)
            child.bytes += b
            child.count += c
            node = child
    return root


class FlameLinks:
    """Findings by source line, and the flame graph frames drawn at each finding's line (by
    finding index): the findings table links each finding to its frames."""

    __slots__ = ("at_line", "frames")

    def __init__(self, findings: Sequence[dict]) -> None:
        self.at_line: dict[tuple, list[int]] = {}
        for k, f in enumerate(findings):
            if f.get("file") is not None and isinstance(f.get("line"), int):
                self.at_line.setdefault((f.get("file"), f.get("line")), []).append(k)
        self.frames: dict[int, list[tuple[str, str]]] = {}  # finding -> [(frame id, graph)]

    def of(self, frame: dict) -> list[int]:
        """The findings at ``frame``'s line."""
        return self.at_line.get((frame.get("file"), frame.get("line")), [])


def _frame_links(frames: Sequence[tuple[str, str]] | None) -> str:
    """Links to the flame graph frames at a finding's line (one per device or worker); a
    click zooms to the frame and outlines it (the page's script), or jumps to it without."""
    if not frames:
        return ""
    return " ".join(f'<a class="goto" href="#{fid}" data-frame="{fid}">{_text(graph)}</a>'
                    for fid, graph in frames)


def _flame(dev_index: int | str, dev: str, stacks: list[dict], peak: Any,
           findings: Sequence[dict] = (), links: FlameLinks | None = None,
           root_label: str = "held at the peak") -> str:
    """An icicle of ``stacks`` (``peak_stacks``): the outermost frames on top, each frame as
    wide as the bytes held under it; click a frame to zoom to it (and see its details under
    the graph), the top bar to zoom out. A frame at the line of a finding is outlined and
    marked with a warning sign, the finding in its tooltip."""
    root = _flame_tree(stacks)
    total = root.bytes
    if not total:
        return f'<p id="flame-{dev_index}-empty">Nothing held at the peak of {_text(dev)}.</p>'
    peak = peak if isinstance(peak, int) and peak else total
    links = links if links is not None else FlameLinks(findings)
    divs: list[str] = []
    depth_max = 0
    palette = ["#f8b26a", "#f4a259", "#f6c177", "#e9967a", "#f2b880", "#f7a072"]
    counter = [0]

    def emit(node: _Node, lo: float, depth: int, label: str, title: str, cls: str,
             marks: Sequence[int] = ()) -> None:
        nonlocal depth_max
        depth_max = max(depth_max, depth)
        hi = lo + node.bytes / total
        name = label.split("  ")[0].encode("utf-8", "backslashreplace")  # one colour a function
        colour = "#d9d9d9" if depth == 0 else palette[zlib.crc32(name) % len(palette)]
        fid = f"flame-{dev_index}-f{counter[0]}"
        counter[0] += 1
        for k in marks:
            links.frames.setdefault(k, []).append((fid, dev))
        found = f' data-findings="{",".join(map(str, marks))}"' if marks else ""
        divs.append(
            f'<div class="fr{cls}" data-d="{depth}" id="{fid}" data-lo="{lo:.9f}" '
            f'data-hi="{hi:.9f}" data-bytes="{node.bytes}"{found} '
            f'style="left:{100 * lo:.6f}%;width:{100 * (hi - lo):.6f}%;'
            f'top:{depth * 20}px;background-color:{colour}" title="{_lines(title)}">'
            f"{_text(label)}</div>")
        x = lo
        for child in sorted(node.children.values(), key=lambda n: -n.bytes):
            f = child.frame or {}
            share = 100 * child.bytes / peak
            marks = links.of(f)
            label = (("\u26a0 " if marks else "") +
                     f"{_frame_label(f)}  {human(child.bytes)} ({share:.1f}%)")
            src = source_line(f.get("file"), f.get("line"))
            where = (f"{f.get('function')} at {f.get('file')}:{f.get('line')}"
                     if f.get("file") is not None else _frame_label(f))
            title = (f"{where}\n"
                     f"{child.bytes:,} B ({share:.1f}% of the peak) in {child.count} "
                     f"allocation(s)" + (f"\n{src}" if src else "") +
                     "".join(f"\nfinding: {findings[k].get('kind')}: {findings[k].get('message')}"
                             for k in marks))
            partial = f.get("file") is None and f.get("function") == "(callers not recorded)"
            emit(child, x, depth + 1, label, title,
                 (" partial" if partial else "") + (" finding" if marks else ""), marks)
            x += child.bytes / total

    emit(root, 0.0, 0, f"{_printable(dev)}: {human(total)} {root_label}",
         f"{total:,} B {root_label}", " root")
    height = 20 * (depth_max + 1) + 2
    return (f'<div class="flame" id="flame-{dev_index}" data-device="{_text(dev)}" '
            f'style="height:{height}px">' + "".join(divs) + "</div>"
            f'<pre class="flame-detail" id="flame-{dev_index}-detail">'
            "Click a bar for its details.</pre>")


def _flame_section(devices: dict, findings: Sequence[dict] = (),
                   links: FlameLinks | None = None) -> str:
    out = ['<p class="hint">Each bar is a frame of the user\'s code, outermost call on top, '
           "as wide as the memory allocated under it and still held at the peak. Click a bar "
           "to zoom in and see its source line, the top bar to zoom out. Hatched: only the "
           "innermost frame of those allocations was recorded. Outlined with \u26a0: a line "
           "with a finding (upcast or hidden copy; see the findings table).</p>"]
    shown = False
    for i, (dev, d) in enumerate(devices.items()):
        stacks = d.get("peak_stacks")
        if stacks is None:
            continue
        shown = True
        out.append(f'<h3 id="flame-{i}-title">{_text(dev)}</h3>')
        out.append(_flame(i, dev, stacks, d.get("peak_bytes"), findings, links))
    return "\n".join(out) if shown else '<p id="no-flame">No call stacks in this report.</p>'


def _site_label(s: dict) -> str:
    fn = f" ({s['function']})" if s.get("function") else ""
    return f"{os.path.basename(str(s.get('file')))}:{s.get('line')}{fn}"


class Band(NamedTuple):
    """One area of a stacked timeline: its legend label, colour, values and hover text."""

    label: str
    colour: str
    values: list
    hover: str


class StackedPanel(NamedTuple):
    """One panel of a stacked timeline: a device's or a worker's bands over ``xs``."""

    name: str
    xs: list
    bands: list
    peak: Any
    x_peak: Any
    xlabel: str
    #: where the dashed line is drawn, when not at ``x_peak``
    x_line: Any = None


#: longest name drawn in a panel's title (left); the peak's label takes the right, its
#: place named in at most MAX_PEAK_LABEL characters: together they fit a panel's width
MAX_TITLE = 48
MAX_PEAK_LABEL = 56


def _short(name: str, n: int | None = None) -> str:
    """``name`` cut to ``n`` characters (default MAX_TITLE), an ellipsis last."""
    n = MAX_TITLE if n is None else n
    return name if len(name) <= n else name[:n - 1] + "\u2026"


def _site_timeline_svg(devices: dict, findings: Sequence[dict] = ()) -> str:
    """Live bytes per device stacked by allocation site (the top sites and "other"), the
    stack of each site on hover (SVG titles), the peak marked in the panel's title; a site
    at the line of a finding is marked with a warning sign, the finding in its hover."""
    links = FlameLinks(findings)
    panels = []
    for dev, d in devices.items():
        st = d.get("site_timeline") or {}
        if not st.get("ops"):
            continue
        sites = st.get("sites", [])
        bands = []
        for j, (s_, row) in enumerate(zip(sites, st.get("bytes", []))):
            frames = s_.get("stack") or [s_]
            src = source_line(s_.get("file"), s_.get("line"))
            marks = links.of(s_)
            hover = "\n".join([_site_label(s_)] + [
                f"  {f.get('file')}:{f.get('line')} ({f.get('function')})" for f in frames] +
                ([f"  {src}"] if src else []) +
                [f"finding: {findings[k].get('kind')}: {findings[k].get('message')}"
                 for k in marks])
            bands.append(Band(("\u26a0 " if marks else "") + _site_label(s_),
                              SITE_COLOURS[j % len(SITE_COLOURS)], row, hover))
        bands.append(Band("other", OTHER_COLOUR, st.get("other") or [0] * len(st["ops"]),
                          "other sites"))
        x_peak = d.get("peak_op")
        if not isinstance(x_peak, int):
            x_peak = (d.get("peak_at") or {}).get("op_index")
        panels.append(StackedPanel(str(dev), list(st["ops"]), bands, d.get("peak_bytes"),
                                   x_peak, "op"))
    if not panels:
        return '<p id="no-site-timeline">No timeline by site in this report.</p>'
    return _stacked_svg(panels, "site-timeline", "site", "op")


#: the band of the tasks running on a worker (their peaks beyond the results held)
RUNNING_COLOUR = "#ffbb78"


def _worker_panels(ranked: Sequence[tuple[str, dict]]) -> list[StackedPanel]:
    """A worker's managed memory stacked by task prefix, and its running tasks' peaks."""
    panels = []
    colour: dict[str, str] = {}  # one colour a task name on every worker
    for _, d in ranked:
        for g in (d.get("group_timeline") or {}).get("groups", []):
            colour.setdefault(str(g), SITE_COLOURS[len(colour) % len(SITE_COLOURS)])
    for w, d in ranked:
        gt = d.get("group_timeline") or {}
        if not gt.get("seq"):
            continue
        bands = [Band(str(g), colour[str(g)], row,
                      f"results of the tasks named {g} held in the worker's memory")
                 for g, row in zip(gt.get("groups", []), gt.get("bytes", []))]
        bands.append(Band("other results", OTHER_COLOUR, gt.get("other") or [],
                          "results of other tasks (or not grouped by name)"))
        bands.append(Band("running tasks", RUNNING_COLOUR, gt.get("running") or [],
                          "the peaks of the tasks running then, beyond the results held "
                          f"(at the worker's peak: task {d.get('peak_task')})"))
        # a task's end is two points at one transition: its peak, then its result alone;
        # the peak is drawn over the half transition before, so that it has a width
        seq = gt["seq"]
        xs = [x - 0.5 if k + 1 < len(seq) and seq[k + 1] == x else x for k, x in enumerate(seq)]
        x_peak = x_line = None
        totals = [b for _, b in d.get("timeline") or []]
        if totals and isinstance(d.get("peak_bytes"), int) and d["peak_bytes"] in totals:
            k = totals.index(d["peak_bytes"])
            x_peak, x_line = seq[k], xs[k] + 0.25
        panels.append(StackedPanel(f"worker {d.get('name')} ({w})", xs, bands,
                                   d.get("peak_bytes"), x_peak, "scheduler transition",
                                   x_line))
    return panels


def _stacked_svg(panels: Sequence[StackedPanel], element: str, gid: str, what: str) -> str:
    """Stacked areas, one panel each, peak dashed and named in the panel's title (right; the
    name left, shortened): inline SVG, each band's hover text as its SVG title."""
    matplotlib = _matplotlib()
    from matplotlib.figure import Figure

    titles: dict[str, str] = {}
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "faketensor",
                                "font.size": 10}):
        fig = Figure(figsize=(10, 3.4 * len(panels)), layout="constrained")
        axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
        for i, (ax, p) in enumerate(zip(axes, panels)):
            # one more x so the last point's step is drawn (step="post" draws to the next x)
            xs = [*p.xs, p.xs[-1] + 1]
            series = [[*b.values, b.values[-1]] if b.values else [0] * len(xs)
                      for b in p.bands]
            totals = [sum(col) for col in zip(*series)]
            top = max(totals) if totals else 0
            peak = p.peak if isinstance(p.peak, int) else top
            unit, scale = _unit(max(top, peak))
            polys = ax.stackplot(xs, [[v / scale for v in row] for row in series],
                                 labels=[_printable(b.label) for b in p.bands],
                                 colors=[b.colour for b in p.bands], step="post", linewidth=0)
            for j, (poly, b) in enumerate(zip(polys, p.bands)):
                poly.set_gid(f"{gid}-{i}-{j}")
                titles[f"{gid}-{i}-{j}"] = b.hover
            x_peak = p.x_peak
            if not isinstance(x_peak, int) and totals:
                x_peak = xs[totals.index(top)]
            if isinstance(x_peak, int):
                ax.axvline(x_peak if p.x_line is None else p.x_line, color="#d62728",
                           linestyle="--", linewidth=1, gid=f"{gid}-peak-{i}")
            ax.set_ylim(0, max(top, peak) / scale * 1.05 or 1)
            ax.set_xlim(xs[0], xs[-1] if xs[-1] > xs[0] else xs[0] + 1)
            ax.set_title(_short(_printable(p.name)), loc="left", parse_math=False).set_gid(
                f"{gid}-name-{i}")
            ax.set_title(f"peak {human(peak)} at {what} {x_peak} (dashed)", loc="right",
                         color="#d62728", parse_math=False).set_gid(f"{gid}-peak-label-{i}")
            ax.set_ylabel(f"live memory ({unit})")
            ax.set_xlabel(p.xlabel)
            ax.grid(alpha=0.3)
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False,
                      reverse=True)
            for t in ax.get_legend().get_texts():
                t.set_parse_math(False)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    for g, title in titles.items():
        svg = svg.replace(f'<g id="{g}">', f'<g id="{g}"><title>{_lines(title)}</title>', 1)
    return f'<div id="{element}">{svg}</div>'
