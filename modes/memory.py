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
from typing import Any, cast

from .._accel import CONFIGURE, FOLD_BASE, FOLD_FEED, STATS_METHODS
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


# the compiled fields and fold (faketensor/_speedups_record.c fold_feed), or none
_FoldBase: Any = FOLD_BASE if FOLD_BASE is not None else object


class DeviceFold(_FoldBase):
    """One device's figures over an event log, as ``PeakFold`` counts them.

    ``live`` / ``peak``: data-allocator bytes held now / at most (a call's transient
    buffers count with the buffers alive then); ``pool_live`` / ``pool_peak``: the same
    rounded as CuPy's pool rounds each allocation (CUDA devices only); ``allocations``: how
    many storages were charged, ``allocated``: their bytes together. The report's figures
    are pool bytes on a CUDA device and allocator bytes on the cpu: ``peak_op`` and
    ``peak_row`` are the op index and log row of the event that first reached the report's
    peak, ``report_live`` / ``report_peak`` those figures.
    """

    __slots__ = () if _FoldBase is not object else (  # the base holds them
        "pool", "live", "peak", "pool_live", "pool_peak", "allocations", "allocated", "peak_op",
        "peak_row")

    def __init__(self, pool: bool) -> None:
        self.pool = pool  # counted as CuPy's pool counts too (a CUDA device)
        self.live = self.peak = self.pool_live = self.pool_peak = 0
        self.allocations = self.allocated = 0
        self.peak_op = self.peak_row = -1

    def __reduce__(self) -> tuple:
        """Pickled and copied by its figures, the same with and without the compiled base."""
        return (restore_device_fold, (self.pool, self.live, self.peak, self.pool_live,
                                      self.pool_peak, self.allocations, self.allocated,
                                      self.peak_op, self.peak_row))

    @property
    def report_live(self) -> int:
        return self.pool_live if self.pool else self.live

    @property
    def report_peak(self) -> int:
        return self.pool_peak if self.pool else self.peak


def restore_device_fold(pool: bool, *figures: int) -> DeviceFold:
    """A DeviceFold from the figures ``DeviceFold.__reduce__`` gave."""
    f = DeviceFold(pool)
    (f.live, f.peak, f.pool_live, f.pool_peak, f.allocations, f.allocated, f.peak_op,
     f.peak_row) = figures
    return f


if CONFIGURE is not None:
    CONFIGURE("device_fold", DeviceFold)
    CONFIGURE("pool_round", POOL_ROUND)


