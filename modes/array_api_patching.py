"""array-api-compat given fakes: a CPU fake is the NumPy array it stands for.

``array_api_compat.array_namespace(x)`` and ``is_numpy_array(x)`` decide by the class of
``x`` (``issubclass(type(x), numpy.ndarray)``), which a fake does not pass: without this
patch a CPU fake got ``numpy`` itself (through ``__array_namespace__``), where the real array
gets ``array_api_compat.numpy``, whose functions differ (``sort(descending=True)``,
``clip`` of the standard, ``unique_*`` results). Both functions are wrapped so that a CPU
fake counts as an ndarray; the wrapped namespace's functions then run on fakes inside a
mode like any NumPy call. CUDA fakes keep their ``__array_namespace__`` (``cupy``).
Installed by the import hook once ``array_api_compat`` is imported (modes/patching.py);
the wrappers replace every binding of the originals in array-api-compat's loaded modules.
"""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable

import numpy as np

from .._array import FakeArray
from .._stack import paused

_NAMES = ("array_namespace", "is_numpy_array")
_STANDIN: list = []  # one real empty ndarray, made once with the mode paused


def _standin(x: Any) -> Any:
    """A real empty ndarray for a CPU fake (what array-api-compat's class tests see)."""
    if type(x) is FakeArray and x.storage.device == "cpu":
        if not _STANDIN:
            with paused():
                _STANDIN.append(np.empty(0))
        return _STANDIN[0]
    return x


def _wrap(name: str, fn: Callable) -> Callable:
    if name == "array_namespace":
        @functools.wraps(fn)
        def array_namespace(*xs: Any, **kwargs: Any) -> Any:
            return fn(*(_standin(x) for x in xs), **kwargs)
        wrapper = array_namespace
    else:
        @functools.wraps(fn)
        def is_numpy_array(x: Any) -> Any:
            return fn(_standin(x))
        wrapper = is_numpy_array
    setattr(wrapper, "_ft_array_api", True)  # marks a wrapper: install() runs once
    return wrapper


def install() -> None:
    """Wrap the class tests in every loaded module of array-api-compat (idempotent)."""
    helpers = sys.modules.get("array_api_compat.common._helpers")
    if helpers is None:
        return
    swaps = {}
    for name in _NAMES:
        fn = getattr(helpers, name, None)
        if fn is None or getattr(fn, "_ft_array_api", False):
            continue
        swaps[id(fn)] = _wrap(name, fn)
    if not swaps:
        return
    for modname, module in list(sys.modules.items()):
        if module is None or not (modname == "array_api_compat"
                                  or modname.startswith("array_api_compat.")):
            continue
        for attr, value in list(vars(module).items()):
            new = swaps.get(id(value))
            if new is not None:
                setattr(module, attr, new)
