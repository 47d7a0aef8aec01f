"""The op table: one ``OpInfo`` per op, with its sample inputs and its known gaps.

Modelled on PyTorch's OpInfo (torch/testing/_internal/common_methods_invocations.py), small:
an entry names the op, says how to call it on a backend's namespace ``xp`` (numpy or cupy),
lists its sample inputs (arrays described by ``A`` specs, built on the backend only when a
test runs) and its expected failures per sample id. ``tests/kernels/numpy/test_opinfo.py`` runs every entry
three ways: against real NumPy, under ``ft.CrossRefMode``, and against real CuPy (GPU only).

Adding an op = one kernel + one entry in ``TABLE`` (the tables are at the end of this file).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

import faketensor as ft
from faketensor.meta_utils.surveys.samples import (  # noqa: F401  (one definition, re-exported)
    ALL, COMPLEX, EVERY, FLOATS, INTS, LAYOUTS, NUMERIC, SHAPE, TIMES, A, Sample, V, _short, _specs,
    arrays, binary, call_by_name, dtype_arrays, join, leaves, on, reduction,
    samples, sequences, ternary, unary)
from faketensor.meta_utils.surveys.samples import base as _base, laid_out as _layout, walk as _walk  # noqa: F401

REFUSALS = (ft.DataDependentError, ft.UnsupportedOperationError)
WAYS = ("numpy", "crossref", "cupy")

# --- the entry ---------------------------------------------------------------------------------


@dataclass
class OpInfo:
    """One op: how to call it, its samples, where it runs, and its known gaps.

    ``op(xp, *args, **kwargs)`` calls it on namespace ``xp``; by default ``name`` says what to
    call: ``"sqrt"`` is ``xp.sqrt``, ``"fft.rfft"`` is ``xp.fft.rfft``, ``"add.reduce"`` is
    ``xp.add.reduce``, ``".reshape"`` the method of the first argument and ``"np.flip"``
    NumPy's own function whatever xp is. ``backends``: ``"numpy"``, ``"cupy"`` or both.
    ``xfail`` maps a sample id, or ``"way:sample id"`` for one way only (numpy, crossref, cupy),
    to the reason; each is a strict xfail, so a fixed gap fails until it is removed here.
    ``fake_mode``: run the fake call inside ``ft.FakeMode`` (functions NumPy never dispatches).
    ``crossref``: False where CrossRefMode cannot see the call (it intercepts nothing).
    ``gpu_may_refuse``: on CuPy a refusal (DataDependentError / UnsupportedOperationError)
    passes; answering differently never does.
    """
    name: str
    sample_inputs: Callable[[], Iterable[Sample]]
    op: Callable | None = None
    backends: tuple = ("numpy",)
    xfail: dict = field(default_factory=dict)
    fake_mode: bool = False
    crossref: bool = True
    gpu_may_refuse: bool = False

    def __call__(self, xp, *args: Any, **kwargs: Any) -> Any:
        if self.op is not None:
            return self.op(xp, *args, **kwargs)
        return call_by_name(self.name, xp, *args, **kwargs)

    def samples(self, way: str) -> list[Sample]:
        """The samples this entry runs ``way`` (an empty list where it does not run)."""
        backend = "numpy" if way == "crossref" else way
        if backend not in self.backends or (way == "crossref" and not self.crossref):
            return []
        out = list(self.sample_inputs())
        return [s for s in out if s.on_cupy()] if backend == "cupy" else out

    def xfail_reason(self, way: str, sample: Sample) -> str | None:
        return self.xfail.get(f"{way}:{sample.id}", self.xfail.get(sample.id))


def xfail_where(gen: Callable[[], Iterable[Sample]], pred: Callable[[Sample], bool], reason: str,
                way: str = "") -> dict:
    """An xfail dict for the samples of gen that pred selects (one reason for a whole class),
    for one way (numpy, crossref, cupy) or all."""
    prefix = f"{way}:" if way else ""
    return {prefix + s.id: reason for s in gen() if pred(s)}



# --- the table: NumPy's families (ufuncs, views, reductions, manipulation, joining) -----------

def _ufuncs() -> list[np.ufunc]:
    found = {id(u): u for u in (getattr(np, n) for n in dir(np)) if isinstance(u, np.ufunc)}
    return sorted(found.values(), key=lambda u: u.__name__)


UFUNC_KEYWORDS = [{"order": "F"}, {"order": "C"}, {"order": "A"}, {"dtype": "f4"},
                  {"dtype": "c16"}, {"casting": "no"}, {"casting": "unsafe", "dtype": "i1"},
                  {"where": A("T", SHAPE, "?")}, {"out": A("F", SHAPE)}, {"out": A("neg", SHAPE, "f4")},
                  {"out": A("bcast", SHAPE)}, {"out": A("C", (4,))}]
KEYWORDED = {"add", "multiply", "divmod", "less", "sqrt", "modf", "logical_and", "left_shift",
             "arctan2", "isnan"}


def _ufunc_entry(u: np.ufunc) -> OpInfo:
    if u.signature is not None:
        return OpInfo(u.__name__, _gufunc_samples(u.__name__))
    n = u.__name__
    kw = UFUNC_KEYWORDS if n in KEYWORDED else []
    if u.nout > 1:  # out= takes a tuple
        kw = [dict(k, out=(k["out"],) * u.nout) if "out" in k else k for k in kw]
    if u.nin == 1:
        return OpInfo(n, join(unary(ALL), samples(*[Sample((A("T", SHAPE),), k) for k in kw])))
    return OpInfo(n, join(binary(ALL), samples(*[Sample((A("T", SHAPE), A("neg", SHAPE)), k) for k in kw])))


def _gufunc_samples(name: str) -> Callable[[], list[Sample]]:
    a, b = {"matmul": ((2, 3, 4), (4, 5)), "vecdot": ((2, 3, 4), (3, 4)), "matvec": ((2, 3, 4), (4,)),
            "vecmat": ((2, 3), (3, 4))}[name]
    pairs = [(A(k, a), A("C", b)) for k in LAYOUTS + ("perm",)] + [(A("C", a), A(k, b)) for k in LAYOUTS[1:]]
    pairs += [(A("C", a, d), A("F", b, e)) for d, e in (("i1", "f4"), ("c8", "f8"), ("?", "?"), ("u8", "i8"),
                                                        ("M8[s]", "f8"))]
    pairs += [(A("C", (0,) + a[1:]), A("C", b)), (A("C", a[:-1] + (0,)), A("C", b[:-2] + (0,) + b[-1:]
                                                                           if len(b) > 1 else (0,))),
              (A("C", a), A("C", b[:-1] + (b[-1] + 1,))), (A("C", a), A("C", ())), (A("C", (4,)), A("C", (4,)))]
    return samples(*pairs)


_AXES2 = ({}, {"axis": 0}, {"axis": -1}, {"axis": 1, "keepdims": True})

VIEWS = [
    OpInfo("transpose", unary(EVERY)),
    OpInfo("ndarray.T", unary(EVERY), op=lambda xp, a: a.T),
    OpInfo("ndarray.mT", unary(EVERY), op=lambda xp, a: a.mT),
    OpInfo(".transpose", unary(variants=({}, {"axes": (1, 0)}, {"axes": (0, 0)}))),
    OpInfo("swapaxes", unary(extra=(0, -1))),
    OpInfo("moveaxis", unary(extra=(0, -1))),
    OpInfo("rollaxis", unary(extra=(-1,))),
    OpInfo("matrix_transpose", unary(EVERY)),
    OpInfo("reshape", unary(EVERY, variants=({"shape": -1}, {"shape": (4, 3), "order": "F"},
                                           {"shape": (2, -1), "order": "A"}, {"shape": (-1, 1), "copy": False},
                                           {"shape": (12,), "copy": True}, {"shape": (5, -1)}))),
    OpInfo(".reshape", unary(extra=(-1,))),
    OpInfo("ravel", unary(EVERY, variants=({}, {"order": "F"}, {"order": "K"}, {"order": "A"}))),
    OpInfo(".flatten", unary(EVERY, variants=({}, {"order": "K"}))),
    OpInfo("squeeze", unary(EVERY, variants=({}, {"axis": 0}, {"axis": (-1,)}))),
    OpInfo("expand_dims", unary(EVERY, variants=({"axis": 0}, {"axis": -1}, {"axis": (0, 2)}, {"axis": 5}))),
    OpInfo("atleast_1d", unary(EVERY)),
    OpInfo("atleast_2d", unary(EVERY)),
    OpInfo("atleast_3d", unary(EVERY)),
    OpInfo("broadcast_to", unary(EVERY, variants=({"shape": (2, 3, 4)},)), xfail={}),
    OpInfo("broadcast_arrays", binary(EVERY, scalars=())),
    OpInfo("flip", unary(EVERY, variants=({}, {"axis": 0}, {"axis": (0, -1)}))),
    OpInfo("flipud", unary(EVERY)),
    OpInfo("fliplr", unary(EVERY)),
    OpInfo("rot90", unary(EVERY, variants=({}, {"k": 2}, {"k": -1, "axes": (1, 0)}))),
    OpInfo("diagonal", unary(EVERY, variants=({}, {"offset": 1}, {"offset": -2, "axis1": 1, "axis2": 0}))),
    OpInfo(".view", unary(EVERY, variants=({}, {"dtype": "u1"}, {"dtype": "c16"}, {"dtype": "V2"}))),
    OpInfo("real", unary(EVERY)),
    OpInfo("imag", unary(EVERY)),
    OpInfo("ndarray.real", unary(EVERY), op=lambda xp, a: a.real),
    OpInfo("ndarray.to_device", unary(EVERY), op=lambda xp, a: a.to_device("cpu")),
    OpInfo("copy.copy", unary(EVERY), op=lambda xp, a: __import__("copy").copy(a)),
    OpInfo("copy.deepcopy", unary(EVERY), op=lambda xp, a: __import__("copy").deepcopy(a)),
    OpInfo("ndarray.imag", unary(EVERY), op=lambda xp, a: a.imag),
    OpInfo(".copy", unary(EVERY, variants=({}, {"order": "K"}, {"order": "F"}, {"order": "A"}))),
    # the array itself for real numbers, the conjugate ufunc for complex and object arrays,
    # TypeError for strings, times and records
    OpInfo(".conj", unary(EVERY)),
    OpInfo(".conjugate", join(unary(EVERY), samples(
        Sample((A("T", SHAPE, "c16"), A("F", SHAPE, "c16"))), Sample((A("T", SHAPE), A("F", SHAPE, "i4"))),
        Sample((A("C", SHAPE), A("C", (4, 4)))), Sample((A("C", SHAPE, "c8"), A("ro", SHAPE, "c8"))),
        Sample((A("neg", (5,), "i2"), A("C", (5,), "f8"))), Sample((A("C", SHAPE, "c16"), A("C", SHAPE)))))),
    OpInfo(".byteswap", unary(EVERY, variants=({}, {"inplace": True}))),
    # in place: the kth and axis forms, read-only (broadcast) and 0-d arrays
    OpInfo(".partition", unary(NUMERIC + TIMES, variants=(
        {"kth": 1}, {"kth": -1, "axis": 0}, {"kth": (0, 2)}, {"kth": 0, "axis": None}, {"kth": 9},
        {"kth": 1, "kind": "quick"}, {"kth": True}, {"kth": 1.0}, {"kth": [[0]]}, {"kth": 0, "order": "a"}))),
    OpInfo(".argpartition", unary(NUMERIC + TIMES, variants=(
        {"kth": 1}, {"kth": -1, "axis": 0}, {"kth": (0, 2)}, {"kth": 0, "axis": None}, {"kth": 9},
        {"kth": 1, "axis": 3}))),
    OpInfo(".astype", join(unary(ALL, variants=({"dtype": "f4"}, {"dtype": "i1", "order": "K"},
                                                {"dtype": "f8", "copy": False}, {"dtype": "c16", "order": "F"},
                                                {"dtype": "U"}, {"dtype": "i1", "casting": "safe"})),
                           samples(Sample((A("T", SHAPE, "U3"),), {"dtype": "S5"}),
                                   Sample((A("C", SHAPE, "i4,O"),), {"dtype": "i4,O"}),
                                   Sample((A("C", SHAPE, "O"),), {"dtype": "U"}, refuses=True),
                                   Sample((A("C", SHAPE, "U3"),), {"dtype": "f4"}, refuses=True)))),
    OpInfo("lib.stride_tricks.as_strided", unary(EVERY, variants=({}, {"shape": (2, 2), "strides": (8, 0)})),
           fake_mode=True, crossref=False),
    OpInfo("lib.stride_tricks.sliding_window_view",
           unary(EVERY, variants=({"window_shape": 2}, {"window_shape": (2, 1), "axis": (0, 0)}))),
    OpInfo(".fill", unary(EVERY, extra=(0,))),
    OpInfo(".setflags", unary(EVERY, variants=({"write": False},))),
    OpInfo(".getfield", unary(EVERY, variants=({"dtype": "u1"}, {"dtype": "i2", "offset": 2}))),
    OpInfo(".setfield", join(unary(EVERY, extra=(0, "u1")), samples(Sample((A(),), {"val": 0, "dtype": "u1"}),
                                                                    Sample((A(),), {"value": 0, "dtype": "u1"})))),
]

_REDUCE = ["add", "multiply", "maximum", "minimum", "logical_and", "logical_or", "subtract",
           "bitwise_xor", "fmax", "hypot"]
_ACCUMULATE = ["add", "multiply", "maximum", "logical_or", "subtract"]
_OUTER = ["add", "multiply", "maximum", "subtract", "greater"]
_REDUCTION_FUNCS = ["sum", "prod", "max", "min", "amax", "all", "any", "mean", "var", "std", "ptp",
                    "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd"]
_ARG_FUNCS = ["argmax", "argmin", "nanargmax", "nanargmin"]

REDUCTIONS = (
    [OpInfo(f, reduction()) for f in _REDUCTION_FUNCS]
    + [OpInfo(f"{u}.reduce", reduction()) for u in _REDUCE]
    + [OpInfo(f".{m}", reduction()) for m in ("sum", "prod", "max", "min", "all", "any", "mean", "var", "std")]
    + [OpInfo(f, reduction(variants=_AXES2)) for f in _ARG_FUNCS]
    + [OpInfo(f".{f}", reduction(variants=_AXES2)) for f in ("argmax", "argmin")]
    + [OpInfo(f, reduction(variants=({}, {"axis": 0}, {"axis": -1, "dtype": "f4"}, {"axis": 2})))
       for f in ("cumsum", "cumprod", ".cumsum", ".cumprod")]
    + [OpInfo(f"{u}.accumulate", reduction(variants=({}, {"axis": -1}, {"dtype": "f4"}, {"axis": None})))
       for u in _ACCUMULATE]
    + [OpInfo(f"{u}.outer", binary(scalars=(2,))) for u in _OUTER]
    + [OpInfo("count_nonzero", reduction(variants=({}, {"axis": 0}, {"axis": (0, 1), "keepdims": True}))),
       OpInfo("sum-kw", reduction(variants=({"dtype": "f4", "axis": 0}, {"initial": 1}, {"where": False},
                                            {"axis": 0, "where": A("C", (4,), "?")},
                                            {"axis": 0, "out": A("C", (4,))}, {"axis": 0, "out": A("C", (3,))}),
                                  dtypes=("i1", "u8", "?", "c8")),
              op=lambda xp, a, **kw: xp.sum(a, **kw))]
)

def _at(name: str) -> Callable:
    """``xp.<ufunc>.at(a, indices[, b])``, returning ``a`` (changed in place) to compare."""
    def op(xp, a, idx, *b):
        r = getattr(xp, name).at(a, idx, *b)
        assert r is None
        return a
    return op


def _at_samples(u: np.ufunc) -> Callable[[], list[Sample]]:
    """Every awkward array (read-only, 0-d and empty among them) with list, fake (zeros: in
    bounds wherever an axis is not empty), slice, integer and mixed indices; for binary ufuncs
    Python scalars, broadcast and mismatched values. A fake boolean index refuses."""
    def gen() -> list[Sample]:
        idxs = [[0, 1, 1], A("C", (4,), "i8", 0), A("neg", (2, 2), "i4", 0), (slice(None), [1, 1]),
                1, Ellipsis, (Ellipsis, A("C", (3,), "u1", 0)), [], ([0, 1], [1, 2])]
        bs = [(2.5,), (A("C", (4,), "f4"),), (A("T", (1, 1), "i1"),), (A("C", (2, 3)),)] if u.nin == 2 else [()]
        out = [Sample((a, i) + b) for a in arrays() for i in idxs for b in bs[:1]]
        out += [Sample((A("F", SHAPE, d), i) + b) for d in ("i1", "c8", "?", "f2", ">f8", "M8[s]")
                for i in idxs[:4] for b in bs]
        if u.nout == 1 and u.signature is None:
            out += [Sample((A("C", SHAPE, "i8"), A("C", (3,), "?", 0)) + (1,) * (u.nin - 1),
                           name="fake bool index", refuses=True)]
        return out
    return gen


def _reduceat_samples(u: str) -> Callable[[], list[Sample]]:
    return lambda: _reduceat_list(u)


def _reduceat_list(u: str) -> list[Sample]:
    """Every awkward array with list, fake (zeros) and strided fake indices, axes (None, a
    tuple), dtype, empty and out-of-bounds indices, each dtype, and out= arrays; object
    values cast to numbers (assumed valid, as every cast of objects: convert_datatype.py)."""
    out = [Sample((a, i), kw) for a in arrays()
           for i, kw in (([0, 1], {}), ([2, 0, 1], {"axis": -1}), (A("C", (2,), "i8", 0), {}),
                         (A("strided", (3,), "i4", 0), {"axis": -1}), ([0, 1], {"dtype": "f4"}),
                         ([], {}), ([0, 1], {"axis": None}), ([0, 9], {}), ([0, 1], {"axis": (0, 1)}))]
    out += [Sample((A(LAYOUTS[k % len(LAYOUTS)], SHAPE, d), [0, 1]), {"axis": 1})
            for k, d in enumerate(NUMERIC)]
    out += [Sample((A("C", SHAPE), [0, 1]), {"out": o}) for o in
            (A("C", (2, 4)), A("F", (2, 4), "f4"), A("C", (3, 4)), A("bcast", (2, 4)))]
    if u == "add":
        out += [Sample((A("C", SHAPE, "O"), [0, 1]), {"dtype": "f4"})]
    return out


_AT = ["add", "subtract", "multiply", "maximum", "minimum", "logical_or", "bitwise_xor", "power",
       "negative", "sqrt", "isnan", "divmod", "matmul"]
_REDUCEAT = ["add", "multiply", "maximum", "subtract", "logical_and", "divide", "sqrt", "divmod"]

# NumPy refuses these before it looks for an override (ufunc_at, PyUFunc_GenericReduction and
# ufunc_outer check nin/nout/signature first, as does out= parsing), so CrossRefMode sees nothing
_NO_OVERRIDE = {"divmod.at", "matmul.at", "divmod.reduceat", "sqrt.reduceat", "divmod.accumulate",
                "divmod.outer", "sqrt.outer"}

REDUCTIONS += (
    [OpInfo(f"{u}.at", _at_samples(getattr(np, u)), op=_at(u), crossref=f"{u}.at" not in _NO_OVERRIDE)
       for u in _AT]
    + [OpInfo(f"{u}.reduceat", _reduceat_samples(u), crossref=f"{u}.reduceat" not in _NO_OVERRIDE)
       for u in _REDUCEAT]
    + [OpInfo(f"{u}.outer", binary(scalars=(2, 1.5), variants=({}, {"dtype": "f8"}, {"out": A("C", (3, 4, 3, 4))})),
              crossref=f"{u}.outer" not in _NO_OVERRIDE) for u in ("divmod", "arctan2", "sqrt")]
    + [OpInfo(f"{u}.accumulate-out", reduction(variants=({"out": A("F", SHAPE)}, {"out": A("C", (3, 5))},
                                                           {"axis": 1, "out": (A("T", SHAPE, "f4"),)})),
              op=lambda xp, a, _u=u, **kw: getattr(xp, _u).accumulate(a, **kw),
              crossref=f"{u}.accumulate" not in _NO_OVERRIDE) for u in ("add", "maximum", "divmod")]
)

_PAD_MODES = ({"pad_width": 1}, {"pad_width": ((1, 2), (0, 1))}, {"pad_width": 2, "mode": "edge"},
              {"pad_width": 2, "mode": "reflect"}, {"pad_width": (0, 3), "mode": "symmetric"},
              {"pad_width": 3, "mode": "wrap"}, {"pad_width": 1, "mode": "mean", "stat_length": 2},
              {"pad_width": 1, "mode": "linear_ramp", "end_values": 3}, {"pad_width": 2, "mode": "empty"},
              {"pad_width": 1, "mode": "foo"}, {"pad_width": -1})


def _zeros_like_int(xp, a):
    return xp.zeros(a.shape, np.intp)


MANIPULATION = [
    OpInfo("pad", unary(variants=_PAD_MODES)),
    OpInfo("insert", unary(variants=({"obj": 1, "values": 5, "axis": -1}, {"obj": 1, "values": 5},
                                     {"obj": [1, 0, -1], "values": 5, "axis": 0},
                                     {"obj": slice(0, 2), "values": [5], "axis": 0},
                                     {"obj": 9, "values": 5, "axis": 0},
                                     {"obj": 0, "values": 1, "axis": 5}))),
    OpInfo("delete", unary(variants=({"obj": 1, "axis": -1}, {"obj": slice(0, 2), "axis": 0},
                                     {"obj": [0, 2], "axis": -1}, {"obj": [0, 0, -1]}, {"obj": [7]},
                                     {"obj": []}, {"obj": [True, False, True], "axis": 0}))),
    OpInfo("resize", unary(ALL, variants=({"new_shape": (5, 5)}, {"new_shape": 3}, {"new_shape": (2, 0)},
                                          {"new_shape": (-1, 2)}))),
    OpInfo("unstack", unary(ALL, variants=({}, {"axis": -1}))),
    OpInfo("choose", unary(), op=lambda xp, a: xp.choose(_zeros_like_int(xp, a), [a, a])),
    OpInfo("choose-clip-out", unary(),
           op=lambda xp, a: xp.choose(_zeros_like_int(xp, a), [a, 1.5], mode="clip",
                                      out=xp.empty(a.shape, a.dtype))),
    OpInfo("lexsort", unary(), op=lambda xp, a, **kw: xp.lexsort((a, a), **kw)),
    OpInfo("lexsort-axis0", unary(), op=lambda xp, a: xp.lexsort((a, a), axis=0)),
    OpInfo("sort_complex", unary()),
    OpInfo("put_along_axis", unary(),
           op=lambda xp, a: xp.put_along_axis(a, _zeros_like_int(xp, a), 3, axis=-1)),
    OpInfo("putmask", unary(), op=lambda xp, a: xp.putmask(a, xp.ones(a.shape, bool), xp.ones(2))),
    OpInfo("place", unary(), op=lambda xp, a: xp.place(a, xp.zeros(a.shape, bool), [1, 2])),
    OpInfo("extract", unary(), op=lambda xp, a: xp.extract(xp.zeros((0,), bool), a)),
    OpInfo("fill_diagonal", unary(variants=({}, {"wrap": True}), extra=(3,))),
    OpInfo("select", unary(), op=lambda xp, a: xp.select([xp.ones(a.shape, bool)], [a], 1.5)),
    OpInfo("piecewise", unary(), op=lambda xp, a: xp.piecewise(a, [xp.ones(a.shape, bool)], [1, 2])),
    OpInfo("packbits", unary(("?", "u1", "i4"), variants=({}, {"axis": -1}, {"axis": 0, "bitorder": "little"},
                                                           {"bitorder": "x"}))),
    OpInfo("unpackbits", unary(("u1", "i1"), variants=({}, {"axis": 0}, {"axis": -1, "count": 3}))),
    # np.astype raises TypeError for anything but an ndarray before dispatching: no CrossRef
    OpInfo("astype", unary(ALL, variants=({"dtype": "f4"}, {"dtype": "f8", "copy": False})), crossref=False),
    OpInfo("require", unary(ALL, variants=({"requirements": "C"}, {"requirements": ["F", "O"]},
                                           {"dtype": "f4"}, {"requirements": "W"})), fake_mode=True),
    OpInfo("trim_zeros", unary(variants=({"axis": ()}, {"trim": "x"}))),
    OpInfo("apply_over_axes", unary(), op=lambda xp, a: xp.apply_over_axes(xp.sum, a, [0])),
    OpInfo("apply_along_axis", unary(), op=lambda xp, a: xp.apply_along_axis(lambda v: v[:2], 0, a)),
]

_SPLITS = ({"indices_or_sections": 2}, {"indices_or_sections": [1, -1, 10]},
           {"indices_or_sections": 3, "axis": 1}, {"indices_or_sections": 2, "axis": 4})

JOINING = [
    OpInfo("concatenate", sequences(variants=({}, {"axis": 1}, {"axis": None}, {"axis": -1, "dtype": "f4"},
                                              {"dtype": "i1", "casting": "unsafe"}, {"axis": 2}))),
    OpInfo("concatenate-3", sequences(3), op=lambda xp, seq: xp.concatenate(seq)),
    OpInfo("stack", sequences(variants=({}, {"axis": -1}, {"axis": 1}, {"axis": 3}))),
    OpInfo("hstack", sequences()), OpInfo("vstack", sequences()), OpInfo("dstack", sequences()),
    OpInfo("column_stack", sequences()),
    OpInfo("block", sequences()),
    OpInfo("block-2d", binary(scalars=()), op=lambda xp, a, b: xp.block([[a, b], [b, a]])),
    OpInfo("split", unary(variants=_SPLITS)), OpInfo("array_split", unary(variants=_SPLITS)),
    OpInfo("hsplit", unary(extra=(2,))), OpInfo("vsplit", unary(extra=([1, 2],))),
    OpInfo("dsplit", unary(extra=(1,))),
    OpInfo("tile", unary(ALL, variants=({"reps": 2}, {"reps": (2, 1, 1)}, {"reps": (1, 1)}, {"reps": ()},
                                        {"reps": 0}))),
    OpInfo("repeat", unary(ALL, variants=({"repeats": 2}, {"repeats": 2, "axis": 0},
                                          {"repeats": [1, 0, 2], "axis": 0}, {"repeats": 0, "axis": -1},
                                          {"repeats": -1}))),
    OpInfo(".repeat", unary(extra=(3, -1))),
    OpInfo("append", binary(scalars=(1.5,), variants=({}, {"axis": 0}, {"axis": 1}))),
]

# --- the table: CuPy (from the operand loops of tests/test_cupy_gpu_*.py) ----------------------
# Each named operand set is the awkward inputs one of those files used (its keys kept); an
# entry calls cupy.<name> (or the custom op) on every operand with every variant. CuPy's
# rules are compared on a GPU only (test_cupy); the same entries never run on NumPy here.

def _set(shape: tuple, fill: Any = "arange", **extra: A) -> dict:
    """The awkward layouts of one shape (float64), plus the file's own extras."""
    out = {k: A(k, shape, "f8", fill) for k in LAYOUTS if not (k == "offset" and fill != "arange")}
    out.update(extra)
    return out


