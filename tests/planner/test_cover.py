"""The coverage gaps closed for ``faketensor coverage``'s goal, each against real NumPy on
awkward layouts: histograms of complex data, kron in every layout, tril/triu of 0-d,
fftn's deprecated ``s`` forms, ndarray.resize in place, datetime_as_string, from_dlpack,
percentile of an empty q, the printing functions, np.random.get_state/set_state,
genfromtxt's squeezed view, and NumPy's Python entry points bound before faketensor patched
them. ``np.matrix`` has its own file (tests/core/test_matrix.py)."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import faketensor as ft
from faketensor._convert import Converter
from faketensor.meta_utils.surveys.samples import A, NUMERIC, TIMES, arrays, dtype_arrays

import oracle
from memtools import op_peaks

LAYOUTS = ("C", "F", "T", "neg", "strided", "bcast", "offset", "perm")


def mode_check(fn, *args, **kwargs):
    """fn on copies of the real inputs, and inside a FakeMode on their fakes (functions that
    reach faketensor only through the namespace patches), compared."""
    real_in = oracle._copy_tree((args, kwargs))
    conv = Converter()
    fake_in = tuple(_fakes(x, conv) for x in (real_in[0], real_in[1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(*real_in[0], **real_in[1])
        except Exception as e:  # compared by type
            r = e
        with ft.FakeMode():
            try:
                f = fn(*fake_in[0], **fake_in[1])
            except ft.UnsupportedOperationError:
                raise
            except Exception as e:  # compared by type
                f = e
    oracle.compare_outcome(r, f, oracle._arrays(real_in), oracle._arrays(fake_in), "")
    return r, f


def _fakes(obj, conv):
    if isinstance(obj, tuple):
        return tuple(_fakes(x, conv) for x in obj)
    if isinstance(obj, list):
        return [_fakes(x, conv) for x in obj]
    if isinstance(obj, dict):
        return {k: _fakes(v, conv) for k, v in obj.items()}
    return conv.to_fake(obj) if isinstance(obj, np.ndarray) else obj


def _awkward(dtype="f8", shape=(3, 4)):
    return [A(k, shape, dtype, "arange") for k in LAYOUTS if not (k == "perm" and len(shape) < 2)]


# --- histograms of complex data ---------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("spec", _awkward("c16") + [A("C", (0,), "c8"), A("C", (5,), "c8", "arange")],
                         ids=lambda s: s.id)
@pytest.mark.parametrize("call", [
    lambda a: np.histogram(a), lambda a: np.histogram(a, 4, (0, 5)),
    lambda a: np.histogram(a, 3, density=True), lambda a: np.histogram_bin_edges(a, 4, (0, 5)),
    lambda a: np.histogram(a, [0, 1, 2]), lambda a: np.histogram(a, weights=np.ones(a.shape)),
    lambda a: np.histogram2d(a.ravel(), a.ravel()), lambda a: np.histogramdd(a.reshape(-1, 1))])
def test_histograms_of_complex_data(spec, call):
    oracle.check(call, spec.make(np))


def test_complex_histogram_warns_as_numpy_does():
    with ft.FakeMode():
        a = np.ones((3, 4), "c16")
        with pytest.warns(np.exceptions.ComplexWarning):
            np.histogram(a)


# --- kron: multiply of the interleaved views, then reshape ------------------------------------

_KRON = ([A(k, s, "f8", "arange") for k in LAYOUTS for s in ((3, 4), (2, 1, 3))]
         + [A("C", (), "f8"), A("C", (0, 3)), A("C", (5,), "i4"), A("F", (1, 4), "c16"),
            A("C", (3, 1), "f4")])


@pytest.mark.parametrize("b", _KRON, ids=lambda s: s.id)
@pytest.mark.parametrize("a", _KRON[::3], ids=lambda s: s.id)
def test_kron_every_layout(a, b):
    oracle.check(np.kron, a.make(np), b.make(np))


@pytest.mark.parametrize("args", [([[1, 2], [3, 4]], "F"), (2.0, "C"), ("F", "F"), ("T", "C")])
def test_kron_memory(args):
    def make(x):
        if x in ("C", "F", "T"):
            return A(x, (30, 40), "f8").make(np)
        return x
    (real_peak, real_live), (fake_peak, fake_live) = op_peaks(
        lambda: [np.asarray(make(x)) if isinstance(x, str) else x for x in args], np.kron)
    assert (fake_peak, fake_live) == (real_peak, real_live)


# --- tril / triu of 0-d, percentile of an empty q ----------------------------------------------

@pytest.mark.parametrize("fn", [np.tril, np.triu])
@pytest.mark.parametrize("spec", [A("C", ()), A("C", (4,)), A("F", (3, 4)), A("C", (2, 3, 4))],
                         ids=lambda s: s.id)
def test_tril_triu(fn, spec):
    oracle.check(fn, spec.make(np))
    oracle.check(lambda m: fn(m, -1), spec.make(np))


@pytest.mark.parametrize("fn", [np.percentile, np.nanpercentile, np.quantile, np.nanquantile])
@pytest.mark.parametrize("a, q", [((0, 4), (0, 4)), ((3, 4), (0, 4)), ((3, 4), (0,)),
                                  ((3, 4), (0, 2)), ((0, 4), (2,))])
def test_quantiles_of_an_empty_q(fn, a, q):
    if fn in (np.nanpercentile, np.nanquantile) and (a, q) == ((3, 4), (0,)):
        # one slice, an array q: all NaN, NumPy's result is a view of np.full; else its own
        with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
            assert not fn(np.full(a, np.nan), np.zeros(q)).flags.owndata
        assert fn(np.ones(a), np.zeros(q)).flags.owndata
        with pytest.raises(ft.DataDependentError, match="all NaN"):
            fn(ft.to_fake(np.ones(a)), np.zeros(q))
        return
    oracle.check(fn, np.ones(a), np.zeros(q))


# --- fftn's deprecated forms -------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("fn", [np.fft.fftn, np.fft.ifftn, np.fft.rfftn, np.fft.irfftn,
                                np.fft.fft2, np.fft.irfft2])
@pytest.mark.parametrize("s", [(2, 5), (6,), (None, 3), (2, None), (-1, 4), (3, 4, 5, 6)])
@pytest.mark.parametrize("layout", ["neg", "F"])
def test_fftn_s_without_axes(fn, s, layout):
    oracle.check(lambda a: fn(a, s), A(layout, (3, 4, 5), "f8").make(np))


def test_fftn_s_without_axes_warns_every_call():
    with ft.FakeMode():
        a = np.ones((3, 4))
        for _ in range(2):  # the second call would be a kernel-cache hit
            with pytest.warns(DeprecationWarning, match="axes"):
                np.fft.fftn(a, (2, 5))
        with pytest.warns(DeprecationWarning, match="None"):
            np.fft.fft2(a, (None, 3))


# --- ndarray.resize in place ------------------------------------------------------------------

_RESIZE = [(((2, 6),), {"refcheck": False}), ((20,), {"refcheck": False}),
           ((5, 3), {"refcheck": False}), (((4, 3),), {}), ((12,), {}), ((0,), {"refcheck": False}),
           (((2, 2, 3),), {}), (((1, 12),), {"refcheck": False})]


@pytest.mark.parametrize("spec", [A("C", (3, 4)), A("F", (3, 4)), A("C", (12,)), A("F", (1, 4)),
                                  A("C", (3, 4), "i1")], ids=lambda s: s.id)
@pytest.mark.parametrize("i", range(len(_RESIZE)))
def test_resize_changes_the_fake_as_the_array(spec, i):
    args, kw = _RESIZE[i]
    real = spec.make(np)
    fake = Converter().to_fake(real)
    try:
        real.resize(*args, **kw)
        want = None
    except Exception as e:  # compared by type
        want = e
    with ft.FakeMode():
        try:
            fake.resize(*args, **kw)
            got = None
        except ft.UnsupportedOperationError as e:  # a reallocation with refcheck
            assert "reference count" in str(e) and kw.get("refcheck", True)
            return
        except Exception as e:  # compared by type
            got = e
    assert type(want) is type(got)
    oracle.compare_meta(real, fake, [], [], "after resize")


@pytest.mark.parametrize("new", [(500, 400), (100, 40), (300, 400)])
def test_resize_reallocates_as_realloc(new):
    """NumPy's realloc gives the old block back as it takes the new one (tracemalloc sees one
    block change size): the peak of a program that makes and resizes an array is the larger
    of the two sizes. (Measured from before the array exists: an array made before
    tracemalloc starts is untracked, and its realloc would look like a fresh allocation.)"""
    from memtools import measure_peak

    def program():
        a = np.ones((300, 400))
        a.resize(new, refcheck=False)
        return a
    real_peak, _ = measure_peak(program)
    with ft.FakeMode() as mode:
        base = mode.memory.live.get("cpu", 0)
        mode.memory.reset_peak("cpu")
        kept = program()
        fake = mode.memory.peak["cpu"] - base, mode.memory.live.get("cpu", 0) - base
    assert fake == (real_peak, kept.nbytes)


# --- datetime_as_string, from_dlpack -----------------------------------------------------------

@pytest.mark.parametrize("spec", _awkward("M8[s]") + [A("C", (), "M8[D]"), A("C", (0, 3), "M8[ms]"),
                                                    A("C", (3,), "m8[s]"), A("C", (3,), "f8")],
                         ids=lambda s: s.id)
@pytest.mark.parametrize("kw", [{}, {"unit": "D"}, {"unit": "auto"}, {"timezone": "UTC"},
                                {"unit": "h", "timezone": "local"}, {"unit": "ns"},
                                {"unit": "m", "casting": "safe"}, {"unit": "bad"}, {"timezone": "x"}])
def test_datetime_as_string(spec, kw):
    oracle.check(lambda a: np.datetime_as_string(a, **kw), spec.make(np))


_DLPACK = arrays("f8") + dtype_arrays(NUMERIC + TIMES + ["U3"]) + [A("C", (3,), ">f8")]


@pytest.mark.parametrize("spec", _DLPACK, ids=lambda s: s.id)
@pytest.mark.parametrize("kw", [{}, {"copy": True}, {"copy": False}, {"device": "cpu"},
                                {"device": "cuda"}])
def test_from_dlpack(spec, kw):
    mode_check(lambda a: np.from_dlpack(a, **kw), spec.make(np))


# --- printing, random state, genfromtxt --------------------------------------------------------

@pytest.mark.parametrize("fn", [np.array2string, np.array_repr, np.array_str])
def test_printing_refuses_values_but_formats_empty_arrays(fn):
    want = fn(np.empty((0, 4), "i2"))
    with ft.FakeMode():
        with pytest.raises(ft.DataDependentError, match="formats the values"):
            fn(np.ones((3, 4)))
        assert fn(np.ones((0, 4), "i2")) == want
    for shape in ((0, 4), (3, 0, 2)):
        mode_check(fn, np.ones(shape, "f4"))


def test_random_state_in_a_mode():
    np.random.seed(3)
    before = np.random.get_state()
    r, f = mode_check(lambda: np.random.get_state())
    assert f[0] == "MT19937" and f[1].shape == (624,) and f[1].dtype == np.uint32
    assert [x.pytype for x in f[2:]] == [int, int, float]  # fake Python numbers
    with ft.FakeMode():
        state = np.random.get_state()
        np.random.normal(size=3)
        assert np.random.set_state(state) is None  # a fake state sets nothing
    after = np.random.get_state()
    assert np.array_equal(before[1], after[1]) and before[2:] == after[2:]


def test_genfromtxt_of_one_column_is_a_view(tmp_path):
    path = tmp_path / "a.csv"
    np.savetxt(path, np.ones((3, 1)), delimiter=",")
    mode_check(lambda p: np.genfromtxt(p, delimiter=","), str(path))
    np.savetxt(path, np.ones((1, 1)), delimiter=",")
    mode_check(lambda p: np.genfromtxt(p, delimiter=","), str(path))


# --- NumPy's Python functions bound before faketensor patched them ------------------------------

_EARLY = """
import numpy as np
from numpy import fix, isposinf, isneginf
import faketensor as ft
real = np.ones((3, 4))[:, ::-1]
wants = [fn(real) for fn in (fix, isposinf, isneginf)]
with ft.FakeMode():
    f = np.ones((3, 4))[:, ::-1]
    for fn, want in zip((fix, isposinf, isneginf), wants):
        got = fn(f)
        assert ft.is_fake(got), (fn, got)
        assert (got.shape, got.dtype, got.strides) == (want.shape, want.dtype, want.strides)
    out = np.empty((3, 4))
    assert fix(f, out=out) is out
print("ok")
"""


def test_python_entries_imported_before_faketensor():
    res = subprocess.run([sys.executable, "-c", _EARLY], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr


def test_python_entries_outside_a_mode_run_on_fakes():
    """A Python entry given fakes outside a mode steps through a FakeMode of its own."""
    f = ft.to_fake(np.ones((3, 2))[:, ::-1])
    fix = np.fix.__wrapped__
    r, real = fix(f), np.fix(np.ones((3, 2))[:, ::-1])
    assert ft.is_fake(r) and (r.shape, r.dtype, r.strides) == (real.shape, real.dtype, real.strides)
