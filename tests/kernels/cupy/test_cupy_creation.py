"""CuPy creation / index-generating / file rules on CUDA fakes (kernels/cupy/creation.py),
checked against facts read from CuPy 14's source (cupy/_creation/matrix.py, from_data.py,
cupy/_indexing/generate.py, insert.py, cupy/_math/window.py, cupy/_io/npz.py); no GPU."""
import io

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import AWKWARD, c_st, cuda  # noqa: E402

I8, F8 = np.dtype(np.int64), np.dtype(np.float64)


def fresh(r, shape, dtype, dev="cuda:0"):
    dtype = np.dtype(dtype)
    return (isinstance(r, ft.FakeArray) and r.shape == tuple(shape) and r.dtype == dtype
            and r.strides == c_st(tuple(shape), dtype.itemsize) and r.base is None
            and r.fake_device == dev)


@pytest.fixture
def mode():
    with ft.FakeMode(device="cuda:0", record=True) as m:
        yield m


# --- tri / tril_indices / triu_indices: matrix.py tri, generate.py ----------------------

def test_tri(mode):
    assert fresh(cupy.tri(3), (3, 3), F8)
    assert fresh(cupy.tri(3, 5, 1, dtype=np.int8), (3, 5), np.int8)
    assert fresh(cupy.tri(0, 4, dtype=bool), (0, 4), bool)
    assert fresh(cupy.tri(2, None, -9, np.complex64), (2, 2), np.complex64)
    with pytest.raises(ValueError):
        cupy.tri(-1)
    with pytest.raises(TypeError):
        cupy.tri(2.5)
    with pytest.raises(ValueError):
        cupy.tri(2, dtype=object)


@pytest.mark.parametrize("n,k,m", [(4, 0, None), (4, 1, 6), (4, -2, 3), (5, 9, 2), (5, -9, 7),
                                   (0, 0, 3), (3, 0, 0), (1, 0, 1), (7, 3, None), (6, -1, 10)])
def test_triangle_indices_count(n, k, m):
    """The masked length is the triangle's element count (NumPy's lengths agree)."""
    want_l = len(np.tril_indices(n, k, m)[0])
    want_u = len(np.triu_indices(n, k, m)[0])
    with ft.FakeMode(device="cuda:0"):
        got = ((cupy.tril_indices(n, k, m), want_l), (cupy.triu_indices(n, k, m), want_u))
    for r, want in got:
        assert len(r) == 2 and all(fresh(x, (want,), I8) for x in r)
        assert r[0].storage is not r[1].storage


@pytest.mark.parametrize("key", ["C", "F", "T", "strided", "neg"])
def test_triangle_indices_from(key):
    x = AWKWARD[key]()[0]  # 2-d views of every layout
    n, m = x.shape
    for fn, npfn in ((cupy.tril_indices_from, np.tril_indices), (cupy.triu_indices_from,
                                                                  np.triu_indices)):
        for k in (-1, 0, 2):
            r = fn(x, k)
            assert all(fresh(a, (len(npfn(n, k, m)[0]),), I8) for a in r)


def test_triangle_errors(mode):
    with pytest.raises(ValueError):
        cupy.tril_indices_from(cuda((3,)))
    with pytest.raises(ValueError):
        cupy.triu_indices_from(cuda((2, 2, 2)))
    with pytest.raises(ValueError):
        cupy.tril_indices(-2)
    with pytest.raises(ft.UnsupportedOperationError):
        cupy.tril_indices(3, 2 ** 40)  # an int32 kernel parameter out of range


# --- diag_indices: insert.py --------------------------------------------------------------

def test_diag_indices_one_array(mode):
    r = cupy.diag_indices(5, 3)
    assert len(r) == 3 and r[0] is r[1] is r[2] and fresh(r[0], (5,), I8)
    assert mode.memory.live["cuda:0"] == 40  # one arange, counted once
    assert cupy.diag_indices(4, 0) == ()
    x = cupy.zeros((3, 3, 3))
    d = cupy.diag_indices_from(x)
    assert len(d) == 3 and d[0] is d[2] and fresh(d[0], (3,), I8)


