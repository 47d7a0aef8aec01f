"""cupy.fft rules on CUDA fakes (kernels/cupy/fft.py), checked against facts read from
CuPy 14's cupy/fft/_fft.py and cupy/cuda/cufft.pyx (each case names the function); no GPU."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import faketensor as ft  # noqa: E402
from cuda_fakes import AWKWARD, c_st, cuda  # noqa: E402

F = cupy.fft
C8, C16, F2, F4, F8 = (np.dtype(t) for t in ("c8", "c16", "f2", "f4", "f8"))


def f_st(shape, itemsize):
    return c_st(shape[::-1], itemsize)[::-1]


def fresh(r, shape, dtype, order="C"):
    st = c_st(shape, dtype.itemsize) if order == "C" else f_st(shape, dtype.itemsize)
    return (r.shape == tuple(shape) and r.dtype == dtype and r.strides == st and r.base is None
            and r.fake_device == "cuda:0")


def swapped(shape, ax, itemsize):
    """_exec_fft: a fresh C output of the swapped shape, swapped back (strides of the view)."""
    s = list(shape)
    s[ax], s[-1] = s[-1], s[ax]
    st = list(c_st(tuple(s), itemsize))
    st[ax], st[-1] = st[-1], st[ax]
    return tuple(st)


def temp_view(r, shape, dtype, strides):
    return (r.shape == tuple(shape) and r.dtype == dtype and r.strides == strides
            and r.base is not None and not r.flags.owndata)


# --- dtypes: _output_dtype / _compat_caster ------------------------------------------------

DTYPES = {  # input -> (C2C, R2C, C2R via irfft/hfft)
    "?": (C16, C16, F8), "i1": (C16, C16, F8), "u2": (C16, C16, F8), "i8": (C16, C16, F8),
    "f2": (C8, C8, F2), "f4": (C8, C8, F4), "f8": (C16, C16, F8), "c8": (C8, C8, F4),
    "c16": (C16, C16, F8),
}


@pytest.mark.parametrize("dt", list(DTYPES))
def test_dtypes(dt):
    c2c, r2c, c2r = DTYPES[dt]
    x = cuda((4, 6), dt)
    assert F.fft(x).dtype == c2c and F.ifft(x).dtype == c2c
    assert F.fft2(x).dtype == c2c and F.ifftn(x).dtype == c2c
    assert F.rfft(x).dtype == r2c and F.rfftn(x).dtype == r2c and F.ihfft(x).dtype == r2c
    assert F.irfft(x).dtype == c2r and F.hfft(x).dtype == c2r
    # irfft2/irfftn over two axes: no caster (float16 stays float32)
    assert F.irfft2(x).dtype == (F4 if dt in ("f2", "f4", "c8") else F8)
    assert F.irfftn(x, axes=(1,)).dtype == c2r  # one axis: the caster applies


# --- the 1-d path: _fft / _exec_fft --------------------------------------------------------

@pytest.mark.parametrize("key", [k for k in AWKWARD if k != "empty"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_fft_axis_layout(key, axis):
    """The transformed axis goes last, the plan writes fresh C, and is swapped back."""
    x = AWKWARD[key]()
    r = F.fft(x, axis=axis)
    if axis % 3 == 2:
        assert fresh(r, x.shape, C16)
    else:
        assert temp_view(r, x.shape, C16, swapped(x.shape, axis % 3, 16))


@pytest.mark.parametrize("key", [k for k in AWKWARD if k != "empty"])
def test_rfft_irfft_layout(key):
    x = AWKWARD[key]()
    n0 = x.shape[0] // 2 + 1
    assert temp_view(F.rfft(x, axis=0), (n0,) + x.shape[1:], C16,
                     swapped((n0,) + x.shape[1:], 0, 16))
    out = 2 * (x.shape[1] - 1)
    if out < 1:  # a cuFFT plan of 0 points: not modelled
        with pytest.raises(ft.UnsupportedOperationError):
            F.irfft(x, axis=1)
        return
    r = F.irfft(x, axis=1)
    shape = (x.shape[0], out, x.shape[2])
    assert temp_view(r, shape, F8, swapped(shape, 1, 8))
    assert fresh(F.irfft(x, n=5), x.shape[:2] + (5,), F8)


def test_multi_axis_1d_path():
    """fft2 over non-adjacent axes uses _fft: each axis in order, the last one decides."""
    x = cuda((2, 3, 4))
    assert fresh(F.fft2(x, axes=(0, 2)), (2, 3, 4), C16)
    assert temp_view(F.fft2(x, axes=(2, 0)), (2, 3, 4), C16, swapped((2, 3, 4), 0, 16))
    assert fresh(F.fftn(x, axes=(0, 2, 1)), (2, 3, 4), C16)  # sorted (0, 1, 2): the N-d plan
    y = cuda((2, 3, 4, 5))  # sorted (0, 1, 3): not adjacent, so axis by axis, 1 last
    assert temp_view(F.fftn(y, axes=(0, 3, 1)), y.shape, C16, swapped(y.shape, 1, 16))
    assert fresh(F.fftn(y, axes=(1, 2, 3)), y.shape, C16)
    assert fresh(F.fftn(y), y.shape, C16)  # four axes: more than a plan takes, axis by axis
    # rfftn axes=(1, 0): R2C on axis 0 (2 -> 2), then C2C on axis 1: a swapped view
    assert temp_view(F.rfftn(x, axes=(1, 0)), (2, 3, 4), C16, (192, 16, 48))
    # ndim 1 always takes _fft
    assert fresh(F.fftn(cuda((5,))), (5,), C16)


def test_zero_size_batches():
    """_exec_fft raises only for a zero-length transformed axis; _fftn for any zero axis."""
    x = cuda((0, 3, 4))
    assert fresh(F.fft(x), (0, 3, 4), C16)
    assert fresh(F.rfft(x), (0, 3, 3), C16)
    assert temp_view(F.fft(x, axis=1), (0, 3, 4), C16, (0, 0, 0))
    with pytest.raises(ValueError):
        F.fft(x, axis=0)
    with pytest.raises(ValueError):
        F.fft2(x)  # axes (1, 2): the N-d plan refuses the empty batch axis
    with pytest.raises(ValueError):
        F.rfftn(x)
    with pytest.raises(ValueError):
        F.fft2(x, axes=(0, 2))  # not adjacent: _fft, and axis 0 is empty


# --- the N-d plan path: _default_fft_func / _fftn -----------------------------------------

def test_nd_plan_order():
    """_fftn: a fresh output in the input's order (C when C-contiguous, else F)."""
    assert fresh(F.fftn(cuda((2, 3, 4))), (2, 3, 4), C16)
    assert fresh(F.fft2(cuda((2, 3, 4), order="F")), (2, 3, 4), C16, "F")
    assert fresh(F.fft2(cuda((2, 3, 4), np.complex64, order="F")), (2, 3, 4), C8, "F")
    assert fresh(F.ifftn(cuda((2, 3, 4)).T), (4, 3, 2), C16, "F")
    # non-contiguous: ascontiguousarray -> C
    assert fresh(F.fftn(cuda((4, 6, 4), np.complex128)[::2, ::2]), (2, 3, 4), C16)
    # axes (0, 1): first axis included, adjacent -> _fftn, still fresh C
    assert fresh(F.fftn(cuda((2, 3, 4)), axes=(1, 0)), (2, 3, 4), C16)
    assert fresh(F.fft2(cuda((2, 3, 4)), axes=(0, 1)), (2, 3, 4), C16)
    # R2C / C2R with the plan: the last given axis changes length
    assert fresh(F.rfft2(cuda((2, 3, 4))), (2, 3, 3), C16)
    assert fresh(F.rfftn(cuda((2, 3, 4)), axes=(1, 2)), (2, 3, 3), C16)
    assert fresh(F.irfftn(cuda((2, 3, 4), np.complex64)), (2, 3, 6), F4)
    assert fresh(F.irfft2(cuda((2, 3, 4)), s=(3, 7)), (2, 3, 7), F8)
    # both C and F contiguous (length-1 axes): _exec_fftn picks C first
    assert fresh(F.fft2(cuda((1, 5), np.complex64)), (1, 5), C8)


