"""What faketensor covers: every registered kernel (``faketensor ops``) and, for the public
callables of NumPy's and CuPy's namespaces, whether a call on fakes reaches a kernel
(``faketensor coverage``)."""
from __future__ import annotations

import importlib
import inspect
import os
from typing import Any, Iterator, NamedTuple

import numpy as np

from ..._flops import kernel_rule
from ..._runner import resolve
from ..._errors import UnsupportedOperationError
from ...kernels import load_all, registry as _registry
from ...kernels.registry import REGISTRY, Kernel
from ...modes.python_entry import PYTHON_ENTRIES

# the folder rules' files are named from: above kernels/ (the checkout, or the installed package)
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(_registry.__file__)))

NAMESPACES = {
    "numpy": ("numpy", "numpy.linalg", "numpy.fft", "numpy.random", "numpy.strings", "numpy.char"),
    "cupy": ("cupy", "cupy.linalg", "cupy.fft", "cupy.random"),
}
UFUNC_METHODS = ("__call__", "reduce", "accumulate", "reduceat", "outer", "at")


def op_label(op: Any, backend: str) -> str:
    """A readable, importable-looking name for a registry key."""
    if isinstance(op, str):
        if op.startswith(("Generator.", "RandomState.")):
            op = "random." + op
        return f"{backend}.{op}" if not op.startswith(backend + ".") else op
    if isinstance(op, np.ufunc) or type(op).__name__ == "ufunc":
        return f"{backend}.{op.__name__}"
    owner = getattr(op, "__self__", None)
    if owner is not None and not inspect.ismodule(owner):
        if isinstance(owner, np.random.RandomState):
            return f"numpy.random.{op.__name__}"
        return f"{type(owner).__module__}.{type(owner).__name__}.{op.__name__}"
    mod = getattr(op, "__module__", None) or backend
    return f"{mod}.{getattr(op, '__qualname__', getattr(op, '__name__', repr(op)))}"


def _source(kernel: Kernel) -> str:
    src = kernel.source
    path, _, line = src.rpartition(":")
    if path.startswith(_ROOT + os.sep):
        path = os.path.relpath(path, _ROOT)
    return f"{path}:{line}"


class OpRow(NamedTuple):
    op: str
    backend: str
    kernel: str
    source: str
    tags: tuple
    cacheable: bool
    flops: str | None  # the FLOP rule's name (its own, its NumPy namesake's or its tags'), or None


def _flop_rule_name(kernel: Kernel) -> str | None:
    rule = kernel_rule(kernel)[0]
    return None if rule is None else rule.__name__


def ops(backend: str | None = None) -> list[OpRow]:
    """One row per registered (op, backend), sorted by op name (every rule: NumPy's lazily
    loaded namespaces are loaded first, ``kernels.load_all``)."""
    load_all()
    rows = [OpRow(op_label(op, b), b, k.name, _source(k), tuple(sorted(k.tags)), k.cacheable,
                  _flop_rule_name(k))
            for (op, b), k in REGISTRY.items() if backend in (None, b)]
    return sorted(rows, key=lambda r: (r.backend, r.op))


class CoverageRow(NamedTuple):
    name: str
    status: str  # "kernel", "data-dependent", "unsupported" or "not dispatched"
    source: str


def public_callables(backend: str) -> Iterator[tuple[str, Any, Any]]:
    """(name, object, dispatch key) for the public callables of a backend's namespaces."""
    load_all()  # numpy.random's rules, which register when it loads
    for modname in NAMESPACES[backend]:
        try:
            mod = importlib.import_module(modname)
        except Exception:  # CuPy not installed (or no working CUDA runtime to import)
            return
        for name in sorted(dir(mod)):
            if name.startswith("_"):
                continue
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or inspect.isclass(obj) or not callable(obj):
                continue
            yield f"{modname}.{name}", obj, obj
    xp = importlib.import_module(backend)
    for name in sorted(dir(xp.ndarray)):
        if name.startswith("_") and name not in ("__getitem__", "__setitem__"):
            continue
        if callable(getattr(xp.ndarray, name, None)):
            yield f"{backend}.ndarray.{name}", None, f"ndarray.{name}"
    for meth in UFUNC_METHODS:
        yield f"{backend}.ufunc.{meth}", None, f"ufunc.{meth}"
    if backend == "numpy":
        for name in sorted(dir(np.random.Generator)):
            if not name.startswith("_") and callable(getattr(np.random.Generator, name)):
                yield f"numpy.random.Generator.{name}", None, f"Generator.{name}"


def kernel_for(obj: Any, key: Any, backend: str) -> Kernel | None:
    if obj is None:
        return REGISTRY.get((key, backend)) or REGISTRY.get((key, "numpy"))
    try:
        return resolve(obj)[0]
    except (UnsupportedOperationError, TypeError):
        return None


def is_dispatched(obj: Any) -> bool:
    """Whether NumPy hands a call with fake arguments to faketensor at all."""
    if obj is None or isinstance(obj, np.ufunc) or type(obj).__name__ == "ufunc":
        return True
    if type(obj).__name__ == "_ArrayFunctionDispatcher" or hasattr(obj, "__wrapped__"):
        return True
    return hasattr(obj, "_implementation")


def coverage(backend: str = "numpy") -> list[CoverageRow]:
    """The status of every public callable of ``backend``'s namespaces on fakes."""
    rows = []
    for name, obj, key in public_callables(backend):
        kernel = kernel_for(obj, key, backend)
        if kernel is not None:
            status = "data-dependent" if "data-dependent" in kernel.tags else "kernel"
            rows.append(CoverageRow(name, status, _source(kernel)))
        elif backend == "numpy" and name.startswith("numpy.") \
                and name[len("numpy."):] in PYTHON_ENTRIES:
            # NumPy's own Python run on fakes, each of its steps a kernel
            rows.append(CoverageRow(name, "kernel", "modes/python_entry.py"))
        else:
            rows.append(CoverageRow(name, "unsupported" if is_dispatched(obj) else "not dispatched",
                                    ""))
    return rows


def share(rows: list[CoverageRow]) -> dict:
    """Counts per status, and the share of dispatched callables that reach a kernel."""
    counts: dict = {}
    for r in rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    dispatched = sum(n for s, n in counts.items() if s != "not dispatched")
    covered = counts.get("kernel", 0) + counts.get("data-dependent", 0)
    return {"counts": counts, "dispatched": dispatched, "covered": covered,
            "share": covered / dispatched if dispatched else 0.0}
