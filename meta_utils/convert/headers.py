"""Parsers for .npy, .npz and .safetensors headers: bounded, no eval, no pickle.

Each parser reads only header bytes and returns ``ArrayInfo`` records. A file is accepted
or refused exactly as the real reader decides from what it can see without reading array
data: ``np.load`` for .npy / .npz (numpy/lib/_format_impl.py ``read_array``,
numpy/lib/_npyio_impl.py ``NpzFile``), the safetensors library for .safetensors
(safetensors/src/tensor.rs ``read_metadata``). A refusal raises the exception type
``np.load`` raises (ValueError for most header faults), with a message naming the file;
.safetensors faults raise ValueError (the library's ``SafetensorError``).
"""
from __future__ import annotations

import ast
import io
import math
import struct
import tokenize
import warnings
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple, cast

import numpy as np

from ..._errors import UnsupportedOperationError
from ...layout import MAX_INTP, check_shape

if TYPE_CHECKING:
    import zipfile

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"
MAX_HEADER_SIZE = 10_000          # np.load's default max_header_size (_format_impl.py)
NO_HEADER_LIMIT = 2 ** 64         # what np.load uses when allow_pickle=True
MAX_SAFETENSORS_HEADER = 100_000_000
SAFETENSORS_JSON_DEPTH = 127      # serde_json's recursion limit (128 levels refused)
MAX_NDIM = 64
MAX_NBYTES = (1 << 63) - 1
_U64 = (1 << 64) - 1
_NPY_VERSIONS = {(1, 0): ("<H", "latin1"), (2, 0): ("<I", "latin1"), (3, 0): ("<I", "utf8")}
_NPY_KEYS = {"descr", "fortran_order", "shape"}

# safetensors/src/tensor.rs ``Dtype``: name -> (bits per element, NumPy dtype or None)
SAFETENSORS_DTYPES: dict[str, tuple[int, str | None]] = {
    "BOOL": (8, "?"), "U8": (8, "u1"), "I8": (8, "i1"), "U16": (16, "<u2"),
    "I16": (16, "<i2"), "U32": (32, "<u4"), "I32": (32, "<i4"), "U64": (64, "<u8"),
    "I64": (64, "<i8"), "F16": (16, "<f2"), "F32": (32, "<f4"), "F64": (64, "<f8"),
    "C64": (64, "<c8"), "BF16": (16, None), "F8_E4M3": (8, None), "F8_E5M2": (8, None),
    "F8_E4M3FNUZ": (8, None), "F8_E5M2FNUZ": (8, None), "F8_E8M0": (8, None),
    "F4": (4, None), "F6_E2M3": (6, None), "F6_E3M2": (6, None),
}
# the ones NumPy holds only through the ml_dtypes package (one byte or two per element)
_ML_DTYPES = {"BF16": "bfloat16", "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2",
              "F8_E4M3FNUZ": "float8_e4m3fnuz", "F8_E5M2FNUZ": "float8_e5m2fnuz",
              "F8_E8M0": "float8_e8m0fnu"}


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


def same_type(e: BaseException, path: Any, what: str) -> BaseException:
    """An exception of e's own type (the one the real reader lets through) naming the file."""
    msg = f"{path}: {what}: {e}"
    if isinstance(e, UnicodeDecodeError):
        return UnicodeDecodeError(e.encoding, e.object, e.start, e.end, f"{path}: {what}: {e.reason}")
    try:
        new = type(e)(msg)
    except Exception:
        return e
    return new if str(new) == msg else e


def _read_exact(fp: BinaryIO, n: int, path: Any, what: str) -> bytes:
    data = fp.read(n)
    if len(data) != n:  # _format_impl.py _read_bytes: "EOF: reading ..."
        raise bad(path, f"EOF: reading {what}, expected {n} bytes got {len(data)}")
    return data


def _check_shape(shape: Any, path: Any) -> tuple:
    """A shape of at most 64 non-negative Python ints, as a tuple; ValueError otherwise."""
    if not isinstance(shape, tuple) and not isinstance(shape, list):
        raise bad(path, f"shape must be a tuple of integers, got {shape!r:.80}")
    for n in shape[:MAX_NDIM + 1]:
        if type(n) is not int:
            raise bad(path, f"shape must hold integers, got {n!r:.40}")
    shape = tuple(shape)
    _constructed(shape, 0, path)  # dimensions (ndim, negative) as any array's
    return shape


