"""Indexing kernels against real NumPy: __getitem__, __setitem__, take, put, compress."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import faketensor as ft
from oracle import DTYPE_FAMILIES, NUMERIC, arrays, check

NO_OBJECT = [d for d in DTYPE_FAMILIES if d.kind != "O"]

# --- index strategies -----------------------------------------------------------------

_bound = st.one_of(st.none(), st.integers(-6, 6), st.sampled_from([-(2**40), 2**40]))
_step = st.one_of(st.none(), st.integers(-3, 3).filter(bool), st.sampled_from([7, -7]))


def _int_array(draw, shape, n):
    """A real integer index array of ``shape`` with values for an axis of length n."""
    lo, hi = (-n, n - 1) if n else (0, 0)
    oob = draw(st.integers(0, 19)) == 0
    vals = draw(st.lists(st.integers(lo, hi), min_size=int(np.prod(shape)),
                         max_size=int(np.prod(shape))))
    arr = np.array(vals, dtype=np.intp).reshape(shape)
    if oob and arr.size:
        arr.flat[0] = n + 2
    kind = draw(st.sampled_from(["intp", "list", "int32", "uint8", "T", "F", "step", "rev",
                                 ">i8"]))
    if kind == "list":
        return arr.tolist()
    if kind == "int32":
        return arr.astype(np.int32)
    if kind == "uint8":
        return (arr % max(n, 1)).astype(np.uint8) if n else arr.astype(np.uint8)
    if kind == ">i8":
        return arr.astype(">i8")
    if kind == "T":
        return np.ascontiguousarray(arr.T).T if arr.ndim > 1 else arr
    if kind == "F":
        return np.asfortranarray(arr)
    if kind == "step":
        return np.repeat(arr, 2, axis=-1)[..., ::2] if arr.ndim else arr
    if kind == "rev" and arr.ndim:
        return arr[..., ::-1]
    return arr


@st.composite
def index_keys(draw, shape, advanced=True):
    """A random index tuple (or single index) for an array of ``shape``."""
    nd = len(shape)
    fancy = draw(st.sampled_from([(2,), (3,), (1,), (2, 3), (3, 1), (0,), (1, 2)]))
    items = []
    d = 0
    has_ell = False
    kinds = ["int", "slice", "slice", "none", "ellipsis"]
    if advanced:
        kinds += ["intarr", "intarr", "boolarr", "bool0d", "int0d"]
    for _ in range(draw(st.integers(0, nd + 2))):
        kind = draw(st.sampled_from(kinds))
        n = shape[d] if d < nd else 2
        if kind == "int":
            items.append(draw(st.integers(-n - 1, n)))
            d += 1
        elif kind == "slice":
            items.append(slice(draw(_bound), draw(_bound), draw(_step)))
            d += 1
        elif kind == "none":
            items.append(None)
        elif kind == "ellipsis":
            if has_ell and draw(st.integers(0, 9)):
                continue
            has_ell = True
            items.append(Ellipsis)
            d = max(d, nd - (len(items)))
        elif kind == "intarr":
            shp = fancy[draw(st.integers(0, len(fancy))):] or (1,)
            items.append(_int_array(draw, shp, n))
            d += 1
        elif kind == "int0d":
            items.append(np.array(draw(st.integers(-n, max(n - 1, 0))), dtype=np.intp))
            d += 1
        elif kind == "bool0d":
            items.append(draw(st.sampled_from([True, False, np.True_, np.array(False)])))
        else:
            k = draw(st.integers(1, max(1, min(2, nd - d))))
            bshape = tuple(shape[d:d + k]) if d + k <= nd else (2,) * k
            if draw(st.integers(0, 9)) == 0:
                bshape = tuple(x + 1 for x in bshape)
            vals = draw(st.lists(st.booleans(), min_size=int(np.prod(bshape)),
                                 max_size=int(np.prod(bshape))))
            items.append(np.array(vals, dtype=bool).reshape(bshape))
            d += k
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


def _set(key, value):
    def fn(a):
        a[key] = value
    fn.__name__ = f"setitem[{key!r}]={type(value).__name__}"
    return fn


def _get(key):
    def fn(a):
        return a[key]
    fn.__name__ = f"getitem[{key!r}]"
    return fn


# --- __getitem__ ------------------------------------------------------------------------


@given(st.data())
def test_basic_indexing(data):
    a = data.draw(arrays(dtypes=NO_OBJECT, max_dims=4))
    key = data.draw(index_keys(a.shape, advanced=False))
    check(_get(key), a)


@given(st.data())
def test_advanced_indexing(data):
    a = data.draw(arrays(max_dims=4))
    key = data.draw(index_keys(a.shape))
    check(_get(key), a)


@given(st.data())
def test_fake_integer_index_arrays(data):
    """A fake index array: exact metadata when its values are in bounds."""
    a = data.draw(arrays(min_dims=1, max_dims=3))
    ax = data.draw(st.integers(0, a.ndim - 1))
    n = a.shape[ax]
    shp = data.draw(st.sampled_from([(2,), (2, 3), (0,), (3, 1)]))
    if n == 0:
        idx = np.zeros(shp, dtype=np.intp)
    else:
        idx = np.arange(int(np.prod(shp))).reshape(shp) % n
    idx = data.draw(st.sampled_from([idx, idx.astype(np.int32), np.asfortranarray(idx),
                                     idx[..., ::-1]]))
    pre = (slice(None),) * ax
    post = data.draw(st.sampled_from([(), (Ellipsis,), (None,)]))

    def fn(arr, i):
        return arr[pre + (i,) + post]
    check(fn, a, idx)


A = np.arange(210.0).reshape(5, 6, 7)
I3 = np.array([0, 1, 2])

GET_TABLE = [
    (A, (slice(None), I3)),                          # transposed view of the buffer
    (A, (slice(None), I3, slice(None))),
    (A, (I3, slice(None), I3)),                      # not consecutive: at the front
    (A, (slice(None), 0, I3)),                       # an integer joins the advanced block
    (A, (0, slice(None), I3)),                       # integer then slice: not consecutive
    (A, (slice(None), None, I3)),
    (A, (Ellipsis, I3)),
    (A, (slice(None), I3[:, None], I3)),
    (A, (slice(None, 1), I3, slice(None, 1))),      # subspace of size 1
    (A[:, :1, :1], (slice(None), I3)),
    (A[::-1, :, ::2], (I3, Ellipsis)),
    (A.T, (slice(None), [[1, 2]], slice(None))),
    (np.asfortranarray(A), (I3,)),
    (np.asfortranarray(A), (slice(None), slice(None), I3)),
    (np.ones(5), np.array([[0, 1], [2, 3]]).T),      # trivial path keeps F order
    (np.ones(5), np.array([[0, 1], [2, 3]], np.int32).T),
    (np.ones(5), np.arange(8)[::2].reshape(2, 2)),
    (np.ones(5), np.array([True, False, True, True, False])),
    (np.ones(5), np.array([], bool)),
    (np.ones(5), ()),
    (np.ones(5), Ellipsis),
    (np.ones(5), (Ellipsis, None)),
    (np.ones(()), ()),
    (np.ones(()), Ellipsis),
    (np.ones(()), None),
    (np.ones(()), True),
    (np.ones(()), False),
    (np.ones(()), (True, False)),
    (np.ones((3, 4)), (True, slice(None), [0, 1])),
    (np.ones((3, 4)), (False, 1)),
    (np.ones((3, 4)), (np.array(1), slice(None))),   # a 0-d array: a copy
    (np.ones((3, 4)).T, (np.array(1),)),
    (np.ones((3, 4)), (np.array(1), 2)),
    (np.ones((3, 4)), (np.array(1), [2, 0])),
    (np.ones((3, 0)), (slice(None), [])),
    (np.ones((3, 0)), ([0, 1],)),
    (np.ones((0, 3)), ([],)),
    (np.ones((2, 3, 4)), (np.ones((2, 3), bool),)),
    (np.ones((2, 3, 4)), (slice(None), np.ones((3, 4), bool))),
    (np.ones((2, 3, 4)), (np.array([True, False]), slice(None), [0, 1])),
    (np.zeros(3, [("a", "<i4"), ("b", "<f8", (2,))]), "b"),
    (np.zeros(3, [("a", "<i4"), ("b", "<f8", (2,))]), "a"),
    (np.zeros(3, [("a", "<i4"), ("b", "<f8", (2,))]), 1),
]

GET_ERRORS = [
    (A, 5), (A, -6), (A, (0, 0, 0, 0)), (A, 1.0), (A, "x"), (A, [0, slice(None)]),
    (A, 2**70), (A, (Ellipsis, Ellipsis)), (A, np.array([1.0])), (A, [[0], [1.5]]),
    (A, (I3, [0, 1])), (A, ([[0, 1]], [0, 1, 2])), (A, (slice(None), [6])),
    (A, (slice(None), [-7])), (A, (slice(None, None, 0),)), (A, (slice("a"),)),
    (A, np.ones((5, 5), bool)), (A, (slice(None), np.ones(7, bool))),
    (np.ones(()), 0), (np.ones(()), (None, 0)), (np.ones((3,)), (False, [0, 1])),
    (np.ones(3), np.array(1.5)), (np.ones(3), (None,) * 65),
    (np.zeros(3, [("a", "<i4")]), "b"), (np.ones((3, 0)), (slice(None), 0)),
    (np.ones((0, 3)), [0]), (np.ones(3), [[0, 1], [0]]),
]


EXOTIC_KEYS = [
    np.uint64(2**64 - 1), np.uint64(1), np.float64(1.0), np.array(2**63, dtype=np.uint64),
    range(2), [range(2)], np.int8(-1), (np.int8(-1), np.uint8(3)), [np.array(1), 2],
    [[True, False, True]], [True, False, True], ([True, False, True], 0),
    np.array([[1]], np.uint64), slice(np.int8(1), None), (slice(None, None, np.int64(-1)),),
    np.array(["a"]), np.array([], dtype="U"), np.array([], object), [None], [[]], [[], []],
    ([], []), ([], 0), ([0], []), np.array(1, dtype="m8[s]"), 1 + 0j,
]


@pytest.mark.parametrize("key", EXOTIC_KEYS, ids=[repr(k)[:30] for k in EXOTIC_KEYS])
def test_exotic_keys(key):
    check(_get(key), np.ones((3, 4)))
    check(_set(key, 1.0), np.ones((3, 4)))


@pytest.mark.parametrize("arr,key", GET_TABLE, ids=[repr(k)[:40] for _, k in GET_TABLE])
def test_getitem_table(arr, key):
    check(_get(key), arr)


@pytest.mark.parametrize("arr,key", GET_ERRORS, ids=[repr(k)[:40] for _, k in GET_ERRORS])
def test_getitem_errors(arr, key):
    r = check(_get(key), arr)
    assert isinstance(r, Exception)


def test_transposed_buffer_layout():
    f = ft.empty((5, 6, 7))
    r = f[:, ft.empty((3,), np.intp)]
    assert r.shape == (5, 3, 7) and r.strides == (56, 280, 8)
    assert not r.flags.owndata and r.base is not None and r.base.shape == (3, 5, 7)
    assert not np.shares_memory(r, f)


def test_integer_index_is_a_scalar_and_item_needs_data():
    f = ft.empty((3, 4))
    x = f[1, 2]  # a NumPy scalar copied out of the array (array_item, mapping.c): no view
    assert x.shape == () and x.storage is not f.storage and not np.shares_memory(x, f)
    with pytest.raises(ft.DataDependentError):
        x.item()


def test_fake_masks_give_bounded_sizes():
    """A fake mask's count is a bounded size (faketensor/_sizes.py), assumed at its upper
    bound outside a plan; a 0-d fake boolean index adds an axis of length 0 <= k <= 1."""
    f = ft.empty((3, 4))
    m = ft.empty((3, 4), bool)
    for key, shape in ((m, (12,)), ((m[:, 0], slice(None)), (3, 4)),
                       ((slice(None), m[0]), (3, 4))):
        r = f[key]
        assert r.shape == shape and any(type(n) is ft.BoundedSize for n in r.shape)
    for key, shape in ((m[0, 0], (1, 3, 4)), ((m[0, 0], 1), (1, 4))):
        r = f[key]
        assert r.shape == shape and (r.shape[0].lo, r.shape[0].hi) == (0, 1)
    with pytest.raises(IndexError):          # a wrong shape is known without values
        f[m[0], :]
    with pytest.raises(IndexError):
        f[ft.empty((5,), bool)]
    with pytest.raises(ft.DataDependentError, match="must equal 3"):
        f[m] = np.ones(3)                     # 3 true entries or not: it depends
    with pytest.raises(ValueError):           # 13 never fits 12 entries
        f[m] = np.ones(13)
    f[m] = 1.0                                # one value: the count is not needed
    f[m] = np.ones(1)
    with pytest.raises(TypeError):
        f[m] = np.ones((1, 1))
    g = ft.empty(0)
    assert g[ft.empty(0, bool)].shape == (0,)


def test_fake_index_out_of_bounds_on_empty_axis():
    f = ft.empty((0, 3))
    with pytest.raises(IndexError):
        f[ft.empty((2,), np.intp)]
    assert f[ft.empty((0,), np.intp)].shape == (0, 3)
    with pytest.raises(IndexError):
        f[ft.empty((), np.intp)]


def test_object_element_is_data_dependent():
    f = ft.empty((3,), object)
    with pytest.raises(ft.DataDependentError):
        f[0]
    assert f[1:].shape == (2,)


def test_fake_scalar_index():
    f = ft.empty((3, 4))
    i = ft.empty((), np.intp)
    r = f[i]
    assert r.shape == (4,) and r.flags.owndata and r.strides == (8,)
    assert f[i, 0].shape == ()


# --- __setitem__ ------------------------------------------------------------------------


_values = st.one_of(
    st.sampled_from([0, 1.5, -1, 300, 2**70, "1.5", "abc", None, True, 1j, [1, 2],
                     [[1, 2, 3]], [], [[1], [2, 3]]]),
    st.builds(np.ones, st.sampled_from([(), (1,), (2,), (3,), (1, 3), (2, 1), (2, 3), (4, 1, 1)])),
)


@given(st.data())
def test_setitem(data):
    a = data.draw(arrays(dtypes=NUMERIC + [np.dtype("U3"), np.dtype(object)], max_dims=3))
    key = data.draw(index_keys(a.shape))
    value = data.draw(_values)
    check(_set(key, value), a)


@given(st.data())
def test_setitem_fake_value(data):
    a = data.draw(arrays(max_dims=3))
    key = data.draw(index_keys(a.shape))
    vshape = data.draw(st.sampled_from([(), (1,), (2,), (3,), (2, 3), (1, 1, 1)]))
    v = np.ones(vshape, dtype=data.draw(st.sampled_from(NUMERIC)))

    def fn(arr, val):
        arr[key] = val
    check(fn, a, v)


SET_TABLE = [
    (np.zeros(3, np.int8), slice(0, 2), 300),
    (np.zeros(3, np.int8), [0, 1], [300, 1]),
    (np.zeros(3, np.int8), [10], 300),               # value conversion before bounds
    (np.zeros(3), slice(None), "abc"),
    (np.zeros(3), slice(None), "1.5"),
    (np.zeros(3), slice(0, 2), [[1, 2]]),
    (np.zeros(3), slice(0, 2), np.ones((1, 2))),
    (np.zeros(3), 0, np.ones(1)),
    (np.zeros(3), 0, [1]),
    (np.zeros(3), 0, np.array(2.0)),
    (np.zeros((2, 3)), np.ones((2, 3), bool), np.ones((1, 1))),
    (np.zeros((2, 3)), np.ones((2, 3), bool), np.ones(4)),
    (np.zeros((2, 3)), np.ones((2, 3), bool), np.ones(6)),
    (np.zeros((2, 3)), [0, 1], np.ones(2)),
    (np.zeros((2, 3)), [0, 1], np.ones((1, 1, 2, 3))),
    (np.zeros((2, 3)), (slice(None), [0, 1]), np.ones((2, 1))),
    (np.broadcast_to(np.zeros(3), (2, 3)), 0, 1),
    (np.zeros(2, "S3"), slice(None), np.array(["é", "a"])),
    (np.zeros(3), Ellipsis, np.ones(3)),
    (np.zeros(3, [("a", "<i4"), ("b", "<f8", (2,))]), "b", np.ones(2)),
    (np.zeros(3, [("a", "<i4"), ("b", "<f8", (2,))]), "b", np.ones(3)),
    (np.zeros((1000, 1000)), slice(None), 1.0),      # large: a reduced stand-in
    (np.zeros((1000, 1000)), slice(None), np.ones(1000)),
    (np.zeros((1000, 1000)), slice(None), np.ones(999)),
    (np.zeros((1000, 1000)), (slice(None), 0), "x"),
]


@pytest.mark.parametrize("arr,key,value", SET_TABLE,
                         ids=[f"{k!r}={v!r}"[:40] for _, k, v in SET_TABLE])
def test_setitem_table(arr, key, value):
    check(_set(key, value), arr)


def test_setitem_fake_value_casts():
    f = ft.empty(3)
    with pytest.raises(ft.DataDependentError):
        f[:] = ft.empty(3, "U3")                     # parsing strings needs their values
    f[:] = ft.empty(1, np.int8)
    f[:0] = ft.empty(0, "U3")
    with pytest.raises(ValueError):
        f[:] = ft.empty(2)
    u = ft.empty(3, "U5")
    u[:] = ft.empty(3, "U2")
    with pytest.raises(ValueError):
        ft.empty(3)[0] = ft.empty(1)
    with pytest.raises(ValueError, match="read-only"):
        np.broadcast_to(ft.empty(3), (2, 3))[0] = 1.0


def test_setitem_warns_once_on_broadcast_arrays():
    a, _ = np.broadcast_arrays(ft.empty(3), ft.empty((2, 3)))
    with pytest.warns(DeprecationWarning, match="broadcast_arrays"):
        a[0] = 1.0
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a[0] = 2.0


def test_setitem_huge_broadcast_real_value():
    f = ft.empty((10**6, 10**6))
    f[:] = np.broadcast_to(np.ones(1), (10**6, 10**6))
    with pytest.raises(ValueError):
        f[:] = np.broadcast_to(np.ones(1), (10**6, 10**6 - 1))
    with pytest.raises(ValueError):
        f[0] = "x"


def test_setitem_returns_none_and_keeps_metadata():
    f = ft.empty((3, 4))
    before = (f.shape, f.strides, f.storage_offset)
    assert f.__setitem__((slice(None), [0, 1]), 1.0) is None
    assert (f.shape, f.strides, f.storage_offset) == before


# --- take, take_along_axis, put, compress ------------------------------------------------


@given(st.data())
def test_take(data):
    a = data.draw(arrays(max_dims=3))
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim - 1, a.ndim)))
    n = a.size if axis is None else (a.shape[axis] if -a.ndim <= axis < a.ndim else 3)
    idx = _int_array(data.draw, data.draw(st.sampled_from([(), (2,), (2, 3), (0,)])), n)
    # NumPy's wrap mode loops forever on an empty axis with a negative index
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"] if n else ["raise", "clip"]))
    check(lambda arr: np.take(arr, idx, axis=axis, mode=mode), a)
    check(lambda arr: arr.take(idx, axis, mode=mode), a)


@given(st.data())
def test_take_along_axis(data):
    a = data.draw(arrays(min_dims=1, max_dims=3))
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1)))
    if axis is None:
        shape, n = (data.draw(st.integers(0, 3)),), a.size
    else:
        shape = list(a.shape)
        shape[axis] = data.draw(st.integers(0, 3))
        shape = tuple(shape)
        n = a.shape[axis]
    idx = _int_array(data.draw, shape, n)
    if isinstance(idx, list):
        idx = np.array(idx, dtype=np.intp).reshape(shape)
    check(lambda arr: np.take_along_axis(arr, idx, axis=axis), a)
    if n:
        check(lambda arr, i: np.take_along_axis(arr, i, axis=axis), a, idx % n)


TAKE_TABLE = [
    (lambda a: np.take(a, [0.0]), ),
    (lambda a: np.take(a, np.array([0.0])), ),
    (lambda a: np.take(a, [1], mode="foo"), ),
    (lambda a: np.take(a, [1], mode=1.5), ),
    (lambda a: np.take(a, [1], mode=b"clip"), ),
    (lambda a: np.take(a, 0, axis=0), ),
    (lambda a: np.take(a, [1], axis=5), ),
    (lambda a: np.take(a, [100], mode="wrap"), ),
    (lambda a: np.take(a, [[1]], out=np.zeros((1, 1), np.float32)), ),
    (lambda a: np.take(a, [1], out=np.zeros(2)), ),
    (lambda a: np.take(a[:0], [0], axis=0), ),
    (lambda a: np.take(a[:0], [], axis=0), ),
    (lambda a: np.take_along_axis(a, np.array([[0]]), axis=None), ),
    (lambda a: np.take_along_axis(a, np.array([[0.0]]), axis=0), ),
    (lambda a: np.take_along_axis(a, np.array([0]), axis=0), ),
    (lambda a: np.take_along_axis(a, np.array([[5]]), axis=0), ),
    (lambda a: np.put(a, [0, 5], [1.0, 2.0]), ),
    (lambda a: np.put(a, [100], [1.0]), ),
    (lambda a: np.put(a, [100], [1.0], mode="clip"), ),
    (lambda a: np.put(a, [100], []), ),
    (lambda a: np.put(a, [0], "x"), ),
    (lambda a: np.put(a, np.array([0.0]), 1), ),
    (lambda a: np.put(a, np.array([0], np.uint64), 1), ),
    (lambda a: np.put(a[:0], [0], 1), ),
    (lambda a: np.put(np.broadcast_to(a, (2,) + a.shape), [0], 1), ),
    (lambda a: a.put([0], [1], mode="wrap"), ),
    (lambda a: np.compress([1, 0, 1], a, axis=0), ),
    (lambda a: np.compress([0, 0, 0, 0, 1], a, axis=0), ),
    (lambda a: np.compress([1, 0, 0, 0, 0], a, axis=0), ),
    (lambda a: np.compress([[1]], a), ),
    (lambda a: np.compress(np.array([2.0, 0]), a, axis=1), ),
    (lambda a: np.compress([True, False], a), ),
    (lambda a: a.compress([True], axis=1), ),
    (lambda a: np.compress([1, 1], a, axis=0, out=np.empty((2, 4))), ),
]


@pytest.mark.parametrize("fn", [t[0] for t in TAKE_TABLE],
                         ids=[str(i) for i in range(len(TAKE_TABLE))])
@pytest.mark.parametrize("layout", ["c", "f", "t"])
def test_take_put_compress_table(fn, layout):
    a = np.arange(12.0).reshape(3, 4)
    a = {"c": a, "f": np.asfortranarray(a), "t": np.ascontiguousarray(a.T).T}[layout]
    check(fn, a)


def test_take_out_is_returned():
    f = ft.empty((3, 4))
    out = ft.empty((2, 4))
    assert np.take(f, [0, 1], axis=0, out=out) is out
    fi = ft.empty((2,), np.intp)
    assert np.take(f, fi, axis=1).shape == (3, 2)
    with pytest.raises(TypeError):
        np.take(f, ft.empty((2,), np.float64))


def test_put_and_compress_with_fakes():
    f = ft.empty(5)
    assert np.put(f, ft.empty(2, np.intp), ft.empty(2)) is None
    with pytest.raises(ft.DataDependentError):
        np.put(f, [0], ft.empty(1, "U3"))
    k = np.compress(ft.empty(5, bool), f).shape[0]   # a bounded size, 0 <= k <= 5
    assert type(k) is ft.BoundedSize and (k.lo, k.hi, int(k)) == (0, 5, 5)
    assert np.compress(ft.empty(0, bool), f).shape == (0,)
    with pytest.raises(ValueError):
        np.compress(ft.empty((1, 1), bool), f)


# --- data-dependent ops ------------------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda f: 1.0 in f, lambda f: int(np.count_nonzero(f)),
])
def test_data_dependent(call):
    with pytest.raises(ft.DataDependentError):
        call(ft.empty((3, 4)))


@pytest.mark.parametrize("call", [
    np.nonzero, np.where, lambda f: f.nonzero(),
])
def test_nonzero_gives_bounded_sizes(call):
    """np.nonzero's count is a bounded size 0 <= k <= size (faketensor/_sizes.py)."""
    with ft.FakeMode():
        f = np.empty((3, 4))
        r = call(f)
    k = r[0].shape[0]
    assert len(r) == 2 and type(k) is ft.BoundedSize and (k.lo, k.hi) == (0, 12)