def test_diag_indices_from_errors():
    with pytest.raises(TypeError):
        cupy.diag_indices_from(ft.empty((3, 3)))  # not a cupy.ndarray
    with pytest.raises(ValueError):
        cupy.diag_indices_from(cuda((3,)))
    with pytest.raises(ValueError):
        cupy.diag_indices_from(cuda((3, 4)))
    assert fresh(cupy.diag_indices_from(AWKWARD["T"]()[:, :2, :2].T)[0], (2,), I8)


# --- indices / ix_: generate.py -----------------------------------------------------------

def test_indices(mode):
    assert fresh(cupy.indices((2, 3)), (2, 2, 3), I8)
    assert fresh(cupy.indices((4,), np.float32), (1, 4), np.float32)
    assert fresh(cupy.indices(()), (0,), I8)
    assert fresh(cupy.indices((2, 0)), (2, 2, 0), I8)
    assert fresh(cupy.indices([2, 2], bool), (2, 2, 2), bool)  # arange of <= 2 booleans
    assert fresh(cupy.indices((3,), np.complex64), (1, 3), np.complex64)
    with pytest.raises(TypeError):
        cupy.indices((3,), bool)     # arange(3, dtype=bool)
    with pytest.raises(TypeError):
        cupy.indices((2,), sparse=True)  # CuPy has no sparse=
    with pytest.raises(TypeError):
        cupy.indices(3)
    with pytest.raises(ValueError):
        cupy.indices((2, -1))


def test_ix_views():
    a, b = cuda((4,)), cuda((6,), np.int32)[::2]
    r = cupy.ix_(a, b, a)
    assert [x.shape for x in r] == [(4, 1, 1), (1, 3, 1), (1, 1, 4)]
    assert all(x.base is not None for x in r)
    assert r[0].storage is a.storage and r[1].storage is b.storage
    assert r[1].strides[1] == 8 and r[1].dtype == np.int32
    one = cupy.ix_(a)[0]
    assert one.shape == (4,) and one.storage is a.storage and one.base is a  # _reshape: view()


def test_ix_conversions(mode):
    r = cupy.ix_([1, 2, 3], cupy.zeros(0))
    assert r[0].shape == (3, 1) and r[0].dtype == I8 and r[0].base is not None
    assert r[1].shape == (1, 0) and r[1].dtype == np.intp  # empty -> astype(intp)
    with pytest.raises(ft.DataDependentError):
        cupy.ix_(cupy.zeros(3, bool))   # nonzero
    with pytest.raises(ValueError):
        cupy.ix_(cupy.zeros((2, 2)))


# --- ravel_multi_index / unravel_index: generate.py ----------------------------------------

def test_ravel_multi_index():
    i, j = cuda((3, 1), np.int32), cuda((4,), np.int64)
    assert fresh(cupy.ravel_multi_index((i, j), (5, 6)), (3, 4), I8)
    assert fresh(cupy.ravel_multi_index((i, j), (5, 6), mode=("clip", "wrap"), order="F"),
                 (3, 4), I8)
    with pytest.raises(ft.DataDependentError):
        cupy.ravel_multi_index((i, j), (5, 6), mode="raise")
    with pytest.raises(ValueError):
        cupy.ravel_multi_index((i, j), (5, 6), mode="bad")
    with pytest.raises(ValueError):
        cupy.ravel_multi_index((i,), (5, 6))
    with pytest.raises(TypeError):
        cupy.ravel_multi_index((i, j), (5, 6.0))
    with pytest.raises(ValueError):
        cupy.ravel_multi_index((i, j), (5, 6), order="K")
    with pytest.raises(ValueError):
        cupy.ravel_multi_index((i, j), (2 ** 40, 2 ** 40))
    with pytest.raises(TypeError):
        cupy.ravel_multi_index((i, cuda((4,))), (5, 6))  # float64 -> int64 is not same_kind
    with pytest.raises(ValueError):
        cupy.ravel_multi_index((i, cuda((2, 1), np.int64)), (5, 6))  # broadcast


def test_unravel_index():
    with pytest.raises(ft.DataDependentError):
        cupy.unravel_index(cuda((3,), np.int64), (4, 5))
    with pytest.raises(TypeError):
        cupy.unravel_index(cuda((3,)), (4, 5))
    with pytest.raises(ValueError):
        cupy.unravel_index(cuda((3,), np.int64), (4, 5), order="X")


# --- mask_indices: generate.py + _ndarray_nonzero --------------------------------------------

