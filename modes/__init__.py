"""The mode stack's modes: Mode, FakeMode, CrossRefMode, and the NumPy namespace patches."""
from .base import Mode  # noqa: F401
from .fake_mode import FakeMode, TraceEntry  # noqa: F401
from .memory import MemoryStats  # noqa: F401
from .crossref import CrossRefMode  # noqa: F401