def _a(layout: str, shape: tuple, dtype: str = "f8", fill: Any = "arange") -> A:
    return A(layout, shape, dtype, fill)


_S34 = (3, 4)
GPU_BASIC = {"C": _a("C", (4, 5, 6)), "F": _a("F", (4, 5, 6)), "perm": _a("perm", (4, 5, 6)),
             "neg": _a("neg", (4, 3, 6)), "2d": _a("offset", (5, 6)), "f4": _a("C", (4, 5, 1), "f4"),
             "empty": _a("C", (0, 3)), "0d": _a("C", ())}
OPS = dict(_set(_S34), i8=_a("C", _S34, "i1"), f4F=_a("F", _S34, "f4"), empty=_a("C", (3, 0)),
           c64=_a("C", _S34, "c8"))
OPS_PAIRS = {f"{x}|{y}": (OPS[x], OPS[y]) for x in OPS for y in ("C", "F", "neg", "i8", "f4F", "empty")}
MANIP = dict(_set(_S34), i8=_a("C", _S34, "i1"), empty=_a("C", (3, 0)), c64=_a("C", _S34, "c8"),
             row=_a("C", (4,)), scalar=_a("C", ()), size1=_a("C", (1, 1)))
SORTING = dict(_set((2, 40)), i8=_a("C", (2, 40), "i1"), b=_a("C", (2, 40), "?"),
               c64=_a("C", (2, 40), "c8"), empty=_a("C", (2, 0)), zero_d=_a("C", ()))
