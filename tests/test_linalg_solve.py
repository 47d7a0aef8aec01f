"""Differential tests for np.linalg kernels (kernels/linalg_solve.py) against real NumPy."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import faketensor as ft
from oracle import check, layouts, run_both, compare_meta

L = np.linalg
VALUE_ERRORS = ("Singular", "not positive definite", "did not converge", "Incorrect argument")
FAST = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
DTS = [np.float64, np.float32, np.complex64, np.complex128, np.int64, np.int8, np.bool_,
       np.uint16, np.float16, np.longdouble, np.dtype(">f8")]


def vcheck(fn, *args, **kw):
    """check(), skipping cases where NumPy raised a value-dependent LinAlgError."""
    r, f, ri, fi = run_both(fn, args, kw)
    if isinstance(f, ft.DataDependentError):
        return f
    if isinstance(r, L.LinAlgError) and any(s in str(r) for s in VALUE_ERRORS):
        assert not isinstance(f, Exception) or isinstance(f, L.LinAlgError), f
        return r
    return check(fn, *args, **kw)


def mat(shape, dt, kind="c", rng=None):
    """A well-conditioned (diagonally dominant, symmetric) real array of an awkward layout."""
    dt = np.dtype(dt)
    base = np.zeros(shape, dt)
    if len(shape) >= 2 and 0 not in shape:
        m, n = shape[-2:]
        k = np.arange(m)[:, None] + np.arange(n)[None, :]
        vals = (np.eye(m, n) * 4 + 1 / (1 + k)) if dt.kind != "b" else np.eye(m, n)
        base[...] = vals.astype(dt) if dt.kind not in "iu" else (np.eye(m, n) * 4 + 1).astype(dt)
    elif 0 not in shape:
        base[...] = 1
    return lay(base, kind)


def lay(a, kind):
    if kind == "f":
        return np.asfortranarray(a)
    if kind == "t" and a.ndim:
        return np.ascontiguousarray(a.T).T
    if kind == "rev" and a.ndim > 2:
        return a[::-1]
    if kind == "step" and a.ndim:
        big = np.repeat(a, 2, axis=0)
        return big[::2]
    if kind == "bcast" and a.ndim > 2:
        return np.broadcast_to(a[:1], a.shape)
    if kind == "perm" and a.ndim > 2:
        p = list(range(a.ndim))[::-1]
        return np.ascontiguousarray(a.transpose(p)).transpose(p)
    return a


KINDS = ["c", "f", "t", "rev", "step", "bcast", "perm"]
SQUARE = [(3, 3), (2, 4, 4), (3, 2, 2, 2), (0, 0), (2, 0, 0), (0, 3, 3), (1, 1), (2, 3, 1, 1)]
RECT = SQUARE + [(3, 2), (2, 5), (2, 3, 4), (4, 1), (0, 3), (3, 0), (2, 2, 0)]


@st.composite
def mats(draw, shapes, dts=DTS):
    return mat(draw(st.sampled_from(shapes)), draw(st.sampled_from(dts)),
               draw(st.sampled_from(KINDS)))
