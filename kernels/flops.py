"""FLOP rules: the floating-point operations a call does, from its arguments' metadata.

A rule is ``rule(result, *args, **kwargs) -> int``: the call's result first, then the
arguments as the kernel gets them (a ufunc first for ``ufunc.*`` ops). Rules read shapes
only (fakes, real arrays, lists, scalars alike) and never allocate arrays. Each kernel's
rule is given beside its ``register`` (``flops=``) or comes from its tags
(``registry.flop_rule``); the table of formulas is in docs/guide/flops.md.

Conventions (those of PyTorch's ``torch.utils.flop_counter`` and JAX's cost analysis where
they count the op): a multiply-add is 2 FLOPs; counts do not depend on the dtype (a complex
multiply-add counts 2, as a real one); data movement (views, copies, indexing, creation,
random draws, sorting) is 0. Textbook counts of dense linear algebra are LAPACK's
(LAWN 41, "Operation counts for LAPACK") and Golub & Van Loan's (Matrix Computations,
4th ed.: Fig. 5.5.1 for least squares, Fig. 8.6.1 for the SVD, 7.5.6 and 8.3 for eig/eigh).
"""
from __future__ import annotations

import math
import operator
from typing import Any, Callable

from .._numpy_version import EINSUM_BMM

FlopRule = Callable[..., int]


# --- shapes from any argument ---------------------------------------------------------------

def shape_of(x: Any) -> tuple:
    """The shape NumPy would give ``x`` (arrays, nested lists and tuples, scalars: ())."""
    s = getattr(x, "shape", None)
    if type(s) is tuple:
        return s
    t = type(x)
    if t is list or t is tuple:
        return (len(x),) + (shape_of(x[0]) if x else ())
    return ()


def size_of(x: Any) -> int:
    """Number of elements of ``x`` (an array, a nested list or a scalar)."""
    s = getattr(x, "shape", None)
    return math.prod(s if type(s) is tuple else shape_of(x))


def _array_like(x: Any) -> bool:
    return type(getattr(x, "shape", None)) is tuple or type(x) in (list, tuple)


def first_array(args: tuple, kwargs: dict) -> Any:
    """The first array-like argument (positional, then keyword), else the first argument."""
    for a in args:
        if type(getattr(a, "shape", None)) is tuple or type(a) in (list, tuple):
            return a
    for a in kwargs.values():
        if _array_like(a):
            return a
    return args[0] if args else None


def result_size(res: Any) -> int:
    """Elements of a call's (first) output: 0 for None, 1 for a scalar."""
    s = getattr(res, "shape", None)
    if type(s) is tuple:  # arrays, fakes, NumPy scalars
        return math.prod(s)
    if res is None:
        return 0
    t = type(res)
    if t is list or (isinstance(res, tuple) and type(getattr(res, "shape", None)) is not tuple):
        for r in res:  # tuples of outputs (divmod, named results)
            if _array_like(r) and type(r) is not list:
                return size_of(r)
        return 1 if res else 0
    return size_of(res)


def _axis(shape: tuple, axis: Any) -> int:
    """Length of ``shape`` along ``axis``, taken modulo ndim as CuPy's fft does
    (cupy/fft/_fft.py ``axis % a.ndim``; NumPy raises before a rule runs)."""
    return shape[operator.index(axis) % len(shape)] if shape else 1


# --- family defaults ------------------------------------------------------------------------

def zero(res: Any, *args: Any, **kwargs: Any) -> int:
    """Data movement (views, copies, indexing, creation, random draws, sorting, queries)."""
    return 0


def elementwise(res: Any, *args: Any, **kwargs: Any) -> int:
    """One FLOP per output element (once per element whatever the number of outputs)."""
    return result_size(res)


def input_elements(res: Any, *args: Any, **kwargs: Any) -> int:
    """One FLOP per element of the reduced (first array) argument."""
    return size_of(first_array(args, kwargs))


def per_input(k: int) -> FlopRule:
    """``k`` FLOPs per element of the first array argument (var: mean, subtract, square, sum)."""
    def rule(res: Any, *args: Any, **kwargs: Any) -> int:
        return k * size_of(first_array(args, kwargs))
    rule.__name__ = f"input_elements_x{k}"
    return rule


# --- contractions ---------------------------------------------------------------------------

