"""IPython: ``%load_ext faketensor``, then a cell starting with
``%%faketensor [--device cpu|cuda:N] [--data-dependent stop|placeholder]
[--assume-size LINE=FRACTION]`` runs under a recording FakeMode (library imports paused,
threads inheriting the mode) and prints its memory plan under the cell. Nothing is computed
and the cell's variables hold fakes. A cell that makes a data-dependent length (a boolean
mask's count, np.unique's: docs/guide/bounded-sizes.md) runs a second time, every such size
at its lower bound, in a copy of the namespace it started with (its output hidden), and the
report gives the range, as ``ft.plan`` does.

``_report(mode) -> str`` writes the text; it is the one call to swap for the planner's report.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import shlex
import weakref
from typing import Any, NamedTuple

from ..._errors import DataDependentError, UnsupportedOperationError, op_name
from ..._paths import user_frame
from ..._sizes import SizePolicy
from ...modes import FakeMode, Mode
from ...modes.threads import inherit_mode_in_threads
from .report import human

# mode -> {device: (file, line, op)}: where each device's peak was last raised (_PeakSites)
_PEAK_AT: "weakref.WeakKeyDictionary[FakeMode, dict]" = weakref.WeakKeyDictionary()


class _PeakSites(Mode):
    """Above the FakeMode: after each op, notes the user's line when a device's peak grew."""

    def __init__(self, fake: FakeMode) -> None:
        self.fake = fake
        self.peak: dict = {}
        self.at = _PEAK_AT.setdefault(fake, {})

    def __array_dispatch__(self, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
        try:
            return func(*args, **kwargs)
        finally:
            for dev, n in self.fake.memory.peak.items():
                if n > self.peak.get(dev, -1):
                    self.peak[dev] = n
                    frame = user_frame()
                    self.at[dev] = (frame.f_code.co_filename if frame else "<unknown>",
                                    frame.f_lineno if frame else 0, op_name(func))


def _where(file: str, line: int, cell_file: str | None) -> str:
    return f"line {line}" if file == cell_file else f"{file}:{line}"


class LowerRun(NamedTuple):
    """The cell's run with every bounded size at its lower bound: its mode, and why it
    stopped (None when it completed)."""

    mode: FakeMode
    stopped: str | None


def _range_lines(mode: FakeMode, lower: LowerRun | None, cell_file: str | None) -> list[str]:
    """The range the cell's data-dependent lengths make: per device the peak at the lower
    and the upper bounds, and each size with its bounds, line and the two runs' values."""
    made = mode.sizes.made
    if not made:
        return []
    exact = lower is not None and lower.stopped is None
    out = ["  data-dependent sizes: the figures above assume each at its upper bound (or "
           "where fixed); the range, each end exact for its assumption:"]
    for dev in sorted(mode.memory.peak, key=lambda d: (d != "cpu", d)):
        hi = mode.memory.peak[dev]
        if lower is None:  # every size fixed: one assumption, both ends
            lo: int | None = hi
        else:
            lo = lower.mode.memory.peak.get(dev, 0) if exact else None
        low = f"{human(lo)} ({lo:,d} B)" if lo is not None else "not known"
        out.append(f"    {dev}: peak {low} .. {human(hi)} ({hi:,d} B)")
    if lower is not None and lower.stopped is not None:
        out.append(f"    the run at the lower bounds {lower.stopped}")
    lows = {k.name: int(k) for k in lower.mode.sizes.made} if lower is not None else {}
    for k in made:
        where = _where(k.file or "<unknown>", k.line or 0, cell_file)
        f = mode.sizes.fraction(k.file, k.line)
        fixed = f", fixed at {f:g} of its range" if f is not None else ""
        low = f", lower run {lows[k.name]:,d}" if k.name in lows else ""
        out.append(f"    {k.name}: {k.lo:,d} <= {k.name} <= {k.hi:,d} ({k.op} at {where}; "
                   f"upper run {int(k):,d}{low}{fixed})")
    for spec in mode.sizes.fixed:
        if spec not in mode.sizes.used:
            out.append(f"    --assume-size {spec}={mode.sizes.fixed[spec]:g}: no size was made "
                       "at that line")
    return out


