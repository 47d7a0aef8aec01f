"""``ft.explain(x)``: how an array came to have its layout, dtype and aliasing.

For a fake made under a recording ``FakeMode`` the trace (modes/trace.py) is walked back
from ``x``'s serial: each entry that produced the array, through views, in-place writes and
copies of one array, to a fresh allocation; each step's metadata is what the entry recorded,
its source line the user's (modes/sites.py). The other live fakes on ``x``'s storage are
listed with NumPy's exact overlap answer (kernels/numpy/overlap.py). Nothing is added to the
recording path: the index of producers is built here, when asked.

For a real ndarray (or a fake no recording mode saw) only what its metadata tells: the
``base`` chain and the flags of each array on it.
"""
from __future__ import annotations

import bisect
import itertools
import weakref
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ..._array import FakeArray
from ..._storage import SCALAR
from ..._stack import paused
from ..._dispatch import mode_stack
from ..._wrapped import WrappedArray, unwrap
from ...layout import (contiguity, cupy_reshape, dense_in_stride_order, reshape_strides,
                      resolve_shape)
from ...kernels.numpy.overlap import fake_shares_memory
from ...modes.fake_mode import RECORDING
from ...modes.trace import TraceRef

__all__ = ["Explanation", "Step", "Sharer", "explain"]


@dataclass(frozen=True)
class Step:
    """One operation on the way to the array, with the metadata of its result."""

    op: str | None          # "np.add", "ndarray.reshape"; None: no recorded op (real array)
    file: str | None        # the user's source line that called it (None: not recorded)
    line: int | None
    function: str | None
    kind: str               # "fresh" | "view" | "copy" | "inplace"
    shape: tuple
    dtype: np.dtype
    strides: tuple
    offset: int             # byte offset of the first element in the buffer
    c_contiguous: bool
    f_contiguous: bool
    why: str | None = None  # for a copy: why NumPy had to copy
    dtype_from: np.dtype | None = None  # the dtype before, where this step changed it
    lost: tuple = ()        # "C" / "F": the contiguity this step lost
    note: str | None = None  # a remark: what is known of an unrecorded step, why a fresh
    #                          result is not C-contiguous, an op that returned its input


@dataclass(frozen=True)
class Sharer:
    """Another live array on the same buffer, where it was made, and whether bytes overlap."""

    file: str | None
    line: int | None
    function: str | None
    op: str | None
    shape: tuple
    dtype: np.dtype
    strides: tuple
    offset: int
    overlaps: bool


@dataclass(frozen=True)
class Explanation:
    """What ``ft.explain`` found: ``steps`` oldest first (the last is the array itself),
    ``shares_with`` the other live arrays on its buffer; ``recorded`` says whether the steps
    come from a recording mode's trace or from the metadata (``base`` chain) alone."""

    steps: tuple
    shares_with: tuple
    recorded: bool
    notes: tuple = field(default=())

    @property
    def copies(self) -> tuple:
        """The copy steps (each with its ``why``)."""
        return tuple(s for s in self.steps if s.kind == "copy")

    def to_dict(self) -> dict:
        """The fields as plain JSON-able values (dtypes as their names)."""
        def plain(d: dict) -> dict:
            return {k: (str(v) if isinstance(v, np.dtype) else
                        list(v) if isinstance(v, tuple) else v) for k, v in d.items()}
        return {"steps": [plain(asdict(s)) for s in self.steps],
                "shares_with": [plain(asdict(s)) for s in self.shares_with],
                "recorded": self.recorded, "notes": list(self.notes)}

    def __str__(self) -> str:
        if not self.steps:
            return "no steps"
        x = self.steps[-1]
        lines = [f"{_geometry(x)}, {_flags(x)}"]
        lines.append("made by (oldest first):" if self.recorded else
                     "what its metadata tells (base chain, oldest first; no recorded ops):")
        for i, s in enumerate(self.steps, 1):
            lines.append(f"  {i}. {s.kind:<7} {s.op or '(no op)'}{_where(s)}")
            lines.append(f"       -> {_geometry(s)}, {_flags(s)}")
            for mark in _marks(s):
                lines.append(f"       ^ {mark}")
        if self.shares_with:
            lines.append("shares its buffer with:")
            for o in self.shares_with:
                lines.append(f"  {o.op or '(no op)'}{_where(o)}")
                lines.append(f"       -> {_geometry(o)}, "
                             f"{'overlaps' if o.overlaps else 'no byte in common'}")
        elif self.recorded:
            lines.append("shares its buffer with no other live array")
        lines.extend(self.notes)
        return "\n".join(lines)


