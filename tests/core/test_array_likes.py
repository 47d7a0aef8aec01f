"""NumPy functions given real array-likes inside FakeMode (modes/patching.kernel_patch).

Inside ``FakeMode`` a NumPy function with a kernel whose arguments are all real (lists,
nested lists, tuples, scalars, real ndarrays) runs its kernel: the result is a fake whose
metadata is NumPy's, real ndarrays are converted through the mode's memo (aliasing kept) and
never modified. Each case runs for real and inside ``FakeMode``; shape, dtype, strides, flags,
``shares_memory`` with every input array, byte offset and exception type must agree.
"""
from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest

import faketensor as ft
from memtools import op_peaks
from oracle import _copy_tree, _same_family, compare_meta


class Fk:
    """An argument given as a fake (made with ``ft.to_fake``) on the fake side, real otherwise."""

    def __init__(self, a: np.ndarray) -> None:
        self.a = a


def _arr(shape, dtype=np.float64, layout="c") -> np.ndarray:
    """A real array of an awkward layout: c, f, t (transposed), rev (negative strides), step."""
    n = int(np.prod(shape))
    if layout == "f":
        return np.asfortranarray(np.arange(n, dtype=dtype).reshape(shape))
    if layout == "t":
        return np.arange(n, dtype=dtype).reshape(shape[::-1]).T
    if layout == "rev":
        return np.arange(n, dtype=dtype).reshape(shape)[::-1]
    if layout == "step":
        return np.arange(2 * n, dtype=dtype)[::2].reshape(shape)
    return np.arange(n, dtype=dtype).reshape(shape)


def _real_side(obj: Any) -> Any:
    if isinstance(obj, Fk):
        return obj.a
    if isinstance(obj, (list, tuple)):
        return type(obj)(_real_side(x) for x in obj)
    if isinstance(obj, dict):
        return {k: _real_side(v) for k, v in obj.items()}
    return obj


def _fake_side(obj: Any, conv: ft.Converter) -> Any:
    if isinstance(obj, Fk):
        return conv.to_fake(obj.a)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_fake_side(x, conv) for x in obj)
    if isinstance(obj, dict):
        return {k: _fake_side(v, conv) for k, v in obj.items()}
    return obj


def _leaves(obj: Any) -> list:
    if isinstance(obj, (list, tuple)):
        return [y for x in obj for y in _leaves(x)]
    if isinstance(obj, dict):
        return [y for x in obj.values() for y in _leaves(x)]
    return [obj]


def _arrays(obj: Any) -> list:
    return [x for x in _leaves(obj) if isinstance(x, np.ndarray) or ft.is_fake(x)]


