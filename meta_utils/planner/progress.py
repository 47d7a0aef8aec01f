"""A progress line for long plans: ops planned, dask tasks run, seconds elapsed.

One self-rewriting line on stderr, only when stderr is a terminal, from ``delay`` seconds
into a plan (``FAKETENSOR_PROGRESS_DELAY``, 2 by default; ``FAKETENSOR_PROGRESS=0`` turns it
off), erased when the plan ends. A timer thread reads the counts the recording keeps anyway
(the length of the mode's trace, ``mode.dask_tasks``): the per-op path does nothing more.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from contextvars import ContextVar
from typing import Any, TextIO

#: what the line starts with (a sweep names the value being planned)
LABEL: ContextVar[str] = ContextVar("faketensor_progress_label", default="")
#: when the work began (``time.perf_counter()``), if before this plan: a sweep of many short
#: plans shows the line from ``delay`` seconds into the sweep, with the sweep's seconds
STARTED: ContextVar[float | None] = ContextVar("faketensor_progress_started", default=None)

DELAY = 2.0
INTERVAL = 0.25
CLEAR = "\r\x1b[K"


def _delay() -> float:
    try:
        return float(os.environ.get("FAKETENSOR_PROGRESS_DELAY", DELAY))
    except ValueError:
        return DELAY


def is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class Progress:
    """Context manager around planning under ``mode``: the line while it runs."""

    def __init__(self, mode: Any, stream: TextIO | None = None, delay: float | None = None,
                 interval: float = INTERVAL) -> None:
        self.mode = mode
        self.stream = stream if stream is not None else sys.stderr
        self.delay = _delay() if delay is None else delay
        self.interval = interval
        self.label = LABEL.get()
        self.shown = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def enabled(self) -> bool:
        return os.environ.get("FAKETENSOR_PROGRESS", "1") != "0" and is_terminal(self.stream)

    def __enter__(self) -> "Progress":
        started = STARTED.get()
        self.t0 = time.perf_counter() if started is None else started
        if self.enabled():
            self._thread = threading.Thread(target=self._loop, name="faketensor-progress",
                                            daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        if self.shown:
            self._write(CLEAR)

    def line(self) -> str:
        """``planning N=512 (plan 3): 120,431 ops, 12 dask tasks, 4 s``."""
        ops = len(self.mode.trace)
        tasks = getattr(self.mode, "dask_tasks", 0)
        extra = f", {tasks:,} dask tasks" if tasks else ""
        text = (f"planning {self.label}".rstrip() + f": {ops:,} ops{extra}, "
                f"{time.perf_counter() - self.t0:.0f} s")
        import shutil  # here: it imports bz2 and lzma (import faketensor stays light)
        width = shutil.get_terminal_size((80, 24)).columns - 1
        return text[:max(width, 10)]

    def _loop(self) -> None:
        if self._stop.wait(max(0.0, self.delay - (time.perf_counter() - self.t0))):
            return
        while True:
            self._write(CLEAR + self.line())
            self.shown = True
            if self._stop.wait(self.interval):
                return

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed terminal: no progress, never an error
            self._stop.set()


__all__ = ["Progress", "LABEL", "STARTED", "is_terminal"]
