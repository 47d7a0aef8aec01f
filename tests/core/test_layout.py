"""Each NumPy layout rule of faketensor/layout.py, tested once and exhaustively against real
NumPy on arrays made with ``as_strided`` (any strides: negative, zero, not multiples of the
itemsize), shapes up to 4-d with length-0 and length-1 axes, dtypes of several itemsizes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faketensor import layout

DTYPES = [np.dtype(t) for t in ("u1", "i2", "f4", "f8", "c16", "S3")]
shapes = st.lists(st.integers(0, 4), max_size=4).map(tuple)
nonempty = st.lists(st.integers(1, 4), max_size=4).map(tuple)
dtypes = st.sampled_from(DTYPES)


@st.composite
def arrays(draw, shape_st=shapes):
    """A real array over a private buffer: any shape, any strides (as as_strided makes)."""
    shape = draw(shape_st)
    dt = draw(dtypes)
    isz = dt.itemsize
    kind = draw(st.sampled_from(["c", "f", "any"]))
    if kind == "c":
        strides = layout.c_strides(shape, isz)
    elif kind == "f":
        strides = layout.f_strides(shape, isz)
    else:
        strides = tuple(draw(st.integers(-3 * isz - 1, 3 * isz + 1)) * draw(st.sampled_from([1, 4]))
                        for _ in shape)
    lo, hi = layout.extent(shape, strides, isz)
    buf = np.zeros(max(hi - lo, 0) + isz, np.uint8)
    return np.ndarray(shape, dt, buffer=buf, offset=-lo, strides=strides), buf


def _is_view(r: np.ndarray, buf: np.ndarray) -> bool:
    """r's data lies in buf (a view) rather than in a fresh allocation (a copy)."""
    start = buf.__array_interface__["data"][0]
    p = r.__array_interface__["data"][0]
    return start <= p <= start + buf.nbytes


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # compared by type with the real call's
        return None, type(e)


@st.composite
def newshapes(draw, size):
    """A shape of ``size`` elements (or a wrong one), sometimes with one -1."""
    dims = []
    left = size
    for _ in range(draw(st.integers(0, 4))):
        d = draw(st.sampled_from([k for k in range(1, 5) if left % k == 0] or [1])) if left \
            else draw(st.integers(0, 3))
        dims.append(d)
        left = left // d if d and left else left
    if left != 1 or not dims:
        dims.append(left)
    if draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    if draw(st.integers(0, 9)) == 0:
        dims.append(draw(st.integers(0, 3)))  # usually the wrong element count
    return tuple(dims)


@settings(max_examples=600, deadline=None)
@given(st.data(), arrays(), st.booleans())
def test_reshape_strides(data, ab, fortran):
    """_reshape_with_copy_arg (shape.c): view or copy, and the view's shape and strides."""
    a, buf = ab
    new = data.draw(st.one_of(newshapes(a.size), st.just(a.shape)))
    order = "F" if fortran else "C"
    real, err = _outcome(lambda: a.reshape(new, order=order))
    fake, ferr = _outcome(lambda: layout.reshape_strides(a.shape, a.strides, a.itemsize, new,
                                                         fortran))
    assert err == ferr
    if err is not None:
        return
    shape, strides = fake
    assert shape == real.shape
    assert (strides is not None) == _is_view(real, buf)
    if strides is not None:
        assert strides == real.strides


@settings(max_examples=400, deadline=None)
@given(arrays())
def test_contiguity(ab):
    a, _ = ab
    assert layout.contiguity(a.shape, a.strides, a.itemsize) == \
        (a.flags.c_contiguous, a.flags.f_contiguous)


@settings(max_examples=400, deadline=None)
@given(arrays())
def test_like_strides_order_k(ab):
    """PyArray_NewLikeArray (ctors.c) in order K: np.empty_like(a, order='K')."""
    a, _ = ab
    c, f = a.flags.c_contiguous, a.flags.f_contiguous
    for dt in (a.dtype, np.dtype("f8")):
        want = np.empty_like(a, dtype=dt, order="K").strides
        assert layout.like_strides(a.shape, a.strides, dt.itemsize, c, f) == want


@settings(max_examples=400, deadline=None)
@given(arrays())
def test_dense_in_stride_order(ab):
    """PyArray_Ravel (shape.c) in order K: a view exactly when the array is C- or
    F-contiguous or dense in the order of its sorted strides."""
    a, buf = ab
    view = a.flags.c_contiguous or a.flags.f_contiguous or \
        layout.dense_in_stride_order(a.shape, a.strides, a.itemsize)
    assert view == _is_view(np.ravel(a, order="K"), buf)


