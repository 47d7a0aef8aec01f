"""ft.explain against the same program run for real: every step's shape, dtype, strides,
byte offset, contiguity flags, kind (view / copy / in place, from the real arrays' bases),
source line, where contiguity was lost and the dtype changed; shares_with against
np.shares_memory; whether a reshape or ravel had to copy against NumPy's own copy=False."""
import inspect
import linecache
import os
import warnings

import numpy as np
import pytest

import faketensor as ft

HERE = os.path.abspath(__file__)
from locations import ROOT  # noqa: E402  (the checkout, for examples/)


def _root(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _addr(a):
    return a.__array_interface__["data"][0]


def _lines(fn):
    """The source lines of fn marked ``# step``, in order."""
    src, start = inspect.getsourcelines(fn)
    return [start + i for i, text in enumerate(src) if text.rstrip().endswith("# step")]


# --- inputs: each maker returns the chain of arrays it made, oldest first ---------------

def mk_c(xp, n):
    a = xp.zeros((4 * n, 6), xp.float32)  # step
    return [a]


def mk_transposed(xp, n):
    a = xp.zeros((6, 4 * n), xp.float32)  # step
    t = a.T  # step
    return [a, t]


def mk_fortran(xp, n):
    a = xp.zeros((4 * n, 6), xp.float32, order="F")  # step
    return [a]


def mk_negative(xp, n):
    a = xp.zeros((4 * n, 6), xp.float32)  # step
    v = a[:, ::-1]  # step
    return [a, v]


def mk_strided(xp, n):
    a = xp.zeros((8 * n, 6), xp.float32)  # step
    v = a[::2]  # step
    return [a, v]


def mk_broadcast(xp, n):
    a = xp.zeros((6,), xp.float32)  # step
    v = xp.broadcast_to(a, (4 * n, 6))  # step
    return [a, v]


def mk_0d(xp, n):
    a = xp.zeros((), xp.float32)  # step
    return [a]


def mk_empty(xp, n):
    a = xp.zeros((0, 6 * n), xp.float32)  # step
    t = a.T  # step
    return [a, t]


# the words the account uses for each input layout
LAYOUT_WORD = {"mk_c": "C-ordered", "mk_transposed": "transposed", "mk_fortran": "transposed",
               "mk_negative": "reversed", "mk_strided": "strided", "mk_broadcast": "broadcast",
               "mk_0d": "C-ordered", "mk_empty": "C-ordered"}
MAKERS = [mk_c, mk_transposed, mk_fortran, mk_negative, mk_strided, mk_broadcast, mk_0d,
          mk_empty]


# --- transforms of the last array: the arrays they make, oldest first -------------------

def tf_reshape(xp, x):
    y = x.reshape(-1)  # step
    return [y]


def tf_reshape_2(xp, x):
    y = x.reshape(x.shape[0] if x.ndim else 1, -1)  # step
    return [y]


def tf_ravel(xp, x):
    y = x.ravel()  # step
    return [y]


def tf_ravel_k(xp, x):
    y = xp.ravel(x, order="K")  # step
    return [y]


def tf_same_shape(xp, x):
    y = x.reshape(x.shape)  # step
    return [y]


def tf_transpose_reshape(xp, x):
    y = x.T  # step
    z = y.reshape(-1)  # step
    return [y, z]


def tf_flatten(xp, x):
    y = x.flatten()  # step
    return [y]


def tf_astype(xp, x):
    y = x.astype(xp.float64)  # step
    return [y]


def tf_astype_same(xp, x):
    y = x.astype(x.dtype)  # step
    return [y]


def tf_ascontiguous(xp, x):
    y = xp.ascontiguousarray(x)  # step
    return [y]


def tf_asfortran(xp, x):
    y = xp.asfortranarray(x)  # step
    return [y]


def tf_asarray_f8(xp, x):
    y = xp.asarray(x, dtype=xp.float64)  # step
    return [y]


def tf_array(xp, x):
    y = xp.array(x)  # step
    return [y]


def tf_fancy(xp, x):
    y = x[[0, 0]]  # step
    return [y]


def tf_reverse(xp, x):
    y = x[::-1]  # step
    return [y]


def tf_expand(xp, x):
    y = xp.expand_dims(x, 0)  # step
    return [y]


def tf_inplace(xp, x):
    y = x.copy()  # step
    y *= 2  # step
    return [y, y]


def tf_view_dtype(xp, x):
    y = x.view(xp.int32)  # step
    return [y]


def tf_scale(xp, x):
    y = x / xp.sqrt(64)  # step
    return [y]


def tf_add_transposed(xp, x):
    y = x + 1  # step
    return [y]


TRANSFORMS = [tf_reshape, tf_reshape_2, tf_ravel, tf_ravel_k, tf_same_shape,
              tf_transpose_reshape, tf_flatten, tf_astype, tf_astype_same, tf_ascontiguous,
              tf_asfortran, tf_asarray_f8, tf_array, tf_fancy, tf_reverse, tf_expand,
              tf_inplace, tf_view_dtype, tf_scale, tf_add_transposed]
FRESH = {tf_scale, tf_add_transposed}  # computations: the chain starts again at their result


def _run(maker, tf, n):
    arrays = maker(np, n)
    return arrays + tf(np, arrays[-1])


def _expected(maker, tf):
    lines = _lines(maker) + _lines(tf)
    return lines


def _real_kind(reals, i, line):
    """The kind the real arrays show: the same object again is an in-place write when its
    line is an augmented assignment, else NumPy returned its input itself (a view)."""
    if i == 0:
        return "fresh"
    if reals[i] is reals[i - 1]:
        text = linecache.getline(HERE, line)
        return "inplace" if any(op in text for op in ("+=", "-=", "*=", "/=")) else "view"
    if _root(reals[i]) is _root(reals[i - 1]):
        return "view"
    return "copy"


def _nocopy_reshape_ok(a, shape, order="C"):
    try:
        np.reshape(a, shape, order=order, copy=False)
        return True
    except ValueError:
        return False


def _explained(maker, tf, n):
    with ft.FakeMode(record=True) as mode:  # held: a NumPy scalar result keeps no mode alive
        fakes = _run(maker, tf, n)
    return fakes, ft.explain(fakes[-1])


@pytest.mark.parametrize("tf", TRANSFORMS, ids=lambda f: f.__name__[3:])
@pytest.mark.parametrize("maker", MAKERS, ids=lambda f: f.__name__[3:])
def test_steps_match_real_run(maker, tf):
    try:
        reals = _run(maker, tf, 1)
    except Exception as e:  # the fake raises what NumPy raises
        with pytest.raises(type(e)):
            _explained(maker, tf, 1)
        return
    lines = _expected(maker, tf)
    fakes, ex = _explained(maker, tf, 1)
    assert ex.recorded
    start = len(reals) - len(_lines(tf)) if tf in FRESH else 0
    reals, lines = reals[start:], lines[start:]
    assert len(ex.steps) == len(reals), str(ex)
    for i, (s, r) in enumerate(zip(ex.steps, reals)):
        where = f"step {i + 1} of\n{ex}"
        assert s.shape == r.shape, where
        assert s.dtype == r.dtype, where
        assert s.strides == r.strides, where
        assert s.offset == _addr(r) - _addr(_root(r)), where
        assert (s.c_contiguous, s.f_contiguous) == (r.flags.c_contiguous,
                                                    r.flags.f_contiguous), where
        assert (s.file, s.line) == (HERE, lines[i]), where
        assert s.function == (maker if i < len(_lines(maker)) - start else tf).__name__, where
        assert s.kind == _real_kind(reals, i, lines[i]), where
        lost = tuple(f for f, k in (("C", "c_contiguous"), ("F", "f_contiguous"))
                     if i and getattr(reals[i - 1].flags, k) and not getattr(r.flags, k))
        assert s.lost == lost, where
        before = reals[i - 1].dtype if i else None
        if i == 0 and tf in FRESH:
            before = _run(maker, tf, 1)[-2].dtype  # the operand
        assert s.dtype_from == (before if before is not None and before != r.dtype
                                else None), where
        assert (s.why is not None) == (s.kind == "copy"), where
        if tf in FRESH:  # a ufunc: a result not C-contiguous says it follows its operands
            assert ("operands' memory order" in (s.note or "")) == (
                not r.flags.c_contiguous), where
        if s.kind == "copy" and s.op in ("np.ascontiguousarray", "np.asfortranarray"):
            assert LAYOUT_WORD[maker.__name__] in s.why, where
        if s.kind == "copy" and s.op.endswith("reshape"):
            assert ("no strides can express" in s.why) == (
                not _nocopy_reshape_ok(reals[i - 1], r.shape)), where
        if s.kind == "copy" and s.op.endswith("ravel") and "order='K'" not in s.why:
            assert ("reshape(-1) would be a view" in s.why) == _nocopy_reshape_ok(
                reals[i - 1], (-1,)), where


@pytest.mark.parametrize("tf", [tf_reshape, tf_transpose_reshape, tf_ravel, tf_fancy,
                                tf_astype, tf_inplace, tf_scale], ids=lambda f: f.__name__[3:])
@pytest.mark.parametrize("maker", [mk_transposed, mk_negative, mk_broadcast, mk_strided],
                         ids=lambda f: f.__name__[3:])
def test_same_story_at_a_size_that_does_not_fit(maker, tf):
    """At 4e9 x 6 float32 (96 GB) the account is the small real run's, shapes aside."""
    small = _explained(maker, tf, 1)[1]
    big = _explained(maker, tf, 10 ** 9)[1]
    assert [(s.op, s.kind, s.dtype, s.c_contiguous, s.f_contiguous, s.lost, s.dtype_from,
             s.line) for s in big.steps] == \
        [(s.op, s.kind, s.dtype, s.c_contiguous, s.f_contiguous, s.lost, s.dtype_from,
          s.line) for s in small.steps]
    assert [s.why is None for s in big.steps] == [s.why is None for s in small.steps]
    assert any(b.shape != s.shape for b, s in zip(big.steps, small.steps))


def shares_program(xp):
    a = xp.zeros((10, 6), xp.float32)  # share
    evens = a[::2]  # share
    odds = a[1::2]  # share
    block = a[2:5]  # share
    col = a[:, 3]  # share
    flipped = a[::-1, ::-1]  # share
    empty = a[3:3]  # share
    whole = a.reshape(-1)  # share
    other = a.copy()  # share
    return [a, evens, odds, block, col, flipped, empty, whole, other]


def _share_lines():
    src, start = inspect.getsourcelines(shares_program)
    return [start + i for i, text in enumerate(src) if text.rstrip().endswith("# share")]


@pytest.mark.parametrize("k", range(9))
def test_shares_with_matches_shares_memory(k):
    reals = shares_program(np)
    with ft.FakeMode(record=True):
        fakes = shares_program(np)
    lines = _share_lines()
    ex = ft.explain(fakes[k])
    x = reals[k]
    expect = {lines[j]: bool(np.shares_memory(x, r)) for j, r in enumerate(reals)
              if j != k and _root(r) is _root(x)}
    got = {o.line: o.overlaps for o in ex.shares_with}
    assert got == expect, str(ex)
    for o in ex.shares_with:
        r = reals[lines.index(o.line)]
        assert (o.file, o.shape, o.dtype, o.strides) == (HERE, r.shape, r.dtype, r.strides)
        assert o.offset == _addr(r) - _addr(_root(r))


def test_dead_arrays_are_not_listed():
    with ft.FakeMode(record=True):
        a = np.zeros((4, 4))
        v = a[1:]
        w = a[:2]
        del w
        ex = ft.explain(v)
    assert [o.op for o in ex.shares_with] == ["np.zeros"]


def test_attention_float64_account():
    """float32 activations become float64 through np.sqrt(head_dim)."""
    def attention(xp, q, k):
        head_dim = q.shape[-1]
        scores = q @ k.transpose(0, 2, 1) / xp.sqrt(head_dim)  # scale
        return scores

    real = attention(np, np.ones((2, 4, 8), np.float32), np.ones((2, 4, 8), np.float32))
    with ft.FakeMode(record=True):
        q = np.ones((2, 4, 8), np.float32)
        k = np.ones((2, 4, 8), np.float32)
        fake = attention(np, q, k)
    ex = ft.explain(fake)
    (step,) = ex.steps
    assert (step.op, step.kind, step.dtype, step.dtype_from) == (
        "np.divide", "fresh", real.dtype, np.dtype(np.float32))
    assert step.line == _lines_marked(attention, "# scale")[0]
    assert "dtype changed here: float32 -> float64" in str(ex)


def _lines_marked(fn, mark):
    src, start = inspect.getsourcelines(fn)
    return [start + i for i, text in enumerate(src) if text.rstrip().endswith(mark)]


def test_example_attention_against_the_real_run():
    """examples/explain_attention.py at a small size: each account against the real arrays."""
    import importlib.util
    path = str(ROOT / "examples" / "explain_attention.py")
    spec = importlib.util.spec_from_file_location("explain_attention", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, ws = mod.inputs(2, 16, 64)
    q, scores, o = mod.attention(x, *ws, 4)
    with ft.FakeMode(record=True):
        fx, fws = mod.inputs(2, 16, 64)
        fq, fscores, fo = mod.attention(fx, *fws, 4)
    ex_s, ex_q, ex_o = ft.explain(fscores), ft.explain(fq), ft.explain(fo)
    assert [(s.kind, s.dtype, s.dtype_from) for s in ex_s.steps] == [
        ("fresh", scores.dtype, x.dtype)]
    assert scores.dtype == np.float64 and x.dtype == np.float32
    assert ex_q.steps[-1].kind == "view" and _root(q) is not q
    assert (ex_q.steps[-1].c_contiguous, ex_q.steps[-1].lost) == (q.flags.c_contiguous, ("C",))
    assert [o2.overlaps for o2 in ex_q.shares_with] == [bool(np.shares_memory(q, q.base))]
    # merging the heads: NumPy refuses that reshape as a view of the same layout
    assert [s.kind for s in ex_o.steps] == ["fresh", "view", "copy"]
    heads = np.ones(ex_o.steps[0].shape, ex_o.steps[0].dtype).transpose(0, 2, 1, 3)
    assert heads.strides == ex_o.steps[1].strides
    with pytest.raises(ValueError):
        np.reshape(heads, o.shape, copy=False)
    assert "no strides can express" in ex_o.steps[-1].why
    assert (ex_o.steps[-1].shape, ex_o.steps[-1].strides) == (o.shape, o.strides)


def test_str_marks_lost_contiguity_and_the_copy():
    with ft.FakeMode(record=True):
        a = np.zeros((3, 4), np.float32)
        t = a.T
        r = t.reshape(-1)
    text = str(ft.explain(r))
    assert "C-contiguity lost here" in text
    assert "no strides can express this reshape of a transposed (F-ordered) array" in text
    lines = text.splitlines()
    lost = next(i for i, s in enumerate(lines) if "C-contiguity lost" in s)
    assert "2. view    ndarray.transpose" in lines[lost - 2]
    assert f"at {os.path.relpath(HERE)}:" in lines[lost - 2]


def test_real_array_base_chain_only():
    owner = np.arange(24.0)
    x = owner.reshape(4, 6).T[::2]
    ex = ft.explain(x)
    assert not ex.recorded
    assert [s.op for s in ex.steps] == [None, None]
    assert [s.file for s in ex.steps] == [None, None]
    for s, r, kind in zip(ex.steps, (owner, x), ("fresh", "view")):
        assert (s.shape, s.dtype, s.strides, s.kind) == (r.shape, r.dtype, r.strides, kind)
        assert (s.c_contiguous, s.f_contiguous) == (r.flags.c_contiguous, r.flags.f_contiguous)
        assert s.offset == _addr(r) - _addr(owner)
    assert [(o.shape, o.overlaps) for o in ex.shares_with] == [
        (owner.shape, bool(np.shares_memory(x, owner)))]
    assert ft.explain(ft.wrap(x)) == ex  # a wrapped array is its real array


def test_real_array_owning_its_data_and_one_on_bytes():
    a = np.ones((2, 3), order="F")
    ex = ft.explain(a)
    assert [(s.kind, s.c_contiguous, s.f_contiguous) for s in ex.steps] == [
        ("fresh", a.flags.c_contiguous, a.flags.f_contiguous)]
    assert ex.shares_with == ()
    b = np.frombuffer(b"\x00" * 16, np.int32)
    (s,) = ft.explain(b).steps
    assert s.kind == "view" and "bytes" in s.note


def test_real_input_then_recorded_ops():
    real = np.arange(12.0).reshape(3, 4)
    with ft.FakeMode(record=True):
        y = np.transpose(real).reshape(-1)  # line
    ex = ft.explain(y)
    assert [s.kind for s in ex.steps] == ["fresh", "view", "view", "copy"]
    assert [s.op for s in ex.steps] == [None, None, "np.transpose", "ndarray.reshape"]
    assert [s.shape for s in ex.steps] == [(12,), (3, 4), (4, 3), (12,)]
    assert ex.steps[-1].line == _lines_marked(test_real_input_then_recorded_ops, "# line")[0]
    assert real.flags.writeable and real.shape == (3, 4)  # not touched


def test_explain_records_nothing_inside_the_mode():
    with ft.FakeMode(record=True) as mode:
        a = np.zeros((5, 5))
        v, w = a[1:], a[:-1]
        n = len(mode.trace)
        peak = mode.memory.peak
        ex = ft.explain(v)
        assert len(mode.trace) == n and mode.memory.peak == peak
    assert [o.overlaps for o in ex.shares_with] == [True, True]
    del w


def test_mode_and_plan_arguments():
    def fn():
        a = np.zeros((8, 2))
        return a.T.reshape(-1)

    plan = ft.plan(fn)
    ex = ft.explain(plan.result, plan)
    assert [s.kind for s in ex.steps] == ["fresh", "view", "copy"]
    assert ft.explain(plan.result).steps == ex.steps
    with pytest.raises(TypeError):
        ft.explain(plan.result, ft.FakeMode())
    with pytest.raises(TypeError):
        ft.explain([1, 2])


def test_unrecorded_fake_reports_metadata():
    x = ft.empty((3, 4), np.float32)[:, ::2]
    ex = ft.explain(x)
    assert not ex.recorded
    assert [s.kind for s in ex.steps] == ["fresh", "view"]
    assert ex.steps[-1].strides == (16, 8)


def test_attribute_assignment_after_the_last_op():
    real = np.zeros((4, 6))[:, :3].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        real.shape = (12,)
        with ft.FakeMode(record=True):
            x = np.zeros((4, 6))[:, :3].copy()
            x.shape = (12,)
    ex = ft.explain(x)
    last = ex.steps[-1]
    assert (last.op, last.shape, last.strides) == (None, real.shape, real.strides)
    assert "set as attributes" in last.note


def test_to_dict_is_plain():
    import json
    with ft.FakeMode(record=True):
        r = np.zeros((3, 4)).T.ravel()
    d = ft.explain(r).to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["steps"][-1]["kind"] == "copy" and d["steps"][-1]["dtype"] == "float64"


def test_cupy_reshape_copy_follows_cupys_rule():
    """CUDA fakes: whether a reshape copied is CuPy's rule (kernels/cupy), and the account
    says so with layout.cupy_reshape."""
    cupy = pytest.importorskip("cupy")
    with ft.FakeMode(record=True, device="cuda"):
        a = cupy.zeros((4, 6), cupy.float32)
        c = a.T.reshape(-1)
        v = a[:, :3].reshape(4, 3, 1)
    ec, ev = ft.explain(c), ft.explain(v)
    assert ec.steps[-1].kind == "copy" and "no strides can express" in ec.steps[-1].why
    assert ev.steps[-1].kind == "view"


def test_lines_inside_a_library_are_the_callers():
    """scipy.special.softmax runs several NumPy ops in scipy's code: every step is the
    user's line, and the result's layout is the real one (a ufunc keeps order K)."""
    import scipy.special
    real = scipy.special.softmax(np.zeros((4, 6), np.float32).T, axis=0)
    with ft.FakeMode(record=True):
        x = np.zeros((4, 6), np.float32)
        y = scipy.special.softmax(x.T, axis=0)  # line
    (step,) = ft.explain(y).steps
    assert (step.file, step.line) == (HERE, _lines_marked(
        test_lines_inside_a_library_are_the_callers, "# line")[0])
    assert (step.strides, step.c_contiguous, step.f_contiguous) == (
        real.strides, real.flags.c_contiguous, real.flags.f_contiguous)
    assert ("operands' memory order" in step.note) == (not real.flags.c_contiguous)


def test_a_fake_keeps_its_recording_mode_for_explain():
    """No reference to the mode is kept, and the collector has run: the fake's buffer still
    leads to the trace that made it."""
    import gc
    with ft.FakeMode(record=True):
        y = np.zeros((3, 4)).T.reshape(-1)
    gc.collect()
    ex = ft.explain(y)
    assert ex.recorded and [s.kind for s in ex.steps] == ["fresh", "view", "copy"]


def test_scalar_whose_mode_is_gone_says_so():
    """A NumPy scalar holds no buffer, so its recording mode may be freed before it is
    explained: the explanation is the metadata's and says why."""
    with ft.FakeMode(record=True) as mode:
        y = np.zeros((), np.float32) / np.sqrt(64)
    assert ft.explain(y).recorded
    del mode
    ex = ft.explain(y)
    assert not ex.recorded and ex.steps[-1].shape == () and "scalar" in ex.notes[-1]
