"""Installing the namespace patches: NumPy's once (``install``, from ``import faketensor``),
then each library's as its modules are imported (the import hook below): CuPy, dask,
SciPy, matplotlib, pandas and xarray. The top of modes/: it imports the patchers
(patching.py, python_entry.py, masked.py, loading.py, random_gen.py, ...), none imports it."""
from __future__ import annotations

import copyreg
import importlib
import importlib.machinery
import operator
import sys
import types
from typing import Any, cast

import numpy as np

from .._numpy_version import dispatches
from .._stack import paused
from .dask_support import HOOKED as DASK_HOOKED, dask_imported, rebind_dask
from . import fake_mode
from .patch_tables import originals, patched_of
from .patching import (FFT_FACTORIES, KERNEL_MODULES, NUMPY_FACTORIES, fake_in_args,
                       kernel_names, kernel_patch, patch_names, random_names)

_installed = False
_installed_all = False  # install() has run past its pickling set-up
_getframe = sys._getframe


def install() -> None:
    """Install the NumPy (and, if imported, CuPy) patches once."""
    global _installed, _installed_all
    if _installed:
        return
    _installed = True
    patch_names(np, NUMPY_FACTORIES)
    patch_names(np.lib.stride_tricks, ("as_strided",))  # builds through __array_interface__
    for name in KERNEL_MODULES:
        _kernel_patches(importlib.import_module(name))
    from . import python_entry
    python_entry.install()  # np.mgrid, np.r_, np.fromfunction, np.recarray, np.memmap, ...
    if "numpy.random" in sys.modules:  # else when NumPy first imports it (the hook below)
        _random_imported()
    if "numpy.fft" in sys.modules:  # the same
        _fft_imported()
    if "numpy.polynomial" in sys.modules:  # else at its first import (the hook below)
        _polynomial_imported()
    if "numpy.ma" in sys.modules:  # before dask's rebinding; else at numpy.ma's first import
        _ma_imported()
    if "cupy" in sys.modules:
        _cupy_imported(sys.modules["cupy"])
    for name in DASK_HOOKED:
        if name in sys.modules:
            _dask_imported(sys.modules[name])
    if "dask" in sys.modules:
        rebind_dask(patched_of)
    _pickle_originals_as_patches()
    _installed_all = True
    from . import loading
    loading.install()  # pickle's loaders hand fakes back in a mode (modes/loading.py)
    if "scipy" in sys.modules:
        _scipy_imported(None)
    if "matplotlib" in sys.modules:
        _matplotlib_imported(None)
    if "array_api_compat" in sys.modules:
        _array_api_imported()
    sys.meta_path.insert(0, _HOOK)
    if "numpy.random" in sys.modules:  # imported since the check above (no-op if set up)
        _random_imported()
    if "numpy.fft" in sys.modules:  # the same
        _fft_imported()
    if "numpy.polynomial" in sys.modules:  # the same
        _polynomial_imported()
    if "numpy.ma" in sys.modules:  # imported since the check above, before the hook (no-op if not)
        _ma_imported()


_random_done = False


def _random_imported() -> None:
    """Set numpy.random up for fakes once it is loaded (NumPy imports it lazily, on first use
    of ``np.random``; eagerly it was a fifth of ``import faketensor``): its rules registered
    (kernels/numpy/random.py), its draws and ``default_rng`` patched, its compiled modules'
    private ``np`` (modes/random_gen.py), ``FakeGenerator`` (modes/fake_generator.py). Once,
    with the mode stack paused; the import lock of numpy.random keeps other threads out."""
    global _random_done
    if _random_done:
        return
    with paused():
        random = sys.modules["numpy.random"]
        np.random = random  # bound now: importlib binds it only after the module's code ran
        from ..kernels.numpy import random as random_kernels
        random_kernels.register_all()
        draws = random_names()
        patch_names(random, draws, random=True)
        patch_names(random.mtrand, draws, random=True)
        patch_names(random, ["default_rng"])
        from .random_gen import install_namespaces
        install_namespaces()  # numpy.random's C code gets the unpatched factories
        from . import fake_generator  # noqa: F401  (FakeGenerator's methods: the rules above)
        fake_mode.random_imported()
        _random_done = True
        if _installed_all:
            _pickle_originals_as_patches()


def _kernel_patches(module: Any) -> None:
    """Patch the functions of a NumPy namespace that have a rule (patching.kernel_patch)."""
    for fname in kernel_names(module):
        fn = getattr(module, fname)
        # a function outside NumPy's protocol on this version: fakes reach its rule here
        setattr(module, fname, kernel_patch(fn, fake_among=None if dispatches(module.__name__, fn)
                                            else fake_in_args))


_fft_done = False


def _fft_imported() -> None:
    """Set numpy.fft up for fakes once NumPy loads it (lazily, as numpy.random): its rules
    registered (kernels/numpy/fft.py), its functions with a rule and its factories patched.
    Once, with the mode stack paused."""
    global _fft_done
    if _fft_done:
        return
    with paused():
        fft = sys.modules["numpy.fft"]
        np.fft = fft  # bound now: importlib binds it only after the module's code ran
        from ..kernels.numpy import fft as fft_kernels
        fft_kernels.register_all()
        patch_names(fft, FFT_FACTORIES)
        _kernel_patches(fft)
        _fft_done = True
        if _installed_all:
            _pickle_originals_as_patches()


def _polynomial_imported() -> None:
    """numpy.polynomial's evaluators made fake-aware (modes/python_entry.py) once NumPy loads
    it (lazily, as numpy.random); each is patched once (``install_poly_vals`` skips a patch)."""
    with paused():
        from . import python_entry
        python_entry.install_poly_vals()


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
    patched = patched_of(obj)
    if patched is None or _getframe(1).f_globals.get("__name__") == "copy":
        return obj.__reduce__()
    return (operator.itemgetter(0), ((patched,),))


def _pickle_originals_as_patches() -> None:
    """Register ``_reduce_original`` with copyreg for the types of the replaced originals
    that pickle by name through ``__reduce__`` (NumPy's ``_ArrayFunctionDispatcher``,
    builtin and Cython functions); a plain Python function is saved by pickle's
    ``save_global`` without consulting copyreg, and cloudpickle, distributed's fallback,
    pickles such a function by value when its name is bound to another object."""
    for obj in originals():
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


def _array_api_imported() -> None:
    """A CPU fake counts as an ndarray in array-api-compat (modes/array_api_patching.py)."""
    from . import array_api_patching
    array_api_patching.install()


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
                and not _is_scipy(fullname) and not _is_matplotlib(fullname) and not host
                and fullname != "array_api_compat"):
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
        elif module.__name__ == "numpy.random":
            _random_imported()
        elif module.__name__ == "numpy.fft":
            _fft_imported()
        elif module.__name__ == "numpy.polynomial":
            _polynomial_imported()
        elif module.__name__ == "numpy.ma":
            np.ma = module  # bound now, as importlib binds it only after this returns
            _ma_imported()
        elif module.__name__ in DASK_HOOKED:
            _dask_imported(module)
        elif _is_scipy(module.__name__):
            _scipy_imported(module)
        elif _is_matplotlib(module.__name__):
            _matplotlib_imported(module)
        elif module.__name__ == "array_api_compat":
            _array_api_imported()


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
