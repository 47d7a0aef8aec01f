"""CuPy manipulation rules on CUDA fakes (kernels/cupy/manipulation.py), checked against facts
read from CuPy 14's source (each case names its file); no GPU needed."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import AWKWARD, cuda  # noqa: E402
from faketensor.kernels.cupy import manipulation as cm  # noqa: E402

F8 = np.float64
AxisError = np.exceptions.AxisError



def strided(shape, strides, dtype=F8, offset=0):
    return ft.empty_strided(shape, strides, dtype, device="cuda:0", offset=offset)


def fresh_c(r, shape, dtype=F8):
    return (r.shape == shape and r.base is None and r.flags.owndata and r.dtype == dtype
            and r.strides == ft.empty(shape, dtype).strides and r.fake_device == "cuda:0")


def temp_view(r, shape, strides):
    """A view of a temporary: CuPy's ``ret.reshape(shape)`` of a fresh array."""
    return r.shape == shape and r.strides == strides and r.base is not None \
        and not r.flags.owndata


def view_of(r, x, shape, strides, offset=0):
    return (r.shape == shape and r.strides == strides and r.storage is x.storage
            and r.storage_offset - x.storage_offset == offset)




def test_intercepted_inside_mode():
    with ft.FakeMode(device="cuda:0"):
        a = cupy.zeros((3, 4))
        for f in (lambda: cupy.tile(a, 2), lambda: cupy.flip(a), lambda: cupy.roll(a, 1),
                  lambda: cupy.pad(a, 1), lambda: cupy.tril(a), lambda: cupy.diag(a),
                  lambda: cupy.meshgrid(a[0], a[:, 0])[0], lambda: cupy.asfortranarray(a),
                  lambda: a.repeat(2), lambda: cupy.repeat(a, 2), lambda: cupy.append(a, a),
                  lambda: cupy.resize(a, 5), lambda: cupy.rot90(a), lambda: np.flip(a)):
            assert isinstance(f(), ft.FakeArray)
        assert cupy.copyto(a, a[0]) is None and cupy.fill_diagonal(a, 1) is None


# --- repeat: _routines_manipulation.pyx _repeat / _broadcast_repeat -------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_repeat_is_view_of_temporary(key):
    x = AWKWARD[key]()
    r = cupy.repeat(x, 2, axis=1)
    shape = (x.shape[0], x.shape[1] * 2, x.shape[2])
    if 0 in shape:
        assert fresh_c(r, shape) or temp_view(r, shape, r.strides)
    else:  # (a, 3, 2, c) fresh C, reshaped to (a, 6, c): strides of the C temp
        assert temp_view(r, shape, (shape[1] * shape[2] * 8, shape[2] * 8, 8))
    m = x.repeat(3)
    if x.size:
        assert temp_view(m, (x.size * 3,), (8,))
    else:
        assert fresh_c(m, (0,))


def test_repeat_cases_and_errors():
    x = cuda((2, 3))
    assert fresh_c(cupy.repeat(x, 0, axis=0), (0, 3))          # ret_shape[axis] == 0
    assert fresh_c(cupy.repeat(x, [1, 2, 0], axis=1), (2, 3))  # per element: take, fresh C
    assert temp_view(cupy.repeat(x, [2], axis=0), (4, 3), (24, 8))  # one element = scalar
    assert fresh_c(cupy.repeat(x, [0, 0], axis=0), (0, 3))
    with pytest.raises(ValueError):
        cupy.repeat(x, -1)
    with pytest.raises(ValueError):
        cupy.repeat(x, [1, 2], axis=1)  # length mismatch
    with pytest.raises(ValueError):
        cupy.repeat(x, [1, -1], axis=0)
    with pytest.raises(ValueError):
        cupy.repeat(x, 1.5)  # not int, not a sequence
    with pytest.raises(ValueError):
        cupy.repeat(x, [[1, 2]], axis=0)
    with pytest.raises(TypeError):
        x.repeat(np.array([1, 2]), axis=0)  # NumPy arrays are refused
    with pytest.raises(TypeError):
        x.repeat(cuda((2,), np.float32), axis=0)
    with pytest.raises(AxisError):
        x.repeat(2, axis=2)
    with pytest.raises(ft.DataDependentError):
        x.repeat(cuda((2,), np.int64), axis=0)
    with pytest.raises(ValueError):  # another device: elementwise_copy's peer check
        cuda((2, 3), dev=1).repeat(2)


