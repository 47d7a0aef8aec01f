"""Namespace patches for the NumPy calls that never dispatch (factories, np.random, np.load)
and for every NumPy function with a kernel, whose arguments may all be real.

Installed once; outside any mode a patched function reads one module global (``LIVE``,
empty while no context in the process has a mode: faketensor/_stack.py) and calls the
original. Inside a mode the call goes to the mode stack, with the patched
function as ``func`` so a mode calling it re-dispatches to the next mode down.
"""
from __future__ import annotations

import functools
import importlib
import importlib.machinery
import sys
import types
from typing import Any, Callable, Iterable

import numpy as np

from .. import _array, _matrix
from .._accel import PATCH
from .._dispatch import STACK, dispatch
from .._paths import HOSTS, NOT_HOST, host_error, host_of
from .._stack import LIVE, paused
from ..kernels.registry import REGISTRY
from .dask_support import graph_code
from .patch_tables import (PATCH_TABLES, add_patch_table, keep_original, kept_original,  # noqa: F401
                           mark_patch, numpy_patch, original, patch_count, patched_of,
                           patched_or_self, record_patch)
from . import random_gen

NUMPY_FACTORIES = (
    "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "geomspace",
    "eye", "identity", "array", "asarray", "asanyarray", "ascontiguousarray",
    "asfortranarray", "zeros_like", "ones_like", "empty_like", "full_like", "tri",
    "indices", "load", "hanning", "hamming", "blackman", "bartlett", "kaiser",
    "copy", "frombuffer", "fromfile", "fromiter", "require", "asarray_chkfinite",
    "tril_indices", "triu_indices", "diag_indices", "mask_indices", "meshgrid",
    "broadcast_shapes",
)
FFT_FACTORIES = ("fftfreq", "rfftfreq")
# np.random: module-level functions that draw (methods of the global RandomState, and the
# mtrand aliases ranf/sample that call it from C); patched in np.random and numpy.random.mtrand
RANDOM_ALIASES = ("ranf", "sample")
RANDOM_SKIP = frozenset({"seed", "get_bit_generator",
                         "set_bit_generator", "default_rng", "RandomState", "Generator",
                         "SeedSequence", "BitGenerator", "MT19937", "PCG64", "PCG64DXSM",
                         "Philox", "SFC64", "bit_generator", "mtrand"})


