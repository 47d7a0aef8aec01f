"""ft.load / np.load in FakeMode vs real np.load; corrupt headers; fuzzing; the inspector."""
from __future__ import annotations

import io
import mmap
import json
import struct
import sys
import time
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import faketensor as ft
import file_oracle
import hostile_files

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
        same(real.f.b, fz.f.b)
        with pytest.raises(AttributeError):
            fz.f.nope
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


@pytest.mark.parametrize("name,ml_name", [("BF16", "bfloat16"), ("F8_E4M3", "float8_e4m3fn"),
                                          ("F8_E5M2", "float8_e5m2"), ("F8_E8M0", "float8_e8m0fnu")])
def test_safetensors_ml_dtypes(tmp_path, monkeypatch, name, ml_name):
    """bfloat16 and float8 tensors load as ml_dtypes' NumPy dtypes; without the package the
    refusal names the extra that brings it."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    p = tmp_path / "m.safetensors"
    nbytes = 2 if name == "BF16" else 1
    h = json.dumps({"w": {"dtype": name, "shape": [3, 4], "data_offsets": [0, 12 * nbytes]}}).encode()
    p.write_bytes(struct.pack("<Q", len(h)) + h + b"\0" * (12 * nbytes))
    f = ft.load(p)["w"]
    real = np.zeros((3, 4), getattr(ml_dtypes, ml_name))
    assert (f.shape, f.dtype, f.strides) == (real.shape, real.dtype, real.strides)
    assert f.flags.c_contiguous and f.flags.owndata
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # import ml_dtypes raises ImportError
    with pytest.raises(ft.UnsupportedOperationError, match=r"faketensor\[ml_dtypes\]"):
        ft.load(p)


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
    """ft.load never unpickles; np.load(allow_pickle=True) in a mode unpickles as the program
    asks (modes/loading.py), its arrays made fakes (tests/modes/test_loaded_data.py)."""
    p = tmp_path / "o.npy"
    np.save(p, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="allow_pickle=False"):
        ft.load(p)
    with pytest.raises(ft.UnsupportedOperationError, match="never unpickles"):
        ft.load(p, allow_pickle=True)
    with ft.FakeMode():
        got = np.load(p, allow_pickle=True)  # NumPy unpickles: the shape is in the pickle
    assert got.dtype == object and got.shape == (2,) and got[0] == {"a": 1}
    p2 = tmp_path / "plain.pkl"
    import pickle
    p2.write_bytes(pickle.dumps([1, 2, 3]))
    with ft.FakeMode(), pytest.raises(ValueError, match="pickled"):
        np.load(p2)
    with ft.FakeMode():
        assert np.load(p2, allow_pickle=True) == [1, 2, 3]


# --- hostile files: accepted and refused exactly as np.load / the safetensors library -------

NPY_CORPUS = hostile_files.npy_corpus()
NPZ_CORPUS = hostile_files.npz_corpus()
ST_CORPUS = hostile_files.st_corpus()
NPY_VARIANTS = [{}, {"mmap_mode": "r"}, {"mmap_mode": "r+"}, {"max_header_size": 50_000},
                {"max_header_size": 100}, {"allow_pickle": True}]


def _loaders():
    return (("ft.load", ft.load), ("np.load in FakeMode", file_oracle.in_mode_np_load))


@pytest.mark.parametrize("case", list(NPY_CORPUS))
def test_hostile_npy(tmp_path, case):
    p = tmp_path / "f.npy"
    data = NPY_CORPUS[case]
    for kw in NPY_VARIANTS:
        if kw.get("allow_pickle") and (b"O'" in data or data[:6] != b"\x93NUMPY"):
            continue  # NumPy would unpickle (the fake refuses: test_object_npy_never_unpickled)
        p.write_bytes(data)  # "r+" may extend a short file
        real = file_oracle.real_np_load(str(p), **kw)
        for name, loader in _loaders():
            p.write_bytes(data)
            fake = file_oracle.fake_load(loader, str(p), **kw)
            msg = file_oracle.compare(real, fake, f"{case} {kw} {name}")
            assert msg is None, msg


@pytest.mark.parametrize("case", list(NPZ_CORPUS))
def test_hostile_npz(tmp_path, case):
    p = tmp_path / "f.npz"
    p.write_bytes(NPZ_CORPUS[case])
    for kw in ({}, {"max_header_size": 50_000}):
        real = file_oracle.real_np_load(str(p), **kw)
        for name, loader in _loaders():
            msg = file_oracle.compare(real, file_oracle.fake_load(loader, str(p), **kw),
                                      f"{case} {kw} {name}")
            assert msg is None, msg


@pytest.mark.parametrize("case", list(ST_CORPUS))
def test_hostile_safetensors(tmp_path, case):
    pytest.importorskip("safetensors")
    p = tmp_path / "f.safetensors"
    p.write_bytes(ST_CORPUS[case])
    msg = file_oracle.compare_safetensors(file_oracle.real_safetensors(str(p)),
                                          file_oracle.fake_safetensors(str(p)), case)
    assert msg is None, msg


def test_corpus_size_and_verdicts():
    """The corpus holds about a thousand files, and real readers both accept and refuse."""
    assert len(NPY_CORPUS) * len(NPY_VARIANTS) + len(NPZ_CORPUS) + len(ST_CORPUS) > 1000
    ok = sum(file_oracle.real_np_load(io.BytesIO(d))[0][0] == "ok" for d in NPY_CORPUS.values())
    assert 30 < ok < len(NPY_CORPUS) - 100


def test_max_header_size(tmp_path):
    p = tmp_path / "h.npy"
    p.write_bytes(NPY_CORPUS["header 10001 chars v2"])
    for kw in ({}, {"mmap_mode": "r"}):
        with pytest.raises(ValueError, match="max_header_size"):
            ft.load(p, **kw)
        with ft.FakeMode(), pytest.raises(ValueError, match="max_header_size"):
            np.load(p, **kw)
        assert ft.load(p, max_header_size=10_001, **kw).shape == (3,)
        with ft.FakeMode():
            assert np.load(p, allow_pickle=True, **kw).shape == (3,)  # trusted: no limit
    z = tmp_path / "h.npz"
    z.write_bytes(NPZ_CORPUS["stored member header 10001 chars v2"])
    with ft.load(z) as fz, pytest.raises(ValueError, match="max_header_size"):
        fz["x"]
    with ft.load(z, max_header_size=20_000) as fz:
        assert fz["x"].shape == (3,)


def test_python2_header_warns_as_numpy(tmp_path):
    p = tmp_path / "py2.npy"
    p.write_bytes(NPY_CORPUS["text py2 long ints v1"])
    with pytest.warns(UserWarning, match="Python 2"):
        assert ft.load(p).shape == (3,)


def test_mmap_mode_arguments_as_numpy(tmp_path):
    p = tmp_path / "a.npy"
    np.save(p, np.zeros(3))
    opened: list = []

    def open_file():
        opened.append(open(p, "rb"))
        return opened[-1]
    cases = [open_file, lambda: io.BytesIO(p.read_bytes())]
    for make in cases:
        real = file_oracle.outcome(lambda: np.load(make(), mmap_mode="r"))[0][1]
        for _, loader in _loaders():
            fake = file_oracle.outcome(lambda: loader(make(), mmap_mode="r"))[0][1]
            assert isinstance(real, Exception) and type(fake) is type(real), (real, fake)
    for f in opened:
        f.close()
    for mode in ("x", "rw"):
        real = file_oracle.outcome(lambda: np.load(p, mmap_mode=mode))[0][1]
        fake = file_oracle.outcome(lambda: ft.load(p, mmap_mode=mode))[0][1]
        assert type(fake) is type(real) is ValueError
    with ft.FakeMode(), pytest.raises(ft.UnsupportedOperationError, match="new header"):
        np.load(p, mmap_mode="w+")  # NumPy would overwrite the file's header
    assert np.load(p).shape == (3,)


# --- .npz member lookup is one dict probe ------------------------------------------------

class _CountingKey(str):
    """A str that counts the equality tests made against it (a list search makes n)."""

    compares = 0

    def __eq__(self, other):
        _CountingKey.compares += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_npz_lookup_is_linear(tmp_path):
    n = 4000  # 40,000 members behave the same; benchmarks/bench_files.py times them
    one = io.BytesIO()
    np.save(one, np.zeros(2, "f4"))
    p = tmp_path / "many.npz"
    with zipfile.ZipFile(p, "w") as zf:
        for i in range(n):
            zf.writestr(f"m{i}.npy", one.getvalue())
    with ft.load(p) as fz:
        _CountingKey.compares = 0
        for i in range(0, n, 7):
            assert _CountingKey(f"m{i}") in fz
            assert fz.info(_CountingKey(f"m{i}")).shape == (2,)
        # a list search would compare each key with ~n/2 names; a dict probe with about one
        assert _CountingKey.compares < 4 * (n // 7 + 1)
        assert [k for k in fz][:3] == ["m0", "m1", "m2"] and len(fz) == n


# --- fuzzing: random bytes are accepted or refused as the real readers decide --------------

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


def _bytes_loader(loader):
    return lambda data, **kw: loader(io.BytesIO(data), **kw)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.binary(max_size=200), edits.map(lambda e: _mutate(_valid_npy(), e)),
                 st.integers(0, 150).map(lambda n: _valid_npy()[:n])))
def test_fuzz_npy(data):
    real = file_oracle.real_np_load(io.BytesIO(data))
    for name, loader in _loaders():
        if data[:6] != b"\x93NUMPY" and data[:4] not in (b"PK\x03\x04", b"PK\x05\x06") \
                and name == "ft.load":
            continue  # ft.load reads any other file as .safetensors
        fake = file_oracle.fake_load(_bytes_loader(loader), data)
        msg = file_oracle.compare(real, fake, f"{data!r:.80} {name}")
        assert msg is None, msg


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.binary(max_size=200), edits.map(lambda e: _mutate(_valid_st(), e)),
                 st.integers(0, 120).map(lambda n: _valid_st()[:n])))
def test_fuzz_safetensors(tmp_path_factory, data):
    pytest.importorskip("safetensors")
    if data[:6] == b"\x93NUMPY" or data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return
    p = tmp_path_factory.mktemp("st") / "f.safetensors"
    p.write_bytes(data)
    msg = file_oracle.compare_safetensors(file_oracle.real_safetensors(str(p)),
                                          file_oracle.fake_safetensors(str(p)), repr(data)[:80])
    assert msg is None, msg


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
    real = file_oracle.real_np_load(io.BytesIO(data))
    for name, loader in _loaders():
        fake = file_oracle.fake_load(_bytes_loader(loader), data)
        msg = file_oracle.compare(real, fake, f"{e} {cut} {name}")
        assert msg is None, msg


# --- memory: loads allocate, memory maps and converted arrays do not -----------------------

def test_loads_charge_what_numpy_allocates(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros((100, 100)))
    np.savez(tmp_path / "b.npz", x=np.zeros(1000), y=np.zeros(10, "f4"))
    with ft.FakeMode(record=True) as m:
        a = np.load(tmp_path / "a.npy")
        assert m.memory.live["cpu"] == 80_000
        z = np.load(tmp_path / "b.npz")
        x = z["x"]  # NpzFile[key] reads the member into a new array
        assert m.memory.live["cpu"] == 88_000
        mm = np.load(tmp_path / "a.npy", mmap_mode="r")
        v = mm[1:] + 0  # the map itself is not an allocation; the sum is
        assert m.memory.live["cpu"] == 88_000 + v.nbytes
        z.close()
    ops = [e.op for e in m.trace]
    assert ops[:3] == ["np.load", "np.load", "NpzFile.__getitem__"]
    assert mm.storage._tracker is ft.meta_utils.convert.files.MAPPED
    assert mm.storage._tracker.kind == "mapped" and a.storage._tracker is m.memory
    del a, x
    assert m.memory.live["cpu"] == v.nbytes
