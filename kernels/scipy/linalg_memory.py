"""What scipy.linalg's functions take from NumPy's data allocator while they run, to the byte.

The result layouts come from the probe (kernels/scipy/linalg.py); the bytes come from here:
one small model per function replaying, on a ``Steps`` record, the allocations of SciPy's
Python (scipy/linalg/_decomp_qr.py, _decomp_svd.py, _decomp_lu.py, _basic.py) and of the
f2py wrappers it calls (scipy/linalg/flapack*.pyf.src):

- ``np.asarray_chkfinite`` (check_finite=True) makes ``isfinite(a)`` (one byte per
  element) and the 0-d bool of its ``.all()`` for float and complex inputs.
- f2py's ``array_from_pyobj`` copies an argument into a new Fortran array when it is not
  Fortran-contiguous, not of the routine's dtype, or declared ``intent(copy)`` without
  ``overwrite_x=1``; outputs and ``intent(hide)`` work arrays are new NumPy arrays, alive
  together during the call (scipy/_lib/_fortranobject.c ``ndarray_from_pyobj``).
- LAPACK's workspace sizes come from LAPACK itself: the ``*_lwork`` wrappers SciPy calls
  (``_compute_lwork``), which take sizes only. Where SciPy instead calls the routine with
  ``lwork=-1`` (``safecall`` in _decomp_qr.py) and no ``*_lwork`` wrapper exists, the size
  comes from the routine's documented formula with the block size LAPACK's ``ilaenv``
  reports (read once from a query on a 2 x 2 probe). These queries run inside a mode: they
  take sizes, not arrays, and cost the same at any size (no work in proportion to the
  inputs).

A model returns normally when it covers the call; for a case it does not cover it calls
``registry.unmodelled`` (the plan then lists the function under ``memory_unmodelled``).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np
from scipy.linalg import get_lapack_funcs
from scipy.linalg.lapack import find_best_lapack_type

from ..._numpy_version import scipy_version
from ..numpy.creation import tri_mask
from ..numpy.temporaries import Steps, array_bytes
from ..registry import unmodelled

_INEXACT = "efdgFDG"  # numpy.typecodes["AllFloat"]: asarray_chkfinite scans these
_I32 = 4  # f2py's ``integer``: LP64 LAPACK


def nbytes(shape: tuple, dt: Any) -> int:
    return array_bytes(tuple(shape), dt)


def chkfinite(s: Steps, a: Any, check: bool) -> None:
    """``np.asarray_chkfinite(a)`` (numpy/lib/_function_base_impl.py): ``isfinite(a).all()``
    for float and complex dtypes, both freed before it returns."""
    if check and a.dtype.char in _INEXACT:
        m = s.new(nbytes(a.shape, np.bool_))
        s.temp(1)
        s.free(m)


def lapack_dtype(*arrays: Any) -> np.dtype:
    """The dtype of the routine ``get_lapack_funcs`` picks (scipy/linalg/blas.py
    ``find_best_blas_type``), from zero-size stand-ins of the arrays' dtypes."""
    return find_best_lapack_type(tuple(np.empty(0, a.dtype) for a in arrays))[1]


def f2py_in(s: Steps, a: Any, dt: np.dtype, copy: bool, overwrite: bool = False,
            shape: tuple | None = None) -> int:
    """Bytes f2py allocates to pass ``a`` to a Fortran routine (alive until the call ends,
    or returned): a Fortran copy when ``intent(copy)`` is not overridden by ``overwrite``,
    or ``a`` is not Fortran-contiguous or not of the routine's dtype; else 0."""
    shape = tuple(a.shape) if shape is None else shape
    fortran = a.flags.f_contiguous and a.flags.aligned
    if (copy and not overwrite) or not fortran or a.dtype != dt or (
            copy and not a.flags.writeable):
        return s.new(nbytes(shape, dt))
    return 0


def _int(v: Any) -> int:
    return int(np.asarray(v).real)


