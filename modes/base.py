"""``Mode``: the base class for modes on the per-context stack."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing_extensions import Self

from .._dispatch import pop_mode, push_mode


class Mode:
    """Subclass and override ``__array_dispatch__`` to see (and change) every intercepted call.

    While the handler runs this mode is off the stack, so ``func(*args, **kwargs)``
    inside it goes to the next mode down.
    """

    _is_fake_mode = False
    #: a plain FakeMode's ledger: its calls are first offered to the kernel cache
    #: (faketensor/_dispatch.py ``dispatch``); None: every call reaches ``__array_dispatch__``
    quick_ledger: Any = None
    #: a method ``quick_call(self, func, args, kwargs)``, looked up on the mode's class: the
    #: result of a call the mode answers without its own path, or None (a recording
    #: FakeMode: ``FakeMode.quick_call``)
    quick_call: Any = None

    def __array_dispatch__(self, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
        return func(*args, **kwargs)

    def __enter__(self) -> Self:
        # the namespace patches are installed by ``import faketensor`` (modes/installer.py)
        tokens = self.__dict__.setdefault("_tokens", [])
        tokens.append(push_mode(self, bottom=self._is_fake_mode))
        return self

    def __exit__(self, *exc: Any) -> None:
        pop_mode(self, self.__dict__["_tokens"].pop())
