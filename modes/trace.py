"""The trace of a recording FakeMode: one ``TraceEntry`` per op, and ``TraceIds``, which
gives every fake a recording mode sees a serial number, so that an entry keeps its
arguments with fakes replaced by ``TraceRef(serial)`` and the op graph survives the
fakes' death (meta_utils/convert/replay.py re-runs it)."""
from __future__ import annotations

import itertools
import sys
import threading
import weakref
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .._accel import CONFIGURE, IDS_BASE, SERIALS, TRACE_REF
from .._array import FakeArray
from .._storage import FakeStorage
from .._errors import op_name
from .._runner import PLAIN, resolve
from .._stack import paused


if TYPE_CHECKING or TRACE_REF is None:
    class TraceRef(int):
        """A recorded fake, by serial number, inside a trace entry's arguments (an int
        subclass, one per fake). With the compiled accelerator it is its static twin
        (``faketensor._speedups.TraceRef``), whose instances the garbage collector does not
        track."""

        __slots__ = ()

        @property
        def serial(self) -> int:
            return int(self)

        def __repr__(self) -> str:
            return f"TraceRef(serial={int(self)})"
else:
    TraceRef = TRACE_REF


SWEEP_MIN = 4096  # the id tables' rows before the first sweep of dead ones


# the compiled tables and ``ref`` / ``args_spec`` (faketensor/_speedups_record.c), or none
_IdsBase: Any = IDS_BASE if IDS_BASE is not None else object


