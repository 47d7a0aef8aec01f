"""WrappedArray: a real NumPy/CuPy array whose every operation goes through the dispatcher."""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ._array import ArrayHooks, FakeArray


class WrappedArray(ArrayHooks):
    """A real array in a wrapper: real kernels with no mode, fakes inside FakeMode."""

    __slots__ = ("_array", "__weakref__")
    _array: Any

    def __init__(self, array: Any) -> None:
        if isinstance(array, WrappedArray):
            array = array._array
        if type(array) is FakeArray or (not hasattr(array, "__array_namespace__")
                                        and not hasattr(array, "__cuda_array_interface__")):
            raise TypeError(f"ft.wrap expects a NumPy or CuPy array, got {type(array).__name__}")
        self._array = array

    @staticmethod
    def _hook_types(args: Any, kwargs: Any) -> tuple[type, ...]:
        if _has_fake(args) or (kwargs and _has_fake(kwargs.values())):
            return (WrappedArray, FakeArray)
        return _wrapped_types

    def __getattr__(self, name: str) -> Any:
        # shape, dtype, strides, flags, base, device, ... come from the real array
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._array, name)

    @property
    def T(self) -> Any:
        return self.transpose()

    @property
    def mT(self) -> Any:
        return ArrayHooks.__array_function__(self, np.matrix_transpose, self._hook_types((), None), (self,), {})

    @property
    def real(self) -> Any:
        return ArrayHooks.__array_function__(self, np.real, _wrapped_types, (self,), {})

    @property
    def imag(self) -> Any:
        return ArrayHooks.__array_function__(self, np.imag, _wrapped_types, (self,), {})

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.asarray(self._array, dtype=dtype) if copy is None else np.array(self._array, dtype=dtype, copy=copy)

    def __bool__(self) -> bool:
        return bool(self._array)

    def __float__(self) -> float:
        return float(self._array)

    def __int__(self) -> int:
        return int(self._array)

    def __complex__(self) -> complex:
        return complex(self._array)

    def __index__(self) -> int:
        return self._array.__index__()

    def item(self, *args: Any) -> Any:
        return self._array.item(*args)

    def tolist(self) -> Any:
        return self._array.tolist()

    def tobytes(self, order: str = "C") -> bytes:
        return self._array.tobytes(order)

    def __repr__(self) -> str:
        return f"WrappedArray({self._array!r})"

    def __str__(self) -> str:
        return str(self._array)


_wrapped_types = (WrappedArray,)


def _has_fake(seq: Iterable[Any]) -> bool:
    for x in seq:
        t = type(x)
        if t is FakeArray:
            return True
        if (t is tuple or t is list) and _has_fake(x):
            return True
    return False


def wrap(x: Any) -> WrappedArray:
    """Wrap a real NumPy or CuPy array."""
    return WrappedArray(x)


def unwrap(w: Any) -> Any:
    """The real array inside a WrappedArray (anything else is returned unchanged)."""
    return w._array if isinstance(w, WrappedArray) else w
