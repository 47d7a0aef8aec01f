"""Files a program writes inside a FakeMode: ``mode.io``.

``np.save``, ``np.savez``, ``np.savez_compressed``, ``np.savetxt``, ``ndarray.tofile`` and
``ndarray.dump`` of a fake write nothing (there are no values, and a plan must not leave
files of made-up data behind); the mode records one event per call with the bytes the
real call would write (kernels/numpy/npyio.py computes them from metadata). A call whose
arrays are all real writes its file for real, as outside the mode (the data exists), and
is recorded with ``"written": True``.

A program that reads back what it saved (``np.save(path, fake)`` then ``np.load(path)`` in
the same mode) gets the array the real load would give: the mode keeps the header of each
``.npy`` file it declined to write (``IOLog.unwritten``), and ``np.load`` of that path reads
that header as the file's (``reading``), its data never read, as for a file on disk.
"""
from __future__ import annotations

import inspect
import io
import os
import threading
from typing import Any, Callable

import numpy as np

from .._array import FakeArray
from .._dispatch import method_op
from .._paths import user_frame
from .._stack import paused
from ..kernels.numpy import npyio


class IOLog(list):
    """``mode.io``: one dict per write, in program order: ``{"file", "line", "function"}``
    (the user's line), ``"op"`` (``np.save``, ...), ``"path"`` (as NumPy names the file:
    ``.npy``/``.npz`` appended), ``"bytes"`` (what the real call writes; None when it
    depends on the values), ``"exact"`` (``bytes`` is the exact size; when False the
    ``"note"`` says which part is exact), ``"written"`` (the arrays were real and the file was written),
    ``"arrays"`` (how many arrays), ``"note"`` (what is not exact, and why)."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        # absolute path -> (.npy header, data bytes) of each np.save of a fake to a path
        self.unwritten: dict[str, tuple[bytes, int]] = {}

    def add(self, event: dict) -> None:
        frame = user_frame(3)
        where = ({"file": frame.f_code.co_filename, "line": frame.f_lineno,
                  "function": frame.f_code.co_name} if frame is not None else
                 {"file": "<unknown>", "line": 0, "function": "<unknown>"})
        with self._lock:
            self.append({**where, **event})

    @property
    def total_bytes(self) -> int:
        """Bytes of the writes whose size is known (exact or lower bound)."""
        return sum(e["bytes"] or 0 for e in self)


def _seekable(file: Any) -> bool:
    """Whether zipfile can seek back in ``file`` (a path: a regular file can)."""
    if not hasattr(file, "write"):
        return True
    try:
        return bool(file.seekable()) if hasattr(file, "seekable") else (
            hasattr(file, "seek") and hasattr(file, "tell"))
    except Exception:
        return False


def _has_fake(arrays: list) -> bool:
    return any(type(a) is FakeArray for a in arrays)


def _member(a: Any) -> Any:
    """What np.asanyarray makes of a savez/save argument: a fake as is, a real value as a
    (small, real) array."""
    if type(a) is FakeArray:
        return a
    with paused():
        return np.asanyarray(a)


def _save(bound: inspect.BoundArguments) -> tuple[list, dict]:
    a = _member(bound.arguments["arr"])
    allow = bound.arguments.get("allow_pickle", True)
    nbytes, exact = npyio.npy_bytes(a, allow)
    note = "" if exact else "the array is pickled: its size depends on the values"
    return [a], {"path": npyio.save_path(bound.arguments["file"], ".npy"),
                 "bytes": nbytes, "exact": exact, "note": note}


def _savez(compressed: bool) -> Callable:
    def event(bound: inspect.BoundArguments) -> tuple[list, dict]:
        args = bound.arguments
        named = dict(args.get("kwds", {}))
        for i, val in enumerate(args.get("args", ())):  # _npyio_impl._savez's names
            key = "arr_%d" % i
            if key in named:
                raise ValueError(f"Cannot use un-named variables and keyword {key}")
            named[key] = val
        allow = args.get("allow_pickle", True)
        file = args["file"]
        members, arrays, exact = [], [], not compressed
        pickled = False
        for key, val in named.items():
            a = _member(val)
            arrays.append(a)
            size, ok = npyio.npy_bytes(a, allow)
            pickled |= not ok
            exact &= ok
            members.append((key + ".npy", size))
        start = 0
        if hasattr(file, "write") and hasattr(file, "tell"):
            try:
                start = int(file.tell())
            except Exception:
                start = 0
        nbytes = npyio.zip_bytes(members, _seekable(file), start)
        notes = []
        if compressed:
            notes.append("deflate's output size depends on the values: bytes counts the "
                         "zip container exactly and the members uncompressed")
        if pickled:
            notes.append("a pickled member's size depends on the values")
        return arrays, {"path": npyio.save_path(file, ".npz"), "bytes": nbytes,
                        "exact": exact, "note": "; ".join(notes)}
    return event


def _savetxt(bound: inspect.BoundArguments) -> tuple[list, dict]:
    x = _member(bound.arguments["X"])
    if x.ndim == 0 or x.ndim > 2:
        raise ValueError("Expected 1D or 2D array, got %dD array instead" % x.ndim)
    return [x], {"path": npyio.save_path(bound.arguments["fname"], ""), "bytes": None,
                 "exact": False, "note": "text: its length depends on the values"}


def _tofile(bound: inspect.BoundArguments) -> tuple[list, dict]:
    a = bound.arguments["self"]
    sep = bound.arguments.get("sep", "")
    path = npyio.save_path(bound.arguments["fid"], "")
    if not sep:
        if a.dtype.hasobject:  # array_tofile, numpy/_core/src/multiarray/convert.c
            raise OSError("cannot write object arrays to a file in binary mode")
        return [a], {"path": path, "bytes": a.nbytes, "exact": True, "note": ""}
    return [a], {"path": path, "bytes": None, "exact": False,
                 "note": "text (sep given): its length depends on the values"}


def _dump(bound: inspect.BoundArguments) -> tuple[list, dict]:
    a = bound.arguments["self"]
    return [a], {"path": npyio.save_path(bound.arguments["file"], ""), "bytes": None,
                 "exact": False, "note": "a protocol-2 pickle holds the data as latin-1 "
                 "text: its length depends on the values"}


def _sig(fn: Callable) -> inspect.Signature:
    return inspect.signature(fn)


# func as the mode receives it -> (op name, signature to bind, event builder)
WRITERS: dict = {
    np.save: ("np.save", _sig(npyio.save), _save),
    np.savez: ("np.savez", _sig(npyio.savez), _savez(False)),
    np.savez_compressed: ("np.savez_compressed", _sig(npyio.savez_compressed), _savez(True)),
    np.savetxt: ("np.savetxt", inspect.Signature([
        inspect.Parameter("fname", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("X", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("rest", inspect.Parameter.VAR_POSITIONAL),
        inspect.Parameter("options", inspect.Parameter.VAR_KEYWORD)]), _savetxt),
    method_op("tofile"): ("ndarray.tofile", _sig(npyio.ndarray_tofile), _tofile),
    method_op("dump"): ("ndarray.dump", _sig(npyio.ndarray_dump), _dump),
}


class _UnwrittenNpy(io.BytesIO):
    """The ``.npy`` file an ``np.save`` of a fake stands for: its header, then ``nbytes`` of
    data that are never read (seeking to the end finds the full size, as on disk)."""

    def __init__(self, header: bytes, nbytes: int, name: str) -> None:
        super().__init__(header)
        self._size = len(header) + nbytes
        self.name = name

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence == os.SEEK_END:
            return super().seek(self._size + offset)
        return super().seek(offset, whence)


def _key(file: Any) -> str | None:
    """The absolute path a path-like argument names (None for a file object)."""
    if hasattr(file, "read") or hasattr(file, "write"):
        return None
    try:
        return os.path.abspath(os.fsdecode(os.fspath(file)))
    except TypeError:
        return None


def reading(log: IOLog, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``np.load``'s arguments with a path this mode declined to write replaced by that
    file's stand-in (memory maps excepted: they need the file on disk)."""
    file = args[0] if args else kwargs.get("file")
    key = _key(file) if file is not None else None
    entry = log.unwritten.get(key) if key is not None else None
    mmap = args[1] if len(args) > 1 else kwargs.get("mmap_mode")
    if file is None or entry is None or mmap is not None:
        return args, kwargs
    stand_in = _UnwrittenNpy(entry[0], entry[1], os.fsdecode(os.fspath(file)))
    if args:
        return (stand_in, *args[1:]), kwargs
    return args, {**kwargs, "file": stand_in}


def write(log: IOLog, func: Any, args: tuple, kwargs: dict) -> Any:
    """Run one intercepted write inside a FakeMode: record it in ``log``; write the file
    only when every array is real."""
    name, sig, build = WRITERS[func]
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        with paused():  # NumPy's own TypeError for the call
            return func(*args, **kwargs)
    bound.apply_defaults()
    arrays, event = build(bound)
    written = not _has_fake(arrays)
    result = None
    if written:
        with paused():
            result = func(*args, **kwargs)
    target = bound.arguments.get("file", bound.arguments.get("fname"))
    key = _key(npyio.save_path(target, ".npy") if name == "np.save" else target) \
        if target is not None else None
    if key is not None:
        with log._lock:
            log.unwritten.pop(key, None)
            if name == "np.save" and not written and event["exact"]:
                log.unwritten[key] = (npyio.npy_header(arrays[0]), arrays[0].nbytes)
    log.add({"op": name, **event, "written": written, "arrays": len(arrays)})
    return result