def _constructed(shape: tuple, itemsize: int, path: Any) -> int:
    """NumPy's array-constructor checks (kernels/layout.check_shape), naming the file."""
    try:
        return check_shape(shape, itemsize)
    except ValueError as e:
        raise bad(path, f"shape {shape!s:.200}: {e}") from None


# --- .npy --------------------------------------------------------------------------------

def _drop_long_suffix(text: str) -> str:
    """Python 2 headers write ``3L``: drop a NAME ``L`` right after a number
    (what np.load's ``_filter_header`` does before its second parse attempt)."""
    out = []
    after_number = False
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if not (after_number and tok.type == tokenize.NAME and tok.string == "L"):
            out.append(tok)
        after_number = tok.type == tokenize.NUMBER
    return tokenize.untokenize(out)


def _literal(text: str, version: tuple, path: Any) -> Any:
    try:
        return ast.literal_eval(text)
    except SyntaxError:
        if version > (2, 0):
            raise bad(path, f"Cannot parse header: {text[:60]!r}") from None
    except (ValueError, TypeError, RecursionError, MemoryError) as e:  # np.load lets these out
        raise same_type(e, path, "cannot parse header") from None
    try:
        d = ast.literal_eval(_drop_long_suffix(text))
    except SyntaxError:
        raise bad(path, f"Cannot parse header: {text[:60]!r}") from None
    except Exception as e:  # tokenize.TokenError, IndentationError, ...: as np.load
        raise same_type(e, path, "cannot parse header") from None
    warnings.warn("Reading `.npy` or `.npz` file required additional header parsing as it "
                  "was created on Python 2. Save the file again to speed up loading and avoid "
                  "this warning.", UserWarning, stacklevel=5)
    return d


def npy_header(fp: BinaryIO, path: Any, size: int | None, name: str = "", *,
               max_header_size: int = MAX_HEADER_SIZE, allow_pickle: bool = False,
               memmap: bool = False) -> ArrayInfo:
    """Parse an .npy header from fp's current position; size is the bytes available from there.

    Mirrors ``read_array`` (or ``open_memmap`` when ``memmap``): the same checks in the same
    order, so a file is refused when np.load refuses it, with np.load's exception type.
    """
    if allow_pickle:
        max_header_size = NO_HEADER_LIMIT
    magic = _read_exact(fp, 8, path, "magic string")
    if magic[:6] != NPY_MAGIC:
        raise bad(path, f"the magic string is not correct; expected {NPY_MAGIC!r}, got {magic[:6]!r}")
    version = (magic[6], magic[7])
    if version not in _NPY_VERSIONS:
        raise bad(path, f"we only support format version (1,0), (2,0), and (3,0), not {version}")
    fmt, encoding = _NPY_VERSIONS[version]
    start = 8 + struct.calcsize(fmt)
    hlen = struct.unpack(fmt, _read_exact(fp, start - 8, path, "array header length"))[0]
    if size is not None and start + hlen > size:
        raise bad(path, f"EOF: reading array header, expected {hlen} bytes got {size - start}")
    if encoding == "latin1" and hlen > max_header_size:  # one character per byte: refuse unread
        raise bad(path, f"Header info length ({hlen}) is large and may not be safe to load "
                        "securely; adjust `max_header_size` if you trust the file")
    raw = _read_exact(fp, hlen, path, "array header")
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as e:
        raise same_type(e, path, "header") from None
    if len(text) > max_header_size:
        raise bad(path, f"Header info length ({len(text)}) is large and may not be safe to load "
                        "securely; adjust `max_header_size` if you trust the file")
    d = _literal(text, version, path)
    if not isinstance(d, dict):
        raise bad(path, f"Header is not a dictionary: {d!r:.60}")
    if d.keys() != _NPY_KEYS:
        raise bad(path, f"Header does not contain the correct keys: {sorted(map(repr, d))!r:.80}")
    shape = d["shape"]
    if not isinstance(shape, tuple) or not all(isinstance(n, int) for n in shape):
        raise bad(path, f"shape is not valid: {shape!r:.60}")
    if not isinstance(d["fortran_order"], bool):
        raise bad(path, f"fortran_order is not a valid bool: {d['fortran_order']!r:.40}")
    try:
        dtype = np.lib.format.descr_to_dtype(d["descr"])
    except TypeError:
        raise bad(path, f"descr is not a valid dtype descriptor: {d['descr']!r:.60}") from None
    except Exception as e:  # ValueError, IndexError, RecursionError: np.load lets them out
        raise same_type(e, path, f"descr {d['descr']!r:.60}") from None
    if dtype.hasobject:
        what = f"array{' ' + name if name else ''}"
        if memmap:
            raise bad(path, f"{what}: Array can't be memory-mapped: Python objects in dtype.")
        if not allow_pickle:
            raise bad(path, f"{what}: Object arrays cannot be loaded when allow_pickle=False "
                            f"(dtype {dtype})")
        raise UnsupportedOperationError(
            "np.load", f"{path}: {what} holds pickled Python objects; their shape is in the "
                       "pickle, and faketensor never unpickles")
    nbytes = _npy_nbytes(shape, dtype, path, memmap)
    data_offset = start + hlen
    if memmap:  # np.memmap's own checks follow (files.py)
        return ArrayInfo(name, shape, dtype, d["fortran_order"], data_offset, nbytes)
    if size is not None and data_offset + nbytes > size:
        # np.load reads (or, if too large to allocate, first fails with MemoryError)
        raise bad(path, f"EOF: {nbytes} bytes of array data expected after the header, "
                        f"only {size - data_offset} present")
    if dtype.subdtype is not None and math.prod(dtype.shape) != 1 and nbytes:
        # the data is read as `count` subarrays, which hold more elements than `count`
        raise bad(path, f"Failed to read all data for array: dtype {dtype} has subarrays")
    return finish_shape(ArrayInfo(name, shape, dtype, d["fortran_order"], data_offset, nbytes),
                        path)