@settings(max_examples=400, deadline=None)
@given(arrays(), st.integers(1, 2), st.sampled_from("KACF"))
def test_prepend_ones_strides(ab, extra, order):
    """_prepend_ones (multiarraymodule.c): np.array(a, copy=None, order=, ndmin=) views the
    converted array with leading length-1 axes."""
    a, _ = ab
    base = np.array(a, copy=None, order=order)
    real = np.array(a, copy=None, order=order, ndmin=a.ndim + extra)
    assert layout.prepend_ones_strides(base.shape, base.strides, a.itemsize, real.ndim,
                                       order == "F") == real.strides


@settings(max_examples=300, deadline=None)
@given(st.lists(arrays(), min_size=1, max_size=3))
def test_iterator_out_strides(abs_):
    """NpyIter's allocated output (nditer_constr.c) for orders K, C, F, A: np.add's out."""
    ops = [a for a, _ in abs_]
    shape, err = _outcome(lambda: layout.broadcast_shapes(*[a.shape for a in ops]))
    if err is not None:
        return
    operands = [(a.shape, a.strides, a.flags.f_contiguous) for a in ops]
    for order in "KCFA":
        real = np.nditer(ops + [None], flags=["zerosize_ok", "refs_ok"],
                         op_flags=[["readonly"]] * len(ops) + [["writeonly", "allocate"]],
                         op_dtypes=[None] * len(ops) + [np.dtype("f8")], order=order)
        with real:
            want = real.operands[-1].strides
        assert layout.iterator_out_strides(shape, 8, operands, order) == want, order


@settings(max_examples=400, deadline=None)
@given(st.lists(shapes, min_size=1, max_size=4))
def test_broadcast_shapes(shs):
    real, err = _outcome(lambda: np.broadcast_shapes(*shs))
    fake, ferr = _outcome(lambda: layout.broadcast_shapes(*shs))
    assert err == ferr
    assert fake == real


@settings(max_examples=400, deadline=None)
@given(arrays(), shapes)
def test_broadcast_strides(ab, target):
    """np.broadcast_to's strides (0 on broadcast and length-1 axes, as NpyIter gives them)."""
    a, _ = ab
    real, err = _outcome(lambda: np.broadcast_to(a, target))
    if err is not None:
        return
    want = tuple(0 if n == 1 else s for n, s in zip(real.shape, real.strides))
    assert layout.broadcast_strides(target, a.shape, a.strides) == want


@settings(max_examples=300, deadline=None)
@given(shapes, dtypes)
def test_fresh_strides(shape, dt):
    """np.empty's C and F strides, and the filled strides of a view made without strides."""
    assert layout.c_strides(shape, dt.itemsize) == np.empty(shape, dt).strides
    assert layout.f_strides(shape, dt.itemsize) == np.empty(shape, dt, order="F").strides
    buf = np.zeros(max(int(np.prod(shape)), 1) * dt.itemsize, np.uint8)
    assert layout.fill_strides(shape, dt.itemsize) == np.ndarray(shape, dt, buffer=buf).strides
    assert layout.fill_strides(shape, dt.itemsize, True) == \
        np.ndarray(shape, dt, buffer=buf, order="F").strides


@pytest.mark.parametrize("shape,new", [((2, 3), (3, -1, -1)), ((0, 3), (0, -1)), ((4,), (3,)), ((4,), (3, 2)), ((4,), (3, -1)),
                                       ((6,), (-1, 4, 1)), ((6,), (2, 3, -1, 2))])
def test_reshape_errors(shape, new):
    """NumPy's ValueError messages (_fix_unknown_dimension, convert_shape_to_string)."""
    a = np.zeros(shape)
    with pytest.raises(ValueError) as real:
        a.reshape(new)
    with pytest.raises(ValueError) as fake:
        layout.reshape_strides(a.shape, a.strides, a.itemsize, new)
    assert str(fake.value) == str(real.value)


@settings(max_examples=400, deadline=None)
@given(st.lists(shapes, min_size=1, max_size=4))
def test_try_broadcast(shs):
    """The broadcast rule itself: None exactly where np.broadcast_shapes refuses."""
    real, err = _outcome(lambda: np.broadcast_shapes(*shs))
    assert layout.try_broadcast(shs) == (None if err is not None else real)
