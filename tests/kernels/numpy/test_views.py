"""Differential tests of the view and copy kernels against real NumPy."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import faketensor as ft
from faketensor._runner import run_fake
from oracle import DTYPE_FAMILIES, NUMERIC, arrays, check, compare_meta

SETTINGS = settings(deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ALL = DTYPE_FAMILIES
as_strided = np.lib.stride_tricks.as_strided
swv = np.lib.stride_tricks.sliding_window_view


def strided(x, *args, **kw):
    """as_strided never dispatches: on fakes call its kernel directly."""
    if ft.is_fake(x):
        return run_fake(as_strided, (x,) + args, kw)
    return as_strided(x, *args, **kw)


# --- hypothesis differential tests -------------------------------------------------


@SETTINGS
@given(arrays(dtypes=ALL), st.data())
def test_transpose_family(a, data):
    check(np.transpose, a)
    check(lambda x: x.T, a)
    check(lambda x: x.transpose(), a)
    if a.ndim:
        perm = data.draw(st.permutations(range(a.ndim)))
        check(np.transpose, a, tuple(perm))
        check(lambda x: x.transpose(*perm), a)
        ax1 = data.draw(st.integers(-a.ndim, a.ndim - 1))
        ax2 = data.draw(st.integers(-a.ndim, a.ndim - 1))
        check(np.swapaxes, a, ax1, ax2)
        check(lambda x: x.swapaxes(ax1, ax2), a)
        check(np.moveaxis, a, ax1, ax2)
        check(np.rollaxis, a, ax1, data.draw(st.integers(-a.ndim, a.ndim)))
    check(np.matrix_transpose, a)
    check(lambda x: x.mT, a)


@SETTINGS
@given(arrays(dtypes=ALL), st.data())
def test_reshape(a, data):
    n = a.size
    divs = [d for d in range(1, 13) if n % d == 0] if n else [0, 1, 2]
    d = data.draw(st.sampled_from(divs))
    shapes = [(-1,), (n,), (d, -1), (-1, d), a.shape, (1,) + a.shape, a.shape + (1,),
              (1, d, 1, -1)]
    if n == 0:
        shapes += [(0, 3), (3, 0, 2)]
    shape = data.draw(st.sampled_from(shapes))
    order = data.draw(st.sampled_from(["C", "F", "A"]))
    cp = data.draw(st.sampled_from([None, True, False]))
    check(lambda x: x.reshape(shape, order=order, copy=cp), a)
    check(lambda x: x.reshape(*shape, order=order), a)
    check(lambda x: np.reshape(x, shape, order=order, copy=cp), a)


@SETTINGS
@given(arrays(dtypes=ALL), st.sampled_from(["C", "F", "A", "K"]))
def test_ravel_flatten(a, order):
    check(np.ravel, a, order)
    check(lambda x: x.ravel(order), a)
    check(lambda x: x.flatten(order), a)


@SETTINGS
@given(arrays(dtypes=ALL, max_side=2), st.data())
def test_squeeze_expand(a, data):
    check(np.squeeze, a)
    check(lambda x: x.squeeze(), a)
    ax = data.draw(st.integers(-max(a.ndim, 1), max(a.ndim, 1) - 1))  # 0-d: 0 and -1 pass
    check(np.squeeze, a, ax)
    check(lambda x: x.squeeze(axis=ax), a)
    check(lambda x: x.squeeze(axis=(ax,)), a)
    ax = data.draw(st.integers(-a.ndim - 1, a.ndim))
    check(np.expand_dims, a, ax)
    check(np.expand_dims, a, (0, -1))
    check(np.atleast_1d, a)
    check(np.atleast_2d, a)
    check(np.atleast_3d, a)
    check(np.atleast_3d, a, a)


@SETTINGS
@given(arrays(dtypes=ALL, max_dims=3), st.data())
def test_broadcast(a, data):
    extra = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    target = extra + tuple(data.draw(st.sampled_from([n, 1 if n == 1 else n, 2])) if n == 1 else n
                           for n in a.shape)
    check(np.broadcast_to, a, target)
    b = np.ones(target[len(target) - a.ndim:] if a.ndim else (3,), dtype=np.int8)
    check(np.broadcast_arrays, a, b)
    check(np.broadcast_arrays, a, a)
    check(lambda x: np.broadcast_arrays(np.broadcast_to(x, (2,) + x.shape), x), a)


@SETTINGS
@given(arrays(dtypes=ALL), st.data())
def test_flips_and_diagonal(a, data):
    if a.ndim == 0 and a.dtype.kind in "OSU":  # the real call returns the element inside
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ft.ObjectArrayWarning)  # an object array's fake
            f = ft.to_fake(a)
        with pytest.raises(ft.DataDependentError):
            np.flip(f)
    else:
        check(np.flip, a)
    if a.ndim:
        check(np.flip, a, data.draw(st.integers(-a.ndim, a.ndim - 1)))
        check(np.flipud, a)
    if a.ndim >= 2:
        check(np.fliplr, a)
        k = data.draw(st.integers(-5, 5))
        axes = tuple(data.draw(st.permutations(range(a.ndim)))[:2])
        check(np.rot90, a, k, axes)
        off = data.draw(st.integers(-4, 4))
        check(np.diagonal, a, off, axes[0], axes[1])
        check(lambda x: x.diagonal(off, axes[1], axes[0]), a)


@SETTINGS
@given(arrays(dtypes=ALL), st.data())
def test_dtype_views(a, data):
    check(lambda x: x.view(), a)
    check(np.real, a)
    check(np.imag, a)
    check(lambda x: x.real, a)
    check(lambda x: x.imag, a)
    if a.dtype.hasobject:
        check(lambda x: x.view(np.int64), a)
        check(lambda x: x.getfield(object, 0), a)
        check(lambda x: x.getfield(np.int64, 0), a)
        return
    new = data.draw(st.sampled_from(["u1", "i2", "<f4", ">i4", "f8", "c16", "S3", "V", "V6",
                                     "(2,)i4", "(2,2)u1", "M8[D]"]))
    check(lambda x: x.view(new), a)
    check(lambda x: x.view(dtype=new, type=np.ndarray), a)
    fdt = data.draw(st.sampled_from(["u1", "<i2", ">i2", "f4", "(2,)u1", "V2"]))
    off = data.draw(st.integers(-1, 16))
    check(lambda x: x.getfield(fdt, off), a)
    check(lambda x: x.setfield(0, fdt, off), a)
    check(lambda x: x.setfield(value=0, dtype=fdt, offset=off), a)
    check(lambda x: x.setfield(val=0, dtype=fdt), a)  # TypeError: NumPy's keyword is value


@SETTINGS
@given(arrays(dtypes=NUMERIC + [np.dtype("U3"), np.dtype(object), np.dtype("M8[s]")]),
       st.sampled_from(["C", "F", "A", "K"]), st.data())
def test_copies_and_astype(a, order, data):
    check(lambda x: x.copy(), a)
    check(lambda x: x.copy(order), a)
    check(copy.copy, a)
    check(copy.deepcopy, a)
    targets = [a.dtype, np.float32, np.int8, np.complex128, ">f8", "U", "S5", bool]
    if a.dtype.kind in "UO":  # converting '' or objects to numbers depends on the values
        targets = [a.dtype, "U" if a.dtype.kind == "U" else "U4", "S5", object]
    if a.dtype.kind == "M":  # datetimes to short strings depend on the values
        targets = [a.dtype, "M8[ms]", "U", object, np.int64]
    dt = data.draw(st.sampled_from(targets))
    cp = data.draw(st.sampled_from([True, False, None]))
    casting = data.draw(st.sampled_from(["unsafe", "safe", "same_kind", "no", "equiv"]))
    check(lambda x: x.astype(dt, order=order, copy=cp, casting=casting), a)
    check(lambda x: x.astype(dt), a)
    if a.dtype.kind not in "fc" or np.can_cast(a.dtype, np.complex128):
        check(lambda x: x.astype(np.complex128, casting="same_value"), a)
    if a.dtype.kind == "U":
        check(lambda x: x.astype(np.float32, casting="safe"), a)  # TypeError before any parsing
        if a.size == 0:  # no strings to parse
            check(lambda x: x.astype(np.int8, order=order), a)
        for num in (np.float32, np.int8, np.complex64, "M8[s]") if a.size else ():
            with pytest.raises(ft.DataDependentError):  # '' and 'abc' raise ValueError, '300' into i1 overflows
                ft.to_fake(a).astype(num)
    if a.size and a.dtype.kind in "fc":  # whether the values survive decides
        with pytest.raises(ft.DataDependentError), warnings.catch_warnings():
            # complex to int8 gives NumPy's ComplexWarning first, on the fake too
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            ft.to_fake(a).astype(np.int8, casting="same_value")


@SETTINGS
@given(arrays(dtypes=ALL, max_dims=3), st.data())
def test_strided_views(a, data):
    check(strided, a)
    if a.ndim:
        check(strided, a, a.shape[:1])
        shape = tuple(data.draw(st.lists(st.integers(0, 3), max_size=3)))
        strides = tuple(data.draw(st.sampled_from([0, a.itemsize, -a.itemsize, 3 * a.itemsize]))
                        for _ in shape)
        check(strided, a, shape, strides)
        check(strided, a, shape, strides, writeable=False)
        w = data.draw(st.integers(0, 3))
        ax = data.draw(st.integers(-a.ndim, a.ndim - 1))
        check(swv, a, w, axis=ax)
        check(swv, a, (w, 1), axis=(ax, ax), writeable=True)
    check(swv, a, (1,) * a.ndim)


# --- explicit awkward cases --------------------------------------------------------


def _awkward():
    base = np.arange(120.0).reshape(4, 5, 6)
    return {
        "0d": np.array(3.0),
        "empty": np.ones((0, 3)),
        "empty_slice": np.ones((3, 4))[:, :0],
        "len1": np.ones((1, 5, 1)),
        "len1_odd_stride": np.ones((4, 5))[1:2, ::2],
        "neg": base[::-1, :, ::-2],
        "bcast": np.broadcast_to(np.arange(4.0), (3, 4)),
        "F": np.asfortranarray(base),
        "T": base.T,
        "readonly": np.ones((2, 3)).diagonal()[None],
        "complex_be": np.ones((3, 2), ">c16")[::-1],
        "structured": np.zeros((2, 3), [("a", "<i4"), ("b", "<f8")]),
        "structured_obj": np.zeros((3,), [("a", "<i4"), ("o", "O")]),
    }


AWK = _awkward()
OPS = {
    "T": lambda x: x.T,
    "reshape-1": lambda x: x.reshape(-1),
    "reshapeF": lambda x: x.reshape(-1, order="F"),
    "reshapeA": lambda x: np.reshape(x, (x.size,), order="A"),
    "reshape_copy": lambda x: x.reshape(x.shape, copy=True),
    "reshape_same": lambda x: x.reshape(x.shape),
    "reshape_none": lambda x: x.reshape(None),
    "ravelK": lambda x: x.ravel("K"),
    "ravelA": lambda x: x.ravel("A"),
    "flatten": lambda x: x.flatten("F"),
    "squeeze": np.squeeze,
    "expand0": lambda x: np.expand_dims(x, 0),
    "expand_last": lambda x: np.expand_dims(x, -1),
    "atleast_2d": np.atleast_2d,
    "atleast_3d": np.atleast_3d,
    "bcast_to": lambda x: np.broadcast_to(x, (2,) + x.shape),
    "bcast_arrays": lambda x: np.broadcast_arrays(x, np.ones((2,) + x.shape)),
    "flip": np.flip,
    "real": np.real,
    "imag": np.imag,
    "copyK": lambda x: x.__copy__(),
    "copyA": lambda x: x.copy("A"),
    "astypeK": lambda x: x.astype(np.int16),
    "astype_nocopy": lambda x: x.astype(x.dtype, copy=False),
    "astype_be": lambda x: x.astype(x.dtype.newbyteorder(), copy=False),
    "view_u1": lambda x: x.view(np.uint8),
    "as_strided": lambda x: strided(x),
    "fill": lambda x: x.fill(0),
    "setflags_ro": lambda x: x.setflags(write=False),
    "getfield_first": lambda x: x.getfield(x.dtype.fields["a"][0] if x.dtype.names else "u1", 0),
    "getfield_obj": lambda x: x.getfield(np.dtype("O"), 8),
}


@pytest.mark.parametrize("case", sorted(AWK))
@pytest.mark.parametrize("op", sorted(OPS))
def test_awkward_table(op, case):
    check(OPS[op], AWK[case])


def _on_list(func, obj, *args):
    """A kernel on a list or scalar (a temporary array in NumPy) against the real call."""
    real = func(obj, *args)
    fake = run_fake(func, (obj,) + args, {})
    compare_meta(real, fake, [], [], getattr(func, "__name__", "?"))


def test_lists_and_scalars():
    _on_list(np.transpose, [[1, 2, 3]])
    _on_list(np.reshape, [1, 2, 3, 4], (2, 2))
    _on_list(np.atleast_2d, 5.0)
    _on_list(np.broadcast_to, 5, (2, 3))
    _on_list(np.ravel, [[1, 2], [3, 4]])
    _on_list(np.squeeze, [[1]])
    _on_list(np.real, [1 + 2j, 3j])
    _on_list(np.imag, [1.0, 3.0])
    _on_list(np.flip, [[1, 2], [3, 4]], 1)
    assert np.real(ft.empty((2,), complex)).dtype == np.float64
    assert np.real(1.5 + 2j) == 1.5


def test_identity_results():
    f = ft.empty((2, 3))
    assert f.squeeze() is f
    assert np.real(f) is f
    assert f.astype(np.float64, copy=False) is f
    assert np.atleast_2d(f) is f
    b = np.broadcast_arrays(f, f)
    assert b[0] is f and b[1] is f


def test_write_flags():
    f = ft.empty((3,))
    b = np.broadcast_to(f, (2, 3))
    assert not b.flags.writeable and b.strides == (0, 8)
    x, y = np.broadcast_arrays(f, ft.empty((2, 3)))
    with pytest.warns(FutureWarning, match="broadcast_array"):  # as NumPy's flags warn
        assert x.flags.writeable
    assert x._warn_on_write and not y._warn_on_write
    d = ft.empty((3, 3)).diagonal()
    assert not d.flags.writeable
    with pytest.raises(ValueError):
        d.fill(1)
    d.flags.writeable = True  # allowed in NumPy 2.4: the owner is writeable
    assert d.flags.writeable
    g = ft.empty((2,))
    assert g.setflags(write=False) is None and not g.flags.writeable
    with pytest.raises(ValueError):
        g.setflags(uic=True)


def test_reshape_copy_is_view_of_temporary():
    a = np.ones((4, 6)).T
    r = check(lambda x: x.reshape(-1), a)
    assert not np.shares_memory(r, a) and r.base is not None
    f = ft.to_fake(a).reshape(-1)
    assert f.base is not None and not f.flags.owndata
    assert f.base.shape == a.shape


# --- bad inputs --------------------------------------------------------------------

BAD = [
    (lambda x: x.transpose(0, 0, 1), (2, 3, 4)),
    (lambda x: x.transpose(0, 1), (2, 3, 4)),
    (lambda x: x.transpose(0, 1, 5), (2, 3, 4)),
    (lambda x: np.swapaxes(x, 0, 3), (2, 3, 4)),
    (lambda x: np.moveaxis(x, (0, 0), (1, 2)), (2, 3, 4)),
    (lambda x: np.moveaxis(x, (0, 1), (1,)), (2, 3, 4)),
    (lambda x: np.rollaxis(x, 1, 5), (2, 3, 4)),
    (lambda x: np.rollaxis(x, 3), (2, 3, 4)),
    (lambda x: x.reshape(5, -1), (2, 3, 4)),
    (lambda x: x.reshape(-1, -1), (2, 3, 4)),
    (lambda x: x.reshape(0, -1), (0, 3)),
    (lambda x: x.reshape(24, order="K"), (2, 3, 4)),
    (lambda x: x.reshape(24, order="X"), (2, 3, 4)),
    (lambda x: x.reshape(2.5), (2, 3, 4)),
    (lambda x: x.reshape(), (2, 3, 4)),
    (lambda x: x.T.reshape(24, copy=False), (2, 3, 4)),
    (lambda x: x.ravel("Q"), (2, 3)),
    (lambda x: x.squeeze(0), (2, 3)),
    (lambda x: x.squeeze((0, 0)), (1, 3)),
    (lambda x: x.squeeze(4), (1, 3)),
    (lambda x: x.squeeze([0]), (1, 3)),
    (lambda x: x.astype(x.dtype, copy=np._CopyMode.NEVER), (3,)),
    (lambda x: np.reshape(x), (3,)),
    (lambda x: np.expand_dims(x, 4), (1, 3)),
    (lambda x: np.expand_dims(x, (0, 0)), (1, 3)),
    (lambda x: np.broadcast_to(x, (3, 4)), (2, 4)),
    (lambda x: np.broadcast_to(x, ()), (2,)),
    (lambda x: np.broadcast_to(x, (-1, 2)), (2,)),
    (lambda x: np.broadcast_to(x, (4,)), (2, 4)),
    (lambda x: np.broadcast_arrays(x, np.ones(3)), (2,)),
    (lambda x: x.view(np.int32), ()),
    (lambda x: np.expand_dims(x.view(np.int32), 0).view("c16"), (3,)),
    (lambda x: x.T.view(np.int32), (2, 3)),
    (lambda x: x.view("V3"), (2, 3)),
    (lambda x: x.view("(3,)i4"), (2, 3)),
    (lambda x: x.view(object), (2, 3)),
    (lambda x: x.view("not a dtype"), (2, 3)),
    (lambda x: x.diagonal(), (3,)),
    (lambda x: x.diagonal(0, 1, 1), (3, 3)),
    (lambda x: x.diagonal(0, 0, 2), (3, 3)),
    (lambda x: np.fliplr(x), (3,)),
    (lambda x: np.flipud(x), ()),
    (lambda x: np.flip(x, 2), (3, 3)),
    (lambda x: np.rot90(x, 1, (0, 0)), (3, 3)),
    (lambda x: np.rot90(x, 1, (0, 2)), (3, 3)),
    (lambda x: np.rot90(x, 1, (0,)), (3, 3)),
    (lambda x: np.matrix_transpose(x), (3,)),
    (lambda x: x.astype(np.int8, casting="safe"), (3,)),
    (lambda x: x.astype(np.float64, casting="no", order="Z"), (3,)),
    (lambda x: x.astype(), (3,)),
    (lambda x: x.getfield("c16", 0), (3,)),
    (lambda x: x.getfield("i4", 6), (3,)),
    (lambda x: x.astype(object).getfield("i8", 0), (3,)),
    (lambda x: x.astype(np.int8).fill(300), (3,)),
    (lambda x: x.fill(np.ones(2)), (3,)),
    (lambda x: x.copy("Z"), (3,)),
    (lambda x: x.astype(x.dtype, casting="bogus", copy=False), (3,)),
    (lambda x: x.copy(1), (3,)),
    (lambda x: x.ravel("c "), (3,)),
    (lambda x: x.reshape(3, order=""), (3,)),
    (lambda x: strided(x.T, (2, 2, 2)), (4, 4)),
    (lambda x: strided(x, (2, -2), (8, 8)), (4,)),
    (lambda x: swv(x, 5), (4,)),
    (lambda x: swv(x, -1), (4,)),
    (lambda x: swv(x, (2, 2)), (4,)),
    (lambda x: swv(x, (2, 2), axis=0), (4,)),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_inputs(i):
    fn, shape = BAD[i]
    r = check(fn, np.ones(shape))
    assert isinstance(r, Exception), r


def test_bad_axis_types():
    x = np.ones((2, 3))
    for fn in (lambda a: np.squeeze(a, 2), lambda a: np.swapaxes(a, -3, 0),
               lambda a: np.moveaxis(a, 0, 2), lambda a: a.transpose(0, 2),
               lambda a: np.expand_dims(a, -4), lambda a: a.diagonal(0, 0, 5)):
        r = check(fn, x)
        assert isinstance(r, np.exceptions.AxisError)
    d = ft.empty((2, 3)).diagonal()
    with pytest.raises(ValueError, match="read-only"):
        d.fill(0)


def test_as_strided_in_fake_mode():
    with ft.FakeMode():
        x = np.zeros((4, 4))
        w = np.lib.stride_tricks.as_strided(x, (3, 2), (8, 8), writeable=False)
    assert ft.is_fake(w) and w.strides == (8, 8) and not w.flags.writeable
    assert np.shares_memory(w, x)


EXTRA = [
    lambda x: x.transpose([2, 0, 1]),
    lambda x: x.view(np.ndarray),
    lambda x: x.view(np.float32, np.ndarray),
    lambda x: x.reshape(np.int64(24)),
    lambda x: x.reshape((4, 6), order=None),
    lambda x: np.squeeze(x, axis=()),
    lambda x: np.expand_dims(x, []),
    lambda x: np.moveaxis(x, [], []),
    lambda x: np.rollaxis(x, -1, -3),
    lambda x: x.astype("V8"),
    lambda x: x.view([("a", "f4"), ("b", "f4")]),
    lambda x: x.astype("f8", copy=None),
    lambda x: x.astype("f4", copy=False),
    lambda x: x.reshape(24, copy=np._CopyMode.ALWAYS),
    lambda x: np.broadcast_to(x, (5, 2, 3, 4)),
    lambda x: np.broadcast_arrays(),
    lambda x: np.flip(x, (0, 2)),
    lambda x: x.view("i8").view("c16"),
    lambda x: np.rot90(x, 1, [1, 2]),
    lambda x: np.rot90(x, -1, (-1, 0)),
]


@pytest.mark.parametrize("i", range(len(EXTRA)))
def test_extra_argument_forms(i):
    check(EXTRA[i], np.ones((2, 3, 4)))