def _where(s: Any) -> str:
    if not s.file:
        return ""
    return f"  at {_short(s.file)}:{s.line}" + (
        f" in {s.function}" if s.function and s.function != "<module>" else "")


def _short(path: str | None) -> str:
    import os
    if not path:
        return "-"
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _geometry(s: Any) -> str:
    return f"{s.dtype} {s.shape} strides {s.strides}"


def _flags(s: Any) -> str:
    c, f = s.c_contiguous, s.f_contiguous
    if c and f:
        return "C- and F-contiguous"
    if c:
        return "C-contiguous"
    if f:
        return "F-contiguous"
    return "not contiguous"


def _marks(s: Step) -> list:
    out = []
    for flag in s.lost:
        out.append(f"{flag}-contiguity lost here")
    if s.dtype_from is not None:
        out.append(f"dtype changed here: {s.dtype_from} -> {s.dtype}")
    if s.why:
        out.append(f"copy: {s.why}")
    if s.note:
        out.append(s.note)
    return out


# --- where a fake came from: the recording mode and its producer index -------------

class _Index:
    """Per recording mode, extended as the trace grows: fake serial -> indices of the trace
    entries that output it (ascending), and storage serial -> the fake serials on it."""

    __slots__ = ("n", "producers", "n_st", "on_storage")

    def __init__(self) -> None:
        self.n = 0
        self.producers: dict = {}
        self.n_st = 0
        self.on_storage: dict = {}

    def update(self, trace: list, storage_of: dict) -> "_Index":
        prod = self.producers
        for i in range(self.n, len(trace)):
            for s in trace[i].out_ids:
                lst = prod.get(s)
                if lst is None:
                    prod[int(s)] = [i]
                elif lst[-1] != i:
                    lst.append(i)
        self.n = len(trace)
        if len(storage_of) > self.n_st:  # storage_of only grows (modes/trace.py TraceIds)
            on = self.on_storage
            for s, st in itertools.islice(list(storage_of.items()), self.n_st, None):
                on.setdefault(st, []).append(int(s))
            self.n_st = len(storage_of)
        return self

    def last_before(self, serial: int, bound: int) -> int | None:
        lst = self.producers.get(serial)
        if not lst:
            return None
        k = bisect.bisect_left(lst, bound)
        return lst[k - 1] if k else None

    def first(self, serial: int) -> int | None:
        lst = self.producers.get(serial)
        return lst[0] if lst else None


_INDEXES: "weakref.WeakKeyDictionary[Any, _Index]" = weakref.WeakKeyDictionary()


def _index(mode: Any) -> _Index:
    ix = _INDEXES.get(mode)
    if ix is None:
        ix = _INDEXES[mode] = _Index()
    return ix.update(mode.trace, mode.ids.storage_of)


def _find_mode(x: FakeArray, mode: Any) -> tuple:
    """(mode, serial) of the recording mode that knows x: modes on the stack first
    (innermost first), then the recording x's buffer was allocated in (its tracker, the mode's
    ``memory``, holds the mode's ``Recording``: trace, serials, sites), then the other live
    modes; one with an entry producing x preferred."""
    if mode is not None:
        mode = getattr(mode, "mode", mode)  # a Plan holds its mode
        if getattr(mode, "ids", None) is None or not getattr(mode, "record", False):
            raise TypeError("explain: mode must be a FakeMode(record=True) or a Plan")
        return mode, mode.ids.get(x)
    found = [m for m in reversed(mode_stack()) if getattr(m, "record", False)
             and getattr(m, "ids", None) is not None]
    for stats in getattr(x.storage._tracker, "stats", ()):
        m = getattr(stats, "mode", None)
        if m is not None and m not in found:
            found.append(m)
    found += [m for m in list(RECORDING) if m not in found]
    known = None
    for m in found:
        s = m.ids.get(x)
        if s is None:
            continue
        if _index(m).first(s) is not None:
            return m, s
        if known is None:
            known = (m, s)
    return known if known is not None else (None, None)


# --- steps -------------------------------------------------------------------------

