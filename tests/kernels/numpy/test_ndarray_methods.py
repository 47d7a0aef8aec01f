"""ndarray methods and attributes of the NumPy long tail: conj/conjugate, partition,
argpartition and byteswap (special cases beside their op-table entries), and the buffer
attributes a fake cannot give (ctypes, data, __dlpack__)."""
import numpy as np
import pytest

import faketensor as ft
from tests import oracle


def test_conj_of_real_numbers_is_the_array_itself():
    for dt in ("f8", "i4", "?", "f2"):
        a = np.zeros((3, 4), dt).T
        with ft.FakeMode():
            x = np.zeros((3, 4), dt).T
            assert x.conj() is x and x.conjugate() is x
        assert a.conj() is a  # NumPy's own rule, the control


def test_conj_of_complex_is_a_new_array_and_0d_gives_a_scalar():
    oracle.check(lambda a: a.conj(), np.zeros((), "c16"))
    oracle.check(lambda a: a.conj(), np.zeros((4, 3), "c8").T)
    with ft.FakeMode():
        x = np.zeros((3, 4), complex)
        assert x.conj() is not x and not np.shares_memory(x.conj(), x)


@pytest.mark.parametrize("dt", ["U2", "S3", "M8[s]", "m8[s]", "i4,f8", "V4"])
def test_conj_of_non_numbers_raises_type_error(dt):
    oracle.check(lambda a: a.conj(), np.zeros(3, dt))


def test_conj_out_forms():
    c, r = np.zeros((3, 4), "c16"), np.zeros((3, 4))
    oracle.check(lambda a, o: a.conj(o), c, np.zeros((4, 3), "c16").T)
    oracle.check(lambda a, o: a.conj(o), r, np.zeros((3, 4), "f4"))    # same_kind: ok
    oracle.check(lambda a, o: a.conj(o), r, np.zeros((3, 4), "i8"))    # same_kind: TypeError
    oracle.check(lambda a, o: a.conj(o), c, np.zeros((3, 4)))          # complex -> float
    oracle.check(lambda a, o: a.conj(o), r, np.zeros((2, 4)))          # broadcast
    oracle.check(lambda a: a.conj([0.0] * 4), r)                       # not an array
    with pytest.raises(TypeError):
        with ft.FakeMode():
            np.zeros(3).conj(out=np.zeros(3))  # positional only, as in NumPy


def test_partition_in_place_returns_none_and_keeps_the_array():
    a = np.arange(12.0).reshape(3, 4)
    with ft.FakeMode():
        x = np.zeros((3, 4))
        shape, strides = x.shape, x.strides
        assert x.partition(1) is None and (x.shape, x.strides) == (shape, strides)
    oracle.check(lambda b: b.partition(np.array([0, 3])), a.copy())
    oracle.check(lambda b: b.partition(np.array([[0]])), a.copy())


def test_partition_and_byteswap_refuse_read_only_arrays():
    ro = np.zeros((3, 4))
    ro.flags.writeable = False
    oracle.check(lambda b: b.partition(1), ro)
    oracle.check(lambda b: b.byteswap(True), ro)
    oracle.check(lambda b: b.byteswap(), ro)  # a copy: writeable


def test_argpartition_method_every_axis_form():
    a = np.zeros((4, 5, 2), "i2").transpose(2, 0, 1)
    for kw in ({}, {"axis": None}, {"axis": 0}, {"axis": -2}, {"axis": 3}, {"axis": 1.0}):
        oracle.check(lambda b: b.argpartition(1, **kw), a)
    oracle.check(lambda b: b.argpartition(0), np.zeros(()))
    oracle.check(lambda b: b.argpartition(0, kind="bogus"), a)


@pytest.mark.parametrize("what", ["ctypes", "data", "__dlpack__"])
def test_buffer_attributes_need_the_data(what):
    with ft.FakeMode():
        x = np.zeros((3, 4))
        with pytest.raises(ft.DataDependentError, match="data buffer"):
            v = getattr(x, what)
            v()
        if what != "__dlpack__":  # np.from_dlpack(x) is a view of x (tests/planner/test_cover.py)
            with pytest.raises(ft.DataDependentError):
                getattr(x, what)


# ndarray.resize: exact where metadata decides (the fake's own geometry and storage change in
# place: tests/planner/test_cover.py), UnsupportedOperationError where NumPy's answer depends on
# reference counts

