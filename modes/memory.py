"""Live and peak bytes per device, as NumPy (and CuPy's memory pool) would count them."""
from __future__ import annotations

POOL_ROUND = 512


def pool_bytes(nbytes: int) -> int:
    """CuPy's default pool: round up to 512 B; size-0 allocations bypass the pool."""
    if nbytes <= 0:
        return 0
    return -(-nbytes // POOL_ROUND) * POOL_ROUND


class MemoryStats:
    """``live`` / ``peak`` bytes per device; ``pool_live`` / ``pool_peak`` for CUDA devices."""

    def __init__(self) -> None:
        self.live: dict[str, int] = {}
        self.peak: dict[str, int] = {}
        self.pool_live: dict[str, int] = {}
        self.pool_peak: dict[str, int] = {}
        self.allocations = 0

    def _alloc(self, storage) -> int:
        """Count a new storage (once); it is freed when the storage object dies."""
        if storage._tracker is not None:
            return 0
        storage._tracker = self
        dev = storage.device
        n = storage.nbytes
        live = self.live.get(dev, 0) + n
        self.live[dev] = live
        peak = self.peak
        if live > peak.get(dev, -1):
            peak[dev] = live
        if dev != "cpu":
            p = self.pool_live.get(dev, 0) + pool_bytes(n)
            self.pool_live[dev] = p
            if p > self.pool_peak.get(dev, 0):
                self.pool_peak[dev] = p
            else:
                self.pool_peak.setdefault(dev, p)
        self.allocations += 1
        return n

    def _free(self, storage) -> None:
        dev = storage.device
        self.live[dev] = self.live.get(dev, 0) - storage.nbytes
        if dev != "cpu":
            self.pool_live[dev] = self.pool_live.get(dev, 0) - pool_bytes(storage.nbytes)

    def __repr__(self) -> str:
        s = f"MemoryStats(live={self.live}, peak={self.peak}"
        if self.pool_peak:
            s += f", pool_live={self.pool_live}, pool_peak={self.pool_peak}"
        return s + ")"


class _External:
    """Marks storages that stand for real buffers: never counted as allocations."""

    def _free(self, storage) -> None:
        pass


EXTERNAL = _External()
