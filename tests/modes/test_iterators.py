"""np.broadcast, np.nditer and np.vectorize given fakes, and array-likes made of fakes, against
real NumPy (modes/iterators.py, kernels/numpy/function_base.py vectorize_call).

Each case runs on real arrays and on their fakes; the attributes that need no values must be
equal (shapes, dtypes, strides of operands and views, flags) and errors of the same type;
everything that reads elements raises DataDependentError on the fake side.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import faketensor as ft
from memtools import op_peaks
from oracle import _same_family, check, compare_meta
from test_array_likes import Fk, run_in_mode

A = np.arange(12.0).reshape(3, 4)
B3 = np.arange(24.0).reshape(2, 3, 4)


def _both(fn, *args):
    """(real answer or exception, fake answer or exception) of fn on args and their fakes."""
    try:
        r = fn(*args)
    except Exception as e:  # compared by type
        r = e
    conv = ft.Converter()
    fargs = [conv.to_fake(a) if isinstance(a, np.ndarray) else a for a in args]
    with ft.FakeMode():  # np.broadcast / np.nditer are the fake-aware classes in a FakeMode
        try:
            f = fn(*fargs)
        except ft.UnsupportedOperationError:
            raise
        except Exception as e:  # compared by type
            f = e
    return r, f


def _same(fn, *args):
    r, f = _both(fn, *args)
    if isinstance(r, Exception):
        assert type(f) is type(r), f"real raised {r!r}, fake gave {f!r}"
    else:
        assert not isinstance(f, Exception), f"fake raised {f!r}, real gave {r!r}"
        assert r == f


def _bc(*xs):
    b = np.broadcast(*xs)
    return (b.shape, b.nd, b.ndim, b.numiter, b.size, b.index, len(b.iters),
            [len(i) for i in b.iters], isinstance(b, np.broadcast))


BROADCASTS = {
    "two": (A, A[0]), "three-scalar": (A[:, :1], A[0], 2.0), "0d": (A[0, 0],),
    "mismatch": (A, A[:2]), "list": (A, [1.0, 2.0, 3.0, 4.0]), "3d-T": (B3.T, A.T[:, :, None]),
    "empty": (np.zeros((0, 4)), A[0]),
}


@pytest.mark.parametrize("name", list(BROADCASTS))
def test_broadcast(name):
    _same(_bc, *BROADCASTS[name])


def test_broadcast_nested_and_values():
    with ft.FakeMode():
        f = np.ones((3, 4))
        b = np.broadcast(np.broadcast(f, f[0]), f[:, :1])
        assert b.shape == (3, 4) and b.numiter == 3 and b.iters[0].base is f
        with pytest.raises(ft.DataDependentError):
            next(b)
        with pytest.raises(ft.DataDependentError):
            list(b.iters[1])
    # outside a FakeMode the names are NumPy's own types (compiled extensions check them)
    assert type(np.broadcast(A, A)) is np.broadcast and type(np.nditer(A)) is np.nditer
    with ft.FakeMode():
        assert type(np.broadcast(A, A)).__name__ == "broadcast"  # real operands: NumPy's object


def _it(*ops, **kw):
    it = np.nditer(list(ops), **kw)
    views = None
    try:
        views = [(v.shape, v.strides) for v in it.itviews]
    except ValueError as e:
        views = type(e)
    return (it.shape, it.ndim, it.nop, it.itersize, tuple(map(str, it.dtypes)),
            [(o.shape, o.dtype.str, o.strides, o.flags.c_contiguous, o.flags.f_contiguous)
             for o in it.operands], views, it.has_multi_index, it.has_index, it.finished,
            isinstance(it, np.nditer))


NDITERS = {
    "single": ((A,), {}), "alloc": ((A, None), {}), "alloc-T": ((A.T, None), {}),
    "alloc-neg": ((A[::-1], None), {}), "alloc-bcast": ((A[:, :1], A[0], None), {}),
    "multi_index": ((A, None), {"flags": ["multi_index"]}),
    "external_loop": ((A.T, None), {"flags": ["external_loop"]}),
    "buffered-cast": ((A, None), {"flags": ["buffered"], "op_dtypes": [np.float32, np.float32],
                                  "casting": "same_kind"}),
    "order-F": ((A, None), {"order": "F"}), "order-C": ((A.T, None), {"order": "C"}),
    "order-A": ((np.asfortranarray(A), None), {"order": "A"}),
    "c_index": ((A[::2], None), {"flags": ["c_index"]}),
    "readwrite": ((A,), {"op_flags": [["readwrite"]]}),
    "readwrite-read-only": ((np.broadcast_to(A[0], (3, 4)),), {"op_flags": [["readwrite"]]}),
    "cast-refused": ((A, None), {"op_dtypes": [np.int32, None]}),
    "needs-buffering": ((A, None), {"op_dtypes": [np.float32, None], "casting": "same_kind"}),
    "common-dtype": ((A.astype("f4"), A.astype("i8"), None), {}),
    "mismatch": ((A, A[:2]), {}), "strided": ((A[:, ::2], None), {}),
    "perm3": ((B3.transpose(1, 0, 2), None), {}),
    "empty-refused": ((np.zeros((0, 3)), None), {}),
    "empty-ok": ((np.zeros((0, 3)), None), {"flags": ["zerosize_ok"]}),
    "0d": ((np.zeros(()), None), {}),
    "reduce": ((A, np.zeros((3, 1))), {"flags": ["reduce_ok"], "op_flags": [["readonly"], ["readwrite"]]}),
    "reduce-refused": ((A, np.zeros((3, 1))), {"op_flags": [["readonly"], ["readwrite"]]}),
    "bad-flag": ((A,), {"flags": ["no_such_flag"]}),
}


@pytest.mark.parametrize("name", list(NDITERS))
def test_nditer(name):
    ops, kw = NDITERS[name]
    _same(lambda *o: _it(*o, **kw), *ops)


def test_nditer_fakes_in_mode():
    with ft.FakeMode() as mode:
        f = np.ones((300, 400))
        before = mode.memory.live["cpu"]
        it = np.nditer([f.T, None])
        out = it.operands[1]
        assert ft.is_fake(out) and out.strides == np.nditer([A.T, None]).operands[1].strides[:1] + (3200,)
        assert mode.memory.live["cpu"] - before == out.nbytes  # the allocation is charged
        for read in (lambda: next(it), lambda: it.value, lambda: it.multi_index, it.iternext):
            with pytest.raises(ft.DataDependentError):
                read()
        v = it.itviews[0]
        assert np.shares_memory(v, f)
        with pytest.raises(ft.UnsupportedOperationError):
            np.nditer([ft.to_fake(A), None], op_axes=[[0, 1], [1, 0]])


def test_nditer_itviews_offsets():
    """Views start where NumPy's do (a flipped axis starts at its last element)."""
    conv = ft.Converter()
    for a in (A[::-1], A[:, ::-1].T, B3[:, ::-2]):
        real = np.nditer([a]).itviews[0]
        with ft.FakeMode():
            fake = np.nditer([conv.to_fake(a)]).itviews[0]
        compare_meta(real, fake, [a], [conv.to_fake(a)], "itviews")


