"""``np.random.default_rng`` inside a mode: a real Generator whose draws become fakes in a mode."""
from __future__ import annotations

import numpy as np

from .._dispatch import _STACK, dispatch, method_op
from ..kernels.registry import REGISTRY


class FakeGenerator(np.random.Generator):
    """A real ``Generator``: real draws outside any mode, fakes (state untouched) inside one."""


def _gen_method(name: str):
    op = method_op(name, "Generator")
    real = getattr(np.random.Generator, name)

    def meth(self, *args, **kwargs):
        if _STACK.get():
            return dispatch(op, (), (self,) + args, kwargs)
        return real(self, *args, **kwargs)

    meth.__name__ = name
    meth.__doc__ = real.__doc__
    return meth


for _key in list(REGISTRY):
    if isinstance(_key, str) and _key.startswith("Generator."):
        _name = _key.split(".", 1)[1]
        setattr(FakeGenerator, _name, _gen_method(_name))


def default_rng(seed=None) -> FakeGenerator:
    """Like ``np.random.default_rng``, returning a FakeGenerator on the same bit generator."""
    if isinstance(seed, np.random.Generator):
        return FakeGenerator(seed.bit_generator)
    if isinstance(seed, np.random.BitGenerator):
        return FakeGenerator(seed)
    return FakeGenerator(np.random.PCG64(seed))
