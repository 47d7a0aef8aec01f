"""np.random: every legacy RandomState function and every Generator method that draws.

Output layouts follow NumPy's numpy/random sources: ``_common.pyx`` (``cont``/``disc``
and their ``*_broadcast_*`` paths: the shape is ``size``, or the broadcast of the array
parameters, and must equal ``size`` when both are given, ``validate_output_shape``;
``check_output`` for ``out=``), ``_bounded_integers.pyx.in`` (integers/randint: ``size``
only has to broadcast with low/high, and an empty ``size`` returns before any check), and
``_generator.pyx`` / ``mtrand.pyx`` for choice, permutation, permuted, shuffle,
multinomial, dirichlet and the multivariate distributions. A draw NumPy returns as a
Python or NumPy scalar is a 0-d fake of its dtype.

Checks on values known without data (Python scalars, lists, dtypes, methods) are NumPy's
own: ``_numpy_checks`` runs the real method on a private generator with ``size=None`` and
each fake parameter replaced by a one-element stand-in of its dtype holding a valid value,
so the exception (type and message) and warnings are NumPy's. Values inside fakes are
assumed valid, as everywhere in faketensor.
"""
from __future__ import annotations

import inspect
import math
import operator
import sys
from typing import Any, Callable

import numpy as np

from ..._stack import paused
from ..._errors import DataDependentError, UnsupportedOperationError
from .creation import fresh, norm_shape
from .indexing import getitem
from .temporaries import Steps, Val, array_bytes, asarray_bytes, binary, call, ufunc_bytes, unary, used
from ...layout import broadcast_shapes, c_strides, like_strides, normalize_axis
from ...meta import ArrayMeta, as_number, is_fake
from ..registry import keep_real, once_loaded, register, transient, unmodelled

_F8 = np.dtype(np.float64)
_I8 = np.dtype(np.int64)
_INTP = np.dtype(np.intp)
_LONG = np.dtype("long")

# This module never imports numpy.random itself: NumPy loads it lazily (a fifth of
# ``import faketensor`` when it was loaded eagerly), and ``register_all`` registers the
# rules once it is loaded (modes/installer.py's import hook, or ``kernels.load_all``).
# Private generators for NumPy's own checks (never the user's: their streams must not move).
_CHECKERS: dict[str, Any] = {}


def _cls(owner: str) -> Any:
    """``np.random.Generator`` or ``np.random.RandomState`` (numpy.random is loaded by now)."""
    return getattr(sys.modules["numpy.random"], owner)


def _checker(owner: str) -> Any:
    """The private generator of ``owner``'s class, made on first use."""
    gen = _CHECKERS.get(owner)
    if gen is None:
        random = sys.modules["numpy.random"]
        gen = (random.Generator(random.PCG64(0)) if owner == "Generator"
               else random.RandomState(0))
        gen = _CHECKERS.setdefault(owner, gen)
    return gen

# Draws shaped by size and broadcast parameters (_common.pyx cont/disc): name -> parameters.
DISTRIBUTIONS = {
    "beta": ("a", "b"), "binomial": ("n", "p"), "chisquare": ("df",), "exponential": ("scale",),
    "f": ("dfnum", "dfden"), "gamma": ("shape", "scale"), "geometric": ("p",),
    "gumbel": ("loc", "scale"), "hypergeometric": ("ngood", "nbad", "nsample"),
    "laplace": ("loc", "scale"), "logistic": ("loc", "scale"), "lognormal": ("mean", "sigma"),
    "logseries": ("p",), "negative_binomial": ("n", "p"), "noncentral_chisquare": ("df", "nonc"),
    "noncentral_f": ("dfnum", "dfden", "nonc"), "normal": ("loc", "scale"), "pareto": ("a",),
    "poisson": ("lam",), "power": ("a",), "rayleigh": ("scale",), "standard_gamma": ("shape",),
    "standard_t": ("df",), "triangular": ("left", "mode", "right"), "uniform": ("low", "high"),
    "vonmises": ("mu", "kappa"), "wald": ("mean", "scale"), "weibull": ("a",), "zipf": ("a",),
    # size-only draws
    "random": (), "random_sample": (), "standard_normal": (), "standard_exponential": (),
    "standard_cauchy": (), "tomaxint": (),
}
INTEGER_VALUED = frozenset({"binomial", "geometric", "hypergeometric", "logseries",
                            "negative_binomial", "poisson", "zipf", "tomaxint"})
# Methods whose out= must be C-contiguous (cont with parameters); fills accept F too.
_OUT_NEEDS_C = frozenset({"standard_gamma"})


# --- shared helpers -----------------------------------------------------------------


def _binder(owner: str, name: str) -> Callable:
    """Bind a call's arguments to the real method's signature (NumPy's TypeError if they do not fit).

    Whether a call binds, and where each argument goes, depends only on how many
    positional arguments it has and which keywords it names: after ``inspect``'s bind has
    accepted a call of that form once, later ones are laid out directly (the same dict, in
    the signature's order, defaults filled in). The signature is read on the first call
    (inspect.signature for every method was most of registering numpy.random's rules)."""
    sig: Any = None
    names: list = []
    defaults: dict = {}
    direct = False
    bound: set = set()  # (number of positional arguments, keyword names) bound before

    def bind(args: tuple, kwargs: dict) -> dict:
        nonlocal sig, names, defaults, direct
        form = (len(args), tuple(kwargs))
        if sig is None:
            s = inspect.signature(getattr(_cls(owner), name))
            plist = list(s.parameters.values())[1:]  # after self
            names = [p.name for p in plist]
            defaults = {p.name: p.default for p in plist}
            direct = all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in plist)
            sig = s
        elif form in bound:
            n = len(args)
            out = {}
            for i, k in enumerate(names):
                out[k] = args[i] if i < n else kwargs[k] if k in kwargs else defaults[k]
            return out
        b = sig.bind(None, *args, **kwargs)
        b.apply_defaults()
        out = dict(b.arguments)
        out.pop(next(iter(sig.parameters)))
        if direct and len(bound) < 64:
            bound.add(form)
        return out

    return bind


def _shape_of(p: Any) -> tuple:
    """The shape NumPy converts a parameter to (fakes: their shape; scalars: ())."""
    if is_fake(p):
        return tuple(p.shape)
    if p is None or isinstance(p, (int, float, complex, bool, np.generic)):
        return ()
    return np.shape(p)


def _is_scalar(p: Any) -> bool:
    return _shape_of(p) == ()


def _stand_in(p: Any, value: float) -> Any:
    """A one-element real array with p's dtype and ndim holding ``value`` (a valid one)."""
    dt = p.dtype
    shape = (1,) * p.ndim
    try:
        ok = dt.kind in "biufc" and dt.type(value) == value
    except (TypeError, ValueError):
        ok = False
    if ok:
        return np.full(shape, value, dt)
    if dt.kind in "biu":
        return np.ones(shape, dt)
    return np.zeros(shape, dt)  # the dtype alone decides (a cast NumPy refuses)


_NEUTRAL = {"p": 0.5, "low": 0.0, "loc": 0.0, "mu": 0.0, "mean": 2.0, "pvals": 0.5}


def _neutral_values(name: str, a: dict, params: tuple) -> dict:
    """Valid values for the fake parameters, given the known ones (cross-parameter rules
    of triangular, hypergeometric and integers included)."""
    known = {k: a[k] for k in params if not is_fake(a[k]) and _is_scalar(a[k]) and a[k] is not None}

    def num(k):
        try:
            return float(known[k])
        except (TypeError, ValueError, KeyError):
            return None

    vals = {k: _NEUTRAL.get(k, 2.0) for k in params}
    if name == "triangular":
        ks = [v for v in (num("left"), num("mode"), num("right")) if v is not None]
        lo = num("left") if num("left") is not None else (min(ks) - 1 if ks else 0.0)
        hi = num("right") if num("right") is not None else (max(ks) + 1 if ks else 2.0)
        vals.update(left=lo, right=hi, mode=(lo + hi) / 2)
    elif name == "hypergeometric":
        s = num("nsample")
        n = max(1, int(s)) if s is not None else 1
        vals.update(ngood=n, nbad=n, nsample=1)
    elif name in ("integers", "randint", "random_integers"):
        lo, hi = num("low"), num("high")
        if a["high"] is None:  # low is the high, with 0 as low: 1 fits every dtype and endpoint
            vals.update(low=1)
        else:
            vals.update(low=int(hi) - 1 if hi is not None else 0,
                        high=int(lo) + 1 if lo is not None else 3)
    return vals


