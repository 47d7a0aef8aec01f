"""Namespace patches for the NumPy calls that never dispatch (factories, np.random, np.load)
and for every NumPy function with a kernel, whose arguments may all be real.

Installed once; outside any mode a patched function reads one module global (``LIVE``,
empty while no context in the process has a mode: faketensor/_stack.py) and calls the
original. Inside a mode the call goes to the mode stack, with the patched
function as ``func`` so a mode calling it re-dispatches to the next mode down.
"""
from __future__ import annotations

import copyreg
import functools
import importlib
import importlib.machinery
import operator
import sys
import types
from typing import Any, Callable, Iterable, cast

import numpy as np

from .. import _array, _matrix
from .._dispatch import _STACK, dispatch
from .._numpy_version import dispatches
from .._paths import HOSTS, NOT_HOST, host_error, host_of
from .._stack import LIVE, paused
from ..kernels.registry import REGISTRY
from .dask_support import HOOKED as DASK_HOOKED, dask_imported, graph_code, rebind_dask

NUMPY_FACTORIES = (
    "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "geomspace",
    "eye", "identity", "array", "asarray", "asanyarray", "ascontiguousarray",
    "asfortranarray", "zeros_like", "ones_like", "empty_like", "full_like", "tri",
    "indices", "load", "hanning", "hamming", "blackman", "bartlett", "kaiser",
    "copy", "frombuffer", "fromfile", "fromiter", "require", "asarray_chkfinite",
    "tril_indices", "triu_indices", "diag_indices", "mask_indices", "meshgrid",
    "broadcast_shapes",
)
NUMPY_MODULES = ("numpy", "numpy.fft", "numpy.lib.stride_tricks")
FFT_FACTORIES = ("fftfreq", "rfftfreq")
# np.random: module-level functions that draw (methods of the global RandomState, and the
# mtrand aliases ranf/sample that call it from C); patched in np.random and numpy.random.mtrand
RANDOM_ALIASES = ("ranf", "sample")
RANDOM_SKIP = frozenset({"seed", "get_bit_generator",
                         "set_bit_generator", "default_rng", "RandomState", "Generator",
                         "SeedSequence", "BitGenerator", "MT19937", "PCG64", "PCG64DXSM",
                         "Philox", "SFC64", "bit_generator", "mtrand"})


