"""Parsers for .npy, .npz and .safetensors headers: bounded, no eval, no pickle.

Each parser reads only header bytes and returns ``ArrayInfo`` records; anything
truncated, corrupt or hostile raises ValueError naming the file and the problem.
"""
from __future__ import annotations

import ast
import io
import json
import struct
import zipfile
from typing import Any, BinaryIO, NamedTuple

import numpy as np

from ..kernels.layout import check_shape

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"
MAX_NPY_HEADER = 1 << 20          # bytes of dict literal we agree to parse
MAX_SAFETENSORS_HEADER = 100_000_000
MAX_NDIM = 64

SAFETENSORS_DTYPES = {
    "BOOL": "?", "U8": "u1", "I8": "i1", "U16": "<u2", "I16": "<i2", "U32": "<u4",
    "I32": "<i4", "U64": "<u8", "I64": "<i8", "F16": "<f2", "F32": "<f4", "F64": "<f8",
    "C64": "<c8", "C128": "<c16",
}
_ML_DTYPES = {"BF16": "bfloat16", "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2"}


class ArrayInfo(NamedTuple):
    """One array described by a file header: where its data lies and how it is laid out."""

    name: str
    shape: tuple
    dtype: np.dtype
    fortran_order: bool
    data_offset: int      # byte offset of the data in the file (or zip member)
    nbytes: int


def bad(path: Any, problem: str) -> ValueError:
    return ValueError(f"{path}: {problem}")


def _read_exact(fp: BinaryIO, n: int, path: Any, what: str) -> bytes:
    data = fp.read(n)
    if len(data) != n:
        raise bad(path, f"file is truncated: expected {n} bytes of {what}, got {len(data)}")
    return data


def _check_shape(shape: Any, path: Any) -> tuple:
    if not isinstance(shape, tuple) and not isinstance(shape, list):
        raise bad(path, f"shape must be a tuple of integers, got {shape!r:.80}")
    for n in shape[:MAX_NDIM + 1]:
        if type(n) is not int:
            raise bad(path, f"shape must hold integers, got {n!r:.40}")
    shape = tuple(shape)
    _constructed(shape, 0, path)  # dimensions (ndim, negative) as any array's
    return shape


def _nbytes(shape: tuple, dtype: np.dtype, path: Any) -> int:
    return _constructed(shape, dtype.itemsize, path)


def _constructed(shape: tuple, itemsize: int, path: Any) -> int:
    """NumPy's array-constructor checks (kernels/layout.check_shape), naming the file."""
    try:
        return check_shape(shape, itemsize)
    except ValueError as e:
        raise bad(path, f"shape {shape!s:.200}: {e}") from None


def npy_header(fp: BinaryIO, path: Any, size: int | None, name: str = "") -> ArrayInfo:
    """Parse an .npy header from fp's current position; size is the bytes available from there."""
    magic = _read_exact(fp, 8, path, "the .npy magic")
    if magic[:6] != NPY_MAGIC:
        raise bad(path, f"not an .npy file (magic {magic[:6]!r})")
    major, minor = magic[6], magic[7]
    if (major, minor) not in ((1, 0), (2, 0), (3, 0)):
        raise bad(path, f"unsupported .npy format version {major}.{minor}")
    if major == 1:
        hlen = struct.unpack("<H", _read_exact(fp, 2, path, "the header length"))[0]
        start = 10
    else:
        hlen = struct.unpack("<I", _read_exact(fp, 4, path, "the header length"))[0]
        start = 12
    if size is not None and start + hlen > size:
        raise bad(path, f"header length {hlen} runs past the end of the file ({size} bytes)")
    if hlen > MAX_NPY_HEADER:
        raise bad(path, f"header length {hlen} is larger than the limit {MAX_NPY_HEADER}")
    raw = _read_exact(fp, hlen, path, "header")
    try:
        text = raw.decode("utf8" if major == 3 else "latin1")
    except UnicodeDecodeError as e:
        raise bad(path, f"header is not valid text: {e}") from None
    try:
        d = ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError) as e:
        raise bad(path, f"cannot parse header {text[:60]!r}: {type(e).__name__}") from None
    if not isinstance(d, dict) or set(d) != {"descr", "fortran_order", "shape"}:
        raise bad(path, "header is not a dict with exactly the keys 'descr', 'fortran_order', "
                        "'shape'")
    shape = _check_shape(d["shape"], path)
    if type(d["fortran_order"]) is not bool:
        raise bad(path, f"fortran_order is not a bool: {d['fortran_order']!r:.40}")
    try:
        dtype = np.lib.format.descr_to_dtype(d["descr"])
    except (TypeError, ValueError, KeyError, IndexError, RecursionError, MemoryError) as e:
        raise bad(path, f"header descr {d['descr']!r:.60} is not a dtype: {e}") from None
    if dtype.hasobject:
        raise bad(path, f"array{' ' + name if name else ''} holds pickled Python objects "
                        f"(dtype {dtype}); faketensor never unpickles")
    nbytes = _nbytes(shape, dtype, path)
    data_offset = start + hlen
    if size is not None and data_offset + nbytes > size:
        raise bad(path, f"file is truncated: {nbytes} bytes of data expected after the header, "
                        f"only {size - data_offset} present")
    return ArrayInfo(name, shape, dtype, d["fortran_order"], data_offset, nbytes)


