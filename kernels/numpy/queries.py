"""Metadata queries: functions whose answer is a plain value that depends only on the
shapes and dtypes of their array arguments (np.shape, np.ndim, np.size, np.result_type,
np.can_cast, ...).

Each is answered by the real NumPy function on stand-ins: real arrays with the fake's
shape and dtype whose strides are all 0, so they own one element whatever their shape.
Its errors are then NumPy's own. CuPy re-exports these from NumPy (cupy/__init__.py) or
follows the same rule, so CUDA fakes are answered the same way.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..._errors import DataDependentError
from ..._storage import SCALAR
from ...meta import as_number, is_fake
from ..registry import register, transient

_as_strided = np.lib.stride_tricks.as_strided


def stand_in(x: Any) -> Any:
    """A real array with x's shape and dtype and no data to speak of, its one element zero (a
    valid value of every dtype: 0 as an object); a fake Python number: a Python number of its
    type, weak in np.result_type; other values as they are."""
    if not is_fake(x):
        return x
    if x.pytype is not None:
        return as_number(x)
    one = np.zeros((1,), x.dtype) if x.dtype.itemsize else np.empty((0,), x.dtype)
    return _as_strided(one, shape=x.shape, strides=(0,) * len(x.shape), writeable=False)


def _stand_ins(x: Any) -> Any:
    """stand_in through nested lists and tuples (np.shape([[f], [g]]))."""
    if type(x) in (list, tuple):
        return type(x)(_stand_ins(v) for v in x)
    return stand_in(x)


def _ask_numpy(fn: Any):
    """A kernel that asks ``fn`` itself, with fakes replaced by stand-ins (one level of lists)."""
    def kernel(*args: Any, **kwargs: Any) -> Any:
        args = tuple(_stand_ins(a) for a in args)
        kwargs = {k: _stand_ins(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)
    kernel.__name__ = f"query_{fn.__name__}"
    kernel.__doc__ = f"np.{fn.__name__} from the arguments' shapes and dtypes."
    return kernel


def scalar_array_bytes(x: Any) -> int:
    """Bytes of the 0-d array ``PyArray_FROM_O`` makes of a Python or NumPy scalar argument
    (multiarraymodule.c: ``array_result_type`` converts each one and holds them all,
    ``array_min_scalar_type`` and ``array_can_cast_safely`` their one); 0 for anything else."""
    if is_fake(x):
        if x.pytype is not None:
            x = as_number(x)
        elif x.storage._tracker is SCALAR:
            return x.dtype.itemsize
        else:
            return 0
    if isinstance(x, (bool, int, float, complex, np.generic)):
        return max(np.asarray(x).nbytes, 1)
    return 0


def _converting(kernel: Any, which: Any) -> Any:
    """``kernel`` reporting the 0-d arrays its scalar arguments (``which(args)``) become."""
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        out = kernel(*args, **kwargs)
        transient(sum(scalar_array_bytes(a) for a in which(args, kwargs)))
        return out
    wrapped.__name__, wrapped.__doc__ = kernel.__name__, kernel.__doc__
    return wrapped


_CONVERTED = {np.result_type: lambda a, k: a,
              np.can_cast: lambda a, k: a[:1] if a else [k["from_"]] if "from_" in k else []}

for _fn in (np.shape, np.ndim, np.size, np.iscomplexobj, np.isrealobj, np.result_type,
            np.can_cast, np.common_type):
    _k = _ask_numpy(_fn)
    register(_fn, tags=("query",), name=_fn.__name__)(
        _converting(_k, _CONVERTED[_fn]) if _fn in _CONVERTED else _k)
del _fn, _k


@register(np.isfortran, tags=("query",))
def isfortran(a: Any) -> bool:
    """np.isfortran is ``a.flags.fnc``: F-contiguous and not C-contiguous (from the fake's own
    flags; a stand-in's zero strides would not keep its layout)."""
    if not is_fake(a):
        return np.isfortran(a)
    return bool(a.flags.f_contiguous and not a.flags.c_contiguous)


@register(np.min_scalar_type, tags=("query",))
def min_scalar_type(a: Any) -> np.dtype:
    """The dtype itself for arrays with dimensions; a 0-d array's answer depends on its value."""
    if is_fake(a) and not a.shape and a.dtype.kind in "biufc":
        raise DataDependentError("np.min_scalar_type of a 0-d array depends on its value")
    out = np.min_scalar_type(stand_in(a))
    transient(scalar_array_bytes(a))
    return out
