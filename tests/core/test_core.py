"""FakeArray attributes, errors, conversion basics and the mode stack."""
import sys
import threading

import numpy as np
import pytest

import faketensor as ft
from oracle import compare_meta


def test_huge_fake_is_small():
    a = ft.empty((10**6, 10**6))
    assert a.nbytes == 8 * 10**12
    size = sys.getsizeof(a) + sys.getsizeof(a.storage) + sys.getsizeof(a.shape) + sys.getsizeof(a.strides)
    assert size < 1024


def test_attributes_match_numpy():
    r = np.empty((3, 4), np.float32, order="F")
    f = ft.empty((3, 4), np.float32, order="F")
    compare_meta(r, f, [], [])
    assert f.ndim == 2 and f.size == 12 and f.itemsize == 4 and f.nbytes == 48
    assert f.flags["F_CONTIGUOUS"] and not f.flags["C"] and f.flags.owndata
    assert f.device == "cpu" and f.fake_device == "cpu"
    assert f.storage.nbytes == 48 and f.storage_offset == 0


def test_no_data():
    f = ft.empty((3,))
    with pytest.raises(NotImplementedError, match="Cannot copy out of fake array; no data!"):
        np.asarray(f)
    with pytest.raises(NotImplementedError, match="materialize"):
        np.array(f)
    for call in (f.tolist, f.tobytes, lambda: f[0].item(), lambda: float(f[0]), lambda: int(f[0]),
                 lambda: bool(f[0])):
        with pytest.raises(ft.DataDependentError):
            call()
    with pytest.raises(ValueError):
        bool(f)
    with pytest.raises(TypeError):
        float(f)


def test_len_and_iteration():
    f = ft.empty((3, 2))
    assert len(f) == 3
    parts = list(f)
    assert len(parts) == 3 and all(ft.is_fake(p) and p.shape == (2,) for p in parts)
    assert parts[1].storage is f.storage and parts[1].storage_offset == 16
    with pytest.raises(TypeError):
        len(ft.empty(()))
    with pytest.raises(TypeError, match="0-d"):
        iter(ft.empty(()))  # iter() itself refuses, as for an ndarray
    for shape in ((), (0,), (3,)):
        assert np.iterable(ft.empty(shape)) is np.iterable(np.empty(shape))


def test_repr_says_fake():
    r = repr(ft.empty((2, 3), np.int8))
    assert "FakeArray" in r and "(2, 3)" in r and "int8" in r and "(3, 1)" in r and "cpu" in r


def test_empty_strided():
    f = ft.empty_strided((3, 4), (8, 24))
    r = np.empty((4, 3)).T
    assert (f.shape, f.strides, f.dtype) == (r.shape, r.strides, r.dtype)
    assert (f.flags.c_contiguous, f.flags.f_contiguous) == (r.flags.c_contiguous, r.flags.f_contiguous)
    assert f.flags.owndata and f.storage.nbytes == 96
    g = ft.empty_strided((3,), (-8,))
    assert g.storage_offset == 16 and g.storage.nbytes == 24


def test_to_fake_keeps_aliasing():
    a = np.arange(12.0).reshape(3, 4)
    fa, fv = ft.to_fake((a, a[:, ::2]))
    assert fa.storage is fv.storage
    assert np.shares_memory(fa, fv)
    compare_meta(a[:, ::2], fv, [a], [fa])


class Logger(ft.Mode):
    def __init__(self):
        self.calls = []

    def __array_dispatch__(self, func, types, args, kwargs):
        self.calls.append(ft._errors.op_name(func))
        return func(*args, **kwargs)


def test_user_mode_over_fake_mode():
    log = Logger()
    with ft.FakeMode(), log:
        x = np.zeros((2, 3))
        y = x + 1
    assert ft.is_fake(x) and ft.is_fake(y)
    assert log.calls == ["np.zeros", "np.add"]


def test_fake_mode_goes_to_bottom():
    log = Logger()
    with log:
        with ft.FakeMode():
            x = np.ones(3)
    assert ft.is_fake(x) and log.calls == ["np.ones"]


def test_mode_stack_is_per_thread():
    seen = []
    with ft.FakeMode():
        t = threading.Thread(target=lambda: seen.append(type(np.zeros(2))))
        t.start()
        t.join()
    assert seen == [np.ndarray]


def test_nothing_intercepted_outside():
    assert type(np.zeros(3)) is np.ndarray
    assert type(np.random.randn(2)) is np.ndarray


def test_allow_real_inputs_false():
    a = np.ones(3)
    with ft.FakeMode(allow_real_inputs=False):
        with pytest.raises(TypeError, match="allow_real_inputs"):
            np.add(ft.empty(3), a)


def test_real_inputs_not_modified():
    a = np.ones(3)
    with ft.FakeMode():
        np.add(np.asarray(a), 1, out=np.asarray(a))
    assert (a == 1).all()


def test_fake_outside_mode_stays_fake():
    x = ft.empty((2, 2)) + 1
    assert ft.is_fake(x)


def test_numpy_unchanged_by_patches():
    import inspect
    import pickle
    assert type(np.add) is np.ufunc
    assert pickle.loads(pickle.dumps(np.zeros)) is np.zeros
    assert pickle.loads(pickle.dumps(np.add)) is np.add
    assert np.zeros.__doc__ == np.zeros.__wrapped__.__doc__
    assert inspect.signature(np.linspace) == inspect.signature(np.linspace.__wrapped__)
    assert np.random.randn.__doc__ == np.random.randn.__wrapped__.__doc__


def test_memory_live_and_peak():
    with ft.FakeMode() as m:
        a = np.zeros((1000,))
        b = np.zeros((1000,))
        del a
        c = b + 1
    # b + 1 also holds the 0-d float64 NumPy makes from the 1 while it allocates c
    assert m.memory.peak["cpu"] == 16008
    assert m.memory.live["cpu"] == 16000
    del b, c
    assert m.memory.live["cpu"] == 0


def test_record_trace():
    with ft.FakeMode(record=True) as m:
        a = np.ones((4, 4))
        b = a + 1
        a += b
    ops = [e.op for e in m.trace]
    assert ops == ["np.ones", "np.add", "np.add"]
    assert m.trace[0].alias == ("fresh",) and m.trace[0].nbytes == 128
    assert m.trace[2].alias == (("inplace", 0),) and m.trace[2].nbytes == 0
    assert m.trace[1].outputs[0]() is b
    del a, b
    assert m.trace[1].outputs[0]() is None


@pytest.mark.parametrize("record", [False, True])
def test_mode_freed_without_cycle_collector(record):
    """A mode, its trace and its fakes form no reference cycle: a large trace is freed as soon as
    the program drops it, not at the cyclic collector's next pass."""
    import gc
    import weakref
    gc.collect()
    gc.disable()
    try:
        mode = ft.FakeMode(record=record)
        with mode:
            x = np.ones((100, 100))
            y = (x @ x.T)[::2].sum(0)
            np.add(y, 1, out=y)
        alive = weakref.ref(mode), weakref.ref(x), weakref.ref(y)
        del mode, x, y
        assert [r() is None for r in alive] == [True, True, True]
    finally:
        gc.enable()
