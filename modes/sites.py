"""Where the user's code called each recorded op: the innermost user frame, or the whole
user call stack for the ops that may be the peak, interned.

A frame is the user's when faketensor/_paths.py says its file is (not the standard
library, an installed package or faketensor; only the script's folders when a planner
names them); the verdict is cached per code object. An op's site (user frames only, innermost first) is kept as one index into a
table of ``(code, line, ...)`` tuples, so an op costs a short walk up the frames and one
dict lookup; names and files are only spelled out when a report asks (``Sites.frames``).
The lookup is keyed by each frame's last instruction (``f_lasti``), which fixes its line
within the code object: ``f_lineno`` decodes the code's line table on every read, so it is
read only the first time an instruction is seen.
"""
from __future__ import annotations

import itertools
import os
import sys
import threading
from typing import Any

from .._accel import CONFIGURE
from .._paths import SPAWNED_FROM  # a worker thread's walk goes on from its submitter
from .._paths import is_user_file  # the one rule for whose code a file is

# Frames from Sites.here to the hook that intercepted the call, all faketensor's: here <-
# FakeMode._record <- _run <- __array_dispatch__ <- _dispatch.dispatch <- the hook (FakeArray's
# __array_ufunc__, operator or method); one more when _record is called from _account.
RECORD_DEPTH = 6
_INTERN = threading.RLock()
_SERIALS = itertools.count()


class Sites:
    """The interned call stacks of a recording mode's ops (index 0: no user frame)."""

    __slots__ = ("_user", "_codes", "_index", "_at", "_whole_at", "stacks", "stop", "whole",
                 "_serial")

    def __init__(self) -> None:
        # never reused: the compiled lookup remembers answers under it (_speedups_record.c)
        self._serial = next(_SERIALS)
        # keyed by id(code): a code object's hash is recomputed on every lookup; _codes
        # keeps each one seen alive, so its id stays its own
        self._user: dict = {}             # id(code) -> is it the user's
        self._codes: dict = {}            # id(code) -> code
        self._index: dict = {(): 0}       # (id(code), line, ...) -> stack index
        self._at: dict = {(): 0}          # (id(code), f_lasti) -> stack index
        self._whole_at: dict = {}         # (id(code), f_lasti, ...) -> stack index, whole walks
        self.stacks: list[tuple] = [()]   # stack index -> (code, line, ...), innermost first
        self.stop: Any = None             # a code object: frames from it up are not looked at
        # the indices of whole walks, interned apart from the innermost-frame ones even where
        # the frames agree, so that ``complete`` is exact
        self.whole: set[int] = set()

    def here(self, whole: bool = False, depth: int = RECORD_DEPTH) -> int:
        """The index of the innermost user frame's (file, line), or with ``whole`` of the
        whole user call stack, looking from ``depth`` frames up.

        ``sys._getframe(depth)`` skips the recording path's own frames without making
        frame objects for them (each one made costs more than the rest of the walk)."""
        f: Any = sys._getframe(depth)
        user = self._user
        parent = SPAWNED_FROM.get()
        if not whole:  # the common case: the first user frame only
            while f is not None:
                c = f.f_code
                u = user.get(id(c))
                if u is None:
                    u = self._see(c)
                if u:
                    i = self._at.get((id(c), f.f_lasti))
                    if i is None:
                        i = self._at[(id(c), f.f_lasti)] = self._intern((id(c), f.f_lineno))
                    return i
                f = f.f_back
                if f is None:
                    f, parent = parent, None
            return 0
        stop = self.stop
        key: list = []
        frames: list = []
        while f is not None:
            c = f.f_code
            if c is stop:
                break
            u = user.get(id(c))
            if u is None:
                u = self._see(c)
            if u:
                key.append(id(c))
                key.append(f.f_lasti)
                frames.append(f)
            f = f.f_back
            if f is None:
                f, parent = parent, None
        at = tuple(key)
        i = self._whole_at.get(at)
        if i is None:
            for j, f in enumerate(frames):
                key[2 * j + 1] = f.f_lineno
            i = self._whole_at[at] = self._intern(tuple(key), True)
            self.whole.add(i)
        return i

    def _see(self, code: Any) -> bool:
        u = self._user[id(code)] = is_user_file(code.co_filename)
        self._codes[id(code)] = code
        return u

    def _intern(self, key: tuple, whole: bool = False) -> int:
        at = ("whole", *key) if whole else key
        i = self._index.get(at)
        if i is None:
            with _INTERN:  # threads sharing a mode: one index per stack, one stack per index
                i = self._index.get(at)
                if i is None:
                    codes = self._codes
                    self.stacks.append(tuple(codes[x] if j % 2 == 0 else x
                                             for j, x in enumerate(key)))
                    i = self._index[at] = len(self.stacks) - 1
        return i

    def frames(self, index: int) -> list[dict]:
        """The stack of an index as ``[{"file", "line", "function"}, ...]``, innermost first
        (files made absolute: a script's code names them as it was given)."""
        k = self.stacks[index]
        return [{"file": os.path.abspath(k[j].co_filename), "line": k[j + 1],
                 "function": k[j].co_name} for j in range(0, len(k), 2)]

    def complete(self, index: int) -> bool:
        """Whether the stack of an index is the op's whole user call stack (a whole walk made
        it), not its innermost user frame alone; index 0 (no user frame) is complete."""
        return index == 0 or index in self.whole

    def line(self, index: int) -> tuple:
        """(file, line, function) of the innermost user frame, or (None, None, None)."""
        k = self.stacks[index]
        return (os.path.abspath(k[0].co_filename), k[1], k[0].co_name) if k else (None,) * 3


if CONFIGURE is not None:  # the compiled Sites.here common path (faketensor/_speedups_record.c)
    CONFIGURE("getframe", sys._getframe)
    CONFIGURE("spawned_from", SPAWNED_FROM)
    CONFIGURE("sites_type", Sites)  # its _user and _at read from their slots
