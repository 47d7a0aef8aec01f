"""Caches bounded in bytes and safe under threads: every cache in faketensor is one of these.

A ``BoundedCache`` is a dict (reads are plain, lock-free ``dict.get``) whose inserts go
through ``put``, which holds a lock, charges the entry's approximate size, and evicts
the oldest entries once the cache is over its byte budget. Entries must never hold a
fake array or a storage: caches outlive the fakes, and memory accounting frees a
storage only when its last fake dies.
"""
from __future__ import annotations

import functools
import sys
import threading
from typing import Any

# Per-cache budgets; their sum (see ``total_budget``) is at most this.
TOTAL_BUDGET = 32 * 1024 * 1024

CACHES: list["BoundedCache"] = []


def approx_size(obj: Any, _depth: int = 0) -> int:
    """The bytes an entry keeps alive: the object and, for containers, their items."""
    n = sys.getsizeof(obj)
    if _depth < 6:
        t = type(obj)
        if t is tuple or t is list or t is frozenset or (isinstance(obj, tuple) and t is not str):
            for x in obj:
                n += approx_size(x, _depth + 1)
        elif t is dict:
            for k, v in obj.items():
                n += approx_size(k, _depth + 1) + approx_size(v, _depth + 1)
    return n


class BoundedCache(dict):
    """A dict with a byte budget: ``put`` inserts (evicting the oldest entries), ``get`` reads."""

    __slots__ = ("name", "max_bytes", "max_entry", "nbytes", "_lock", "_sizes")

    def __init__(self, name: str, max_bytes: int) -> None:
        super().__init__()
        self.name = name
        self.max_bytes = int(max_bytes)
        self.max_entry = self.max_bytes // 64  # a bigger entry is not kept
        self.nbytes = 0
        self._lock = threading.Lock()
        self._sizes: dict = {}
        CACHES.append(self)

    def put(self, key: Any, value: Any) -> None:
        """Insert ``key -> value`` (an entry over ``max_entry`` bytes is not kept)."""
        size = approx_size(key) + approx_size(value)
        if size > self.max_entry:
            return
        with self._lock:
            old = self._sizes.pop(key, None)
            if old is not None:
                self.nbytes -= old
            dict.__setitem__(self, key, value)
            self._sizes[key] = size
            self.nbytes += size
            while self.nbytes > self.max_bytes and self._sizes:
                k = next(iter(self._sizes))
                self.nbytes -= self._sizes.pop(k)
                dict.pop(self, k, None)

    __setitem__ = put

    def clear(self) -> None:
        with self._lock:
            dict.clear(self)
            self._sizes.clear()
            self.nbytes = 0

    def __repr__(self) -> str:
        return f"BoundedCache({self.name!r}, entries={len(self)}, nbytes={self.nbytes})"


def memoized(name: str, max_bytes: int = 64 * 1024):
    """Cache a pure function of hashable arguments in a BoundedCache (its budget counts
    toward ``total_budget`` and ``ft.cache_info()`` reports it)."""
    def deco(fn):
        cache = BoundedCache(name, max_bytes)

        @functools.wraps(fn)
        def wrapper(*args):
            r = cache.get(args, _MISSING)
            if r is _MISSING:
                r = fn(*args)
                cache.put(args, r)
            return r
        wrapper.cache = cache
        return wrapper
    return deco


_MISSING = object()


def total_budget() -> int:
    """The sum of every cache's byte budget."""
    return sum(c.max_bytes for c in CACHES)
