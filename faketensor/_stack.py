"""The per-context mode stack (core state: the dispatcher reads it, modes push onto it).

``LIVE`` lets a namespace patch skip the context variable when no mode can be active: every
non-empty stack is a ``Stack``, registered in ``LIVE`` from its creation until CPython frees
it. A context (a thread's, a copied one, an asyncio task's) holds a reference to its stack,
so while any context anywhere has a mode, ``LIVE`` is not empty; empty, every context's stack
is ``()``. Threads and nested modes need nothing more: the rule is the object's lifetime.
"""
from __future__ import annotations

from contextvars import ContextVar
from typing import Iterable

#: id(stack) -> the stack below its top mode (made on first use, see ``below``) for every
#: Stack alive in the process (dict operations are atomic under the GIL)
LIVE: dict[int, tuple | None] = {}


class Stack(tuple):
    """A non-empty mode stack, bottom first; in ``LIVE`` while it exists."""

    __slots__ = ()

    def __new__(cls, modes: Iterable) -> "Stack":
        self = tuple.__new__(cls, modes)
        LIVE[id(self)] = None
        return self

    def __del__(self, _pop=LIVE.pop) -> None:  # bound now: module globals may be gone at exit
        _pop(id(self), None)


def below(stack: tuple) -> tuple:
    """``stack`` without its top mode, as a stack (what a mode's handler runs under); made
    once per Stack and kept with it, so nested modes allocate nothing per call."""
    if len(stack) == 1:
        return ()
    if type(stack) is not Stack:
        return Stack(stack[:-1])
    b = LIVE.get(id(stack))
    if b is None:
        b = LIVE[id(stack)] = Stack(stack[:-1])
    return b


def as_stack(modes: tuple) -> tuple:
    """The value to set for these modes: ``()`` or a registered ``Stack``."""
    return Stack(modes) if modes else ()


STACK: ContextVar[tuple] = ContextVar("faketensor_mode_stack", default=())


class paused:
    """No mode intercepts inside: for real NumPy calls on scalars a kernel makes to raise
    NumPy's own errors (a private generator's argument checks). ``with paused():`` (a class,
    not a generator: known values and kernels enter it on many calls)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = STACK.set(())

    def __exit__(self, *exc: object) -> None:
        STACK.reset(self._token)
