"""FakeArray: an ndarray's metadata with no data, and the protocol hooks it shares with WrappedArray."""
from __future__ import annotations

import operator
import sys
import threading
import warnings
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Callable, Iterator, NoReturn, cast

import numpy as np
from numpy._core import _exceptions as _np_exc

if TYPE_CHECKING:
    from types import FrameType

    from typing_extensions import Self

from . import _elide, _known, _sinks
from ._sizes import steer_shape
from ._callsite import passed_out_ellipsis
from ._dispatch import STACK, claim, dispatch, method_op
from ._errors import DataDependentError, UnsupportedOperationError
from ._paths import NOT_HOST, host_error, host_of, user_frame
from ._stack import paused
from .meta import ArrayMeta, weak_type
from ._accel import MAKE_FAKE, compiled
from ._storage import (PICKLE_VERSION, SCALAR, FakeCudaDevice, FakeStorage, content_key,
                       parse_device)
from .layout import (MAX_INTP, TOO_BIG, as_intp, as_shape, c_strides, check_shape,
                             contiguity, extent, f_strides, new_buffer_dtype)

_refs = _elide.getrefcount
_TEMP_SELF, _TEMP_OTHER = _elide.TEMP_SELF, _elide.TEMP_OTHER

_NO_DATA_HINT = (
    "Cannot copy out of fake array; no data! Use ft.materialize(x, fill=...) to make "
    "a real array with the same layout."
)


def _no_data() -> Exception:
    """The error for C code asking a fake for its data. Inside a FakeMode, when NumPy's own
    Python code hands it over (a function with no kernel, run on a fake the patched
    ``np.asarray`` made of a real argument), UnsupportedOperationError names the NumPy
    function the user called: the outermost frame of NumPy code above this one. Asked from
    a host library's code (``pd.Series(x)``, xarray's index of a coordinate), in a mode or
    not, DataDependentError names the library's call (faketensor/_paths.HOSTS): from
    pandas' code through any NumPy function, from xarray's only directly (a NumPy function
    with no kernel that xarray calls is the one that cannot run)."""
    caller = sys._getframe(2)  # past the hook (__array__, __array_interface__)
    host = host_of(caller, ("numpy", "faketensor"))  # past the patches too
    if host is not None and (host[1] == "real" or host_of(caller, ("faketensor",))):
        return host_error(host[0], host[2])
    if STACK.get():
        frame: FrameType | None = sys._getframe(2)  # past the hook (__array__, __array_interface__)
        entry = None
        while frame is not None:
            mod = frame.f_globals.get("__name__") or ""
            if mod[:6] != "numpy." and mod != "numpy":
                break
            entry = frame
            frame = frame.f_back
        if entry is not None:
            code = entry.f_code
            public = getattr(np, code.co_name, None)
            name = f"np.{code.co_name}" if public is not None else (
                f"{entry.f_globals.get('__name__')}.{getattr(code, 'co_qualname', code.co_name)}")
            if getattr(public, "_ft_patch", False):  # modes/patching.kernel_patch
                why = ("it has a kernel, but this reference to it was taken before faketensor "
                       f"patched numpy (import faketensor first, or call {name})")
            else:
                why = ("no kernel is registered for it, and its Python code hands an array "
                       "made of a real argument to C code that reads the values")
            return UnsupportedOperationError(name, why)
    return NotImplementedError(_NO_DATA_HINT)

# ndarray methods that only need metadata; they go through the dispatcher.
DISPATCHED_METHODS = (
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "byteswap",
    "choose", "clip", "compress", "conj", "conjugate", "copy", "cumprod", "cumsum",
    "diagonal", "dot", "fill", "flatten", "max", "mean", "min", "nonzero", "partition",
    "prod", "put", "ravel", "repeat", "reshape", "resize", "round", "searchsorted",
    "setflags", "sort", "squeeze", "std", "sum", "swapaxes", "take", "trace", "transpose",
    "var", "view", "getfield", "setfield", "to_device", "__getitem__", "__setitem__",
    "__copy__", "__deepcopy__", "__contains__",
    "get",  # cupy.ndarray.get (CUDA fakes; kernels/cupy/core.py)
)

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
    "lshift": np.left_shift, "rshift": np.right_shift, "and": np.bitwise_and,
    "or": np.bitwise_or, "xor": np.bitwise_xor, "matmul": np.matmul,
}
COMPARE = {"lt": np.less, "le": np.less_equal, "eq": np.equal, "ne": np.not_equal,
            "gt": np.greater, "ge": np.greater_equal}
UNARY = {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}


