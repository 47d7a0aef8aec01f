"""Differential tests of kernels/cupy/einsum.py: cupy.einsum on CUDA fakes against real
CuPy (shape, dtype, strides, contiguity, base None-ness, or the exception type). Run only
where a GPU is present; skipped, never faked, elsewhere."""
import warnings

import numpy as np
import pytest

from gpu_oracle import cupy, needs_gpu, meta  # noqa: E402

pytestmark = needs_gpu

import faketensor as ft  # noqa: E402


def operands():
    """Real operands by key: every layout of the common shapes, dtypes, empty and 0-d."""
    def ar(*shape, dtype=cupy.float64):
        return cupy.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return {
        "a34": ar(3, 4), "a34F": cupy.asfortranarray(ar(3, 4)), "a34T": ar(4, 3).T,
        "a34s": ar(6, 8)[::2, ::2], "a34n": ar(3, 4)[::-1], "a34b": cupy.broadcast_to(ar(4), (3, 4)),
        "a43": ar(4, 3), "a43F": cupy.asfortranarray(ar(4, 3)), "b45": ar(4, 5), "b45F": cupy.asfortranarray(ar(4, 5)), "b45T": ar(5, 4).T,
        "c56": ar(5, 6), "d62": ar(6, 2), "t256": ar(2, 5, 6), "v3": ar(3), "v4": ar(4), "v5": ar(5), "v4s": ar(8)[::2],
        "sq": ar(3, 3), "sqF": cupy.asfortranarray(ar(3, 3)), "sqT": ar(3, 3).T,
        "sqs": ar(6, 6)[::2, ::2], "sq3": ar(3, 3, 3),
        "t234": ar(2, 3, 4), "t234F": cupy.asfortranarray(ar(2, 3, 4)), "t234T": ar(4, 3, 2).T,
        "t234s": ar(4, 6, 4)[::2, ::2], "t234n": ar(2, 3, 4)[:, ::-1],
        "t234b": cupy.broadcast_to(ar(4), (2, 3, 4)), "t245": ar(2, 4, 5),
        "t245F": cupy.asfortranarray(ar(2, 4, 5)), "t134": ar(1, 3, 4), "t145": ar(1, 4, 5),
        "q2345": ar(2, 3, 4, 5), "q2345F": cupy.asfortranarray(ar(2, 3, 4, 5)),
        "one": ar(1, 1, 1), "r14": ar(1, 4), "r31": ar(3, 1),
        "e04": cupy.zeros((0, 4)), "e30": cupy.zeros((3, 0)), "e05": cupy.zeros((0, 5)),
        "e034": cupy.zeros((0, 3, 4)), "s0": cupy.array(2.0),
        "i34": ar(3, 4, dtype=cupy.int32), "i45": ar(4, 5, dtype=cupy.int32),
        "i234F": cupy.asfortranarray(ar(2, 3, 4, dtype=cupy.int32)),
        "l45": ar(4, 5, dtype=cupy.int64), "f34": ar(3, 4, dtype=cupy.float32),
        "f45": ar(4, 5, dtype=cupy.float32), "f234F": cupy.asfortranarray(ar(2, 3, 4, dtype=cupy.float32)),
        "h34": ar(3, 4, dtype=cupy.float16), "h45": ar(4, 5, dtype=cupy.float16),
        "z34": ar(3, 4).astype(cupy.complex64), "z45": ar(4, 5).astype(cupy.complex128),
        "bool34": ar(3, 4) > 3, "bool45": ar(4, 5) > 3, "u8_45": ar(4, 5, dtype=cupy.uint8),
        "bool234F": cupy.asfortranarray(ar(2, 3, 4) > 3),
    }


def _run(sub, keys):
    """The real and the fake positional arguments (operand keys looked up, CuPy arrays
    converted through one memo so that views of one buffer share its storage)."""
    ops = operands()
    real = [ops[k] if isinstance(k, str) else k for k in keys]
    conv = ft.Converter()
    fakes = [conv.to_fake(x) if isinstance(x, cupy.ndarray) else x for x in real]
    head = [sub] if sub is not None else []
    return head + real, head + fakes


