"""Sample inputs for differential checks: arrays described by ``A`` specs (layout, shape,
dtype, fill) and built on a backend (numpy or cupy) only when a call runs, ``Sample`` calls,
and the generators that draw awkward layouts (C, F, transposed, negative-stride, strided,
broadcast, offset, permuted, 0-d, empty, read-only, unaligned) over every dtype family.

One definition, used by the op table (tests/opinfo.py) and by ``faketensor coverage``
(meta_utils/surveys/survey.py), which runs them on real NumPy and on fakes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ...modes.crossref import map_leaves as walk  # f over the leaves of tuples, lists, dicts

# --- array specs -------------------------------------------------------------------------------

# CuPy has no long double, datetime, string, object or non-native byte order (DESIGN.md).
_CUPY_KINDS = set("biufc")


# Strings of several lengths (tabs, separators, case, non-ASCII) for ``"text"`` fills.
TEXT = ("", "a", "Ab c", "x\ty-b", "hello", "\u00df\u00e9", "  pad ", "12", "Ti Tl", "b-a-b")
_TEXT_FILLS = {"": TEXT, "arange": TEXT[::-1], "1": ("ab",), "0": ("",),
               "mixed": TEXT[3:] + TEXT[:3], "extreme": tuple(sorted(TEXT, key=len, reverse=True))}


def _text(shape: tuple, dt: np.dtype, fill: str):
    """A string array (U, S or StringDType) for fill ``"text"`` or ``"text:<refill>"``: the
    survey's refills give other strings, so a width the values decide shows up."""
    vals = _TEXT_FILLS[fill.partition(":")[2]]
    n = math.prod(shape)
    items: list[str | bytes] = [vals[i % len(vals)] for i in range(n)]
    if dt.kind == "S":
        items = [str(v).encode("ascii", "replace") for v in items]
    return np.array(items, dtype=dt).reshape(shape)


def base(xp, shape: tuple, dt: np.dtype, fill: Any):
    """A fresh C array of shape: ones (zeros for non-numbers), ``"arange"`` (1, 2, ... 5, 1, ...),
    ``"extreme"`` (the dtype's most negative value, a complex one with an imaginary part),
    ``"wellcond"`` (4 I + arange / 20 over the last two axes: invertible matrices) or, for
    string dtypes, ``"text"`` (``_text``)."""
    if isinstance(fill, str) and fill.startswith("text"):
        if dt.kind in "SU" or dt.char == "T":
            return _text(shape, dt, fill)
        fill = 1  # a number array next to string ones
    if dt.kind not in "biufc":
        return xp.zeros(shape, dt)
    if fill == "arange":
        return (xp.arange(math.prod(shape)) % 5 + 1).astype(dt).reshape(shape)
    if fill == "extreme":  # the dtype's most negative value (the largest for unsigned, True)
        if dt.kind == "b":
            return xp.ones(shape, dt)
        if dt.kind in "iu":
            info = np.iinfo(dt)
            return xp.full(shape, info.max if dt.kind == "u" else info.min, dt)
        m = float(np.finfo(dt).max)
        return xp.full(shape, complex(-m, m) if dt.kind == "c" else -m, dt)
    if fill == "wellcond":
        vals = xp.arange(math.prod(shape), dtype=np.float64).reshape(shape) / 20
        if len(shape) >= 2 and shape[-1] == shape[-2]:
            vals = vals + 4 * xp.eye(shape[-1])
        return vals.astype(dt)
    return xp.full(shape, fill, dt)