class ArrayHooks:
    """Operators, ndarray methods and the NumPy protocols, all routed to ``dispatch``.

    Subclasses define ``_hook_types(args, kwargs)``: the array types taking part in a call.
    """

    __slots__ = ()
    __array_priority__: float = 1000
    __hash__ = None  # type: ignore[assignment]  # unhashable, as ndarray

    if TYPE_CHECKING:
        # Set on the instance (FakeArray's slots) or read from the wrapped array; the
        # operators and methods below are made by _binary/_unary/_method at import time.
        shape: tuple[int, ...]
        pytype: type | None

        @staticmethod
        def _hook_types(args: Any, kwargs: Any) -> tuple[type, ...]: ...

        def __add__(self, other: Any) -> Self: ...
        def __radd__(self, other: Any) -> Self: ...
        def __iadd__(self, other: Any) -> Self: ...
        def __sub__(self, other: Any) -> Self: ...
        def __rsub__(self, other: Any) -> Self: ...
        def __isub__(self, other: Any) -> Self: ...
        def __mul__(self, other: Any) -> Self: ...
        def __rmul__(self, other: Any) -> Self: ...
        def __imul__(self, other: Any) -> Self: ...
        def __truediv__(self, other: Any) -> Self: ...
        def __rtruediv__(self, other: Any) -> Self: ...
        def __itruediv__(self, other: Any) -> Self: ...
        def __floordiv__(self, other: Any) -> Self: ...
        def __rfloordiv__(self, other: Any) -> Self: ...
        def __ifloordiv__(self, other: Any) -> Self: ...
        def __mod__(self, other: Any) -> Self: ...
        def __rmod__(self, other: Any) -> Self: ...
        def __imod__(self, other: Any) -> Self: ...
        def __pow__(self, other: Any) -> Self: ...
        def __rpow__(self, other: Any) -> Self: ...
        def __ipow__(self, other: Any) -> Self: ...
        def __lshift__(self, other: Any) -> Self: ...
        def __rlshift__(self, other: Any) -> Self: ...
        def __ilshift__(self, other: Any) -> Self: ...
        def __rshift__(self, other: Any) -> Self: ...
        def __rrshift__(self, other: Any) -> Self: ...
        def __irshift__(self, other: Any) -> Self: ...
        def __and__(self, other: Any) -> Self: ...
        def __rand__(self, other: Any) -> Self: ...
        def __iand__(self, other: Any) -> Self: ...
        def __or__(self, other: Any) -> Self: ...
        def __ror__(self, other: Any) -> Self: ...
        def __ior__(self, other: Any) -> Self: ...
        def __xor__(self, other: Any) -> Self: ...
        def __rxor__(self, other: Any) -> Self: ...
        def __ixor__(self, other: Any) -> Self: ...
        def __matmul__(self, other: Any) -> Self: ...
        def __rmatmul__(self, other: Any) -> Self: ...
        def __imatmul__(self, other: Any) -> Self: ...
        def __lt__(self, other: Any) -> Self: ...
        def __le__(self, other: Any) -> Self: ...
        def __gt__(self, other: Any) -> Self: ...
        def __ge__(self, other: Any) -> Self: ...
        def __eq__(self, other: object) -> Any: ...
        def __ne__(self, other: object) -> Any: ...
        def __neg__(self) -> Self: ...
        def __pos__(self) -> Self: ...
        def __abs__(self) -> Self: ...
        def __invert__(self) -> Self: ...
        def all(self, *args: Any, **kwargs: Any) -> Self: ...
        def any(self, *args: Any, **kwargs: Any) -> Self: ...
        def argmax(self, *args: Any, **kwargs: Any) -> Self: ...
        def argmin(self, *args: Any, **kwargs: Any) -> Self: ...
        def argpartition(self, *args: Any, **kwargs: Any) -> Self: ...
        def argsort(self, *args: Any, **kwargs: Any) -> Self: ...
        def astype(self, *args: Any, **kwargs: Any) -> Self: ...
        def byteswap(self, *args: Any, **kwargs: Any) -> Self: ...
        def choose(self, *args: Any, **kwargs: Any) -> Self: ...
        def clip(self, *args: Any, **kwargs: Any) -> Self: ...
        def compress(self, *args: Any, **kwargs: Any) -> Self: ...
        def conj(self, *args: Any, **kwargs: Any) -> Self: ...
        def conjugate(self, *args: Any, **kwargs: Any) -> Self: ...
        def copy(self, *args: Any, **kwargs: Any) -> Self: ...
        def cumprod(self, *args: Any, **kwargs: Any) -> Self: ...
        def cumsum(self, *args: Any, **kwargs: Any) -> Self: ...
        def diagonal(self, *args: Any, **kwargs: Any) -> Self: ...
        def dot(self, *args: Any, **kwargs: Any) -> Self: ...
        def flatten(self, *args: Any, **kwargs: Any) -> Self: ...
        def max(self, *args: Any, **kwargs: Any) -> Self: ...
        def mean(self, *args: Any, **kwargs: Any) -> Self: ...
        def min(self, *args: Any, **kwargs: Any) -> Self: ...
        def partition(self, *args: Any, **kwargs: Any) -> Self: ...
        def prod(self, *args: Any, **kwargs: Any) -> Self: ...
        def ravel(self, *args: Any, **kwargs: Any) -> Self: ...
        def repeat(self, *args: Any, **kwargs: Any) -> Self: ...
        def reshape(self, *args: Any, **kwargs: Any) -> Self: ...
        def round(self, *args: Any, **kwargs: Any) -> Self: ...
        def searchsorted(self, *args: Any, **kwargs: Any) -> Self: ...
        def sort(self, *args: Any, **kwargs: Any) -> Self: ...
        def squeeze(self, *args: Any, **kwargs: Any) -> Self: ...
        def std(self, *args: Any, **kwargs: Any) -> Self: ...
        def sum(self, *args: Any, **kwargs: Any) -> Self: ...
        def swapaxes(self, *args: Any, **kwargs: Any) -> Self: ...
        def take(self, *args: Any, **kwargs: Any) -> Self: ...
        def trace(self, *args: Any, **kwargs: Any) -> Self: ...
        def transpose(self, *args: Any, **kwargs: Any) -> Self: ...
        def var(self, *args: Any, **kwargs: Any) -> Self: ...
        def view(self, *args: Any, **kwargs: Any) -> Self: ...
        def getfield(self, *args: Any, **kwargs: Any) -> Self: ...
        def to_device(self, *args: Any, **kwargs: Any) -> Self: ...
        def __getitem__(self, *args: Any, **kwargs: Any) -> Self: ...
        def __copy__(self, *args: Any, **kwargs: Any) -> Self: ...
        def __deepcopy__(self, *args: Any, **kwargs: Any) -> Self: ...
        def fill(self, *args: Any, **kwargs: Any) -> None: ...
        def put(self, *args: Any, **kwargs: Any) -> None: ...
        def setflags(self, *args: Any, **kwargs: Any) -> None: ...
        def setfield(self, *args: Any, **kwargs: Any) -> None: ...
        def __setitem__(self, *args: Any, **kwargs: Any) -> None: ...
        def resize(self, *args: Any, **kwargs: Any) -> None: ...
        def nonzero(self) -> tuple[Self, ...]: ...
        def __contains__(self, value: Any) -> bool: ...
        def get(self, *args: Any, **kwargs: Any) -> Any: ...

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        func = ufunc if method == "__call__" else getattr(ufunc, method)
        if "out" not in kwargs and _may_return_scalar(method, inputs, kwargs):
            if passed_out_ellipsis(sys._getframe(1)):  # NumPy dropped it: _callsite.py
                kwargs["out"] = Ellipsis
        return dispatch(func, self._hook_types(inputs, kwargs), inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        entry = PYTHON_ENTRIES.get(func)
        if entry is not None:  # NumPy's Python function, held from before the patches
            out = entry(args, kwargs)
            if out is not NOT_RUN:
                return out
        return dispatch(func, tuple(types), args, kwargs)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        n = self.shape[0]
        if type(n) is not int:  # a data-dependent length (faketensor/_sizes.py)
            steer_shape(self.shape, "len()")
        return n

    def __iter__(self) -> Iterator[Any]:
        if not self.shape:  # raised by iter() itself, as ndarray does (np.iterable reads it)
            raise TypeError("iteration over a 0-d array")
        if type(self.shape[0]) is not int:  # a data-dependent length (faketensor/_sizes.py)
            steer_shape(self.shape, "iteration")
        caller = sys._getframe(1)
        if caller.f_globals.get("__name__") not in NOT_HOST:  # pandas iterating a fake (Categorical)
            host = host_of(caller)
            if host is not None and host[1] == "real":
                raise host_error(host[0], host[2])
        return (self[i] for i in range(self.shape[0]))

    def __divmod__(self, other: Any) -> Any:
        if type(self) is FakeArray and self.pytype is not None and weak_type(other) is not None:
            return py_number(divmod, self, other)
        return dispatch(np.divmod, self._hook_types((self, other), None), (self, other), {})

    def __rdivmod__(self, other: Any) -> Any:
        if type(self) is FakeArray and self.pytype is not None and weak_type(other) is not None:
            return py_number(divmod, other, self)
        return dispatch(np.divmod, self._hook_types((other, self), None), (other, self), {})


# Python numbers standing in for a fake one: each sign, so a result type that depends on the
# value (``x ** 0.5`` is complex for a negative float, ``3 ** n`` a float for a negative n)
# shows up as two types.
_STAND_INS: dict[Any, tuple[Any, ...]] = {bool: (True, False), int: (3, -3), float: (1.5, -1.5), complex: (1.5 + 1j,)}


def py_number(pyop: Callable[..., Any], *operands: Any) -> Any:
    """``pyop(*operands)`` where each operand is a Python number or a fake standing for one
    (``pytype``): Python's own arithmetic, with no NumPy call and no array, so the result is
    a fake Python number of the type Python gives (``draw * draw`` is a float, ``n // 2`` an
    int, ``draw < 0.5`` a bool). Known operands keep their values, so ``1 / 0`` raises
    ZeroDivisionError; a type that depends on a fake's value raises DataDependentError."""
    reals = [x._real() if type(x) is FakeArray else x for x in operands]
    if all(r is not None for r in reals):  # every value is known: Python's own answer
        return pyop(*reals)
    choices = [_STAND_INS[x.pytype] if type(x) is FakeArray else (x,) for x in operands]
    types: set = set()
    error: Exception | None = None
    for vals in _product(choices):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # ~True
                r = pyop(*vals)
        except (ZeroDivisionError, OverflowError, ValueError) as e:  # a stand-in's value
            error = e
            continue
        types.add(tuple(type(v) for v in r) if type(r) is tuple else type(r))
    if not types:
        assert error is not None
        raise error  # every stand-in fails: so does the Python number (``1.5 / 0``)
    if len(types) > 1:
        names = " or ".join(sorted(str(t) for t in types))
        raise DataDependentError(f"the type of a Python number from {pyop.__name__} on a fake "
                                 f"Python number depends on its value ({names})")
    t = types.pop()
    res = tuple(_py_fake(x) for x in t) if type(t) is tuple else _py_fake(t)
    if _placeholder_mode() is not None:  # replayed on its operands' placeholders when read
        _known.note_recipe(pyop, operands, {}, res)
    return res


def _product(choices: list) -> Iterator[tuple]:
    if not choices:
        yield ()
        return
    for v in choices[0]:
        for rest in _product(choices[1:]):
            yield (v,) + rest


def _py_fake(pytype: type) -> "FakeArray":
    """A fake standing for a Python number of ``pytype`` (no array memory: a scalar)."""
    dt = np.dtype(pytype)
    storage = FakeStorage(dt.itemsize, "cpu")
    storage._tracker = SCALAR
    f = make_fake((), dt, (), storage, 0, None, False)
    f.pytype = pytype
    return f


def _binary(ufunc: np.ufunc, pyop: Callable[..., Any]) -> tuple[Callable[..., Any], ...]:
    commutative = _elide.ELIDING.get(ufunc)
    eliding = commutative is not None
    true_divide = ufunc is np.true_divide

    def fwd(self: Any, other: Any) -> Any:
        if type(self) is FakeArray and self.pytype is not None and weak_type(other) is not None:
            return py_number(pyop, self, other)  # float.__mul__ etc.: no NumPy involved
        if eliding and type(self) is FakeArray:
            # temp_elide.c try_binary_elide: ``self op= other`` when self is a temporary
            # (or ``other op= self`` for commutative ops when other is)
            if _refs(self) == _TEMP_SELF and _elide.can_elide(self, other) and not (
                    true_divide and self.dtype.kind not in "fc"):
                return dispatch(ufunc, _fake_types, (self, other), {"out": (self,)})
            if (commutative and _refs(other) == _TEMP_OTHER and type(other) is FakeArray
                    and _elide.can_elide(other, self)):
                return dispatch(ufunc, _fake_types, (other, self), {"out": (other,)})
        elif ufunc is np.power and type(self) is FakeArray:
            temporary = _refs(self) == _TEMP_SELF  # before self is pushed as an argument
            return _power(self, other, False, temporary)
        if type(other) is FakeArray and type(self) is FakeArray:
            return dispatch(ufunc, _fake_types, (self, other), {})
        if getattr(other, "__array_ufunc__", 0) is None:
            return NotImplemented
        return dispatch(ufunc, self._hook_types((self, other), None), (self, other), {})

    def rev(self: Any, other: Any) -> Any:
        if type(self) is FakeArray and self.pytype is not None and weak_type(other) is not None:
            return py_number(pyop, other, self)
        if getattr(other, "__array_ufunc__", 0) is None:
            return NotImplemented
        if (commutative and type(self) is FakeArray and _refs(self) == _TEMP_SELF
                and _elide.can_elide(self, other)):
            return dispatch(ufunc, _fake_types, (self, other), {"out": (self,)})
        return dispatch(ufunc, self._hook_types((other, self), None), (other, self), {})

    def inplace(self: Any, other: Any) -> Any:
        if type(self) is FakeArray and self.storage._tracker is SCALAR:
            return fwd(self, other)  # NumPy scalars are immutable: ``s += 1`` rebinds s
        if ufunc is np.matmul and type(self) is FakeArray and self.storage.device != "cpu":
            return NotImplemented  # cupy.ndarray has no __imatmul__: ``x @= y`` rebinds x
        if ufunc is np.power and type(self) is FakeArray:
            return _power(self, other, True, False)
        kwargs = {"out": (self,)}
        return dispatch(ufunc, self._hook_types((self, other), None), (self, other), kwargs)

    return fwd, rev, inplace


def _power(self: Any, other: Any, inplace: bool, temporary: bool) -> Any:
    """``self ** other`` as number.c's array_power / array_inplace_power run it on cpu arrays:
    square, reciprocal or sqrt for the exponents 2, -1 and 0.5 (in place when ``**=`` or
    when self is an elidable temporary), np.power otherwise."""
    op = _elide.fast_power(self, other) if self.storage.device == "cpu" else None
    if op is None:
        kwargs = {"out": (self,)} if inplace else {}
        if type(other) is not FakeArray and getattr(other, "__array_ufunc__", 0) is None:
            return NotImplemented
        return dispatch(np.power, self._hook_types((self, other), None), (self, other), kwargs)
    if inplace or (temporary and _elide.owns_big_buffer(self)):
        return dispatch(op, _fake_types, (self,), {"out": (self,)})
    return dispatch(op, _fake_types, (self,), {})


def _unary(ufunc: np.ufunc, pyop: Callable[..., Any]) -> Callable[..., Any]:
    eliding = ufunc in _elide.ELIDING_UNARY

    def op(self: Any) -> Any:
        if type(self) is FakeArray and self.pytype is not None:
            return py_number(pyop, self)
        if (eliding and type(self) is FakeArray and _refs(self) == _TEMP_SELF
                and _elide.owns_big_buffer(self)
                and not (ufunc is np.absolute and self.dtype.kind == "c")):
            return dispatch(ufunc, _fake_types, (self,), {"out": (self,)})
        return dispatch(ufunc, self._hook_types((), None), (self,), {})
    return op


def _method(name: str) -> Callable[..., Any]:
    op = method_op(name)

    def meth(self: Any, *args: Any, **kwargs: Any) -> Any:
        if type(self) is FakeArray:
            return dispatch(op, _fake_types, (self,) + args, kwargs)
        return dispatch(op, self._hook_types(args, kwargs), (self,) + args, kwargs)

    meth.__name__ = name
    meth.__qualname__ = f"ArrayHooks.{name}"
    meth.__doc__ = f"ndarray.{name} through the faketensor dispatcher."
    return meth


def _pyop(name: str) -> Callable[..., Any]:
    return getattr(operator, name + "_" if name in ("and", "or") else name)


for _n, _u in BINARY.items():
    _f, _r, _i = _binary(_u, _pyop(_n))
    setattr(ArrayHooks, f"__{_n}__", _f)
    setattr(ArrayHooks, f"__r{_n}__", _r)
    setattr(ArrayHooks, f"__i{_n}__", _i)
def _compare(name: str, ufunc: Any) -> Any:
    """``==`` / ``!=`` without a loop for the two dtypes (``U`` with ``S``, datetime with
    float): NumPy's array_richcompare answers with an all-False / all-True bool array
    allocated by NpyIter over both operands (arrayobject.c); the rule is
    ``ndarray.__eq__`` / ``__ne__``."""
    fwd = _binary(ufunc, _pyop(name))[0]
    if ufunc is not np.equal and ufunc is not np.not_equal:
        return fwd
    op = method_op(f"__{name}__")

    def cmp(self: Any, other: Any) -> Any:
        try:
            return fwd(self, other)
        except _NO_LOOP:
            return dispatch(op, self._hook_types((self, other), None), (self, other), {})

    cmp.__name__ = f"__{name}__"
    return cmp


_NO_LOOP = _np_exc._UFuncNoLoopError
for _n, _u in COMPARE.items():
    setattr(ArrayHooks, f"__{_n}__", _compare(_n, _u))
for _n, _u in UNARY.items():
    setattr(ArrayHooks, f"__{_n}__", _unary(_u, _pyop(_n)))
for _n in DISPATCHED_METHODS:
    setattr(ArrayHooks, _n, _method(_n))
del _n, _u, _f, _r, _i
_VIEW_METHOD: Any = getattr(ArrayHooks, "view")
# NumPy ndarray subclasses a fake can be viewed as (``x.view(np.char.chararray)``): the class
# -> ``view_as(fake, dtype)`` making that view (faketensor/_chararray.py registers its own)
VIEW_AS: dict = {}


def register_view_as(cls: type, view_as: Callable) -> None:
    """Let ``x.view(cls)`` on a fake make ``view_as(fake, dtype)`` (a subclass's own view)."""
    VIEW_AS[cls] = view_as


def _view(self: Any, *args: Any, **kwargs: Any) -> Any:
    """ndarray.view; a view as a FakeArray subclass (numpy.ma's copy over fakes:
    modes/masked.py) is made by the subclass's ``_view_as``, which finalizes it as NumPy's
    C code does for a subtype."""
    t = kwargs.get("type", args[1] if len(args) > 1 else args[0] if args else None)
    view_as = getattr(t, "_view_as", None) if isinstance(t, type) else None
    if view_as is None and isinstance(t, type) and VIEW_AS:
        view_as = next((v for c, v in VIEW_AS.items() if issubclass(t, c)), None)
    if view_as is not None:
        return view_as(self, kwargs.get("dtype", args[0] if len(args) > 1 else None))
    return _VIEW_METHOD(self, *args, **kwargs)


setattr(ArrayHooks, "view", _view)
_CHOOSE_METHOD: Any = getattr(ArrayHooks, "choose")


def _choose(self: Any, *args: Any, **kwargs: Any) -> Any:
    """ndarray.choose: more than one positional argument are the choices themselves, and
    ``out`` / ``mode`` are keywords only (methods.c ``array_choose``); CuPy's method takes
    them by position."""
    if len(args) > 1 and self.storage.device == "cpu":
        args = (args,)
    return _CHOOSE_METHOD(self, *args, **kwargs)


setattr(ArrayHooks, "choose", _choose)


def _resize(self: Any, *args: Any, **kwargs: Any) -> None:
    """ndarray.resize: the kernel's record of the new geometry (a view of self, or a fresh
    array when the data is reallocated) becomes self's own (PyArray_Resize, shape.c)."""
    op = method_op("resize")
    types = _fake_types if type(self) is FakeArray else self._hook_types(args, kwargs)
    if _reallocates(self, args, kwargs):
        # realloc: the old buffer is given back as the new one is taken (tracemalloc sees
        # one block change size), so the old storage goes before the kernel's output comes
        object.__setattr__(self, "storage", FakeStorage(self.storage.nbytes, self.storage.device))
    out = dispatch(op, types, (self,) + args, kwargs)
    if isinstance(out, FakeArray) and out is not self:
        object.__setattr__(self, "shape", out.shape)
        object.__setattr__(self, "strides", out.strides)
        if out.storage is not self.storage:
            object.__setattr__(self, "storage", out.storage)
            object.__setattr__(self, "storage_offset", out.storage_offset)
        object.__setattr__(self, "_cf", None)
        object.__setattr__(self, "_al", None)
    return None


def _reallocates(self: Any, args: tuple, kwargs: dict) -> bool:
    """Whether NumPy's resize of this cpu fake reallocates (its kernel, a pure function of
    metadata, answers a fresh array); any refusal or error is left to the dispatched call."""
    if type(self) is not FakeArray or self.storage.device != "cpu":
        return False
    from .kernels.registry import REGISTRY
    try:
        res = REGISTRY[("ndarray.resize", "numpy")].fn(self, *args, **kwargs)
    except Exception:  # noqa: BLE001  (the dispatched call raises it again)
        return False
    return res is not None and getattr(res, "view_of", self) is None


setattr(ArrayHooks, "resize", _resize)


# NPY_ARRAY_* bits (numpy/_core/include/numpy/ndarraytypes.h) as ``flags.num`` reports them
_C, _F, _OWN, _ALIGNED, _WRITE, _WBIC = 0x1, 0x2, 0x4, 0x100, 0x400, 0x2000
_WARN = 1 << 31  # NPY_ARRAY_WARN_ON_WRITE (a C int: num is negative when it is set)
_CF_BITS = {(False, False): 0, (True, False): _C, (False, True): _F, (True, True): _C | _F}
_WARN_MSG = ("future versions will not create a writeable array from broadcast_array. "
             "Set the writable flag explicitly to avoid this warning.")
# arrayflags_getitem (numpy/_core/src/multiarray/flagsobject.c): exact, case-sensitive keys
_FLAG_KEYS: dict[bytes | None, str] = {
    b"C": "c_contiguous", b"F": "f_contiguous", b"W": "writeable", b"B": "behaved",
    b"O": "owndata", b"A": "aligned", b"X": "writebackifcopy", b"CA": "carray",
    b"FA": "farray", b"FNC": "fnc", b"FORC": "forc", b"CARRAY": "carray",
    b"FARRAY": "farray", b"FORTRAN": "f_contiguous", b"BEHAVED": "behaved",
    b"OWNDATA": "owndata", b"ALIGNED": "aligned", b"WRITEABLE": "writeable",
    b"CONTIGUOUS": "c_contiguous", b"C_CONTIGUOUS": "c_contiguous",
    b"F_CONTIGUOUS": "f_contiguous", b"WRITEBACKIFCOPY": "writebackifcopy",
}
# arrayflags_setitem: the settable flags
_SET_KEYS: dict[bytes | None, str] = {b"W": "writeable", b"WRITEABLE": "writeable", b"A": "aligned",
             b"ALIGNED": "aligned", b"X": "writebackifcopy", b"WRITEBACKIFCOPY": "writebackifcopy"}


def _flag_key(key: Any, limit: bool) -> bytes | None:
    """The key as flagsobject.c reads it: ASCII str or bytes; a longer str than 16 bytes is
    refused by getitem (``limit``) and cut to 16 by setitem."""
    if isinstance(key, str):
        b = key.encode("ascii")  # UnicodeEncodeError, as PyUnicode_AsASCIIString
        if len(b) > 16:
            return None if limit else b[:16]
        return b
    if isinstance(key, bytes):
        return key
    return None


class FakeFlags:
    """``ndarray.flags`` of a fake, as NumPy's flagsobj (numpy/_core/src/multiarray/
    flagsobject.c): a snapshot of the flag bits taken when ``a.flags`` is read, every
    attribute and key, ``num``, repr and equality (also with a real array's flags); the
    setters change the array (``a.flags.writeable = False``), not the snapshot."""

    __slots__ = ("_a", "_num")
    __hash__ = None  # type: ignore[assignment]  # flagsobj has richcompare and no hash

    def __init__(self, a: "FakeArray") -> None:
        self._a = a
        cf = a._cf
        if cf is None:
            cf = a._contiguity()
        n = _CF_BITS[cf]
        if a._base is None:
            n |= _OWN
        al = a._al
        if al is None:
            al = a._aligned()
        if al:
            n |= _ALIGNED
        if a._writeable:
            n |= _WRITE
            if a._warn_on_write is True:
                n |= _WARN
        self._num = n

    def _warn(self) -> None:
        """The FutureWarning NumPy gives when Python code reads the writeable bit of a
        ``broadcast_arrays`` result; faketensor's kernels read it as NumPy's C code does,
        without one."""
        if not self._num & _WARN:
            return
        frame, level = sys._getframe(2), 3
        if frame.f_code is _GETITEM_CODE:  # flags["W"]: the caller of __getitem__
            frame, level = frame.f_back or frame, 4
        if not (frame.f_globals.get("__name__") or "").startswith("faketensor"):
            warnings.warn(_WARN_MSG, FutureWarning, stacklevel=level)

    @property
    def num(self) -> int:
        n = self._num
        return n - (1 << 32) if n & _WARN else n

    @property
    def c_contiguous(self) -> bool:
        return bool(self._num & _C)

    contiguous = c_contiguous

    @property
    def f_contiguous(self) -> bool:
        return bool(self._num & _F)

    fortran = f_contiguous

    @property
    def owndata(self) -> bool:
        return bool(self._num & _OWN)

    @property
    def writeable(self) -> bool:
        self._warn()
        return bool(self._num & _WRITE)

    @writeable.setter
    def writeable(self, value: bool) -> None:
        self._scalar_check()
        self._a._set_writeable(bool(value))

    @writeable.deleter
    def writeable(self) -> None:
        raise AttributeError("Cannot delete flags writeable attribute")

    @property
    def _writeable_no_warn(self) -> bool:
        return bool(self._num & _WRITE)

    def _set_warn_on_write(self, value: bool) -> None:
        """flagsobject.c arrayflags_warn_on_write_set (the private ``_warn_on_write``)."""
        if not value:
            raise ValueError("cannot clear '_warn_on_write', set writeable True to clear "
                             "this private flag")
        if not self._a._writeable:
            raise ValueError("cannot set '_warn_on_write' flag when 'writable' is False")
        self._a._warn_on_write = True

    _warn_on_write = property(None, _set_warn_on_write)

    @property
    def aligned(self) -> bool:
        return bool(self._num & _ALIGNED)

    @aligned.setter
    def aligned(self, value: bool) -> None:
        self._scalar_check()
        self._a.setflags(None, bool(value), None)

    @aligned.deleter
    def aligned(self) -> None:
        raise AttributeError("Cannot delete flags aligned attribute")

    @property
    def writebackifcopy(self) -> bool:
        return bool(self._num & _WBIC)

    @writebackifcopy.setter
    def writebackifcopy(self, value: bool) -> None:
        self._scalar_check()
        self._a.setflags(None, None, bool(value))

    @writebackifcopy.deleter
    def writebackifcopy(self) -> None:
        raise AttributeError("Cannot delete flags writebackifcopy attribute")

    @property
    def fnc(self) -> bool:
        return (self._num & (_F | _C)) == _F

    @property
    def forc(self) -> bool:
        return bool(self._num & (_F | _C))

    @property
    def behaved(self) -> bool:
        self._warn()
        return (self._num & (_ALIGNED | _WRITE)) == (_ALIGNED | _WRITE)

    @property
    def carray(self) -> bool:
        self._warn()
        bits = _ALIGNED | _WRITE | _C
        return (self._num & bits) == bits

    @property
    def farray(self) -> bool:
        # flagsobject.c arrayflags_farray_get tests ``flags & (ALIGNED|WRITEABLE|F) != 0``:
        # any one of the three (not all), and not C-contiguous; reproduced as NumPy has it
        return bool(self._num & (_ALIGNED | _WRITE | _F)) and not self._num & _C

    def _scalar_check(self) -> None:
        if self._a.storage._tracker is SCALAR:
            raise ValueError("Cannot set flags on array scalars.")

    def __getitem__(self, key: Any) -> bool:
        name = _FLAG_KEYS.get(_flag_key(key, True))
        if name is None:
            raise KeyError("Unknown flag")
        return getattr(self, name)

    def __setitem__(self, key: Any, value: bool) -> None:
        name = _SET_KEYS.get(_flag_key(key, False))
        if name is None:
            raise KeyError("Unknown flag")
        setattr(self, name, value)

    def __eq__(self, other: object) -> Any:
        if isinstance(other, FakeFlags):
            return self.num == other.num
        if type(other) is _NP_FLAGS:
            return self.num == other.num
        return NotImplemented

    def __ne__(self, other: object) -> Any:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __repr__(self) -> str:
        n = self._num
        t = lambda bit: "True" if n & bit else "False"  # noqa: E731
        warn = "  (with WARN_ON_WRITE=True)" if n & _WARN else ""
        return (f"  C_CONTIGUOUS : {t(_C)}\n  F_CONTIGUOUS : {t(_F)}\n"
                f"  OWNDATA : {t(_OWN)}\n  WRITEABLE : {t(_WRITE)}{warn}\n"
                f"  ALIGNED : {t(_ALIGNED)}\n  WRITEBACKIFCOPY : {t(_WBIC)}\n")


_NP_FLAGS = type(np.empty(0).flags)
_NS_PROBE = np.empty(0)  # asked for the array API namespace (no data read)
_GETITEM_CODE = FakeFlags.__getitem__.__code__


class FakeSlots(ArrayHooks):
    """FakeArray's fields. ``make_fake`` fills an instance of this class and retypes it as a
    FakeArray, so building a fake skips FakeArray's checked ``__setattr__``."""

    __slots__ = ("shape", "dtype", "strides", "storage", "storage_offset", "_base",
                 "_writeable", "_warn_on_write", "_cf", "_al", "pytype", "_trace_ids",
                 "_trace_ref", "__weakref__")
    shape: tuple[int, ...]
    dtype: np.dtype
    strides: tuple[int, ...]
    storage: FakeStorage
    storage_offset: int
    _base: Any  # None, the FakeArray or FakeStorage it views, or a non-array owner
    _writeable: bool
    _warn_on_write: bool | None  # None: a read-only non-array owner (_may_write)
    _cf: tuple[bool, bool] | None  # cached (C, F) contiguity
    _al: bool | None  # cached alignment
    pytype: type | None  # a fake Python number's type
    # the first recording mode's TraceIds to see this fake, and its TraceRef there (a cache of
    # that table's row, checked against its weak reference; None until then: modes/trace.py)
    _trace_ids: Any
    _trace_ref: Any


# NumPy functions written in Python that a mode runs as its own copy of their code
# (modes/python_entry.py): an original reached through ``__array_function__`` (a name bound
# before faketensor patched the namespace, ``from numpy import fix``) runs that copy too.
# Each entry takes (args, kwargs) and returns NOT_RUN where it does not apply.
PYTHON_ENTRIES: dict = {}
NOT_RUN = object()



def _may_return_scalar(method: str, inputs: tuple, kwargs: dict) -> bool:
    """Whether a ufunc call may give a NumPy scalar, so that a dropped ``out=...`` matters:
    ``__call__`` and ``outer`` of 0-d operands, ``reduce`` to 0-d (cheap tests, no false
    negatives for ordinary calls)."""
    if method in ("__call__", "outer"):
        return all(getattr(x, "ndim", 0) == 0 for x in inputs)
    if method == "reduce":
        return bool(inputs) and (getattr(inputs[0], "ndim", 1) <= 1 or kwargs.get("axis", 0) is None
                                 or len(inputs) > 1 and inputs[1] is None)
    return False


def register_python_entry(original: Any, entry: Callable) -> None:
    """Run ``entry(args, kwargs)`` when ``original`` is reached through ``__array_function__``."""
    PYTHON_ENTRIES[original] = entry


class FakeArray(FakeSlots):
    """An array with shape, dtype, strides, storage and flags, but no data."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        setter = _META_SETTERS.get(name)
        if setter is None:
            object.__setattr__(self, name, value)
        else:  # ``a.shape = ...``, ``a.strides = ...``, ``a.dtype = ...``: validated
            setter(self, value)
            object.__setattr__(self, "_cf", None)
            object.__setattr__(self, "_al", None)

    def __delattr__(self, name: str) -> None:
        if name in _META_SETTERS:
            raise AttributeError(f"Cannot delete array {name}")
        object.__delattr__(self, name)

    # --- basic attributes (the rules of the one metadata record) -----------
    if TYPE_CHECKING:
        ndim: int
        size: int
        itemsize: int
        nbytes: int
    else:
        ndim = ArrayMeta.ndim
        size = ArrayMeta.size
        itemsize = ArrayMeta.itemsize
        nbytes = ArrayMeta.nbytes

    @property
    def flags(self) -> FakeFlags:
        return FakeFlags(self)

    @property
    def base(self) -> Any:
        return self._base

    @property
    def flat(self) -> "FakeFlatIter":
        return FakeFlatIter(self)

    @flat.setter
    def flat(self, value: Any) -> None:
        """``a.flat = v`` (arrayobject.c array_flat_set): v's values written over a, in C
        order, repeated as needed: ``a.flat[...] = v``."""
        FakeFlatIter(self)[...] = value

    @property
    def device(self) -> str | FakeCudaDevice:
        d = self.storage.device
        return "cpu" if d == "cpu" else FakeCudaDevice(int(d[5:]))

    @property
    def fake_device(self) -> str:
        return self.storage.device

    @property
    def T(self) -> "FakeArray":
        if len(self.shape) < 2 and self.storage.device != "cpu":
            return self  # cupy/_core/core.pyx ndarray.T: the array itself when ndim < 2
        return dispatch(_TRANSPOSE, _fake_types, (self,), {})

    @property
    def mT(self) -> "FakeArray":
        return dispatch(np.matrix_transpose, _fake_types, (self,), {})

    @property
    def real(self) -> "FakeArray":
        return dispatch(np.real, _fake_types, (self,), {})

    @property
    def imag(self) -> "FakeArray":
        return dispatch(np.imag, _fake_types, (self,), {})

    @property
    def __array_interface__(self) -> Any:
        if self.storage.device != "cpu":
            self.__array__()  # CuPy's TypeError for implicit conversion
        raise _no_data()

    def __array_namespace__(self, *, api_version: str | None = None) -> Any:
        """The array API namespace of the array this fake stands for: ``numpy`` for a CPU
        fake (``ndarray.__array_namespace__``, which checks ``api_version``), ``cupy`` for a
        CUDA fake. Its functions run on fakes inside a FakeMode."""
        if self.storage.device == "cpu":
            return _NS_PROBE.__array_namespace__(api_version=cast(Any, api_version))  # NumPy checks it
        try:
            import cupy
        except ImportError:
            raise UnsupportedOperationError(
                "ndarray.__array_namespace__", "the namespace of a CUDA fake is cupy, which "
                "is not installed (pip install faketensor[cupy])") from None
        return cupy

    # --- internals used by flags ------------------------------------------
    def _contiguity(self) -> tuple[bool, bool]:
        cf = self._cf
        if cf is None:
            cf = contiguity(self.shape, self.strides, self.dtype.itemsize)
            _SET_CF(self, cf)
        return cf

    def _aligned(self) -> bool:
        """IsAligned (numpy/_core/src/common/array_assign.c), cached until a metadata
        setter changes the layout."""
        al = self._al
        if al is None:
            al = self._compute_aligned()
            _SET_AL(self, al)
        return al

    def _compute_aligned(self) -> bool:
        align = self.dtype.alignment
        if align <= 1:
            return True
        check = self.storage_offset
        if self.storage.alignment % align:
            check |= self.storage.alignment
        for n, s in zip(self.shape, self.strides):
            if n > 1:
                check |= s
            elif n == 0:
                return True
        return check % align == 0

    def _set_writeable(self, value: bool) -> None:
        """methods.c array_setflags: making an array writeable asks ``_IsWriteable`` first,
        even when it is writeable already."""
        if value:
            if not self._may_write():
                raise ValueError("cannot set WRITEABLE flag to True of this array")
            self._warn_on_write = False
        self._writeable = value

    def _may_write(self) -> bool:
        """_IsWriteable (numpy/_core/src/multiarray/arrayobject.c): an array owning its data
        may be written; a view when the first writeable array up its base chain is reached
        before an owner, or its non-array owner (bytes, mmap, ...) exposes a writable
        buffer. ``_warn_on_write is None`` marks a fake whose non-array owner refuses
        writes (a read-only buffer)."""
        if self._warn_on_write is None:
            return False
        base = self._base
        while type(base) is FakeArray:
            if base._writeable:
                return True
            if base._warn_on_write is None:
                return False
            owner = base._base
            if owner is None:
                return False
            base = owner
        return True  # owns its data, or a non-array owner whose buffer is writable

    # --- values are not available -----------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if self.storage.device != "cpu":  # cupy/_core/core.pyx ndarray.__array__
            raise TypeError("Implicit conversion to a NumPy array is not allowed. "
                            "Please use `.get()` to construct a NumPy array explicitly.")
        if STACK.get() and _known.has_values(self):
            # inside a mode, C code handed a fake whose values are known gets them (a copy)
            r = _known.real(self)
            if r is not None:
                with paused():
                    return np.array(r, dtype=dtype, copy=True)
        raise _no_data()

    def _needs_data(self, what: str) -> NoReturn:
        raise DataDependentError(
            f"{what} needs the values of a fake array, which has no data "
            f"(shape={self.shape}, dtype={self.dtype})")

    def _value(self, what: str, get: Callable[[Any], Any], limit: bool = False,
               spec: str | None = None) -> Any:
        """A value read from the array. ``get`` runs first on an all-zero array of this shape
        and dtype, so a read NumPy refuses for the shape or dtype raises NumPy's error
        (``bool()`` of a 3x4 array, ``item(99)``). Then DataDependentError, or under
        ``FakeMode(data_dependent="placeholder")`` that zero array's answer (0, 0.0, 0j, False,
        '', b'', the epoch), recorded in ``mode.placeholders`` at the user's line. In a
        mode that skips sinks, a read for output only (``spec``: ``format(x, spec)``) gives
        what ``_sinks.for_output`` renders instead of raising."""
        if self.size == 0 and self.pytype is None:  # no elements: no values to read
            with paused():
                return get(self._zeros())
        r = self._real()
        if r is not None:  # its values are known (faketensor/_known.py)
            with paused():
                return get(r)
        k = _known.value(self)
        if k is not None:  # every element holds one known value (faketensor/_known.py)
            with paused():
                if self.pytype is not None:
                    return get(k)
                if self.storage._tracker is SCALAR and self.shape == ():
                    return get(k[()])
                return get(np.broadcast_to(k, self.shape))
        mode = _placeholder_mode()
        if mode is not None and self.storage.recipe is not None \
                and _known.replay(self, lambda x: _assume_placeholder(x, what)):
            r = self._real()  # made by a call replayed on its inputs' placeholders
            if r is not None:
                with paused():
                    return get(r)
        if limit and self.size > PLACEHOLDER_MAX_ITEMS:
            if mode is None:
                self._needs_data(what)
            raise DataDependentError(
                f"{what} of a fake array with {self.size} elements: placeholders are made "
                f"for at most {PLACEHOLDER_MAX_ITEMS} elements")
        with paused():
            value = get(self._zeros())
        if mode is None:
            out = _sinks.for_output(self, what, spec, 3)  # <- _value <- __float__ <- caller
            if out is _sinks.NOT_OUTPUT:
                self._needs_data(what)
            return out
        mode.placeholders.add(f"{what} of a fake array (shape={self.shape}, "
                              f"dtype={self.dtype}) gave the placeholder {value!r:.60}")
        _known.assume_zeros(self)  # from now on it holds what it was read to hold
        return value

    def _real(self) -> Any:
        """The known values as a real read-only stand-in (a NumPy scalar for a fake scalar,
        a Python number for a fake one), or None."""
        if not _known.has_values(self):
            return None
        r = _known.real(self)
        if r is None:
            return None
        if self.pytype is not None:
            return self.pytype(r.item())
        return r[()] if self.storage._tracker is SCALAR and self.shape == () else r

    def _zeros(self) -> Any:
        """A real all-zero stand-in with this shape and dtype (zero strides, one element's
        memory); a NumPy scalar for a fake scalar. Call it with the modes paused."""
        if self.pytype is not None:
            return self.pytype()  # a fake Python number: 0, 0.0, 0j, False
        zeros = np.broadcast_to(np.zeros((), self.dtype), self.shape)
        return zeros[()] if self.storage._tracker is SCALAR else zeros

    def item(self, *args: Any) -> Any:
        return self._value("ndarray.item()", lambda z: z.item(*args))

    def tolist(self) -> Any:
        return self._value("ndarray.tolist()", lambda z: z.tolist(), limit=True)

    def tobytes(self, order: str = "C") -> bytes:
        return self._value("ndarray.tobytes()", lambda z: z.tobytes(order), limit=True)

    # the buffer itself: a fake has none to hand out (ctypes pointers, memoryviews and DLPack
    # capsules give other code the data, and no placeholder address would be honest)
    @property
    def ctypes(self) -> NoReturn:
        self._needs_data("ndarray.ctypes (a pointer to the data buffer)")

    @property
    def data(self) -> NoReturn:
        self._needs_data("ndarray.data (a memoryview of the data buffer)")

    def __dlpack__(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._needs_data("ndarray.__dlpack__() (a DLPack capsule of the data buffer)")

    # writing values out is never faked (a plan must not leave files of made-up data
    # behind): outside a FakeMode they raise, inside one the mode records the write
    # without making it (modes/io.py)
    def tofile(self, *args: Any, **kwargs: Any) -> None:
        return dispatch(_TOFILE, _fake_types, (self,) + args, kwargs)

    def dump(self, *args: Any, **kwargs: Any) -> None:
        return dispatch(_DUMP, _fake_types, (self,) + args, kwargs)

    def dumps(self) -> bytes:
        return dispatch(_DUMPS, _fake_types, (self,), {})

    def __bool__(self) -> bool:
        return self._value("bool()", bool)

    def __float__(self) -> float:
        return self._value("float()", float)

    def __int__(self) -> int:
        return self._value("int()", int)

    def __complex__(self) -> complex:
        return self._value("complex()", complex)

    def __index__(self) -> int:
        return self._value("operator.index()", operator.index)


    def __round__(self, ndigits: int | None = None) -> Any:
        """``round(x)`` of a NumPy scalar reads its value; ndarrays have no ``__round__``."""
        if ndigits is None or self.pytype is not None:
            return self._value("round()", lambda z: round(z, ndigits))
        with paused():
            round(self._zeros(), ndigits)  # NumPy's errors (bool, complex, ndarray) first
        raise UnsupportedOperationError(  # a placeholder can stand for a value, not a scalar
            "round", "round(x, ndigits) of a fake NumPy scalar (use np.round(x, ndigits))")

    def __reduce__(self) -> tuple:
        """Pickled as its metadata for ``rebuild`` (version, shape, dtype, strides, storage,
        offset, base, writeable): fakes pickled together keep sharing their storage and
        base, at the same offsets. Unlike an ndarray, whose pickle holds a C or F copy of
        its data, a fake keeps its exact layout: it has no data to copy."""
        base = self._base
        if base is not None and not isinstance(base, (FakeArray, FakeStorage)):
            raise TypeError(f"cannot pickle a fake array whose base is a {type(base).__name__}")
        payload: tuple[Any, ...] = (PICKLE_VERSION, self.shape, self.dtype, self.strides, self.storage,
                   self.storage_offset, base, self._writeable, self._warn_on_write)
        if self.pytype is not None:  # a fake Python number: its type by name
            payload += (self.pytype.__name__,)
        return (rebuild, payload)

    def __dask_tokenize__(self) -> tuple:
        """dask's token (``dask.base.tokenize``, dask/tokenize.py ``normalize_object``): a
        token names content, and a fake's bytes are unknown, so it is which bytes the fake
        views: its storage's content key (kept by pickling), offset, shape, strides, dtype,
        device and scalar kind. Deterministic and O(ndim); no data is read. Two fakes made
        apart with equal metadata get different tokens (as real arrays holding different
        values do), so dask never merges their chunks."""
        st = self.storage
        kind = ("python-" + self.pytype.__name__ if self.pytype is not None
                else "scalar" if st._tracker is SCALAR else "array")
        return ("faketensor.FakeArray", content_key(st), st.device, self.storage_offset,
                self.shape, self.strides, repr(self.dtype), kind)

    def __format__(self, spec: str) -> str:
        if spec:
            return self._value("format()", lambda z: format(z, spec), spec=spec)
        return repr(self)

    def __repr__(self) -> str:
        dev = self.storage.device
        return (f"FakeArray(shape={self.shape}, dtype={self.dtype}, strides={self.strides}, "
                f"device={dev!r})")

    __str__ = __repr__

    def _repr_inline_(self, max_width: int) -> str:
        """xarray's one-line summary of a duck array (a Dataset's data lines, after the dims,
        dtype and size it prints itself): the layout, cut to ``max_width``; no data read."""
        dev = self.storage.device
        text = f"fake strides={self.strides}" + ("" if dev == "cpu" else f" {dev}")
        return text if len(text) <= max_width else text[:max(max_width - 3, 0)] + "..."[:max_width]


_fake_types = (FakeArray,)
PLACEHOLDER_MAX_ITEMS = 1 << 20  # tolist()/tobytes() placeholders: a bigger one is refused


# The FakeMode making placeholders whose kernel is running (its mode is then off the stack):
# a kernel's read of a fake index or size (``a[s:s + 33]``, ``np.arange(n)``) gets the
# placeholder too, and the fake is from then on known to hold it.
KERNEL_PLACEHOLDERS: ContextVar[Any] = ContextVar("faketensor_kernel_placeholders",
                                                  default=None)


def _assume_placeholder(x: FakeArray, what: str) -> None:
    """An input of a replayed call read as its placeholder (listed at the user's line)."""
    try:
        x._value(f"{what} (through a result computed from it)", _first)
    except DataDependentError:
        pass


def _first(z: Any) -> Any:
    """The first element of a placeholder stand-in (what the log shows)."""
    if isinstance(z, np.generic):
        return z.item()
    return z.flat[0].item() if isinstance(z, np.ndarray) and z.size else z


def _placeholder_mode() -> Any:
    """The innermost FakeMode of this context when it makes placeholders, else None; while
    a placeholder mode's kernel runs (``KERNEL_PLACEHOLDERS``), that mode."""
    for m in reversed(STACK.get()):
        if getattr(m, "_is_fake_mode", False):
            return m if m.data_dependent == "placeholder" else None
    return KERNEL_PLACEHOLDERS.get()


class PlaceholderLog(list):
    """``mode.placeholders``: one dict per source line where a placeholder stood in for a
    value, ``{"file", "line", "function", "message", "count"}``, in order of first use. The
    line is the innermost frame of user code (faketensor/_paths.py), not NumPy's or a
    library's."""

    def __init__(self) -> None:
        super().__init__()
        self._sites: dict = {}
        self._lock = threading.Lock()

    def add(self, message: str) -> None:
        """Count one use at the calling user line."""
        frame = user_frame(2)
        if frame is None:
            key = ("<unknown>", 0, "<unknown>")
        else:
            key = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        with self._lock:
            site = self._sites.get(key[:2])
            if site is None:
                site = self._sites[key[:2]] = {"file": key[0], "line": key[1],
                                               "function": key[2], "message": message,
                                               "count": 0}
                self.append(site)
            site["count"] += 1
_TRANSPOSE = method_op("transpose")
_TOFILE, _DUMP, _DUMPS = method_op("tofile"), method_op("dump"), method_op("dumps")
_FLAT_GET = method_op("flat.__getitem__")
_FLAT_SET = method_op("flat.__setitem__")


class FakeFlatIter:
    """``x.flat`` of a fake (numpy.flatiter, numpy/_core/src/multiarray/iterators.c): indexing
    gives fakes through the dispatcher (``ndarray.flat.__getitem__`` / ``__setitem__`` on the
    base array, kernels/numpy/indexing.py); ``base``, ``index`` and ``coords`` are those of a
    new iterator. Stepping through it reads the values: DataDependentError."""

    __slots__ = ("base",)

    def __init__(self, base: "FakeArray") -> None:
        self.base = base

    def __getitem__(self, index: Any) -> Any:
        return dispatch(_FLAT_GET, _fake_types, (self.base, index), {})

    def __setitem__(self, index: Any, value: Any) -> None:
        dispatch(_FLAT_SET, _fake_types, (self.base, index, value), {})

    def __len__(self) -> int:
        return self.base.size

    @property
    def index(self) -> int:
        return 0

    @property
    def coords(self) -> tuple:
        return (0,) * len(self.base.shape)

    def copy(self) -> "FakeArray":
        """iter_copy: PyArray_Flatten in C order."""
        return self.base.flatten()

    def __iter__(self) -> "FakeFlatIter":
        return self

    def __next__(self) -> Any:
        self.base._needs_data("iterating over ndarray.flat")

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        r = self.base._real() if self.base.pytype is None else None
        if isinstance(r, np.ndarray):  # known values: NumPy's flat copy of them
            with paused():
                return np.array(r.ravel(), dtype=dtype)
        self.base._needs_data("ndarray.flat as an array")

    def __repr__(self) -> str:
        return f"<FakeFlatIter over {self.base!r}>"


class _CudaOnlyMethod:
    """A cupy.ndarray method NumPy's ndarray lacks: AttributeError on CPU fakes, as there."""

    __slots__ = ("name", "meth")

    def __init__(self, name: str) -> None:
        self.name, self.meth = name, _method(name)

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        if obj.storage.device == "cpu":
            raise AttributeError(f"'numpy.ndarray' object has no attribute '{self.name}'")
        return self.meth.__get__(obj, owner)


# cupy.ndarray methods (CUDA fakes only; rules in kernels/cupy/select.py, kernels/cupy/sorting.py)
CUDA_ONLY_METHODS = ("ptp", "reduced_view", "set", "scatter_add", "scatter_max",
                     "scatter_min", "toDlpack", "mdspan")
for _n in CUDA_ONLY_METHODS:
    setattr(FakeArray, _n, _CudaOnlyMethod(_n))
del _n


def _fake_hook_types(args: Any, kwargs: Any) -> tuple[type, ...]:
    return _fake_types


def _fake_hash(self: FakeArray) -> int:
    """A fake NumPy scalar (or Python number) hashes by its value, as ``np.int64`` does (a
    dict lookup ``table[ix]``), so it needs the value; a fake array is unhashable."""
    if self.pytype is None and not (self.storage._tracker is SCALAR and self.shape == ()):
        raise TypeError(f"unhashable type: '{type(self).__name__}'")
    return self._value("hash()", hash)


setattr(FakeArray, "__hash__", _fake_hash)  # ArrayHooks' None is ndarray's unhashability
FakeArray._hook_types = staticmethod(_fake_hook_types)  # type: ignore[method-assign]  # set after the class, for every fake


def make_fake_python(shape: tuple, dtype: np.dtype, strides: tuple, storage: FakeStorage,
                     offset: int = 0, base: Any = None, writeable: bool = True) -> FakeArray:
    """Build a FakeArray from metadata that is already known to be valid (``make_fake``
    without the accelerator, and its reference)."""
    a: Any = object.__new__(FakeSlots)  # retyped as a FakeArray below
    a.shape = shape
    a.dtype = dtype
    a.strides = strides
    a.storage = storage
    a.storage_offset = offset
    a._base = base
    a._writeable = writeable
    a._warn_on_write = False
    a._cf = None
    a._al = None
    a.pytype = None
    a._trace_ids = None
    a._trace_ref = None
    a.__class__ = FakeArray
    return a


# the same, allocating the FakeArray and filling its slots in C when the accelerator is built
make_fake = compiled(MAKE_FAKE, make_fake_python, FakeSlots, FakeArray, make_fake_python)


def empty(shape: Any, dtype: Any = float, *, order: str = "C", device: Any = "cpu") -> FakeArray:
    """A fresh fake array, as ``np.empty`` would lay it out."""
    if order not in ("C", "F"):
        raise ValueError("order must be one of 'C', 'F'")
    shape, dt = new_buffer_dtype(as_shape(shape), np.dtype(dtype))
    nbytes = check_shape(shape, dt.itemsize)
    strides = c_strides(shape, dt.itemsize) if order == "C" else f_strides(shape, dt.itemsize)
    storage = FakeStorage(nbytes, parse_device(device))
    claim(storage)
    return make_fake(shape, dt, strides, storage)


def empty_strided(shape: Any, strides: Any, dtype: Any = float, *, device: Any = "cpu",
                  offset: int = 0) -> FakeArray:
    """A fake array with explicit strides over a fresh storage just big enough to hold it."""
    shape = as_shape(shape)
    strides = tuple(as_intp(s) for s in strides)
    if len(strides) != len(shape):
        raise ValueError("strides, if given, must be the same length as shape")
    dt = np.dtype(dtype)
    if dt.subdtype is not None:  # the subarray's axes follow, C-strided (ctors.c)
        shape, base = new_buffer_dtype(shape, dt)
        strides += c_strides(shape[len(strides):], base.itemsize)
        dt = base
    check_shape(shape, dt.itemsize)
    lo, hi = 0, dt.itemsize
    if 0 in shape:
        hi = 0
    else:
        for n, s in zip(shape, strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
    nbytes = hi - lo
    if nbytes > MAX_INTP:
        raise ValueError(TOO_BIG)
    storage = FakeStorage(nbytes + offset, parse_device(device))
    claim(storage)
    return make_fake(shape, dt, strides, storage, offset - lo)


def rebuild(version: int, shape: tuple, dtype: np.dtype, strides: tuple, storage: FakeStorage,
            offset: int, base: Any, writeable: bool, warn_on_write: Any,
            pytype: str | None = None) -> FakeArray:
    """A fake from its pickled payload (``FakeArray.__reduce__``), every field checked: the
    payload is data, and the array must lie inside its storage. A new buffer is charged to
    the innermost FakeMode when loaded inside one (as unpickling an ndarray allocates), else
    it is pre-existing memory."""
    if version != PICKLE_VERSION:
        raise ValueError(f"fake array pickled with payload version {version!r}; this "
                         f"faketensor reads version {PICKLE_VERSION}")
    if (type(shape) is not tuple or type(strides) is not tuple or len(shape) != len(strides)
            or not all(type(n) is int and n >= 0 for n in shape)
            or not all(type(s) is int for s in strides) or type(offset) is not int
            or not isinstance(dtype, np.dtype) or type(storage) is not FakeStorage
            or not (base is None or isinstance(base, (FakeArray, FakeStorage)))
            or type(writeable) is not bool or warn_on_write not in (False, True, None)
            or not (pytype is None or (pytype in _PYTYPES and shape == ()
                                       and storage._tracker is SCALAR))):
        raise ValueError("malformed pickled fake array")
    check_shape(shape, dtype.itemsize)
    if 0 not in shape:
        lo, hi = extent(shape, strides, dtype.itemsize)
        if offset + lo < 0 or offset + hi > storage.nbytes:
            raise ValueError("pickled fake array lies outside its storage")
    if storage._tracker is None:
        claim(storage)
    a = make_fake(shape, dtype, strides, storage, offset, base, writeable)
    a._warn_on_write = warn_on_write
    if pytype is not None:
        a.pytype = _PYTYPES[pytype]
    return a


_PYTYPES = {"bool": bool, "int": int, "float": float, "complex": complex}


def is_fake(obj: object) -> bool:
    """True for a FakeArray, and for the fake np.matrix and np.char.chararray that
    ``np.asmatrix``, ``np.bmat`` and ``np.char.array`` give in a mode (its subclasses)."""
    return type(obj) is FakeArray or isinstance(obj, FakeArray)


from ._meta_setters import META_SETTERS as _META_SETTERS  # noqa: E402
_SET_CF = FakeSlots.__dict__["_cf"].__set__  # the contiguity cache, written without the checked setter
_SET_AL = FakeSlots.__dict__["_al"].__set__  # the alignment cache