def finish_shape(info: ArrayInfo, path: Any, memmap: bool = False) -> ArrayInfo:
    """The last step of a load, the reshape to the header's shape (``read_array``) or the
    ``np.memmap`` constructor: bools are not dimensions there. ``np.memmap`` appends a
    subarray dtype's dimensions to the shape (ctors.c ``_update_descr_and_dimensions``);
    the reshape of ``read_array`` is reached with subarrays only for empty or 1-element
    ones, not modelled here."""
    if any(type(n) is bool for n in info.shape):
        raise TypeError(f"{path}: an integer is required (shape {info.shape!r:.60})")
    if info.dtype.subdtype is not None and memmap:
        return info._replace(shape=info.shape + info.dtype.shape, dtype=info.dtype.base)
    if info.dtype.subdtype is not None:
        raise UnsupportedOperationError(
            "np.load", f"{path}: dtype {info.dtype} has subarrays; faketensor does not model "
                       "how their dimensions join the array's")
    return info


def _npy_nbytes(shape: tuple, dtype: np.dtype, path: Any, memmap: bool) -> int:
    """Bytes of the array, refusing shapes that ``read_array`` (or ``np.memmap``) refuses."""
    if shape and not memmap:
        # read_array counts elements in int64 (TypeError for bools, OverflowError past it)
        try:
            count = int(np.multiply.reduce(shape, dtype=np.int64))
        except (TypeError, OverflowError) as e:
            raise same_type(e, path, f"shape {shape!r:.60}") from None
    else:
        count = math.prod(shape)
    true_count = math.prod(shape)
    if any(n < 0 for n in shape):
        raise bad(path, f"negative dimensions are not allowed (shape {shape!r:.60})")
    if len(shape) > MAX_NDIM:
        raise bad(path, f"maximum supported dimension for an ndarray is currently {MAX_NDIM}, "
                        f"found {len(shape)}")
    if any(n > MAX_INTP for n in shape):  # a dimension no npy_intp holds
        if memmap:  # np.memmap converts the shape to C longs
            raise OverflowError(f"{path}: shape {shape!r:.60}: Python int too large to convert "
                                "to C long")
        raise bad(path, f"Maximum allowed dimension exceeded (shape {shape!r:.60})")
    _constructed(shape, dtype.itemsize, path)  # the array NumPy makes (zero-size or not)
    nbytes = true_count * dtype.itemsize
    if count != true_count or nbytes > MAX_NBYTES:  # the int64 count wrapped: reshape fails
        raise bad(path, f"array is too big: shape {shape!r:.60} of {dtype} needs {nbytes} bytes")
    return nbytes