def test_f_contiguous_r2c_uses_1d_path():
    """_default_fft_func: F-contiguous input with R2C/C2R goes to _fft."""
    x = cuda((2, 3, 4), order="F")
    # R2C on the last axis, then C2C on axes -3 and -2: the last one (-2) is swapped
    assert temp_view(F.rfftn(x), (2, 3, 3), C16, swapped((2, 3, 3), 1, 16))
    assert fresh(F.irfft2(x), (2, 3, 6), F8)


def test_nd_astype_k_to_f_order():
    """An int input whose order-K copy is F-contiguous would make an F-order R2C plan."""
    x = cuda((6, 4), np.int32).T[:, ::2]  # (4, 3), strides (4, 48): K copy is F
    with pytest.raises(ft.UnsupportedOperationError):  # cuFFT's F-order R2C plan: not modelled
        F.rfft2(x)


def test_s_and_n():
    """_cook_shape: a[0:s] slicing (Python rules for negatives) or zero padding."""
    x = cuda((2, 3, 4))
    assert fresh(F.fft(x, n=7), (2, 3, 7), C16)
    assert fresh(F.fft(x, n=-1), (2, 3, 3), C16)   # slice(0, -1)
    assert fresh(F.fftn(x, s=(5, 2)), (2, 5, 2), C16)
    assert fresh(F.fftn(x, s=(3, 3, 3)), (3, 3, 3), C16)
    assert fresh(F.rfft(x, n=9), (2, 3, 5), C16)
    assert fresh(F.irfft(x, n=7), (2, 3, 7), F8)
    assert fresh(F.hfft(cuda((3, 4), np.complex64), n=3), (3, 3), F4)
    assert fresh(F.ihfft(x, n=6), (2, 3, 4), C16)
    with pytest.raises(ValueError):
        F.fft(x, n=0)
    with pytest.raises(ValueError):
        F.fft(x, n=-4)  # slice(0, -4) of 4: empty
    with pytest.raises(ValueError):
        F.fft2(x, s=(2,), axes=(0, 1))
    with pytest.raises(ft.UnsupportedOperationError):
        F.fft(x, n=2.5)


