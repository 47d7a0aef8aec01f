"""CuPy's rule for cupy.einsum on CUDA fakes (kernels/cupy/einsum.py): layouts derived by
hand from cupy/linalg/_einsum.py (CuPy 14.2) ``einsum`` / ``reduced_binary_einsum`` /
``_transpose_ex``, cupy/_core/_routines_linalg.pyx ``matmul`` (fresh C) and
cupy/cuda/cub.pyx ``cub_reduction`` (CUB sums); no GPU needed."""
import warnings

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import AWKWARD, cuda  # noqa: E402
from faketensor import UnsupportedOperationError  # noqa: E402

F8, F4, F2, I4, I8, C8 = np.float64, np.float32, np.float16, np.int32, np.int64, np.complex64


def m(r):
    """(shape, dtype, strides, base is None, c_contiguous, f_contiguous)."""
    return (r.shape, np.dtype(r.dtype), r.strides, r.base is None,
            bool(r.flags.c_contiguous), bool(r.flags.f_contiguous))


def shares(r, x):
    return r.storage is x.storage


# --- single operand: views of the input ---------------------------------------------------

def test_transpose_is_a_view_never_the_input():
    # returns_view: operands = [a.view()], then transpose(...).reshape(same shape) -> views
    a = cuda((3, 4))
    r = cupy.einsum("ij->ji", a)
    assert m(r) == ((4, 3), np.dtype(F8), (8, 32), False, False, True)
    assert shares(r, a)
    s = cupy.einsum("ij->ij", a)
    assert s is not a and shares(s, a)
    assert m(s) == ((3, 4), np.dtype(F8), (32, 8), False, True, False)
    assert m(cupy.einsum("ij", a)) == m(s)  # implicit output: sorted labels


def test_diagonal_is_a_transpose_ex_view():
    # _transpose_ex: the stride of 'i' is the sum of both axes' strides
    a = cuda((3, 3))
    r = cupy.einsum("ii->i", a)
    assert m(r) == ((3,), np.dtype(F8), (32,), False, False, False) and shares(r, a)
    b = cuda((2, 3, 3))
    r = cupy.einsum("...ii->...i", b)
    assert m(r) == ((2, 3), np.dtype(F8), (72, 32), False, False, False) and shares(r, b)
    # labels keep their first-appearance order: 'iji' -> (i, j)
    r = cupy.einsum("iji->ij", cuda((3, 4, 3)))
    assert r.shape == (3, 4) and r.strides == (96 + 8, 24)
    r = cupy.einsum("iji->ji", cuda((3, 4, 3)))
    assert r.strides == (24, 104)


def test_dtype_is_ignored_for_a_view():
    # returns_view: no astype; the view keeps the input dtype
    a = cuda((3, 4))
    r = cupy.einsum("ij->ji", a, dtype=F4)
    assert r.dtype == F8 and shares(r, a)
    r = cupy.einsum("ij->ji", a, dtype="not a dtype")  # never converted
    assert r.dtype == F8


@pytest.mark.parametrize("kind", list(AWKWARD))
def test_unary_transpose_on_awkward_layouts(kind):
    x = AWKWARD[kind]()
    r = cupy.einsum("ijk->kji", x)
    assert r.shape == x.shape[::-1] and r.strides == x.strides[::-1]
    assert r.base is not None and shares(r, x)


# --- sums -------------------------------------------------------------------------------

def test_full_sum_is_a_view_of_a_0d_result():
    # sum -> 0-d fresh, then transpose(()).reshape(()) -> a view of it
    for s in ("ij->", "ii->", "ii"):
        r = cupy.einsum(s, cuda((3, 3)))
        assert m(r) == ((), np.dtype(F8), (), False, True, True)
        assert not shares(r, cuda((3, 3)))


@pytest.mark.parametrize("sub,order,want", [
    # CUB segmented reduce: C input reducing trailing axes, or F input reducing leading ones
    ("ijk->jk", "F", ((3, 4), (8, 24), False, True)),   # F-ordered y
    ("ijk->kj", "F", ((4, 3), (24, 8), True, False)),   # F y transposed back
    ("ijk->jk", "C", ((3, 4), (32, 8), True, False)),   # not trailing: CuPy's reduction
    ("ijk->ij", "C", ((2, 3), (24, 8), True, False)),
    ("ijk->ij", "F", ((2, 3), (24, 8), True, False)),   # not leading: C
    ("ijk->ik", "F", ((2, 4), (32, 8), True, False)),
    ("ijk->k", "F", ((4,), (8,), True, True)),
    ("ijk->i", "C", ((2,), (8,), True, True)),
])
def test_sum_layouts(sub, order, want):
    r = cupy.einsum(sub, cuda((2, 3, 4), order=order))
    shape, strides, c, f = want
    assert m(r) == (shape, np.dtype(F8), strides, False, c, f)