@pytest.mark.parametrize("n,k", [(4, 0), (4, 1), (5, -2), (3, 7), (0, 0), (1, 0)])
def test_mask_indices(n, k):
    for cfn, nfn in ((cupy.triu, np.triu), (cupy.tril, np.tril)):
        want = len(np.mask_indices(n, nfn, k)[0])
        with ft.FakeMode(device="cuda:0"):
            r = cupy.mask_indices(n, cfn, k)
        assert [x.shape for x in r] == [(want,), (want,)] and r[0].dtype == I8
        assert r[0].storage is r[1].storage and r[0].base is r[1].base  # one (count, 2) buffer
        if want:
            assert r[0].strides == (16,) and r[1].storage_offset - r[0].storage_offset == 8
        assert not r[0].flags.owndata
    with ft.FakeMode(device="cuda:0"):
        with pytest.raises(ft.DataDependentError):
            cupy.mask_indices(3, lambda a, k: a > k)


# --- vander: matrix.py -------------------------------------------------------------------------

@pytest.mark.parametrize("dt,want", [(np.float32, F8), (bool, I8), (np.int8, I8), (np.uint64, F8),
                                     (np.complex64, np.complex128), (np.float64, F8)])
def test_vander(dt, want):
    x = cuda((4,), dt)
    assert fresh(cupy.vander(x), (4, 4), want)
    assert fresh(cupy.vander(x, 2, increasing=True), (4, 2), want)
    assert fresh(cupy.vander(x[::-2], 0), (2, 0), want)


def test_vander_errors(mode):
    assert fresh(cupy.vander([1, 2, 3]), (3, 3), I8)
    with pytest.raises(ValueError):
        cupy.vander(cuda((2, 2)))
    with pytest.raises(ValueError):
        cupy.vander(cuda((3,)), -1)


# --- windows: window.py --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
def test_windows(mode, name):
    fn = getattr(cupy, name)
    for M, n in ((1, 1), (0, 0), (-4, 0), (7, 7), (2, 2)):
        assert fresh(fn(M), (n,), F8)
    with pytest.raises(TypeError):
        fn(2.5)
    assert fresh(cupy.kaiser(5, 3.0), (5,), F8) and fresh(cupy.kaiser(-1, 3.0), (0,), F8)


# --- from host data: from_data.py ------------------------------------------------------------

def test_fromfunction(mode):
    seen = []

    def f(i, j, scale=1):
        seen.append((i.shape, i.dtype, ft.is_fake(i), i.fake_device))
        return (i + j) * scale
    assert fresh(cupy.fromfunction(f, (3, 4), dtype=np.float32, scale=2), (3, 4), np.float32)
    assert seen == [((3, 4), np.dtype(np.float32), True, "cpu")]
    assert fresh(cupy.fromfunction(lambda: 1, ()), (), I8)
    assert fresh(cupy.fromfunction(lambda i: i, (5,), dtype=int), (5,), I8)
    with pytest.raises(TypeError):
        cupy.fromfunction(lambda i: i, (5,), float)  # numpy: dtype is keyword-only


def test_frombuffer_fromfile(mode, tmp_path):
    assert fresh(cupy.frombuffer(b"\0" * 16, dtype=np.int16), (8,), np.int16)
    assert fresh(cupy.frombuffer(b"\0" * 16, dtype=np.float32, count=2, offset=4), (2,), np.float32)
    with pytest.raises(ValueError):
        cupy.frombuffer(b"\0" * 5, dtype=np.float32)
    p = tmp_path / "x.bin"
    p.write_bytes(b"\0" * 100)
    assert fresh(cupy.fromfile(str(p)), (12,), F8)
    assert fresh(cupy.fromfile(p, dtype=np.int32, offset=3), (24,), np.int32)
    assert fresh(cupy.fromfile(p, dtype=np.int8, count=7), (7,), np.int8)
    assert fresh(cupy.fromfile(p, count=50), (12,), F8)  # NumPy reads what there is
    assert fresh(cupy.fromfile(p, offset=200), (0,), F8)
    with pytest.raises(ft.UnsupportedOperationError):
        cupy.fromfile(p, sep=" ")       # text mode, as the NumPy kernel
    with pytest.raises(ft.UnsupportedOperationError):
        with open(p, "rb") as fh:
            cupy.fromfile(fh)
    with pytest.raises(FileNotFoundError):
        cupy.fromfile(tmp_path / "missing.bin")


