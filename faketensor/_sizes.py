"""Bounded sizes: lengths that depend on the data (a boolean mask's count, ``np.nonzero``'s,
``np.unique``'s), planned by concrete evaluation at one end of their bounds.

A ``BoundedSize`` is an ``int`` whose value is the size assumed in this run, carrying a name
(``k0``, ``k1``, ...), its bounds ``lo <= k <= hi``, the user's line that made it and the op.
Shape rules keep working because it is an int; a rule that passes a dimension through keeps
the object, one that computes a new length gets a plain int (each run is exact for its
assumption). The mode's ``SizePolicy`` decides the assumed value: every size at its upper
bound (the default), at its lower bound, or fixed per line (``LINE=FRACTION``).

The same mask (one fake storage, layout and op, not written since) gives the same size, so
``F[m]`` and a later ``F[m] = G`` agree; so do equal masks: a boolean result of an
elementwise ufunc call has a value identity (the ufunc, each fake input's storage, not
written since, and layout, each scalar operand's type and value: ``note_ufunc``), and two
masks of one identity share their sizes, so ``x[x > 0] = x[x > 0] ** 2`` plans; two different sizes meeting in one rule where they
must be equal raise ``DataDependentError`` naming both (``check_same``).

In user code, control flow on a bounded size (comparisons, ``bool()``, ``len()`` and
iteration of an array whose first axis is one) needs the value: ``DataDependentError`` under
``data_dependent="stop"``, the assumed value listed among the placeholders otherwise. Inside
faketensor and NumPy (kernels, the mode's own code) it is a plain int. ``range(k)`` and
``int(k)`` cannot be intercepted (CPython reads an int subclass's value directly): they
follow the assumption of the run.
"""
from __future__ import annotations

import functools
import itertools
import os
import sys
import threading
import weakref
from contextvars import ContextVar
from typing import Any, NamedTuple

import numpy as np

from ._errors import DataDependentError
from ._paths import is_user_file, user_frame
from ._stack import STACK as _STACK
from ._storage import SCALAR, Untracked

# "refuse": no assumption, DataDependentError (comparisons against particular real values:
# the oracle and the coverage surveys)
ASSUME = ("upper", "lower", "refuse")


class BoundedSize(int):
    """A data-dependent length: its int value is the size assumed in this run."""

    name: str
    lo: int
    hi: int
    file: str | None
    line: int | None
    op: str

    def __new__(cls, value: int, name: str, lo: int, hi: int, file: str | None,
                line: int | None, op: str) -> "BoundedSize":
        self = int.__new__(cls, value)
        self.name, self.lo, self.hi = name, int(lo), int(hi)
        self.file, self.line, self.op = file, line, op
        return self

    def where(self) -> str:
        """``k0 (0 <= k0 <= 100, np.nonzero at script.py:12)``."""
        at = f" at {os.path.basename(self.file)}:{self.line}" if self.file else ""
        return f"{self.name} ({self.lo} <= {self.name} <= {self.hi}, {self.op}{at})"

    def record(self) -> "SizeRecord":
        return SizeRecord(self.name, self.lo, self.hi, int(self), self.file, self.line, self.op)

    def __reduce__(self) -> tuple:
        return (int, (int(self),))  # pickled as the plain value it stands for

    # control flow in user code (see ``steer``); plain int arithmetic everywhere
    __hash__ = int.__hash__

    def __bool__(self) -> bool:
        steer(self, "bool()")
        return int(self) != 0

    def __eq__(self, other: Any) -> Any:
        steer(self, "a comparison (==)")
        return int.__eq__(self, other)

    def __ne__(self, other: Any) -> Any:
        steer(self, "a comparison (!=)")
        return int.__ne__(self, other)

    def __lt__(self, other: Any) -> Any:
        steer(self, "a comparison (<)")
        return int.__lt__(self, other)

    def __le__(self, other: Any) -> Any:
        steer(self, "a comparison (<=)")
        return int.__le__(self, other)

    def __gt__(self, other: Any) -> Any:
        steer(self, "a comparison (>)")
        return int.__gt__(self, other)

    def __ge__(self, other: Any) -> Any:
        steer(self, "a comparison (>=)")
        return int.__ge__(self, other)


class SizeRecord(NamedTuple):
    """A bounded size as the plan reports it."""

    name: str
    lo: int
    hi: int
    value: int
    file: str | None
    line: int | None
    op: str


