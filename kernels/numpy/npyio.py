"""Arrays entering and leaving a plan through files and loaders.

Entering: the ``loaded`` op, an array a loader made during a plan (unpickled, read with
``np.load(allow_pickle=True)``, copied from an image or a data frame; modes/loading.py
turns it into a fake charged where NumPy allocated it).

Writing arrays to files (numpy/lib/_npyio_impl.py, numpy/lib/_format_impl.py):
``np.save``, ``np.savez``, ``np.savez_compressed``, ``np.savetxt``, ``ndarray.tofile``,
``ndarray.dump``.

A fake has no values to write. Outside a FakeMode these raise DataDependentError; inside
one, the mode writes nothing and records the bytes the real call would write as an I/O
event (modes/io.py) with the sizes computed here from metadata alone:

- ``.npy``: the header exactly as ``numpy.lib.format`` writes it (its own
  ``_write_array_header`` run on the metadata), then ``nbytes`` of data. Object dtypes and
  dtypes NumPy pickles have a pickle's size, which depends on the values.
- ``.npz`` (``savez``): the zip container as CPython's zipfile writes it for
  ``zipf.open(name, 'w', force_zip64=True)`` (local header with its zip64 extra field,
  data descriptor on unseekable files, central directory, end records) around each member's
  ``.npy`` bytes: exact. ``savez_compressed``: the deflated size depends on the values, so
  only the container and the uncompressed sizes are known.
- ``savetxt``, ``tofile`` with ``sep``, ``dump``: text or a protocol-2 pickle, whose length
  depends on the values (numbers' digits, latin-1 text of the bytes).
"""
from __future__ import annotations

import io
import os
from typing import Any

import numpy as np

from ..._errors import DataDependentError, UnsupportedOperationError
from ...meta import ArrayMeta
from ..registry import keep_real, register

_LOCAL_HEADER = 30                # zipfile.sizeFileHeader
_ZIP64_LOCAL_EXTRA = 20           # struct '<HHQQ': the extra field of force_zip64
_DATA_DESCRIPTOR64 = 24           # '<LLQQ' with its signature, on unseekable files
_CENTRAL_DIR = 46                 # zipfile.sizeCentralDir
_END_RECORD = 22                  # zipfile.sizeEndCentDir
_ZIP64_END = 56 + 20              # sizeEndCentDir64 + sizeEndCentDir64Locator


def _needs_data(what: str) -> DataDependentError:
    return DataDependentError(
        f"{what} writes the values of a fake array, which has none; inside a FakeMode the "
        "write is recorded (mode.io) instead of made")


@register(np.save, tags=("data-dependent",))
def save(file, arr, allow_pickle=True):
    """Outside a FakeMode: there is no data to write."""
    raise _needs_data("np.save")


@register(np.savez, tags=("data-dependent",))
def savez(file, *args, allow_pickle=True, **kwds):
    raise _needs_data("np.savez")


@register(np.savez_compressed, tags=("data-dependent",))
def savez_compressed(file, *args, allow_pickle=True, **kwds):
    raise _needs_data("np.savez_compressed")


@register(np.savetxt, tags=("data-dependent",))
def savetxt(fname, X, *args, **kwargs):
    raise _needs_data("np.savetxt")


@register("ndarray.tofile", tags=("data-dependent",))
def ndarray_tofile(self, fid, sep="", format="%s"):
    raise _needs_data("ndarray.tofile")


@register("ndarray.dump", tags=("data-dependent",))
def ndarray_dump(self, file):
    raise _needs_data("ndarray.dump")


@register("ndarray.dumps", tags=("data-dependent",))
def ndarray_dumps(self):
    """The pickle's bytes are the values: refused inside a FakeMode too."""
    raise DataDependentError("ndarray.dumps() returns the pickled values of a fake array, "
                             "which has none")


# --- sizes from metadata ----------------------------------------------------------

def npy_header(a: Any) -> bytes:
    """The ``.npy`` header numpy.lib.format writes for ``a`` (magic, version, header length
    field, the dict padded to a multiple of 64): NumPy's own writer run on the metadata
    (``header_data_from_array_1_0`` reads shape, dtype and flags only)."""
    from numpy.lib import _format_impl as fmt
    sink = io.BytesIO()
    fmt._write_array_header(sink, fmt.header_data_from_array_1_0(a), None)
    return sink.getvalue()


