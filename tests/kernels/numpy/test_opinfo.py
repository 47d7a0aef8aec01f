"""Every entry of the op table (tests/opinfo.py), three ways:

- ``test_numpy``: differential against real NumPy (tests/oracle.check: shape, dtype, strides,
  flags, byte offset, shares_memory with each input, exception type, the kernel cache);
- ``test_crossref``: the same call on wrapped real NumPy arrays under ``ft.CrossRefMode``;
- ``test_cupy``: CUDA fakes against real CuPy, skipped (never faked) without a GPU.

Select with ``-k``: ``pytest tests/kernels/numpy/test_opinfo.py -k "numpy and sqrt"``, ``-k crossref``,
``-k cupy``. Expected failures are each entry's ``xfail`` (strict).
"""
from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import faketensor as ft
from faketensor import _known
from faketensor._sizes import using
from opinfo import REFUSALS, TABLE, WAYS, OpInfo, Sample, _walk, leaves
from oracle import check
import numpy_differences


def _have_gpu() -> bool:
    try:
        cupy = importlib.import_module("cupy")
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no cupy, no driver, no device
        return False


def _entries(way: str) -> list:
    return [pytest.param(op, id=op.name) for op in TABLE if op.samples(way)]


def _run_samples(op: OpInfo, way: str, case) -> None:
    """case(op, sample) for every sample; the failures must be exactly the entry's xfails for
    this way (strict: a gap that is fixed fails until its xfail is removed)."""
    failed = {}
    for s in op.samples(way):
        try:
            case(op, s)
        except Exception as e:  # collected, compared with the expected failures below
            failed[s.id] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
    older = numpy_differences.opinfo(op.name) if way != "cupy" else {}  # an older NumPy's
    expected = {s.id for s in op.samples(way) if op.xfail_reason(way, s) or s.id in older}
    unexpected = {k: v for k, v in failed.items() if k not in expected}
    fixed = sorted(expected - failed.keys())
    lines = [f"{op.name}[{k}]: {v}" for k, v in unexpected.items()]
    lines += [f"{op.name}[{k}]: passes now; remove it from xfail" for k in fixed]
    assert not lines, f"{len(unexpected)} unexpected failures, {len(fixed)} fixed xfails:\n" + "\n".join(lines)


def _fake_call(op: OpInfo, xp):
    """op on xp, inside FakeMode when the entry asks for it and the inputs are fakes."""
    def run(*args, **kwargs):
        if op.fake_mode and any(ft.is_fake(x) for x in leaves((args, kwargs))):
            # compared with one real run's values: data-dependent lengths refuse
            with ft.FakeMode(sizes=ft.SizePolicy("refuse")):
                return op(xp, *args, **kwargs)
        return op(xp, *args, **kwargs)
    run.__name__ = op.name
    return run


def _expect_refusal(fn, xp, sample: Sample, convert) -> None:
    """The fakes stand for arrays of unknown values: a small real array converted keeps its
    values (faketensor/_known.py), so they are forgotten first."""
    args, kwargs = sample.build(xp)
    fargs, fkwargs = convert((args, kwargs))
    for f in leaves((fargs, fkwargs)):
        if ft.is_fake(f):
            _known.forget(f)
    with pytest.raises(REFUSALS), using(ft.SizePolicy("refuse")):  # no assumed lengths
        fn(*fargs, **fkwargs)


@pytest.mark.parametrize("op", _entries("numpy"))
def test_numpy(op: OpInfo) -> None:
    _run_samples(op, "numpy", _numpy_case)


@pytest.mark.parametrize("op", _entries("crossref"))
def test_crossref(op: OpInfo) -> None:
    _run_samples(op, "crossref", _crossref_case)


@pytest.mark.skipif(not _have_gpu(), reason="needs a CUDA GPU and CuPy")
@pytest.mark.parametrize("op", _entries("cupy"))
def test_cupy(op: OpInfo) -> None:
    _run_samples(op, "cupy", _cupy_case)


def _numpy_case(op: OpInfo, sample: Sample) -> None:
    fn = _fake_call(op, np)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if sample.refuses:
            _expect_refusal(fn, np, sample, ft.to_fake)
            return
        args, kwargs = sample.build(np)
        check(fn, *args, **kwargs)