def _resize_cases():
    a = np.arange(12.0).reshape(3, 4)
    return [
        (lambda x: x.resize(), a.copy()),                    # no shape: nothing happens
        (lambda x: x.resize(None), a.copy()),
        (lambda x: x.resize((3, 4)), a.copy()),              # its own shape
        (lambda x: x.resize(3, 4), a.copy()),
        (lambda x: x.resize((2, 2)), a[:, ::2]),             # not one segment
        (lambda x: x.resize((2, 2)), a[:2]),                 # a view: does not own its data
        (lambda x: x.resize((-1, 2)), a.copy()),             # negative dimension
        (lambda x: x.resize("ab"), a.copy()),                # not a shape
        (lambda x: x.resize((2 ** 40, 2 ** 40)), a.copy()),  # overflow: MemoryError
        (lambda x: x.resize((2, 2), refcheck="no"), a.copy()),
    ]


@pytest.mark.parametrize("i", range(len(_resize_cases())))
def test_resize_exact_cases(i):
    fn, x = _resize_cases()[i]
    oracle.check(fn, x)


def test_resize_that_needs_reference_counts_is_refused():
    with ft.FakeMode():
        x = np.zeros((3, 4))
        with pytest.raises(ft.UnsupportedOperationError, match="reference count"):
            x.resize((5,))  # reallocating with refcheck: the program's references decide
        assert x.shape == (3, 4)


# ndarray.flat: a fake flatiter whose indexing gives fakes

_FLAT_INDICES = [3, -1, 12, -13, slice(None, None, 2), slice(5, 1, -2), Ellipsis, np.array([1, 2]),
                 np.array([[1], [2]]), [1, 2], np.array([True] * 12), np.array([True] * 5), (1,),
                 (1, 2), None, np.array(3), (slice(None),), np.array([], int), "a", np.array([13]),
                 np.array([1.5])]


@pytest.mark.parametrize("layout", ["C", "T", "neg", "0d", "empty", "c8", "ro"])
@pytest.mark.parametrize("i", range(len(_FLAT_INDICES)))
def test_flat_getitem(layout, i):
    a = {"C": np.arange(12.0).reshape(3, 4), "T": np.arange(12, dtype="i2").reshape(3, 4).T,
         "neg": np.arange(24.0)[::-2], "0d": np.zeros(()), "empty": np.zeros((0, 3)),
         "c8": np.zeros((2, 6), "c8")[:, ::-1]}.get(layout)
    if a is None:
        a = np.zeros((3, 4))
        a.flags.writeable = False
    idx = _FLAT_INDICES[i]
    oracle.check(lambda x: x.flat[idx], a)


def _flat_set(x, i, v):
    x.flat[i] = v


@pytest.mark.parametrize("case", range(7))
def test_flat_setitem(case):
    a = np.arange(12.0).reshape(3, 4).T
    ro = np.zeros((3, 4))
    ro.flags.writeable = False
    x, i, v = [(a.copy(), 3, 1.0), (a.copy(), slice(None), [1, 2]), (ro, 0, 1), (a.copy(), 20, 1),
               (a.copy(), 0, "x"), (a.copy(), np.array([1, 2]), np.zeros(5, "f4")),
               (a.copy(), (0, 1), 1)][case]
    oracle.check(_flat_set, x, i, v)


def test_flat_attributes_and_iteration():
    with ft.FakeMode(record=True) as mode:
        x = np.zeros((3, 4)).T
        f = x.flat
        assert f.base is x and f.index == 0 and f.coords == (0, 0) and len(f) == 12
        assert ft.is_fake(f[3]) and f[3].shape == () and f[::2].shape == (6,)
        c = f.copy()
        assert c.shape == (12,) and c.flags.c_contiguous and not np.shares_memory(c, x)
        f[0] = 1.0
        with pytest.raises(ft.DataDependentError, match="flat"):
            next(iter(f))
        with pytest.raises(ft.DataDependentError):
            for _ in x.flat:
                pass
    ops = [e.op for e in mode.trace]
    assert "ndarray.flat.__getitem__" in ops and "ndarray.flat.__setitem__" in ops
    real = np.zeros((3, 4)).T.flat
    assert (real.index, real.coords, len(real)) == (0, (0, 0), 12)  # the control
