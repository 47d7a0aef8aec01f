"""Types of the compiled accelerator (faketensor/_speedups.c, faketensor/_speedups_record.c)."""
from typing import Any

class Patch:
    _ft_original: Any
    _ft_slow: Any
    def __init__(self, original: Any, slow: Any, live: dict[int, Any], fake_type: type | None, /) -> None: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __get__(self, obj: Any, owner: Any = None) -> Any: ...

class IdsBase:
    """modes/trace.py TraceIds' tables, with ``ref`` and ``args_spec`` in C."""
    _by_id: dict[int, Any]
    _storage_ids: dict[int, int]
    storage_of: dict[int, int]
    weak: dict[int, Any]
    _count: Any
    _sweep_at: int
    def ref(self, fake: Any, /) -> Any: ...
    def args_spec(self, args: tuple[Any, ...], /) -> tuple[Any, ...]: ...

class DeviceFoldBase:
    """modes/memory.py DeviceFold's fields, read and written by ``fold_feed``."""
    pool: Any
    live: Any
    peak: Any
    pool_live: Any
    pool_peak: Any
    allocations: Any
    allocated: Any
    peak_op: Any
    peak_row: Any

class RecordMethod:
    """``FakeMode._record`` with its common op in C; anything else calls ``__wrapped__``."""
    __wrapped__: Any
    def __init__(self, function: Any, /) -> None: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __get__(self, obj: Any, owner: Any = None) -> Any: ...

def configure(name: str, value: Any, /) -> None: ...
def site_here(sites: Any, depth: int, /) -> int: ...
def fold_feed(fold: Any, log: list[Any], start: int, end: int, /) -> bool: ...
