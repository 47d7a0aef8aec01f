"""``FakeMode``: inside it NumPy (and CuPy) calls produce fakes, recorded if asked."""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from .._array import FakeArray
from .._errors import op_name
from .._runner import leaves, prepare_call, run_fake
from .._storage import parse_device
from ..meta_utils.convert import Converter
from ..meta_utils.replay import TraceIds
from .base import Mode
from .memory import EXTERNAL, MemoryStats
from .random_gen import default_rng
from .patching import patch_callable

import numpy as _np

_DEFAULT_RNG = patch_callable(_np.random.default_rng)


@dataclass
class TraceEntry:
    """One recorded op. Fakes are held by weak reference only."""

    op: str
    func: Any
    args: tuple
    kwargs: dict
    inputs: tuple           # weak references (or values) of the array inputs, in order
    outputs: tuple          # weak references to the fake outputs
    meta: tuple             # (shape, dtype, strides, storage_offset, device) per output
    alias: tuple            # "fresh" | ("view", i) | ("inplace", i) per output
    nbytes: int             # bytes newly allocated by this op
    tags: frozenset = field(default_factory=frozenset)
    in_ids: tuple = ()      # serial numbers (mode.ids) of the inputs, then of the outputs:
    out_ids: tuple = ()     # the op graph for replay survives the fakes' death
    spec: Any = None        # (args, kwargs) with fakes as meta_utils.replay.TraceRef(serial)


def _ref(x: Any) -> Any:
    if type(x) is FakeArray:
        return weakref.ref(x)
    if type(x) in (list, tuple):
        return type(x)(_ref(v) for v in x)
    if type(x) is dict:
        return {k: _ref(v) for k, v in x.items()}
    return x


def _is_fake(x: Any) -> bool:
    return type(x) is FakeArray


def _flat_fakes(obj: Any, acc: list) -> list:
    return leaves(obj, _is_fake, acc)


class FakeMode(Mode):
    """Factories, random functions, ``np.load`` and every op on fakes produce fakes.

    ``device`` is where factories put arrays; real arrays reaching the mode are
    converted through one memo (``allow_real_inputs=False`` raises instead);
    ``record=True`` keeps ``trace``. ``memory`` always counts live and peak bytes.
    """

    _is_fake_mode = True

    def __init__(self, *, device: Any = None, allow_real_inputs: bool = True,
                 record: bool = False) -> None:
        self.device = parse_device(device) if device is not None else None
        self.allow_real_inputs = allow_real_inputs
        self.record = record
        self.trace: list[TraceEntry] = []
        self.memory = MemoryStats()
        self.converter = Converter()
        self.ids = TraceIds()  # serial numbers of recorded fakes, real inputs (for replay)
        self._current: Any = None
        self._conv = self._convert

    @property
    def default_device(self) -> str:
        return self.device or "cpu"

    def _convert(self, x: Any) -> FakeArray:
        if not self.allow_real_inputs:
            raise TypeError(
                f"FakeMode(allow_real_inputs=False) got a real {type(x).__module__}."
                f"{type(x).__name__} as input to {op_name(self._current)}; convert it with "
                "ft.to_fake first")
        f = self.converter.to_fake(x)
        if f.storage._tracker is None:
            f.storage._tracker = EXTERNAL
        if self.record:
            self.ids.real_inputs[self.ids.of(f)] = x
        return f

    def __array_dispatch__(self, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
        self._current = func
        if func is _DEFAULT_RNG:
            return default_rng(*args, **kwargs)
        if self.record:  # the trace needs the converted arguments
            args, kwargs = prepare_call(func, args, kwargs, self._convert)
            out = run_fake(func, args, kwargs, self._convert, self.device or "cpu", prepared=True)
        else:
            out = run_fake(func, args, kwargs, self._conv, self.device or "cpu")
            if type(out) is FakeArray:
                st = out.storage
                if st._tracker is None:
                    self.memory._alloc(st)
                return out
        self._account(func, args, kwargs, out)
        return out

    def _account(self, func: Any, args: tuple, kwargs: dict, out: Any) -> None:
        outs = _flat_fakes(out, [])
        mem = self.memory
        nbytes = 0
        for o in outs:
            st = o.storage
            if st._tracker is None:
                nbytes += mem._alloc(st)
                b = o._base
                if type(b) is FakeArray and b.storage is st:
                    pass
        if not self.record:
            return
        ins = _flat_fakes((args, kwargs), [])
        alias = []
        meta = []
        for o in outs:
            kind: Any = "fresh"
            for i, x in enumerate(ins):
                if o is x:
                    kind = ("inplace", i)
                    break
            else:
                for i, x in enumerate(ins):
                    if o.storage is x.storage:
                        kind = ("view", i)
                        break
            alias.append(kind)
            meta.append((o.shape, o.dtype, o.strides, o.storage_offset, o.storage.device))
        from .._runner import resolve
        try:
            tags = resolve(func)[0].tags
        except Exception:
            tags = frozenset()
        self.trace.append(TraceEntry(
            op_name(func), func, _ref(args), _ref(kwargs),
            tuple(weakref.ref(x) for x in ins), tuple(weakref.ref(o) for o in outs),
            tuple(meta), tuple(alias), nbytes, tags,
            tuple(self.ids.of(x) for x in ins), tuple(self.ids.of(o) for o in outs),
            self.ids.spec((args, kwargs))))
