"""Hidden buffers: what a real call takes from NumPy's data allocator besides its outputs.

Kernels report these through ``registry.transient`` (data-allocator buffers freed before
the call returns) and ``registry.scratch`` (C-heap blocks). The helpers here are the
pieces several kernels share: the size of an operand's casting copy, the 0-d arrays
NumPy makes of Python scalars, and ``Steps``, a replay of a composite call's
allocations and frees that yields its transient bytes.
"""
from __future__ import annotations

import functools
import math
import threading
from typing import Any, Callable

import numpy as np

from ...meta import ArrayMeta, is_aligned, is_fake
from .temporaries import Steps as _Steps
from ..registry import note, transient, uncached


def nbytes(m: Any) -> int:
    """Bytes of an array's (or stand-in's) own elements."""
    return m.size * m.dtype.itemsize


def needs_cast_copy(m: Any, dt: np.dtype) -> bool:
    """An operand the iterator must copy to ``dt``: another dtype, byte order or misaligned."""
    return m.dtype != dt or not m.dtype.isnative or not is_aligned(m)


def cast_copy_bytes(m: Any, dt: np.dtype) -> int:
    """Bytes of an unbuffered iterator's copy of ``m`` as ``dt`` (nditer_constr.c,
    npyiter_new_temp_array: the operand's own shape, not the broadcast one), or 0."""
    if m is None or not needs_cast_copy(m, dt):
        return 0
    return max(m.size * dt.itemsize, 1)  # ctors.c: a zero-size array is given 1 byte


def scalar_bytes(x: Any, dt: np.dtype) -> tuple[int, int]:
    """(held, converting) data bytes of a scalar operand of a ufunc with loop dtype ``dt``.

    ``convert_ufunc_arguments`` makes a 0-d array of a Python or NumPy scalar; when its
    dtype is not the loop's, it is replaced by a 0-d array of the loop dtype, allocated
    before the first is freed (``npy_update_operand_for_scalar`` for Python scalars,
    ``check_for_trivial_loop``'s copy for others; ufunc_object.c). ``held`` stays alive
    through the loop; ``converting`` is the high-water mark before the outputs exist.
    Arrays give (0, 0); a list gives the bytes of the array NumPy makes of it.
    """
    if is_fake(x) or isinstance(x, np.ndarray):
        return 0, 0
    arr = np.asarray(x)
    first = arr.nbytes
    if arr.ndim or arr.dtype == dt:  # a list's array is cast in the iterator's buffers
        return first, first
    return dt.itemsize, first + dt.itemsize


class Steps(_Steps):
    """``temporaries.Steps`` with the outputs given at the end: ``alloc``/``free``/``hold``
    follow the real call (its outputs included); ``report(kept)`` reports the peak beyond
    the ``kept`` bytes the call returns (its fresh outputs, which the mode charges itself)."""

    __slots__ = ()

    alloc = _Steps.new
    hold = _Steps.temp

    def report(self, kept: int) -> None:
        if self.peak > kept:
            transient(self.peak - kept)


def _identical(a: Any, b: Any) -> bool:
    return (a.storage_offset == b.storage_offset and a.shape == b.shape
            and a.strides == b.strides and a.dtype == b.dtype)


def overlap_copy_bytes(inputs: list, out: Any, dt: np.dtype, elementwise: bool) -> int:
    """NPY_ITER_COPY_IF_OVERLAP: an output that shares memory with an input it is not
    identical to is written through a temporary copy of ``dt`` (nditer_constr.c,
    npyiter_allocate_arrays; identical operands are exempt only for elementwise loops,
    NPY_ITER_OVERLAP_ASSUME_ELEMENTWISE). Returns the copy's bytes, or 0; a copy is noted
    as an ``overlap_copy`` (the caller reports the bytes)."""
    st = getattr(out, "storage", None)  # stand-ins for fresh intermediates have none
    if out is None or st is None:
        return 0
    from .overlap import fake_shares_memory
    for m in inputs:
        if getattr(m, "storage", None) is not st:
            continue
        if m is not out:
            uncached()  # overlap depends on offsets, which the kernel cache does not key on
        if not fake_shares_memory(m, out):
            continue
        if elementwise and _identical(m, out) and not _internal_overlap(out):
            continue
        note("overlap_copy", out.size * dt.itemsize)
        return out.size * dt.itemsize
    return 0


