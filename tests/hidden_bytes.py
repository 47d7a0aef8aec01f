"""Measuring what a real NumPy call takes from NumPy's data allocator, and what a fake predicts.

NumPy reports every data buffer to tracemalloc in its own domain (``np.lib.tracemalloc_domain``)
through ``PyTraceMalloc_Track``. ``start()`` starts tracemalloc and then puts Python's own three
allocators (RAW, MEM, OBJ) back, so that only those NumPy calls are traced: Python objects
add nothing (see ``self_check``).
"""
from __future__ import annotations

import ctypes
import gc
import tracemalloc
from typing import Any, Callable

import numpy as np

import faketensor as ft


class _Allocator(ctypes.Structure):  # PyMemAllocatorEx (Include/cpython/pymem.h)
    _fields_ = [("ctx", ctypes.c_void_p), ("malloc", ctypes.c_void_p),
                ("calloc", ctypes.c_void_p), ("realloc", ctypes.c_void_p),
                ("free", ctypes.c_void_p)]


_api = ctypes.pythonapi
_api.PyMem_GetAllocator.argtypes = [ctypes.c_int, ctypes.POINTER(_Allocator)]
_api.PyMem_GetAllocator.restype = None
_api.PyMem_SetAllocator.argtypes = [ctypes.c_int, ctypes.POINTER(_Allocator)]
_api.PyMem_SetAllocator.restype = None


def start() -> None:
    """Trace NumPy's data allocations only (idempotent)."""
    if tracemalloc.is_tracing():
        return
    saved = []
    for domain in range(3):  # PYMEM_DOMAIN_RAW, _MEM, _OBJ
        a = _Allocator()
        _api.PyMem_GetAllocator(domain, ctypes.byref(a))
        saved.append(a)
    tracemalloc.start()
    for domain, a in enumerate(saved):
        _api.PyMem_SetAllocator(domain, ctypes.byref(a))


def self_check() -> None:
    """A list adds nothing; ``np.empty(100000)`` adds exactly its 800000 bytes."""
    start()
    before = tracemalloc.get_traced_memory()[0]
    junk = [object() for _ in range(10000)]
    assert tracemalloc.get_traced_memory()[0] == before, "Python objects are traced"
    arr = np.empty(100000)
    assert tracemalloc.get_traced_memory()[0] - before == 800000
    del junk, arr


def real_peak(fn: Callable[[], Any]) -> tuple[int, int, Any]:
    """(peak during the call, bytes still live after it, result), both relative to before."""
    start()
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    result = fn()
    cur, peak = tracemalloc.get_traced_memory()
    return peak - before, cur - before, result


def fake_peak(fn: Callable[..., Any], *real_args: Any) -> tuple[int, int, Any]:
    """(peak, scratch_peak, result) of ``fn(*fakes)`` in a fresh FakeMode.

    The inputs are converted first, so they count as pre-existing and the peak is the
    call's own: its outputs plus its transient buffers.
    """
    with ft.FakeMode() as mode:
        fakes = ft.to_fake(real_args)
        result = fn(*fakes)
        return (mode.memory.peak.get("cpu", 0), mode.memory.scratch_peak.get("cpu", 0), result)
