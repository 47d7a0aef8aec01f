"""A corpus of hostile .npy / .npz / .safetensors files (name -> bytes), generated.

Every real reader decision visible without reading array data is exercised: magic and
version bytes, header lengths, header text (dict keys, descr, fortran_order, shape), data
lengths, zip directories and members, safetensors JSON, dtypes and offsets. Shapes are
either small or far beyond any machine's memory, so the real readers never allocate much.
"""
from __future__ import annotations

import io
import json
import struct
import warnings
import zipfile

import numpy as np

GOOD = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"


def npy(header: str | bytes, version=(1, 0), data: bytes | int = b"", pad=True) -> bytes:
    """An .npy file with this header text (padded as NumPy pads it) and data (or n zero bytes)."""
    h = header.encode("utf8" if version == (3, 0) else "latin1") if isinstance(header, str) else header
    n = 2 if version == (1, 0) else 4
    if pad:
        h = h + b" " * ((-(8 + n + len(h) + 1)) % 64) + b"\n"
    fmt = "<H" if n == 2 else "<I"
    ln = struct.pack(fmt, len(h)) if len(h) < (1 << (8 * n)) else b"\xff" * n
    body = data if isinstance(data, bytes) else b"\0" * data
    return b"\x93NUMPY" + bytes(version) + ln + h + body


def _hdr(descr="'<f8'", order="False", shape="(3,)") -> str:
    return f"{{'descr': {descr}, 'fortran_order': {order}, 'shape': {shape}, }}"


def _real_npy(a: np.ndarray, version=None) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, a, version=version, allow_pickle=True)
    return buf.getvalue()


DESCRS = ["'<f8'", "'>i4'", "'|b1'", "'?'", "'<U3'", "'|S0'", "'|V0'", "'V4'", "'<M8[s]'",
          "'<m8[xx]'", "'zz9'", "'<f8 '", "b'<f8'", "'O'", "'|O'", "5", "None", "[]", "{}",
          "()", "('<f8',)", "('<f8', (2,))", "('<f8', -1)", "('<f8', 2)", "[('a', '<i4')]",
          "[('', '|V4'), ('b', '<f8')]", "[('a', '<i4', (2,))]", "[('a',)]", "[(1, '<f8')]",
          "[('a', '<f8'), ('a', '<f8')]", "[(('t', 'a'), '<f8')]", "[('a', 'O')]",
          "[('a', [('b', '<f4')])]", "{'a': 1}", "'<f8' * 2", "'<c16'", "'<f2'", "'|u1'",
          "[('a', '<f8', -1)]", "[('a', '<f8', (2**40, 2**40))]", "'(2,3)<f4'", "'U'"]
ORDERS = ["False", "True", "1", "0", "None", "'True'", "(False,)"]
SHAPES = ["()", "(0,)", "(3,)", "(1, 3)", "(3, 1)", "[3]", "(3.0,)", "(-1,)", "(-3,)",
          "(-1, -3)", "(-1, 0)", "(0, -5)", "(True, 3)", "(False,)", "(2**62, 2**62)",
          "(2**63,)", "(2**64,)", "(2**62, 4)", "(1,)*64", "(1,)*65", "(0,)*70", "('3',)",
          "(None,)", "3", "None", "{3}", "(3, 2**61)", "(2**31, 2**31, 0)", "(0, 2**70)",
          # literal numbers (a header is parsed as literals): dimensions past npy_intp
          "(9223372036854775808, 0)", "(0, 9223372036854775808)", "(0, 9223372036854775807)", "(9223372036854775807,)", "(9223372036854775808,)", "(0, 18446744073709551616)",
          "(2, 9223372036854775808)", str((0,) + (1,) * 64), str((1,) * 60 + (0,) * 5)]