VIEWS3 = {"C": _a("C", (4, 5, 6)), "F": _a("F", (4, 5, 6)), "perm": _a("perm", (4, 5, 6)),
          "neg": _a("neg", (4, 3, 6)), "size1": _a("offset", (1, 1, 1)), "bcast": _a("bcast", (4, 5, 6)),
          "empty": _a("C", (0, 5, 6)), "empty_mid": _a("offset", (4, 0, 5)), "ones3": _a("C", (1, 1, 1))}
FFT = dict(_set((2, 3, 20)), i8=_a("C", (2, 3, 20), "i1"), b=_a("C", (2, 3, 20), "?"),
           f2=_a("C", (2, 3, 20), "f2"), f4=_a("C", (2, 3, 20), "f4"), c8=_a("C", (2, 3, 20), "c8"),
           c16F=_a("F", (2, 3, 20), "c16"), c8T=_a("T", (2, 3, 20), "c8"), empty=_a("C", (0, 3, 4)),
           one=_a("C", (1, 1, 5)), m1=_a("C", (2, 1, 20)), d1=_a("C", (8,)), d1c=_a("neg", (4,), "c16"),
           d2=_a("offset", (3, 20)), d2F=_a("F", (3, 20)), d4=_a("C", (2, 3, 4, 5)),
           i32KF=_a("strided", (4, 3), "i4"))
SELECT = dict(_set((2, 3, 4)), size1=_a("C", (1, 1, 1)), empty=_a("C", (0, 3, 4)),
              i8=_a("C", (2, 3, 4), "i1"), b=_a("C", (2, 3, 4), "?"), c64=_a("C", (2, 3, 4), "c8"),
              u8=_a("C", (2, 3, 4), "u1"))
SQUARE = dict(_set((2, 3, 3), "wellcond"), mT=_a("mT", (2, 3, 3), fill="wellcond"),
              f4=_a("C", (2, 3, 3), "f4", "wellcond"), c8=_a("C", (2, 3, 3), "c8", "wellcond"),
              c16=_a("C", (2, 3, 3), "c16", "wellcond"), i4=_a("C", (2, 3, 3), "i4", "wellcond"),
              f2=_a("C", (2, 3, 3), "f2", "wellcond"), d2=_a("C", (3, 3), fill="wellcond"),
              d2F=_a("F", (3, 3), fill="wellcond"), d2T=_a("T", (3, 3), fill="wellcond"),
              d4=_a("C", (2, 2, 3, 3), fill="wellcond"), empty=_a("C", (0, 3, 3)), empty2d=_a("C", (0, 0)),
              d1=_a("C", (3,), fill=1), d0=_a("C", (), fill=1), rect=_a("C", (2, 3, 4), fill=1))
RECT = {"wide": A("C", (3, 5)), "tall": A("C", (5, 3)), "wideT": A("T", (3, 5)), "tallF": A("F", (5, 3)),
        "bwide": A("C", (2, 3, 5)), "btall": A("C", (2, 5, 3)), "big": A("C", (2, 40, 3)),
        "bigwide": A("C", (2, 3, 40)), "c8": A("C", (4, 3), "c8"), "bc16": A("C", (2, 40, 3), "c16"),
        "i4": A("C", (3, 4), "i4"), "e0": A("C", (0, 3)), "e1": A("C", (2, 0, 3)), "e2": A("C", (0, 3, 4)),
        "1d": A("C", (4,)), "4d": A("C", (2, 2, 3, 4))}
STATS = dict(_set((3, 4, 5)), size1=_a("C", (1, 1, 1)), f2=_a("C", (3, 4, 5), "f2"),
             f4=_a("C", (3, 4, 5), "f4"), i1=_a("C", (3, 4, 5), "i1"), u8=_a("C", (3, 4, 5), "u8"),
             b=_a("C", (3, 4, 5), "?"), c8=_a("C", (3, 4, 5), "c8"), c16T=_a("T", (3, 4, 5), "c16"),
             empty=_a("C", (3, 0, 5)), zero_d=_a("C", ()), vec=_a("C", (7,)), vec_i=_a("neg", (7,), "i4"))
CREATION = dict(_set((4, 4)), i4=_a("C", (4, 4), "i4"), b=_a("C", (4, 4), "?"), c8=_a("C", (4, 4), "c8"),
                u8=_a("C", (4, 4), "u8"), rect=_a("C", (3, 5)), d1=_a("C", (5,)), d1s=_a("strided", (4,), "i8"),
                d3=_a("C", (3, 3, 3)), empty=_a("C", (0, 0)), d0=_a("C", (), "i8"))


def _idx(xp, a, axis: int, n: int = 3):
    """In-range indices for take/put_along_axis: a's shape with n along axis."""
    shape = list(a.shape)
    shape[axis] = n
    return (xp.arange(math.prod(shape)) % max(a.shape[axis], 1)).reshape(shape)


def CupyOp(name: str, sample_inputs: Callable, op: Callable | None = None, **kw: Any) -> OpInfo:
    """An entry run on CuPy only: ``cupy.<name>`` called by name, or a custom ``op`` shown as
    ``cupy: <its expression>``."""
    call = op or (lambda xp, *a, **k: call_by_name(name, xp, *a, **k))
    shown = f"cupy: {name}" if op else f"cupy.ndarray{name}" if name.startswith(".") else f"cupy.{name}"
    return OpInfo(shown, sample_inputs, op=call, backends=("cupy",), **kw)


_LINSPACE_KW = [{}, {"axis": -1}, {"axis": 1}, {"retstep": True}, {"num": 1, "retstep": True}, {"num": 0},
                {"dtype": np.int32, "axis": -1}, {"endpoint": False, "axis": -2}]
_LIN_OPS = {k: OPS[k] for k in ("C", "F", "i8", "f4F", "c64")}
_SPLIT_VARIANTS = (V(3, 0), V(2, -1))
_ARRAY_SPLIT_VARIANTS = (V(2, 1), V([1, 10, 0], 0), V(1, 0))

