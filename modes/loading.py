"""Data entering during a plan becomes fakes: unpickled arrays, ``np.frombuffer``.

A program that loads its data set (``pickle.load(gzip.open(path))``, ``np.load(path,
allow_pickle=True)``) gets real arrays from the loader. Left real, arithmetic on them would run
for real through ndarray's operators, uncounted. Inside a FakeMode the loaders' results are
handed back with every plain ndarray replaced by a fake, through the mode's own real -> fake
conversion, and charged as NumPy charges them:

- an array whose buffer NumPy allocated while loading (``ndarray.__setstate__`` copies a
  buffer of at most 1000 bytes, or a byte-swapped or misaligned one, into memory of its own:
  numpy/_core/src/multiarray/methods.c ``array_setstate``) is a fresh fake of its size,
  charged at the user's line by the ``loaded`` op (kernels/numpy/npyio.py);
- an array over the loader's bytes (a larger buffer, which NumPy keeps pointing into the
  pickle's bytes object; protocol 5's ``frombuffer`` views) takes no memory from NumPy's
  allocator: it is converted as pre-existing data, reported apart and never charged.

The real arrays are dropped once converted, so no computation runs on them. Only the
program's own calls are converted: a library unpickling its own objects (pandas'
``read_pickle``, dask's tasks) gets them as they are.
"""
from __future__ import annotations

import functools
import inspect
import os
import pickle
import sys
from typing import Any

import numpy as np

from .._dispatch import STACK, dispatch
from .._paths import is_user_file
from .._stack import paused
from .._array import make_fake
from ..kernels.numpy.npyio import loaded

_installed = False
_ORIGINALS: dict = {}


def _fake_mode() -> Any:
    """The innermost FakeMode on this context's stack, or None."""
    for mode in reversed(STACK.get()):
        if getattr(mode, "_is_fake_mode", False):
            return mode
    return None


def owns_new_buffer(x: np.ndarray) -> bool:
    """True when x owns its buffer (NumPy allocated it), False when it views other memory."""
    return x.base is None


def _root(x: np.ndarray) -> np.ndarray:
    """The last ndarray of x's base chain (the array owning the buffer, if one does)."""
    while isinstance(x.base, np.ndarray):
        x = x.base
    return x


def _fresh(mode: Any, x: np.ndarray, inside: bool) -> Any:
    """A fresh fake of x's layout, charged at the user's line (the ``loaded`` op)."""
    return mode._run(loaded, (), (x,), {}) if inside else dispatch(loaded, (), (x,), {})


def to_fakes(mode: Any, obj: Any, memo: dict | None = None, inside: bool = False,
             kept: frozenset | None = None, unpickled: bool = False) -> Any:
    """obj with its plain ndarrays (in tuples, lists, dicts, at any depth) made fakes.
    ``inside``: called from the mode's own handler (the mode is off the stack then).
    ``kept``: ids of the buffers a host object already held (None: a loader's result); a
    view of an owned buffer not among them was allocated by the call and is charged.
    ``unpickled``: obj comes from an unpickler (NumPy's ``__setstate__`` made its arrays)."""
    memo = {} if memo is None else memo
    t = type(obj)
    if t is np.ndarray:
        got = memo.get(id(obj))
        if got is not None:
            return got[1]
        if kept is not None and not obj.dtype.hasobject and obj.base is not None:
            root = _root(obj)
            if root.base is None and id(root) not in kept:  # a view of a new buffer (.T)
                base = to_fakes(mode, root, memo, inside, kept)
                offset = (obj.__array_interface__["data"][0]
                          - root.__array_interface__["data"][0])
                fake = make_fake(obj.shape, obj.dtype, obj.strides, base.storage,
                                 base.storage_offset + offset, base,
                                 bool(obj.flags.writeable))
                memo[id(obj)] = (obj, fake)
                return fake
        if obj.dtype.hasobject:  # objects a fake cannot hold: the array stays real, and
            fake = obj           # dicts in it (np.save of a dict) have their arrays made fakes
            for idx in np.ndindex(obj.shape):
                item = obj[idx]
                if type(item) is dict:
                    obj[idx] = to_fakes(mode, item, memo, inside, kept, unpickled)
        elif owns_new_buffer(obj) and (kept is None or id(obj) not in kept):
            fake = _fresh(mode, obj, inside)
        else:
            if unpickled and type(obj.base) is bytes:
                # ``__setstate__`` pointing into the pickle's bytes: the one-byte array
                # ``_reconstruct`` made was freed just before (methods.c array_setstate)
                mode._ledger._transient("cpu", 1)
            with paused():  # the conversion's own NumPy calls run for real
                fake = mode._convert(obj)
        memo[id(obj)] = (obj, fake)  # keeps obj alive while the walk runs (ids stay unique)
        return fake
    if t is tuple or t is list:
        return t(to_fakes(mode, x, memo, inside, kept, unpickled) for x in obj)
    if isinstance(obj, tuple) and hasattr(t, "_make"):  # a namedtuple
        return t._make(to_fakes(mode, x, memo, inside, kept, unpickled) for x in obj)
    if t is dict:
        return {k: to_fakes(mode, v, memo, inside, kept, unpickled) for k, v in obj.items()}
    return obj