def _numpy_checks(owner: str, name: str, a: dict, params: tuple) -> None:
    """Run the real method on a private generator with ``size=None`` (or an empty size) and
    fake parameters replaced by stand-ins, so NumPy raises (and warns) as it would."""
    vals = _neutral_values(name, a, params)
    call = dict(a)
    for k in params:
        if is_fake(a[k]):
            call[k] = _stand_in(a[k], vals[k])
    if "size" in call and not _empty_size(call["size"]):
        call["size"] = None
    if "out" in call:
        call["out"] = None
    with paused():  # the private generator draws for real
        getattr(_checker(owner), name)(**call)


def _empty_size(size: Any) -> bool:
    """True when np.prod(size) == 0 (NumPy then returns an empty array early, or it is cheap)."""
    if size is None:
        return False
    if type(size) is int:
        size = (size,)
    if type(size) is tuple:  # Python ints whose product fits int64: np.prod's, without NumPy
        n = 1
        for d in size:
            if type(d) is not int:
                break
            n *= d
        else:
            if -_INT64 <= n < _INT64 and all(-_INT64 <= d < _INT64 for d in size):
                return n == 0
    try:
        return bool(np.prod(size) == 0)
    except (TypeError, ValueError):
        return False


_INT64 = 1 << 63


def _scalar(dt: np.dtype) -> ArrayMeta:
    """A 0-d fake standing for the NumPy scalar NumPy returns (no array memory)."""
    return ArrayMeta((), dt, (), scalar=True)


def _pyscalar(pytype: type) -> ArrayMeta:
    """A fake standing for the Python int/float/bool NumPy returns (``cont``/``disc`` in
    _common.pyx return ``PyFloat``/``PyLong`` for a scalar draw, ``integers``/``randint``
    ``dtype(ret)`` for dtype int or bool, ``choice`` ``idx.item(0)``): a weak operand of
    its Python type (faketensor/meta.py ``weak_type``), no array memory."""
    return ArrayMeta((), np.dtype(pytype), (), scalar=True, pytype=pytype)


def _size_tuple(size: Any) -> tuple:
    """``size`` as check_output and multinomial compare it: tuple(size) or (size,)."""
    try:
        return (operator.index(size),)
    except TypeError:
        return tuple(size)


def _into_out(out: Any, dt: np.dtype, size: Any, pshapes: list, need_c: bool) -> Any:
    """``out=`` (_common.pyx check_output, then validate_output_shape): returned as is."""
    if not is_fake(out):
        raise TypeError("out must be a numpy array")  # NumPy casts without checking
    f = out.flags
    behaved = f.writeable and f.aligned and out.dtype.isnative
    if not (behaved and (f.c_contiguous or (f.f_contiguous and not need_c))):
        req = "C-" if need_c else ""
        raise ValueError(f"Supplied output array must be {req}contiguous, writable, "
                         "aligned, and in machine byte-order.")
    if out.dtype != dt:
        raise TypeError("Supplied output array has the wrong type. "
                        f"Expected {dt}, got {out.dtype}")
    if size is not None and _size_tuple(size) != tuple(out.shape):
        raise ValueError("size must match out.shape when used together")
    if pshapes and any(s != () for s in pshapes):
        _validate_output(tuple(out.shape), pshapes)
    return out


def _validate_output(shape: tuple, pshapes: list) -> None:
    """_common.pyx validate_output_shape: the broadcast of output and parameters is the output."""
    b = broadcast_shapes(shape, *pshapes)
    if b != shape:
        raise ValueError(f"Output size {shape} is not compatible with broadcast "
                         f"dimensions of inputs {b}.")


# --- memory: the parameters' conversions and checks (_common.pyx cont / disc) ----------------

# What each draw's C code converts and checks, in order: "name:target:constraint" with target
# d (float64), q (int64) or p (intp) and the constraint of _common.pyx check_array_constraint
# (- none). Generator (_generator.pyx) and RandomState (mtrand.pyx) differ in places.
_GEN_RECIPES = {
    "beta": "a:d:pos b:d:pos", "chisquare": "df:d:pos", "exponential": "scale:d:nonneg",
    "f": "dfnum:d:pos dfden:d:pos", "gamma": "shape:d:nonneg scale:d:nonneg",
    "geometric": "p:d:gt01", "gumbel": "loc:d:- scale:d:nonneg", "laplace": "loc:d:- scale:d:nonneg",
    "logistic": "loc:d:- scale:d:nonneg", "lognormal": "mean:d:- sigma:d:nonneg",
    "logseries": "p:d:lt01", "noncentral_chisquare": "df:d:pos nonc:d:nonneg",
    "noncentral_f": "dfnum:d:pos dfden:d:pos nonc:d:nonneg", "normal": "loc:d:- scale:d:nonneg",
    "pareto": "a:d:pos", "poisson": "lam:d:poisson", "power": "a:d:pos", "rayleigh": "scale:d:nonneg",
    "standard_gamma": "shape:d:nonneg", "standard_t": "df:d:pos", "vonmises": "mu:d:- kappa:d:nonneg",
    "wald": "mean:d:pos scale:d:pos", "weibull": "a:d:nonneg", "zipf": "a:d:gt1",
}
_LEGACY_RECIPES = dict(
    _GEN_RECIPES, geometric="p:d:gt01", poisson="lam:d:poisson", zipf="a:d:gt1",
    negative_binomial="n:d:pos p:d:b01", logseries="p:d:lt01")
# Legacy integer draws return int64_to_long(out): out.astype('l') copies an array (mtrand.pyx).
_LEGACY_TO_LONG = frozenset({"geometric", "logseries", "negative_binomial", "poisson", "zipf",
                             "hypergeometric"})
_TARGETS: dict[str, np.dtype] = {"d": _F8, "q": _I8, "p": _INTP, "f": np.dtype(np.float32)}
_POISSON_MAX = float(np.iinfo("int64").max - np.sqrt(np.iinfo("int64").max) * 10)
_BOOL = np.dtype(bool)


def _recipe(text: str) -> list:
    return [tuple(item.split(":")) for item in text.split()]


class _Param(Val):
    """A converted parameter: its shape and dtype, whether it is one segment (C or F
    contiguous), and the bytes of the buffer the conversion made (0: none)."""

    __slots__ = ("seg", "owned")
    seg: bool
    owned: int


def _param(shape: tuple, dtype: np.dtype, seg: bool = True, owned: int = 0) -> Any:
    v = _Param(shape, dtype)
    v.seg, v.owned = seg, owned
    return v


def _converted(steps: Any, p: Any, target: np.dtype) -> Any:
    """np.PyArray_FROM_OTF(p, target, NPY_ALIGNED): the array the C code reads; a new
    contiguous buffer (counted) unless p is already an aligned array of ``target``."""
    if is_fake(p):
        if p.dtype == target and p.flags.aligned:
            return _param(tuple(p.shape), target, bool(p.flags.c_contiguous or p.flags.f_contiguous))
        shape = tuple(p.shape)
    else:
        shape = _shape_of(p)
    return _param(shape, target, True, steps.new(array_bytes(shape, target)))


def _any_of(steps: Any, ufunc: Any, *args: Any) -> None:
    """``np.any(ufunc(*args))`` / ``np.all(...)``: the boolean temporary (a Python int
    operand costs 16 bytes before it, as measured on numpy 2.4) and any's 0-d result."""
    if any(type(a) is int for a in args):
        steps.temp(16)
    if any(isinstance(a, np.generic) for a in args):  # a NumPy scalar of another dtype than
        loop = ufunc.resolve_dtypes(tuple(  # the loop's: a 0-d array of its own, then its cast,
            np.dtype(type(a)) if isinstance(a, np.generic) else a.dtype for a in args) + (None,))
        own = sum(np.dtype(type(a)).itemsize for a, d in zip(args, loop)  # after array casts
                  if isinstance(a, np.generic) and np.dtype(type(a)) != d)
        if own:
            steps.temp(own + ufunc_bytes(ufunc, *args))
    r = call(steps, ufunc, *args)  # temporaries among args are freed once it returns
    steps.temp(1)
    steps.free(r.nbytes)


