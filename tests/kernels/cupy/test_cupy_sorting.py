"""CuPy's rules for sorting, searching, where, clip, round, conj, nan_to_num, isclose,
count_nonzero, trace and ptp on CUDA fakes (kernels/cupy/sorting.py), checked against
facts read from CuPy 14's source; no GPU needed."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import cuda  # noqa: E402
from faketensor import DataDependentError, UnsupportedOperationError  # noqa: E402

F8, I8 = np.float64, np.int64
AxisError = np.exceptions.AxisError



def fresh_c(r, shape, dtype):
    st = ft.empty(shape, dtype).strides
    return (r.shape == shape and r.base is None and r.strides == st
            and r.dtype == np.dtype(dtype) and r.fake_device == "cuda:0")


AWKWARD = {
    "C": lambda: cuda((3, 4)), "F": lambda: cuda((3, 4), order="F"),
    "T": lambda: cuda((4, 3)).T, "neg": lambda: cuda((3, 4))[::-1, ::-1],
    "strided": lambda: cuda((6, 8))[::2, ::2],
    "bcast": lambda: ft.empty_strided((3, 4), (0, 8), F8, device="cuda:0"),
}


@pytest.mark.parametrize("kind", AWKWARD)
@pytest.mark.parametrize("op,shape,dtype", [
    (lambda a: cupy.sort(a), (3, 4), F8), (lambda a: cupy.sort(a, axis=0), (3, 4), F8),
    (lambda a: cupy.sort(a, axis=None), (12,), F8), (lambda a: np.sort(a), (3, 4), F8),
    (lambda a: cupy.argsort(a), (3, 4), I8), (lambda a: a.argsort(axis=None), (12,), I8),
    (lambda a: cupy.partition(a, 1), (3, 4), F8), (lambda a: cupy.clip(a, 0, 1), (3, 4), F8),
    (lambda a: a.clip(0), (3, 4), F8), (lambda a: cupy.where(a > 0, a, 0), (3, 4), F8),
    (lambda a: np.where(a > 0, a, 0), (3, 4), F8), (lambda a: a.round(2), (3, 4), F8),
    (lambda a: cupy.around(a), (3, 4), F8), (lambda a: cupy.isclose(a, a.T.T), (3, 4), bool),
    (lambda a: cupy.allclose(a, 1.0), (), bool), (lambda a: cupy.count_nonzero(a), (), I8),
    (lambda a: cupy.count_nonzero(a, axis=0), (4,), I8), (lambda a: cupy.trace(a), (), F8),
    (lambda a: cupy.ptp(a, axis=1), (3,), F8), (lambda a: cupy.searchsorted(a[0], a), (3, 4), I8),
])
def test_fresh_c_for_any_layout(kind, op, shape, dtype):
    assert fresh_c(op(AWKWARD[kind]()), shape, dtype)


def test_argsort_inner_axis_is_a_rolled_view():
    # _ndarray_argsort: rollaxis(idx_array, -1, axis) of a fresh (4, 5, 3) index array
    r = cupy.argsort(cuda((3, 4, 5)), axis=0)
    assert r.shape == (3, 4, 5) and r.strides == (8, 120, 24) and r.base is not None
    r = cuda((3, 4)).argsort(axis=0)
    assert r.shape == (3, 4) and r.strides == (8, 24) and r.dtype == I8
    assert fresh_c(cuda(()).argsort(), (1,), I8)  # atleast_1d
    assert fresh_c(cuda((3, 0)).argsort(), (3, 0), I8)


@pytest.mark.parametrize("shape,kth,axis,rshape,strides", [
    ((3, 40), 1, 0, (3, 40), (8, 24)),        # length < 32: argsort path, rolled back
    ((3, 40), 3, -1, (3, 40), (320, 8)),      # sz < 1: argsort path
    ((3, 300), 3, -1, (3, 300), (2400, 8)),   # selection kernel: arange(900).reshape
    ((3, 0), 0, -1, (0,), (0,)),              # empty axis: cupy.empty((0,), int64)
    ((5,), 2, None, (5,), (8,)),
])
def test_argpartition(shape, kth, axis, rshape, strides):
    r = cupy.argpartition(cuda(shape), kth, axis=axis)
    assert (r.shape, r.strides, r.dtype) == (rshape, strides, I8)


def test_in_place_sort_and_partition():
    a = cuda((3, 4))
    assert a.sort() is None and a.partition(2, axis=0) is None
    assert cuda((4, 1)).T.sort() is None  # C-contiguous view
    with pytest.raises(NotImplementedError):
        cuda((3, 4), order="F").sort()
    with pytest.raises(NotImplementedError):
        cuda((4, 3)).T.partition(1)
    with pytest.raises(AxisError):
        cuda(()).sort()
    with pytest.raises(AxisError):
        a.sort(axis=2)
    with pytest.raises(TypeError):
        a.sort(axis=None)
    with pytest.raises(ValueError):
        a.sort(kind="quicksort")
    with pytest.raises(ValueError):
        a.partition(4)
    with pytest.raises(ValueError):
        cupy.argpartition(a, -5)


def test_sort_copies():
    assert fresh_c(cupy.sort(cuda(()), axis=None), (1,), F8)
    with pytest.raises(AxisError):
        cupy.sort(cuda(()))
    assert fresh_c(cupy.sort(cuda((0, 3))), (0, 3), F8)


@pytest.mark.parametrize("dt,out", [(bool, np.float16), (np.int8, np.int8), (np.float32, np.float32),
                                    (np.complex64, np.complex64), (np.uint16, np.uint16)])
def test_round_dtypes(dt, out):
    # core.pyx _round_ufunc: '?q->e' (bool rounds to float16), else same type
    assert fresh_c(cupy.around(cuda((3,), dt)), (3,), out)
    assert fresh_c(cuda((3,), dt).round(-1), (3,), out)


def test_where_dtypes_and_errors():
    c = cuda((3, 1), bool)
    assert fresh_c(cupy.where(c, cuda((4,), np.int8), cuda((4,), np.float32)), (3, 4), np.float32)
    assert fresh_c(cupy.where(cuda((3,), F8), 1, 2), (3,), I8)
    assert fresh_c(cupy.where(c, cuda((3, 1), np.float32), 2.0), (3, 1), np.float32)
    with pytest.raises(ValueError):
        cupy.where(c, 1)
    with pytest.raises(DataDependentError):
        cupy.where(c)
    with pytest.raises(AttributeError):
        cupy.where(True, cuda((3,)), 1)
    with pytest.raises(TypeError):
        cupy.where(np.ones(3, bool), cuda((3,)), 1)
    with pytest.raises(ValueError):
        cupy.where(c, cuda((4,)), cuda((5,)))


def test_clip():
    assert fresh_c(cupy.clip(cuda((3,), np.int16), 0, 5), (3,), np.int16)
    assert fresh_c(cuda((3,), np.float32).clip(None, 1), (3,), np.float32)
    with pytest.raises(TypeError):
        cupy.clip(cuda((3,), complex), 0, 1)  # no complex loop
    with pytest.raises(TypeError):
        cuda((3,), bool).clip()  # no default bound for bool
    with pytest.raises(OverflowError):
        cupy.clip(cuda((3,), np.int8), 0, 1000)
    out = cuda((3, 4))
    assert cupy.clip(cuda((3, 4)), 0, 1, out=out) is out


def test_conj():
    a = cuda((3,))
    assert a.conj() is a and a.conjugate() is a
    assert fresh_c(cuda((4, 3), np.complex64).T.conj(), (3, 4), np.complex64)


def test_nan_to_num():
    a = cuda((4, 3)).T  # empty_like(x): order K
    r = cupy.nan_to_num(a)
    assert r.shape == (3, 4) and r.strides == (8, 24) and r.base is None
    assert cupy.nan_to_num(a, copy=False) is a
    assert fresh_c(cupy.nan_to_num(cuda((3,), np.complex64)), (3,), np.complex64)
    assert fresh_c(cupy.nan_to_num(cuda((3,), bool)), (3,), bool)
    with ft.FakeMode(device="cuda:0"):
        assert fresh_c(cupy.nan_to_num(1.5), (), F8)


def test_isclose_allclose():
    assert fresh_c(cupy.isclose(cuda((3, 1), np.int32), cuda((4,), np.float32)), (3, 4), bool)
    assert fresh_c(cupy.isclose(cuda((3,), np.complex64), 1), (3,), bool)
    assert fresh_c(cupy.allclose(cuda((3,)), cuda((3,))), (), bool)  # 0-d, not a bool
    with pytest.raises(ValueError):
        cupy.isclose(cuda((3,)), cuda((4,)))


def test_searchsorted():
    assert fresh_c(cupy.searchsorted(cuda((5,)), cuda((2, 3), np.float32)), (2, 3), I8)
    assert fresh_c(cupy.searchsorted(cuda((0,)), cuda((2,))), (2,), I8)
    assert fresh_c(cuda((5,)).searchsorted(1.0), (), I8)
    with pytest.raises(ValueError):
        cupy.searchsorted(cuda((2, 2)), 1)
    with pytest.raises(ValueError):
        cupy.searchsorted(cuda(()), 1)
    with pytest.raises(NotImplementedError):
        cupy.searchsorted(cuda((5,)), [1, 2])
    with pytest.raises(TypeError):
        cupy.searchsorted(cuda((5,)), 1, sorter=cuda((5,)))
    with pytest.raises(ValueError):
        cupy.searchsorted(cuda((5,)), 1, sorter=cuda((4,), I8))


def test_count_nonzero_trace_ptp():
    assert fresh_c(cupy.count_nonzero(cuda((3, 0), np.int8)), (), I8)
    assert fresh_c(np.count_nonzero(cuda((3, 4)), axis=(0, 1)), (), I8)
    assert fresh_c(cupy.trace(cuda((3, 4), np.int8)), (), I8)
    assert fresh_c(cuda((2, 3, 4)).trace(axis1=1, axis2=2), (2,), F8)
    with pytest.raises(ValueError):
        cupy.trace(cuda((3,)))
    assert fresh_c(cupy.ptp(cuda((3, 4), np.uint8), axis=0, keepdims=True), (1, 4), np.uint8)
    with pytest.raises(TypeError):
        cupy.ptp(cuda((3,), bool))  # boolean subtract


@pytest.mark.parametrize("op", [
    lambda a: cupy.nonzero(a), lambda a: a.nonzero(), lambda a: cupy.argwhere(a),
    lambda a: cupy.flatnonzero(a), lambda a: cupy.unique(a), lambda a: cupy.where(a),
    lambda a: np.nonzero(a),
])
def test_data_dependent(op):
    with pytest.raises(DataDependentError):
        op(cuda((3, 4)))


def test_patched_inside_mode():
    with ft.FakeMode(device="cuda:0"):
        a = cupy.zeros((3, 4))
        assert fresh_c(cupy.sort(a), (3, 4), F8)
        assert fresh_c(cupy.where(a > 0, a, 1), (3, 4), F8)
        assert fresh_c(cupy.count_nonzero(a), (), I8)
        assert fresh_c(cupy.isclose(a, 0), (3, 4), bool)


# --- lexsort / msort / sort_complex: cupy/_sorting/sort.py -------------------------------------

def test_lexsort():
    """sort.py ``lexsort``: 1-d keys give ``cupy.array(0, intp)`` (0-d); (k, N) keys a fresh
    (N,) intp (a non-C input is copied first); rank > 2 NotImplementedError; thrust has no
    structured-dtype keys (TypeError)."""
    assert fresh_c(cupy.lexsort(cuda((2, 5))), (5,), I8)
    assert fresh_c(cupy.lexsort(cuda((5, 2), order="F").T), (5,), I8)
    assert fresh_c(cupy.lexsort(cuda((3, 0), np.int8)), (0,), I8)
    assert fresh_c(cupy.lexsort(cuda((5,))), (), I8)
    assert fresh_c(np.lexsort(cuda((2, 5), np.float16)), (5,), I8)
    with pytest.raises(NotImplementedError):
        cupy.lexsort(cuda((2, 3, 4)))
    with pytest.raises(IndexError):
        cupy.lexsort(cuda(()))
    with pytest.raises(TypeError):
        cupy.lexsort(cuda((2, 3), np.dtype([("a", "<i4")])))
    with pytest.raises(AttributeError):
        cupy.lexsort([[1, 2], [3, 4]])


def test_msort():
    """sort.py ``msort``: a DeprecationWarning, then ``sort(a, axis=0)``: a fresh C copy."""
    with pytest.warns(DeprecationWarning):
        r = cupy.msort(cuda((4, 3), order="F"))
    assert fresh_c(r, (4, 3), F8)
    with pytest.warns(DeprecationWarning):
        with pytest.raises(AxisError):
            cupy.msort(cuda(()))


@pytest.mark.parametrize("dt,want", [(np.int8, np.complex64), (np.uint16, np.complex64),
                                     (np.complex64, np.complex64), (np.float16, np.complex128),
                                     (np.int32, np.complex128), (bool, np.complex128),
                                     (np.float64, np.complex128)])
def test_sort_complex_dtype(dt, want):
    """sort.py ``sort_complex``: 'bhBHF' -> complex64, else complex128 (``astype`` copy)."""
    r = cupy.sort_complex(cuda((2, 5), dt))
    assert fresh_c(r, (2, 5), want)


def test_sort_complex_layouts():
    """``a.astype(...)`` keeps order K, then ``a.sort()`` in place needs C-contiguity: an
    F-ordered (or transposed) 2-d input raises NotImplementedError; a 0-d one AxisError;
    a strided 1-d input is copied C and sorts."""
    assert fresh_c(cupy.sort_complex(cuda((8,))[::-2]), (4,), np.complex128)
    assert fresh_c(cupy.sort_complex(cuda((3, 8))[:, ::2]), (3, 4), np.complex128)
    with pytest.raises(NotImplementedError):
        cupy.sort_complex(cuda((3, 4), order="F"))
    with pytest.raises(NotImplementedError):
        cupy.sort_complex(cuda((4, 3)).T)
    with pytest.raises(AxisError):
        cupy.sort_complex(cuda(()))
    assert fresh_c(cupy.sort_complex(cuda((1, 4), order="F")), (1, 4), np.complex128)
    with ft.FakeMode(device="cuda:0"):
        r = np.sort_complex(cupy.zeros((6,), cupy.int16))
    assert fresh_c(r, (6,), np.complex64)