CUPY = [
    CupyOp("split", on(OPS, *_SPLIT_VARIANTS)),
    CupyOp("array_split", on(OPS, *_ARRAY_SPLIT_VARIANTS)),
    CupyOp("hsplit", on(OPS, V([1, -1]))),
    CupyOp("vsplit", on(OPS, V(3))),
    CupyOp("linspace(a[0], b)", on({f"{k}|col": (a, _a("C", (3, 1))) for k, a in _LIN_OPS.items()},
                                   *[V(**dict({"num": 5}, **kw)) for kw in _LINSPACE_KW]),
           op=lambda xp, a, b, **kw: xp.linspace(a[0], b, **kw)),
    CupyOp("linspace(a[0], 3)", on(_LIN_OPS, *[V(**dict({"num": 5}, **kw)) for kw in _LINSPACE_KW]),
           op=lambda xp, a, **kw: xp.linspace(a[0], 3, **kw)),
    CupyOp("logspace(a[0], 2)", join(on(_LIN_OPS, *[V(**{k: v for k, v in dict({"num": 5}, **kw).items()
                                                        if k != "retstep"}) for kw in _LINSPACE_KW])),
           op=lambda xp, a, **kw: xp.logspace(a[0], 2, **kw)),
    CupyOp('a + a', on(GPU_BASIC, V()), op=lambda xp, a: a + a),
    CupyOp('sqrt', on(GPU_BASIC, V())),
    CupyOp('a * 2', on(GPU_BASIC, V()), op=lambda xp, a: a * 2),
    CupyOp('.astype', on(GPU_BASIC, V(np.float32))),
    CupyOp('.copy', on(GPU_BASIC, V())),
    CupyOp('copy', on(GPU_BASIC, V())),
    CupyOp('.sum', on(GPU_BASIC, V())),
    CupyOp('.max', on(GPU_BASIC, V(axis=-1))),
    CupyOp('.mean', on(GPU_BASIC, V(axis=0, keepdims=True))),
    CupyOp('.argmax', on(GPU_BASIC, V(axis=0))),
    CupyOp('a < 3', on(GPU_BASIC, V()), op=lambda xp, a: a < 3),
    CupyOp('asnumpy', on(GPU_BASIC, V())),
    CupyOp('a @ b.T', on(OPS_PAIRS, V()), op=lambda xp, a, b: a @ b.T),
    CupyOp('xp.matmul(a[None], b.T)', on(OPS_PAIRS, V()), op=lambda xp, a, b: xp.matmul(a[None], b.T)),
    CupyOp('xp.dot(a, b.T)', on(OPS_PAIRS, V()), op=lambda xp, a, b: xp.dot(a, b.T)),
    CupyOp('a.dot(b.T)', on(OPS_PAIRS, V()), op=lambda xp, a, b: a.dot(b.T)),
    CupyOp('inner', on(OPS_PAIRS, V())),
    CupyOp('vdot', on(OPS_PAIRS, V())),
    CupyOp('outer', on(OPS_PAIRS, V())),
    CupyOp('tensordot', on(OPS_PAIRS, V(([1], [1])))),
    CupyOp('xp.tensordot(a, b.T, 2)', on(OPS_PAIRS, V()), op=lambda xp, a, b: xp.tensordot(a, b.T, 2)),
    CupyOp('kron', on(OPS_PAIRS, V())),
    CupyOp('a[0] @ b.T', on(OPS_PAIRS, V()), op=lambda xp, a, b: a[0] @ b.T),
    CupyOp('a @ b[0]', on(OPS_PAIRS, V()), op=lambda xp, a, b: a @ b[0]),
    CupyOp('a[0] @ b[0]', on(OPS_PAIRS, V()), op=lambda xp, a, b: a[0] @ b[0]),
    CupyOp('xp.matmul(a.reshape(3, 1, 4), b.reshape(1, 4, 3))', on(OPS_PAIRS, V()),
        op=lambda xp, a, b: xp.matmul(a.reshape(3, 1, 4), b.reshape(1, 4, 3))),
    CupyOp('np.matmul(a, b.T)', on(OPS_PAIRS, V()), op=lambda xp, a, b: np.matmul(a, b.T)),
    CupyOp('np.dot(a, b.T)', on(OPS_PAIRS, V()), op=lambda xp, a, b: np.dot(a, b.T)),
    CupyOp('concatenate', on(OPS_PAIRS, V(_seq=True), V(axis=1, _seq=True), V(axis=None, _seq=True),
        V(dtype=np.float32, _seq=True))),
    CupyOp('stack', on(OPS_PAIRS, V(axis=-1, _seq=True))),
    CupyOp('hstack', on(OPS_PAIRS, V(_seq=True))),
    CupyOp('vstack', on(OPS_PAIRS, V(_seq=True))),
    CupyOp('dstack', on(OPS_PAIRS, V(_seq=True))),
    CupyOp('column_stack', on(OPS_PAIRS, V(_seq=True))),
    CupyOp('np.concatenate([a, b])', on(OPS_PAIRS, V()), op=lambda xp, a, b: np.concatenate([a, b])),
    CupyOp('xp.concatenate([a] * 9 + [b])', on(OPS_PAIRS, V()),
        op=lambda xp, a, b: xp.concatenate([a] * 9 + [b])),
    CupyOp('add.reduce', on(OPS, V())),
    CupyOp('np.add.reduce', on(OPS, V(axis=None))),
    CupyOp('np.multiply.reduce', on(OPS, V(axis=1, keepdims=True))),
    CupyOp('np.add.accumulate', on(OPS, V())),
    CupyOp('multiply.accumulate', on(OPS, V(axis=1))),
    CupyOp('.cumsum', on(OPS, V(), V(0))),
    CupyOp('.cumprod', on(OPS, V(axis=1))),
    CupyOp('xp.cumsum(a[None], axis=1)', on(OPS, V()), op=lambda xp, a: xp.cumsum(a[None], axis=1)),
    CupyOp('xp.cumsum(a.reshape(3, 1, 4), axis=1)', on(OPS, V()),
        op=lambda xp, a: xp.cumsum(a.reshape(3, 1, 4), axis=1)),
    CupyOp('np.add.outer(a, a[0])', on(OPS, V()), op=lambda xp, a: np.add.outer(a, a[0])),
    CupyOp('np.maximum.outer(a[0], a[:, 0])', on(OPS, V()), op=lambda xp, a: np.maximum.outer(a[0], a[:, 0])),
    CupyOp('repeat', on(MANIP, V(2), V(2, axis=0), V(0, axis=0), V([1, 0, 2], axis=0))),
    CupyOp('.repeat', on(MANIP, V(3, axis=-1))),
    CupyOp('tile', on(MANIP, V(2), V((2, 1)), V((1, 1)), V((2, 1, 3)), V(0))),
    CupyOp('flip', on(MANIP, V(), V(0))),
    CupyOp('fliplr', on(MANIP, V())),
    CupyOp('flipud', on(MANIP, V())),
    CupyOp('rot90', on(MANIP, V(), V(2), V(3, (1, 0)))),
    CupyOp('roll', on(MANIP, V(1), V(1, axis=0), V((1, 2), axis=(0, 1)))),
    CupyOp('xp.roll(a, xp.array(1), axis=0)', on(MANIP, V()), op=lambda xp, a: xp.roll(a, xp.array(1), axis=0)),
    CupyOp('pad', join(on(MANIP, V(1), V(((1, 0), (0, 2))), V(1, mode='edge'), V(2, mode='wrap'),
        V(1, constant_values=2)), on(SELECT, V(1, mode='reflect'), V((1, 2), mode='symmetric'),
        V(2, mode='reflect', reflect_type='odd'), V(((0, 0), (1, 1), (2, 0)), mode='linear_ramp', end_values=3),
        V(1, mode='maximum'), V(1, mode='minimum', stat_length=1), V(1, mode='mean', stat_length=(1, 2)),
        V(1, mode='maximum', stat_length=0), V(1, mode='median'))), gpu_may_refuse=True),
    CupyOp('tril', on(MANIP, V())),
    CupyOp('triu', on(MANIP, V(1))),
    CupyOp('diag', on(MANIP, V(), V(-1))),
    CupyOp('diagflat', on(MANIP, V())),
    CupyOp('asfortranarray', on(MANIP, V(), V(np.float32))),
    CupyOp('xp.append(a, a)', on(MANIP, V()), op=lambda xp, a: xp.append(a, a)),
    CupyOp('xp.append(a, a, axis=0)', on(MANIP, V()), op=lambda xp, a: xp.append(a, a, axis=0)),
    CupyOp('resize', on(MANIP, V((5, 3)))),
    CupyOp('xp.meshgrid(a[0], a[:, 0])', on(MANIP, V()), op=lambda xp, a: xp.meshgrid(a[0], a[:, 0])),
    CupyOp('xp.meshgrid(a[0], a[:, 0], copy=False)', on(MANIP, V()),
        op=lambda xp, a: xp.meshgrid(a[0], a[:, 0], copy=False)),
    CupyOp("xp.meshgrid(a[0], a[:, 0], a[1], indexing='ij', sparse=True, copy=False)", on(MANIP, V()),
        op=lambda xp, a: xp.meshgrid(a[0], a[:, 0], a[1], indexing='ij', sparse=True, copy=False)),
    CupyOp('xp.meshgrid(a[0])', on(MANIP, V()), op=lambda xp, a: xp.meshgrid(a[0])),
    CupyOp('np.flip', on(MANIP, V(0))),
    CupyOp('np.tile', on(MANIP, V(2))),
    CupyOp('xp.copyto(a.copy(), a)', on(MANIP, V()), op=lambda xp, a: xp.copyto(a.copy(), a)),
    CupyOp('xp.copyto(xp.empty((2,) + a.shape), a)', on(MANIP, V()),
        op=lambda xp, a: xp.copyto(xp.empty((2,) + a.shape), a)),
    CupyOp('xp.copyto(a.copy(), 1.5)', on(MANIP, V()), op=lambda xp, a: xp.copyto(a.copy(), 1.5)),
    CupyOp('xp.copyto(xp.empty(a.shape, xp.int32), a)', on(MANIP, V()),
        op=lambda xp, a: xp.copyto(xp.empty(a.shape, xp.int32), a)),
    CupyOp('xp.copyto(a.copy(), a, where=a.real > 0)', on(MANIP, V()),
        op=lambda xp, a: xp.copyto(a.copy(), a, where=a.real > 0)),
    CupyOp('xp.copyto(a.copy(), np.ones(1))', on(MANIP, V()), op=lambda xp, a: xp.copyto(a.copy(), np.ones(1))),
    CupyOp('xp.copyto(a.copy(), np.ones(3))', on(MANIP, V()), op=lambda xp, a: xp.copyto(a.copy(), np.ones(3))),
    CupyOp('xp.fill_diagonal(a.copy(), 1)', on(MANIP, V()), op=lambda xp, a: xp.fill_diagonal(a.copy(), 1)),
    CupyOp('a.copy().put([0, 1], 1.0)', on(MANIP, V()), op=lambda xp, a: a.copy().put([0, 1], 1.0)),
    CupyOp('sort', on(SORTING, V(), V(axis=0), V(axis=None))),
    CupyOp('argsort', on(SORTING, V(), V(axis=0))),
    CupyOp('.argsort', on(SORTING, V(axis=None))),
    CupyOp('partition', on(SORTING, V(1))),
    CupyOp('argpartition', on(SORTING, V(1), V(1, axis=0), V(3, axis=None))),
    CupyOp('a.copy().sort()', on(SORTING, V()), op=lambda xp, a: a.copy().sort()),
    CupyOp('.sort', on(SORTING, V())),
    CupyOp('.partition', on(SORTING, V(1))),
    CupyOp('xp.where(a, a, 0)', on(SORTING, V()), op=lambda xp, a: xp.where(a, a, 0)),
    CupyOp('xp.where(a > 1, a, 2.5)', on(SORTING, V()), op=lambda xp, a: xp.where(a > 1, a, 2.5)),
    CupyOp('clip', on(SORTING, V(0, 1))),
    CupyOp('.clip', on(SORTING, V(0))),
    CupyOp('around', on(SORTING, V())),
    CupyOp('.round', on(SORTING, V(-1))),
    CupyOp('.conj', on(SORTING, V())),
    CupyOp('nan_to_num', on(SORTING, V())),
    CupyOp('isclose', on(SORTING, V(1))),
    CupyOp('xp.allclose(a, a)', on(SORTING, V()), op=lambda xp, a: xp.allclose(a, a)),
    CupyOp('count_nonzero', on(SORTING, V(), V(axis=1))),
    CupyOp('trace', on(SORTING, V())),
    CupyOp('ptp', on(SORTING, V(axis=0), V())),
    CupyOp('xp.searchsorted(a[0], a)', on(SORTING, V()), op=lambda xp, a: xp.searchsorted(a[0], a)),
    CupyOp('xp.searchsorted(a.ravel(), 1.0)', on(SORTING, V()), op=lambda xp, a: xp.searchsorted(a.ravel(), 1.0)
        ),
    CupyOp('.reshape', on(VIEWS3, V(-1), V(2, -1))),
    CupyOp('a.reshape(1, a.size, 1)', on(VIEWS3, V()), op=lambda xp, a: a.reshape(1, a.size, 1)),
    CupyOp("a.reshape(a.shape[::-1], order='F')", on(VIEWS3, V()),
        op=lambda xp, a: a.reshape(a.shape[::-1], order='F')),
    CupyOp('a.reshape(a.shape)', on(VIEWS3, V()), op=lambda xp, a: a.reshape(a.shape)),
    CupyOp('.ravel', on(VIEWS3, V(), V('K'), V('F'))),
    CupyOp('.flatten', on(VIEWS3, V(), V('K'))),
    CupyOp('expand_dims', on(VIEWS3, V(1), V((0, -1)))),
    CupyOp('.squeeze', on(VIEWS3, V())),
    CupyOp('xp.broadcast_to(a, (2,) + a.shape)', on(VIEWS3, V()),
        op=lambda xp, a: xp.broadcast_to(a, (2,) + a.shape)),
    CupyOp('a.T', on(VIEWS3, V()), op=lambda xp, a: a.T),
    CupyOp('.swapaxes', on(VIEWS3, V(0, 2))),
    CupyOp('moveaxis', on(VIEWS3, V(0, -1))),
    CupyOp('.transpose', on(VIEWS3, V(1, 0, 2))),
    CupyOp('.diagonal', on(VIEWS3, V(), V(1, 2, 0), V(-2))),
    CupyOp('.view', on(VIEWS3, V(np.float32))),
    CupyOp('xp.atleast_3d(a[0, 0])', on(VIEWS3, V()), op=lambda xp, a: xp.atleast_3d(a[0, 0])),
    CupyOp('a.real', on(VIEWS3, V()), op=lambda xp, a: a.real),
    CupyOp('a.imag', on(VIEWS3, V()), op=lambda xp, a: a.imag),
    CupyOp('a[1]', on(VIEWS3, V()), op=lambda xp, a: a[1]),
    CupyOp('a[1:1]', on(VIEWS3, V()), op=lambda xp, a: a[1:1]),
    CupyOp('a[:, 3:1]', on(VIEWS3, V()), op=lambda xp, a: a[:, 3:1]),
    CupyOp('a[..., None, ::-2]', on(VIEWS3, V()), op=lambda xp, a: a[..., None, ::-2]),
    CupyOp('a[-1, :, 2]', on(VIEWS3, V()), op=lambda xp, a: a[-1, :, 2]),
    CupyOp('a[0.5]', on(VIEWS3, V()), op=lambda xp, a: a[0.5]),
    CupyOp('a[[0, 2]]', on(VIEWS3, V()), op=lambda xp, a: a[[0, 2]]),
    CupyOp('a[:, [1, 7]]', on(VIEWS3, V()), op=lambda xp, a: a[:, [1, 7]]),
    CupyOp('a[[0, 1], :, [1, 2]]', on(VIEWS3, V()), op=lambda xp, a: a[[0, 1], :, [1, 2]]),
    CupyOp('a[xp.array([[0], [1]]), 0]', on(VIEWS3, V()), op=lambda xp, a: a[xp.array([[0], [1]]), 0]),
    CupyOp('a[np.array(0)]', on(VIEWS3, V()), op=lambda xp, a: a[np.array(0)]),
    CupyOp('a[np.array([True, False, True, False])]', on(VIEWS3, V()),
        op=lambda xp, a: a[np.array([True, False, True, False])]),
    CupyOp('a[True]', on(VIEWS3, V()), op=lambda xp, a: a[True]),
    CupyOp('a[[]]', on(VIEWS3, V()), op=lambda xp, a: a[[]]),
    CupyOp('.take', on(VIEWS3, V([0, 3], axis=1))),
    CupyOp('take', on(VIEWS3, V(2))),
    CupyOp('a[[0, 1], [1, 2, 3]]', on(VIEWS3, V()), op=lambda xp, a: a[[0, 1], [1, 2, 3]]),
    CupyOp('fft.fft', on(FFT, V(), V(axis=0), V(axis=1), V(n=3), V(n=-1), V(norm='ortho'), V(norm='bad'),
        V(axis=3)), gpu_may_refuse=True),
    CupyOp('fft.ifft', on(FFT, V(n=7, axis=0)), gpu_may_refuse=True),
    CupyOp('fft.rfft', on(FFT, V(), V(axis=0), V(n=9, axis=1)), gpu_may_refuse=True),
    CupyOp('fft.irfft', on(FFT, V(), V(axis=0), V(n=5, axis=1)), gpu_may_refuse=True),
    CupyOp('fft.hfft', on(FFT, V(), V(axis=0), V(norm='forward')), gpu_may_refuse=True),
    CupyOp('fft.ihfft', on(FFT, V(axis=0), V(n=4)), gpu_may_refuse=True),
    CupyOp('fft.fft2', on(FFT, V(), V(axes=(0, 1)), V(axes=(0, -1)), V(axes=(-1, 0)), V(s=(4, 5)),
        V(s=(2,), axes=(0, 1))), gpu_may_refuse=True),
    CupyOp('fft.ifft2', on(FFT, V()), gpu_may_refuse=True),
    CupyOp('fft.fftn', on(FFT, V(), V(axes=()), V(s=(3, 3, 3)), V(axes=(0, 2, 1)), V(axes=(0, 5)),
        V(norm='forward')), gpu_may_refuse=True),
    CupyOp('fft.ifftn', on(FFT, V(axes=(1, 0))), gpu_may_refuse=True),
    CupyOp('fft.rfft2', on(FFT, V(), V(axes=(1, 0)), V(s=(2, 6))), gpu_may_refuse=True),
    CupyOp('fft.rfftn', on(FFT, V(), V(axes=(0, 1)), V(axes=(2, 0)), V(axes=())), gpu_may_refuse=True),
    CupyOp('fft.irfft2', on(FFT, V(), V(s=(3, 7)), V(axes=(1, 0))), gpu_may_refuse=True),
    CupyOp('fft.irfftn', on(FFT, V(), V(axes=(0,)), V(axes=(1, 2))), gpu_may_refuse=True),
    CupyOp('xp.fft.irfftn(a, s=a.shape)', on(FFT, V()), op=lambda xp, a: xp.fft.irfftn(a, s=a.shape),
        gpu_may_refuse=True),
    CupyOp('xp.fft.irfftn(a, s=list(a.shape))', on(FFT, V()),
        op=lambda xp, a: xp.fft.irfftn(a, s=list(a.shape)), gpu_may_refuse=True),
    CupyOp('fft.fftshift', join(on(FFT, V(), V(axes=(0, -1))), on(CREATION, V())), gpu_may_refuse=True),
    CupyOp('fft.ifftshift', on(FFT, V(axes=0)), gpu_may_refuse=True),
    CupyOp('np.fft.fft', on(FFT, V(axis=0)), gpu_may_refuse=True),
    CupyOp('np.fft.rfftn', on(FFT, V()), gpu_may_refuse=True),
    CupyOp('xp.take_along_axis(a, _idx(xp, a, 1), 1)', on(SELECT, V()),
        op=lambda xp, a: xp.take_along_axis(a, _idx(xp, a, 1), 1), gpu_may_refuse=True),
    CupyOp('xp.take_along_axis(a, _idx(xp, a, 2, 5), -1)', on(SELECT, V()),
        op=lambda xp, a: xp.take_along_axis(a, _idx(xp, a, 2, 5), -1), gpu_may_refuse=True),
    CupyOp('xp.take_along_axis(a, xp.arange(6) % max(a.size, 1), None)', on(SELECT, V()),
        op=lambda xp, a: xp.take_along_axis(a, xp.arange(6) % max(a.size, 1), None), gpu_may_refuse=True),
    CupyOp('xp.take_along_axis(a, _idx(xp, a, 0).astype(xp.float32), 0)', on(SELECT, V()),
        op=lambda xp, a: xp.take_along_axis(a, _idx(xp, a, 0).astype(xp.float32), 0), gpu_may_refuse=True),
    CupyOp('xp.take_along_axis(a, xp.zeros((1, 3), xp.int64), 1)', on(SELECT, V()),
        op=lambda xp, a: xp.take_along_axis(a, xp.zeros((1, 3), xp.int64), 1), gpu_may_refuse=True),
    CupyOp('xp.put_along_axis(a.copy(), _idx(xp, a, 1), 1.0, 1)', on(SELECT, V()),
        op=lambda xp, a: xp.put_along_axis(a.copy(), _idx(xp, a, 1), 1.0, 1), gpu_may_refuse=True),
    CupyOp('xp.put_along_axis(a.copy(), _idx(xp, a, 1), xp.ones((1, 1, 1, 4), a.dtype), 1)', on(SELECT, V()),
        op=lambda xp, a: xp.put_along_axis(a.copy(), _idx(xp, a, 1), xp.ones((1, 1, 1, 4), a.dtype), 1),
        gpu_may_refuse=True),
    CupyOp('xp.put_along_axis(a.copy(), _idx(xp, a, 1), xp.ones((3, 3)), 1)', on(SELECT, V()),
        op=lambda xp, a: xp.put_along_axis(a.copy(), _idx(xp, a, 1), xp.ones((3, 3)), 1), gpu_may_refuse=True),
    CupyOp("xp.choose(xp.zeros(a.shape[1:], xp.int64), a, mode='wrap')", on(SELECT, V()),
        op=lambda xp, a: xp.choose(xp.zeros(a.shape[1:], xp.int64), a, mode='wrap'), gpu_may_refuse=True),
    CupyOp("xp.choose(xp.zeros((4,), xp.int64), a, mode='clip')", on(SELECT, V()),
        op=lambda xp, a: xp.choose(xp.zeros((4,), xp.int64), a, mode='clip'), gpu_may_refuse=True),
    CupyOp("xp.choose(xp.zeros((5,), xp.int64), a, mode='clip')", on(SELECT, V()),
        op=lambda xp, a: xp.choose(xp.zeros((5,), xp.int64), a, mode='clip'), gpu_may_refuse=True),
    CupyOp("xp.choose(xp.zeros((3, 4), xp.int64), a, mode='bogus')", on(SELECT, V()),
        op=lambda xp, a: xp.choose(xp.zeros((3, 4), xp.int64), a, mode='bogus'), gpu_may_refuse=True),
    CupyOp("xp.choose(xp.zeros((3, 4), xp.int64), a, out=xp.empty((3, 4), a.dtype), mode='wrap')",
        on(SELECT, V()),
        op=lambda xp, a: xp.choose(xp.zeros((3, 4), xp.int64), a, out=xp.empty((3, 4), a.dtype), mode='wrap'),
        gpu_may_refuse=True),
    CupyOp("xp.choose(xp.zeros((3, 4), xp.int64), a, out=xp.empty((2, 3, 4), a.dtype), mode='wrap')",
        on(SELECT, V()),
        op=lambda xp, a: xp.choose(xp.zeros((3, 4), xp.int64), a, out=xp.empty((2, 3, 4), a.dtype), mode='wrap'),
        gpu_may_refuse=True),
    CupyOp('xp.compress(xp.zeros((0,), bool), a, axis=1)', on(SELECT, V()),
        op=lambda xp, a: xp.compress(xp.zeros((0,), bool), a, axis=1), gpu_may_refuse=True),
    CupyOp('xp.compress([], a)', on(SELECT, V()), op=lambda xp, a: xp.compress([], a), gpu_may_refuse=True),
    CupyOp('xp.compress([], a, axis=2, out=xp.empty(a.shape[:2] + (0,), a.dtype))', on(SELECT, V()),
        op=lambda xp, a: xp.compress([], a, axis=2, out=xp.empty(a.shape[:2] + (0,), a.dtype)),
        gpu_may_refuse=True),
    CupyOp('.compress', on(SELECT, V(True), V([[1, 0]])), gpu_may_refuse=True),
    CupyOp('xp.extract(xp.zeros((0,), bool), a)', on(SELECT, V()),
        op=lambda xp, a: xp.extract(xp.zeros((0,), bool), a), gpu_may_refuse=True),
    CupyOp('xp.select([a > 3], [a], 0)', on(SELECT, V()), op=lambda xp, a: xp.select([a > 3], [a], 0),
        gpu_may_refuse=True),
    CupyOp('xp.select([(a > 3)[0]], [a], 1)', on(SELECT, V()), op=lambda xp, a: xp.select([(a > 3)[0]], [a], 1),
        gpu_may_refuse=True),
    CupyOp('xp.select([a > 3, a < 1], [a, a.astype(xp.float32)[0]], 2)', on(SELECT, V()),
        op=lambda xp, a: xp.select([a > 3, a < 1], [a, a.astype(xp.float32)[0]], 2), gpu_may_refuse=True),
    CupyOp('xp.select([a > 3], [a], 1.5)', on(SELECT, V()), op=lambda xp, a: xp.select([a > 3], [a], 1.5),
        gpu_may_refuse=True),
    CupyOp('xp.piecewise(a, [a > 3], [1])', on(SELECT, V()), op=lambda xp, a: xp.piecewise(a, [a > 3], [1]),
        gpu_may_refuse=True),
    CupyOp('xp.piecewise(a, [a > 3, a < 1], [1, 2, 3])', on(SELECT, V()),
        op=lambda xp, a: xp.piecewise(a, [a > 3, a < 1], [1, 2, 3]), gpu_may_refuse=True),
    CupyOp('xp.piecewise(a, [a > 3], [1, 2, 3])', on(SELECT, V()),
        op=lambda xp, a: xp.piecewise(a, [a > 3], [1, 2, 3]), gpu_may_refuse=True),
    CupyOp('xp.putmask(a.copy(), a > 2, 1)', on(SELECT, V()), op=lambda xp, a: xp.putmask(a.copy(), a > 2, 1),
        gpu_may_refuse=True),
    CupyOp('xp.putmask(a.copy(), a > 2, xp.ones((5,), xp.int8))', on(SELECT, V()),
        op=lambda xp, a: xp.putmask(a.copy(), a > 2, xp.ones((5,), xp.int8)), gpu_may_refuse=True),
    CupyOp('xp.putmask(a.copy(), a > 2, xp.ones((5,), xp.complex128))', on(SELECT, V()),
        op=lambda xp, a: xp.putmask(a.copy(), a > 2, xp.ones((5,), xp.complex128)), gpu_may_refuse=True),
    CupyOp('delete', on(SELECT, V(1, axis=1), V(-1, axis=2), V(0), V(5, axis=1), V([0, 0], axis=1)),
        gpu_may_refuse=True),
    CupyOp('xp.delete(a, slice(None, None, 2), axis=2)', on(SELECT, V()),
        op=lambda xp, a: xp.delete(a, slice(None, None, 2), axis=2), gpu_may_refuse=True),
    CupyOp('xp.delete(a, slice(1, 9), axis=1)', on(SELECT, V()),
        op=lambda xp, a: xp.delete(a, slice(1, 9), axis=1), gpu_may_refuse=True),
    CupyOp('packbits', on(SELECT, V()), gpu_may_refuse=True),
    CupyOp("xp.packbits(a > 2, bitorder='little')", on(SELECT, V()),
        op=lambda xp, a: xp.packbits(a > 2, bitorder='little'), gpu_may_refuse=True),
    CupyOp('unpackbits', on(SELECT, V()), gpu_may_refuse=True),
    CupyOp('xp.unpackbits(a.astype(xp.uint8))', on(SELECT, V()),
        op=lambda xp, a: xp.unpackbits(a.astype(xp.uint8)), gpu_may_refuse=True),
    CupyOp('astype', on(SELECT, V(np.float32), V(np.int16, copy=False)), gpu_may_refuse=True),
    CupyOp('xp.astype(a, a.dtype, copy=False)', on(SELECT, V()),
        op=lambda xp, a: xp.astype(a, a.dtype, copy=False), gpu_may_refuse=True),
    CupyOp('require', on(SELECT, V(), V(requirements='C'), V(requirements=['F']),
        V(np.float32, requirements=['O']), V(requirements=['C', 'O'])), gpu_may_refuse=True),
    CupyOp('asarray_chkfinite', on(SELECT, V()), gpu_may_refuse=True),
    CupyOp('asfarray', on(SELECT, V(), V(np.complex64)), gpu_may_refuse=True),
    CupyOp('xp.shares_memory(a, a[:, 1:])', on(SELECT, V()), op=lambda xp, a: xp.shares_memory(a, a[:, 1:]),
        gpu_may_refuse=True),
    CupyOp('xp.shares_memory(a[..., ::2], a[..., 1::2])', on(SELECT, V()),
        op=lambda xp, a: xp.shares_memory(a[..., ::2], a[..., 1::2]), gpu_may_refuse=True),
    CupyOp('xp.may_share_memory(a[..., ::2], a[..., 1::2])', on(SELECT, V()),
        op=lambda xp, a: xp.may_share_memory(a[..., ::2], a[..., 1::2]), gpu_may_refuse=True),
    CupyOp('xp.shares_memory(a, a.copy())', on(SELECT, V()), op=lambda xp, a: xp.shares_memory(a, a.copy()),
        gpu_may_refuse=True),
    CupyOp("xp.shares_memory(a, a[:1], max_work='MAY_SHARE_BOUNDS')", on(SELECT, V()),
        op=lambda xp, a: xp.shares_memory(a, a[:1], max_work='MAY_SHARE_BOUNDS'), gpu_may_refuse=True),
    CupyOp('size', on(SELECT, V(), V(2)), gpu_may_refuse=True),
    CupyOp('xp.in1d(a, a[0])', on(SELECT, V()), op=lambda xp, a: xp.in1d(a, a[0]), gpu_may_refuse=True),
    CupyOp('xp.isin(a, a[:, 0])', on(SELECT, V()), op=lambda xp, a: xp.isin(a, a[:, 0]), gpu_may_refuse=True),
    CupyOp('xp.isin(a, xp.zeros((0,)))', on(SELECT, V()), op=lambda xp, a: xp.isin(a, xp.zeros((0,))),
        gpu_may_refuse=True),
    CupyOp('xp.isin(a[0, 0, 0], a)', on(SELECT, V()), op=lambda xp, a: xp.isin(a[0, 0, 0], a),
        gpu_may_refuse=True),
    CupyOp('xp.setxor1d(a[:0], a[:0], assume_unique=True)', on(SELECT, V()),
        op=lambda xp, a: xp.setxor1d(a[:0], a[:0], assume_unique=True), gpu_may_refuse=True),
    CupyOp('xp.intersect1d(a[:0], a, assume_unique=True)', on(SELECT, V()),
        op=lambda xp, a: xp.intersect1d(a[:0], a, assume_unique=True), gpu_may_refuse=True),
    CupyOp('xp.setdiff1d(a[:0], a, assume_unique=True)', on(SELECT, V()),
        op=lambda xp, a: xp.setdiff1d(a[:0], a, assume_unique=True), gpu_may_refuse=True),
    CupyOp('unique_values', on(SELECT, V()), gpu_may_refuse=True),
    CupyOp('xp.union1d(a, a)', on(SELECT, V()), op=lambda xp, a: xp.union1d(a, a), gpu_may_refuse=True),
    CupyOp("xp.trim_zeros(a[0, 0], trim='')", on(SELECT, V()), op=lambda xp, a: xp.trim_zeros(a[0, 0], trim=''),
        gpu_may_refuse=True),
    CupyOp('trim_zeros', on(SELECT, V()), gpu_may_refuse=True),
    CupyOp('xp.trim_zeros(a[0, 0, 0])', on(SELECT, V()), op=lambda xp, a: xp.trim_zeros(a[0, 0, 0]),
        gpu_may_refuse=True),
    CupyOp('add.reduceat', on(SELECT, V([0, 1], axis=0), V([2, 0, 1], 2)), gpu_may_refuse=True),
    CupyOp('xp.add.reduceat(a, xp.array([0, 2]), axis=1, dtype=xp.float32)', on(SELECT, V()),
        op=lambda xp, a: xp.add.reduceat(a, xp.array([0, 2]), axis=1, dtype=xp.float32), gpu_may_refuse=True),
    CupyOp('xp.lexsort(a[0])', on(SELECT, V()), op=lambda xp, a: xp.lexsort(a[0]), gpu_may_refuse=True),
    CupyOp('xp.lexsort(a[:, 0])', on(SELECT, V()), op=lambda xp, a: xp.lexsort(a[:, 0]), gpu_may_refuse=True),
    CupyOp('lexsort', on(SELECT, V()), gpu_may_refuse=True),
    CupyOp('sort_complex', on(SELECT, V()), gpu_may_refuse=True),
    CupyOp('xp.sort_complex(a[0, 0])', on(SELECT, V()), op=lambda xp, a: xp.sort_complex(a[0, 0]),
        gpu_may_refuse=True),
    CupyOp('msort', on(SELECT, V()), gpu_may_refuse=True),
    CupyOp('.ptp', on(SELECT, V(), V(axis=1, keepdims=True)), gpu_may_refuse=True),
    CupyOp('.reduced_view', on(SELECT, V()), gpu_may_refuse=True),
    CupyOp('a[:, 0].reduced_view()', on(SELECT, V()), op=lambda xp, a: a[:, 0].reduced_view(),
        gpu_may_refuse=True),
    CupyOp('a[0, 0].reduced_view()', on(SELECT, V()), op=lambda xp, a: a[0, 0].reduced_view(),
        gpu_may_refuse=True),
    CupyOp('a.set(np.zeros(a.shape, a.dtype))', on(SELECT, V()),
        op=lambda xp, a: a.set(np.zeros(a.shape, a.dtype)), gpu_may_refuse=True),
    CupyOp('a.set(np.zeros(a.shape, np.float16))', on(SELECT, V()),
        op=lambda xp, a: a.set(np.zeros(a.shape, np.float16)), gpu_may_refuse=True),
    CupyOp('a.scatter_add(xp.array([0, 1, 1]) % max(a.shape[0], 1), 1)', on(SELECT, V()),
        op=lambda xp, a: a.scatter_add(xp.array([0, 1, 1]) % max(a.shape[0], 1), 1), gpu_may_refuse=True),
    CupyOp('a.scatter_max(slice(None), 1)', on(SELECT, V()), op=lambda xp, a: a.scatter_max(slice(None), 1),
        gpu_may_refuse=True),
    CupyOp('a.scatter_min((xp.array([0]), 1), xp.ones((4,), a.dtype))', on(SELECT, V()),
        op=lambda xp, a: a.scatter_min((xp.array([0]), 1), xp.ones((4,), a.dtype)), gpu_may_refuse=True),
    CupyOp('.byteswap', on(SELECT, V(), V(inplace=True)), gpu_may_refuse=True),
    CupyOp('a.astype(xp.int8).byteswap()', on(SELECT, V()), op=lambda xp, a: a.astype(xp.int8).byteswap(),
        gpu_may_refuse=True),
    CupyOp('linalg.inv', on(SQUARE, V()), gpu_may_refuse=True),
    CupyOp('np.linalg.inv', on(SQUARE, V()), gpu_may_refuse=True),
    CupyOp('linalg.cholesky', on(SQUARE, V()), gpu_may_refuse=True),
    CupyOp('linalg.det', on(SQUARE, V()), gpu_may_refuse=True),
    CupyOp('linalg.slogdet', on(SQUARE, V()), gpu_may_refuse=True),
    CupyOp('linalg.eigh', on(SQUARE, V(), V(UPLO='U')), gpu_may_refuse=True),
    CupyOp('linalg.eigvalsh', on(SQUARE, V()), gpu_may_refuse=True),
    CupyOp('linalg.eig', on(SQUARE, V()), gpu_may_refuse=True),
    CupyOp('linalg.eigvals', on(SQUARE, V()), gpu_may_refuse=True),
    CupyOp('linalg.matrix_power', on(SQUARE, V(0), V(1), V(2), V(5), V(-1), V(-3)), gpu_may_refuse=True),
    CupyOp('linalg.pinv', join(on(SQUARE, V()), on(RECT, V())), gpu_may_refuse=True),
    CupyOp('linalg.svd', join(on(SQUARE, V(), V(full_matrices=False), V(compute_uv=False)), on(RECT, V(),
        V(full_matrices=False), V(compute_uv=False))), gpu_may_refuse=True),
    CupyOp('linalg.qr', join(on(SQUARE, V(), V('complete'), V('r'), V('raw')), on(RECT, V(), V('complete'),
        V('r'), V('raw'))), gpu_may_refuse=True),
    CupyOp('linalg.norm', join(on(SQUARE, V(), V(keepdims=True), V(axis=-1), V(1, axis=(-2, -1)),
        V(2, axis=(-2, -1), keepdims=True), V('nuc', axis=(0, -1)), V(-np.inf, axis=(-1, -2)), V(3, axis=0),
        V(0, axis=1, keepdims=True)), on(RECT, V(), V(2, axis=(0, 1)), V(np.inf), V(axis=0, keepdims=True))),
        gpu_may_refuse=True),
    CupyOp('linalg.cond', join(on(SQUARE, V(), V(1), V('fro'), V(-2)), on(RECT, V())), gpu_may_refuse=True),
    CupyOp('linalg.matrix_rank', join(on(SQUARE, V()), on(RECT, V())), gpu_may_refuse=True),
    CupyOp('linalg.matrix_transpose', join(on(SQUARE, V()), on(RECT, V())), gpu_may_refuse=True),
    CupyOp('linalg.tensorinv', on(SQUARE, V(1)), gpu_may_refuse=True),
    CupyOp('xp.linalg.solve(a, a)', on(SQUARE, V()), op=lambda xp, a: xp.linalg.solve(a, a), gpu_may_refuse=True
        ),
    CupyOp('xp.linalg.solve(a, a[..., 0])', on(SQUARE, V()), op=lambda xp, a: xp.linalg.solve(a, a[..., 0]),
        gpu_may_refuse=True),
    CupyOp('xp.linalg.solve(a, a[0, :, 0])', on(SQUARE, V()), op=lambda xp, a: xp.linalg.solve(a, a[0, :, 0]),
        gpu_may_refuse=True),
    CupyOp('xp.linalg.solve(a, a[..., :1])', on(SQUARE, V()), op=lambda xp, a: xp.linalg.solve(a, a[..., :1]),
        gpu_may_refuse=True),
    CupyOp('xp.linalg.lstsq(a, a[..., 0]) if a.ndim == 2 else xp.linalg.lstsq(a, a)', on(RECT, V()),
        op=lambda xp, a: xp.linalg.lstsq(a, a[..., 0]) if a.ndim == 2 else xp.linalg.lstsq(a, a),
        gpu_may_refuse=True),
    CupyOp('xp.linalg.lstsq(a, xp.ones((a.shape[0], 2)))', on(RECT, V()),
        op=lambda xp, a: xp.linalg.lstsq(a, xp.ones((a.shape[0], 2))), gpu_may_refuse=True),
    CupyOp('xp.linalg.tensorinv(a.reshape(-1, 1) @ a.reshape(1, -1))', on(RECT, V()),
        op=lambda xp, a: xp.linalg.tensorinv(a.reshape(-1, 1) @ a.reshape(1, -1)), gpu_may_refuse=True),
    CupyOp('nansum', on(STATS, V(), V(axis=0), V(axis=-1, keepdims=True), V(dtype=np.float32)),
        gpu_may_refuse=True),
    CupyOp('nanprod', on(STATS, V(axis=1)), gpu_may_refuse=True),
    CupyOp('nanmax', on(STATS, V(), V(axis=0)), gpu_may_refuse=True),
    CupyOp('nanmin', on(STATS, V(axis=-1)), gpu_may_refuse=True),
    CupyOp('nanargmax', on(STATS, V()), gpu_may_refuse=True),
    CupyOp('nanargmin', on(STATS, V(axis=0)), gpu_may_refuse=True),
    CupyOp('nanmean', on(STATS, V(), V(axis=1, keepdims=True), V(dtype=np.float64)), gpu_may_refuse=True),
    CupyOp('nanvar', on(STATS, V(), V(axis=0, ddof=1), V(dtype=np.float64)), gpu_may_refuse=True),
    CupyOp('nanstd', on(STATS, V(axis=-1), V(dtype=np.float64)), gpu_may_refuse=True),
    CupyOp('product', on(STATS, V(axis=0)), gpu_may_refuse=True),
    CupyOp('cumproduct', on(STATS, V(axis=-1)), gpu_may_refuse=True),
    CupyOp('nancumsum', on(STATS, V(), V(axis=0)), gpu_may_refuse=True),
    CupyOp('nancumprod', on(STATS, V(axis=-1)), gpu_may_refuse=True),
    CupyOp('cumulative_sum', on(STATS, V(axis=0), V(axis=0, include_initial=True, dtype=np.float32)),
        gpu_may_refuse=True),
    CupyOp('xp.cumulative_sum(a.ravel())', on(STATS, V()), op=lambda xp, a: xp.cumulative_sum(a.ravel()),
        gpu_may_refuse=True),
    CupyOp('cumulative_prod', on(STATS, V(axis=-1, include_initial=True)), gpu_may_refuse=True),
    CupyOp('median', on(STATS, V(), V(axis=0), V(axis=-1), V(keepdims=True), V(axis=1, keepdims=True),
        V(axis=(0, 2)), V(axis=(0, -1), keepdims=True), V(axis=0, overwrite_input=True)), gpu_may_refuse=True),
    CupyOp('xp.median(a.copy(), axis=0, overwrite_input=True)', on(STATS, V()),
        op=lambda xp, a: xp.median(a.copy(), axis=0, overwrite_input=True), gpu_may_refuse=True),
    CupyOp('nanmedian', on(STATS, V(), V(axis=1), V(axis=0, keepdims=True), V(axis=(0, 2), keepdims=True)),
        gpu_may_refuse=True),
    CupyOp('quantile', on(STATS, V(0.5), V(0.5, axis=0), V([0.2, 0.7], axis=1), V(0.3, axis=(0, 2)),
        V(0.3, axis=-1, keepdims=True), V([0.3, 0.4], axis=1, keepdims=True), V([0.3], axis=1, keepdims=True),
        V(0.5, axis=0, method='nearest'), V(0.5, axis=1, method='higher', keepdims=True),
        V(0.5, axis=1, method='midpoint'), V(1, axis=0), V(0.5, axis=0, overwrite_input=True),
        V(0.5, method='hazen'), V(1.5), V([[0.5]])), gpu_may_refuse=True),
    CupyOp("xp.quantile(a, np.array([0.1, 0.9]), method='lower')", on(STATS, V()),
        op=lambda xp, a: xp.quantile(a, np.array([0.1, 0.9]), method='lower'), gpu_may_refuse=True),
    CupyOp('xp.quantile(a, np.float64(0.5))', on(STATS, V()), op=lambda xp, a: xp.quantile(a, np.float64(0.5)),
        gpu_may_refuse=True),
    CupyOp('xp.quantile(a, xp.array([0.25, 0.5]), axis=-1)', on(STATS, V()),
        op=lambda xp, a: xp.quantile(a, xp.array([0.25, 0.5]), axis=-1), gpu_may_refuse=True),
    CupyOp('percentile', on(STATS, V(50), V([25, 75], axis=0), V(50, axis=-1, keepdims=True), V(150)),
        gpu_may_refuse=True),
    CupyOp('xp.percentile(a, xp.array(30), axis=1)', on(STATS, V()),
        op=lambda xp, a: xp.percentile(a, xp.array(30), axis=1), gpu_may_refuse=True),
    CupyOp('average', on(STATS, V(), V(axis=0), V(returned=True), V(axis=1, returned=True),
        V(axis=-1, keepdims=True, returned=True)), gpu_may_refuse=True),
    CupyOp('xp.average(a, weights=xp.ones(a.shape))', on(STATS, V()),
        op=lambda xp, a: xp.average(a, weights=xp.ones(a.shape)), gpu_may_refuse=True),
    CupyOp('xp.average(a, axis=0, weights=xp.ones(a.shape[:1], xp.float32), returned=True)', on(STATS, V()),
        op=lambda xp, a: xp.average(a, axis=0, weights=xp.ones(a.shape[:1], xp.float32), returned=True),
        gpu_may_refuse=True),
    CupyOp('xp.average(a, axis=-1, weights=xp.ones(a.shape[-1:], xp.int32), keepdims=True)', on(STATS, V()),
        op=lambda xp, a: xp.average(a, axis=-1, weights=xp.ones(a.shape[-1:], xp.int32), keepdims=True),
        gpu_may_refuse=True),
    CupyOp('xp.average(a, weights=xp.ones(3))', on(STATS, V()),
        op=lambda xp, a: xp.average(a, weights=xp.ones(3)), gpu_may_refuse=True),
    CupyOp('diff', on(STATS, V(), V(axis=0), V(n=2, axis=1), V(n=0), V(n=9), V(prepend=0), V(n=-1)),
        gpu_may_refuse=True),
    CupyOp('xp.diff(a, axis=0, append=a[:1])', on(STATS, V()),
        op=lambda xp, a: xp.diff(a, axis=0, append=a[:1]), gpu_may_refuse=True),
    CupyOp('ediff1d', on(STATS, V()), gpu_may_refuse=True),
    CupyOp('xp.ediff1d(a, to_begin=xp.zeros(2, a.dtype))', on(STATS, V()),
        op=lambda xp, a: xp.ediff1d(a, to_begin=xp.zeros(2, a.dtype)), gpu_may_refuse=True),
    CupyOp('xp.ediff1d(a, to_end=xp.zeros((2, 2)))', on(STATS, V()),
        op=lambda xp, a: xp.ediff1d(a, to_end=xp.zeros((2, 2))), gpu_may_refuse=True),
    CupyOp('gradient', on(STATS, V(), V(axis=0), V(2.0, axis=-1, edge_order=2), V(edge_order=3)),
        gpu_may_refuse=True),
    CupyOp('xp.gradient(a, xp.arange(float(a.shape[0])), axis=0)', on(STATS, V()),
        op=lambda xp, a: xp.gradient(a, xp.arange(float(a.shape[0])), axis=0), gpu_may_refuse=True),
    CupyOp('trapezoid', on(STATS, V(), V(axis=0), V(dx=0.5, axis=1)), gpu_may_refuse=True),
    CupyOp('xp.trapezoid(a, x=xp.arange(float(a.shape[-1])))', on(STATS, V()),
        op=lambda xp, a: xp.trapezoid(a, x=xp.arange(float(a.shape[-1]))), gpu_may_refuse=True),
    CupyOp('unwrap', on(STATS, V(), V(axis=0)), gpu_may_refuse=True),
    CupyOp('angle', on(STATS, V(), V(deg=True)), gpu_may_refuse=True),
    CupyOp('iscomplex', on(STATS, V()), gpu_may_refuse=True),
    CupyOp('isreal', on(STATS, V()), gpu_may_refuse=True),
    CupyOp('isneginf', on(STATS, V()), gpu_may_refuse=True),
    CupyOp('isposinf', on(STATS, V()), gpu_may_refuse=True),
    CupyOp('xp.isposinf(a, out=xp.empty(a.shape, bool))', on(STATS, V()),
        op=lambda xp, a: xp.isposinf(a, out=xp.empty(a.shape, bool)), gpu_may_refuse=True),
    CupyOp('real_if_close', on(STATS, V()), gpu_may_refuse=True),
    CupyOp('xp.array_equal(a, a)', on(STATS, V()), op=lambda xp, a: xp.array_equal(a, a), gpu_may_refuse=True),
    CupyOp('xp.array_equal(a, a[..., :1])', on(STATS, V()), op=lambda xp, a: xp.array_equal(a, a[..., :1]),
        gpu_may_refuse=True),
    CupyOp('xp.array_equal(a, a, equal_nan=True)', on(STATS, V()),
        op=lambda xp, a: xp.array_equal(a, a, equal_nan=True), gpu_may_refuse=True),
    CupyOp('xp.array_equiv(a, a[..., :1])', on(STATS, V()), op=lambda xp, a: xp.array_equiv(a, a[..., :1]),
        gpu_may_refuse=True),
    CupyOp('xp.array_equiv(a, xp.ones(2))', on(STATS, V()), op=lambda xp, a: xp.array_equiv(a, xp.ones(2)),
        gpu_may_refuse=True),
    CupyOp('xp.interp(a, xp.arange(5.0), xp.arange(5.0))', on(STATS, V()),
        op=lambda xp, a: xp.interp(a, xp.arange(5.0), xp.arange(5.0)), gpu_may_refuse=True),
    CupyOp('xp.interp(a, xp.arange(5.0), xp.arange(5.0) * 1j, period=2.0)', on(STATS, V()),
        op=lambda xp, a: xp.interp(a, xp.arange(5.0), xp.arange(5.0) * 1j, period=2.0), gpu_may_refuse=True),
    CupyOp('xp.digitize(a, xp.arange(5.0))', on(STATS, V()), op=lambda xp, a: xp.digitize(a, xp.arange(5.0)),
        gpu_may_refuse=True),
    CupyOp('xp.digitize(a, xp.ones((2, 2)))', on(STATS, V()), op=lambda xp, a: xp.digitize(a, xp.ones((2, 2))),
        gpu_may_refuse=True),
    CupyOp('bincount', on(STATS, V()), gpu_may_refuse=True),
    CupyOp('xp.bincount(a[:0], minlength=3)', on(STATS, V()), op=lambda xp, a: xp.bincount(a[:0], minlength=3),
        gpu_may_refuse=True),
    CupyOp('histogram', on(STATS, V(), V(bins=4, range=(0, 3)), V(bins=[0, 2, 5], density=True)),
        gpu_may_refuse=True),
    CupyOp('xp.histogram(a, bins=xp.arange(4.0), weights=xp.ones(a.shape, xp.int8))', on(STATS, V()),
        op=lambda xp, a: xp.histogram(a, bins=xp.arange(4.0), weights=xp.ones(a.shape, xp.int8)),
        gpu_may_refuse=True),
    CupyOp('xp.histogram(a, bins=3, weights=xp.ones(a.shape, xp.complex64))', on(STATS, V()),
        op=lambda xp, a: xp.histogram(a, bins=3, weights=xp.ones(a.shape, xp.complex64)), gpu_may_refuse=True),
    CupyOp('xp.convolve(a, xp.arange(3, dtype=xp.int8))', on(STATS, V()),
        op=lambda xp, a: xp.convolve(a, xp.arange(3, dtype=xp.int8)), gpu_may_refuse=True),
    CupyOp("xp.convolve(a, xp.arange(2, dtype=xp.int16), mode='same')", on(STATS, V()),
        op=lambda xp, a: xp.convolve(a, xp.arange(2, dtype=xp.int16), mode='same'), gpu_may_refuse=True),
    CupyOp("xp.correlate(a, xp.ones(2, dtype=xp.int32), mode='full')", on(STATS, V()),
        op=lambda xp, a: xp.correlate(a, xp.ones(2, dtype=xp.int32), mode='full'), gpu_may_refuse=True),
    CupyOp('xp.correlate(a, xp.ones(2, dtype=bool))', on(STATS, V()),
        op=lambda xp, a: xp.correlate(a, xp.ones(2, dtype=bool)), gpu_may_refuse=True),
    CupyOp('tril_indices_from', on(CREATION, V(), V(-2)), gpu_may_refuse=True),
    CupyOp('triu_indices_from', on(CREATION, V(1)), gpu_may_refuse=True),
    CupyOp('diag_indices_from', on(CREATION, V()), gpu_may_refuse=True),
    CupyOp('vander', on(CREATION, V(), V(3, increasing=True)), gpu_may_refuse=True),
    CupyOp('xp.vander(a.ravel())', on(CREATION, V()), op=lambda xp, a: xp.vander(a.ravel()), gpu_may_refuse=True
        ),
    CupyOp('ix_', on(CREATION, V()), gpu_may_refuse=True),
    CupyOp('xp.ix_(a, a)', on(CREATION, V()), op=lambda xp, a: xp.ix_(a, a), gpu_may_refuse=True),
    CupyOp('xp.ix_(a.ravel(), a.ravel()[:2])', on(CREATION, V()),
        op=lambda xp, a: xp.ix_(a.ravel(), a.ravel()[:2]), gpu_may_refuse=True),
    CupyOp('xp.ravel_multi_index((a.astype(int), a.astype(int)), (20, 20))', on(CREATION, V()),
        op=lambda xp, a: xp.ravel_multi_index((a.astype(int), a.astype(int)), (20, 20)), gpu_may_refuse=True),
    CupyOp("xp.ravel_multi_index((a.astype(xp.int8), a[..., :1].astype(int)), (20, 20), mode='clip', order='F')",
        on(CREATION, V()),
        op=lambda xp, a: xp.ravel_multi_index((a.astype(xp.int8), a[..., :1].astype(int)), (20, 20), mode='clip', order='F'),
        gpu_may_refuse=True),
    CupyOp("xp.ravel_multi_index((a, a), (20, 20), mode='bad')", on(CREATION, V()),
        op=lambda xp, a: xp.ravel_multi_index((a, a), (20, 20), mode='bad'), gpu_may_refuse=True),

]


