"""np.strings and np.char on fakes, differential against real NumPy (tests/oracle): every
function on U, S, non-native U and StringDType arrays in awkward layouts (C, F, transposed,
negative stride, strided, broadcast, offset, permuted, 0-d, empty), filled with strings of
different lengths. A call either matches NumPy (shape, dtype, strides, flags, offset,
aliasing, exception type) or raises DataDependentError where the table says the values
decide; memory against tracemalloc for a few."""
from __future__ import annotations

import operator

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils.surveys.oracle import check, compare_outcome, run_both
from faketensor.meta_utils.surveys.samples import laid_out as _layout
from memtools import op_peaks

pytestmark = pytest.mark.filterwarnings("ignore::faketensor.ObjectArrayWarning")

T = np.dtypes.StringDType()
VALUES = ["", "a", "Ab c", "x\ty-b", "hello", "\u00df\u00e9", "  pad ", "12", "Ti Tl", "b-a-b"]


def _make(dt):
    def make(shape):
        n = int(np.prod(shape))
        vals = [VALUES[i % len(VALUES)] for i in range(n)]
        if dt.kind == "S":
            vals = [v.encode("ascii", "replace") for v in vals]
        return np.array(vals, dtype=dt).reshape(shape)
    return make


DTYPES = {"U6": np.dtype("U6"), "S6": np.dtype("S6"), ">U6": np.dtype(">U6"), "T": T}
LAYOUTS = [("C", (3, 4)), ("F", (3, 4)), ("T", (3, 4)), ("neg", (3, 4)), ("strided", (3, 4)),
           ("bcast", (3, 4)), ("offset", (3, 4)), ("perm", (2, 3, 4)), ("C", ()), ("C", (0, 3)),
           ("F", (4, 0))]
INPUTS = [(f"{k}.{lay}.{'x'.join(map(str, s)) or '0d'}", dt, lay, s)
          for k, dt in DTYPES.items() for lay, s in LAYOUTS]


def _lit(a, s):
    """A literal of the array's kind: bytes for S arrays, str otherwise."""
    return s.encode() if a.dtype.kind == "S" else s