def lwork_of(routine: str, dt: np.dtype, *args: Any, **kwargs: Any) -> Any:
    """LAPACK's optimal workspace from a ``*_lwork`` wrapper (sizes only), rounded as
    scipy/linalg/lapack.py ``_compute_lwork`` does (``_check_work_float``)."""
    from scipy.linalg.lapack import _check_work_float
    fn = get_lapack_funcs(routine + "_lwork", dtype=dt)
    ret = fn(*args, **kwargs)
    vals = [_check_work_float(np.asarray(x).real, fn.dtype, fn.int_dtype) for x in ret[:-1]]
    return vals[0] if len(vals) == 1 else tuple(vals)


def safecall_lwork(routine: str, dt: np.dtype, *args: Any) -> int:
    """``int(work[0].real)`` of an ``lwork=-1`` query, as _decomp_qr.py ``safecall`` reads it."""
    fn = get_lapack_funcs(routine + "_lwork", dtype=dt)
    return _int(fn(*args)[0])


@functools.lru_cache(maxsize=None)
def block_size(routine: str, dt: np.dtype) -> int:
    """ilaenv's block size NB (one value at every size in LAPACK's reference ilaenv) from
    a workspace query on a 2 x 2 probe: orgqr/ungqr ask for N * NB, geqp3 for
    2N + (N + 1) NB (real) or (N + 1) NB (complex) (LAPACK dorgqr.f, dgeqp3.f, zgeqp3.f)."""
    fn = get_lapack_funcs(routine, dtype=dt)
    a = np.zeros((2, 2), dt, order="F")
    if routine in ("orgqr", "ungqr"):
        return _int(fn(a, np.zeros(2, dt), lwork=-1)[-2][0]) // 2
    w = _int(fn(a, lwork=-1)[-2][0])
    return (w - 4) // 3 if dt.kind == "f" else w // 3


