"""``np.random`` inside a mode: FakeGenerator, and the private ``np`` of numpy.random's C code.

numpy.random's compiled modules (``mtrand``, ``_generator``, ``_common``, ...) look up
``np.empty``, ``np.asarray``, ... through their module global ``np`` at run time and then
write into what they got with C pointers, so a patched factory handing them a fake kills
the interpreter. ``install_namespaces`` gives each of them its own ``np``: NumPy with the
unpatched originals. In the modules that draw numbers (``DRAW_MODULES``) that namespace
also refuses every lookup while a FakeMode is active: a real ``Generator``/``RandomState``
drawing inside the mode would do real work, so it raises ``UnsupportedOperationError``
naming the method instead. Generators made by ``np.random.default_rng`` inside a mode are
``FakeGenerator``s (modes/fake_generator.py), whose methods go to the kernels and never reach
that C code. This module never imports numpy.random: NumPy loads it lazily, and the
installer sets it up when it loads (modes/installer.py).
"""
from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

from .._dispatch import STACK
from .._errors import UnsupportedOperationError
from .dask_support import graph_code  # dask.array's metas: 0-element draws, for real

# numpy.random's modules that draw numbers (their lookups are refused inside a FakeMode),
# and those that only seed and hold bit-generator state (O(1) real work, allowed anywhere).
DRAW_MODULES = ("numpy.random.mtrand", "numpy.random._generator", "numpy.random._common",
                "numpy.random._bounded_integers")
STATE_MODULES = ("numpy.random.bit_generator", "numpy.random._mt19937", "numpy.random._pcg64",
                 "numpy.random._philox", "numpy.random._sfc64")

_ADVICE = ("it belongs to a Generator or RandomState that was not made by "
           "np.random.default_rng inside the mode, so it would draw real numbers into real "
           "memory. Inside FakeMode use np.random.default_rng(seed) (or "
           "np.random.default_rng(existing_generator_or_bit_generator) to keep its stream) "
           "or the np.random.* functions; np.random.RandomState and np.random.Generator "
           "objects always draw for real")


def _fake_mode_active() -> bool:
    for m in STACK.get():
        if getattr(m, "_is_fake_mode", False):
            return True
    return False


def _drawing_method(tb: Any) -> str | None:
    """The outermost numpy.random function in a traceback, as 'Generator.normal'.

    Cython adds an entry named by the module and qualified name for each compiled
    function an exception passes through (``numpy.random._generator.Generator.normal``).
    """
    while tb is not None:
        name = tb.tb_frame.f_code.co_name
        if name.startswith("numpy.random."):
            parts = name.split(".")
            if len(parts) >= 5:
                return ".".join(parts[-2:])
            return "np.random." + parts[-1]
        tb = tb.tb_next
    return None


class RealDrawInModeError(UnsupportedOperationError):
    """A real Generator/RandomState tried to draw inside a FakeMode.

    Raised from inside NumPy's compiled code, which has no frame to ask for the method's
    name; the message names it from the traceback once the exception has unwound.
    """

    def __init__(self) -> None:
        super().__init__("a numpy.random Generator/RandomState method", _ADVICE)

    def __str__(self) -> str:
        name = _drawing_method(self.__traceback__)
        if name is None:
            return super().__str__()
        return f"faketensor cannot run {name} on fake arrays: {_ADVICE}"


class _NumpyForRandom:
    """numpy as one numpy.random module sees it: the unpatched originals.

    Unguarded, values are cached in the instance dict, so later lookups cost what numpy's
    do. Guarded, every lookup comes here (``__getattr__``) and raises
    ``RealDrawInModeError`` while a FakeMode is active in this context. (A plain object,
    not a module: a failed module lookup formats an AttributeError before ``__getattr__``.)
    """

    def __init__(self, name: str, guard: bool) -> None:
        self.__name__ = name
        self._guard = guard
        self._values: dict = {}

    def __getattr__(self, name: str) -> Any:
        value = self._values.get(name)
        if value is None:
            value = self._load(name)
        if self._guard:
            if STACK.get() and _fake_mode_active() and not graph_code(sys._getframe(1)):
                raise RealDrawInModeError()
        else:
            setattr(self, name, value)
        return value

    def _load(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        from .patch_tables import original
        value = self._values[name] = original(getattr(np, name))
        return value


_FAST: dict[str, _NumpyForRandom] = {}     # module name -> its plain namespace
_GUARDED: dict[str, _NumpyForRandom] = {}  # draw module name -> its guarded namespace
_active = 0  # FakeModes entered and not yet left, in any context
_active_lock = threading.Lock()


def install_namespaces() -> None:
    """Give numpy.random's compiled modules their private ``np`` (once)."""
    for modname in DRAW_MODULES + STATE_MODULES:
        mod = sys.modules.get(modname)
        if mod is None or modname in _FAST:
            continue
        _FAST[modname] = _NumpyForRandom(f"numpy (as {modname} sees it)", guard=False)
        if modname in DRAW_MODULES:
            _GUARDED[modname] = _NumpyForRandom(f"numpy (as {modname} sees it)", guard=True)
        setattr(mod, "np", _FAST[modname])
    _select()


def _select() -> None:
    """The draw modules use the guarded namespace while any FakeMode is entered anywhere
    (the guard itself checks this context), the plain one (C-speed lookups) otherwise."""
    table = _GUARDED if _active else _FAST
    for modname, ns in table.items():
        if modname in _GUARDED:
            setattr(sys.modules[modname], "np", ns)


def modes_entered() -> bool:
    """Whether a FakeMode is entered and not yet left, in any context (this one's may be
    paused: a library's module code imported inside the mode)."""
    return _active > 0


def fake_mode_entered() -> None:
    """Called by FakeMode.__enter__."""
    global _active
    with _active_lock:
        _active += 1
        if _active == 1:
            _select()


def fake_mode_exited() -> None:
    """Called by FakeMode.__exit__."""
    global _active
    with _active_lock:
        _active = max(0, _active - 1)
        if not _active:
            _select()
