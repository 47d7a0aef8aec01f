"""faketensor: fake (metadata-only) NumPy/CuPy arrays and a mode stack.

``import faketensor as ft``; see docs/getting-started.md for the tour.
"""
from typing import TYPE_CHECKING, Any

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


# The planner's names load on first use (module ``__getattr__``): a program that only runs
# FakeMode never pays for them at ``import faketensor`` (issue 30).
_LAZY = {"Plan": "plan", "plan": "plan", "plan_module": "plan", "plan_script": "plan",
         "SweepResult": "sweep", "sweep": "sweep", "Explanation": "explain", "explain": "explain"}


def __getattr__(name: str) -> Any:
    """``ft.plan``, ``ft.sweep``, ``ft.explain`` and their classes, imported when first asked."""
    sub = _LAZY.get(name)
    if sub is None:
        raise AttributeError(f"module 'faketensor' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f".meta_utils.planner.{sub}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


if TYPE_CHECKING:
    from .meta_utils.planner.plan import Plan, plan, plan_module, plan_script
    from .meta_utils.planner.sweep import SweepResult, sweep
    from .meta_utils.planner.explain import Explanation, explain


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext faketensor``: the ``%%faketensor`` cell magic (meta_utils/planner/magic.py)."""
    from .meta_utils.planner.magic import load_ipython_extension as load
    load(ipython)