def test_count_nonzero_is_an_intp_scalar():
    """Without an axis NumPy 2.4 returns an np.intp: a 0-d fake whose value is unknown."""
    c = np.count_nonzero(ft.empty((3, 4), np.dtype("U2")))
    assert ft.is_fake(c) and c.shape == () and c.dtype == np.intp


def test_inside_fake_mode():
    with ft.FakeMode():
        a = np.zeros((4, 5))
        idx = np.array([0, 2])                       # a fake: values unknown
        r = a[:, idx]
        assert ft.is_fake(r) and r.shape == (4, 2) and r.strides == (8, 32)
        a[1:, idx] = 2.0
        assert a[np.arange(2)].shape == (2, 5)
    real_idx = np.array([0, 7])
    with ft.FakeMode():
        a = np.zeros((4, 5))
        with pytest.raises(IndexError):               # a real index keeps its values
            a[:, real_idx]


def test_trace_alias_kinds():
    with ft.FakeMode(record=True) as m:
        a = np.zeros((4, 5))
        a[1:]
        a[:, [0, 1]]
        a[[0, 1]]
        a[0] = 1.0
    alias = [e.alias for e in m.trace if e.op.startswith("ndarray.")]
    assert alias[0] == (("view", 0),)
    assert alias[1] == ("fresh",) and alias[2] == ("fresh",)
    assert alias[3] == ()


