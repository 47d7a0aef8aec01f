"""CuPy's rules for products, joining/splitting, ufunc methods, cumsum and linspace on
CUDA fakes (kernels/cupy/ops.py), checked against facts read from CuPy 14's source;
no GPU needed."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import cuda  # noqa: E402
from faketensor import UnsupportedOperationError  # noqa: E402
from faketensor.kernels.cupy import ops as cupy_ops  # noqa: E402

F8, F4, F2 = np.float64, np.float32, np.float16
AxisError = np.exceptions.AxisError



def strided(shape, strides, dtype=F8):
    return ft.empty_strided(shape, strides, dtype, device="cuda:0")


def c_strides(shape, dtype):
    return ft.empty(shape, dtype).strides


def fresh_c(r, shape, dtype=None):
    """A fresh C-contiguous CuPy allocation on cuda:0 (strides all 0 when empty)."""
    return (r.shape == shape and r.base is None and r.flags.owndata
            and r.strides == c_strides(shape, r.dtype) and r.fake_device == "cuda:0"
            and (dtype is None or r.dtype == np.dtype(dtype)))


AWKWARD = {  # (3, 4) float64 operands with every layout
    "C": lambda: cuda((3, 4)),
    "F": lambda: cuda((3, 4), order="F"),
    "T": lambda: cuda((4, 3)).T,
    "neg": lambda: cuda((3, 4))[::-1, ::-1],
    "strided": lambda: cuda((6, 8))[::2, ::2],
    "bcast": lambda: strided((3, 4), (0, 8)),
}


# --- products --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", AWKWARD)
@pytest.mark.parametrize("op", [
    lambda a, b: a @ b, lambda a, b: cupy.matmul(a, b), lambda a, b: np.matmul(a, b),
    lambda a, b: a.dot(b), lambda a, b: cupy.dot(a, b), lambda a, b: np.dot(a, b),
])
def test_products_are_fresh_c_for_any_layout(kind, op):
    a = AWKWARD[kind]()
    b = AWKWARD[kind]().T
    assert fresh_c(op(a, b), (3, 3), F8)
    assert fresh_c(op(b, a), (4, 4), F8)


@pytest.mark.parametrize("sa,sb,expected", [
    ((4,), (4,), ()), ((4,), (4, 5), (5,)), ((3, 4), (4,), (3,)),
    ((2, 3, 4), (4, 5), (2, 3, 5)), ((2, 1, 3, 4), (5, 4, 6), (2, 5, 3, 6)),
    ((4,), (2, 4, 5), (2, 5)), ((2, 3, 4), (4,), (2, 3)), ((0, 3, 4), (1, 4, 2), (0, 3, 2)),
    ((3, 0), (0, 2), (3, 2)), ((2, 3, 0), (2, 0, 5), (2, 3, 5)),
])
def test_matmul_shapes(sa, sb, expected):
    """_routines_linalg.pyx matmul: batch broadcast, 1-d operands, empty -> cupy.zeros."""
    r = cuda(sa, order="F") @ cuda(sb)
    assert fresh_c(r, expected, F8)


@pytest.mark.parametrize("d1,d2,expected", [
    (F2, F2, F2), (F4, F8, F8), (np.int8, np.uint8, np.int16), (np.bool_, np.bool_, np.bool_),
    (np.int64, np.uint64, F8), (np.complex64, F8, np.complex128), (np.int32, F4, F8),
])
def test_product_dtypes_are_promote_types(d1, d2, expected):
    a, b = cuda((2, 3), d1), cuda((3, 2), d2)
    for r in (a @ b, cupy.dot(a, b), cupy.inner(a, b.T), cupy.tensordot(a, b, 1),
              cuda((2, 2, 3), d1) @ cuda((3, 2), d2), cupy.vdot(a, b)):
        assert r.dtype == np.dtype(expected)


@pytest.mark.parametrize("op,exc", [
    (lambda: cuda((3, 4)) @ cuda((3, 4)), ValueError),
    (lambda: cuda((2, 3, 4)) @ cuda((3, 4, 5)), ValueError),  # batch 2 vs 3
    (lambda: cuda((2, 3, 4)) @ cuda((5, 5)), ValueError),
    (lambda: cupy.matmul(cuda(()), cuda((3,))), ValueError),
    (lambda: cuda((3,)) @ 2, TypeError),  # _core.matmul(_ndarray_base a, _ndarray_base b)
    (lambda: 2 @ cuda((3,)), TypeError),
    (lambda: cupy.matmul(cuda((3,)), np.ones(3)), TypeError),
    (lambda: cuda((3, 4)).dot(2), TypeError),  # ndarray.dot(self, _ndarray_base b)
    (lambda: cupy.dot(2, cuda((3,))), AttributeError),  # a.dot(b, out)
    (lambda: cupy.dot(cuda((3, 4)), cuda((3, 4))), ValueError),
    (lambda: cupy.vdot(cuda((3,)), cuda((4,))), ValueError),
    (lambda: cupy.inner(cuda((2, 3)), cuda((2, 4))), ValueError),
    (lambda: cupy.inner(cuda((2, 0)), cuda((3, 0))), ZeroDivisionError),  # n = a.size // k
    (lambda: cupy.tensordot(cuda((2, 3)), cuda((3, 2)), axes=([0], [0])), ValueError),
    (lambda: cupy.tensordot(cuda((2, 3)), cuda((3, 2)), axes=([0, 1], [1])), ValueError),
    (lambda: cupy.tensordot(cuda((2, 3)), cuda((3, 2)), axes=(0, 1, 2)), ValueError),
    (lambda: cupy.tensordot(cuda(()), cuda((3,))), ValueError),
    (lambda: cupy.tensordot(cuda((2, 3)), cuda((3, 2)), axes=([5], [0])), IndexError),
    (lambda: cupy.outer(3, cuda((3,))), AttributeError),
    (lambda: cupy.outer(np.ones(3), cuda((3,))), TypeError),
    (lambda: cuda((2, 3)) @ cuda((3, 2), dev=1), UnsupportedOperationError),
    (lambda: cupy.matmul(cuda((2, 3)), cuda((3, 2)), dtype=F4), UnsupportedOperationError),
    (lambda: np.vecdot(cuda((3,)), cuda((3,))), TypeError),  # no cupy.vecdot
    (lambda: cupy.matmul(cuda((2, 3)), cuda((3, 2)), cuda((2, 2))), TypeError),  # out= keyword
])
def test_product_errors(op, exc):
    with pytest.raises(exc):
        op()


def test_dot_and_matmul_out():
    """dot checks out's dtype, C-contiguity and only its size; matmul > 2-d checks shape."""
    a, b = cuda((2, 3)), cuda((3, 4))
    o = cuda((2, 4))
    assert cupy.dot(a, b, out=o) is o and a.dot(b, o) is o and cupy.matmul(a, b, out=o) is o
    o8 = cuda((8,))  # same size, other shape: CuPy writes into it
    assert cupy.dot(a, b, out=o8) is o8 and cupy.matmul(a, b, out=o8) is o8
    with pytest.raises(ValueError):
        cupy.dot(a, b, out=cuda((3, 3)))
    with pytest.raises(ValueError):
        cupy.dot(a, b, out=cuda((2, 4), F4))
    with pytest.raises(ValueError):
        cupy.dot(a, b, out=cuda((2, 4), order="F"))
    of = cuda((2, 4), order="F")  # matmul <= 2-d: a temporary then a copy into out
    assert cupy.matmul(a, b, out=of) is of
    assert np.matmul(a, b, out=(o,)) is o
    o3 = cuda((5, 2, 4))
    assert cupy.matmul(cuda((5, 2, 3)), b, out=o3) is o3
    with pytest.raises(ValueError):
        cupy.matmul(cuda((5, 2, 3)), b, out=cuda((5, 8)))
    with pytest.raises(UnsupportedOperationError):  # out needing a cast: the gufunc path
        cupy.matmul(a, b, out=cuda((2, 4), F4))