def run_in_mode(fn, args: tuple, kwargs: dict) -> tuple:
    """(real result or exception, fake result or exception, real inputs, fake inputs): fn
    inside FakeMode on copies of the arguments (the ``Fk`` ones as fakes), then for real on
    the same copies (so byte offsets compare); the fake run must leave them unmodified."""
    cases = _copy_tree((args, kwargs))  # Fk arrays copied too (their layouts kept)
    real_args, real_kwargs = _real_side(cases)
    before = [(x, x.copy(), x.strides, x.flags.writeable) for x in _arrays((real_args, real_kwargs))]
    fargs, fkwargs = _fake_side(cases, ft.Converter())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ft.FakeMode() as mode:
            try:
                f = fn(*fargs, **fkwargs)
            except Exception as e:  # compared by type
                f = e
    for x, saved, strides, w in before:
        assert np.array_equal(x, saved, equal_nan=True) and x.strides == strides \
            and x.flags.writeable == w, "a real input was modified"
    fins = [mode.converter.to_fake(x) if isinstance(x, np.ndarray) else x
            for x in _arrays((fargs, fkwargs))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(*real_args, **real_kwargs)
        except Exception as e:  # compared by type
            r = e
    return r, f, _arrays((real_args, real_kwargs)), fins


A = _arr((2, 3))
B3 = _arr((3,))
SQ = _arr((3, 3)) + np.eye(3) * 10  # invertible

# (id, function, args, kwargs): results and exception types must equal NumPy's
CASES = [
    # --- lists, nested lists, tuples, scalars ---------------------------------------------
    # their values are known (faketensor/_known.py): a data-dependent length is exact
    ("where1", np.where, ([True, False],), {}),
    ("nonzero", np.nonzero, ([0, 1],), {}),
    ("unique", np.unique, ([1, 1, 2],), {}),
    ("unique-inverse", np.unique, ([3, 1, 3, 2],), {"return_inverse": True}),
    ("squeeze-nested", np.squeeze, ([[1], [2]],), {}),
    ("squeeze-axis", np.squeeze, ([[[1.5, 2.5]]],), {"axis": 0}),
    ("squeeze-scalar", np.squeeze, (2.5,), {}),
    ("squeeze-badaxis", np.squeeze, ([[1, 2]],), {"axis": 1}),
    ("interp-lists", np.interp, ([1.5, 2.5], [1, 2, 3], [3, 4, 5]), {}),
    ("interp-scalar", np.interp, (1.5, [1, 2], [3, 4]), {}),
    ("interp-complex", np.interp, ([1.5], (1, 2), [3j, 4]), {}),
    ("interp-mismatch", np.interp, ([1.5], [1, 2, 3], [3, 4]), {}),
    ("corrcoef", np.corrcoef, ([[1, 2, 3], [3, 2, 1]],), {}),
    ("cov-list", np.cov, ([1.0, 2.0, 4.0],), {}),
    ("cov-tuple-y", np.cov, ((1, 2, 3), [2, 3, 5]), {}),
    ("broadcast_to", np.broadcast_to, ([1, 2], (3, 2)), {}),
    ("broadcast_to-bad", np.broadcast_to, ([1, 2], (3, 3)), {}),
    ("sum-list", np.sum, ([1, 2, 3],), {}),
    ("sum-nested-axis", np.sum, ([[1, 2], [3, 4]],), {"axis": 1}),
    ("sum-bool", np.sum, ([True, False],), {}),
    ("mean-floats", np.mean, ([1.0, 2.0],), {}),
    ("prod-scalar", np.prod, (3,), {}),
    ("transpose-nested", np.transpose, ([[1, 2, 3]],), {}),
    ("transpose-scalar", np.transpose, (5,), {}),
    ("reshape-list", np.reshape, ([1, 2, 3, 4], (2, 2)), {}),
    ("reshape-bad", np.reshape, ([1, 2, 3], (2, 2)), {}),
    ("ravel-tuple", np.ravel, (((1, 2), (3, 4)),), {}),
    ("expand_dims", np.expand_dims, ([1, 2], 0), {}),
    ("moveaxis", np.moveaxis, ([[[1, 2]]], 0, -1), {}),
    ("swapaxes-bad", np.swapaxes, ([1, 2], 0, 3), {}),
    ("flip", np.flip, ([[1, 2], [3, 4]],), {}),
    ("roll", np.roll, ([1, 2, 3], 1), {}),
    ("repeat", np.repeat, ([1, 2], 3), {}),
    ("tile", np.tile, ([1, 2], (2, 2)), {}),
    ("cumsum", np.cumsum, ([1, 2, 3],), {}),
    ("diff", np.diff, ([1.0, 4.0, 9.0],), {}),
    ("outer", np.outer, ([1, 2], [3, 4, 5]), {}),
    ("dot", np.dot, ([1, 2], [3, 4]), {}),
    ("concatenate-lists", np.concatenate, ([[1, 2], [3]],), {}),
    ("concatenate-bad", np.concatenate, ([[1], [[2]]],), {}),
    ("stack-tuples", np.stack, (((1, 2), (3, 4)),), {}),
    ("vstack", np.vstack, ([[1, 2], [3, 4]],), {}),
    ("hstack", np.hstack, (([1], [2, 3]),), {}),
    ("atleast_2d", np.atleast_2d, ([1, 2],), {}),
    ("sort", np.sort, ([3, 1, 2],), {}),
    ("argsort", np.argsort, ([3.0, 1.0, 2.0],), {}),
    ("take", np.take, ([10, 20, 30], [2, 0]), {}),
    ("diag", np.diag, ([1, 2, 3],), {}),
    ("triu", np.triu, ([[1, 2], [3, 4]],), {}),
    ("trace", np.trace, ([[1, 2], [3, 4]],), {}),
    ("pad", np.pad, ([1, 2], 2), {}),
    ("where3", np.where, ([True, False], [1, 2], 0.5), {}),
    ("cross", np.cross, ([1, 2, 3], [4, 5, 6]), {}),
    ("convolve", np.convolve, ([1, 2, 3], [0, 1]), {}),
    ("kron", np.kron, ([1, 2], [[1], [2]]), {}),
    ("histogram", np.histogram, ([1.0, 2.0],), {}),
    ("median", np.median, ([3.0, 1.0, 2.0],), {}),
    ("average-weights", np.average, ([1.0, 2.0], ), {"weights": [3, 1]}),
    ("clip", np.clip, ([1, 5, 9], 2, 6), {}),
    ("linalg.inv", np.linalg.inv, ([[2.0, 1.0], [1.0, 3.0]],), {}),
    ("linalg.inv-bad", np.linalg.inv, ([[1.0, 2.0, 3.0]],), {}),
    ("linalg.det", np.linalg.det, ([[2, 1], [1, 3]],), {}),
    ("linalg.norm", np.linalg.norm, ([3.0, 4.0],), {}),
    ("fft.fft", np.fft.fft, ([1.0, 2.0, 3.0],), {}),
    ("fft.rfft", np.fft.rfft, ((1, 2, 3, 4),), {}),
    ("ndim", np.ndim, ([[1, 2]],), {}),
    ("shape", np.shape, (((1, 2, 3),),), {}),
    ("unravel_index", np.unravel_index, ([1, 5], (2, 3)), {}),
    ("unravel_index-bounds", np.unravel_index, ([1, 6], (2, 3)), {}),
    ("unravel_index-empty-dims", np.unravel_index, ([1], (2, 1, 0)), {}),
    ("bincount-empty", np.bincount, ([],), {"minlength": 3}),
    ("putmask-keyword", np.putmask, (), {"a": np.zeros(2), "mask": [0, 1], "values": [1, 2]}),
    ("astype-int", np.astype, (10, np.float64), {}),
    ("fromstring-binary", np.fromstring, (b"\x00" * 8,), {}),
    # --- real ndarrays of awkward layouts (converted through the mode's memo) ------------------
    ("squeeze-real-f", np.squeeze, (_arr((1, 3, 1, 2), layout="f"),), {}),
    ("transpose-real-rev", np.transpose, (_arr((3, 2), layout="rev"),), {}),
    ("reshape-real-t", np.reshape, (_arr((3, 4), layout="t"), (12,)), {}),
    ("broadcast_to-real-step", np.broadcast_to, (_arr((3,), layout="step"), (2, 3)), {}),
    ("concatenate-real-views", np.concatenate, ([A[:, ::2], A[:, 1:2]],), {"axis": 1}),
    ("interp-real", np.interp, (_arr((4,), layout="rev"), B3, B3 * 2), {}),
    ("sum-real-empty", np.sum, (np.zeros((0, 3)),), {"axis": 0}),
    ("squeeze-real-0d", np.squeeze, (np.array(1.5),), {}),
    ("linalg.inv-real", np.linalg.inv, (SQ,), {}),
    # --- fakes mixed with real arguments ------------------------------------------------------
    ("concatenate-mixed", np.concatenate, ([Fk(A), [[1.0, 2.0, 3.0]]],), {}),
    ("concatenate-fake-real", np.concatenate, ([Fk(A), A],), {}),
    ("interp-fake-x", np.interp, (Fk(_arr((5,), layout="rev")), [1, 2], [3, 4]), {}),
    ("where-fake-cond", np.where, (Fk(np.array([True, False, True])), [1, 2, 3], 0.5), {}),
    ("stack-mixed", np.stack, ((Fk(B3), B3, [1.0, 2.0, 3.0]),), {}),
    ("squeeze-list-of-fake", np.squeeze, ([Fk(_arr((3, 1)))],), {}),
    ("squeeze-list-of-fake-axis", np.squeeze, ([Fk(_arr((3, 1)))],), {"axis": 0}),
    ("broadcast_to-list-of-fakes", np.broadcast_to, ([Fk(B3), Fk(B3)], (2, 2, 3)), {}),
    ("outer-fake-list", np.outer, (Fk(B3), [1, 2]), {}),
]


@pytest.mark.parametrize("name, fn, args, kwargs", CASES, ids=[c[0] for c in CASES])
def test_array_likes_in_fake_mode(name: str, fn, args: tuple, kwargs: dict) -> None:
    r, f, rins, fins = run_in_mode(fn, args, kwargs)
    if isinstance(r, Exception):
        assert isinstance(f, Exception), f"{name}: real raised {type(r).__name__}: {r}, fake gave {f!r}"
        assert type(f) is type(r) or isinstance(f, type(r)) or _same_family(r, f), \
            f"{name}: real raised {type(r).__name__}: {r}; fake raised {type(f).__name__}: {f}"
        return
    if isinstance(f, Exception):
        raise AssertionError(f"{name}: fake raised {type(f).__name__}: {f}") from f
    assert any(ft.is_fake(x) for x in _leaves(f)) or not _arrays(r) and not any(
        isinstance(x, np.generic) for x in _leaves(r)), f"{name}: no fake in the result {f!r}"
    compare_meta(r, f, rins, fins, name)


# Calls whose answer needs the values the converted array-likes no longer carry, or that no
# kernel reproduces: the fake side raises these, never a real result or a bare "no data"
NOT_FAKEABLE = [
    ("histogram-auto-bins", np.histogram, ([1.0, 2.0],), {"bins": "auto"}, ft.DataDependentError),
    ("array_split", np.array_split, ([1, 2, 3, 4, 5], 2), {}, ft.UnsupportedOperationError),
    ("astype-numpy-scalar", np.astype, (np.int64(10), np.float64), {}, ft.UnsupportedOperationError),
]


@pytest.mark.parametrize("name, fn, args, kwargs, exc", NOT_FAKEABLE,
                         ids=[c[0] for c in NOT_FAKEABLE])
def test_array_likes_needing_values(name: str, fn, args: tuple, kwargs: dict, exc) -> None:
    r, f, _, _ = run_in_mode(fn, args, kwargs)
    assert not isinstance(r, Exception), f"{name}: NumPy itself raised {r!r}"
    assert type(f) is exc, f"{name}: expected {exc.__name__}, got {f!r}"


def test_real_ndarray_keeps_its_aliasing() -> None:
    """Two views of one real buffer given to one call share one fake storage, as in NumPy."""
    a = np.arange(12.0).reshape(3, 4)
    with ft.FakeMode() as mode:
        out = np.concatenate([a[:, :2], a[:, 2:]], axis=0)
        view = np.transpose(a)
    assert ft.is_fake(out) and ft.is_fake(view)
    assert view.storage is mode.converter.to_fake(a).storage
    assert not np.shares_memory(out, view)
    assert mode.memory.live["cpu"] == out.nbytes  # the converted input is pre-existing


def test_numpy_internal_calls_on_real_arrays_stay_real() -> None:
    """NumPy's own Python code calling a patched function on real data (printing a real
    array) runs for real, as outside the mode; np.fix (no kernel, modes/python_entry.py)
    runs its Python code on the converted array: a fake."""
    a, b = np.array([1.5, 2.5]), np.arange(3)
    with ft.FakeMode():
        text = repr(a)
        s = np.array2string(b)
        fixed = np.fix(a)
    assert text == "array([1.5, 2.5])" and s == "[0 1 2]"
    assert ft.is_fake(fixed) and fixed.shape == (2,) and fixed.dtype == np.float64


def test_outside_any_mode_unchanged() -> None:
    r = np.squeeze([[1], [2]])
    assert type(r) is np.ndarray and r.shape == (2,)
    assert np.squeeze is not np._core.fromnumeric.squeeze  # patched, calls the original
    assert np.squeeze.__wrapped__ is np._core.fromnumeric.squeeze


def test_user_mode_above_fake_mode_sees_the_call() -> None:
    """A user mode stacked on FakeMode sees all-real calls too, and reaches the FakeMode
    by calling func."""
    seen = []

    class Log(ft.Mode):
        def __array_dispatch__(self, func, types, args, kwargs):
            seen.append(ft._errors.op_name(func))
            return func(*args, **kwargs)

    with ft.FakeMode(), Log():
        out = np.squeeze([[1], [2]])
        out2 = np.squeeze(out)
    assert ft.is_fake(out) and out.shape == (2,) and ft.is_fake(out2)
    assert seen == ["np.squeeze", "np.squeeze"]


def test_recorded_trace_names_the_op() -> None:
    with ft.FakeMode(record=True) as mode:
        np.interp([1.5], [1, 2], [3, 4])
    assert [e.op for e in mode.trace] == ["np.interp"]


@pytest.mark.parametrize("n", [100_000])
def test_interp_on_lists_memory_is_exact(n: int) -> None:
    """The arrays NumPy makes of the lists count, to the byte (tests/memtools.py)."""
    x = [0.5 + i for i in range(n)]
    xp = list(range(n))
    fp = [2.0 * i for i in range(n)]
    real, fake = op_peaks(lambda: [x, xp, fp], np.interp)
    assert fake == real


@pytest.mark.parametrize("expr", [
    "np.cov([1.0, 2.0, 4.0] * 30000)",
    "np.cov([1, 2, 4] * 3000, [1, 2, 3] * 3000)",
    "np.cov(np.ones((3, 500)), [1.0] * 500)",
    "np.corrcoef([[1.0, 2.0, 3.0] * 20000, [3.0, 2.0, 1.0] * 20000])",
    "np.corrcoef([1, 2, 3], [3, 2, 1])",
    "np.concatenate([[1.0, 2.0] * 50000, [3.0] * 70000])",
    "np.concatenate(([1, 2], np.ones(3)))",
    "np.sum([[1, 2], [3, 4]] * 40000, axis=0)",
    "np.sum(3)",
    "np.max([[1, 2]], axis=0)",
    "np.prod((1, 2, 3))",
    "np.interp([0.5] * 60000, [0.0, 1.0], [1.0, 2.0])",
    "np.squeeze([[1.0]] * 100000)",
    "np.broadcast_to([1.0] * 100000, (2, 100000))",
])
def test_array_likes_memory_is_exact(expr: str) -> None:
    """Peak and live bytes equal NumPy's, the arrays it converts list arguments into included."""
    real, fake = op_peaks(lambda: [], lambda: eval(expr))
    assert fake == real, expr


_NO_KERNEL = """
import numpy as np, faketensor as ft
from faketensor.kernels.registry import REGISTRY
fn = np.{name}
assert (fn, "numpy") not in REGISTRY, "has a kernel"
args = ({args},)  # made before the mode
with ft.FakeMode():
    try:
        out = fn(*args)
    except ft.UnsupportedOperationError as e:
        assert "np.{name} " in str(e), str(e)
        print("unsupported")
    else:
        print("real" if type(out) is np.ndarray else type(out).__name__)
"""


@pytest.mark.parametrize("name, args, outcome", [
    # (union1d and setdiff1d were such functions; their kernels refuse with DataDependentError:
    # tests/kernels/numpy/test_quantiles_sets.py)
    # its Python code (modes/python_entry.py) gives the list to a ufunc, which runs for real:
    # ufuncs with only real operands are the standing limit; an ndarray argument is converted
    ("fix", "[1.5, -2.5]", "real"),
    ("fix", "np.array([1.5, -2.5])", "FakeArray"),
])
def test_function_without_kernel_never_hands_a_fake_to_c(name: str, args: str, outcome: str) -> None:
    """No kernel: NumPy's Python code runs; where it would hand a fake made of a real argument
    to C code, UnsupportedOperationError names the function (a subprocess: no crash)."""
    code = _NO_KERNEL.format(name=name, args=args)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == outcome


def test_no_data_error_outside_numpy_code_is_unchanged() -> None:
    """C code asked for a fake's data by the user's own call keeps NumPy-style NotImplementedError."""
    f = ft.empty((2,))
    with pytest.raises(NotImplementedError, match="no data") as info:
        np.asarray(f)
    assert type(info.value) is NotImplementedError


def test_kernel_patches_pickle_copy_and_introspect_as_numpy() -> None:
    """The patched functions pickle by name (to NumPy's own function), copy as themselves,
    and report NumPy's name, docs and signature."""
    import copy
    import inspect
    import pickle

    from faketensor.modes import patching
    for fn in (np.squeeze, np.concatenate, np.linalg.inv, np.fft.fft,
               np.lib.stride_tricks.sliding_window_view):
        orig = patching.original(fn)
        assert orig is not fn and fn.__wrapped__ is orig
        assert pickle.loads(pickle.dumps(fn)) is fn
        assert copy.copy(fn) is fn and copy.deepcopy(fn) is fn
        assert fn.__name__ == orig.__name__ and fn.__doc__ == orig.__doc__
        assert inspect.signature(fn) == inspect.signature(orig)


def test_library_calls_are_not_the_programs_ops():
    """Checks faketensor makes with NumPy functions (the operators' elision test calls
    np.can_cast) run for real: they are not traced as the program's ops."""
    with ft.FakeMode(record=True) as mode:
        a = np.ones((600, 600), np.float32)
        b = (a + 1) / 2 * a
    assert [e.op for e in mode.trace if "can_cast" in e.op] == []
    assert b.shape == (600, 600)