S = np.strings
# (name, call, dtype kinds whose result width the values decide: the fake refuses there)
CALLS = [
    ("add", lambda a: S.add(a, a), ""),
    ("add_lit", lambda a: S.add(a, _lit(a, "xy")), ""),
    ("add_US", lambda a: S.add(a, np.array([b"x"])), ""),
    ("equal", lambda a: S.equal(a, a), ""),
    ("less_lit", lambda a: S.less(a, _lit(a, "b")), ""),
    ("ge_op", lambda a: a >= a[..., :1] if a.ndim else a >= a, ""),
    ("ne_US", lambda a: a != np.array(["x"]), ""),
    ("str_len", lambda a: S.str_len(a), ""),
    *[(n, (lambda f: lambda a: f(a))(getattr(S, n)), "") for n in (
        "isalpha", "isdigit", "isspace", "isalnum", "islower", "isupper", "istitle",
        "isdecimal", "isnumeric")],
    ("find", lambda a: S.find(a, _lit(a, "b")), ""),
    ("rfind", lambda a: S.rfind(a, _lit(a, "b"), 1, 4), ""),
    ("count", lambda a: S.count(a, _lit(a, "-"), 0, None), ""),
    ("startswith", lambda a: S.startswith(a, _lit(a, "a")), ""),
    ("endswith", lambda a: S.endswith(a, _lit(a, "b"), end=-1), ""),
    ("index", lambda a: S.index(a, _lit(a, "b")), "UST"),
    ("rindex", lambda a: S.rindex(a, _lit(a, "")), "UST"),
    ("strip", lambda a: S.strip(a), ""),
    ("lstrip", lambda a: S.lstrip(a, _lit(a, " a")), ""),
    ("rstrip", lambda a: S.rstrip(a, _lit(a, "b-")), ""),
    ("upper", lambda a: S.upper(a), ""),
    ("lower", lambda a: S.lower(a), ""),
    ("swapcase", lambda a: S.swapcase(a), ""),
    ("capitalize", lambda a: S.capitalize(a), ""),
    ("title", lambda a: S.title(a), ""),
    ("slice", lambda a: S.slice(a, 1, 3), ""),
    ("slice_neg", lambda a: S.slice(a, None, None, -1), ""),
    ("slice_stop", lambda a: S.slice(a, 2), ""),
    ("slice_zero", lambda a: S.slice(a, 0, 2, 0), ""),
    ("center", lambda a: S.center(a, 9), ""),
    ("center6", lambda a: S.center(a, 6), ""),
    ("center_short", lambda a: S.center(a, 3), "US"),
    ("ljust", lambda a: S.ljust(a, 8, _lit(a, "*")), ""),
    ("rjust", lambda a: S.rjust(a, np.array([7, 9])[:, None, None][:1, :1], _lit(a, "-")), ""),
    ("rjust_fill2", lambda a: S.rjust(a, 8, _lit(a, "ab")), ""),
    ("ljust_float", lambda a: S.ljust(a, 8.0), ""),
    ("zfill", lambda a: S.zfill(a, 7), ""),
    ("zfill_short", lambda a: S.zfill(a, 2), "US"),
    ("multiply", lambda a: S.multiply(a, 3), "US"),
    ("multiply_float", lambda a: S.multiply(a, 2.0), ""),
    ("char_multiply_float", lambda a: np.char.multiply(a, 2.0), ""),
    ("char_multiply", lambda a: np.char.multiply(a, np.array([1, 2, 0, 3])), "US"),
    ("expandtabs", lambda a: S.expandtabs(a, 4), "US"),
    ("replace", lambda a: S.replace(a, _lit(a, "b"), _lit(a, "XYZ")), "US"),
    ("replace_same", lambda a: S.replace(a, _lit(a, "b"), _lit(a, "c"), 1), "US"),
    ("replace_float", lambda a: S.replace(a, _lit(a, "b"), _lit(a, "c"), 1.5), ""),
    ("partition", lambda a: S.partition(a, _lit(a, "-")), "US"),
    ("rpartition", lambda a: S.rpartition(a, _lit(a, "-")), "US"),
    ("partition_T", lambda a: S.partition(a.astype(T), "-"), "UST"[:0]),
    ("char_partition", lambda a: np.char.partition(a, _lit(a, "-")), "US"),
    ("char_rpartition", lambda a: np.char.rpartition(a, _lit(a, "b")), "US"),
    ("translate", lambda a: S.translate(a, {97: "XY", 98: None}) if a.dtype.kind != "S"
     else S.translate(a, bytes.maketrans(b"a", b"z"), b"b"), ""),
    ("translate_bad", lambda a: S.translate(a, b"short") if a.dtype.kind == "S"
     else S.translate(a, {97: 1.5}), "UT"),
    ("mod", lambda a: S.mod(a, ()), "UST"),
    ("encode", lambda a: S.encode(a), "UT"),
    ("decode", lambda a: S.decode(a, "ascii"), "S"),
    ("char_join", lambda a: np.char.join(_lit(a, "-"), a), "UST"),
    ("char_split", lambda a: np.char.split(a), ""),
    ("char_rsplit", lambda a: np.char.rsplit(a, _lit(a, "-"), 1), ""),
    ("char_split_str_sep", lambda a: np.char.split(a, "-"), ""),
    ("char_split_int_sep", lambda a: np.char.split(a, 5), ""),
    ("char_split_empty_sep", lambda a: np.char.split(a, _lit(a, "")), ""),
    ("char_splitlines", lambda a: np.char.splitlines(a), ""),
    ("char_equal", lambda a: np.char.equal(a, a), ""),
    ("char_less_row", lambda a: np.char.less(a, a[..., :1]) if a.ndim else np.char.less(a, a), ""),
    ("char_not_equal_lit", lambda a: np.char.not_equal(a, _lit(a, "a ")), ""),
    ("char_equal_S", lambda a: np.char.equal(a, np.array([b"x"])), ""),
    ("char_str_len", lambda a: np.char.str_len(a), ""),
]


def _refuses(kinds: str, a: np.ndarray, r) -> bool:
    """The values decide: a dtype kind the table names, and a non-empty input and result."""
    k = "T" if a.dtype.char == "T" else a.dtype.kind
    return k in kinds and a.size > 0 and not (isinstance(r, np.ndarray) and r.size == 0)


def _is_string_scalar(r) -> bool:
    """A 0-d StringDType result: NumPy returns a Python str, its value (np.str_ and
    np.bytes_ results are fake scalars of their kind, as indexing gives them)."""
    return type(r) is str or (isinstance(r, tuple) and any(type(x) is str for x in r))