def _check(steps: Any, cons: str, v: Any) -> None:
    """_common.pyx check_array_constraint on a converted parameter (values assumed valid,
    so every test runs)."""
    x = Val(v.shape, v.dtype)
    if cons == "nonneg":  # np.any(np.logical_and(np.logical_not(np.isnan(val)), np.signbit(val)))
        a = call(steps, np.isnan, x)
        b = call(steps, np.logical_not, a)
        c = call(steps, np.signbit, x)
        d = call(steps, np.logical_and, b, c)
        steps.temp(1)
        steps.free(d.nbytes)
    elif cons in ("pos", "pos_nan"):
        if cons == "pos_nan":
            _any_of(steps, np.isnan, x)
        _any_of(steps, np.less_equal, x, 0)
    elif cons == "b01":  # a C loop over a one-segment float64 array, NumPy's ufuncs otherwise
        if not (x.dtype == _F8 and v.seg):
            _any_of(steps, np.greater_equal, x, 0)
            _any_of(steps, np.less_equal, x, 1)
    elif cons == "gt01":
        _any_of(steps, np.greater, x, 0)
        _any_of(steps, np.less_equal, x, 1)
    elif cons == "lt01":
        _any_of(steps, np.greater_equal, x, 0)
        _any_of(steps, np.less, x, 1)
    elif cons == "gt1":
        _any_of(steps, np.greater, x, 1)
    elif cons == "gte1":
        _any_of(steps, np.greater_equal, x, 1)
    elif cons == "poisson":
        _any_of(steps, np.less_equal, x, _POISSON_MAX)
        _any_of(steps, np.greater_equal, x, 0.0)
    elif cons == "long":
        _any_of(steps, np.greater_equal, x, 0)
        _any_of(steps, np.less_equal, x, 2 ** 63 - 1)


def _release(steps: Any, vals: list) -> None:
    """Free the conversions' buffers (each once) when the function returns."""
    seen: set = set()
    for v in vals:
        if v.owned and id(v) not in seen:
            seen.add(id(v))
            steps.free(v.owned)


def _cont(steps: Any, recipe: list, a: dict, out_bytes: int | None, values: dict | None = None) -> list:
    """_common.pyx cont / disc: convert each parameter, check arrays (scalars are checked
    in C), allocate the output (None: a scalar or ``out=``); the converted arrays are
    freed by the caller (they live until the function returns)."""
    vals: list[Any] = []
    for name, tgt, _ in recipe:
        p = values[name] if values and name in values else a[name]
        vals.append(p if isinstance(p, _Conv) else _converted(steps, p, _TARGETS[tgt]))
    vals = [v.val if isinstance(v, _Conv) else v for v in vals]
    if any(v.shape != () for v in vals):
        for v, (_, _, cons) in zip(vals, recipe):
            if cons != "-":
                _check(steps, cons, v)
    if out_bytes is not None:
        steps.new(out_bytes)
    return vals


class _Conv:
    """An array a previous step already converted (passed to cont again: no new buffer)."""

    __slots__ = ("val",)

    def __init__(self, val: Any) -> None:
        self.val = val


def _draw_memory(owner: str, name: str, a: dict, res: Any, out_given: bool) -> None:
    """Report what the real draw allocates besides its result (transient bytes)."""
    legacy = owner == "RandomState"
    steps = Steps()
    arr_out = type(res) is ArrayMeta and not res.scalar and not out_given
    out_b = array_bytes(res.shape, res.dtype) if arr_out else None
    keep: list = []
    if name == "uniform":
        lo, hi = _converted(steps, a["low"], _F8), _converted(steps, a["high"], _F8)
        keep = [lo, hi]
        if lo.shape == () and hi.shape == ():
            steps.new(8)  # np.isfinite(rng): the float as a 0-d array, and a bool
            steps.temp(1)
            steps.free(8)
            keep += _cont(steps, _recipe("low:d:- high:d:-"), {"low": 0.0, "high": 0.0}, out_b)
        else:
            rng = call(steps, np.subtract, Val(hi.shape, _F8), Val(lo.shape, _F8))
            _any_of(steps, np.isfinite, Val(rng.shape, _F8))
            rng_v = _param(rng.shape, _F8)
            keep += _cont(steps, _recipe("low:d:- high:d:" + ("-" if legacy else "nonneg")),
                          {}, out_b, {"low": _Conv(lo), "high": _Conv(rng_v)})
            steps.free(rng.nbytes)
    elif name == "triangular":
        vals = [_converted(steps, a[k], _F8) for k in ("left", "mode", "right")]
        keep = vals
        if all(v.shape == () for v in vals):
            keep += _cont(steps, _recipe("left:d:- mode:d:- right:d:-"),
                          {"left": 0.0, "mode": 0.0, "right": 0.0}, out_b)
        else:
            lv, mv, rv = vals
            _any_of(steps, np.greater, lv, mv)
            _any_of(steps, np.greater, mv, rv)
            _any_of(steps, np.equal, lv, rv)
            if out_b is not None:
                steps.new(out_b)
    elif name == "binomial":
        keep = _cont(steps, [("p", "d", "b01"), ("n", "p" if legacy else "q",
                                                 "long" if legacy else "nonneg")], a, out_b)
    elif name == "hypergeometric":
        vals = [_converted(steps, a[k], _I8) for k in ("ngood", "nbad", "nsample")]
        keep = vals
        if all(v.shape == () for v in vals):
            _release(steps, _cont(steps, _recipe("ngood:q:- nbad:q:- nsample:q:-"),
                                  {"ngood": 0, "nbad": 0, "nsample": 0}, out_b))
        else:
            g, b, n = (Val(v.shape, _I8) for v in vals)
            if not legacy:
                _any_of(steps, np.greater_equal, g, float(10 ** 9))
                _any_of(steps, np.greater_equal, b, float(10 ** 9))
            _any_of(steps, np.less, call(steps, np.add, g, b), n)
            conses = ("long", "nonneg", "gte1") if legacy else ("nonneg", "nonneg", "nonneg")
            for v, cons in zip(vals, conses):
                _check(steps, cons, v)
            if out_b is not None:
                steps.new(out_b)
        if legacy and out_b is not None:  # int64_to_long while ongood, ... are alive
            steps.temp(out_b)
    elif name == "negative_binomial" and not legacy:
        pv, nv = _converted(steps, a["p"], _F8), _converted(steps, a["n"], _F8)
        keep = [pv, nv]
        if pv.shape != () or nv.shape != ():
            _check(steps, "pos_nan", nv)
            _check(steps, "gt01", pv)
            p, n = Val(pv.shape, _F8), Val(nv.shape, _F8)

            def sc(v: Any) -> Any:  # a 0-d result is a NumPy scalar: its buffer is freed
                if isinstance(v, Val) and v.temp and v.shape == ():
                    steps.free(v.nbytes)
                    return np.float64(0)
                return v

            def with_int(ufunc: Any, x: Any, y: Any) -> Any:  # a Python int: 16 bytes first
                steps.temp(16)
                return binary(steps, ufunc, x, y)

            left = sc(binary(steps, np.true_divide, sc(with_int(np.subtract, 1, p)), p))
            root = sc(with_int(np.multiply, 10, sc(call(steps, np.sqrt, n))))
            lam = sc(binary(steps, np.multiply, left, sc(binary(steps, np.add, n, root))))
            if isinstance(lam, Val):
                _any_of(steps, np.greater, Val(lam.shape, _F8), _POISSON_MAX)
                keep.append(_param(lam.shape, _F8, True, lam.nbytes))  # max_lam_arr, a local
        pc, nc = _param(pv.shape, _F8), _param(nv.shape, _F8)
        _cont(steps, _recipe("n:d:- p:d:-"), {}, out_b, {"n": _Conv(nc), "p": _Conv(pc)})
    elif name == "standard_gamma" and np.dtype(a.get("dtype", _F8)) == np.float32:
        keep = _cont(steps, [("shape", "f", "nonneg")], a, out_b)
    else:
        recipes = _LEGACY_RECIPES if legacy else _GEN_RECIPES
        if name not in recipes:
            return
        keep = _cont(steps, _recipe(recipes[name]), a, out_b)
    _release(steps, keep)
    if legacy and name in _LEGACY_TO_LONG and name != "hypergeometric" and out_b is not None:
        steps.new(out_b)  # astype('l') copies; the int64 draw is freed
        steps.free(out_b)
    steps.done()


# --- size and parameter draws (cont / disc / fills) -----------------------------------


