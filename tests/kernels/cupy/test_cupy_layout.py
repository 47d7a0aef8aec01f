"""CuPy's layout rules (faketensor/layout.py, section "CuPy's rules"), each tested once.

Facts are read from CuPy 14's source (cupy/_core/internal.pyx, _routines_manipulation.pyx);
where CuPy's rule coincides with NumPy's (contiguity flags, broadcasting, which reshapes
need a copy) every small case is checked against real NumPy, and where CuPy is installed
against ``cupy._core.internal`` itself (it runs on the CPU).
"""
import itertools
import math

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

from faketensor import layout as L

try:
    from cupy._core import internal as cpi
except Exception:  # CuPy absent or unusable here
    cpi = None

SHAPES = [s for nd in range(4) for s in itertools.product((0, 1, 2, 3), repeat=nd)]


def _strided_cases(max_nd: int = 3):
    """(shape, strides) over small shapes and strides of every sign, 0 included (itemsize 8)."""
    for nd in range(max_nd + 1):
        for shape in itertools.product((0, 1, 2, 3), repeat=nd):
            for strides in itertools.product((-24, -8, 0, 8, 16, 24, 48), repeat=nd):
                yield shape, strides


def _offsets(shape, strides):
    """Byte offsets of the elements in C order."""
    return [sum(i * s for i, s in zip(idx, strides)) for idx in np.ndindex(*shape)]


# --- internal.pyx get_contiguous_strides_inplace -------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
def test_contiguous_strides(shape):
    """Nonzero size: NumPy's dense layout (np.empty); zero size: all 0 when zeros_for_zerosize,
    else the dense layout where empty and length-1 axes do not grow the stride."""
    for c, order in ((True, "C"), (False, "F")):
        got = L.cupy_contiguous_strides(shape, 8, c)
        if 0 in shape:
            assert got == (0,) * len(shape)
        else:
            assert got == np.empty(shape, order=order).strides
        if 0 not in shape:
            assert L.cupy_contiguous_strides(shape, 8, c, zeros_for_zerosize=False) == got
    assert L.cupy_contiguous_strides((2, 0, 3), 4, True, False) == (12, 12, 4)
    assert L.cupy_contiguous_strides((2, 0, 3), 4, False, False) == (4, 8, 8)


# --- internal.pyx get_c_contiguity; core.pyx _update_c/f_contiguity ----------------------

