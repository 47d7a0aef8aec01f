"""CuPy's indexing and shape/view rules on CUDA fakes (kernels/cupy/views.py), checked
against facts read from CuPy 14's source; no GPU needed."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import AWKWARD, c_st, cuda  # noqa: E402
from faketensor.kernels.cupy import views as cv  # noqa: E402

F8 = np.float64



def strided(shape, strides, dtype=F8, offset=0):
    return ft.empty_strided(shape, strides, dtype, device="cuda:0", offset=offset)


def real_like(x):
    """A real NumPy array with x's layout (to compare where CuPy's rule is NumPy's)."""
    return np.lib.stride_tricks.as_strided(np.zeros(max(x.storage.nbytes // x.itemsize, 1)),
                                           x.shape, x.strides)


def is_view(r, x):
    return r.storage is x.storage and r.base is not None


def fresh_c(r, shape):
    return (r.shape == shape and r.base is None and r.flags.owndata
            and r.strides == ft.empty(shape, r.dtype).strides and r.fake_device == "cuda:0")




# --- reshape: _routines_manipulation.pyx _reshape / _get_strides_for_nocopy_reshape ----

@pytest.mark.parametrize("make,newshape,strides,view", [
    (lambda: cuda((2, 3, 4)), (6, 4), (32, 8), True),
    (lambda: cuda((2, 3, 4)), (1, 24, 1), (192, 8, 8), True),       # leading 1: shape0*stride0
    (lambda: cuda((2, 3, 4), order="F"), (2, 12), (96, 8), False),  # copy: fresh C
    (lambda: cuda((2, 3, 4), order="F"), (2, 1, 3, 4), (8, 8, 16, 48), True),
    (lambda: cuda((1, 1)), (1, 1, 1), (8, 8, 8), True),             # size 1: all itemsize
    (lambda: cuda((3, 3))[1:2, 1:2], (1,), (8,), True),
    (lambda: cuda((0, 3)), (3, 0), (8, 8), True),                   # size 0: C strides, kept
    (lambda: cuda((2, 0, 3)), (3, 2, 0), (16, 8, 8), True),
    (lambda: cuda((4, 3))[::2], (3, 2), (16, 8), False),            # needs a copy
    (lambda: cuda((4, 6))[:, ::2], (2, 2, 3), (96, 48, 16), True),
])
def test_reshape_strides(make, newshape, strides, view):
    x = make()
    r = x.reshape(newshape)
    assert r.shape == newshape and r.strides == strides
    if view:
        assert is_view(r, x)
    else:  # CuPy's copying reshape owns its data (NumPy: a view of a temporary)
        assert r.base is None and r.flags.owndata and r.storage is not x.storage


def test_reshape_orders_copy_and_unknown():
    x = cuda((2, 3, 4))
    assert x.reshape(4, 6, order="F").strides == (8, 32)  # _T(_reshape(_T(x))) must copy: F
    assert x.reshape(4, 6, order="F").base is None
    assert cuda((2, 3), order="F").reshape(3, 2, order="A").strides == (8, 24)
    assert x.reshape(-5, 4).shape == (6, 4)  # any negative entry is the unknown one
    assert x.reshape((2, 12)).shape == (2, 12) and cupy.reshape(x, (24,)).strides == (8,)
    same = x.reshape(2, 3, 4)
    assert is_view(same, x) and same is not x
    assert fresh_c(x.reshape(2, 3, 4, copy=True), (2, 3, 4))
    assert fresh_c(x.reshape(6, 4, copy=True), (6, 4))
    assert np.reshape(x, (24,)).strides == (8,)


@pytest.mark.parametrize("call,exc", [
    (lambda x: x.reshape(5, 5), ValueError),
    (lambda x: x.reshape(-1, -1), ValueError),
    (lambda x: x.reshape(0, -1), ValueError),
    (lambda x: x.reshape(24, order="K"), ValueError),
    (lambda x: x.reshape(24, order="Q"), ValueError),
    (lambda x: x[::2].reshape(12, copy=False), ValueError),
    (lambda x: x.reshape(24, copy="yes"), ValueError),
    (lambda x: x.reshape(2.0, 12), TypeError),
])
def test_reshape_errors(call, exc):
    with pytest.raises(exc):
        call(cuda((4, 6)))


# --- ravel / flatten ---------------------------------------------------------------------

@pytest.mark.parametrize("name", list(AWKWARD))
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_ravel_is_contiguous_view_or_fresh_copy(name, order):
    x = AWKWARD[name]()
    r = x.ravel(order)
    assert r.shape == (x.size,) and r.flags.c_contiguous
    if r.storage is x.storage:
        assert r.base is not None and r.strides == (8,)
    else:  # core.pyx ravel -> _internal_ascontiguousarray / _reshape copy: fresh C
        assert r.base is None and r.strides == ((0,) if x.size == 0 else (8,))
    f = x.flatten(order)  # _ndarray_flatten_order_c: strides set to (itemsize,), even empty
    assert f.shape == (x.size,) and f.strides == (8,) and f.base is None


def test_ravel_cases():
    assert is_view(cuda((2, 3), order="F").ravel("F"), cuda((1,)).ravel()) is False
    x = cuda((2, 3), order="F")
    assert is_view(x.ravel("F"), x) and is_view(x.ravel("K"), x) and not is_view(x.ravel(), x)
    y = cuda((4,))[::2]
    assert y.ravel().base is None  # 1-d non-contiguous: a copy
    assert cuda(()).ravel().strides == (8,) and cupy.ravel(cuda((0, 3))).strides == (8,)
    with pytest.raises(ValueError):
        cuda((2,)).ravel("Z")


def test_k_order_axes_matches_numpy_iterator():
    # _npyiter_k_order_axes reproduces NumPy's K order: ravel('K') visits memory order
    for st in [(8, 24, 72), (96, -8, 24), (0, 8, 32), (24, 8, 0)]:
        axes = cv.k_order_axes(st)
        assert sorted(axes) == [0, 1, 2]
    assert cv.k_order_axes((8, 24, 72)) == [2, 1, 0]
    assert cv.k_order_axes((72, 8, 24)) == [0, 2, 1]


# --- squeeze / expand_dims / atleast / broadcast_to ------------------------------------------

def test_squeeze():
    x = cuda((1, 3, 1, 2))
    assert x.squeeze().shape == (3, 2) and x.squeeze().strides == (16, 8)
    assert cupy.squeeze(x, axis=(0, 2)).shape == (3, 2) and np.squeeze(x, 0).shape == (3, 1, 2)
    y = cuda((3, 2))
    assert y.squeeze() is y and cuda(()).squeeze(0).shape == ()  # nothing squeezed: self
    for bad, exc in [(1, ValueError), (5, np.exceptions.AxisError), ((0, 0), ValueError),
                     ([0], TypeError)]:
        with pytest.raises(exc):
            x.squeeze(bad)


@pytest.mark.parametrize("make,axis,shape,strides", [
    (lambda: cuda((3, 4)), 0, (1, 3, 4), (96, 32, 8)),
    (lambda: cuda((3, 4)), -1, (3, 4, 1), (32, 8, 8)),
    (lambda: cuda((3, 4), order="F"), 1, (3, 1, 4), (8, 8, 24)),
    (lambda: cuda((3, 4))[::-1], 0, (1, 3, 4), (-96, -32, 8)),
    (lambda: cuda((0, 4)), 0, (1, 0, 4), (32, 32, 8)),       # size 0: C strides
    (lambda: cuda((1,)), (0, 2), (1, 1, 1), (8, 8, 8)),       # size 1: all itemsize
    (lambda: cuda((3,))[::2], [0], (1, 2), (32, 16)),
])
def test_expand_dims_uses_reshape_rule(make, axis, shape, strides):
    x = make()
    for r in (np.expand_dims(x, axis), cupy.expand_dims(x, axis)):
        assert r.shape == shape and r.strides == strides and is_view(r, x)


def test_expand_dims_errors_and_atleast():
    x = cuda((3, 4))
    with pytest.raises(np.exceptions.AxisError):
        cupy.expand_dims(x, 3)
    with pytest.raises(ValueError):
        cupy.expand_dims(x, (0, 0))
    assert cupy.atleast_2d(cuda((5,))).strides == (40, 8)
    assert cupy.atleast_3d(cuda((5,))).strides == (40, 8, 8)
    assert np.atleast_3d(cuda(())).strides == (8, 8, 8)
    assert cupy.atleast_1d(x) is x
    a, b = cupy.atleast_1d(cuda(()), x)
    assert a.shape == (1,) and b is x


@pytest.mark.parametrize("make,shape,strides", [
    (lambda: cuda((4,)), (2, 3, 4), (0, 0, 8)),
    (lambda: cuda((3, 1)), (2, 3, 5), (0, 8, 0)),
    (lambda: cuda((1, 1)), (2, 1, 1), (0, 8, 8)),   # matching length-1 axes keep their stride
    (lambda: cuda((3,))[::-1], (2, 3), (0, -8)),
    (lambda: cuda(()), 4, (0,)),
])
def test_broadcast_to_is_writeable_view(make, shape, strides):
    x = make()
    r = cupy.broadcast_to(x, shape)
    assert r.strides == strides and is_view(r, x) and r.flags.writeable
    assert np.broadcast_to(x, shape).strides == strides


def test_broadcast_to_errors_and_broadcast_arrays():
    for shape in [(3,), (2, 5)]:
        with pytest.raises(ValueError):
            cupy.broadcast_to(cuda((2, 3)), shape)
    with pytest.raises(TypeError):
        cupy.broadcast_to(cuda((3,)), (2.5, 3))
    a, b = cuda((3, 1)), cuda((4,))
    ra, rb = cupy.broadcast_arrays(a, b)
    assert ra.strides == (8, 0) and rb.strides == (0, 8) and ra.flags.writeable
    c = cuda((3, 4))
    assert cupy.broadcast_arrays(c, b)[0] is c
    with pytest.raises(ValueError):
        cupy.broadcast_arrays(cuda((3,)), cuda((4,)))


# --- transpose family ---------------------------------------------------------------------

@pytest.mark.parametrize("name", list(AWKWARD))
def test_transpose_family_matches_numpy_strides(name):
    x = AWKWARD[name]()
    r = real_like(x)
    for fn in (lambda a: a.T, lambda a: a.transpose(1, 2, 0), lambda a: a.transpose((2, 0, 1)),
               lambda a: a.swapaxes(0, 2), lambda a: np.moveaxis(a, 0, -1),
               lambda a: np.moveaxis(a, [0, 1], [2, 0]), lambda a: np.rollaxis(a, 2),
               lambda a: np.transpose(a), lambda a: a.mT, lambda a: np.swapaxes(a, -1, 1)):
        f = fn(x)
        assert (f.shape, f.strides) == (fn(r).shape, fn(r).strides) and is_view(f, x)


def test_transpose_family_errors_and_identity():
    x = cuda((2, 3, 4))
    for call, exc in [(lambda: x.transpose(0, 1), ValueError), (lambda: x.transpose(0, 1, 3),
                      np.exceptions.AxisError), (lambda: x.transpose(0, 0, 1), ValueError),
                      (lambda: x.swapaxes(0, 3), ValueError), (lambda: cupy.moveaxis(x, 0, 5),
                      np.exceptions.AxisError), (lambda: cupy.moveaxis(x, [0, 1], [0]), ValueError),
                      (lambda: cupy.moveaxis(x, [0, 0], [1, 2]), ValueError),
                      (lambda: cupy.rollaxis(x, 3), ValueError), (lambda: cuda((3,)).mT, ValueError)]:
        with pytest.raises(exc):
            call()
    assert cupy.moveaxis(x, 1, 1) is x and cupy.rollaxis(x, 1, 2) is x  # no move: ``a`` itself
    assert is_view(x.transpose(0, 1, 2), x)


# --- diagonal, view(dtype), real/imag -------------------------------------------------------

@pytest.mark.parametrize("make,args,shape,strides,offset", [
    (lambda: cuda((3, 4)), (), (3,), (40,), 0),
    (lambda: cuda((3, 4)), (1,), (3,), (40,), 8),
    (lambda: cuda((3, 4)), (-1,), (2,), (40,), 32),
    (lambda: cuda((2, 3, 4)), (0, 1, 2), (2, 3), (96, 40), 0),
    (lambda: cuda((2, 3, 4), order="F"), (1, 2, 0), (3, 1), (16, 56), 8),
])
def test_diagonal_views(make, args, shape, strides, offset):
    x = make()
    for r in (x.diagonal(*args), np.diagonal(x, *args), cupy.diagonal(x, *args)):
        assert (r.shape, r.strides) == (shape, strides) and is_view(r, x)
        assert r.storage_offset - x.storage_offset == offset and r.flags.writeable


def test_diagonal_empty_is_fresh_and_errors():
    r = cuda((3, 4)).diagonal(5)  # _diagonal: diag_size 0 -> core.ndarray (fresh)
    assert fresh_c(r, (0,))
    z = cuda((2, 0, 4)).diagonal(0, 0, 2)  # other axis empty: a view, pointer not moved
    assert z.shape == (0, 2)
    with pytest.raises(np.exceptions.AxisError):
        cuda((3, 4)).diagonal(0, 0, 2)
    with pytest.raises(IndexError):  # axis1 == axis2: _diagonal's second ``del tr[...]`` fails
        cuda((3, 4)).diagonal(0, 1, 1)
    with pytest.raises(ValueError):  # ... or the transpose sees a repeated axis
        cuda((2, 3, 4)).diagonal(0, 0, 0)
    with pytest.raises(IndexError):  # CuPy's own list deletion fails on 1-d
        cuda((3,)).diagonal(0, -1, 0)


@pytest.mark.parametrize("make,dt,shape,strides", [
    (lambda: cuda((2, 3)), np.float32, (2, 6), (24, 4)),
    (lambda: cuda((2, 4), np.float32), np.float64, (2, 2), (16, 8)),
    (lambda: cuda((2, 4), np.float32), np.int32, (2, 4), (16, 4)),
    (lambda: cuda((3, 1)), np.int16, (3, 4), (8, 2)),
    (lambda: strided((3, 1), (8, 16)), np.int32, (3, 2), (8, 4)),  # length-1 last axis: any stride
    (lambda: cuda((0, 3)), np.int8, (0, 24), (0, 1)),
    (lambda: cuda((2, 3), order="F"), np.int64, (2, 3), (8, 16)),
])
def test_view_dtype(make, dt, shape, strides):
    x = make()
    r = x.view(dt)
    assert (r.shape, r.strides, r.dtype) == (shape, strides, np.dtype(dt)) and is_view(r, x)


def test_view_dtype_errors():
    for x, dt in [(cuda(()), np.float32), (cuda((2, 3), order="F"), np.float32),
                  (cuda((2, 3)), np.complex128), (cuda((3,))[::2], np.int32)]:
        with pytest.raises(ValueError):
            x.view(dt)
    assert is_view(cuda((2,)).view(), cuda((1,))) is False


def test_real_imag():
    z = cuda((3, 4), np.complex128)[:, ::2]
    re, im = z.real, z.imag
    assert re.dtype == im.dtype == np.float64 and re.strides == im.strides == z.strides
    assert im.storage_offset - z.storage_offset == 8 and is_view(re, z)
    x = cuda((3,), np.float32)
    assert x.real is x and np.real(x) is x  # _ndarray_real_getter returns self
    assert fresh_c(x.imag, (3,)) and fresh_c(cupy.imag(x), (3,))  # fresh zeros
    e = cuda((0,), np.complex64)
    assert e.imag.storage_offset == 0  # a null pointer is not moved


# --- __getitem__: _routines_indexing.pyx ---------------------------------------------------

@pytest.mark.parametrize("name", [n for n in AWKWARD if n != "empty"])
@pytest.mark.parametrize("key", [
    np.s_[1], np.s_[-1, 1:], np.s_[:, None, ::-1], np.s_[..., 1], np.s_[None, 1, ..., None],
    np.s_[::2, 1:3, -1], np.s_[0, 0, 0], np.s_[()], np.s_[np.int64(1)],
])
def test_basic_index_matches_numpy_strides(name, key):
    x = AWKWARD[name]()
    r = real_like(x)
    try:
        want = np.asarray(r[key])
    except IndexError:
        with pytest.raises(IndexError):
            x[key]
        return
    f = x[key]
    assert (f.shape, f.strides) == (want.shape, want.strides) and is_view(f, x)


@pytest.mark.parametrize("key,shape,strides,offset", [
    (np.s_[2:2], (0, 4), (32, 8), 64),          # empty slice: pointer still moves
    (np.s_[1:3:-1], (0, 4), (32, 8), 32),
    (np.s_[:, 9:], (3, 0), (32, 8), 32),
    (np.s_[1.7], (4,), (8,), 32),                # float scalars index as int(s)
    (np.s_[:, np.float32(2.5)], (3,), (32,), 16),
    (np.s_[None], (1, 3, 4), (0, 32, 8), 0),
])
def test_basic_index_cupy_facts(key, shape, strides, offset):
    x = cuda((3, 4))
    r = x[key]
    assert (r.shape, r.strides, r.storage_offset) == (shape, strides, offset) and is_view(r, x)
    e = cuda((3, 0))  # empty array: _view_getitem never moves its pointer
    assert e[2].storage_offset == 0 and e[1:, :].storage_offset == 0


@pytest.mark.parametrize("make,key,shape", [
    (lambda: cuda((4, 5, 6)), [0, 2], (2, 5, 6)),
    (lambda: cuda((4, 5, 6), order="F"), (slice(None), [0, 2]), (4, 2, 6)),
    (lambda: cuda((4, 5, 6))[::-1], (slice(None), [[0], [1]], [1, 2]), (4, 2, 2)),
    (lambda: cuda((4, 5, 6)), ([0, 1], slice(None), [1, 2]), (2, 5)),   # batch dims first
    (lambda: cuda((4, 5, 6)), (0, slice(None), [1, 2]), (2, 5)),
    (lambda: cuda((4, 5, 6)), (np.array(1),), (5, 6)),                   # 0-d array: a copy
    (lambda: cuda((4, 5, 6)), (slice(None), np.array([[1, 2]])), (4, 1, 2, 6)),
    (lambda: cuda((4, 5, 6)), ([9, -7],), (2, 5, 6)),                    # wraps, no IndexError
    (lambda: cuda((4, 5)), ([],), (0, 5)),
    (lambda: cuda((4, 5)), (np.zeros(4, bool),), (0, 5)),               # mask values known
    (lambda: cuda((4, 5)), (np.array([1, 0, 1, 1], bool),), (3, 5)),
    (lambda: cuda((4, 5)), ([True, False, True, True], [0, 1, 2]), (3,)),
    (lambda: cuda((4, 5)), (True,), (1, 4, 5)),
    (lambda: cuda((4, 5)), (slice(None), False), (4, 0, 5)),
    (lambda: cuda((4, 5)), (cuda((0,), bool),), (0, 5)),               # mask length 0 matches
    (lambda: cuda((4, 5)), (cuda((2, 3), np.int32),), (2, 3, 5)),
    (lambda: cuda((4, 5)), (cuda((2,), np.uint8), cuda((3, 1), np.int64)), (3, 2)),
    (lambda: cuda(()), (None, True), (1, 1)),
])
def test_advanced_index_is_fresh_c(make, key, shape):
    x = make()
    assert fresh_c(x[key], shape)


def test_take():
    x = cuda((4, 5), order="F")
    assert fresh_c(x.take([1, 7]), (2,)) and fresh_c(np.take(x, [[1, 2]], axis=1), (4, 1, 2))
    assert fresh_c(cupy.take(x, 3, axis=0), (5,)) and fresh_c(cuda(()).take([0, 5]), (2,))
    assert fresh_c(x.take(cuda((3,), np.int32), -2), (3, 5))
    out = cuda((2,))
    assert x.take([0, 1], out=out) is out
    for call, exc in [(lambda: x.take([0], axis=2), np.exceptions.AxisError),
                      (lambda: x.take([0, 1], out=cuda((3,))), ValueError),
                      (lambda: x.take([0, 1], out=cuda((2,), np.float32)), TypeError),
                      (lambda: cuda((0, 3)).take([0], axis=0), IndexError)]:
        with pytest.raises(exc):
            call()


@pytest.mark.parametrize("key,exc", [
    (np.s_[0, 0, 0], IndexError),                   # too many indices
    (np.s_[5], IndexError),
    (np.s_[..., ...], IndexError),
    (np.s_[[1.5]], IndexError),                     # float index arrays
    (np.s_[np.array([1.0])], IndexError),
    (np.s_[np.array(["a"])], IndexError),
    (np.s_[object()], IndexError),
    (np.s_["a"], ValueError),                       # int('a')
    (np.s_[1j], TypeError),
    (np.s_[::0], ValueError),
    (np.s_[np.ones(3, bool)], IndexError),          # mask length mismatch
    (np.s_[[0, 1], [[0], [1]], ], None),
    (np.s_[[0, 1], [0, 1, 2]], ValueError),         # CuPy: ValueError (NumPy: IndexError)
    (np.s_[cuda((4,), bool), [0]], ft.DataDependentError),  # a mask among several arrays
    (np.s_[cuda((2,), np.float32)], IndexError),
    (np.s_[cuda((2,), np.int64, dev=1)], ValueError),  # peer access
])
def test_getitem_errors(key, exc):
    x = cuda((4, 5))
    if exc is None:
        assert fresh_c(x[key], (2, 2))
        return
    with pytest.raises(exc):
        x[key]


def test_numpy_index_arrays_are_converted():
    x = cuda((4, 5))
    idx = ft.empty((2, 2), np.int64)  # a NumPy (cpu) fake index: sent to the device
    assert fresh_c(x[idx], (2, 2, 5))
    r = x[ft.empty((4,), bool)]       # its count of True: a bounded size (faketensor/_sizes.py)
    assert type(r.shape[0]) is ft.BoundedSize and (r.shape[0].lo, r.shape[0].hi) == (0, 4)
    assert fresh_c(r, (4, 5))


# --- __setitem__: _scatter_op(..., 'update') -------------------------------------------------

@pytest.mark.parametrize("key,value", [
    (np.s_[:], 1.5), (np.s_[1], cuda((5,))), (np.s_[:, 1], cuda((1, 1, 4))),
    (np.s_[1:3], cuda((1,), np.int8)), (np.s_[[0, 2]], cuda((2, 5))), (np.s_[[0, 2]], [1, 2, 3, 4, 5]),
    (np.s_[[0, 2]], np.zeros((2, 1))), (np.s_[[0, 2], [1, 1]], 3), (np.s_[:, [0, 2]], cuda((4, 2))),
    (np.s_[np.array([1, 0, 1, 1], bool)], cuda((3, 5))), (np.s_[cuda((4,), bool)], 0.0),
    (np.s_[cuda((4,), bool)], cuda((1, 5))), (np.s_[cuda((0,), bool)], cuda((7,))),
    (np.s_[...], np.float64(2)), (np.s_[0, 0], np.zeros(())),
])
def test_setitem_accepts(key, value):
    x = cuda((4, 5))
    x[key] = value


@pytest.mark.parametrize("key,value,exc", [
    (np.s_[:], np.zeros((4, 5)), ValueError),      # fill() refuses NumPy arrays (gh-2079)
    (np.s_[1], [1, 2, 3, 4, 5], ValueError),
    (np.s_[1], cuda((4,)), ValueError),
    (np.s_[[0, 1]], cuda((3, 5)), ValueError),
    (np.s_[[0, 1]], np.zeros((2, 3)), ValueError),
    (np.s_[[0, 1], [0, 1, 2]], 1, ValueError),
    (np.s_[5], 1, IndexError),
    (np.s_[cuda((4,), bool)], cuda((3, 5)), ft.DataDependentError),
    (np.s_[np.array([1, 0, 1, 1], bool)], cuda((2, 5)), ValueError),
    (np.s_[1], cuda((5,), dev=1), ValueError),
])
def test_setitem_errors(key, value, exc):
    x = cuda((4, 5))
    with pytest.raises(exc):
        x[key] = value


def test_setitem_int8_overflow():
    x = cuda((3,), np.int8)
    with pytest.raises(OverflowError):
        x[0] = 300
    with pytest.raises(OverflowError):
        x[[0]] = 300


# --- cupy.array(..., ndmin=) (core.pyx array) ---------------------------------------------------

@pytest.mark.parametrize("make,kw,shape,strides,view", [
    (lambda: cuda((3,)), dict(ndmin=3), (1, 1, 3), (24, 24, 8), False),
    (lambda: cuda((3,)), dict(ndmin=3, copy=False), (1, 1, 3), (24, 24, 8), True),
    (lambda: cuda((3,))[::2], dict(ndmin=2, copy=False), (1, 2), (32, 16), True),
    (lambda: cuda(()), dict(ndmin=2, copy=False), (1, 1), (8, 8), True),
    (lambda: cuda((2, 3), order="F"), dict(ndmin=3), (1, 2, 3), (16, 8, 16), False),
    (lambda: cuda((0, 3)), dict(ndmin=3), (1, 0, 3), (24, 24, 8), False),
    (lambda: cuda((2, 3)), dict(ndmin=1), (2, 3), (24, 8), False),
])
def test_array_ndmin_cuda(make, kw, shape, strides, view):
    x = make()
    r = cupy.array(x, **kw)
    assert (r.shape, r.strides) == (shape, strides)
    assert is_view(r, x) == view


def test_array_ndmin_from_host():
    host = np.zeros((2, 3), order="F")  # _array_default: fresh F (F-not-C NumPy input)
    with ft.FakeMode(device="cuda:0"):
        r = cupy.array(host, ndmin=4)
        assert r.shape == (1, 1, 2, 3) and r.strides == (8, 8, 8, 16) and r.fake_device == "cuda:0"
        r = cupy.array([[1, 2]], ndmin=3)
        assert r.shape == (1, 1, 2) and r.dtype == np.int64 and r.strides == (16, 16, 8)
        r = cupy.array(host[0], ndmin=2, order="F")
        assert r.shape == (1, 3) and r.strides == (8, 8)



# --- a single mask of unknown values: a bounded size (faketensor/_sizes.py) -------------------

@pytest.mark.parametrize("end", ["upper", "lower"])
def test_a_fake_mask_gives_a_bounded_size(end):
    """_getitem_mask_single: a fresh C array of ``a.shape[:axis] + (n_true,) + rest``; n_true
    a bounded size 0 <= k <= mask.size at the end the policy assumes, the same for the same
    unwritten mask, so ``a[m] = a[m] * 2`` plans (_scatter_op_mask_single)."""
    with ft.FakeMode(sizes=ft.SizePolicy(end)) as mode:
        a, m, mc = cuda((10, 3)), cuda((10,), bool), cuda((3,), bool)
        rows, rows2, cols = a[m], a[m, :], a[:, mc]
        a[m] = rows * 2
        a[m] = 0.0
        a[m] = cuda((1, 3))
        a[m] = cuda((3,))
        k, j = rows.shape[0], cols.shape[1]
    n = 10 if end == "upper" else 0
    assert (int(k), k.lo, k.hi, int(j), j.lo, j.hi) == (n, 0, 10, 3 * (n > 0), 0, 3)
    assert rows2.shape[0] is k and [s.name for s in mode.sizes.made] == ["k0", "k1"]
    for r, shape in ((rows, (n, 3)), (cols, (10, 3 * (n > 0)))):
        assert r.shape == shape and r.strides == c_st(shape, 8) and r.base is None
        assert r.flags.owndata and r.fake_device == "cuda:0"


@pytest.mark.parametrize("value", [lambda: cuda((3, 3)), lambda: cuda((11, 3)),
                                   lambda: cuda((10, 2)), lambda: cuda((10, 3))[cuda((10,), bool)]])
def test_assigning_through_a_fake_mask_that_may_not_fit_stops(value):
    """CuPy checks nothing when the mask holds no True: every misfit depends on the mask."""
    a, m = cuda((10, 3)), cuda((10,), bool)
    with pytest.raises(ft.DataDependentError):
        a[m] = value()
