"""The iterator's cast buffers in ``memory.scratch_peak``, against what NumPy mallocs.

NumPy takes NpyIter's buffers from the C heap through ``PyMem_RawMalloc``. tracemalloc runs
here with Python's object and memory allocator hooks undone (tests/memtools.py's trick, the raw
domain left hooked), so it traces the raw allocator and NumPy's data only. A result the call
allocates exists before the iteration and is alive at the peak: its bytes are taken off. What
remains beyond the buffers is the iterator's own struct (PyObject_Malloc passes blocks over
512 bytes to the raw allocator): 824 to 1812 bytes in these cases, below TOLERANCE, which
every case's buffers exceed (so a missing buffer fails).
"""
from __future__ import annotations

import ctypes
import tracemalloc

import numpy as np
import pytest

import faketensor as ft
from memtools import _get, _PyMemAllocatorEx, _set

TOLERANCE = 2048  # the iterator's own structs (see above)

C32 = np.ones((500, 100), np.float32)
I32C = np.ones((500, 100), np.int32)
C64 = np.ones((500, 100))
OUT = np.empty((500, 100))
V32 = np.ones(10**6, np.float32)
I32 = np.ones((1000, 1000), np.int32)
SMALL = np.ones((50, 100), np.int32)
F64 = np.asfortranarray(np.ones((500, 100)))

CASES = {
    "no cast": (lambda a, b, o: np.add(b, b, out=o), (C32, C64, OUT)),
    "one input cast": (lambda a, b, o: np.add(a, b, out=o), (C32, C64, OUT)),
    "output cast": (lambda a, b, o: np.add(a, a, out=o), (C32, C64, OUT)),
    "two inputs cast": (lambda i, a, o: np.add(i, a, out=o), (I32C, C32, OUT)),
    "small, clamped to its size": (lambda a, b, o: np.add(a[:10], b[:10], out=o[:10]),
                                   (C32, C64, OUT)),
    "sum to float64": (lambda v: v.sum(dtype=np.float64), (V32,)),
    "int32 sum": (lambda i: i.sum(), (I32,)),
    "small int32 sum": (lambda i: i.sum(), (SMALL,)),
    "float32 sum (no cast)": (lambda v: v.sum(), (V32,)),
    # the iterator buffers every operand it cannot walk with one stride over its core
    # (nditer_constr.c npyiter_find_buffering_setup), casting or not
    "F with C, no cast": (lambda f, b, o: np.add(f, b, out=o), (F64, C64, OUT)),
    "F with C, allocated": (lambda f, b: np.add(f, b), (F64, C64)),
    "F with C operator": (lambda f, b: f + b, (F64, C64)),
    "strided cast": (lambda a, b, o: np.add(a[::2], b[::2], out=o[::2]), (C32, C64, OUT)),
    "negative strides, cast": (lambda a, b, o: np.add(a[::-1], b, out=o), (C32, C64, OUT)),
    "broadcast row, cast": (lambda a, b, o: np.add(a[:1], b, out=o), (C32, C64, OUT)),
    "broadcast column, cast": (lambda a, b, o: np.add(a[:, :1], b, out=o), (C32, C64, OUT)),
    "transposed cast": (lambda a, b: np.add(a.T, b.T), (C32, C64)),
    "negative strides, allocated": (lambda a, b: np.add(a[:, ::-1], b), (C64.T, C32.T)),
    "3-d mixed strides, cast": (lambda i, a: np.add(i.reshape(10, 100, 1000)[::2, :10, ::-20],
                                                     a.reshape(50, 10, 100).T[:5]),
                                (I32, C32)),
    "where mask, cast": (lambda a, b, o, w: np.add(a, b, out=o, where=w), (C32, C64, OUT, C64 > 0)),
    # partial reductions: the core is the kept axes, the buffer a multiple of it
    "int32 sum over one axis": (lambda i: i.sum(axis=0), (I32,)),
    "int32 sum over the last axis": (lambda i: i.sum(axis=1), (I32,)),
    "int32 sum, keepdims": (lambda i: i.sum(axis=0, keepdims=True), (I32,)),
    "int32 sum of a transpose": (lambda i: i.T.sum(axis=0), (I32,)),
    "small int32 sum over one axis": (lambda i: i[:50, :7].sum(axis=0), (I32,)),
    "int32 sum, middle axis of 3": (lambda i: i.reshape(10, 100, 1000).sum(axis=1), (I32,)),
    "int32 sum, outer axes of 3": (lambda i: i.reshape(10, 100, 1000).sum(axis=(0, 2)), (I32,)),
    "float32 sum to float64 over one axis": (lambda a: a.sum(axis=1, dtype=np.float64), (C32,)),
    "maximum.reduce cast": (lambda a: np.maximum.reduce(a, axis=0, dtype=np.float64), (C32,)),
    "int32 sum into out": (lambda i, o: i.sum(axis=0, out=o), (I32, np.empty(1000, np.int64))),
}
def _start_raw_only() -> None:
    """Start tracemalloc with the PYMEM_DOMAIN_MEM and _OBJ hooks undone (raw and NumPy only)."""
    saved = [_PyMemAllocatorEx() for _ in (1, 2)]
    refs = [ctypes.byref(a) for a in saved]
    for d, r in zip((1, 2), refs):
        _get(d, r)
    tracemalloc.start()
    for d, r in zip((1, 2), refs):
        _set(d, r)


def _real(fn, args) -> int:
    fn(*args)  # first-call caches (dispatch, cast implementations) are not the call's buffers
    _start_raw_only()
    try:
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        res = fn(*args)
        fresh = isinstance(res, np.ndarray) and res.flags.owndata and all(res is not a for a in args)
        made = res.nbytes if fresh else 0
        return tracemalloc.get_traced_memory()[1] - start - made
    finally:
        tracemalloc.stop()


def _fake(fn, args) -> int:
    with ft.FakeMode() as mode:
        fn(*[ft.to_fake(a) for a in args])
    return mode.memory.scratch_peak.get("cpu", 0)


def _check(fn, args) -> None:
    real, fake = _real(fn, args), _fake(fn, args)
    assert 0 <= real - fake <= TOLERANCE, (real, fake)


@pytest.mark.parametrize("name", list(CASES))
def test_buffers_match_numpy(name):
    fn, args = CASES[name]
    _check(fn, args)
