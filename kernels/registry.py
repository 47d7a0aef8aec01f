"""The kernel registry: op -> metadata rule + tags, filled by the ``register`` decorator."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

TAGS = frozenset({"view", "inplace", "factory", "random", "data-dependent", "ufunc",
                  "reduction", "copy", "cupy", "query"})

# Kernels with these tags are never cached: their results are not a function of metadata
# alone (random draws, values), or they read context such as CuPy's current device.
NOCACHE = frozenset({"random", "data-dependent", "cupy"})


class Kernel(NamedTuple):
    fn: Callable
    tags: frozenset
    name: str
    cacheable: bool = True  # results may be reused for inputs of the same metadata


class Out(NamedTuple):
    """One output of a kernel that is not an input returned as is.

    ``view_of`` is the input (a fake) whose storage the output views, ``offset`` the
    byte offset from that input's own start; ``None`` means a fresh allocation.
    ``writeable`` False makes it read-only; ``base_shape`` set on a fresh output makes
    it a view of a temporary owner of that shape (a reshape that had to copy).
    """

    shape: tuple
    dtype: np.dtype
    strides: tuple
    view_of: Any = None
    offset: int = 0
    writeable: bool | None = None
    base_shape: tuple | None = None
    device: str | None = None
    warn_on_write: bool = False


REGISTRY: dict[Any, Kernel] = {}
# Set by ``uncached()`` while a kernel runs; the runner then does not reuse its result.
SKIP_CACHE: list = [False]


def uncached() -> None:
    """Mark the running kernel's result as not reusable: its call has a side effect
    (a warning NumPy emits on every call) that a cached result would drop."""
    SKIP_CACHE[0] = True


# Set by kernels/cupy_rules.py: runs an op whose inputs include CUDA fakes (or a
# kernel tagged "cupy") with CuPy's rules: hook(func, kernel, prefix, args, kwargs, device).
CUDA_HOOK: list = []


def register(*ops: Any, tags: tuple[str, ...] = (), name: str | None = None) -> Callable:
    """Register ``fn`` as the metadata rule for each op (a NumPy callable or a key string).

    Key strings: ``"ufunc.__call__"``, ``"ufunc.reduce"``, ... for ufunc methods (the
    kernel receives the ufunc first) and ``"ndarray.NAME"`` for array methods.
    """
    bad = set(tags) - TAGS
    if bad:
        raise ValueError(f"unknown kernel tags {sorted(bad)}")

    def deco(fn: Callable) -> Callable:
        for op in ops:
            REGISTRY[op] = Kernel(fn, frozenset(tags), name or fn.__name__,
                                  NOCACHE.isdisjoint(tags))
        return fn

    return deco


def lookup(op: Any) -> Kernel | None:
    """The kernel registered for op, or None."""
    try:
        return REGISTRY.get(op)
    except TypeError:  # unhashable
        return None
