"""``np.char.chararray`` of fakes: ``FakeCharArray``, a FakeArray that behaves as NumPy's
chararray class (numpy/_core/defchararray.py).

A FakeCharArray never reaches a kernel: every operation runs on a plain FakeArray view of it
(``_plain``) and its array results are made chararrays where NumPy makes them so:

- ndarray methods (C, methods.c) allocate their new arrays and views with the subtype: the
  fake is retyped in place, and ``chararray.__array_finalize__`` refuses a dtype that is not
  a string (``astype(int)``, ``view(int)``: ValueError);
- ufuncs, and the ndarray methods that run one, give their result to
  ``chararray.__array_wrap__``: a string result becomes ``arr.view(chararray)`` (a chararray
  viewing the new ndarray), any other stays an ndarray;
- NumPy functions: the np.strings / np.char wrappers that call a ufunc on their argument as
  it is (``strip``, ``center``, ``replace``, ...: ``_WRAPPED_FUNCS``) wrap as ufuncs do, the
  others (``upper``, ``find``, ``equal``, ...) convert it with ``np.asarray`` first and give
  an ndarray; ``np.reshape`` & co. call the method; ``np.array(subok=True)`` /
  ``np.asanyarray`` keep the class. Any other NumPy function refuses a FakeCharArray with
  UnsupportedOperationError (each decides the result type its own way).

The Python methods of chararray (comparisons that strip whitespace, ``+``, ``*``, ``%``, the
string methods, ``argsort``) are NumPy's own code run against the patched namespace
(installed by modes/python_entry.py), so each makes the calls NumPy makes.
"""
from __future__ import annotations

from typing import Any, Callable, cast

import numpy as np

from ._array import DISPATCHED_METHODS, FakeArray, rebuild, register_view_as
from ._dispatch import dispatch
from ._errors import DataDependentError, UnsupportedOperationError
from ._matrix import NEW, unpatched, plain_view, as_it_was, plain_of, ufunc_operands_of
from ._storage import SCALAR

_STRING_CHARS = "VSUbc"  # chararray.__array_finalize__: the dtype chars a chararray may hold


class FakeCharArray(FakeArray):
    """A fake ``np.char.chararray`` (numpy/_core/defchararray.py)."""

    __slots__ = ()

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """The ufunc on plain views; ``chararray.__array_wrap__`` on its new arrays (string
        results viewed as chararrays); ``out=`` arrays stay what they are."""
        pairs: dict = {}
        ins, keep = ufunc_operands_of(inputs, kwargs, pairs, FakeCharArray)
        func = ufunc if method == "__call__" else getattr(ufunc, method)
        return _wrap(_arrays(dispatch(func, (FakeArray,), ins, kwargs)), pairs, keep, _WRAP)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        how = _how(func)
        if how is None:
            name = getattr(func, "__name__", repr(func))
            raise UnsupportedOperationError(f"np.{name}", "np.char.chararray operands (only "
                                            "np.strings / np.char functions, np.array, "
                                            "np.asanyarray and the method-like functions "
                                            "keep the chararray's semantics)")
        if how == _METHOD:
            return getattr(args[0], func.__name__)(*args[1:], **kwargs)
        if how == _KEEP and func is _ARRAY and not kwargs.get("subok", False):
            how = _PLAIN
        pairs: dict = {}
        pargs = tuple(_plain(a, pairs) for a in args)
        pkw = {k: _plain(v, pairs) for k, v in kwargs.items()}
        keep = {id(a) for a in (*args, *kwargs.values()) if type(a) is FakeArray}
        res = dispatch(func, (FakeArray,), pargs, pkw)
        if how == _WRAP or (how == _PLAIN and _ufunc_backed(func)):
            res = _arrays(res)
        if how == _PLAIN:
            return res
        return _wrap(res, pairs, keep, _WRAP if how == _WRAP else _RETYPE)

    # --- defchararray.py ---------------------------------------------------------------
    def __getitem__(self, index: Any) -> Any:
        """chararray.__getitem__: ndarray indexing (views and copies are chararrays); an
        element comes back as a Python str/bytes with trailing whitespace stripped, so its
        value (and length) is the data's."""
        pairs: dict = {}
        out = _plain(self, pairs)[_plain(index, pairs)]
        if type(out) is not FakeArray:
            return out
        if out.storage._tracker is SCALAR or out.dtype.char not in _STRING_CHARS:
            raise DataDependentError("chararray.__getitem__: an element is returned as a "
                                     "Python string with its trailing whitespace stripped "
                                     "(``val.rstrip()``): its value is the data")
        if out.base is None:  # a fancy index: NumPy views the ndarray it made as the subtype
            return as_chararray_view(out)
        return _wrap(out, pairs, set(), _RETYPE)

    @property
    def T(self) -> Any:
        return self.transpose()

    @property
    def mT(self) -> Any:
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        return self.swapaxes(-1, -2)

    def __setitem__(self, index: Any, value: Any) -> None:
        pairs: dict = {}
        _plain(self, pairs)[_plain(index, pairs)] = _plain(value, pairs)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        """``ndarray.__array__``: a plain ndarray viewing the chararray (or its cast)."""
        plain = _plain(self, {})
        return plain if dtype is None else plain.astype(dtype, copy=bool(copy))

    def __repr__(self) -> str:
        return "Fake" + super().__repr__().replace("FakeArray", "CharArray", 1)

    def __reduce__(self) -> tuple:
        """Pickled as a FakeArray is (``FakeArray.__reduce__``), rebuilt as a chararray."""
        return (rebuild_chararray, FakeArray.__reduce__(self)[1])


