"""Which backend's rule runs a call: the dispatcher's choice, made once per uncached call
(faketensor/_runner.py ``run_fake``). NumPy's rules are the registry's (op, "numpy")
entries; CuPy's are found by kernels/cupy/core.py ``cupy_rule`` on the current device."""
from __future__ import annotations

from typing import Any

from ._errors import UnsupportedOperationError
from .kernels.registry import Kernel


def run_rule(func: Any, entry: Kernel, prefix: tuple, args: tuple, kwargs: dict,
             device: str | None, on_cuda: bool) -> Any:
    """Run a call (real arrays already converted) by the rules of its backend.

    The one place the backend is decided: "cupy" when CUDA fakes are among the inputs
    (``on_cuda``) or func is a cupy op; then the (op, "cupy") rule ``cupy_rule`` finds runs
    on the current device (``device``, the mode's, unless ``cupy.cuda.Device`` chose one).
    Otherwise "numpy": ``entry`` with ``prefix``, the (op, "numpy") rule the runner resolved."""
    if entry.backend == "numpy" and not on_cuda:
        return entry.fn(*prefix, *args, **kwargs)
    # CuPy's rules, imported (and registered) here on the first such call: import faketensor
    # leaves them unloaded (issue 30)
    from .kernels.cupy.core import MODE_DEVICE, cupy_module, cupy_rule, is_cupy_op, load_cupy
    if not (on_cuda or is_cupy_op(func)):
        raise UnsupportedOperationError(func, "no kernel is registered for it yet")
    if cupy_module() is None:
        load_cupy()  # the first CUDA fake's op (a FakeMode on a CUDA device before cupy's import)
    kernel, args, kwargs = cupy_rule(func, args, kwargs)
    token = MODE_DEVICE.set(device) if device is not None and MODE_DEVICE.get() is None else None
    try:
        return kernel.fn(*args, **kwargs)
    finally:
        if token is not None:
            MODE_DEVICE.reset(token)
