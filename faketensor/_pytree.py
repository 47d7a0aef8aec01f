"""Minimal pytrees: map a function over the leaves of dicts, lists, tuples, namedtuples, dataclasses."""
from __future__ import annotations

import copy
import sys
from typing import Any, Callable


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields") and hasattr(type(x), "_make")


def tree_map(fn: Callable[[Any], Any], obj: Any) -> Any:
    """A copy of obj's container structure with fn applied to every leaf."""
    t = type(obj)
    if t is list:
        return [tree_map(fn, x) for x in obj]
    if t is tuple:
        return tuple(tree_map(fn, x) for x in obj)
    if isinstance(obj, dict):
        new: Any = copy.copy(obj) if t is not dict else {}
        for k, v in obj.items():
            new[k] = tree_map(fn, v)
        return new
    if _is_namedtuple(obj):
        return t._make(tree_map(fn, x) for x in obj)
    if isinstance(obj, (list, tuple)):
        return t(tree_map(fn, x) for x in obj)
    # a dataclass exists only once dataclasses is imported: not imported for the question
    dataclasses = sys.modules.get("dataclasses")
    if dataclasses is not None and dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        new = copy.copy(obj)
        for f in dataclasses.fields(obj):
            object.__setattr__(new, f.name, tree_map(fn, getattr(obj, f.name)))
        return new
    return fn(obj)


def tree_leaves(obj: Any) -> list:
    """The leaves of obj in tree_map's order."""
    out: list = []

    def grab(x: Any) -> Any:
        out.append(x)
        return x

    tree_map(grab, obj)
    return out
