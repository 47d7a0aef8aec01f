"""Running an op on fakes (kernel lookup, input conversion, output construction) or for real."""
from __future__ import annotations

import weakref
from types import EllipsisType
from typing import Any, Callable

import numpy as np

from . import _dispatch
from ._array import FakeArray, make_fake
from ._errors import UnsupportedOperationError
from ._storage import FakeStorage
from ._wrapped import WrappedArray
from .kernels.layout import c_strides
from .kernels.registry import REGISTRY, Kernel, Out

_PLAIN = frozenset({int, float, complex, bool, str, type(None), slice, EllipsisType,
                    np.dtype, type})
_resolved: dict = {}


def resolve(func: Any) -> tuple[Kernel, tuple]:
    """The kernel for an intercepted callable and the arguments it is called with first."""
    try:
        return _resolved[func]
    except (KeyError, TypeError):
        pass
    entry = None
    prefix: tuple = ()
    if isinstance(func, np.ufunc):
        entry = REGISTRY.get("ufunc.__call__")
        prefix = (func,)
    else:
        owner = getattr(func, "__self__", None)
        if isinstance(owner, np.ufunc):
            entry = REGISTRY.get("ufunc." + func.__name__)
            prefix = (owner,)
        else:
            op_name = getattr(func, "op_name", None)
            if type(op_name) is str and type(func) is _dispatch.MethodOp:
                entry = REGISTRY.get(op_name)
            else:
                try:
                    entry = REGISTRY.get(func)
                except TypeError:
                    entry = None
                if entry is None:
                    inner = getattr(func, "__wrapped__", None)
                    if inner is not None:
                        entry = REGISTRY.get(inner)
    if entry is None:
        raise UnsupportedOperationError(func, "no kernel is registered for it yet")
    try:
        _resolved[func] = (entry, prefix)
    except TypeError:
        pass
    return entry, prefix


class LocalConverter:
    """Real -> fake conversion for one call outside any mode (memo shared within the call)."""

    __slots__ = ("memo",)

    def __init__(self) -> None:
        self.memo: dict = {}

    def to_fake(self, arr: Any) -> FakeArray:
        return fake_from_real(arr, self.memo)


def _root_of(arr: np.ndarray):
    """The array that owns arr's buffer, or the last array in arr's base chain."""
    root = arr
    while True:
        b = root.base
        if isinstance(b, np.ndarray):
            root = b
        else:
            return root, b


def fake_from_real(arr: Any, memo: dict, device: str | None = None) -> FakeArray:
    """A fake with arr's metadata, on the fake storage that stands for arr's buffer.

    ``memo`` maps id(root buffer owner) -> (owner, storage, start address); views of
    one real buffer become fakes on one storage with the right byte offsets.
    """
    if type(arr) is FakeArray:
        return arr
    if isinstance(arr, WrappedArray):
        arr = arr._array
    if not isinstance(arr, np.ndarray):
        conv = getattr(type(arr), "__module__", "").startswith("cupy")
        if conv:
            return _fake_from_cupy(arr, memo, device)
        raise TypeError(f"cannot convert {type(arr).__name__} to a fake array")
    root, owner_obj = _root_of(arr)
    key = id(owner_obj) if owner_obj is not None else id(root)
    entry = memo.get(key)
    if entry is None:
        start, nbytes = _buffer_range(root, owner_obj)
        storage = FakeStorage(nbytes, device or "cpu", _alignment_of(start))
        memo[key] = entry = (owner_obj if owner_obj is not None else root, storage, start, {})
    _, storage, start, fakes = entry
    addr = arr.__array_interface__["data"][0]
    offset = addr - start
    base = None
    if arr is not root or owner_obj is not None:
        if arr is root:
            base = storage  # a non-array base (bytes, mmap, ...): owndata False
        else:
            base = fakes.get(id(root))
            if base is None:
                base = fake_from_real(root, memo, device)
    f = make_fake(arr.shape, arr.dtype, arr.strides, storage, offset, base,
                  bool(arr.flags.writeable))
    if arr is root:
        fakes[id(root)] = f
    return f


def _alignment_of(addr: int) -> int:
    a = 1
    while a < 64 and addr % (a * 2) == 0:
        a *= 2
    return a


