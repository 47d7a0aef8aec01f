"""The numpy.ma survey: every public callable of ``numpy.ma`` (``numpy.ma.__all__``) and
every public method of ``MaskedArray``, called on awkward masked arrays for real and on their
fakes inside ``FakeMode``, compared field by field.

Masked operands: data in every layout of ``samples.py`` (C, F, transposed, negative-stride,
strided, offset, permuted 3-d, 0-d, empty) and several dtypes, with a mask laid out like the
data (some elements masked) or ``nomask``. A result is compared as numpy.ma defines it: a
masked array's data (shape, dtype, strides, flags, offset, ``shares_memory`` with every
input's data and mask), whether its mask is ``nomask``, the mask's metadata and aliasing, its
``fill_value`` and hard-mask flag; ``np.ma.masked`` against ``np.ma.masked``; anything else
with ``oracle.compare_outcome`` (arrays, NumPy scalars, Python values, exception types).

A callable whose output metadata depends on the values (``compressed``, ``count``,
``notmasked_edges``, ``unique``, ...) is found as ``survey.py`` finds them: the first sample
runs for real with other data and other masks (plain operands: other data), and if the
outputs' metadata or Python values differ, the fake must raise DataDependentError, or, where
it knows the values (a 0-d operand, a mask known all False: faketensor/_known.py), equal the
real call on every one of those variants. The masks here always hold a masked element:
numpy.ma drops an all-False mask to ``nomask`` (a value-dependent choice); on fakes a mask
whose values are not known is taken to hold one (modes/masked.py ``_any``).
"""
from __future__ import annotations

import functools
import inspect
import math
import tracemalloc
import warnings
from typing import Any, Callable, NamedTuple

import numpy as np

from ..._sizes import SizePolicy
from ..._errors import DataDependentError, UnsupportedOperationError
from ...modes import masked as fake_ma
from ...modes.fake_mode import FakeMode
from .memtrace import traced_call
from .oracle import Mismatch, compare_meta, compare_outcome
from .samples import base, laid_out

STATUSES = ("exact", "data-dependent", "refuses", "wrong", "unsupported", "untested")
GOAL = 0.90

# numpy.ma's class, typed loosely: its private fields (``_mask``, ``_hardmask``) are not in
# its stubs
_MA: Any = np.ma.MaskedArray


class M(NamedTuple):
    """A masked operand, described: data layout, shape, dtype, and the mask ("some": laid out
    like the data with every third element masked, "nomask")."""
    layout: str = "C"
    shape: tuple = (3, 4)
    dtype: str = "f8"
    mask: str = "some"
    fill: Any = "arange"
    pattern: tuple = (3, 0)  # masked where the flat index % p == r (element 0 is masked)

    def make(self) -> Any:
        dt = np.dtype(self.dtype)
        data = laid_out(np, self.layout, self.shape, lambda s: base(np, s, dt, "arange"))
        if self.fill == "max":  # the largest value of the dtype (overflow, domains)
            data[...] = np.finfo(dt).max if dt.kind in "fc" else np.iinfo(dt).max \
                if dt.kind in "iu" else True
        elif self.fill != "arange":  # other values, the same layout
            data[...] = self.fill
        if self.mask == "nomask":
            return np.ma.MaskedArray(data)
        p, rem = self.pattern
        mask = laid_out(np, self.layout, self.shape, lambda s: np.zeros(s, bool))
        # masked where the flat index (C order of the array as seen) % p == rem
        mask[...] = (np.arange(math.prod(self.shape)) % p == rem).reshape(self.shape)
        return np.ma.MaskedArray(data, mask=mask)

    def _vary(self, fill: Any, pattern: tuple) -> "M":
        return self._replace(fill=fill, pattern=pattern)

    @property
    def id(self) -> str:
        shape = "x".join(map(str, self.shape)) or "0d"
        return f"{self.layout}.{self.dtype}.{shape}.{self.mask}"


