"""faketensor: fake (metadata-only) NumPy/CuPy arrays and a mode stack.

``import faketensor as ft``; see docs/getting-started.md for the tour.
"""
from typing import Any

from . import _numpy_version  # noqa: F401  (first: ImportError below the supported NumPy)
from ._version import __version__
from ._errors import DataDependentError, MetadataMismatchError, UnsupportedOperationError
from ._sizes import BoundedSize, SizePolicy
from ._storage import FakeCudaDevice, FakeStorage
from ._array import FakeArray, FakeFlags, empty, empty_strided, is_fake
from ._wrapped import WrappedArray, unwrap, wrap
from . import kernels  # noqa: F401  (registers every kernel)
from . import _runner  # noqa: F401  (installs the default dispatch)
from ._cache import cache_info, clear_cache, set_cache_enabled
from .meta_utils import Converter, ObjectArrayWarning, load, to_fake
from .meta_utils.convert.materialize import materialize, replay
from .meta_utils.convert.pickling import SafeUnpickler, unpickle
from .meta_utils.planner.plan import Plan, plan, plan_module, plan_script
from .meta_utils.planner.sweep import SweepResult, sweep
from .meta_utils.planner.explain import Explanation, explain
from .modes import CrossRefMode, FakeMode, MemoryStats, Mode, TraceEntry
from .modes import installer as _installer
from .modes import imports as _imports
from .modes.threads import inherit_mode_in_threads

_installer.install()
_imports.install()  # library imports inside a mode run paused (modes/imports.py)

__all__ = [
    "FakeArray", "FakeFlags", "FakeStorage", "FakeCudaDevice", "WrappedArray",
    "DataDependentError", "UnsupportedOperationError", "MetadataMismatchError",
    "empty", "empty_strided", "is_fake", "wrap", "unwrap", "to_fake", "Converter",
    "ObjectArrayWarning", "load", "materialize", "replay", "unpickle", "SafeUnpickler",
    "FakeMode", "Mode", "MemoryStats", "TraceEntry", "CrossRefMode",
    "cache_info", "clear_cache", "set_cache_enabled", "Plan", "plan", "plan_script", "plan_module",
    "inherit_mode_in_threads", "explain", "Explanation", "sweep", "SweepResult",
    "BoundedSize", "SizePolicy",
]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext faketensor``: the ``%%faketensor`` cell magic (meta_utils/planner/magic.py)."""
    from .meta_utils.planner.magic import load_ipython_extension as load
    load(ipython)
