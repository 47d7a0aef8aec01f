"""numpy.ma on fakes: NumPy's own ``numpy/ma/core.py`` and ``numpy/ma/extras.py`` run over a
fake ndarray.

numpy.ma is pure Python over ndarray: a ``MaskedArray`` *is* its data (an ndarray subclass)
and holds its mask as a second ndarray in ``_mask``; every function and method computes the
result's data and mask with ufuncs, views and factories. So instead of a second set of rules,
the two modules are loaded a second time from NumPy's source with one change of base: in the
copy, ``MaskedArray``'s base class is ``FakeNDArray`` (a FakeArray with a ``__dict__`` for
numpy.ma's attributes) and the name ``ndarray`` in both modules is ``NDArrayShim``, which
answers ``isinstance``/``issubclass`` for real arrays and fakes and applies ndarray's unbound
methods (``ndarray.view(x, cls)``, ``ndarray.ravel(x)``) to fakes. Every array operation of
numpy.ma then reaches the kernels through the ordinary protocols, one op at a time, with
NumPy's own temporaries (mask copies, filled copies, domain checks) and frees.

What NumPy's C code does for an ndarray subclass is mirrored in ``FakeNDArray``: a view as a
subclass calls ``__array_finalize__`` (numpy/_core/src/multiarray/ctors.c
PyArray_NewFromDescr_int), a ufunc's output is passed to ``__array_wrap__`` of the input of
highest priority, or of ``out`` (numpy/_core/src/umath/wrapping_array_method.c / npy_apply_wrap
in arraywrap.c), ndarray's C methods on a subclass return the subclass (astype, byteswap,
getfield, ...). Lines of numpy.ma that read what a fake cannot give (a data pointer, a
member descriptor set around the validated setters, NumPy's NaN check of a median) are
replaced by name (``_PATCHES``; loading fails loudly if NumPy's source changes under them);
its ``mask.any()`` tests answer by the one assumption (``_any``); fill values are computed
for real (``_real_fill``); a count or an "all masked?" over no elements is known.

Entry: ``np.ma``'s public functions and ``MaskedArray.__new__`` are patched (``install``)
to run the copy when a fake (or a fake masked array) is among the arguments, or inside a
FakeMode when called from the program. Outside any mode the copy runs in a FakeMode of its
own, so factories it calls (``np.zeros(shape, MaskType)``) make fakes.
"""
from __future__ import annotations

import builtins
import functools
import re
import sys
import types
from typing import Any, Callable, cast

import numpy as np
import numpy.lib._arraysetops_impl as _setops

from .. import _array, _known
from .._array import FakeArray, FakeSlots
from .._dispatch import STACK, dispatch
from .._stack import paused
from .._errors import DataDependentError, UnsupportedOperationError
from .._storage import SCALAR
from . import patching

# a recording mode's serial cache stays with the fake it was given to (modes/trace.py)
_SLOTS = tuple(s for s in FakeSlots.__slots__ if s not in ("__weakref__", "_trace_ids", "_trace_ref"))
_SLOT_DESC = tuple(FakeSlots.__dict__[s] for s in _SLOTS)
_SETATTR = FakeArray.__setattr__
REAL_MA = np.ma.core
REAL_EXTRAS = np.ma.extras


def _copy_slots(src: Any, dst: Any) -> None:
    for d in _SLOT_DESC:
        d.__set__(dst, d.__get__(src))


def plain(x: Any) -> Any:
    """x's ndarray part: a FakeArray with x's metadata and storage (no memory, no op), as
    NumPy's C code sees a subclass instance; anything else as is."""
    if isinstance(x, FakeNDArray):
        p = object.__new__(FakeSlots)
        _copy_slots(x, p)
        p._trace_ids = p._trace_ref = None  # a fake of its own to a recording mode
        p.__class__ = FakeArray
        return p
    return x


def _plain_args(x: Any) -> Any:
    t = type(x)
    if t is tuple or t is list:
        return t(_plain_args(v) for v in x)
    return plain(x)


def as_subclass(x: FakeArray, cls: type, finalize_from: Any = None, finalize: bool = True) -> Any:
    """A FakeNDArray subclass instance with x's metadata (x a fresh result or a view), then
    ``__array_finalize__(finalize_from)``, as PyArray_NewFromDescr_int does for a subtype."""
    new: Any = object.__new__(cls)
    _copy_slots(x, new)
    if finalize:
        new.__array_finalize__(finalize_from)
    return new


def view_as(x: Any, cls: type | None = None, dtype: Any = None) -> Any:
    """``ndarray.view(x, dtype, cls)`` on a fake: a view (base x) retyped as cls (a FakeNDArray
    subclass: ``__array_finalize__(x)``; ndarray or None: a FakeArray, or x's own type when
    x is a subclass and cls is None, as ndarray.view keeps the subtype)."""
    p = plain(x)
    if p.storage._tracker is SCALAR and p.shape == ():
        # a NumPy scalar's view (scalartypes.c gentype_view): a scalar again, of no subtype
        return p if dtype is None else dispatch(_VIEW, (FakeArray,), (p, dtype), {})
    v = dispatch(_VIEW, (FakeArray,), (p,) if dtype is None else (p, dtype), {})
    FakeSlots.__dict__["_base"].__set__(v, x)  # the view's base is x (not its stand-in)
    if cls is None:
        cls = type(x)
    if isinstance(cls, type) and issubclass(cls, FakeNDArray):
        return as_subclass(v, cls, x)
    if cls is None or cls is FakeArray or cls is NDArrayShim or cls is np.ndarray:
        return v
    raise UnsupportedOperationError("ndarray.view", f"a fake viewed as {cls!r}")