def test_cub_only_with_the_same_dtype_and_supported_types():
    # dtype != x.dtype: no CUB, a C result; bool has no CUB sum: C
    r = cupy.einsum("ijk->jk", cuda((2, 3, 4), order="F"), dtype=F4)
    assert m(r) == ((3, 4), np.dtype(F4), (16, 4), False, True, False)
    r = cupy.einsum("ijk->jk", cuda((2, 3, 4), bool, order="F"))
    assert m(r) == ((3, 4), np.dtype(bool), (4, 1), False, True, False)
    r = cupy.einsum("ijk->jk", cuda((2, 3, 4), I4, order="F"))
    assert m(r) == ((3, 4), np.dtype(I4), (4, 12), False, False, True)


def test_cub_float16_f_order_depends_on_the_device():
    with pytest.raises(UnsupportedOperationError):
        cupy.einsum("ijk->jk", cuda((2, 3, 4), F2, order="F"))
    assert cupy.einsum("ijk->ij", cuda((2, 3, 4), F2)).strides == (6, 2)


def test_sum_without_cub(monkeypatch):
    from cupy._core import _accelerator
    monkeypatch.setattr(_accelerator, "get_routine_accelerators", lambda: [])
    r = cupy.einsum("ijk->jk", cuda((2, 3, 4), order="F"))
    assert m(r) == ((3, 4), np.dtype(F8), (32, 8), False, True, False)


def test_other_accelerators_are_unsupported(monkeypatch):
    from cupy._core import _accelerator
    monkeypatch.setattr(_accelerator, "get_routine_accelerators",
                        lambda: [_accelerator.ACCELERATOR_CUTENSOR])
    with pytest.raises(UnsupportedOperationError, match="cupy.einsum"):
        cupy.einsum("ij->ji", cuda((3, 4)))


# --- two or more operands -------------------------------------------------------------------

def test_matmul_result_is_a_transposed_view():
    # _iter_path_pairs pops operand 1 first: arr0 = b ('jk'), sub_out = [k, i];
    # matmul (1, 5, 3) fresh C -> reshape (5, 3) -> transposed to (3, 5): F-contiguous
    a, b = cuda((3, 4)), cuda((4, 5))
    want = ((3, 5), np.dtype(F8), (8, 24), False, False, True)
    assert m(cupy.einsum("ij,jk->ik", a, b)) == want
    assert m(cupy.einsum("ij,jk", a, b)) == want
    assert m(cupy.einsum(a, [0, 1], b, [1, 2], [0, 2])) == want
    assert m(cupy.einsum(a, [0, 1], b, [1, 2])) == want
    assert m(cupy.einsum("ij,jk->ki", a, b)) == ((5, 3), np.dtype(F8), (24, 8), False, True, False)
    assert not shares(cupy.einsum("ij,jk->ik", a, b), a)


def test_batched_matmul():
    # sub_out = [b, k, i]: matmul (2, 5, 3), then axes (0, 2, 1)
    r = cupy.einsum("bij,bjk->bik", cuda((2, 3, 4)), cuda((2, 4, 5)))
    assert m(r) == ((2, 3, 5), np.dtype(F8), (120, 8, 24), False, False, False)
    r = cupy.einsum("bij,bjk->bki", cuda((2, 3, 4)), cuda((2, 4, 5)))
    assert m(r) == ((2, 5, 3), np.dtype(F8), (120, 24, 8), False, True, False)


def test_inner_and_outer_products():
    # 'i,i->': matmul (1, 1, 1) reshaped to (); 'i,j->ij': elementwise, sub_out = output
    assert m(cupy.einsum("i,i->", cuda((4,)), cuda((4,)))) == ((), np.dtype(F8), (), False, True, True)
    assert m(cupy.einsum("i,i", cuda((4,)), cuda((4,))))[:3] == ((), np.dtype(F8), ())
    assert m(cupy.einsum("i,j->ij", cuda((3,)), cuda((4,)))) == \
        ((3, 4), np.dtype(F8), (32, 8), False, True, False)
    assert m(cupy.einsum("i,j->ji", cuda((3,)), cuda((4,)))) == \
        ((4, 3), np.dtype(F8), (24, 8), False, True, False)


