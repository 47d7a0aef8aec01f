"""``ft.load`` and ``np.load`` inside FakeMode: .npy / .npz / .safetensors from headers only.

What is accepted, what is refused and with which exception follow ``np.load``
(numpy/lib/_npyio_impl.py ``load``, ``NpzFile``; numpy/lib/_format_impl.py ``read_array``,
``open_memmap``) and the safetensors library; see headers.py for the header rules.

Memory: ``np.load`` of an .npy file, and each ``NpzFile[key]``, reads the data into a NEW
array (an allocation: its storage has no tracker, so the FakeMode that runs the op charges
it). A memory-mapped load maps the file: its storage is marked ``MAPPED`` and never charged.
"""
from __future__ import annotations

import io
import os
from collections.abc import Mapping
from typing import Any, BinaryIO, Iterator

import numpy as np

from ..._array import FakeArray, make_fake
from ..._dispatch import claim, dispatch, mode_stack
from ..._errors import UnsupportedOperationError
from ..._storage import MAPPED, FakeStorage
from ...layout import c_strides
from ...kernels.registry import register
from .headers import (EMPTY_ZIP_MAGIC, MAX_HEADER_SIZE, NPY_MAGIC, ZIP_MAGIC, ArrayInfo, bad,
                      finish_shape, npy_header, npz_member_header, open_zip, safetensors_header)

__all__ = ["load", "FakeNpzFile", "SafetensorsDict", "inspect_file", "MAPPED"]

_MMAP_MODES = {"r": False, "readonly": False, "r+": True, "readwrite": True,
               "c": True, "copyonwrite": True}



def _plain_strides(shape: tuple, itemsize: int) -> tuple:
    """C strides as ``reshape`` of a contiguous array gives them (zero-length axes count as 1)."""
    out = []
    s = itemsize
    for n in reversed(shape):
        out.append(s)
        s *= max(n, 1)
    return tuple(reversed(out))


def fake_from_info(info: ArrayInfo, device: str = "cpu") -> FakeArray:
    """The array ``np.load`` reads: a fresh 1-d buffer reshaped (and transposed if Fortran)."""
    count = 1
    for n in info.shape:
        count *= n
    it = info.dtype.itemsize
    storage = FakeStorage(count * it, device)
    flat = make_fake((count,), info.dtype, (it if count else 0,), storage)
    if info.shape == (count,):
        strides = flat.strides  # reshape to the same shape keeps the strides
    elif info.fortran_order:
        strides = _plain_strides(info.shape[::-1], it)[::-1]
    else:
        strides = _plain_strides(info.shape, it)
    return make_fake(info.shape, info.dtype, strides, storage, 0, flat)


def _granularity() -> int:
    """``mmap.ALLOCATIONGRANULARITY`` (mmap imported here, when a file is mapped: issue 30)."""
    import mmap
    return mmap.ALLOCATIONGRANULARITY


def fake_memmap(info: ArrayInfo, mode: str) -> FakeArray:
    """The ``np.memmap`` that ``np.load(..., mmap_mode=mode)`` returns, as NumPy maps it."""
    if mode not in _MMAP_MODES:
        raise ValueError(f"mode must be one of {sorted(_MMAP_MODES)} (got {mode!r})")
    offset = info.data_offset
    start = offset - offset % _granularity()
    length = offset + info.nbytes - start
    storage = FakeStorage(length, "cpu", 64)
    storage._tracker = MAPPED
    it = info.dtype.itemsize
    if info.fortran_order:
        strides = _plain_strides(info.shape[::-1], it)[::-1]
    else:
        strides = _plain_strides(info.shape, it)
    return make_fake(info.shape, info.dtype, strides, storage, offset - start, storage,
                     _MMAP_MODES[mode])


def npz_item(npz: "FakeNpzFile", key: Any) -> Any:
    """``NpzFile[key]`` as an op: inside a mode it dispatches (FakeMode charges the array
    that the real read allocates, modes record it); otherwise it reads the member's header."""
    if mode_stack():
        return dispatch(npz_item, (), (npz, key), {})
    out = npz._read(key)
    if isinstance(out, FakeArray):
        claim(out.storage)  # read outside any mode: pre-existing for every later mode
    return out


npz_item.op_name = "NpzFile.__getitem__"  # type: ignore[attr-defined]  # its name in traces