def lookup(module: str, qualname: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def by_name(module: str, qualname: str) -> Any:
    """Unpickle a function by where it is defined (its patched version when there is one)."""
    obj = lookup(module, qualname)
    for table in PATCH_TABLES:
        if id(obj) in table:
            return table[id(obj)]
    return obj


def _is_default_rng(fn: Any) -> bool:
    """``fn`` is NumPy's ``default_rng`` (numpy.random._generator's, never patched there);
    numpy.random is not imported for the question (NumPy loads it lazily)."""
    gen = sys.modules.get("numpy.random._generator")
    return gen is not None and fn is getattr(gen, "default_rng", None)


def plain_patch(fn: Any, random: bool = False) -> Any:
    """The (unique) patched version of a NumPy callable that never dispatches (a factory,
    np.load, a draw of the global RandomState): outside any mode it costs one module-global
    read and a call (a plain function: a wrapt proxy costs ~0.3 us more a call; the context
    variable is read only while some context has a mode, ``LIVE``); in a mode the call goes
    to the stack with this function as ``func``. Without keywords the original is called
    with the positional arguments alone (an empty ``**kwargs`` costs a dict).

    ``random``: NumPy's draws also go to the kernels outside a mode when a fake is among
    the arguments (NumPy's C code would loop over it in Python or write into it).
    Methods of the global RandomState are named ``numpy.random.NAME``: they pickle by that
    name and copy as themselves, as the module functions do."""
    w = numpy_patch(fn)
    if w is not None:
        return w
    if random:
        def patched(*args, **kwargs):
            if _LIVE and get_stack():
                caller = _getframe(1)
                if caller.f_globals.get("__name__") not in _NOT_HOST:
                    r = host_call(fn, args, kwargs, caller)
                    if r is not DISPATCH:
                        return r
                return dispatch(patched, (), args, kwargs)
            for a in args:
                if type(a) is _FAKE:
                    return dispatch(patched, (_FAKE,), args, kwargs)
            if kwargs and fake_in_args((), kwargs):
                return dispatch(patched, (_FAKE,), args, kwargs)
            return fn(*args, **kwargs)
    elif _is_default_rng(fn):
        def patched(*args, **kwargs):
            if _LIVE:
                if get_stack() and not _graph_code(_getframe(1)):
                    return dispatch(patched, (), args, kwargs)
                if random_gen.modes_entered() and not _graph_code(_getframe(1)):
                    # paused inside a mode (a library's import), not dask building a graph
                    from .fake_generator import default_rng  # loaded with numpy.random
                    return default_rng(*args, **kwargs)
            return fn(*args, **kwargs)
    else:
        converts = getattr(fn, "__name__", None) in CONVERSIONS

        def patched(*args, **kwargs):
            if _LIVE and get_stack() and not _graph_code(caller := _getframe(1)):
                if (args and type(args[0]) is not _FAKE and isinstance(args[0], _FAKE)
                        and type(args[0]) is not _MATRIX):
                    return _subclass_call(fn, args, kwargs)  # np.empty_like(fake masked)
                if caller.f_globals.get("__name__") not in _NOT_HOST:
                    r = host_call(fn, args, kwargs, caller)
                    if r is not DISPATCH:
                        return r
                if converts and args and _wraps_host_object(type(args[0])):
                    args = (args[0].__array__(),) + args[1:]  # np.asarray(data_array)
                return dispatch(patched, (), args, kwargs)
            if kwargs:
                return fn(*args, **kwargs)
            return fn(*args)
    patched = accelerated(fn, patched, _FAKE if random else None)
    functools.update_wrapper(patched, fn)
    if isinstance(fn, types.MethodType):  # a bound method of np.random's global RandomState
        patched.__module__, patched.__qualname__ = "numpy.random", fn.__name__
    mark_patch(patched)
    record_patch(fn, patched)
    return patched


def kernel_patch(fn: Any, from_library: Callable[[Any], bool] | None = None,
                 fake_among: Callable[[tuple, dict], bool] | None = None,
                 table: dict | None = None) -> Any:
    """The (unique) patched version of a NumPy function with a kernel: inside a FakeMode it
    runs the kernel even when every argument is real (lists, scalars, ndarrays), which the
    FakeMode converts; NumPy's ``__array_function__`` protocol would not call the mode, and
    NumPy's Python code would hand a fake from the patched ``np.asarray`` to C code.

    Calls from NumPy's (or faketensor's) own Python code with real arguments (printing a
    real array, helpers of a function with no kernel) run for real, as before: only user
    entry points convert.
    A FakeMode on top gets NumPy's own function (the key the protocol gives: cache, trace);
    a user mode above it gets the call through NumPy's protocol (its ``types``) when an
    argument overrides it, else this function as ``func``. A plain function, not a wrapt
    proxy: every ``np.f(fake)`` in a mode goes through it (a proxy costs ~0.4 us a call).

    The same patch serves a library without NumPy's protocol (SciPy's functions with a
    rule, modes/scipy_patching.py): ``from_library`` is its frame rule (whose calls with
    real arguments run for real; NumPy's own code by default), ``fake_among`` finds fakes
    anywhere in the arguments: then the rule runs outside any mode too, and a user mode
    above the FakeMode always gets the call; ``table`` is the library's patch table.
    """
    from_lib = from_numpy if from_library is None else from_library
    protocol = fake_among is None
    if getattr(fn, "_ft_patch", False):
        return fn
    w = numpy_patch(fn) if table is None else table.get(id(fn))
    if w is not None:
        return w

    def patched(*args, **kwargs):
        stack = _LIVE and get_stack()
        if stack:
            caller = _getframe(1)
            if caller.f_globals.get("__name__") not in _NOT_HOST:
                r = host_call(fn, args, kwargs, caller)
                if r is not DISPATCH:
                    return r
        if stack and stack[0]._is_fake_mode:
            # a fake first (or first in a list: np.concatenate([f, g])) is the common case,
            # decided without looking at the caller
            a = args[0] if args else None
            t = type(a)
            if protocol and _MATRIX_MADE[0] and _matrix_among(args, kwargs):
                pass  # NumPy's protocol hands it to FakeMatrix.__array_function__
            elif (t is _FAKE or ((t is list or t is tuple) and a and type(a[0]) is _FAKE)
                    or not from_lib(_getframe(1))
                    or (not protocol and fake_among(args, kwargs))):
                if t is not _FAKE and _fake_subclass_among(args, kwargs):
                    return _subclass_call(fn, args, kwargs)
                if stack[-1]._is_fake_mode:
                    return dispatch(fn, (), args, kwargs)
                if not protocol or not _override_among(args, kwargs):
                    return dispatch(patched, (), args, kwargs)
        elif not stack:
            if not protocol and fake_among(args, kwargs):
                return dispatch(fn, (_FAKE,), args, kwargs)  # no protocol to reach the rule
            if len(args) == 1 and not kwargs and type(args[0]) is _FAKE and not args[0].size:
                # a dispatcher that returns its one argument itself (np.roots, np.poly) hands
                # NumPy the array's elements to look at: none for an empty fake, so ask it
                # directly (with no other argument, no other override could come first)
                return args[0].__array_function__(fn, (_FAKE,), args, kwargs)
        if kwargs:
            return fn(*args, **kwargs)
        return fn(*args)

    if protocol or fake_among is fake_in_args:  # no fake at the top level: no rule to run
        patched = accelerated(fn, patched, _FAKE)
    functools.update_wrapper(patched, fn)
    mark_patch(patched)
    record_patch(fn, patched, table)
    return patched


def accelerated(fn: Any, slow: Any, fake_type: type | None) -> Any:
    """The patch to bind: ``slow`` (the pure-Python patch, whose every ``patched`` reference
    then names the result), or, with the compiled accelerator (faketensor/_accel.py), a C
    callable that calls ``fn`` straight through while ``LIVE`` is empty and no argument is
    exactly ``fake_type`` (None: not looked for), where ``slow`` would call ``fn`` too, and
    ``slow`` otherwise (docs/internals/accelerator.md)."""
    if PATCH is None:
        return slow
    return PATCH(fn, slow, _LIVE, fake_type)


_FAKE = _array.FakeArray
_MATRIX = _matrix.FakeMatrix
_MATRIX_MADE = _matrix.MADE  # [True] once a FakeMatrix exists: only then are arguments scanned
_getframe = sys._getframe
_graph_code = graph_code
get_stack = STACK.get
_LIVE = LIVE  # the same dict, mutated in place: truthy while any context may have a mode


def from_numpy(frame: Any) -> bool:
    """True when the frame runs NumPy's own Python code, or faketensor's (the operators'
    elision checks, kernels): library calls, not the program's."""
    name = frame.f_globals.get("__name__") or ""
    return (name[:6] == "numpy." or name == "numpy" or name[:11] == "faketensor."
            or graph_code(frame))


DISPATCH = object()  # host_call's answer: the call goes to the mode as usual
_NOT_HOST = NOT_HOST


def host_call(fn: Any, args: tuple, kwargs: dict, caller: Any) -> Any:
    """A patched call made (past NumPy's own frames) by a host library's code
    (``faketensor/_paths.HOSTS``): with only real arguments it runs for real with the mode
    paused, so pandas' indexes and xarray's bookkeeping (axis numbers, concat masks,
    coordinate indexes) stay ndarrays; a fake among them, from pandas, raises
    DataDependentError naming the pandas call. ``DISPATCH`` otherwise: the caller is not a
    host, or a fake goes to the mode from xarray as from the program."""
    host = _host_of(caller)
    if host is None:
        return DISPATCH
    library, policy, frame = host
    if _fake_in(args) or (kwargs and _fake_in(kwargs.values())):
        if policy == "real":
            raise host_error(library, frame)
        return DISPATCH
    with paused():
        return fn(*args, **kwargs)


_host_of = host_of

# NumPy's conversions of an array-like: ``np.asarray(obj)`` asks ``obj.__array__()``
CONVERSIONS = frozenset({"array", "asarray", "asanyarray", "ascontiguousarray",
                         "asfortranarray", "require", "copy", "asarray_chkfinite"})
_WRAPS_TYPES: dict = {}


def _wraps_host_object(t: type) -> bool:
    """True for the types of a "wraps" host library with ``__array__`` (xarray's DataArray,
    Variable): the program's ``np.asarray(da)`` in a mode converts ``da.__array__()``, run in
    the mode, whose answer is the fake xarray holds (as ``da.values`` is)."""
    hit = _WRAPS_TYPES.get(t)
    if hit is None:
        top = (getattr(t, "__module__", None) or "").partition(".")[0]
        hit = _WRAPS_TYPES[t] = HOSTS.get(top) == "wraps" and hasattr(t, "__array__")
    return hit


def _fake_in(items: Any, depth: int = 0) -> bool:
    """True when a fake is among ``items`` or the items of their lists, tuples and dicts
    (three levels: ``np.array([[f]])``, ``pd.DataFrame({"a": f})``)."""
    fa = _array.FakeArray
    for a in items:
        t = type(a)
        if t is fa:
            return True
        if depth < 3:
            if t is list or t is tuple:
                if _fake_in(a, depth + 1):
                    return True
            elif t is dict and _fake_in(a.values(), depth + 1):
                return True
    return False


def _matrix_among(args: tuple, kwargs: dict) -> bool:
    """A FakeMatrix among the arguments (or the items of a list or tuple argument)."""
    m = _matrix.FakeMatrix
    for a in (*args, *kwargs.values()):
        t = type(a)
        if t is m or ((t is list or t is tuple) and any(type(x) is m for x in a)):
            return True
    return False


def _fake_subclass_among(args: tuple, kwargs: dict) -> bool:
    """True when an argument (or an item of a list or tuple argument) is an instance of a
    FakeArray subclass (numpy.ma's copy over fakes: modes/masked.py)."""
    for a in (*args, *kwargs.values()):
        t = type(a)
        if t is list or t is tuple:
            if any(type(x) is not _FAKE and isinstance(x, _FAKE) for x in a):
                return True
        elif t is not _FAKE and isinstance(a, _FAKE):
            return True
    return False


def _subclass_call(fn: Any, args: tuple, kwargs: dict) -> Any:
    """fn through NumPy's protocol, as for an ndarray subclass: the subclass instance's
    ``__array_function__`` (which runs NumPy's Python implementation on it)."""
    for a in (*args, *kwargs.values()):
        for x in (a if type(a) in (list, tuple) else (a,)):
            if type(x) is not _FAKE and isinstance(x, _FAKE):
                return x.__array_function__(fn, (type(x),), args, kwargs)
    raise AssertionError("no FakeArray subclass among the arguments")


def _override_among(args: tuple, kwargs: dict) -> bool:
    """True when an argument (or an item of a list or tuple argument) implements
    ``__array_function__`` other than ndarray's: NumPy's protocol hands the call to it."""
    for a in (*args, *kwargs.values()):
        t = type(a)
        if t is list or t is tuple:
            if any(_overrides(type(x)) for x in a):
                return True
        elif _overrides(t):
            return True
    return False


def _overrides(t: type) -> bool:
    f = getattr(t, "__array_function__", None)
    return f is not None and f is not _NDARRAY_AF


_NDARRAY_AF = np.ndarray.__array_function__


def fake_in_args(args: tuple, kwargs: dict) -> bool:
    fa = _array.FakeArray
    for a in args:
        if type(a) is fa:
            return True
    if kwargs:
        for a in kwargs.values():
            if type(a) is fa:
                return True
    return False




def patch_callable(fn: Any, random: bool = False) -> Any:
    """The (unique) patched version of fn (``plain_patch``)."""
    if getattr(fn, "_ft_patch", False):
        return fn
    return plain_patch(fn, random)


def patch_names(module: Any, names: Iterable[str], random: bool = False) -> None:
    """Replace module.NAME by its patched version for each name the module has."""
    for name in names:
        fn = getattr(module, name, None)
        if fn is None or not callable(fn) or isinstance(fn, type):
            continue
        setattr(module, name, patch_callable(fn, random))


# Namespaces whose functions with a kernel are patched (NumPy binds each function under
# several module paths; these are the public ones users call through)
KERNEL_MODULES = ("numpy", "numpy.linalg", "numpy.lib.stride_tricks", "numpy.rec",
                  "numpy.strings", "numpy.char")


def kernel_names(module: Any) -> list[str]:
    """Names in module bound to a function with a registered kernel. Ufuncs are not patched:
    NumPy and its users check ``isinstance(f, np.ufunc)``; a ufunc given only real
    arguments runs for real. The module's own dict, not ``dir``: NumPy's lazily imported
    submodules (numpy.f2py, numpy.testing, ...) stay unimported."""
    out = []
    for name, fn in list(vars(module).items()):
        if (name.startswith("_") or isinstance(fn, (type, np.ufunc, types.ModuleType))
                or not callable(fn) or getattr(fn, "_ft_patch", False)):
            continue
        try:
            if (fn, "numpy") in REGISTRY:
                out.append(name)
        except TypeError:  # unhashable
            continue
    return out


def random_names() -> list[str]:
    """The names of np.random's draws (numpy.random is loaded: the installer calls this when
    it loads)."""
    random = sys.modules["numpy.random"]
    rs = random.mtrand._rand
    out = []
    for name in dir(random):
        if name.startswith("_") or name in RANDOM_SKIP:
            continue
        fn = getattr(random, name)
        if getattr(fn, "__self__", None) is rs or name in RANDOM_ALIASES:
            out.append(name)
    return out