def test_input_itself_and_empty_axes():
    x = cuda((2, 3))
    assert F.fftn(x, axes=()) is x          # C2C returns a, even unconverted
    assert F.fft2(x, axes=[]) is x
    with pytest.raises(IndexError):
        F.rfftn(x, axes=())
    z = cuda((), np.complex64)
    assert F.fftn(z) is z                   # 0-d: no axes


def test_hfft_ihfft():
    """hfft = irfft(a.conj(), ...); ihfft = rfft(...).conj(): a fresh C copy."""
    x = cuda((4, 6), np.complex128)
    assert temp_view(F.hfft(x, axis=0), (6, 6), F8, swapped((6, 6), 0, 8))
    assert fresh(F.ihfft(cuda((4, 6)), axis=0), (3, 6), C16)
    r = F.irfft(cuda((4, 6), np.float16), axis=0)  # caster: a float16 order-K copy
    assert r.dtype == F2 and r.shape == (6, 6) and r.strides == (2, 12) and r.base is None


def test_errors():
    x = cuda((2, 3))
    with pytest.raises(ValueError):
        F.fft(x, norm="bad")
    with pytest.raises(ValueError):
        F.fftn(x, norm="bad")
    with pytest.raises(ValueError):
        F.hfft(x, norm="bad")      # _swap_direction
    with pytest.raises(ValueError):
        F.fftn(x, axes=(0, 2))     # _prep_fftn_axes
    with pytest.raises(ValueError):
        F.fft(x, axis=2)           # 2 % 2 == 0: swapaxes(2, -1) is out of range
    assert fresh(F.fft(x, axis=3), (2, 3), C16)  # 3 % 2 == 1: the last axis, no check
    with pytest.raises(IndexError):
        F.fft(x, n=4, axis=5)      # a.shape[axis] in _cook_shape
    with pytest.raises(ZeroDivisionError):
        F.fft(cuda(()))            # axis % a.ndim
    with pytest.raises(TypeError):
        F.fft(ft.empty((3,)))      # a CPU fake
    with ft.FakeMode(device="cuda:0"):
        with pytest.raises(AttributeError):
            F.fft2([[1, 2]])       # _default_fft_func reads a.ndim
        with pytest.raises(TypeError):
            F.fft([1, 2])          # _fft's isinstance check
    with pytest.raises(ft.UnsupportedOperationError):
        F.fft(cuda((3,), dev=1))   # another device
    with pytest.raises(ft.UnsupportedOperationError):
        F.irfft(cuda((1, 1)))      # a 0-point C2R plan: cuFFT's error