@register(npz_item, tags=("factory", "data-dependent"), name="NpzFile.__getitem__")
def _npz_item_kernel(npz: "FakeNpzFile", key: Any) -> Any:
    """The fake for one member (never cached: it depends on the file, not on metadata)."""
    return npz._read(key)


class _Bag:
    """``npz.f.name`` for ``npz["name"]`` (NumPy's ``BagObj``)."""

    def __init__(self, npz: "FakeNpzFile") -> None:
        self._npz = npz

    def __getattr__(self, key: str) -> Any:
        try:
            return self._npz[key]
        except KeyError:
            raise AttributeError(key) from None

    def __dir__(self) -> list:
        return list(self._npz.keys())


class FakeNpzFile(Mapping):
    """Like ``NpzFile``: a lazy mapping from array name to a fake read from its header.

    Keys are member names with and without ``.npy`` (the full name wins), looked up in one
    dict as ``NpzFile`` does; a member that is not an .npy array reads as its bytes.
    """

    def __init__(self, fp: BinaryIO, path: Any, own: bool, allow_pickle: bool = False,
                 max_header_size: int = MAX_HEADER_SIZE) -> None:
        self._fp = fp if own else None
        self._path = path
        self.allow_pickle = allow_pickle
        self.max_header_size = max_header_size
        self.zip = open_zip(fp, path)
        names = self.zip.namelist()
        self.files = [n.removesuffix(".npy") for n in names]
        self._files = dict(zip(self.files, names))
        self._files.update(zip(names, names))
        self.f = _Bag(self)

    def info(self, key: str) -> ArrayInfo | None:
        """The header of one member (None for a member that is not an .npy array)."""
        try:
            member = self._files[key]
        except KeyError:
            raise KeyError(f"{key} is not a file in the archive") from None
        return npz_member_header(self.zip, member, self._path, allow_pickle=self.allow_pickle,
                                 max_header_size=self.max_header_size)

    def _read(self, key: Any) -> Any:
        info = self.info(key)
        if info is None:  # NpzFile returns the bytes of a member that is not an array
            return self.zip.read(self._files[key])
        return fake_from_info(info)

    def __getitem__(self, key: Any) -> Any:
        return npz_item(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, key: object) -> bool:
        return key in self._files

    def close(self) -> None:
        self.zip.close()
        if self._fp is not None:
            self._fp.close()
            self._fp = None

    def __enter__(self) -> "FakeNpzFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        shown = ", ".join(self.files[:5]) + ("..." if len(self.files) > 5 else "")
        return f"FakeNpzFile({self._path!r}, keys: {shown})"


class SafetensorsDict(dict):
    """name -> fake for a .safetensors file; ``metadata`` holds its ``__metadata__`` (or None)."""

    metadata: dict | None = None


def _open(file: Any) -> tuple[BinaryIO, Any, bool]:
    """(binary file, name for messages, whether we own it), as np.load opens ``file``."""
    if hasattr(file, "read"):
        return file, getattr(file, "name", repr(file)), False
    path = os.fspath(file)
    return open(path, "rb"), path, True


def _remaining(fp: BinaryIO) -> int | None:
    """Bytes from the position to the end, or None for a stream that cannot seek."""
    try:
        pos = fp.tell()
        end = fp.seek(0, os.SEEK_END)
        fp.seek(pos)
    except (OSError, AttributeError, ValueError):
        return None
    return end - pos


def _is_real_file(f: Any) -> bool:
    """_format_impl.py ``isfileobj``: what ``open_memmap`` refuses as a file handle."""
    if not isinstance(f, (io.FileIO, io.BufferedReader, io.BufferedWriter)):
        return False
    try:
        f.fileno()
    except OSError:
        return False
    return True


