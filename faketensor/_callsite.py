"""What a call site passed that NumPy drops before ``__array_ufunc__``: ``out=...``.

``out=...`` asks a ufunc (or its ``reduce``) for arrays where it would return NumPy
scalars. NumPy removes it from the arguments before it calls ``__array_ufunc__``
(numpy/_core/src/umath/ufunc_object.c, ``ufunc_generic_fastcall`` / ``PyUFunc_Reduce``:
``out=...`` sets ``return_scalar = false`` and ``out = NULL``), so a fake cannot see it
there. It is read instead from the calling frame: the call instruction running there, the
instruction that pushed the ``out`` keyword's value (a constant, a variable, or the dict of
``**kwargs``), and that value. Where the bytecode is not that simple the answer is "not
passed", which is what NumPy's dropped arguments otherwise look like.
"""
from __future__ import annotations

import ast
import bisect
import dis
import linecache
from types import CodeType, FrameType
from typing import Any

from ._bounded import BoundedCache

# instructions that push one value and pop none; the value's source kind
_LOADS = {"LOAD_CONST": "const", "LOAD_FAST": "local", "LOAD_FAST_CHECK": "local",
          "LOAD_FAST_BORROW": "local", "LOAD_DEREF": "local", "LOAD_CLASSDEREF": "local",
          "LOAD_NAME": "name", "LOAD_GLOBAL": "global"}

#: (hash of the code's file, first line, name and bytecode; instruction offset) -> where the
#: ``out`` keyword's value came from: ("const", value is Ellipsis), ("local" | "name" |
#: "global", variable name), ("kwargs-local" | ..., variable name of a ``**`` dict), or None
_SOURCES = BoundedCache("out=... call sites", 16 * 1024)


def _push_one(ins: dis.Instruction) -> str | None:
    """The source kind of an instruction that pushes exactly one value, else None."""
    kind = _LOADS.get(ins.opname)
    if kind == "global" and (ins.arg or 0) & 1:  # LOAD_GLOBAL with NULL: pushes two
        return None
    return kind


def _value_source(ins: dis.Instruction, kind: str) -> tuple:
    if kind == "const":
        return ("const", ins.argval is Ellipsis)
    return (kind, ins.argval)


def _kw_names(code: CodeType, ins: list, i: int) -> tuple[tuple, int] | None:
    """(keyword names, index of the last value instruction) of the CALL/CALL_KW at ``i``."""
    op = ins[i]
    if op.opname == "CALL_KW":  # 3.13: the names tuple is the last value pushed
        prev = ins[i - 1]
        if prev.opname != "LOAD_CONST" or not isinstance(prev.argval, tuple):
            return None
        return prev.argval, i - 2
    k = i - 1
    if k >= 0 and ins[k].opname == "PRECALL":  # 3.11
        k -= 1
    if k < 0 or ins[k].opname != "KW_NAMES":  # 3.11, 3.12
        return None
    names = ins[k].argval
    if not isinstance(names, tuple):
        names = code.co_consts[ins[k].arg]
    return names, k - 1


def _source(code: CodeType, lasti: int, name: str) -> tuple | None:
    ins = list(dis.get_instructions(code))
    offsets = [x.offset for x in ins]
    # a call into Python code leaves f_lasti on the call's last inline cache entry (3.11,
    # 3.12): the instruction whose span holds it
    i = bisect.bisect_right(offsets, lasti) - 1
    if i < 1:
        return None
    if ins[i].opname == "PRECALL" and i + 1 < len(ins):  # 3.11: a specialized PRECALL calls
        i += 1
    op = ins[i]
    if op.opname in ("CALL", "CALL_KW"):
        found = _kw_names(code, ins, i)
        if found is None or name not in found[0]:
            return None
        names, last = found
        j = last - (len(names) - 1 - names.index(name))
        if j < 0 or any(_push_one(x) is None for x in ins[j:last + 1]):
            return _from_source(code, op, name)  # other keywords are expressions
        return _value_source(ins[j], _push_one(ins[j]) or "")
    if op.opname == "CALL_FUNCTION_EX" and op.arg and i >= 2:
        # f(*args, k=v, **kw): ..., LOAD kw, DICT_MERGE 1, CALL_FUNCTION_EX 1 (a keyword
        # given twice is NumPy's TypeError, so ``out`` is in the last dict merged or nowhere)
        merge, load = ins[i - 1], ins[i - 2]
        kind = _push_one(load)
        if merge.opname == "DICT_MERGE" and kind not in (None, "const"):
            return ("kwargs-" + kind, load.argval)
        return _from_source(code, op, name)
    return None


def _from_source(code: CodeType, call: dis.Instruction, name: str) -> tuple | None:
    """The keyword's value read from the call's source (cut out by the call instruction's
    position): a constant, a plain name, or a ``**name`` dict; None for anything else or
    where the source is not available."""
    pos = getattr(call, "positions", None)
    if pos is None or None in (pos.lineno, pos.end_lineno, pos.col_offset, pos.end_col_offset):
        return None
    lines = [ln.encode() for ln in linecache.getlines(code.co_filename)[pos.lineno - 1:pos.end_lineno]]
    if len(lines) != pos.end_lineno - pos.lineno + 1:
        return None
    lines[-1] = lines[-1][:pos.end_col_offset]  # columns are utf-8 byte offsets
    lines[0] = lines[0][pos.col_offset:]
    try:
        tree = ast.parse(b"".join(lines).decode(), mode="eval")
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(tree.body, ast.Call):
        return None
    for kw in tree.body.keywords:
        if kw.arg == name:
            v = kw.value
            if isinstance(v, ast.Constant):
                return ("const", v.value is Ellipsis)
            return ("name", v.id) if isinstance(v, ast.Name) else None
    kwargs = [kw.value for kw in tree.body.keywords if kw.arg is None]
    if kwargs and isinstance(kwargs[-1], ast.Name):
        return ("kwargs-name", kwargs[-1].id)
    return None


def _lookup(frame: FrameType, kind: str, var: str) -> Any:
    if kind == "local":
        return frame.f_locals.get(var)
    if kind == "global":
        return frame.f_globals.get(var)
    for space in (frame.f_locals, frame.f_globals):  # LOAD_NAME
        if var in space:
            return space[var]
    return None


def passed_out_ellipsis(frame: FrameType | None) -> bool:
    """Whether the call ``frame`` is making now passed ``out=...`` (see the module's doc)."""
    if frame is None:
        return False
    code = frame.f_code
    key = (hash((code.co_filename, code.co_firstlineno, code.co_name, code.co_code)),
           frame.f_lasti)
    src = _SOURCES.get(key, 0)
    if src == 0:
        try:
            src = _source(code, frame.f_lasti, "out")
        except Exception:  # noqa: BLE001 - bytecode we cannot read passed nothing we can see
            src = None
        _SOURCES.put(key, src)
    if src is None:
        return False
    kind, what = src
    if kind == "const":
        return bool(what)
    if kind.startswith("kwargs-"):
        kw = _lookup(frame, kind[7:], what)
        return isinstance(kw, dict) and kw.get("out", None) is Ellipsis
    return _lookup(frame, kind, what) is Ellipsis
