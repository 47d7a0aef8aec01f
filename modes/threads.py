"""Threads that inherit the mode stack: ``with inherit_mode_in_threads(): ...``.

The mode stack lives in a ContextVar (faketensor/_stack.py) and a new thread starts with an
empty context (before Python 3.14), so NumPy calls in worker threads would run for real.
Inside the block, ``threading.Thread.start`` runs the thread in a copy of the starting
thread's context, and ``ThreadPoolExecutor.submit`` (``map`` calls it) runs each task in a
copy of the submitting thread's context: pool workers live on after the block and serve
later tasks, so they keep their own context and each task carries its submitter's. Threads
started from inheriting threads inherit too. Outside the block both run as Python's do.
"""
from __future__ import annotations

import contextlib
import functools
import threading
from contextvars import ContextVar, copy_context
from typing import Any, Iterator, cast

_INHERIT: ContextVar[bool] = ContextVar("faketensor_inherit_mode", default=False)

_thread_start = threading.Thread.start
_originals: dict = {}  # what install() replaced: "submit", "worker" (concurrent.futures.thread)
_install_lock = threading.Lock()


def _start(self: threading.Thread) -> None:
    if _INHERIT.get() and getattr(self, "_target", None) is not _originals.get("worker"):
        ctx = copy_context()
        run = self.run
        self.run = functools.partial(ctx.run, run)  # type: ignore[method-assign]  # this thread's run, in the context
    _thread_start(self)


def _submit(self: Any, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
    if _INHERIT.get():
        fn = functools.partial(copy_context().run, fn)
    return _originals["submit"](self, fn, *args, **kwargs)


functools.update_wrapper(_start, _thread_start)


def install() -> None:
    """Patch ``Thread.start`` and ``ThreadPoolExecutor.submit`` (once, on first use, so that
    ``import faketensor`` does not import concurrent.futures); idle outside the block."""
    with _install_lock:
        if _originals:
            return
        from concurrent.futures import ThreadPoolExecutor
        from concurrent.futures import thread as futures_thread
        _originals["submit"] = ThreadPoolExecutor.submit
        _originals["worker"] = futures_thread._worker
        functools.update_wrapper(_submit, cast(Any, ThreadPoolExecutor.submit))  # generic method
        threading.Thread.start = _start  # type: ignore[method-assign]  # patched while inheriting
        ThreadPoolExecutor.submit = _submit  # type: ignore[method-assign]  # patched while inheriting


@contextlib.contextmanager
def inherit_mode_in_threads() -> Iterator[None]:
    """Threads and thread-pool tasks started inside run with the starting thread's modes."""
    install()
    token = _INHERIT.set(True)
    try:
        yield
    finally:
        _INHERIT.reset(token)