def _load_memmap(file: Any, mode: str, allow_pickle: bool, max_header_size: int) -> FakeArray:
    """``np.load(file, mmap_mode=mode)``: ``open_memmap`` then ``np.memmap``'s checks."""
    if _is_real_file(file):
        raise ValueError("Filename must be a string or a path-like object.  Memmap cannot use "
                         "existing file handles.")
    path = os.fspath(file)  # TypeError for other file objects, as open_memmap
    if mode in ("w", "w+"):
        raise UnsupportedOperationError(
            "np.load", f"mmap_mode={mode!r} makes NumPy write a new header into {path}")
    if "w" in mode:  # open_memmap opens the file with mode + "b", which Python refuses
        raise ValueError("must have exactly one of create/read/write/append mode")
    with open(path, "rb") as fp:
        size = os.fstat(fp.fileno()).st_size
        info = npy_header(fp, path, size, memmap=True, allow_pickle=allow_pickle,
                          max_header_size=max_header_size)
    if mode not in _MMAP_MODES:  # numpy/_core/memmap.py
        raise ValueError(f"mode must be one of {sorted(_MMAP_MODES)} (got {mode!r})")
    if info.data_offset + info.nbytes > size and mode not in ("r+", "readwrite"):
        # (np.memmap extends a short file opened "r+"; "r" and "c" cannot map past its end)
        raise bad(path, f"mmap length is greater than file size ({info.nbytes} bytes of data "
                        f"expected, {size - info.data_offset} present)")
    return fake_memmap(finish_shape(info, path, memmap=True), mode)


def ft_load(file: Any, mmap_mode: str | None = None, allow_pickle: bool = False, *,
            max_header_size: int = MAX_HEADER_SIZE,
            formats: tuple = ("npy", "npz", "safetensors")) -> Any:
    """``ft.load``: ``load``, with the arrays read accounted where they were read (charged to
    the FakeMode active here, pre-existing outside any mode; mapped files never charged)."""
    out = load(file, mmap_mode, allow_pickle, max_header_size=max_header_size, formats=formats)
    for f in (out.values() if isinstance(out, dict) else (out,)):
        if isinstance(f, FakeArray):
            claim(f.storage)
    return out


def load(file: Any, mmap_mode: str | None = None, allow_pickle: bool = False, *,
         max_header_size: int = MAX_HEADER_SIZE,
         formats: tuple = ("npy", "npz", "safetensors")) -> Any:
    """Fakes for an .npy (a fake), .npz (a ``FakeNpzFile``) or .safetensors file
    (a ``SafetensorsDict``), read from the headers only. Files are accepted or refused as
    ``np.load`` (and the safetensors library) would, with its exception types; pickles
    and object arrays are never unpickled."""
    fp, path, own = _open(file)
    keep_open = False
    try:
        size = _remaining(fp)
        magic = fp.read(len(NPY_MAGIC))
        if not magic:
            raise EOFError(f"{path}: No data left in file")
        fp.seek(-len(magic), 1)
        if size is None:
            size = _remaining(fp)
        if magic.startswith((ZIP_MAGIC, EMPTY_ZIP_MAGIC)) and "npz" in formats:
            npz = FakeNpzFile(fp, path, own, allow_pickle, max_header_size)
            keep_open = True
            return npz
        if magic == NPY_MAGIC and "npy" in formats:
            if mmap_mode:
                return _load_memmap(file, mmap_mode, allow_pickle, max_header_size)
            pos = fp.tell()
            info = npy_header(fp, path, size, allow_pickle=allow_pickle,
                              max_header_size=max_header_size)
            fp.seek(pos + info.data_offset + info.nbytes)  # np.load leaves fp after the data
            return fake_from_info(info)
        if "safetensors" in formats and size is not None:
            try:
                infos, meta = safetensors_header(fp, path, size)
            except ValueError as e:
                raise ValueError(f"{e} (the file is neither .npy nor .npz, so it was read as "
                                 ".safetensors; faketensor never unpickles)") from None
            out = SafetensorsDict((i.name, fake_from_info_c(i)) for i in infos)
            out.metadata = meta
            return out
        if not allow_pickle:
            raise bad(path, "This file contains pickled (object) data (allow_pickle=False); "
                            "faketensor never unpickles")
        raise UnsupportedOperationError(
            "np.load", f"{path} is a pickle: what it holds is known only by unpickling it, "
                       "and faketensor never unpickles")
    finally:
        if own and not keep_open:
            fp.close()


def fake_from_info_c(info: ArrayInfo) -> FakeArray:
    """A fresh C-contiguous fake (the arrays of a .safetensors file)."""
    it = info.dtype.itemsize
    return make_fake(info.shape, info.dtype, c_strides(info.shape, it),
                     FakeStorage(info.nbytes, "cpu"), 0, None)


