"""``FakeMode``: inside it NumPy (and CuPy) calls produce fakes, recorded if asked."""
from __future__ import annotations

import sys
import weakref
from typing import TYPE_CHECKING, Any, NamedTuple, cast

if TYPE_CHECKING:
    from typing_extensions import Self

from .._array import KERNEL_PLACEHOLDERS, FakeArray, PlaceholderLog
from .._sizes import POLICY, SizePolicy
from .._sinks import SinkLog
from .._errors import op_name
from .._cache import FreshOut
from .._runner import first_device, leaves, prepare_call, quick_hit, run_fake
from .._storage import parse_device
from .._convert import Converter
from .._flops import count_flops
from .._accel import CONFIGURE, PATCH, RECORD_METHOD, RECORD_STATE, SITE_HERE
from .sites import RECORD_DEPTH, Sites
from .trace import NO_KWARGS, TraceEntry, TraceIds
from .findings import scan as _scan_findings
from .base import Mode
from .._dispatch import STACK, MethodOp, mode_stack
from .._storage import MAPPED, PREEXISTING, FakeStorage
from .memory import Ledger, MemoryStats, RecordingStats, charged_bytes
from .random_gen import fake_mode_entered, fake_mode_exited
from .gc_cadence import recording_entered, recording_exited
from .io import IOLog, WRITERS, reading as _reading, write as _write
from .loading import NOT_PICKLED, buffer_view, exported_array, pickled_load
from .patching import patch_callable
from ..kernels.registry import ASSUMED, CALL, UNMODELLED, Costs

import numpy as _np

_DEFAULT_RNG: Any = None  # np.random's patched default_rng, once numpy.random is loaded
_NP_LOADS = (_np.load, patch_callable(_np.load))  # as called, and as the mode receives it
_FROMBUFFER = (_np.frombuffer, patch_callable(_np.frombuffer))
_FROM_EXPORTERS = tuple(f for name in ("asarray", "asanyarray", "array", "ascontiguousarray")
                           for f in (getattr(_np, name), patch_callable(getattr(_np, name))))
_one_entry = TraceEntry.one
# Sites.here's depth from ``quick_call``: here <- _record <- quick_call <- dispatch <-
# the hook, three frames fewer than _run_op's path and one more
QUICK_DEPTH = RECORD_DEPTH - 2
# the callables a mode answers itself (``FakeMode._special``), tested with one probe per call
_SPECIAL = set((*WRITERS, *_FROM_EXPORTERS, *_FROMBUFFER, *_NP_LOADS))


def random_imported() -> None:
    """numpy.random is loaded (NumPy imports it lazily; modes/installer.py calls this then):
    the mode answers its patched ``default_rng`` itself from now on."""
    global _DEFAULT_RNG
    import numpy.random  # noqa: F401  (loaded already)
    rng = patch_callable(sys.modules["numpy.random._generator"].default_rng)
    _SPECIAL.add(rng)
    _DEFAULT_RNG = rng


class _Ordinary(NamedTuple):
    """A special callable's call that runs as any other, with these arguments."""

    args: tuple
    kwargs: dict

# The recording modes alive, so that ``ft.explain(x)`` finds the trace that made ``x`` after
# its ``with`` block has ended (meta_utils/planner/explain.py); nothing is added per op. A fake made
# in a recording mode keeps what explain needs of it alive: its storage's tracker is
# ``mode.memory``, which holds the mode's ``Recording`` (``memory.mode``).
RECORDING: "weakref.WeakSet[FakeMode]" = weakref.WeakSet()


class Recording:
    """What ``ft.explain`` reads of a recording mode (its trace, serials and call sites), held
    by the mode's memory tracker: a fake keeps it alive through its buffer, and no reference
    cycle runs through the mode, so a finished mode is freed at once as before."""

    __slots__ = ("trace", "ids", "sites", "__weakref__")
    record = True

    def __init__(self, trace: list, ids: TraceIds, sites: Sites) -> None:
        self.trace, self.ids, self.sites = trace, ids, sites