def test_elementwise_products():
    # no contraction and len(sub_out) == len(sub_others): sub_out = output order, C result
    a, b = cuda((3, 4)), cuda((3, 4), order="F")
    assert m(cupy.einsum("ij,ij->ij", a, b)) == ((3, 4), np.dtype(F8), (32, 8), False, True, False)
    assert m(cupy.einsum("ij,ij->ji", a, b)) == ((4, 3), np.dtype(F8), (24, 8), False, True, False)
    # a batch label summed later keeps sub_out = [b, i, j] (3 labels, others has 2)
    r = cupy.einsum("ij,ij,j->i", cuda((3, 4)), cuda((3, 4)), cuda((4,)))
    assert r.shape == (3,) and r.dtype == F8


def test_three_operands_and_paths():
    a, b, c = cuda((2, 3)), cuda((3, 4)), cuda((4, 5))
    fo = ((2, 5), np.dtype(F8), (8, 16), False, False, True)
    co = ((2, 5), np.dtype(F8), (40, 8), False, True, False)
    assert m(cupy.einsum("ij,jk,kl->il", a, b, c)) == fo  # pairs (2, 1), (-1, 0)
    assert m(cupy.einsum("ij,jk,kl->il", a, b, c, optimize=False)) == fo
    assert m(cupy.einsum("ij,jk,kl->il", a, b, c, optimize=True)) == fo  # greedy [(1, 2), (0, 1)]
    assert m(cupy.einsum("ij,jk,kl->il", a, b, c, optimize="greedy")) == fo
    assert m(cupy.einsum("ij,jk,kl->il", a, b, c, optimize="optimal")) == co  # [(0, 1), (0, 1)]
    assert m(cupy.einsum("ij,jk,kl->il", a, b, c, optimize=["einsum_path", (0, 1), (0, 1)])) == co
    with pytest.warns(cupy._util.PerformanceWarning):
        assert m(cupy.einsum("ij,jk,kl->il", a, b, c, optimize=("greedy", 1))) == fo


def test_ellipsis_and_broadcasting():
    r = cupy.einsum("...ij,...jk->...ik", cuda((2, 3, 4)), cuda((4, 5)))
    assert m(r) == ((2, 3, 5), np.dtype(F8), (24, 8, 48), False, False, False)
    # a's size-1 batch axis is squeezed; b's transpose needs a copy before matmul
    r = cupy.einsum("...ij,...jk->...ik", cuda((1, 3, 4)), cuda((2, 4, 5)))
    assert m(r) == ((2, 3, 5), np.dtype(F8), (120, 8, 24), False, False, False)
    # squeezed output label comes back through the final reshape
    r = cupy.einsum("ij,jk->ik", cuda((1, 4)), cuda((4, 5)))
    assert m(r) == ((1, 5), np.dtype(F8), (40, 8), False, True, True)


def test_empty_operand_gives_zeros():
    r = cupy.einsum("ij,jk->ik", cuda((0, 4)), cuda((4, 5)))
    assert m(r) == ((0, 5), np.dtype(F8), (0, 0), True, True, True)
    r = cupy.einsum("ij,jk->ik", cuda((3, 0)), cuda((0, 5)), dtype=F4)
    assert m(r) == ((3, 5), np.dtype(F4), (20, 4), True, True, False)


def test_dtypes():
    # result_type of the operands; 0-d arrays made from Python scalars are not weak
    assert cupy.einsum("ij,jk->ik", cuda((3, 4), I4), cuda((4, 5), I4)).dtype == I4
    assert cupy.einsum("ij,jk->ik", cuda((3, 4), I4), cuda((4, 5), F4)).dtype == F8
    assert cupy.einsum("ij,jk->ik", cuda((3, 4), F4), cuda((4, 5), C8)).dtype == C8
    assert cupy.einsum(",ij->ij", 2, cuda((3, 4), F4)).dtype == F8
    assert cupy.einsum(",ij->ij", 2.0, cuda((3, 4), F4)).dtype == F8
    assert cupy.einsum("ij,jk->ik", cuda((3, 4)), cuda((4, 5)), dtype=F4).dtype == F4
    assert cupy.einsum("ij->j", cuda((3, 4), I4), dtype=F8).dtype == F8
    assert cupy.einsum("ij,jk->ik", cuda((3, 4), bool), cuda((4, 5), bool)).dtype == bool
    assert cupy.einsum("ij,jk->ik", cuda((3, 4), F2), cuda((4, 5), F2)).dtype == F2


@pytest.mark.parametrize("kind", list(AWKWARD))
def test_awkward_operands(kind):
    x = AWKWARD[kind]()
    y = cuda((4, 5))
    r = cupy.einsum("ijk,kl->ijl", x, y)
    assert r.shape == x.shape[:2] + (5,) and r.dtype == F8
    if x.size:
        assert r.base is not None and not shares(r, x)
    r = cupy.einsum("ijk,ijk->ik", x, x)
    assert r.shape == (x.shape[0], x.shape[2])