class TraceIds(_IdsBase):
    """Serial numbers for the fakes (and their storages) a recording mode has seen.

    A fake (and a storage) keeps its serial of the first ids to see it on itself
    (``_trace_ids`` and ``_trace_ref`` / ``_trace_serial``); the ones another ids saw first go
    to tables keyed by ``id()``. ``weak`` holds a plain weak reference (no callback, so no
    object besides the one CPython shares) per fake serial, and per storage serial of the
    tables: a serial found in a table counts only while that reference still points at the
    object, and a table's dead rows are swept when it doubles. With the compiled accelerator
    the tables live in its base class and ``ref`` / ``args_spec`` are its methods;
    ``_py_ref`` / ``_py_args_spec`` are the pure-Python reference (and its fallback for
    anything unexpected).
    """

    def __init__(self) -> None:
        self._by_id: dict[int, TraceRef] = {}     # id(fake) -> its TraceRef
        self._storage_ids: dict[int, int] = {}    # id(storage) -> storage serial
        self.storage_of: dict[int, int] = {}      # fake serial -> storage serial
        self.weak: dict[int, Any] = {}            # fake or storage serial -> weak reference
        self.real_inputs: dict[int, Any] = {}     # fake serial -> the real array it came from
        self.generators: dict[int, tuple] = {}    # id(Generator) -> (generator, state at first use)
        self._twins: dict[int, tuple] = {}        # id(program's Generator) -> (weakref, twin)
        # next() is atomic: threads sharing a mode; the compiled ids read Serials in place
        self._count = SERIALS(1) if SERIALS is not None else itertools.count(1)
        self._sweep_at = SWEEP_MIN
        # threads sharing a mode: the tables change only under this lock (a sweep iterates
        # them; two threads meeting one new fake must give it one serial); lookups need none
        self._lock = threading.RLock()

    def _py_ref(self, fake: FakeArray) -> TraceRef:
        """The TraceRef of a fake (its serial assigned on first sight)."""
        r = self._known(fake)
        if r is not None:
            return r
        with self._lock:
            return self._new_ref(fake)

    def _known(self, fake: FakeArray) -> TraceRef | None:
        """The fake's TraceRef if it has one here: kept on the fake itself when these ids were
        the first to see it (``_trace_ids`` / ``_trace_ref``: set only on the fake numbered,
        never copied or pickled), else in ``_by_id``, where it counts only while the serial's
        weak reference points at this very fake (an id is reused once its object is gone)."""
        if type(fake) is FakeArray and getattr(fake, "_trace_ids", None) is self:
            return fake._trace_ref
        r = self._by_id.get(id(fake))
        if r is not None and self.weak[r]() is fake:
            return r
        return None

    def _new_ref(self, fake: FakeArray) -> TraceRef:
        """ref's miss path (under the lock): another thread may have just assigned it."""
        weak = self.weak
        r = self._known(fake)
        if r is not None:
            return r
        r = TraceRef(next(self._count))
        weak[r] = weakref.ref(fake)
        if type(fake) is FakeArray and getattr(fake, "_trace_ids", None) in (None, self):
            # the fake keeps its row
            object.__setattr__(fake, "_trace_ids", self)
            object.__setattr__(fake, "_trace_ref", r)
        else:  # seen first by another recording mode's ids
            self._by_id[id(fake)] = r
        st = fake.storage
        mine = type(st) is FakeStorage and getattr(st, "_trace_ids", None) in (None, self)
        if mine:  # the storage keeps its row on itself (no weak reference needed)
            s = st._trace_serial if st._trace_ids is self else None
            if s is None:
                s = next(self._count)
                st._trace_ids, st._trace_serial = self, s
        else:  # in the id table, checked by its weak reference
            s = self._storage_ids.get(id(st))
            if s is None or weak[s]() is not st:
                s = next(self._count)
                weak[s] = weakref.ref(st)
                self._storage_ids[id(st)] = s
        self.storage_of[r] = s
        if len(self._by_id) > self._sweep_at:
            self._sweep()
        return r

    def of(self, fake: FakeArray) -> int:
        """The serial number of a fake (assigned on first sight)."""
        return int(self.ref(fake))

    def get(self, fake: FakeArray) -> int | None:
        r = self._known(fake)
        return int(r) if r is not None else None

    def _sweep(self) -> None:
        weak = self.weak
        for table in (self._by_id, self._storage_ids):
            dead = [k for k, s in table.items() if weak[s]() is None]
            for k in dead:
                del table[k]
        self._sweep_at = max(SWEEP_MIN, 2 * len(self._by_id))

    def spec(self, obj: Any) -> Any:
        """obj with every fake replaced by its TraceRef; generators' states noted."""
        t = type(obj)
        if t is FakeArray:
            return self.ref(obj)
        if t in PLAIN:
            return obj
        if t is tuple or t is list:
            return t([self.spec(x) for x in obj])
        if t is dict:
            return {k: self.spec(v) for k, v in obj.items()} if obj else NO_KWARGS
        gen = getattr(sys.modules.get("numpy.random"), "Generator", None)  # loaded lazily
        if gen is not None and isinstance(obj, gen):
            return self._generator(obj)
        return obj

    def _generator(self, gen: Any) -> Any:
        """The generator a trace keeps for ``gen``: a twin on a copy of its bit generator in
        its state at first use, so the trace never keeps the program's generator alive (nor
        the seed pool a FakeMode charges for it as long as it lives)."""
        hit = self._twins.get(id(gen))
        if hit is not None and hit[0]() is gen:
            return hit[1]
        bg = gen.bit_generator
        state = bg.state
        ref: Any
        try:
            ref = weakref.ref(gen)
            with paused():
                twin_bg = type(bg)()
                twin_bg.state = state
                twin = np.random.Generator(twin_bg)
        except TypeError:  # a generator without weak references: kept as it is
            twin, ref = gen, (lambda: gen)
        self._twins[id(gen)] = (ref, twin)
        self.generators[id(twin)] = (twin, state)
        return twin

    def call_spec(self, args: tuple, kwargs: dict) -> tuple:
        """``spec((args, kwargs))`` with the common case inline: positional fakes and
        plain values, no keywords."""
        return (self.args_spec(args), self.spec(kwargs) if kwargs else NO_KWARGS)

    def kwargs_spec(self, kwargs: dict) -> dict:
        """``spec(kwargs)`` for a call's (non-empty) keywords, fakes and plain values inline."""
        out = {}
        for k, x in kwargs.items():
            t = type(x)
            if t is FakeArray:
                out[k] = self.ref(x)
            elif t in PLAIN:
                out[k] = x
            else:
                out[k] = self.spec(x)
        return out

    def _py_args_spec(self, args: tuple) -> tuple:
        """``spec(args)`` for a call's positional arguments, fakes and plain values inline."""
        out = []
        for x in args:
            t = type(x)
            if t is FakeArray:
                out.append(self.ref(x))
            elif t in PLAIN:
                out.append(x)
            else:
                out.append(self.spec(x))
        return tuple(out)

    if _IdsBase is object:  # no accelerator: the Python ones are the methods
        ref = _py_ref
        args_spec = _py_args_spec


if CONFIGURE is not None:
    CONFIGURE("ref_type", TraceRef)
    CONFIGURE("fake_type", FakeArray)
    CONFIGURE("storage_type", FakeStorage)
    CONFIGURE("plain", PLAIN)
    CONFIGURE("trace_globals", globals())  # SWEEP_MIN, read at each sweep as _sweep does

NO_KWARGS: dict = {}  # the spec of every call without keywords (never mutated)


_new = object.__new__


def refs_in(spec: Any, acc: list) -> list:
    """The serials of the TraceRefs in a spec, in order."""
    t = type(spec)
    if t is TraceRef:
        acc.append(int(spec))
    elif t is tuple or t is list:
        for x in spec:
            refs_in(x, acc)
    elif t is dict:
        for x in spec.values():
            refs_in(x, acc)
    return acc


def _weak(spec: Any, refs: dict) -> Any:
    t = type(spec)
    if t is TraceRef:
        return refs[spec]
    if t is tuple or t is list:
        return t(_weak(x, refs) for x in spec)
    if t is dict:
        return {k: _weak(v, refs) for k, v in spec.items()}
    return spec