def test_zero_dim_dot_is_a_cupy_multiply():
    """dot with a 0-d operand is _math._multiply: CuPy's ufunc loops and broadcasting."""
    r = cupy.dot(cuda((), np.int8), cuda((2, 3), order="F"))
    assert fresh_c(r, (2, 3), F8)
    assert cupy.inner(cuda((), np.int8), 2).dtype == np.int8  # weak scalar
    assert cupy.tensordot(cuda((), F4), cuda((3,)), axes=0).dtype == F8


def test_vdot_returns_a_0d_array():
    r = cupy.vdot(cuda((3, 4), np.complex64), cuda((12,), order="F"))
    assert fresh_c(r, (), np.complex128)
    assert fresh_c(np.vdot(cuda((0,)), cuda((0,), F4)), (), F8)


@pytest.mark.parametrize("sa,sb,axes,expected", [
    ((2, 3, 4), (3, 4, 5), 2, (2, 5)), ((2, 3), (3, 2), 1, (2, 2)), ((2, 3), (4,), 0, (2, 3, 4)),
    ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0]), (2, 5)), ((3, 2), (3, 5), (0, 0), (2, 5)),
    ((2, 0), (0, 3), 1, (2, 3)), ((2, 3), (3, 2), ([-1], [-2]), (2, 2)),
])
def test_tensordot_shapes(sa, sb, axes, expected):
    assert fresh_c(cupy.tensordot(cuda(sa, order="F"), cuda(sb)[...], axes), expected, F8)


