"""Sinks: where a fake's value only goes to output (formatting, logging, plotting).

In a mode made with ``skip_sinks=True`` (every plan: ``faketensor run``, ``ft.plan``), a
value that is only written out never stops the program: formatting a fake renders a marker
in place of the unknown value, and the use is recorded in ``mode.sinks`` at the user's line
(docs/guide/sinks.md). Only a value that steers the program (``if``, ``while``, a value
kept in a variable, ``range``, an index, a shape) raises DataDependentError.

What a sink renders: where a float is formatted, ``nan`` (a float format keeps its width
and precision rules, and ``__float__`` must return a float); elsewhere ``?`` laid out in the
format's field (fill, alignment, width). An integer that Python's ``%`` asks for through
``int()`` cannot be a marker (``int()`` must return an int): it renders as 0, and the record
says so.

Whether a value read (``float(x)``, ``x.item()``) is for output is read from the calling
frame's current instruction, with ``dis`` (the bytecode differs between Python 3.11, 3.12
and 3.13): a ``%`` ``BINARY_OP`` (str or bytes %-formatting, logging's ``getMessage``), a
call whose result goes straight to an f-string's ``FORMAT_VALUE`` (3.11, 3.12) /
``FORMAT_SIMPLE``, ``FORMAT_WITH_SPEC``, ``CONVERT_VALUE`` (3.13), the spec a constant, or a
call written as an argument of the builtin ``print`` (the call's source position, from the
instruction, found among print's arguments in the file's ``ast``).
"""
from __future__ import annotations

import ast
import bisect
import dis
import linecache
import re
import sys
import threading
from types import CodeType, FrameType
from typing import Any

import numpy as np

from ._bounded import BoundedCache
from ._paths import user_frame
from ._stack import STACK, paused

_FORMATS = {"FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC", "CONVERT_VALUE"}
_CALLS = {"CALL", "CALL_KW", "CALL_FUNCTION_EX"}

#: (hash of the code's file, first line, name and bytecode; instruction offset) -> "%" |
#: "f-string" | "print" | "" (not output): an entry keeps no code object alive and is small
_VERDICTS = BoundedCache("sink instructions", 16 * 1024)


def sink_mode() -> Any:
    """The innermost FakeMode of this context when it skips sinks (``skip_sinks=True``),
    else None. Kernels run with their mode off the stack: their value reads always raise."""
    for m in reversed(STACK.get()):
        if getattr(m, "_is_fake_mode", False):
            return m if getattr(m, "skip_sinks", False) else None
    return None


def _verdict(code: CodeType, lasti: int) -> str:
    ins = list(dis.get_instructions(code))
    offsets = [x.offset for x in ins]
    # the instruction running: a call into Python code leaves f_lasti on the call's last
    # inline cache entry (3.11, 3.12), so the one whose span holds it
    i = bisect.bisect_right(offsets, lasti) - 1
    if i < 0:
        return ""
    op = ins[i]
    if op.opname == "BINARY_OP" and op.argrepr in ("%", "%="):
        return "%"
    if op.opname == "PRECALL" and i + 1 < len(ins):  # 3.11: a specialized PRECALL calls
        i += 1
        op = ins[i]
    if op.opname not in _CALLS or i + 1 >= len(ins):
        return ""
    nxt = ins[i + 1]
    if (nxt.opname == "LOAD_CONST" and isinstance(nxt.argval, str) and i + 2 < len(ins)
            and ins[i + 2].opname in ("FORMAT_VALUE", "FORMAT_WITH_SPEC")):
        return "f-string"
    if nxt.opname in _FORMATS and not (nxt.opname == "FORMAT_VALUE" and (nxt.arg or 0) & 4):
        return "f-string"
    pos = getattr(op, "positions", None)
    if pos is not None and pos.lineno is not None and _span(pos) in _print_args(code.co_filename):
        return "print"
    return ""


def _span(pos: Any) -> tuple:
    return (pos.lineno, pos.col_offset, pos.end_lineno, pos.end_col_offset)


def _print_args(filename: str) -> set:
    """The source spans (line, column, end line, end column) of the calls written directly
    as arguments of ``print(...)`` in a file (``print(loss.item())``, ``print("x",
    float(x))``), read from its source with ``ast``; empty when the source is unavailable."""
    spans: set = set()
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return spans
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "print"):
            spans.update((a.lineno, a.col_offset, a.end_lineno, a.end_col_offset)
                         for a in node.args if isinstance(a, ast.Call))
    return spans


def output_use(frame: FrameType | None) -> str:
    """How ``frame`` uses the value it is reading now: ``"%"`` (%-formatting; ``"logging"``
    when the frame is logging's ``LogRecord.getMessage``), ``"f-string"`` (a call whose result
    an f-string formats at once), ``"print"`` (a call written as an argument of the builtin
    ``print``), or ``""`` (anything else: the value may steer the program)."""
    if frame is None:
        return ""
    code = frame.f_code
    key = (hash((code.co_filename, code.co_firstlineno, code.co_name, code.co_code)),
           frame.f_lasti)
    v = _VERDICTS.get(key)
    if v is None:
        try:
            v = _verdict(code, frame.f_lasti)
        except Exception:  # noqa: BLE001 - bytecode we cannot read is not output
            v = ""
        _VERDICTS.put(key, v)
    if v == "%" and code.co_name == "getMessage" and frame.f_globals.get("__name__") == "logging":
        return "logging"
    if v == "print" and ("print" in frame.f_globals or "print" in frame.f_locals):
        return ""  # a print of the program's own, which may do anything with the value
    return v


