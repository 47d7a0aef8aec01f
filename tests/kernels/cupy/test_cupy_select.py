"""CuPy selection, set, packing, memory and polynomial rules and the cupy.ndarray-only
methods on CUDA fakes (kernels/cupy/select.py), checked against facts read from CuPy 14's
source (each case names its file); no GPU needed."""
import warnings

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import AWKWARD, cuda  # noqa: E402

I8 = np.int64


def fresh_c(r, shape, dtype):
    """A fresh C-contiguous CuPy allocation on cuda:0 (``_ndarray_init``)."""
    dt = np.dtype(dtype)
    assert r.shape == tuple(shape) and r.dtype == dt
    assert r.flags.c_contiguous and r.base is None and r.flags.owndata
    assert r.fake_device == "cuda:0"
    if 0 not in r.shape:
        exp, st = dt.itemsize, []
        for n in reversed(r.shape):
            st.append(exp)
            exp *= n
        assert r.strides == tuple(reversed(st))


# --- take_along_axis / put_along_axis: _indexing/indexing.py, lib/_shape_base.py ----------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_take_along_axis_fresh_c(key):
    """indexing.py ``take_along_axis``: ``a[tuple(fancy_index)]`` -> ``_getitem_multiple``:
    a fresh C array of the broadcast index shape, whatever a's layout."""
    a = AWKWARD[key]()
    n = a.shape[1]
    idx = cuda((a.shape[0], 5, a.shape[2]), I8)
    r = cupy.take_along_axis(a, idx, 1)
    fresh_c(r, (a.shape[0], 5, a.shape[2]), a.dtype)
    assert not np.shares_memory(r, a)
    r = cupy.take_along_axis(a, cuda((1, n, 1), np.int32), 2)  # broadcast index
    fresh_c(r, (a.shape[0], n, 1) if a.shape[0] else (0, n, 1), a.dtype)
    fresh_c(cupy.take_along_axis(a, cuda((7,), np.uint8), None), (7,), a.dtype) \
        if a.size else None


def test_take_along_axis_errors():
    """indexing.py: IndexError for non-integer indices, ValueError for a rank mismatch or
    an index that does not broadcast (internal.pyx ``_broadcast_shapes``), AxisError."""
    a = cuda((3, 4))
    with pytest.raises(IndexError):
        cupy.take_along_axis(a, cuda((3, 4)), 1)
    with pytest.raises(IndexError):
        cupy.take_along_axis(a, cuda((3, 4), bool), 1)
    with pytest.raises(ValueError):
        cupy.take_along_axis(a, cuda((3,), I8), 1)
    with pytest.raises(ValueError):
        cupy.take_along_axis(a, cuda((2, 4), I8), 1)
    with pytest.raises(np.exceptions.AxisError):
        cupy.take_along_axis(a, cuda((3, 4), I8), 2)
    with pytest.raises(IndexError):  # _take: a non-empty take from an empty array
        cupy.take_along_axis(cuda((0,)), cuda((2,), I8), 0)
    fresh_c(np.take_along_axis(a, cuda((3, 2), I8), 1), (3, 2), np.float64)


def test_put_along_axis_in_place_and_checks():
    """lib/_shape_base.py ``put_along_axis``: ``arr[fancy] = values`` (a CuPy value loses
    its leading unit dims first); axis=None is ``cupy.put`` for 1-d indices only."""
    a = cuda((3, 4))
    assert cupy.put_along_axis(a, cuda((3, 2), I8), 1.0, 1) is None
    assert cupy.put_along_axis(a, cuda((3, 2), I8), cuda((1, 1, 3, 2)), 1) is None
    assert cupy.put_along_axis(a, cuda((5,), I8), cuda((5,)), None) is None
    with pytest.raises(ValueError):
        cupy.put_along_axis(a, cuda((3, 2), I8), cuda((3, 3)), 1)
    with pytest.raises(NotImplementedError):
        cupy.put_along_axis(a, cuda((3, 2), I8), 1.0, None)
    with pytest.raises(IndexError):
        cupy.put_along_axis(a, cuda((3, 2)), 1.0, 1)