def _draw(owner: str, name: str) -> Callable:
    """A size-and-parameters draw (_common.pyx cont/disc, the fills): shape from ``size``
    or the parameters' broadcast, dtype from ``dtype=``, ``out=`` returned as is. NumPy's
    value checks (``scale < 0``, ``p > 1``, ...) run on the known parameters; a fake
    parameter's values are assumed valid (the fake draw accepts them)."""
    params = DISTRIBUTIONS[name]
    bind = _binder(owner, name)
    base_dt = _I8 if name in INTEGER_VALUED else _F8

    def kernel(*args: Any, **kwargs: Any) -> Any:
        a = bind(args, kwargs)
        _numpy_checks(owner, name, a, params)
        dt = np.dtype(a["dtype"]) if "dtype" in a else base_dt
        pshapes = [_shape_of(a[k]) for k in params]
        scalar = all(s == () for s in pshapes)
        size, out = a.get("size"), a.get("out")
        if out is not None:
            res = _into_out(out, dt, size, pshapes, name in _OUT_NEEDS_C)
        elif size is None:  # a scalar draw is a Python float even for dtype=float32
            res = (_pyscalar(int if base_dt is _I8 else float) if scalar
                   else fresh(broadcast_shapes(*pshapes), dt))
        else:
            shape = norm_shape(size)
            if not scalar:
                _validate_output(shape, pshapes)
            res = fresh(shape, dt)
        _draw_memory(owner, name, {k: as_number(v) for k, v in a.items()}, res, out is not None)
        return res

    setattr(kernel, "cache_draws", True)  # a function of the signature (registry.register)
    return kernel


def _dims(owner: str, name: str) -> Callable:
    """Legacy rand/randn(d0, d1, ...): random_sample/standard_normal with size=dims."""
    def kernel(*dims: Any) -> Any:
        return fresh(norm_shape(dims), _F8) if dims else _pyscalar(float)
    setattr(kernel, "cache_draws", True)
    return kernel


# --- integers / randint / random_integers ------------------------------------------------


def _integers(owner: str, name: str) -> Callable:
    bind = _binder(owner, name)

    def kernel(*args: Any, **kwargs: Any) -> Any:
        a = bind(args, kwargs)
        low, high = a["low"], a["high"]
        if name == "random_integers":
            h = high if high is not None else low
            if is_fake(h) and h.ndim:  # int(high)
                raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
            dtype: Any = "l"
        else:
            dtype = a["dtype"]
        size = a["size"]
        _numpy_checks(owner, name, a, ("low", "high"))
        if dtype is int and owner == "RandomState":
            dt = _LONG
        else:
            dt = np.dtype(dtype)
        if not dt.isnative:
            dt = dt.newbyteorder("=")  # legacy: a DeprecationWarning, then native order
        if high is None:
            low, high = 0, low
        if name == "random_integers":  # randint(low, int(high) + 1, size, dtype='l')
            high = 0
        if size is not None:
            shape = norm_shape(size)
            if not _empty_size(size):
                broadcast_shapes(shape, _shape_of(low), _shape_of(high))
            res = fresh(shape, dt)
        elif _is_scalar(low) and _is_scalar(high):  # dtype(ret) for the Python int and bool
            res = _pyscalar(dtype) if dtype is int or dtype is bool else _scalar(dt)
        else:
            res = fresh(broadcast_shapes(_shape_of(low), _shape_of(high)), dt)
        _integers_memory(as_number(low), as_number(high), size, dt, dtype, res, a.get("endpoint", False))
        return res

    setattr(kernel, "cache_draws", True)
    return kernel


# _bounded_integers.pyx.in type_info: (nptype_up, npctype, lb, ub) of the array path of the
# smaller types: ub is checked as a nptype_up scalar, the bounds are converted to npctype
_SMALL_INTS = {"uint32": ("uint64", "uint64", 0, 0x100000000),
               "uint16": ("uint32", "uint32", 0, 0x10000),
               "uint8": ("uint16", "uint16", 0, 0x100), "bool": ("uint8", "uint8", 0, 0x2),
               "int32": ("uint64", "int64", -0x80000000, 0x80000000),
               "int16": ("uint32", "int32", -0x8000, 0x8000),
               "int8": ("uint16", "int16", -0x80, 0x80)}


def _asarray_val(steps: Steps, x: Any) -> Any:
    """np.asarray(x): a fake as it is, a new buffer for Python scalars and sequences."""
    if is_fake(x):
        return _param(tuple(x.shape), x.dtype, bool(x.flags.c_contiguous or x.flags.f_contiguous))
    arr = np.asarray(x)  # a scalar or a list of them: O(1) or the list's own size
    return _param(arr.shape, arr.dtype, True, steps.new(array_bytes(arr.shape, arr.dtype)))


def _integers_memory(low: Any, high: Any, size: Any, dt: np.dtype, dtype: Any, res: Any,
                     closed: bool) -> None:
    """What integers/randint allocate besides the result (_bounded_integers.pyx.in
    ``_rand_<type>`` and ``_rand_<type>_broadcast``; _generator.pyx ``integers``)."""
    steps = Steps()
    out_b = array_bytes(res.shape, res.dtype) if not res.scalar else 0
    if size is not None:  # np.prod(size) == 0: size as an array and the product's 0-d result
        sz = np.asarray(size) if isinstance(size, (list, tuple)) else np.asarray(operator.index(size))
        steps.temp(array_bytes(sz.shape, sz.dtype) + 8)
        if _empty_size(size):
            steps.new(out_b)
            steps.done()
            return
    lo, hi = _asarray_val(steps, low), _asarray_val(steps, high)
    keep = [lo, hi]
    key = "bool" if dt == np.bool_ else dt.name
    if lo.shape == () and hi.shape == ():
        if out_b:
            steps.new(out_b)
        else:  # np.<type>(value): the scalar is made through a 0-d array of its type
            steps.temp(dt.itemsize)
    elif key in ("int64", "uint64"):
        for v in (lo, hi):  # FROM_OTF(..., otype), or empty_like filled from Python ints
            same = np.can_cast(v.dtype, dt) and v.dtype == dt and v.seg is not None
            keep.append(_param(v.shape, dt, True, 0 if same else steps.new(array_bytes(v.shape, dt))))
        _any_of(steps, np.greater, Val(lo.shape, dt), Val(hi.shape, dt))
        steps.new(out_b)
    else:
        up, conv, lb, ub = _SMALL_INTS[key]
        up_dt = np.dtype(conv)
        if not np.can_cast(lo.dtype, dt):
            _any_of(steps, np.less, Val(lo.shape, lo.dtype), dt.type(lb))
        if not np.can_cast(hi.dtype, dt):
            _any_of(steps, np.greater, Val(hi.shape, hi.dtype), np.dtype(up).type(ub))
        _any_of(steps, np.greater, Val(lo.shape, lo.dtype), Val(hi.shape, hi.dtype))
        for v in (lo, hi):  # FROM_OTF(..., nptype_up, NPY_ALIGNED | NPY_FORCECAST)
            keep.append(_param(v.shape, up_dt, True,
                               0 if v.dtype == up_dt else steps.new(array_bytes(v.shape, up_dt))))
        steps.new(out_b)
    _release(steps, keep)
    if size is None and (dtype is bool or dtype is int):  # np.array(ret).shape == ()
        steps.temp(out_b or dt.itemsize)
    steps.done()


# --- choice ------------------------------------------------------------------------------


