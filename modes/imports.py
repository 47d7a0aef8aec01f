"""The import hook: library modules imported inside a mode run their module code paused.

Importing scipy or pandas inside ``with FakeMode():`` would otherwise run their module-level
NumPy calls (constant tables, Cython memoryviews) on fakes and break. A finder first on
``sys.meta_path`` asks the other finders for the spec and, when a mode is active in this
context and the module is a library's (``faketensor/_paths.py`` says whose a file is), wraps
the loader so ``create_module`` (single-phase extension modules run their init there) and
``exec_module`` run with the mode stack empty. Imports a paused module makes see no mode,
so they are paused too. The user's own modules run under the mode: their module-level
arrays are fakes.

- Inside any mode: a module is the user's unless it lives in the standard library,
  site-packages or faketensor (built-in and frozen modules are libraries).
- ``script_imports(script_dir)`` (the planner): only modules under ``script_dir`` are the
  user's; everything else, an editable install elsewhere included, imports paused.

Outside any mode the finder returns at once (one ContextVar read per new import).
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any, Iterator

from .._paths import SCRIPT_DIRS, is_user_file, script_dirs
from .._stack import STACK, paused

_local = threading.local()  # names this thread is looking up (a finder may ask again)


class _PausedLoader:
    """A loader whose module code runs with no mode; everything else is the wrapped loader's.

    While the module executes, ``__loader__`` and ``__spec__.loader`` are the original
    loader again, so code checking the loader's type (pkgutil, importlib.resources) sees it.
    """

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)

    def create_module(self, spec: Any) -> Any:
        create = getattr(self._loader, "create_module", None)
        if create is None:
            return None
        with paused():
            return create(spec)

    def exec_module(self, module: Any) -> None:
        loader = self._loader
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is self:
            spec.loader = loader
        if getattr(module, "__loader__", None) is self:
            module.__loader__ = loader
        with paused():
            loader.exec_module(module)


class PausingFinder:
    """The meta path finder (one instance, first on ``sys.meta_path``; see install)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if not STACK.get():
            return None
        busy = getattr(_local, "names", None)
        if busy is None:
            busy = _local.names = set()
        if name in busy:
            return None
        busy.add(name)
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self:
                    continue
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(name, path, target)
                if spec is not None:
                    break
        finally:
            busy.discard(name)
        if spec is None:
            return None
        loader = spec.loader
        if (loader is not None and hasattr(loader, "exec_module")
                and not isinstance(loader, _PausedLoader)
                and not is_user_file(spec.origin)):
            spec.loader = _PausedLoader(loader)
        return spec

    def invalidate_caches(self) -> None:
        """Nothing cached here (importlib.invalidate_caches calls every finder)."""


FINDER = PausingFinder()
_install_lock = threading.Lock()


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once; again if something removed it)."""
    if sys.meta_path and sys.meta_path[0] is FINDER:
        return
    with _install_lock:
        if FINDER in sys.meta_path:
            sys.meta_path.remove(FINDER)
        sys.meta_path.insert(0, FINDER)


@contextlib.contextmanager
def script_imports(script_dir: str | os.PathLike) -> Iterator[None]:
    """Inside, while a mode is active, modules under ``script_dir`` run under it and every
    other module imports paused (the planner wraps a script's run in this)."""
    install()
    token = SCRIPT_DIRS.set(script_dirs(os.fspath(script_dir)))
    try:
        yield
    finally:
        SCRIPT_DIRS.reset(token)
