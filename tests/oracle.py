"""The differential oracle for tests: the comparison itself lives in the package
(``faketensor.meta_utils.surveys.oracle``: ``check(fn, *real_args)`` runs ``fn`` on copies of the
real inputs and on their fakes and compares shape, dtype, strides, flags, byte offset from
the root buffer, ``shares_memory`` with every input and the exception type); this module
re-exports it and adds the hypothesis strategies that draw awkward real inputs.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from faketensor.meta_utils.surveys.oracle import (  # noqa: F401  (one definition, re-exported)
    Mismatch, _addr_range, _leaves, _same_family, _view_like, check,
    compare_meta, compare_outcome, root_range, run_both, same_fake_meta)
from faketensor.meta_utils.surveys.oracle import arrays_in as _arrays, copy_tree as _copy_tree  # noqa: F401

# --- awkward real inputs --------------------------------------------------------

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.longdouble, np.complex64,
          np.complex128, np.clongdouble]
DTYPE_FAMILIES = [np.dtype(d) for d in DTYPES] + [
    np.dtype(">i4"), np.dtype(">f8"), np.dtype("U3"), np.dtype("S2"), np.dtype("M8[s]"),
    np.dtype("m8[ms]"), np.dtype(object), np.dtype([("a", "<i4"), ("b", "<f8")]),
]
NUMERIC = [np.dtype(d) for d in DTYPES]


LAYOUT_KINDS = ("c", "f", "t", "step", "rev", "offset", "bcast", "perm")


def layout(arr: np.ndarray, kind: str, ax: int = -1, perm: tuple | None = None) -> np.ndarray:
    """A C array as one awkward array of the same values: ``kind`` one of LAYOUT_KINDS ("c":
    as is, "f": Fortran order, "t": a transposed buffer, "perm": the buffer of
    ``arr.transpose(perm)``, "step": every other element of a buffer twice as long on the
    last axis, "rev": axis ``ax`` reversed, "offset": a view one row into its buffer, "bcast":
    axis ``ax`` broadcast from length 1). A kind the array cannot take returns it as is."""
    if kind == "f":
        return np.asfortranarray(arr)
    if kind == "t":
        return np.ascontiguousarray(arr.T).T
    if kind == "perm" and arr.ndim > 1:
        perm = tuple(range(arr.ndim)) if perm is None else tuple(perm)
        return np.ascontiguousarray(arr.transpose(perm)).transpose(np.argsort(perm))
    if kind == "step" and arr.ndim:
        big = np.repeat(arr, 2, axis=-1)
        return big[..., ::2]
    if kind == "rev" and arr.ndim:
        idx = [slice(None)] * arr.ndim
        idx[ax] = slice(None, None, -1)
        return arr[tuple(idx)]
    if kind == "offset" and arr.ndim:
        big = np.concatenate([arr[:1], arr], axis=0) if arr.shape[0] else arr
        return big[1:] if arr.shape[0] else arr
    if kind == "bcast" and arr.ndim:
        shape = list(arr.shape)
        sl = [slice(None)] * arr.ndim
        sl[ax] = slice(0, 1)
        sub = arr[tuple(sl)]
        return np.broadcast_to(sub, tuple(shape))
    return arr


def layouts(arr: np.ndarray, draw) -> np.ndarray:
    """Turn a C array into an awkward view of it, drawn: transposed, F, strided, reversed, offset."""
    kind = draw(st.sampled_from(list(LAYOUT_KINDS)))
    ax, perm = -1, None
    if kind == "perm" and arr.ndim > 1:
        perm = draw(st.permutations(range(arr.ndim)))
    if kind in ("rev", "bcast") and arr.ndim:
        ax = draw(st.integers(0, arr.ndim - 1))
    return layout(arr, kind, ax, perm)


def every_layout(arr: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Every awkward layout of a C array, named, each kind once where the array can take it
    (``layout``): C, F, transposed, the first two axes swapped (3-d and more), last axis
    reversed, strided, offset, broadcast along the last axis and (2-d and more) the first.
    The exhaustive counterpart of ``layouts`` for parametrized tests."""
    out = [("C", arr), ("F", layout(arr, "f"))]
    if arr.ndim >= 2:
        out.append(("T", layout(arr, "t")))
    if arr.ndim >= 3:
        out.append(("swap01", layout(arr, "perm", perm=(1, 0) + tuple(range(2, arr.ndim)))))
    if arr.ndim:
        out += [("rev", layout(arr, "rev")), ("step", layout(arr, "step"))]
        if arr.shape[0]:
            out.append(("offset", layout(arr, "offset")))
        out.append(("bcast", layout(arr, "bcast")))
    if arr.ndim >= 2:
        out.append(("bcast0", layout(arr, "bcast", ax=0)))
    return out


@st.composite
def arrays(draw, dtypes=NUMERIC, min_dims: int = 0, max_dims: int = 4, max_side: int = 4,
           shape=None) -> np.ndarray:
    """A real array of an awkward layout (values small, so ops do not overflow or warn)."""
    dt = draw(st.sampled_from(dtypes))
    if shape is None:
        shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0, max_side=max_side))
    base = np.ones(shape, dtype=dt) if dt.kind not in "OUSMmV" else np.zeros(shape, dtype=dt)
    return layouts(base, draw)


@st.composite
def shapes_broadcastable(draw, n: int = 2, max_dims: int = 4):
    return draw(hnp.mutually_broadcastable_shapes(num_shapes=n, max_dims=max_dims, max_side=4)).input_shapes


def array_of_shape(draw, shape, dtypes=NUMERIC):
    return draw(arrays(dtypes=dtypes, shape=shape))
