"""Kernel results cached by metadata signature.

A kernel is a pure function of its inputs' metadata, so its result (which outputs are
fresh, which view or return which input, with what shape, dtype and strides) can be
reused for any later call whose inputs have the same metadata. The signature holds
everything a kernel may read: each fake's shape, strides, dtype, writeable and
warn-on-write flags, whether it owns its data, its alignment (offset and storage
alignment modulo 16, which with the strides fix the aligned flag), which arguments are
the same fake or share a storage and their byte distance there (so overlap is decided by
the key), and every other argument by type and value; a ``np.random.Generator`` by its
class alone (only draws whose result depends on their arguments, never on the generator's
state, are cached: kernels/registry.py ``cache_draws``). Calls with anything else among the
arguments (real arrays, callables) and kernels whose results are not arrays are never
cached; neither are exceptions, nor calls whose kernel warned. Each bypass is counted under
its reason (``BYPASS_*`` here, and the kernel's own ``Kernel.nocache``).
"""
from __future__ import annotations

import sys
from types import EllipsisType
from typing import Any, NamedTuple

import numpy as np

from ._accel import SIGNATURE, compiled
from ._array import FakeArray
from ._bounded import CACHES, BoundedCache, approx_size
from ._sizes import MADE as SIZES_MADE, bounded_shape
from ._storage import SCALAR
from .meta import ArrayMeta


NOKEY: Any = object()
_VALUES = frozenset({int, float, complex, bool, str, type(None), EllipsisType, type})
_SMALL = frozenset({int, type(None)})
# A list or tuple argument longer than this (an index list) makes the call bypass the cache.
MAX_SEQUENCE = 64


# Why a call ran its kernel without the cache (counted in ``cache_info().bypassed``).
BYPASS_DISABLED = "cache disabled"
BYPASS_ARGUMENTS = "an argument with no key (real array, CUDA fake, object, long list)"
BYPASS_RESULT = "a result with no template (not arrays; a view of a scalar or of an output)"
BYPASS_WARNED = "the kernel warned (NumPy warns on every such call)"


class CacheInfo:
    """Hit and miss counts of the kernel cache, the calls that bypassed it by reason, and
    whether it is on."""

    __slots__ = ("hits", "misses", "bypassed", "enabled")

    def __init__(self) -> None:
        self.hits = self.misses = 0
        self.bypassed: dict[str, int] = {}
        self.enabled = True

    @property
    def uncacheable(self) -> int:
        """Calls that ran their kernel without the cache, whatever the reason."""
        return sum(self.bypassed.values())

    def bypass(self, reason: str) -> None:
        self.bypassed[reason] = self.bypassed.get(reason, 0) + 1

    @property
    def entries(self) -> int:
        """Entries in the kernel-result cache."""
        return len(ENTRIES)

    @property
    def nbytes(self) -> int:
        """Approximate bytes held by every faketensor cache together."""
        return sum(c.nbytes for c in CACHES)

    @property
    def caches(self) -> dict:
        """Entries and bytes per cache, by name."""
        return {c.name: (len(c), c.nbytes) for c in CACHES}

    def __repr__(self) -> str:
        return (f"CacheInfo(hits={self.hits}, misses={self.misses}, "
                f"uncacheable={self.uncacheable}, entries={self.entries}, "
                f"nbytes={self.nbytes}, enabled={self.enabled})")


INFO = CacheInfo()
# Kernel results by call signature: positions and metadata only, never a fake or a storage.
ENTRIES = BoundedCache("kernel results", 28 * 1024 * 1024 - 16 * 1024)
def _value_key(x: Any, fakes: list) -> Any:
    t = type(x)
    if t is FakeArray:
        if x.storage.device != "cpu":
            return NOKEY
        fakes.append(x)
        st = x.storage
        return (x.shape, x.strides, x.dtype, x._writeable, x._warn_on_write,
                x._base is None, x.storage_offset & 15, st.alignment & 15, st._tracker is SCALAR)
    if t in _VALUES:
        return (t, x)
    if t is tuple or t is list:
        if len(x) > MAX_SEQUENCE:
            return NOKEY
        parts = [t]
        for v in x:
            k = _value_key(v, fakes)
            if k is NOKEY:
                return NOKEY
            parts.append(k)
        return tuple(parts)
    if t is slice:
        a, b, c = x.start, x.stop, x.step
        if type(a) in _SMALL and type(b) in _SMALL and type(c) in _SMALL:
            return (slice, a, b, c)
        ends = (_value_key(a, fakes), _value_key(b, fakes), _value_key(c, fakes))
        return NOKEY if NOKEY in ends else (slice, ends)
    if isinstance(x, (np.dtype, np.generic)):
        return (t, x)
    gen = getattr(sys.modules.get("numpy.random"), "Generator", None)  # not imported for it
    if gen is not None and isinstance(x, gen):  # a draw's generator: its state never shapes
        return (t,)                              # the result (``cache_draws``), its class may
    return NOKEY


def signature_python(func: Any, args: tuple, kwargs: dict, fakes: list) -> Any:
    """The cache key of a call (NOKEY when it cannot be cached); fills ``fakes``, in order.

    A key exists only when every argument is a cpu fake or a plain value, so a call with
    a key never needs its arguments converted. ``signature`` is this function, or its
    compiled twin (the same key, the same ``fakes``) when the accelerator is built.
    """
    parts: list = [func]
    if not _add_keys(args, parts, fakes):
        return NOKEY
    if kwargs:
        parts.append(_KWARGS)
        parts.extend(kwargs)
        if not _add_keys(kwargs.values(), parts, fakes):
            return NOKEY
    n = len(fakes)
    if n == 2:  # which arguments are one fake or share a storage, and how far apart
        a, b = fakes
        if a.storage is b.storage:
            parts.append((a is b, b.storage_offset - a.storage_offset))
        else:
            parts.append(False)
    elif n > 2:
        seen: dict = {}
        stores: dict = {}
        for i, f in enumerate(fakes):
            j = stores.setdefault(id(f.storage), i)
            parts.append((seen.setdefault(id(f), i), j,
                          f.storage_offset - fakes[j].storage_offset))
    return tuple(parts)