def scalar_int(s: Steps, dt: np.dtype) -> None:
    """``work[0].real.astype(np.int_)`` on a NumPy scalar: the scalar's 0-d array and the
    cast's, both dropped at once."""
    s.temp(np.dtype(dt).itemsize // (2 if np.dtype(dt).kind == "c" else 1) + 8)


def triu_bytes(s: Steps, m: int, n: int, dt: np.dtype) -> int:
    """``np.triu`` of an (m, n) array: tri's mask and the 1-element zero with the result
    (numpy/lib/_twodim_base_impl.py; kernels/numpy/twodim_base.py ``_tri_like``)."""
    mask = tri_mask(s, m, n, -1)
    zero = s.new(nbytes((1,), dt))
    out = s.new(nbytes((m, n), dt))
    s.free(mask, zero)
    return out


# --- the models (each returns normally, or calls ``unmodelled``) ---------------------------

def qr(a: Any, overwrite_a: bool = False, lwork: Any = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> None:
    """scipy/linalg/_decomp_qr.py ``qr``: geqrf (or geqp3) through ``safecall`` (a query
    with lwork=-1 whose results stay alive through the call; both copy ``a``, which is
    intent(in,out,copy)), ``np.triu`` for R, then orgqr/ungqr through ``safecall`` with
    overwrite_a=1 on ``qr`` (economic), ``qr[:, :M]`` (M < N: Q is that view of qr), or a
    C-ordered ``np.empty((M, M))`` that f2py copies to Fortran order at each call (full)."""
    if len(a.shape) != 2 or lwork is not None:
        return unmodelled("a stacked input or an explicit lwork")
    M, N = a.shape
    if M == 0 or N == 0:
        return unmodelled("an empty input")
    s = Steps()
    chkfinite(s, a, check_finite)
    K = min(M, N)
    dt = lapack_dtype(a)
    isz = dt.itemsize
    real = dt.char.lower()
    piv = nbytes((N,), np.int32) if pivoting else 0
    rw = nbytes((2 * N,), real) if pivoting and dt.kind == "c" else 0
    if pivoting:
        nb = block_size("geqp3", dt)
        lw = max(1, 2 * N + (N + 1) * nb) if dt.kind == "f" else max(1, (N + 1) * nb)
    else:
        lw = safecall_lwork("geqrf", dt, M, N)
    query = [f2py_in(s, a, dt, True, overwrite_a), s.new(piv), s.new(nbytes((K,), dt)),
             s.new(isz)]
    s.temp(rw)  # hidden: freed when the query returns
    scalar_int(s, dt)
    qr_ = f2py_in(s, a, dt, True, overwrite_a)
    jpvt, tau = s.new(piv), s.new(nbytes((K,), dt))
    work, rwork = s.new(nbytes((lw,), dt)), s.new(rw)
    s.free(*query)  # ret = f(...) drops the query's results
    s.free(work, rwork)  # ret[:-2] drops work
    if pivoting:
        s.temp(4)  # jpvt -= 1: the 1 as a 0-d int32 array
    triu_bytes(s, M if (mode not in ("economic", "raw") or M < N) else N, N, dt)
    if mode == "r":
        s.free(qr_, tau)
    if mode in ("r", "raw"):
        s.done()
        return None
    gq = "ungqr" if dt.kind == "c" else "orgqr"
    nb = block_size(gq, dt)
    cols = M if (M < N or mode != "economic") else N
    qqr = 0
    if M >= N and mode != "economic":
        qqr = s.new(nbytes((M, M), dt))  # C order: f2py copies it unless M == 1
    cp = nbytes((M, M), dt) if qqr and M > 1 else 0
    query = [s.new(cp), s.new(isz)]
    scalar_int(s, dt)
    q = s.new(cp)
    w = s.new(nbytes((max(1, cols) * nb,), dt))
    s.free(*query)
    s.free(w, tau, qqr)
    if M >= N and mode != "economic":
        s.free(qr_)
    if qqr and not cp:
        s.keep(qqr)  # f2py returned qqr itself
    del q, jpvt
    s.done()
    return None


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        overwrite_a: bool = False, check_finite: bool = True,
        lapack_driver: str = "gesdd") -> None:
    """scipy/linalg/_decomp_svd.py ``svd``: ``_compute_lwork(gesXd_lwork, m, n)`` then one
    gesdd/gesvd call: a copied (intent(in,copy)), u, s, vt, work, gesdd's iwork (8K) and
    the complex routines' rwork (flapack_gen.pyf.src)."""
    if len(a.shape) != 2 or lapack_driver not in ("gesdd", "gesvd"):
        return unmodelled("a stacked input or an unknown driver")
    if 0 in a.shape:
        return unmodelled("an empty input")
    s = Steps()
    chkfinite(s, a, check_finite)
    u, sv, vt = _svd(s, a, full_matrices, compute_uv, overwrite_a, lapack_driver)
    if not compute_uv:
        s.free(u, vt)
    s.done()
    return None


def _svd(s: Steps, a: Any, full_matrices: bool, compute_uv: bool, overwrite_a: bool,
         lapack_driver: str) -> tuple:
    """The gesdd/gesvd call of ``svd`` on ``s``: (u, s, vt) bytes, alive on return."""
    m, n = a.shape
    dt = lapack_dtype(a)
    k = min(m, n)
    lw = lwork_of(lapack_driver, dt, m, n, compute_uv=compute_uv, full_matrices=full_matrices)
    a1 = f2py_in(s, a, dt, True, overwrite_a)
    real = dt.char.lower()
    if compute_uv:
        us = (m, m if full_matrices else k)
        vs = (n if full_matrices else k, n)
    else:
        us = vs = (1, 1)
    u = s.new(nbytes(us, dt))
    sv = s.new(nbytes((k,), real))
    vt = s.new(nbytes(vs, dt))
    hidden = [a1, s.new(nbytes((lw,), dt))]
    if dt.kind == "c":
        if lapack_driver == "gesdd":
            lr = (max(5 * k * k + 7 * k, 2 * max(m, n) * k + 2 * k * k + k) if compute_uv
                  else 7 * k)
        else:
            lr = 5 * k
        hidden.append(s.new(nbytes((lr,), real)))
    if lapack_driver == "gesdd":
        hidden.append(s.new(nbytes((8 * k,), np.int32)))
    s.free(*hidden)
    return u, sv, vt


def pinv(a: Any, *, atol: Any = None, rtol: Any = None, return_rank: bool = False,
         check_finite: bool = True) -> None:
    """scipy/linalg/_basic.py ``pinv``: the economic svd, ``np.max(s)`` and
    ``np.sum(s > val)`` (0-d results, the bool mask), ``u /= s[:rank]`` in place, then
    ``(u @ vh[:rank]).conj().T``: the product (m, n) whatever the rank, and for complex
    dtypes its conjugate."""
    if len(a.shape) != 2 or 0 in a.shape:
        return unmodelled("a stacked or empty input")
    s = Steps()
    chkfinite(s, a, check_finite)
    m, n = a.shape
    dt = lapack_dtype(a)
    u, sv, vt = _svd(s, a, False, True, False, "gesdd")
    s.temp(8)  # np.max(s, initial=0.)
    mask = s.new(nbytes((min(m, n),), np.bool_))
    s.temp(8)  # the sum
    s.free(mask)
    prod = s.new(nbytes((m, n), dt))
    if dt.kind == "c":
        s.new(nbytes((m, n), dt))
        s.free(prod)
    s.free(u, sv, vt)
    s.done()
    return None


def eig(a: Any, b: Any = None, left: bool = False, right: bool = True,
        overwrite_a: bool = False, overwrite_b: bool = False, check_finite: bool = True,
        homogeneous_eigvals: bool = False) -> None:
    """scipy/linalg/_decomp.py ``eig`` for the standard problem: ``_compute_lwork`` of
    geev_lwork, then geev (a copied, w or wr and wi, vl and vr (1 x 1 when not asked for),
    work, complex rwork (2n)); real: ``wr + _I * wi``; then ``np.all(w.imag == 0.0)``."""
    if b is not None or homogeneous_eigvals:
        return unmodelled("the generalized problem or homogeneous eigenvalues")
    if len(a.shape) != 2 or 0 in a.shape:
        return unmodelled("a stacked or empty input")
    s = Steps()
    chkfinite(s, a, check_finite)
    n = a.shape[0]
    dt = lapack_dtype(a)
    real = dt.char.lower()
    cplx = dt.kind == "c"
    lw = lwork_of("geev", dt, n, compute_vl=int(left), compute_vr=int(right))
    a1 = f2py_in(s, a, dt, True, overwrite_a)
    w = [s.new(nbytes((n,), dt))] if cplx else [s.new(nbytes((n,), real)) for _ in "ri"]
    vl = s.new(nbytes((n, n) if left else (n, 1), dt))
    vr = s.new(nbytes((n, n) if right else (n, 1), dt))
    hidden = [a1, s.new(nbytes((lw,), dt))]
    if cplx:
        hidden.append(s.new(nbytes((2 * n,), real)))
    s.free(*hidden)
    cdt = np.result_type(real, np.complex64)
    if not cplx:
        t = s.new(nbytes((n,), cdt))
        wc = s.new(nbytes((n,), cdt))
        s.free(t)
    mask = s.new(nbytes((n,), np.bool_))
    s.temp(1)
    s.free(mask)
    if not cplx:
        s.free(*w)
    if not left:
        s.free(vl)
    if not right:
        s.free(vr)
    s.done()
    return None


def eigvals(a: Any, b: Any = None, overwrite_a: bool = False, check_finite: bool = True,
            homogeneous_eigvals: bool = False) -> None:
    """``eig(a, b, left=0, right=0, ...)`` (_decomp.py ``eigvals``)."""
    return eig(a, b, left=False, right=False, overwrite_a=overwrite_a,
               check_finite=check_finite, homogeneous_eigvals=homogeneous_eigvals)


def svdvals(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> None:
    """``svd(a, compute_uv=0, ...)`` (_decomp_svd.py ``svdvals``)."""
    return svd(a, compute_uv=False, overwrite_a=overwrite_a, check_finite=check_finite)


def _normalized(s: Steps, a: Any, overwrite_a: bool, cast1: bool) -> tuple:
    """``_normalize_lapack_dtype`` (lapack.py): an ``astype`` copy to the LAPACK dtype."""
    if cast1:  # det's _normalize_lapack_dtype1: anything not fdFD, by _lapack_cast_dict
        if a.dtype.char in "fdFD":
            return a.dtype, 0, overwrite_a
        from scipy.linalg.lapack import _lapack_cast_dict
        dt = np.dtype(_lapack_cast_dict[a.dtype.char][0])
    else:
        dt = lapack_dtype(a)
        if dt.char == a.dtype.char:
            return dt, 0, overwrite_a
    return dt, s.new(nbytes(a.shape, dt)), True


def _c_work(s: Steps, a: Any, dt: np.dtype, cast: int, ow: bool) -> int:
    """det's and lu's working array (_basic.py ``det``, _decomp_lu.py ``lu``): the cast
    (``astype``, order K) or a C copy unless overwriting is allowed; then a C copy when it
    is not C-contiguous and writeable (the cast is dropped once the copy exists)."""
    if cast:
        c_order = len(a.shape) < 2 or min(a.shape[-2:]) <= 1 or (
            abs(a.strides[-2]) >= abs(a.strides[-1]))
        if c_order:
            return cast
        c = s.new(cast)
        s.free(cast)
        return c
    if not ow or not (a.flags.c_contiguous and a.flags.writeable):
        return s.new(nbytes(a.shape, dt))
    return 0


def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> None:
    """scipy/linalg/_basic.py ``det``: a C-ordered writeable copy (unless it may overwrite
    a C-contiguous writeable input) that the Cython ``find_det_from_lu`` factors in place;
    the result is a 0-d array made into a NumPy scalar (np.float64/np.complex128)."""
    s = Steps()
    chkfinite(s, a, check_finite)
    if len(a.shape) != 2:
        return unmodelled("a stacked input")
    dt, cast, ow = _normalized(s, a, overwrite_a, True)
    if 0 in a.shape:
        return unmodelled("an empty input")
    if a.shape == (1, 1):  # a1[..., 0, 0][()]: a scalar; float32/complex64 made double
        if dt.char in "fF":
            s.temp(dt.itemsize + 2 * dt.itemsize)  # the scalar's 0-d array and the cast's
        s.free(cast)
        s.done()
        return None
    work = _c_work(s, a, dt, cast, ow)
    s.temp(16 if dt.kind == "c" else 8)  # np.float64(det): the 0-d array of asarray
    s.free(work)
    s.done()
    return None


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True,
       p_indices: bool = False) -> None:
    """scipy/linalg/_decomp_lu.py ``lu``: a C copy factored in place by the Cython
    ``lu_dispatcher`` with p (int32, m) and the other factor (k, k); P's one-hot matrix."""
    s = Steps()
    chkfinite(s, a, check_finite)
    if len(a.shape) != 2:
        return unmodelled("a stacked input")
    dt, cast, ow = _normalized(s, a, overwrite_a, False)
    m, n = a.shape
    k = min(m, n)
    if k == 0:
        return unmodelled("an empty input")
    if (m, n) == (1, 1):  # ones_like (empty_like + copyto of the int 1), a1 or its copy
        from ..numpy.temporaries import copyto_bytes
        one = copyto_bytes(dt, 1)
        if permute_l:
            outs = [s.new(dt.itemsize)]
            s.temp(one)
        else:
            outs = [s.new(8 if p_indices else dt.itemsize)]
            if not p_indices:
                s.temp(one)
            outs.append(s.new(dt.itemsize))
            s.temp(one)
        if not (ow or cast):
            s.new(dt.itemsize)
        s.done()
        return None
    a1 = _c_work(s, a, dt, cast, ow)
    p = s.new(nbytes((m,), np.int32))
    s.new(nbytes((k, k), dt))
    s.temp(nbytes((m, n), dt))  # lu_dispatcher's work copy of the matrix
    if permute_l:
        s.free(p)
    elif not p_indices:
        real = "f" if dt.char in "fF" else "d"
        s.new(nbytes((m, m), real))
        r = s.new(nbytes((m,), np.intp))  # np.arange(m)
        s.temp(real != "" and np.dtype(real).itemsize)  # the scalar 1 as a 0-d array
        s.free(r, p)
    del a1
    s.done()
    return None


def solve_triangular(a: Any, b: Any, trans: Any = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False,
                     check_finite: bool = True) -> None:
    """scipy/linalg/_basic.py ``_solve_triangular``: trtrs on ``a`` (or ``a.T`` when ``a``
    is not Fortran-ordered: then C-contiguous input needs no copy) and b (intent(in,out,copy))."""
    s = Steps()
    chkfinite(s, a, check_finite)
    chkfinite(s, b, check_finite)
    if len(a.shape) != 2 or len(b.shape) not in (1, 2) or 0 in b.shape:
        return unmodelled("a stacked or empty input")
    dt = lapack_dtype(a, b)
    t = {"N": 0, "T": 1, "C": 2}.get(trans, trans)
    at = a if (a.flags.f_contiguous or t == 2) else a.T
    ac = f2py_in(s, at, dt, False)
    x = f2py_in(s, b, dt, True, overwrite_b)
    s.free(ac)
    del x
    s.done()
    return None


def eigh(a: Any, b: Any = None, *, lower: bool = True, eigvals_only: bool = False,
         overwrite_a: bool = False, overwrite_b: bool = False, type: int = 1,
         check_finite: bool = True, subset_by_index: Any = None, subset_by_value: Any = None,
         driver: Any = None) -> None:
    """scipy/linalg/_decomp.py ``eigh`` for the standard problem: ``_compute_lwork`` of the
    driver's ``*_lwork`` wrapper, then one call (flapack_sym_herm.pyf.src): ``a`` copied
    (intent(in,copy,out)), w (n, real), and by driver: ev: work, heev's rwork (3n - 1);
    evd: work, iwork (liwork), heevd's rwork (lrwork); evr: z (n, m), isuppz (2n when all
    eigenvalues and vectors are asked for or complex, else none), work, iwork, heevr's rwork; evx: z (n, m),
    work, iwork (5n), ifail (n), heevx's rwork (7n). Without eigenvectors z and ifail are
    empty (1 byte each). ``w[:m]`` and ``v[:, :m]`` are views of them."""
    if b is not None or subset_by_value is not None:
        return unmodelled("the generalized problem or subset_by_value")
    if len(a.shape) != 2 or 0 in a.shape:
        return unmodelled("a stacked or empty input")
    s = Steps()
    chkfinite(s, a, check_finite)
    n = a.shape[0]
    dt = lapack_dtype(a)
    real = dt.char.lower()
    cplx = dt.kind == "c"
    driver = driver or "evr"
    pfx = "he" if cplx else "sy"
    vecs = not eigvals_only
    m = n if subset_by_index is None else int(subset_by_index[1]) - int(subset_by_index[0]) + 1
    kw: dict = {"n": n, "lower": lower}
    if driver == "evd":
        kw["compute_v"] = int(vecs)
    lw = lwork_of(pfx + driver, dt, **kw)
    lw = lw if isinstance(lw, tuple) else (lw,)
    names = {"syevd": ("lwork", "liwork"), "syevr": ("lwork", "liwork"),
             "heevd": ("lwork", "liwork", "lrwork"),
             "heevr": ("lwork", "lrwork", "liwork")}.get(pfx + driver, ("lwork",))
    w = dict(zip(names, lw))
    a1 = f2py_in(s, a, dt, True, overwrite_a)
    wv = s.new(nbytes((n,), real))
    z = 0
    if driver in ("evr", "evx"):
        z = s.new(nbytes((n, m) if vecs else (0,), dt))
    if driver == "evr":
        s.new(nbytes((2 * n,) if cplx or (vecs and m == n) else (0,), np.int32))  # isuppz
    s.new(nbytes((w["lwork"],), dt))
    if driver in ("evd", "evr"):
        s.new(nbytes((w["liwork"],), np.int32))
    if driver == "evx":
        s.new(nbytes((5 * n,), np.int32))
        s.new(nbytes((n,) if vecs else (0,), np.int32))  # ifail
    if cplx:
        s.new(nbytes(({"ev": 3 * n - 1, "evx": 7 * n}.get(driver) or w.get("lrwork", 0),),
                     real))
    s.live = wv + ((z if driver in ("evr", "evx") else a1) if vecs else 0)
    s.done()
    return None


def eigvalsh(a: Any, b: Any = None, **kwargs: Any) -> None:
    return eigh(a, b, eigvals_only=True, **kwargs)


def lstsq(a: Any, b: Any, cond: Any = None, overwrite_a: bool = False,
          overwrite_b: bool = False, check_finite: bool = True, lapack_driver: Any = None) -> None:
    """scipy/linalg/_basic.py ``lstsq``: b padded to n rows with ``np.zeros`` when m < n;
    ``_compute_lwork`` of the driver's ``*_lwork`` wrapper, then one call copying a and b
    (gelsd and gelsy are called with overwrite flags False) with s (min(m, n), real) and:
    gelsd: work, iwork (and rwork, complex); gelss: work (returned), rwork (5 min(m, n),
    complex); gelsy: the int32 (n, 1) pivots SciPy makes, work, rwork (2n, complex). The
    empty residues array (1 byte) is made after the call."""
    driver = lapack_driver or "gelsd"
    if len(a.shape) != 2 or len(b.shape) not in (1, 2) or 0 in a.shape or 0 in b.shape:
        return unmodelled("an empty or stacked input")
    if driver not in ("gelsd", "gelss", "gelsy"):
        return None  # SciPy's ValueError
    s = Steps()
    chkfinite(s, a, check_finite)
    chkfinite(s, b, check_finite)
    m, n = a.shape
    nrhs = b.shape[1] if len(b.shape) == 2 else 1
    dt = lapack_dtype(a, b)
    real = dt.char.lower()
    cplx = dt.kind == "c"
    k = min(m, n)
    b1: Any = b
    pad = 0
    if m < n:
        pad = s.new(nbytes((n, nrhs) if len(b.shape) == 2 else (n,), dt))
        b1 = None
    eps = float(np.finfo(dt).eps) if cond is None else cond
    lw = lwork_of(driver, dt, m, n, nrhs, eps)
    lw = lw if isinstance(lw, tuple) else (lw,)
    jpvt = s.new(nbytes((n, 1), np.int32)) if driver == "gelsy" else 0
    ow = driver == "gelss"
    ac = f2py_in(s, a, dt, True, ow and overwrite_a)
    xshape = (max(m, n), nrhs) if len(b.shape) == 2 else (max(m, n),)
    x = s.new(nbytes(xshape, dt)) if b1 is None else f2py_in(s, b, dt, True, ow and overwrite_b)
    sv = s.new(nbytes((k,), real)) if driver != "gelsy" else 0
    work = s.new(nbytes((lw[0],), dt))
    hidden = [work] if driver != "gelss" else []
    if driver == "gelsd":
        hidden.append(s.new(nbytes((lw[-1],), np.int32)))
        if cplx:
            hidden.append(s.new(nbytes((lw[1],), real)))
    elif cplx:
        hidden.append(s.new(nbytes((5 * k if driver == "gelss" else 2 * n,), real)))
    s.free(*hidden)
    s.new(1)  # the empty residues
    s.free(pad, jpvt, ac, work if driver == "gelss" else 0)
    del x, sv
    s.done()
    return None


def norm(a: Any, ord: Any = None, axis: Any = None, keepdims: bool = False,
         check_finite: bool = True) -> None:
    """scipy/linalg/_misc.py ``norm``: BLAS nrm2 for a 1-d float vector (f2py copies a
    non-contiguous one), LAPACK lange for the 1- and inf-norms of a Fortran-ordered matrix
    or its transpose (work: one real per row, and the real it returns), else
    ``np.linalg.norm``, whose bytes are NumPy's kernel's (kernels/numpy/linalg.py)."""
    from ..numpy.hidden import call_step
    from ..numpy.linalg import norm as np_norm
    s = Steps()
    chkfinite(s, a, check_finite)
    nd = len(a.shape)
    if a.size and a.dtype.char in "fdFD" and axis is None and not keepdims:
        if ord in (None, 2) and nd == 1:
            f2py_in(s, a, a.dtype, False)
            s.live = 0
            s.done()
            return None
        if nd == 2 and not isinstance(ord, str) and ord in (1, np.inf):
            fa = a.flags.f_contiguous and not a.flags.c_contiguous
            ft = a.flags.c_contiguous and not a.flags.f_contiguous
            if fa or ft:
                rows = a.shape[0] if fa else a.shape[1]
                real = a.dtype.char.lower()
                s.temp(nbytes((rows,), real) + np.dtype(real).itemsize)
                s.done()
                return None
    r, kept = call_step(s, np_norm, a, ord, axis, keepdims)
    s.live = kept
    s.done()
    return None


def _k_order_is_f(a: Any) -> bool:
    """``a.astype(...)`` (order K) of a 2-d array is Fortran-ordered."""
    return len(a.shape) == 2 and min(a.shape) > 1 and abs(a.strides[0]) < abs(a.strides[1])


def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True, *,
        assume_a: Any = None, lower: bool = False) -> None:
    """scipy/linalg/_basic.py ``inv``: ``_normalize_lapack_dtype``'s cast (order K) when the
    dtype is not LAPACK's, then the batched C core and its result (its work arrays are
    C-heap); the core inverts a Fortran-ordered cast in place."""
    if len(a.shape) != 2 or 0 in a.shape:
        return unmodelled("a stacked or empty input")
    s = Steps()
    chkfinite(s, a, check_finite)
    dt = lapack_dtype(a)
    c = s.new(nbytes(a.shape, dt)) if dt.char != a.dtype.char else 0
    if c and (_k_order_is_f(a) or min(a.shape) == 1):
        s.done()  # inverted in place: the cast is the result
        return None
    out = s.new(nbytes(a.shape, dt)) if not (overwrite_a and a.flags.f_contiguous) else 0
    s.free(c)
    del out
    s.done()
    return None


