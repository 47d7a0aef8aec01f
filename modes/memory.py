"""Live and peak bytes per device, as NumPy's data allocator (and CuPy's memory pool) count them.

A storage is charged once, to the ledger of the FakeMode that was active when an op made
it (that mode and every FakeMode it is nested in), and freed when its last fake dies.
Storages that stand for memory that existed before the mode (converted real arrays,
memory-mapped files, fakes made outside any mode) are never charged: a mode reports the
ones it converted or mapped in ``preexisting``.
"""
from __future__ import annotations

import collections
import threading
import weakref
from typing import Any

from .._storage import MAPPED, PREEXISTING, FakeStorage

POOL_ROUND = 512
EXTERNAL = PREEXISTING  # the tracker of storages that stand for real buffers


def pool_bytes(nbytes: int) -> int:
    """CuPy's default pool: round up to 512 B; size-0 allocations bypass the pool."""
    if nbytes <= 0:
        return 0
    return -(-nbytes // POOL_ROUND) * POOL_ROUND


def charged_bytes(storage: FakeStorage) -> int:
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

    Allocations, frees and transients are appended to a queue (``deque.append`` is atomic,
    so threads sharing a mode never lose an update and the hot path takes no lock) and
    folded, in order, into the figures when they are read or the queue grows long.
    """

    FOLD_AT = 4096

    def __init__(self) -> None:
        self._live: dict[str, int] = {}
        self._peak: dict[str, int] = {}
        self._pool_live: dict[str, int] = {}
        self._pool_peak: dict[str, int] = {}
        self._allocations = 0
        self.scratch_peak: dict[str, int] = {}
        self.preexisting: dict[str, int] = {}
        self._events: collections.deque = collections.deque()
        self._lock = threading.RLock()  # folding, scratch and preexisting (RLock: a storage
        self._seen: weakref.WeakSet = weakref.WeakSet()  # may die, and be freed, mid-fold)

    @property
    def stats(self) -> tuple:
        """The ledger interface (see Ledger): an unnested mode's ledger is its own stats."""
        return (self,)

    # --- the figures (folded on read) ---------------------------------------------------
    @property
    def live(self) -> dict[str, int]:
        """Bytes held now, per device."""
        return self._folded("_live")

    @property
    def peak(self) -> dict[str, int]:
        """Most bytes held, per device."""
        return self._folded("_peak")

    @property
    def pool_live(self) -> dict[str, int]:
        """CUDA devices: bytes held now as CuPy's pool counts them."""
        return self._folded("_pool_live")

    @property
    def pool_peak(self) -> dict[str, int]:
        """CUDA devices: most bytes held as CuPy's pool counts them."""
        return self._folded("_pool_peak")

    @property
    def allocations(self) -> int:
        """How many storages were charged."""
        return self._folded("_allocations")

    def _folded(self, name: str) -> Any:
        self._fold()
        return getattr(self, name)

    # --- events -----------------------------------------------------------------------
    def _alloc(self, storage: FakeStorage) -> int:
        """Charge a new storage (once); it is freed when the storage object dies."""
        if storage._tracker is not None:
            return 0
        storage._tracker = self
        return self._charge(storage)

    def _charge(self, storage: FakeStorage) -> int:
        n = storage.nbytes
        ev = self._events
        if storage.device == "cpu":
            n = n or 1  # charged_bytes, inlined: the hot path of every fresh cpu array
            ev.append(n)
        else:
            ev.append((storage.device, n, 0))
        if len(ev) > self.FOLD_AT:
            self._fold()
        return n

    def _free(self, storage: FakeStorage) -> None:
        if storage.device == "cpu":
            self._events.append(-(storage.nbytes or 1))
        else:
            self._events.append((storage.device, -storage.nbytes, 0))

    def _transient(self, dev: str, nbytes: int) -> None:
        """Buffers alive together with the current live set for the length of one call."""
        self._events.append((dev, 0, nbytes))

    def _fold(self) -> None:
        """Apply the queued events in order (cpu ints inline, other events by device)."""
        ev = self._events
        if not ev:
            return
        with self._lock:
            live_d, peak_d = self._live, self._peak
            cpu = "cpu" in live_d
            live = live_d.get("cpu", 0)
            peak = peak_d.get("cpu", -1)
            allocs = self._allocations
            pop = ev.popleft
            while ev:
                e = pop()
                if type(e) is int:
                    cpu = True
                    live += e
                    if e > 0:
                        allocs += 1
                        if live > peak:
                            peak = live
                    continue
                dev, n, transient = e
                if dev == "cpu":
                    cpu = True
                    live += n
                    if n > 0:
                        allocs += 1
                    if live + transient > peak:
                        peak = live + transient
                    continue
                d_live = live_d.get(dev, 0) + n
                live_d[dev] = d_live
                if d_live + transient > peak_d.get(dev, -1):
                    peak_d[dev] = d_live + transient
                p = self._pool_live.get(dev, 0) + (pool_bytes(n) if n > 0 else -pool_bytes(-n))
                self._pool_live[dev] = p
                p += pool_bytes(transient)
                if p > self._pool_peak.get(dev, -1):
                    self._pool_peak[dev] = p
                if n > 0:
                    allocs += 1
            if cpu:
                live_d["cpu"] = live
                peak_d["cpu"] = max(peak, 0)
            self._allocations = allocs

    def _scratch(self, dev: str, nbytes: int) -> None:
        with self._lock:
            if nbytes > self.scratch_peak.get(dev, 0):
                self.scratch_peak[dev] = nbytes

    def _preexisting(self, storage: FakeStorage) -> None:
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


class RecordingStats(MemoryStats):
    """MemoryStats that also keeps every event, tagged with the index of the op that
    caused it, for a recording mode's report (``analyze``).

    ``log`` is flat (ints and device names, nothing for the garbage collector to visit):
    four items per event, ``op, sid, device, delta``. ``delta > 0`` allocates the storage
    whose ``id()`` is ``sid``, ``delta < 0`` frees it, ``sid == 0`` is a transient of
    ``delta`` bytes. A storage's id is not reused before its free is logged (``__del__``
    runs while it still holds it), so events pair up. ``op`` is the length of the mode's
    trace: an op's own bytes are charged before its entry is appended, and frees between
    ops carry the next op's index.

    ``rising`` turns True when an event takes a device above its highest figure so far
    (counted as ``analyze`` counts): the mode then records that op's whole call stack,
    since it may be the peak. A running estimate, exact in one thread; the figures
    themselves come from the log.
    """

    def __init__(self, trace: list) -> None:
        super().__init__()
        self._trace = trace
        self.log: list = []
        self.mode: Any = None  # the Recording ft.explain reads (set by a recording FakeMode)
        self._pos = 0  # how much of the log the figures include
        self.rising = False
        self._run: dict[str, list] = {}  # device -> [live, highest], as analyze counts
        self._cpu = self._run["cpu"] = [0, 0]

    def _bump(self, dev: str, delta: int, transient: int) -> None:
        r = self._run.get(dev)
        if r is None:
            r = self._run[dev] = [0, 0]
        r[0] += delta
        if r[0] + transient > r[1]:
            r[1] = r[0] + transient
            self.rising = True

    # The log replaces MemoryStats' event queue: appending to a list is as atomic, and
    # _fold reads the log from where it last stopped.
    def _charge(self, storage: FakeStorage) -> int:
        n = storage.nbytes
        dev = storage.device
        if dev == "cpu":  # charged_bytes and _bump inlined: the common case
            n = n or 1
            self.log += (len(self._trace), id(storage), dev, n)
            r = self._cpu
            r[0] += n
            if r[0] > r[1]:
                r[1] = r[0]
                self.rising = True
        else:
            self.log += (len(self._trace), id(storage), dev, n)
            self._bump(dev, pool_bytes(n), 0)
        return n

    def _free(self, storage: FakeStorage) -> None:
        dev = storage.device
        if dev == "cpu":
            n = storage.nbytes or 1
            self.log += (len(self._trace), id(storage), dev, -n)
            self._cpu[0] -= n
        else:
            n = storage.nbytes
            self.log += (len(self._trace), id(storage), dev, -n)
            self._run[dev][0] -= pool_bytes(n)

    def _transient(self, dev: str, nbytes: int) -> None:
        if nbytes:
            self.log += (len(self._trace), 0, dev, nbytes)
            self._bump(dev, 0, nbytes if dev == "cpu" else pool_bytes(nbytes))

    def _fold(self) -> None:
        """Bring the figures up to the end of the log (MemoryStats._fold's rules)."""
        log = self.log
        if self._pos == len(log):
            return
        with self._lock:
            live_d, peak_d = self._live, self._peak
            pool_live, pool_peak = self._pool_live, self._pool_peak
            allocs = self._allocations
            end = len(log)
            for r in range(self._pos, end, 4):
                sid, dev, d = log[r + 1], log[r + 2], log[r + 3]
                live = live_d.get(dev, 0)
                if sid == 0:  # a transient: alive with the live set, for one call
                    t, n = d, 0
                else:
                    t, n = 0, d
                    live += d
                    if d > 0:
                        allocs += 1
                live_d[dev] = live
                if live + t > peak_d.get(dev, -1):
                    peak_d[dev] = live + t
                if dev != "cpu":
                    p = pool_live.get(dev, 0) + (pool_bytes(n) if n > 0 else -pool_bytes(-n))
                    pool_live[dev] = p
                    if p + pool_bytes(t) > pool_peak.get(dev, -1):
                        pool_peak[dev] = p + pool_bytes(t)
            self._pos = end
            self._allocations = allocs


class DeviceReport:
    """One device's figures from an event log (see ``analyze``); CUDA devices in pool bytes."""

    __slots__ = ("peak", "peak_op", "live_end", "allocated", "held")

    def __init__(self) -> None:
        self.peak = 0
        self.peak_op = -1     # the op during which the peak was reached
        self.live_end = 0
        self.allocated = 0    # bytes of all allocations together
        self.held: list = []  # (op, bytes) of each buffer alive at the peak (its transient too)


def analyze(log: list) -> tuple[dict, list]:
    """Per device figures and the timeline ``[[op, device, live_bytes], ...]`` (live
    bytes after each op that changed them) from a RecordingStats log.

    The peak counts an op's transient buffers with the buffers alive then, as
    ``MemoryStats.peak`` does; CUDA devices count as CuPy's pool does (``pool_bytes``).
    """
    devs: dict[str, DeviceReport] = {}
    peak_row: dict[str, int] = {}
    timeline: list = []
    last: dict[str, list] = {}
    for r in range(0, len(log), 4):
        op, sid, dev, d = log[r:r + 4]
        rep = devs.get(dev)
        if rep is None:
            rep = devs[dev] = DeviceReport()
            peak_row[dev] = -1
        pool = dev != "cpu"
        if sid == 0:
            t = pool_bytes(d) if pool else d
            if rep.live_end + t > rep.peak:
                rep.peak, rep.peak_op, peak_row[dev] = rep.live_end + t, op, r
            continue
        b = d if not pool else (pool_bytes(d) if d > 0 else -pool_bytes(-d))
        rep.live_end += b
        if b > 0:
            rep.allocated += b
            if rep.live_end > rep.peak:
                rep.peak, rep.peak_op, peak_row[dev] = rep.live_end, op, r
        pt = last.get(dev)
        if pt is not None and pt[0] == op:
            pt[2] = rep.live_end
        else:
            pt = last[dev] = [op, dev, rep.live_end]
            timeline.append(pt)
    for dev, rep in devs.items():
        pool = dev != "cpu"
        alive: dict[int, tuple] = {}
        end = peak_row[dev]
        for r in range(0, end + 1, 4):
            op, sid, d_, d = log[r:r + 4]
            if d_ != dev:
                continue
            if sid == 0:
                if r == end:
                    alive[0] = (op, pool_bytes(d) if pool else d)
            elif d > 0:
                alive[sid] = (op, pool_bytes(d) if pool else d)
            else:
                alive.pop(sid, None)
        rep.held = list(alive.values())
    return devs, timeline


class Ledger:
    """The stats of a mode and of every FakeMode it is nested in: an allocation counts for all."""

    __slots__ = ("stats",)

    def __init__(self, stats: tuple) -> None:
        self.stats = stats

    def _alloc(self, storage: FakeStorage) -> int:
        if storage._tracker is not None:
            return 0
        storage._tracker = self
        n = 0
        for s in self.stats:
            n = s._charge(storage)
        return n

    def _free(self, storage: FakeStorage) -> None:
        for s in self.stats:
            s._free(storage)

    def _transient(self, dev: str, nbytes: int) -> None:
        for s in self.stats:
            s._transient(dev, nbytes)

    def _scratch(self, dev: str, nbytes: int) -> None:
        for s in self.stats:
            s._scratch(dev, nbytes)

    def _preexisting(self, storage: FakeStorage) -> None:
        for s in self.stats:
            s._preexisting(storage)


__all__ = ["MemoryStats", "RecordingStats", "DeviceReport", "analyze", "Ledger", "pool_bytes", "EXTERNAL", "MAPPED", "PREEXISTING"]