VECTORIZE = {
    "otypes": lambda a: np.vectorize(lambda x, y: x + y, otypes=[float])(a, 1),
    "otypes-T-f4": lambda a: np.vectorize(lambda x, y: x + y, otypes=[np.float32])(a.T, a.T[:, :1]),
    "otypes-neg-code": lambda a: np.vectorize(lambda x: x, otypes="d")(a[::-1, ::-1]),
    "two-outputs": lambda a: np.vectorize(lambda x: (x, x), otypes=[float, int])(a),
    "object": lambda a: np.vectorize(lambda x: x, otypes=[object])(a[0]),
    "0d": lambda a: np.vectorize(lambda x: x, otypes=[float])(a[0, 0]),
    "list": lambda a: np.vectorize(lambda x, y: x, otypes=[float])(a, [1, 2, 3, 4]),
    "keyword": lambda a: np.vectorize(lambda x, y=1: x, otypes=[float])(a, y=a[0]),
    "excluded": lambda a: np.vectorize(lambda x, y: x, otypes=[float], excluded={1})(a, [1, 2]),
    "mismatch": lambda a: np.vectorize(lambda x, y: x, otypes=[float])(a, a[:2]),
    "signature": lambda a: np.vectorize(lambda x: x.sum(), otypes=[float], signature="(n)->()")(a),
    "signature-matvec": lambda a: np.vectorize(lambda x, y: x @ y, otypes=[float],
                                               signature="(n,m),(m)->(n)")(a, a[0]),
    "signature-mismatch": lambda a: np.vectorize(lambda x, y: x @ y, otypes=[float],
                                                 signature="(n,m),(m)->(n)")(a, a[:, 0]),
    "signature-two-outputs": lambda a: np.vectorize(lambda x: (x, x[0]), otypes=[float, int],
                                                    signature="(n)->(n),()")(a.T),
}


