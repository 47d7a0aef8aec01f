"""``faketensor coverage``: how exact the fakes are, callable by callable.

Every public callable of numpy, numpy.linalg, numpy.fft, numpy.random (module functions and
``Generator`` methods), the ndarray methods and the ufunc methods (the list of
``coverage.public_callables``) is called on a set of awkward inputs (the sample specs of
``samples.py``: C, F, transposed, negative-stride, strided, broadcast, offset, permuted, 0-d,
empty, read-only and unaligned arrays of several dtypes), once on real NumPy and once on the
fakes of the same inputs inside ``FakeMode``; ``oracle.compare_outcome`` compares shape,
dtype, strides, flags, offset, aliasing, scalar versus 0-d and exception type.

Each callable's samples come from its recipe (``RECIPES``: argument templates whose ``X``
slot takes every operand of a set) or, without one, from the first argument forms of
``PROBES`` that real NumPy accepts. Whether the output metadata depends on values is measured
too: the first sample of each template runs for real with several fillings (ones, zeros,
1..5, mixed); if the outputs' metadata (or a Python value returned) differs, the callable is
value-dependent and its fake must raise DataDependentError.

Statuses: ``exact`` (every sample agrees), ``data-dependent`` (some sample refused with
DataDependentError, none differs), ``wrong`` (some sample differs: the first difference is
kept), ``unsupported`` (UnsupportedOperationError), ``not dispatched`` (NumPy never hands the
call to faketensor and the fake differs), ``untested`` (no sample, or real NumPy raised on
every one: never counted exact), ``no array`` (``NO_ARRAY`` and the test runners: they take
and return no array, so they are listed but outside both shares).

A sample whose real call raises for its values only (another filling of the operands is
accepted, and then the fake agrees) is left out, as a singular matrix is: the fake answers
for the values NumPy accepts (``_refused_for_values``).

``--backend cupy`` runs the CuPy namespaces the same way against real CuPy (the recipes of
their NumPy namesakes; ``oracle.compare_cupy_outcome``) on a machine with a CUDA device, and
reports "not measured" anywhere else: nothing is invented.
"""
from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import shutil
import sys
import tempfile
import time
import warnings
from typing import Any, Callable, Iterable, Iterator, NamedTuple

import numpy as np

from ..._sizes import SizePolicy
from ..._array import is_fake
from ..._convert import Converter
from ..._errors import DataDependentError, UnsupportedOperationError
from .coverage import is_dispatched, kernel_for, public_callables
from ...kernels.numpy.random import FakeBytes
from .oracle import Mismatch, arrays_in, copy_tree, compare_outcome, to_fakes
from .samples import LAYOUTS, SHAPE, A, Sample, walk, arrays, dtype_arrays

STATUSES = ("exact", "data-dependent", "wrong", "unsupported", "not dispatched", "untested",
            "no array")
GOAL = 0.97  # share of the value-independent callables that must be exact

# --- operand sets and templates ------------------------------------------------------------------