setattr(FakeCharArray, "__hash__", None)  # unhashable, as ndarray is

# ndarray methods that run a ufunc (or its reduction) and give the result to __array_wrap__
_WRAPPED_METHODS = frozenset({"sum", "prod", "max", "min", "cumsum", "cumprod", "mean", "std",
                              "var", "any", "all", "clip", "round", "conj", "conjugate", "trace"})
# ndarray methods whose new array is allocated with the subtype whatever its dtype (so a
# non-string one fails in __array_finalize__)
_SUBTYPED = frozenset({"astype", "view", "getfield", "copy", "reshape", "ravel", "flatten",
                       "transpose", "swapaxes", "squeeze", "take", "repeat", "diagonal",
                       "compress", "__copy__", "__deepcopy__"})


def _method(name: str) -> Callable:
    def meth(self: FakeCharArray, *args: Any, **kwargs: Any) -> Any:
        pairs: dict = {}
        plain = _plain(self, pairs)
        args = tuple(_plain(a, pairs) for a in args)
        kwargs = {k: _plain(v, pairs) for k, v in kwargs.items()}
        keep = {id(a) for a in (*args, *kwargs.values()) if type(a) is FakeArray}
        if name == "astype":
            dt = np.dtype(kwargs.get("dtype", args[0] if args else None))
            if dt.char not in _STRING_CHARS:  # the cast, then __array_finalize__ refuses it
                raise ValueError("Can only create a chararray from string data.")
        res = getattr(plain, name)(*args, **kwargs)
        if name == "view":
            if _view_type(args, kwargs) is not None:
                return res  # ``c.view(np.ndarray)``: the plain view is the answer
            # PyArray_View makes the subtype view, then sets its dtype: no finalize check
            object.__setattr__(res, "__class__", FakeCharArray)
            return res
        return _wrap(res, pairs, keep, _WRAP if name in _WRAPPED_METHODS else _RETYPE,
                     subtyped=name in _SUBTYPED)
    meth.__name__ = name
    meth.__doc__ = f"ndarray.{name} on the chararray's plain view; new arrays retyped."
    setattr(meth, "_ft_ndarray", True)  # chararray's own method (argsort, partition) wins
    return meth


for _n in (*DISPATCHED_METHODS, "__copy__", "__deepcopy__"):
    if _n not in FakeCharArray.__dict__:
        setattr(FakeCharArray, _n, _method(_n))


def _view_type(args: tuple, kwargs: dict) -> Any:
    """The ndarray class ``view(dtype, type)`` asks for other than a chararray, or None."""
    for v in (*args, kwargs.get("dtype"), kwargs.get("type")):
        if isinstance(v, type) and issubclass(v, np.ndarray) and not issubclass(v, np.char.chararray):
            return v
    return None


def rebuild_chararray(*payload: Any) -> FakeCharArray:
    """A pickled FakeCharArray: ``_array.rebuild``'s checked fake, made a chararray."""
    return retype(rebuild(*payload))


# --- views and retyping --------------------------------------------------------------------

def _finalize(f: FakeArray) -> None:
    """chararray.__array_finalize__: only string (and void) data."""
    if f.dtype.char not in _STRING_CHARS:
        raise ValueError("Can only create a chararray from string data.")


def retype(f: FakeArray) -> FakeCharArray:
    """f, made a chararray in place (an array NumPy allocates with the chararray subtype)."""
    _finalize(f)
    object.__setattr__(f, "__class__", FakeCharArray)
    return cast("FakeCharArray", f)  # its class was just set