def _compare(sub, keys, kwargs, fn=None):
    fn = fn or cupy.einsum
    args_r, args_f = _run(sub, keys)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = fn(*args_r, **kwargs)
        except Exception as e:
            with pytest.raises(type(e)):
                fn(*args_f, **kwargs)
            return
        got = fn(*args_f, **kwargs)
    assert meta(got) == meta(want)


UNARY_SUBS = ["ijk->kji", "ijk->ikj", "ijk->ijk", "ijk", "ijk->", "ijk->i", "ijk->j", "ijk->k",
              "ijk->ij", "ijk->jk", "ijk->ik", "ijk->kj", "ijk->ji", "ijk->ki", "...k->...",
              "i...->...", "...->...", "ijk->...", "i...->i", "ijk->jki"]
UNARY_KEYS = ["t234", "t234F", "t234T", "t234s", "t234n", "t234b", "one", "e034", "i234F",
              "f234F", "bool234F"]


@pytest.mark.parametrize("key", UNARY_KEYS)
@pytest.mark.parametrize("sub", UNARY_SUBS)
def test_unary(sub, key):
    _compare(sub, [key], {})


@pytest.mark.parametrize("key", ["sq", "sqF", "sqT", "sqs", "a34", "a34F"])
@pytest.mark.parametrize("sub", ["ii->i", "ii", "ii->", "ij->ji", "ij->ij", "ij", "ji", "ij->i",
                                 "ij->j", "ij->"])
def test_unary_2d(sub, key):
    _compare(sub, [key], {})


@pytest.mark.parametrize("sub", ["iii->i", "iii", "iij->ij", "iij->ji", "iji->ij", "iji->j",
                                 "jii->ij", "iij"])
def test_diagonals_3d(sub):
    _compare(sub, ["sq3"], {})


@pytest.mark.parametrize("a", ["a34", "a34F", "a34T", "a34s", "a34n", "a34b", "r14", "e04", "e30"])
@pytest.mark.parametrize("b", ["b45", "b45F", "b45T", "e05"])
@pytest.mark.parametrize("sub", ["ij,jk->ik", "ij,jk", "ij,jk->ki", "ij,jk->", "ij,jk->i",
                                 "ij,jk->k", "ij,jk->ijk", "ij,jk->kji", "ij,jk->j"])
def test_binary_products(sub, a, b):
    _compare(sub, [a, b], {})


@pytest.mark.parametrize("a", ["a34", "a34F", "a34T", "a34s", "a34n", "a34b", "r31"])
@pytest.mark.parametrize("b", ["a34", "a34F", "a34T"])
@pytest.mark.parametrize("sub", ["ij,ij->ij", "ij,ij->ji", "ij,ij->i", "ij,ij->", "ij,ij",
                                 "ij,ij->j", "ij,kl->ijkl", "ij,kl->lkji", "ij,kl->il"])
def test_binary_same_shapes(sub, a, b):
    _compare(sub, [a, b], {})


@pytest.mark.parametrize("a", ["a34", "a34F", "a34T", "a34s"])
@pytest.mark.parametrize("b", ["a43", "a43F"])
@pytest.mark.parametrize("sub", ["ij,ji->ij", "ij,ji->ji", "ij,ji->", "ij,ji", "ij,ji->i"])
def test_binary_transposed_partner(sub, a, b):
    _compare(sub, [a, b], {})


