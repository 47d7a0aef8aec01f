"""The exceptions faketensor raises on top of NumPy's own."""
from __future__ import annotations


class DataDependentError(RuntimeError):
    """An operation needs array values, which a fake array does not have."""


class UnsupportedOperationError(NotImplementedError):
    """No kernel can reproduce this operation's metadata exactly."""

    def __init__(self, func: object, reason: str = "") -> None:
        self.func = func
        name = op_name(func)
        msg = f"faketensor cannot run {name} on fake arrays"
        if reason:
            msg += f": {reason}"
        super().__init__(msg)


class MetadataMismatchError(AssertionError):
    """A fake result's metadata differs from the real library's result."""


def op_name(func: object) -> str:
    """A readable name for an intercepted callable: 'np.add', 'ndarray.sum', 'np.add.reduce'."""
    if isinstance(func, str):
        return func
    name = getattr(func, "op_name", None)
    if isinstance(name, str):
        return name
    owner = getattr(func, "__self__", None)
    fname = getattr(func, "__name__", None) or type(func).__name__
    mod = getattr(func, "__module__", None) or ""
    if owner is not None and not isinstance(owner, type) and hasattr(owner, "nin"):
        return f"np.{owner.__name__}.{fname}"  # ufunc method
    if type(owner).__name__ in ("RandomState", "Generator"):
        return f"np.random.{fname}" if type(owner).__name__ == "RandomState" else f"Generator.{fname}"
    if mod.startswith("cupy"):
        return f"cupy.{fname}"
    if mod.startswith("numpy") or hasattr(func, "nin"):
        sub = mod.split(".")[1] if "." in mod else ""
        if sub in ("random", "fft", "linalg") :
            return f"np.{sub}.{fname}"
        return f"np.{fname}"
    return fname
