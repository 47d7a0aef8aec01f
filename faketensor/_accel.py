"""The compiled accelerator, if built and not turned off (docs/internals/accelerator.md).

``PATCH`` is ``faketensor._speedups.Patch`` (the outside-any-mode path of a namespace patch in
C). The recording mode's per-op pieces in C (faketensor/_speedups_record.c) are
``RECORD_METHOD`` (``FakeMode._record``'s common op), ``IDS_BASE`` (modes/trace.py
``TraceIds``' base class: its tables, ``ref`` and ``args_spec``), ``SITE_HERE``
(``Sites.here``'s common path), ``FOLD_BASE`` and ``FOLD_FEED`` (modes/memory.py
``DeviceFold``'s fields and ``PeakFold.feed`` without a timeline) and ``CONFIGURE`` (which
hands them their Python objects, once). Each is None without a compiler at install time, or
with ``FAKETENSOR_PURE_PYTHON=1`` in the environment: the pure-Python code then runs, which
passes the same tests."""
from __future__ import annotations

import os
from typing import Any

PATCH: Any = None
IDS_BASE: Any = None
FOLD_BASE: Any = None
RECORD_METHOD: Any = None
SITE_HERE: Any = None
FOLD_FEED: Any = None
CONFIGURE: Any = None
if os.environ.get("FAKETENSOR_PURE_PYTHON", "") in ("", "0"):
    try:
        from ._speedups import Patch as PATCH
    except ImportError:  # not built (no compiler when installed): the pure-Python patches
        PATCH = None
    else:
        try:  # the recording pieces (faketensor/_speedups_record.c)
            from ._speedups import (DeviceFoldBase as FOLD_BASE, IdsBase as IDS_BASE,
                                    RecordMethod as RECORD_METHOD, configure as CONFIGURE,
                                    fold_feed as FOLD_FEED, site_here as SITE_HERE)
        except ImportError:  # a build from before them: the Python methods
            FOLD_BASE = IDS_BASE = RECORD_METHOD = CONFIGURE = FOLD_FEED = SITE_HERE = None