_VIEW = _array.method_op("view")


def _data_ptr(a: Any) -> tuple:
    """What ``a.__array_interface__['data'][0]`` compares in numpy.ma: the data's address,
    here (storage, offset)."""
    if isinstance(a, FakeArray):
        return (id(a.storage), a.storage_offset)
    return (None, a.__array_interface__["data"][0])


def _set_meta(self: Any, name: str, value: Any) -> None:
    """``super(MaskedArray, type(self)).shape.__set__(self, v)``: ndarray's validated setter."""
    if isinstance(self, FakeArray):
        _SETATTR(self, name, value)
    else:
        getattr(np.ndarray, name).__set__(self, value)


class _ShimMeta(type):
    """``isinstance(x, ndarray)`` in numpy.ma's copy: real ndarrays and fakes alike; other
    attributes are ndarray's, applied to fakes through their methods."""

    def __instancecheck__(cls, obj: Any) -> bool:
        if isinstance(obj, FakeArray):  # a fake NumPy scalar is no ndarray
            return obj.storage._tracker is not SCALAR or obj.shape != ()
        return isinstance(obj, np.ndarray)

    def __subclasscheck__(cls, sub: Any) -> bool:
        return sub is cls or (isinstance(sub, type) and issubclass(sub, (np.ndarray, FakeArray)))

    def __getattr__(cls, name: str) -> Any:
        real = getattr(np.ndarray, name)
        if not callable(real) or name == "__new__":
            return real

        def unbound(self, *args, **kwargs):
            if isinstance(self, FakeArray):
                return getattr(self if type(self) is FakeArray else plain(self), name)(
                    *args, **kwargs)
            return real(self, *args, **kwargs)
        unbound.__doc__ = real.__doc__
        unbound.__name__ = name
        return unbound