# Operations whose fresh result is a copy of one array argument's elements (reordered,
# selected or converted): (op name -> position of that argument, keyword name).
_COPY_SOURCE = {
    "ndarray.copy": (0, None), "np.copy": (0, "a"), "ndarray.__copy__": (0, None),
    "ndarray.__deepcopy__": (0, None), "ndarray.astype": (0, None), "np.astype": (0, "x"),
    "ndarray.flatten": (0, None), "ndarray.ravel": (0, None), "np.ravel": (0, "a"),
    "ndarray.reshape": (0, None), "np.reshape": (0, "a"), "ndarray.__getitem__": (0, None),
    "ndarray.take": (0, None), "np.take": (0, "a"), "np.take_along_axis": (0, "arr"),
    "ndarray.compress": (0, None), "np.compress": (1, "a"), "np.array": (0, "object"),
    "np.asarray": (0, "a"), "np.asanyarray": (0, "a"), "np.ascontiguousarray": (0, "a"),
    "np.asfortranarray": (0, "a"), "np.require": (0, "a"), "np.asarray_chkfinite": (0, "a"),
    "ndarray.repeat": (0, None), "np.repeat": (0, "a"), "np.tile": (0, "A"),
    "np.resize": (0, "a"), "np.roll": (0, "a"), "np.fft.fftshift": (0, "x"),
    "np.fft.ifftshift": (0, "x"), "np.matrix_transpose": (0, "x"), "np.transpose": (0, "a"),
    "np.squeeze": (0, "a"), "np.expand_dims": (0, "a"), "np.moveaxis": (0, "a"),
    "np.swapaxes": (0, "a"), "ndarray.swapaxes": (0, None), "ndarray.transpose": (0, None),
    "np.broadcast_to": (0, "array"), "np.atleast_1d": (0, None), "np.atleast_2d": (0, None),
    "np.atleast_3d": (0, None), "np.diagonal": (0, "a"), "ndarray.diagonal": (0, None),
    "np.flip": (0, "m"), "np.diag": (0, "v"),
}

_EXPLICIT = {"ndarray.copy", "np.copy", "ndarray.__copy__", "ndarray.__deepcopy__"}
_ALWAYS = {
    "ndarray.flatten": "flatten always returns a copy (ravel or reshape(-1) return a view "
                       "where the layout allows)",
    "ndarray.take": "take always copies the selected elements",
    "np.take": "take always copies the selected elements",
    "np.take_along_axis": "take_along_axis always copies the selected elements",
    "ndarray.compress": "compress always copies the selected elements",
    "np.compress": "compress always copies the selected elements",
    "ndarray.repeat": "repeat always writes a new array",
    "np.repeat": "repeat always writes a new array",
    "np.tile": "tile always writes a new array",
    "np.resize": "resize always writes a new array",
    "np.roll": "roll always writes a new array (no strides can express a rotation)",
    "np.fft.fftshift": "fftshift is a roll, which always writes a new array",
    "np.fft.ifftshift": "ifftshift is a roll, which always writes a new array",
}


def _arg(spec: tuple, pos: int, name: str | None) -> Any:
    args, kwargs = spec
    if pos < len(args):
        return args[pos]
    return kwargs.get(name) if name else None


def _name(e: Any) -> str:
    """The op's name with CuPy's namespace spelled as NumPy's (the tables below)."""
    op = e.op
    return "np." + op[5:] if op.startswith("cupy.") else op


def _copy_source(e: Any) -> int | None:
    where = _COPY_SOURCE.get(_name(e))
    if where is None:
        return None
    a = _arg(e.spec, *where)
    return int(a) if type(a) is TraceRef else None


def _writes(e: Any, serial: int) -> bool:
    """Whether the entry wrote into its output: given as ``out=`` (an in-place operator, a
    temporary NumPy elided, an explicit ``out=``)."""
    out = e.spec[1].get("out") if e.spec[1] else None
    if type(out) is TraceRef and int(out) == serial:
        return True
    if isinstance(out, tuple) and any(type(o) is TraceRef and int(o) == serial for o in out):
        return True
    return False


def _meta_tuple(m: Any) -> tuple:
    return (tuple(m.shape), m.dtype, tuple(m.strides), int(m.storage_offset))