# --- tile: tiling.py tile -----------------------------------------------------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_tile(key):
    x = AWKWARD[key]()
    r = cupy.tile(x, (1, 2, 1))
    shape = (x.shape[0], x.shape[1] * 2, x.shape[2])
    if x.size == 0:
        assert fresh_c(r, shape)
    else:
        assert temp_view(r, shape, (shape[1] * shape[2] * 8, shape[2] * 8, 8))
    c = cupy.tile(x, 1)  # all ones: cupy.array(A, copy=True, ndmin=1), an order-K copy
    assert c.base is None and c.storage is not x.storage and c.shape == x.shape


def test_tile_shapes():
    x = cuda((3,))
    assert temp_view(cupy.tile(x, (2, 2)), (2, 6), (48, 8))  # ret (2, 2, 3)
    assert temp_view(cupy.tile(x, 2), (6,), (8,))
    assert temp_view(cupy.tile(cuda((1, 3)), (2, 1)), (2, 3), (24, 8))  # same shape: view()
    assert cupy.tile(x, ()).shape == (3,)
    assert temp_view(cupy.tile(x, 0), (0,), (8,))  # empty temp, reshape's size-0 strides
    with pytest.raises(ValueError):
        cupy.tile(x, -2)


# --- flip / fliplr / flipud / rot90: rearrange.py ---------------------------------------------

def test_flips_are_views():
    x = cuda((2, 3, 4))
    assert view_of(cupy.flip(x, 0), x, (2, 3, 4), (-96, 32, 8), 96)
    assert view_of(cupy.flip(x), x, (2, 3, 4), (-96, -32, -8), 96 + 64 + 24)
    assert view_of(cupy.flip(x, (0, -1)), x, (2, 3, 4), (-96, 32, -8), 96 + 24)
    assert view_of(cupy.fliplr(x), x, (2, 3, 4), (96, -32, 8), 64)
    assert view_of(cupy.flipud(x), x, (2, 3, 4), (-96, 32, 8), 96)
    e = cuda((0, 3))
    assert view_of(cupy.flip(e), e, (0, 3), (0, 0), 0)  # empty: nothing moves
    n = x[:, ::-1]
    assert view_of(cupy.flip(n, 1), n, (2, 3, 4), (96, 32, 8), -64)
    assert view_of(np.flip(x, 2), x, (2, 3, 4), (96, 32, -8), 24)


def test_flip_errors():
    x = cuda((2, 3))
    with pytest.raises(AxisError):
        cupy.flip(x, 2)
    with pytest.raises(ValueError):
        cupy.flip(x, (0, 0))
    with pytest.raises(ValueError):
        cupy.fliplr(cuda((3,)))
    with pytest.raises(ValueError):
        cupy.flipud(cuda(()))


def test_rot90():
    x = cuda((2, 3))
    assert view_of(cupy.rot90(x, 0), x, (2, 3), (24, 8))
    assert view_of(cupy.rot90(x), x, (3, 2), (-8, 24), 16)      # transpose(flip(a, 1))
    assert view_of(cupy.rot90(x, 2), x, (2, 3), (-24, -8), 40)
    assert view_of(cupy.rot90(x, 3), x, (3, 2), (8, -24), 24)   # flip(transpose(a), 1)
    assert view_of(cupy.rot90(x, -1), x, (3, 2), (8, -24), 24)
    for bad in [dict(axes=(0,)), dict(axes=(0, 0)), dict(axes=(0, -2)), dict(axes=(0, 2))]:
        with pytest.raises(ValueError):
            cupy.rot90(x, **bad)
    with pytest.raises(ValueError):
        cupy.rot90(cuda((3,)))


# --- roll: rearrange.py roll -----------------------------------------------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_roll(key):
    x = AWKWARD[key]()
    r = cupy.roll(x, 1, axis=1)  # empty_like(a): order K
    assert r.base is None and r.shape == x.shape
    assert r.strides == cupy.empty_like(x).strides
    f = cupy.roll(x, 1)  # roll(a.ravel(), 1, 0).reshape(a.shape): a view of the 1-d result
    assert f.base is not None and f.shape == x.shape
    assert f.strides == (cuda((x.size,)).reshape(x.shape).strides if x.size
                         else (96, 32, 8))