def _entering(result: Any, depth: int = 2) -> Any:
    """The loader's result, made fakes when a FakeMode is active and the caller is the
    program's own code (a library unpickling its own objects, dask's tasks, pandas'
    ``read_pickle``, gets them as they are)."""
    mode = _fake_mode()
    if mode is None or not _from_user(sys._getframe(depth)):
        return result
    return to_fakes(mode, result, unpickled=True)


def buffer_view(mode: Any, args: tuple, kwargs: dict) -> Any:
    """``np.frombuffer`` of a real buffer in a mode: NumPy's array is a view of the buffer's
    memory and allocates nothing (numpy/_core/src/multiarray/ctors.c PyArray_FromBuffer), so
    the fake is the mode's conversion of that real view: pre-existing memory, never charged,
    sharing storage with any converted array over the same buffer. None for a fake buffer
    (its kernel refuses it)."""
    from ..meta import is_fake
    buffer = args[0] if args else kwargs.get("buffer")
    if is_fake(buffer):
        return None
    return mode._convert(_ORIGINAL_FROMBUFFER(*args, **kwargs))


_ORIGINAL_FROMBUFFER = np.frombuffer


def exported_array(mode: Any, func: Any, args: tuple, kwargs: dict) -> Any:
    """``np.asarray(image)`` / ``np.array(image)`` of an object exporting its memory through
    ``__array_interface__`` or ``__array_struct__`` (a PIL image, a buffer-backed record):
    NumPy's array over the exported memory (asarray: a view, no allocation) or its copy
    (array: NumPy's buffer), made for real and handed back as fakes; None for other inputs."""
    if not args:
        return None
    obj = args[0]
    t = type(obj)
    if (t is np.ndarray or t in (list, tuple, dict) or isinstance(obj, (np.ndarray, np.generic))
            or getattr(t, "__module__", "").startswith(("faketensor", "numpy"))
            or not (hasattr(t, "__array_interface__") or hasattr(t, "__array_struct__"))):
        return None
    with paused():
        result = func(*args, **kwargs)
    return to_fakes(mode, result, inside=True)


NOT_PICKLED = object()
_NP_LOAD = inspect.signature(np.load)


def pickled_load(mode: Any, args: tuple, kwargs: dict) -> Any:
    """``np.load(file, allow_pickle=True)`` of a pickle or of an .npy of Python objects in a
    mode: the program asked for the unpickling, so it runs for real (as the loader's bytes do)
    and what it gives back is made fakes (``to_fakes``). NOT_PICKLED for every other file,
    which the mode reads from its header alone (meta_utils/convert/files.py)."""
    try:
        bound = _NP_LOAD.bind(*args, **kwargs)
    except TypeError:
        return NOT_PICKLED
    params = bound.arguments
    if not params.get("allow_pickle", False) or params.get("mmap_mode") is not None:
        return NOT_PICKLED
    file = params["file"]
    if not _holds_pickles(file):
        return NOT_PICKLED
    with paused():
        result = _ORIGINAL_NP_LOAD(*args, **kwargs)
    return to_fakes(mode, result, inside=True, unpickled=True)


def _holds_pickles(file: Any) -> bool:
    """True for a pickle (no .npy or zip magic) or an .npy whose dtype holds objects."""
    own = isinstance(file, (str, bytes, os.PathLike))
    try:
        fp = open(file, "rb") if own else file
    except OSError:
        return False
    try:
        pos = fp.tell()
        try:
            magic = fp.read(6)
            if magic.startswith(b"PK\x03\x04") or magic.startswith(b"PK\x05\x06") or not magic:
                return False
            if magic != b"\x93NUMPY":
                return True
            fp.seek(pos)
            version = np.lib.format.read_magic(fp)
            header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                      else np.lib.format.read_array_header_2_0)(fp, max_header_size=1 << 20)
            return bool(header[2].hasobject)
        except Exception:  # a damaged header: np.load's own path gives its error
            return False
        finally:
            fp.seek(pos)
    finally:
        if own:
            fp.close()


_ORIGINAL_NP_LOAD = np.load


def _load(file: Any, *args: Any, **kwargs: Any) -> Any:
    return _entering(_ORIGINALS["load"](file, *args, **kwargs))


