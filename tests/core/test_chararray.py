"""np.char.chararray of fakes (faketensor/_chararray.py) against real chararrays: construction
(np.char.array / asarray with itemsize, unicode, order, copy; ``x.view(np.char.chararray)``;
``np.char.chararray(shape, itemsize, unicode, order=...)``), the methods (chararray or
ndarray results as NumPy gives them), comparisons, ``+``, indexing, ufuncs and np.strings /
np.char functions given a chararray, on U and S data in awkward layouts, inside a FakeMode
(the path a program takes); memory of the common calls against tracemalloc."""
from __future__ import annotations

import numpy as np
import pytest

import faketensor as ft
from faketensor import _known
from faketensor._chararray import FakeCharArray
from faketensor.meta_utils.surveys.samples import A

from memtools import op_peaks
from test_cover import mode_check

LAYOUTS = ("C", "F", "T", "neg", "strided", "bcast", "offset", "ro")
SPECS = [A(k, (3, 4), dt, "text") for k in LAYOUTS for dt in ("U6", "S5")]
SPECS += [A("C", (), "U6", "text"), A("C", (), "S3", "text"), A("C", (0, 4), "S3", "text"),
          A("F", (0, 3), "U2", "text"), A("F", (1, 4, 1), "U6", "text"),
          A("perm", (2, 3, 1), "U6", "text"), A("C", (5,), "S1", "text")]


def C(x):
    """The chararray a program makes of x (np.char.array without a copy)."""
    return np.char.array(x, copy=False)


def _sub(x):
    """A one-character substring argument of x's kind."""
    return "a" if x.dtype.kind == "U" else b"a"


CONSTRUCT = {
    "array": lambda x: np.char.array(x), "array_nocopy": lambda x: np.char.array(x, copy=False),
    "array_F": lambda x: np.char.array(x, order="F"), "array_C": lambda x: np.char.array(x, order="C"),
    "array_A": lambda x: np.char.array(x, copy=False, order="A"),
    "array_itemsize": lambda x: np.char.array(x, itemsize=9),
    "array_unicode": lambda x: np.char.array(x, unicode=True),
    "array_of_chararray": lambda x: np.char.array(C(x), copy=False),
    "asarray": lambda x: np.char.asarray(x), "asarray_itemsize": lambda x: np.char.asarray(x, 2),
    "asarray_F": lambda x: np.char.asarray(x, order="F"),
    "asarray_of_chararray": lambda x: np.char.asarray(C(x)),
    "view": lambda x: x.view(np.char.chararray), "view_type": lambda x: x.view(type=np.char.chararray),
    "view_back": lambda x: C(x).view(np.ndarray),
}

METHODS = {
    "upper": lambda x: C(x).upper(), "lower": lambda x: C(x).lower(),
    "capitalize": lambda x: C(x).capitalize(), "title": lambda x: C(x).title(),
    "swapcase": lambda x: C(x).swapcase(), "strip": lambda x: C(x).strip(),
    "lstrip": lambda x: C(x).lstrip(), "rstrip": lambda x: C(x).rstrip(),
    "rstrip_chars": lambda x: C(x).rstrip(_sub(x)),
    "center": lambda x: C(x).center(9), "ljust": lambda x: C(x).ljust(7),
    "rjust": lambda x: C(x).rjust(8), "zfill": lambda x: C(x).zfill(9),
    "find": lambda x: C(x).find(_sub(x)), "rfind": lambda x: C(x).rfind(_sub(x), 1),
    "count": lambda x: C(x).count(_sub(x)), "startswith": lambda x: C(x).startswith(_sub(x)),
    "endswith": lambda x: C(x).endswith(C(x)), "isalpha": lambda x: C(x).isalpha(),
    "isdigit": lambda x: C(x).isdigit(), "isspace": lambda x: C(x).isspace(),
    "islower": lambda x: C(x).islower(), "isupper": lambda x: C(x).isupper(),
    "istitle": lambda x: C(x).istitle(), "isalnum": lambda x: C(x).isalnum(),
    "isnumeric": lambda x: C(x).isnumeric(), "isdecimal": lambda x: C(x).isdecimal(),
    "split": lambda x: C(x).split(), "rsplit": lambda x: C(x).rsplit(),
    "splitlines": lambda x: C(x).splitlines(), "argsort": lambda x: C(x).argsort(),
    "eq": lambda x: C(x) == C(x), "ne": lambda x: C(x) != x, "lt": lambda x: C(x) < C(x)[..., ::-1],
    "ge": lambda x: C(x) >= _sub(x), "eq_str": lambda x: C(x) == _sub(x),
    "add": lambda x: C(x) + C(x), "add_str": lambda x: C(x) + _sub(x),
    "radd": lambda x: _sub(x) + C(x), "add_mixed": lambda x: C(x) + np.array("ab"),
    "astype": lambda x: C(x).astype("U9"), "astype_S": lambda x: C(x).astype("S2") if x.dtype.kind == "S" else 0,
    "astype_int": lambda x: C(x).astype(int), "astype_obj": lambda x: C(x).astype(object),
    "copy": lambda x: C(x).copy(), "copyF": lambda x: C(x).copy("F"),
    "reshape": lambda x: C(x).reshape(-1), "ravel": lambda x: C(x).ravel(),
    "flatten": lambda x: C(x).flatten(), "T": lambda x: C(x).T,
    "transpose": lambda x: C(x).transpose(), "squeeze": lambda x: C(x).squeeze(),
    "take": lambda x: C(x).take([0]), "repeat": lambda x: C(x).repeat(2),
    "swapaxes": lambda x: C(x).swapaxes(0, -1), "view_int": lambda x: C(x).view("u1"),
    "getitem_row": lambda x: C(x)[..., :1], "getitem_fancy": lambda x: C(x)[[0, 0]],
    "getitem_none": lambda x: C(x)[None], "getitem_ell": lambda x: C(x)[...],
    "array_dunder": lambda x: C(x).__array__(), "max0": lambda x: C(x).max(axis=0),
    "setitem": lambda x: np.char.array(x).__setitem__(..., _sub(x)),
    "len": lambda x: len(C(x)), "shape": lambda x: C(x).shape,
}

