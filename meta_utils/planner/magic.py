"""IPython: ``%load_ext faketensor``, then a cell starting with
``%%faketensor [--device cpu|cuda:N] [--data-dependent stop|placeholder]`` runs under a
recording FakeMode (library imports paused, threads inheriting the mode) and prints its
memory plan under the cell. Nothing is computed and the cell's variables hold fakes.

``_report(mode) -> str`` writes the text; it is the one call to swap for the planner's report.
"""
from __future__ import annotations

import argparse
import shlex
import weakref
from typing import Any

from ..._errors import DataDependentError, UnsupportedOperationError, op_name
from ..._paths import user_frame
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


def _report(mode: FakeMode, cell_file: str | None = None) -> str:
    """The text printed under a ``%%faketensor`` cell: ops, then per device the peak (with
    the line and op that reached it), the bytes live at the end, and placeholder uses."""
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
    try:
        opts = _parser().parse_args(shlex.split(line))
        mode = FakeMode(record=True, device=opts.device, data_dependent=opts.data_dependent)
    except (ValueError, TypeError) as e:
        raise UsageError(str(e)) from None
    code = shell.transform_cell(cell)
    cell_file = shell.compile.cache(code, shell.execution_count, raw_code=cell)
    compiled = shell.compile(code, cell_file, "exec")
    stopped = None
    try:
        with mode, _PeakSites(mode), inherit_mode_in_threads():
            exec(compiled, shell.user_ns)  # noqa: S102 - the user's own cell
    except (DataDependentError, UnsupportedOperationError) as e:
        stopped = _stop_line(e, cell_file)
    finally:
        if stopped:
            print(stopped)
        print(_report(mode, cell_file))
    return mode


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext faketensor``: registers the ``%%faketensor`` cell magic."""
    def faketensor(line: str, cell: str) -> None:
        run_cell(ipython, line, cell)
    faketensor.__doc__ = _parser().format_help()
    ipython.register_magic_function(faketensor, magic_kind="cell", magic_name="faketensor")