def _refusing(gen: Callable[[], Iterable[Sample]], pred: Callable[[Sample], bool]
              ) -> Callable[[], list[Sample]]:
    """gen's samples, those pred selects marked ``refuses`` (the answer depends on values)."""
    def out() -> list[Sample]:
        return [Sample(s.args, s.kwargs, s.name, True) if pred(s) else s for s in gen()]
    return out


def _dtype_of(s: Sample) -> str:
    return s.args[0].dtype if isinstance(s.args[0], A) else ""


_QV = (V(0.5), V([0.25, 0.75], axis=0), V(0.3, axis=(0, 2), keepdims=True), V(0.5, axis=-1, method="lower"),
       V(0.4, axis=1, method="hazen"), V([0.2], axis=0, method="nearest"), V(0.7, method="inverted_cdf"),
       V(0.5, axis=4), V(0.5, method="bogus"), V(A("C", (2,), "f8", 0.5), axis=2),
       V(0.5, axis=0, weights=A("C", (3,)), method="inverted_cdf"),
       V(0.5, axis=(0, 1), weights=A("C", (3, 4)), method="inverted_cdf"),
       V(0.5, weights=A("C", (3,)), method="linear"))
_PV = tuple(V(*(a * 100 if isinstance(a, float) else [x * 100 for x in a] if isinstance(a, list) else a
                for a in v.args), **v.kwargs) for v in _QV)