def open_zip(fp: BinaryIO, path: Any) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(fp)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError,
            struct.error, NotImplementedError) as e:
        raise bad(path, f"corrupt .npz (zip) file: {e}") from None


def npz_member_header(zf: zipfile.ZipFile, member: str, path: Any) -> ArrayInfo:
    """Header of one .npy member of an .npz file (reads only its first bytes)."""
    try:
        info = zf.getinfo(member)
        with zf.open(info) as fp:
            head = fp.read(12)
            if len(head) >= 10 and head[:6] == NPY_MAGIC:
                hlen = struct.unpack("<H", head[8:10])[0] if head[6] == 1 else (
                    struct.unpack("<I", head[8:12])[0] if len(head) == 12 else 0)
                head += fp.read(min(hlen, MAX_NPY_HEADER + 1))
    except KeyError:
        raise
    except Exception as e:  # zlib.error, BadZipFile, EOFError, ...: a corrupt member
        raise bad(path, f"cannot read member {member!r}: {type(e).__name__}: {e}") from None
    where = f"{path}[{member!r}]"
    if head[:6] != NPY_MAGIC:
        raise bad(where, "member is not an .npy array")
    name = member[:-4] if member.endswith(".npy") else member
    parsed = npy_header(io.BytesIO(head), where, None, name)
    if parsed.data_offset + parsed.nbytes > info.file_size:
        raise bad(where, f"member is truncated: {parsed.nbytes} bytes of data expected, "
                         f"{info.file_size - parsed.data_offset} present")
    return parsed


def safetensors_header(fp: BinaryIO, path: Any, size: int) -> tuple[list[ArrayInfo], dict]:
    """The tensors of a .safetensors file and its ``__metadata__``, from the JSON header."""
    n = struct.unpack("<Q", _read_exact(fp, 8, path, "the header length"))[0]
    if 8 + n > size:
        raise bad(path, f"header length {n} runs past the end of the file ({size} bytes)")
    if n > MAX_SAFETENSORS_HEADER:
        raise bad(path, f"header length {n} is larger than the limit {MAX_SAFETENSORS_HEADER}")
    raw = _read_exact(fp, n, path, "header")
    try:
        header = json.loads(raw.decode("utf8"))
    except (UnicodeDecodeError, ValueError, RecursionError, MemoryError) as e:
        raise bad(path, f"header is not valid JSON: {type(e).__name__}: {str(e)[:80]}") from None
    if not isinstance(header, dict):
        raise bad(path, "header is not a JSON object")
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict):
        raise bad(path, "__metadata__ is not an object")
    data_start = 8 + n
    data_len = size - data_start
    out = []
    for name, spec in header.items():
        if not isinstance(spec, dict) or set(spec) - {"dtype", "shape", "data_offsets"} \
                or len(spec) != 3:
            raise bad(path, f"tensor {name!r}: entry must hold dtype, shape and data_offsets")
        dtype = _safetensors_dtype(spec["dtype"], path, name)
        shape = _check_shape(spec["shape"], path)
        offs = spec["data_offsets"]
        if (not isinstance(offs, list) or len(offs) != 2
                or any(type(o) is not int or o < 0 for o in offs) or offs[1] < offs[0]):
            raise bad(path, f"tensor {name!r}: data_offsets must be [begin, end] with "
                            f"0 <= begin <= end, got {offs!r:.60}")
        nbytes = _nbytes(shape, dtype, path)
        if offs[1] - offs[0] != nbytes:
            raise bad(path, f"tensor {name!r}: data_offsets span {offs[1] - offs[0]} bytes but "
                            f"shape {shape} of {dtype} needs {nbytes}")
        if offs[1] > data_len:
            raise bad(path, f"tensor {name!r}: data_offsets {offs} run past the end of the "
                            f"file (data section holds {data_len} bytes)")
        out.append(ArrayInfo(name, shape, dtype, False, data_start + offs[0], nbytes))
    spans = sorted((a.data_offset, a.data_offset + a.nbytes, a.name) for a in out if a.nbytes)
    for (b0, e0, n0), (b1, e1, n1) in zip(spans, spans[1:]):
        if b1 < e0:
            raise bad(path, f"tensors {n0!r} and {n1!r} have overlapping data_offsets")
    return out, meta


def _safetensors_dtype(name: Any, path: Any, tensor: str) -> np.dtype:
    if not isinstance(name, str):
        raise bad(path, f"tensor {tensor!r}: dtype must be a string")
    if name in SAFETENSORS_DTYPES:
        return np.dtype(SAFETENSORS_DTYPES[name])
    if name in _ML_DTYPES:
        try:
            import ml_dtypes  # type: ignore[import-not-found]
            return np.dtype(getattr(ml_dtypes, _ML_DTYPES[name]))
        except (ImportError, AttributeError):
            raise bad(path, f"tensor {tensor!r}: dtype {name} has no NumPy equivalent "
                            "(install ml_dtypes)") from None
    raise bad(path, f"tensor {tensor!r}: unknown safetensors dtype {name!r:.20}")