# --- what a sink renders ------------------------------------------------------------------

_SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?z?#?(?P<zero>0)?"
                   r"(?P<width>\d+)?[,_]?(?:\.\d+)?(?P<type>[a-zA-Z%])?$", re.S)


class Marker:
    """What a value read for output returns when it cannot be a number of its type (an
    integer's ``item()`` an f-string formats at once): ``?`` in the format's field."""

    __slots__ = ()

    def __format__(self, spec: str) -> str:
        return marker(spec)

    def __repr__(self) -> str:
        return "?"

    __str__ = __repr__


MARKER = Marker()


def marker(spec: str) -> str:
    """``?`` laid out in the field ``spec`` asks for: its fill, alignment (numbers align
    right) and width; the rest of the spec (precision, type) has no value to act on."""
    m = _SPEC.match(spec or "")
    if m is None or not m.group("width"):
        return "?"
    align = m.group("align") or ">"
    fill = m.group("fill") or " "
    return format("?", f"{fill}{'>' if align == '=' else align}{m.group('width')}")


def render(kind: str, spec: str, nan: Any) -> str:
    """A fake's value formatted with ``spec`` in a sink: ``format(nan, spec)`` for a float or
    complex (``kind`` "f", "c"; ``nan`` a NaN of the fake's own type), else ``marker(spec)``."""
    if kind in "fc" and nan is not None:
        m = _SPEC.match(spec or "")
        if m is None or (m.group("type") or "g") in "eEfFgGn%":
            return format(nan, spec)
    return marker(spec)


# --- a value read from a fake (FakeArray._value) -------------------------------------------

NOT_OUTPUT = object()  # for_output: the read may steer the program
# the reads %-formatting or an f-string may make: float(), int(), operator.index(), item()
_READS = frozenset(("float()", "int()", "operator.index()", "ndarray.item()", "complex()"))


def for_output(x: Any, what: str, spec: str | None, depth: int) -> Any:
    """What fake ``x``'s unknown value gives when it only goes to output, recorded in the
    mode's ``sinks``; ``NOT_OUTPUT`` when no mode skips sinks or the read may steer.

    ``format(x, spec)`` (``spec`` given) renders ``nan`` or ``?``. ``float()``, ``item()`` of a
    float, ``complex()`` read by %-formatting or straight into an f-string (the instruction
    of the frame ``depth`` frames above this call) give NaN; ``int()`` and
    ``operator.index()`` give 0 (Python requires an int); ``item()`` of a non-float gives
    ``MARKER``, which formats as ``?``."""
    mode = sink_mode()
    if mode is None:
        return NOT_OUTPUT
    desc = f"a fake array (shape={x.shape}, dtype={x.dtype})"
    if spec is not None:
        text = render(x.dtype.kind, spec, nan_of(x))
        mode.sinks.add("format", f"format(x, {spec!r})", f"{desc} rendered as {text!r}")
        return text
    if what not in _READS:
        return NOT_OUTPUT
    use = output_use(caller(depth))
    if not use:
        return NOT_OUTPUT
    nan = nan_of(x)
    if what in ("int()", "operator.index()"):
        out: Any = 0  # int() and operator.index() must return an int: no marker fits
    elif what == "ndarray.item()":
        out = nan.item() if nan is not None else MARKER
    elif what == "complex()":
        out = complex(float("nan"), float("nan"))
    else:
        out = float("nan")
    mode.sinks.add(use, what, f"{what} of {desc} for output gave {out!r}")
    return out


def nan_of(x: Any) -> Any:
    """A NaN of fake ``x``'s type (a Python or NumPy scalar), or None for a dtype with none."""
    if x.dtype.kind not in "fc":
        return None
    if x.pytype is not None:
        return x.pytype(float("nan"))
    with paused():
        return np.full((), np.nan, x.dtype)[()]


# --- the record ---------------------------------------------------------------------------

class SinkLog(list):
    """``mode.sinks``: one dict per (user line, call) where a fake went to output and was
    skipped, ``{"kind", "call", "file", "line", "function", "message", "count"}``, in order of
    first use. ``kind``: "format" (``format``, f-strings, ``str.format``), "%" (%-formatting),
    "logging", "f-string" (``float(x)`` / ``x.item()`` formatted at once), "plot" (a
    matplotlib call given fakes), "output" (savefig, show, pause, draw: skipped in a plan)."""

    def __init__(self) -> None:
        super().__init__()
        self._sites: dict = {}
        self._lock = threading.Lock()

    def add(self, kind: str, call: str, message: str) -> None:
        """Count one use at the innermost user line calling this."""
        frame = user_frame(1)
        if frame is None:
            where = ("<unknown>", 0, "<unknown>")
        else:
            where = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        key = (where[0], where[1], kind, call)
        with self._lock:
            site = self._sites.get(key)
            if site is None:
                site = self._sites[key] = {"kind": kind, "call": call, "file": where[0],
                                           "line": where[1], "function": where[2],
                                           "message": message, "count": 0}
                self.append(site)
            site["count"] += 1


def caller(depth: int) -> FrameType | None:
    """The frame ``depth`` frames above the function calling this one."""
    try:
        return sys._getframe(depth + 1)
    except ValueError:
        return None