# --- .npz --------------------------------------------------------------------------------

def open_zip(fp: BinaryIO, path: Any) -> zipfile.ZipFile:
    """``zipfile.ZipFile`` as np.load opens it; its errors keep their type and name the file."""
    import zipfile  # here: it imports bz2, lzma, shutil (import faketensor stays light)
    try:
        return zipfile.ZipFile(fp, allowZip64=True)
    except Exception as e:  # BadZipFile, EOFError, UnicodeDecodeError, ...: as np.load
        raise same_type(e, path, "corrupt .npz (zip) file") from None


def npz_member_header(zf: zipfile.ZipFile, member: str, path: Any, *,
                      max_header_size: int = MAX_HEADER_SIZE,
                      allow_pickle: bool = False) -> ArrayInfo | None:
    """Header of one member of an .npz file as ``NpzFile[key]`` reads it (only its first
    bytes); None when the member is not an .npy array (NpzFile returns its bytes)."""
    where = f"{path}[{member!r}]"
    name = member[:-4] if member.endswith(".npy") else member
    try:
        with zf.open(member) as fp:
            if fp.read(len(NPY_MAGIC)) != NPY_MAGIC:
                return None
            fp.seek(0)
            size = zf.getinfo(member).file_size
            return npy_header(cast(BinaryIO, fp), where, size, name, max_header_size=max_header_size,
                              allow_pickle=allow_pickle)
    except Exception as e:  # BadZipFile, NotImplementedError, RuntimeError, zlib.error, ...
        if where in str(e):  # the header's own fault, already named
            raise
        raise same_type(e, where, "cannot read member") from None


# --- .safetensors ------------------------------------------------------------------------

