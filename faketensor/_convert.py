"""Real -> fake conversion with one weak memo: views of one real buffer share one fake storage.

The memo maps each real buffer (found through the array's base chain, memoryviews and
address ranges) to one ``FakeStorage``; byte offsets are addresses minus the buffer's
start, so ``np.shares_memory`` on two fakes answers as it would on the two real arrays.
The memo holds real arrays by weak reference only: entries vanish when the arrays die.
"""
from __future__ import annotations

import bisect
import ctypes
import warnings
import weakref
from typing import Any, Callable

import numpy as np

from . import _known
from ._array import FakeArray, make_fake
from ._errors import UnsupportedOperationError
from ._storage import PREEXISTING, FakeStorage, parse_device
from ._wrapped import WrappedArray
from ._pytree import tree_map

__all__ = ["Converter", "to_fake", "ObjectArrayWarning"]


class ObjectArrayWarning(UserWarning):
    """An object-dtype array was converted: the fake has its metadata, never its objects."""


class _Buffer:
    """One real buffer: its fake storage, start address, and the live root arrays over it."""

    __slots__ = ("storage", "start", "end", "keys", "roots", "root_fakes", "__weakref__")

    def __init__(self, storage: FakeStorage, start: int, end: int) -> None:
        self.storage = storage
        self.start = start
        self.end = end
        self.keys: list = []            # owner ids this buffer is registered under
        self.roots: dict = {}           # id(root array) -> weakref(root array)
        self.root_fakes: dict = {}      # id(root array) -> its fake (the base of views)


def _is_cupy(x: Any) -> bool:
    return type(x).__module__.startswith("cupy") and hasattr(x, "__cuda_array_interface__")


def root_of(arr: np.ndarray) -> Any:
    """The array that owns arr's buffer, or the last array in arr's base chain."""
    root = arr
    while True:
        b = root.base
        if isinstance(b, np.ndarray):
            root = b
        else:
            return root, b


_ALIGN = 16  # buffer starts are rounded down to this, so the aligned flag is exact