FUNCTIONS = {
    "np.add": lambda x: np.add(C(x), C(x)), "np.equal": lambda x: np.equal(C(x), x),
    "np.add_out": lambda x: np.add(C(x), _sub(x), out=np.empty(np.shape(x), "U9" if x.dtype.kind == "U" else "S9")),
    "strings.upper": lambda x: np.strings.upper(C(x)), "strings.strip": lambda x: np.strings.strip(C(x)),
    "strings.center": lambda x: np.strings.center(C(x), 9), "strings.str_len": lambda x: np.strings.str_len(C(x)),
    "strings.find": lambda x: np.strings.find(C(x), _sub(x)), "strings.slice": lambda x: np.strings.slice(C(x), 1),
    "char.strip": lambda x: np.char.strip(C(x)), "char.equal": lambda x: np.char.equal(C(x), C(x)),
    "char.upper": lambda x: np.char.upper(C(x)), "char.zfill": lambda x: np.char.zfill(C(x), 8),
    "concatenate": lambda x: np.concatenate([C(x), C(x)], axis=None),
    "np.reshape": lambda x: np.reshape(C(x), -1), "np.transpose": lambda x: np.transpose(C(x)),
    "np.ravel": lambda x: np.ravel(C(x)), "np.asarray": lambda x: np.asarray(C(x)),
    "np.asanyarray": lambda x: np.asanyarray(C(x)), "np.array": lambda x: np.array(C(x)),
    "np.array_subok": lambda x: np.array(C(x), subok=True),
    "np.copy": lambda x: np.copy(C(x)), "shares": lambda x: np.shares_memory(C(x), x),
}

OPS = {**CONSTRUCT, **METHODS, **FUNCTIONS}

# calls whose answer depends on the strings: the fake raises DataDependentError
REFUSES = {
    "element": lambda x: C(x)[(0,) * x.ndim],  # a Python str, trailing whitespace stripped
    "tolist": lambda x: C(x).tolist(),
    "mask": lambda x: C(x)[C(x) == C(x)],
    "mul": lambda x: C(x) * 2, "rmul": lambda x: 3 * C(x), "mod": lambda x: C(x) % 1,
    "replace": lambda x: C(x).replace(_sub(x), _sub(x) * 3), "expandtabs": lambda x: C(x).expandtabs(),
    "encode": lambda x: C(x).encode(), "join": lambda x: C(x).join(C(x)),
    "ljust_short": lambda x: C(x).ljust(2), "partition": lambda x: C(x).partition(_sub(x)),
    "index": lambda x: C(x).index(_sub(x)),
}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
@pytest.mark.parametrize("name", list(OPS))
def test_chararray_against_numpy(name, spec):
    mode_check(OPS[name], spec.make(np))


@pytest.mark.parametrize("name", list(REFUSES))
def test_value_dependent_calls_refuse(name):
    x = A("C", (3, 4), "U6", "text").make(np)
    with ft.FakeMode(sizes=ft.SizePolicy("refuse")):  # a mask's length refused, not bounded
        c = ft.to_fake(x)
        _known.forget(c)  # a small converted array keeps its values: these stand for unknown
        with pytest.raises(ft.DataDependentError):
            REFUSES[name](c)


@pytest.mark.parametrize("name", ["tolist", "mask"])
def test_known_strings_answer_as_numpy(name):
    """The same calls on a small converted array, whose values are known: NumPy's answer."""
    x = A("C", (3, 4), "U6", "text").make(np)
    real = REFUSES[name](x)
    with ft.FakeMode():
        fake = REFUSES[name](ft.to_fake(x))
        got = fake if name == "tolist" else fake.tolist()
    assert got == (real if name == "tolist" else real.tolist())


