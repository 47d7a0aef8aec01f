"""FakeArray: an ndarray's metadata with no data, and the protocol hooks it shares with WrappedArray."""
from __future__ import annotations

import operator
import sys
import threading
import warnings
from typing import Any, Iterator

import numpy as np

from . import _elide
from ._dispatch import _STACK, claim, dispatch, method_op
from ._errors import DataDependentError, UnsupportedOperationError
from ._paths import user_frame
from ._stack import paused
from .meta import ArrayMeta, weak_type
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


def _no_data() -> NotImplementedError:
    """The error for C code asking a fake for its data. Inside a FakeMode, when NumPy's own
    Python code hands it over (a function with no kernel, run on a fake the patched
    ``np.asarray`` made of a real argument), UnsupportedOperationError names the NumPy
    function the user called: the outermost frame of NumPy code above this one."""
    if _STACK.get():
        frame = sys._getframe(2)  # past the hook (__array__, __array_interface__)
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
                f"{entry.f_globals.get('__name__')}.{code.co_qualname}")
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

_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
    "lshift": np.left_shift, "rshift": np.right_shift, "and": np.bitwise_and,
    "or": np.bitwise_or, "xor": np.bitwise_xor, "matmul": np.matmul,
}
_COMPARE = {"lt": np.less, "le": np.less_equal, "eq": np.equal, "ne": np.not_equal,
            "gt": np.greater, "ge": np.greater_equal}
_UNARY = {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}


