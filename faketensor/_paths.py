"""Whose code is this file: the user's, or a library's? One rule for the import hook
(modes/imports.py: library modules import with the mode paused) and for the source line
blamed for a data-dependent placeholder (FakeArray's value methods).

Libraries are the standard library, site-packages (``sysconfig`` install paths and
``site.getsitepackages()``, for the running interpreter and its base) and faketensor itself;
built-in and frozen modules too. Everything else is user code, unless a planner names the
script's folders (``SCRIPT_DIRS``): then only files under them are the user's. The most
specific folder decides, so a virtual environment inside the script's folder is a library.
"""
from __future__ import annotations

import os
import site
import sys
import sysconfig  # used at import (_install_folders), before the import hook exists
from contextvars import ContextVar
from types import FrameType
from typing import Any

# Folders whose files are user code, set by modes/imports.script_imports; () = default rule.
SCRIPT_DIRS: ContextVar[tuple] = ContextVar("faketensor_script_dirs", default=())

_roots: tuple | None = None
_cache: dict = {}


def _norm(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _install_folders() -> frozenset:
    """The interpreter's library folders: ``sysconfig`` install paths (of the running
    interpreter and of its base) and ``site``'s package folders.

    Computed once when this module is imported, before modes/imports.py puts its finder on
    ``sys.meta_path``: ``sysconfig.get_paths`` loads its configuration lazily, with an import
    (``_sysconfigdata_*``, CPython 3.13 Lib/sysconfig/__init__.py ``_init_posix``); asked first
    from inside that finder, the import re-entered the finder half-way through and sysconfig's
    half-built variables raised ``AttributeError: 'abi_thread'``."""
    found = set()
    for scheme_vars in (None, {"base": sys.base_prefix, "platbase": sys.base_exec_prefix,
                               "installed_base": sys.base_prefix,
                               "installed_platbase": sys.base_exec_prefix}):
        paths = sysconfig.get_paths(vars=scheme_vars) if scheme_vars else sysconfig.get_paths()
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            if paths.get(key):
                found.add(paths[key])
    try:
        found.update(site.getsitepackages())
    except AttributeError:  # some embedded interpreters' site lacks it
        pass
    user_site = getattr(site, "getusersitepackages", lambda: None)()
    if user_site:
        found.add(user_site)
    return frozenset(found)


_INSTALL_FOLDERS = _install_folders()


def library_roots() -> tuple:
    """The folders holding library code (computed once, importing nothing)."""
    global _roots
    if _roots is None:
        found = set(_INSTALL_FOLDERS)
        here = os.path.dirname(os.path.abspath(__file__))
        pkg = sys.modules.get("faketensor")
        # faketensor's subpackages install from sibling folders (pyproject's package-dir)
        for sub in ("", ".kernels", ".modes", ".meta_utils"):
            mod = sys.modules.get("faketensor" + sub) if pkg is not None else None
            for p in getattr(mod, "__path__", ()) or ():
                found.add(p)
        found.add(here)
        _roots = tuple(sorted({_norm(p) + os.sep for p in found}, key=len, reverse=True))
    return _roots


def _deepest(path: str, roots: tuple) -> int:
    """Length of the longest root containing ``path`` (0: none)."""
    best = 0
    for r in roots:
        if len(r) > best and path.startswith(r):
            best = len(r)
    return best


def is_user_file(filename: Any) -> bool:
    """True when ``filename`` (a module's origin or a code object's file) is user code."""
    dirs = SCRIPT_DIRS.get()
    key = (dirs, filename)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    if not isinstance(filename, str) or filename in ("built-in", "frozen"):
        user = False
    elif filename.startswith("<"):  # "<stdin>", "<string>", IPython's "<ipython-input-..>"
        user = not filename.startswith("<frozen ")
    else:
        path = _norm(filename)
        lib = _deepest(path, library_roots())
        if dirs:
            user = _deepest(path, dirs) > lib
        else:
            user = lib == 0
    if len(_cache) > 65536:
        _cache.clear()
    _cache[key] = user
    return user


def script_dirs(*folders: str) -> tuple:
    """The form SCRIPT_DIRS holds: normalized folders ending in a separator."""
    return tuple(_norm(f) + os.sep for f in folders)


# The frame that started the work this thread runs (a pool task's submitter, e.g. the line
# calling dask's compute): a walk for the user's frame that runs off the top of a worker
# thread's stack goes on from it (modes/dask_support.py sets it for the threaded scheduler).
SPAWNED_FROM: ContextVar[Any] = ContextVar("faketensor_spawned_from", default=None)


def user_frame(depth: int = 1) -> FrameType | None:
    """The innermost frame of user code calling this (None when there is none)."""
    frame: FrameType | None = sys._getframe(depth + 1)
    parent = SPAWNED_FROM.get()
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
        if frame is None:
            frame, parent = parent, None
    return None


# --- host libraries -------------------------------------------------------------------
# Libraries that keep NumPy arrays of their own and call NumPy on them from Python. Inside a
# mode, their calls with only real arguments run for real with the mode paused: pandas'
# blocks and indexes, xarray's coordinates and axis bookkeeping (``np.atleast_1d(axis)``)
# stay ndarrays, as the libraries' C code and isinstance checks need.
#   "real":  the library holds only ndarrays (its blocks, Cython typed ndarray arguments);
#            a fake reaching NumPy from its code raises DataDependentError naming it.
#   "wraps": the library wraps duck arrays (NEP 18): a call with a fake among its arguments
#            goes to the mode as the program's would. Its allocations from real sizes
#            (coordinate lengths: concat's masks, ``DataArray(0.0, coords=...)``) are real.
HOSTS: dict[str, str] = {"pandas": "real", "xarray": "wraps"}

_HOST_WHY = {
    "pandas": ("pandas keeps values in NumPy blocks and indexes, which it copies and inspects "
               "(dtype inference, missing-value checks), so it needs data a fake array does "
               "not have; keep fakes out of pandas objects, or ft.materialize(x, fill=...) "
               "them first"),
    "xarray": ("xarray reads the values here (the pandas index of a dimension coordinate, a "
               "conversion to NumPy, pandas or a Python value: `.values`, `.to_numpy()`, "
               "`bool()` outside a mode), which a fake array does not have; give dimension "
               "coordinates real values, or attach fakes as non-dimension coordinates"),
}


# Module names whose frames are neither NumPy's nor a host library's (the program's,
# faketensor's, other libraries'): a patched function they call needs no walk up the stack.
NOT_HOST: dict[str, bool] = {}


def host_of(frame: Any, skip: tuple = ("numpy",)) -> tuple | None:
    """``(library, policy, frame)`` when the first frame from ``frame`` outwards whose
    package is not in ``skip`` (NumPy's own Python code) belongs to a host library
    (``HOSTS``), else None."""
    first = True
    while frame is not None:
        name = frame.f_globals.get("__name__") or ""
        top = name.partition(".")[0]
        if top not in skip:
            policy = HOSTS.get(top)
            if policy is None:
                if first and top != "numpy" and len(NOT_HOST) < 65536:
                    NOT_HOST[name] = True  # NumPy's frames are walked past: never cached
                return None
            return top, policy, frame
        first = False
        frame = frame.f_back
    return None


def host_entry(library: str, frame: Any) -> tuple[str, str]:
    """The call the program made into host libraries, from ``frame`` (``library``'s) outwards
    over host libraries' and NumPy's frames: ``pandas Series.__init__``, or
    ``xarray DataArray.__init__ (through pandas Index.__new__)``; and the outermost library."""
    inner = outer = (library, frame)
    while frame is not None:
        top = (frame.f_globals.get("__name__") or "").partition(".")[0]
        if top in HOSTS:
            if top == library and outer[0] == library:
                inner = (top, frame)
            outer = (top, frame)
        elif top != "numpy" and top != "faketensor":
            break
        frame = frame.f_back

    def name(lib_frame: tuple) -> str:
        code = lib_frame[1].f_code
        return f"{lib_frame[0]} {getattr(code, 'co_qualname', code.co_name)}"
    if outer[0] == library:
        return name(outer), library
    return f"{name(outer)} (through {name(inner)})", outer[0]


def host_error(library: str, frame: Any) -> Exception:
    """The DataDependentError for a fake array whose values a host library's code needs."""
    from ._errors import DataDependentError
    call, outer = host_entry(library, frame)
    return DataDependentError(f"{call} needs the values of a fake array: "
                              f"{_HOST_WHY.get(outer, 'it reads them')}")