@pytest.mark.parametrize("sub,keys", [
    ("i,i->", ["v4", "v4"]), ("i,i", ["v4", "v4s"]), ("i,j->ij", ["v3", "v4"]),
    ("i,j->ji", ["v3", "v4"]), ("i,j", ["v4", "v3"]), ("i,i->i", ["v4", "v4s"]),
    ("ij,j->i", ["a34", "v4"]), ("ij,j->i", ["a34F", "v4s"]), ("j,ij->i", ["v4", "a34T"]),
    ("ij,i->j", ["a34", "v3"]), ("bij,bjk->bik", ["t234", "t245"]),
    ("bij,bjk->bik", ["t234F", "t245F"]), ("bij,bjk->bki", ["t234", "t245"]),
    ("bij,bjk->ikb", ["t234T", "t245"]), ("bij,bjk->ik", ["t234", "t245"]),
    ("bij,bjk", ["t234n", "t245"]), ("bij,bjk->b", ["t234s", "t245"]),
    ("bij,jk->bik", ["t234", "b45"]), ("ij,bjk->bik", ["a34", "t245"]),
    ("...ij,...jk->...ik", ["t234", "b45"]), ("...ij,...jk->...ik", ["t134", "t245"]),
    ("...ij,...jk->...ik", ["t234", "t145"]), ("...ij,...jk", ["a34", "t245"]),
    ("...ij,...jk->...ki", ["t234", "t245F"]), ("...j,...j->...", ["t234", "v4"]),
    ("ijkl,jk->il", ["q2345", "a34"]), ("ijkl,lk->ij", ["q2345F", "c56"]),
    ("ijkl,kl->ij", ["q2345", "b45"]), ("ijkl,ijkl->kl", ["q2345", "q2345F"]),
    ("abcd,bc->da", ["q2345F", "a34T"]), (",ij->ij", ["s0", "a34"]), ("ij,->ji", ["a34F", "s0"]),
    (",ij->ij", [2, "f34"]), (",ij->ij", [2.0, "i34"]), (",", ["s0", "s0"]),
    ("ij,jk->ik", ["one", "b45"]), ("ijk,kl->ijl", ["one", "b45"]),
    ("ijk,kl->ijl", ["t234b", "b45"]), ("ijk,kl->lji", ["t234s", "b45F"]),
    ("ijk,ijk->ik", ["t234", "t234F"]), ("ijk,ijk->", ["t234T", "t234n"]),
    ("ijk,ijk->kji", ["t234s", "t234b"]), ("ijk,kj->ji", ["t234", "a34T"]),
])
def test_binary_misc(sub, keys):
    _compare(sub, keys, {})


@pytest.mark.parametrize("opt", [False, True, "greedy", "optimal", ("greedy", 1),
                                 ("optimal", 10 ** 9), ["einsum_path", (0, 1), (0, 1)],
                                 ["einsum_path", (1, 2), (0, 1)], ["einsum_path", (0, 1, 2)],
                                 ["einsum_path", (0, 2), (0, 1)]])
@pytest.mark.parametrize("sub,keys", [
    ("ij,jk,kl->il", ["a34", "b45", "c56"]), ("ij,jk,kl", ["a34F", "b45T", "c56"]),
    ("ij,jk,kl->li", ["a34", "b45", "c56"]), ("ij,jk,kl->", ["a34", "b45", "c56"]),
    ("ij,jk,kl->ijkl", ["a34", "b45", "c56"]), ("i,ij,j->", ["v3", "a34", "v4"]),
    ("i,ij,j->ij", ["v3", "a34", "v4"]), ("bij,bjk,bkl->bil", ["t234", "t245", "t256"]),
    ("ij,ij,ij->ij", ["a34", "a34F", "a34T"]), ("ij,jk,kl->il", ["r14", "b45", "c56"]),
    ("ij,jk,kl->il", ["e04", "b45", "c56"]),
])
def test_three_operands(sub, keys, opt):
    _compare(sub, keys, {"optimize": opt})


@pytest.mark.parametrize("opt", [False, True, "optimal"])
def test_four_operands(opt):
    _compare("ij,jk,kl,lm->im", ["a34", "b45", "c56", "d62"], {"optimize": opt})
    _compare("i,ij,jk,k->", ["v3", "a34F", "b45", "v5"], {"optimize": opt})


@pytest.mark.parametrize("sub,keys,kw", [
    ("ij,jk->ik", ["i34", "i45"], {}), ("ij,jk->ik", ["i34", "f45"], {}),
    ("ij,jk->ik", ["f34", "z45"], {}), ("ij,jk->ik", ["z34", "f45"], {}),
    ("ij,jk->ik", ["bool34", "bool45"], {}), ("ij,jk->ik", ["h34", "h45"], {}),
    ("ij,jk->ik", ["i34", "u8_45"], {}), ("ij,jk->ik", ["f34", "l45"], {}),
    ("ij,jk->ik", ["a34", "b45"], {"dtype": np.float32}),
    ("ij,jk->ik", ["i34", "i45"], {"dtype": "f8"}), ("ij,jk->ik", ["a34", "b45"], {"dtype": None}),
    ("ij->ji", ["a34"], {"dtype": np.float32}), ("ij->j", ["a34"], {"dtype": np.float32}),
    ("ij->j", ["i34"], {"dtype": np.int64}), ("ij->", ["bool34"], {}),
    ("ij->i", ["bool34"], {"dtype": np.int32}), ("ij,ij->ij", ["f34", "a34"], {}),
    ("ij,ij->ij", ["h34", "h34"], {}), ("ijk->jk", ["f234F"], {}), ("ijk->jk", ["i234F"], {}),
    ("ijk->jk", ["t234F"], {"dtype": np.float32}), ("ij,jk->ik", ["e04", "b45"], {"dtype": "f4"}),
])
def test_dtypes(sub, keys, kw):
    _compare(sub, keys, kw)