# nan-quantiles of float16/float32 data whose interpolated dtype is another: an all-NaN
# slice (a value) would give the data's dtype instead
def _nan_dtype(name: str) -> Callable[[Sample], bool]:
    """The nan-quantile samples whose result dtype is not the float16/float32 data's: an
    all-NaN slice (a value) would give the data's dtype instead, so the fake refuses."""
    def pred(s: Sample) -> bool:
        if _dtype_of(s) not in ("f2", "f4"):
            return False
        args, kwargs = s.build(np)
        try:
            with np.errstate(all="ignore"):
                r = getattr(np, name)(*args, **kwargs)
        except Exception:
            return False
        return np.asarray(r).dtype != np.dtype(_dtype_of(s)) and args[0].size > 0
    return pred


def _nan_view(name: str) -> Callable[[Sample], bool]:
    """The nan-function samples whose result is NumPy's own array if a slice is all NaN and
    a view otherwise (nanmedian along an axis shorter than 600; nanquantile of one slice
    with an array q; keepdims views either way): the fake refuses (a value decides)."""
    def pred(s: Sample) -> bool:
        args, kwargs = s.build(np)
        a = args[0]
        if a.dtype.kind not in "fcmM" or a.size == 0 or kwargs.get("keepdims"):
            return False
        try:
            with np.errstate(all="ignore"):
                getattr(np, name)(*args, **kwargs)
        except Exception:
            return False
        axis = kwargs.get("axis")
        if name == "nanmedian":
            if axis is None or a.ndim < 2:
                return False
            n = math.prod(a.shape[i] for i in ((axis,) if isinstance(axis, int) else axis))
            return n < 600 and a.ndim > (1 if isinstance(axis, int) else len(axis))
        return (axis is None or a.ndim == 1) and np.ndim(args[1]) > 0
    return pred


