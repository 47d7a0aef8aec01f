"""Interception of the ``cupy`` namespace: factories, cupy.random, functions, ufuncs, devices.

Installed once cupy is imported: by ``installer.install`` when it already is, else by an
import hook on ``cupy`` (``import faketensor`` never imports CuPy itself). A patched
cupy callable runs the real one unless a mode is active or a fake is among its arguments;
then it goes through ``dispatch`` and the CuPy-flavoured kernels (kernels/cupy/core.py).
``cupy.cuda.Device(n)`` as a context manager inside a mode selects fake device n only.
"""
from __future__ import annotations

import copy
import importlib
import inspect
import types
from typing import Any, SupportsIndex

import wrapt

from .. import _array
from .._array import FakeArray
from .._dispatch import STACK, dispatch, method_op
from .._errors import UnsupportedOperationError
from ..kernels.cupy import core as cupy_rules
from ..kernels.registry import REGISTRY
from . import patching
from .patching import by_name, lookup


class PatchedFunction(wrapt.FunctionWrapper):
    """A wrapt wrapper that pickles, copies, and reports signature and docs, as the original
    (CuPy's callables and ufuncs, whose methods it intercepts too)."""

    _ft_patch = True

    def __copy__(self) -> Any:
        # functions and builtins copy as themselves (Lib/copy.py), so does their patch; a
        # method of the global RandomState copies as an equal method: the patch itself
        w = self.__wrapped__
        r = copy.copy(w)
        return self if r is w or r == w else r

    def __deepcopy__(self, memo: dict) -> Any:
        # a deep copy of a RandomState method is bound to a copy of the state: no longer
        # the global one, so unpatched (as pickling gives it)
        w = self.__wrapped__
        r = copy.deepcopy(w, memo)
        return self if r is w else r

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        w = self.__wrapped__
        if isinstance(w, (types.FunctionType, types.BuiltinFunctionType)):
            try:
                found = lookup(w.__module__, w.__qualname__)
            except (ImportError, AttributeError):
                found = None
            if found is self:  # a global, pickled by name as the original is: a process
                return w.__qualname__  # without faketensor unpickles the plain function
            return (by_name, (w.__module__, w.__qualname__))
        return w.__reduce_ex__(protocol)

    def __reduce__(self):
        return self.__reduce_ex__(2)


_PATCHED: dict[int, Any] = {}
patching.add_patch_table(_PATCHED)
_FAKE_TYPES = (FakeArray,)


def _has_fake(args: tuple, kwargs: dict) -> bool:
    for a in args:
        if type(a) is FakeArray:
            return True
        if type(a) in (list, tuple) and any(type(x) is FakeArray for x in a):
            return True
    return any(type(v) is FakeArray for v in kwargs.values())


def _interceptor(wrapped, instance, args, kwargs):
    if not STACK.get() and not _has_fake(args, kwargs):
        return wrapped(*args, **kwargs)
    return dispatch(_PATCHED[id(wrapped)], _FAKE_TYPES, args, kwargs)


_UFUNC_METHODS = ("reduce", "accumulate", "reduceat", "outer", "at")


class PatchedCupyUfunc(PatchedFunction):
    """A patched cupy ufunc whose methods (``cupy.add.outer`` ...) are intercepted too."""

    def __getattr__(self, name: str) -> Any:
        if name in _UFUNC_METHODS and name in REGISTRY_METHODS:
            real = getattr(self.__wrapped__, name)  # AttributeError as CuPy gives it
            return _ufunc_method(self.__wrapped__, name, real)
        return super().__getattr__(name)


REGISTRY_METHODS: frozenset = frozenset()  # those with a CuPy rule (set by _patch_namespace)


def _ufunc_method(ufunc: Any, name: str, real: Any) -> Any:
    op = method_op(name, "cupy.ufunc")

    def meth(*args, **kwargs):
        if not STACK.get() and not _has_fake(args, kwargs):
            return real(*args, **kwargs)
        return dispatch(op, _FAKE_TYPES, (ufunc,) + args, kwargs)
    meth.__name__ = name
    meth.__doc__ = real.__doc__
    return meth