class NDArrayShim(metaclass=_ShimMeta):
    """The name ``ndarray`` in numpy.ma's copy (see the module docstring)."""

    @staticmethod
    def view(self: Any, *args: Any) -> Any:
        if not isinstance(self, FakeArray):
            return np.ndarray.view(self, *(np.ndarray if a is NDArrayShim else a for a in args))
        dtype = cls = None
        if len(args) == 2:
            dtype, cls = args
        elif len(args) == 1:
            a = args[0]
            if isinstance(a, type) and issubclass(a, (np.ndarray, FakeArray, NDArrayShim)):
                cls = a
            else:
                dtype = a
        if cls is None:
            cls = type(self)
        return view_as(self, cls, dtype)

    @staticmethod
    def _view_as(x: Any, dtype: Any) -> Any:
        """``fake.view(ndarray)`` in numpy.ma's copy: a FakeArray view."""
        return view_as(x, FakeArray, dtype)

    @staticmethod
    def __new__(cls: Any, shape: Any, dtype: Any = float, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            raise UnsupportedOperationError("ndarray.__new__", "a buffer in numpy.ma")
        e = np.empty(shape, dtype)
        if isinstance(cls, type) and issubclass(cls, FakeNDArray):
            return view_as(e, cls)
        return e


def _subclass_result(r: Any, src: Any, subok: bool) -> Any:
    """The result of NumPy's C code for the subclass instance src, from r (the same call's
    result on src's ndarray part): src itself when nothing was made, a view of src (base src),
    or a fresh array; a subclass instance finalized from src when ``subok``, else a FakeArray
    (PyArray_FromAny / PyArray_NewLikeArray with the subtype; ctors.c)."""
    if not isinstance(r, FakeArray) or r.storage is not src.storage:
        if subok and isinstance(r, FakeArray):
            return as_subclass(r, type(src), src)
        return r
    same = (r.shape == src.shape and r.dtype == src.dtype and r.strides == src.strides
            and r.storage_offset == src.storage_offset)
    if same and subok and r._base is src._base:
        return src  # returned as is
    FakeSlots.__dict__["_base"].__set__(r, src)
    return as_subclass(r, type(src), src) if subok else r


def _np_array(obj: Any, dtype: Any = None, *, copy: Any = True, order: str = "K",
           subok: bool = False, ndmin: int = 0, **kw: Any) -> Any:
    """``np.array`` in numpy.ma's copy: a fake masked array stays one with ``subok``."""
    if isinstance(obj, FakeNDArray):
        r = np.array(plain(obj), dtype, copy=copy, order=cast(Any, order), subok=subok, ndmin=ndmin, **kw)
        return _subclass_result(r, obj, subok)
    return np.array(obj, dtype, copy=copy, order=cast(Any, order), subok=subok, ndmin=ndmin, **kw)


def _asanyarray(a: Any, dtype: Any = None, order: Any = None, **kw: Any) -> Any:
    if isinstance(a, FakeNDArray):
        return _np_array(a, dtype, copy=kw.pop("copy", None), order=order or "K", subok=True, **kw)
    return np.asanyarray(a, dtype, order, **kw)


def _asarray(a: Any, dtype: Any = None, order: Any = None, **kw: Any) -> Any:
    if isinstance(a, FakeNDArray):
        return _np_array(a, dtype, copy=kw.pop("copy", None), order=order or "K", subok=False, **kw)
    return np.asarray(a, dtype, order, **kw)


def _like(name: str) -> Callable:
    fn = getattr(np, name)

    def like(prototype: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(prototype, FakeNDArray):
            r = fn(plain(prototype), *args, **kwargs)
            if kwargs.get("subok", True):
                return as_subclass(r, type(prototype), prototype)
            return r
        return fn(prototype, *args, **kwargs)
    like.__name__ = name
    return like


_SUBOK = {"array": _np_array, "asanyarray": _asanyarray, "asarray": _asarray,
          **{n: _like(n) for n in ("empty_like", "zeros_like", "ones_like", "full_like")}}


class _NumpyProxy:
    """The name ``np`` in numpy.ma's copy: numpy, with ``np.ndarray`` the shim and ``np.ma``
    the copy."""

    def __init__(self, module: Any, extra: dict) -> None:
        self._module = module
        self._extra = extra

    def __getattr__(self, name: str) -> Any:
        v = self._extra.get(name)
        if v is not None:
            return v
        v = getattr(self._module, name)
        try:
            return patching.patched_or_self(v)
        except TypeError:
            return v


# ndarray's C methods MaskedArray does not override: on a subclass they return the subclass
# (PyArray_NewFromDescr with the subtype, __array_finalize__(self))
_SUBCLASS_METHODS = ("astype", "byteswap", "getfield", "argpartition")
_PLAIN_METHODS = ("fill", "setfield", "setflags", "searchsorted", "item", "partition")


class FakeNDArray(FakeArray):
    """A FakeArray that can carry attributes: the base of numpy.ma's copy of MaskedArray
    (its instances are fake masked arrays, their ``_mask`` a FakeArray or ``nomask``)."""

    __array_priority__ = 0  # numpy.ma sets its own (15)

    def __array_finalize__(self, obj: Any) -> None:
        pass

    @classmethod
    def _view_as(cls, x: Any, dtype: Any) -> Any:
        return view_as(x, cls, dtype)

    def __array_wrap__(self, obj: Any, context: Any = None, return_scalar: bool = False) -> Any:
        return obj

    def _hook_types(self, args, kwargs):
        return (FakeArray,)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """ufunc_object.c on subclasses: compute on the ndarray parts, then hand each output
        to ``__array_wrap__`` of ``out`` or of the input of highest ``__array_priority__``."""
        out = kwargs.get("out")
        outs: tuple = ()
        if out is not None:
            outs = out if type(out) is tuple else (out,)
            kwargs["out"] = tuple(plain(o) for o in outs)
        if kwargs.get("where") is not None:
            kwargs["where"] = plain(kwargs["where"])
        func = ufunc if method == "__call__" else getattr(ufunc, method)
        res = dispatch(func, (FakeArray,), _plain_args(inputs), kwargs)
        if outs:  # an output given is returned as itself, not as its stand-in
            back = {id(p): o for p, o in zip(kwargs["out"], outs)}
            res = tuple(back.get(id(r), r) for r in res) if type(res) is tuple \
                else back.get(id(res), res)
        if kwargs.get("subok", True) is False or method == "at":
            return res
        wrapper = None
        best = None
        for x in inputs:
            if isinstance(x, FakeNDArray):
                p = type(x).__array_priority__
                if best is None or p > best:
                    best, wrapper = p, x
        single = type(res) is not tuple
        results = (res,) if single else res
        wrapped = []
        for i, r in enumerate(results):
            o = outs[i] if i < len(outs) else None
            ctx = (ufunc, inputs, i) if method == "__call__" else None
            if o is not None:  # arraywrap.c npy_apply_wrap: out's own __array_wrap__
                wrapped.append(o.__array_wrap__(o, ctx, False) if isinstance(o, FakeNDArray)
                               else r)
            elif wrapper is not None and isinstance(r, FakeArray):
                scalar = r.shape == () and method != "at"
                if r.storage._tracker is SCALAR:  # NumPy wraps the 0-d array, not a scalar
                    r = _array.empty((), r.dtype)
                wrapped.append(wrapper.__array_wrap__(r, ctx, scalar))
            else:
                wrapped.append(r)
        return wrapped[0] if single else tuple(wrapped)

    def __array_function__(self, func, types, args, kwargs):
        """ndarray.__array_function__ on a subclass: NumPy's implementation runs with the
        subclass instances (Python ones call their methods); C ones are refused (their
        subtype rules are not modelled)."""
        func = patching.kept_original(func)
        if func is _UNIQUE_IMPL:
            return _unique(*args, **kwargs)
        impl = getattr(func, "_implementation", None)
        if isinstance(impl, types_FunctionType):
            from .python_entry import rebound
            return rebound(impl)(*args, **kwargs)
        name = getattr(func, "__name__", repr(func))
        rule = _C_FUNCTIONS.get(name)
        if callable(rule):
            return rule(*args, **kwargs)
        if rule is None:
            raise UnsupportedOperationError(f"np.{name}", "a fake masked array given to "
                                            "NumPy's C function (use the np.ma function)")
        res = dispatch(func, (FakeArray,), _plain_args(args),
                       {k: _plain_args(v) for k, v in kwargs.items()})
        if rule == "plain" or not isinstance(res, FakeArray):
            return res
        if rule == "like":  # PyArray_NewLikeArray: the prototype's subtype, finalized from it
            proto = args[0] if args else kwargs["prototype"]
            if kwargs.get("subok", True) and isinstance(proto, FakeNDArray):
                return as_subclass(res, type(proto), proto)
            return res
        # the subtype of highest priority, finalized from None (ctors.c, obj NULL)
        subs = [x for a in args for x in (a if type(a) in (list, tuple) else (a,))
                if isinstance(x, FakeNDArray)]
        cls = type(max(subs, key=lambda x: type(x).__array_priority__))
        return as_subclass(res, cls, None)

    def __array__(self, dtype=None, copy=None):
        return FakeArray.__array__(self, dtype, copy)


types_FunctionType = types.FunctionType
_UNIQUE_IMPL = _setops.unique  # NumPy's own np.unique (the namespace's may be patched)


def _unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
            return_counts: bool = False, axis: Any = None, *, equal_nan: bool = True,
            sorted: bool = True) -> Any:
    """np.unique of a fake masked array (numpy/lib/_arraysetops_impl.py ``_unique1d`` on the
    subclass): the lengths depend on the values unless there is at most one element; then
    the outputs are np.unique's of the data (the kernel) with the values a fresh masked
    array, its mask nomask where the input's is, else a fresh mask of its shape (what the
    sort path's ``aux[mask]`` and the hash path's ``__array_wrap__`` both give)."""
    if ar.size > 1:
        raise DataDependentError("np.unique of a masked array: the output length is the "
                                 "number of distinct values")
    if axis is not None:
        raise UnsupportedOperationError("np.unique", "axis= on a fake masked array")
    run: Any = np.unique  # (its overloads want literal flags)
    res = run(plain(ar), return_index, return_inverse, return_counts,
              equal_nan=equal_nan, sorted=sorted)
    outs = list(res) if isinstance(res, tuple) else [res]
    values = as_subclass(outs[0], type(ar), ar)
    values._mask = REAL_MA.nomask if ar._mask is REAL_MA.nomask else \
        np.empty(values.shape, REAL_MA.MaskType)
    outs[0] = values
    return tuple(outs) if isinstance(res, tuple) else values
# NumPy C functions given subclass instances: "subtype" (the result is the subclass of
# highest priority, finalized from None: concatenate, dot) or "plain" (an ndarray or a
# Python value, as the real call gives)
_C_FUNCTIONS = {"concatenate": "subtype", "dot": "subtype", "where": "plain",
                "shares_memory": "plain", "may_share_memory": "plain", "copyto": "plain",
                "result_type": "plain", "can_cast": "plain", "min_scalar_type": "plain",
                "putmask": "plain", "count_nonzero": "plain", "empty_like": "like",
                "array": lambda *a, **k: _np_array(*a, **k),
                "asarray": lambda *a, **k: _asarray(*a, **k),
                "asanyarray": lambda *a, **k: _asanyarray(*a, **k)}


def _subclass_method(name: str) -> Callable:
    """ndarray.NAME in C on a subclass instance (astype, byteswap, getfield, argpartition):
    a new array of the subtype finalized from it (a view's base is the instance), or the
    instance itself where the C method returns its argument (``astype(copy=False)``)."""
    def meth(self, *args, **kwargs):
        p = plain(self)
        r = getattr(p, name)(*args, **kwargs)
        if r is p:
            return self
        if not isinstance(r, FakeArray):
            return r
        if r.storage is self.storage:
            FakeSlots.__dict__["_base"].__set__(r, self)
        return as_subclass(r, type(self), self)
    meth.__name__ = name
    return meth


def _plain_method(name: str) -> Callable:
    def meth(self, *args, **kwargs):
        return getattr(plain(self), name)(*_plain_args(args), **kwargs)
    meth.__name__ = name
    return meth


for _n in _SUBCLASS_METHODS:
    setattr(FakeNDArray, _n, _subclass_method(_n))
for _n in _PLAIN_METHODS:
    setattr(FakeNDArray, _n, _plain_method(_n))
del _n


def _conj(self, out=None):
    """ndarray.conj (calculation.c PyArray_Conjugate): the array itself unless complex (or
    ``out`` given), else the ``conjugate`` ufunc."""
    if self.dtype.kind != "c" and out is None:
        return self
    return np.conjugate(self, out=out)


def _clip(self, min=None, max=None, out=None, **kwargs):
    """ndarray.clip: the ``clip`` ufunc (numpy/_core/_methods.py _clip)."""
    return np._core.umath.clip(self, min, max, out=out, **kwargs)


def _choose(self, *args, **kwargs):
    raise UnsupportedOperationError("ndarray.choose", "on a fake masked array")


def _to_device(self, device, /, *, stream=None):
    """ndarray.to_device("cpu"): the array itself."""
    plain(self).to_device(device, stream=stream)  # the argument checks
    return self


def _python_method(name: str) -> Callable:
    """ndarray.NAME where NumPy implements it in Python (numpy/_core/_methods.py ``_mean``,
    ``_var``, ``_std``): that code, run on the subclass instance (its reductions are ufunc
    reductions, wrapped by ``__array_wrap__``); ``mu.ndarray`` there is the shim."""
    def meth(self, *args, **kwargs):
        return _methods_copy(name)(self, *args, **kwargs)
    meth.__name__ = name
    return meth


_METHODS_COPY: dict = {}


def _methods_copy(name: str) -> Callable:
    if not _METHODS_COPY:
        from numpy._core import _methods
        g = dict(_methods.__dict__)
        g["mu"] = _NumpyProxy(getattr(_methods, "mu"), {"ndarray": NDArrayShim})
        g["asanyarray"] = _asanyarray
        g["__name__"] = _MODULE_NAME
        for k in ("_mean", "_var", "_std"):
            real = getattr(_methods, k)
            fn = types.FunctionType(real.__code__, g, real.__name__, real.__defaults__)
            fn.__kwdefaults__ = real.__kwdefaults__
            g[k] = _METHODS_COPY[k[1:]] = fn
    return _METHODS_COPY[name]


for _n in ("mean", "var", "std"):
    setattr(FakeNDArray, _n, _python_method(_n))
setattr(FakeNDArray, "to_device", _to_device)
setattr(FakeNDArray, "conj", _conj)
setattr(FakeNDArray, "conjugate", _conj)
setattr(FakeNDArray, "clip", _clip)
setattr(FakeNDArray, "choose", _choose)


# ---------------------------------------------------------------------------------------
# numpy.ma's copy

# (text, replacement[, how many times]): each found exactly once (or that many times) in
# NumPy's source
_PATCHES = {
    "core": (
        ('obj.__array_interface__["data"][0]\n                    != self.__array_interface__["data"][0]',
         '_ft_data_ptr(obj)\n                    != _ft_data_ptr(self)'),
        ("super(MaskedArray, type(self)).dtype.__set__(self, dtype)",
         "_ft_set_meta(self, 'dtype', dtype)"),
        ("super(MaskedArray, type(self)).shape.__set__(self, shape)",
         "_ft_set_meta(self, 'shape', shape)"),
        ("        condition = np.asarray(condition)\n\n        _new = _data.compress(",
         "        condition = _ft_condition(condition)\n\n        _new = _data.compress("),
    ),
    "extras": (("s = np.lib._utils_impl._median_nancheck(asorted, s, axis)",
                "s = _ft_median_nancheck(asorted, s, axis)", 2),
               ("scl = avg.dtype.type(a.count(axis))",
                "scl = _ft_scalar_type(avg.dtype, a.count(axis))")),
}


def _median_nancheck(data: Any, result: Any, axis: Any) -> Any:
    """numpy/lib/_utils_impl.py ``_median_nancheck`` for numpy.ma's median: its steps (take,
    isnan, any), then NaN copied into an array result where the data had one; a scalar
    result would be replaced by the NaN scalar of the same type: the same metadata, so
    no value is needed."""
    if data.size == 0:
        return result
    potential_nans = data.take(-1, axis=axis)
    n = np.isnan(potential_nans)
    if np.ma.isMaskedArray(n):
        n = n.filled(False)
    n.any()
    if isinstance(result, NDArrayShim):
        np.copyto(cast(Any, result), potential_nans, where=n)
    return result
def _condition(c: Any) -> Any:
    """``np.asarray(condition)`` in ``MaskedArray.compress``: a condition given as a Python
    list or tuple keeps its values (they fix the result's length) in a real array of its
    size, charged to the mode while it lives as NumPy's array is (``HeldValue``); a fake
    condition stays a fake (its values are unknown: the compress kernel refuses)."""
    if type(c) in (list, tuple) and not _has_fake(c) and _in_fake_mode():
        with paused():
            value = np.asarray(c)
        held = value.view(HeldValue)
        held._ft_bytes = np.empty(value.shape, value.dtype)
        return held
    return _asarray(c)


def _scalar_type(dtype: np.dtype, x: Any) -> Any:
    """``dtype.type(x)`` (numpy.ma's ``average``): for an array, PyArray_FromAny with
    NPY_ARRAY_FORCECAST (scalartypes.c ``*_arrtype_new``): x itself when of the dtype, else a
    cast copy; for a 0-d array or scalar the NumPy scalar of the dtype."""
    if not isinstance(x, FakeArray):
        return dtype.type(x)
    if x.shape == ():
        return x.astype(dtype) if x.storage._tracker is SCALAR else \
            np.asarray(x, dtype=dtype)[()]
    return np.asarray(x, dtype=dtype)


_MODULE_NAME = "<faketensor: numpy.ma on fakes>"


class _Copy:
    core: Any = None
    extras: Any = None
    namespace: Any = None


_COPY = _Copy()


# ``X.any()`` calls that only choose between keeping a mask and dropping it to nomask, or
# skip work when nothing is masked: on a fake they answer True (``_any``). The others
# (``is_masked``, ``cov(allow_masked=False)``'s check) read values: DataDependentError.
_ANY = re.compile(r"\b((?:\w+\.)*\w+)\.any\(\)")
_ANY_KEEP = ("return True", "raise ValueError", "allow_masked and")


def _any(x: Any) -> Any:
    """``x.any()`` in numpy.ma's copy: True for a fake (see docs/guide/masked-arrays.md:
    a fake mask is taken to hold a masked element), the real answer otherwise."""
    if isinstance(x, FakeArray):
        r = x.any()  # the reduction's 0-d result, allocated and freed as for real
        if x.size == 0:
            return False  # nothing is masked in an empty array
        known = _known.value(r)
        if known is not None:  # a mask known to hold one value (np.zeros, make_mask_none)
            return bool(known)
        for mode in reversed(STACK.get()):
            if getattr(mode, "_is_fake_mode", False):
                mode.placeholders.add(ASSUMED)
                break
        return True
    return x.any()


ASSUMED = ("numpy.ma: a fake mask was taken to hold a masked element (mask.any() answered "
           "True: the mask is kept, not dropped to nomask, and masked elements are filled)")


def _any_calls(src: str) -> str:
    lines = src.split("\n")
    for i, line in enumerate(lines):
        if ".any()" in line and not line.lstrip().startswith(("#", ">>>", "...")) and not (
                any(k in line or k in lines[i + 1] for k in _ANY_KEEP)):
            lines[i] = _ANY.sub(r"_ft_any(\1)", line)
    return "\n".join(lines)


def _load(which: str, real: types.ModuleType, extra_globals: dict) -> types.ModuleType:
    path = cast(str, real.__file__)
    with open(path, encoding="utf-8") as f:
        src = f.read()
    patches: Any = _PATCHES[which]
    for old, new, *count in patches:
        if src.count(old) != (count[0] if count else 1):
            raise RuntimeError(f"numpy.ma on fakes: {path} changed ({old[:40]!r}...)")
        src = src.replace(old, new)
    src = _any_calls(src)
    mod = types.ModuleType(f"{_MODULE_NAME}.{which}")
    g = mod.__dict__
    g["__file__"] = path
    g["__package__"] = None
    g.update(extra_globals)
    g["_ft_any"] = _any
    bi = dict(builtins.__dict__)
    real_build = builtins.__build_class__

    def build_class(func, name, *bases, **kw):
        if name == "MaskedConstant":  # the one ``np.ma.masked``, shared with real numpy.ma
            return real.MaskedConstant
        bases = tuple(FakeNDArray if b is np.ndarray else b for b in bases)
        return real_build(func, name, *bases, **kw)
    bi["__build_class__"] = build_class
    real_import = builtins.__import__

    def imp(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 1 and name == "core":  # extras: from .core import ...
            return _COPY.core
        if level == 1 and name == "" and fromlist == ("core",):
            return _COPY.namespace
        return real_import(name, globals, locals, fromlist, level)
    bi["__import__"] = imp
    g["__builtins__"] = bi
    code = compile(src, path, "exec")
    exec(code, g)
    g["__builtins__"] = builtins.__dict__
    # the names numpy.ma took from numpy: the patched functions, the shim for ndarray
    for k, v in list(g.items()):
        if v is np.ndarray:
            g[k] = NDArrayShim
        elif v is np:
            g[k] = _NP
        elif k in ("narray", "nxarray"):  # ``from numpy import array as narray``
            g[k] = _np_array
        elif callable(v) and not isinstance(v, type):
            try:
                g[k] = patching.patched_or_self(v)
            except TypeError:
                pass
    return mod


class _Namespace:
    """``np.ma`` as numpy.ma's copy sees it: the copy's core and extras names."""

    def __getattr__(self, name: str) -> Any:
        for m in (_COPY.core, _COPY.extras):
            if m is not None and name in m.__dict__:
                return m.__dict__[name]
        if name in ("core", "extras"):
            return getattr(_COPY, name)
        raise AttributeError(name)


_NP = _NumpyProxy(np, {"ndarray": NDArrayShim, **_SUBOK})


def _real_fill(name: str) -> Callable:
    """numpy.ma's fill-value helper ``name`` run by real numpy.ma with the modes paused: a fill
    value is a small value computed from a dtype and Python numbers (a fake one only when
    the caller passes a fake)."""
    real = getattr(REAL_MA, name)

    def fill(*args: Any, **kwargs: Any) -> Any:
        if _in_fake_mode() and any(isinstance(a, np.ndarray) and a.size > 1
                                   for a in (*args, *kwargs.values())):
            # an array of fill values (not a value): converted, computed on the fake
            conv = STACK.get()[0]._convert
            args = tuple(conv(a) if isinstance(a, np.ndarray) else a for a in args)
            kwargs = {k: conv(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        if _has_fake(args) or _has_fake(tuple(kwargs.values())):
            return getattr(_COPY.core, "_ft_" + name)(*args, **kwargs)
        with paused():
            value = real(*args, **kwargs)
        if name == "_check_fill_value" and isinstance(value, np.ndarray) and _in_fake_mode():
            # the array holds the value (real, a few bytes); a fake of its size, charged to
            # the mode, lives as long as it does: NumPy allocates it in a real run
            held = value.view(HeldValue)
            held._ft_bytes = np.empty(value.shape, value.dtype)
            return held
        return value
    fill.__name__ = name
    return fill


class HeldValue(np.ndarray):
    """A fill value computed for real in a FakeMode, holding (``_ft_bytes``) a fake of its
    size so the mode counts its bytes while it lives; views of it hold the fake too."""

    def __array_finalize__(self, obj: Any) -> None:
        self._ft_bytes = getattr(obj, "_ft_bytes", None) if (
            obj is not None and np.shares_memory(self, obj)) else None

    def __array_wrap__(self, obj: Any, context: Any = None, return_scalar: bool = False) -> Any:
        r = np.asarray(obj)  # a computed result is a plain array (or scalar)
        return r[()] if return_scalar else r


_FILL_HELPERS = ("_check_fill_value", "_recursive_fill_value")


def _check_mask_axis(mask: Any, axis: Any, keepdims: Any = np._NoValue) -> Any:
    """numpy.ma's ``_check_mask_axis`` (``mask.all(axis)``: is every element masked?): the
    reduction as NumPy runs it; over no elements the answer is known, ``np.True_``."""
    r = _COPY.core._ft__check_mask_axis(mask, axis, keepdims)
    if isinstance(r, FakeArray) and r.shape == () and mask.size == 0:
        return np.True_
    return r


def _expand_dims(a: Any, axis: Any) -> Any:
    """np.expand_dims as numpy.ma's own code calls it (``ma.expand_dims`` in
    apply_over_axes): the ``masked`` constant a reduction returns (a real 0-d MaskedArray
    shared with NumPy) is made a fake masked array first, so the result stays a MaskedArray,
    as NumPy's ``asanyarray`` keeps it."""
    stack = STACK.get()
    if a is REAL_MA.masked and stack and stack[0]._is_fake_mode:
        a = to_fake_masked(a, stack[0]._convert)
    return np.expand_dims(a, axis)


def copy() -> _Copy:
    """numpy.ma's copy over fakes, loaded on first use (after the namespace patches)."""
    if _COPY.core is None:  # the namespace patches are in: ``import faketensor`` ran install
        _COPY.namespace = _Namespace()
        _NP._extra["ma"] = _COPY.namespace
        extra = {"_ft_data_ptr": _data_ptr, "_ft_set_meta": _set_meta,
                 "_ft_condition": _condition}
        _COPY.core = _load("core", REAL_MA, extra)
        core = _COPY.core.__dict__
        core["masked"] = core["masked_singleton"] = REAL_MA.masked
        core["_ft__check_mask_axis"] = core["_check_mask_axis"]
        core["_check_mask_axis"] = _check_mask_axis
        core["expand_dims"] = _expand_dims
        for name in _FILL_HELPERS:
            core["_ft_" + name] = core[name]
            core[name] = _real_fill(name)
        _COPY.extras = _load("extras", REAL_EXTRAS, {"_ft_median_nancheck": _median_nancheck,
                                                      "_ft_scalar_type": _scalar_type})
        _wrap_modes(_COPY.core)
        _wrap_modes(_COPY.extras)
        cls = _COPY.core.MaskedArray
        type.__setattr__(cls, "_ft_count", cls.count)
        type.__setattr__(cls, "count", _count)
        type.__setattr__(cls, "__repr__", _repr)
        type.__setattr__(cls, "__str__", _repr)
    return _COPY


def _count(self: Any, axis: Any = None, keepdims: Any = np._NoValue) -> Any:
    """MaskedArray.count as numpy.ma computes it; over no elements the count is known: 0
    (a NumPy scalar of the count's dtype) where it is one number."""
    r = self._ft_count(axis, keepdims)
    if isinstance(r, FakeArray) and r.shape == () and self.size == 0:
        return r.dtype.type(0)
    return r


def _repr(self: Any) -> str:
    """A fake masked array's metadata (numpy.ma's repr prints the values)."""
    m = self._mask
    mask = "nomask" if m is REAL_MA.nomask else f"mask=(shape={m.shape}, dtype={m.dtype})"
    fv = self._fill_value
    if isinstance(fv, np.ndarray):
        fv = np.ndarray.view(fv, np.ndarray)[()]
    fill = "" if fv is None or isinstance(fv, FakeArray) else f", fill_value={fv!r}"
    return (f"FakeMaskedArray(shape={self.shape}, dtype={self.dtype}, strides={self.strides}"
            f", {mask}{fill})")


# ---------------------------------------------------------------------------------------
# running the copy: in a FakeMode, real masked arrays converted

def _in_fake_mode() -> bool:
    stack = STACK.get()
    return bool(stack) and stack[0]._is_fake_mode


def _with_mode(fn: Callable) -> Callable:
    """fn run in a FakeMode: the one active, else one for the call (its factories make
    fakes; nothing is accounted outside a mode)."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        if STACK.get():
            return fn(*args, **kwargs)
        from .fake_mode import FakeMode
        with FakeMode():
            return fn(*args, **kwargs)
    setattr(run, "_ft_ma", True)
    return run


def _wrap_modes(mod: types.ModuleType) -> None:
    """Every function and method of the copy runs in a FakeMode (see _with_mode)."""
    g = mod.__dict__
    for k, v in list(g.items()):
        if isinstance(v, types.FunctionType) and v.__globals__ is g:
            g[k] = _with_mode(v)
        elif isinstance(v, type) and v.__module__ in (mod.__name__, "numpy.ma") and \
                v not in (REAL_MA.MaskedConstant,):
            for name, attr in list(v.__dict__.items()):
                if isinstance(attr, types.FunctionType) and attr.__globals__ is g:
                    type.__setattr__(v, name, _with_mode(attr))
                elif isinstance(attr, (staticmethod, classmethod)) and isinstance(
                        attr.__func__, types.FunctionType) and attr.__func__.__globals__ is g:
                    type.__setattr__(v, name, type(attr)(_with_mode(attr.__func__)))
                elif isinstance(attr, property) and getattr(attr.fget, "__globals__", None) is g:
                    type.__setattr__(v, name, property(
                        _with_mode(cast(Callable, attr.fget)), attr.fset and _with_mode(attr.fset),
                        attr.fdel, attr.__doc__))
        elif hasattr(v, "__call__") and type(v).__module__ == mod.__name__ and not isinstance(v, type):
            pass  # instances of the copy's classes: their methods are wrapped with the class


def is_fake_masked(x: Any) -> bool:
    """True for a masked array of the copy (data and mask fakes)."""
    return _COPY.core is not None and isinstance(x, _COPY.core.MaskedArray)


def to_fake_masked(x: Any, convert: Callable) -> Any:
    """A real MaskedArray as a fake one: data and mask through ``convert`` (the mode's memo),
    the attributes numpy.ma keeps copied."""
    c = copy()
    data = convert(x._data)
    r = view_as(data, c.core.MaskedArray)
    m = x._mask
    r._mask = m if m is REAL_MA.nomask else convert(m)
    for k in ("_fill_value", "_hardmask", "_sharedmask", "_isfield"):
        r.__dict__[k] = getattr(x, k)
    r._baseclass = FakeArray
    return r


def _has_fake(obj: Any, depth: int = 0) -> bool:
    if isinstance(obj, FakeArray):
        return True
    t = type(obj)
    if depth < 2 and (t is list or t is tuple):
        return any(_has_fake(v, depth + 1) for v in obj)
    return False


def _convert_args(obj: Any, convert: Callable, depth: int = 0) -> Any:
    if isinstance(obj, REAL_MA.MaskedArray) and obj is not REAL_MA.masked:
        return to_fake_masked(obj, convert)
    t = type(obj)
    if depth < 2 and (t is list or t is tuple):
        return t(_convert_args(v, convert, depth + 1) for v in obj)
    return obj


def routed(real: Callable, name: str, owner: str = "core") -> Callable:
    """np.ma.NAME: the copy's NAME when a fake is among the arguments, or in a FakeMode when
    the program calls it; else NumPy's."""
    def patched(*args, **kwargs):
        fake = _has_fake(args) or _has_fake(tuple(kwargs.values()))
        if not fake and not (_in_fake_mode() and not patching.from_numpy(sys._getframe(1))):
            return real(*args, **kwargs)
        c = copy()
        target = getattr(getattr(c, owner), name)
        stack = STACK.get()
        if stack and stack[0]._is_fake_mode:
            conv = stack[0]._convert
            args = _convert_args(args, conv)
            kwargs = {k: _convert_args(v, conv) for k, v in kwargs.items()}
        return target(*args, **kwargs)
    try:
        functools.update_wrapper(patched, real)
    except AttributeError:
        pass
    patching.mark_patch(patched)
    return patched


class RoutedUFunc:
    """np.ma's masked ufuncs and method-functions (``np.ma.add``, ``np.ma.sum``): calls and
    their ``reduce``/``accumulate``/``outer`` routed as ``routed`` does."""

    def __init__(self, real: Any, name: str, owner: str) -> None:
        self._real = real
        self._name = name
        self._owner = owner
        self.__call__ = routed(real, name, owner)  # type: ignore[method-assign]  # per-instance routing
        self.__doc__ = getattr(real, "__doc__", None)
        self.__name__ = getattr(real, "__name__", name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__dict__["__call__"](*args, **kwargs)

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._real, attr)
        if callable(value) and attr in ("reduce", "accumulate", "outer"):
            real = self._real
            name, owner = self._name, self._owner

            def method(*args, **kwargs):
                fake = _has_fake(args) or _has_fake(tuple(kwargs.values()))
                if not fake and not (_in_fake_mode()
                                     and not patching.from_numpy(sys._getframe(1))):
                    return getattr(real, attr)(*args, **kwargs)
                target = getattr(getattr(getattr(copy(), owner), name), attr)
                stack = STACK.get()
                if stack and stack[0]._is_fake_mode:
                    conv = stack[0]._convert
                    args = _convert_args(args, conv)
                return target(*args, **kwargs)
            return method
        return value

    def __repr__(self) -> str:
        return repr(self._real)


_installed = False


def install() -> None:
    """Patch np.ma's public callables and ``MaskedArray.__new__`` (once)."""
    global _installed
    if _installed:
        return
    _installed = True
    import numpy.ma as ma
    for owner, mod in (("core", REAL_MA), ("extras", REAL_EXTRAS)):
        for name in mod.__all__:
            v = getattr(mod, name, None)
            if v is None or isinstance(v, type) or isinstance(v, np.ndarray) or \
                    isinstance(v, (bool, int, float, np.generic, types.ModuleType)):
                continue
            if isinstance(v, types.FunctionType):
                p = routed(v, name, owner)
            elif callable(v):
                p = RoutedUFunc(v, name, owner)
            else:
                continue
            if getattr(ma, name, None) is v:
                setattr(ma, name, p)
            setattr(mod, name, p)
            patching.keep_original(v)
    real_view = REAL_MA.MaskedArray.view

    def masked_view(self, dtype=None, type=None, fill_value=None):
        """``np.ma.masked.view(cls)`` with cls the copy's MaskedArray (numpy.ma does it to a
        domained 0-d result, ``var``'s ``divide(...).view(type(self))``): the same view of
        the constant's data and mask, converted (one element each: their values known)."""
        cls = type if type is not None else dtype
        if isinstance(cls, builtins.type) and issubclass(cls, FakeNDArray) and STACK.get():
            fake = to_fake_masked(self, STACK.get()[0]._convert)
            return fake.view(dtype, type, fill_value) if fill_value is not None \
                else fake.view(dtype, type)
        return real_view(self, dtype, type, fill_value)
    functools.update_wrapper(masked_view, real_view)
    type.__setattr__(REAL_MA.MaskedConstant, "view", masked_view)
    new = REAL_MA.MaskedArray.__dict__["__new__"]
    new = getattr(new, "__func__", new)

    def masked_new(cls, *args, **kwargs):
        fake = _has_fake(args) or _has_fake(tuple(kwargs.values()))
        if fake or (_in_fake_mode() and not patching.from_numpy(sys._getframe(1))):
            c = copy()
            stack = STACK.get()
            if stack and stack[0]._is_fake_mode:
                conv = stack[0]._convert
                args = _convert_args(args, conv)
                kwargs = {k: _convert_args(v, conv) for k, v in kwargs.items()}
            target = c.core.MaskedArray if cls is REAL_MA.MaskedArray else None
            if target is None:
                raise UnsupportedOperationError(f"{cls.__name__}", "a subclass of MaskedArray "
                                                "on fakes")
            return target(*args, **kwargs)
        return new(cls, *args, **kwargs)
    functools.update_wrapper(masked_new, new)
    patching.mark_patch(masked_new)
    type.__setattr__(REAL_MA.MaskedArray, "__new__", staticmethod(masked_new))


# Imported once numpy.ma is (modes/installer.py's import hook, or import faketensor when numpy.ma
# came first), or by a user first: numpy.ma's patches go in with this module, whichever way.
install()