def _buffer_range(root: np.ndarray, owner_obj: Any) -> tuple[int, int]:
    addr = root.__array_interface__["data"][0]
    if owner_obj is not None:
        try:
            mv = memoryview(owner_obj)
            buf = np.frombuffer(mv, dtype=np.uint8) if mv.nbytes else None
            if buf is not None:
                bstart = buf.__array_interface__["data"][0]
                if bstart <= addr:
                    return bstart, mv.nbytes
        except (TypeError, ValueError, BufferError):
            pass
    lo = addr
    hi = addr
    if root.size:
        hi = addr + root.itemsize
        for n, s in zip(root.shape, root.strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
    return lo, hi - lo


def _fake_from_cupy(arr: Any, memo: dict, device: str | None) -> FakeArray:
    mem = arr.data.mem
    key = id(mem)
    entry = memo.get(key)
    if entry is None:
        storage = FakeStorage(mem.size, f"cuda:{arr.device.id}", 256)
        memo[key] = entry = (mem, storage, mem.ptr, {})
    _, storage, start, _ = entry
    offset = arr.data.ptr - start
    base = None if arr.base is None else storage
    return make_fake(arr.shape, arr.dtype, arr.strides, storage, offset, base, True)


def prepare(obj: Any, convert: Callable) -> Any:
    """Replace real arrays (also inside lists and tuples) by fakes through ``convert``."""
    t = type(obj)
    if t is FakeArray or t in _PLAIN:
        return obj
    if t is tuple or t is list:
        new = [prepare(x, convert) for x in obj]
        for a, b in zip(new, obj):
            if a is not b:
                return t(new)
        return obj
    if t is WrappedArray:
        return convert(obj._array)
    if isinstance(obj, np.ndarray) or (hasattr(obj, "__cuda_array_interface__")
                                       and t.__module__.startswith("cupy")):
        return convert(obj)
    return obj


def _first_device(args: tuple, kwargs: dict) -> str | None:
    for a in args:
        t = type(a)
        if t is FakeArray:
            return a.storage.device
        if t is list or t is tuple:
            for x in a:
                if type(x) is FakeArray:
                    return x.storage.device
    for a in kwargs.values():
        if type(a) is FakeArray:
            return a.storage.device
    return None


def realize(res: Any, device: str) -> Any:
    """Turn a kernel's result (Out specs, inputs returned as is, tuples) into fakes."""
    t = type(res)
    if t is Out:
        v = res.view_of
        if v is None:
            dev = res.device or device
            nbytes = _size(res.shape) * res.dtype.itemsize
            if res.base_shape is not None:
                storage = FakeStorage(nbytes, dev)
                base = make_fake(res.base_shape, res.dtype, c_strides(res.base_shape, res.dtype.itemsize), storage)
                return make_fake(res.shape, res.dtype, res.strides, storage, res.offset, base,
                                 res.writeable is not False)
            return make_fake(res.shape, res.dtype, res.strides, FakeStorage(nbytes, dev), res.offset,
                             None, res.writeable is not False)
        b = v._base
        base = v if (b is None or type(b) is not FakeArray) else b
        f = make_fake(res.shape, res.dtype, res.strides, v.storage, v.storage_offset + res.offset,
                      base, v._writeable and res.writeable is not False)
        if res.warn_on_write:
            f._warn_on_write = True
        elif res.writeable is False and res.warn_on_write is not None and v._warn_on_write:
            f._warn_on_write = True
        return f
    if t is FakeArray or res is None:
        return res
    if t is tuple or t is list:
        return t(realize(r, device) for r in res)
    return res


def _size(shape: tuple) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def run_fake(func: Any, args: tuple, kwargs: dict, convert: Callable | None = None,
             device: str | None = None) -> Any:
    """Run func's kernel on fakes; real arrays among the inputs go through ``convert``."""
    entry, prefix = resolve(func)
    if convert is None:
        convert = LocalConverter().to_fake
    args = prepare(args, convert)
    if kwargs:
        kwargs = {k: prepare(v, convert) for k, v in kwargs.items()}
    res = entry.fn(*prefix, *args, **kwargs)
    return realize(res, _first_device(args, kwargs) or device or "cpu")


def _unwrap_tree(obj: Any) -> Any:
    t = type(obj)
    if t is WrappedArray:
        return obj._array
    if t is tuple or t is list:
        new = [_unwrap_tree(x) for x in obj]
        return t(new)
    if t is dict:
        return {k: _unwrap_tree(v) for k, v in obj.items()}
    return obj


def rewrap(obj: Any) -> Any:
    """Wrap real arrays in a result (also inside tuples and lists)."""
    t = type(obj)
    if t is tuple or t is list:
        return t(rewrap(x) for x in obj)
    if isinstance(obj, np.ndarray) or (hasattr(obj, "__cuda_array_interface__")
                                       and t.__module__.startswith("cupy")):
        return WrappedArray(obj)
    return obj


def unwrap_call(func: Any, args: tuple, kwargs: dict) -> tuple:
    """func, args and kwargs with wrapped arrays replaced by the real ones."""
    args = tuple(a._array if type(a) is WrappedArray else _unwrap_tree(a) for a in args)
    if kwargs:
        kwargs = {k: _unwrap_tree(v) for k, v in kwargs.items()}
    inner = getattr(func, "__wrapped__", None)
    return (inner if inner is not None and not isinstance(func, _dispatch.MethodOp) else func), args, kwargs


def run_real(func: Any, args: tuple, kwargs: dict) -> Any:
    """Run the real NumPy/CuPy callable on unwrapped inputs and wrap what it returns.

    An output that is a real array passed in wrapped (``out=``, in-place operators)
    comes back as the caller's own wrapper.
    """
    f, rargs, rkwargs = unwrap_call(func, args, kwargs)
    out = f(*rargs, **rkwargs)
    if out is None or type(out) in _PLAIN:
        return out
    wrappers = {id(w._array): w for w in _wrappers_in((args, kwargs), [])} if kwargs else {}
    return _rewrap_known(out, wrappers)


def _wrappers_in(obj: Any, acc: list) -> list:
    t = type(obj)
    if t is WrappedArray:
        acc.append(obj)
    elif t is tuple or t is list:
        for x in obj:
            _wrappers_in(x, acc)
    elif t is dict:
        for x in obj.values():
            _wrappers_in(x, acc)
    return acc


def _rewrap_known(obj: Any, wrappers: dict) -> Any:
    t = type(obj)
    if t is tuple or t is list:
        return t(_rewrap_known(x, wrappers) for x in obj)
    if isinstance(obj, np.ndarray) or (hasattr(obj, "__cuda_array_interface__")
                                       and t.__module__.startswith("cupy")):
        w = wrappers.get(id(obj))
        return w if w is not None else WrappedArray(obj)
    return obj


def default_dispatch(func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    """No mode: fakes go to the kernels, wrapped arrays to the real library."""
    if FakeArray in types:
        return run_fake(func, args, kwargs)
    return run_real(func, args, kwargs)


_dispatch._DEFAULT[:] = [default_dispatch]