def _crossref_case(op: OpInfo, sample: Sample) -> None:
    args, kwargs = sample.build(np)
    wrapped = _walk((args, kwargs), lambda x: ft.wrap(x) if isinstance(x, np.ndarray) else x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ft.CrossRefMode() as mode:
            try:
                op(np, *wrapped[0], **wrapped[1])
            except ft.MetadataMismatchError:
                raise
            except Exception:  # the real call's own error: CrossRefMode compared its type
                pass
    assert mode.checked > 0, f"{op.name}: CrossRefMode intercepted nothing"
    if not sample.refuses:
        assert not mode.unsupported, f"{op.name}: fake unsupported: {mode.unsupported}"


def _cupy_case(op: OpInfo, sample: Sample) -> None:
    from gpu_oracle import compare_with_cupy
    args, kwargs = sample.build(importlib.import_module("cupy"))
    compare_with_cupy(_fake_call(op, importlib.import_module("cupy")), args, kwargs,
                      may_refuse=op.gpu_may_refuse or sample.refuses)


# --- the table itself ---------------------------------------------------------------------------


def test_table_is_consistent():
    """Names unique, sample ids unique per entry, every xfail names a sample and a way it runs."""
    names = [op.name for op in TABLE]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    for op in TABLE:
        ids = [s.id for s in op.sample_inputs()]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        assert not dupes, f"{op.name}: duplicate sample ids {dupes}"
        for key in op.xfail:
            way, _, sid = key.partition(":") if key.split(":", 1)[0] in WAYS else ("", "", key)
            ways = [way] if way else [w for w in WAYS if op.samples(w)]
            assert any(sid in {s.id for s in op.samples(w)} for w in ways), \
                f"{op.name}: xfail {key!r} names no sample that runs"


# Functions the family files loop over through hypothesis (their special cases stay there).
FAMILY_LOOPS = {
    "test_views": ["transpose", "swapaxes", "moveaxis", "rollaxis", "matrix_transpose", "reshape", "ravel",
                   "squeeze", "expand_dims", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to",
                   "broadcast_arrays", "flip", "flipud", "fliplr", "rot90", "diagonal", "real", "imag",
                   ".view", ".copy", ".astype", ".flatten", ".getfield", ".setfield", ".fill", ".setflags",
                   "lib.stride_tricks.as_strided", "lib.stride_tricks.sliding_window_view"],
    "test_reductions": ["argmax", "argmin", "cumsum", "cumprod", "ptp", "count_nonzero", "nanargmax",
                        "nanargmin"],
    "test_manipulation": ["pad", "insert", "delete", "resize", "unstack", "choose", "lexsort", "sort_complex",
                          "put_along_axis", "putmask", "place", "extract", "fill_diagonal", "select",
                          "piecewise", "packbits", "unpackbits", "astype", "require", "trim_zeros",
                          "apply_along_axis", "apply_over_axes"],
    "test_joining": ["concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "split",
                     "array_split", "hsplit", "vsplit", "dsplit", "tile", "repeat", "append", "block"],
}


def test_covers_the_loops_of_the_family_files():
    """Every op the family test files loop over has an entry."""
    import test_reductions
    import test_ufuncs
    names = {op.name for op in TABLE if "numpy" in op.backends}
    wanted = {u.__name__ for u in test_ufuncs.ELEMENTWISE + test_ufuncs.GUFUNCS}
    wanted |= {f"{u.__name__}.reduce" for u in test_reductions.UFUNCS}
    wanted |= set(test_reductions.FUNCS) | {f.__name__ for f in test_reductions.NANFUNCS}
    wanted |= {n for loop in FAMILY_LOOPS.values() for n in loop}
    assert not wanted - names, sorted(wanted - names)


def test_strict_expected_failures():
    """The sample loop fails on a wrong fake, and on an xfail that passes."""
    from opinfo import A, samples
    wrong = OpInfo("copy-wrong-order", samples((A("C"),), (A("T"),)),
                   op=lambda xp, a: a.copy(order="F" if ft.is_fake(a) else "C"))
    with pytest.raises(AssertionError, match=r"2 unexpected failures"):
        _run_samples(wrong, "numpy", _numpy_case)
    wrong.xfail = {"C.f8.3x4": "wrong on purpose", "T.f8.3x4": "wrong on purpose"}
    _run_samples(wrong, "numpy", _numpy_case)
    right = OpInfo("copy", samples((A("C"),)), xfail={"C.f8.3x4": "listed, but passes"})
    with pytest.raises(AssertionError, match="passes now"):
        _run_samples(right, "numpy", _numpy_case)