class PeakFold:
    """The peak rule: one fold over the event log, used while a mode runs (``MemoryStats``
    folds its log when a figure is read; a recording mode after each op, to learn whether
    that op may be the peak) and afterwards (``analyze``, which also keeps the timeline).

    The log is flat, four items per event: ``op, sid, device, delta``. ``sid != 0`` and
    ``delta > 0`` allocates the storage whose ``id()`` is ``sid`` (``1`` in a log that is not
    kept), ``delta < 0`` frees it, ``sid == 0`` is a transient of ``delta`` bytes: buffers
    alive together with the live set for the length of one call. ``op`` is the index of
    the op that caused the event. An event on the cpu is counted in bytes; on a CUDA device
    in bytes and in CuPy pool bytes (``pool_bytes``).
    """

    __slots__ = ("devices", "timeline", "_last")

    def __init__(self, timeline: bool = False) -> None:
        self.devices: dict[str, DeviceFold] = {}
        #: ``[op, device, live]`` after each op that changed a device's live bytes (the
        #: report's bytes), when asked for
        self.timeline: list | None = [] if timeline else None
        self._last: dict[str, list] = {}

    def feed(self, log: list, start: int, end: int) -> bool:
        """Fold the events of ``log[start:end]``; True when one took a device's report peak
        above its highest so far."""
        devices, timeline = self.devices, self.timeline
        rose = False
        cur: Any = None
        f: Any = None
        for r in range(start, end, 4):
            sid, dev, d = log[r + 1], log[r + 2], log[r + 3]
            if dev != cur:
                f = devices.get(dev)
                if f is None:
                    f = devices[dev] = DeviceFold(dev != "cpu")
                cur = dev
            pool = f.pool
            if sid == 0:  # a transient: alive with the live set, for one call
                if f.live + d > f.peak:
                    f.peak = f.live + d
                    if not pool:
                        f.peak_op, f.peak_row, rose = log[r], r, True
                if pool:
                    p = f.pool_live + pool_bytes(d)
                    if p > f.pool_peak:
                        f.pool_peak, f.peak_op, f.peak_row, rose = p, log[r], r, True
                continue
            live = f.live = f.live + d
            if d > 0:
                f.allocations += 1
                if not pool:
                    f.allocated += d
                    if live > f.peak:
                        f.peak, f.peak_op, f.peak_row, rose = live, log[r], r, True
                elif live > f.peak:
                    f.peak = live
            if pool:
                b = pool_bytes(d) if d > 0 else -pool_bytes(-d)
                p = f.pool_live = f.pool_live + b
                if b > 0:
                    f.allocated += b
                    if p > f.pool_peak:
                        f.pool_peak, f.peak_op, f.peak_row, rose = p, log[r], r, True
                live = p
            if timeline is not None:
                op = log[r]
                pt = self._last.get(dev)
                if pt is not None and pt[0] == op:
                    pt[2] = live
                else:
                    pt = self._last[dev] = [op, dev, live]
                    timeline.append(pt)
        return rose


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

    Allocations, frees and transients are appended to ``log`` in ``PeakFold``'s encoding
    (extending a list by a tuple is atomic, so threads sharing a mode never lose an update
    and the hot path takes no lock) and folded, in order, into the figures when they are
    read or the log grows long; the events folded are then dropped.
    """

    FOLD_AT = 4096  # events
    # slotted: the compiled recording path reads a RecordingStats' fields at fixed offsets
    __slots__ = ("log", "_figures", "scratch_peak", "preexisting", "_lock", "_seen", "__weakref__")

    def __init__(self) -> None:
        self.log: list = []
        self._figures = PeakFold()
        self.scratch_peak: dict[str, int] = {}
        self.preexisting: dict[str, int] = {}
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
        return {d: f.live for d, f in self.figures().items()}

    @property
    def peak(self) -> dict[str, int]:
        """Most bytes held, per device."""
        return {d: f.peak for d, f in self.figures().items()}

    @property
    def pool_live(self) -> dict[str, int]:
        """CUDA devices: bytes held now as CuPy's pool counts them."""
        return {d: f.pool_live for d, f in self.figures().items() if f.pool}

    @property
    def pool_peak(self) -> dict[str, int]:
        """CUDA devices: most bytes held as CuPy's pool counts them."""
        return {d: f.pool_peak for d, f in self.figures().items() if f.pool}

    @property
    def allocations(self) -> int:
        """How many storages were charged."""
        return sum(f.allocations for f in self.figures().values())

    def figures(self) -> dict[str, DeviceFold]:
        """Each device's figures, up to the last event (``PeakFold``)."""
        self._fold()
        return self._figures.devices

    def reset_peak(self, device: str = "cpu") -> None:
        """Start a device's peak (and pool peak) over from the bytes it holds now, to measure
        the peak of what follows (as ``tracemalloc.reset_peak`` does)."""
        f = self.figures().get(device)
        if f is None:
            f = self._figures.devices[device] = DeviceFold(device != "cpu")
        f.peak, f.pool_peak = f.live, f.pool_live
        f.peak_op = f.peak_row = -1

    # --- events -----------------------------------------------------------------------
    def _alloc(self, storage: FakeStorage) -> int:
        """Charge a new storage (once); it is freed when the storage object dies."""
        if storage._tracker is not None:
            return 0
        storage._tracker = self
        return self._charge(storage)

    def _charge(self, storage: FakeStorage) -> int:
        n = storage.nbytes
        dev = storage.device
        if dev == "cpu":
            n = n or 1  # charged_bytes, inlined: the hot path of every fresh cpu array
        log = self.log
        log += (0, 1, dev, n)
        if len(log) > 4 * self.FOLD_AT:
            self._fold()
        return n

    def _free(self, storage: FakeStorage) -> None:
        dev = storage.device
        self.log += (0, 1, dev, -(storage.nbytes or 1) if dev == "cpu" else -storage.nbytes)

    def _transient(self, dev: str, nbytes: int) -> None:
        """Buffers alive together with the current live set for the length of one call."""
        if nbytes:
            self.log += (0, 0, dev, nbytes)

    def _fold(self) -> bool:
        """Fold the log into the figures and drop what was folded; True when a device's peak
        rose."""
        log = self.log
        if not log:
            return False
        with self._lock:
            end = len(log)
            rose = (self._figures.feed(log, 0, end) if FOLD_FEED is None
                    else FOLD_FEED(self._figures, log, 0, end))
            del log[:end]
        return rose

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
    """MemoryStats that keeps its whole log, each event tagged with the index of the op that
    caused it and the storage's ``id()``, for a recording mode's report (``analyze``).

    ``log`` is flat (ints and device names, nothing for the garbage collector to visit), in
    ``PeakFold``'s encoding. A storage's id is not reused before its free is logged
    (``__del__`` runs while it still holds it), so events pair up. ``op`` is the length of
    the mode's trace: an op's own bytes are charged before its entry is appended, and frees
    between ops carry the next op's index.

    The mode folds the log after each op (``rose``): when an event took a device above its
    highest figure so far, it records that op's whole call stack, since it may be the peak.
    """

    __slots__ = ("_trace", "mode", "_pos", "rising", "_folding")

    def __init__(self, trace: list) -> None:
        super().__init__()
        self._trace = trace
        self.mode: Any = None  # the Recording ft.explain reads (set by a recording FakeMode)
        self._pos = 0  # how much of the log the figures include
        self.rising = False  # a fold saw a peak rise since the mode last asked (``rose``)
        # a fold holding the lock is under way (set before it reads ``_pos``): the compiled
        # recording path folds without the lock only while none is (_speedups_record.c)
        self._folding = False

    def _charge(self, storage: FakeStorage) -> int:
        n = storage.nbytes
        dev = storage.device
        if dev == "cpu":
            n = n or 1  # charged_bytes, inlined
        self.log += (len(self._trace), id(storage), dev, n)
        return n

    def _free(self, storage: FakeStorage) -> None:
        dev = storage.device
        self.log += (len(self._trace), id(storage), dev,
                     -(storage.nbytes or 1) if dev == "cpu" else -storage.nbytes)

    def _transient(self, dev: str, nbytes: int) -> None:
        if nbytes:
            self.log += (len(self._trace), 0, dev, nbytes)

    def _fold(self) -> bool:
        """Bring the figures up to the end of the log (which is kept)."""
        log = self.log
        if self._pos == len(log):
            return False
        with self._lock:
            folding, self._folding = self._folding, True
            try:
                end = len(log)
                rose = (self._figures.feed(log, self._pos, end) if FOLD_FEED is None
                        else FOLD_FEED(self._figures, log, self._pos, end))
                self._pos = end
                if rose:
                    self.rising = True
            finally:
                self._folding = folding
        return rose

    def rose(self) -> bool:
        """Whether a device's peak rose since the last call (the log folded first)."""
        self._fold()
        r, self.rising = self.rising, False
        return r


