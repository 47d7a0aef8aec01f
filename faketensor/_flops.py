"""FLOPs of one op, from its arguments and outputs' metadata."""
from __future__ import annotations

from typing import Any


def count_flops(func: Any, args: tuple, kwargs: dict, out: Any) -> int:
    """The floating-point operations the real call performs."""
    return 0