@pytest.mark.parametrize("name", list(VECTORIZE))
def test_vectorize(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(VECTORIZE[name], A)


def test_vectorize_needs_otypes():
    with ft.FakeMode():
        f = np.ones((3, 4))
        with pytest.raises(ft.DataDependentError):
            np.vectorize(lambda x: x)(f)
        with pytest.raises(ft.DataDependentError):
            np.vectorize(lambda x: x[None], otypes=[float], signature="(n)->(n,k)")(f)


def test_vectorize_peak_matches_tracemalloc():
    def setup():
        return [np.ones((300, 40)), np.ones(40, np.float32)]
    (rp, rl), (fp, fl) = op_peaks(setup, lambda a, b: np.vectorize(
        lambda x, y: x + y, otypes=[np.float32])(a.T, b[:, None]))
    assert (fp, fl) == (rp, rl)


# array-likes made of fakes: the dtype NumPy's discovery gives them (NEP 50) and the layout
F4 = np.arange(3, dtype=np.float32)
I1 = np.arange(3, dtype=np.int8)
S0 = np.array(2.0, np.float32)
LIKES = {
    "two-fakes": [Fk(F4), Fk(F4)], "nested": [[Fk(F4)], [Fk(F4)]],
    "fake-and-python-float": (Fk(F4[0:1]), 2.0), "int8-and-python-ints": [Fk(I1), [1, 2, 300]],
    "float32-and-python-floats": [Fk(F4), [1.0, 2.0, 3.0]], "int8-and-float32": [Fk(I1), Fk(F4)],
    "0d-and-python-scalars": [Fk(S0), 1.5, 2], "0d-and-numpy-scalar": [Fk(S0), np.float64(1.5)],
    "fake-and-real-f8": [Fk(F4), np.arange(3.0)], "deep": [[[Fk(S0)]], [[1]]],
    "ragged": [Fk(F4), [Fk(F4), Fk(F4)]], "transposed": (Fk(A.T), Fk(A.T)),
}
CONSUMERS = {
    "array": np.array, "asarray": np.asarray, "sum": np.sum, "mean": np.mean, "stack": np.stack,
    "concatenate": np.concatenate, "block": np.block, "array-F": lambda x: np.array(x, order="F"),
    "shape": np.shape, "ndim": np.ndim, "copy": np.copy, "atleast_2d": np.atleast_2d,
    "where": lambda x: np.where(True, x, 0), "max": np.max, "cumsum": np.cumsum,
}


@pytest.mark.parametrize("consumer", list(CONSUMERS))
@pytest.mark.parametrize("like", list(LIKES))
def test_array_likes_of_fakes(like, consumer):
    r, f, rins, fins = run_in_mode(CONSUMERS[consumer], (LIKES[like],), {})
    if isinstance(r, Exception):
        assert type(f) is type(r) or _same_family(r, f), f"real raised {r!r}, fake {f!r}"
        return
    assert not isinstance(f, Exception), f"fake raised {f!r}"
    compare_meta(r, f, rins, fins, f"{like}-{consumer}")


@pytest.mark.xfail(strict=True, reason="a ufunc converts a list argument in C (no override is "
                   "consulted for the items), so a list holding fakes reaches the fake's data")
def test_ufunc_of_a_list_of_fakes():
    check(lambda f: np.add([f, f], 1), F4)


def _nested(*ops, axes, **kw):
    its = np.nested_iters(list(ops), axes, **kw)
    out = []
    for it in its:
        out.append((it.shape, it.ndim, it.nop, it.itersize, tuple(map(str, it.dtypes)),
                    [(v.shape, v.strides, v.flags.writeable) for v in it.itviews],
                    [(o.shape, o.strides) for o in it.operands], it.has_multi_index,
                    it.finished, isinstance(it, np.nditer)))
    return out


NESTED = {
    "two-groups": ((B3,), {"axes": [[0], [1, 2]]}),
    "T": ((B3.T,), {"axes": [[0], [1, 2]]}),
    "neg": ((B3[:, ::-1],), {"axes": [[1], [0, 2]]}),
    "three-groups": ((B3,), {"axes": [[0], [1], [2]]}),
    "multi_index": ((B3,), {"axes": [[0, 2], [1]], "flags": ["multi_index"]}),
    "two-ops": ((B3, A), {"axes": [[1], [0, 2]]}),
    "readwrite": ((B3,), {"axes": [[0], [1, 2]], "op_flags": [["readwrite"]]}),
    "readwrite-read-only": ((np.broadcast_to(A, (2, 3, 4)),),
                            {"axes": [[0], [1, 2]], "op_flags": [["readwrite"]]}),
    "axes-missing": ((B3,), {"axes": [[0], [1]]}),
    "axes-twice": ((B3,), {"axes": [[0, 1], [1, 2]]}),
    "mismatch": ((B3, A[:2]), {"axes": [[0], [1, 2]]}),
    "cast-refused": ((B3,), {"axes": [[0], [1, 2]], "op_dtypes": [np.int32]}),
}


@pytest.mark.parametrize("name", list(NESTED))
def test_nested_iters(name):
    ops, kw = NESTED[name]
    _same(lambda *o: _nested(*o, **kw), *ops)


def test_nested_iters_values_and_refusals():
    with ft.FakeMode():
        f = np.ones((2, 3, 4))
        outer, inner = np.nested_iters(f, [[0], [1, 2]])
        assert outer.operands[0] is f and np.shares_memory(inner.itviews[0], f)
        for read in (lambda: next(outer), lambda: inner.value, lambda: list(inner)):
            with pytest.raises(ft.DataDependentError):
                read()
        with pytest.raises(ft.UnsupportedOperationError):
            np.nested_iters([f, None], [[0], [1, 2]])
    assert type(np.nested_iters(B3, [[0], [1, 2]])[0]) is np.nditer  # outside: NumPy's own