# the Python event methods as _py_alloc, ...: the reference of the compiled ones, and their
# fallback (for a subclass, a storage of another type, a size that is not an int)
for _name in ("_alloc", "_charge", "_free", "_transient"):
    setattr(RecordingStats, "_py" + _name, getattr(RecordingStats, _name))

if CONFIGURE is not None:  # the compiled FakeMode._record folds a RecordingStats' log itself
    CONFIGURE("recording_stats", RecordingStats)
    CONFIGURE("peak_fold", PeakFold)
    if STATS_METHODS is not None:  # and logs its events (_speedups_record.c)
        for _name, _method in STATS_METHODS().items():
            setattr(RecordingStats, _name, _method)


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
    bytes after each op that changed them) from a RecordingStats log: ``PeakFold`` over the
    whole log, then what was alive at each device's peak.

    The peak counts an op's transient buffers with the buffers alive then, as
    ``MemoryStats.peak`` does; CUDA devices count as CuPy's pool does (``pool_bytes``).
    """
    fold = PeakFold(timeline=True)
    fold.feed(log, 0, len(log))
    devs: dict[str, DeviceReport] = {}
    for dev, f in fold.devices.items():
        rep = devs[dev] = DeviceReport()
        rep.peak, rep.peak_op = f.report_peak, f.peak_op
        rep.live_end, rep.allocated = f.report_live, f.allocated
        rep.held = held_at(log, dev, f.peak_row)
    return devs, cast(list, fold.timeline)


def held_at(log: list, dev: str, end: int) -> list:
    """``(op, bytes)`` of each buffer of ``dev`` alive at log row ``end`` (its transient
    too, when that row is one), in the order they were allocated; CUDA in pool bytes."""
    pool = dev != "cpu"
    alive: dict[int, tuple] = {}
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
    return list(alive.values())


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


__all__ = ["MemoryStats", "RecordingStats", "PeakFold", "DeviceFold", "DeviceReport", "analyze", "held_at", "Ledger", "pool_bytes", "EXTERNAL", "MAPPED", "PREEXISTING"]