# --- choose / compress / extract: _routines_indexing.pyx, indexing.py -------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_choose_fresh_c_of_choices_dtype(key):
    """_routines_indexing.pyx ``_ndarray_choose``: ``ndarray(ba.shape[1:], choices.dtype)``."""
    a = AWKWARD[key]()
    idx = cuda(a.shape[1:], I8)
    r = cupy.choose(idx, cupy.broadcast_to(a.astype(np.float32), a.shape), mode="wrap")
    fresh_c(r, a.shape[1:], np.float32)
    r = idx.choose(a, mode="clip")
    fresh_c(r, a.shape[1:], a.dtype)


def test_choose_broadcast_out_and_errors():
    """``_ndarray_choose``: a and choices[i] broadcast; mode 'raise' reads the values
    (``(a < n).all()``); out must have choices' dtype (ElementwiseKernel 'T y')."""
    fresh_c(cupy.choose(cuda((4,), I8), cuda((2, 3, 1), np.float32), mode="wrap"), (3, 4),
            np.float32)
    fresh_c(cupy.choose(cuda((2, 3, 4), I8), cuda((5, 4)), mode="clip"), (2, 3, 4), np.float64)
    out = cuda((3, 4))
    assert cupy.choose(cuda((4,), I8), cuda((2, 4)), out=out, mode="wrap") is out
    with pytest.raises(ft.DataDependentError):
        cupy.choose(cuda((4,), I8), cuda((2, 4)))
    with pytest.raises(ValueError):
        cupy.choose(cuda((4,), I8), cuda((2, 4)), mode="bogus")
    with pytest.raises(ValueError):
        cupy.choose(cuda((3,), I8), cuda((2, 4)), mode="wrap")
    with pytest.raises(TypeError):
        cupy.choose(cuda((4,), I8), cuda((2, 4)), out=cuda((4,), np.float32), mode="wrap")
    with pytest.raises(ValueError):
        cupy.choose(cuda((4,), I8), cuda((2, 4)), out=cuda((3,)), mode="wrap")
    with pytest.raises(AttributeError):
        cupy.choose(cuda((4,), I8), [cuda((4,))], mode="wrap")


def test_compress_and_extract():
    """``_ndarray_compress``: ``take(nonzero(condition)[0], axis)``; the count is known only
    for an empty condition; a scalar or non-1-d host condition is a ValueError."""
    a = cuda((3, 4))
    fresh_c(cupy.compress(cuda((0,), bool), a, axis=1), (3, 0), np.float64)
    fresh_c(cupy.compress([], a), (0,), np.float64)
    fresh_c(a.T.compress(cuda((0,), I8), axis=0), (0, 3), np.float64)
    fresh_c(cuda(()).compress([]), (0,), np.float64)
    with pytest.raises(ft.DataDependentError):
        cupy.compress([True, False], a, axis=0)
    with pytest.raises(ft.DataDependentError):
        a.compress(cuda((2, 2), bool))
    with pytest.raises(ValueError):
        a.compress(True)
    with pytest.raises(ValueError):
        cupy.compress([[1]], a)
    with pytest.raises(np.exceptions.AxisError):
        a.compress([], axis=2)
    out = cuda((3, 0))
    assert a.compress([], axis=1, out=out) is out
    with pytest.raises(ValueError):
        a.compress([], axis=1, out=cuda((3, 1)))
    with pytest.raises(TypeError):
        a.compress([], axis=1, out=cuda((3, 0), np.float32))
    fresh_c(cupy.extract(cuda((0,), bool), a), (0,), np.float64)
    with pytest.raises(ft.DataDependentError):
        cupy.extract(cuda((3, 4), bool), a)
    with pytest.raises(TypeError):
        cupy.extract(cuda((3, 4), bool), np.zeros((3, 4)))


# --- select / piecewise / putmask ---------------------------------------------------------------

