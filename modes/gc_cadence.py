"""The cyclic collector's cadence while a recording mode is entered.

CPython runs a young collection each time its count of container objects (allocations less
deallocations) passes the first threshold (700 by default), and a full one, which walks every
tracked object of the process, after enough young ones. A recorded op keeps about four such
objects until the plan ends (its trace entry, the weak reference to a new fake, the spec of
its arguments), all left untracked at once: no cycle can run through them, yet each counts.
Recording alone would so run a young collection every ~200 ops and a full one every few
thousand (15 ms on a 25 ms plan of GPT-2), where the program, unplanned, counts only its own
objects (a NumPy array is not one).

While any recording mode is entered, the first threshold is ``SCALE`` times the one found,
which gives back about the program's own cadence (GPT-2's forward: a young collection every
~2,500 ops recorded, every ~3,400 planned without recording); the last mode to leave restores
it, unless the program set another meanwhile (then the program's stays). A threshold of 0
(the collector disabled) is left as it is.
"""
from __future__ import annotations

import gc
import threading

#: the first threshold's factor while recording (about the objects a recorded op keeps, over
#: those a program's op keeps)
SCALE = 16

_lock = threading.Lock()
_entered = 0  # recording modes entered and not yet left, in any thread
_set: tuple | None = None  # (thresholds found, thresholds set) by the first entry


def recording_entered() -> None:
    """Called by FakeMode.__enter__ for a recording mode."""
    global _entered, _set
    with _lock:
        _entered += 1
        if _entered == 1:
            found = gc.get_threshold()
            if found[0] > 0:
                scaled = (found[0] * SCALE,) + tuple(found[1:])
                gc.set_threshold(*scaled)
                _set = (found, scaled)


def recording_exited() -> None:
    """Called by FakeMode.__exit__ for a recording mode."""
    global _entered, _set
    with _lock:
        _entered = max(0, _entered - 1)
        if not _entered and _set is not None:
            found, scaled = _set
            _set = None
            if gc.get_threshold() == scaled:
                gc.set_threshold(*found)