def test_inner_outer_kron():
    assert fresh_c(cupy.inner(cuda((2, 3), order="F"), cuda((4, 3))), (2, 4), F8)
    assert fresh_c(cupy.inner(cuda((3,)), cuda((2, 5, 3))), (2, 5), F8)
    r = cupy.outer(cuda((2, 3), order="F"), cuda((4,), np.int8))
    assert fresh_c(r, (6, 4), F8)
    assert fresh_c(cupy.outer(cuda((2,), np.bool_), cuda((3,), np.bool_)), (2, 3), np.bool_)
    o = cuda((6, 4))
    assert cupy.outer(cuda((2, 3)), cuda((4,)), out=o) is o
    # kron: multiply of interleaved views, then reshape -> a view of that temporary
    k = cupy.kron(cuda((2, 3), order="F"), cuda((4, 5), F4))
    assert k.shape == (8, 15) and k.dtype == F8 and k.strides == (120, 8)
    assert k.base is not None and k.base.shape == (2, 4, 3, 5)
    assert cupy.kron(cuda((3,)), cuda((2, 2))).shape == (2, 6)
    assert cupy.kron(cuda((1, 1)), cuda((1, 1))).strides == (8, 8)
    assert cupy.kron(cuda((2, 0)), cuda((3, 4))).strides == (8, 8)  # CuPy's empty reshape
    assert fresh_c(cupy.kron(2, cuda((2, 3))), (2, 3))
    assert cupy.kron(2, 3) == 6



# --- joining -----------------------------------------------------------------------------

@pytest.mark.parametrize("kind", AWKWARD)
def test_concatenate_is_always_c(kind):
    """concatenate_method: core.ndarray(shape, dtype), C order (NumPy would keep F/K)."""
    a = AWKWARD[kind]()
    assert fresh_c(cupy.concatenate([a, a]), (6, 4), F8)
    assert fresh_c(cupy.concatenate([a, a], axis=1), (3, 8), F8)
    assert fresh_c(np.concatenate([a, a], axis=-1), (3, 8), F8)
    assert fresh_c(cupy.concatenate([a, a], axis=None), (24,), F8)
    assert fresh_c(cupy.stack([a, a], axis=1), (3, 2, 4), F8)
    assert fresh_c(np.vstack([a, a]), (6, 4), F8)
    assert fresh_c(cupy.hstack([a, a]), (3, 8), F8)
    assert fresh_c(cupy.dstack([a, a]), (3, 4, 2), F8)
    assert fresh_c(cupy.column_stack([a, a]), (3, 8), F8)