COPYTO_CASTING = st.sampled_from(["same_kind", "safe", "unsafe", "no", "bogus"])
COPYTO_VALUES = st.sampled_from([0, 1, 300, -1, 1.5, 2j, True, [1, 2], [[1], [2], [3]]])


@given(arrays(), arrays(), COPYTO_CASTING, st.booleans())
def test_copyto_hypothesis(dst, src, casting, masked):
    kw = {"casting": casting}
    check(lambda d, s: np.copyto(d, s, **kw), dst, src)
    if masked:
        check(lambda d, s, w: np.copyto(d, s, where=w, **kw), dst, src, src.astype(bool))
    check(lambda d, s: np.copyto(d[..., ::-1], s, **kw), dst, src)


@given(arrays(), COPYTO_VALUES, COPYTO_CASTING)
def test_copyto_known_values(dst, value, casting):
    check(lambda d: np.copyto(d, value, casting=casting), dst)
    ro = dst.copy()
    ro.flags.writeable = False
    check(lambda d: np.copyto(d, value), ro)


@pytest.mark.parametrize("src_shape,dtype,casting", [
    ((10**4,), np.float64, "same_kind"), ((3, 10**4), np.float64, "same_kind"),
    ((10**4,), np.int64, "safe"), ((10**4,), np.float64, "safe"), ((), np.complex128, "same_kind"),
])
def test_copyto_large_fakes_follow_numpy(src_shape, dtype, casting):
    """Beyond the small-case shortcut the checks are direct; compare with NumPy on real arrays."""
    dst = np.empty((2, 10**4), np.float64)
    src = np.empty(src_shape, dtype)
    check(lambda d, s: np.copyto(d, s, casting=casting), dst, src)
    check(lambda d, s: np.copyto(d, s, where=s.astype(bool) if s.ndim else True), dst, src)


@pytest.mark.parametrize("n", [3, 10, 1000])
def test_boolean_list_indexes_charge_numpys_bytes(n):
    """A list of booleans becomes a bool array (n bytes): kept while it is the mask of a 1-d
    array, else replaced by its positions at once (freed before the result or the packed
    value): reads and writes, alone, with an ellipsis, a slice or an int list."""
    from memtools import op_peaks
    idx = [bool(i % 3) for i in range(n)]
    cols = [True, False, True, False]
    cases = (((n,), lambda a: a[idx]), ((n,), lambda a: a.__setitem__(idx, 1.0)),
             ((n,), lambda a: a[idx, ...]), ((n,), lambda a: a.__setitem__((idx, ...), 2.0)),
             ((n, 4), lambda a: a[idx]), ((n, 4), lambda a: a[idx, 1:]),
             ((n, 4), lambda a: a[:, cols]), ((n, 4), lambda a: a[idx, [0] * sum(idx)]),
             ((n, 4), lambda a: a.__setitem__(idx, 3.0)), ((n,), lambda a: a[[np.True_] * n]))
    for shape, op in cases:
        real, fake = op_peaks(lambda: [np.ones(shape)], op)
        assert fake == real, shape