def test_contiguity_matches_numpy_flags():
    """CuPy merges axes before checking; the result equals NumPy's flags in every case."""
    base = np.empty(1000, np.float64)
    for shape, strides in _strided_cases():
        lo = -sum((n - 1) * s for n, s in zip(shape, strides) if s < 0 and n)
        real = as_strided(base[lo // 8:], shape, strides)
        want = (real.flags.c_contiguous, real.flags.f_contiguous)
        got = (L.cupy_c_contiguity(shape, strides, 8),
               L.cupy_c_contiguity(shape[::-1], strides[::-1], 8))  # _update_f_contiguity
        assert got == want == L.contiguity(shape, strides, 8), (shape, strides)
        if cpi is not None:
            assert cpi.get_c_contiguity(list(shape), list(strides), 8) == want[0]


# --- internal.pyx infer_unknown_dimension ----------------------------------------------------

def test_infer_unknown():
    f = L.cupy_infer_unknown
    assert f((-1, 3), 12) == (4, 3)
    assert f((-5, 3), 12) == (4, 3)            # any negative entry is the unknown one
    assert f((2, 6), 12) == (2, 6)
    for shape, size, msg in [((-1, -1), 4, "only specify one unknown"),
                             ((5,), 4, "cannot reshape array of size 4 into shape (5,)"),
                             ((0, -1), 0, "cannot reshape array of size 0"),
                             ((3, -1), 4, "cannot reshape array of size 4")]:
        with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            f(shape, size)
    for size in range(7):
        for n in range(-1, 8):
            for shape in ((n, -1), (-1, n), (n,)):
                try:
                    got = f(shape, size)
                except ValueError:
                    got = ValueError
                try:
                    want = np.empty(size).reshape(shape).shape if min(shape) >= -1 else ValueError
                except ValueError:
                    want = ValueError
                if cpi is not None:
                    try:
                        want_cp = tuple(cpi.infer_unknown_dimension(shape, size))
                    except ValueError:
                        want_cp = ValueError
                    assert got == want_cp
                assert got == want, (shape, size)


# --- internal.pyx get_reduced_dims; _routines_manipulation.pyx _get_strides_for_nocopy_reshape

def test_nocopy_strides_facts():
    ns = L.cupy_nocopy_strides
    assert ns((6,), (8,), 8, (2, 1, 3)) == (24, 24, 8)
    assert ns((1, 1), (8, 8), 8, (1, 1, 1)) == (8, 8, 8)      # size 1: itemsize everywhere
    assert ns((0, 3), (0, 0), 8, (3, 0)) == (8, 8)            # size 0: dense, not zeros
    assert ns((0,), (0,), 8, (0, 3)) == (24, 8)
    assert ns((3, 4), (8, 24), 8, (12,)) is None
    assert ns((3, 4), (32, 8), 8, (2, 6)) == (48, 8)
    assert ns((4, 3), (48, 16), 8, (2, 2, 3)) == (96, 48, 16)
    assert ns((4, 3), (48, 8), 8, (12,)) is None
    assert L.cupy_reduced_dims((2, 1, 3, 0), (24, 8, 8, 8), 8) == ([0], [8])
    assert L.cupy_reduced_dims((2, 1, 3), (24, 99, 8), 8) == ([6], [8])


def test_nocopy_strides_view_the_same_elements():
    """Whenever the view exists its elements are the input's in C order, and it exists
    exactly when NumPy's reshape(copy=False) succeeds (sizes above 1)."""
    base = np.empty(1000, np.float64)
    for shape, strides in _strided_cases():
        size = math.prod(shape)
        if size <= 1:
            continue
        lo = -sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
        real = as_strided(base[lo // 8:], shape, strides)
        offs = _offsets(shape, strides)
        for newshape in {(size,), (1, size), (size, 1)} | ({(2, size // 2), (size // 2, 1, 2)}
                                                           if size % 2 == 0 else set()):
            got = L.cupy_nocopy_strides(shape, strides, 8, newshape)
            try:
                real.reshape(newshape, copy=False)
                possible = True
            except ValueError:
                possible = False
            assert (got is not None) == possible, (shape, strides, newshape)
            if got is not None:
                assert _offsets(newshape, got) == offs, (shape, strides, newshape)


def test_reshape_view_or_copy():
    """_reshape: same shape keeps the strides; no-copy strides when they exist; else the
    reshaped strides of a fresh C copy."""
    assert L.cupy_reshape((3, 4), (8, 24), 8, (4, 3)) == ((4, 3), (24, 8), True)
    assert L.cupy_reshape((3, 4), (8, 24), 8, (-1,)) == ((12,), (8,), True)
    assert L.cupy_reshape((3, 4), (8, 24), 8, (3, 4)) == ((3, 4), (8, 24), False)
    assert L.cupy_reshape((3, 4), (32, 8), 8, (2, -1)) == ((2, 6), (48, 8), False)
    assert L.cupy_reshape((0, 3), (0, 0), 8, (3, 0)) == ((3, 0), (8, 8), False)
    with pytest.raises(ValueError, match="cannot reshape"):
        L.cupy_reshape((3, 4), (32, 8), 8, (5,))


# --- internal.pyx _broadcast_shapes ----------------------------------------------------------

def test_broadcast_shapes_match_numpy():
    small = [s for s in SHAPES if len(s) <= 2]
    for a, b in itertools.product(small, repeat=2):
        try:
            want = np.broadcast_shapes(a, b)
        except ValueError:
            with pytest.raises(ValueError) as e:
                L.cupy_broadcast_shapes([a, b])
            assert str(e.value) == ("operands could not be broadcast together with shapes"
                                    f"{a} {b}")
            continue
        assert L.cupy_broadcast_shapes([a, b]) == want
        if cpi is not None:
            assert cpi._broadcast_shapes([a, b]) == want
    assert L.cupy_broadcast_shapes([(3, 1), (1, 4), (4,)]) == (3, 4)
    assert L.cupy_broadcast_shapes([()]) == ()