_XFAIL = {"char_equal_S": "np.char.equal of U and S arrays returns NotImplemented (the value); "
          "a fake's __array_function__ cannot return it, NumPy raises TypeError instead"}


def _in_mode(call):
    """``call`` on fakes inside a FakeMode (for C functions that never dispatch)."""
    def run(*args):
        if not any(ft.is_fake(x) for x in args):
            return call(*args)
        with ft.FakeMode():
            return call(*args)
    return run


MODE_CALLS = [
    ("compare_chararrays", lambda a: np.char.compare_chararrays(a, a, ">=", False), ""),
    ("compare_chararrays_row", lambda a: np.char.compare_chararrays(
        a, a[..., ::-2] if a.ndim else a, "!=", True), ""),
    ("compare_chararrays_bad_op", lambda a: np.char.compare_chararrays(a, a, "<>", False), ""),
    ("compare_chararrays_int", lambda a: np.char.compare_chararrays(a, 3, "==", False), ""),
    ("compare_chararrays_US", lambda a: np.char.compare_chararrays(a, np.array([b"x"]), "==",
                                                                   True), ""),
    ("mode_char_equal_US", lambda a: np.char.equal(a, np.array([b"x"])), ""),
    ("mode_center", lambda a: S.center(a, 8), ""),
    ("mode_slice", lambda a: S.slice(a, 1), ""),
    ("mode_index", lambda a: S.index(a, _lit(a, "a")), "UST"),
]
ALL = ([pytest.param(n, c, k, marks=pytest.mark.xfail(strict=True, reason=_XFAIL[n]))
        if n in _XFAIL else pytest.param(n, c, k) for n, c, k in CALLS]
       + [pytest.param(n, _in_mode(c), k) for n, c, k in MODE_CALLS])


@pytest.mark.parametrize("name,call,kinds", ALL, ids=[c[0] for c in CALLS + MODE_CALLS])
def test_strings_differential(name, call, kinds):
    """Every input of INPUTS: the fake matches NumPy, or refuses exactly where it must."""
    failures = []
    for iid, dt, lay, shape in INPUTS:
        a = _layout(np, lay, shape, _make(dt))
        try:
            r, f, ri, fi = run_both(call, (a,))
        except ft.UnsupportedOperationError as e:
            failures.append(f"{iid}: unsupported: {e}")
            continue
        refuse = _refuses(kinds, a, r) or _is_string_scalar(r)
        if isinstance(f, ft.DataDependentError):
            if not refuse:
                failures.append(f"{iid}: refused ({f}); real gave "
                                f"{getattr(r, 'dtype', type(r).__name__)}")
            continue
        if refuse and not isinstance(r, Exception):
            failures.append(f"{iid}: answered where the values decide")
            continue
        try:
            compare_outcome(r, f, ri, fi, name)
        except AssertionError as e:
            failures.append(f"{iid}: {e}")
    assert not failures, "\n".join(failures)


# The refusals are needed: equal dtypes and layouts, different strings, different results.
@pytest.mark.parametrize("call", [
    lambda a: S.center(a, 2), lambda a: S.zfill(a, 1), lambda a: S.multiply(a, 2),
    lambda a: S.expandtabs(a), lambda a: S.replace(a, "a", "bb"),
    lambda a: S.partition(a, "a")[0], lambda a: S.mod(a, 1), lambda a: S.encode(a),
    lambda a: np.char.join("-", a)])
def test_refusals_depend_on_values(call):
    short = np.array(["a\t", "b"], "U4")
    long = np.array(["%da\t", "aaaa"], "U4")
    assert call(short).dtype != call(long).dtype


def test_index_raises_on_values():
    """index/rindex return find's int64 array or raise ValueError, by the strings."""
    S.index(np.array(["ab"]), "b")
    with pytest.raises(ValueError):
        S.index(np.array(["ab"]), "c")


def test_in_mode_real_arguments():
    """Inside FakeMode, all-real calls through np.strings / np.char give fakes."""
    a = np.array([["ab", "c"], ["def", ""]])
    with ft.FakeMode():
        r = S.center(a, 8)
        assert ft.is_fake(r) and r.dtype == np.dtype("U8")
        assert ft.is_fake(np.char.equal(a, a))
        assert ft.is_fake(S.slice(a, 1))
        with pytest.raises(ft.DataDependentError, match="replace"):
            S.replace(a, "a", "bcd")
        with pytest.raises(ft.DataDependentError):
            S.index(np.asarray(a), "a")
        x = np.zeros((3, 5), "U7")
        assert S.upper(x).dtype == np.dtype("U7")
        t = np.empty((4,), T)
        assert S.replace(t, "a", "bcd").dtype == T
        assert np.char.partition(t, t[:1]).shape == (4, 3)