def inspect_file(path: Any) -> list[ArrayInfo]:
    """The arrays a file holds, from its headers (for the command-line inspector); members of
    an .npz file that are not arrays are left out."""
    fp, name, own = _open(path)
    try:
        size = _remaining(fp)
        magic = fp.read(8)
        fp.seek(0)
        if magic.startswith(NPY_MAGIC):
            return [npy_header(fp, name, size)._replace(name=os.path.basename(str(name)))]
        if magic.startswith(ZIP_MAGIC) or magic.startswith(EMPTY_ZIP_MAGIC):
            zf = open_zip(fp, name)
            with zf:
                infos = (npz_member_header(zf, m, name) for m in zf.namelist())
                return [i for i in infos if i is not None]
        return safetensors_header(fp, name, size if size is not None else 0)[0]
    finally:
        if own:
            fp.close()


_NP_LOAD = getattr(np.load, "__wrapped__", np.load)


@register(_NP_LOAD, tags=("factory", "data-dependent"), name="np.load")
def np_load(file: Any, mmap_mode: str | None = None, allow_pickle: bool = False,
            fix_imports: bool = True, encoding: str = "ASCII", *,
            max_header_size: int = MAX_HEADER_SIZE) -> Any:
    """np.load inside FakeMode: .npy and .npz from their headers, never unpickling."""
    if encoding not in ("ASCII", "latin1", "bytes"):
        raise ValueError("encoding must be 'ASCII', 'latin1', or 'bytes'")
    return load(file, mmap_mode, allow_pickle, max_header_size=max_header_size,
                formats=("npy", "npz"))


# --- np.memmap(filename, ...) in a mode ---------------------------------------------------

_MEMMAP_NEW = np.memmap.__dict__["__new__"]
_MEMMAP_NEW = getattr(_MEMMAP_NEW, "__func__", _MEMMAP_NEW)
_MEMMAP_EQUIV = {"readonly": "r", "copyonwrite": "c", "readwrite": "r+", "write": "w+"}


@register(_MEMMAP_NEW, tags=("factory", "data-dependent"), name="np.memmap")
def memmap_new(subtype: Any, filename: Any, dtype: Any = np.uint8, mode: str = "r+",
               offset: int = 0, shape: Any = None, order: str = "C") -> FakeArray:
    """The mapping ``np.memmap`` makes (numpy/_core/memmap.py ``memmap.__new__``), with no data
    read and no file written: the shape from the file's size when not given, the offset into
    the first mapped page, writeable unless mode 'r'. Its storage is ``MAPPED`` (a mapping is
    not allocator memory: never charged). 'w+' creates nothing (the file NumPy would create or
    truncate is left alone) and 'r+' does not extend a short file, as NumPy would."""
    import operator
    mode = _MEMMAP_EQUIV.get(mode, mode)
    if mode not in ("r", "c", "r+", "w+"):
        modes = ["r", "c", "r+", "w+"] + list(_MEMMAP_EQUIV)
        raise ValueError(f"mode must be one of {modes!r} (got {mode!r})")
    if mode == "w+" and shape is None:
        raise ValueError("shape must be given if mode == 'w+'")
    if hasattr(filename, "read"):
        raise UnsupportedOperationError("np.memmap", "an open file object")
    path = os.fspath(filename)
    if mode == "w+":
        flen = 0
    else:
        flen = os.stat(path).st_size  # FileNotFoundError as open() gives it
    descr = np.dtype(dtype)
    it = descr.itemsize
    if shape is None:
        nbytes = flen - offset
        if nbytes % it:
            raise ValueError("Size of available data is not a multiple of the data-type size.")
        shape = (nbytes // it,)
    else:
        if not isinstance(shape, (tuple, list)):
            try:
                shape = [operator.index(shape)]
            except TypeError:
                pass
        shape = tuple(shape)
    size = 1
    for k in shape:
        size *= operator.index(k)
    end = int(offset + size * it)
    if mode in ("w+", "r+"):
        end = max(end, 1)
    elif end > flen:
        raise ValueError("mmap length is greater than file size")
    gran = _granularity()
    start = offset - offset % gran
    length = end - start
    if length == 0 and start > 0:
        length += gran
        start -= gran
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")  # ndarray.__new__
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    storage = FakeStorage(length, "cpu", 64)
    storage._tracker = MAPPED
    strides = c_strides(shape, it) if order == "C" else c_strides(shape[::-1], it)[::-1]
    return make_fake(shape, descr, strides, storage, offset - start, storage, mode != "r")
