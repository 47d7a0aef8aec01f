"""Recording ids for a FakeMode trace: every fake a recording mode sees gets a serial
number (``TraceIds``), and every entry keeps its arguments with fakes replaced by
``TraceRef(serial)``, so the op graph survives the fakes' death."""
from __future__ import annotations

import itertools
import weakref
from typing import Any, NamedTuple

import numpy as np

from .._array import FakeArray


class TraceRef(NamedTuple):
    """A recorded fake, by serial number, inside a trace entry's arguments."""

    serial: int


class TraceIds:
    """Serial numbers for the fakes (and their storages) a recording mode has seen."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple] = {}       # id(fake) -> (serial, weakref)
        self._storage_ids: dict[int, tuple] = {}  # id(storage) -> (serial, weakref)
        self.storage_of: dict[int, int] = {}      # fake serial -> storage serial
        self.real_inputs: dict[int, Any] = {}     # fake serial -> the real array it came from
        self.generators: dict[int, tuple] = {}    # id(Generator) -> (generator, state at first use)
        self._count = itertools.count(1)  # next() is atomic: threads sharing a mode

    def _serial(self, table: dict, obj: Any) -> int:
        hit = table.get(id(obj))
        if hit is not None and hit[1]() is obj:
            return hit[0]
        serial = next(self._count)
        key = id(obj)

        def died(ref, table=table, key=key):
            h = table.get(key)
            if h is not None and h[1] is ref:
                del table[key]

        table[key] = (serial, weakref.ref(obj, died))
        return serial

    def of(self, fake: FakeArray) -> int:
        """The serial number of a fake (assigned on first sight)."""
        s = self._serial(self._by_id, fake)
        if s not in self.storage_of:
            self.storage_of[s] = self._serial(self._storage_ids, fake.storage)
        return s

    def get(self, fake: FakeArray) -> int | None:
        hit = self._by_id.get(id(fake))
        return hit[0] if hit is not None and hit[1]() is fake else None

    def spec(self, obj: Any) -> Any:
        """obj with every fake replaced by its TraceRef; generators' states noted."""
        t = type(obj)
        if t is FakeArray:
            return TraceRef(self.of(obj))
        if t is tuple or t is list:
            return t(self.spec(x) for x in obj)
        if t is dict:
            return {k: self.spec(v) for k, v in obj.items()}
        if isinstance(obj, np.random.Generator) and id(obj) not in self.generators:
            self.generators[id(obj)] = (obj, obj.bit_generator.state)
        return obj