def _report(mode: FakeMode, cell_file: str | None = None, lower: LowerRun | None = None) -> str:
    """The text printed under a ``%%faketensor`` cell: ops, then per device the peak (with
    the line and op that reached it), the bytes live at the end, the range data-dependent
    lengths make (``lower``: the run at their lower bounds), and placeholder uses."""
    mem = mode.memory
    peak, live = mem.peak, mem.live
    at = _PEAK_AT.get(mode, {})
    lines = [f"faketensor: {len(mode.trace)} ops planned, nothing computed"]
    for dev in sorted(peak, key=lambda d: (d != "cpu", d)):
        where = ""
        if dev in at:
            file, line, op = at[dev]
            where = f" at {_where(file, line, cell_file)} ({op})"
        lines.append(f"  {dev}: peak {human(peak[dev])} ({peak[dev]:,d} B){where}; "
                     f"live at end {human(live.get(dev, 0))}")
    if not peak:
        lines.append("  no array memory allocated")
    for p in mode.placeholders:
        lines.append(f"  placeholder x{p['count']} at {_where(p['file'], p['line'], cell_file)}: "
                     f"{p['message']}")
    lines.extend(_range_lines(mode, lower, cell_file))
    for e in getattr(mode, "io", ()):
        size = "size depends on values" if e["bytes"] is None else human(e["bytes"])
        lines.append(f"  {e['op']} {e['path']} at {_where(e['file'], e['line'], cell_file)}: "
                     f"{size}{'' if e['exact'] else ' (not exact)'}"
                     f"{' (written)' if e['written'] else ' (not written)'}")
    return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # raise, not print and exit: IPython shows a UsageError
        raise ValueError(f"{self.format_usage().strip()}\n%%faketensor: {message}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="%%faketensor", add_help=False,
                description="Plan the cell's memory under a FakeMode.")
    p.add_argument("--device", default=None, help="where factories put arrays: cpu, cuda:N")
    p.add_argument("--data-dependent", default="stop", choices=("stop", "placeholder"),
                   help="when the cell needs a value: stop there, or use a placeholder")
    p.add_argument("--assume-size", action="append", default=[], metavar="LINE=FRACTION",
                   help="fix the data-dependent sizes made at this line of the cell")
    return p


def _stop_line(exc: BaseException, cell_file: str) -> str:
    tb, line = exc.__traceback__, 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == cell_file:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f"stopped at line {line}: {type(exc).__name__}: {exc}"


def run_cell(shell: Any, line: str, cell: str) -> FakeMode:
    """Run a cell's code under the options in ``line``; print the report; return the mode.
    A DataDependentError or UnsupportedOperationError stops the cell and is reported; other
    exceptions propagate after the report."""
    from IPython.core.error import UsageError
    from .cli import parse_assume_sizes
    try:
        opts = _parser().parse_args(shlex.split(line))
        fixed = parse_assume_sizes(opts.assume_size)
        mode = FakeMode(record=True, device=opts.device, data_dependent=opts.data_dependent,
                        sizes=SizePolicy("upper", fixed))
    except (ValueError, TypeError) as e:
        raise UsageError(str(e)) from None
    code = shell.transform_cell(cell)
    cell_file = shell.compile.cache(code, shell.execution_count, raw_code=cell)
    compiled = shell.compile(code, cell_file, "exec")
    before = dict(shell.user_ns)  # the namespace the cell starts with, for the lower run
    stopped = None
    lower: LowerRun | None = None
    try:
        with mode, _PeakSites(mode), inherit_mode_in_threads():
            exec(compiled, shell.user_ns)  # noqa: S102 - the user's own cell
    except (DataDependentError, UnsupportedOperationError) as e:
        stopped = _stop_line(e, cell_file)
    finally:
        if stopped:
            print(stopped)
        made = mode.sizes.made
        if made and any(mode.sizes.fraction(k.file, k.line) is None for k in made):
            lower = _lower_run(compiled, before, cell_file, opts, fixed)
        print(_report(mode, cell_file, lower))
    return mode


def _lower_run(compiled: Any, namespace: dict, cell_file: str, opts: Any,
               fixed: dict) -> LowerRun:
    """The cell again, every bounded size at its lower bound, in ``namespace`` (a copy of
    the one it started with), its printed output hidden."""
    mode = FakeMode(record=True, device=opts.device, data_dependent=opts.data_dependent,
                    sizes=SizePolicy("lower", fixed))
    stopped = None
    try:
        with contextlib.redirect_stdout(io.StringIO()), mode, _PeakSites(mode), \
                inherit_mode_in_threads():
            exec(compiled, namespace)  # noqa: S102 - the user's own cell
    except Exception as e:  # reported in the range, never raised: the cell ran already
        stopped = _stop_line(e, cell_file)
    return LowerRun(mode, stopped)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext faketensor``: registers the ``%%faketensor`` cell magic."""
    def faketensor(line: str, cell: str) -> None:
        run_cell(ipython, line, cell)
    faketensor.__doc__ = _parser().format_help()
    ipython.register_magic_function(faketensor, magic_kind="cell", magic_name="faketensor")
