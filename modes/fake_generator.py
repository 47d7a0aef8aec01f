"""``FakeGenerator``: what ``np.random.default_rng`` returns inside a mode (modes/random_gen.py
says why). Imported once numpy.random is (modes/installer.py): the class derives from
``np.random.Generator``, which NumPy loads lazily, and its methods are those with a rule
(kernels/numpy/random.py, registered by then)."""
from __future__ import annotations

from typing import Any

import numpy as np
import numpy.random  # noqa: F401  (loaded already where the installer imports this module)

from .._array import FakeArray
from .._dispatch import STACK, dispatch, method_op
from .._stack import LIVE
from ..kernels.registry import REGISTRY


def _has_fake(args: tuple, kwargs: dict) -> bool:
    for a in args:
        if type(a) is FakeArray:
            return True
    for a in kwargs.values():
        if type(a) is FakeArray:
            return True
    return False


class FakeGenerator(np.random.Generator):
    """A real ``Generator``: real draws outside any mode, fakes (state untouched) inside one
    or whenever a fake is among the arguments (NumPy's C code would write into it)."""


def _gen_method(name: str):
    op = method_op(name, "Generator")
    real = getattr(np.random.Generator, name)

    def meth(self, *args, **kwargs):
        if LIVE and STACK.get():
            return dispatch(op, (), (self,) + args, kwargs)
        if _has_fake(args, kwargs):
            return dispatch(op, (FakeArray,), (self,) + args, kwargs)
        return real(self, *args, **kwargs)

    meth.__name__ = name
    meth.__qualname__ = f"FakeGenerator.{name}"
    meth.__doc__ = real.__doc__
    return meth


for _key, _backend in list(REGISTRY):
    if _backend == "numpy" and isinstance(_key, str) and _key.startswith("Generator."):
        _name = _key.split(".", 1)[1]
        setattr(FakeGenerator, _name, _gen_method(_name))


def default_rng(seed=None) -> FakeGenerator:
    """``np.random.default_rng`` inside a mode, and while a mode is paused (a library's
    import in a mode keeps a generator at module level): a FakeGenerator, on the same bit
    generator when given a Generator, a BitGenerator or a RandomState (as NumPy's own
    does). It draws for real wherever no mode is active and fakes, its state untouched,
    where one is."""
    if isinstance(seed, np.random.Generator):
        return seed if isinstance(seed, FakeGenerator) else FakeGenerator(seed.bit_generator)
    if isinstance(seed, np.random.BitGenerator):
        return FakeGenerator(seed)
    if isinstance(seed, np.random.RandomState):
        return FakeGenerator(seed._bit_generator)
    return FakeGenerator(np.random.PCG64(seed))