class SizePolicy:
    """Which value each bounded size takes in a run: ``assume`` "upper" or "lower", or
    ``fixed`` per user line (``{"12": 0.5, "script.py:30": 0.0}``: ``lo + round(f * (hi -
    lo))``). ``made`` lists the sizes made under it, in order."""

    __slots__ = ("assume", "fixed", "made", "used", "values", "__weakref__")

    def __init__(self, assume: str = "upper", fixed: dict | None = None) -> None:
        if assume not in ASSUME:
            raise ValueError(f"assume must be 'upper', 'lower' or 'refuse', not {assume!r}")
        self.assume = assume
        self.fixed = {str(k): float(v) for k, v in (fixed or {}).items()}
        for k, f in self.fixed.items():
            if not 0.0 <= f <= 1.0:
                raise ValueError(f"the fraction for line {k} must be in [0, 1], not {f}")
        self.made: list[BoundedSize] = []
        self.used: set = set()  # the fixed specs that matched a size
        # (value identity of a mask, its view's layout) -> size: equal masks, one size
        self.values: dict = {}

    def fraction(self, file: str | None, line: int | None) -> float | None:
        """The fixed fraction for a size made at file:line, if one was given."""
        if line is None or not self.fixed:
            return None
        base = os.path.basename(file or "")
        for key in (f"{base}:{line}", str(line), f"{file}:{line}"):
            if key in self.fixed:
                self.used.add(key)
                return self.fixed[key]
        return None

    def value(self, lo: int, hi: int, file: str | None, line: int | None) -> int:
        f = self.fraction(file, line)
        if f is not None:
            return lo + round(f * (hi - lo))
        return hi if self.assume == "upper" else lo


DEFAULT = SizePolicy()
POLICY: ContextVar[SizePolicy] = ContextVar("faketensor_size_policy", default=DEFAULT)

# how many bounded sizes were ever made: while 0, nothing needs to look for them
MADE = [0]
_NAMING = threading.Lock()
# storage -> {(op, offset, shape, strides): size}: the sizes of masks not written since
_MASKS: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()
# storage -> serial number naming its values until it is written (a ufunc's input)
_SERIALS: "weakref.WeakKeyDictionary[Any, int]" = weakref.WeakKeyDictionary()
_NEXT_SERIAL = itertools.count()
# storage -> value identity of the boolean ufunc result filling it, until it is written
_VALUES: "weakref.WeakKeyDictionary[Any, tuple]" = weakref.WeakKeyDictionary()
# how many value-keyed sizes a policy keeps (the oldest go first: a later equal mask then
# gets a size of its own, which is never wrong, only more cautious)
VALUES_KEPT = 4096
_SCALARS = (bool, int, float, complex, str, bytes)
# id -> weak reference of each storage in _MASKS, _SERIALS or _VALUES, dropped when the
# storage dies: while empty, no call needs to look for writes (``touches``)
WATCHED: dict = {}


def _watch(storage: Any) -> None:
    i = id(storage)
    if i not in WATCHED:
        WATCHED[i] = weakref.ref(storage, functools.partial(_unwatch, i))


def _unwatch(i: int, _ref: Any) -> None:
    """A watched storage died: its id may now name another."""
    WATCHED.pop(i, None)


def _ints(shape: Any) -> tuple:
    return tuple([int(n) for n in shape])


def _operand(x: Any) -> Any:
    """What names one operand's values: a fake's value identity or storage serial with its
    layout, a scalar's type and exact value (repr keeps -0.0 and 0.0 apart); None when
    nothing does (a real array, or a fake of one, which the program may write unseen; an
    object)."""
    st = getattr(x, "storage", None)
    if st is not None and hasattr(x, "storage_offset"):
        tracker = st._tracker
        if type(tracker) is Untracked and tracker is not SCALAR:
            return None
        v: Any = _VALUES.get(st)
        if v is None:
            n = _SERIALS.get(st)
            if n is None:
                n = _SERIALS[st] = next(_NEXT_SERIAL)
                _watch(st)
            v = n
        return (v, x.storage_offset, _ints(x.shape), tuple(x.strides), x.dtype)
    t = type(x)
    if t in _SCALARS or (isinstance(x, np.generic) and x.dtype.kind not in "OV"):
        return (t, repr(x))
    return None


