"""``ft.load`` and ``np.load`` inside FakeMode: .npy / .npz / .safetensors from headers only."""
from __future__ import annotations

import mmap
import os
from collections.abc import Mapping
from typing import Any, BinaryIO, Iterator

import numpy as np

from .._array import FakeArray, make_fake
from .._storage import MAPPED, FakeStorage
from ..kernels.layout import c_strides
from ..kernels.registry import register
from .headers import (EMPTY_ZIP_MAGIC, NPY_MAGIC, ZIP_MAGIC, ArrayInfo, bad,
                      npy_header, npz_member_header, open_zip, safetensors_header)

__all__ = ["load", "FakeNpzFile", "SafetensorsDict", "inspect_file"]

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


def fake_memmap(info: ArrayInfo, mode: str) -> FakeArray:
    """The ``np.memmap`` that ``np.load(..., mmap_mode=mode)`` returns, as NumPy maps it."""
    if mode not in _MMAP_MODES:
        raise ValueError(f"mode must be one of {sorted(_MMAP_MODES)} (got {mode!r})")
    offset = info.data_offset
    start = offset - offset % mmap.ALLOCATIONGRANULARITY
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


class FakeNpzFile(Mapping):
    """Like ``NpzFile``: a lazy mapping from array name to a fake read from its header."""

    def __init__(self, fp: BinaryIO, path: Any, own: bool) -> None:
        self._fp = fp if own else None
        self._path = path
        self.zip = open_zip(fp, path)
        self._files = self.zip.namelist()
        self.files = [f[:-4] if f.endswith(".npy") else f for f in self._files]

    def _member(self, key: str) -> str:
        if key in self._files:
            return key
        if key + ".npy" in self._files:
            return key + ".npy"
        raise KeyError(f"{key} is not a file in the archive")

    def info(self, key: str) -> ArrayInfo:
        """The header of one member."""
        return npz_member_header(self.zip, self._member(key), self._path)

    def __getitem__(self, key: str) -> FakeArray:
        return fake_from_info(self.info(key))

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, key: object) -> bool:
        return key in self.files or key in self._files

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
        return f"FakeNpzFile({self._path!r}, files={self.files})"


class SafetensorsDict(dict):
    """name -> fake for a .safetensors file; ``metadata`` holds its ``__metadata__``."""

    metadata: dict = {}


def _open(file: Any) -> tuple[BinaryIO, Any, bool, int | None]:
    """(binary file, name for messages, whether we own it, bytes from position to end)."""
    if isinstance(file, (str, bytes, os.PathLike)):
        path = os.fspath(file)
        fp = open(path, "rb")
        own = True
    elif hasattr(file, "read"):
        fp, path, own = file, getattr(file, "name", repr(file)), False
    else:
        raise TypeError(f"expected a path or a binary file object, got {type(file).__name__}")
    try:
        pos = fp.tell()
        end = fp.seek(0, os.SEEK_END)
        fp.seek(pos)
        size = end - pos
    except (OSError, AttributeError, ValueError):
        size = None
    return fp, path, own, size


def load(file: Any, mmap_mode: str | None = None, *,
         formats: tuple = ("npy", "npz", "safetensors")) -> Any:
    """Fakes for an .npy (a fake), .npz (a ``FakeNpzFile``) or .safetensors file
    (a ``SafetensorsDict``), read from the headers only; ValueError for a bad file."""
    fp, path, own, size = _open(file)
    keep_open = False
    try:
        pos = fp.tell() if size is not None else 0
        magic = fp.read(8)
        if size is not None:
            fp.seek(pos)
        if magic.startswith(NPY_MAGIC) and "npy" in formats:
            if size is None:
                raise bad(path, "cannot read an .npy header from a stream that cannot seek")
            info = npy_header(fp, path, size)
            fp.seek(pos + info.data_offset + info.nbytes)
            if mmap_mode is not None:
                if not own:
                    info = info._replace(data_offset=info.data_offset + pos)
                return fake_memmap(info, mmap_mode)
            return fake_from_info(info)
        if (magic.startswith(ZIP_MAGIC) or magic.startswith(EMPTY_ZIP_MAGIC)) and "npz" in formats:
            keep_open = True
            return FakeNpzFile(fp, path, own)
        if "safetensors" in formats and len(magic) == 8 and size is not None and not \
                magic.startswith(NPY_MAGIC):
            infos, meta = safetensors_header(fp, path, size)
            out = SafetensorsDict((i.name, fake_from_info_c(i)) for i in infos)
            out.metadata = meta
            return out
        if len(magic) < 8 and size is not None and size < 8:
            raise bad(path, f"file is too short ({size} bytes) to be an array file")
        raise bad(path, "file holds pickled Python objects or an unknown format (not .npy/.npz"
                        + ("/.safetensors" if "safetensors" in formats else "") + "); "
                        "faketensor never unpickles")
    finally:
        if own and not keep_open:
            fp.close()


def fake_from_info_c(info: ArrayInfo) -> FakeArray:
    """A fresh C-contiguous fake (the arrays of a .safetensors file)."""
    it = info.dtype.itemsize
    return make_fake(info.shape, info.dtype, c_strides(info.shape, it),
                     FakeStorage(info.nbytes, "cpu"), 0, None)


def inspect_file(path: Any) -> list[ArrayInfo]:
    """The arrays a file holds, from its headers (for the command-line inspector)."""
    fp, name, own, size = _open(path)
    try:
        magic = fp.read(8)
        fp.seek(0)
        if magic.startswith(NPY_MAGIC):
            return [npy_header(fp, name, size)._replace(name=os.path.basename(str(name)))]
        if magic.startswith(ZIP_MAGIC) or magic.startswith(EMPTY_ZIP_MAGIC):
            zf = open_zip(fp, name)
            with zf:
                return [npz_member_header(zf, m, name) for m in zf.namelist()]
        return safetensors_header(fp, name, size if size is not None else 0)[0]
    finally:
        if own:
            fp.close()


_NP_LOAD = getattr(np.load, "__wrapped__", np.load)


@register(_NP_LOAD, tags=("factory",), name="np.load")
def np_load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII",
            *, max_header_size=None):
    """np.load inside FakeMode: .npy and .npz from their headers, never unpickling."""
    return load(file, mmap_mode, formats=("npy", "npz"))