class _Slot:
    """A placeholder in a template: ``X`` takes each operand of the set, ``Y`` a C array of
    the operand's shape and dtype, ``J`` a small in-range integer index array."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


X, Y, J = _Slot("X"), _Slot("Y"), _Slot("J")

_DTYPES = ("?", "i4", "u1", "f4", "c16", "f2", "i8")


# --- np.strings and np.char: string operands and recipes (one block) ---------------------------

def _string_operands() -> dict[str, list[A]]:
    """U arrays in every layout, S, non-native U and StringDType ones, 0-d, empty, permuted,
    filled with strings of several lengths (``samples.TEXT``)."""
    text = [A(k, SHAPE, "U6", "text") for k in LAYOUTS]
    text += [A("C", SHAPE, d, "text") for d in ("S6", ">U6", "T")]
    text += [A("F", SHAPE, "T", "text"), A("neg", SHAPE, "S6", "text"), A("C", (), "U6", "text"),
             A("C", (0, 4), "U6", "text"), A("perm", (2, 3, 4), "U6", "text")]
    return {"strings": text}


def _string_recipes() -> dict[str, tuple]:
    """Argument templates for every public callable of numpy.strings and numpy.char."""
    def on(*templates: tuple, refuses: bool = False) -> tuple:
        return tuple(t(*a, _on="strings", _refuses=refuses, **k) for a, k in templates)
    one = on(((X,), {}))
    cmp = on(((X, Y), {}), ((X, "b"), {}))
    search = on(((X, "b"), {}), ((X, "a", 1, 4), {}))
    table = {
        "add": on(((X, Y), {}), ((X, "xy"), {})),
        **{n: cmp for n in ("equal", "not_equal", "less", "less_equal", "greater",
                            "greater_equal")},
        **{n: one for n in ("str_len", "isalpha", "isdigit", "isspace", "isalnum", "islower",
                            "isupper", "istitle", "isdecimal", "isnumeric", "upper", "lower",
                            "swapcase", "capitalize", "title", "encode", "decode", "splitlines",
                            "array", "asarray")},
        **{n: search for n in ("find", "rfind", "count", "startswith", "endswith")},
        # ValueError where a string lacks the substring: whether it raises is the values'
        **{n: on(((X, "b"), {}), ((X, "a", 1, 4), {}), refuses=True) for n in ("index", "rindex")},
        **{n: on(((X,), {}), ((X, " a"), {})) for n in ("strip", "lstrip", "rstrip")},
        **{n: on(((X, 9), {}), ((X, 3), {}), ((X, 8, "*"), {})) for n in ("center", "ljust",
                                                                           "rjust")},
        "zfill": on(((X, 9), {}), ((X, 2), {})),
        "multiply": on(((X, 3), {}),),
        "expandtabs": on(((X,), {}), ((X, 2), {})),
        "replace": on(((X, "b", "XYZ"), {}), ((X, "a", "c", 1), {})),
        **{n: on(((X, "-"), {}),) for n in ("partition", "rpartition")},
        "slice": on(((X, 1, 3), {}), ((X, None, None, -1), {})),
        "translate": on(((X, {97: "XY"}), {}),),
        "mod": on(((X, ()), {}),),
        "join": on((("-", X), {}), refuses=True),  # bytes items raise in str.join unless empty
        **{n: on(((X,), {}), ((X, "-", 1), {})) for n in ("split", "rsplit")},
        "compare_chararrays": on(((X, Y, "==", True), {}), ((X, Y, "<", False), {})),
    }
    return {f"numpy.{ns}.{n}": r for ns in ("strings", "char") for n, r in table.items()
            if hasattr(getattr(np, ns), n)}


def _operand_sets() -> dict[str, list[A]]:
    vec = [A(k, (5,), "f8", "arange") for k in ("C", "neg", "strided", "bcast", "offset")]
    vec += [A("C", (0,), "f8"), A("ro", (4,), "f8", "arange"), A("unaligned", (6,), "f8", "arange")]
    vec += [A("C", (5,), d, "arange") for d in ("i4", "c16", "f4", "?")]
    sq = [A(k, (3, 3), "f8", "wellcond") for k in LAYOUTS]
    sq += [A("C", (2, 3, 3), "f8", "wellcond"), A("perm", (3, 3, 3), "f8", "wellcond"),
           A("F", (2, 3, 3), "f8", "wellcond"), A("C", (0, 3, 3), "f8"), A("C", (3, 0, 0), "f8")]
    sq += [A("C", (3, 3), d, "wellcond") for d in ("f4", "c16", "c8", "i4")]
    return {
        "awkward": arrays("f8", "arange") + dtype_arrays(_DTYPES, "arange"),
        "few": [A(k, SHAPE, "f8", "arange") for k in ("C", "F", "neg", "bcast")]
        + [A("C", (), "f8", "arange"), A("C", (0, 4), "f8"), A("perm", (2, 3, 4), "f8", "arange"),
           A("C", SHAPE, "i4", "arange"), A("C", SHAPE, "c16", "arange")],
        "vector": vec,
        "ints": arrays("i8", "arange") + dtype_arrays(("u1", "i1", "u8", "?", "i4"), "arange"),
        "times": arrays("M8[s]") + dtype_arrays(("m8[ms]",)),
        "probs": [A(k, SHAPE, "f8", 0.5) for k in LAYOUTS] + [A("C", (), "f8", 0.5), A("C", (0, 4), "f8", 0.5),
                                                            A("perm", (2, 3, 4), "f8", 0.5)],
        "square": sq,
        "none": [],
        **_string_operands(),
    }


OPERANDS = _operand_sets()


@dataclasses.dataclass(frozen=True)
class T:
    """One argument template: positional and keyword arguments with slots, and the operand set
    the ``X`` slot runs over (``"none"``: the template is one sample as written)."""
    args: tuple
    kwargs: dict
    operands: str = "awkward"
    refuses: bool = False  # whether NumPy raises depends on the values: the fake must refuse

    def expand(self, backend: str = "numpy") -> list[Sample]:
        if not _has_slot((self.args, self.kwargs)):
            out = [Sample(self.args, dict(self.kwargs), name=_tid(self.args, self.kwargs))]
        else:
            out = [self.fill_in(spec) for spec in OPERANDS[self.operands]]
        return out if backend == "numpy" else [s for s in out if s.on_cupy()]

    def fill_in(self, spec: A) -> Sample:
        def put(v: Any) -> Any:
            if v is X:
                return spec
            if v is Y:
                return A("C", spec.shape, spec.dtype, spec.fill)
            if v is J:
                return A("C", (2,), "i8", 0)  # in range for every axis that is not empty
            return v
        args, kwargs = walk((self.args, self.kwargs), put)
        return Sample(args, kwargs, refuses=self.refuses)


def t(*args: Any, _on: str = "awkward", _refuses: bool = False, **kwargs: Any) -> T:
    return T(args, kwargs, _on, _refuses)


def _has_slot(obj: Any) -> bool:
    found: list = []
    walk(obj, lambda v: found.append(v) if isinstance(v, _Slot) else None)
    return bool(found)


def _tid(args: tuple, kwargs: dict) -> str:
    return Sample(args, kwargs).id


# --- what is called ----------------------------------------------------------------------------


class Callee(NamedTuple):
    name: str           # numpy.sum, numpy.ndarray.reshape, numpy.ufunc.reduce, ...
    namespace: str      # numpy, numpy.linalg, numpy.fft, numpy.random, ndarray, ufunc
    obj: Any            # the function (None for methods)
    key: Any            # the registry key (coverage.public_callables)
    make: Callable[..., Callable]  # (seed) -> the callable to run (a fresh Generator for its methods)
    backend: str = "numpy"

    @property
    def xp(self) -> Any:
        return importlib.import_module(self.backend)

    @property
    def numpy_name(self) -> str:
        """The NumPy namesake (cupy.sum -> numpy.sum): recipes are written once, for NumPy."""
        return self.name if self.backend == "numpy" else "numpy." + self.name.split(".", 1)[1]


def _namespace(name: str) -> str:
    backend, _, rest = name.partition(".")
    if rest.startswith("ndarray."):
        return "ndarray"
    if rest.startswith("ufunc."):
        return "ufunc"
    if rest.startswith("random."):
        return f"{backend}.random"
    return name.rsplit(".", 1)[0]


def callees(backend: str = "numpy") -> list[Callee]:
    """Every public callable surveyed, with how to call it."""
    out = []
    for name, obj, key in public_callables(backend):
        meth = name.rsplit(".", 1)[1]
        if name.startswith(f"{backend}.ndarray."):
            make = (lambda seed=0, m=meth: lambda self, *a, **k: getattr(self, m)(*a, **k))
        elif name.startswith(f"{backend}.ufunc."):
            make = (lambda seed=0, m=meth: lambda u, *a, **k: getattr(u, m)(*a, **k))
        elif name.startswith("numpy.random.Generator."):
            make = (lambda seed=0, m=meth: getattr(np.random.default_rng(seed), m))
        else:
            make = (lambda seed=0, o=obj: o)
        out.append(Callee(name, _namespace(name), obj, key, make, backend))
    return out


# --- recipes -----------------------------------------------------------------------------------

# Argument forms tried, in order, for a callable with no recipe: the first two that real NumPy
# accepts on a C float64 array become its templates.
PROBES = (t(X), t(X, Y), t(X, 1), t(X, -1), t(X, J), t(X, Y, Y), t(X, 0, 1), t(X, _on="ints"),
          t(X, Y, _on="ints"), t(X, _on="times"), t(X, _on="square"), t(X, Y, _on="square"),
          t(X, _on="vector"), t(X, Y, _on="vector"), t(SHAPE), t(3), t(), t(size=SHAPE))
METHOD_PROBES = (t(X), t(X, 1), t(X, -1), t(X, J), t(X, Y), t(X, 0, 1))

_FILES = os.path.join(tempfile.gettempdir(), f"faketensor-survey-{os.getpid()}")


def _file(name: str) -> str:
    """A path in the survey's temporary directory (made while the survey runs)."""
    return os.path.join(_FILES, name)


@contextlib.contextmanager
def _sample_files() -> Iterator[None]:
    """The files the samples of np.load, loadtxt, genfromtxt, fromfile and fromregex read,
    written for real in a temporary directory, removed afterwards with what the samples of
    the writers wrote there."""
    os.makedirs(_FILES, exist_ok=True)
    try:
        a = np.arange(12.0).reshape(3, 4)
        np.save(_file("a.npy"), a)
        np.save(_file("f.npy"), np.asfortranarray(a.astype("i2")))
        np.savez(_file("a.npz"), a=a, b=a[:1])
        np.savetxt(_file("a.txt"), a)
        np.savetxt(_file("a.csv"), a[:, :1], delimiter=",")
        a.tofile(_file("a.bin"))
        with open(_file("r.txt"), "w") as f:
            f.write("1 2\n3 4\n5 6\n")
        yield
    finally:
        shutil.rmtree(_FILES, ignore_errors=True)


