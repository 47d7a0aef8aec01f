"""Which registered rule a call reaches: CUDA fakes and cupy callables run the (op, "cupy")
rule that CuPy's protocols route them to (faketensor/_backends.py ``run_rule``)."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import cuda  # noqa: E402
from faketensor.kernels.registry import REGISTRY, lookup  # noqa: E402


def _orig(f):
    return getattr(f, "__wrapped__", f)  # the cupy namespace holds patched wrappers


def _deprecated(meth, *args):
    with pytest.warns(DeprecationWarning):
        return meth(*args)


def m():
    return cuda((3, 3))


def v():
    return cuda((4,))


# (the op whose "cupy" rule must run, the call); m() and v() are fresh CUDA fakes
CASES = [
    # NumPy functions on CUDA fakes: their cupy counterpart (core.pyx __array_function__)
    (lambda: _orig(cupy.sum), lambda: np.sum(m())),
    (lambda: _orig(cupy.concatenate), lambda: np.concatenate([m(), m()])),
    (lambda: _orig(cupy.where), lambda: np.where(cuda((3,), bool), v()[:3], 0.0)),
    (lambda: _orig(cupy.linalg.inv), lambda: np.linalg.inv(m())),
    (lambda: _orig(cupy.fft.fft), lambda: np.fft.fft(v())),
    (lambda: _orig(cupy.einsum), lambda: np.einsum("ij->j", m())),
    (lambda: _orig(cupy.shares_memory), lambda: np.shares_memory(m(), m())),
    # ... except the metadata queries, one rule for both backends
    (lambda: _orig(np.shape), lambda: np.shape(m())),
    (lambda: _orig(np.ndim), lambda: np.ndim(m())),
    # NumPy ufuncs (and operators): the cupy ufunc of the same name (__array_ufunc__)
    (lambda: _orig(cupy.add), lambda: np.add(m(), 1)),
    (lambda: _orig(cupy.add), lambda: m() + m()),
    (lambda: _orig(cupy.sqrt), lambda: np.sqrt(m())),
    (lambda: _orig(cupy.matmul), lambda: m() @ m()),
    # NumPy ufunc methods: "ufunc.NAME" with the cupy ufunc first
    (lambda: "ufunc.reduce", lambda: np.add.reduce(m())),
    (lambda: "ufunc.accumulate", lambda: np.multiply.accumulate(m())),
    (lambda: "ufunc.outer", lambda: np.add.outer(v(), v())),
    (lambda: "ufunc.at", lambda: np.add.at(v(), [0, 1], 1.0)),
    # cupy.ndarray methods: "ndarray.NAME"
    (lambda: "ndarray.sum", lambda: m().sum(axis=0)),
    (lambda: "ndarray.reshape", lambda: m().reshape(-1)),
    (lambda: "ndarray.transpose", lambda: m().transpose()),
    (lambda: "ndarray.__getitem__", lambda: m()[1:, ::2]),
    (lambda: "ndarray.__setitem__", lambda: m().__setitem__((0, 0), 1.0)),
    (lambda: "ndarray.copy", lambda: m().copy()),
    (lambda: "ndarray.astype", lambda: m().astype(np.float32)),
    (lambda: "ndarray.dot", lambda: m().dot(m())),
    (lambda: "ndarray.cumsum", lambda: m().cumsum(0)),
    (lambda: "ndarray.repeat", lambda: m().repeat(2)),
    (lambda: "ndarray.argsort", lambda: m().argsort()),
    (lambda: "ndarray.conj", lambda: m().conj()),
    (lambda: "ndarray.trace", lambda: m().trace()),
    (lambda: "ndarray.ptp", lambda: m().ptp()),
    (lambda: "ndarray.fill", lambda: m().fill(0.0)),
    (lambda: "ndarray.get", lambda: m().get()),
    (lambda: "ndarray.reduced_view", lambda: m().reduced_view()),
    (lambda: "ndarray.scatter_max", lambda: _deprecated(m().scatter_max, slice(None), 1.0)),
    # cupy functions, with fakes among the inputs or none (factories in a mode)
    (lambda: _orig(cupy.sum), lambda: cupy.sum(m())),
    (lambda: _orig(cupy.amax), lambda: cupy.amax(m())),
    (lambda: _orig(cupy.add), lambda: cupy.add(m(), m())),
    (lambda: _orig(cupy.linalg.solve), lambda: cupy.linalg.solve(m(), v()[:3])),
    (lambda: _orig(cupy.polyadd), lambda: cupy.polyadd(v(), v())),
    (lambda: _orig(cupy.zeros), lambda: cupy.zeros((2, 3))),
    (lambda: _orig(cupy.random.rand), lambda: cupy.random.rand(2, 3)),
    # methods of cupy objects: "cupy.ufunc.NAME", "cupy.Generator.NAME"
    (lambda: "cupy.ufunc.reduce", lambda: cupy.add.reduce(m())),
    (lambda: "cupy.ufunc.outer", lambda: cupy.multiply.outer(v(), v())),
    (lambda: "cupy.Generator.standard_normal",
     lambda: cupy.random.default_rng(0).standard_normal((2, 3))),
]


@pytest.fixture
def patch_rule(monkeypatch):
    """Replace a registered rule for one test; the caches that remember resolved rules are
    cleared around it, so no other test meets the replacement."""
    def patch(op, backend, fn):
        kernel = lookup(op, backend)
        assert kernel is not None and kernel.backend == backend
        ft.clear_cache()
        monkeypatch.setitem(REGISTRY, (op, backend), kernel._replace(fn=fn))
        return kernel
    yield patch
    ft.clear_cache()


@pytest.mark.parametrize("key,call", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_the_call_runs_the_cupy_rule_of_its_op(patch_rule, key, call):
    op = key()
    ran = []

    def spy(*args, **kwargs):
        ran.append(op)
        return kernel.fn(*args, **kwargs)

    kernel = patch_rule(op, "cupy", spy)
    with ft.FakeMode(device="cuda:0"):
        call()
    assert ran == [op]


def test_cuda_fakes_never_run_a_numpy_rule(patch_rule):
    """A NumPy rule that exists for an op is not what CUDA fakes get (np.sum's is NumPy's)."""
    patch_rule(np.sum, "numpy", lambda *a, **k: pytest.fail("the NumPy rule ran on a CUDA fake"))
    out = np.sum(m())
    assert out.shape == () and out.fake_device == "cuda:0"


def test_cpu_fakes_never_run_a_cupy_rule():
    """A method only CuPy has a rule for is unsupported on cpu fakes (no NumPy rule)."""
    x = ft.empty((3, 3), np.complex128)
    assert lookup("ndarray.get", "cupy") is not None and lookup("ndarray.get") is None
    with pytest.raises(ft.UnsupportedOperationError):
        x.get()
    assert np.sum(x).fake_device == "cpu"
    # ndarray.conj has both rules: the NumPy one for cpu fakes (the array itself here: real)
    y = ft.empty((3, 3))
    assert lookup("ndarray.conj", "cupy") is not None and y.conj() is y


def test_a_numpy_call_cupy_refuses_is_its_type_error():
    """No cupy counterpart: CuPy's protocol returns NotImplemented and NumPy raises TypeError."""
    with pytest.raises(TypeError, match="no implementation found"):
        np.vecdot(v(), v())
    with pytest.raises(TypeError, match="no implementation found"):
        np.isnat(v())


def test_a_numpy_object_method_refuses_cuda_fakes():
    """NumPy's Generator converts its arguments: cupy.ndarray.__array__ raises TypeError."""
    with ft.FakeMode():
        with pytest.raises(TypeError, match="Implicit conversion"):
            np.random.default_rng(0).normal(v())


def test_an_op_with_no_cupy_rule_is_unsupported():
    """A CUDA fake's method or NumPy function with a cupy counterpart but no rule yet."""
    with pytest.raises(ft.UnsupportedOperationError, match="no CuPy rule"):
        m().getfield(np.float32)
    assert lookup(cupy.array_repr, "cupy") is None
    with pytest.raises(ft.UnsupportedOperationError, match="no CuPy rule"):
        np.array_repr(v())