class Plain(NamedTuple):
    """A plain ndarray operand (numpy.ma's functions take them too)."""
    layout: str = "C"
    shape: tuple = (3, 4)
    dtype: str = "f8"
    fill: Any = "arange"

    def make(self) -> Any:
        dt = np.dtype(self.dtype)
        data = laid_out(np, self.layout, self.shape, lambda s: base(np, s, dt, "arange"))
        if self.fill != "arange":  # other values, the same layout
            data[...] = self.fill
        return data

    def _vary(self, fill: Any, pattern: tuple) -> "Plain":
        return self._replace(fill=fill)

    @property
    def id(self) -> str:
        return f"plain.{self.layout}.{self.dtype}.{'x'.join(map(str, self.shape)) or '0d'}"


MASKED = [M(k) for k in ("C", "F", "T", "neg", "strided", "offset")] + [
    M("perm", (2, 3, 4)), M("C", ()), M("C", (0, 4)), M("neg", (5,)),
    M("C", mask="nomask"), M("T", mask="nomask"), M("C", (), mask="nomask"),
    M("C", dtype="i4"), M("F", dtype="c16"), M("C", dtype="f4"), M("C", dtype="?"),
]
PLAIN = [Plain("C"), Plain("T")]


class _Slot:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


X = _Slot("X")   # each masked operand
Y = _Slot("Y")   # a C masked operand of X's shape and dtype (mask "some")


class T(NamedTuple):
    args: tuple
    kwargs: dict


def t(*args: Any, **kwargs: Any) -> T:
    return T(args, kwargs)