def _choice(owner: str) -> Callable:
    bind = _binder(owner, "choice")
    legacy = owner == "RandomState"

    def kernel(*args: Any, **kwargs: Any) -> Any:
        k = bind(args, kwargs)
        a, size, replace, p = k["a"], k["size"], k["replace"], k["p"]
        axis = k.get("axis", 0)
        arr = a if is_fake(a) else np.asarray(a)
        pop_size = None  # unknown: a is a 0-d fake
        if arr.ndim == 0:
            if is_fake(arr):
                if arr.dtype.kind not in "iub":
                    raise ValueError("a must be 1-dimensional or an integer" if legacy else
                                     f"a must be a sequence or an integer, not {type(a)}")
            else:
                try:
                    pop_size = operator.index(arr.item())
                except TypeError:
                    raise ValueError("a must be 1-dimensional or an integer" if legacy else
                                     f"a must be a sequence or an integer, not {type(a)}") from None
                if pop_size <= 0 and np.prod(size) != 0:
                    raise ValueError("a must be greater than 0 unless no samples are taken"
                                     if legacy else
                                     "a must be a positive integer unless no samples are taken")
        elif legacy and arr.ndim != 1:
            raise ValueError("a must be 1-dimensional")
        else:
            pop_size = arr.shape[axis]  # Python indexing: IndexError as NumPy's
            if pop_size == 0 and np.prod(size) != 0:
                raise ValueError("'a' cannot be empty unless no samples are taken" if legacy
                                 else "a cannot be empty unless no samples are taken")
        if p is not None:
            if is_fake(p):
                len(p)
                if p.ndim != 1:
                    raise ValueError("'p' must be 1-dimensional" if legacy else
                                     "p must be 1-dimensional")
                if pop_size is not None and p.shape[0] != pop_size:
                    raise ValueError("'a' and 'p' must have same size" if legacy else
                                     "a and p must have same size")
            else:  # NumPy's own checks of p's values
                n = pop_size if pop_size is not None else len(p)
                with paused():
                    _checker(owner).choice(n, size if _empty_size(size) else None, True, p)
                if not replace and size is not None and \
                        np.count_nonzero(np.asarray(p, _F8) > 0) < np.prod(size, dtype=np.intp):
                    raise ValueError("Fewer non-zero entries in p than size")
        if size is None:
            shape: tuple = ()
        else:
            n = int(np.prod(size, dtype=np.intp))
            if not replace and pop_size is not None and n > pop_size:
                raise ValueError("Cannot take a larger sample than population when "
                                 + ("'replace=False'" if legacy else "replace is False"))
            shape = norm_shape(size)
        if arr.ndim == 0:
            if size is None:
                res: Any = _pyscalar(int)  # idx.item(0)
            elif legacy and not replace and p is None:  # permutation(pop_size)[:size], reshaped
                if pop_size is None:
                    raise DataDependentError("RandomState.choice(a, replace=False) returns a view "
                                             "of a permutation of a's value")
                res = ArrayMeta(shape, _LONG, c_strides(shape, _LONG.itemsize), base_shape=(pop_size,))
                _choice_memory(legacy, as_number(a), arr, size, shape, replace, p, pop_size, True, res, axis)
                return res
            else:
                res = fresh(shape, _I8)
            _choice_memory(legacy, as_number(a), arr, size, shape, replace, p, pop_size,
                           k.get("shuffle", True), res, axis)
            return res
        if legacy or arr.ndim == 1:
            res = _scalar(arr.dtype) if size is None and arr.ndim == 1 else fresh(shape, arr.dtype)
        else:
            ax = normalize_axis(axis, arr.ndim)
            res = fresh(tuple(arr.shape[:ax]) + shape + tuple(arr.shape[ax + 1:]), arr.dtype)
        _choice_memory(legacy, as_number(a), arr, size, shape, replace, p, pop_size, k.get("shuffle", True),
                       res, axis)
        return res

    return kernel


def _choice_memory(legacy: bool, a: Any, arr: Any, size: Any, shape: tuple, replace: bool,
                   p: Any, pop: int | None, shuffle: bool, res: Any, axis: Any) -> None:
    """What choice allocates besides its result, in _generator.pyx / mtrand.pyx order:
    np.asarray(a), p as C float64 and its checks, np.prod(size), then the index array idx
    (integers/randint; cdf, uniform samples and searchsorted with p; Floyd's hash set or a
    shuffled arange without replacement), and a.take(idx) / a[idx] for an array ``a``.
    Without replacement and with p, NumPy redraws until the picks are unique: the first
    round is counted (the rounds after it are smaller, their number depends on values)."""
    steps = Steps()
    held: list = []
    if not is_fake(a):
        held.append(steps.new(asarray_bytes(a)))
    n = math.prod(shape)
    nb = array_bytes(shape, _I8)
    pshape: tuple = ()
    if p is not None:
        pshape = tuple(p.shape) if is_fake(p) else np.shape(p)
        pop = pshape[0] if pop is None and pshape else pop
        steps.temp(16)  # atol = np.sqrt(np.finfo(np.float64).eps)
        if is_fake(p) and p.dtype.kind == "f":
            steps.temp(2 * p.dtype.itemsize)
        same = is_fake(p) and p.dtype == _F8 and p.flags.c_contiguous and p.flags.aligned
        pc = steps.new(0 if same else array_bytes(pshape, _F8))
        held.append(pc)
        steps.temp(9)  # np.isnan(p_sum)
        _any_of(steps, np.less, Val(pshape, _F8), 0)  # np.logical_or.reduce(p < 0)
    if size is not None:  # size = np.prod(shape, dtype=np.intp)
        steps.temp(asarray_bytes(size) + 8)
    pop = pop or 0
    idx = 0
    if replace:
        if p is not None:
            held.append(steps.new(array_bytes(pshape, _F8)))  # cdf = p.cumsum()
            steps.temp(8)  # cdf /= cdf[-1]
            held.append(steps.new(array_bytes(shape, _F8)))  # uniform samples
            idx = steps.new(nb)  # searchsorted
            if legacy:  # np.asarray(idx).astype(np.long, casting='unsafe')
                steps.new(nb)
                steps.free(idx)
        else:  # integers / randint(0, pop_size, size=shape)
            steps.temp(asarray_bytes(shape) + 8)  # np.prod(size) == 0
            if n:
                b = steps.new(16)  # np.asarray(low), np.asarray(high)
                idx = steps.new(nb)
                steps.free(b)
            else:
                idx = steps.new(nb)
    elif p is not None:
        _any_of(steps, np.greater, Val(pshape, _F8), 0)  # np.count_nonzero(p > 0)
        pcopy = steps.new(array_bytes(pshape, _F8))  # p = p.copy()
        held.remove(pc)
        steps.free(pc)
        held.append(pcopy)
        idx = steps.new(nb)  # found
        if n:  # the first round: x, cdf, searchsorted, np.unique(new, return_index=True), take
            held.append(steps.new(array_bytes((n,), _F8)))
            held.append(steps.new(array_bytes(pshape, _F8)))
            steps.temp(8)
            new = steps.new(array_bytes((n,), _I8))
            steps.temp(41 * n)  # unique's sort and masks, measured on numpy 2.4 (all distinct)
            held += [steps.new(8 * n), steps.new(8 * n), steps.new(8 * n)]  # _, indices, take
            steps.free(new)
    elif legacy:  # self.permutation(pop_size)[:size]: arange and shuffle's one-item buffer
        idx = steps.new(array_bytes((pop,), _LONG))
        steps.temp(array_bytes((_LONG.itemsize,), np.int8))
    else:
        if pop > 10000 and n > pop // (50 if shuffle else 20):
            full = steps.new(array_bytes((pop,), _I8))  # arange, then the tail's copy
            idx = steps.new(nb)
            steps.free(full)
        else:
            idx = steps.new(nb)
            mask = int(1.2 * n)
            for sh in (1, 2, 4, 8, 16, 32):
                mask |= mask >> sh
            hs = array_bytes((mask + 1,), np.uint64)  # np.full(set_size, -1, np.uint64)
            held.append(steps.new(hs))
            steps.temp(16)  # copyto of the Python int fill value: a 0-d array, cast
    if arr.ndim == 0:
        if size is None:
            steps.free(idx)  # idx.item(0): a Python int
    else:
        out_b = 0 if res.scalar else array_bytes(res.shape, res.dtype)
        if size is None:  # idx = idx.item(0): a Python int
            steps.free(idx)
            idx = 0
            if not legacy:  # a.take(np.asarray(idx, dtype=np.intp), axis)
                steps.new(8)
                steps.new(out_b)
                steps.temp(arr.itemsize if res.scalar else 0)  # take's 0-d result, as a scalar
                steps.free(8)
            elif out_b:
                steps.new(out_b)
        elif shape == () and (legacy or arr.ndim == 1):
            steps.new(out_b)  # np.empty((), a.dtype), filled with a[idx]
        elif legacy:  # a[idx]
            steps.new(out_b)
        else:  # a.take(np.asarray(idx, dtype=np.intp), axis=axis): NPY_ARRAY_CARRAY_RO
            c = arr.flags.c_contiguous and arr.flags.aligned  # (an unaligned a is copied)
            steps.new(0 if c else array_bytes(tuple(arr.shape), arr.dtype))
            steps.new(out_b)
            steps.free(0 if c else array_bytes(tuple(arr.shape), arr.dtype))
        steps.free(idx)
    steps.free(*held)
    steps.done()


