"""Fake -> real: ``materialize`` makes real arrays with the fakes' exact layout and aliasing."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._array import FakeArray
from ..._errors import UnsupportedOperationError
from ...layout import extent
from ..._pytree import tree_leaves, tree_map

__all__ = ["materialize", "replay"]


class _Iface:
    """An ``__array_interface__`` over an owner's memory that keeps the owner alive."""

    def __init__(self, owner: np.ndarray, nbytes: int) -> None:
        self.owner = owner
        self.__array_interface__ = {
            "shape": (nbytes,), "typestr": "|u1", "version": 3, "strides": None,
            "data": (owner.__array_interface__["data"][0], False)}


def _dense_owner(f: FakeArray) -> bool:
    """True if f owns its whole storage densely, so it can be allocated as an owning array."""
    if f._base is not None or f.storage_offset != 0 or f.nbytes != f.storage.nbytes:
        return False
    lo, hi = extent(f.shape, f.strides, f.itemsize)
    return lo == 0 and hi == f.nbytes and all(s >= 0 for s in f.strides)


def _cupy(device: str) -> Any:
    try:
        import cupy
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # ImportError, CUDARuntimeError
        raise RuntimeError(f"cannot materialize a fake on {device}: CuPy with a CUDA device is "
                           f"needed ({type(e).__name__}: {e})") from None
    idx = int(device[5:])
    if idx >= n:
        raise RuntimeError(f"cannot materialize a fake on {device}: only {n} CUDA device(s)")
    return cupy, idx


def _fill_value(fill: Any, fake: FakeArray) -> Any:
    if fill == "ones":
        return 1
    if fill == "zeros":
        return 0
    return fill(fake)


def _numpy_group(fakes: list, fill: Any) -> list:
    """Real NumPy arrays for the fakes of one storage, all over one buffer."""
    nbytes = fakes[0].storage.nbytes
    owner_fake = next((f for f in fakes if _dense_owner(f)), None)
    if owner_fake is not None:  # allocate it as the owning array, the others view it
        owner = np.ndarray(owner_fake.shape, owner_fake.dtype, strides=owner_fake.strides)
        if fill == "zeros" and owner.size:
            owner[...] = 0
        flat = None if owner.dtype.hasobject else np.asarray(_Iface(owner, nbytes))
    else:
        owner = None
        flat = (np.zeros if fill == "zeros" else np.empty)(nbytes, np.uint8)
    out = []
    for f in fakes:
        if f is owner_fake:
            out.append(owner)
            continue
        if flat is None or f.dtype.hasobject:
            raise UnsupportedOperationError(
                "materialize", "object-dtype views cannot be built over a raw buffer")
        out.append(np.ndarray(f.shape, f.dtype, buffer=flat, offset=f.storage_offset,
                              strides=f.strides))
    return out


def _cupy_group(fakes: list, fill: Any) -> list:
    storage = fakes[0].storage
    cupy, idx = _cupy(storage.device)
    with cupy.cuda.Device(idx):
        buf = (cupy.zeros if fill == "zeros" else cupy.empty)(storage.nbytes, cupy.uint8)
        return [cupy.ndarray(f.shape, f.dtype, memptr=buf.data + f.storage_offset,
                             strides=f.strides) for f in fakes]


def materialize(obj: Any, *, fill: str | Callable = "empty", replay: bool = False,
                trace: Any = None) -> Any:
    """Real arrays for the fakes in obj (a fake or a pytree), with the same metadata.

    cpu fakes become NumPy arrays, ``cuda:N`` fakes CuPy arrays on that device. All fakes
    on one fake storage become views of one real buffer of the storage's size at the same
    byte offsets. ``fill``: "empty", "zeros", "ones", or a callable ``fill(fake)`` returning
    values for that array (applied in tree order). ``replay=True`` recomputes the values
    from ``trace`` (a ``FakeMode(record=True)``) instead: see ``replay``.
    """
    if replay:
        if trace is None:
            raise TypeError("materialize(replay=True) needs trace=<FakeMode(record=True)>")
        from .replay import replay as _replay
        return _replay(trace, obj)
    if not (fill in ("empty", "zeros", "ones") if isinstance(fill, str) else callable(fill)):
        raise ValueError(f"fill must be 'empty', 'zeros', 'ones' or a callable, got {fill!r}")
    fakes = [x for x in tree_leaves(obj) if type(x) is FakeArray]
    groups: dict[int, list] = {}
    order: list = []
    for f in fakes:
        g = groups.get(id(f.storage))
        if g is None:
            g = groups[id(f.storage)] = []
            order.append(f.storage)
        if not any(x is f for x in g):
            g.append(f)
    real: dict[int, Any] = {}
    for st in order:
        g = groups[id(st)]
        reals = (_numpy_group if st.device == "cpu" else _cupy_group)(g, fill)
        for f, r in zip(g, reals):
            real[id(f)] = r
    if fill not in ("empty", "zeros"):
        for f in fakes:
            r = real[id(f)]
            if r.size:
                r[...] = _fill_value(fill, f)
    for f in fakes:
        r = real[id(f)]
        if not f._writeable and isinstance(r, np.ndarray):
            r.flags.writeable = False
    return tree_map(lambda x: real[id(x)] if type(x) is FakeArray else x, obj)


def replay(trace: Any, obj: Any, **kw: Any) -> Any:
    """Recompute the fakes in obj for real from a recorded FakeMode (see ``meta_utils.convert.replay``)."""
    from .replay import replay as _replay
    return _replay(trace, obj, **kw)