TEXTS = {
    "py2 long ints": "{'descr': '<f8', 'fortran_order': False, 'shape': (3L,), }",
    "py2 long in descr": "{'descr': [('a', '<f8', (2L,))], 'fortran_order': False, 'shape': (3L,), }",
    "py2 broken": "{'descr': '<f8', 'fortran_order': False, 'shape': (3L,",
    "unterminated": "{'descr': '<f8', 'fortran_order': False, 'shape': (3,",
    "trailing garbage": GOOD + " x",
    "comment": GOOD + " # comment",
    "null byte": GOOD + "\0",
    "missing key": "{'descr': '<f8', 'shape': (3,)}",
    "extra key": "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'x': 1}",
    "duplicate key": "{'descr': '<i1', 'descr': '<f8', 'fortran_order': False, 'shape': (3,)}",
    "not a dict": "[1, 2, 3]",
    "set": "{1, 2}",
    "unhashable key": "{[]: 1}",
    "call": "__import__('os').system('true')",
    "name": "{'descr': f8, 'fortran_order': False, 'shape': (3,)}",
    "lambda": "(lambda: 1)()",
    "deep parens": "(" * 150 + ")" * 150,
    "deep lists": "{'descr': " + "[" * 95 + "]" * 95 + ", 'fortran_order': False, 'shape': (3,)}",
    "empty": "",
    "spaces only": "   ",
    "int keys": "{1: 2}",
    "bytes keys": "{b'descr': '<f8', b'fortran_order': False, b'shape': (3,)}",
    "latin1 name": "{'descr': [('\u00e9', '<f8')], 'fortran_order': False, 'shape': (3,)}",
    "indent": "  " + GOOD,
    "tab indent": "\t" + GOOD,
}


def npy_corpus() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    small = np.arange(6.0).reshape(2, 3)
    for v in ((1, 0), (2, 0), (3, 0)):
        good = _real_npy(small, v)
        for cut in sorted({0, 1, 5, 6, 7, 8, 9, 10, 11, 12, 20, 60, len(good) - 49, len(good) - 1}):
            out[f"v{v[0]} cut {cut}"] = good[:cut]
        out[f"v{v[0]} good"] = good
        out[f"v{v[0]} extra data"] = good + b"\0" * 9
        out[f"v{v[0]} fortran"] = _real_npy(np.asfortranarray(small), v)
    for ver in [(0, 0), (1, 1), (4, 0), (255, 255), (2, 1), (3, 1)]:
        out[f"version {ver}"] = npy(GOOD, (1, 0), 24)[:6] + bytes(ver) + npy(GOOD, (1, 0), 24)[8:]
    out["bad magic"] = b"\x93NUMPZ" + npy(GOOD, data=24)[6:]
    out["lowercase magic"] = b"\x93numpy" + npy(GOOD, data=24)[6:]
    out["pickle"] = b"\x80\x04K\x01."
    out["text"] = b"hello world, not an array"
    out["empty file"] = b""
    out["one byte"] = b"\x93"
    for d in DESCRS:
        for v in ((1, 0), (3, 0)):
            out[f"descr {d} v{v[0]}"] = npy(_hdr(descr=d), v, 96)
    for o in ORDERS:
        out[f"order {o}"] = npy(_hdr(order=o), data=24)
    for s in SHAPES:
        out[f"shape {s}"] = npy(_hdr(shape=s), data=24)
        out[f"shape {s} F"] = npy(_hdr(shape=s, order="True"), data=24)
        out[f"shape {s} no data"] = npy(_hdr(shape=s))
    for k, t in TEXTS.items():
        for v in ((1, 0), (2, 0), (3, 0)):
            out[f"text {k} v{v[0]}"] = npy(t, v, 24)
    for n in (0, 23, 24, 25, 1000):
        out[f"data {n} bytes"] = npy(GOOD, data=n)
    out["object array"] = _real_npy(np.array([{"a": 1}, None], dtype=object))
    out["object field"] = npy(_hdr(descr="[('a', 'O')]", shape="(1,)"), data=8)
    for n in (9_900, 10_000, 10_001, 20_000, 70_000):
        pad = " " * max(0, n - len(GOOD) - 1)
        for v in ((1, 0), (2, 0), (3, 0)):
            if v == (1, 0) and n >= 65_535:
                continue
            out[f"header {n} chars v{v[0]}"] = npy(GOOD + pad + "\n", v, 24, pad=False)
    multi = GOOD[:-1] + "'\u00e9\u00e9': 1}"  # 2 bytes per char in UTF-8: counted in characters
    out["v3 utf8 extra key"] = npy(multi, (3, 0), 24)
    out["v3 utf8 header 9999 chars in 19000 bytes"] = npy(
        _hdr(descr="[('" + "\u00e9" * 9_900 + "', '<f8')]") + " " * 2, (3, 0), 24, pad=False)
    out["v3 invalid utf8"] = npy(b"{'descr': '\xff\xfe', 'fortran_order': False, 'shape': (3,)}",
                                 (3, 0), 24)
    out["v1 header length past end"] = b"\x93NUMPY\x01\x00\xff\xff{}"
    out["v2 header length 4GB"] = b"\x93NUMPY\x02\x00\xff\xff\xff\xff{}"
    out["v1 header length 0"] = b"\x93NUMPY\x01\x00\x00\x00" + b"\0" * 24
    out["huge but short"] = npy(_hdr(shape="(2**50,)"), data=24)  # allocation-dependent in NumPy
    return out