def test_concatenate_dtypes_out_and_casting():
    a, b = cuda((2, 3), np.int8), cuda((1, 3), np.uint8)
    assert cupy.concatenate([a, b]).dtype == np.int16  # reduce(promote_types, {dtypes})
    assert cupy.concatenate([a, cuda((1, 3), F4)]).dtype == F4
    assert cupy.concatenate([a, b], dtype=F2).dtype == F2
    o = cuda((3, 3), np.int64)
    assert cupy.concatenate([a, b], out=o) is o
    assert cupy.concatenate([cuda((2, 3), F8)], dtype=F4).dtype == F4  # same kind passes
    with pytest.raises(TypeError):
        cupy.concatenate([cuda((2, 3), F8)], dtype=np.int32)
    with pytest.raises(TypeError):
        cupy.concatenate([a, b], out=o, dtype=np.int64)
    with pytest.raises(ValueError):
        cupy.concatenate([a, b], out=cuda((3, 4)))
    with pytest.raises(ValueError):
        cupy.concatenate([a, b], out=cuda((9,)))
    r = cupy.concatenate(cuda((3, 2, 4)))  # a fake is iterated over its first axis
    assert fresh_c(r, (6, 4))
    assert cupy.concatenate([cuda((2, 3))] * 10).shape == (20, 3)


@pytest.mark.parametrize("op,exc", [
    (lambda: cupy.concatenate([cuda(()), cuda(())]), TypeError),  # NumPy: ValueError
    (lambda: cupy.concatenate([]), ValueError),
    (lambda: cupy.concatenate([cuda((2, 3)), cuda((3,))]), ValueError),
    (lambda: cupy.concatenate([cuda((2, 3)), cuda((2, 4))]), ValueError),
    (lambda: cupy.concatenate([cuda((2, 3))], axis=2), AxisError),
    (lambda: cupy.concatenate([cuda((2, 3)), np.ones((2, 3))]), TypeError),
    (lambda: cupy.concatenate([cuda((2, 3)), 1.0]), TypeError),
    (lambda: cupy.concatenate([cuda((2, 3)), cuda((2, 3), dev=1)]), ValueError),
    (lambda: cupy.concatenate([cuda((2, 3))], axis=1.5), TypeError),
    (lambda: cupy.stack([cuda((2, 3)), cuda((3, 2))]), ValueError),
    (lambda: cupy.stack([cuda((2, 3))], axis=3), AxisError),
    (lambda: cupy.stack([np.ones(3)]), TypeError),  # expand_dims(_ndarray_base a)
    (lambda: cupy.stack([]), ValueError),
    (lambda: cupy.hstack([]), IndexError),  # arrs[0]
    (lambda: cupy.column_stack([cuda((3,)), np.ones(3)]), TypeError),
    (lambda: cupy.column_stack([cuda((3, 1, 1))]), ValueError),
])
def test_joining_errors(op, exc):
    with ft.FakeMode(), pytest.raises(exc):  # the mode also catches calls with no fake
        op()


def test_stack_family_shapes_and_transfers():
    """atleast_Nd go through cupy.asarray: scalars and host arrays are transferred."""
    assert cupy.hstack([cuda((3,)), cuda((2,))]).shape == (5,)
    r = cupy.hstack([cuda((2,), np.int8), 3])
    assert r.shape == (3,) and r.dtype == np.int64  # asarray(3) is a strong int64
    assert cupy.vstack([cuda((3,)), np.ones(3, F4)]).shape == (2, 3)
    assert cupy.vstack([cuda((3,), F4), np.ones(3, F4)]).dtype == F4
    assert cupy.dstack([cuda((3,)), cuda((3,))]).shape == (1, 3, 2)
    assert cupy.dstack([cuda(()), cuda(())]).shape == (1, 1, 2)
    assert cupy.column_stack([cuda((3,)), cuda((3, 2))]).shape == (3, 3)
    assert cupy.stack([cuda((2, 3))] * 4, axis=-1).shape == (2, 3, 4)
    assert cupy.stack([cuda(())] * 4).shape == (4,)
    assert fresh_c(cupy.hstack([cuda((2, 3)), cuda((2, 3), dev=1)]), (2, 6))  # copied over
    with pytest.warns(DeprecationWarning):
        assert cupy.row_stack([cuda((3,))]).shape == (1, 3)


