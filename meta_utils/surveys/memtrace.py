"""Measure what NumPy's data allocator hands out while a function runs (real runs).

NumPy reports every data buffer to tracemalloc in its own domain (``PyTraceMalloc_Track``
with ``NPY_TRACE_DOMAIN`` = 389047, numpy/_core/src/multiarray/alloc.c), next to the
Python objects tracemalloc traces through Python's allocator hooks. To see NumPy's data
alone, ``tracemalloc.start()`` runs between reading Python's three allocators
(``PyMem_GetAllocator``) and setting them back (``PyMem_SetAllocator``): the hooks are
undone, so only explicit ``PyTraceMalloc_Track`` calls are traced.

Facts this relies on (checked by tests/test_memtools.py): a list of objects adds 0 bytes,
``np.empty(100000)`` adds exactly 800000, arrays of zero bytes are given 1 byte
(numpy/_core/src/multiarray/ctors.c), and NumPy's cache of small blocks
(``npy_alloc_cache``) does not change the tracked sizes (tracking happens above it).
"""
from __future__ import annotations

import contextlib
import ctypes
import gc
import tracemalloc
from typing import Any, Callable, Iterator

NUMPY_DOMAIN = 389047  # NPY_TRACE_DOMAIN, numpy/_core/include/numpy/ndarraytypes.h

# Measured calls are made from a frame whose module is not faketensor's: the namespace
# patches tell a program's calls from the library's by the caller's module
# (modes/patching._from_numpy), and what is measured is what a program gets.
_PROGRAM: dict = {"__name__": "__measured_program__"}
exec("def call(fn, args, kwargs):\n    return fn(*args, **kwargs)\n", _PROGRAM)
as_program: Callable[[Callable, Any, Any], Any] = _PROGRAM["call"]


class _PyMemAllocatorEx(ctypes.Structure):
    _fields_ = [("ctx", ctypes.c_void_p), ("malloc", ctypes.c_void_p),
                ("calloc", ctypes.c_void_p), ("realloc", ctypes.c_void_p),
                ("free", ctypes.c_void_p)]


# private prototypes (not ctypes.pythonapi's shared function objects, whose argtypes another
# import of this module would overwrite)
_PROTO = ctypes.PYFUNCTYPE(None, ctypes.c_int, ctypes.POINTER(_PyMemAllocatorEx))
_get = _PROTO(("PyMem_GetAllocator", ctypes.pythonapi))
_set = _PROTO(("PyMem_SetAllocator", ctypes.pythonapi))
_DOMAINS = (0, 1, 2)  # PYMEM_DOMAIN_RAW, PYMEM_DOMAIN_MEM, PYMEM_DOMAIN_OBJ


def _start_numpy_only() -> None:
    """Start tracemalloc with Python's allocator hooks undone (only explicit tracking)."""
    saved = [_PyMemAllocatorEx() for _ in _DOMAINS]
    refs = [ctypes.byref(a) for a in saved]
    for d, r in zip(_DOMAINS, refs):
        _get(d, r)
    tracemalloc.start()
    for d, r in zip(_DOMAINS, refs):
        _set(d, r)


def _split(snapshot: tracemalloc.Snapshot) -> tuple[int, int]:
    """(NumPy data bytes, other traced bytes) in a snapshot."""
    numpy = other = 0
    for t in snapshot.traces:
        if t.domain == NUMPY_DOMAIN:
            numpy += t.size
        else:
            other += t.size
    return numpy, other


@contextlib.contextmanager
def still_heap() -> Iterator[None]:
    """Inside the block, no collection frees what was alive before it, and the collector
    runs only when asked: the objects alive at the start are frozen (``gc.freeze``, which
    moves them aside without a scan) and automatic collection is off. Garbage made before
    the block therefore stays in the baseline instead of being freed halfway through a
    measurement, and a ``gc.collect()`` inside the block scans only what the block made:
    milliseconds, where a full collection of a long test session's heap takes a second."""
    enabled = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


@contextlib.contextmanager
def numpy_tracing() -> Iterator[None]:
    """tracemalloc traces NumPy's data buffers alone inside the block (``still_heap``).

    Raises RuntimeError if tracemalloc is already tracing, or if anything but NumPy's
    data was traced inside the block (then the figures would not be NumPy's alone).
    """
    if tracemalloc.is_tracing():
        raise RuntimeError("NumPy-only tracing needs tracemalloc to be off (it is already tracing)")
    with still_heap():
        _start_numpy_only()
        try:
            _, other_before = _split(tracemalloc.take_snapshot())
            yield
            _, other_after = _split(tracemalloc.take_snapshot())
        finally:
            tracemalloc.stop()
    if other_after != other_before:
        raise RuntimeError(f"{other_after - other_before} bytes outside NumPy's tracemalloc "
                           "domain were traced; the figures are not NumPy's data alone")


def traced_call(fn: Callable[[], Any]) -> tuple[int, int, Any]:
    """(peak, live, result) of ``fn()``: NumPy data bytes at most and still allocated while
    the result is alive, both relative to NumPy's live bytes when the call starts."""
    with numpy_tracing():
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = fn()
        current, peak = tracemalloc.get_traced_memory()
    return peak - base, current - base, result


def measure_peak(fn: Callable[[], Any]) -> tuple[int, int]:
    """(peak, live at the end) in bytes of NumPy data buffers allocated while ``fn()`` runs.

    Both are relative to NumPy's live bytes when the call starts; ``fn``'s return value
    is dropped (and garbage collected) before the end figure is taken.
    """
    def run() -> None:
        fn()
        gc.collect()
    peak, live, _ = traced_call(run)
    return peak, live


def _real_peaks(setup: Callable[[], list], op: Callable[..., Any]) -> tuple[int, int]:
    """(peak, live) of ``op`` on real inputs, its result alive when live is read (and
    dropped, with the inputs, on return)."""
    inputs = setup()
    keep: list = []
    return measure_peak(lambda: keep.append(as_program(op, inputs, {})))


def op_peaks(setup: Callable[[], list], op: Callable[..., Any]) -> tuple[tuple[int, int], tuple[int, int]]:
    """((peak, live) real, (peak, live) fake) of one op, both above the live bytes before it.

    ``setup()`` makes the inputs: real arrays for the real run, fakes for the fake run (it
    runs again inside ``FakeMode``); the op's result is alive when ``live`` is read.
    """
    import faketensor as ft

    real = _real_peaks(setup, op)
    with ft.FakeMode() as mode:
        inputs = setup()
        base = mode.memory.live.get("cpu", 0)
        mode.memory.reset_peak("cpu")
        out = as_program(op, inputs, {})  # noqa: F841  (alive while live is read)
        fake = mode.memory.peak["cpu"] - base, mode.memory.live.get("cpu", 0) - base
    return real, fake