def test_text_and_iterables(mode):
    """fromstring / fromiter: the project's NumPy kernel reads the host data, then asarray."""
    assert fresh(cupy.fromstring("1 2 3", sep=" "), (3,), F8)
    assert fresh(cupy.fromiter(range(4), np.int16), (4,), np.int16)
    assert fresh(cupy.fromiter(iter([1.0, 2.0]), float, count=2), (2,), F8)
    with pytest.raises(ValueError):
        cupy.fromiter(range(2), float, count=5)  # iterator too short
    for f in (lambda: cupy.loadtxt(io.StringIO("1 2")), lambda: cupy.genfromtxt(io.StringIO("1"))):
        with pytest.raises(ft.DataDependentError):
            f()
    with pytest.raises(ValueError):
        cupy.fromstring(b"\0" * 8, sep="")  # NumPy removed the binary mode


# --- files: npz.py, text.py -------------------------------------------------------------------

def test_load(tmp_path):
    np.save(tmp_path / "c.npy", np.zeros((3, 4), np.float32))
    np.save(tmp_path / "f.npy", np.zeros((3, 4), np.int16, order="F"))
    np.save(tmp_path / "u.npy", np.array(["ab"]))
    np.savez(tmp_path / "z.npz", a=np.zeros(5), b=np.zeros((2, 3), np.complex64))
    with ft.FakeMode(device="cuda:0", record=True) as m:
        assert fresh(cupy.load(tmp_path / "c.npy"), (3, 4), np.float32)
        f = cupy.load(str(tmp_path / "f.npy"))
        assert f.shape == (3, 4) and f.strides == (2, 6) and f.fake_device == "cuda:0"
        assert fresh(cupy.load(tmp_path / "c.npy", mmap_mode="r"), (3, 4), np.float32)
        with cupy.load(tmp_path / "z.npz") as z:
            b = z["b"]
            assert fresh(b, (2, 3), np.complex64) and fresh(z["a"], (5,), F8)
        assert m.memory.live["cuda:0"] == 48 + 24  # b and f
        with pytest.raises(ValueError):
            cupy.load(tmp_path / "u.npy")  # strings: not a CuPy dtype
        (tmp_path / "p.npy").write_bytes(b"\x80\x04junkjunk")
        with pytest.raises(ValueError):
            cupy.load(tmp_path / "p.npy")  # pickles are never read
        with cupy.cuda.Device(1):
            assert cupy.load(tmp_path / "c.npy").fake_device == "cuda:1"


@pytest.mark.parametrize("name", ["save", "savez", "savez_compressed", "savetxt"])
def test_writers_need_data(name):
    x = cuda((2, 3))
    with pytest.raises(ft.UnsupportedOperationError):
        getattr(cupy, name)(io.BytesIO(), x)
    with ft.FakeMode(device="cuda:0"):
        with pytest.raises(ft.UnsupportedOperationError):
            getattr(cupy, name)(io.BytesIO(), cupy.zeros(3))


def test_inside_mode_memory(mode):
    t = cupy.tri(10, 10)                  # 800 bytes
    i = cupy.indices((4, 5))              # 2 * 20 * 8 = 320
    w = cupy.hanning(16)                  # 128
    assert mode.memory.live["cuda:0"] == 800 + 320 + 128
    del t, i, w
    assert mode.memory.live["cuda:0"] == 0


def test_fromfunction_bad_shapes(mode):
    with pytest.raises(TypeError):
        cupy.fromfunction(lambda i: i, (2.5,))
    with pytest.raises(ValueError):
        cupy.fromfunction(lambda i, j: i, (2, -1))
    with pytest.raises(ValueError):
        cupy.fromfunction(lambda i: i, (3,), dtype=object)  # asarray: not a CuPy dtype


def test_numpy_functions_reach_cupy_rules():
    """NumPy functions on CUDA fakes find the cupy function at the same module path."""
    x = cuda((4, 4))
    assert all(fresh(r, (10,), I8) for r in np.tril_indices_from(x))
    assert fresh(np.vander(x[0]), (4, 4), F8)
    d = np.diag_indices_from(x)
    assert d[0] is d[1] and fresh(d[0], (4,), I8)
    assert fresh(np.ravel_multi_index((x.astype(int), x.astype(int)), (4, 4)), (4, 4), I8)