def solve(a: Any, b: Any, lower: bool = False, overwrite_a: bool = False,
          overwrite_b: bool = False, check_finite: bool = True, assume_a: Any = None,
          transposed: bool = False) -> None:
    """scipy/linalg/_basic.py ``solve``: ``_ensure_dtype_cdsz``'s casts of a and b (always
    for integer inputs, else when the common dtype differs), alive beside the batched C
    core's result x (its work arrays are C-heap)."""
    if (assume_a == "banded" or len(a.shape) != 2 or len(b.shape) not in (1, 2)
            or overwrite_a or overwrite_b or 0 in a.shape or 0 in b.shape):
        return unmodelled("a banded, stacked, empty or overwriting call")
    s = Steps()
    chkfinite(s, a, check_finite)
    chkfinite(s, b, check_finite)
    res = np.result_type(np.empty(0, a.dtype), np.empty(0, b.dtype))
    dt: np.dtype
    if res.kind not in "fc":
        dt = np.dtype(np.float64)
        casts = [s.new(nbytes(x.shape, dt)) for x in (a, b)]
    else:
        bits = np.finfo(res).bits
        dt = np.dtype((np.complex64 if res.kind == "c" else np.float32) if bits <= 32 else
                      (np.complex128 if res.kind == "c" else np.float64))
        casts = [s.new(nbytes(x.shape, dt)) if x.dtype != dt else 0 for x in (a, b)]
    s.new(nbytes(b.shape, dt))
    s.free(*casts)
    s.done()
    return None


