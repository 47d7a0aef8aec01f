"""The array API on fakes: ``__array_namespace__`` (and through it the inspection helpers
of ``__array_namespace_info__``), ``device``, ``to_device``, and code written against the
standard with array-api-compat, differential against real NumPy."""
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
        with pytest.raises(ft.DataDependentError):
            aac.array_namespace(fake).unique_values(fake)


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