class _Walk:
    """The recorded metadata of fake serials, as of a point in the trace."""

    def __init__(self, mode: Any) -> None:
        self.mode = mode
        self.trace = mode.trace
        self.ix = _index(mode)
        self.ids = mode.ids

    def meta(self, serial: int, bound: int) -> tuple | None:
        """(shape, dtype, strides, offset) of serial as made before entry ``bound``."""
        j = self.ix.last_before(serial, bound)
        if j is not None:
            e = self.trace[j]
            m = e.meta[e.out_ids.index(serial)]
            return (tuple(m[0]), m[1], tuple(m[2]), int(m[3]))
        live = self.ids.weak.get(serial)
        live = live() if live is not None else None
        if type(live) is FakeArray:
            return _meta_tuple(live)
        return None

    def site(self, j: int) -> tuple:
        return self.mode.sites.line(self.trace[j].site)


def _step(op: Any, where: tuple, kind: str, meta: tuple, **kw: Any) -> dict:
    shape, dtype, strides, offset = meta
    c, f = contiguity(shape, strides, dtype.itemsize)
    return dict(op=op, file=where[0], line=where[1], function=where[2], kind=kind,
                shape=shape, dtype=dtype, strides=strides, offset=offset, c_contiguous=c,
                f_contiguous=f, **kw)


def _recorded_steps(w: _Walk, serial: int) -> tuple[list, list]:
    """Steps newest first, back from serial to a fresh allocation or an unrecorded array;
    and notes."""
    out: list = []
    notes: list = []
    s, bound = serial, len(w.trace)
    while True:
        j = w.ix.last_before(s, bound)
        if j is None:
            origin = w.ids.real_inputs.get(s)
            if origin is not None:
                out.extend(reversed(_metadata_steps(origin, "real array given to the mode")))
            else:
                live = w.ids.weak.get(s)
                live = live() if live is not None else None
                if live is not None:
                    out.extend(reversed(_metadata_steps(
                        live, "fake made outside the recording mode")))
                else:
                    notes.append("the array it came from was made outside the recording "
                                 "and is gone")
            break
        e = w.trace[j]
        k = e.out_ids.index(s)
        m = e.meta[k]
        meta = (tuple(m[0]), m[1], tuple(m[2]), int(m[3]))
        alias = e.alias[k]
        where = w.site(j)
        nxt = None
        extra: dict = {}
        if alias == "fresh":
            src = _copy_source(e)
            if src is not None:
                kind = "copy"
                nxt = src
                extra["why"] = _why(e, w.meta(src, j), meta, m[4])
            else:
                kind = "fresh"
                extra["_operands"] = [w.meta(i, j) for i in e.in_ids]
                extra["note"] = _fresh_layout(e, meta)
        else:
            nxt = e.in_ids[alias[1]]
            kind = "inplace" if alias[0] == "inplace" and _writes(e, s) else "view"
            if alias[0] == "inplace" and kind == "view":
                extra["note"] = f"{e.op} returned its input itself"
        out.append(_step(e.op, where, kind, meta, **extra))
        if nxt is None:
            break
        s, bound = nxt, j
    return out, notes


def _finish(raw: list) -> tuple:
    """Oldest first, with the step where contiguity was lost and the dtype changed marked."""
    steps = []
    prev = None
    for d in raw:
        operands = d.pop("_operands", None)
        lost: list[Any] = []
        for flag, key in (("C", "c_contiguous"), ("F", "f_contiguous")):
            if prev is not None and prev[key] and not d[key]:
                lost.append(flag)
        before = None
        if prev is not None:
            before = prev["dtype"]
        elif operands:
            arrays = [m for m in operands if m is not None and len(m[0]) >= 1] or \
                [m for m in operands if m is not None]
            if arrays:
                before = max((m[1] for m in arrays), key=lambda dt: dt.itemsize)
        d["lost"] = tuple(lost)
        d["dtype_from"] = before if before is not None and before != d["dtype"] else None
        steps.append(Step(**d))
        prev = d
    return tuple(steps)


def _fresh_layout(e: Any, meta: tuple) -> str | None:
    """Why a fresh result of a ufunc or a factory is not C-contiguous, where the call says."""
    shape, dtype, strides, _ = meta
    if contiguity(shape, strides, dtype.itemsize)[0]:
        return None
    order = e.spec[1].get("order") if e.spec[1] else None
    if order is not None:
        return f"not C-contiguous from the start: order={order!r} was asked"
    if isinstance(e.func, np.ufunc) and e.in_ids:
        return ("not C-contiguous from the start: a ufunc's result keeps its operands' "
                "memory order (order='K')")
    return None


# --- why NumPy copied -------------------------------------------------------------