def note_ufunc(func: Any, args: tuple, kwargs: dict, res: Any) -> Any:
    """The value identity of ``res``, the boolean result of ufunc call ``func(*args,
    **kwargs)`` (read before the call's writes are noted), or None: equal identities hold
    equal values. Only a result filling its whole storage has one (``out=`` itself included:
    ``x > 0`` written into a temporary)."""
    if len(args) != func.nin:
        return None
    if kwargs:
        out = kwargs.get("out")
        if len(kwargs) != 1 or type(out) is not tuple or len(out) != 1 or out[0] is not res:
            return None
    st = res.storage
    if res.storage_offset != 0 or res.size * res.dtype.itemsize != st.nbytes:
        return None
    ops = []
    fake = False
    for a in args:
        o = _operand(a)
        if o is None:
            return None
        fake = fake or type(o[0]) is not type
        ops.append(o)
    if not fake:
        return None
    return (func, tuple(ops), _ints(res.shape), tuple(res.strides), res.dtype)


def set_value(storage: Any, ident: Any) -> None:
    """``storage`` now holds the values named by ``ident`` (``note_ufunc``)."""
    _VALUES[storage] = ident
    _watch(storage)


def make(lo: int, hi: int, op: str, source: Any = None, kind: str = "nonzero") -> int:
    """A bounded size ``lo <= k <= hi`` made by ``op``, at the value the active policy
    assumes; a plain int when the bounds meet. ``source`` (a fake) makes it the same object
    for the same unwritten array and ``kind`` of count ("nonzero": its true or nonzero
    entries, so ``x[m]``, ``np.nonzero(m)`` and ``F[m] = G`` agree; "unique": its distinct
    values)."""
    ov = _COUNTING.get()
    if ov is not None:  # a mask of np.unique's: its count is the distinct values of its input
        if ov.exact is not None:
            return ov.exact  # its input's values are known
        lo, op, source, kind = max(lo, ov.lo if hi else 0), ov.op, ov.source, ov.kind
        if ov.hi is not None:
            hi = min(hi, ov.hi)
    lo, hi = int(lo), int(hi)
    if lo >= hi:
        return lo
    key = vkey = None
    policy = POLICY.get()
    if source is not None and hasattr(source, "storage_offset"):
        key = (kind, source.storage_offset, tuple(source.shape), tuple(source.strides),
               source.dtype)
        got = _MASKS.get(source.storage)
        if got is not None and key in got:
            return got[key]
        ident = _VALUES.get(source.storage)
        if ident is not None:  # an equal mask's size (note_ufunc)
            vkey = (ident, kind, source.storage_offset, _ints(source.shape),
                    tuple(source.strides), source.dtype)
            k = policy.values.get(vkey)
            if k is not None:
                _MASKS.setdefault(source.storage, {})[key] = k
                return k
    if policy.assume == "refuse":
        raise DataDependentError(f"{op}: the length depends on the values (between {lo} and "
                                 f"{hi})")
    frame = user_frame(1)
    file = frame.f_code.co_filename if frame is not None else None
    line = frame.f_lineno if frame is not None else None
    with _NAMING:  # threads of one program make sizes of one policy: one name each
        k = BoundedSize(policy.value(lo, hi, file, line),
                        f"k{len(policy.made) if policy is not DEFAULT else MADE[0]}", lo, hi,
                        file, line, op)
        MADE[0] += 1
        if policy is not DEFAULT:
            policy.made.append(k)
    if key is not None:
        _MASKS.setdefault(source.storage, {})[key] = k
        _watch(source.storage)
    if vkey is not None:
        values = policy.values
        if len(values) >= VALUES_KEPT:
            del values[next(iter(values))]
        values[vkey] = k
    return k


class _Counting(NamedTuple):
    lo: int
    op: str
    source: Any
    kind: str
    hi: int | None
    exact: int | None


_COUNTING: ContextVar[_Counting | None] = ContextVar("faketensor_size_counting", default=None)


class counting:
    """Inside, every bounded size made counts what ``op`` counts of ``source`` (at least
    ``lo`` of them, at most ``hi``; ``exact`` of them when the values are known): np.unique's
    masks count the distinct values of its input, np.intersect1d's the common ones (at most
    the shorter input's length)."""

    __slots__ = ("spec", "token")

    def __init__(self, lo: int, op: str, source: Any, kind: str, hi: int | None = None,
                 exact: int | None = None) -> None:
        self.spec = _Counting(lo, op, source, kind, hi, exact)

    def __enter__(self) -> None:
        self.token = _COUNTING.set(self.spec)

    def __exit__(self, *exc: Any) -> None:
        _COUNTING.reset(self.token)


