"""FLOP counts (faketensor/_flops.py, the rules in kernels/flops.py and beside each kernel).

- every kernel has a rule (NO_RULE lists the exceptions; it must stay empty);
- every op of the op table (tests/opinfo.py) is counted, through a recording FakeMode, on
  NumPy fakes and on CUDA fakes (CuPy's rules, no GPU needed);
- the formulas on awkward inputs (batched, broadcast, transposed, F-order, negative strides,
  0-d, empty, complex), against independent oracles where one exists: brute-force counts
  (convolution products, matrix-chain orders, binary powering), NumPy's own einsum_path
  count and PyTorch's FlopCounterMode for what it counts (mm, bmm, matmul, einsum).
"""
from __future__ import annotations

import importlib
import io
import json
import math
import re
import warnings

import numpy as np
import pytest

import faketensor as ft
from faketensor._errors import op_name
from faketensor._flops import count_flops, kernel_rule
from faketensor.kernels.registry import REGISTRY
import oracle
from opinfo import TABLE, OpInfo, _walk

# The op table's object-array samples become fakes of their metadata (the warning says
# materialize() cannot restore the objects; FLOPs need only the metadata).
pytestmark = pytest.mark.filterwarnings("ignore::faketensor.ObjectArrayWarning")

# Kernels with no FLOP rule (neither their own, their NumPy namesake's nor a tag default).
NO_RULE: set = set()


class Counting(ft.FakeMode):
    """A recording FakeMode, as the planner uses: each recorded op's count is its trace
    entry's ``flops``; a rule that failed is in ``flops_uncounted``."""

    def __init__(self, **kwargs):
        super().__init__(record=True, **kwargs)

    @property
    def counts(self) -> list:
        return [(e.op, e.flops) for e in self.trace]

    @property
    def errors(self) -> list:
        bad = [f"{op}: {why}" for op, why in self.flops_uncounted.items()]
        return bad + [f"{op}: count {n!r}" for op, n in self.counts
                      if type(n) is not int or n < 0]


def flops_of(fn, *args, device=None, **kwargs) -> int:
    """Total FLOPs of ``fn(*args, **kwargs)`` on fakes of the real arguments."""
    fargs, fkwargs = ft.to_fake((args, kwargs), device=device)
    with Counting(device=device) as mode:
        fn(*fargs, **fkwargs)
    assert not mode.errors, mode.errors
    return sum(n for _, n in mode.counts)


def _layouts(shape, dtype="f8"):
    """The same shape in every awkward layout (oracle.every_layout: C, F, transposed,
    negative-stride, strided, offset and broadcast arrays)."""
    return oracle.every_layout(np.ones(shape, dtype))


# --- every kernel, every op of the table -------------------------------------------------------

def test_every_kernel_has_a_flop_rule():
    missing = {f"{k.name} ({b})" for (op, b), k in REGISTRY.items() if kernel_rule(k)[0] is None}
    assert missing == NO_RULE, sorted(missing ^ NO_RULE)


def test_ops_json_shows_the_flop_rule():
    from faketensor.meta_utils.planner import cli
    has_cupy = importlib.util.find_spec("cupy") is not None
    if has_cupy:  # CuPy's rules register when cupy is imported (an import hook)
        importlib.import_module("cupy")
    out = io.StringIO()
    assert cli.list_ops(None, True, out) == 0
    rows = {(r["op"], r["backend"]): r for r in json.loads(out.getvalue())}
    assert rows[("numpy.ufunc.__call__", "numpy")]["flops"] == "ufunc_call"
    assert rows[("numpy.linalg.svd", "numpy")]["flops"] == "svd"
    assert rows[("numpy.transpose", "numpy")]["flops"] == "zero"
    assert rows[("numpy.sum", "numpy")]["flops"] == "input_elements"
    if has_cupy:
        cupy_rows = [r for r in rows.values() if r["backend"] == "cupy"]
        assert cupy_rows and all(r["flops"] for r in cupy_rows)
        svd = [r for r in cupy_rows if r["op"].endswith("svd")]
        assert svd and all(r["flops"] == "svd" for r in svd)