PROBES = (t(X), t(X, Y), t(X, 0), t(X, Y, Y), t(X.__class__("shape")), t(X, axis=0))
# Argument forms probing cannot guess (the X slot: each masked operand)
RECIPES: dict[str, tuple] = {
    # thresholds that mask element 0 (value 1): a mask made from the data holds a masked element
    "masked_equal": (t(X, 1),), "masked_not_equal": (t(X, 2),), "masked_greater": (t(X, 0.5),),
    "masked_greater_equal": (t(X, 1),), "masked_less": (t(X, 2),), "masked_less_equal": (t(X, 1),),
    "masked_inside": (t(X, 0, 1.5),), "masked_outside": (t(X, 2, 3),),
    "masked_values": (t(X, 1.0),), "masked_object": (t(X, 1),),
    "masked_where": (t(X.__class__("cond"), X),),
    "zeros": (t((3, 4)), t((2, 3), "f4")), "ones": (t((3, 4)),), "empty": (t((3, 4)),),
    "masked_all": (t((3, 4)),), "identity": (t(3),), "indices": (t((2, 3)),),
    "arange": (t(5),), "frombuffer": (t(b"\0" * 32),),
    "fromfunction": (t(lambda i, j: i + j, (3, 4)),),
    "where": (t(X.__class__("cond"), X, Y),), "choose": (),
    "reshape": (t(X, (-1,)),), "resize": (t(X, (2, 6)),), "repeat": (t(X, 2),),
    "take": (t(X, [0, 1]),), "put": (t(X, [0, 1], 5.0),), "putmask": (t(X, X.__class__("cond"), 0.0),),
    "apply_along_axis": (t(np.sum, 0, X),), "apply_over_axes": (t(np.ma.sum, X, [0]),),
    "vander": (t(X),), "polyfit": (),  # LAPACK prints to stderr on the empty samples
    "allclose": (t(X, Y),), "allequal": (t(X, Y),),
    "swapaxes": (t(X, 0, -1),), "transpose": (t(X),), "expand_dims": (t(X, 0),),
    "diff": (t(X), t(X, axis=0)), "ediff1d": (t(X),), "clip": (t(X, 1, 3),),
    "round": (t(X), t(X, 1)), "round_": (t(X),), "around": (t(X),),
    "inner": (t(X, Y),), "innerproduct": (t(X, Y),), "outer": (t(X, Y),),
    "outerproduct": (t(X, Y),), "dot": (t(X, X.__class__("T")),), "convolve": (t(X, Y),),
    "correlate": (t(X, Y),), "cov": (t(X),), "corrcoef": (t(X),), "power": (t(X, 2),),
    "mask_or": (t(X.__class__("mask"), X.__class__("mask")),),
    "make_mask": (t(X.__class__("mask")),), "make_mask_none": (t((3, 4)),),
    "make_mask_descr": (t(np.float64),), "default_fill_value": (t(X),),
    "maximum_fill_value": (t(X),), "minimum_fill_value": (t(X),),
    "set_fill_value": (t(X, 0),), "common_fill_value": (t(X, Y),),
    "concatenate": (t([X, Y]), t([X, Y], axis=-1)), "stack": (t([X, Y]),),
    "vstack": (t([X, Y]),), "hstack": (t([X, Y]),), "dstack": (t([X, Y]),),
    "column_stack": (t([X, Y]),), "row_stack": (t([X, Y]),), "append": (t(X, Y),),
    "hsplit": (t(X, 2),), "compress": (t([True, False, True], X),), "atleast_1d": (t(X),), "atleast_2d": (t(X),), "atleast_3d": (t(X),),
    "average": (t(X), t(X, axis=0)), "median": (t(X), t(X, axis=0)),
    "compress_rowcols": (t(X),), "compress_rows": (t(X),), "compress_cols": (t(X),),
    "mask_rowcols": (t(X),), "mask_rows": (t(X),), "mask_cols": (t(X),),
    "masked_all_like": (t(X),), "flatnotmasked_edges": (t(X),), "notmasked_edges": (t(X),),
    "flatnotmasked_contiguous": (t(X),), "notmasked_contiguous": (t(X),),
    "clump_masked": (t(X),), "clump_unmasked": (t(X),),
    "in1d": (t(X, Y),), "isin": (t(X, Y),), "intersect1d": (t(X, Y),), "setdiff1d": (t(X, Y),),
    "setxor1d": (t(X, Y),), "union1d": (t(X, Y),), "unique": (t(X),),
    "ndenumerate": (), "fix_invalid": (t(X),), "asarray": (t(X),), "asanyarray": (t(X),),
    "array": (t(X), t(X, copy=True)), "masked_array": (t(X),), "MaskedArray": (t(X),),
    "getdata": (t(X),), "getmask": (t(X),), "getmaskarray": (t(X),), "filled": (t(X), t(X, 0)),
    "fromflex": (), "is_mask": (t(X.__class__("mask")),), "isMA": (t(X),), "isMaskedArray": (t(X),),
    "isarray": (t(X),), "is_masked": (t(X),), "ids": (), "shape": (t(X),), "size": (t(X),),
    "ndim": (t(X),), "count": (t(X), t(X, 0)), "count_masked": (t(X), t(X, 0)),
    "squeeze": (t(X),), "ravel": (t(X),), "sort": (t(X), t(X, axis=0)),
    "argsort": (t(X), t(X, axis=0)), "argmax": (t(X), t(X, 0)), "argmin": (t(X), t(X, 0)),
    "left_shift": (t(X, 1),), "right_shift": (t(X, 1),),
    "harden_mask": (t(X),), "soften_mask": (t(X),), "nonzero": (t(X),),
    "diag": (t(X),), "diagflat": (t(X),), "diagonal": (t(X),), "trace": (t(X),),
    "cumsum": (t(X), t(X, 0)), "cumprod": (t(X), t(X, 0)), "ptp": (t(X), t(X, 0)),
    "var": (t(X), t(X, 0)), "std": (t(X), t(X, 0)), "mean": (t(X), t(X, 0)),
    "sum": (t(X), t(X, 0)), "prod": (t(X), t(X, 0)), "product": (t(X), t(X, 0)),
    "max": (t(X), t(X, 0)), "min": (t(X), t(X, 0)), "amax": (t(X), t(X, 0)),
    "amin": (t(X), t(X, 0)), "anom": (t(X), t(X, 0)), "anomalies": (t(X), t(X, 0)),
    "all": (t(X), t(X, 0)), "any": (t(X), t(X, 0)), "alltrue": (t(X),), "sometrue": (t(X),),
    "compressed": (t(X),), "mr_": (), "masked_invalid": (t(X),),
    "empty_like": (t(X),), "ones_like": (t(X),), "zeros_like": (t(X),),
    "conjugate": (t(X),), "angle": (t(X),), "flatten_mask": (t(X.__class__("mask")),),
    "flatten_structured_array": (), "shrink_mask": (t(X),),
}
# Methods of MaskedArray: argument forms beyond the probes
METHOD_RECIPES: dict[str, tuple] = {
    "reshape": (t(X, -1), t(X, (4, 3))), "repeat": (t(X, 2),),
    "take": (t(X, [0, 1]),), "put": (t(X, [0], 1.0),), "swapaxes": (t(X, 0, -1),),
    "transpose": (t(X),), "view": (t(X), t(X, np.ndarray)), "astype": (t(X, "f4"), t(X, "i8")),
    "filled": (t(X), t(X, 0)), "clip": (t(X, 1, 3),), "round": (t(X),),
    "fill": (t(X, 0),), "tobytes": (t(X),), "tofile": (), "tolist": (t(X),),
    "torecords": (t(X),), "toflex": (t(X),), "dump": (), "dumps": (), "item": (t(X, 0),),
    "itemset": (), "compress": (t(X, [True, False, True]),), "setflags": (t(X, write=False),),
    "resize": (t(X, (2, 6)),),
    "argpartition": (t(X, 0),), "partition": (t(X, 0),), "searchsorted": (t(X, 2.0),),
    "byteswap": (t(X),), "getfield": (t(X, np.float64),), "setfield": (), "choose": (),
    "dot": (t(X, X.__class__("T")),), "trace": (t(X),), "diagonal": (t(X),),
    "set_fill_value": (t(X, 0),), "harden_mask": (t(X),), "soften_mask": (t(X),),
    "shrink_mask": (t(X),), "unshare_mask": (t(X),), "to_device": (t(X, "cpu"),),
    "__array__": (), "ids": (), "iscontiguous": (t(X),), "count": (t(X), t(X, 0)),
    "compressed": (t(X),), "nonzero": (t(X),), "argsort": (t(X), t(X, axis=0)),
    "sort": (t(X), t(X, axis=0)), "cumsum": (t(X), t(X, 0)), "cumprod": (t(X), t(X, 0)),
    "ptp": (t(X), t(X, 0)), "anom": (t(X), t(X, 0)),
}
_SPECIAL = {"shape", "cond", "mask", "T"}