def _describe(meta: tuple) -> str:
    """A few words on a layout, from its strides alone."""
    shape, dtype, strides, _ = meta
    big = [(n, s) for n, s in zip(shape, strides) if n > 1]
    if any(s == 0 for n, s in big):
        return "broadcast (stride 0)"
    if any(s < 0 for n, s in big):
        return "reversed (negative-stride)"
    c, f = contiguity(shape, strides, dtype.itemsize)
    if c:
        return "C-ordered"
    if f:
        return "transposed (F-ordered)"
    if dense_in_stride_order(shape, strides, dtype.itemsize):
        return "transposed (axes permuted)"
    return "strided (it skips elements)"


def _order_of(e: Any, pos: int, default: str = "C") -> str:
    o = _arg(e.spec, pos, "order")
    return default if o is None else str(o).upper()


def _why(e: Any, src: tuple | None, out: tuple, device: str = "cpu") -> str:
    """One sentence on why NumPy (or CuPy) copied, decided from the source's layout with the
    rule the kernels use (layout.reshape_strides: _attempt_nocopy_reshape in NumPy's
    shape.c; layout.cupy_reshape: CuPy's _reshape)."""
    op = _name(e)
    if op in _ALWAYS:
        return _ALWAYS[op]
    if op in _EXPLICIT:
        return "an explicit copy"
    if src is None:
        return f"{op} returned a new array"
    shape, dtype, strides, _ = src
    desc = _describe(src)
    c, f = contiguity(shape, strides, dtype.itemsize)
    if op in ("ndarray.reshape", "np.reshape"):
        if op == "np.reshape":
            order = _order_of(e, 2)
            copy = _arg(e.spec, 4, "copy")
        else:
            order = str(e.spec[1].get("order", "C")).upper() if e.spec[1] else "C"
            copy = e.spec[1].get("copy") if e.spec[1] else None
        fortran = order == "F" or (order == "A" and f and not c)
        try:
            if device != "cpu" and not fortran:
                view = None if cupy_reshape(shape, strides, dtype.itemsize, out[0])[2] else 1
            else:
                _, view = reshape_strides(shape, strides, dtype.itemsize,
                                          resolve_shape(shape, out[0]), fortran)
        except ValueError:
            view = None
        if view is None:
            return (f"no strides can express this reshape of a {desc} array "
                    f"{shape} -> {out[0]} in order {'F' if fortran else 'C'}")
        if copy:
            return "copy=True was asked (a view was possible)"
        return f"reshape returned a new array of a {desc} array"
    if op in ("ndarray.ravel", "np.ravel"):
        order = _order_of(e, 1)
        if order == "K":
            return (f"ravel(order='K') gives a view only when the elements lie in memory "
                    f"order without gaps, and this array is {desc}")
        want = "F" if order == "F" or (order == "A" and f and not c) else "C"
        try:
            _, view = reshape_strides(shape, strides, dtype.itemsize, (-1,), want == "F")
        except ValueError:
            view = None
        tail = (f"; reshape(-1{', order=' + repr(want) if want == 'F' else ''}) would be "
                "a view" if view is not None else
                "; no strides can express it as one axis, so reshape(-1) copies too")
        return (f"ravel returns a {want}-contiguous array and this {desc} array is not "
                f"{want}-contiguous{tail}")
    if op == "ndarray.__getitem__":
        return "advanced indexing (an integer or boolean array in the index) always copies"
    if op in ("ndarray.astype", "np.astype"):
        if out[1] != dtype:
            return f"astype converts {dtype} to {out[1]} into a new array"
        return "astype copies by default (copy=True), even to the same dtype"
    if op in ("np.ascontiguousarray", "np.asfortranarray"):
        if out[1] != dtype:
            return f"the dtype changes ({dtype} -> {out[1]}), so the data is converted"
        want = "C" if op == "np.ascontiguousarray" else "F"
        return (f"the input is {desc}, not {want}-contiguous, so {op[3:]} copies it into "
                f"{want} order")
    if op in ("np.array", "np.asarray", "np.asanyarray", "np.require", "np.asarray_chkfinite"):
        if out[1] != dtype:
            return f"the dtype changes ({dtype} -> {out[1]}), so the data is converted"
        if op == "np.array" and _arg(e.spec, 2, "copy") in (None, True):
            return "np.array copies by default (copy=True); np.asarray would not"
        oc, of = contiguity(out[0], out[2], out[1].itemsize)
        if oc and not c:
            return f"the input is {desc}, not C-contiguous, and a C-ordered result was asked"
        if of and not f:
            return f"the input is {desc}, not F-contiguous, and an F-ordered result was asked"
        return f"{op} returned a new array"
    return f"{op} returned a new array"


