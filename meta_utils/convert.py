"""Real -> fake conversion with one memo: views of one real buffer share one fake storage."""
from __future__ import annotations

from typing import Any

from .._runner import fake_from_real


class Converter:
    """A reusable real -> fake memo (``Converter().to_fake(obj)``)."""

    def __init__(self, *, device: str | None = None) -> None:
        self.device = device
        self._memo: dict = {}

    def to_fake(self, obj: Any) -> Any:
        return fake_from_real(obj, self._memo, self.device)


def to_fake(obj: Any, *, device: str | None = None) -> Any:
    """Fakes for real arrays in obj (an array, or a list/tuple/dict of them), one memo."""
    conv = Converter(device=device)

    def go(x):
        if isinstance(x, dict):
            return {k: go(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return type(x)(go(v) for v in x)
        return conv.to_fake(x)

    return go(obj)