def callables() -> list[tuple[str, str]]:
    """(kind, name) of every public callable: ``("ma", name)`` for numpy.ma.__all__'s
    callables, ``("method", name)`` for MaskedArray's public methods."""
    out = []
    for name in sorted(set(np.ma.__all__)):
        v = getattr(np.ma, name, None)
        if v is None or not callable(v) or name in ("MAError", "MaskError", "MaskType",
                                                    "mvoid", "masked", "nomask"):
            continue
        if isinstance(v, type) and issubclass(v, BaseException):
            continue
        out.append(("ma", name))
    for name in sorted(dir(np.ma.MaskedArray)):
        if name.startswith("_"):
            continue
        v = inspect.getattr_static(np.ma.MaskedArray, name)
        if isinstance(v, (property,)) or not callable(getattr(np.ma.MaskedArray, name)):
            continue
        out.append(("method", name))
    return out


def _operand_for(slot: Any, spec: Any, second: bool = False) -> Any:
    if slot is X:
        return spec.make()
    if slot is Y:
        if isinstance(spec, M):
            return M("C", spec.shape, spec.dtype, "some", "arange",
                     (2, 0) if spec.pattern == (3, 0) else spec.pattern).make()
        return Plain("C", spec.shape, spec.dtype).make()
    name = slot.name
    x = spec.make()
    if name == "cond":
        return np.ma.getdata(x) < 2
    if name == "mask":
        return np.ma.getmaskarray(x)
    if name == "T":
        return x.T
    if name == "shape":
        return spec.shape
    raise ValueError(name)


def _fill(obj: Any, spec: Any) -> Any:
    if isinstance(obj, _Slot):
        return _operand_for(obj, spec)
    if type(obj) in (list, tuple):
        return type(obj)(_fill(v, spec) for v in obj)
    if type(obj) is dict:
        return {k: _fill(v, spec) for k, v in obj.items()}
    return obj


def _real_leaves(obj: Any) -> list:
    """The real arrays a call's arguments hold: each masked array's data and mask."""
    out: list = []
    if isinstance(obj, _MA):
        out.append(obj.data)
        if obj._mask is not np.ma.nomask:
            out.append(obj._mask)
    elif isinstance(obj, np.ndarray):
        out.append(obj)
    elif type(obj) in (list, tuple):
        for v in obj:
            out.extend(_real_leaves(v))
    elif type(obj) is dict:
        for v in obj.values():
            out.extend(_real_leaves(v))
    return out


