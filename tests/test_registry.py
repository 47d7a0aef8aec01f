"""The kernel registry: one rule per (op, backend), a second one refused."""
import numpy as np
import pytest

import faketensor as ft
from faketensor.kernels import registry
from faketensor.kernels.registry import REGISTRY, DuplicateKernelError, lookup, register


def test_keys_are_op_and_backend():
    assert REGISTRY
    for key, kernel in REGISTRY.items():
        op, backend = key
        assert backend in registry.BACKENDS and kernel.backend == backend
        assert kernel.tags <= registry.TAGS


def test_a_second_rule_for_one_op_raises(monkeypatch):
    monkeypatch.setattr(registry, "REGISTRY", dict(REGISTRY))
    with pytest.raises(DuplicateKernelError, match="already has a numpy kernel"):
        registry.register("ufunc.reduce")(lambda *a: None)


def test_the_same_op_may_have_one_rule_per_backend(monkeypatch):
    monkeypatch.setattr(registry, "REGISTRY", {})
    registry.register("op.x")(lambda: 1)
    registry.register("op.x", backend="cupy")(lambda: 2)
    assert registry.lookup("op.x").fn() == 1 and registry.lookup("op.x", "cupy").fn() == 2
    with pytest.raises(ValueError, match="backend"):
        registry.register("op.y", backend="jax")


def test_unknown_tags_are_refused():
    with pytest.raises(ValueError, match="unknown kernel tags"):
        register("op.z", tags=("fast",))


def test_cacheable_follows_tags_and_backend():
    assert lookup(np.where).cacheable  # one rule for both forms, cached
    assert not lookup(np.nonzero).cacheable
    for kernel in REGISTRY.values():
        if kernel.backend == "cupy" or kernel.tags & registry.NOCACHE:
            assert not kernel.cacheable


def test_three_argument_where_is_cached():
    ft.clear_cache()
    with ft.FakeMode():
        c = np.ones((4, 5), bool)
        a = np.ones((4, 5))
        np.where(c, a, 0.0)
        before = ft.cache_info().hits
        np.where(c, a, 0.0)
        assert ft.cache_info().hits == before + 1
    with pytest.raises(TypeError):
        with ft.FakeMode():
            np.where(np.ones(3, bool), x=np.ones(3), y=np.ones(3))


def test_every_kernel_names_its_source():
    """``faketensor ops`` points at the line that defines each NumPy rule (a ``def`` or its
    decorators), never at an adapter's lambda. (CuPy's ufunc rules are made by one factory,
    kernels/cupy/core.py, whose line they name.)"""
    import linecache
    for (op, backend), kernel in REGISTRY.items():
        path, line = kernel.source.rsplit(":", 1)
        assert path.endswith(".py") and int(line) > 0
        if backend != "numpy":
            continue
        text = linecache.getline(path, int(line)).strip()
        assert text.startswith(("def ", "@")), (kernel.name, kernel.source, text)


def test_generator_methods_name_their_rules():
    normal = REGISTRY[("Generator.normal", "numpy")].source
    choice = REGISTRY[("Generator.choice", "numpy")].source
    assert "random.py" in normal and normal != choice