def as_chararray_view(f: FakeArray, dtype: Any = None) -> FakeCharArray:
    """``f.view(chararray)`` (or ``f.view(dtype, chararray)``): a new view, finalized."""
    v = plain_view(f) if dtype is None else _plain(f, {}).view(dtype)
    if v is f:
        v = plain_view(f)
    return retype(v)


register_view_as(np.char.chararray, as_chararray_view)


def _plain(x: Any, pairs: dict) -> Any:
    return plain_of(x, pairs, FakeCharArray)


_WRAP, _RETYPE, _PLAIN, _KEEP, _METHOD = "wrap", "retype", "plain", "keep", "method"


def _arrays(res: Any) -> Any:
    """``__array_wrap__`` gets 0-d arrays where NumPy would return scalars (chararray's
    returns them as they are, or viewed as chararrays): a scalar result as a 0-d array."""
    if type(res) is tuple:
        return tuple(_arrays(r) for r in res)
    if type(res) is FakeArray and res.storage._tracker is SCALAR and res.pytype is None:
        return dispatch(np.asarray, (FakeArray,), (res,), {})
    return res


def _wrap(res: Any, pairs: dict, keep: set, how: str, subtyped: bool = False) -> Any:
    """A result computed on plain views: a view standing for a chararray is that chararray;
    new plain fakes of a string dtype become chararrays, made one in place (``_RETYPE``: the
    subtype allocated them) or viewed as one (``_WRAP``: ``__array_wrap__``); others stay
    ndarrays, or fail ``__array_finalize__`` where the subtype allocated them (``subtyped``)."""
    if type(res) in (tuple, list):
        return type(res)(_wrap(r, pairs, keep, how, subtyped) for r in res)
    kept = as_it_was(res, pairs, keep)
    if kept is not NEW:
        return kept
    if res.dtype.char not in _STRING_CHARS:
        if subtyped:
            _finalize(res)
        return res
    return as_chararray_view(res) if how == _WRAP else retype(res)


def _strings_functions(names: tuple) -> set:
    return {getattr(ns, n) for ns in (np.strings, np.char) for n in names if hasattr(ns, n)}


# np.strings / np.char wrappers that call a ufunc on their argument as given (strings.py):
# a string result goes through chararray.__array_wrap__
_WRAPPED_FUNCS = _strings_functions((
    "add", "center", "ljust", "rjust", "zfill", "expandtabs", "lstrip", "rstrip", "strip",
    "multiply", "replace", "slice"))
_PARTITIONS = _strings_functions(("partition", "rpartition"))
_ARRAY = np.array
_KEPT_FUNCS = {np.array, np.asanyarray}
_METHOD_FUNCS = {np.reshape, np.transpose, np.swapaxes, np.squeeze, np.take, np.repeat,
                 np.diagonal, np.ravel}
_PLAIN_FUNCS = {np.asarray, np.ascontiguousarray, np.asfortranarray, np.copy, np.concatenate,
                np.shape, np.ndim, np.size, np.shares_memory, np.may_share_memory}


def _how(func: Any) -> str | None:
    """How a NumPy function treats a chararray argument (None: not reproduced)."""
    func = unpatched(func)
    if func in _WRAPPED_FUNCS:
        return _WRAP
    if func in _PARTITIONS:
        # np.strings.partition: three ufunc results (wrapped); np.char's stacks them
        return _WRAP if getattr(func, "__module__", "") == "numpy.strings" else _PLAIN
    if func in _KEPT_FUNCS:
        return _KEEP
    if func in _METHOD_FUNCS:
        return _METHOD
    if func in _PLAIN_FUNCS:
        return _PLAIN
    mod = getattr(func, "__module__", "") or ""
    if mod in ("numpy.strings", "numpy.char", "numpy._core.strings", "numpy._core.defchararray"):
        return _PLAIN
    return None


def _ufunc_backed(func: Any) -> bool:
    """An np.strings / np.char function that gives its argument to a ufunc as it is (so a
    0-d result goes through ``__array_wrap__`` as a 0-d array)."""
    return getattr(func, "__module__", "") in ("numpy.strings", "numpy.char") \
        and unpatched(func) not in _CONVERTING


# np.strings functions that convert their argument with np.asarray first
_CONVERTING: set = set()
_WRAPPED_FUNCS = {unpatched(f) for f in _WRAPPED_FUNCS}
_PARTITIONS = {unpatched(f) for f in _PARTITIONS}
_KEPT_FUNCS = {unpatched(f) for f in _KEPT_FUNCS}
_METHOD_FUNCS = {unpatched(f) for f in _METHOD_FUNCS}
_PLAIN_FUNCS = {unpatched(f) for f in _PLAIN_FUNCS}
_ARRAY = unpatched(_ARRAY)

del _n