class ArrayHooks:
    """Operators, ndarray methods and the NumPy protocols, all routed to ``dispatch``.

    Subclasses define ``_hook_types(args, kwargs)``: the array types taking part in a call.
    """

    __slots__ = ()
    __array_priority__ = 1000
    __hash__ = None  # type: ignore[assignment]

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        func = ufunc if method == "__call__" else getattr(ufunc, method)
        return dispatch(func, self._hook_types(inputs, kwargs), inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return dispatch(func, tuple(types), args, kwargs)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Iterator[Any]:
        if not self.shape:  # raised by iter() itself, as ndarray does (np.iterable reads it)
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __divmod__(self, other):
        if type(self) is FakeArray and self.pytype is not None and weak_type(other) is not None:
            return py_number(divmod, self, other)
        return dispatch(np.divmod, self._hook_types((self, other), None), (self, other), {})

    def __rdivmod__(self, other):
        if type(self) is FakeArray and self.pytype is not None and weak_type(other) is not None:
            return py_number(divmod, other, self)
        return dispatch(np.divmod, self._hook_types((other, self), None), (other, self), {})


# Python numbers standing in for a fake one: each sign, so a result type that depends on the
# value (``x ** 0.5`` is complex for a negative float, ``3 ** n`` a float for a negative n)
# shows up as two types.
_STAND_INS = {bool: (True, False), int: (3, -3), float: (1.5, -1.5), complex: (1.5 + 1j,)}


def py_number(pyop, *operands):
    """``pyop(*operands)`` where each operand is a Python number or a fake standing for one
    (``pytype``): Python's own arithmetic, with no NumPy call and no array, so the result is
    a fake Python number of the type Python gives (``draw * draw`` is a float, ``n // 2`` an
    int, ``draw < 0.5`` a bool). Known operands keep their values, so ``1 / 0`` raises
    ZeroDivisionError; a type that depends on a fake's value raises DataDependentError."""
    choices = [_STAND_INS[x.pytype] if type(x) is FakeArray else (x,) for x in operands]
    types: set = set()
    error = None
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
        raise error  # every stand-in fails: so does the Python number (``1.5 / 0``)
    if len(types) > 1:
        names = " or ".join(sorted(str(t) for t in types))
        raise DataDependentError(f"the type of a Python number from {pyop.__name__} on a fake "
                                 f"Python number depends on its value ({names})")
    t = types.pop()
    return tuple(_py_fake(x) for x in t) if type(t) is tuple else _py_fake(t)


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


def _binary(ufunc, pyop):
    commutative = _elide.ELIDING.get(ufunc)
    eliding = commutative is not None
    true_divide = ufunc is np.true_divide

    def fwd(self, other):
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

    def rev(self, other):
        if type(self) is FakeArray and self.pytype is not None and weak_type(other) is not None:
            return py_number(pyop, other, self)
        if getattr(other, "__array_ufunc__", 0) is None:
            return NotImplemented
        if (commutative and type(self) is FakeArray and _refs(self) == _TEMP_SELF
                and _elide.can_elide(self, other)):
            return dispatch(ufunc, _fake_types, (self, other), {"out": (self,)})
        return dispatch(ufunc, self._hook_types((other, self), None), (other, self), {})

    def inplace(self, other):
        if type(self) is FakeArray and self.storage._tracker is SCALAR:
            return fwd(self, other)  # NumPy scalars are immutable: ``s += 1`` rebinds s
        if ufunc is np.matmul and type(self) is FakeArray and self.storage.device != "cpu":
            return NotImplemented  # cupy.ndarray has no __imatmul__: ``x @= y`` rebinds x
        if ufunc is np.power and type(self) is FakeArray:
            return _power(self, other, True, False)
        kwargs = {"out": (self,)}
        return dispatch(ufunc, self._hook_types((self, other), None), (self, other), kwargs)

    return fwd, rev, inplace


def _power(self, other, inplace: bool, temporary: bool):
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


def _unary(ufunc, pyop):
    eliding = ufunc in _elide.ELIDING_UNARY

    def op(self):
        if type(self) is FakeArray and self.pytype is not None:
            return py_number(pyop, self)
        if (eliding and type(self) is FakeArray and _refs(self) == _TEMP_SELF
                and _elide.owns_big_buffer(self)
                and not (ufunc is np.absolute and self.dtype.kind == "c")):
            return dispatch(ufunc, _fake_types, (self,), {"out": (self,)})
        return dispatch(ufunc, self._hook_types((), None), (self,), {})
    return op


def _method(name):
    op = method_op(name)

    def meth(self, *args, **kwargs):
        if type(self) is FakeArray:
            return dispatch(op, _fake_types, (self,) + args, kwargs)
        return dispatch(op, self._hook_types(args, kwargs), (self,) + args, kwargs)

    meth.__name__ = name
    meth.__qualname__ = f"ArrayHooks.{name}"
    meth.__doc__ = f"ndarray.{name} through the faketensor dispatcher."
    return meth


def _pyop(name: str):
    return getattr(operator, name + "_" if name in ("and", "or") else name)


for _n, _u in _BINARY.items():
    _f, _r, _i = _binary(_u, _pyop(_n))
    setattr(ArrayHooks, f"__{_n}__", _f)
    setattr(ArrayHooks, f"__r{_n}__", _r)
    setattr(ArrayHooks, f"__i{_n}__", _i)
for _n, _u in _COMPARE.items():
    setattr(ArrayHooks, f"__{_n}__", _binary(_u, _pyop(_n))[0])
for _n, _u in _UNARY.items():
    setattr(ArrayHooks, f"__{_n}__", _unary(_u, _pyop(_n)))
for _n in DISPATCHED_METHODS:
    setattr(ArrayHooks, _n, _method(_n))
del _n, _u, _f, _r, _i


# NPY_ARRAY_* bits (numpy/_core/include/numpy/ndarraytypes.h) as ``flags.num`` reports them
_C, _F, _OWN, _ALIGNED, _WRITE, _WBIC = 0x1, 0x2, 0x4, 0x100, 0x400, 0x2000
_WARN = 1 << 31  # NPY_ARRAY_WARN_ON_WRITE (a C int: num is negative when it is set)
_CF_BITS = {(False, False): 0, (True, False): _C, (False, True): _F, (True, True): _C | _F}
_WARN_MSG = ("future versions will not create a writeable array from broadcast_array. "
             "Set the writable flag explicitly to avoid this warning.")
# arrayflags_getitem (numpy/_core/src/multiarray/flagsobject.c): exact, case-sensitive keys
_FLAG_KEYS = {
    b"C": "c_contiguous", b"F": "f_contiguous", b"W": "writeable", b"B": "behaved",
    b"O": "owndata", b"A": "aligned", b"X": "writebackifcopy", b"CA": "carray",
    b"FA": "farray", b"FNC": "fnc", b"FORC": "forc", b"CARRAY": "carray",
    b"FARRAY": "farray", b"FORTRAN": "f_contiguous", b"BEHAVED": "behaved",
    b"OWNDATA": "owndata", b"ALIGNED": "aligned", b"WRITEABLE": "writeable",
    b"CONTIGUOUS": "c_contiguous", b"C_CONTIGUOUS": "c_contiguous",
    b"F_CONTIGUOUS": "f_contiguous", b"WRITEBACKIFCOPY": "writebackifcopy",
}
# arrayflags_setitem: the settable flags
_SET_KEYS = {b"W": "writeable", b"WRITEABLE": "writeable", b"A": "aligned",
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
            frame, level = frame.f_back, 4
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
        name = _FLAG_KEYS.get(_flag_key(key, True))  # type: ignore[arg-type]
        if name is None:
            raise KeyError("Unknown flag")
        return getattr(self, name)

    def __setitem__(self, key: Any, value: bool) -> None:
        name = _SET_KEYS.get(_flag_key(key, False))  # type: ignore[arg-type]
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


class _FakeSlots(ArrayHooks):
    """FakeArray's fields. ``make_fake`` fills an instance of this class and retypes it as a
    FakeArray, so building a fake skips FakeArray's checked ``__setattr__``."""

    __slots__ = ("shape", "dtype", "strides", "storage", "storage_offset", "_base",
                 "_writeable", "_warn_on_write", "_cf", "_al", "pytype", "__weakref__")


class FakeArray(_FakeSlots):
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
    ndim = ArrayMeta.ndim
    size = ArrayMeta.size
    itemsize = ArrayMeta.itemsize
    nbytes = ArrayMeta.nbytes

    @property
    def flags(self) -> FakeFlags:
        return FakeFlags(self)

    @property
    def base(self):
        return self._base

    @property
    def flat(self) -> "FakeFlatIter":
        return FakeFlatIter(self)

    @property
    def device(self):
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
    def __array_interface__(self):
        if self.storage.device != "cpu":
            self.__array__()  # CuPy's TypeError for implicit conversion
        raise _no_data()

    def __array_namespace__(self, *, api_version: str | None = None) -> Any:
        """The array API namespace of the array this fake stands for: ``numpy`` for a CPU
        fake (``ndarray.__array_namespace__``, which checks ``api_version``), ``cupy`` for a
        CUDA fake. Its functions run on fakes inside a FakeMode."""
        if self.storage.device == "cpu":
            return _NS_PROBE.__array_namespace__(api_version=api_version)
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
    def __array__(self, dtype=None, copy=None):
        if self.storage.device != "cpu":  # cupy/_core/core.pyx ndarray.__array__
            raise TypeError("Implicit conversion to a NumPy array is not allowed. "
                            "Please use `.get()` to construct a NumPy array explicitly.")
        raise _no_data()

    def _needs_data(self, what: str):
        raise DataDependentError(
            f"{what} needs the values of a fake array, which has no data "
            f"(shape={self.shape}, dtype={self.dtype})")

    def _value(self, what: str, get, limit: bool = False):
        """A value read from the array. ``get`` runs first on an all-zero array of this shape
        and dtype, so a read NumPy refuses for the shape or dtype raises NumPy's error
        (``bool()`` of a 3x4 array, ``item(99)``). Then DataDependentError, or under
        ``FakeMode(data_dependent="placeholder")`` that zero array's answer (0, 0.0, 0j, False,
        '', b'', the epoch), recorded in ``mode.placeholders`` at the user's line."""
        mode = _placeholder_mode()
        if limit and self.size > PLACEHOLDER_MAX_ITEMS:
            if mode is None:
                self._needs_data(what)
            raise DataDependentError(
                f"{what} of a fake array with {self.size} elements: placeholders are made "
                f"for at most {PLACEHOLDER_MAX_ITEMS} elements")
        with paused():
            value = get(self._zeros())
        if mode is None:
            self._needs_data(what)
        mode.placeholders.add(f"{what} of a fake array (shape={self.shape}, "
                              f"dtype={self.dtype}) gave the placeholder {value!r:.60}")
        return value

    def _zeros(self):
        """A real all-zero stand-in with this shape and dtype (zero strides, one element's
        memory); a NumPy scalar for a fake scalar. Call it with the modes paused."""
        if self.pytype is not None:
            return self.pytype()  # a fake Python number: 0, 0.0, 0j, False
        zeros = np.broadcast_to(np.zeros((), self.dtype), self.shape)
        return zeros[()] if self.storage._tracker is SCALAR else zeros

    def item(self, *args):
        return self._value("ndarray.item()", lambda z: z.item(*args))

    def tolist(self):
        return self._value("ndarray.tolist()", lambda z: z.tolist(), limit=True)

    def tobytes(self, order="C"):
        return self._value("ndarray.tobytes()", lambda z: z.tobytes(order), limit=True)

    # the buffer itself: a fake has none to hand out (ctypes pointers, memoryviews and DLPack
    # capsules give other code the data, and no placeholder address would be honest)
    @property
    def ctypes(self):
        self._needs_data("ndarray.ctypes (a pointer to the data buffer)")

    @property
    def data(self):
        self._needs_data("ndarray.data (a memoryview of the data buffer)")

    def __dlpack__(self, *args, **kwargs):
        self._needs_data("ndarray.__dlpack__() (a DLPack capsule of the data buffer)")

    # writing values out is never faked (a plan must not leave files of made-up data
    # behind): outside a FakeMode they raise, inside one the mode records the write
    # without making it (modes/io.py)
    def tofile(self, *args, **kwargs):
        return dispatch(_TOFILE, _fake_types, (self,) + args, kwargs)

    def dump(self, *args, **kwargs):
        return dispatch(_DUMP, _fake_types, (self,) + args, kwargs)

    def dumps(self):
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

    def __round__(self, ndigits=None):
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
        if base is not None and type(base) not in (FakeArray, FakeStorage):
            raise TypeError(f"cannot pickle a fake array whose base is a {type(base).__name__}")
        payload = (PICKLE_VERSION, self.shape, self.dtype, self.strides, self.storage,
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
            return self._value("format()", lambda z: format(z, spec))
        return repr(self)

    def __repr__(self) -> str:
        dev = self.storage.device
        return (f"FakeArray(shape={self.shape}, dtype={self.dtype}, strides={self.strides}, "
                f"device={dev!r})")

    __str__ = __repr__


_fake_types = (FakeArray,)
PLACEHOLDER_MAX_ITEMS = 1 << 20  # tolist()/tobytes() placeholders: a bigger one is refused


def _placeholder_mode():
    """The innermost FakeMode of this context when it makes placeholders, else None. Kernels
    run with their mode off the stack, so their own value reads always raise."""
    for m in reversed(_STACK.get()):
        if getattr(m, "_is_fake_mode", False):
            return m if m.data_dependent == "placeholder" else None
    return None


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

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        self.base._needs_data("ndarray.flat as an array")

    def __repr__(self) -> str:
        return f"<FakeFlatIter over {self.base!r}>"


class _CudaOnlyMethod:
    """A cupy.ndarray method NumPy's ndarray lacks: AttributeError on CPU fakes, as there."""

    __slots__ = ("name", "meth")

    def __init__(self, name: str) -> None:
        self.name, self.meth = name, _method(name)

    def __get__(self, obj, owner=None):
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


def _fake_hook_types(args, kwargs):
    return _fake_types


FakeArray._hook_types = staticmethod(_fake_hook_types)  # type: ignore[assignment]


def make_fake(shape: tuple, dtype: np.dtype, strides: tuple, storage: FakeStorage,
              offset: int = 0, base: Any = None, writeable: bool = True) -> FakeArray:
    """Build a FakeArray from metadata that is already known to be valid."""
    a = object.__new__(_FakeSlots)
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
    a.__class__ = FakeArray
    return a


def empty(shape, dtype=float, *, order: str = "C", device: Any = "cpu") -> FakeArray:
    """A fresh fake array, as ``np.empty`` would lay it out."""
    if order not in ("C", "F"):
        raise ValueError("order must be one of 'C', 'F'")
    shape, dt = new_buffer_dtype(as_shape(shape), np.dtype(dtype))
    nbytes = check_shape(shape, dt.itemsize)
    strides = c_strides(shape, dt.itemsize) if order == "C" else f_strides(shape, dt.itemsize)
    storage = FakeStorage(nbytes, parse_device(device))
    claim(storage)
    return make_fake(shape, dt, strides, storage)


def empty_strided(shape, strides, dtype=float, *, device: Any = "cpu",
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
            or not (base is None or type(base) in (FakeArray, FakeStorage))
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
    """True for a FakeArray."""
    return type(obj) is FakeArray


from ._meta_setters import META_SETTERS as _META_SETTERS  # noqa: E402
_SET_CF = FakeArray._cf.__set__  # the contiguity cache, written without the checked setter
_SET_AL = FakeArray._al.__set__  # the alignment cache