# --- .npz ----------------------------------------------------------------------------------

def _zip(members: list, compression=zipfile.ZIP_STORED, **kw) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w", compression) as zf:
        warnings.simplefilter("ignore")  # duplicate names are on purpose
        for m in members:
            name, data = m[:2]
            zi = zipfile.ZipInfo(name) if isinstance(name, str) else name
            zi.compress_type = compression
            with zf.open(zi, "w", force_zip64=kw.get("zip64", False)) as f:
                f.write(data)
    return buf.getvalue()


def _patch(data: bytes, marker: bytes, offset: int, value: bytes, nth: int = 0) -> bytes:
    """data with ``value`` written at ``offset`` past the nth occurrence of ``marker``."""
    i = -1
    for _ in range(nth + 1):
        i = data.index(marker, i + 1)
    j = i + offset
    return data[:j] + value + data[j + len(value):]


def npz_corpus() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    a = _real_npy(np.arange(6.0).reshape(2, 3))
    b = _real_npy(np.zeros(4, "i2"))
    npys = npy_corpus()
    pick = ["v1 good", "v1 cut 20", "shape (-1,)", "descr 'zz9' v1", "text py2 long ints v1",
            "header 10001 chars v2", "data 23 bytes", "object array", "version (4, 0)",
            "v3 invalid utf8", "shape (True, 3)", "shape (2**64,)", "text unhashable key v1",
            "text deep parens v1", "descr () v1", "text py2 broken v1", "empty file", "one byte",
            "descr [('a', [('b', '<f4')])] v3", "shape (0, 2**70) no data"]
    for k, data in npys.items():  # every .npy case as a member (stored), a few deflated too
        out[f"stored member {k}"] = _zip([("x.npy", data), ("a.npy", a)])
    for comp, cname in ((zipfile.ZIP_STORED, "stored"), (zipfile.ZIP_DEFLATED, "deflated")):
        for k in pick if comp == zipfile.ZIP_DEFLATED else ():
            out[f"{cname} member {k}"] = _zip([("x.npy", npys[k]), ("a.npy", a)], comp)
        good = _zip([("a.npy", a), ("b.npy", b)], comp)
        out[f"{cname} good"] = good
        for cut in (0, 4, 22, 30, 40, len(good) // 2, len(good) - 60, len(good) - 22, len(good) - 1):
            out[f"{cname} cut {cut}"] = good[:cut]
        out[f"{cname} zip64"] = _zip([("a.npy", a), ("b.npy", b)], comp, zip64=True)
        out[f"{cname} names"] = _zip([("a", a), ("a.npy", b), ("b.npy", a), ("b.npy", b),
                                      ("dir/c.npy", a), ("note.txt", b"hello"),
                                      ("half.npy", b"\x93NUM"), ("\u00e9\u65e5.npy", a)], comp)
        out[f"{cname} empty member"] = _zip([("e.npy", b"")], comp)
        # directory fields: sizes, counts, offsets, magic, name mismatch, flags, method
        cd = b"PK\x01\x02"
        for field, off, val in [("cd file_size small", 24, struct.pack("<I", 100)),
                                ("cd file_size large", 24, struct.pack("<I", 10**6)),
                                ("cd compress_size", 20, struct.pack("<I", 10)),
                                ("cd local offset", 42, struct.pack("<I", 7)),
                                ("cd local offset past end", 42, struct.pack("<I", 10**6)),
                                ("cd method 99", 10, struct.pack("<H", 99)),
                                ("cd method bzip2", 10, struct.pack("<H", 12)),
                                ("cd encrypted", 8, struct.pack("<H", 1)),
                                ("cd utf8 flag", 8, struct.pack("<H", 0x800)),
                                ("cd name length", 28, struct.pack("<H", 200)),
                                ("cd bad magic", 0, b"PK\x01\x03")]:
            out[f"{cname} {field}"] = _patch(good, cd, off, val)
        lh = b"PK\x03\x04"
        for field, off, val in [("local bad magic", 0, b"PK\x03\x05"),
                                ("local name differs", 30, b"z"),
                                ("local name length", 26, struct.pack("<H", 3)),
                                ("local extra length", 28, struct.pack("<H", 60000)),
                                ("local method", 8, struct.pack("<H", 99))]:
            out[f"{cname} {field}"] = _patch(good, lh, off, val)
        eocd = b"PK\x05\x06"
        for field, off, val in [("eocd count", 10, struct.pack("<H", 5)),
                                ("eocd cd size", 12, struct.pack("<I", 10)),
                                ("eocd cd offset", 16, struct.pack("<I", 3)),
                                ("eocd comment length", 20, struct.pack("<H", 10))]:
            out[f"{cname} {field}"] = _patch(good, eocd, off, val)
        out[f"{cname} trailing junk"] = good + b"junk" * 5
        out[f"{cname} leading junk"] = b"PK\x03\x04junk" + good
    out["empty zip"] = b"PK\x05\x06" + b"\0" * 18
    out["empty zip short"] = b"PK\x05\x06" + b"\0" * 10
    out["zip magic only"] = b"PK\x03\x04"
    out["zip magic zeros"] = b"PK\x03\x04" + b"\0" * 40
    # a name that is not UTF-8 although flagged as UTF-8
    raw = _zip([("\u00e9.npy", a)])
    out["invalid utf8 name"] = raw.replace("\u00e9".encode(), b"\xff\xfe")
    return out


# --- .safetensors --------------------------------------------------------------------------

T = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


def st(header: dict | bytes | str, data: bytes | int = 0) -> bytes:
    h = header if isinstance(header, bytes) else (
        header.encode() if isinstance(header, str) else json.dumps(header).encode())
    body = data if isinstance(data, bytes) else b"\0" * data
    return struct.pack("<Q", len(h)) + h + body


def st_corpus() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    good = st({"a": T, "b": {**T, "data_offsets": [8, 16]}, "__metadata__": {"k": "v"}}, 16)
    out["good"] = good
    for cut in (0, 1, 7, 8, 9, 20, len(good) - 17, len(good) - 16, len(good) - 1):
        out[f"cut {cut}"] = good[:cut]
    out["extra byte"] = good + b"\0"
    out["header length huge"] = struct.pack("<Q", 2**63) + b"{}"
    out["header length 100000001"] = struct.pack("<Q", 100_000_001) + b"{}"
    out["header length past end"] = struct.pack("<Q", 10**6) + b"{}"
    out["empty header"] = st(b"")
    out["empty object"] = st({})
    out["whitespace"] = st(b"  {}  \n")
    out["trailing nul"] = st(b"{} \0")
    out["bom"] = st(b"\xef\xbb\xbf{}")
    out["invalid utf8"] = st(b'{"\xff": 1}')
    out["not json"] = st(b"{abc}")
    out["array"] = st([])
    out["number"] = st(b"5")
    out["null"] = st(b"null")
    out["string"] = st(b'"x"')
    for dt in ["BOOL", "U8", "I8", "U16", "I16", "U32", "I32", "U64", "I64", "F16", "F32",
               "F64", "C64", "C128", "BF16", "F8_E4M3", "F8_E5M2", "F4", "F6_E2M3", "Q99",
               "f32", "", "F8_E8M0"]:
        out[f"dtype {dt}"] = st({"a": {**T, "dtype": dt, "shape": [8], "data_offsets": [0, 16]}}, 16)
        out[f"dtype {dt} one byte"] = st({"a": {**T, "dtype": dt, "shape": [2], "data_offsets": [0, 1]}}, 1)
    out["dtype as map"] = st({"a": {**T, "dtype": {"F32": None}}}, 8)
    out["dtype as map 1"] = st({"a": {**T, "dtype": {"F32": 1}}}, 8)
    out["dtype as list"] = st({"a": {**T, "dtype": ["F32"]}}, 8)
    out["dtype number"] = st({"a": {**T, "dtype": 3}}, 8)
    for s in ([2], [1, 2], [], [0], [2.0], [-2], [-0], ["2"], [None], 2, None, {},
              [2**64], [2**63, 2], [2**62, 2**3], [2**61, 2], [2**64 - 1, 0], [True]):
        key = json.dumps(s)
        out[f"shape {key}"] = st({"a": {**T, "shape": s}}, 8)
    out["shape -0 raw"] = st(b'{"a": {"dtype": "F32", "shape": [-0], "data_offsets": [0, 0]}}')
    out["shape 2e0 raw"] = st(b'{"a": {"dtype": "F32", "shape": [2e0], "data_offsets": [0, 8]}}')
    for o in ([0, 8], [0, 8, 9], [0], [8, 0], [-1, 7], [0.0, 8], [0, 2**64], {"0": 0, "1": 8},
              None, [1, 9], [0, 2**64 + 8]):
        out[f"offsets {json.dumps(o)}"] = st({"a": {**T, "data_offsets": o}}, 9)
    out["missing dtype"] = st({"a": {"shape": [2], "data_offsets": [0, 8]}}, 8)
    out["missing shape"] = st({"a": {"dtype": "F32", "data_offsets": [0, 8]}}, 8)
    out["extra field"] = st({"a": {**T, "extra": [[1], {"x": None}]}}, 8)
    out["entry as list"] = st({"a": ["F32", [2], [0, 8]]}, 8)
    out["entry as short list"] = st({"a": ["F32", [2]]}, 8)
    out["entry as long list"] = st({"a": ["F32", [2], [0, 8], 1]}, 8)
    out["entry number"] = st({"a": 5}, 8)
    out["duplicate field"] = st(b'{"a": {"dtype": "F32", "dtype": "F32", "shape": [2], '
                                b'"data_offsets": [0, 8]}}', 8)
    out["duplicate tensor last wins"] = st(
        b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, '
        b'"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}', 4)
    out["duplicate tensor first fits"] = st(
        b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, '
        b'"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}', 8)
    out["duplicate metadata"] = st(b'{"__metadata__": {}, "__metadata__": {}}')
    out["duplicate metadata key"] = st(b'{"__metadata__": {"k": "1", "k": "2"}}')
    for m in ({}, {"k": "v"}, {"k": 1}, {"k": None}, {"k": ["v"]}, [], "x", None, 3):
        out[f"metadata {json.dumps(m)}"] = st({"__metadata__": m, "a": T}, 8)
    out["gap"] = st({"a": T, "b": {**T, "data_offsets": [12, 20]}}, 20)
    out["overlap"] = st({"a": T, "b": {**T, "data_offsets": [4, 12]}}, 12)
    out["same offsets"] = st({"a": T, "b": T}, 8)
    out["zero-size same offsets"] = st({"a": {**T, "shape": [0], "data_offsets": [0, 0]},
                                        "b": {**T, "shape": [0], "data_offsets": [0, 0]}})
    out["zero-size between"] = st({"a": T, "z": {**T, "shape": [0], "data_offsets": [8, 8]},
                                   "b": {**T, "data_offsets": [8, 16]}}, 16)
    out["out of order"] = st({"b": {**T, "data_offsets": [8, 16]}, "a": T}, 16)
    out["not from zero"] = st({"a": {**T, "data_offsets": [4, 12]}}, 12)
    out["short data"] = st({"a": T}, 7)
    out["long data"] = st({"a": T}, 9)
    out["NaN"] = st(b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": NaN}}', 8)
    out["inf"] = st(b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": 1e400}}', 8)
    out["big float"] = st(b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": 1e300}}', 8)
    out["lone surrogate name"] = st(b'{"a\\ud800": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}', 8)
    out["surrogate pair name"] = st(b'{"a\\ud83d\\ude00": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}', 8)
    out["lone surrogate extra"] = st(b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": "\\udc00"}}', 8)
    out["control char"] = st(b'{"a\x01": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}', 8)
    out["bad escape"] = st(b'{"a\\q": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}', 8)
    out["escape name"] = st({"\x1b[31mred": T}, 8)
    out["empty name"] = st({"": T}, 8)
    for d in (125, 126, 127, 200, 3000):  # the object and the entry add two levels
        out[f"depth {d}"] = st('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], '
                               '"x": ' + "[" * d + "]" * d + "}}", 8)
    out["leading zero"] = st(b'{"a": {"dtype": "F32", "shape": [02], "data_offsets": [0, 8]}}', 8)
    out["trailing comma"] = st(b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},}', 8)
    out["single quotes"] = st(b"{'a': 1}")
    out["huge count"] = st({"a": {**T, "shape": [2**40], "data_offsets": [0, 2**42]}}, 8)
    return out
