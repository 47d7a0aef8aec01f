"""Findings: the accidental widenings and hidden copies of a recorded program.

A recording ``FakeMode`` calls ``scan`` for each op (FakeMode._record); what it finds goes
to the mode's ``findings`` as ``Finding`` rows, which a plan aggregates per (kind, file,
line) (meta_utils/planner/plan.py). Three kinds, each decided from metadata alone:

- ``upcast``: a fresh result wider than its widest array operand of one or more
  dimensions (``is_upcast``), when neither a Python scalar (NEP 50: weak) nor an explicit
  ``dtype=`` asked for it;
- ``implicit_copy``: a ``reshape``/``ravel`` that had to copy (``reshape_copied``), and the
  operand copies a kernel noted while computing its hidden bytes (kernels/registry.note:
  casting copies of matmul/dot operands, BLAS contiguous copies, tensordot's reshapes);
- ``overlap_copy``: an input copied because an output partially overlaps it, as noted by
  kernels/numpy/hidden.overlap_copy_bytes (NPY_ITER_COPY_IF_OVERLAP).

The kernels decide the copies (one rule each, the one that counts their bytes); this
module only reads their notes, so CuPy code gets CuPy's answers (its ufuncs copy an input
whose byte bounds overlap an output: kernels/cupy/core._overlap_copies).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._array import FakeArray
from .._errors import op_name
from .._runner import resolve
from ..kernels.registry import ASSUMED, UNMODELLED

KINDS = ("upcast", "implicit_copy", "overlap_copy")


class Finding(NamedTuple):
    """One occurrence: ``kind``, the op's name, ``site`` (index into the mode's Sites),
    ``bytes``, and for an upcast the (from, to) dtypes."""
    kind: str
    op: str
    site: int
    bytes: int
    dtypes: tuple = ()


# --- the decision rules (pure functions of metadata) ----------------------------------------

def precision(dt: np.dtype) -> int:
    """Bytes of one real component: the itemsize, half of it for complex dtypes (a
    complex64 result of float32 operands, as fft gives, is not wider)."""
    return dt.itemsize // 2 if dt.kind == "c" else dt.itemsize


def is_upcast(result: np.dtype, widest: int, operand_kinds: str = "f") -> bool:
    """A result wider than ``widest``, the largest operand precision; an integer result of
    operands with no integer among them (an index, a count of booleans) is not a widening."""
    if precision(result) <= widest:
        return False
    return not (result.kind in "iu" and not any(k in "iu" for k in operand_kinds))


def upcast_bytes(size: int, result: np.dtype, widest: int) -> int:
    """The result's bytes minus what it takes at the operands' precision ``widest``."""
    return size * (result.itemsize - result.itemsize * widest // precision(result))


def reshape_copied(inp: Any, out: Any) -> bool:
    """A reshape/ravel of ``inp`` returned a fresh array (no strides could express it)."""
    return out.storage is not inp.storage and out.size > 0


def widened_without_python_scalars(func: Any, args: tuple, result: np.dtype,
                                   widest: int) -> bool:
    """Whether the result is wider even with each Python scalar operand taken at the
    widest array operand's dtype: NEP 50 makes Python scalars weak, so widening they cause
    (``int8_array + 1.5``) is the user's literal, never an upcast. A ufunc's own loop
    decides (``resolve_dtypes``: ``int32_array / 2`` is still float64); other ops take
    ``np.result_type`` of their array and NumPy scalar operands."""
    arrays = [a for a in _operands(args) if type(a) not in _PY_SCALARS]
    wide = max((a.dtype for a in arrays if _ndim(a)), key=precision, default=None)
    uf = func if isinstance(func, np.ufunc) else None
    if uf is not None and wide is not None and len(args) == uf.nin:
        dts = tuple(wide if type(a) in _PY_SCALARS else np.dtype(a.dtype) for a in args)
        try:
            res = uf.resolve_dtypes(dts + (None,) * uf.nout)[uf.nin]
        except Exception:  # no loop for these dtypes: say nothing rather than guess
            return False
        return precision(res) > widest
    try:
        res = np.result_type(*[a.dtype for a in arrays])
    except Exception:
        return False
    return precision(res) > widest and precision(result) > widest


_PY_SCALARS = frozenset({int, float, complex, bool})


def _ndim(a: Any) -> int:
    return len(a.shape)


def _operands(args: Any) -> list:
    """The array-like operands among positional arguments (one level into lists)."""
    out: list[Any] = []
    for a in args:
        t = type(a)
        if t is list or t is tuple:
            out.extend(x for x in a if hasattr(x, "dtype") or type(x) in _PY_SCALARS)
        elif t is FakeArray or t in _PY_SCALARS or isinstance(a, (np.generic, np.ndarray)):
            out.append(a)
    return out


# --- which ops each rule looks at -------------------------------------------------------------

_PLAIN, _SKIP, _RESHAPE = 0, 1, 2
# Explicit conversions: the user named the dtype (or the op reinterprets the bytes).
_CASTS = frozenset({"astype", "view", "array", "asarray", "asanyarray", "ascontiguousarray",
                    "asfortranarray", "require", "asarray_chkfinite", "frombuffer", "getfield",
                    "real_if_close", "can_cast", "result_type"})
_RESHAPES = frozenset({"reshape", "ravel"})
_CATEGORY: dict = {}


def _category(func: Any) -> int:
    """What the rules look at for ``func`` (cached per callable)."""
    try:
        return _CATEGORY[func]
    except (KeyError, TypeError):
        pass
    name = op_name(func).rsplit(".", 1)[-1]
    try:
        tags = resolve(func)[0].tags
    except Exception:
        tags = frozenset()
    if name in _RESHAPES:
        cat = _RESHAPE
    elif name in _CASTS or tags & {"factory", "random", "view", "query", "inplace"}:
        cat = _SKIP
    else:
        cat = _PLAIN
    try:
        _CATEGORY[func] = cat
    except TypeError:
        pass
    return cat


# --- the recording hook -------------------------------------------------------------------------

def scan(func: Any, args: tuple, kwargs: dict, outs: list, costs: Any, site: int,
         acc: list) -> None:
    """Append the findings of one recorded op to ``acc``: the copies its kernel noted
    (``costs.notes``, registry.Costs), an upcast, a reshape that copied."""
    if costs is not None and costs.notes:
        name = op_name(func)
        for kind, n in costs.notes:
            if kind not in (UNMODELLED, ASSUMED):  # not copies: the mode lists them
                acc.append(Finding(kind, name, site, n))
    if not outs:
        return
    cat = _category(func)
    if cat == _SKIP:
        return
    if cat == _RESHAPE:
        x = args[0] if args else kwargs.get("a")
        o = outs[0]
        if type(x) is FakeArray and kwargs.get("copy") is not True and reshape_copied(x, o):
            acc.append(Finding("implicit_copy", op_name(func), site, o.size * o.dtype.itemsize))
        return
    widest = 0
    kinds = ""
    for a in args:
        t = type(a)
        if t is FakeArray:
            if a.shape:
                dt = a.dtype
                p = dt.itemsize // 2 if dt.kind == "c" else dt.itemsize
                if p > widest:
                    widest = p
                kinds += dt.kind
        elif t is list or t is tuple:
            for x in a:
                if type(x) is FakeArray and x.shape:
                    dt = x.dtype
                    p = dt.itemsize // 2 if dt.kind == "c" else dt.itemsize
                    if p > widest:
                        widest = p
                    kinds += dt.kind
    if not widest:  # no array operand of one or more dimensions: never an upcast
        return
    for o in outs:
        dt = o.dtype
        if (dt.itemsize // 2 if dt.kind == "c" else dt.itemsize) > widest:
            _upcast(func, args, kwargs, o, widest, kinds, site, acc)


def _upcast(func: Any, args: tuple, kwargs: dict, o: Any, widest: int, kinds: str,
            site: int, acc: list) -> None:
    """The slow path of ``scan`` for a result wider than its operands."""
    dt = o.dtype
    if not is_upcast(dt, widest, kinds):
        return
    if kwargs and (kwargs.get("dtype") is not None or kwargs.get("signature") is not None
                   or kwargs.get("out") is not None):
        return
    st = o.storage
    for a in _operands(args):
        if type(a) is FakeArray and a.storage is st:  # a view or the op's own input
            return
    if any(type(a) in _PY_SCALARS for a in _operands(args)) and \
            not widened_without_python_scalars(func, args, dt, widest):
        return
    src = max((x.dtype for x in _operands(args) if type(x) is FakeArray and x.shape),
              key=precision)
    acc.append(Finding("upcast", op_name(func), site, upcast_bytes(o.size, dt, widest),
                       (str(src), str(dt))))


# --- the report's rows ----------------------------------------------------------------------------

def message(kind: str, op: str, dtypes: tuple = ()) -> str:
    """One line naming what happened and the fix."""
    if kind == "upcast":
        src, dst = dtypes
        if np.dtype(src).kind in "biu":
            return (f"{op} widened {src} to {dst}: convert the operands to the dtype you want "
                    f"first, or pass dtype= to the op")
        return (f"{op} widened {src} to {dst} (a NumPy scalar, a 0-d array or the op itself): "
                f"make such operands {src} (np.{src}(x)), or pass dtype={src}")
    if kind == "implicit_copy":
        if op.rsplit(".", 1)[-1] in _RESHAPES:
            return (f"{op} copied: no strides express it for this layout; make the array "
                    "contiguous once where it is made, or keep the axes in order")
        return (f"{op} copied operands first (another dtype or layout than the kernel "
                "needs): give the operands one dtype and a contiguous layout")
    return (f"{op} writes into an array overlapping its input, so the input was copied "
            "first: write to a separate output (out=) or copy the slice explicitly")


def aggregate(findings: list, sites: Any) -> list[dict]:
    """Rows ``{"kind", "file", "line", "function", "bytes", "count", "message"}``, one per
    (kind, file, line), bytes summed over occurrences, the messages of different ops on
    one line joined; most bytes first."""
    rows: dict = {}
    for f in findings:
        file, line, fn = sites.line(f.site)
        key = (f.kind, file, line)
        row = rows.get(key)
        text = message(f.kind, f.op, f.dtypes)
        if row is None:
            rows[key] = {"kind": f.kind, "file": file, "line": line, "function": fn,
                         "bytes": f.bytes, "count": 1, "message": text}
        else:
            row["bytes"] += f.bytes
            row["count"] += 1
            if text not in row["message"].split("; also "):  # two ops on one line
                row["message"] += "; also " + text
    return sorted(rows.values(), key=lambda r: (-r["bytes"], r["kind"], str(r["file"]),
                                                r["line"] or 0))
