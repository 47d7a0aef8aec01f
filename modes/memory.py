"""Live and peak bytes per device, as NumPy's data allocator (and CuPy's memory pool) count them.

A storage is charged once, to the ledger of the FakeMode that was active when an op made
it (that mode and every FakeMode it is nested in), and freed when its last fake dies.
Storages that stand for memory that existed before the mode (converted real arrays,
memory-mapped files, fakes made outside any mode) are never charged: a mode reports the
ones it converted or mapped in ``preexisting``.
"""
from __future__ import annotations

import threading
import weakref

from .._storage import MAPPED, PREEXISTING

POOL_ROUND = 512
EXTERNAL = PREEXISTING  # the tracker of storages that stand for real buffers


def pool_bytes(nbytes: int) -> int:
    """CuPy's default pool: round up to 512 B; size-0 allocations bypass the pool."""
    if nbytes <= 0:
        return 0
    return -(-nbytes // POOL_ROUND) * POOL_ROUND


def charged_bytes(storage) -> int:
    """What the allocator hands out for a storage: NumPy gives an empty array one byte
    (numpy/_core/src/multiarray/ctors.c: ``nbytes = 1`` when the size is 0)."""
    n = storage.nbytes
    return n if n or storage.device != "cpu" else 1


class MemoryStats:
    """Bytes per device (``"cpu"``, ``"cuda:0"``, ...) for one FakeMode.

    - ``live`` / ``peak``: what the data allocator holds now / held at most. The peak
      includes each op's transient buffers (casting copies, sort and fft buffers), which
      exist together with the op's outputs and are freed before it returns.
    - ``pool_live`` / ``pool_peak`` (CUDA devices): the same as CuPy's pool counts them,
      each allocation rounded up to 512 B.
    - ``scratch_peak``: the largest C-heap scratch one call held (ufunc iteration buffers,
      LAPACK work arrays, pocketfft and mergesort scratch). Real memory, but not the data
      allocator's, so it is not in ``peak``.
    - ``preexisting``: bytes of the real buffers converted and files mapped in this mode;
      never in ``live`` or ``peak``.
    """

    def __init__(self) -> None:
        self.live: dict[str, int] = {}
        self.peak: dict[str, int] = {}
        self.pool_live: dict[str, int] = {}
        self.pool_peak: dict[str, int] = {}
        self.scratch_peak: dict[str, int] = {}
        self.preexisting: dict[str, int] = {}
        self.allocations = 0
        self._lock = threading.RLock()  # RLock: a storage can die (and be freed) mid-update
        self._seen: weakref.WeakSet = weakref.WeakSet()

    # The ledger interface (see Ledger): one stats object is the ledger of an unnested mode.
    @property
    def stats(self) -> tuple:
        return (self,)

    def _alloc(self, storage) -> int:
        """Charge a new storage (once); it is freed when the storage object dies."""
        if storage._tracker is not None:
            return 0
        storage._tracker = self
        n = charged_bytes(storage)
        self._add(storage.device, n, 0)
        return n

    def _add(self, dev: str, n: int, transient: int) -> None:
        with self._lock:
            live = self.live.get(dev, 0) + n
            self.live[dev] = live
            if live + transient > self.peak.get(dev, -1):
                self.peak[dev] = live + transient
            if dev != "cpu":
                p = self.pool_live.get(dev, 0) + pool_bytes(n)
                self.pool_live[dev] = p
                p += pool_bytes(transient)
                if p > self.pool_peak.get(dev, -1):
                    self.pool_peak[dev] = p
            if n:
                self.allocations += 1

    def _free(self, storage) -> None:
        dev = storage.device
        n = charged_bytes(storage)
        with self._lock:
            self.live[dev] = self.live.get(dev, 0) - n
            if dev != "cpu":
                self.pool_live[dev] = self.pool_live.get(dev, 0) - pool_bytes(n)

    def _transient(self, dev: str, nbytes: int) -> None:
        """Buffers alive together with the current live set for the length of one call."""
        self._add(dev, 0, nbytes)

    def _scratch(self, dev: str, nbytes: int) -> None:
        with self._lock:
            if nbytes > self.scratch_peak.get(dev, 0):
                self.scratch_peak[dev] = nbytes

    def _preexisting(self, storage) -> None:
        """Count a buffer that existed before the mode (once per mode)."""
        with self._lock:
            if storage not in self._seen:
                self._seen.add(storage)
                dev = storage.device
                self.preexisting[dev] = self.preexisting.get(dev, 0) + storage.nbytes

    def __repr__(self) -> str:
        s = f"MemoryStats(live={self.live}, peak={self.peak}"
        if self.pool_peak:
            s += f", pool_live={self.pool_live}, pool_peak={self.pool_peak}"
        if self.scratch_peak:
            s += f", scratch_peak={self.scratch_peak}"
        if self.preexisting:
            s += f", preexisting={self.preexisting}"
        return s + ")"


class Ledger:
    """The stats of a mode and of every FakeMode it is nested in: an allocation counts for all."""

    __slots__ = ("stats",)

    def __init__(self, stats: tuple) -> None:
        self.stats = stats

    def _alloc(self, storage) -> int:
        if storage._tracker is not None:
            return 0
        storage._tracker = self
        n = charged_bytes(storage)
        for s in self.stats:
            s._add(storage.device, n, 0)
        return n

    def _free(self, storage) -> None:
        for s in self.stats:
            s._free(storage)

    def _transient(self, dev: str, nbytes: int) -> None:
        for s in self.stats:
            s._transient(dev, nbytes)

    def _scratch(self, dev: str, nbytes: int) -> None:
        for s in self.stats:
            s._scratch(dev, nbytes)

    def _preexisting(self, storage) -> None:
        for s in self.stats:
            s._preexisting(storage)


__all__ = ["MemoryStats", "Ledger", "pool_bytes", "EXTERNAL", "MAPPED", "PREEXISTING"]