_EINSUM = {"chain": ("ij,jk,kl->il", (A("C", (3, 4)), A("F", (4, 5)), A("T", (5, 6)))),
           "bmm": ("bij,bjk->bik", (A("perm", (2, 3, 4)), A("C", (2, 4, 5)))),
           "outer": ("i,j->ji", (A("neg", (3,)), A("C", (4,), "f4"))),
           "trace": ("ii,ij->j", (A("C", (4, 4)), A("strided", (4, 5)))),
           "sum3": ("abc,cd,db->a", (A("C", (2, 3, 4)), A("F", (4, 5)), A("C", (5, 3), "i4"))),
           "ell": ("...j,jk->...k", (A("C", (2, 3, 4)), A("bcast", (4, 5)))),
           "bad": ("ij,jk->ik", (A("C", (3, 4)), A("C", (5, 5))))}

STATS_SETS = [
    OpInfo("quantile", on(STATS, *_QV)),
    OpInfo("percentile", on(STATS, *_PV)),
    OpInfo("nanquantile", _refusing(on(STATS, *_QV), lambda s: _nan_dtype("nanquantile")(s)
                                    or _nan_view("nanquantile")(s))),
    OpInfo("nanpercentile", _refusing(on(STATS, *_PV), lambda s: _nan_dtype("nanpercentile")(s)
                                      or _nan_view("nanpercentile")(s))),
    OpInfo("nanmedian", _refusing(on(STATS, V(), V(axis=1), V(axis=(0, 2), keepdims=True),
                                     V(axis=-1, keepdims=True), V(axis=3)), _nan_view("nanmedian"))),
    OpInfo("isin", on(STATS, V([1, 2]), V(A("C", (4,), "i4")), V([1.5], invert=True), V(A("F", (2, 30)), kind="sort"),
                      V([1, 2], kind="table"), V(A("C", (50,)), assume_unique=True), V([1], kind="bad"))),
    # the lengths are known with no element, or one (axis None): exact there
    OpInfo("unique", _refusing(on(STATS, V(), V(axis=0), V(return_inverse=True), V(axis=5)),
                               lambda s: (s.kwargs.get("axis") is None
                                          or s.kwargs["axis"] < len(s.args[0].shape))
                               and (math.prod(s.args[0].shape) > 1 if s.kwargs.get("axis") is None
                                    # one slice along the axis: one distinct, whatever the values
                                    else s.args[0].shape[s.kwargs["axis"]] > 1
                                    and math.prod(s.args[0].shape) > 0))),
    *[OpInfo(f, samples(Sample((A("C", (3, 4)),), refuses=True), Sample((A("T", (3, 4), "i4"),), refuses=True)))
      for f in ("unique_values", "unique_counts", "unique_inverse", "unique_all")],
    *[OpInfo(f, samples(Sample((A("C", (3, 4)), A("F", (2, 2))), refuses=True),
                        Sample((A("C", (5,), "i4"), [1, 2]), refuses=True)))
      for f in ("intersect1d", "union1d", "setdiff1d", "setxor1d")],
    OpInfo("einsum-optimize", samples(*[Sample((sub,) + ops, {"optimize": opt, **kw}, f"{k}-{opt}-{kw}")
                                        for k, (sub, ops) in _EINSUM.items()
                                        for opt in (True, "greedy", "optimal", ["einsum_path", (0, 1)])
                                        for kw in ({}, {"order": "F"}, {"dtype": "f4"})]),
           op=lambda xp, sub, *ops, **kw: xp.einsum(sub, *ops, **kw)),
]


