"""Which patch stands for which original: NumPy's table, the tables of other namespaces'
patchers (CuPy's, SciPy's) and the originals they replaced, kept alive so their ids stay
their own. Every patcher records through ``record_patch`` / ``keep_original``; readers ask
``patched_of``, ``patched_or_self``, ``kept_original`` and ``original``."""
from __future__ import annotations

from typing import Any


def mark_patch(fn: Any) -> None:
    """Mark a callable as faketensor's patch (``_ft_patch``): _array._no_data and the
    import hook tell the patches from NumPy's own functions by it."""
    setattr(fn, "_ft_patch", True)


_PATCHED: dict[int, Any] = {}
PATCH_TABLES: list = [_PATCHED]  # id(original) -> patched version, per namespace patcher
_ORIGINALS: dict[int, Any] = {}


def keep_original(fn: Any) -> None:
    """Keep the original a patch replaced alive, so its id (the tables' key) stays its own."""
    _ORIGINALS[id(fn)] = fn


def record_patch(fn: Any, patched: Any, table: dict | None = None) -> None:
    """``patched`` stands for ``fn`` from now on (``patched_of``, ``patched_or_self``), in
    NumPy's table or a library's own (``table``, one ``add_patch_table`` was given)."""
    _ORIGINALS[id(fn)] = fn  # keeps the id stable
    (_PATCHED if table is None else table)[id(fn)] = patched


def patch_count() -> int:
    """How many NumPy patches exist (grows as patches are made: a cache of patched values
    keys on it)."""
    return len(_PATCHED)


def numpy_patch(fn: Any) -> Any:
    """The NumPy patch made for ``fn``, or None."""
    return _PATCHED.get(id(fn))


def originals() -> list:
    """Every original a patch replaced."""
    return list(_ORIGINALS.values())


def add_patch_table(table: dict) -> None:
    """Another namespace's table of patches (CuPy's, SciPy's), for ``patched_of``."""
    PATCH_TABLES.append(table)


def patched_or_self(obj: Any) -> Any:
    """The NumPy patch standing for ``obj``, else ``obj`` itself."""
    return _PATCHED.get(id(obj), obj)


def kept_original(obj: Any) -> Any:
    """The original a patch replaced, by the id ``obj`` has (``obj`` itself if none)."""
    return _ORIGINALS.get(id(obj), obj)


def _patched_of(obj: Any) -> Any:
    """The patch standing for NumPy original ``obj`` in a namespace, or None."""
    for table in PATCH_TABLES:
        p = table.get(id(obj))
        if p is not None and _ORIGINALS.get(id(obj)) is obj:
            return p
    return None


patched_of = _patched_of  # the public name other modules import


def original(fn: Any) -> Any:
    """The unpatched callable behind a patched one."""
    if getattr(fn, "_ft_patch", False):
        return fn.__wrapped__
    return fn
