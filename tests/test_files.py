"""ft.load / np.load in FakeMode vs real np.load; corrupt headers; fuzzing; the inspector."""
from __future__ import annotations

import io
import mmap
import json
import os
import struct
import time
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import faketensor as ft
from faketensor.meta_utils.headers import npy_header, safetensors_header

FLAG_NAMES = ("c_contiguous", "f_contiguous", "writeable", "owndata", "aligned")


def same(real, fake):
    assert ft.is_fake(fake)
    assert (fake.shape, fake.dtype, fake.strides) == (real.shape, real.dtype, real.strides)
    for fl in FLAG_NAMES:
        assert getattr(fake.flags, fl) == getattr(real.flags, fl), fl
    assert (fake.base is None) == (real.base is None)


SHAPES = [(), (0,), (1,), (5,), (3, 4), (0, 3), (3, 0), (2, 1, 3), (2, 3, 4), (1, 1)]
DTYPES = ["<f8", ">i4", "u1", "?", "<c16", "U3", "S2", "<M8[s]",
          [("a", "<i4"), ("b", "<f8")], [("x", "<f4", (2,))]]


def _arr(shape, dtype, order):
    a = np.zeros(shape, dtype=np.dtype(dtype) if isinstance(dtype, str) else np.dtype(dtype))
    return np.asfortranarray(a) if order == "F" else a


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
@pytest.mark.parametrize("order", "CF")
@pytest.mark.parametrize("shape", SHAPES)
def test_npy_matches_np_load(tmp_path, shape, order, version):
    p = tmp_path / "x.npy"
    for dtype in DTYPES:
        a = _arr(shape, dtype, order)
        with open(p, "wb") as fp:
            np.lib.format.write_array(fp, a, version=version)
        real = np.load(p)
        same(real, ft.load(p))
        with ft.FakeMode():
            f = np.load(p)
        same(real, f)
        for mode in ("r", "r+", "c"):
            rm = np.load(p, mmap_mode=mode)
            with ft.FakeMode():
                fm = np.load(str(p), mmap_mode=mode)
            same(rm, fm)
            assert fm.storage_offset == rm.offset % mmap.ALLOCATIONGRANULARITY
            del rm


def test_fortran_header_flag_is_honoured(tmp_path):
    p = tmp_path / "f.npy"
    np.save(p, np.asfortranarray(np.ones((3, 5), "f4")))
    f = ft.load(p)
    assert f.strides == (4, 12) and f.flags.f_contiguous and not f.flags.owndata


def test_file_object_position(tmp_path):
    p = tmp_path / "two.npy"
    with open(p, "wb") as fp:
        np.save(fp, np.ones((2, 3)))
        np.save(fp, np.zeros(7, "i2"))
    with open(p, "rb") as fp:
        a = ft.load(fp)
        b = ft.load(fp)
    assert a.shape == (2, 3) and b.shape == (7,) and b.dtype == np.int16


@pytest.mark.parametrize("compress", [False, True])
def test_npz_lazy_mapping(tmp_path, compress):
    p = tmp_path / "z.npz"
    arrays = {"a": np.arange(5), "b": np.asfortranarray(np.ones((2, 3))), "c": np.zeros((0, 2), "U4"),
              "d": np.float32(3)}
    (np.savez_compressed if compress else np.savez)(p, **arrays)
    real = np.load(p)
    with ft.load(p) as fz:
        assert sorted(fz.files) == sorted(real.files) and len(fz) == 4 and "a" in fz
        for k in real.files:
            same(real[k], fz[k])
        with pytest.raises(KeyError):
            fz["nope"]
    with ft.FakeMode():
        fz2 = np.load(p)
    same(real["b"], fz2["b"])
    fz2.close()
    real.close()