_StateBase: Any = RECORD_STATE if RECORD_STATE is not None else object


class RecordState(_StateBase):
    """A FakeMode's per-op bookkeeping in one record, which the compiled recording path reads
    at fixed offsets (faketensor/_speedups_record.c): the mode's ``ids``, memory ``stats``,
    ``sites``, ``trace`` and ``findings``, the recorded ops' ``flops`` together, whether to
    ``find``, whether ``quick_call`` answers (``quick``) and the ``ledger`` charged. The mode's
    ``flops``, ``find``, ``_quick_records`` and ``_ledger`` are read and set here."""

    __slots__ = () if _StateBase is not object else (
        "ids", "stats", "sites", "trace", "findings", "flops", "find", "quick", "ledger")


def _is_fake(x: Any) -> bool:
    return type(x) is FakeArray


def _flat_fakes(obj: Any, acc: list) -> list:
    return leaves(obj, _is_fake, acc)


class FakeMode(Mode):
    """Factories, random functions, ``np.load`` and every op on fakes produce fakes.

    ``device`` is where factories put arrays; real arrays reaching the mode are
    converted through one memo (``allow_real_inputs=False`` raises instead);
    ``record=True`` keeps ``trace`` (each op's source line in ``sites``, its FLOPs in
    ``flops``) and the memory event log the report reads, and ``findings``: the upcasts and
    hidden copies seen (modes/findings.py). ``memory`` always counts live and peak bytes.
    ``data_dependent`` is what reading a value does (``bool(x)``, ``x.item()``, ``float(x)``,
    ...): ``"stop"`` raises DataDependentError, ``"placeholder"`` returns the value of an
    all-zero array and lists the use in ``placeholders`` (faketensor/_array.py FakeArray._value).
    ``skip_sinks=True`` (every plan): a value that only goes to output (formatting, logging,
    plotting with matplotlib) renders a marker or is skipped, and the use is listed in
    ``sinks`` (faketensor/_sinks.py, modes/matplotlib_patching.py); otherwise it raises.
    """

    _is_fake_mode = True
    # the mode's RecordState: a slot, which the compiled recording path reads at its offset
    # (a FakeMode keeps its other attributes in its __dict__)
    __slots__ = ("_state",)

    @property
    def flops(self) -> int:
        """FLOPs of the recorded ops together."""
        return self._state.flops

    @flops.setter
    def flops(self, value: int) -> None:
        self._state.flops = value

    @property
    def find(self) -> bool:
        """Whether recorded ops are scanned for findings (off: the benchmark's baseline)."""
        return self._state.find

    @find.setter
    def find(self, value: bool) -> None:
        self._state.find = value

    @property
    def _quick_records(self) -> bool:
        """Set on entering: calls the kernel cache answers skip _run_op (quick_call)."""
        return self._state.quick

    @_quick_records.setter
    def _quick_records(self, value: bool) -> None:
        self._state.quick = value

    @property
    def _ledger(self) -> Any:
        """What new storages are charged to: the mode's stats, and those of the FakeModes it is
        nested in (set on entering)."""
        return self._state.ledger

    @_ledger.setter
    def _ledger(self, value: Any) -> None:
        self._state.ledger = value

    def __init__(self, *, device: Any = None, allow_real_inputs: bool = True,
                 record: bool = False, data_dependent: str = "stop",
                 skip_sinks: bool = False, sizes: SizePolicy | None = None) -> None:
        if data_dependent not in ("stop", "placeholder"):
            raise ValueError(f"data_dependent must be 'stop' or 'placeholder', not {data_dependent!r}")
        self._state = RecordState()
        self.data_dependent = data_dependent
        #: which value each data-dependent length takes (faketensor/_sizes.py); ``sizes.made``
        #: lists the bounded sizes the program made
        self.sizes = sizes if sizes is not None else SizePolicy()
        self.placeholders = PlaceholderLog()
        self.skip_sinks = bool(skip_sinks)
        self.sinks = SinkLog()  # values sent to output and skipped: faketensor/_sinks.py
        self.io = IOLog()  # files written (or that would be): modes/io.py
        self.device = parse_device(device) if device is not None else None
        self.allow_real_inputs = allow_real_inputs
        self.record = record
        self.trace: list[TraceEntry] = []
        self.memory: MemoryStats = RecordingStats(self.trace) if record else MemoryStats()
        self.sites = Sites()  # the user call stack of each recorded op (TraceEntry.site)
        self.flops = 0
        self.flops_uncounted: dict = {}  # op name -> why its FLOP rule failed (not in flops)
        # op name -> [why, calls]: calls whose bytes besides their outputs are not modelled
        # (registry.unmodelled): the peak may be too low there
        self.memory_unmodelled: dict = {}
        self.findings: list = []  # findings.Finding rows, in program order (record=True)
        self.find = True
        self.findings_failed: dict = {}  # op name -> why scanning it failed (none expected)
        self._ledger = self.memory
        self._quick_records = False
        # a planner's mode (meta_utils/planner/plan.py) stands for the real machine: a FakeMode the
        # program enters itself allocates nothing there, so it is not charged, only counted
        self.planning = False
        self.program_modes = 0
        self._nested = False  # entered inside another FakeMode
        self.converter = Converter()
        self.ids = TraceIds()  # serial numbers of recorded fakes, real inputs (for replay)
        self._current: Any = None
        st = self._state
        st.ids, st.stats, st.sites, st.trace, st.findings = (self.ids, self.memory, self.sites,
                                                             self.trace, self.findings)
        if record:
            RECORDING.add(self)
            cast(RecordingStats, self.memory).mode = Recording(self.trace, self.ids, self.sites)

    @property
    def default_device(self) -> str:
        return self.device or "cpu"

    def __enter__(self) -> Self:
        enclosing = [m for m in mode_stack() if isinstance(m, FakeMode) and m is not self]
        for m in enclosing:
            if m.planning:
                m.program_modes += 1
        outer = tuple(m.memory for m in enclosing if not m.planning)
        self._ledger = Ledger((self.memory,) + outer) if outer else self.memory
        self._nested = bool(enclosing)
        # calls a kernel-cache hit answers completely skip the mode's own path (_dispatch)
        quick = self.data_dependent != "placeholder" and self.device is None
        self.quick_ledger = self._ledger if quick and not self.record else None
        self._quick_records = quick and self.record  # FakeMode.quick_call answers
        recording = bool(self.record)  # what the matching exit undoes, whatever record is then
        self.__dict__.setdefault("_size_tokens", []).append(
            (POLICY.get(), POLICY.set(self.sizes), recording))
        super().__enter__()
        fake_mode_entered()  # numpy.random's C code refuses to draw (modes/random_gen.py)
        if recording:  # the trace's untracked objects do not hasten the collector
            recording_entered()
        return self

    def __exit__(self, *exc: Any) -> None:
        super().__exit__(*exc)
        before, token, recording = self.__dict__["_size_tokens"].pop()
        try:
            POLICY.reset(token)
        except ValueError:  # left in another context (a mode shared by threads)
            POLICY.set(before)
        fake_mode_exited()
        if recording:
            recording_exited()

    def _charge(self, storage: Any) -> None:
        """Charge a storage made in this mode outside any kernel (see _dispatch.claim)."""
        self._ledger._alloc(storage)

    def _convert(self, x: Any) -> FakeArray:
        if not self.allow_real_inputs:
            raise TypeError(
                f"FakeMode(allow_real_inputs=False) got a real {type(x).__module__}."
                f"{type(x).__name__} as input to {op_name(self._current)}; convert it with "
                "ft.to_fake first")
        f = self.converter.to_fake(x)
        st = f.storage
        if st._tracker is None or st._tracker is PREEXISTING:
            st._tracker = PREEXISTING
            self._ledger._preexisting(st)
        if self.record:
            if getattr(x, "_ft_bytes", None) is not None:
                # a numpy.ma fill value holding a charged fake of its size (masked.HeldValue):
                # replay needs its value only, and holding it would keep the fake alive
                x = x.view(_np.ndarray).copy()
            self.ids.real_inputs[self.ids.of(f)] = x
        return f

    def __array_dispatch__(self, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
        if self._nested:  # kernels' own NumPy calls see no mode (not the enclosing ones)
            token = STACK.set(())
            try:
                return self._run(func, types, args, kwargs)
            finally:
                STACK.reset(token)
        return self._run(func, types, args, kwargs)

    def _run(self, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
        self._current = func
        if func in _SPECIAL:  # one probe: the few callables the mode answers itself
            got = self._special(func, args, kwargs)
            if type(got) is not _Ordinary:
                return got
            args, kwargs = got.args, got.kwargs
        if self.data_dependent == "placeholder":
            CALL.placeholders = True
            token = KERNEL_PLACEHOLDERS.set(self)
            try:
                return self._run_op(func, args, kwargs)
            finally:
                KERNEL_PLACEHOLDERS.reset(token)
        CALL.placeholders = False
        return self._run_op(func, args, kwargs)

    def _special(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """The answer to a callable in ``_SPECIAL``, or ``_Ordinary(args, kwargs)`` for the
        call to run as any other (its arguments possibly rewritten)."""
        if func is _DEFAULT_RNG:
            return self._default_rng(*args, **kwargs)
        if func in WRITERS:
            return _write(self.io, func, args, kwargs)
        if func in _FROM_EXPORTERS:  # an image's exported memory (modes/loading.py)
            got = exported_array(self, func, args, kwargs)
            if got is not None:
                return got
        if func in _FROMBUFFER:  # a view of a real buffer's memory (modes/loading.py)
            view = buffer_view(self, args, kwargs)
            if view is not None:
                return view
        if func in _NP_LOADS:  # a pickle the program allows to be unpickled (modes/loading.py)
            got = pickled_load(self, args, kwargs)
            if got is not NOT_PICKLED:
                return got
            if self.io.unwritten:  # a file this mode declined to write
                args, kwargs = _reading(self.io, args, kwargs)
        return _Ordinary(args, kwargs)

    def _run_op(self, func: Any, args: tuple, kwargs: dict) -> Any:
        costs: list = []
        record = self.record
        if record:  # the trace needs the converted arguments
            args, kwargs = prepare_call(func, args, kwargs, self._convert)
            used: list | None = []  # the kernel-cache entry the call used, which keeps its FLOPs
            out = run_fake(func, args, kwargs, self._convert, self.device or "cpu", True, costs,
                           used)
        else:
            out = run_fake(func, args, kwargs, self._convert, self.device or "cpu", False, costs)
            used = None
        if not costs and type(out) is FakeArray:  # the common case of _account, inlined
            st = out.storage
            nbytes = 0
            if st._tracker is None:
                nbytes = self._ledger._alloc(st)
            elif st._tracker is MAPPED:
                self._ledger._preexisting(st)
            if record:
                self._record(func, args, kwargs, out, [out], nbytes, None, RECORD_DEPTH, used)
            return out
        self._account(func, args, kwargs, out, costs[0] if costs else None, used)
        return out

    def quick_call(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """A recording mode's quick answer (faketensor/_dispatch.py): a call the kernel cache
        answers completely (faketensor/_runner.py ``quick_hit``), charged and recorded as
        ``_run_op`` would; None for any other call, which then takes the mode's own path.
        (A method, not a bound method kept on the mode: no reference cycle through it.)"""
        if not self._quick_records:
            return None
        used: list = []
        out = quick_hit(func, args, kwargs, self._ledger, used)
        if out is None:
            return None
        hit = used[0]
        nbytes = charged_bytes(out.storage) if type(hit.template) is FreshOut else 0
        self._record(func, args, kwargs, out, [out], nbytes, hit.costs, QUICK_DEPTH, used)
        return out

    def _default_rng(self, seed: Any = None) -> Any:
        """A FakeGenerator; seeding a new one costs what NumPy's does: the SeedSequence's
        entropy pool (uint32[4], numpy/random/bit_generator.pyx) lives as long as the
        generator, and mixing the entropy peaks 96 bytes above it."""
        from .fake_generator import default_rng  # loaded with numpy.random
        gen = default_rng(seed)
        if gen.bit_generator is not getattr(seed, "bit_generator", seed) and not isinstance(
                seed, (_np.random.BitGenerator, _np.random.RandomState)):
            pool = FakeStorage(16, "cpu")
            self._ledger._alloc(pool)
            self._ledger._transient("cpu", 96)
            setattr(gen, "_fake_pool", pool)  # the pool lives as long as the generator
        return gen

    def _account(self, func: Any, args: tuple, kwargs: dict, out: Any, costs: Any,
                 used: list | None = None) -> None:
        """Charge an op's new storages, its transient and scratch bytes; record it if asked."""
        outs = [out] if type(out) is FakeArray else _flat_fakes(out, [])
        ledger = self._ledger
        dev = None
        if costs is not None:
            dev = outs[0].storage.device if outs else (
                first_device(args, kwargs) or self.device or "cpu")
            if costs.early:  # before the outputs exist
                ledger._transient(dev, costs.early)
        nbytes = 0
        for o in outs:
            st = o.storage
            if st._tracker is None:
                nbytes += ledger._alloc(st)
            elif st._tracker is MAPPED:
                ledger._preexisting(st)
        if costs is not None:
            if costs.transient:
                ledger._transient(dev, costs.transient)
            if costs.scratch:
                ledger._scratch(dev, costs.scratch)
            if costs.notes:
                self._unmodelled(func, costs.notes)
        if self.record:
            self._record(func, args, kwargs, out, outs, nbytes, costs, RECORD_DEPTH + 1, used)

    def _unmodelled(self, func: Any, notes: tuple) -> None:
        """Count a call whose kernel flagged its memory as not modelled (by public name:
        ``scipy.linalg.expm``)."""
        for kind, why in notes:
            if kind == ASSUMED:  # registry.assume: listed as a placeholder
                self.placeholders.add(why)
            elif kind == UNMODELLED:
                name = op_name(func)
                mod = (getattr(func, "__module__", None) or "").split(".")
                if mod[0] == "scipy" and len(mod) > 1 and "." not in name:
                    name = f"scipy.{mod[1]}.{name}"
                row = self.memory_unmodelled.setdefault(name, [why, 0])
                row[1] += 1

    def _record(self, func: Any, args: tuple, kwargs: dict, out: Any, outs: list,
                nbytes: int, costs: Any, depth: int, used: list | None = None) -> None:
        """Append the op's TraceEntry: one walk over the arguments gives the inputs and
        the spec; aliasing, name and tags are derived when read (modes/trace.py). The
        user's frame is looked for from ``depth`` frames up (sites.RECORD_DEPTH).
        ``used``: the kernel-cache entry of the call, if any; its FLOP count and findings
        are functions of the signature, worked out once per entry and read from it
        afterwards (findings then take this call's line)."""
        ids = self.ids
        args_spec = ids.args_spec(args)
        kwargs_spec = ids.kwargs_spec(kwargs) if kwargs else NO_KWARGS
        entry = used[0] if used else None
        flops = entry.flops if entry is not None else None
        if flops is None:
            flops = self._first_flops(func, args, kwargs, out, entry)
        self._state.flops += flops  # on the record itself: no property call between the read
        # and the write, so threads sharing the mode lose no update (as the compiled path)
        stats: Any = self.memory  # a RecordingStats (record=True)
        if stats._pos != len(stats.log):  # stats.rose(), inlined: the fold after each op
            stats._fold()
        whole = stats.rising  # this op may be the peak: keep its whole call stack
        if whole:
            stats.rising = False
        if whole or SITE_HERE is None:
            site = self.sites.here(whole, depth)
        else:  # the innermost user frame's, in C (Sites.here's common path)
            site = SITE_HERE(self.sites, depth)
        if self.find:
            found = entry.findings if entry is not None else None
            if found is None:
                self._first_findings(func, args, kwargs, outs, costs, site, entry)
            elif found:
                self.findings.extend(f._replace(site=site) for f in found)
        if len(outs) == 1:
            o = outs[0]
            self.trace.append(_one_entry(
                func, args_spec, kwargs_spec, ids.ref(o),
                (o.shape, o.dtype, o.strides, o.storage_offset, o.storage.device), nbytes,
                costs.transient if costs is not None else 0, costs.scratch if costs is not None else 0,
                site, flops, ids))
            return
        self.trace.append(TraceEntry(
            func, (args_spec, kwargs_spec), [ids.ref(o) for o in outs],
            [(o.shape, o.dtype, o.strides, o.storage_offset, o.storage.device) for o in outs],
            nbytes, costs.transient if costs is not None else 0, costs.scratch if costs is not None else 0,
            site, flops, ids))

    def _first_flops(self, func: Any, args: tuple, kwargs: dict, out: Any, entry: Any) -> int:
        """An op's FLOPs, worked out on its kernel-cache entry's first call and kept there (a
        function of the signature); 0, and the op named in ``flops_uncounted``, when its rule
        fails (a plan goes on)."""
        try:
            flops = count_flops(func, args, kwargs, out)
        except Exception as e:
            self.flops_uncounted.setdefault(op_name(func), f"{type(e).__name__}: {e}")
            return 0
        if entry is not None:
            entry.flops = flops
        return flops

    def _first_findings(self, func: Any, args: tuple, kwargs: dict, outs: list, costs: Any,
                        site: int, entry: Any) -> None:
        """An op's findings on its kernel-cache entry's first call, added at ``site`` and kept
        on the entry for its later calls (the same signature finds the same, at their own
        lines); a scan that fails names the op in ``findings_failed`` (a plan goes on)."""
        acc = self.findings
        n = len(acc)
        try:
            _scan_findings(func, args, kwargs, outs, costs, site, acc)
        except Exception as e:
            self.findings_failed.setdefault(op_name(func), f"{type(e).__name__}: {e}")
        else:
            if entry is not None:
                entry.findings = tuple(f._replace(site=-1) for f in acc[n:])

    if RECORD_METHOD is not None:  # in C (faketensor/_speedups_record.c), the Python methods
        _record = RECORD_METHOD(_record)  # above their reference (and _record's fallback)
        quick_call = RECORD_METHOD(quick_call, "quick")


if CONFIGURE is not None:  # the compiled _record reads a call's Costs by position, and leaves
    CONFIGURE("costs_type", Costs)  # untracked the entries of the package's own op objects
    CONFIGURE("static_ops", frozenset(t for t in (MethodOp, PATCH) if t is not None))
    # the compiled quick_call: quick_hit, then the compiled _record, given the depth of the
    # hook's frame without quick_call's own Python frame
    CONFIGURE("quick_hit", quick_hit)
    CONFIGURE("record_method", FakeMode.__dict__["_record"])
    CONFIGURE("fake_mode_type", FakeMode)
    CONFIGURE("quick_depth", QUICK_DEPTH - 1)