# --- splitting -----------------------------------------------------------------------------

def offsets(parts, base):
    return [p.storage_offset - base.storage_offset for p in parts]


@pytest.mark.parametrize("make", [
    lambda: cuda((7, 4)), lambda: cuda((7, 4), order="F"), lambda: cuda((7, 4))[::-1],
    lambda: cuda((14, 4))[::2, ::-1], lambda: strided((7, 4), (0, 8)),
])
def test_array_split_views(make):
    a = make()
    parts = cupy.array_split(a, 3)
    assert [p.shape for p in parts] == [(3, 4), (2, 4), (2, 4)]
    assert all(p.strides == a.strides and p.storage is a.storage and p.base is not None
               for p in parts)
    s = a.strides[0]
    assert offsets(parts, a) == [0, 3 * s, 5 * s]
    parts = np.array_split(a, [2, 10, 1], axis=0)
    assert [p.shape for p in parts] == [(2, 4), (5, 4), (0, 4), (6, 4)]
    assert offsets(parts, a) == [0, 2 * s, 7 * s, 1 * s]
    cols = cupy.hsplit(a, [1, -1])
    assert [c.shape for c in cols] == [(7, 1), (7, 2), (7, 1)]
    assert offsets(cols, a) == [0, a.strides[1], 3 * a.strides[1]]


def test_split_cupy_specifics():
    a = cuda((6, 4))
    assert cupy.array_split(a, 1)[0] is a  # [ary] itself (NumPy returns a view)
    assert cupy.split(a, [])[0] is a
    assert cupy.array_split(a, -2)[0] is a
    e = cuda((0, 4))
    assert offsets(cupy.array_split(cuda((4, 0)), [1, 3], axis=0), e) == [0, 0, 0]  # size 0
    assert [p.shape for p in cupy.split(a, 2, axis=-1)] == [(6, 2), (6, 2)]
    assert [p.shape for p in cupy.vsplit(a, 3)] == [(2, 4)] * 3
    assert [p.shape for p in cupy.dsplit(cuda((2, 2, 4)), 2)] == [(2, 2, 2)] * 2
    assert [p.shape for p in cupy.hsplit(cuda((6,)), 3)] == [(2,)] * 3


@pytest.mark.parametrize("op,exc", [
    (lambda: cupy.split(cuda((6, 4)), 4), ValueError),
    (lambda: cupy.split(cuda((6, 4)), 2, axis=2), IndexError),  # NumPy: AxisError
    (lambda: cupy.array_split(cuda((6, 4)), 2, axis=-3), IndexError),
    (lambda: cupy.array_split(cuda((6, 4)), 0), ZeroDivisionError),
    (lambda: cupy.array_split(np.ones((6, 4)), 2), TypeError),
    (lambda: cupy.hsplit(cuda(()), 1), ValueError),
    (lambda: cupy.vsplit(cuda((4,)), 2), ValueError),
    (lambda: cupy.dsplit(cuda((4, 4)), 2), ValueError),
    (lambda: cupy.array_split(cuda((6, 4)), [-10]), UnsupportedOperationError),
])
def test_split_errors(op, exc):
    with pytest.raises(exc):
        op()


# --- ufunc methods, cumsum ------------------------------------------------------------------

def test_ufunc_reduce_and_accumulate():
    """_kernel.pyx ufunc.reduce / accumulate: add and multiply only, axis 0 by default."""
    a = cuda((3, 4), np.int8, order="F")
    r = np.add.reduce(a)
    assert fresh_c(r, (4,), np.int64)
    assert cupy.add.reduce(a).shape == (4,)  # the real method calls a.sum(0, ...)
    assert fresh_c(np.multiply.reduce(a, axis=None), (), np.int64)
    assert np.add.reduce(a, axis=1, keepdims=True).shape == (3, 1)
    with pytest.raises(NotImplementedError):
        np.maximum.reduce(a)
    with pytest.raises(NotImplementedError):
        np.maximum.accumulate(a)
    with pytest.raises(TypeError):  # CuPy's reduce has no initial=
        np.add.reduce(a, initial=0)
    acc = np.add.accumulate(a)
    assert acc.shape == (3, 4) and acc.dtype == np.int64 and acc.base is not None
    assert cupy.multiply.accumulate(cuda((3,), np.uint8)).dtype == np.uint64


