"""The array API on fakes: ``__array_namespace__`` (and through it the inspection helpers
of ``__array_namespace_info__``), ``device``, ``to_device``, and code written against the
standard with array-api-compat, differential against real NumPy."""
import contextlib
import importlib.util

import array_api_compat as aac
import numpy as np
import pytest

import faketensor as ft
from oracle import check

LAYOUTS = {
    "C": lambda xp: xp.zeros((3, 4)),
    "T": lambda xp: xp.zeros((3, 4), np.float32).T,
    "step": lambda xp: xp.zeros((3, 8), np.int8)[:, ::-2],
    "0d": lambda xp: xp.zeros(()),
    "empty": lambda xp: xp.zeros((0, 2)),
    "scalar": lambda xp: xp.zeros(3).sum(),
}
VERSIONS = (None, "2021.12", "2022.12", "2023.12", "2024.12", "2025.12", "2019.01", 2023)


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # compared by type and message
        return (type(e), str(e))


@pytest.mark.parametrize("name", LAYOUTS)
def test_namespace_and_device(name):
    real = LAYOUTS[name](np)
    with ft.FakeMode():
        fake = LAYOUTS[name](np)
    for v in VERSIONS:
        assert _outcome(lambda: fake.__array_namespace__(api_version=v)) == \
            _outcome(lambda: real.__array_namespace__(api_version=v)), v
    assert fake.__array_namespace__() is np
    with pytest.raises(TypeError):
        fake.__array_namespace__("2023.12")  # keyword-only, as NumPy's
    with pytest.raises(TypeError):
        real.__array_namespace__("2023.12")
    assert fake.device == real.device == aac.device(fake) == aac.device(real) == "cpu"
    assert aac.size(fake) == aac.size(real) and aac.is_array_api_obj(fake)
    for args, kwargs in ((("cpu",), {}), (("cuda",), {}), ((None,), {}), ((), {}),
                         (("cpu",), {"stream": 1})):
        r = _outcome(lambda: real.to_device(*args, **kwargs) is real)
        with ft.FakeMode():
            f = _outcome(lambda: fake.to_device(*args, **kwargs) is fake)
        assert f == r, args


def test_inspection_helpers():
    """``__array_namespace_info__`` of a fake's namespace answers as for the real array:
    it is NumPy's (a fake stands for a NumPy array; data-dependent shapes stay
    data-dependent, and raise DataDependentError on fakes)."""
    with ft.FakeMode():
        fake = np.zeros((2, 3))
        info = aac.array_namespace(fake).__array_namespace_info__()
        real_info = aac.array_namespace(np.zeros(1)).__array_namespace_info__()
        assert info.capabilities() == real_info.capabilities()
        assert info.default_device() == real_info.default_device() == fake.device
        assert info.devices() == real_info.devices()
        for kind in (None, "bool", "real floating", "integral", ("complex floating", "bool")):
            assert info.dtypes(kind=kind) == real_info.dtypes(kind=kind)
        assert info.default_dtypes(device="cpu") == real_info.default_dtypes(device="cpu")
        # zeros know their values: one distinct value, as the real call
        assert aac.array_namespace(fake).unique_values(fake).shape == (1,)


def test_cuda_fake_namespace():
    g = ft.empty((2, 3), device="cuda:1")
    if importlib.util.find_spec("cupy") is None:
        with pytest.raises(ft.UnsupportedOperationError, match="faketensor\\[cupy\\]"):
            g.__array_namespace__()
    else:
        import cupy
        assert g.__array_namespace__() is cupy
    assert aac.device(g) == g.device == ft.FakeCudaDevice(1)


def standardize_and_classify(x, w):
    """Written against the array API standard only (the namespace from the inputs)."""
    xp = aac.array_namespace(x, w)
    mu = xp.mean(x, axis=0, keepdims=True)
    sd = xp.std(x, axis=0, correction=1, keepdims=True)
    z = (x - mu) / (sd + 1e-6)
    logits = xp.matmul(z, w)
    e = xp.exp(logits - xp.max(logits, axis=-1, keepdims=True))
    p = e / xp.sum(e, axis=-1, keepdims=True)
    label = xp.argmax(p, axis=-1)
    flat = xp.reshape(p, (-1,))
    both = xp.concat([z, xp.flip(z, axis=0)], axis=0)
    gram = xp.linalg.matmul(xp.permute_dims(z, (1, 0)), z)
    norms = xp.linalg.vector_norm(z, axis=1)
    cls = xp.astype(label, xp.float32)
    return (z, p, label, flat, both, gram, norms, cls, xp.where(p > 0.5, p, 0.0),
            xp.expand_dims(norms, axis=0), xp.stack([norms, norms], axis=1),
            xp.zeros_like(z), xp.full_like(z, 2.0, device=aac.device(z)))


