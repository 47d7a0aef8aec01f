"""FLOPs of an intercepted call, from metadata: the rule of the kernel it reaches.

Each kernel's rule sits beside its ``register`` (``flops=``) or comes from its tags
(``kernels/registry.py FLOP_DEFAULTS``); the formulas are in ``kernels/flops.py`` and the
FLOPs table of docs/guide/flops.md. CuPy kernels share NumPy's rules: a CuPy kernel without a rule of its
own takes the one of the NumPy function of the same name (``cupy.linalg.svd`` ->
``numpy.linalg.svd``, ``cupy.add`` -> the ``np.add`` ufunc rule).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._bounded import BoundedCache
from ._errors import UnsupportedOperationError
from ._runner import resolve
from .kernels.registry import REGISTRY, Kernel, flop_rule, lookup

_rules = BoundedCache("flop rules", 96 * 1024)  # ~240 callables; within TOTAL_BUDGET


def _numpy_twin(kernel: Kernel) -> tuple[Callable | None, tuple]:
    """The FLOP rule (and the arguments it takes first) of the NumPy op a CuPy kernel mirrors,
    found by the kernel's name ("cupy.linalg.svd", "cupy.ndarray.sum", "cupy.ufunc.reduce")."""
    name = kernel.name[5:] if kernel.name.startswith("cupy.") else kernel.name
    twin = REGISTRY.get((name, "numpy"))
    if twin is not None:
        return flop_rule(twin), ()
    obj: Any = np
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None, ()
    if isinstance(obj, np.ufunc):
        return flop_rule(REGISTRY[("ufunc.__call__", "numpy")]), (obj,)
    twin = lookup(obj, "numpy")  # through NumPy's patched namespaces
    return (flop_rule(twin), ()) if twin is not None else (None, ())


def kernel_rule(kernel: Kernel) -> tuple[Callable | None, tuple]:
    """A kernel's FLOP rule: its own, else (CuPy) its NumPy namesake's, else its tags'
    default; with the arguments the rule takes before the call's own."""
    if kernel.backend != "numpy" and kernel.flops is None:
        rule, prefix = _numpy_twin(kernel)
        if rule is not None:
            return rule, prefix
    return flop_rule(kernel), ()


def rule_for(func: Any) -> tuple[Callable | None, tuple]:
    """(FLOP rule, arguments it takes before the call's own) for an intercepted callable;
    (None, ()) when no kernel is registered for it. Cached per callable."""
    try:
        return _rules[func]
    except (KeyError, TypeError):
        pass
    try:
        kernel, prefix = resolve(func)
    except UnsupportedOperationError:
        return None, ()
    rule, twin_prefix = kernel_rule(kernel)
    prefix = twin_prefix + prefix
    try:
        _rules[func] = (rule, prefix)
    except TypeError:
        pass
    return rule, prefix


def count_flops(func: Any, args: tuple, kwargs: dict, out: Any) -> int:
    """The FLOPs the real call ``func(*args, **kwargs)`` returning ``out`` would do.

    Read from metadata only (fakes, real arrays, scalars). A NumPy callable with no kernel
    of its own on CUDA fakes counts by the CuPy rule it reaches. Raises
    ``UnsupportedOperationError`` naming the function when no rule counts it."""
    try:
        rule, prefix = _rules[func]
    except (KeyError, TypeError):
        rule, prefix = rule_for(func)
    if rule is None:
        rule, args, kwargs = _cupy_fallback(func, args, kwargs)
        prefix = ()
    try:
        return rule(out, *prefix, *args, **kwargs)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError,
            ZeroDivisionError) as e:
        raise UnsupportedOperationError(func, f"its FLOP rule {rule.__name__} failed: {e}") from e


def _cupy_fallback(func: Any, args: tuple, kwargs: dict) -> tuple:
    """(rule, args, kwargs) of the CuPy rule a NumPy callable without a NumPy kernel reaches
    (its cupy counterpart, kernels/cupy/core.py ``cupy_rule``)."""
    from .kernels.cupy.core import cupy_rule
    try:
        kernel, args, kwargs = cupy_rule(func, args, kwargs)
    except Exception as e:  # CuPy refuses the call, or has no rule for it
        raise UnsupportedOperationError(func, "no FLOP rule is registered for it") from e
    rule, prefix = kernel_rule(kernel)
    if rule is None:
        raise UnsupportedOperationError(func, "no FLOP rule is registered for it")
    if prefix:
        args = prefix + tuple(args)
    return rule, args, kwargs
