"""The kernel registry: op -> metadata rule + tags, filled by the ``register`` decorator."""
from __future__ import annotations

import threading
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


class CallRecord(threading.local):
    """What the running kernel reports besides its outputs (one record per thread).

    ``costs`` is None or ``(transient, scratch)``. ``transient``: bytes the real call
    takes from the library's data allocator and frees before returning (casting copies
    of operands, fft's complex copy, sort buffers); alive together with the outputs,
    they raise the peak, not the final live. ``scratch``: the largest C-heap block the
    real call holds (ufunc iteration buffers, LAPACK work arrays, pocketfft and mergesort
    scratch), invisible to the data allocator and reported apart. ``skip_cache``: the
    result must not be reused (see ``uncached``). The runner resets both before a kernel
    runs and sets ``costs`` from the cache on a hit.
    """

    costs: tuple | None = None
    skip_cache: bool = False


CALL = CallRecord()


def uncached() -> None:
    """Mark the running kernel's result as not reusable: its call has a side effect
    (a warning NumPy emits on every call) that a cached result would drop."""
    CALL.skip_cache = True


def transient(nbytes: int) -> None:
    """The real call also allocates ``nbytes`` through the data allocator, freed before it
    returns (alive together with the outputs). Call once per temporary buffer."""
    if not nbytes:
        return
    c = CALL.costs
    CALL.costs = (int(nbytes), 0) if c is None else (c[0] + int(nbytes), c[1])


def scratch(nbytes: int) -> None:
    """The real call holds ``nbytes`` of C-heap scratch at its largest (not the data allocator)."""
    if not nbytes:
        return
    c = CALL.costs
    if c is None:
        CALL.costs = (0, int(nbytes))
    elif nbytes > c[1]:
        CALL.costs = (c[0], int(nbytes))


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
