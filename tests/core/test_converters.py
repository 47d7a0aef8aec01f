"""kernels/numpy/converters.py against NumPy's own C converters (numpy._core._multiarray_tests)."""
from __future__ import annotations

import numpy as np
import numpy._core._multiarray_tests as mt
import pytest

from faketensor import converters as cv

STRINGS = ["C", "c", "F", "f", "A", "a", "K", "k", "Cx", "corder", "Z", "", "keep", "q", "qux",
           "Q", "quicksort", "h", "heapsort", "m", "mergesort", "s", "stable", "STABLE", "x",
           "left", "l", "LEFT", "Lx", "right", "Right", "r", "xyz", "clip", "CLIP", "wrap", "w",
           "raise", "no", "equiv", "safe", "SAFE", "safe ", "same_kind", "same_value", "unsafe",
           "introselect", "Introselect", "i", "\N{greek small letter pi}", "left\0"]
OTHERS = [None, 0, 1, 2, 3, True, 1.0, [], {}, b"C", b"left", b"safe", b"\xff", b"", np.int64(1),
          np.array(1)]

NAMES = {
    "NPY_CORDER": "C", "NPY_FORTRANORDER": "F", "NPY_ANYORDER": "A", "NPY_KEEPORDER": "K",
    "NPY_QUICKSORT": "quicksort", "NPY_HEAPSORT": "heapsort", "NPY_STABLESORT": "stable",
    "NPY_SEARCHLEFT": "left", "NPY_SEARCHRIGHT": "right", "NPY_INTROSELECT": "introselect",
    "NPY_CLIP": "clip", "NPY_WRAP": "wrap", "NPY_RAISE": "raise",
    "NPY_NO_CASTING": "no", "NPY_EQUIV_CASTING": "equiv", "NPY_SAFE_CASTING": "safe",
    "NPY_SAME_KIND_CASTING": "same_kind", "NPY_UNSAFE_CASTING": "unsafe",
}

CASES = [
    (mt.run_order_converter, lambda v: cv.order(v, default="<default>", allowed="CFAK<default>")),
    (mt.run_casting_converter, cv.casting),
    (mt.run_sortkind_converter, cv.sortkind),
    (mt.run_selectkind_converter, cv.selectkind),
    (mt.run_searchside_converter, cv.searchside),
    (mt.run_clipmode_converter, cv.clipmode),
]


def _outcome(fn, v):
    try:
        return "ok", fn(v)
    except Exception as e:  # compared by type and message
        return type(e).__name__, str(e)


@pytest.mark.parametrize("real, ours", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_string_converters_match_numpy(real, ours):
    for v in STRINGS + OTHERS:
        if real is mt.run_clipmode_converter and isinstance(v, int) and v == 3:
            continue  # NumPy's test hook itself fails there (SystemError)
        kind, got = _outcome(ours, v)
        rkind, rgot = _outcome(real, v)
        if rkind == "ok":
            assert kind == "ok", f"{real.__name__}({v!r}): NumPy {rgot}, ours {kind}: {got}"
            want = NAMES.get(rgot, "<default>" if isinstance(rgot, int) else rgot)
            if real is mt.run_sortkind_converter and v is None:
                want = "quicksort"
            assert got == want, f"{real.__name__}({v!r}): NumPy {rgot}, ours {got}"
        else:
            assert (kind, got) == (rkind, rgot), f"{real.__name__}({v!r})"


AXES = [0, 1, -1, -3, 3, np.int64(1), np.array(1), np.array([1]), [0], (0,), (0, 1), (0, 0),
        (0, -3), [0, 1], np.array([0, 1]), 1.0, "a", None, True, (1.0,), 2 ** 70]



@pytest.mark.parametrize("ax", AXES, ids=repr)
def test_axis_converters_match_numpy(ax):
    a = np.ones((2, 3, 4))
    # PyArray_ConvertMultiAxis: the reductions
    r, f = _outcome(lambda v: np.add.reduce(a, axis=v).shape, ax), _outcome(
        lambda v: tuple(n for i, n in enumerate(a.shape) if i not in cv.multi_axis(v, 3)), ax)
    assert r[0] == f[0], f"reduce axis={ax!r}: NumPy {r}, ours {f}"
    if r[0] == "ok":
        assert r == f
    # normalize_axis_tuple
    from numpy.lib.array_utils import normalize_axis_tuple
    r, f = _outcome(lambda v: normalize_axis_tuple(v, 3), ax), _outcome(lambda v: cv.axis_tuple(v, 3), ax)
    assert r[0] == f[0] and (r[0] != "ok" or r == f), f"normalize_axis_tuple({ax!r}): {r} vs {f}"
    # PyArray_AxisConverter (np.cumsum takes one axis or None)
    r, f = _outcome(lambda v: np.cumsum(a, axis=v).shape, ax), _outcome(lambda v: cv.axis(v, 3), ax)
    assert r[0] == f[0], f"cumsum axis={ax!r}: NumPy {r}, ours {f}"


INTPS = [1, (1, 2), [1, 2], (), True, np.True_, [True, 1], np.array([1, 2]), np.array(2), 2.0,
         [1.0], "3", None, (np.int8(2),), 2 ** 64, [1] * 65, [1] * 64]


@pytest.mark.parametrize("v", INTPS, ids=lambda v: repr(v)[:20])
def test_intp_tuple_matches_numpy(v):
    r, f = _outcome(mt.run_intp_converter, v), _outcome(cv.intp_tuple, v)
    assert r[0] == f[0] and (r[0] != "ok" or r == f), f"{v!r}: NumPy {r}, ours {f}"


COPIES = [True, False, None, 1, 0, "str", "", np._CopyMode.ALWAYS, np._CopyMode.NEVER,
          np._CopyMode.IF_NEEDED, np.True_, [], [0]]


@pytest.mark.parametrize("v", COPIES, ids=repr)
def test_copy_matches_numpy(v):
    a = np.arange(3)
    r = _outcome(lambda c: np.shares_memory(np.array(a, copy=c), a), v)
    f = _outcome(cv.copy, v)
    assert r[0] == f[0] or (r[0] == "ValueError" and "avoid copy" in r[1] and f == ("ok", False)), \
        f"copy={v!r}: NumPy {r}, ours {f}"
    if r[0] == "ok":
        assert r[1] == (f[1] is not True), f"copy={v!r}: NumPy shares {r[1]}, ours {f[1]}"