def expm(A: Any) -> None:
    """scipy/linalg/_matfuncs.py ``expm``: not modelled. Its bytes depend on the values:
    the bandwidth test picks the diagonal, triangular or generic path, and the norm the
    number of squarings, each ``eAw @ eAw`` a new n x n product."""
    return unmodelled("the path (diagonal, triangular) and the number of squarings "
                      "(each an n x n product) depend on the values")


MODELS: dict[str, Callable] = {
    "qr": qr, "svd": svd, "svdvals": svdvals, "det": det, "lu": lu,
    "solve_triangular": solve_triangular, "eigh": eigh, "eigvalsh": eigh,
    "lstsq": lstsq, "norm": norm, "pinv": pinv, "eig": eig, "eigvals": eigvals,
    "inv": inv, "solve": solve, "expm": expm,
}

# functions whose memory is exact without a model (checked by tests/kernels/scipy/test_scipy.py) or not yet
EXACT_WITHOUT_MODEL = frozenset({"lu_factor", "cholesky", "cho_factor", "lu_solve",
                                 "cho_solve"})


# SciPy 1.18 replaced scipy.linalg's f2py LAPACK calls with its own C layer (other copies and
# workspaces): the models above follow SciPy up to 1.17, so on 1.18 every call is flagged.
MODELS_APPLY = (scipy_version() or (0, 0)) < (1, 18)


def account(name: str, fn: Callable, args: tuple, kwargs: dict) -> None:
    """Run ``name``'s model on the call's arguments, or flag the call as unmodelled."""
    if not MODELS_APPLY:
        unmodelled("the byte models follow scipy.linalg up to SciPy 1.17")
        return
    if name in EXACT_WITHOUT_MODEL:
        return
    model = MODELS.get(name)
    if model is None:
        unmodelled("no memory model for this function")
        return
    model(*args, **kwargs)