def _run_table_entry(op: OpInfo, xp, device) -> list:
    """Errors of count_flops over the entry's samples; a sample the call completes must
    have been counted (the recording path reached count_flops)."""
    errors: list = []
    samples = op.samples("numpy") if device is None else [
        s for s in op.sample_inputs() if s.on_cupy()]
    for s in samples:
        conv = ft.Converter(device=device)  # one memo: aliasing between arguments kept
        fargs, fkwargs = _walk(s.build(np), lambda x: conv.convert_array(x)
                               if isinstance(x, np.ndarray) else x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Counting(device=device) as mode:
                try:
                    op(xp, *fargs, **fkwargs)
                    done = True
                except Exception:  # the call's own error or refusal
                    done = False
        errors += [f"{op.name}[{s.id}]: {e}" for e in mode.errors]
        if done and not mode.counts and not mode.errors:
            errors.append(f"{op.name}[{s.id}]: completed, but nothing was counted")
    return errors


@pytest.mark.parametrize("op", [pytest.param(op, id=op.name) for op in TABLE
                                if "numpy" in op.backends])
def test_table_op_is_counted_numpy(op: OpInfo) -> None:
    errors = _run_table_entry(op, np, None)
    assert not errors, "\n".join(errors[:20])


@pytest.mark.parametrize("op", [pytest.param(op, id=op.name) for op in TABLE
                                if "cupy" in op.backends])
def test_table_op_is_counted_cupy(op: OpInfo) -> None:
    cupy = pytest.importorskip("cupy")
    errors = _run_table_entry(op, cupy, "cuda:0")
    assert not errors, "\n".join(errors[:20])


def test_recording_reaches_the_rules_numpy_and_cupy():
    """count_flops from the recording path: NumPy kernels and CuPy kernels (CUDA fakes)."""
    with Counting() as mode:
        a = np.ones((8, 5))
        a @ np.ones((5, 3))
        np.linalg.inv(np.ones((4, 4)))
    assert dict(mode.counts)["np.matmul"] == 2 * 8 * 3 * 5
    assert dict(mode.counts)["np.linalg.inv"] == round(2 / 3 * 64 + 2 * 64)
    cupy = pytest.importorskip("cupy")
    with Counting(device="cuda:0") as mode:
        a = cupy.ones((8, 5))
        cupy.matmul(a, cupy.ones((5, 3)))
        np.matmul(a, cupy.ones((5, 3)))
        cupy.linalg.svd(cupy.ones((6, 4)), full_matrices=False)
        cupy.fft.fft(a)
        cupy.add.reduce(a, axis=0)
        cupy.var(a)
    assert not mode.errors, mode.errors
    counts = [n for name, n in mode.counts if not name.startswith("cupy.ones")]
    assert counts == [240, 240, 14 * 6 * 16 + 8 * 64, round(5 * 40 * math.log2(5)), 40, 160]


# --- contractions ----------------------------------------------------------------------------

MATMUL_SHAPES = [((8, 5), (5, 3)), ((4, 8, 5), (4, 5, 3)), ((2, 1, 8, 5), (3, 5, 3)),
                 ((5,), (5, 3)), ((8, 5), (5,)), ((5,), (5,)), ((0, 5), (5, 3)), ((8, 0), (0, 3))]


def _matmul_expected(sa, sb) -> int:
    """2 * M * N * K * batch, by the definition of the product."""
    a2 = (1,) + sa if len(sa) == 1 else sa
    b2 = sb + (1,) if len(sb) == 1 else sb
    batch = math.prod(np.broadcast_shapes(a2[:-2], b2[:-2]))
    return 2 * batch * a2[-2] * b2[-1] * a2[-1]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("dtype", ["f8", "f4", "c16", "i8"])
def test_matmul_dot_einsum(sa, sb, dtype):
    want = _matmul_expected(sa, sb)
    for _, a in _layouts(sa, dtype):
        b = np.ones(sb, dtype)
        assert flops_of(np.matmul, a, b) == want
        assert flops_of(lambda x, y: x @ y, a, b) == want
        if len(sa) <= 2 and len(sb) <= 2:
            assert flops_of(np.dot, a, b) == want
            assert flops_of(lambda x, y: x.dot(y), a, b) == want
    la = "zyxw"[4 - len(sa):-1] + "k" if len(sa) > 1 else "k"
    lb = ("zyxw"[4 - len(sb):-2] if len(sb) > 2 else "") + ("kn" if len(sb) > 1 else "k")
    if len(sa) <= 2 and len(sb) <= 2:
        assert flops_of(np.einsum, f"{la},{lb}", np.ones(sa, dtype), np.ones(sb, dtype)) == want


def test_vecdot_matvec_vecmat_and_linalg_forms():
    a, b = np.ones((4, 6)), np.ones((4, 6))
    assert flops_of(np.vecdot, a, b) == 2 * 4 * 6
    assert flops_of(np.linalg.vecdot, a, b) == 2 * 4 * 6
    # axis= / axes= (no kernel takes them yet): counted by the rule on real arrays
    assert count_flops(np.vecdot, (a.T, b.T), {"axis": 0}, np.vecdot(a.T, b.T, axis=0)) == 48
    assert flops_of(np.matvec, np.ones((2, 3, 5)), np.ones(5)) == 2 * 2 * 3 * 5
    assert flops_of(np.vecmat, np.ones(3), np.ones((3, 5))) == 2 * 3 * 5
    assert flops_of(np.linalg.matmul, np.ones((3, 4)), np.ones((4, 2))) == 2 * 3 * 4 * 2
    x, y, axes = np.ones((2, 4, 3)), np.ones((2, 5, 4)), [(-1, -2), (-1, -2), (-1, -2)]
    out = np.matmul(x, y, axes=axes)
    assert count_flops(np.matmul, (x, y), {"axes": axes}, out) == 2 * 2 * 3 * 5 * 4


def test_dot_inner_vdot_outer_tensordot_kron():
    assert flops_of(np.dot, np.ones((2, 3, 4)), np.ones((5, 4, 6))) == 2 * (2 * 3 * 5 * 6) * 4
    assert flops_of(np.dot, np.ones(()), np.ones((3, 4))) == 12  # a 0-d operand: a multiply
    assert flops_of(np.inner, np.ones((2, 4)), np.ones((3, 4))) == 2 * 6 * 4
    assert flops_of(np.vdot, np.ones((3, 4), "c16"), np.ones((3, 4), "c16")) == 24
    assert flops_of(np.outer, np.ones(3), np.ones((2, 2))) == 12
    assert flops_of(np.kron, np.ones((2, 3)), np.ones((4, 5))) == 120
    a, b = np.ones((3, 4, 5)), np.ones((4, 3, 2))
    assert flops_of(np.tensordot, a, b, axes=([1, 0], [0, 1])) == 2 * (5 * 2) * 12
    assert flops_of(np.tensordot, np.ones((3, 4)), np.ones((3, 4)), axes=2) == 2 * 12
    assert flops_of(np.tensordot, np.ones((3, 4)), np.ones((5, 6)), axes=0) == 3 * 4 * 5 * 6 * 2


def _numpy_naive_einsum_count(subs, *shapes) -> float:
    """NumPy's own naive count (einsum_path's report, 4 significant digits)."""
    text = np.einsum_path(subs, *[np.ones(s) for s in shapes], optimize=False)[1]
    return float(re.search(r"Naive FLOP count:\s*([0-9.e+]+)", text).group(1))


@pytest.mark.parametrize("subs,shapes", [
    ("ij,jk->ik", [(8, 5), (5, 3)]), ("bij,bjk->bik", [(4, 8, 5), (4, 5, 3)]),
    ("ij,ij->", [(3, 4), (3, 4)]), ("ii->i", [(5, 5)]), ("ij->", [(3, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("i,j->ij", [(3,), (4,)]),
    ("ijk,jl,lk->i", [(2, 3, 4), (3, 5), (5, 4)]), ("ij,jk", [(6, 2), (2, 7)]),
])
def test_einsum_matches_numpys_naive_count(subs, shapes):
    ours = flops_of(np.einsum, subs, *[np.ones(s) for s in shapes])
    assert ours == pytest.approx(_numpy_naive_einsum_count(subs, *shapes), rel=1e-3)


@pytest.mark.parametrize("opt", [True, "greedy", "optimal"])
@pytest.mark.parametrize("subs,shapes", [
    ("ij,jk,kl->il", [(30, 40), (40, 50), (50, 6)]), ("ij,jk,kl,lm->mi", [(3, 40), (40, 5), (5, 60), (60, 2)]),
    ("bij,bjk->bik", [(4, 8, 5), (4, 5, 3)]), ("...ij,...jk,kl->...il", [(2, 1, 3, 4), (5, 4, 2), (2, 7)]),
    ("ijk,jl,lk->i", [(2, 3, 4), (3, 5), (5, 4)]), ("ii,ij->j", [(5, 5), (5, 3)]),
])
def test_einsum_optimize_matches_numpys_optimized_count(subs, shapes, opt):
    ops = [np.ones(s) for s in shapes]
    text = np.einsum_path(subs, *ops, optimize=opt)[1]
    numpy = float(re.search(r"Optimized FLOP count:\s*([0-9.e+]+)", text).group(1))
    ours = flops_of(np.einsum, subs, *ops, optimize=opt)
    assert ours == pytest.approx(numpy, rel=1e-3)


def test_multi_dot_takes_the_cheapest_order():
    shapes = [(10, 100), (100, 5), (5, 50), (50, 2)]

    def best(dims):  # every parenthesisation, brute force
        if len(dims) == 2:
            return 0
        return min(best(dims[:k + 1]) + best(dims[k:]) + dims[0] * dims[k] * dims[-1]
                   for k in range(1, len(dims) - 1))
    dims = [s[0] for s in shapes] + [shapes[-1][1]]
    assert flops_of(np.linalg.multi_dot, [np.ones(s) for s in shapes]) == 2 * best(dims)
    vecs = [np.ones(100), np.ones((100, 5)), np.ones((5, 50)), np.ones(50)]
    assert flops_of(np.linalg.multi_dot, vecs) == 2 * best([1, 100, 5, 50, 1])


# --- PyTorch's FlopCounterMode, where it counts the same thing -----------------------------------

@pytest.mark.parametrize("sa,sb", [s for s in MATMUL_SHAPES if len(s[0]) > 1 and len(s[1]) > 1])
def test_matmul_and_einsum_match_torch(sa, sb):
    torch = pytest.importorskip("torch")
    from torch.utils.flop_counter import FlopCounterMode
    ta, tb = torch.ones(sa), torch.ones(sb)
    with FlopCounterMode(display=False) as m:
        ta @ tb
    assert flops_of(np.matmul, np.ones(sa), np.ones(sb)) == m.get_total_flops()
    if len(sa) == len(sb):
        subs = "...ij,...jk->...ik"
        with FlopCounterMode(display=False) as m:
            torch.einsum(subs, ta, tb)
        assert flops_of(np.einsum, subs, np.ones(sa), np.ones(sb)) == m.get_total_flops()


def test_where_torch_counts_nothing():
    """Documented differences: torch counts 0 for elementwise ops, reductions, matrix-vector
    products, linalg and fft; faketensor counts them (the FLOPs table of docs/guide/flops.md)."""
    torch = pytest.importorskip("torch")
    from torch.utils.flop_counter import FlopCounterMode
    t = torch.ones(8, 5)
    with FlopCounterMode(display=False) as m:
        t + 1, t.sum(), t @ torch.ones(5), torch.fft.fft(t)
    assert m.get_total_flops() == 0
    a = np.ones((8, 5))
    assert flops_of(lambda x: (x + 1, x.sum(), x @ np.ones(5)), a) == 40 + 40 + 80


# --- elementwise and reductions ------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["f8", "c16", "i4", "?"])
def test_elementwise_one_per_output_element(dtype):
    for _, a in _layouts((3, 4), dtype):
        assert flops_of(np.add, a, np.ones((1, 4), dtype)) == 12
        assert flops_of(np.add, a[:, :1], np.ones((1, 4), dtype)) == 12  # broadcast output
        assert flops_of(np.exp if dtype != "?" else np.logical_not, a) == 12
    assert flops_of(np.add, np.ones(()), 1.0) == 1
    assert flops_of(np.multiply, np.ones((0, 4)), 2.0) == 0
    assert flops_of(np.divmod, np.ones((3, 4)), 2.0) == 12  # two outputs, one pass
    assert flops_of(np.add.outer, np.ones(3), np.ones(4)) == 12

    def inplace(a):
        a += 1
    assert flops_of(inplace, np.ones((3, 4))) == 12


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "argmax", "mean", "any", "all",
                                  "cumsum", "cumprod", "nansum", "nanmax", "median"])
def test_reductions_one_per_input_element(name):
    fn = getattr(np, name)
    for _, a in _layouts((3, 4)):
        assert flops_of(fn, a) == 12
        assert flops_of(fn, a, axis=0) == 12
    assert flops_of(fn, np.ones(())) == 1
    assert flops_of(fn, np.ones((0, 4)), axis=1) == 0


def test_reduction_variants():
    a = np.ones((3, 4), "c16")
    assert flops_of(np.add.reduce, a, axis=1) == 12
    assert flops_of(np.multiply.accumulate, a) == 12
    assert flops_of(lambda x: x.sum(axis=(0, 1)), a) == 12
    assert flops_of(np.var, a) == 48 and flops_of(np.std, a, axis=0) == 48
    assert flops_of(np.nanvar, np.ones((3, 4))) == 48
    assert flops_of(np.trace, np.ones((3, 5))) == 3
    assert flops_of(np.trace, np.ones((4, 4, 2)), offset=1) == 3 * 2
    assert flops_of(np.trace, np.ones((4, 4)), offset=-5) == 0
    assert flops_of(np.linalg.vector_norm, np.ones((3, 4))) == 24
    assert flops_of(np.linalg.norm, np.ones((3, 4))) == 24


# --- linear algebra ------------------------------------------------------------------------

@pytest.mark.parametrize("batch", [(), (2,), (2, 3)])
@pytest.mark.parametrize("dtype", ["f8", "c16"])
def test_linalg_textbook_counts(batch, dtype):
    n, b = 5, math.prod(batch)
    sq = np.ones(batch + (n, n), dtype)
    mn = np.ones(batch + (7, 4), dtype)
    assert flops_of(np.linalg.inv, sq) == round(b * (2 * n**3 / 3 + 2 * n**3))
    assert flops_of(np.linalg.det, sq) == round(b * 2 * n**3 / 3)
    assert flops_of(np.linalg.slogdet, sq) == round(b * 2 * n**3 / 3)
    assert flops_of(np.linalg.cholesky, sq) == round(b * n**3 / 3)
    assert flops_of(np.linalg.eigh, sq) == b * 9 * n**3
    assert flops_of(np.linalg.eigvalsh, sq) == round(b * 4 * n**3 / 3)
    assert flops_of(np.linalg.solve, sq, np.ones(batch + (n, 3), dtype)) == round(
        b * (2 * n**3 / 3 + 2 * n * n * 3))
    m, k = 7, 4
    assert flops_of(np.linalg.svd, mn) == b * (4 * m * m * k + 8 * m * k * k + 9 * k**3)
    assert flops_of(np.linalg.svd, mn, full_matrices=False) == b * (14 * m * k * k + 8 * k**3)
    assert flops_of(np.linalg.svd, mn, compute_uv=False) == round(b * (4 * m * k * k - 4 * k**3 / 3))
    assert flops_of(np.linalg.svd, np.swapaxes(mn, -1, -2), compute_uv=False) == round(
        b * (4 * m * k * k - 4 * k**3 / 3))  # wide: the transpose's count
    geqrf = 2 * m * k * k - 2 * k**3 / 3
    assert flops_of(np.linalg.qr, mn, mode="r") == round(b * geqrf)
    assert flops_of(np.linalg.qr, mn) == round(b * (geqrf + 2 * m * k * k - 2 * k**3 / 3))
    assert flops_of(np.linalg.pinv, mn) == round(b * (14 * m * k * k + 8 * k**3 + 2 * m * k * k))
    if not batch:
        x, y = np.ones((7, 4), dtype), np.ones(7, dtype)  # tall: a fake refuses (residuals)
        res = np.linalg.lstsq(x, y)
        assert count_flops(np.linalg.lstsq, (x, y), {}, res) == 4 * m * k * k + 8 * k**3
        assert flops_of(np.linalg.lstsq, x.T, np.ones(4, dtype)) == 4 * m * k * k + 8 * k**3
        c = sq.astype("c16")  # a real matrix's eig dtype depends on its values
        assert flops_of(np.linalg.eig, c) == 25 * n**3
        assert flops_of(np.linalg.eigvals, c) == 10 * n**3


def test_linalg_square_qr_is_lawn41():
    """geqrf of an n x n matrix: 4/3 n^3 (LAWN 41), from the general formula."""
    assert flops_of(np.linalg.qr, np.ones((6, 6)), mode="r") == round(4 * 6**3 / 3)


@pytest.mark.parametrize("p", [-3, 0, 1, 2, 3, 5, 8, 13])
def test_matrix_power_counts_numpys_products(p):
    n = 4

    def products(e):  # numpy/linalg/_linalg.py matrix_power's binary decomposition
        if e <= 1:
            return 0
        if e <= 3:
            return e - 1
        z = result = None
        count = 0
        while e > 0:
            if z is None:
                z = 1
            else:
                count += 1
            e, bit = divmod(e, 2)
            if bit:
                if result is None:
                    result = 1
                else:
                    count += 1
        return count
    want = products(abs(p)) * 2 * n**3 + (round(2 * n**3 / 3 + 2 * n**3) if p < 0 else 0)
    assert flops_of(np.linalg.matrix_power, np.ones((n, n)), p) == want


def test_norm_and_cond():
    a = np.ones((6, 4))
    svals = 4 * 6 * 16 - 4 * 64 / 3
    assert flops_of(np.linalg.norm, a, 2) == round(svals)
    assert flops_of(np.linalg.norm, a, "nuc") == round(svals)
    assert flops_of(np.linalg.norm, a, "fro") == 48
    assert flops_of(np.linalg.norm, a, axis=1) == 48
    assert flops_of(np.linalg.matrix_norm, np.ones((3, 6, 4)), ord=2) == round(3 * svals)
    assert flops_of(np.linalg.cond, np.ones((5, 5))) == round(4 * 125 - 4 * 125 / 3)
    assert flops_of(np.linalg.cond, np.ones((5, 5)), 1) == round(2 * 125 / 3 + 250 + 100)


# --- FFT -----------------------------------------------------------------------------------

def _c2c(points, n):
    return round(5 * points * math.log2(n)) if n > 1 and points else 0


@pytest.mark.parametrize("layout", [name for name, _ in _layouts((6, 8))])
def test_fft_counts(layout):
    a = dict(_layouts((6, 8)))[layout]
    assert flops_of(np.fft.fft, a) == _c2c(48, 8)
    assert flops_of(np.fft.fft, a, axis=0) == _c2c(48, 6)
    assert flops_of(np.fft.fft, a, n=16) == _c2c(96, 16)  # zero-padded to 16
    assert flops_of(np.fft.ifft, a, n=4) == _c2c(24, 4)   # cut to 4
    assert flops_of(np.fft.rfft, a) == round(2.5 * 48 * 3)
    assert flops_of(np.fft.ihfft, a) == round(2.5 * 48 * 3)
    assert flops_of(np.fft.irfft, a) == round(2.5 * 6 * 14 * math.log2(14))
    assert flops_of(np.fft.hfft, a, n=8) == round(2.5 * 48 * 3)
    assert flops_of(np.fft.fft2, a) == _c2c(48, 48)
    assert flops_of(np.fft.fftn, a, axes=(0,)) == _c2c(48, 6)
    assert flops_of(np.fft.fftn, a, s=(4, 4), axes=(0, 1)) == _c2c(16, 16)
    assert flops_of(np.fft.rfftn, a) == round(2.5 * 48 * math.log2(48))
    assert flops_of(np.fft.rfft2, a, s=(6, 16)) == round(2.5 * 96 * math.log2(96))
    assert flops_of(np.fft.irfftn, a) == round(2.5 * 6 * 14 * math.log2(6 * 14))
    assert flops_of(np.fft.irfft2, a, s=(6, 8)) == round(2.5 * 48 * math.log2(48))


def test_fft_edge_sizes():
    assert flops_of(np.fft.fft, np.ones((3, 1))) == 0         # length-1 transforms
    assert flops_of(np.fft.fft, np.ones((0, 8))) == 0         # no transforms
    assert flops_of(np.fft.fft, np.ones(8, "c8")) == _c2c(8, 8)
    assert flops_of(np.fft.fftshift, np.ones(8)) == 0         # data movement


# --- convolution and composites ------------------------------------------------------------

def _brute_products(n, m, mode):
    """Products NumPy's convolve sums for each output element kept by mode."""
    full = [sum(1 for i in range(n) for j in range(m) if i + j == k) for k in range(n + m - 1)]
    if mode == "full":
        return sum(full)
    if mode == "same":
        keep = max(n, m)
        start = (n + m - 1 - keep) // 2
        return sum(full[start:start + keep])
    return sum(full[min(n, m) - 1:max(n, m)])


@pytest.mark.parametrize("n,m", [(7, 3), (3, 7), (8, 4), (5, 5), (1, 6), (6, 1), (4, 0)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate_count_the_products(n, m, mode):
    if m == 0 or n == 0:
        with pytest.raises(ValueError):
            np.convolve(np.ones(n), np.ones(m))
        return
    want = 2 * _brute_products(n, m, mode)
    assert np.convolve(np.ones(n), np.ones(m), mode).sum() == want / 2  # the oracle itself
    assert flops_of(np.convolve, np.ones(n), np.ones(m), mode) == want
    assert flops_of(np.correlate, np.ones(n), np.ones(m), mode) == want
    p, q = np.ones(n), np.ones(m)  # a fake refuses polymul (poly1d trims leading zeros)
    assert count_flops(np.polymul, (p, q), {}, np.polymul(p, q)) == 2 * n * m


def test_composites():
    assert flops_of(np.diff, np.ones((3, 6)), n=2) == 3 * (5 + 4)
    assert flops_of(np.diff, np.ones((3, 6)), axis=0) == 2 * 6
    assert flops_of(np.polyval, np.ones(4), np.ones((2, 5))) == 2 * 4 * 10
    assert flops_of(np.cov, np.ones((3, 10))) == 3 * 10 + 2 * 9 * 10
    assert flops_of(np.cross, np.ones((5, 3)), np.ones((5, 3))) == 3 * 15
    assert flops_of(np.isclose, np.ones((5, 3)), 1.0) == 15
    assert flops_of(np.round, np.ones((5, 3))) == 15
    assert flops_of(np.gradient, np.ones((5, 3))) == 2 * 15 * 2
    assert flops_of(np.gradient, np.ones((5, 3)), axis=0) == 2 * 15
    assert flops_of(np.interp, np.ones((2, 7)), np.arange(4.0), np.ones(4)) == 6 * 14
    assert flops_of(np.average, np.ones((5, 3)), axis=0) == 15
    assert flops_of(np.average, np.ones((5, 3)), axis=0, weights=np.ones(5)) == 45
    assert flops_of(np.trapezoid, np.ones((5, 3))) == 60
    assert flops_of(np.ptp, np.ones((5, 3))) == 30
    for fn in (np.sort, np.argsort, np.concatenate, np.transpose, np.zeros_like, np.copy):
        arg = [np.ones(3), np.ones(2)] if fn is np.concatenate else np.ones((4, 3))
        assert flops_of(fn, arg) == 0


# --- count_flops called directly -------------------------------------------------------------

def test_count_flops_on_real_arrays_and_lists():
    a, b = np.ones((8, 5)), np.ones((5, 3))
    assert count_flops(np.matmul, (a, b), {}, a @ b) == 240
    assert count_flops(np.sum, ([[1, 2], [3, 4]],), {}, 10) == 4
    assert count_flops(np.add, (1.0, 2.0), {}, 3.0) == 1


def test_count_flops_without_a_kernel_raises():
    with pytest.raises(ft.UnsupportedOperationError):
        count_flops(np.base_repr, (3,), {}, "11")


def test_rule_cache_within_the_cache_budget():
    from faketensor import _bounded
    assert _bounded.total_budget() <= _bounded.TOTAL_BUDGET


def test_conj_method_counts_only_complex_and_object_arrays():
    """ndarray.conj(): the conjugate ufunc's count for complex (and object) arrays, 0 for the
    real numbers NumPy returns as they are, also with ``out``."""
    for layout, a in _layouts((3, 4), "c16"):
        assert flops_of(lambda x: x.conj(), a) == 12, layout
        assert flops_of(lambda x: x.conjugate(), a) == flops_of(np.conjugate, a), layout
    for dt in ("f8", "i4", "?"):
        assert flops_of(lambda x: x.conj(), np.ones((3, 4), dt)) == 0
    assert flops_of(lambda x, o: x.conj(o), np.ones((3, 4)), np.ones((3, 4))) == 0
    assert flops_of(lambda x, o: x.conj(o), np.ones((3, 4), "c8"), np.ones((3, 4), "c8")) == 12
    assert flops_of(lambda x: x.conj(), np.ones((), "c16")) == 1