def _guarded(fn: Any, qualname: str) -> Any:
    w = _PATCHED.get(id(fn))
    if w is None:
        _GUARD_NAMES[id(fn)] = qualname
        w = _PATCHED[id(fn)] = PatchedFunction(fn, _guard)
        patching.keep_original(fn)
    return w


def patch_cupy_callable(fn: Any) -> Any:
    """The (unique) patched version of a cupy callable."""
    if isinstance(fn, PatchedFunction):
        return fn
    w = _PATCHED.get(id(fn))
    if w is None:
        cls = PatchedCupyUfunc if type(fn).__name__ == "ufunc" else PatchedFunction
        w = _PATCHED[id(fn)] = cls(fn, _interceptor)
        patching.keep_original(fn)  # keeps the id stable
    return w


class FakeCupyGenerator:
    """What ``cupy.random.default_rng()`` returns inside a mode: draws are fakes."""

    def __init__(self, seed: Any = None) -> None:
        self.seed = seed

    def __getattr__(self, name: str) -> Any:
        op_key = f"cupy.Generator.{name}"
        if name.startswith("_") or (op_key, "cupy") not in REGISTRY:
            raise AttributeError(name)
        op = method_op(name, "cupy.Generator")

        def meth(*args, **kwargs):
            return dispatch(op, (), (self,) + args, kwargs)
        return meth


def _default_rng(wrapped, instance, args, kwargs):
    if not STACK.get():
        return wrapped(*args, **kwargs)
    return FakeCupyGenerator(*args, **kwargs)


def _get_array_module(wrapped, instance, args, kwargs):
    cupy = cupy_rules.cupy_module()
    for a in args:
        if type(a) is FakeArray and a.storage.device != "cpu":
            return cupy
    return wrapped(*args, **kwargs)


def _make_device_class(real: type) -> type:
    class Device(real):
        """``cupy.cuda.Device``: inside a mode, ``with Device(n):`` only selects fake device n."""

        def __enter__(self):
            if STACK.get():
                tokens = self.__dict__.setdefault("_ft_tokens", [])
                tokens.append(cupy_rules.CURRENT_DEVICE.set(f"cuda:{self.id}"))
                return self
            return super().__enter__()

        def __exit__(self, *exc):
            tokens = self.__dict__.get("_ft_tokens")
            if tokens:
                cupy_rules.CURRENT_DEVICE.reset(tokens.pop())
                return None
            return super().__exit__(*exc)

        def use(self):
            if STACK.get():
                cupy_rules.CURRENT_DEVICE.set(f"cuda:{self.id}")
                return None
            return super().use()

    Device.__name__ = Device.__qualname__ = "Device"
    Device.__module__ = real.__module__
    return Device


def _is_cupy_kernel_key(fn: Any) -> bool:
    try:
        return (fn, "cupy") in REGISTRY
    except TypeError:
        return False


# cupy callables left as they are in a mode: they take no arrays, or only read an array's
# dtype, shape or flags (on anything but a cupy.ndarray they ask NumPy, which dispatches)
_RUN_AS_IS = frozenset({
    "shape", "iscomplexobj", "isrealobj", "isfortran",
    "get_default_memory_pool", "get_default_pinned_memory_pool", "is_available",
    "show_config", "clear_memo", "memoize", "fuse", "get_printoptions", "set_printoptions",
    "printoptions", "set_string_function", "can_cast", "promote_types", "result_type",
    "common_type", "min_scalar_type", "issubdtype", "isdtype", "issctype", "issubsctype",
    "issubclass_", "obj2sctype", "sctype2char", "mintypecode", "find_common_type", "typename",
    "isscalar", "iterable", "ndim", "base_repr", "binary_repr", "format_float_positional",
    "format_float_scientific", "safe_eval", "who", "make_aligned_dtype", "broadcast_shapes",
    "get_array_wrap", "fromfunction", "seed", "get_random_state", "set_random_state", "reset_states",
})