def _to_fakes(obj: Any, conv: Callable) -> tuple[Any, list]:
    """obj's masked arrays as fake masked arrays, ndarrays as fakes (one memo), and the fakes
    standing for ``_real_leaves(obj)`` in the same order."""
    leaves: list = []

    def go(x: Any) -> Any:
        if isinstance(x, _MA) and x is not np.ma.masked:
            f = fake_ma.to_fake_masked(x, conv)
            leaves.append(conv(x._data))
            if x._mask is not np.ma.nomask:
                leaves.append(f._mask)
            return f
        if isinstance(x, np.ndarray):
            f = conv(x)
            leaves.append(f)
            return f
        if type(x) in (list, tuple):
            return type(x)(go(v) for v in x)
        if type(x) is dict:
            return {k: go(v) for k, v in x.items()}
        return x
    return go(obj), leaves


def compare_masked(r: Any, f: Any, ri: list, fi: list, where: str) -> None:
    """Raise Mismatch unless the fake outcome f equals the real r as numpy.ma defines it."""
    if isinstance(r, Exception) or isinstance(f, Exception):
        return compare_outcome(r, f, ri, fi, where)
    if r is np.ma.masked:
        if f is not np.ma.masked:
            raise Mismatch(f"{where}: real np.ma.masked, fake {type(f).__name__}")
        return
    if isinstance(r, _MA):
        if not fake_ma.is_fake_masked(f):
            raise Mismatch(f"{where}: real MaskedArray, fake {type(f).__name__}")
        compare_meta(r, fake_ma.plain(f), ri, fi, f"{where} data")
        rm, fm = r._mask, f._mask
        if (rm is np.ma.nomask) != (fm is np.ma.nomask):
            raise Mismatch(f"{where}: mask real {'nomask' if rm is np.ma.nomask else 'array'}, "
                           f"fake {'nomask' if fm is np.ma.nomask else 'array'}")
        if rm is not np.ma.nomask:
            compare_meta(rm, fm, ri, fi, f"{where} mask")
        rf, ff = r.fill_value, f.fill_value  # as seen: the dtype's default when unset
        if (rf is None) != (ff is None) or (rf is not None and (
                np.asarray(rf).dtype != np.asarray(ff).dtype
                or not np.array_equal(np.asarray(rf), np.asarray(ff), equal_nan=True))):
            raise Mismatch(f"{where}: fill_value real {rf!r} fake {ff!r}")
        if r._hardmask != f._hardmask:
            raise Mismatch(f"{where}: hardmask")
        return
    if fake_ma.is_fake_masked(f):
        raise Mismatch(f"{where}: real {type(r).__name__}, fake a masked array")
    if isinstance(r, (tuple, list)) and isinstance(f, (tuple, list)) and len(r) == len(f):
        for i, (a, b) in enumerate(zip(r, f)):
            compare_masked(a, b, ri, fi, f"{where}[{i}]")
        return
    compare_outcome(r, f, ri, fi, where)


_PROGRAM = {"__name__": "__main__", "np": np}
exec("def call_ma(name, *a, **k):\n    return getattr(np.ma, name)(*a, **k)\n"
     "def call_method(name, obj, *a, **k):\n    return getattr(obj, name)(*a, **k)\n", _PROGRAM)


def _caller(kind: str, name: str) -> Callable:
    """The call, made from a program's frame (``__main__``), as user code makes it: calls
    from faketensor's own modules count as a library's and are not routed."""
    f: Any = _PROGRAM["call_ma" if kind == "ma" else "call_method"]
    return functools.partial(f, name)


def _run_real(fn: Callable, args: tuple, kwargs: dict) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            return e