class _Pairs(list):
    """A JSON object as its (key, value) pairs, duplicates kept (serde refuses some)."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_int(text: str) -> Any:
    return float(text) if text.startswith("-0") else int(text)  # serde: -0 is a float


def _depth_ok(v: Any, depth: int) -> None:
    if isinstance(v, (list, tuple)):
        depth += 1
        if depth > SAFETENSORS_JSON_DEPTH:
            raise ValueError("recursion limit exceeded")
        for x in v:
            if isinstance(x, tuple):
                _depth_ok(x[1], depth)
                _str_ok(x[0])
            else:
                _depth_ok(x, depth)
    elif isinstance(v, str):
        _str_ok(v)
    elif isinstance(v, float) and not math.isfinite(v):
        raise ValueError("number out of range")


def _str_ok(s: str) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("lone surrogate in a string") from None


def _usize(v: Any) -> bool:
    return type(v) is int and 0 <= v <= _U64


def _tensor_info(v: Any, name: str, path: Any) -> tuple:
    """(dtype name, shape, (begin, end)) of one entry, as serde reads ``TensorInfo``: an
    object (unknown fields ignored, duplicates refused) or a 3-element array."""
    def no(problem: str) -> ValueError:
        return bad(path, f"tensor {name!r:.80}: {problem}")
    if isinstance(v, _Pairs):
        fields: dict = {}
        for k, x in v:
            if k in fields:
                raise no(f"duplicate field {k!r}")
            fields[k] = x
        missing = [k for k in ("dtype", "shape", "data_offsets") if k not in fields]
        if missing:
            raise no(f"missing field {missing[0]!r}")
        dt, shape, offs = fields["dtype"], fields["shape"], fields["data_offsets"]
    elif isinstance(v, list) and len(v) == 3:
        dt, shape, offs = v
    else:
        raise no("entry must be an object with dtype, shape and data_offsets")
    if isinstance(dt, _Pairs) and len(dt) == 1 and dt[0][1] is None:
        dt = dt[0][0]  # serde reads a unit variant from {"F32": null} too
    if not isinstance(dt, str) or dt not in SAFETENSORS_DTYPES:
        raise no(f"unknown safetensors dtype {dt!r:.40}")
    if not isinstance(shape, list) or not all(_usize(n) for n in shape):
        raise no(f"shape must be a list of unsigned integers, got {shape!r:.60}")
    if not isinstance(offs, list) or len(offs) != 2 or not all(_usize(o) for o in offs):
        raise no(f"data_offsets must be [begin, end], got {offs!r:.60}")
    return dt, tuple(shape), tuple(offs)


def safetensors_header(fp: BinaryIO, path: Any, size: int) -> tuple[list[ArrayInfo], dict | None]:
    """The tensors of a .safetensors file (in header order, a repeated name keeping its
    last entry) and its ``__metadata__``, accepted or refused as the safetensors library
    does: header bounds, strict JSON, typed fields, offsets that tile the data section
    exactly (sorted by offsets, no gap, no overlap, nothing after the last tensor)."""
    if size < 8:
        raise bad(path, f"header too small ({size} bytes)")
    n = struct.unpack("<Q", _read_exact(fp, 8, path, "the header length"))[0]
    if n > MAX_SAFETENSORS_HEADER:
        raise bad(path, f"header too large ({n} bytes, limit {MAX_SAFETENSORS_HEADER})")
    if 8 + n > size:
        raise bad(path, f"invalid header length {n}: runs past the end of the file ({size} bytes)")
    raw = _read_exact(fp, n, path, "header")
    import json  # here: import faketensor stays light
    try:
        header = json.loads(raw.decode("utf8"), object_pairs_hook=_Pairs,
                            parse_constant=_no_constant, parse_int=_json_int)
        _depth_ok(header, 0)
    except (UnicodeDecodeError, ValueError, RecursionError, MemoryError) as e:
        raise bad(path, f"header is not valid JSON: {type(e).__name__}: {str(e)[:80]}") from None
    if not isinstance(header, _Pairs):
        raise bad(path, "header is not a JSON object")
    meta: dict | None = None
    seen_meta = False
    specs: dict = {}
    for name, v in header:
        if name == "__metadata__":
            if seen_meta:
                raise bad(path, "duplicate field '__metadata__'")
            seen_meta = True
            if v is None:
                continue
            if not isinstance(v, _Pairs) or not all(isinstance(x, str) for _, x in v):
                raise bad(path, "__metadata__ must be an object of strings")
            meta = dict(v)
            continue
        specs.pop(name, None)  # a repeated name keeps its last entry, in the last place
        specs[name] = _tensor_info(v, name, path)
    data_start = 8 + n
    end = 0
    for name, (dt, shape, (b, stop)) in sorted(specs.items(), key=lambda kv: kv[1][2]):
        if b != end or stop < b:
            raise bad(path, f"invalid offset for tensor {name!r:.80}: data_offsets {[b, stop]} "
                            f"(the previous tensor ends at {end})")
        end = stop
        nbits = math.prod(shape) * SAFETENSORS_DTYPES[dt][0]
        if math.prod(shape) > _U64 or nbits > _U64:
            raise bad(path, f"tensor {name!r:.80}: overflow computing its size from shape {shape}")
        if nbits % 8:
            raise bad(path, f"tensor {name!r:.80}: {dt} x {shape} is not a whole number of bytes")
        if stop - b != nbits // 8:
            raise bad(path, f"tensor {name!r:.80}: data_offsets span {stop - b} bytes but shape "
                            f"{shape} of {dt} needs {nbits // 8}")
    if data_start + end != size:
        raise bad(path, f"incomplete metadata: the tensors cover {end} bytes of the "
                        f"{size - data_start}-byte data section")
    out = []
    for name, (dt, shape, (b, stop)) in specs.items():
        out.append(ArrayInfo(name, shape, _numpy_dtype(dt, name, path), False, data_start + b,
                             stop - b))
    return out, meta


def _numpy_dtype(name: str, tensor: str, path: Any) -> np.dtype:
    spec = SAFETENSORS_DTYPES[name][1]
    if spec is not None:
        return np.dtype(spec)
    if name in _ML_DTYPES:
        try:
            import ml_dtypes
            return np.dtype(getattr(ml_dtypes, _ML_DTYPES[name]))
        except (ImportError, AttributeError):
            pass
    raise UnsupportedOperationError(
        "ft.load", f"{path}: tensor {tensor!r:.80} has dtype {name}, which NumPy cannot hold"
                   + (" without ml_dtypes (pip install 'faketensor[ml_dtypes]')"
                      if name in _ML_DTYPES else ""))