def test_roll_cases():
    x = cuda((2, 3), order="F")
    assert cupy.roll(x, 1, axis=0).strides == (8, 16)  # order K keeps F
    assert temp_view(cupy.roll(cuda((5,)), 2), (5,), (8,))  # same shape: a view() anyway
    assert fresh_c(cupy.roll(x, cuda((), np.int64), axis=0), (2, 3))  # a[indices]
    assert fresh_c(cupy.roll(x, (1, 2), axis=(0, 1)).copy(), (2, 3))
    with pytest.raises(AxisError):
        cupy.roll(x, 1, axis=2)
    with pytest.raises(ValueError):
        cupy.roll(x, [[1]], axis=0)
    with pytest.raises(TypeError):  # _normalize_axis_index takes a Py_ssize_t
        cupy.roll(x, 1, axis=[[0]])
    with pytest.raises(ValueError):
        cupy.roll(x, (1, 2, 3), axis=(0, 1))


# --- pad: pad.py pad / _pad_simple -----------------------------------------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_pad_layout(key):
    x = AWKWARD[key]()
    r = cupy.pad(x, 1)
    shape = tuple(n + 2 for n in x.shape)
    fnc = x.flags.f_contiguous and not x.flags.c_contiguous
    assert r.base is None and r.shape == shape
    assert r.strides == ft.empty(shape, F8, order="F" if fnc else "C").strides


def test_pad_widths_and_errors():
    x = cuda((2, 3))
    assert cupy.pad(x, ((1, 2), (0, 3))).shape == (5, 6)
    assert cupy.pad(x, (1, 2)).shape == (5, 6)
    assert cupy.pad(x, [[1], [2]]).shape == (4, 7)
    assert cupy.pad(x, 1, mode="edge").shape == (4, 5)
    assert cupy.pad(x, 1, constant_values=3).shape == (4, 5)
    assert cupy.pad(cuda((2, 3), order="F"), 1, "wrap").strides == (8, 32)
    with pytest.raises(TypeError):
        cupy.pad(x, 1.5)  # numpy.asarray(1.5).dtype.kind != 'i'
    with pytest.raises(ValueError):
        cupy.pad(x, (-1, 1))
    with pytest.raises(ValueError):
        cupy.pad(x, 1, mode="bogus")
    with pytest.raises(ValueError):
        cupy.pad(x, 1, mode="edge", constant_values=1)
    with pytest.raises(ValueError):
        cupy.pad(cuda((0, 3)), 1, mode="edge")
    with pytest.raises(ValueError):
        cupy.pad(x, 1, mode="median")  # pad.py allowed_kwargs has no 'median'


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "linear_ramp", "maximum",
                                  "minimum", "mean"])
@pytest.mark.parametrize("key", list(AWKWARD))
def test_pad_other_modes_return_pad_simple(key, mode):
    """pad.py ``pad``: every mode fills and returns ``_pad_simple``'s padded array
    (F for an F-not-C input, else C); modes other than constant/empty cannot extend
    an empty axis."""
    a = AWKWARD[key]()
    if a.size == 0:
        with pytest.raises(ValueError):
            cupy.pad(a, 1, mode=mode)
        assert cupy.pad(a, ((0, 0), (1, 1), (2, 0)), mode=mode).shape == (0, 5, 6)
        return
    r = cupy.pad(a, ((1, 0), (2, 3), (0, 1)), mode=mode)
    shape = (a.shape[0] + 1, a.shape[1] + 5, a.shape[2] + 1)
    f = a.flags.f_contiguous and not a.flags.c_contiguous
    assert r.shape == shape and r.dtype == a.dtype and r.base is None
    assert r.flags.f_contiguous if f else r.flags.c_contiguous
    assert not np.shares_memory(r, a)


def test_pad_mode_keyword_checks():
    """pad.py ``_as_pairs`` / ``_get_stats``: stat_length 0 empties the max/min chunk
    (ValueError from the reduction), mean of it is NaN; bad end_values shapes raise."""
    x = cuda((2, 3))
    with pytest.raises(ValueError):
        cupy.pad(x, 1, mode="maximum", stat_length=0)
    with pytest.raises(ValueError):
        cupy.pad(x, 1, mode="minimum", stat_length=((1, 0), (2, 2)))
    assert cupy.pad(x, 1, mode="mean", stat_length=0).shape == (4, 5)
    assert cupy.pad(x, 1, mode="maximum", stat_length=(1, 2)).shape == (4, 5)
    with pytest.raises(ValueError):
        cupy.pad(x, 1, mode="linear_ramp", end_values=[1, 2, 3])
    with pytest.raises(ValueError):
        cupy.pad(x, 1, mode="reflect", stat_length=1)
    assert cupy.pad(x, 1, mode="reflect", reflect_type="odd").shape == (4, 5)
    with ft.FakeMode(device="cuda:0"):
        r = cupy.pad(cupy.zeros((3, 4), cupy.int32), 2, mode="symmetric")
    assert r.shape == (7, 8) and r.dtype == np.int32 and r.strides == (32, 4)