def laid_out(xp, kind: str, shape: tuple, make: Callable):
    """An array of ``shape`` laid out as ``kind`` (built from fresh C arrays made by ``make``)."""
    nd = len(shape)
    if kind == "C" or (nd == 0 and kind != "C"):
        return make(shape)
    if kind == "F":
        return xp.asfortranarray(make(shape))
    if kind == "T":  # transposed view of a C array
        return make(shape[::-1]).T
    if kind == "mT":  # last two axes swapped
        return xp.swapaxes(make(shape[:-2] + shape[-2:][::-1]), -1, -2)
    if kind == "neg":  # negative stride on the last axis
        return make(shape)[..., ::-1]
    if kind == "strided":  # every other element of the last axis
        return make(shape[:-1] + (2 * shape[-1],))[..., ::2]
    if kind == "bcast":  # stride 0 on the first axis (read-only in NumPy)
        return xp.broadcast_to(make(shape[1:]), shape)
    if kind == "offset":  # a view starting one row into its buffer
        return make((shape[0] + 1,) + shape[1:])[1:]
    if kind == "perm":  # neither C- nor F-ordered: first two axes swapped
        return xp.swapaxes(make((shape[1], shape[0]) + shape[2:]), 0, 1)
    if kind == "ro":  # read-only, not broadcast (NumPy only)
        out = make(shape)
        out.flags.writeable = False
        return out
    if kind == "unaligned":  # one byte into its buffer (NumPy only)
        src = make(shape)
        buf = np.zeros(src.nbytes + 1, np.uint8)
        out = np.ndarray(shape, src.dtype, buffer=buf, offset=1)
        out[...] = src
        return out
    raise ValueError(f"unknown layout {kind!r}")


@dataclass(frozen=True)
class A:
    """An input array, described: layout over shape, dtype, fill (see ``base``)."""
    layout: str = "C"
    shape: tuple = (3, 4)
    dtype: str = "f8"
    fill: Any = 1

    def make(self, xp) -> Any:
        dt = np.dtype(self.dtype)
        return laid_out(xp, self.layout, tuple(self.shape), lambda s: base(xp, s, dt, self.fill))

    @property
    def id(self) -> str:
        shape = "x".join(map(str, self.shape)) or "0d"
        fill = "" if self.fill == 1 else f"~{self.fill}"
        return f"{self.layout}.{self.dtype}.{shape}{fill}"

    def on_cupy(self) -> bool:
        dt = np.dtype(self.dtype)
        return self.layout not in ("ro", "unaligned") and dt.kind in _CUPY_KINDS and dt.isnative and dt.itemsize <= 16 and dt.char not in "gG"


def leaves(obj: Any) -> list:
    """The leaves of nested tuples, lists and dicts (the arrays and values of a call)."""
    found: list = []
    walk(obj, found.append)
    return found


def _specs(obj: Any) -> list[A]:
    return [x for x in leaves(obj) if isinstance(x, A)]


def _short(v: Any) -> str:
    if isinstance(v, A):
        return v.id
    if isinstance(v, (list, tuple)):
        inner = ",".join(_short(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner})"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{_short(x)}" for k, x in v.items()) + "}"
    if isinstance(v, type):
        return v.__name__
    if isinstance(v, np.dtype):
        return str(v)
    if callable(v):
        return getattr(v, "__name__", "fn")
    return repr(v).replace(" ", "")


@dataclass(frozen=True)
class Sample:
    """One call's arguments (``A`` specs anywhere inside are built on the backend).

    ``refuses``: the answer depends on values, so the fake must raise DataDependentError
    (or UnsupportedOperationError) instead of answering."""
    args: tuple
    kwargs: dict = field(default_factory=dict)
    name: str = ""
    refuses: bool = False

    @property
    def id(self) -> str:
        if self.name:
            return self.name
        parts = [_short(a) for a in self.args] + [f"{k}={_short(v)}" for k, v in self.kwargs.items()]
        return "-".join(parts)

    def build(self, xp) -> tuple[tuple, dict]:
        return walk((self.args, self.kwargs), lambda x: x.make(xp) if isinstance(x, A) else x)

    def on_cupy(self) -> bool:
        return all(a.on_cupy() for a in _specs((self.args, self.kwargs)))