class TraceEntry:
    """One recorded op. Fakes are held by weak reference only.

    Stored: ``func``, ``spec`` ((args, kwargs) with fakes as TraceRef), ``out_ids``
    (serials of the outputs), ``meta`` ((shape, dtype, strides,
    storage_offset, device) per output; ``spec``, ``out_ids`` and ``meta`` are kept without
    their outer tuples, the one output of most ops as itself, and rebuilt on reading: a trace
    of millions of ops holds three fewer objects per op for the garbage collector to visit),
    ``nbytes`` (bytes newly allocated),
    ``transient`` / ``scratch`` (bytes the real call allocates and frees before
    returning / C-heap scratch it holds), ``site`` (index into the mode's ``sites``:
    where the user's code called it), ``flops``. Derived on reading: ``op``, ``tags``,
    ``in_ids`` (serials of the array inputs, in order), ``inputs`` / ``outputs`` (weak references to the fakes), ``args`` / ``kwargs`` (weak
    references in place of fakes) and ``alias`` ("fresh" |
    ("view", i) | ("inplace", i) per output, from the serials and their storages).
    """

    __slots__ = ("func", "_args", "_kwargs", "_out", "_meta", "nbytes", "transient", "scratch",
                 "site", "flops", "_ids", "_alias", "_in_ids")

    def __init__(self, func: Any, spec: Any, out_ids: Sequence, meta: Sequence,
                 nbytes: int, transient: int, scratch: int, site: int, flops: int,
                 ids: TraceIds) -> None:
        self.func = func
        self._args, self._kwargs = spec
        self._in_ids: tuple | None = None
        if len(out_ids) == 1 and len(meta) == 1:  # one output: kept as itself
            self._out, self._meta = out_ids[0], meta[0]
        else:
            self._out, self._meta = tuple(out_ids), tuple(meta)
        self.nbytes = nbytes
        self.transient = transient
        self.scratch = scratch
        self.site = site
        self.flops = flops
        self._ids = ids
        self._alias: tuple | None = None

    @classmethod
    def one(cls, func: Any, args: tuple, kwargs: Any, out: "TraceRef", meta: tuple,
            nbytes: int, transient: int, scratch: int, site: int, flops: int,
            ids: TraceIds) -> "TraceEntry":
        """An entry of one output from its parts (args and kwargs specs, the output's
        TraceRef and meta tuple), as a recording mode makes most of them."""
        e = _new(cls)
        e.func = func
        e._args = args
        e._kwargs = kwargs
        e._out = out
        e._meta = meta
        e.nbytes = nbytes
        e.transient = transient
        e.scratch = scratch
        e.site = site
        e.flops = flops
        e._ids = ids
        e._alias = e._in_ids = None
        return e

    @property
    def spec(self) -> tuple:
        return (self._args, self._kwargs)

    @property
    def out_ids(self) -> tuple:
        o = self._out
        return (o,) if type(o) is TraceRef else o

    @property
    def meta(self) -> tuple:
        return (self._meta,) if type(self._out) is TraceRef else self._meta

    @meta.setter
    def meta(self, value: tuple) -> None:
        value = tuple(value)
        if type(self._out) is TraceRef:
            if len(value) == 1:
                self._meta = value[0]
                return
            self._out = (self._out,)
        self._meta = value

    @property
    def in_ids(self) -> tuple:
        if self._in_ids is None:
            self._in_ids = tuple(refs_in(self._kwargs, refs_in(self._args, [])))
        return self._in_ids

    @property
    def op(self) -> str:
        return op_name(self.func)

    @property
    def tags(self) -> frozenset:
        try:
            return resolve(self.func)[0].tags
        except Exception:
            return frozenset()

    @property
    def alias(self) -> tuple:
        if self._alias is None:
            st = self._ids.storage_of
            kinds: list = []
            for o in self.out_ids:
                kind: Any = "fresh"
                if o in self.in_ids:
                    kind = ("inplace", self.in_ids.index(o))
                else:
                    so = st.get(o)
                    for i, x in enumerate(self.in_ids):
                        if st.get(x) == so:
                            kind = ("view", i)
                            break
                kinds.append(kind)
            self._alias = tuple(kinds)
        return self._alias

    @alias.setter
    def alias(self, value: tuple) -> None:
        self._alias = value

    @property
    def inputs(self) -> tuple:
        return tuple(self._ids.weak[s] for s in self.in_ids)

    @property
    def outputs(self) -> tuple:
        return tuple(self._ids.weak[s] for s in self.out_ids)

    @property
    def args(self) -> tuple:
        return _weak(self._args, self._ids.weak)

    @property
    def kwargs(self) -> dict:
        return _weak(self._kwargs, self._ids.weak)

    def __repr__(self) -> str:
        return (f"TraceEntry({self.op}, in={self.in_ids}, out={self.out_ids}, "
                f"nbytes={self.nbytes})")


if CONFIGURE is not None:  # the compiled FakeMode._record builds entries as TraceEntry.one does
    CONFIGURE("entry_type", TraceEntry)
    CONFIGURE("no_kwargs", NO_KWARGS)