def _loads(data: Any, /, *args: Any, **kwargs: Any) -> Any:
    return _entering(_ORIGINALS["loads"](data, *args, **kwargs))


def _py_unpickler_load(self: Any) -> Any:
    return _entering(_ORIGINALS["_Unpickler.load"](self))


class Unpickler(pickle.Unpickler):
    """pickle.Unpickler whose ``load`` hands fakes back in a FakeMode (subclasses made by
    programs inherit it)."""

    def load(self) -> Any:
        return _entering(super().load())


Unpickler.__module__ = "pickle"
Unpickler.__qualname__ = "Unpickler"


def _from_user(frame: Any) -> bool:
    return frame is not None and is_user_file(frame.f_code.co_filename)


def _held_buffers(obj: Any) -> frozenset:
    """ids of the buffers (root ndarrays) a pandas or xarray object holds: its data handed out
    as is is the library's memory, anything else was allocated by the call."""
    arrays: list = []
    mgr = getattr(obj, "_mgr", None)  # pandas: the block manager's arrays
    if mgr is not None:
        arrays += [getattr(b, "values", None) for b in getattr(mgr, "blocks", ())]
    variable = getattr(obj, "variable", None)  # xarray: the variable's data
    if variable is not None:
        arrays.append(getattr(variable, "_data", None))
    return frozenset(id(_root(a)) for a in arrays if isinstance(a, np.ndarray))


def _for_caller(host: Any, result: Any, caller: Any) -> Any:
    """What a pandas/xarray exit hands back: fakes of ``result`` when ``caller`` (a frame)
    is the program's own code in a mode, else ``result`` as it is."""
    if STACK.get() and _from_user(caller):
        mode = _fake_mode()
        if mode is not None:
            return to_fakes(mode, result, kept=_held_buffers(host))
    return result


def _host_method(fn: Any) -> Any:
    """A pandas/xarray ``to_numpy`` that hands fakes to the program's own code in a mode."""
    def to_numpy(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _for_caller(self, fn(self, *args, **kwargs), sys._getframe(1))
    functools.update_wrapper(to_numpy, fn)
    return to_numpy


def _host_property(prop: property) -> property:
    """A pandas/xarray ``values`` property that hands fakes to the program's own code."""
    get: Any = prop.fget

    def values(self: Any) -> Any:
        return _for_caller(self, get(self), sys._getframe(1))
    functools.update_wrapper(values, get)
    new = property(values, prop.fset, prop.fdel, prop.__doc__)
    return new


# (module, class, attribute): where a host library hands its data to the program as ndarrays
HOST_EXITS = (
    ("pandas", "DataFrame", "to_numpy"), ("pandas", "Series", "to_numpy"),
    ("pandas", "DataFrame", "values"), ("pandas", "Series", "values"),
    ("xarray", "DataArray", "to_numpy"), ("xarray", "DataArray", "values"),
)
_HOSTS_PATCHED: set = set()


def patch_hosts() -> None:
    """Patch the data exits of pandas and xarray, once each, when they are imported: their
    arrays reach the program as fakes (the frame's own blocks are the library's memory,
    as data that existed before; a copy NumPy makes for ``to_numpy`` is charged at the line)."""
    for module, cls, attr in HOST_EXITS:
        if module not in sys.modules or (module, cls, attr) in _HOSTS_PATCHED:
            continue
        owner = getattr(sys.modules[module], cls, None)
        if owner is None:
            continue
        current = inspect.getattr_static(owner, attr, None)
        if isinstance(current, property):
            setattr(owner, attr, _host_property(current))
        elif callable(current):
            setattr(owner, attr, _host_method(current))
        else:
            continue
        _HOSTS_PATCHED.add((module, cls, attr))


def install() -> None:
    """Patch pickle's loaders once (outside a FakeMode they only add a stack check)."""
    global _installed
    if _installed:
        return
    _installed = True
    _ORIGINALS["load"] = pickle.load
    _ORIGINALS["loads"] = pickle.loads
    py_unpickler: Any = getattr(pickle, "_Unpickler")  # the pure-Python Unpickler
    _ORIGINALS["_Unpickler.load"] = py_unpickler.load
    _ORIGINALS["Unpickler"] = pickle.Unpickler
    for fn, orig in ((_load, pickle.load), (_loads, pickle.loads)):
        fn.__name__, fn.__qualname__, fn.__doc__ = orig.__name__, orig.__name__, orig.__doc__
        fn.__module__ = "pickle"
    setattr(pickle, "load", _load)
    setattr(pickle, "loads", _loads)
    py_unpickler.load = _py_unpickler_load
    setattr(pickle, "Unpickler", Unpickler)
    patch_hosts()


__all__ = ["install", "patch_hosts", "to_fakes", "owns_new_buffer"]
