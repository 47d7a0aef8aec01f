"""The kernel registry: one rule per (op, backend), a second one refused."""
import pathlib

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
            # a plain random draw is cached all the same: its result depends on its arguments
            assert kernel.cacheable == (kernel.backend == "numpy"
                                        and getattr(kernel.fn, "cache_draws", False))
    draws = [k.name for k in REGISTRY.values() if "random" in k.tags and k.cacheable]
    assert "np.random.standard_normal" in draws and "Generator.integers" in draws
    assert "Generator.shuffle" not in draws and "np.random.choice" not in draws


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


def test_generator_methods_name_their_rules():
    normal = REGISTRY[("Generator.normal", "numpy")].source
    choice = REGISTRY[("Generator.choice", "numpy")].source
    assert "random.py" in normal and normal != choice


def _rule_lines():
    """(op name, rule function, file, line) for every registered rule, CuPy's too when it imports."""
    import inspect

    from faketensor.kernels.cupy.core import load_cupy
    load_cupy()
    for (op, backend), k in REGISTRY.items():
        fn = inspect.unwrap(getattr(k.fn, "rule", k.fn))
        path, _, line = k.source.rpartition(":")
        name = (op if isinstance(op, str) else k.name).rpartition(".")[2]
        yield name.removeprefix("cupy_").removeprefix("np_"), fn, path, int(line)


def test_ops_gives_the_defining_line_of_every_rule():
    """``faketensor ops`` (Kernel.source): a rule of its own points at its ``def``; a rule a
    factory makes for several ops points at the line naming its op where the rules are
    described (the Generator draws at their entry in random.DISTRIBUTIONS, a loop's tuple,
    a table given to ``register_rules``), or at the factory when none names it (CuPy's
    ufuncs, made from CuPy's namespace)."""
    import re
    wrong = []
    named = 0
    for name, fn, path, line in _rule_lines():
        text = pathlib.Path(path).read_text().splitlines()
        names_op = re.search(r"\b" + re.escape(name) + r"\b", text[line - 1]) is not None
        if "<locals>" in fn.__qualname__ and line != fn.__code__.co_firstlineno:
            named += 1
            ok = names_op
        else:
            ok = line == fn.__code__.co_firstlineno
        if not ok:
            wrong.append(f"{name}: {path}:{line}: {text[line - 1].strip()}")
    assert not wrong, "\n".join(wrong)
    assert named >= 150  # factory-made rules at their own lines, not their factory's


def test_the_generator_draws_point_at_their_own_lines():
    by_name = {name: line for name, fn, path, line in _rule_lines() if path.endswith("random.py")
               and "numpy" in path}
    assert len({by_name[d] for d in ("normal", "beta", "gamma", "poisson", "zipf")}) == 5