# --- real arrays and unrecorded fakes: the base chain ------------------------------

def _offset(a: Any, root: Any) -> int:
    if type(a) is FakeArray:
        return int(a.storage_offset)
    try:
        return int(a.__array_interface__["data"][0] - root.__array_interface__["data"][0])
    except Exception:
        return 0


def _metadata_steps(x: Any, what: str) -> list:
    """The base chain of x as raw steps, oldest first: the owner, then x."""
    chain = _chain(x)
    root = chain[0]
    b = root.base  # None, or the buffer object under the first array
    out = []
    for i, a in enumerate(chain):
        owns = a.base is None
        if i == 0 and not owns:
            note = (f"{what}: a view of a {type(b).__module__}.{type(b).__qualname__} buffer"
                    if b is not None else what)
        elif i == 0:
            note = f"{what}: owns its data"
        else:
            note = f"{what}: a view of the array above"
        meta = (tuple(a.shape), a.dtype, tuple(a.strides), _offset(a, root))
        out.append(_step(None, (None, None, None), "fresh" if owns else "view", meta,
                         note=note if a is x or i == 0 else "a base of the array below"))
    return out


def _explain_metadata(x: Any) -> Explanation:
    raw = _metadata_steps(x, "real array" if type(x) is not FakeArray else "fake array")
    steps = _finish(raw)
    shares = []
    with paused():
        for a, s in zip(_chain(x)[:-1], steps[:-1]):
            if type(x) is FakeArray:
                ov = fake_shares_memory(x, a)
            else:
                ov = bool(np.shares_memory(x, a))
            shares.append(Sharer(None, None, None, None, s.shape, s.dtype, s.strides,
                                 s.offset, ov))
    return Explanation(steps, tuple(shares), False)


def _chain(x: Any) -> list:
    """x and its bases that are arrays, oldest first."""
    chain = [x]
    b = x.base
    while isinstance(b, (np.ndarray, FakeArray)):
        chain.append(b)
        b = b.base
    chain.reverse()
    return chain


# --- the entry point ---------------------------------------------------------------

def _sharers(w: _Walk, x: FakeArray, serial: int) -> list:
    ids = w.ids
    out = []
    for s in w.ix.on_storage.get(ids.storage_of.get(serial), ()):
        if s == serial:
            continue
        ref = ids.weak.get(s)
        o = ref() if ref is not None else None
        if type(o) is not FakeArray or o is x:
            continue
        j = w.ix.first(s)
        if j is not None:
            where, op = w.site(j), w.trace[j].op
        else:
            where, op = (None, None, None), None
        out.append(Sharer(where[0], where[1], where[2], op, tuple(o.shape), o.dtype,
                          tuple(o.strides), int(o.storage_offset), fake_shares_memory(x, o)))
    return out


def explain(x: Any, mode: Any = None) -> Explanation:
    """How ``x`` came to be: the recorded chain of ops behind a fake (the recording mode is
    found by itself; ``mode`` may name it, or a ``Plan``), or the base chain and flags of a
    real array. ``str()`` of the result is the readable account."""
    if isinstance(x, WrappedArray):
        x = unwrap(x)
    if type(x) is not FakeArray:
        if isinstance(x, np.ndarray):
            return _explain_metadata(x)
        raise TypeError(f"explain needs an array, not {type(x).__name__}")
    m, serial = _find_mode(x, mode)
    if m is None or serial is None:
        e = _explain_metadata(x)
        if x.storage._tracker is SCALAR:
            e = replace(e, notes=e.notes + (
                "a NumPy scalar holds no buffer, so nothing in it keeps its recording mode "
                "alive: explain it while the mode lives (`with FakeMode(record=True) as mode:`, "
                "or ft.plan) or pass mode=",))
        return e
    w = _Walk(m)
    with paused():
        raw, notes = _recorded_steps(w, serial)
        raw.reverse()
        cur = _meta_tuple(x)
        last = raw[-1] if raw else None
        if last is not None and (last["shape"], last["dtype"], last["strides"],
                                 last["offset"]) != cur:
            raw.append(_step(None, (None, None, None), "view", cur,
                             note="its shape, strides or dtype were set as attributes "
                                  "after the last recorded op"))
        shares = _sharers(w, x, serial)
    return Explanation(_finish(raw), tuple(shares), True, tuple(notes))
