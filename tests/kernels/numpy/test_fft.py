"""Differential tests for the np.fft kernels (kernels/numpy/fft.py) against real NumPy."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import faketensor as ft
from oracle import arrays, check
from test_linalg_solve import KINDS, lay

F = np.fft
DTS = [np.float64, np.float32, np.complex64, np.complex128, np.int64, np.int8, np.bool_,
       np.float16, np.longdouble, np.clongdouble, np.dtype(">f8"), np.dtype("U2")]
SHAPES = [(5,), (4, 6), (2, 3, 4), (0,), (3, 0), (1,), (), (2, 1, 3)]
ONE_D = [F.fft, F.ifft, F.rfft, F.irfft, F.hfft, F.ihfft]
N_D = [F.fftn, F.ifftn, F.fft2, F.ifft2, F.rfftn, F.irfftn, F.rfft2, F.irfft2]


def _inputs(dts=DTS, kinds=KINDS):
    for shape in SHAPES:
        for dt in dts:
            for kind in kinds:
                yield lay(np.ones(shape, dt) if np.dtype(dt).kind != "U" else np.zeros(shape, dt),
                          kind)


def _check(fn, *a, **kw):
    try:
        check(fn, *a, **kw)
    except ft.UnsupportedOperationError:
        assert a[0].dtype.kind == "U", (fn, a[0].dtype)


@pytest.mark.parametrize("fn", ONE_D, ids=lambda f: f.__name__)
def test_one_d(fn):
    for a in _inputs():
        _check(fn, a)
        for ax in (0, -2, 5):
            _check(fn, a, axis=ax)
        for n in (1, 4, 7, 0, -1):
            _check(fn, a, n=n)
        for norm in ("ortho", "forward", "backward", "bad"):
            _check(fn, a, norm=norm)


@pytest.mark.parametrize("fn", N_D, ids=lambda f: f.__name__)
def test_n_d(fn):
    for a in _inputs(DTS[:8], ["c", "f", "perm", "rev"]):
        _check(fn, a)
        _check(fn, a, axes=(0,))
        _check(fn, a, s=(3,), axes=(-1,))
        _check(fn, a, s=(3, 4), axes=(0, -1), norm="ortho")
        _check(fn, a, s=(3, 4), axes=(0,))
        _check(fn, a, s=(-1, 2), axes=(-1, 0))
        _check(fn, a, axes=(0, 0))
        _check(fn, a, axes=(9,))


@pytest.mark.parametrize("fn", [F.fftshift, F.ifftshift], ids=lambda f: f.__name__)
def test_shifts(fn):
    for a in _inputs(DTS[:6]):
        for axes in (None, 0, -1, (0, -1), (), 9):
            check(fn, a, axes=axes)


def test_out():
    a = np.ones((3, 8))
    for dt in (np.complex128, np.complex64, np.float64, np.float32):
        for o in (np.empty((3, 8), dt), np.empty((8, 3), dt).T, np.empty((3, 5), dt),
                  np.empty((1, 8), dt), np.empty((8,), dt)):
            for fn in (F.fft, F.ifft, F.rfft, F.ihfft, F.fftn, F.fft2, F.ifft2, F.rfftn):
                check(fn, a, out=o)
            check(F.irfft, a.astype(complex), out=o)
            check(F.irfftn, a.astype(complex), out=o)
            check(F.hfft, a, out=o)
    ro = np.empty((3, 8), complex)
    ro.flags.writeable = False
    check(F.fft, a, out=ro)
    check(F.fft, np.ones((1, 8)), out=np.empty((3, 8), complex))


def test_freqs_in_mode():
    for n, d in [(5, 1.0), (8, 0.1), (1, 2), (0, 1.0), (6, np.float32(0.5)), (4, 0), (-2, 1.0),
                 (2.5, 1.0), (np.int16(7), 1.0)]:
        for fn in (F.fftfreq, F.rfftfreq):
            try:
                r = fn(n, d)
            except Exception as e:  # the same exception type on fakes
                with ft.FakeMode(), pytest.raises(type(e)):
                    fn(n, d)
                continue
            with ft.FakeMode():
                f = fn(n, d)
            assert ft.is_fake(f)
            assert (f.shape, f.dtype, f.strides) == (r.shape, r.dtype, r.strides)
            assert f.flags.owndata == r.flags.owndata


def test_in_fake_mode():
    with ft.FakeMode():
        x = np.zeros((4, 6), np.float32)
        y = np.fft.rfft2(x)
        z = np.fft.fftshift(np.fft.fft(x, axis=0))
    assert ft.is_fake(y) and y.dtype == np.complex64 and y.shape == (4, 4)
    assert ft.is_fake(z) and z.shape == (4, 6)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(arrays(min_dims=1, max_dims=3), st.sampled_from(ONE_D + N_D), st.integers(-3, 2),
       st.sampled_from([None, 1, 3, 6]))
def test_hypothesis(a, fn, axis, n):
    if fn in ONE_D:
        _check(fn, a, n=n, axis=axis)
    else:
        _check(fn, a, s=None if n is None else (n,), axes=(axis,))
