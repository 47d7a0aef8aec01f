"""CuPy rules on CUDA fakes, cupy namespace interception and pool accounting (no GPU needed)."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import cuda  # noqa: E402
from faketensor.kernels.cupy import core as cupy_rules  # noqa: E402
from faketensor.modes.memory import pool_bytes  # noqa: E402



def c_contig(x):
    return x.flags.c_contiguous and x.base is None


# --- elementwise: fresh C outputs, CuPy's dtype loops -------------------------------

@pytest.mark.parametrize("make", [
    lambda: cuda((4, 5), order="F"),
    lambda: cuda((5, 4)).T,
    lambda: cuda((2, 3, 4)).transpose(2, 0, 1),
    lambda: cuda((1, 5, 1)),
    lambda: cuda((0, 3), order="F"),
    lambda: cuda(()),
])
def test_elementwise_outputs_are_c_contiguous(make):
    a = make()
    for out in (a + a, cupy.add(a, a), cupy.sqrt(a), np.multiply(a, 2), -a, a * 1.5):
        assert out.shape == a.shape and c_contig(out)
        assert out.strides == ft.empty(a.shape, out.dtype).strides
        assert out.fake_device == "cuda:0"


@pytest.mark.parametrize("dt1,other,expected", [
    ("int8", 3, "int8"), ("float32", 2.0, "float32"), ("int32", "float32", "float64"),
    ("int8", "uint8", "int16"), ("float16", 1, "float16"), ("bool", True, "bool"),
    ("int64", 1.5, "float64"), ("uint8", -1, None), ("complex64", 1.0, "complex64"),
    ("int8", "int64", "int64"),
])
def test_ufunc_dtypes_follow_cupy_loops(dt1, other, expected):
    a = cuda((3,), dt1)
    b = cuda((3,), other) if isinstance(other, str) else other
    if expected is None:
        with pytest.raises(OverflowError):
            cupy.add(a, b)
        return
    assert cupy.add(a, b).dtype == np.dtype(expected)


def test_comparison_and_divide_dtypes():
    a = cuda((2, 3), np.int32)
    assert (a < a).dtype == np.bool_ and cupy.true_divide(a, a).dtype == np.float64
    assert cupy.divmod(a, a)[1].dtype == np.int32


def test_broadcast_and_out():
    a, b = cuda((4, 1)), cuda((3,))
    assert (a + b).shape == (4, 3)
    with pytest.raises(ValueError):
        cuda((4,)) + cuda((3,))
    o = cuda((4, 3))
    assert cupy.add(a, b, out=o) is o
    with pytest.raises(ValueError):
        cupy.add(a, b, out=cuda((5, 3)))
    with pytest.raises(TypeError):  # float64 into an int output, same_kind
        cupy.add(a, b, out=cuda((4, 3), np.int64))
    with pytest.raises(TypeError):
        cupy.add(a, b, where=True)  # CuPy's keyword is _where


def test_numpy_array_to_cupy_ufunc_is_type_error():
    a = cuda((3,))
    for bad in (np.ones(3), ft.empty((3,)), [1, 2, 3]):
        with pytest.raises(TypeError):
            cupy.add(a, bad)
    with pytest.raises(TypeError):
        a + ft.empty((3,))
    with pytest.raises(TypeError):
        ft.empty((3,)) + a


def test_implicit_conversion_to_numpy_is_type_error():
    with pytest.raises(TypeError):
        np.asarray(cuda((3,)))


def test_two_devices_in_one_kernel_is_value_error():
    a, b = cuda((3,), dev=0), cuda((3,), dev=1)
    with pytest.raises(ValueError):
        a + b
    with pytest.raises(ValueError):
        cupy.sum(b)  # b is not on the current device (0)
    with ft.FakeMode():
        with cupy.cuda.Device(1):
            assert (b + b).fake_device == "cuda:1"
            with pytest.raises(ValueError):
                a + a


# --- reductions --------------------------------------------------------------------

@pytest.mark.parametrize("name,dt,expected", [
    ("sum", "int8", "int64"), ("sum", "uint16", "uint64"), ("sum", "float16", "float16"),
    ("sum", "bool", "int64"), ("prod", "int32", "int64"), ("mean", "int8", "float64"),
    ("mean", "float32", "float32"), ("max", "int16", "int16"), ("argmax", "float32", "int64"),
    ("argmin", "uint8", "int64"), ("all", "float64", "bool"), ("any", "int8", "bool"),
    ("var", "complex64", "float32"), ("std", "int64", "float64"),
])
def test_reduction_dtypes_and_0d(name, dt, expected):
    a = cuda((4, 5), dt, order="F")
    r = getattr(a, name)()
    assert r.shape == () and r.dtype == np.dtype(expected) and r.fake_device == "cuda:0"
    r = getattr(cupy, name)(a, axis=0)
    assert r.shape == (5,) and c_contig(r)


def test_reduction_keepdims_is_c_contiguous():
    a = cuda((3, 4, 5)).transpose(2, 0, 1)
    r = a.sum(axis=1, keepdims=True)
    assert r.shape == (5, 1, 4) and r.strides == (32, 32, 8)
    assert cupy.max(a, axis=(0, 2)).shape == (3,)
    with pytest.raises(np.exceptions.AxisError):
        a.sum(axis=3)
    with pytest.raises(ValueError):
        a.sum(axis=(1, 1))


def test_reduction_without_identity_on_empty():
    a = cuda((0, 3))
    assert a.sum().shape == ()
    assert a.max(axis=0).shape == (3,) if False else True
    with pytest.raises(ValueError):
        a.max(axis=0)
    assert a.max(axis=1).shape == (0,)  # empty output: no error


# --- copies, dtypes, transfers ------------------------------------------------------

def test_ndarray_copy_defaults_to_c_and_cupy_copy_to_k():
    a = cuda((4, 5), order="F")
    assert a.copy().strides == (40, 8)
    assert a.copy(order="K").strides == (8, 32)
    assert cupy.copy(a).strides == (8, 32)
    t = cuda((3, 4, 5)).transpose(1, 2, 0)
    assert a.astype(np.float32).strides == (4, 16)
    assert t.astype(np.float32, order="C").flags.c_contiguous
    assert a.astype(np.float64, copy=False) is a


@pytest.mark.parametrize("dt", [object, "U3", "S2", "M8[s]", "m8[ns]", ">f8", ">i4"])
def test_unsupported_dtypes_raise_value_error(dt):
    with pytest.raises(ValueError):
        cupy_rules.check_dtype(dt)
    with ft.FakeMode():
        with pytest.raises(ValueError):
            cupy.zeros(3, dtype=dt)
    with pytest.raises(ValueError):
        cuda((3,)).astype(dt)


def test_supported_dtypes():
    for dt in "?bhilqBHILQefdFD":
        assert cupy_rules.check_dtype(dt) == np.dtype(dt)
    assert cupy_rules.check_dtype([("a", "i4"), ("b", "f8")]).kind == "V"


def test_asnumpy_and_asarray():
    with ft.FakeMode() as m:
        x = cupy.ones((3, 4))
        h = cupy.asnumpy(x)
        assert h.fake_device == "cpu" and h.shape == (3, 4)
        g = x.get()
        assert g.fake_device == "cpu"
        d = cupy.asarray(h)
        assert d.fake_device == "cuda:0" and d.storage is not h.storage
        f = cupy.asarray(np.zeros((3, 4), order="F"))  # metadata only: no transfer
        assert f.fake_device == "cuda:0" and f.strides == (8, 24)
        assert cupy.asarray(x) is x
        assert cupy.array(x) is not x
        assert cupy.asarray(x, dtype=np.float32).dtype == np.float32
        assert cupy.ascontiguousarray(x.T).strides == (24, 8)


# --- interception ---------------------------------------------------------------------

def test_factories_in_mode():
    host = np.arange(6).reshape(2, 3)
    with ft.FakeMode(device="cuda:0"):
        outs = [cupy.zeros((2, 3)), cupy.ones(4, dtype=cupy.int32), cupy.empty((2, 2), order="F"),
                cupy.full((2,), 7), cupy.arange(10), cupy.arange(0, 1, 0.25),
                cupy.linspace(0, 1, 11), cupy.eye(3, 4), cupy.identity(2),
                cupy.array(host), cupy.zeros_like(cupy.ones((2, 3), order="F"))]
    shapes = [(2, 3), (4,), (2, 2), (2,), (10,), (4,), (11,), (3, 4), (2, 2), (2, 3), (2, 3)]
    for o, s in zip(outs, shapes):
        assert ft.is_fake(o) and o.shape == s and o.fake_device == "cuda:0"
    assert outs[1].dtype == np.int32 and outs[3].dtype == np.int64
    assert outs[2].strides == (8, 16) and outs[10].strides == (8, 16)
    assert outs[5].dtype == np.float64 and outs[4].dtype == np.int64


def test_mode_device_and_device_context():
    with ft.FakeMode(device="cuda:1"):
        x = cupy.zeros(3)
        assert x.fake_device == "cuda:1" and x.device.id == 1
        assert (x + 1).fake_device == "cuda:1"
        with cupy.cuda.Device(3):
            y = cupy.ones(2)
        assert y.fake_device == "cuda:3" and y.device == cupy.cuda.Device(3)
    with ft.FakeMode():
        assert cupy.zeros(3).fake_device == "cuda:0"


def test_cupy_ufunc_outside_mode_reaches_dispatch():
    a = cuda((2, 3))
    r = cupy.multiply(a, a)
    assert ft.is_fake(r) and r.fake_device == "cuda:0"
    assert cupy.get_array_module(a) is cupy
    assert cupy.get_array_module(ft.empty(3)) is np


def test_real_cupy_untouched_without_mode():
    with pytest.raises(Exception) as e:  # no GPU here: the real function still runs
        cupy.zeros(3)
    assert not isinstance(e.value, (ft.UnsupportedOperationError, AssertionError))


def test_random_legacy_and_generator():
    with ft.FakeMode():
        r = [cupy.random.rand(3, 4), cupy.random.randn(2), cupy.random.random((5,)),
             cupy.random.normal(0, 1, size=(2, 3), dtype=np.float32),
             cupy.random.randint(0, 10, size=7), cupy.random.uniform(size=4),
             cupy.random.poisson(3.0, size=(2,))]
        assert [x.shape for x in r] == [(3, 4), (2,), (5,), (2, 3), (7,), (4,), (2,)]
        assert r[3].dtype == np.float32 and r[4].dtype == np.int64 and r[6].dtype == np.int64
        loc = cupy.zeros((4, 1))
        assert cupy.random.normal(loc, 1.0).shape == (4, 1)
        with pytest.raises(TypeError):
            cupy.random.rand(3, dtype=np.int32)
        g = cupy.random.default_rng(42)
        s = g.standard_normal((3, 4), dtype=np.float32)
        i = g.integers(0, 5, size=(6,))
        u = g.random(10)
        assert s.shape == (3, 4) and s.dtype == np.float32 and s.fake_device == "cuda:0"
        assert i.dtype == np.int64 and u.shape == (10,)


# --- memory as CuPy's pool sees it --------------------------------------------------

def test_pool_rounding():
    assert [pool_bytes(n) for n in (0, 1, 511, 512, 513, 4096)] == [0, 512, 512, 512, 1024, 4096]


def test_memory_accounting_per_device():
    with ft.FakeMode(device="cuda:0") as m:
        a = cupy.zeros(100, dtype=np.float32)           # 400 B -> 512
        b = cupy.zeros((0, 5))                          # size 0: free
        with cupy.cuda.Device(1):
            c = cupy.ones(1000)                         # 8000 B -> 8192
        d = a + a                                        # 400 B -> 512
        assert m.memory.live["cuda:0"] == 800 and m.memory.pool_live["cuda:0"] == 1024
        assert m.memory.live["cuda:1"] == 8000 and m.memory.pool_live["cuda:1"] == 8192
        del d
        assert m.memory.pool_live["cuda:0"] == 512 and m.memory.pool_peak["cuda:0"] == 1024
        e = cupy.asnumpy(a)
        assert m.memory.live.get("cpu") == 400 and "cpu" not in m.memory.pool_live
    assert m.memory.peak["cuda:0"] == 800 and m.memory.pool_peak["cuda:1"] == 8192
    del a, b, c, e


def test_cupy_functions_without_a_rule_raise_on_fakes_not_run_cupy():
    """An unported cupy function never runs CuPy's implementation on fakes (it would reach
    the device or build real arrays): UnsupportedOperationError naming it, in a mode or not."""
    a = cuda((3, 3))
    for call, name in ((lambda: cupy.array_str(a), "cupy.array_str"),
                       (lambda: cupy.from_dlpack(a), "cupy.from_dlpack")):
        with ft.FakeMode(device="cuda:0"):
            with pytest.raises(ft.UnsupportedOperationError, match=name.replace(".", r"\.")):
                call()
    with pytest.raises(ft.UnsupportedOperationError, match=r"cupy\.array_repr"):
        cupy.array_repr(a)
    with ft.FakeMode(device="cuda:0"):  # configuration and dtype helpers still work
        assert cupy.result_type(np.float32, 1) == np.float32
        assert cupy.get_default_memory_pool() is not None
        assert cupy.shape(a) == (3, 3) and not cupy.iscomplexobj(a)


def test_patched_cupy_functions_pickle_as_themselves():
    import pickle
    for f in (cupy.tri, cupy.zeros, cupy.linspace, cupy.linalg.inv):
        assert pickle.loads(pickle.dumps(f)) is f
    # CuPy's own ufuncs pickle by value (a new ufunc object), patched or not
    assert type(pickle.loads(pickle.dumps(cupy.add))).__name__ == "ufunc"


def test_dirichlet_appends_alphas_shape():
    """cupy/random/_generator.py RandomState.dirichlet and _generator_api.pyx
    Generator.dirichlet: ``size + alpha.shape``; the Generator takes only cupy arrays or
    Python scalars for alpha and always gives float64."""
    with ft.FakeMode(device="cuda:0"):
        a = cupy.ones(3)
        g = cupy.random.default_rng()
        assert g.dirichlet(a, size=(2,)).shape == (2, 3)
        assert g.dirichlet(a, 4).shape == (4, 3) and g.dirichlet(2.0).shape == ()
        with pytest.raises(TypeError):
            g.dirichlet([1.0, 2.0])
        r = cupy.random.dirichlet([1, 2, 3], 5)
        assert (r.shape, r.strides, r.fake_device) == ((5, 3), (24, 8), "cuda:0")
        r = cupy.random.dirichlet(a, (2, 4), np.float32)
        assert (r.shape, r.dtype, r.strides) == ((2, 4, 3), np.float32, (48, 12, 4))