def run_sample(kind: str, name: str, tmpl: T, spec: Any) -> str | None:
    """None when the fake agrees with the real call; "data-dependent" when the fake refused;
    "unsupported: why"; else the first difference."""
    fn = _caller(kind, name)
    args, kwargs = _fill((tmpl.args, tmpl.kwargs), spec)
    real_in = _real_leaves((args, kwargs))
    r = _run_real(fn, args, kwargs)
    args2, kwargs2 = _fill((tmpl.args, tmpl.kwargs), spec)
    with FakeMode(sizes=SizePolicy("refuse")) as mode:  # particular values: no assumption
        (fargs, fkwargs), fin = _to_fakes((args2, kwargs2), mode._convert)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                f = fn(*fargs, **fkwargs)
        except DataDependentError:
            return "data-dependent"
        except UnsupportedOperationError as e:
            return f"unsupported: {e}"
        except Exception as e:
            f = e
    try:
        compare_masked(r, f, real_in, fin, f"{name}({spec.id})")
    except Mismatch as e:
        return str(e)
    except Exception as e:  # a comparison that needs what the fake cannot give
        return f"{type(e).__name__}: {e}"
    return None


def _signature(out: Any) -> Any:
    """The metadata of a real outcome, except whether a mask is ``nomask``: numpy.ma drops a
    mask with nothing masked to nomask, which the fakes do not model (a fake mask is taken to
    hold a masked element; the survey's masks always do, a mask made from the data may not)."""
    if isinstance(out, Exception):
        return type(out)
    if out is np.ma.masked:
        return "masked"
    if isinstance(out, _MA):
        return ("ma", out.shape, out.dtype.str, out.strides)
    if isinstance(out, np.ndarray):
        return ("nd", out.shape, out.dtype.str, out.strides)
    if isinstance(out, (tuple, list)):
        return tuple(_signature(v) for v in out)
    if isinstance(out, np.generic):
        return ("scalar", out.dtype.str)
    if isinstance(out, (bool, int, float, complex, str, bytes)):
        return (type(out), out)
    return type(out)


# (data, mask pattern) of the runs that find value dependence: other values (ones, zeros,
# negative, out of domain), other masks (every element, none of a 0-d). Not the dtype's
# largest: a full reduction that overflows gives ``masked`` in numpy.ma (its domain check of
# the division), the fake the scalar (docs/guide/masked-arrays.md)
_VARIANTS = (("arange", (3, 0)), ("arange", (2, 0)), (1, (3, 0)), (0, (4, 0)),
             ("arange", (1, 0)), (-1, (3, 0)), ("arange", (2, 1)), (7, (3, 0)))


def value_dependent(kind: str, name: str, tmpl: T, spec: Any) -> bool:
    """Whether the real outputs' metadata (or Python values) change with the data or mask."""
    fn = _caller(kind, name)
    sigs = set()
    for fill, pattern in _VARIANTS:
        s = spec._vary(fill, pattern)
        args, kwargs = _fill((tmpl.args, tmpl.kwargs), s)
        sigs.add(repr(_signature(_run_real(fn, args, kwargs))))
    return len(sigs) > 1


def _variant_mismatch(kind: str, name: str, tmpl: T, spec: Any) -> str | None:
    """On a sample whose real outputs' metadata depend on the values, a fake that did not
    refuse must know them (a fake known to hold one value, faketensor/_known.py): it must
    equal the real call on every value variant, or refuse there. The first variant where
    it does neither, else None."""
    for fill, pattern in _VARIANTS:
        s = spec._vary(fill, pattern)
        res = run_sample(kind, name, tmpl, s)
        if res is not None and res != "data-dependent":
            return f"data {fill!r}, mask pattern {pattern}: {res}"
    return None


def _numpy_peak(fn: Callable[[], Any]) -> int:
    """The peak of NumPy's data buffers while ``fn()`` runs for real (memtrace.traced_call:
    only NumPy's own ``PyTraceMalloc_Track`` calls count); -1 if tracemalloc is busy."""
    if tracemalloc.is_tracing():
        return -1
    return traced_call(fn)[0]


def memory_dependent(kind: str, name: str, tmpl: T, spec: Any) -> bool:
    """Whether the real call's peak memory changes with the data or mask (same metadata):
    then the fake must refuse too, its memory figure could not be right."""
    fn = _caller(kind, name)
    peaks = set()
    for fill, pattern in _VARIANTS:
        s = spec._vary(fill, pattern)
        args, kwargs = _fill((tmpl.args, tmpl.kwargs), s)
        peaks.add(_numpy_peak(lambda: _run_real(fn, args, kwargs)))
    return len(peaks) > 1