def test_select():
    """indexing.py ``select``: ``empty(shape, result_type(*choicelist))``; shape from the
    broadcast conditions and choices; copyto's casting (same_kind) for the default."""
    r = cupy.select([cuda((3, 1), bool), cuda((4,), bool)], [cuda((3, 4)), cuda((4,), np.float32)], 2)
    fresh_c(r, (3, 4), np.float64)
    fresh_c(cupy.select([cuda((3, 4), bool)], [cuda((), np.int32)]), (3, 4), np.int32)
    fresh_c(cupy.select([cuda((4,), bool)], [cuda((2, 1), np.int8)]), (2, 4), np.int8)
    with pytest.raises(ValueError):
        cupy.select([cuda((3, 4), np.int8)], [cuda((3, 4))])
    with pytest.raises(TypeError):
        cupy.select([cuda((3, 4), bool)], [cuda((3, 4), np.int32)], 1.5)
    with pytest.raises(TypeError):
        cupy.select([cuda((3, 4), bool)], [cuda((3, 4))], cuda(()))
    with pytest.raises(TypeError):
        cupy.select([cuda((3, 4), bool)], [np.zeros((3, 4))])
    with pytest.raises(ValueError):
        cupy.select([cuda((3, 4), bool)], [])
    with pytest.raises(ValueError):
        cupy.select([], [])
    with pytest.raises(ValueError):
        cupy.select([cuda((3, 4), bool), cuda((5,), bool)], [cuda((3, 4)), cuda((3, 4))])


def test_piecewise_and_putmask():
    """piecewise.py: ``zeros``/``full(x.shape, x.dtype)`` written by a kernel (fresh C);
    insert.py ``putmask``: type, shape and safe-cast checks, in place (None)."""
    x = cuda((3, 4)).T
    fresh_c(cupy.piecewise(x, [cuda((4, 3), bool)], [1.0]), (4, 3), np.float64)
    fresh_c(cupy.piecewise(x, [cuda((4, 3), bool)], [1.0, 2.0]), (4, 3), np.float64)
    with pytest.raises(ValueError):
        cupy.piecewise(x, [cuda((4, 3), bool)], [1.0, 2.0, 3.0])
    with pytest.raises(NotImplementedError):
        cupy.piecewise(x, [cuda((4, 3), bool)], [lambda v: v])
    a = cuda((3, 4), np.int32)
    assert cupy.putmask(a, cuda((3, 4), bool), 1) is None
    assert cupy.putmask(a, cuda((3, 4), bool), cuda((5,), np.int16)) is None
    with pytest.raises(TypeError):
        cupy.putmask(a, cuda((3, 4), bool), cuda((3, 4)))
    with pytest.raises(ValueError):
        cupy.putmask(a, cuda((4, 3), bool), 1)
    with pytest.raises(TypeError):
        cupy.putmask(np.zeros((3, 4)), cuda((3, 4), bool), 1)
    with pytest.raises(TypeError):
        cupy.putmask(a, cuda((3, 4), bool), [1, 2])