def test_numpy_fft_reaches_cupy_rule():
    x = cuda((4, 5))
    assert temp_view(np.fft.fft(x, axis=0), (4, 5), C16, swapped((4, 5), 0, 16))
    assert fresh(np.fft.rfft2(x), (4, 3), C16)


# --- fftfreq / rfftfreq / fftshift / ifftshift ----------------------------------------------

def test_freqs_inside_mode():
    with ft.FakeMode(device="cuda:0"):
        assert fresh(F.fftfreq(10), (10,), F8)
        assert fresh(F.fftfreq(7, 0.5), (7,), F8)
        assert fresh(F.rfftfreq(9), (5,), F8)
        assert fresh(F.fftfreq(4, 1j), (4,), C16)
        assert fresh(F.fftfreq(-3), (0,), F8)   # empty aranges
        assert fresh(F.rfftfreq(0), (1,), F8)
        assert fresh(F.fftfreq(4.0), (4,), F8)
        with cupy.cuda.Device(1):
            assert F.rfftfreq(4).fake_device == "cuda:1"


@pytest.mark.parametrize("key", list(AWKWARD))
def test_fftshift_is_roll(key):
    """rearrange.py roll with axes: empty_like(a), order K."""
    x = AWKWARD[key]()
    for r in (F.fftshift(x), F.ifftshift(x, axes=1), F.fftshift(x, axes=(0, -1))):
        assert r.shape == x.shape and r.base is None and r.storage is not x.storage
        want = ft.empty(x.shape, order="F" if (x.flags.f_contiguous and not x.flags.c_contiguous)
                        else "C")
        if x.flags.c_contiguous or x.flags.f_contiguous:
            assert r.strides == want.strides


def test_fftshift_errors():
    with pytest.raises(ValueError):
        F.fftshift(cuda(()))            # roll of a 0-d array
    with pytest.raises(IndexError):
        F.fftshift(cuda((2, 3)), axes=(2,))
    with pytest.raises(TypeError):
        F.fftshift(cuda((2, 3)), axes=np.int64(0))  # not a Python int: iterated


# --- inside FakeMode ------------------------------------------------------------------------

def test_inside_mode_and_memory():
    with ft.FakeMode(device="cuda:0", record=True) as m:
        y = cupy.zeros((64, 64), np.complex64)
        r = F.fft(y, axis=0)          # a view of a fresh (64, 64) complex64 temporary
        assert temp_view(r, (64, 64), C8, (8, 512))
        assert m.memory.live["cuda:0"] == 2 * 64 * 64 * 8
        s = F.rfft2(cupy.zeros((8, 16), np.float32))
        assert fresh(s, (8, 9), C8)
        del r
        assert m.memory.live["cuda:0"] == 64 * 64 * 8 + 8 * 9 * 8
        assert fresh(np.fft.ifft2(y), (64, 64), C8)