class Row(NamedTuple):
    kind: str
    name: str
    status: str
    samples: int
    detail: str


def _templates(kind: str, name: str) -> list[T]:
    table = RECIPES if kind == "ma" else METHOD_RECIPES
    if name in table:
        return list(table[name])
    fn = _caller(kind, name)
    found = []
    real = getattr(fake_ma.REAL_MA, name, None)
    real = getattr(real, "_real", real)
    if isinstance(real, fake_ma.REAL_MA._MaskedUnaryOperation):
        return [t(X)]  # (X, Y) would pass Y as the ufunc's out
    if isinstance(real, (fake_ma.REAL_MA._MaskedBinaryOperation,
                         fake_ma.REAL_MA._DomainedBinaryOperation)):
        return [t(X, Y), t(X, 2)]
    for tmpl in PROBES if kind == "ma" else (t(X), t(X, 0), t(X, axis=0)):
        args, kwargs = _fill((tmpl.args, tmpl.kwargs), M())
        if not isinstance(_run_real(fn, args, kwargs), Exception):
            found.append(tmpl)
            if len(found) == 2:
                break
    return found


def measure(kind: str, name: str) -> Row:
    """A callable's status: ``exact`` when on every sample the fake equals the real call, or
    refuses with DataDependentError where the real outputs' metadata depend on the values
    (checked per sample); ``data-dependent`` when it refuses on every sample, rightly."""
    tmpls = _templates(kind, name)
    if not tmpls:
        return Row(kind, name, "untested", 0, "no argument form")
    n = matched = refused = 0
    for tmpl in tmpls:
        for spec in MASKED + (PLAIN if kind == "ma" else []):
            n += 1
            res = run_sample(kind, name, tmpl, spec)
            dep = value_dependent(kind, name, tmpl, spec)
            if res is None:
                if dep:  # right for these values: it must be right for every other value too
                    bad = _variant_mismatch(kind, name, tmpl, spec)
                    if bad is not None:
                        return Row(kind, name, "wrong", n, f"{spec.id}: the real outputs' "
                                   "metadata depend on the values, and the fake did not "
                                   f"follow them ({bad})")
                matched += 1
                continue
            if res == "data-dependent":
                if not dep and not memory_dependent(kind, name, tmpl, spec):
                    return Row(kind, name, "refuses", n, f"{spec.id}: DataDependentError, but "
                               "the real outputs' metadata and memory do not depend on the "
                               "values")
                refused += 1
                continue
            status = "unsupported" if res.startswith("unsupported") else "wrong"
            return Row(kind, name, status, n, f"{spec.id}: {res}")
    if not matched:
        return Row(kind, name, "data-dependent", n, "")
    return Row(kind, name, "exact", n, f"{refused} samples refused (value-dependent)"
               if refused else "")


def survey(names: Any = None) -> list[Row]:
    rows = []
    for kind, name in callables():
        if names is not None and name not in names:
            continue
        try:
            rows.append(measure(kind, name))
        except Exception as e:  # the survey itself must finish
            rows.append(Row(kind, name, "wrong", 0, f"survey error {type(e).__name__}: {e}"))
    return rows


def summary(rows: list[Row]) -> str:
    lines = []
    for kind in ("ma", "method"):
        rs = [r for r in rows if r.kind == kind]
        counts = {s: sum(r.status == s for r in rs) for s in STATUSES}
        tested = [r for r in rs if r.status != "untested"]
        indep = len(tested) - counts["data-dependent"]
        share = counts["exact"] / indep if indep else 0.0
        title = "numpy.ma functions" if kind == "ma" else "MaskedArray methods"
        lines.append(f"{title}: {len(rs)} callables, " + ", ".join(
            f"{counts[s]} {s}" for s in STATUSES)
            + f"; exact: {share:.1%} of the {indep} tested whose output metadata do not "
            "depend on values")
    return "\n".join(lines)


def main() -> None:  # pragma: no cover - a report
    import sys
    rows = survey(sys.argv[1:] or None)
    for r in rows:
        if r.status != "exact":
            print(f"{r.kind:6} {r.name:28} {r.status:15} {r.detail[:200]}")
    print(summary(rows))


if __name__ == "__main__":  # pragma: no cover
    main()