# --- delete: _manipulation/add_remove.py --------------------------------------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_delete_int_and_slice(key):
    """add_remove.py ``delete``: ``compress(mask, arr, axis)``: fresh C, the axis shortened by
    the int / slice; axis=None ravels first."""
    a = AWKWARD[key]()
    fresh_c(cupy.delete(a, -1, axis=1), (a.shape[0], a.shape[1] - 1, a.shape[2]), a.dtype)
    fresh_c(cupy.delete(a, slice(None, None, 2), axis=2),
            (a.shape[0], a.shape[1], a.shape[2] // 2), a.dtype)
    if a.size:
        fresh_c(cupy.delete(a, -1), (a.size - 1,), a.dtype)
    fresh_c(cupy.delete(a, slice(5, 9), axis=1), a.shape, a.dtype)


def test_delete_errors():
    a = cuda((3, 4))
    with pytest.raises(IndexError):
        cupy.delete(a, 3, axis=0)
    with pytest.raises(ValueError):
        cupy.delete(np.zeros(3), 1)
    with pytest.raises(np.exceptions.AxisError):
        cupy.delete(a, 1, axis=2)
    with pytest.raises(ValueError):
        cupy.delete(a, np.array([True, False]), axis=1)
    with pytest.raises(ft.DataDependentError):
        cupy.delete(a, [0, 0, 1], axis=1)
    with pytest.raises(ft.DataDependentError):
        cupy.delete(a, np.ones(4, bool), axis=1)


# --- packbits / unpackbits: _binary/packing.py ----------------------------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_packbits_unpackbits(key):
    """packing.py: ``zeros(((size + 7) // 8,), uint8)`` / ``ndarray((size * 8,), uint8)``."""
    a = AWKWARD[key]()
    b = a.astype(bool)
    fresh_c(cupy.packbits(b), ((a.size + 7) // 8,), np.uint8)
    fresh_c(cupy.packbits(a.astype(np.int16), bitorder="little"), ((a.size + 7) // 8,), np.uint8)
    fresh_c(cupy.unpackbits(a.astype(np.uint8)), (a.size * 8,), np.uint8)


def test_packbits_errors():
    with pytest.raises(TypeError):
        cupy.packbits(cuda((3,)))
    with pytest.raises(NotImplementedError):
        cupy.packbits(cuda((3,), bool), axis=0)
    with pytest.raises(ValueError):
        cupy.packbits(cuda((3,), bool), bitorder="middle")
    with pytest.raises(TypeError):
        cupy.unpackbits(cuda((3,), np.int8))
    with pytest.raises(NotImplementedError):
        cupy.unpackbits(cuda((3,), np.uint8), axis=0)


# --- astype / require / asarray_chkfinite / asfarray ---------------------------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_astype_function_keeps_order(key):
    """creation/basic.py ``astype``: ``x.astype(dtype, copy=copy)``: order K, the array itself
    when copy=False and the dtype agrees."""
    a = AWKWARD[key]()
    r = cupy.astype(a, np.float32)
    assert r.shape == a.shape and r.dtype == np.float32 and r.base is None
    assert not np.shares_memory(r, a) or a.size == 0
    if a.flags.f_contiguous and not a.flags.c_contiguous:
        assert r.flags.f_contiguous
    assert cupy.astype(a, a.dtype, copy=False) is a
    assert cupy.astype(a, np.int8, copy=False).dtype == np.int8
    with pytest.raises(TypeError):
        cupy.astype(np.zeros(3), np.float32)


def test_require():
    """kind.py ``require``: C/F/O requirements through ``cupy.array(order=..., copy=...)``."""
    a = cuda((3, 4))
    assert cupy.require(a) is a
    assert cupy.require(a, requirements="C") is a
    t = a.T
    r = cupy.require(t, requirements=["C"])
    fresh_c(r, (4, 3), np.float64)
    assert cupy.require(t, requirements="F") is t
    o = cupy.require(a, requirements=["O"])
    fresh_c(o, (3, 4), np.float64)
    r = cupy.require(t, np.float32)  # asanyarray: an order-K copy
    assert r.dtype == np.float32 and r.flags.f_contiguous and r.base is None
    r = cupy.require(t, np.float32, "O")  # cupy.array(order='A', copy=True)
    assert r.dtype == np.float32 and r.flags.f_contiguous and r.base is None
    with pytest.raises(ValueError):
        cupy.require(a, requirements=["A"])  # not one of CuPy's possible_flags
    with ft.FakeMode(device="cuda:0"):
        r = cupy.require(np.zeros((2, 3)), requirements="F")
    assert r.fake_device == "cuda:0" and r.flags.f_contiguous
    with pytest.raises(ValueError):
        cupy.require(a, requirements=["X"])
    with pytest.raises(ValueError):
        cupy.require(a, requirements=["C", "F"])


def test_asarray_chkfinite_and_asfarray():
    """kind.py: ``asarray_chkfinite`` reads ``isfinite(a).all()`` (data-dependent unless
    empty); ``asfarray`` makes a non-inexact dtype float64."""
    a = cuda((3, 4))
    with pytest.raises(ft.DataDependentError):
        cupy.asarray_chkfinite(a)
    e = cuda((0, 3))
    assert cupy.asarray_chkfinite(e) is e
    assert cupy.asarray_chkfinite(e, np.float32).dtype == np.float32
    assert cupy.asfarray(a) is a
    fresh_c(cupy.asfarray(cuda((3,), np.int32)), (3,), np.float64)
    fresh_c(cupy.asfarray(cuda((3,), np.int32), np.int8), (3,), np.float64)
    fresh_c(cupy.asfarray(cuda((3,)), np.complex64), (3,), np.complex64)


# --- memory: _misc/memory_ranges.py, _core/_memory_range.pyx -----------------------------------

def test_shares_memory_compares_element_pointers():
    """memory_ranges.py ``shares_memory``: equal element start addresses, not byte overlap;
    ``may_share_memory``: same allocation and overlapping byte bounds. Python bools."""
    a = cuda((3, 4))
    assert cupy.shares_memory(a, a) is True
    assert cupy.shares_memory(a[:, ::2], a[:, 1::2]) is False
    assert cupy.may_share_memory(a[:, ::2], a[:, 1::2]) is True
    i = a.view(np.int32)
    assert cupy.shares_memory(a, i[:, 1::2]) is False  # starts 4 bytes into each float
    assert cupy.shares_memory(a, i[:, 2::2]) is True
    assert np.shares_memory(a, a[1:]) is True
    assert cupy.shares_memory(a, cuda((3, 4))) is False
    assert cupy.may_share_memory(a[:1], a[2:]) is False
    assert cupy.shares_memory(a[:0], a[:0]) is False
    c = cuda((4,), np.complex128)
    assert cupy.shares_memory(c, c.imag) is True  # x.real and x.imag pointers both count
    assert cupy.shares_memory(c.real, c.imag) is False
    assert cupy.shares_memory(a, a[1:], max_work="MAY_SHARE_BOUNDS") is True
    with pytest.raises(NotImplementedError):
        cupy.shares_memory(a, a[1:], max_work=10)
    with pytest.raises(NotImplementedError):
        cupy.may_share_memory(a, a, max_work=0)


def test_byte_bounds_and_size():
    """byte_bounds needs device pointers; ``size`` is a Python int."""
    a = cuda((3, 4))
    with pytest.raises(ft.UnsupportedOperationError):
        cupy.byte_bounds(a)
    assert cupy.size(a) == 12 and cupy.size(a, 1) == 4


# --- set operations and unique_*: _logic/truth.py, add_remove.py ------------------------------

@pytest.mark.parametrize("key", list(AWKWARD))
def test_in1d_isin(key):
    """truth.py ``in1d``: a fresh (size,) bool; ``isin``: its reshape to element.shape,
    a view of that temporary."""
    a = AWKWARD[key]()
    fresh_c(cupy.in1d(a, cuda((5,), np.int32)), (a.size,), bool)
    r = cupy.isin(a, cuda((5,), np.int32), invert=True)
    assert r.shape == a.shape and r.dtype == bool and r.flags.c_contiguous
    assert r.base is not None and not np.shares_memory(r, a)


def test_set_operations():
    a = cuda((3, 4))
    for fn in (cupy.union1d, cupy.intersect1d, cupy.setdiff1d, cupy.setxor1d):
        with pytest.raises(ft.DataDependentError):
            fn(a, a)
    for name in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
        with pytest.raises(ft.DataDependentError):
            getattr(cupy, name)(a)
    fresh_c(cupy.setxor1d(cuda((0,)), cuda((0, 2), np.int32), assume_unique=True), (0,),
            np.float64)
    fresh_c(cupy.setdiff1d(cuda((0, 2), np.int8), a, assume_unique=True), (0,), np.int8)
    fresh_c(cupy.intersect1d(cuda((0,), np.int8), a, assume_unique=True), (0,), np.float64)


def test_trim_zeros():
    """add_remove.py ``trim_zeros``: 0-d returns filt; >1-d NotImplementedError; a trim with
    neither 'f' nor 'b' is ``filt[0:size]``, a view; otherwise the values decide."""
    z = cuda(())
    assert cupy.trim_zeros(z) is z
    v = cuda((5,))[::2]
    r = cupy.trim_zeros(v, trim="")
    assert r.shape == (3,) and r.strides == (16,) and np.shares_memory(r, v) and r is not v
    with pytest.raises(ft.DataDependentError):
        cupy.trim_zeros(v)
    with pytest.raises(NotImplementedError):
        cupy.trim_zeros(cuda((2, 2)))


# --- polynomials: lib/_routines_poly.py ---------------------------------------------------------

def test_polynomials():
    fresh_c(cupy.polyadd(cuda((3,)), cuda((5,), np.int32)), (5,), np.float64)
    fresh_c(cupy.polyadd(cuda((3,), np.int8), 2), (3,), np.int64)
    fresh_c(cupy.polysub(cuda((6,), np.float32), cuda((5,), np.float32)), (6,), np.float32)
    fresh_c(cupy.polysub(cuda((2,), np.int16), cuda((5,), np.int32)), (5,), np.int32)
    with pytest.raises(TypeError):  # out -= (2 * out - a1): int64 into a bool array
        cupy.polysub(cuda((6,), bool), cuda((5,), bool))
    with pytest.raises(ValueError):
        cupy.polyadd(cuda((2, 2)), cuda((2,)))
    with pytest.raises(TypeError):
        cupy.polyadd([1, 2], cuda((2,)))
    with pytest.raises(ft.DataDependentError):
        cupy.polymul(cuda((3,)), cuda((2,)))
    fresh_c(cupy.polyval(cuda((3,)), cuda((2, 5), np.float32)), (2, 5), np.float64)
    fresh_c(cupy.polyval(cuda((3,), np.int32), 2), (), np.int64)
    fresh_c(cupy.polyval(cuda((0,), np.float32), cuda((4,), np.float32)), (4,), np.float32)
    fresh_c(cupy.polyval(cuda((3,), bool), cuda((4,), bool)), (4,), bool)
    with pytest.raises(TypeError):
        cupy.polyval(cuda(()), cuda((4,)))
    with pytest.raises(ValueError):
        cupy.polyval(cuda((2, 2)), cuda((4,)))
    fresh_c(cupy.roots(cuda((1,))), (0,), np.float64)
    with pytest.raises(ft.DataDependentError):
        cupy.roots(cuda((3,)))
    with pytest.raises(TypeError):
        cupy.roots(cuda(()))
    with pytest.raises(NotImplementedError):
        cupy.roots(cuda((3,), bool))
    assert cupy.poly(cuda((0,))) == 1.0
    with pytest.raises(ValueError):
        cupy.poly(cuda((2, 3)))
    with pytest.raises(ft.DataDependentError):
        cupy.poly(cuda((3, 3)))
    with pytest.raises(ft.UnsupportedOperationError):
        cupy.poly(cuda((3,)))
    with pytest.raises(ValueError):
        cupy.polyfit(cuda((4,)), cuda((4,)), -1)
    with pytest.raises(TypeError):
        cupy.polyfit(cuda((4,)), cuda((3,)), 1)
    with pytest.raises(ft.UnsupportedOperationError):
        cupy.polyfit(cuda((4,)), cuda((4,)), 1)


def test_apply_along_axis_unsupported():
    with pytest.raises(ft.UnsupportedOperationError):
        cupy.apply_along_axis(lambda v: v, 0, cuda((3, 4)))
    with pytest.raises(ft.UnsupportedOperationError):
        cupy.apply_over_axes(cupy.sum, cuda((3, 4)), [0])


# --- ndarray methods: core.pyx ------------------------------------------------------------------

def test_cuda_only_methods_absent_on_cpu_fakes():
    """NumPy 2's ndarray has no ptp / reduced_view / set / scatter_*: CPU fakes raise
    AttributeError as np.ndarray does; CUDA fakes have them as cupy.ndarray does."""
    c = ft.empty((2, 3))
    for name in ("ptp", "reduced_view", "set", "scatter_add", "scatter_max", "scatter_min",
                 "toDlpack", "mdspan"):
        assert not hasattr(c, name) and not hasattr(np.empty(1), name)
        assert hasattr(cuda((2, 3)), name)


@pytest.mark.parametrize("key", list(AWKWARD))
def test_ptp_method(key):
    """_routines_statistics.pyx ``_ndarray_ptp``: ``amax`` then ``-=``: fresh C."""
    a = AWKWARD[key]()
    if a.size == 0:
        with pytest.raises(ValueError):
            a.ptp()
        return
    fresh_c(a.ptp(), (), a.dtype)
    fresh_c(a.ptp(axis=1, keepdims=True), (a.shape[0], 1, a.shape[2]), a.dtype)


def test_reduced_view():
    """core.pyx ``reduced_view``: self for ndim <= 1; a flat view when C-contiguous; else
    ``get_reduced_dims`` (merge dims where ``prev_stride == n * stride``) or self."""
    a = cuda((3, 4))
    r = a.reduced_view()
    assert r.shape == (12,) and r.strides == (8,) and r.base is a
    v = cuda((5,))
    assert v.reduced_view() is v
    t = a.T
    assert t.reduced_view() is t
    s = a[:, ::2]
    r = s.reduced_view()
    assert r.shape == (6,) and r.strides == (16,) and np.shares_memory(r, a)
    w = cuda((4, 1, 6, 2))[:, :, ::2]
    r = w.reduced_view()
    assert r.shape == (12, 2) and r.strides == (32, 8)
    n = cuda((3, 4))[:, ::-1]
    assert n.reduced_view() is n


def test_set_checks():
    """core.pyx ``set``: numpy.ndarray only (TypeError), same dtype (TypeError), same shape
    (ValueError), contiguous target (RuntimeError); returns None."""
    a = cuda((3, 4))
    assert a.set(np.zeros((3, 4))) is None
    assert a.T.set(np.zeros((4, 3))) is None
    with pytest.raises(TypeError):
        a.set(cuda((3, 4)))
    with pytest.raises(TypeError):
        a.set(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError):
        a.set(np.zeros((4, 3)))
    with pytest.raises(RuntimeError):
        a[:, ::2].set(np.zeros((3, 2)))


def test_scatter_methods():
    """core.pyx ``scatter_add/max/min``: a DeprecationWarning, then ``_scatter_op`` in
    place (None); the add kernel has no int8 / bool loop (TypeError)."""
    a = cuda((3, 4))
    with pytest.warns(DeprecationWarning):
        assert a.scatter_add(cuda((5,), I8), 1.0) is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert a.scatter_max(slice(None), cuda((4,))) is None
        assert a.scatter_min((cuda((2,), I8), 1), cuda((2,))) is None
        with pytest.raises(ValueError):
            a.scatter_add(cuda((5,), I8), cuda((5, 3)))
        with pytest.raises(ValueError):
            a.scatter_add(slice(None), cuda((5,)))
        with pytest.raises(TypeError):
            cuda((3,), np.int8).scatter_add(cuda((2,), I8), 1)


def test_byteswap_choose_compress_methods():
    """core.pyx ``byteswap``: TypeError for structured dtypes, one-byte items give self
    (inplace) or a C copy."""
    b = cuda((3, 4), np.int8).T
    assert b.byteswap(inplace=True) is b
    fresh_c(b.byteswap(), (4, 3), np.int8)
    with pytest.raises(TypeError):
        cuda((3,), np.dtype([("a", "<i4")])).byteswap()
    with pytest.raises(ft.UnsupportedOperationError):
        cuda((3,)).byteswap()
    with pytest.raises(ft.UnsupportedOperationError):
        cuda((3,)).toDlpack()


# --- inside FakeMode ---------------------------------------------------------------------------

def test_inside_fake_mode():
    with ft.FakeMode(device="cuda:0"):
        a = cupy.zeros((4, 5))
        r1 = cupy.take_along_axis(a, cupy.zeros((4, 1), cupy.int64), 1)
        r2 = cupy.delete(a, slice(1, 3), 1)
        r3 = cupy.packbits(a > 0)
        r4 = cupy.isin(a, a)
        r5 = a.ptp(axis=0)
        r6 = cupy.choose(cupy.zeros((5,), cupy.int64), a, mode="clip")
        r7 = cupy.require(a.T, requirements="C")
        with pytest.raises(ft.DataDependentError):
            cupy.unique_values(a)
    fresh_c(r1, (4, 1), np.float64)
    fresh_c(r2, (4, 3), np.float64)
    fresh_c(r3, (3,), np.uint8)
    assert r4.shape == (4, 5) and r4.base is not None
    fresh_c(r5, (5,), np.float64)
    fresh_c(r6, (5,), np.float64)
    fresh_c(r7, (5, 4), np.float64)