# --- permutation, permuted, shuffle --------------------------------------------------------


def _permutation(owner: str) -> Callable:
    bind = _binder(owner, "permutation")
    legacy = owner == "RandomState"

    def kernel(*args: Any, **kwargs: Any) -> Any:
        k = bind(args, kwargs)
        x = k["x"]
        if isinstance(x, (int, np.integer)):  # np.arange(x) (an empty one gives the dtype)
            dt = np.dtype(np.result_type(x, np.long) if legacy else np.arange(x - x).dtype)
            if x > 0:
                transient(dt.itemsize)  # shuffle's one-item buffer
            if legacy:  # np.result_type(x, np.long) makes x a 0-d array first
                transient(8, before_outputs=True)
            return fresh((max(operator.index(x), 0),), dt)
        arr = x if is_fake(x) else np.asarray(x)
        if legacy:
            if arr.ndim < 1:
                raise IndexError("x must be an integer or at least 1-dimensional")
            axis = 0
        else:
            axis = normalize_axis(k["axis"], arr.ndim)
        if arr.ndim == 1:  # np.array(arr) of a fake (np.may_share_memory), shuffled in place
            if not is_fake(x):  # arr is the result; may_share_memory(arr, x) converts x again
                transient(2 * asarray_bytes(x), before_outputs=True)
            if arr.shape[0]:
                transient(arr.itemsize)  # shuffle's one-item buffer
            return fresh(tuple(arr.shape), arr.dtype)
        n = arr.shape[axis]
        if not is_fake(x):
            transient(asarray_bytes(x))
        transient(array_bytes((n,), _INTP))  # the shuffled index
        if n:
            transient(n * _INTP.itemsize + _INTP.itemsize, before_outputs=True)  # and shuffle's buffer
        idx = np.broadcast_to(np.intp(0), (n,))  # a stand-in index: no memory
        key = (slice(None),) * axis + (idx,)
        return getitem(arr, key)

    return kernel


def _shuffle(owner: str) -> Callable:
    bind = _binder(owner, "shuffle")

    def kernel(*args: Any, **kwargs: Any) -> None:
        k = bind(args, kwargs)
        x = k["x"]
        if not is_fake(x):
            raise UnsupportedOperationError(
                f"{'np.random' if owner == 'RandomState' else 'Generator'}.shuffle",
                "shuffling a Python sequence in place changes real data")
        len(x)  # TypeError for 0-d, as NumPy
        if not x.flags.writeable:
            raise ValueError("array is read-only")
        axis = normalize_axis(k["axis"], x.ndim) if "axis" in k else 0
        if x.size:  # one item (1-d) or np.empty_like(x[0, ...]) along axis as the swap buffer
            rest = [(d, abs(st)) for i, (d, st) in enumerate(zip(x.shape, x.strides)) if i != axis]
            nb = x.itemsize if x.ndim == 1 else array_bytes(tuple(d for d, _ in rest), x.dtype)
            span = sum((d - 1) * st for d, st in rest) + x.itemsize
            if x.ndim > 2 and x.shape[axis] > 1 and abs(x.strides[axis]) < span:
                nb *= 2  # x[j] = x[i] of N-d slices whose extents overlap: through a copy
                # (array_assign.c PyArray_AssignArray, arrays_overlap)
                if x.shape[axis] == 2:
                    unmodelled("the draw decides whether the two items swap (a swap "
                               "of overlapping slices goes through a copy)")
            transient(nb)
        return None

    return kernel


def _permuted(owner: str) -> Callable:
    bind = _binder(owner, "permuted")

    def kernel(*args: Any, **kwargs: Any) -> Any:
        k = bind(args, kwargs)
        x, axis, out = k["x"], k["axis"], k["out"]
        arr = x if is_fake(x) else np.asarray(x)
        if out is None:
            c, f = arr.flags.c_contiguous, arr.flags.f_contiguous
            res: Any = ArrayMeta(tuple(arr.shape), arr.dtype,
                           like_strides(tuple(arr.shape), tuple(arr.strides), arr.itemsize, c, f))
            oshape = tuple(arr.shape)
        else:
            if not is_fake(out):
                raise TypeError("out must be a numpy array")
            if not out.flags.writeable:
                raise ValueError("out is read-only")
            if tuple(out.shape) != tuple(arr.shape):
                raise ValueError("out must have the same shape as x")
            if not np.can_cast(arr.dtype, out.dtype, "safe"):
                raise TypeError(f"Cannot cast array data from {arr.dtype!r} to {out.dtype!r} "
                                "according to the rule 'safe'")
            res, oshape = out, tuple(out.shape)
        if not is_fake(x):  # x = np.asarray(x)
            transient(asarray_bytes(x))
        if axis is None:
            if not oshape:
                raise TypeError("len() of unsized object")  # shuffle(out)
            if len(oshape) > 1 and not (res.flags.c_contiguous or res.flags.f_contiguous):
                # ``yf = y.flatten()`` shuffled, then written back (an out=, or the K-order
                # result of a permuted input)
                transient(math.prod(oshape) * res.itemsize)
            if math.prod(oshape):
                transient(res.dtype.itemsize)  # shuffle's one-item buffer (of out's raveled view)
        else:
            normalize_axis(axis, len(oshape))
        return res

    return kernel


# --- multinomial, dirichlet, multivariate ---------------------------------------------------


def _multinomial(owner: str) -> Callable:
    bind = _binder(owner, "multinomial")
    legacy = owner == "RandomState"

    def kernel(*args: Any, **kwargs: Any) -> Any:
        k = bind(args, kwargs)
        n, pvals, size = k["n"], k["pvals"], k["size"]
        pshape = _shape_of(pvals)
        if legacy:
            if len(pshape) > 1:
                raise ValueError("object too deep for desired array")
            if len(pshape) == 0:
                raise TypeError("pvals must be a 1-d sequence")
            if is_fake(n) and n.ndim:  # n converted to a C long
                raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        d = pshape[-1] if pshape else 0
        if not legacy and d == 0:
            raise ValueError("pvals must have at least 1 dimension and the last dimension "
                             "of pvals must be greater than 0.")
        _numpy_checks(owner, "multinomial", k, ("n", "pvals"))
        nshape = _shape_of(n)
        if not legacy and (nshape != () or len(pshape) > 1):  # the vector path
            it = broadcast_shapes(nshape, pshape[:-1])
            if size is not None:
                tsize = norm_shape(size)
                it = broadcast_shapes(nshape, pshape[:-1], tsize)
                if it != _size_tuple(size):
                    raise ValueError(f"Output size {_size_tuple(size)} is not compatible with "
                                     f"broadcast dimensions of inputs {it}.")
            res = fresh(it + (d,), _I8 if not legacy else _LONG)
        else:
            shape = (d,) if size is None else norm_shape(_size_tuple(size) + (d,))
            res = fresh(shape, _LONG if legacy else _I8)
        _multinomial_memory(legacy, n, pvals, size, res)
        return res

    return kernel


def _converted_c(steps: Steps, p: Any, target: np.dtype) -> Any:
    """PyArray_FROM_OTF / FROMANY with NPY_ARRAY_ALIGNED | NPY_ARRAY_C_CONTIGUOUS: a copy
    unless p is already an aligned C-contiguous array of ``target``."""
    if is_fake(p) and not p.flags.c_contiguous:
        return _param(tuple(p.shape), target, True, steps.new(array_bytes(tuple(p.shape), target)))
    return _converted(steps, p, target)