def test_strided_operands_do_not_change_the_product_layout():
    # only the matmul output's layout reaches the result
    for a in (cuda((3, 4)), cuda((4, 3)).T, cuda((6, 8))[::2, ::2], cuda((3, 4))[::-1]):
        assert m(cupy.einsum("ij,jk->ik", a, cuda((4, 5)))) == \
            ((3, 5), np.dtype(F8), (8, 24), False, False, True)


# --- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("args,exc", [
    (("ij,jk->ik", (3, 4), (5, 6)), ValueError),          # label size mismatch
    (("ij->ji", (2, 3, 4)), ValueError),                  # operand has more dimensions
    (("ijk", (3, 4)), ValueError),                        # too many subscripts
    (("ij->k", (3, 4)), ValueError),                      # output label not in inputs
    (("ij->ii", (3, 4)), ValueError),                     # repeated output label
    (("i1", (3, 4)), ValueError),                         # not a letter
    (("i.j", (3, 4)), ValueError),                        # stray '.'
    (("ij->->i", (3, 4)), ValueError),                    # bad '->'
    (("ij-i", (3, 4)), ValueError),
    (("ij,jk", (3, 4)), ValueError),                      # fewer operands
    (("ij", (3, 4), (3, 4)), ValueError),                 # more operands
    (("ii", (3, 4)), ValueError),                         # collapsing dims differ
    (("...ij->ij", (2, 3, 4)), ValueError),               # output lacks the ellipsis
    (("......", (2, 3)), ValueError),                     # two ellipses
    (("...i->......", (2, 3)), ValueError),
    (("ij...k", (3,)), ValueError),                       # too many subscripts with '...'
])
def test_bad_subscripts(args, exc):
    sub, *shapes = args
    with pytest.raises(exc):
        cupy.einsum(sub, *[cuda(s) for s in shapes])


def test_bad_calls():
    a = cuda((3, 4))
    with pytest.raises(ValueError):
        cupy.einsum()
    for kw in ({"casting": "safe"}, {"out": a}, {"order": "C"}):
        with pytest.raises(TypeError):
            cupy.einsum("ij->ji", a, **kw)
    with pytest.raises(ValueError):  # the subscripts are parsed before the kwargs check
        cupy.einsum("i1", a, casting="safe")
    for opt in ("foo", None, 3, ("foo", 2), []):
        with pytest.raises(TypeError):
            cupy.einsum("ij,jk->ik", a, cuda((4, 5)), optimize=opt)
    with pytest.raises(TypeError):
        cupy.einsum(a, ["a", "b"])
    with pytest.raises(IndexError):
        cupy.einsum(a, [0, 60])
    with pytest.raises(TypeError):
        cupy.einsum("ij->j", a, dtype="not a dtype")
    with pytest.raises(AssertionError):
        cupy.einsum("ij,jk->ik", a, cuda((4, 5)), optimize=["einsum_path", (-1, 0)])


def test_optimize_is_not_checked_for_empty_operands():
    # the zeros early return comes before the path
    r = cupy.einsum("ij,jk->ik", cuda((0, 4)), cuda((4, 5)), optimize="foo")
    assert r.shape == (0, 5)


def test_unsupported_operands():
    with pytest.raises(UnsupportedOperationError, match="cupy.einsum"):
        cupy.einsum("ij,jk->ik", cuda((3, 4)), ft.empty((4, 5)))
    with pytest.raises(UnsupportedOperationError, match="cupy.einsum"):
        cupy.einsum("ij,jk->ik", cuda((3, 4)), cuda((4, 5), dev=1))


# --- inside a mode --------------------------------------------------------------------------

def test_inside_fake_mode():
    with ft.FakeMode(device="cuda:0"):
        a = cupy.zeros((2, 3, 4))
        b = cupy.zeros((2, 4, 5))
        r = cupy.einsum("bij,bjk->bik", a, b)
        assert isinstance(r, ft.FakeArray) and r.storage.device == "cuda:0"
        assert m(r) == ((2, 3, 5), np.dtype(F8), (120, 8, 24), False, False, False)
        t = cupy.einsum("bij->bji", a)
        assert t.strides == (96, 8, 32) and shares(t, a)
        n = np.einsum("bij,bjk->bik", a, b)
        assert m(n) == m(r)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert cupy.einsum("ii", cupy.zeros((3, 3))).shape == ()