def contraction(res: Any, a: Any, b: Any = None, *rest: Any, axes: Any = None, axis: Any = None,
                **kwargs: Any) -> int:
    """matmul / vecdot / matvec / vecmat: 2 * (output elements) * K, K the contracted length
    (a's last axis, or the one ``axes=`` / ``axis=`` name)."""
    sa = shape_of(a)
    if not sa or not shape_of(b):  # a 0-d operand raises in NumPy; nothing to contract
        return result_size(res)
    if axes is not None:
        first = axes[0]
        k = sa[first[-1] if isinstance(first, (tuple, list)) else first]
    elif axis is not None:
        k = sa[operator.index(axis)]
    else:
        k = sa[-1]
    return 2 * result_size(res) * k


def ufunc_call(res: Any, ufunc: Any, *args: Any, **kwargs: Any) -> int:
    """A ufunc's ``__call__``: one per output element; generalized ufuncs (matmul, vecdot,
    matvec, vecmat: sums of products) 2 per multiply-add."""
    if getattr(ufunc, "signature", None):
        return contraction(res, *args, **kwargs)
    return result_size(res)


def dot(res: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> int:
    """np.dot / inner: 2 * output * a.shape[-1]; a 0-d operand is a plain multiply."""
    sa = shape_of(a)
    if not sa or not shape_of(b):
        return result_size(res)
    return 2 * result_size(res) * sa[-1]


def vdot(res: Any, a: Any, b: Any) -> int:
    """2 * a.size (a flattened dot product)."""
    return 2 * size_of(a)


def tensordot(res: Any, a: Any, b: Any, axes: Any = 2) -> int:
    """2 * output * (product of a's contracted lengths)."""
    sa = shape_of(a)
    try:
        n = operator.index(axes)
        k = math.prod(sa[len(sa) - n:]) if n else 1
    except TypeError:
        ax = axes[0]
        ax = [ax] if isinstance(ax, int) or not hasattr(ax, "__len__") else ax
        k = math.prod(sa[operator.index(i)] for i in ax)
    return 2 * result_size(res) * k


def einsum(res: Any, *operands: Any, **kwargs: Any) -> int:
    """One loop over every index (NumPy's c_einsum), counted as ``numpy/_core/einsumfunc.py
    _flop_count`` counts einsum_path's naive cost: prod(index lengths) * max(1, terms - 1),
    + prod(index lengths) when an index is shared by two operands (a sum of products).

    With ``optimize=`` (not False) the count is the path's: einsum_path's "Optimized FLOP
    count", the same _flop_count summed over its contractions."""
    if not operands or type(operands[0]) is not str:
        return 0  # the sublist form: no kernel takes it
    if kwargs.get("optimize", False) is not False:
        return _einsum_path_flops(operands, kwargs["optimize"])
    spec = operands[0].replace(" ", "")
    ins = spec.partition("->")[0]
    terms = ins.split(",")
    sizes: dict = {}
    ell: tuple = ()
    shared = 0  # operand labels beyond the distinct ones: an index in two operands
    for term, op in zip(terms, operands[1:]):
        sh = shape_of(op)
        letters = term.replace("...", "")
        nell = len(sh) - len(letters)
        if "..." in term:
            k = term.index("...")
            ebroad = sh[k:k + nell]
            sh = sh[:k] + sh[k + nell:]
            n = max(len(ell), len(ebroad))
            ell = tuple(max(x, y) if min(x, y) != 1 else x * y  # broadcasting
                        for x, y in zip((1,) * (n - len(ell)) + ell,
                                        (1,) * (n - len(ebroad)) + ebroad))
            shared += nell
        for ch, d in zip(letters, sh):
            sizes[ch] = max(sizes.get(ch, 1), d) if d else 0
        shared += len(set(letters))
    inner = shared > len(sizes) + len(ell)
    factor = max(1, len(terms) - 1) + (1 if inner else 0)
    return math.prod(sizes.values()) * math.prod(ell) * factor


def _einsum_path_flops(operands: tuple, optimize: Any) -> int:
    """einsum_path's optimized cost: NumPy's path on zero-byte stand-ins, then
    ``_flop_count`` of each contraction (numpy/_core/einsumfunc.py einsum_path)."""
    import numpy as np
    import numpy._core.einsumfunc as ef
    args = [x if type(x) is str else np.broadcast_to(np.zeros(()), shape_of(x)) for x in operands]
    ins, _, ops = ef._parse_einsum_input(args)
    sizes: dict = {}
    for term, op in zip(ins.split(","), ops):
        for ch, d in zip(term, op.shape):
            if sizes.get(ch, 1) == 1:
                sizes[ch] = d
    _, clist = ef.einsum_path(*args, optimize=optimize, einsum_call=True)
    total = 1  # einsum_path: ``opt_cost = sum(cost_list) + 1``
    for contraction in clist:  # (inds, eq, remaining); before 2.4 (inds, rm, eq, rest, blas)
        eq = contraction[1] if EINSUM_BMM else contraction[2]
        lhs, out = eq.split("->")
        terms = lhs.split(",")
        idx = set("".join(terms))
        total += ef._flop_count(idx, bool(idx - set(out)), len(terms), sizes)
    return total


def _chain_cost(dims: list) -> int:
    """Fewest scalar multiplications of a matrix chain with these dimensions (the classic
    O(n^3) dynamic programme; NumPy's multi_dot picks this order)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = min(cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                             for k in range(i, j))
    return cost[0][n - 1]


def multi_dot(res: Any, arrays: Any, *, out: Any = None) -> int:
    """2 * the scalar multiplications of the cheapest parenthesisation (numpy/linalg/_linalg.py
    ``_multi_dot_matrix_chain_order``; a first 1-d operand is a row, a last one a column)."""
    shapes = [shape_of(x) for x in arrays]
    if len(shapes) < 2:
        return 0
    first, last = shapes[0], shapes[-1]
    shapes[0] = (1,) + first if len(first) == 1 else first
    shapes[-1] = last + (1,) if len(last) == 1 else last
    dims = [s[0] for s in shapes] + [shapes[-1][-1]]
    return 2 * _chain_cost(dims)


# --- linear algebra (LAPACK / Golub & Van Loan counts, batched over leading axes) -----------

def _mats(a: Any) -> tuple[int, int, int]:
    """(batch, rows, columns) of a stack of matrices."""
    s = shape_of(a)
    if len(s) < 2:
        return 1, 1, (s[0] if s else 1)
    return math.prod(s[:-2]), s[-2], s[-1]


def lu_count(n: int) -> float:
    """getrf: 2/3 n^3 (LAWN 41)."""
    return 2 * n ** 3 / 3


def _batched(count: Callable[[int, int], float]) -> FlopRule:
    """A rule from a per-matrix count ``count(m, n)`` of the first argument, times the batch."""
    def rule(res: Any, a: Any, *args: Any, **kwargs: Any) -> int:
        b, m, n = _mats(a)
        return round(b * count(m, n))
    rule.__name__ = count.__name__
    rule.__doc__ = count.__doc__
    return rule


def _svd_count(m: int, n: int, uv: bool, full: bool) -> float:
    """Golub-Reinsch SVD of an m x n matrix (GVL Fig. 8.6.1; m >= n, else transposed)."""
    m, n = max(m, n), min(m, n)
    if not uv:
        return 4 * m * n * n - 4 * n ** 3 / 3
    if full:
        return 4 * m * m * n + 8 * m * n * n + 9 * n ** 3
    return 14 * m * n * n + 8 * n ** 3


def _qr_count(m: int, n: int, mode: str) -> float:
    """geqrf (2 max(m, n) k^2 - 2/3 k^3), plus orgqr for Q (4mqk - 2(m+q)k^2 + 4/3 k^3, Q of
    q columns) (LAWN 41), k = min(m, n)."""
    k = min(m, n)
    count = 2 * max(m, n) * k * k - 2 * k ** 3 / 3
    if mode in ("reduced", "complete"):
        q = m if mode == "complete" else k  # columns of Q
        count += 4 * m * q * k - 2 * (m + q) * k * k + 4 * k ** 3 / 3
    return count


def inv_count(m: int, n: int) -> float:
    """inv: gesv with the identity as right-hand side: LU 2/3 n^3 + solves 2 n^3
    (numpy/linalg/umath_linalg.cpp ``inv`` calls gesv)."""
    return lu_count(n) + 2 * n ** 3


def det_count(m: int, n: int) -> float:
    """det / slogdet: LU 2/3 n^3 (umath_linalg.cpp getrf)."""
    return lu_count(n)


def cholesky_count(m: int, n: int) -> float:
    """potrf: 1/3 n^3 (LAWN 41)."""
    return n ** 3 / 3


def eigh_count(m: int, n: int) -> float:
    """Symmetric QR with eigenvectors: 9 n^3 (GVL 8.3)."""
    return 9 * n ** 3


def eigvalsh_count(m: int, n: int) -> float:
    """Symmetric QR, eigenvalues only: 4/3 n^3 (GVL 8.3)."""
    return 4 * n ** 3 / 3


def eig_count(m: int, n: int) -> float:
    """Francis QR with Schur vectors: 25 n^3 (GVL 7.5.6)."""
    return 25 * n ** 3


def eigvals_count(m: int, n: int) -> float:
    """Francis QR, eigenvalues only: 10 n^3 (GVL 7.5.6)."""
    return 10 * n ** 3


def svdvals_count(m: int, n: int) -> float:
    """Singular values only: 4mn^2 - 4/3 n^3 (GVL Fig. 8.6.1)."""
    return _svd_count(m, n, False, False)


def lstsq_count(m: int, n: int) -> float:
    """SVD least squares (gelsd): 4mn^2 + 8n^3 (GVL Fig. 5.5.1, m >= n)."""
    m, n = max(m, n), min(m, n)
    return 4 * m * n * n + 8 * n ** 3


def pinv_count(m: int, n: int) -> float:
    """Thin SVD plus V diag(1/s) U^H: 14mn^2 + 8n^3 + 2mnk."""
    return _svd_count(m, n, True, False) + 2 * m * n * min(m, n)


inv = _batched(inv_count)
det = _batched(det_count)
cholesky = _batched(cholesky_count)
eigh = _batched(eigh_count)
eigvalsh = _batched(eigvalsh_count)
eig = _batched(eig_count)
eigvals = _batched(eigvals_count)
svdvals = _batched(svdvals_count)
lstsq = _batched(lstsq_count)
pinv = _batched(pinv_count)
matrix_rank = svdvals


def svd(res: Any, a: Any, full_matrices: bool = True, compute_uv: bool = True,
        *args: Any, **kwargs: Any) -> int:
    """Golub-Reinsch SVD (GVL Fig. 8.6.1): values only, thin or full U and V."""
    b, m, n = _mats(a)
    return round(b * _svd_count(m, n, bool(compute_uv), bool(full_matrices)))


def qr(res: Any, a: Any, mode: str = "reduced") -> int:
    """Householder QR (geqrf) and, unless mode is 'r' or 'raw', Q formed by orgqr."""
    b, m, n = _mats(a)
    return round(b * _qr_count(m, n, mode))


def solve(res: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> int:
    """gesv: LU 2/3 n^3 + 2 n^2 per right-hand side, batched (result has b's columns)."""
    batch, _, n = _mats(a)
    nrhs = result_size(res) // max(1, batch * n)
    return round(batch * (lu_count(n) + 2 * n * n * nrhs))


def lu_factor_count(m: int, n: int) -> float:
    """getrf of an m x n matrix: 2/3 n^3 when square (LAWN 41), m n^2 - n^3 / 3 in general."""
    k = min(m, n)
    return max(m, n) * k * k - k ** 3 / 3


lu_factor = _batched(lu_factor_count)


def scipy_qr(res: Any, a: Any, overwrite_a: bool = False, lwork: Any = None,
             mode: str = "full", *args: Any, **kwargs: Any) -> int:
    """scipy.linalg.qr: its modes named as NumPy's ('full' is 'complete', 'economic' is
    'reduced'; 'r' and 'raw' form no Q)."""
    return qr(res, a, {"full": "complete", "economic": "reduced"}.get(mode, mode))


def scipy_eigh(res: Any, a: Any, b: Any = None, *args: Any, eigvals_only: bool = False,
               **kwargs: Any) -> int:
    """scipy.linalg.eigh: eigh's count, eigvalsh's with ``eigvals_only``."""
    return (eigvalsh if eigvals_only else eigh)(res, a)


def scipy_eig(res: Any, a: Any, b: Any = None, left: bool = False, right: bool = True,
              *args: Any, **kwargs: Any) -> int:
    """scipy.linalg.eig: eig's count with vectors, eigvals' without."""
    return (eig if (left or right) else eigvals)(res, a)


def matrix_power(res: Any, a: Any, n: Any) -> int:
    """Binary powering (numpy/linalg/_linalg.py): squarings and products of 2 n^3 each,
    an inverse first for negative powers."""
    batch, _, k = _mats(a)
    p = operator.index(n)
    count = inv_count(k, k) if p < 0 else 0
    p = abs(p)
    if p >= 2:
        count += (p.bit_length() - 1 + bin(p).count("1") - 1) * 2 * k ** 3
    return round(batch * count)


def _norm_flops(shape: tuple, ord: Any, axis: Any) -> int:
    """A matrix 2-norm, -2 norm or nuclear norm takes an SVD (values); others 2 per element."""
    nd = len(shape)
    matrix = (axis is None and nd == 2 and ord is not None) or (
        axis is not None and not isinstance(axis, int) and len(axis) == 2)
    if matrix and (ord in (2, -2, "nuc")):
        ax = (-2, -1) if axis is None else axis
        m, n = shape[ax[0]], shape[ax[1]]
        batch = math.prod(shape) // max(1, m * n)
        return round(batch * _svd_count(m, n, False, False))
    return 2 * math.prod(shape)


def norm(res: Any, x: Any, ord: Any = None, axis: Any = None, *args: Any, **kwargs: Any) -> int:
    """np.linalg.norm: 2 per element (square and add), an SVD for ord 2, -2, 'nuc' of matrices."""
    return _norm_flops(shape_of(x), ord, axis)


def matrix_norm(res: Any, x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> int:
    """np.linalg.matrix_norm: as norm over the last two axes."""
    return _norm_flops(shape_of(x), ord, (-2, -1))


def cond(res: Any, x: Any, p: Any = None) -> int:
    """Singular values for p None, 2, -2; else an inverse and two norms (numpy/linalg/_linalg.py)."""
    b, m, n = _mats(x)
    if p in (None, 2, -2):
        return round(b * svdvals_count(m, n))
    return round(b * (inv_count(n, n) + 4 * n * n))


def tensorinv(res: Any, a: Any, ind: int = 2) -> int:
    """inv of the (prod(a.shape[:ind]), ...) square matrix it reshapes to."""
    n = math.prod(shape_of(a)[:ind])
    return round(inv_count(n, n))


def tensorsolve(res: Any, a: Any, b: Any, axes: Any = None) -> int:
    """solve of the (prod(b.shape), prod(b.shape)) matrix it reshapes to, one right-hand side."""
    n = size_of(b)
    return round(lu_count(n) + 2 * n * n)


def cross(res: Any, *args: Any, **kwargs: Any) -> int:
    """Two multiplies and a subtraction per output component: 3 per output element."""
    return 3 * result_size(res)


def trace(res: Any, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1,
          *args: Any, **kwargs: Any) -> int:
    """One addition per diagonal element summed, over every output element."""
    s = shape_of(a)
    if len(s) < 2:
        return 0
    n1, n2 = s[axis1], s[axis2]
    off = operator.index(offset)
    d = max(0, min(n1, n2 - off) if off >= 0 else min(n1 + off, n2))
    return d * max(1, result_size(res))


def linalg_trace(res: Any, x: Any, /, *, offset: int = 0, dtype: Any = None) -> int:
    """np.linalg.trace: trace over the last two axes."""
    return trace(res, x, offset, -2, -1)


# --- FFT: 5 N log2 N per complex transform of length N, half for real ones ----------------

def _fft_count(points: int, lengths: list, real: bool) -> int:
    """points * log2(prod lengths) * 5 (2.5 for real transforms), points the elements of
    the complex (or real) side of the transform, batch included."""
    n = math.prod(lengths)
    if points <= 0 or n <= 1:
        return 0
    return round((2.5 if real else 5) * points * math.log2(n))


def _fft_axes(ndim: int, s: Any, axes: Any) -> list:
    """The transformed axes (numpy/fft/_pocketfft.py ``_cook_nd_args``), non-negative."""
    if axes is None:
        axes = range(ndim - len(s), ndim) if s is not None else range(ndim)
    try:
        axes = [operator.index(axes)]
    except TypeError:
        axes = list(axes)
    return [operator.index(a) % ndim if ndim else 0 for a in axes]


def fft(res: Any, a: Any, n: Any = None, axis: int = -1, *args: Any, **kwargs: Any) -> int:
    """fft / ifft: 5 N log2 N per transform, N the output length along ``axis``."""
    sh = shape_of(res)
    return _fft_count(size_of(res), [_axis(sh, axis)] if sh else [], False)


def rfft(res: Any, a: Any, n: Any = None, axis: int = -1, *args: Any, **kwargs: Any) -> int:
    """rfft / ihfft: 2.5 N log2 N per transform of N real points."""
    sh = shape_of(res)
    if not sh:
        return 0
    N = operator.index(n) if n is not None else _axis(shape_of(a), axis)
    half = _axis(sh, axis)
    return _fft_count(size_of(res) // max(1, half) * N, [N], True)


def irfft(res: Any, a: Any, n: Any = None, axis: int = -1, *args: Any, **kwargs: Any) -> int:
    """irfft / hfft: 2.5 N log2 N per transform to N real points (the output's length)."""
    sh = shape_of(res)
    return _fft_count(size_of(res), [_axis(sh, axis)] if sh else [], True)


def _nd_fft(real_in: bool, real_out: bool, default_axes: Any) -> FlopRule:
    def rule(res: Any, a: Any, s: Any = None, axes: Any = default_axes,
             *args: Any, **kwargs: Any) -> int:
        sh = shape_of(res)
        if not sh:
            return 0
        ax = _fft_axes(len(sh), s, axes)
        if not ax:
            return 0
        if real_in:  # rfftn: the real input's points, last axis as given or cut by s
            lengths = [sh[i] for i in ax[:-1]]
            last = operator.index(s[-1]) if s is not None else shape_of(a)[ax[-1]]
            points = size_of(res) // max(1, sh[ax[-1]]) * last
            return _fft_count(points, lengths + [last], True)
        return _fft_count(size_of(res), [sh[i] for i in ax], real_out)
    rule.__name__ = ("rfftn" if real_in else "irfftn" if real_out else "fftn") + (
        "2" if default_axes else "")
    rule.__doc__ = "n-d transform: 5 (2.5 real) * points * log2(prod of transformed lengths)."
    return rule


fftn = _nd_fft(False, False, None)
fft2 = _nd_fft(False, False, (-2, -1))
rfftn = _nd_fft(True, False, None)
rfft2 = _nd_fft(True, False, (-2, -1))
irfftn = _nd_fft(False, True, None)
irfft2 = _nd_fft(False, True, (-2, -1))


def pocketfft(real: bool, side: str = "out", axes_at: int = 0) -> FlopRule:
    """scipy.fft's pypocketfft core ``f(a, ..., axes, ...)`` (``axes`` the ``axes_at``-th
    argument after ``a``): 5 (2.5 real) * points * log2 of the transformed lengths, taken
    on the output's side, or the input's (``side="in"``, r2c)."""
    def rule(res: Any, a: Any, *args: Any, **kwargs: Any) -> int:
        axes = args[axes_at] if len(args) > axes_at else kwargs.get("axes")
        x = a if side == "in" else res
        sh = shape_of(x)
        if not sh:
            return 0
        ax = _fft_axes(len(sh), None, axes)
        return _fft_count(size_of(x), [sh[i] for i in ax], real)
    rule.__name__ = "pocketfft_" + ("real" if real else "complex")
    return rule


# --- convolution ----------------------------------------------------------------------------

def overlap_products(n: int, m: int, mode: str) -> int:
    """Products of a 1-d convolution of lengths n and m: n*m for 'full', less the edge
    triangles NumPy's 'same' and 'valid' outputs drop (numpy/_core/numeric.py convolve)."""
    n, m = max(n, m), min(n, m)
    if m == 0:
        return 0
    full = n * m
    if mode == "full":
        return full
    if mode == "valid":
        return full - m * (m - 1)
    left = (m - 1) // 2
    right = m - 1 - left
    return full - left * (left + 1) // 2 - right * (right + 1) // 2


def convolve(res: Any, a: Any, v: Any, mode: str = "full") -> int:
    """2 FLOPs (multiply, add) per product of the overlapping windows."""
    return 2 * overlap_products(size_of(a), size_of(v), mode)


def correlate(res: Any, a: Any, v: Any, mode: str = "valid") -> int:
    """As convolve, with correlate's default mode."""
    return convolve(res, a, v, mode)


# --- composites of elementwise steps --------------------------------------------------------

def diff(res: Any, a: Any, n: int = 1, axis: int = -1, *args: Any, **kwargs: Any) -> int:
    """One subtraction per element of each of the n successive differences."""
    sh = shape_of(a)
    if not sh:
        return 0
    L = _axis(sh, axis)
    rest = math.prod(sh) // max(1, L)
    return rest * sum(max(0, L - k) for k in range(1, operator.index(n) + 1))


def cov(res: Any, m: Any, y: Any = None, rowvar: bool = True, *args: Any, **kwargs: Any) -> int:
    """Centering (1 per element) and X X^H (2 p^2 n) for p variables of n observations."""
    sh = shape_of(m)
    p, n = (1, sh[0]) if len(sh) == 1 else ((sh[0], sh[1]) if rowvar else (sh[1], sh[0]))
    if y is not None:
        sy = shape_of(y)
        p += 1 if len(sy) == 1 else (sy[0] if rowvar else sy[1])
    return p * n + 2 * p * p * n


def corrcoef(res: Any, x: Any, y: Any = None, rowvar: bool = True, *args: Any, **kwargs: Any) -> int:
    """cov, then a division by the outer product of the standard deviations (2 per entry)."""
    return cov(res, x, y, rowvar) + 2 * result_size(res)


def polyval(res: Any, p: Any, x: Any) -> int:
    """Horner's rule (numpy/lib/_polynomial_impl.py): a multiply and an add per coefficient."""
    return 2 * size_of(p) * size_of(x)


def polyfit(res: Any, x: Any, y: Any, deg: Any, *args: Any, **kwargs: Any) -> int:
    """lstsq of the (len(x), deg + 1) Vandermonde matrix."""
    return round(lstsq_count(size_of(x), operator.index(deg) + 1))


def polymul(res: Any, a1: Any, a2: Any) -> int:
    """A full convolution of the coefficients."""
    return convolve(res, a1, a2, "full")


def ufunc_at(res: Any, ufunc: Any, a: Any, indices: Any, b: Any = None) -> int:
    """ufunc.at: one per indexed element: the index arrays' size times a's axes they leave,
    at least b's size (slices among the indices count as whole axes)."""
    sa = shape_of(a)
    idx = indices if type(indices) is tuple else (indices,)
    n = max([size_of(i) for i in idx if _array_like(i)] or [1])
    for i, d in enumerate(sa):
        if i >= len(idx) or type(idx[i]) is slice:
            n *= d
    return max(n, size_of(b)) if b is not None else n


def gradient(res: Any, f: Any, *varargs: Any, axis: Any = None, edge_order: Any = 1) -> int:
    """Central differences (numpy/lib/_function_base_impl.py): a subtraction and a division
    per element along each differentiated axis."""
    nd = len(shape_of(f))
    naxes = nd if axis is None else (1 if isinstance(axis, int) else len(axis))
    return 2 * size_of(f) * naxes


def interp(res: Any, x: Any, *args: Any, **kwargs: Any) -> int:
    """Per point: slope and offset, 6 operations (numpy/_core/src/multiarray/compiled_base.c
    ``arr_interp``); the binary search is a comparison, not counted (as sorting)."""
    return 6 * result_size(res)


def average(res: Any, a: Any, axis: Any = None, weights: Any = None, *args: Any,
            **kwargs: Any) -> int:
    """mean without weights; with them a multiply and two sums per element."""
    return size_of(a) * (1 if weights is None else 3)


def conjugate_method(res: Any, a: Any, *args: Any, **kwargs: Any) -> int:
    """``ndarray.conj()``: the conjugate ufunc's count for complex and object arrays; other
    numbers are returned as they are (or copied into ``out``): no arithmetic."""
    dt = getattr(a, "dtype", None)
    return result_size(res) if dt is not None and dt.kind in "cO" else 0


# --- sparse products ------------------------------------------------------------------------

def sparse_product(nnz_at: int, k_at: int | None = None,
                   nnz_is_count: bool = False) -> FlopRule:
    """scipy.sparse's sparsetools products (``csr_matvec``, ``csr_matvecs``, ``dia_matvec``,
    ``coo_matvec``, ...): a multiply-add per stored element per right-hand column,
    2 * nnz * k. ``nnz_at``: the argument holding the stored count (the data array, or the
    count itself with ``nnz_is_count``); ``k_at``: the one holding k (1 without)."""
    def rule(res: Any, *args: Any, **kwargs: Any) -> int:
        nnz = int(args[nnz_at]) if nnz_is_count else size_of(args[nnz_at])
        k = 1 if k_at is None else int(args[k_at])
        return 2 * nnz * k
    rule.__name__ = "sparse_product"
    return rule