# Callables that need arguments the probes do not give; ``None``: nothing to run (files,
# printing, the test runner), reported as untested.
_F = "f4"
_SHAPES = (t(SHAPE, _on="none"), t(SHAPE, _F, _on="none"), t((2, 0, 3), order="F", _on="none"),
           t((), _on="none"), t(5, dtype="c16", _on="none"))
_LIKE = (t(X), t(X, _F, _on="few"), t(X, order="F", _on="few"), t(X, shape=(2, 5), _on="few"),
         t(X, subok=False, order="K"))
_RANDOM_ARGS = (t(size=SHAPE, _on="none"), t(), t(X, _on="few"))
_BINOMIAL = (t(10, 0.5, size=SHAPE), t(10, X, _on="probs"), t(10, 0.5))
_P = (t(0.5, size=SHAPE), t(X, _on="probs"), t(0.5))
_HYPER = (t(5, 5, 3, size=SHAPE), t(X, Y, 3), t(5, 5, 3))
_TRIANGULAR = (t(0, 1, 2, size=SHAPE), t(0, X, 6), t(0, 1, 2))

RECIPES: dict[str, tuple | None] = {
    # files: written (by the real call; the fake writes nothing) and read in a temporary
    # directory the survey makes (_sample_files)
    "numpy.save": (t(_file("out.npy"), X), t(_file("out"), X, allow_pickle=False, _on="few")),
    "numpy.savez": (t(_file("out.npz"), X, b=Y, _on="few"),),
    "numpy.savez_compressed": (t(_file("out.npz"), X, _on="few"),),
    "numpy.savetxt": (t(_file("out.txt"), X, _on="few"), t(_file("out.csv"), X, delimiter=",", _on="vector")),
    "numpy.ndarray.tofile": (t(X, _file("out.bin")),), "numpy.ndarray.dump": (t(X, _file("out.pkl"), _on="few"),),
    "numpy.load": (t(_file("a.npy")), t(_file("f.npy")), t(_file("a.npy"), mmap_mode="r"), t(_file("a.npz"))),
    "numpy.loadtxt": (t(_file("a.txt")), t(_file("a.txt"), usecols=(0, 2)), t(_file("a.csv"), delimiter=",", ndmin=2)),
    "numpy.genfromtxt": (t(_file("a.txt")), t(_file("a.csv"), delimiter=",")),
    "numpy.fromfile": (t(_file("a.bin")), t(_file("a.bin"), "i4", 3), t(_file("a.bin"), "f8", -1, "", 8)),
    "numpy.fromregex": (t(_file("r.txt"), r"(\d+) (\d+)", [("a", "i8"), ("b", "i8")]),),
    # printing
    "numpy.info": None,
    "numpy.set_printoptions": (t(_on="none"),), "numpy.get_printoptions": (t(),),
    "numpy.printoptions": (t(precision=3),), "numpy.seterr": (t(),), "numpy.geterr": (t(),),
    "numpy.setbufsize": (t(8192),), "numpy.getbufsize": (t(),), "numpy.seterrcall": (t(None),),
    "numpy.geterrcall": (t(),), "numpy.random.seed": (t(0),), "numpy.random.get_state": (t(),),
    "numpy.random.set_state": (t(("MT19937", list(range(624)), 0)),),
    # factories
    **{f"numpy.{n}": _SHAPES for n in ("zeros", "ones", "empty")},
    "numpy.full": (t(SHAPE, 1.5), t((2, 0, 3), 2, order="F"), t((), 1j), t(4, 7, dtype="i1")),
    **{f"numpy.{n}": _LIKE for n in ("zeros_like", "ones_like", "empty_like")},
    "numpy.full_like": (t(X, 2), t(X, 1.5, _F, _on="few"), t(X, 0, order="F", _on="few")),
    "numpy.arange": (t(5), t(1, 7, 2), t(0.5, 3.0, 0.5), t(5, dtype="i1"), t(np.int8(3))),
    "numpy.eye": (t(3), t(3, 4, 1, _F), t(2, order="F")),
    "numpy.identity": (t(3), t(4, _F)),
    "numpy.tri": (t(3), t(3, 4, -1, _F)),
    "numpy.linspace": (t(0, 1, 5), t(0, 1, 5, retstep=True), t(X, Y, 4), t(X, 3, 4, axis=-1)),
    "numpy.logspace": (t(0, 1, 5), t(X, Y, 4), t(X, 3, 4, axis=-1)),
    "numpy.geomspace": (t(1, 8, 4), t(X, 3, 4)),
    "numpy.indices": (t(SHAPE), t((2, 3), sparse=True), t((3,), dtype="i1")),
    "numpy.fromfunction": (t(lambda i, j: i + j, SHAPE), t(lambda i: i, (4,), dtype="i4")),
    "numpy.fromiter": (t(range(4), "f8"), t(range(3), "i4", 3)),
    "numpy.frombuffer": (t(b"\0" * 16), t(b"\0" * 16, "i4", 2, 4)),
    "numpy.fromstring": (t("1 2 3", sep=" "),),
    "numpy.frompyfunc": (t(abs, 1, 1),),
    "numpy.from_dlpack": (t(X),),
    "numpy.einsum": (t("ij->ji", X), t("ij,ij->i", X, Y), t("...,...", X, Y), t("ij->", X)),
    "numpy.einsum_path": (t("ij,jk->ik", X, A("C", (4, 2)), _on="few"),),
    "numpy.where": (t(X, Y, Y), t(X, 1.5, Y), t(X)),
    "numpy.select": (t([X], [Y], 1.5),),
    "numpy.piecewise": (t(X, [X], [1, 2]),),
    "numpy.apply_along_axis": (t(np.sum, 0, X, _on="few"),),
    "numpy.apply_over_axes": (t(np.sum, X, [0], _on="few"),),
    "numpy.reshape": (t(X, -1), t(X, (4, 3), order="F")),
    "numpy.take": (t(X, J), t(X, J, axis=0)),
    "numpy.take_along_axis": (t(X, A("C", (1, 1), "i8", 0), -1, _on="few"),),
    "numpy.put_along_axis": (t(X, A("C", (1, 1), "i8", 0), 3, -1, _on="few"),),
    "numpy.put": (t(X, J, 1.5),),
    "numpy.putmask": (t(X, A("C", SHAPE, "?"), 1.5, _on="few"),),
    "numpy.place": (t(X, A("C", SHAPE, "?", 0), [1.5], _on="few"),),
    "numpy.copyto": (t(X, Y), t(X, 1.5)),
    "numpy.choose": (t(A("C", SHAPE, "i8", 0), [X, Y], _on="few"),),
    "numpy.compress": (t([True, False, True], X, axis=0),),
    "numpy.extract": (t(A("C", SHAPE, "?"), X, _on="few"),),
    "numpy.repeat": (t(X, 2), t(X, 2, axis=0), t(X, [1, 0, 2], axis=0)),
    "numpy.tile": (t(X, 2), t(X, (2, 1, 1))),
    "numpy.broadcast_to": (t(X, (2, 3, 4)),),
    "numpy.resize": (t(X, (5, 5)), t(X, 3)),
    "numpy.pad": (t(X, 1), t(X, 2, mode="reflect"), t(X, 1, mode="edge", _on="few")),
    "numpy.insert": (t(X, 1, 5, axis=-1), t(X, [0, 1], 5)),
    "numpy.delete": (t(X, 1, axis=-1), t(X, [0, 1])),
    "numpy.append": (t(X, Y), t(X, Y, axis=0)),
    "numpy.split": (t(X, 1), t(X, [1, 2], axis=-1)),
    "numpy.array_split": (t(X, 2), t(X, 3, axis=-1)),
    "numpy.hsplit": (t(X, 1),), "numpy.vsplit": (t(X, 1),), "numpy.dsplit": (t(X, 1),),
    "numpy.concatenate": (t([X, Y]), t([X, Y], axis=None), t([X, Y], axis=-1)),
    "numpy.stack": (t([X, Y]), t([X, Y], axis=-1)),
    **{f"numpy.{n}": (t([X, Y]),) for n in ("hstack", "vstack", "dstack", "column_stack",
                                            "row_stack", "block")},
    "numpy.unstack": (t(X), t(X, axis=-1)),
    "numpy.meshgrid": (t(X, Y, _on="vector"), t(X, Y, indexing="ij", sparse=True, _on="vector")),
    "numpy.ix_": (t(X, Y, _on="vector"),),
    "numpy.polyval": (t(X, Y, _on="vector"), t([1, 2], X)),
    "numpy.polyfit": (t(X, Y, 1, _on="vector"),),
    "numpy.poly": (t(X, _on="vector"), t(X, _on="square")),
    "numpy.polyder": (t(X, _on="vector"),), "numpy.polyint": (t(X, _on="vector"),),
    "numpy.polyadd": (t(X, Y, _on="vector"),), "numpy.polysub": (t(X, Y, _on="vector"),),
    "numpy.polymul": (t(X, Y, _on="vector"),), "numpy.polydiv": (t(X, [1.0, 2.0], _on="vector"),),
    "numpy.roots": (t(X, _on="vector"),),
    "numpy.interp": (t(X, [0.0, 1.0, 2.0], [1.0, 2.0, 3.0]),),
    "numpy.convolve": (t(X, Y, _on="vector"), t(X, [1.0, 2.0], "same", _on="vector")),
    "numpy.correlate": (t(X, Y, _on="vector"), t(X, [1.0, 2.0], "full", _on="vector")),
    "numpy.searchsorted": (t([1.0, 2.0, 3.0], X), t(X, 1.5, _on="vector")),
    "numpy.digitize": (t(X, [1.0, 2.0, 3.0]),),
    "numpy.histogram": (t(X), t(X, 4, (0, 5))),
    "numpy.histogram2d": (t(X, Y, _on="vector"),),
    "numpy.histogramdd": (t(A("C", (5, 2), "f8", "arange"), _on="none"),),
    "numpy.histogram_bin_edges": (t(X, 4, (0, 5)),),
    "numpy.bincount": (t(A("C", (5,), "i8", "arange")), t(A("neg", (5,), "i4", "arange"), minlength=9)),
    "numpy.unravel_index": (t(A("C", SHAPE, "i8", "arange"), (6, 6), _on="few"), t(3, (2, 2))),
    "numpy.ravel_multi_index": (t((A("C", SHAPE, "i8", "arange"), A("F", SHAPE, "i8", "arange")), (6, 6),
                                  _on="few"),),
    "numpy.diag_indices": (t(3), t(2, 3)), "numpy.diag_indices_from": (t(X, _on="square"),),
    "numpy.tril_indices": (t(3), t(3, 1, 4)), "numpy.triu_indices": (t(3), t(3, -1, 4)),
    "numpy.tril_indices_from": (t(X, _on="square"),), "numpy.triu_indices_from": (t(X, _on="square"),),
    "numpy.mask_indices": (t(3, np.triu),),
    "numpy.fill_diagonal": (t(X, 1.5),),
    "numpy.lexsort": (t((X, Y)),),
    "numpy.partition": (t(X, 1),), "numpy.argpartition": (t(X, 1),),
    "numpy.packbits": (t(A("C", SHAPE, "?"), _on="few"), t(X, axis=-1, _on="few")),
    "numpy.unpackbits": (t(A("C", SHAPE, "u1", "arange"), _on="few"), t(A("T", SHAPE, "u1"), axis=0, _on="few")),
    "numpy.trapezoid": (t(X), t(X, dx=0.5, axis=0)),
    "numpy.gradient": (t(X), t(X, axis=0)),
    "numpy.cross": (t(A("C", (2, 3), "f8", "arange"), A("F", (2, 3), "f8", "arange"), _on="none"),),
    "numpy.kron": (t(X, Y, _on="few"),),
    "numpy.tensordot": (t(X, Y, ([0, 1], [0, 1])), t(X, Y, 0, _on="few")),
    "numpy.dot": (t(X, Y), t(X, 2)), "numpy.vdot": (t(X, Y),),
    "numpy.inner": (t(X, Y),), "numpy.outer": (t(X, Y),),
    "numpy.matmul": (t(X, Y, _on="square"),), "numpy.vecdot": (t(X, Y),),
    "numpy.matvec": (t(X, A("C", (3,), "f8", "arange"), _on="square"),),
    "numpy.vecmat": (t(A("C", (3,), "f8", "arange"), X, _on="square"),),
    "numpy.trace": (t(X), t(X, 1)),
    "numpy.diagonal": (t(X), t(X, 1)),
    "numpy.swapaxes": (t(X, 0, -1),), "numpy.moveaxis": (t(X, 0, -1),), "numpy.rollaxis": (t(X, -1),),
    "numpy.roll": (t(X, 1), t(X, 1, axis=0)),
    "numpy.rot90": (t(X), t(X, 2)),
    "numpy.expand_dims": (t(X, 0), t(X, (0, -1))),
    "numpy.squeeze": (t(X),),
    "numpy.clip": (t(X, 1, 3), t(X, Y, None)),
    "numpy.isin": (t(X, Y), t(X, [1, 2])),
    "numpy.in1d": (t(X, Y),),
    "numpy.busday_count": (t("2020-01-01", "2020-02-01"),),
    "numpy.busday_offset": (t("2020-01-01", 3),),
    "numpy.is_busday": (t("2020-01-01"),),
    "numpy.datetime_as_string": (t(A("C", SHAPE, "M8[s]")),),
    "numpy.datetime_data": (t("M8[s]"),),
    "numpy.may_share_memory": (t(X, Y),), "numpy.shares_memory": (t(X, Y),),
    "numpy.nested_iters": None,
    "numpy.require": (t(X, requirements="F"), t(X, "f4", "C")),
    "numpy.asarray": (t(X), t(X, "f4"), t(X, order="F")),
    "numpy.array": (t(X), t(X, copy=False), t(X, order="F", ndmin=3), t([[1, 2], [3, 4]])),
    "numpy.astype": (t(X, "f4"), t(X, "f8", copy=False)),
    "numpy.can_cast": (t(X, "f4"), t("i4", "f8")), "numpy.result_type": (t(X, Y), t(X, 1.5)),
    "numpy.min_scalar_type": (t(X), t(300)), "numpy.promote_types": (t("i4", "f4"),),
    "numpy.common_type": (t(X, Y),), "numpy.mintypecode": (t("fd"),),
    "numpy.base_repr": (t(5, 3),), "numpy.binary_repr": (t(5),),
    "numpy.typename": (t("d"),), "numpy.isdtype": (t(np.float64, "real floating"),),
    "numpy.issubdtype": (t(np.float64, np.floating),), "numpy.iterable": (t(X),),
    "numpy.isscalar": (t(X),), "numpy.ndim": (t(X),), "numpy.shape": (t(X),), "numpy.size": (t(X),),
    "numpy.broadcast_shapes": (t((3, 1), (1, 4)),),
    "numpy.array_repr": (t(X),), "numpy.array_str": (t(X),), "numpy.array2string": (t(X),),
    "numpy.format_float_positional": (t(1.5),), "numpy.format_float_scientific": (t(1.5),),
    "numpy.get_include": None,
    "numpy.vectorize": None,
    # linalg
    "numpy.linalg.solve": (t(X, Y, _on="square"),),
    "numpy.linalg.lstsq": (t(X, Y, _on="square"),),
    "numpy.linalg.tensorsolve": (t(X, A("C", (3,), "f8", "arange"), _on="square"),),
    "numpy.linalg.tensorinv": (t(X, 1, _on="square"),),
    "numpy.linalg.matrix_power": (t(X, 3, _on="square"), t(X, -1, _on="square")),
    "numpy.linalg.multi_dot": (t([X, Y, Y], _on="square"),),
    "numpy.linalg.norm": (t(X), t(X, axis=0), t(X, "fro", _on="square"), t(X, 2, axis=-1, keepdims=True)),
    "numpy.linalg.vector_norm": (t(X), t(X, axis=0)), "numpy.linalg.matrix_norm": (t(X, _on="square"),),
    "numpy.linalg.cross": (t(A("C", (2, 3), "f8", "arange"), A("F", (2, 3), "f8", "arange"), _on="none"),),
    "numpy.linalg.outer": (t(X, Y, _on="vector"),),
    "numpy.linalg.vecdot": (t(X, Y),), "numpy.linalg.matmul": (t(X, Y, _on="square"),),
    "numpy.linalg.tensordot": (t(X, Y, axes=2), t(X, Y, axes=([0], [0]), _on="few")), "numpy.linalg.trace": (t(X, _on="square"),),
    "numpy.linalg.diagonal": (t(X, _on="square"),),
    "numpy.linalg.matrix_rank": (t(X, _on="square"),),
    # fft
    **{f"numpy.fft.{n}": (t(X), t(X, 5, 0), t(X, norm="ortho", _on="few"))
       for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")},
    **{f"numpy.fft.{n}": (t(X), t(X, (2, 5)), t(X, axes=(1, 0), _on="few"))
       for n in ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn")},
    "numpy.fft.fftfreq": (t(8), t(7, 0.5, device="cpu")), "numpy.fft.rfftfreq": (t(8), t(7, 0.5)),
    "numpy.fft.fftshift": (t(X), t(X, axes=0)), "numpy.fft.ifftshift": (t(X), t(X, axes=-1)),
    # ufunc methods: every argument form on a few ufuncs
    "numpy.ufunc.__call__": (t(np.add, X, Y), t(np.sqrt, X), t(np.divmod, X, 2), t(np.matmul, X, Y, _on="square"),
                             t(np.add, X, 1, out=Y), t(np.multiply, X, Y, dtype="f4", _on="few")),
    "numpy.ufunc.reduce": (t(np.add, X), t(np.add, X, axis=None), t(np.multiply, X, 1, keepdims=True),
                           t(np.maximum, X, (0, 1), _on="few"), t(np.logical_and, X, 0, _on="few")),
    "numpy.ufunc.accumulate": (t(np.add, X), t(np.multiply, X, -1), t(np.maximum, X, 0, "f4", _on="few")),
    "numpy.ufunc.reduceat": (t(np.add, X, [0, 2]), t(np.multiply, X, [0, 1, 3], axis=-1),
                             t(np.maximum, X, [1, 0], _on="few")),
    "numpy.ufunc.outer": (t(np.add, X, Y), t(np.multiply, X, 2), t(np.greater, X, Y, _on="few")),
    "numpy.ufunc.at": (t(np.add, X, J, 1.5), t(np.negative, X, J), t(np.multiply, X, (J, J), 2, _on="few")),
    # ndarray methods that take more than the probes give
    "numpy.ndarray.__getitem__": (t(X, 0), t(X, (Ellipsis, slice(None, None, -1))), t(X, J),
                                  t(X, (None, slice(1, None))), t(X, A("C", SHAPE, "?", "arange"), _on="few")),
    "numpy.ndarray.__setitem__": (t(X, 0, 1.5), t(X, Ellipsis, Y), t(X, J, 2)),
    "numpy.ndarray.reshape": (t(X, -1), t(X, (4, 3), order="F")),
    "numpy.ndarray.astype": (t(X, "f4"), t(X, "i1", order="F"), t(X, "f8", copy=False)),
    "numpy.ndarray.view": (t(X), t(X, "u1"), t(X, "c16")),
    "numpy.ndarray.getfield": (t(X, "u1"), t(X, "i2", 2)),
    "numpy.ndarray.setfield": (t(X, 0, "u1"),),
    "numpy.ndarray.setflags": (t(X, write=False),),
    "numpy.ndarray.fill": (t(X, 0),),
    "numpy.ndarray.put": (t(X, J, 1.5),),
    "numpy.ndarray.choose": (t(A("C", SHAPE, "i8", 0), [X, Y], _on="few"),),
    "numpy.ndarray.compress": (t(X, [True, False, True], axis=0),),
    "numpy.ndarray.resize": (t(X, (2, 6), refcheck=False), t(X, 20, refcheck=False)),
    "numpy.ndarray.transpose": (t(X), t(X, 1, 0, _on="few")),
    "numpy.ndarray.swapaxes": (t(X, 0, -1),),
    "numpy.ndarray.searchsorted": (t(X, 1.5, _on="vector"), t(X, Y, _on="vector")),
    "numpy.ndarray.partition": (t(X, 1),), "numpy.ndarray.argpartition": (t(X, 1),),
    "numpy.ndarray.to_device": (t(X, "cpu"),),
    "numpy.ndarray.dot": (t(X, Y, _on="square"), t(X, 2)),
    "numpy.ndarray.byteswap": (t(X), t(X, True)),
    # random: Generator methods and module functions with array parameters and sizes
    "numpy.random.Generator.choice": (t(5, 3), t(X, 2, _on="vector"), t(5, SHAPE, False)),
    "numpy.random.Generator.permutation": (t(5), t(X, _on="few")),
    "numpy.random.Generator.permuted": (t(X, _on="few"), t(X, axis=0, _on="few")),
    "numpy.random.Generator.shuffle": (t(X, _on="few"),),
    "numpy.random.Generator.spawn": (t(2),),
    "numpy.random.Generator.bytes": (t(4),),
    "numpy.random.Generator.integers": (t(5, size=SHAPE), t(X, 10, _on="few"), t(0, 5, size=3, dtype="i1")),
    "numpy.random.Generator.dirichlet": (t([1.0, 2.0], size=3), t(X, _on="vector")),
    "numpy.random.Generator.multinomial": (t(5, [0.5, 0.5], size=3), t(X, [0.5, 0.5], _on="few")),
    "numpy.random.Generator.multivariate_normal": (t([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], size=3),),
    "numpy.random.Generator.multivariate_hypergeometric": (t([3, 4], 2, size=3),),
    "numpy.random.choice": (t(5, 3), t(X, 2, _on="vector")),
    "numpy.random.permutation": (t(5), t(X, _on="few")),
    "numpy.random.shuffle": (t(X, _on="few"),),
    "numpy.random.bytes": (t(4),),
    "numpy.random.randint": (t(5, size=SHAPE), t(X, 10, _on="few")),
    "numpy.random.random_integers": (t(5, size=SHAPE),),
    "numpy.random.rand": (t(3, 4), t()), "numpy.random.randn": (t(3, 4), t()),
    "numpy.random.dirichlet": (t([1.0, 2.0], size=3), t(X, _on="vector")),
    "numpy.random.multinomial": (t(5, [0.5, 0.5], size=3),),
    "numpy.random.multivariate_normal": (t([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], size=3),),
    "numpy.random.default_rng": (t(0),),
    **{f"numpy.random.{p}{n}": r for p in ("", "Generator.") for n, r in (
        ("binomial", _BINOMIAL), ("negative_binomial", _BINOMIAL), ("geometric", _P), ("logseries", _P),
        ("hypergeometric", _HYPER), ("triangular", _TRIANGULAR))},
    "numpy.kaiser": (t(5, 1.5), t(0, 2.0)),
    "numpy.ndarray.dumps": (t(X),), "numpy.random.get_bit_generator": (t(),),
    "numpy.random.set_bit_generator": (t(np.random.MT19937(0)),),
    **_string_recipes(),
}

_RANDOM_MODULE = "numpy.random."

# Callables that take no array and return none: outside the measure (status "no array"),
# listed with the reason. Their output has no metadata to be exact about.
NO_ARRAY: dict[str, str] = {
    "numpy.show_config": "prints NumPy's build configuration",
    "numpy.show_runtime": "prints the CPU features and BLAS threads",
    "numpy.get_include": "returns the directory of NumPy's C headers",
}


def no_array(c: Callee) -> str | None:
    """Why the callable is outside the measure (it takes and returns no array), or None."""
    if c.name.endswith(".test"):
        return "the test runner (runs NumPy's own test suite)"
    return NO_ARRAY.get(c.numpy_name)


def recipe(c: Callee) -> tuple[list[T], str]:
    """(templates, how they were chosen): the recipe, or the probes real NumPy accepts."""
    if c.numpy_name in RECIPES:
        r = RECIPES[c.numpy_name]
        return (list(r), "recipe") if r is not None else ([], "no sample: files, printing or tests")
    probes: tuple[T, ...] = METHOD_PROBES if c.namespace == "ndarray" else PROBES
    if c.namespace.endswith(".random"):
        probes = _RANDOM_ARGS + probes
    chosen: list[T] = []
    for p in probes:
        if _accepts(c, p):
            chosen.append(p)
            if len(chosen) == 2:
                break
    return chosen, "probed" if chosen else "no argument form tried is accepted"


def _accepts(c: Callee, tmpl: T) -> bool:
    """Whether real NumPy accepts the template's first sample."""
    s = tmpl.expand(c.backend)
    if not s:
        return False
    args, kwargs = build_sample(c, s[0])
    try:
        c.make()(*args, **kwargs)
    except Exception:  # any refusal: the form does not fit this callable
        return False
    return True


# --- running -----------------------------------------------------------------------------------

_FILLS = (1, 0, "arange", "mixed", "extreme")


def build_sample(c: Callee, sample: Sample) -> tuple[tuple, dict]:
    """The sample's arrays made on the callee's backend (NumPy's ufuncs named in a template
    become CuPy's namesakes there)."""
    xp = c.xp
    args, kwargs = sample.build(xp)
    if c.backend != "numpy":
        args, kwargs = walk((args, kwargs), lambda v: getattr(xp, v.__name__, v)
                             if isinstance(v, np.ufunc) else v)
    return args, kwargs


def _device_array(x: Any) -> bool:
    return hasattr(x, "__cuda_array_interface__") and type(x).__module__.startswith("cupy")


def _array_leaves(obj: Any) -> list:
    found: list = []
    walk(obj, lambda v: found.append(v) if isinstance(v, np.ndarray) or _device_array(v) else None)
    return found


def _signature(out: Any, numbers: bool = False) -> Any:
    """What a result's metadata is (shapes, dtypes, strides, flags) and any Python value in it
    (``numbers``: a Python int, float or complex by its type only, when the fake answers with
    a fake Python number standing for it)."""
    if isinstance(out, (tuple, list)):
        return (type(out).__name__, tuple(_signature(x, numbers) for x in out))
    if numbers and type(out) in (int, float, complex):
        return ("number", type(out).__name__)
    if numbers and type(out) is bytes:  # random bytes: their length, not their content
        return ("bytes", len(out))
    if isinstance(out, np.ndarray) or _device_array(out):
        return ("array", out.shape, out.dtype.str, out.strides, out.flags.c_contiguous,
                out.flags.f_contiguous)
    if isinstance(out, np.generic):
        return ("scalar", out.dtype.kind if out.dtype.kind in "USV" else out.dtype.str)
    if out is None or isinstance(out, (bool, int, float, complex, str, bytes)):
        return ("value", repr(out))
    return ("object", type(out).__name__)


def _refill(sample: Sample, fill: Any) -> Sample:
    """The sample with every operand filled with ``fill`` ("mixed": 1..5, zeros, ones in turn)."""
    count = [0]

    def put(v: Any) -> Any:
        if not isinstance(v, A):
            return v
        f = fill
        if fill == "mixed":
            f = ("arange", 0, 1)[count[0] % 3]
            count[0] += 1
        if isinstance(v.fill, str) and v.fill.startswith("text"):
            f = f"text:{f}"  # string operands get other strings
        return dataclasses.replace(v, fill=f)
    args, kwargs = walk((sample.args, sample.kwargs), put)
    return Sample(args, kwargs)


def value_dependent(c: Callee, sample: Sample, numbers: bool = False) -> bool:
    """Whether the real call's output metadata (or a Python value it returns) changes with
    the values of the inputs: several fillings of the same sample (and several random seeds:
    a random draw returned as a Python number is a value too, unless ``numbers``: the fake
    answered with a fake Python number, which stands for any value of its type), compared."""
    seen: dict = {}
    for seed, fill in enumerate(_FILLS):
        args, kwargs = build_sample(c, _refill(sample, fill))
        inputs = _signature(_array_leaves((args, kwargs)))  # an empty array's strides follow its fill
        c.xp.random.seed(seed)
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the extreme filling overflows
                out = c.make(seed)(*args, **kwargs)
        except Exception:  # a value NumPy refuses (a singular matrix): no metadata to compare
            continue
        seen.setdefault(inputs, set()).add(_signature(out, numbers))
    return any(len(outs) > 1 for outs in seen.values())


class Outcome(NamedTuple):
    verdict: str   # "ok", "dd", "unsupported", "wrong", "skip" (the real call refused the values)
    detail: str
    answered: bool = True  # the real call returned (did not raise)
    numbers: bool = False  # "ok" with a fake Python number standing for a real one


# The fake side calls from a frame whose module is not faketensor's: the namespace patches
# tell the program's calls from the library's by the caller's module (patching._from_numpy),
# and the survey measures what a program gets.
_PROGRAM: dict = {"__name__": "__survey_program__"}
exec("def call(fn, args, kwargs):\n    return fn(*args, **kwargs)\n", _PROGRAM)
_as_program = _PROGRAM["call"]


def run_sample(c: Callee, sample: Sample, fill: Any = None) -> Outcome:
    """The sample on real NumPy and on fakes inside FakeMode, compared (``fill``: the real
    side's operands refilled, see ``_refill``; a fake holds no values to refill)."""
    from ...modes import FakeMode
    if c.backend != "numpy":
        return _run_device_sample(c, sample)
    args, kwargs = sample.build(np)
    real_in = copy_tree((args, kwargs))
    fake_in = to_fakes(real_in, Converter())
    if fill is not None:
        real_in = copy_tree(_refill(sample, fill).build(np))
    fn = c.make()
    try:
        r: Any = fn(*real_in[0], **real_in[1])
    except Exception as e:  # compared by type with the fake's
        r = e
    try:
        with FakeMode(sizes=SizePolicy("refuse")):  # particular values: no assumption
            # from a program's frame, as user code calls it (a Generator is made inside the mode)
            f: Any = _as_program(c.make(), fake_in[0], fake_in[1])
    except DataDependentError as e:
        return Outcome("dd", str(e))
    except UnsupportedOperationError as e:
        return Outcome("unsupported", str(e))
    except Exception as e:  # compared by type with the real one's
        f = e
    if isinstance(r, np.linalg.LinAlgError) and not isinstance(f, Exception):
        return Outcome("skip", str(r))  # a singular matrix: which one is, only values tell
    answered = not isinstance(r, Exception)
    try:
        compare_outcome(r, f, arrays_in(real_in), arrays_in(fake_in), "")
    except Mismatch as e:
        return Outcome("wrong", str(e).lstrip(": "), answered)
    numbers = any(getattr(x, "pytype", None) is not None if is_fake(x) else isinstance(x, FakeBytes)
                  for x in _leaves_of(f))
    return Outcome("ok", "", answered, numbers)


def _run_device_sample(c: Callee, sample: Sample) -> Outcome:
    """The sample on real CuPy and on CUDA fakes of the same inputs inside FakeMode
    (oracle.compare_cupy_outcome compares them)."""
    from ...modes import FakeMode
    from .oracle import compare_cupy_outcome
    real = build_sample(c, sample)
    fake = Converter().to_fake(build_sample(c, sample))  # one memo: aliasing between inputs is kept
    want: Any = None
    want_exc: BaseException | None = None
    got: Any = None
    got_exc: BaseException | None = None
    try:
        want = c.make()(*real[0], **real[1])
    except Exception as e:  # compared by type with the fake's
        want_exc = e
    try:
        with FakeMode(sizes=SizePolicy("refuse")):
            got = _as_program(c.make(), fake[0], fake[1])
    except DataDependentError as e:
        return Outcome("dd", str(e))
    except UnsupportedOperationError as e:
        return Outcome("unsupported", str(e))
    except Exception as e:  # compared by type with CuPy's
        got_exc = e
    real_in = _array_leaves(real)
    fake_in = [x for x in _leaves_of(fake) if is_fake(x)]
    try:
        compare_cupy_outcome(want, want_exc, got, got_exc, real_in, fake_in)
    except Mismatch as e:
        return Outcome("wrong", str(e), want_exc is None)
    return Outcome("ok", "", want_exc is None)


def _leaves_of(obj: Any) -> list:
    found: list = []
    walk(obj, found.append)
    return found


class Row(NamedTuple):
    name: str
    namespace: str
    status: str
    value_dependent: bool  # some sample's real output metadata (or value) changes with the values
    samples: int
    agree: int             # samples whose fake matched the real call
    refused: int           # value-dependent samples whose fake raised DataDependentError
    overrefused: int       # samples refused with DataDependentError that do not depend on values
    detail: str            # the first difference, the refusal's reason, or why there is no sample
    first: str             # the sample id it concerns


def measure(c: Callee) -> Row:
    """Classify one callable from its samples. A sample whose fake does not match is checked
    for value dependence: refusing one that is value-dependent is right; refusing one that is
    not is a gap, as is answering one that is."""
    outside = no_array(c)
    if outside is not None:
        return Row(c.name, c.namespace, "no array", False, 0, 0, 0, 0, outside, "")
    templates, how = recipe(c)
    vd = False
    n = agree = refused = over = answered = 0
    firsts: dict[str, tuple[str, str]] = {}
    for tmpl in templates:
        samples = tmpl.expand(c.backend)
        if not samples:
            continue
        for i, s in enumerate(samples):
            out = run_sample(c, s)
            if i == 0:
                vd = s.refuses or value_dependent(c, s, out.verdict == "ok" and out.numbers) or vd
            if out.verdict == "wrong" and not out.answered and _refused_for_values(c, s):
                continue  # NumPy refuses these values (a parameter check), others it accepts
            if out.verdict == "skip":
                continue
            n += 1
            answered += out.answered
            if out.verdict == "ok":
                agree += 1
                continue
            this_vd = s.refuses or value_dependent(c, s)
            vd = vd or this_vd
            if out.verdict == "dd" and this_vd:
                refused += 1
                firsts.setdefault("refused", (out.detail, s.id))
            else:
                over += out.verdict == "dd"
                firsts.setdefault(out.verdict, (out.detail, s.id))
    if n == 0 or answered == 0:
        why = how if n == 0 else "real NumPy raised on every sample: no result to compare"
        return Row(c.name, c.namespace, "untested", False, 0, 0, 0, 0, why, "")
    for verdict, status in (("wrong", "wrong"), ("unsupported", "unsupported"), ("dd", "data-dependent"),
                            ("refused", "data-dependent")):
        if verdict in firsts:
            if verdict in ("wrong", "unsupported") and not is_dispatched(c.obj) \
                    and kernel_for(c.obj, c.key, c.backend) is None:
                status = "not dispatched"
            detail, sid = firsts[verdict]
            return Row(c.name, c.namespace, status, vd, n, agree, refused, over, _one_line(detail), sid)
    return Row(c.name, c.namespace, "exact", vd, n, agree, refused, over, "", "")


def _refused_for_values(c: Callee, sample: Sample) -> bool:
    """Whether the real call raised for the values of the sample only: with another filling
    of its operands NumPy accepts it and the fake's answer matches. The fake cannot know the
    values; it answers for the ones NumPy accepts, as it does for a matrix that may be
    singular (numpy.random's ``ngood + nbad < nsample`` is such a check)."""
    if not any(isinstance(v, A) for v in _leaves_of((sample.args, sample.kwargs))):
        return False
    for fill in _FILLS + (10,):
        out = run_sample(c, sample, fill)
        if out.answered:
            return out.verdict == "ok"
    return False


def _one_line(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


def survey(backend: str = "numpy", names: Iterable[str] | None = None) -> dict:
    """Measure every callable (or those named): rows, per-namespace and total shares."""
    if backend != "numpy" and _no_gpu_reason() is not None:
        return {"backend": backend, "measured": False, "reason": _no_gpu_reason(), "rows": [],
                "namespaces": {}, "goal": None}
    wanted = set(names) if names is not None else None
    start = time.perf_counter()
    rows = []
    with survey_session():
        for c in callees(backend):
            if wanted is None or c.name in wanted:
                rows.append(measure(c) if backend == "numpy" else _measure_guarded(c))
    return {"backend": backend, "measured": True, "seconds": round(time.perf_counter() - start, 1),
            "rows": rows, "namespaces": shares(rows), "goal": goal(rows)}


@contextlib.contextmanager
def survey_session() -> Iterator[None]:
    """Where the samples run: warnings and floating-point errors ignored, LAPACK's prints
    silenced, the sample files present, and NumPy's global state (the legacy random
    generator, print options, error callback, buffer size) put back afterwards, since the
    samples of the configuration functions set it."""
    with warnings.catch_warnings(), np.errstate(all="ignore"), _quiet_fds(), _sample_files():
        warnings.simplefilter("ignore")
        bitgen, state = getattr(np.random, "get_bit_generator")(), np.random.get_state()
        printopts = np.get_printoptions()
        errcall, bufsize = np.geterrcall(), np.getbufsize()
        try:
            yield
        finally:
            getattr(np.random, "set_bit_generator")(bitgen)
            np.random.set_state(state)
            np.set_printoptions(**printopts)
            np.seterrcall(errcall)
            np.setbufsize(bufsize)


@contextlib.contextmanager
def _quiet_fds() -> Iterator[None]:
    """LAPACK prints its complaints about the zero-filled samples straight to file descriptors
    1 and 2; they are pointed at os.devnull while the survey runs."""
    saved = []
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
            fd = stream.fileno()
            saved.append((fd, os.dup(fd)))
    except (AttributeError, OSError, ValueError):  # captured streams: no descriptor to silence
        pass
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd, _ in saved:
        os.dup2(devnull, fd)
    try:
        yield
    finally:
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)
        os.close(devnull)


def _measure_guarded(c: Callee) -> Row:
    """measure, with a failure of the survey itself on a device reported as untested."""
    try:
        return measure(c)
    except Exception as e:  # a sample that cannot even be built on this backend
        return Row(c.name, c.namespace, "untested", False, 0, 0, 0, 0,
                   _one_line(f"survey error: {type(e).__name__}: {e}"), "")


def _no_gpu_reason() -> str | None:
    try:
        import cupy  # noqa: F401
    except Exception as e:  # not installed, or no CUDA runtime to import
        return f"not measured: CuPy cannot be imported ({type(e).__name__})"
    try:
        if cupy.cuda.runtime.getDeviceCount() > 0:
            return None
    except Exception:  # no driver
        pass
    return "not measured: no CUDA device"


def _count(rows: list[Row]) -> dict:
    counts = {s: 0 for s in STATUSES}
    for r in rows:
        counts[r.status] += 1
    indep = [r for r in rows if not r.value_dependent and r.status != "no array"]
    dep = [r for r in rows if r.value_dependent]
    exact = sum(r.status == "exact" for r in indep)
    refusing = sum(r.status == "data-dependent" for r in dep)
    return {"callables": len(rows), "samples": sum(r.samples for r in rows), **counts,
            "value_independent": len(indep), "exact_of_independent": exact,
            "share_exact": exact / len(indep) if indep else 0.0,
            "value_dependent": len(dep), "refusing_of_dependent": refusing}


def shares(rows: list[Row]) -> dict:
    """Counts per status and the exact share, per namespace and in total."""
    out = {}
    for ns in dict.fromkeys(r.namespace for r in rows):
        out[ns] = _count([r for r in rows if r.namespace == ns])
    out["total"] = _count(rows)
    return out


def goal(rows: list[Row]) -> dict:
    """The goal: GOAL of the value-independent callables exact, and every value-dependent one
    refusing with DataDependentError."""
    total = _count(rows)
    met = total["share_exact"] >= GOAL and total["refusing_of_dependent"] == total["value_dependent"]
    return {"target": GOAL, "share_exact": total["share_exact"], "met": met}


def not_exact(rows: list[Row]) -> dict[str, list[Row]]:
    """The callables that are not exact, grouped: the list further work is planned from."""
    groups: dict[str, list[Row]] = {
        "wrong": [], "unsupported": [], "not dispatched": [],
        "data-dependent (metadata does not depend on values)": [],
        "value-dependent, not refusing": [], "untested": [],
        "no array (outside the measure)": []}
    for r in rows:
        if r.value_dependent and r.status != "data-dependent":
            groups["value-dependent, not refusing"].append(r)
        elif r.status == "data-dependent" and not r.value_dependent:
            groups["data-dependent (metadata does not depend on values)"].append(r)
        elif r.status == "no array":
            groups["no array (outside the measure)"].append(r)
        elif r.status in groups:
            groups[r.status].append(r)
    return groups