# --- tril / triu / diag / diagflat: matrix.py ------------------------------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_tril_triu_fresh_c(key):
    x = AWKWARD[key]()
    assert fresh_c(cupy.tril(x), x.shape) and fresh_c(cupy.triu(x, 1), x.shape)


def test_tril_dtypes_and_shapes():
    assert fresh_c(cupy.tril(cuda((3,))), (3, 3))  # tri(3) broadcast with a 1-d input
    assert fresh_c(cupy.triu(cuda((2, 4), np.int8)), (2, 4), np.int8)
    assert fresh_c(cupy.tril(cuda((2, 4), bool)), (2, 4), np.bool_)
    with pytest.raises(TypeError):
        cupy.tril(cuda(()))  # tri() needs N
    with pytest.raises(ValueError):
        cupy.tril(cuda((2, 2), dev=1))


def test_diag():
    x = cuda((3, 4))
    assert fresh_c(cupy.diag(x), (3,))      # cupy.array(v.diagonal(k)): a copy
    assert fresh_c(cupy.diag(x, 2), (2,))
    assert fresh_c(cupy.diag(x, -5), (0,))
    assert fresh_c(cupy.diag(x.T, 1), (2,))
    assert fresh_c(cupy.diag(cuda((3,)), -1), (4, 4))
    with ft.FakeMode(device="cuda:0"):  # no fake argument: only a mode intercepts it
        assert fresh_c(cupy.diag([1, 2]), (2, 2), np.int64)
        assert fresh_c(cupy.resize(2.0, (2,)), (2,))
        assert fresh_c(cupy.diagflat(3.0), (1, 1))
    assert fresh_c(cupy.diagflat(x), (12, 12))
    assert fresh_c(cupy.diagflat(x.T, 1), (13, 13))
    with pytest.raises(ValueError):
        cupy.diag(cuda((2, 2, 2)))
    with pytest.raises(ValueError):
        cupy.diag(cuda(()))
    with pytest.raises(AttributeError):
        cupy.diagflat([1, 2])


# --- meshgrid: ranges.py meshgrid -------------------------------------------------------------

def test_meshgrid():
    x, y = cuda((3,)), cuda((4,))[::-1]
    X, Y = cupy.meshgrid(x, y)  # copies
    assert fresh_c(X, (4, 3)) and fresh_c(Y, (4, 3))
    X, Y = cupy.meshgrid(x, y, copy=False)
    assert view_of(X, x, (4, 3), (0, 8)) and view_of(Y, y, (4, 3), (-8, 0))
    X, Y = cupy.meshgrid(x, y, indexing="ij", sparse=True, copy=False)
    assert view_of(X, x, (3, 1), (8, 0)) and view_of(Y, y, (1, 4), (0, -8))
    X, Y = cupy.meshgrid(x, y, sparse=True)
    assert fresh_c(X, (1, 3)) and fresh_c(Y, (4, 1))
    z = cuda((2,))
    A, B, C = cupy.meshgrid(x, y, z, copy=False)
    assert A.shape == (4, 3, 2) and A.strides == (0, 8, 0) and C.strides == (0, 0, 8)
    assert cupy.meshgrid(x)[0] is x  # one input: returned as is, even with copy=True
    assert cupy.meshgrid() == ()
    with pytest.raises(ValueError):
        cupy.meshgrid(cuda((2, 2)), x)
    with pytest.raises(ValueError):
        cupy.meshgrid(x, y, indexing="ji")
    with pytest.raises(TypeError):
        cupy.meshgrid(x, y, bogus=1)


# --- copyto: basic.py copyto --------------------------------------------------------------------

