"""Fake storages (which buffer an array lives in) and fake CUDA devices."""
from __future__ import annotations

from typing import Any, Callable
import os

from ._accel import NEW_STORAGE, compiled


class FakeStorage:
    """A buffer that is never allocated: its size, its device, and its identity (aliasing)."""

    __slots__ = ("nbytes", "device", "alignment", "_tracker", "_key", "known", "content",
                 "recipe", "_trace_ids", "_trace_serial", "__weakref__")

    def __init__(self, nbytes: int, device: str = "cpu", alignment: int = 64) -> None:
        self.nbytes = int(nbytes)
        self.device = device
        self.alignment = alignment
        self._tracker: Any = None  # a mode's tracker (its _free runs on release), or Untracked
        self._key: Any = None  # content_key(): drawn on first use
        self.known: Any = None  # a real 0-d array every element holds, if known (_known.py)
        self.content: Any = None  # a real uint8 copy of all its bytes, if known and small
        self.recipe: Any = None  # the call that made it, to replay on placeholders (_known.py)
        self._trace_ids: Any = None  # the first recording mode's TraceIds to see it, and its
        self._trace_serial: Any = None  # serial there (modes/trace.py)

    def __del__(self) -> None:
        tracker = self._tracker
        if tracker is not None:
            tracker._free(self)

    def __repr__(self) -> str:
        return f"FakeStorage(nbytes={self.nbytes}, device={self.device!r})"

    def __reduce__(self) -> tuple:
        """Pickled as plain data for ``rebuild_storage``; pickle's memo keeps one storage per
        storage, so fakes pickled together still share it after loading. The content key
        travels with it: a loaded copy holds the same (unknown) bytes, so it tokenizes the
        same, and pickling one storage twice gives the same bytes."""
        t = self._tracker
        kind = "scalar" if t is SCALAR else "mapped" if t is MAPPED else "buffer"
        return (rebuild_storage, (PICKLE_VERSION, self.nbytes, self.device, self.alignment, kind,
                                  content_key(self)))


# ``FakeStorage(nbytes, device)`` for the hot path (a kernel's fresh output), allocated and
# filled in C when the accelerator is built (faketensor/_speedups_cache.c).
new_storage: Callable[[int, Any], FakeStorage] = compiled(NEW_STORAGE, FakeStorage, FakeStorage)


def content_key(storage: FakeStorage) -> str:
    """What names a storage's bytes: 32 random hex digits drawn on first use and kept by
    pickling. Two storages made apart hold different (unknown) bytes, so get different keys;
    a storage and its pickled copies hold the same. ``FakeArray.__dask_tokenize__`` uses it."""
    key = storage._key
    if key is None:
        key = storage._key = os.urandom(16).hex()
    return key


class Untracked:
    """The tracker of a storage no mode charges: memory that is not the program's allocation."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def _free(self, storage: FakeStorage) -> None:
        pass

    def __repr__(self) -> str:
        return f"<{self.kind} memory>"


# Buffers that existed before the mode: converted real arrays, fakes made outside any mode.
PREEXISTING = Untracked("pre-existing")
# Memory-mapped files (np.load(mmap_mode=...)): the file's pages, not the allocator's.
MAPPED = Untracked("mapped")
# NumPy scalars (what a ufunc or reduction returns for a 0-d result): the value lives in
# the Python object, not in the data allocator.
SCALAR = Untracked("scalar")


class FakeCudaDevice:
    """Stands in for ``cupy.cuda.Device(n)`` as a fake array's ``device``."""

    __slots__ = ("id",)

    def __init__(self, id: int) -> None:
        self.id = int(id)

    def __eq__(self, other: object) -> bool:
        other_id = getattr(other, "id", None)
        return type(other_id) is int and other_id == self.id

    def __hash__(self) -> int:
        return hash(("cuda", self.id))

    def __int__(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"


def parse_device(device: object) -> str:
    """Normalise 'cpu', 'cuda', 'cuda:1', an int or a Device-like object to 'cpu' / 'cuda:N'."""
    if device is None or device == "cpu":
        return "cpu"
    if isinstance(device, str):
        if device == "cuda":
            return "cuda:0"
        if device.startswith("cuda:") and device[5:].isdigit():
            return device
        raise ValueError(f"unknown device {device!r}; use 'cpu' or 'cuda:N'")
    if isinstance(device, int):
        return f"cuda:{device}"
    dev_id = getattr(device, "id", None)
    if isinstance(dev_id, int):
        return f"cuda:{dev_id}"
    raise ValueError(f"unknown device {device!r}; use 'cpu' or 'cuda:N'")


PICKLE_VERSION = 1  # the payload of a pickled fake or storage (docs/guide/files.md, pickle)


def rebuild_storage(version: int, nbytes: int, device: str, alignment: int,
                    kind: str, key: str | None = None) -> FakeStorage:
    """A FakeStorage from its pickled payload, checked field by field (no callables run)."""
    if version != PICKLE_VERSION:
        raise ValueError(f"fake storage pickled with payload version {version!r}; this "
                         f"faketensor reads version {PICKLE_VERSION}")
    if (type(nbytes) is not int or nbytes < 0 or type(alignment) is not int
            or alignment < 1 or kind not in ("scalar", "mapped", "buffer")
            or not (key is None or (type(key) is str and len(key) == 32
                                    and all(c in "0123456789abcdef" for c in key)))):
        raise ValueError("malformed pickled fake storage")
    st = FakeStorage(nbytes, parse_device(device), alignment)
    st._key = key
    if kind == "scalar":
        st._tracker = SCALAR
    elif kind == "mapped":
        st._tracker = MAPPED
    return st  # a buffer is charged when the first fake over it is rebuilt (_array.rebuild)