def _add_keys(values: Any, parts: list, fakes: list) -> bool:
    for x in values:
        t = type(x)
        if t is FakeArray:
            st = x.storage
            if st.device != "cpu" or SIZES_MADE[0] and bounded_shape(x.shape):
                return False
            fakes.append(x)
            parts.append((x.shape, x.strides, x.dtype, x._writeable, x._warn_on_write,
                          x._base is None, x.storage_offset & 15, st.alignment & 15,
                          st._tracker is SCALAR, x.pytype))
        elif t in _VALUES:
            parts.append(t)
            parts.append(x)
        else:
            k = _value_key(x, fakes)
            if k is NOKEY:
                return False
            parts.append(_NESTED)
            parts.append(k)
    return True


_NESTED = "<nested>"
_KWARGS = "<kwargs>"
signature = compiled(SIGNATURE, signature_python, signature_python, _value_key, SCALAR, _VALUES,
                     SIZES_MADE, bounded_shape, NOKEY, _NESTED, _KWARGS, MAX_SEQUENCE)


def _position(x: Any, fakes: list) -> int:
    for i, f in enumerate(fakes):
        if f is x:
            return i
    return -1


def _nbytes(res: ArrayMeta) -> int:
    n = res.dtype.itemsize
    for d in res.shape:
        n *= d
    return n


class FreshOut(NamedTuple):
    """Template of a fresh output: its metadata and its bytes."""

    meta: ArrayMeta
    nbytes: int


class ViewOut(NamedTuple):
    """Template of a view of the call's fake at ``source`` (its position in the signature's
    fakes: the cache never keeps a fake alive); ``meta.view_of`` is None."""

    meta: ArrayMeta
    source: int


class InputOut(NamedTuple):
    """Template of an input returned as is (in place, ``out=``), by position."""

    position: int


class SeqOut(NamedTuple):
    """Template of a tuple, list or named tuple of outputs (``kind`` is its type)."""

    kind: type
    items: tuple


Template = FreshOut | ViewOut | InputOut | SeqOut


def template(res: Any, fakes: list) -> Any:
    """A kernel result with inputs replaced by their positions; NOKEY if it is not all arrays."""
    t = type(res)
    if t is ArrayMeta:
        v = res.view_of
        if v is None:
            return FreshOut(res, _nbytes(res))
        if type(v) is ArrayMeta:  # a view of a sibling output: realize() keeps them together
            return NOKEY
        i = _position(v, fakes)
        if i < 0 or v.storage._tracker is SCALAR:  # a view of a scalar views a new 0-d array
            return NOKEY
        # the input is named by position only: the cache must never keep a fake alive
        return ViewOut(res._replace(view_of=None), i)
    if t is FakeArray:
        i = _position(res, fakes)
        return NOKEY if i < 0 else InputOut(i)
    if t is tuple or t is list or (isinstance(res, tuple) and hasattr(t, "_make")):
        if len({id(r) for r in res if type(r) is ArrayMeta}) < sum(type(r) is ArrayMeta for r in res):
            return NOKEY  # one ArrayMeta twice: one fake twice, which the template cannot say
        items = []
        for r in res:
            k = template(r, fakes)
            if k is NOKEY:
                return NOKEY
            items.append(k)
        return SeqOut(t, tuple(items))
    return NOKEY


class CacheEntry:
    """What the kernel cache keeps for one call signature: the result's ``template``, the
    call's ``costs`` (registry.Costs or None), and, once a recording mode has worked them
    out, its ``flops`` and ``findings`` (findings.Finding rows with ``site=-1``): all
    functions of the signature, so later calls read them instead of working them out.
    ``quick``: whether a hit needs nothing but a new fake (``_runner.quick_hit``), worked out
    on the first hit that can tell (None until then)."""

    __slots__ = ("template", "costs", "flops", "findings", "quick")

    def __init__(self, template: Template, costs: Any) -> None:
        self.template = template
        self.costs = costs
        self.flops: int | None = None
        self.findings: tuple | None = None
        self.quick: bool | None = None

    def __sizeof__(self) -> int:  # what the entry keeps alive, for the cache's byte budget
        return object.__sizeof__(self) + approx_size(self.template) + approx_size(self.costs)

    def __repr__(self) -> str:
        return (f"CacheEntry(template={self.template!r}, costs={self.costs!r}, "
                f"flops={self.flops!r}, findings={self.findings!r})")


def lookup(key: Any) -> CacheEntry | None:
    return ENTRIES.get(key)


def store(key: Any, entry: CacheEntry) -> None:
    """Keep a call's entry under its signature."""
    ENTRIES.put(key, entry)


def cache_info() -> CacheInfo:
    """Hits, misses and bypasses (by reason) of the kernel cache since the last clear."""
    return INFO


def clear_cache() -> None:
    """Forget every cached kernel result (and every other cache) and reset the counts."""
    for c in CACHES:
        c.clear()
    INFO.hits = INFO.misses = 0
    INFO.bypassed = {}


def set_cache_enabled(on: bool) -> bool:
    """Turn the kernel cache on or off (off: every call runs its kernel); returns the old setting."""
    old = INFO.enabled
    INFO.enabled = bool(on)
    if not on:
        ENTRIES.clear()
    return old