def _lookup(module: str, qualname: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _by_name(module: str, qualname: str) -> Any:
    """Unpickle a function by where it is defined (its patched version when there is one)."""
    obj = _lookup(module, qualname)
    for table in PATCH_TABLES:
        if id(obj) in table:
            return table[id(obj)]
    return obj


def mark_patch(fn: Any) -> None:
    """Mark a callable as faketensor's patch (``_ft_patch``): _array._no_data and the
    import hook tell the patches from NumPy's own functions by it."""
    setattr(fn, "_ft_patch", True)


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
    w = _PATCHED.get(id(fn))
    if w is not None:
        return w
    if random:
        def patched(*args, **kwargs):
            if _LIVE and _get_stack():
                caller = _getframe(1)
                if caller.f_globals.get("__name__") not in _NOT_HOST:
                    r = _host_call(fn, args, kwargs, caller)
                    if r is not _DISPATCH:
                        return r
                return dispatch(patched, (), args, kwargs)
            for a in args:
                if type(a) is _FAKE:
                    return dispatch(patched, (_FAKE,), args, kwargs)
            if kwargs and _fake_among((), kwargs):
                return dispatch(patched, (_FAKE,), args, kwargs)
            return fn(*args, **kwargs)
    else:
        converts = getattr(fn, "__name__", None) in CONVERSIONS

        def patched(*args, **kwargs):
            if _LIVE and _get_stack() and not _graph_code(caller := _getframe(1)):
                if (args and type(args[0]) is not _FAKE and isinstance(args[0], _FAKE)
                        and type(args[0]) is not _MATRIX):
                    return _subclass_call(fn, args, kwargs)  # np.empty_like(fake masked)
                if caller.f_globals.get("__name__") not in _NOT_HOST:
                    r = _host_call(fn, args, kwargs, caller)
                    if r is not _DISPATCH:
                        return r
                if converts and args and _wraps_host_object(type(args[0])):
                    args = (args[0].__array__(),) + args[1:]  # np.asarray(data_array)
                return dispatch(patched, (), args, kwargs)
            if kwargs:
                return fn(*args, **kwargs)
            return fn(*args)
    functools.update_wrapper(patched, fn)
    if isinstance(fn, types.MethodType):  # a bound method of np.random's global RandomState
        patched.__module__, patched.__qualname__ = "numpy.random", fn.__name__
    mark_patch(patched)
    _PATCHED[id(fn)] = patched
    _ORIGINALS[id(fn)] = fn  # keeps the id stable
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
    from_lib = _from_numpy if from_library is None else from_library
    protocol = fake_among is None
    table = _PATCHED if table is None else table
    if getattr(fn, "_ft_patch", False):
        return fn
    w = table.get(id(fn))
    if w is not None:
        return w

    def patched(*args, **kwargs):
        stack = _LIVE and _get_stack()
        if stack:
            caller = _getframe(1)
            if caller.f_globals.get("__name__") not in _NOT_HOST:
                r = _host_call(fn, args, kwargs, caller)
                if r is not _DISPATCH:
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

    functools.update_wrapper(patched, fn)
    mark_patch(patched)
    table[id(fn)] = patched
    _ORIGINALS[id(fn)] = fn  # keeps the id stable
    return patched


_FAKE = _array.FakeArray
_MATRIX = _matrix.FakeMatrix
_MATRIX_MADE = _matrix.MADE  # [True] once a FakeMatrix exists: only then are arguments scanned
_getframe = sys._getframe
_graph_code = graph_code
_get_stack = _STACK.get
_LIVE = LIVE  # the same dict, mutated in place: truthy while any context may have a mode


def _from_numpy(frame: Any) -> bool:
    """True when the frame runs NumPy's own Python code, or faketensor's (the operators'
    elision checks, kernels): library calls, not the program's."""
    name = frame.f_globals.get("__name__") or ""
    return (name[:6] == "numpy." or name == "numpy" or name[:11] == "faketensor."
            or graph_code(frame))


_DISPATCH = object()  # _host_call's answer: the call goes to the mode as usual
_NOT_HOST = NOT_HOST


def _host_call(fn: Any, args: tuple, kwargs: dict, caller: Any) -> Any:
    """A patched call made (past NumPy's own frames) by a host library's code
    (``faketensor/_paths.HOSTS``): with only real arguments it runs for real with the mode
    paused, so pandas' indexes and xarray's bookkeeping (axis numbers, concat masks,
    coordinate indexes) stay ndarrays; a fake among them, from pandas, raises
    DataDependentError naming the pandas call. ``_DISPATCH`` otherwise: the caller is not a
    host, or a fake goes to the mode from xarray as from the program."""
    host = _host_of(caller)
    if host is None:
        return _DISPATCH
    library, policy, frame = host
    if _fake_in(args) or (kwargs and _fake_in(kwargs.values())):
        if policy == "real":
            raise host_error(library, frame)
        return _DISPATCH
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


def _fake_among(args: tuple, kwargs: dict) -> bool:
    fa = _array.FakeArray
    for a in args:
        if type(a) is fa:
            return True
    if kwargs:
        for a in kwargs.values():
            if type(a) is fa:
                return True
    return False


_PATCHED: dict[int, Any] = {}
PATCH_TABLES: list = [_PATCHED]  # id(original) -> patched version, per namespace patcher
_ORIGINALS: dict[int, Any] = {}
_installed = False


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
KERNEL_MODULES = ("numpy", "numpy.linalg", "numpy.fft", "numpy.lib.stride_tricks", "numpy.rec",
                  "numpy.strings", "numpy.char")


def _kernel_names(module: Any) -> list[str]:
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


def _random_names() -> list[str]:
    rs = np.random.mtrand._rand
    out = []
    for name in dir(np.random):
        if name.startswith("_") or name in RANDOM_SKIP:
            continue
        fn = getattr(np.random, name)
        if getattr(fn, "__self__", None) is rs or name in RANDOM_ALIASES:
            out.append(name)
    return out


def install() -> None:
    """Install the NumPy (and, if imported, CuPy) patches once."""
    global _installed
    if _installed:
        return
    _installed = True
    patch_names(np, NUMPY_FACTORIES)
    patch_names(np.fft, FFT_FACTORIES)
    patch_names(np.lib.stride_tricks, ("as_strided",))  # builds through __array_interface__
    random_names = _random_names()
    patch_names(np.random, random_names, random=True)
    patch_names(np.random.mtrand, random_names, random=True)
    patch_names(np.random, ["default_rng"])
    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        for fname in _kernel_names(module):
            fn = getattr(module, fname)
            # a function outside NumPy's protocol on this version: fakes reach its rule here
            setattr(module, fname, kernel_patch(fn, fake_among=None if dispatches(name, fn)
                                                else _fake_among))
    from .random_gen import install_namespaces
    install_namespaces()  # numpy.random's C code gets the unpatched factories
    from . import python_entry
    python_entry.install()  # np.mgrid, np.r_, np.fromfunction, np.recarray, np.memmap, ...
    if "numpy.ma" in sys.modules:  # before dask's rebinding; else at numpy.ma's first import
        _ma_imported()
    if "cupy" in sys.modules:
        _cupy_imported(sys.modules["cupy"])
    for name in DASK_HOOKED:
        if name in sys.modules:
            _dask_imported(sys.modules[name])
    if "dask" in sys.modules:
        rebind_dask(_patched_of)
    _pickle_originals_as_patches()
    from . import loading
    loading.install()  # pickle's loaders hand fakes back in a mode (modes/loading.py)
    if "scipy" in sys.modules:
        _scipy_imported(None)
    if "matplotlib" in sys.modules:
        _matplotlib_imported(None)
    sys.meta_path.insert(0, _HOOK)
    if "numpy.ma" in sys.modules:  # imported since the check above, before the hook (no-op if not)
        _ma_imported()


def _ma_imported() -> None:
    """Patch numpy.ma for fakes (modes/masked.py, imported only once numpy.ma is: it costs a
    third of ``import faketensor``)."""
    with paused():
        from . import masked  # noqa: F401  (installs itself: its last line)


def _cupy_imported(module: Any) -> None:
    """Register CuPy's rules and patch its namespace (modes/cupy_patching.py, imported only
    now: it needs wrapt)."""
    with paused():  # CuPy's own imports and NumPy calls run for real
        from .cupy_patching import install_cupy
        install_cupy(module)


def _patched_of(obj: Any) -> Any:
    """The patch standing for NumPy original ``obj`` in a namespace, or None."""
    for table in PATCH_TABLES:
        p = table.get(id(obj))
        if p is not None and _ORIGINALS.get(id(obj)) is obj:
            return p
    return None


patched_of = _patched_of  # the public name other modules import


def _reduce_original(obj: Any) -> Any:
    """Pickle a NumPy original that a namespace patch replaced as the name it is bound to
    now: pickle looks ``numpy.ones_like`` up and refuses an object that is not the one bound
    there, and a library imported before faketensor keeps originals in its closures and
    partials (``dask.array.wrap``'s ``broadcast_trick(np.ones_like)``), so its graphs could
    not be sent to a dask.distributed scheduler. ``itemgetter(0)((patch,))`` unpickles as
    whatever the name is bound to where it is loaded (the original without faketensor);
    stdlib only. Other objects of the type reduce as before, and so does an original for
    ``copy.copy``/``deepcopy`` (they read the same copyreg table; a function copies as
    itself)."""
    patched = _patched_of(obj)
    if patched is None or _getframe(1).f_globals.get("__name__") == "copy":
        return obj.__reduce__()
    return (operator.itemgetter(0), ((patched,),))


def _pickle_originals_as_patches() -> None:
    """Register ``_reduce_original`` with copyreg for the types of the replaced originals
    that pickle by name through ``__reduce__`` (NumPy's ``_ArrayFunctionDispatcher``,
    builtin and Cython functions); a plain Python function is saved by pickle's
    ``save_global`` without consulting copyreg, and cloudpickle, distributed's fallback,
    pickles such a function by value when its name is bound to another object."""
    for obj in list(_ORIGINALS.values()):
        t = type(obj)
        if t is types.FunctionType or t is types.MethodType or t in copyreg.dispatch_table:
            continue
        if t.__name__ in ("_ArrayFunctionDispatcher", "builtin_function_or_method",
                          "cython_function_or_method"):
            copyreg.dispatch_table[t] = _reduce_original


def _dask_imported(module: Any) -> None:
    """Set up dask's modules for fakes (modes/dask_support.py) once they are imported."""
    with paused():
        dask_imported(module)


def _scipy_imported(module: Any) -> None:
    """Patch a SciPy module after its code ran (modes/scipy_patching.py, imported only once
    SciPy is); None: every SciPy module imported so far."""
    with paused():
        from . import scipy_patching
        if module is None:
            scipy_patching.install()
        else:
            scipy_patching.imported(module)


def _matplotlib_imported(module: Any) -> None:
    """Patch a matplotlib module after its code ran (modes/matplotlib_patching.py: its own
    work runs for real in a mode, fakes given to it are sinks); None: every one so far."""
    with paused():
        from . import matplotlib_patching
        if module is None:
            matplotlib_patching.install()
        else:
            matplotlib_patching.imported(module)


class _ImportHook:  # duck-typed: importlib.abc imports importlib.resources, tempfile, shutil
    """Runs the module code of NumPy's submodules (numpy.ma, numpy.polynomial, ... which
    NumPy imports lazily, perhaps first inside a mode) and of ``cupy`` with the mode stack
    paused: their module-level arrays are real, as at import time outside any mode. After
    ``cupy``'s code it patches cupy's namespace: the first ``import cupy``, in a mode or not,
    before or after ``import faketensor``, gets it; ``import faketensor`` never imports CuPy.
    After the code of dask's modules in ``dask_support.HOOKED`` it sets them up for fakes
    (never importing dask). SciPy's and matplotlib's modules are patched the same way after
    their code (modes/scipy_patching.py, modes/matplotlib_patching.py)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        host = fullname in HOST_PACKAGES
        if (fullname != "cupy" and fullname[:6] != "numpy." and fullname not in DASK_HOOKED
                and not _is_scipy(fullname) and not _is_matplotlib(fullname) and not host):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            # a duck-typed loader (importlib.abc's base class would import importlib.resources)
            spec.loader = cast(Any, (_HostExec if host else _PausedExec)(spec.loader))
        return spec


class _PausedExec:
    """A module's own loader, its code run with the mode stack paused."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def __getattr__(self, name: str) -> Any:  # get_resource_reader, is_package, ...
        return getattr(self.loader, name)

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__loader__ = module.__spec__.loader = self.loader
        with paused():
            self.loader.exec_module(module)
        if module.__name__ == "cupy":
            _cupy_imported(module)
        elif module.__name__ == "numpy.ma":
            np.ma = module  # bound now, as importlib binds it only after this returns
            _ma_imported()
        elif module.__name__ in DASK_HOOKED:
            _dask_imported(module)
        elif _is_scipy(module.__name__):
            _scipy_imported(module)
        elif _is_matplotlib(module.__name__):
            _matplotlib_imported(module)


HOST_PACKAGES = ("pandas", "xarray")


class _HostExec:
    """pandas' or xarray's own loader, run as it is (modes/imports.py pauses it in a mode);
    then their data exits are patched (modes/loading.py)."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__loader__ = module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        from .loading import patch_hosts
        patch_hosts()


def _is_scipy(name: str) -> bool:
    return name == "scipy" or name[:6] == "scipy."


def _is_matplotlib(name: str) -> bool:
    return name == "matplotlib" or name[:11] == "matplotlib." or name[:13] == "mpl_toolkits."


_HOOK = _ImportHook()


def original(fn: Any) -> Any:
    """The unpatched callable behind a patched one."""
    if getattr(fn, "_ft_patch", False):
        return fn.__wrapped__
    return fn