@pytest.mark.parametrize("sub,keys", [
    ("ij->ji", ["a34"]), ("bij,bjk->bik", ["t234", "t245"]), ("ii", ["sq"]),
    ("ij,jk", ["a34F", "b45"]), ("i,j->ij", ["v3", "v4"]),
])
def test_numpy_einsum_dispatch(sub, keys):
    _compare(sub, keys, {}, fn=np.einsum)


def test_interleaved_form():
    _compare(None, ["a34", [0, 1], "b45", [1, 2], [0, 2]], {})
    _compare(None, ["a34", [0, 1], "b45", [1, 2]], {})
    _compare(None, ["t234", [Ellipsis, 0, 1], "b45", [1, 2], [Ellipsis, 2]], {})
    _compare(None, ["sq", [5, 5]], {})
    _compare(None, ["sq", [0, 0], [0]], {})
    _compare(None, ["a34", [0, "a"]], {})
    _compare(None, ["a34", [0, 60]], {})
    _compare(None, ["a34", [0, -1]], {})


@pytest.mark.parametrize("sub,keys", [
    ("ij,jk->ik", ["a34", "c56"]), ("ij->ji", ["t234"]), ("ijk", ["a34"]), ("ij->k", ["a34"]),
    ("ij->ii", ["a34"]), ("i1", ["a34"]), ("i.j", ["a34"]), ("ij->->i", ["a34"]),
    ("ij-i", ["a34"]), ("ij>i", ["a34"]), ("ij,jk", ["a34"]), ("ij", ["a34", "a34"]),
    ("ii", ["a34"]), ("...ij->ij", ["t234"]), ("......", ["a34"]), ("...i->......", ["a34"]),
    ("ij...k", ["v3"]), ("ij,jk->ik", ["a34", "r14"]), ("i,i", ["v3", "v4"]),
    ("...i,...i", ["t234", "a34"]), ("iij", ["t234"]), ("", ["a34"]), ("->", ["s0"]),
    ("", ["s0"]), ("i", ["s0"]), ("ij,jk->ik", ["a34", "e05"]),
])
def test_bad_subscripts(sub, keys):
    _compare(sub, keys, {})


@pytest.mark.parametrize("kw", [{"casting": "safe"}, {"out": None}, {"order": "C"},
                                {"optimize": "foo"}, {"optimize": None}, {"optimize": 3},
                                {"optimize": ("foo", 2)}, {"optimize": []},
                                {"dtype": "not a dtype"}, {"optimize": ["einsum_path", (-1, 0)]},
                                {"optimize": ["einsum_path", (0, 5)]}])
@pytest.mark.parametrize("sub,keys", [("ij,jk->ik", ["a34", "b45"]), ("ij->j", ["a34"]),
                                      ("ij,jk->ik", ["e04", "b45"])])
def test_bad_kwargs(sub, keys, kw):
    _compare(sub, keys, kw)


def test_no_arguments():
    with pytest.raises(ValueError):
        cupy.einsum()
    with ft.FakeMode(device="cuda:0"):
        with pytest.raises(ValueError):
            cupy.einsum()


def test_inside_fake_mode_matches_real():
    want = cupy.einsum("bij,bjk->bik", cupy.zeros((2, 3, 4)), cupy.zeros((2, 4, 5)))
    with ft.FakeMode(device="cuda:0"):
        got = cupy.einsum("bij,bjk->bik", cupy.zeros((2, 3, 4)), cupy.zeros((2, 4, 5)))
    assert meta(got) == meta(want)