def npy_header_bytes(a: Any) -> int:
    """Length of the ``.npy`` header numpy.lib.format writes for ``a``."""
    return len(npy_header(a))


def npy_pickles(a: Any, allow_pickle: bool) -> bool:
    """True when write_array pickles ``a`` (object dtype, or a dtype without a legacy
    byte layout such as StringDType); NumPy's ValueError when that is not allowed."""
    legacy = getattr(type(a.dtype), "_legacy", True)
    if a.dtype.hasobject or not legacy:
        if not allow_pickle:
            if a.dtype.hasobject:
                raise ValueError("Object arrays cannot be saved when allow_pickle=False")
            raise ValueError("User-defined dtypes cannot be saved when allow_pickle=False")
        return True
    return False


def npy_bytes(a: Any, allow_pickle: bool = True) -> tuple[int, bool]:
    """(bytes, exact) of ``numpy.lib.format.write_array(fp, a)``: the header and the data,
    or the header and a lower bound (a pickle's size depends on the values)."""
    header = npy_header_bytes(a)
    if npy_pickles(a, allow_pickle):
        return header, False
    return header + a.nbytes, True


def zip_member_overhead(name: str, seekable: bool) -> int:
    """Bytes zipfile writes for one member opened with ``force_zip64=True`` besides its
    data and its central directory entry: the local file header, its zip64 extra field and,
    on an unseekable file, the zip64 data descriptor (Lib/zipfile.py ``_open_to_write``,
    ``_ZipWriteFile.close``)."""
    n = _LOCAL_HEADER + len(name.encode("utf-8")) + _ZIP64_LOCAL_EXTRA
    return n + (0 if seekable else _DATA_DESCRIPTOR64)


def zip_bytes(members: list, seekable: bool = True, start: int = 0) -> int:
    """Total bytes of a zip archive zipfile writes for ``members`` [(name, data bytes)],
    each stored (not compressed) with force_zip64: local headers, data, the central
    directory (with a zip64 extra field for sizes or offsets past ZIP64_LIMIT) and the end
    record (with the zip64 end record and locator when the directory needs them);
    Lib/zipfile.py ``ZipFile._write_end_record``. ``start`` is the file position the
    archive begins at."""
    import zipfile  # here: it imports bz2, lzma, shutil (import faketensor stays light)
    limit, count_limit = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    pos = start
    central = 0
    for name, size in members:
        offset = pos
        pos += zip_member_overhead(name, seekable) + size
        extra = 0
        if size > limit:
            extra += 2
        if offset > limit:
            extra += 1
        central += _CENTRAL_DIR + len(name.encode("utf-8")) + (4 + 8 * extra if extra else 0)
    end = _END_RECORD
    if len(members) > count_limit or pos > limit or central > limit:
        end += _ZIP64_END
    return pos + central + end - start


def save_path(file: Any, suffix: str) -> str:
    """The file name np.save / np.savez write to: a path gets ``suffix`` appended when it
    lacks it; a file object keeps its name (``<stream>`` when it has none)."""
    if hasattr(file, "write"):
        name = getattr(file, "name", None)
        return name if isinstance(name, str) else f"<{type(file).__name__}>"
    path = os.fspath(file)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return path if not suffix or path.endswith(suffix) else path + suffix


# --- arrays a loader made during a plan ----------------------------------------------------

def loaded(array: np.ndarray) -> np.ndarray:
    """An array a loader made during a plan (``pickle.load``'s ``ndarray.__setstate__`` copy
    of a small buffer, ``np.array(image)``, pandas' ``to_numpy()`` copy): NumPy allocated its
    buffer then. Run for real it is the array itself; in a mode it becomes a fake charged at
    the user's line (modes/loading.py)."""
    return array


setattr(loaded, "op_name", "loaded")  # its name in plans and traces


@register(loaded, tags=("factory",))
def loaded_rule(array: Any) -> ArrayMeta:
    """The real array's own layout on a fresh buffer of its size (NumPy's allocation)."""
    if not isinstance(array, np.ndarray):
        raise UnsupportedOperationError(loaded, "a fake or non-ndarray input")
    return ArrayMeta(array.shape, array.dtype, array.strides,
                     writeable=bool(array.flags.writeable))


keep_real(loaded_rule, 0)