def buffer_range(root: np.ndarray, owner_obj: Any) -> tuple[int, int]:
    """(start address, nbytes) of the whole real buffer root lies in.

    A non-array owner (bytes, bytearray, mmap, memoryview of those, an interface holder
    with a ``base`` array) is followed to the object that exports the memory, so every
    array over it gets the same range. The
    start is rounded down to 16 bytes.
    """
    addr = root.__array_interface__["data"][0]
    while True:
        if isinstance(owner_obj, memoryview) and owner_obj.obj is not None:
            owner_obj = owner_obj.obj
        elif (not isinstance(owner_obj, np.ndarray) and hasattr(owner_obj, "__array_interface__")
              and isinstance(getattr(owner_obj, "base", None), np.ndarray)):
            # an interface holder keeping its source alive (as_strided's DummyArray,
            # numpy/lib/_stride_tricks_impl.py): the memory is the source's
            owner_obj = owner_obj.base
        else:
            break
    if isinstance(owner_obj, np.ndarray):
        r2, o2 = root_of(owner_obj)
        return buffer_range(r2, o2)
    lo = hi = addr
    if owner_obj is not None:
        got = _exported_range(owner_obj)
        if got is not None and got[0] <= addr <= got[1]:
            lo, hi = got
    if lo == hi == addr and root.size:
        hi = addr + root.itemsize
        for n, s in zip(root.shape, root.strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
    pad = lo % _ALIGN
    return lo - pad, hi - lo + pad


def _read(storage: FakeStorage, start: int) -> bytes:
    """The bytes of the real buffer at ``start`` that ``storage`` stands for (alive now)."""
    return ctypes.string_at(start, storage.nbytes) if storage.nbytes else b""


def _exported_range(obj: Any) -> tuple[int, int] | None:
    """[start, end) of the memory an object exports through the buffer protocol."""
    try:
        mv = memoryview(obj)
    except TypeError:
        return None
    try:
        if not mv.nbytes:
            return None
        buf = np.frombuffer(mv.cast("B") if mv.ndim != 1 or mv.format != "B" else mv, np.uint8)
        start = buf.__array_interface__["data"][0]
        del buf
        return start, start + mv.nbytes
    except (TypeError, ValueError, BufferError):
        return None
    finally:
        mv.release()


class Converter:
    """A reusable real -> fake memo (``Converter().to_fake(obj)``), weak in the real arrays.

    ``device`` overrides the device of the fakes (e.g. plan a NumPy program for
    ``"cuda:0"``); ``on_convert(real, fake)`` is called for each array converted.
    Converting an object-dtype array warns with ``ObjectArrayWarning`` and counts it in
    ``object_arrays``.
    """

    def __init__(self, *, device: Any = None, on_convert: Callable | None = None) -> None:
        self.device = parse_device(device) if device is not None else None
        self.on_convert = on_convert
        self._by_owner: dict[Any, _Buffer] = {}
        self._starts: list[tuple[int, int]] = []   # sorted (start, id(buffer)) for address lookup
        self._by_id: dict[int, _Buffer] = {}
        self._arrays: dict[int, tuple] = {}        # id(real) -> (weakref, fake, key)
        self.object_arrays = 0                     # object-dtype arrays converted (flagged)

    # --- public ---------------------------------------------------------------
    def to_fake(self, obj: Any) -> Any:
        """Fakes for the real arrays in obj (an array or a pytree); other leaves unchanged."""
        return tree_map(self._leaf, obj)

    def __len__(self) -> int:
        """Number of live real buffers remembered."""
        return len(self._by_id)

    # --- leaves ---------------------------------------------------------------
    def _leaf(self, x: Any) -> Any:
        t = type(x)
        if t is FakeArray or x is None or t in (int, float, complex, bool, str, bytes):
            return x
        if isinstance(x, np.generic):
            return x
        return self.convert_array(x)

    def convert_array(self, arr: Any) -> FakeArray:
        """The fake for one real array (NumPy, CuPy, or wrapped); TypeError for anything else.
        An np.matrix becomes a FakeMatrix (faketensor/_matrix.py), a chararray a
        FakeCharArray (faketensor/_chararray.py)."""
        if isinstance(arr, FakeArray):
            return arr
        if isinstance(arr, WrappedArray):
            arr = arr._array
        if isinstance(arr, np.matrix):
            from ._matrix import retype_matrix
            return retype_matrix(self._convert_numpy(arr), finalize=False)
        if isinstance(arr, np.char.chararray):
            from ._chararray import retype
            return retype(self._convert_numpy(arr))
        if isinstance(arr, np.ndarray):
            return self._convert_numpy(arr)
        if _is_cupy(arr):
            return self._convert_cupy(arr)
        raise TypeError(f"cannot convert an object of type {type(arr).__module__}."
                        f"{type(arr).__qualname__} to a fake array (expected a NumPy or "
                        "CuPy array)")

    # --- memo -----------------------------------------------------------------
    def _cached(self, arr: Any, key: tuple) -> FakeArray | None:
        hit = self._arrays.get(id(arr))
        if hit is not None and hit[0]() is arr and hit[2] == key:
            return hit[1]
        return None

    def _remember(self, arr: Any, fake: FakeArray, key: tuple) -> None:
        selfref = weakref.ref(self)
        aid = id(arr)

        def died(ref: Any, selfref: Any = selfref, aid: int = aid) -> None:
            me = selfref()
            if me is not None:
                hit = me._arrays.get(aid)
                if hit is not None and hit[0] is ref:
                    del me._arrays[aid]

        self._arrays[aid] = (weakref.ref(arr, died), fake, key)

    def _root_died(self, buf: _Buffer, rid: int) -> None:
        buf.roots.pop(rid, None)
        buf.root_fakes.pop(rid, None)
        if buf.roots:
            return
        for k in buf.keys:
            if self._by_owner.get(k) is buf:
                del self._by_owner[k]
        self._by_id.pop(id(buf), None)
        item = (buf.start, id(buf))
        i = bisect.bisect_left(self._starts, item)
        if i < len(self._starts) and self._starts[i] == item:
            del self._starts[i]

    def _track_root(self, buf: _Buffer, root: Any) -> None:
        rid = id(root)
        if rid in buf.roots:
            return
        bref = weakref.ref(buf)
        selfref = weakref.ref(self)

        def died(_ref: Any, bref: Any = bref, selfref: Any = selfref, rid: int = rid) -> None:
            me, b = selfref(), bref()
            if me is not None and b is not None:
                me._root_died(b, rid)

        buf.roots[rid] = weakref.ref(root, died)

    def _find_by_address(self, lo: int, hi: int) -> _Buffer | None:
        if hi <= lo or not self._starts:
            return None
        i = bisect.bisect_right(self._starts, (lo, float("inf"))) - 1
        if i >= 0:
            buf = self._by_id[self._starts[i][1]]
            if buf.start <= lo and hi <= buf.end:
                return buf
        return None

    def _new_buffer(self, start: int, nbytes: int, device: str, key: Any) -> _Buffer:
        storage = FakeStorage(nbytes, device, _alignment_of(start))
        storage._tracker = PREEXISTING  # a real buffer: never charged to a mode
        buf = _Buffer(storage, start, start + nbytes)
        self._by_id[id(buf)] = buf
        if nbytes:
            bisect.insort(self._starts, (start, id(buf)))
        buf.keys.append(key)
        self._by_owner[key] = buf
        return buf

    # --- NumPy ----------------------------------------------------------------
    def _convert_numpy(self, arr: np.ndarray) -> FakeArray:
        ai = arr.__array_interface__
        addr = ai["data"][0]
        key = (arr.shape, arr.strides, arr.dtype, bool(arr.flags.writeable), addr)
        f = self._cached(arr, key)
        if f is not None:
            if arr.size == 1:
                _known.seed(f, arr, False)  # still the value known? (either may be written)
            st = f.storage
            if st.content is not None and not _known.same_bytes(
                    st, _read(st, addr - f.storage_offset)):
                _known.forget(f)  # either the real array or its fake was written since
            return f
        if arr.dtype.hasobject:
            self.object_arrays += 1
            warnings.warn(
                "converting an object-dtype array to a fake: only its metadata is kept, "
                "materialize() will not restore the objects", ObjectArrayWarning, stacklevel=4)
        root, owner = root_of(arr)
        okey = ("np", id(owner) if owner is not None else id(root))
        buf = self._by_owner.get(okey)
        if buf is None:
            start, nbytes = buffer_range(root, owner)
            buf = self._find_by_address(start, start + nbytes)
            if buf is not None:
                buf.keys.append(okey)
                self._by_owner[okey] = buf
            else:
                buf = self._new_buffer(start, nbytes, self.device or "cpu", okey)
                if nbytes <= _known.MAX_CONTENT_BYTES and not arr.dtype.hasobject \
                        and buf.storage.device == "cpu":  # small: its values are kept
                    _known.remember_bytes(buf.storage, _read(buf.storage, start))
        self._track_root(buf, root)
        if arr.size and not buf.start <= addr <= buf.end:
            # a zero-size array touches no memory, so NumPy lets its pointer lie anywhere
            # (a field or ``.imag`` of a zero-size array points past its 1-byte allocation);
            # its fake keeps the same distance from the buffer start, even outside it
            raise UnsupportedOperationError("to_fake", "array lies outside the buffer found for it")
        base: Any = None
        if arr.base is not None:
            if arr is root:
                base = buf.storage  # a non-array owner (bytes, mmap, ...): owndata False
            else:
                base = buf.root_fakes.get(id(root))
                if base is None:
                    base = self._convert_numpy(root)
        f = make_fake(arr.shape, arr.dtype, arr.strides, buf.storage, addr - buf.start, base,
                      bool(arr.flags.writeable))
        if base is buf.storage and _owner_readonly(arr):
            f._warn_on_write = None  # its owner's buffer refuses writes (FakeArray._may_write)
        if arr.size == 1:
            _known.seed(f, arr, True)  # one element: its value is read (faketensor/_known.py)
        return self._made(arr, root, buf, key, f)

    def _made(self, arr: Any, root: Any, buf: Any, key: tuple, f: FakeArray) -> FakeArray:
        """Note a new fake: its buffer's root fake, the memo, the ``on_convert`` hook."""
        if arr is root:
            buf.root_fakes[id(root)] = f
        self._remember(arr, f, key)
        if self.on_convert is not None:
            self.on_convert(arr, f)
        return f

    # --- CuPy (metadata only: never touches the device's data) -----------------
    def _convert_cupy(self, arr: Any) -> FakeArray:
        ptr = arr.data.ptr
        key = (arr.shape, arr.strides, arr.dtype, ptr)
        f = self._cached(arr, key)
        if f is not None:
            return f
        mem = arr.data.mem
        dev = self.device or f"cuda:{arr.data.device_id}"
        okey = ("cupy", id(mem))
        buf = self._by_owner.get(okey)
        if buf is None:
            buf = self._new_buffer(mem.ptr, mem.size, dev, okey)
        root = arr
        while root.base is not None:
            root = root.base
        self._track_root(buf, root)
        base = None
        if arr.base is not None:
            base = buf.root_fakes.get(id(root))
            if base is None:
                base = self._convert_cupy(root)
        return self._made(arr, root, buf, key, make_fake(
            tuple(arr.shape), np.dtype(arr.dtype), tuple(arr.strides), buf.storage,
            ptr - buf.start, base, True))


def _owner_readonly(arr: Any) -> bool:
    """Whether the non-array owner of ``arr`` (bytes, bytearray, mmap, ...) exposes a
    read-only buffer (what ``_IsWriteable`` asks with PyBUF_WRITABLE); an owner without the
    buffer protocol counts as writable only when the array is."""
    try:
        with memoryview(arr.base) as mv:
            return mv.readonly
    except Exception:
        return not arr.flags.writeable


def _alignment_of(addr: int) -> int:
    a = 1
    while a < 64 and addr % (a * 2) == 0:
        a *= 2
    return a


def to_fake(obj: Any, *, device: Any = None) -> Any:
    """Fakes for the real arrays in obj (an array or a pytree), through one memo.

    Pytrees: dict, list, tuple, namedtuple, dataclass, nested. Fakes, Python scalars,
    strings and None stay as they are; other leaves raise TypeError.
    """
    return Converter(device=device).to_fake(obj)


