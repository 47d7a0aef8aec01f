"""A user's typed program against faketensor's public API. tests/test_types.py checks it
with ``mypy --strict``: every ``assert_type`` states the static type a user sees."""
from __future__ import annotations

from typing import Any

import numpy as np
from typing_extensions import assert_type

import faketensor as ft


def layer(x: ft.FakeArray, w: ft.FakeArray) -> ft.FakeArray:
    y = x @ w
    assert_type(y, ft.FakeArray)
    z = (y + 1.0).sum(axis=0)
    assert_type(z, ft.FakeArray)
    assert_type(-z, ft.FakeArray)
    assert_type(z.reshape(-1), ft.FakeArray)
    assert_type(z.T, ft.FakeArray)
    return z


def main() -> None:
    with ft.FakeMode(record=True) as mode:
        assert_type(mode, ft.FakeMode)
        x = ft.empty((8, 4), np.float32)
        w = ft.empty_strided((4, 3), (4, 16), np.float32)
        assert_type(x, ft.FakeArray)
        assert_type(x.shape, tuple[int, ...])
        assert_type(x.strides, tuple[int, ...])
        assert_type(x.dtype, "np.dtype[Any]")
        assert_type(x.ndim, int)
        assert_type(x.nbytes, int)
        assert_type(x.storage, ft.FakeStorage)
        assert_type(x.storage_offset, int)
        assert_type(x.flags, ft.FakeFlags)
        assert_type(x.flags.c_contiguous, bool)
        assert_type(x.flags["W"], bool)
        assert_type(ft.is_fake(x), bool)
        out = layer(x, w)
        assert_type(mode.memory, ft.MemoryStats)
        assert_type(mode.memory.peak, dict[str, int])
        assert_type(mode.trace, list[ft.TraceEntry])
        why = ft.explain(out)
        assert_type(why, ft.Explanation)
    p = ft.plan(layer, np.ones((8, 4), np.float32), np.ones((4, 3), np.float32))
    assert_type(p, ft.Plan)
    assert_type(p.peak, dict[str, int])
    assert_type(p.status, str)
    assert_type(p.to_json(), dict[str, Any])


if __name__ == "__main__":
    main()