@pytest.mark.parametrize("shape,axis,strides,base_shape", [
    ((3, 4), 0, (32, 8), (3, 4)),  # the rolled (4, 3) view is already 2-d: no copy
    ((3, 4), 1, (32, 8), (3, 4)),
    ((2, 3, 4), 0, (96, 32, 8), (2, 3, 4)),
    ((2, 3, 4), 1, (96, 8, 24), (8, 3)),  # rolled axis 1 needs a copy: (8, 3) buffer
    ((2, 3, 4), 2, (96, 32, 8), (2, 3, 4)),
    ((5,), 0, (8,), (5,)),
    ((2, 0, 3), 0, (8, 48, 16), (2, 0, 3)),  # empty reshapes: C strides skipping 0/1
])
def test_cumsum_layout(shape, axis, strides, base_shape):
    """_routines_math.pyx scan_core -> _proc_as_batch: views of the astype copy."""
    r = cuda(shape, np.int32, order="F").cumsum(axis=axis)
    assert r.shape == shape and r.dtype == np.int64 and r.strides == strides
    assert r.base is not None and r.base.shape == base_shape


def test_cumsum_empty_axis_and_flat():
    r = cupy.cumsum(cuda((3, 0, 2)), axis=1)
    assert fresh_c(r, (3, 0, 2))  # cupy.empty_like(x)
    f = cuda((3, 4), F4).cumsum()  # CUB (default accelerator): a view of the C copy
    assert f.shape == (12,) and f.strides == (4,) and f.base.shape == (3, 4)
    assert cupy.cumprod(cuda((3,), np.bool_)).dtype == np.int64
    with pytest.raises(AxisError):
        cuda((3,)).cumsum(axis=1)
    with pytest.raises(UnsupportedOperationError):
        cuda((3,)).cumsum(out=cuda((3,)))


def test_ufunc_outer_and_at():
    """_kernel.pyx ufunc.outer: copies reshaped then the ufunc; at needs a scatter op."""
    r = np.add.outer(cuda((2, 3), order="F"), cuda((4,), F4))
    assert fresh_c(r, (2, 3, 4), F8)
    assert np.multiply.outer(cuda((2,), np.int8), cuda((), np.int8)).shape == (2,)
    with pytest.raises(ValueError):  # out=(a, b)
        np.add.outer(cuda((2,)), cuda((2,)), out=(cuda((2, 2)), cuda((2, 2))))
    o = cuda((2, 2))
    assert np.add.outer(cuda((2,)), cuda((2,)), out=o) is o
    add, mul = cupy.add, cupy.multiply
    add, mul = getattr(add, "__wrapped__", add), getattr(mul, "__wrapped__", mul)
    assert cupy_ops.ufunc_at(add, cuda((3,)), [0], 1) is None
    with pytest.raises(NotImplementedError):
        cupy_ops.ufunc_at(mul, cuda((3,)), [0], 1)
    with pytest.raises(NotImplementedError):
        cupy_ops.ufunc_reduceat(mul, cuda((3,)), [0, 1])
    r = cupy_ops.ufunc_outer(add, cuda((2,), np.int8), 1)  # core.array(1): a strong int64
    assert r.shape == (2,) and r.dtype == np.int64


# --- linspace / logspace ------------------------------------------------------------------

def test_linspace_scalar_bounds():
    with ft.FakeMode():
        r = cupy.linspace(0, 1, 5)
        assert fresh_c(r, (5,), F8)
        r, step = cupy.linspace(0, 1, 5, retstep=True)
        assert step == 0.25
        r, step = cupy.linspace(0, 1, 1, retstep=True)
        assert np.isnan(step)
        assert cupy.linspace(0, 10, 5, dtype=np.int32).dtype == np.int32
        assert cupy.linspace(0, 1j, 1).dtype == np.complex128
        with pytest.raises(TypeError):  # float(stop - start) of a complex
            cupy.linspace(0, 1j, 5)
        with pytest.raises(ValueError):
            cupy.linspace(0, 1, -1)
        assert cupy.linspace(np.float32(0), 1, 3).dtype == F4


