"""Every NumPy ufunc's __call__ on awkward inputs, differentially against NumPy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import faketensor as ft
from oracle import NUMERIC, DTYPE_FAMILIES, arrays, check, compare_meta

STRING_UFUNCS = sorted({u for u in (getattr(np.strings, n) for n in dir(np.strings))
                        if isinstance(u, np.ufunc)}, key=lambda u: u.__name__)
UFUNCS = sorted({u for u in (getattr(np, n) for n in dir(np)) if isinstance(u, np.ufunc)}
                | set(STRING_UFUNCS), key=lambda u: u.__name__)
ELEMENTWISE = [u for u in UFUNCS if u.signature is None and u not in STRING_UFUNCS]
STRING_DTYPES = [np.dtype("U3"), np.dtype("S2"), np.dtype("U1")]
GUFUNCS = [u for u in UFUNCS if u.signature is not None]
PY_SCALARS = st.one_of(st.integers(-300, 300), st.sampled_from([2**63, -2**63 - 1, 2**64]),
                       st.floats(-2, 2), st.complex_numbers(max_magnitude=2), st.booleans())


def test_all_ufuncs_covered():
    assert len(UFUNCS) >= 100  # 90 in np plus the np.strings ufuncs (numpy 2.4)
    assert {"matmul", "vecdot", "matvec", "vecmat"} <= {u.__name__ for u in GUFUNCS}


@st.composite
def operands(draw, nin, dtypes=NUMERIC, allow_scalars=True):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=nin, max_dims=4, max_side=3)).input_shapes
    ops = []
    for shape in shapes:
        if allow_scalars and draw(st.integers(0, 5)) == 0:
            ops.append(draw(PY_SCALARS))
        else:
            ops.append(draw(arrays(dtypes=dtypes, shape=shape)))
    if not any(isinstance(o, np.ndarray) for o in ops):
        ops[0] = draw(arrays(dtypes=dtypes, shape=shapes[0]))
    return ops


@pytest.mark.parametrize("ufunc", ELEMENTWISE, ids=lambda u: u.__name__)
@given(data=st.data())
@settings(max_examples=60)
def test_ufunc_call(ufunc, data):
    ops = data.draw(operands(ufunc.nin))
    check(ufunc, *ops)


@pytest.mark.parametrize("ufunc", STRING_UFUNCS, ids=lambda u: u.__name__)
@given(data=st.data())
@settings(max_examples=40)
def test_string_ufunc_call(ufunc, data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=ufunc.nin, max_dims=3,
                                                         max_side=3)).input_shapes
    ops = [data.draw(arrays(dtypes=STRING_DTYPES if i < 2 else [np.dtype(np.int64)], shape=s))
           for i, s in enumerate(shapes)]
    check(ufunc, *ops)


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.divmod, np.less, np.sqrt, np.modf,
                                   np.logical_and, np.left_shift, np.arctan2, np.isnan],
                         ids=lambda u: u.__name__)
@given(data=st.data())
@settings(max_examples=120)
def test_ufunc_keywords(ufunc, data):
    # no Python scalars here: some of NumPy's own scalar + keyword paths crash the process
    ops = data.draw(operands(ufunc.nin, allow_scalars=False))
    kw = {}
    if data.draw(st.booleans()):
        kw["order"] = data.draw(st.sampled_from(["K", "C", "F", "A"]))
    if data.draw(st.integers(0, 3)) == 0:
        kw["dtype"] = data.draw(st.sampled_from(NUMERIC))
    if data.draw(st.integers(0, 3)) == 0:
        kw["casting"] = data.draw(st.sampled_from(["no", "equiv", "safe", "same_kind", "unsafe"]))
    if data.draw(st.integers(0, 3)) == 0:
        shapes = [np.shape(o) for o in ops]
        shape = np.broadcast_shapes(*shapes)
        kw["where"] = data.draw(arrays(dtypes=[np.dtype(bool)], shape=shape))
    if data.draw(st.integers(0, 2)) == 0:
        shape = np.broadcast_shapes(*[np.shape(o) for o in ops])
        outs = tuple(data.draw(arrays(dtypes=NUMERIC, shape=shape)) for _ in range(ufunc.nout))
        kw["out"] = outs if ufunc.nout > 1 else outs[0]
    check(ufunc, *ops, **kw)


NON_OBJECT = [d for d in DTYPE_FAMILIES if d.kind != "O"]


@given(a=arrays(dtypes=NON_OBJECT), b=arrays(dtypes=NON_OBJECT))
def test_every_dtype_family_add(a, b):
    check(np.add, a, b)


@given(a=arrays(dtypes=[np.dtype(object)], min_dims=1), b=arrays(dtypes=NUMERIC, min_dims=1))
def test_object_arrays(a, b):
    check(np.add, a, b)


def test_object_scalar_result_unsupported():
    with pytest.warns(ft.ObjectArrayWarning, match="only its metadata is kept"):
        f = ft.to_fake(np.zeros((), object))
    with pytest.raises(ft.UnsupportedOperationError, match="np.add"):
        np.add(f, 1)


@given(a=arrays(), b=arrays())
def test_inplace_operators(a, b):
    def iadd(x, y):
        x += y
        return x

    def imul(x, y):
        x *= y
        return x

    check(iadd, a, b)
    check(imul, a, b)


@given(a=arrays(), b=arrays())
def test_binary_operators(a, b):
    for fn in (lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x < y, lambda x, y: x ** y,
               lambda x, y: x // y, lambda x, y: x & y, lambda x, y: 2 - x, lambda x, y: -x,
               lambda x, y: abs(y), lambda x, y: ~x, lambda x, y: x == y, lambda x, y: 300 + x):
        check(fn, a, b)


@pytest.mark.parametrize("ufunc", GUFUNCS, ids=lambda u: u.__name__)
@given(data=st.data())
@settings(max_examples=150)
def test_gufuncs(ufunc, data):
    n = data.draw(st.integers(0, 3))
    lead = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3)).input_shapes
    k, m = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    name = ufunc.__name__
    if name == "matmul":
        sa = lead[0] + (n, k) if data.draw(st.booleans()) else (k,)
        sb = lead[1] + (k, m) if data.draw(st.booleans()) else (k,)
    elif name == "vecdot":
        sa, sb = lead[0] + (k,), lead[1] + (k,)
    elif name == "matvec":
        sa, sb = lead[0] + (m, k), lead[1] + (k,)
    else:
        sa, sb = lead[0] + (k,), lead[1] + (k, m)
    if data.draw(st.integers(0, 6)) == 0:
        sb = sb[:-1] + (sb[-1] + 1,)  # core dimension mismatch
    a = data.draw(arrays(shape=sa))
    b = data.draw(arrays(shape=sb))
    order = data.draw(st.sampled_from([None, "K", "C", "F", "A"]))  # the output's layout
    check(ufunc, a, b, **({} if order is None else {"order": order}))


@pytest.mark.parametrize("order", ["K", "A", "C", "F"])
def test_gufunc_output_order(order):
    """A gufunc's allocated output is laid out as NpyIter's (iterator_out_strides): order A
    gives F strides when every input is F-contiguous."""
    a = np.asfortranarray(np.ones((3, 4, 4)))
    for b in (np.asfortranarray(np.ones((3, 4, 4))), np.ones((4, 4)), np.ones(4),
              np.ones((4, 3, 4)).transpose(1, 0, 2)):
        check(lambda x, y: np.matmul(x, y, order=order), a, b)
        check(lambda x, y: np.matmul(x, y, order=order), b, a)


BAD = [
    (np.add, (np.ones(3), np.ones(4)), {}),
    (np.add, (np.ones(3, np.int8), 300), {}),
    (np.add, (np.ones(3, np.uint8), -1), {}),
    (np.add, (np.ones(3), np.ones(3)), {"out": np.ones(3, np.int64)}),
    (np.add, (np.ones(3, np.int64), 1.5), {"casting": "no"}),
    (np.add, (np.ones((2, 3)), 1), {"out": np.ones(3)}),
    (np.add, (np.ones(3), np.array(["a", "b", "c"])), {}),
    (np.add, (np.ones(3), 1), {"where": np.ones(3, np.int64)}),
    (np.sqrt, (np.ones(3),), {"axes": [0]}),
    (np.add, (np.ones(3), 1, np.ones(3), np.ones(3)), {}),
    (np.add, (np.ones(3),), {}),
    (np.add, (np.ones(3), 1), {"order": "X"}),
    (np.add, (np.ones(3), 1), {"casting": "bogus"}),
    (np.matmul, (np.ones((2, 3)), np.ones((4, 2))), {}),
    (np.matmul, (np.ones(3), 2.0), {}),
]


@pytest.mark.parametrize("func,args,kw", BAD, ids=lambda x: getattr(x, "__name__", ""))
def test_bad_input_same_exception(func, args, kw):
    real = check(func, *args, **kw)
    assert isinstance(real, Exception)


def test_readonly_out():
    ro = np.ones(3)
    ro.flags.writeable = False
    assert isinstance(check(np.add, np.ones(3), 1, out=ro), ValueError)
    bc = np.broadcast_to(np.ones(1), (3,))
    assert isinstance(check(np.add, np.ones(3), 1, out=bc), ValueError)


def test_comparison_with_out_of_range_int():
    check(np.equal, np.ones(3, np.int8), 300)
    check(np.less, np.ones(3, np.uint8), -1)


def test_trivial_vs_iterator_paths():
    # length-1 axes are where NumPy's two allocation paths differ
    f = np.asfortranarray(np.ones((2, 1, 3)))
    check(np.add, f, f)
    check(np.add, f, f.astype(np.float32))
    check(np.add, f, np.ones((2, 1, 3), np.int32, order="F"))
    check(np.negative, np.ones((3, 1), np.float32)[::-1])
    unaligned = np.frombuffer(b"\0" * 25, np.float64, count=3, offset=1)
    check(np.add, unaligned, unaligned)
    check(np.add, np.ones((2, 3))[:, ::-1], np.ones((2, 3)))
    check(np.add, np.ones((3, 4)).T, np.ones((4, 3)))
    check(np.add, np.ones((0, 3)), 1)
    check(np.add, np.ones((4, 0, 3)).transpose(2, 0, 1), np.ones((3, 4, 0)))


# --- out=... : NumPy drops it before __array_ufunc__ (faketensor/_callsite.py reads it back) ---
_ELL = ...
_KW_ELL = {"out": ...}
_KW_NONE = {"out": None}


def _out_param(a, b, out=...):
    return np.divmod(a, b, out=out)


_OUT_FORMS = {
    "add-literal": lambda a, b: np.add(a, b, out=...),
    "add-name": lambda a, b: np.add(a, b, out=_ELL),
    "add-kwargs": lambda a, b: np.add(a, b, **_KW_ELL),
    "add-kwargs-none": lambda a, b: np.add(a, b, **_KW_NONE),
    "add-none": lambda a, b: np.add(a, b, out=None),
    "add-dtype": lambda a, b: np.add(a, b, out=..., dtype=np.float64),
    "add-scalars": lambda a, b: np.add(a[()], b, out=...),
    "divmod-literal": lambda a, b: np.divmod(a, b, out=...),
    "divmod-param": _out_param,
    "divmod-none": lambda a, b: np.divmod(a, b, out=(None, None)),
    "reduce-literal": lambda a, b: np.add.reduce(np.stack([a, b]), out=...),
    "reduce-axis-none": lambda a, b: np.maximum.reduce(np.stack([a, b])[None], axis=None, out=...),
    "outer-literal": lambda a, b: np.multiply.outer(a, b, out=...),
}


@pytest.mark.parametrize("form", list(_OUT_FORMS))
@pytest.mark.parametrize("dt", ["i8", "f8", "c16", "?"])
def test_out_ellipsis_gives_arrays(form, dt):
    """``out=...`` on 0-d operands (NumPy's own test forms): writeable 0-d arrays, not scalars."""
    check(_OUT_FORMS[form], np.array(3, dt), np.array(2, dt))