def _internal_overlap(m: Any) -> bool:
    """A zero stride on an axis longer than 1 (the common internal overlap)."""
    return any(s == 0 and n > 1 for n, s in zip(m.shape, m.strides))


class _Active(threading.local):
    steps: Steps | None = None


_ACTIVE = _Active()


def steps() -> Steps:
    """The Steps of the running ``stepped`` kernel (a throwaway one outside any)."""
    st = _ACTIVE.steps
    return st if st is not None else Steps()


def kept_bytes(res: Any) -> int:
    """Bytes of the fresh buffers a kernel result stands for (what the mode charges; an
    empty array's buffer is 1 byte, as ``temporaries.array_bytes``). A view of a fresh
    intermediate (``w.real`` of a complex result) keeps that intermediate's buffer alive:
    it is counted once, however many results view it."""
    return sum(_fresh_buffers(res, {}).values())


def _fresh_buffers(res: Any, seen: dict) -> dict:
    """``seen`` filled with id -> bytes of each fresh buffer ``res`` holds alive."""
    if type(res) is ArrayMeta:
        if res.scalar:  # a NumPy scalar holds no buffer
            return seen
        if res.view_of is not None:
            return _fresh_buffers(res.view_of, seen)  # an input's storage is not the call's
        seen[id(res)] = max(math.prod(res.base_shape or res.shape) * res.dtype.itemsize, 1)  # ctors.c: 1 byte for none
    elif isinstance(res, (tuple, list)):
        for r in res:
            _fresh_buffers(r, seen)
    return seen


def stepped(fn: Callable) -> Callable:
    """Run a kernel whose helpers replay the real call's allocations in ``steps()``, and
    report the peak beyond its returned outputs as transient bytes. Nested ``stepped``
    kernels record into the outermost one."""
    @functools.wraps(fn)
    def kernel(*args: Any, **kwargs: Any) -> Any:
        if _ACTIVE.steps is not None:
            return fn(*args, **kwargs)
        st = _ACTIVE.steps = Steps()
        try:
            res = fn(*args, **kwargs)
        finally:
            _ACTIVE.steps = None
        st.report(kept_bytes(res))
        return res
    return kernel


def call_step(st: _Steps, fn: Callable, *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """``fn(*args)``, a kernel, as one statement of a replayed composite: run on its own (a
    ``stepped`` kernel's locals die with it, as the real function's), then its result
    allocated on ``st`` with the call's temporaries beside it. Returns (result, the
    result's bytes, alive on ``st`` until freed)."""
    from .temporaries import array_bytes
    saved, _ACTIVE.steps = _ACTIVE.steps, None
    try:
        with captured() as cap:
            r = fn(*args, **kwargs)
    finally:
        _ACTIVE.steps = saved
    kept = st.new(kept_bytes(r) if type(r) is ArrayMeta else array_bytes(r.shape, r.dtype))
    st.temp(cap.transient)
    return r, kept


def unbuffered_out_copy_bytes(inputs: list, out: Any, dt: np.dtype) -> int:
    """The temporary an unbuffered (gufunc) iterator writes an ``out`` operand through:
    one copy in the loop dtype when ``out`` has another dtype (NPY_ITER_UPDATEIFCOPY) or
    overlaps an input (NPY_ITER_COPY_IF_OVERLAP)."""
    if out is None:
        return 0
    if needs_cast_copy(out, dt):
        return out.size * dt.itemsize
    return overlap_copy_bytes(inputs, out, dt, elementwise=False)


class captured:
    """Collect the transient bytes that helpers report inside the block instead of adding
    them to the call's, so a ``stepped`` kernel can place them on its timeline (a product's
    casting copies live with that product, not with the whole composite). Scratch passes
    through, and so do the copies helpers noted (registry.note)."""

    def __enter__(self) -> "captured":
        from ..registry import CALL
        self._saved = CALL.costs
        CALL.costs = None
        self.transient = 0
        return self

    def __exit__(self, *exc: Any) -> None:
        from ..registry import CALL, note, scratch
        got = CALL.costs
        CALL.costs = self._saved
        if got is not None:
            self.transient = got.transient
            scratch(got.scratch)
            for kind, n in got.notes:
                note(kind, n)