def _guard(wrapped, instance, args, kwargs):
    """A cupy function with no CuPy rule: real CuPy outside modes, an error on fakes or
    in a mode (its implementation would reach the device, or make real arrays)."""
    if not STACK.get() and not _has_fake(args, kwargs):
        return wrapped(*args, **kwargs)
    raise UnsupportedOperationError(_GUARD_NAMES.get(id(wrapped), wrapped.__name__),
                                    "no CuPy rule for it yet (CuPy's implementation would run "
                                    "on the device)")


_GUARD_NAMES: dict[int, str] = {}


def _fromfunction(wrapped, instance, args, kwargs):
    """``cupy.fromfunction`` is ``asarray(numpy.fromfunction(...))`` (cupy/_creation/
    from_data.py): in a mode the function gets NumPy's index arrays as CPU fakes."""
    if not STACK.get():
        return wrapped(*args, **kwargs)
    return _fromfunction_in_mode(*args, **kwargs)


def _fromfunction_in_mode(function, shape, *, dtype=float, like=None, **kwargs):
    cupy = cupy_rules.cupy_module()
    if like is not None:
        raise UnsupportedOperationError("cupy.fromfunction", "like=")
    dims = tuple(shape)
    index = _array.empty((len(dims),) + dims, dtype)  # numpy.indices' array, on the host
    return cupy.asarray(function(*[index[i] for i in range(len(dims))], **kwargs))


def _is_proxy(fn: Any) -> bool:
    return isinstance(fn, wrapt.FunctionWrapper)


def _patch_namespace(cupy: Any) -> None:
    """Register the CuPy rules and patch the cupy namespace (once cupy is imported).

    Callables with a CuPy rule dispatch in a mode or on fakes; the others (apart from
    dtype and configuration helpers) raise UnsupportedOperationError there rather than
    run CuPy's implementation on fakes.
    """
    global REGISTRY_METHODS
    if not cupy_rules.load_cupy(cupy):
        return
    REGISTRY_METHODS = frozenset(m for m in _UFUNC_METHODS
                                 if (f"cupy.ufunc.{m}", "cupy") in REGISTRY)
    for sub in ("cuda", "fft", "linalg", "random"):
        importlib.import_module(f"cupy.{sub}")
    for mod in (cupy, cupy.random, cupy.linalg, cupy.fft):
        for name, fn in list(vars(mod).items()):
            # a lazily imported submodule (cupy.testing imports pytest) is skipped unloaded:
            # type() does not trigger its loader, attribute access would
            if name.startswith("_") or name in _RUN_AS_IS or isinstance(fn, types.ModuleType):
                continue
            if _is_proxy(fn) or isinstance(fn, type) or inspect.ismodule(fn) or not callable(fn):
                continue
            if _is_cupy_kernel_key(fn):
                setattr(mod, name, patch_cupy_callable(fn))
            elif not (getattr(fn, "__module__", None) or "").startswith("numpy") \
                    and name not in ("default_rng", "get_array_module"):
                setattr(mod, name, _guarded(fn, f"{mod.__name__}.{name}"))
    if not _is_proxy(cupy.random.default_rng):
        cupy.random.default_rng = wrapt.FunctionWrapper(cupy.random.default_rng, _default_rng)
    if not _is_proxy(cupy.fromfunction):
        cupy.fromfunction = wrapt.FunctionWrapper(cupy.fromfunction, _fromfunction)
    if not _is_proxy(cupy.get_array_module):
        cupy.get_array_module = wrapt.FunctionWrapper(cupy.get_array_module, _get_array_module)
    real_dev = cupy.cuda.Device
    if not getattr(real_dev, "_ft_patched", False):
        dev_cls: Any = _make_device_class(real_dev)
        dev_cls._ft_patched = True
        cupy.cuda.Device = dev_cls
        cupy.cuda.device.Device = dev_cls


_done = False


def install_cupy(module: Any) -> None:
    """Patch the cupy namespace (once)."""
    global _done
    if not _done:
        _done = True
        _patch_namespace(module)