UFUNCS = [_ufunc_entry(u) for u in _ufuncs()]
# On NumPy only: their CuPy rules are checked by the CUPY entries until a GPU run lists the
# gaps of running these samples on CuPy as well.
# np.strings / np.char (kernels/numpy/strings.py): string arrays of several lengths in every
# layout; ``refuses`` where the fixed-width result's itemsize is the data's (tests/kernels/numpy/test_strings.py
# has every function)
_TEXT = ([A(k, SHAPE, "U6", "text") for k in LAYOUTS]
         + [A("perm", (2, 3, 4), "U6", "text"), A("C", (), "U6", "text"), A("C", (0, 4), "U6", "text"),
            A("ro", SHAPE, "S6", "text"), A("unaligned", (2, 3), ">U6", "text"),
            A("C", SHAPE, "T", "text"), A("F", SHAPE, "T", "text")])


def _strs(*extra: Any, refuse_fixed: bool = False) -> Callable[[], list[Sample]]:
    """Each string array, then ``extra`` arguments; ``refuse_fixed``: U/S results the data size."""
    def gen() -> list[Sample]:
        return [Sample((a,) + extra, {}, refuses=refuse_fixed and a.dtype != "T" and 0 not in a.shape)
                for a in _TEXT]
    return gen


STRINGS = [
    OpInfo("strings.str_len", _strs()),
    OpInfo("strings.upper", _strs()),
    OpInfo("strings.strip", _strs()),
    OpInfo("strings.find", _strs("b", 1)),
    OpInfo("strings.slice", _strs(1, 4)),
    OpInfo("strings.center", _strs(9)),
    OpInfo("strings.zfill", _strs(8), op=lambda xp, a, w: xp.strings.zfill(a, w)),
    OpInfo("strings.center_short", _strs(3, refuse_fixed=True),
           op=lambda xp, a, w: xp.strings.center(a, w)),
    OpInfo("strings.replace", _strs("b", "XYZ", refuse_fixed=True),
           op=lambda xp, a, o, n: xp.strings.replace(a, o, n)),
    OpInfo("strings.add", _strs(), op=lambda xp, a: xp.strings.add(a, a[..., :1] if a.ndim else a)),
    OpInfo("char.equal", _strs(), op=lambda xp, a: xp.char.equal(a, a)),
]

NUMPY_FAMILIES = STRINGS + UFUNCS + VIEWS + REDUCTIONS + MANIPULATION + JOINING + STATS_SETS

TABLE: list[OpInfo] = NUMPY_FAMILIES + CUPY
