"""The per-context mode stack and the one function every protocol hook calls."""
from __future__ import annotations

import operator
from typing import Any

from ._stack import STACK, as_stack, below
from ._storage import PREEXISTING



class MethodOp:
    """An ndarray method as a callable op: ``ndarray.sum(x, ...)`` calls ``x.sum(...)``.

    Modes receive these as ``func`` for method calls; calling one re-dispatches on
    fakes and wrapped arrays and runs the real method on real arrays.
    """

    __slots__ = ("name", "op_name", "_get")

    def __init__(self, name: str, owner: str = "ndarray") -> None:
        self.name = name
        self.op_name = f"{owner}.{name}"
        self._get = operator.attrgetter(name)  # a dotted name: "flat.__getitem__"

    def __call__(self, obj: Any, *args: Any, **kwargs: Any) -> Any:
        return self._get(obj)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<op {self.op_name}>"

    def __reduce__(self):
        owner = self.op_name.split(".")[0]
        return (method_op, (self.name, owner))


_METHOD_OPS: dict[tuple, MethodOp] = {}


def method_op(name: str, owner: str = "ndarray") -> MethodOp:
    """The unique MethodOp for a method name of ``owner`` ("ndarray", "Generator", ...)."""
    op = _METHOD_OPS.get((name, owner))
    if op is None:
        op = _METHOD_OPS[(name, owner)] = MethodOp(name, owner)
    return op


def mode_stack() -> tuple:
    """The modes active in this context, bottom first."""
    return STACK.get()


def push_mode(mode: Any, bottom: bool = False):
    """Push a mode (FakeModes go below user modes); returns a token for pop_mode."""
    stack = STACK.get()
    if bottom:
        i = 0
        while i < len(stack) and getattr(stack[i], "_is_fake_mode", False):
            i += 1
        new = stack[:i] + (mode,) + stack[i:]
    else:
        new = stack + (mode,)
    return STACK.set(as_stack(new))


def pop_mode(mode: Any, token) -> None:
    """Undo push_mode; a mode left out of order is removed wherever it sits."""
    try:
        STACK.reset(token)
    except ValueError:  # token from another context or not the latest change
        STACK.set(as_stack(tuple(m for m in STACK.get() if m is not mode)))


def claim(storage: Any) -> None:
    """Account a storage made outside any kernel (``ft.empty``, a member read from an .npz):
    charged to the innermost FakeMode active in this context, else marked pre-existing."""
    if storage._tracker is not None:
        return
    for mode in reversed(STACK.get()):
        charge = getattr(mode, "_charge", None)
        if charge is not None:
            charge(storage)
            return
    storage._tracker = PREEXISTING


def dispatch(func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    """Hand an intercepted call to the top mode (popped while it runs), or run the default.

    A mode with a ``quick_ledger`` (a plain FakeMode) first offers the call to the kernel
    cache: a hit that needs nothing but its result made and charged to that ledger
    (``_runner.quick_hit``) runs no NumPy code, so it is answered without popping the mode.
    A mode whose class has a ``quick_call`` method (a recording FakeMode) is offered the call
    the same way: it answers None, or the result (then recorded)."""
    stack = STACK.get()
    if stack:
        mode = stack[-1]
        ledger = getattr(mode, "quick_ledger", None)
        if ledger is not None:
            out = _quick(func, args, kwargs, ledger)
            if out is not None:
                return out
        else:
            quick = getattr(type(mode), "quick_call", None)  # no bound method made per call
            if quick is not None:
                out = quick(mode, func, args, kwargs)
                if out is not None:
                    return out
        token = STACK.set(() if len(stack) == 1 else below(stack))
        try:
            return mode.__array_dispatch__(func, types, args, kwargs)
        finally:
            STACK.reset(token)
    return _default(func, types, args, kwargs)


def _no_runner(func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    """No mode: fakes go to the kernels, wrapped arrays to the real library (set by _runner)."""
    raise RuntimeError("faketensor runner not initialised")


def _no_quick(func: Any, args: tuple, kwargs: dict, ledger: Any) -> Any:
    return None


_default = _no_runner
_quick = _no_quick


def set_default_dispatch(fn: Any, quick: Any = _no_quick) -> None:
    """What runs a call when no mode is active, and the kernel cache's quick answer
    (``_runner.quick_hit``): the runner sets them once (it sits above this module, so it
    hands itself down instead of being imported)."""
    global _default, _quick
    _default = fn
    _quick = quick