def test_linspace_array_bounds():
    """ranges.py linspace: (num,) + broadcast shape, then moveaxis (a view) and astype."""
    start, stop = cuda((3,), F4, order="F"), cuda((2, 1))
    r = cupy.linspace(start, stop, 5)
    assert fresh_c(r, (5, 2, 3), F8)
    assert fresh_c(cupy.linspace(start, 1, 5), (5, 3), F4)
    assert cupy.linspace(cuda((3,), np.int8), 1, 5).dtype == F8  # asarray(start) * 1.0
    assert cupy.linspace(cuda((3,), np.complex64), 1, 5).dtype == np.complex64
    m = cupy.linspace(start, stop, 5, axis=-1)
    assert m.shape == (2, 3, 5) and m.strides == (24, 8, 48) and m.base.shape == (5, 2, 3)
    m = cupy.linspace(start, 1, 5, axis=-2)  # moveaxis to 0: still a view
    assert m.shape == (5, 3) and m.strides == (12, 4) and m.base is not None
    k = cupy.linspace(start, stop, 5, axis=1, dtype=np.int32)  # astype(order='K') copy
    assert k.shape == (2, 5, 3) and k.strides == (12, 24, 4) and k.base is None
    r, step = cupy.linspace(start, stop, 5, retstep=True)
    assert fresh_c(step, (2, 3), F8)
    r, step = np.linspace(start, 1, 1, retstep=True)
    assert r.shape == (1, 3) and np.isnan(step)
    assert fresh_c(cupy.linspace(start, 1, 0), (0, 3), F4)
    with pytest.raises(AxisError):
        cupy.linspace(start, 1, 5, axis=2)
    with pytest.raises(ValueError):
        cupy.linspace(cuda((3,)), cuda((2,)), 5)
    with pytest.raises(TypeError):  # cupy.floor has no complex loop
        cupy.linspace(cuda((3,), np.complex64), 1, 5, dtype=np.int32)
    with pytest.raises(ValueError):  # another device in the subtract kernel
        cupy.linspace(cuda((3,)), cuda((3,), dev=1), 5)


def test_logspace():
    r = cupy.logspace(cuda((3,), F4), 2, 4)
    assert fresh_c(r, (4, 3), F4)
    assert fresh_c(cupy.logspace(cuda((3,)), 2, 4, axis=-1, dtype=np.int16), (3, 4), np.int16)
    with ft.FakeMode():
        assert fresh_c(cupy.logspace(0, 2, 4), (4,), F8)


@pytest.mark.parametrize("fn,shape", [
    (lambda a: np.hstack([a, a]), (3, 8)), (lambda a: np.stack([a, a]), (2, 3, 4)),
    (lambda a: np.column_stack([a, a]), (3, 8)), (lambda a: np.dstack([a]), (3, 4, 1)),
    (lambda a: np.kron(a, a), (9, 16)), (lambda a: np.outer(a, a), (12, 12)),
    (lambda a: np.tensordot(a, a, ([0], [0])), (4, 4)), (lambda a: np.inner(a, a), (3, 3)),
    (lambda a: np.cumsum(a, axis=1), (3, 4)), (lambda a: np.cumprod(a), (12,)),
    (lambda a: np.logspace(a, 1, 3), (3, 3, 4)), (lambda a: np.vdot(a, a), ()),
])
def test_numpy_functions_route_to_cupy_rules(fn, shape):
    """core.pyx __array_function__: the cupy function of the same name."""
    r = fn(cuda((3, 4), order="F"))
    assert r.shape == shape and r.fake_device == "cuda:0" and r.flags.c_contiguous
    assert [p.shape for p in np.split(cuda((4, 2)), 2)] == [(2, 2), (2, 2)]