@pytest.mark.parametrize("layout", ["C", "F", "T", "step"])
def test_array_api_program_matches_numpy(layout):
    x = {"C": np.ones((6, 4)), "F": np.asfortranarray(np.ones((6, 4))),
         "T": np.ones((4, 6)).T, "step": np.ones((6, 8))[:, ::2]}[layout]
    w = np.ones((4, 3), np.float32)
    check(standardize_and_classify, x, w)
    with ft.FakeMode():
        out = standardize_and_classify(ft.to_fake(x), ft.to_fake(w))
    real = standardize_and_classify(x, w)
    assert [(o.shape, o.dtype, o.strides) for o in out] == \
        [(r.shape, r.dtype, r.strides) for r in real]


def test_compat_namespace_of_a_fake():
    """A CPU fake gets the namespace the real array gets (array-api-compat's wrapper, not
    NumPy itself), in a mode or not; a CUDA fake keeps ``__array_namespace__``."""
    real = np.zeros((2, 3))
    fake = ft.to_fake(real)
    assert aac.array_namespace(fake) is aac.array_namespace(real)
    assert aac.array_namespace(fake, real, 1.0) is aac.array_namespace(real)
    assert aac.is_numpy_array(fake) and aac.is_numpy_array(real)
    assert not aac.is_numpy_array(ft.empty((2,), device="cuda:0"))
    with ft.FakeMode():
        assert aac.array_namespace(np.ones(3)) is aac.array_namespace(real)
    with pytest.raises(TypeError):  # not an array: array-api-compat's own error
        aac.array_namespace([1, 2])


COMPAT_CALLS = {
    "sort-descending": lambda xp, x: xp.sort(x, descending=True),
    "sort-axis0-stable": lambda xp, x: xp.sort(x, axis=0, descending=True, stable=True),
    "argsort-descending": lambda xp, x: xp.argsort(x, descending=True),
    "clip": lambda xp, x: xp.clip(x, 0, 1),
    "clip-min": lambda xp, x: xp.clip(x, min=1),
    "clip-arrays": lambda xp, x: xp.clip(x, x, x),
    "finfo": lambda xp, x: xp.asarray(xp.finfo(x).eps),
    "iinfo": lambda xp, x: xp.asarray(xp.iinfo(xp.astype(x, xp.int16)).max),
    "astype": lambda xp, x: xp.astype(x, xp.float64),
    "std": lambda xp, x: xp.std(x, axis=-1, correction=1),
    "cumulative_sum": lambda xp, x: xp.cumulative_sum(x, axis=-1, include_initial=True),
    "reshape-copy": lambda xp, x: xp.reshape(x, (-1,), copy=True),
    "take-known": lambda xp, x: xp.take(xp.reshape(x, (-1,)), xp.asarray([0, 1, 5])),
    "take-out-of-range": lambda xp, x: xp.take(xp.reshape(x, (-1,)), xp.asarray([0, 6])),
    "matrix_norm": lambda xp, x: xp.linalg.matrix_norm(x),
    "vector_norm": lambda xp, x: xp.linalg.vector_norm(x, axis=-1, keepdims=True),
    "count_nonzero": lambda xp, x: xp.count_nonzero(x, axis=-1),
    "tril": lambda xp, x: xp.tril(x, k=-1),
}
COMPAT_INPUTS = {
    "C": lambda: np.arange(6, dtype=np.float32).reshape(2, 3),
    "T": lambda: np.arange(6, dtype=np.float32).reshape(3, 2).T,
    "neg": lambda: np.arange(12.0).reshape(2, 6)[:, ::-2],
    "F": lambda: np.asfortranarray(np.arange(6.0).reshape(2, 3)),
}


@pytest.mark.parametrize("inp", list(COMPAT_INPUTS))
@pytest.mark.parametrize("name", list(COMPAT_CALLS))
def test_compat_namespace_calls(name, inp):
    """array-api-compat's numpy functions on fakes, differential against the real arrays."""
    fn = COMPAT_CALLS[name]

    def call(x):  # the fakes' side in a mode: array-api-compat makes arrays with np.empty
        with ft.FakeMode() if ft.is_fake(x) else contextlib.nullcontext():
            return fn(aac.array_namespace(x), x)
    check(call, COMPAT_INPUTS[inp]())