# --- memory against tracemalloc -------------------------------------------------------------

N = 100_000


@pytest.mark.parametrize("dt", ["U7", "S5", T], ids=["U7", "S5", "T"])
@pytest.mark.parametrize("op", [
    lambda a, b: S.add(a, b), lambda a, b: a == b, lambda a, b: S.str_len(a),
    lambda a, b: S.upper(a), lambda a, b: S.center(a, 12), lambda a, b: S.zfill(b, 9),
    lambda a, b: S.slice(a, 1, 3),
    lambda a, b: np.char.equal(a, b) if a.dtype.char != "T" else S.not_equal(a, b),
    lambda a, b: S.find(a, "a" if a.dtype.kind != "S" else b"a")],
    ids=["add", "eq", "str_len", "upper", "center", "zfill", "slice", "char_equal", "find"])
def test_memory(op, dt):
    """Peak and live bytes of the data allocator, real vs fake: StringDType counts its 16
    bytes an element (short strings live inside them; the arena of long ones is not NumPy
    data memory and is not counted)."""
    def setup():
        return [np.zeros(N, dt), np.zeros(N, dt)[::-1]]
    real, fake = op_peaks(setup, op)
    assert real == fake


def test_memory_stringdtype_heap_not_counted():
    """Strings longer than 15 bytes live in the array's arena, outside NumPy's data
    allocator: tracemalloc's NumPy domain sees 16 bytes an element, as the fake counts."""
    def setup():
        a = np.full(N, "x" * 40, T)
        return [a, a[::-1]]
    for op in (lambda a, b: S.add(a, b), lambda a, b: S.upper(a),
               lambda a, b: S.replace(a, "x", "yz"), lambda a, b: S.center(a, 50),
               lambda a, b: S.multiply(a, 3), lambda a, b: S.slice(a, 1, 3),
               lambda a, b: S.zfill(a, 3), lambda a, b: S.expandtabs(a),
               lambda a, b: S.partition(a, a[:1])):
        real, fake = op_peaks(setup, op)
        assert real == fake
        assert real[1] == 16 * N * (3 if isinstance(op(*setup()), tuple) else 1)


@pytest.mark.parametrize("a,b", [
    (np.arange(6.0).reshape(2, 3).T, "abc"), (np.zeros(3, "M8[s]"), 5), (np.zeros((2, 3)), 3),
    (np.zeros(3, "U2")[::-1], np.zeros((2, 1))), (np.zeros((), "f8"), "a"),
    (np.zeros((3, 4), "S2").T, np.array(["x"])), (np.zeros((), "S2"), np.array("x")),
    (np.zeros((3, 4), "S2"), np.array(["x", "y"]))],
    ids=["f8-str", "M8-int", "f8-int", "U-f8", "0d-str", "S-U", "0d-S-U", "S-U-mismatch"])
@pytest.mark.parametrize("op", [operator.eq, operator.ne, operator.lt], ids=["eq", "ne", "lt"])
def test_compare_without_a_loop(a, b, op):
    """``==``/``!=`` of dtypes with no comparison loop: NumPy's all-False/all-True array
    (ValueError when the shapes do not broadcast); ``<`` raises."""
    check(op, a, b)


def test_split_with_a_fake_separator_refuses():
    """Whether bytes.split raises (an empty separator) depends on the separator's value."""
    with ft.FakeMode():
        a = np.zeros(3, "U4")
        sep = np.zeros((), "U1")
        with pytest.raises(ft.DataDependentError, match="split"):
            np.char.split(a, sep)


@pytest.mark.parametrize("op", [
    operator.eq, operator.ne,
    pytest.param(operator.lt, marks=pytest.mark.xfail(
        strict=True, reason="f8 < None runs the object loop, whose Python comparisons raise "
        "TypeError; the fake answers (object loops are taken as value-free)"))],
    ids=["eq", "ne", "lt"])
def test_compare_with_none(op):
    check(op, np.zeros((2, 3)), None)