def test_copyto():
    d = cuda((2, 3))
    assert cupy.copyto(d, cuda((3,))) is None
    assert cupy.copyto(d, cuda((1, 1, 2, 3))) is None  # leading unit dims are stripped
    assert cupy.copyto(d, 1.5) is None
    assert cupy.copyto(d, np.ones(1)) is None
    assert cupy.copyto(d, cuda((2, 3), np.float32), where=cuda((3,), bool)) is None
    with pytest.raises(ValueError):
        cupy.copyto(d, cuda((2, 2)))
    with pytest.raises(ValueError):
        cupy.copyto(d, cuda((2, 2, 3)))
    with pytest.raises(ValueError):
        cupy.copyto(d, np.ones(3))  # non-scalar NumPy arrays are refused
    with pytest.raises(TypeError):
        cupy.copyto(cuda((2,), np.int32), cuda((2,)))  # same_kind
    with pytest.raises(TypeError):
        cupy.copyto(cuda((2,), np.int32), 1.5)
    assert cupy.copyto(cuda((2,), np.int32), cuda((2,)), casting="unsafe") is None
    with pytest.raises(AttributeError):
        cupy.copyto(d, [1, 2, 3])
    with pytest.raises(TypeError):
        cupy.copyto(d, cuda((3,)), where=cuda((3,), np.int8))


# --- asfortranarray: core.pyx asfortranarray ------------------------------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_asfortranarray(key):
    x = AWKWARD[key]()
    r = cupy.asfortranarray(x)
    if x.flags.f_contiguous:
        assert r is x
    else:
        assert r.base is None and r.strides == ft.empty(x.shape, F8, order="F").strides
    r = cupy.asfortranarray(x, np.float32)
    assert r.base is None and r.dtype == np.float32 and r.flags.f_contiguous


def test_asfortranarray_0d_and_errors():
    s = cuda(())
    r = cupy.asfortranarray(s)  # _ndarray_ravel(a, 'F'): a (1,) view
    assert view_of(r, s, (1,), (8,)) and r.base is not None
    r = cupy.asfortranarray(s, np.int32)
    assert fresh_c(r, (1,), np.int32)
    with pytest.raises(TypeError):
        cupy.asfortranarray(np.zeros(3))


# --- append / resize: add_remove.py ------------------------------------------------------------

def test_append_resize():
    x, y = cuda((2, 3)).T, cuda((4,), np.int8)
    assert temp_view(cupy.append(x, y), (10,), (8,))  # concatenate(...).ravel(): a view()
    assert fresh_c(cupy.append(x, cuda((1, 2)), axis=0), (4, 2))
    with pytest.raises(ValueError):
        cupy.append(x, cuda((1, 3)), axis=0)
    assert fresh_c(cupy.resize(x, (4, 5)), (4, 5))
    assert fresh_c(cupy.resize(cuda((0,)), 3), (3,))
    with pytest.raises(ValueError):
        cupy.resize(x, -1)


# --- fill_diagonal / put / place: insert.py, _routines_indexing.pyx _ndarray_put ----------------

def test_in_place_setters():
    x = cuda((3, 3))
    assert cupy.fill_diagonal(x, 1) is None
    assert cupy.fill_diagonal(cuda((2, 2, 2)), 1) is None
    with pytest.raises(ValueError):
        cupy.fill_diagonal(cuda((3,)), 1)
    with pytest.raises(ValueError):
        cupy.fill_diagonal(cuda((2, 3, 3)), 1)
    assert x.put([0, 1], 2.0) is None and cupy.put(x, cuda((2,), np.int64), 1.0, "clip") is None
    with pytest.raises(ValueError):
        x.put([0], 1.0, mode="bogus")
    with pytest.raises(ft.DataDependentError):
        x.put([0], 1.0, mode="raise")
    with pytest.raises(ValueError):
        cupy.place(x, cuda((4,), bool), 1.0)
    with pytest.raises(ft.DataDependentError):
        cupy.place(x, cuda((3, 3), bool), 1.0)


def test_numpy_functions_without_a_numpy_kernel_reach_the_cupy_rule():
    """np.copyto on CUDA fakes goes to cupy.copyto's rule (cupy/_manipulation/basic.py)."""
    dst, src = ft.empty((3, 4), device="cuda:0"), ft.empty((4,), device="cuda:0")
    assert np.copyto(dst, src) is None
    with pytest.raises(ValueError):
        np.copyto(dst, ft.empty((5,), device="cuda:0"))


def test_ascontiguousarray_of_0d_is_a_1d_view():
    """core.pyx ascontiguousarray: a C-contiguous 0-d array becomes _ndarray_ravel(a) (1,)."""
    a = ft.empty((), device="cuda:0")
    r = cupy.ascontiguousarray(a)
    assert r.shape == (1,) and r.base is a and r.strides == (8,)
    c = cupy.ascontiguousarray(a, dtype=np.float32)
    assert c.shape == (1,) and c.base is None