def call_by_name(name: str, xp, *args: Any, **kwargs: Any) -> Any:
    """``"sqrt"``: xp.sqrt; ``"fft.rfft"``: xp.fft.rfft; ``".reshape"``: the first argument's
    method; ``"np.flip"``: NumPy's own function whatever xp is (its dispatch to CuPy arrays)."""
    if name.startswith("."):
        return getattr(args[0], name[1:])(*args[1:], **kwargs)
    fn: Any
    fn, parts = (np, name.split(".")[1:]) if name.startswith("np.") else (xp, name.split("."))
    for part in parts:
        fn = getattr(fn, part)
    return fn(*args, **kwargs)




# --- sample generators -------------------------------------------------------------------------

SHAPE = (3, 4)
LAYOUTS = ("C", "F", "T", "neg", "strided", "bcast", "offset")
INTS = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]
FLOATS = ["f2", "f4", "f8", "g"]
COMPLEX = ["c8", "c16", "G"]
NUMERIC = ["?"] + INTS + FLOATS + COMPLEX + [">f8"]
TIMES = ["M8[s]", "m8[ms]"]
ALL = NUMERIC + TIMES
# Views and copies apply to every dtype: strings, objects, structured too.
EVERY = ALL + ["U3", "S2", "O", "i4,f8", "i4,O", ">c16"]


def arrays(dtype: str = "f8", fill: Any = 1) -> list[A]:
    """Every awkward layout of one dtype: the layouts of SHAPE, a 3-d permuted, 0-d, empty
    (fresh and sliced), 1-d reversed, read-only and unaligned arrays."""
    return ([A(k, SHAPE, dtype, fill) for k in LAYOUTS]
            + [A("perm", (2, 3, 4), dtype, fill), A("C", (), dtype, fill), A("C", (0, 4), dtype, fill),
               A("T", (3, 0), dtype, fill), A("neg", (5,), dtype, fill), A("F", (1, 4, 1), dtype, fill),
               A("ro", SHAPE, dtype, fill), A("unaligned", (2, 3), dtype, fill)])


def dtype_arrays(dtypes: Sequence[str], fill: Any = 1) -> list[A]:
    """One array per dtype, the layouts taken in turn."""
    return [A(LAYOUTS[i % len(LAYOUTS)], SHAPE, d, fill) for i, d in enumerate(dtypes) if d != "f8"]


def unary(dtypes: Sequence[str] = NUMERIC, variants: Sequence[dict] = ({},), fill: Any = 1,
          extra: Sequence = ()) -> Callable[[], list[Sample]]:
    """Each awkward array (float64) and each dtype, with each keyword variant."""
    def gen() -> list[Sample]:
        ins = arrays(fill=fill) + dtype_arrays(dtypes, fill)
        return [Sample((a,) + tuple(extra), dict(kw)) for kw in variants for a in ins]
    return gen


def binary(dtypes: Sequence[str] = NUMERIC, scalars: Sequence = (2, 1.5, 1j, True, 300, -1),
           variants: Sequence[dict] = ({},)) -> Callable[[], list[Sample]]:
    """Pairs: awkward layouts against a C array (both orders), broadcasting (stride 0, 0-d,
    empty), Python scalars (NEP 50, out-of-range ints) and mixed dtypes."""
    def gen() -> list[Sample]:
        c = A("C", SHAPE)
        pairs = [(a, c) for a in arrays()] + [(c, A(k, SHAPE)) for k in ("F", "neg", "bcast")]
        pairs += [(A("C", SHAPE), A("neg", (4,))), (A("F", (3, 1)), A("C", (1, 4))),
                  (A("C", ()), A("T", SHAPE)), (A("C", (0, 4)), A("C", (4,))),
                  (A("perm", (2, 3, 4)), A("T", SHAPE)), (A("C", (2, 1, 4)), A("F", (3, 1))),
                  (A("C", (3,)), A("C", (4,)))]
        pairs += [(A("F", SHAPE, d), s) for d in ("f8", "i1", "u1") for s in scalars]
        pairs += [(s, A("T", SHAPE)) for s in scalars[:2]]
        ds = [d for d in dtypes]
        pairs += [(A(LAYOUTS[i % len(LAYOUTS)], SHAPE, d), A("C", SHAPE, ds[(i + 3) % len(ds)]))
                  for i, d in enumerate(ds)]
        pairs += [(A("C", SHAPE, d), A("T", SHAPE, d)) for d in ds]
        return [Sample(p, dict(kw)) for kw in variants for p in pairs]
    return gen


