"""The compiled accelerator, if built and not turned off (docs/internals/accelerator.md).

``PATCH`` is ``faketensor._speedups.Patch`` (the outside-any-mode path of a namespace patch in
C), or None: without a compiler at install time, or with ``FAKETENSOR_PURE_PYTHON=1`` in the
environment, every patch is the pure-Python function, which passes the same tests.
``SIGNATURE``, ``MAKE_FAKE``, ``NEW_STORAGE`` and ``RUN_FAKE`` are the kernel cache's hit
path in C (faketensor/_speedups_cache.c), None likewise; ``compiled`` sets one up with the
Python objects it reads, or gives its Python twin. The recording mode's per-op pieces in C
(faketensor/_speedups_record.c) are
``RECORD_METHOD`` (``FakeMode._record``'s common op and ``quick_call``), ``RECORD_STATE``
(the base of modes/fake_mode.py ``RecordState``, which those read), ``IDS_BASE`` (modes/trace.py
``TraceIds``' base class: its tables, ``ref`` and ``args_spec``), ``SITE_HERE``
(``Sites.here``'s common path), ``FOLD_BASE`` and ``FOLD_FEED`` (modes/memory.py
``DeviceFold``'s fields and ``PeakFold.feed`` without a timeline), ``STATS_METHODS``
(``RecordingStats``' event methods), ``TRACE_REF`` (modes/trace.py ``TraceRef``, untracked by
the garbage collector), ``SERIALS`` (``TraceIds``' counter, read in place by its compiled
methods) and ``CONFIGURE`` (which
hands them their Python objects, once). Each is None without a compiler at install time, or
with ``FAKETENSOR_PURE_PYTHON=1`` in the environment: the pure-Python code then runs, which
passes the same tests."""
from __future__ import annotations

import importlib
import os
from typing import Any, TypeVar

F = TypeVar("F")

SPEEDUPS: Any = None
if os.environ.get("FAKETENSOR_PURE_PYTHON", "") in ("", "0"):
    try:
        SPEEDUPS = importlib.import_module(f"{__package__}._speedups")  # a C module: no layer
    except ImportError:  # not built (no compiler when installed): the pure-Python code
        SPEEDUPS = None

PATCH: Any = getattr(SPEEDUPS, "Patch", None)
# None also when the built module predates them (rebuild: python setup.py build_ext --inplace)
SIGNATURE: Any = getattr(SPEEDUPS, "signature", None)
MAKE_FAKE: Any = getattr(SPEEDUPS, "make_fake", None)
NEW_STORAGE: Any = getattr(SPEEDUPS, "new_storage", None)
RUN_FAKE: Any = getattr(SPEEDUPS, "run_fake", None)
# the recording pieces (faketensor/_speedups_record.c)
IDS_BASE: Any = getattr(SPEEDUPS, "IdsBase", None)
FOLD_BASE: Any = getattr(SPEEDUPS, "DeviceFoldBase", None)
RECORD_METHOD: Any = getattr(SPEEDUPS, "RecordMethod", None)
RECORD_STATE: Any = getattr(SPEEDUPS, "RecordState", None)
SITE_HERE: Any = getattr(SPEEDUPS, "site_here", None)
FOLD_FEED: Any = getattr(SPEEDUPS, "fold_feed", None)
CONFIGURE: Any = getattr(SPEEDUPS, "configure", None)
STATS_METHODS: Any = getattr(SPEEDUPS, "stats_methods", None)
TRACE_REF: Any = getattr(SPEEDUPS, "TraceRef", None)
SERIALS: Any = getattr(SPEEDUPS, "Serials", None)


def compiled(fn: Any, python: F, *objects: Any) -> F:
    """The compiled function ``fn`` (``SIGNATURE``, ...), set up with the Python ``objects``
    it reads (classes whose slots it fills, constants), in place of its Python twin
    ``python``; ``python`` itself when ``fn`` is None or the set-up finds the objects not
    laid out as the C code expects."""
    if fn is None or not SPEEDUPS.setup(fn.__name__, *objects):
        return python
    return fn