def _write_safetensors(path, tensors: dict, meta=None, header_override=None):
    header, blobs, off = {}, [], 0
    names = {np.dtype("f4"): "F32", np.dtype("f8"): "F64", np.dtype("i8"): "I64",
             np.dtype("u1"): "U8", np.dtype("?"): "BOOL", np.dtype("f2"): "F16"}
    for k, v in tensors.items():
        b = np.ascontiguousarray(v).tobytes()
        header[k] = {"dtype": names[v.dtype], "shape": list(v.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    if meta is not None:
        header["__metadata__"] = meta
    if header_override is not None:
        header = header_override
    h = json.dumps(header).encode()
    with open(path, "wb") as fp:
        fp.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def test_safetensors(tmp_path):
    p = tmp_path / "m.safetensors"
    ts = {"w": np.ones((3, 4), "f4"), "b": np.zeros(4, "f8"), "e": np.zeros((0, 2), "i8"),
          "s": np.array(1, "u1"), "m": np.ones((2, 2), "?"), "h": np.ones(3, "f2")}
    _write_safetensors(p, ts, meta={"format": "np"})
    out = ft.load(p)
    assert out.metadata == {"format": "np"}
    for k, v in ts.items():
        f = out[k]
        assert (f.shape, f.dtype, f.strides) == (v.shape, v.dtype, v.strides), k
        assert f.flags.c_contiguous and f.flags.owndata


def test_sparse_20gb_header_only(tmp_path):
    p = tmp_path / "big.npy"
    shape = (50_000, 50_000)  # 20 GB of float64
    hdr = io.BytesIO()
    np.lib.format.write_array_header_1_0(hdr, {"descr": "<f8", "fortran_order": False, "shape": shape})
    with open(p, "wb") as fp:
        fp.write(hdr.getvalue())
        fp.truncate(len(hdr.getvalue()) + 8 * shape[0] * shape[1])
    t = time.perf_counter()
    f = ft.load(p)
    fm = ft.load(p, mmap_mode="r")
    assert time.perf_counter() - t < 0.5
    assert f.shape == shape and f.nbytes == 20_000_000_000 and not fm.flags.writeable
    with ft.FakeMode() as m:
        g = np.load(p)
    assert g.nbytes == 20_000_000_000 and m.memory.peak["cpu"] >= g.nbytes


def test_object_npy_never_unpickled(tmp_path):
    p = tmp_path / "o.npy"
    np.save(p, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="pickled"):
        ft.load(p)
    p2 = tmp_path / "plain.pkl"
    import pickle
    p2.write_bytes(pickle.dumps([1, 2, 3]))
    with ft.FakeMode(), pytest.raises(ValueError, match="pickled"):
        np.load(p2)


def _npy_bytes(header: bytes, version=1, data=b"") -> bytes:
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(header)) + header + data


BAD_NPY = {
    "wrong magic": b"\x93NUMPZ\x01\x00\x10\x00" + b" " * 16,
    "short": b"\x93NUM",
    "version": b"\x93NUMPY\x09\x00\x10\x00" + b" " * 16,
    "header past end": b"\x93NUMPY\x01\x00\xff\xff{}",
    "huge v2 header": b"\x93NUMPY\x02\x00\xff\xff\xff\xff{}",
    "not a dict": _npy_bytes(b"[1, 2, 3]\n"),
    "eval attempt": _npy_bytes(b"__import__('os').system('echo hi')\n"),
    "missing key": _npy_bytes(b"{'descr': '<f8', 'shape': (3,)}\n", data=b"\0" * 24),
    "negative": _npy_bytes(b"{'descr': '<f8', 'fortran_order': False, 'shape': (-3,)}\n"),
    "absurd": _npy_bytes(b"{'descr': '<f8', 'fortran_order': False, 'shape': (2**62, 2**62)}\n"),
    "too many dims": _npy_bytes(b"{'descr': '<f8', 'fortran_order': False, 'shape': (1,)*65}\n"),
    "float shape": _npy_bytes(b"{'descr': '<f8', 'fortran_order': False, 'shape': (3.0,)}\n"),
    "bad descr": _npy_bytes(b"{'descr': 'zz9', 'fortran_order': False, 'shape': (3,)}\n"),
    "bad order": _npy_bytes(b"{'descr': '<f8', 'fortran_order': 1, 'shape': (3,)}\n"),
    "truncated data": _npy_bytes(b"{'descr': '<f8', 'fortran_order': False, 'shape': (30,)}\n",
                                 data=b"\0" * 16),
    "deep nesting": _npy_bytes(b"{'descr': " + b"[" * 5000 + b"]" * 5000 + b"}"),
    "bad utf8 v3": _npy_bytes(b"{'descr': '\xff\xfe'}", version=3),
    "pickled objects": _npy_bytes(b"{'descr': '|O', 'fortran_order': False, 'shape': (1,)}\n",
                                  data=b"\0" * 8),
}


@pytest.mark.parametrize("case", sorted(BAD_NPY))
def test_bad_npy_headers(tmp_path, case):
    p = tmp_path / f"bad.npy"
    p.write_bytes(BAD_NPY[case])
    with pytest.raises(ValueError) as ei:
        ft.load(p)
    assert str(p) in str(ei.value)


BAD_SAFETENSORS = {
    "header past end": struct.pack("<Q", 10**6) + b"{}",
    "not json": struct.pack("<Q", 5) + b"{abc}",
    "not an object": struct.pack("<Q", 2) + b"[]",
    "overlap": None, "past end": None, "wrong size": None, "bad dtype": None, "negative": None,
}


def _st_case(tmp_path, case):
    p = tmp_path / "bad.safetensors"
    if BAD_SAFETENSORS[case] is not None:
        p.write_bytes(BAD_SAFETENSORS[case])
        return p
    spec = {
        "overlap": {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                    "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}},
        "past end": {"a": {"dtype": "F32", "shape": [100], "data_offsets": [0, 400]}},
        "wrong size": {"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}},
        "bad dtype": {"a": {"dtype": "Q99", "shape": [2], "data_offsets": [0, 8]}},
        "negative": {"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}},
    }[case]
    h = json.dumps(spec).encode()
    p.write_bytes(struct.pack("<Q", len(h)) + h + b"\0" * 16)
    return p


@pytest.mark.parametrize("case", sorted(BAD_SAFETENSORS))
def test_bad_safetensors(tmp_path, case):
    p = _st_case(tmp_path, case)
    with pytest.raises(ValueError) as ei:
        ft.load(p)
    assert str(p) in str(ei.value)


def test_bad_npz(tmp_path):
    p = tmp_path / "bad.npz"
    p.write_bytes(b"PK\x03\x04" + b"\0" * 40)
    with pytest.raises(ValueError, match="bad.npz"):
        ft.load(p)
    p2 = tmp_path / "member.npz"
    with zipfile.ZipFile(p2, "w") as zf:
        zf.writestr("a.npy", BAD_NPY["negative"])
        zf.writestr("b.npy", _npy_bytes(b"{'descr': '<f8', 'fortran_order': False, 'shape': (9,)}\n"))
    z = ft.load(p2)
    with pytest.raises(ValueError, match="negative"):
        z["a"]
    with pytest.raises(ValueError, match="truncated"):
        z["b"]
    z.close()


# --- fuzzing: any bytes give a result or a ValueError, never anything else -----------

def _valid_npy() -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.zeros((3, 2), "<f4"))
    return buf.getvalue()


def _valid_st() -> bytes:
    h = json.dumps({"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}).encode()
    return struct.pack("<Q", len(h)) + h + b"\0" * 16


def _mutate(data: bytes, edits):
    b = bytearray(data)
    for pos, val in edits:
        if b:
            b[pos % len(b)] = val
    return bytes(b)


edits = st.lists(st.tuples(st.integers(0, 200), st.integers(0, 255)), max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.binary(max_size=200), edits.map(lambda e: _mutate(_valid_npy(), e)),
                 st.integers(0, 150).map(lambda n: _valid_npy()[:n])))
def test_fuzz_npy(data):
    try:
        info = npy_header(io.BytesIO(data), "fuzz.npy", len(data))
    except ValueError as e:
        assert "fuzz.npy" in str(e)
    else:
        assert info.data_offset + info.nbytes <= len(data)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.binary(max_size=200), edits.map(lambda e: _mutate(_valid_st(), e)),
                 st.integers(0, 120).map(lambda n: _valid_st()[:n])))
def test_fuzz_safetensors(data):
    try:
        infos, _ = safetensors_header(io.BytesIO(data), "fuzz.st", len(data))
    except ValueError as e:
        assert "fuzz.st" in str(e)
    else:
        for i in infos:
            assert i.data_offset + i.nbytes <= len(data)


def _valid_npz(compress: bool) -> bytes:
    buf = io.BytesIO()
    (np.savez_compressed if compress else np.savez)(buf, a=np.zeros(3), b=np.ones((2, 2), "i2"))
    return buf.getvalue()


@settings(max_examples=100, deadline=None)
@given(st.booleans(), edits, st.integers(0, 400))
def test_fuzz_npz(compress, e, cut):
    data = _mutate(_valid_npz(compress), e)
    if cut < 100:
        data = data[: len(data) - cut]
    try:
        z = ft.load(io.BytesIO(data))
        for k in list(z.files):
            try:
                z[k]
            except (ValueError, KeyError) as err:
                assert isinstance(err, ValueError) or "archive" in str(err)
    except ValueError:
        pass