class using:
    """Inside, bounded sizes are made under ``policy`` (a FakeMode sets its own)."""

    __slots__ = ("policy", "token")

    def __init__(self, policy: SizePolicy) -> None:
        self.policy = policy

    def __enter__(self) -> None:
        self.token = POLICY.set(self.policy)

    def __exit__(self, *exc: Any) -> None:
        POLICY.reset(self.token)


def inherited() -> SizePolicy | None:
    """The policy a FakeMode made for one call (a Python entry on fakes outside any mode)
    takes: the one set around it, if any."""
    p = POLICY.get()
    return None if p is DEFAULT else p


def tracking() -> bool:
    """Whether any mask's size or value identity may be remembered (``written`` may have
    work to do)."""
    return bool(WATCHED)


def touches(fakes: list) -> bool:
    """Whether any of a call's fakes may lie in a remembered storage (else no write of the
    call needs noting: cheaper than finding what it wrote)."""
    for f in fakes:
        if id(f.storage) in WATCHED:
            return True
    return False


def written(storage: Any) -> None:
    """``storage`` was written: its masks' sizes and its value identities are forgotten (a
    new count is a new size)."""
    _MASKS.pop(storage, None)
    _SERIALS.pop(storage, None)
    _VALUES.pop(storage, None)
    WATCHED.pop(id(storage), None)


def is_bounded(n: Any) -> bool:
    return type(n) is BoundedSize


def bounded_shape(shape: tuple) -> bool:
    """Whether a shape carries a bounded size (never, cheaply, before one was made): the
    kernel cache keys on values, and a hit would hand back another size's object."""
    if not MADE[0]:
        return False
    for n in shape:
        if type(n) is BoundedSize:
            return True
    return False


def in_shape(shape: Any) -> list:
    """The bounded sizes among a shape's lengths."""
    return [n for n in shape if type(n) is BoundedSize]


def check_same(a: Any, b: Any) -> None:
    """Two lengths a rule needs equal, either of them a bounded size. Two different bounded
    sizes whose ranges meet may be equal or not, depending on the data: DataDependentError
    naming both; so is a bounded size assumed unequal to a plain length within its bounds.
    Everything else is the caller's plain comparison: equal at this assumption, or an error
    that holds at every value (NumPy's own)."""
    ta, tb = type(a) is BoundedSize, type(b) is BoundedSize
    if not (ta or tb):
        return
    if ta and tb:
        if a is b or a.name == b.name:
            return
        if a.lo <= b.hi and b.lo <= a.hi:
            raise DataDependentError(
                f"two data-dependent sizes must agree here: {a.where()} and {b.where()}; "
                "whether they are equal depends on the values")
        return
    k, v = (a, b) if ta else (b, a)
    if int(k) != int(v) and k.lo <= int(v) <= k.hi:
        raise DataDependentError(
            f"the data-dependent size {k.where()} must equal {int(v)} here; whether it does "
            f"depends on the values (this run assumes {k.name} = {int(k)})")


def _fake_mode() -> Any:
    """The innermost FakeMode on this context's stack (None while a kernel runs: its mode
    is then off the stack)."""
    for m in reversed(_STACK.get()):
        if getattr(m, "_is_fake_mode", False):
            return m
    return None


# len() returns a new plain int (CPython converts ``__len__``'s result), so no size taken
# from it can stay bounded: a later ``if n == 0:`` would follow the assumption unseen
LEN_HINT = ("; len() gives a plain int, so where the length is used as a size write "
            "x.shape[0], which keeps it bounded (docs/guide/bounded-sizes.md)")


def steer(k: Any, what: str, depth: int = 2) -> None:
    """User code reads bounded size ``k`` to decide something (``what``): in a FakeMode that
    stops, DataDependentError; in placeholder mode the assumed value is used and listed at
    the user's line. Code of faketensor and libraries reads it as a plain int."""
    if type(k) is not BoundedSize or not _STACK.get():
        return
    if not is_user_file(sys._getframe(depth).f_code.co_filename):
        return
    mode = _fake_mode()
    if mode is None:
        return
    if mode.data_dependent != "placeholder":
        hint = LEN_HINT if what == "len()" else ""
        raise DataDependentError(
            f"{what} on the data-dependent size {k.where()}: the program's control flow "
            f"depends on the values{hint}")
    mode.placeholders.add(f"{what} on the data-dependent size {k.where()} assumed "
                          f"{k.name} = {int(k)}")


def steer_shape(shape: tuple, what: str) -> None:
    """``len()`` or iteration of an array whose first length is bounded (the caller's caller
    is the user's code)."""
    if shape and type(shape[0]) is BoundedSize:
        steer(shape[0], what, 3)