def test_imatmul_rebinds_like_cupy():
    """cupy.ndarray has no __imatmul__ (cupy/_core/core.pyx): ``x @= y`` makes a new array."""
    x = y = cuda((3, 3))
    x @= cuda((3, 3))
    assert x is not y and x.flags.c_contiguous and x.base is None
    n = m = ft.empty((3, 3))
    n @= ft.empty((3, 3))  # NumPy updates in place
    assert n is m


def test_T_of_low_dim_is_the_array_itself():
    """cupy/_core/core.pyx ndarray.T returns self when ndim < 2 (NumPy makes a new view)."""
    for shape in ((), (4,)):
        a = cuda(shape)
        assert a.T is a
        c = ft.empty(shape)
        assert c.T is not c and c.T.base is c
    t = cuda((2, 3)).T
    assert t.strides == (8, 24)


def test_cupy_ufunc_methods_are_intercepted_in_mode():
    """cupy.add.outer / reduce / accumulate / at called directly reach the CuPy rules."""
    with ft.FakeMode(device="cuda:0"):
        a, b = cupy.zeros((3, 4)), cupy.zeros((5,))
        o = cupy.add.outer(a, b)
        assert o.shape == (3, 4, 5) and o.flags.c_contiguous and o.fake_device == "cuda:0"
        assert cupy.add.reduce(a, axis=1).shape == (3,)
        assert cupy.multiply.accumulate(a).shape == (3, 4)
        with pytest.raises(NotImplementedError):  # _kernel.pyx: only add/multiply reduce
            cupy.subtract.reduce(a)
        assert cupy.add.at(a, (0,), 1.0) is None
    f = cuda((2, 3))
    assert cupy.add.outer(f, f).shape == (2, 3, 2, 3)  # a fake argument outside any mode


# --- add.reduceat: _routines_indexing.pyx _add_reduceat ---------------------------------------

@pytest.mark.parametrize("layout", ["C", "F", "T", "neg"])
def test_add_reduceat_layout_and_dtype(layout):
    """``_add_reduceat``: ``_where_ufunc(mask, array.take(idx), acc.take - acc.take, out)``:
    fresh C of shape[:axis] + (len(indices),) + shape[axis+1:], dtype from where's loop
    over (array.dtype, cumsum dtype)."""
    a = {"C": cuda((3, 4), F4), "F": cuda((3, 4), F4, order="F"),
         "T": cuda((4, 3), F4).T, "neg": cuda((3, 8), F4)[:, ::-2]}[layout]
    r = cupy.add.reduceat(a, [0, 2, 1], axis=1)
    assert fresh_c(r, (3, 3), F4)
    r = cupy.add.reduceat(a, cuda((2,), np.int32))  # axis 0
    assert fresh_c(r, (2, 4), F4)
    r = np.add.reduceat(a, [0], axis=-1, dtype=F8)
    assert fresh_c(r, (3, 1), F8)
    r = cupy.add.reduceat(a.astype(np.int8), [1, 0])  # cumsum of int8 accumulates in int64
    assert fresh_c(r, (2, 4), np.int64)


def test_add_reduceat_errors_and_out():
    a = cuda((3, 4))
    o = cuda((3, 2))
    assert cupy.add.reduceat(a, [0, 1], axis=1, out=o) is o
    with pytest.raises(ValueError):
        cupy.add.reduceat(a, [0, 1], axis=1, out=cuda((2, 2)))
    with pytest.raises(np.exceptions.AxisError):
        cupy.add.reduceat(a, [0], axis=2)
    with pytest.raises(np.exceptions.AxisError):
        cupy.add.reduceat(cuda(()), [0])
    with pytest.raises(IndexError):  # take from an empty axis
        cupy.add.reduceat(cuda((0, 3)), [0])
    assert fresh_c(cupy.add.reduceat(cuda((3, 0)), [0, 1]), (2, 0), F8)
    with pytest.raises(NotImplementedError):
        cupy.multiply.reduceat(a, [0])
    with ft.FakeMode(device="cuda:0"):
        r = cupy.add.reduceat(cupy.ones((5, 6), cupy.float32), [0, 3], axis=1)
    assert fresh_c(r, (5, 2), F4)