def ternary(dtypes: Sequence[str] = ("f8", "i1", "c8", "?", "f4")) -> Callable[[], list[Sample]]:
    def gen() -> list[Sample]:
        out = [Sample((a, A("C", SHAPE), A("F", SHAPE))) for a in arrays()]
        out += [Sample((A("C", SHAPE, d), A("T", SHAPE, d), 2)) for d in dtypes]
        out += [Sample((A("C", (3, 1)), A("C", (4,)), A("C", ())))]
        return out
    return gen


def reduction(dtypes: Sequence[str] = NUMERIC, variants: Sequence[dict] = (
        {}, {"axis": 0}, {"axis": -1, "keepdims": True}, {"axis": (0, 1)}, {"axis": None, "keepdims": True},
        {"axis": 2}), fill: Any = 1) -> Callable[[], list[Sample]]:
    """Each awkward array with each axis/keepdims variant (bad axes included), each dtype."""
    def gen() -> list[Sample]:
        out = [Sample((a,), dict(kw)) for kw in variants for a in arrays(fill=fill)]
        out += [Sample((a,), dict(kw)) for kw in variants[:3] for a in dtype_arrays(dtypes, fill)]
        return out
    return gen


def sequences(n: int = 2, variants: Sequence[dict] = ({},), dtypes: Sequence[str] = NUMERIC
              ) -> Callable[[], list[Sample]]:
    """A list of n arrays as the first argument: each layout with a C partner, mixed dtypes
    and shapes that do not fit."""
    def gen() -> list[Sample]:
        seqs = [[a] + [A("C", a.shape)] * (n - 1) for a in arrays()]
        seqs += [[A("F", SHAPE)] * n, [A("T", SHAPE), A("F", SHAPE, "f4")] + [A("C", SHAPE, "i1")] * (n - 2),
                 [A("C", SHAPE), A("C", (3, 5))], [A("C", SHAPE), A("C", (4,))]]
        seqs += [[A(LAYOUTS[i % len(LAYOUTS)], SHAPE, d), A("C", SHAPE, dtypes[(i + 5) % len(dtypes)])]
                 for i, d in enumerate(dtypes)]
        return [Sample((s,), dict(kw)) for kw in variants for s in seqs]
    return gen


def samples(*items: Any) -> Callable[[], list[Sample]]:
    """Explicit samples: each item a Sample, or a tuple of positional arguments."""
    def gen() -> list[Sample]:
        return [s if isinstance(s, Sample) else Sample(tuple(s)) for s in items]
    return gen


def join(*gens: Callable[[], Iterable[Sample]]) -> Callable[[], list[Sample]]:
    """The samples of every generator, each id once (equal ids are equal calls)."""
    def gen() -> list[Sample]:
        out: dict = {}
        for g in gens:
            for s in g():
                out.setdefault(s.id, s)
        return list(out.values())
    return gen


class V:
    """One variant of a call: the arguments after the operands (``_seq``: the operands go in
    as one list, as for concatenate)."""

    def __init__(self, *args: Any, _seq: bool = False, **kwargs: Any) -> None:
        self.args, self.kwargs, self.seq = args, kwargs, _seq


def on(operands: dict, *variants: V) -> Callable[[], list[Sample]]:
    """Every operand (an ``A``, or a tuple of them) of a named set with every variant."""
    def gen() -> list[Sample]:
        out = []
        for v in variants:
            for ops in operands.values():
                ops = ops if isinstance(ops, tuple) else (ops,)
                out.append(Sample(((list(ops),) if v.seq else ops) + v.args, dict(v.kwargs)))
        return out
    return gen