def _multinomial_memory(legacy: bool, n: Any, pvals: Any, size: Any, res: Any) -> None:
    """multinomial's conversions (n as C int64, pvals as C float64; legacy: pvals only, n
    a C long), the vector path's n check, offsets (np.arange) and int8 ``temp`` of shape
    size, then np.zeros(shape) (_generator.pyx / mtrand.pyx)."""
    steps = Steps()
    keep = [] if legacy else [_converted_c(steps, n, _I8)]
    parr = _converted_c(steps, pvals, _F8)
    keep.append(parr)
    if not legacy and (keep[0].shape != () or parr.ndim > 1):
        _check(steps, "nonneg", keep[0])
        d = parr.shape[-1]
        keep.append(_param((), _INTP, True, steps.new(
            array_bytes((math.prod(parr.shape) // d,), _INTP))))  # offsets
        if size is not None:
            keep.append(_param((), np.dtype(np.int8), True, steps.new(
                array_bytes(norm_shape(size), np.int8))))
    steps.new(array_bytes(res.shape, res.dtype))
    _release(steps, keep)
    steps.done()


def _dirichlet(owner: str) -> Callable:
    """dirichlet: alpha as C float64, its check, np.zeros(size + (k,)). Generator's draws
    with every alpha below 0.1 keep a k-element cumulative sum alive (counted when alpha's
    values are known; a fake alpha is assumed not that small)."""
    bind = _binder(owner, "dirichlet")

    def kernel(*args: Any, **kwargs: Any) -> Any:
        k = bind(args, kwargs)
        alpha, size = k["alpha"], k["size"]
        kk = len(alpha)  # TypeError for a 0-d alpha, as NumPy's
        if len(_shape_of(alpha)) != 1:  # PyArray_FROMANY(alpha, NPY_DOUBLE, 1, 1)
            raise ValueError("object too deep for desired array")
        _numpy_checks(owner, "dirichlet", k, ("alpha",))
        shape = (kk,) if size is None else norm_shape(_size_tuple(size) + (kk,))
        res = fresh(shape, _F8)
        steps = Steps()
        a = _converted_c(steps, alpha, _F8)  # PyArray_FROMANY(alpha, NPY_DOUBLE, 1, 1, C | ALIGNED)
        _any_of(steps, np.less if owner == "Generator" else np.less_equal, Val(a.shape, _F8), 0)
        steps.new(array_bytes(shape, _F8))  # diric = np.zeros(shape)
        keep = [a]
        if owner == "Generator" and kk:  # alpha_arr.max() < 0.1: the 0-d maximum
            steps.temp(8)
            if not is_fake(alpha) and np.max(np.asarray(alpha, _F8)) < 0.1:  # values known
                keep.append(_param((), _F8, True, steps.new(array_bytes(a.shape, _F8))))
        _release(steps, keep)
        steps.done()
        return res

    return kernel


def _isclose_steps(steps: Steps, x: Val, y: Val) -> None:
    """numeric.py isclose(x, y, rtol, atol) of two float64 arrays (Python float tolerances)
    and np.all of it, as allclose runs it: ``less_equal(abs(x - y), atol + rtol * abs(y))
    & isfinite(y) | (x == y)``."""
    lhs = unary(steps, np.absolute, binary(steps, np.subtract, x, y))
    ay = unary(steps, np.absolute, y)
    rhs = binary(steps, np.add, 1e-8, binary(steps, np.multiply, 1e-8, ay, True), True)
    le = call(steps, np.less_equal, lhs, rhs)
    fin = call(steps, np.isfinite, y)
    res = binary(steps, np.bitwise_or, binary(steps, np.bitwise_and, le, fin, True),
                 binary(steps, np.equal, x, y), True)
    steps.temp(1)  # np.all's 0-d result
    used(steps, res)


def _mvn_memory(legacy: bool, mean: Any, cov: Any, final_shape: tuple, method: str,
                check_valid: str, res: Any) -> None:
    """The arrays multivariate_normal (_generator.pyx / mtrand.pyx, Python-level NumPy
    calls) makes and drops: np.array copies of mean and cov, the standard normal draw,
    cov as float64, the factorization's outputs (numpy.linalg), the PSD check, the factor
    and the product; the factorization's LAPACK work arrays are C-heap, not counted."""
    steps = Steps()
    n = mean.shape[0]
    rows = math.prod(final_shape[:-1])
    held = [steps.new(array_bytes(mean.shape, mean.dtype))]  # np.array(mean)
    cov_copy = steps.new(array_bytes(cov.shape, cov.dtype))  # np.array(cov)
    x = steps.new(array_bytes(final_shape, _F8))  # standard_normal(final_shape)
    held.append(steps.new(array_bytes((n, n), _F8)))  # cov.astype(np.double)
    steps.free(cov_copy)
    sq, vec = Val((n, n), _F8), Val((n,), _F8)
    if method == "svd":  # u, s, vh
        held += [steps.new(sq.nbytes), steps.new(vec.nbytes), steps.new(sq.nbytes)]
    elif method == "eigh":  # s, u
        held += [steps.new(vec.nbytes), steps.new(sq.nbytes)]
    else:  # l
        held.append(steps.new(sq.nbytes))
    if check_valid != "ignore" and method != "cholesky":
        if method == "svd":  # np.allclose(np.dot(vh.T * s, vh), cov, rtol=tol, atol=tol)
            d = call(steps, np.matmul, binary(steps, np.multiply, sq, vec), sq)
            _isclose_steps(steps, Val(d.shape, _F8), sq)  # the dot is an argument: alive
            used(steps, d)
        else:  # not np.any(s < -tol)
            _any_of(steps, np.less, vec, -1.0)
    if legacy:  # np.dot(x, np.sqrt(s)[:, None] * v); x += mean
        f = binary(steps, np.multiply, call(steps, np.sqrt, Val((n, 1), _F8)), sq)
        steps.new(array_bytes(final_shape, _F8))
        used(steps, f)
        steps.free(x)
        steps.temp(ufunc_bytes(np.add, Val((rows, n), _F8), Val((n,), mean.dtype),
                               out=Val((rows, n), _F8)))
    else:  # _factor = l | u * np.sqrt(abs(s)) | u * np.sqrt(s); mean + x @ _factor.T
        f = None
        if method != "cholesky":
            r = call(steps, np.sqrt, unary(steps, np.absolute, vec) if method == "eigh" else vec)
            f = binary(steps, np.multiply, sq, r)
            held.append(f.nbytes)
        prod = Val((rows, n), _F8, True)
        steps.new(prod.nbytes)
        binary(steps, np.add, Val((n,), mean.dtype), prod, True)
        steps.free(x)
    steps.free(*held)
    steps.done()


def _multivariate_normal(owner: str) -> Callable:
    bind = _binder(owner, "multivariate_normal")
    legacy = owner == "RandomState"

    def kernel(*args: Any, **kwargs: Any) -> Any:
        k = bind(args, kwargs)
        mean, cov, size = k["mean"], k["cov"], k["size"]
        method = k.get("method", "svd")
        if not legacy and method not in {"eigh", "svd", "cholesky"}:
            raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
        m = mean if is_fake(mean) else np.array(mean)
        c = cov if is_fake(cov) else np.array(cov)
        if not legacy and (m.dtype.kind == "c" or c.dtype.kind == "c"):
            raise TypeError("mean and cov must not be complex")
        if size is None:
            shape: list = []
        elif isinstance(size, (int, np.integer)):
            shape = [size]
        else:
            shape = size
        if len(m.shape) != 1:
            raise ValueError("mean must be 1 dimensional")
        if len(c.shape) != 2 or c.shape[0] != c.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if m.shape[0] != c.shape[0]:
            raise ValueError("mean and cov must have same length")
        final = list(shape[:])
        final.append(m.shape[0])
        final_shape = norm_shape(tuple(final))
        if not is_fake(cov):  # NumPy's own checks on the known covariance
            call = dict(k, mean=np.zeros(m.shape, _F8) if is_fake(mean) else mean, size=None)
            with paused():
                _checker(owner).multivariate_normal(**call)
        elif (legacy or method != "cholesky") and k["check_valid"] not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        if legacy:  # x += mean: NumPy's casting error, from a one-element stand-in
            x = np.zeros(1, _F8)
            x += np.zeros(1, m.dtype)
        res = fresh(final_shape, _F8 if legacy else np.result_type(m.dtype, _F8))
        _mvn_memory(legacy, m, c, final_shape, method if not legacy else "svd",
                    k["check_valid"], res)
        return res

    return kernel


def _multivariate_hypergeometric(owner: str) -> Callable:
    bind = _binder(owner, "multivariate_hypergeometric")

    def kernel(*args: Any, **kwargs: Any) -> Any:
        k = bind(args, kwargs)
        colors, nsample, size, method = k["colors"], k["nsample"], k["size"], k["method"]
        if method not in ["count", "marginals"]:
            raise ValueError('method must be "count" or "marginals".')
        if is_fake(nsample) and (nsample.ndim or nsample.dtype.kind not in "iub"):
            raise ValueError("nsample must be an integer")
        c = colors if is_fake(colors) else np.asarray(colors)
        if c.ndim != 1 or (c.size > 0 and not np.issubdtype(c.dtype, np.integer)):
            raise ValueError("colors must be a one-dimensional sequence of nonnegative "
                             f"integers not exceeding {np.iinfo(np.int64).max}.")
        if not is_fake(colors) and not is_fake(nsample):
            with paused():
                _checker(owner).multivariate_hypergeometric(colors, nsample, None, method)
        nc = c.shape[0]
        if size is None:
            shape: tuple = (nc,)
        elif np.isscalar(size):
            shape = (size, nc)
        else:
            shape = tuple(size) + (nc,)
        res = fresh(norm_shape(shape), _I8)
        # np.asarray(colors), the (colors < 0) | (colors > INT64_MAX) check, the C int64 copy
        steps = Steps()
        own = steps.new(asarray_bytes(colors)) if not is_fake(colors) else 0
        cv = Val(tuple(c.shape), c.dtype)
        steps.temp(16)
        lt = call(steps, np.less, cv, 0)
        steps.temp(16)
        bad = binary(steps, np.bitwise_or, lt, call(steps, np.greater, cv, 2 ** 63 - 1), True)
        steps.temp(1)
        used(steps, bad)
        same = c.dtype == _I8 and (not is_fake(colors) or colors.flags.c_contiguous)
        if not same:  # the asarray'd colors die when the name is rebound
            steps.new(array_bytes(tuple(c.shape), _I8))
            steps.free(own)
            own = array_bytes(tuple(c.shape), _I8)
        steps.new(array_bytes(res.shape, _I8))
        steps.free(own)
        steps.done()
        return res

    return kernel


class FakeBytes:
    """What ``bytes(length)`` returns in a mode: the length of the real ``bytes`` object,
    never its random content (reading it raises DataDependentError)."""

    __slots__ = ("_n",)

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return f"FakeBytes(length={self._n})"

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise DataDependentError("the content of random bytes is their value")

    __getitem__ = __iter__ = __bytes__ = __eq__ = __ne__ = __hash__ = __contains__ = _refuse
    decode = hex = _refuse


def _bytes(owner: str) -> Callable:
    """bytes(length) (_generator.pyx / mtrand.pyx): ``integers(0, 2**32, size=n, dtype=uint32)
    .astype('<u4').tobytes()[:length]`` with ``n = (length - 1) // 4 + 1`` in C division
    (truncating, so length 0 draws one word and -1 keeps three bytes)."""
    bind = _binder(owner, "bytes")

    def kernel(*args: Any, **kwargs: Any) -> Any:
        length = bind(args, kwargs)["length"]
        if is_fake(length):
            raise DataDependentError("bytes(length) with a fake length: the length is a value")
        if isinstance(length, (float, np.floating)):
            length = int(length)  # Cython's npy_intp conversion truncates a float
        else:
            try:
                length = operator.index(length)
            except TypeError:
                raise TypeError("an integer is required") from None
        n = int((length - 1) / 4) + 1  # C division truncates toward zero
        words = 4 * max(n, 0)
        if n <= 0:  # integers' early return of an empty array: np.prod(size) on the way
            transient(16, before_outputs=True)
        else:  # np.asarray(low), np.asarray(high) while the words are drawn, then astype's copy
            transient(max(16 + words, 2 * words), before_outputs=True)
        return FakeBytes(len(range(words)[:length]))

    return kernel


# --- registration ------------------------------------------------------------------------

_SPECIAL = {
    "rand": _dims, "randn": _dims,
    "integers": _integers, "randint": _integers, "random_integers": _integers,
    "choice": lambda o, n: _choice(o), "permutation": lambda o, n: _permutation(o),
    "shuffle": lambda o, n: _shuffle(o), "permuted": lambda o, n: _permuted(o),
    "multinomial": lambda o, n: _multinomial(o), "dirichlet": lambda o, n: _dirichlet(o),
    "multivariate_normal": lambda o, n: _multivariate_normal(o),
    "multivariate_hypergeometric": lambda o, n: _multivariate_hypergeometric(o),
    "bytes": lambda o, n: _bytes(o),
}
# Public methods that do not draw (state, seeding, spawning): they run for real.
NOT_DRAWS = frozenset({"seed", "get_state", "set_state", "spawn", "bit_generator"})
# module-level aliases of the global RandomState's random_sample (mtrand.pyx ranf/sample)
ALIASES = {"ranf": "random_sample", "sample": "random_sample"}


def kernel_for(owner: str, name: str) -> Callable:
    """The metadata rule of ``owner.name`` (owner "Generator" or "RandomState")."""
    if name in _SPECIAL:
        return _SPECIAL[name](owner, name)
    return _draw(owner, name)


def _drawing_methods(cls: type) -> list:
    return [n for n in dir(cls) if not n.startswith("_") and n not in NOT_DRAWS]


def _keep_size_real(fn: Any, owner: str, name: str, shift: int) -> Callable:
    """A real ndarray given as ``size`` reaches the kernel as is (its values are the shape)."""
    code = getattr(getattr(_cls(owner), name), "__code__", None)  # Cython's: the names, cheaply
    params = (list(code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount])
              if code is not None else [])
    if "size" in params:
        fn.keep_real = frozenset({"size", params.index("size") + shift})
    return fn


@once_loaded("numpy.random")
def register_all(random: Any) -> None:
    """Register every np.random rule, once numpy.random is loaded (NumPy imports it lazily;
    modes/installer.py's import hook calls this when it loads, ``kernels.load_all`` too)."""
    rs = random.mtrand._rand
    for name in _drawing_methods(random.RandomState):
        k = _keep_size_real(kernel_for("RandomState", name), "RandomState", name, 0)
        register(getattr(rs, name), tags=("random", "factory"), name=f"np.random.{name}")(k)
    for alias, name in ALIASES.items():
        k = _keep_size_real(kernel_for("RandomState", name), "RandomState", name, 0)
        register(getattr(random.mtrand, alias), tags=("random", "factory"),
                 name=f"np.random.{alias}")(k)
    for name in _drawing_methods(random.Generator):
        register(f"Generator.{name}", tags=("random", "factory"))(
            _keep_size_real(_method_of(kernel_for("Generator", name)), "Generator", name, 1))
    register(rs.get_state, tags=("random",), name="np.random.get_state")(_get_state)
    register(rs.set_state, tags=("random",), name="np.random.set_state")(_set_state)


def _method_of(rule: Callable) -> Callable:
    """``rule`` as a Generator method (the generator, first, is not an argument of the rule);
    ``faketensor ops`` names the rule's own line through ``method.rule``."""
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return rule(*args, **kwargs)
    setattr(method, "rule", rule)  # read by Kernel.source
    if getattr(rule, "cache_draws", False):  # the generator is keyed by its class (_cache)
        setattr(method, "cache_draws", True)
    return method



def _get_state(legacy: bool = True) -> Any:
    """RandomState.get_state (mtrand.pyx) of the global RandomState in a mode: its draws are
    fakes that never advance the real state, so the state's values are unknown; its form is
    the real one's (``('MT19937', key, pos, has_gauss, cached_gaussian)``): the key a fresh
    uint32 fake, the numbers fake Python numbers. The dict form (``legacy=False``, or
    another BitGenerator) holds arrays in dicts, which a kernel does not return."""
    with paused():
        rand: Any = np.random.mtrand._rand
        real = rand.get_state(legacy=legacy)
    if type(real) is not tuple:
        raise UnsupportedOperationError("np.random.get_state", "the dict form of the state")
    out: list = []
    for v in real:
        if isinstance(v, np.ndarray):
            out.append(fresh(v.shape, v.dtype))
        elif type(v) in (int, float):
            out.append(_pyscalar(type(v)))
        else:
            out.append(v)
    return tuple(out)


def _leaves_fake(obj: Any) -> bool:
    if is_fake(obj):
        return True
    if isinstance(obj, (tuple, list)):
        return any(_leaves_fake(v) for v in obj)
    if isinstance(obj, dict):
        return any(_leaves_fake(v) for v in obj.values())
    return False


def _set_state(state: Any) -> None:
    """RandomState.set_state in a mode: a state holding fakes (one ``get_state`` gave in a
    mode) sets nothing (the draws are fakes, whatever the state); a real state is set for
    real, NumPy checking it."""
    if _leaves_fake(state):
        if not isinstance(state, (tuple, dict)):
            raise TypeError("state must be a dict or a tuple.")
        return None
    with paused():
        return np.random.mtrand._rand.set_state(state)


keep_real(_set_state, 0, "state")
