"""``a.shape = ...``, ``a.strides = ...``, ``a.dtype = ...`` on fakes: the real library's
checks, errors, warnings and resulting layout (numpy getset.c; cupy _ndarray_shape_setter)."""
import warnings

import numpy as np
import pytest

import faketensor as ft
from cuda_fakes import cuda


def _after(x, fn):
    """The metadata of x after fn(x), or the exception type; warnings' categories too."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fn(x)
        except Exception as e:
            return type(e).__name__, [c.category for c in w]
    return ((x.shape, x.strides, x.dtype, x.flags.c_contiguous, x.flags.f_contiguous,
             x.flags.aligned, x.size, x.nbytes), [c.category for c in w])


def _set(name, value):
    def fn(x):
        setattr(x, name, value)
    return fn


def _del(name):
    def fn(x):
        delattr(x, name)
    return fn


LAYOUTS = {
    "C": lambda: np.zeros((3, 4)),
    "T": lambda: np.zeros((3, 4)).T,
    "F": lambda: np.zeros((3, 4), order="F"),
    "strided": lambda: np.zeros((3, 4))[:, ::2],
    "offset": lambda: np.zeros((3, 4))[1:, 1:],
    "neg": lambda: np.zeros((3, 4))[::-1],
    "empty": lambda: np.zeros((0, 4)),
    "zero_d": lambda: np.zeros(()),
    "i1": lambda: np.zeros((3, 4), np.int8),
}
CHANGES = [
    _set("shape", (4, 3)), _set("shape", -1), _set("shape", (2, -1)), _set("shape", (5,)),
    _set("shape", None), _set("shape", "a"), _set("shape", (2, 2, 3)), _set("shape", ()),
    _set("shape", (1, 12, 1)), _set("shape", (-1, -1)), _set("shape", (0, -1)),
    _set("strides", (8, 32)), _set("strides", (8, 64)), _set("strides", (8,)),
    _set("strides", None), _set("strides", (0, 0)), _set("strides", (-8, 8)),
    _set("strides", 8), _set("strides", (4, 8)), _set("strides", (32, 8)),
    _set("strides", (-40, 8)), _set("strides", ()), _set("strides", (1, 1)),
    _set("dtype", np.float32), _set("dtype", np.int8), _set("dtype", "S3"),
    _set("dtype", "foo"), _set("dtype", np.complex128), _set("dtype", np.dtype((np.float64, (2,)))),
    _set("dtype", "i2,i2,f4"),
    _del("shape"), _del("strides"), _del("dtype"),
]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("change", CHANGES)
def test_matches_numpy(layout, change):
    real = LAYOUTS[layout]()
    fake = ft.to_fake(LAYOUTS[layout]())
    assert _after(fake, change) == _after(real, change)


def test_a_view_keeps_its_storage_and_base_after_reshaping_in_place():
    a = ft.empty((3, 4))
    v = a[1:]
    v.shape = (4, 2)
    assert v.base is a and np.shares_memory(v, a) and v.storage_offset == 32
    with pytest.raises(AttributeError, match="Incompatible shape"):
        a.T.shape = (12,)


def test_internal_fields_stay_writable_and_unknown_names_raise():
    a = ft.empty((2,))
    a.flags.writeable = False
    assert not a.flags.writeable
    with pytest.raises(AttributeError):
        a.no_such_field = 1


# --- CUDA fakes: only shape is settable (core.pyx has no strides/dtype setters) ------------

@pytest.mark.parametrize("value,want", [
    ((4, 3), ((4, 3), (24, 8))), (-1, ((12,), (8,))), (12, ((12,), (8,))),
    ([2, -1], ((2, 6), (48, 8))), ((1, 12, 1), ((1, 12, 1), (96, 8, 8))),
])
def test_cuda_shape_setter_contiguous(value, want):
    a = cuda((3, 4))
    a.shape = value
    assert (a.shape, a.strides) == want and a.fake_device == "cuda:0"


def test_cuda_shape_setter_errors():
    with pytest.raises(AttributeError, match="Incompatible shape"):
        cuda((3, 4)).T.shape = (12,)
    with pytest.raises(ValueError):
        cuda((3, 4)).shape = (5,)
    with pytest.raises(ValueError):
        cuda((3, 4)).shape = (-1, -1)
    for name, value in (("strides", (8, 8)), ("dtype", np.float32)):
        with pytest.raises(AttributeError):
            setattr(cuda((3, 4)), name, value)


def test_cuda_shape_setter_follows_cupys_stride_rule():
    """_get_strides_for_nocopy_reshape on a strided view: (3, 2) with strides (32, 16)."""
    a = cuda((3, 4))[:, ::2]
    a.shape = (3, 2, 1)
    assert a.strides == (32, 16, 16)
    a.shape = (6,)  # rows 32 bytes apart, two items 16 apart: one stride of 16
    assert a.strides == (16,)
    b = cuda((3, 4))[:, ::3]
    with pytest.raises(AttributeError):
        b.shape = (6,)
