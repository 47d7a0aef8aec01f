"""The compiled accelerator, if built and not turned off (docs/internals/accelerator.md).

``PATCH`` is ``faketensor._speedups.Patch`` (the outside-any-mode path of a namespace patch in
C), or None: without a compiler at install time, or with ``FAKETENSOR_PURE_PYTHON=1`` in the
environment, every patch is the pure-Python function, which passes the same tests."""
from __future__ import annotations

import os
from typing import Any

PATCH: Any = None
if os.environ.get("FAKETENSOR_PURE_PYTHON", "") in ("", "0"):
    try:
        from ._speedups import Patch as PATCH
    except ImportError:  # not built (no compiler when installed): the pure-Python patches
        PATCH = None