def test_fakes_are_chararrays_where_numpy_gives_chararrays():
    with ft.FakeMode():
        x = np.zeros((3, 4), "U5")
        c = np.char.array(x)
        assert isinstance(c, FakeCharArray) and isinstance(c, ft.FakeArray)
        assert isinstance(c.upper(), FakeCharArray) and isinstance(c + c, FakeCharArray)
        assert not isinstance(c == c, FakeCharArray) and not isinstance(c.find("a"), FakeCharArray)
        assert not isinstance(np.strings.upper(c), FakeCharArray)  # np.asarray(a) first
        assert isinstance(np.strings.strip(c), FakeCharArray)  # a ufunc on a as it is
        assert (c + c).dtype == np.dtype("U10")


@pytest.mark.parametrize("args, kwargs", [
    (((2, 3),), {}), (((2, 3), 4), {}), (((2, 3), 4, True), {"order": "F"}),
    ((5, 3, False), {"order": "C"}), (((), 2), {}), (((0, 2), 7, True), {}),
    (((2, -1), 2), {}), (((2, 3), 2), {"order": "x"}), (((2, 3), 3), {"buffer": "abc"}),
])
def test_constructor(args, kwargs):
    mode_check(lambda: np.char.chararray(*args, **kwargs))


@pytest.mark.parametrize("x", [np.zeros(3, int), np.zeros((2, 2), float).T, np.zeros(3, object),
                               np.zeros(0, "f4"), np.zeros((), bool)], ids=str)
@pytest.mark.filterwarnings("ignore::faketensor.ObjectArrayWarning")  # the object sample
@pytest.mark.parametrize("call", [lambda x: np.char.asarray(x, 3), lambda x: np.char.array(x, 2),
                                  lambda x: x.view(np.char.chararray)])
def test_construction_from_other_dtypes(call, x):
    """Numbers made strings of the given itemsize; a non-string view fails
    ``__array_finalize__`` (ValueError) as in NumPy."""
    mode_check(call, x)


def test_width_of_numbers_as_strings_is_the_values():
    """``np.char.array(numbers)`` without itemsize: NumPy builds the array from
    ``obj.tolist()``, the longest number's text sets the width."""
    mode_check(lambda x: np.char.array(x), np.zeros(0, "f4"))
    with ft.FakeMode():
        with pytest.raises(ft.DataDependentError):
            np.char.array(np.empty(3, int))  # np.zeros would be known: every element "0"


@pytest.mark.parametrize("call", [
    lambda: np.char.array(["ab", "cde ", "f"]), lambda: np.char.array([b"ab", b"c"], itemsize=5),
    lambda: np.char.array("abcdef", itemsize=2), lambda: np.char.asarray([["a"], ["bc"]], order="F"),
])
def test_construction_from_python_strings(call):
    """Python strings are values in memory: read as NumPy reads them."""
    mode_check(call)


def test_a_bytes_buffer_is_refused():
    """``np.char.array(b"...")`` views the bytes object's own memory: not reproduced."""
    with ft.FakeMode():
        with pytest.raises(ft.UnsupportedOperationError, match="buffer"):
            np.char.array(b"abcdef")


def test_real_chararrays_convert_to_fake_chararrays():
    real = np.char.array(["a", "bc"])
    assert isinstance(ft.to_fake(real), FakeCharArray)
    with ft.FakeMode():
        assert isinstance(np.char.asarray(real), FakeCharArray)
    assert type(np.char.array(["a"])) is np.char.chararray  # outside a mode: NumPy's own


def test_pickle_and_copy_keep_the_class():
    import copy
    import pickle
    with ft.FakeMode():
        c = np.char.array(np.zeros((3, 4), "U5"))[:, ::2]
        for d in (pickle.loads(pickle.dumps(c)), ft.unpickle(pickle.dumps(c)),
                  copy.deepcopy(c), copy.copy(c)):
            assert type(d) is FakeCharArray
            assert (d.shape, d.dtype) == (c.shape, c.dtype)


def test_functions_that_decide_the_class_themselves_are_refused():
    with ft.FakeMode():
        c = np.char.array(np.zeros((3, 4), "U5"))
        for call in (lambda: np.sort(c), lambda: np.tile(c, 2), lambda: np.stack([c, c])):
            with pytest.raises(ft.UnsupportedOperationError):
                call()


# --- memory against tracemalloc -------------------------------------------------------------

N = 100_000


@pytest.mark.parametrize("dt", ["U7", "S5"])
@pytest.mark.parametrize("op", [
    lambda a, b: np.char.array(a), lambda a, b: np.char.asarray(b), lambda a, b: C(a),
    lambda a, b: C(a).upper(), lambda a, b: C(a) == C(b), lambda a, b: C(a) + C(b),
    lambda a, b: C(a).strip(), lambda a, b: C(b).center(12), lambda a, b: C(a).find(_sub(a)),
    lambda a, b: C(a).astype(f"{a.dtype.kind}9"), lambda a, b: C(b).copy()],
    ids=["array", "asarray", "nocopy", "upper", "eq", "add", "strip", "center", "find",
         "astype", "copy"])
def test_memory(op, dt):
    """Peak and live bytes of the data allocator, real vs fake."""
    def setup():
        return [np.zeros(N, dt), np.zeros(N, dt)[::-1]]
    real, fake = op_peaks(setup, op)
    assert real == fake
