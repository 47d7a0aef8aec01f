"""Tensor contractions with np.einsum(optimize=...): a small quantum-chemistry style
transform, multi-head attention scores, batched bilinear forms and a matrix product state.

``n`` is the basis size of the four-index transform (the rest scale with it): a
(n, n, n, n) two-electron tensor transformed to a new basis in one optimized einsum and by
the four quarter transforms, attention logits and weighted values, bilinear forms with
per-sample matrices, a tensor-train contraction, np.einsum_path's cost report and
np.tensordot/np.linalg.multi_dot for comparison.
"""
import numpy as np

HEADS, SEQ, HEAD_DIM, BOND, SITES, PHYS = 4, 32, 16, 8, 6, 2


def main(n):
    rng = np.random.default_rng(0)
    eri = rng.standard_normal((n, n, n, n))
    c = np.linalg.qr(rng.standard_normal((n, n)))[0]
    mo_opt = np.einsum("pi,qj,pqrs,rk,sl->ijkl", c, c, eri, c, c, optimize="optimal")
    step = np.einsum("pqrs,sl->pqrl", eri, c)
    step = np.einsum("pqrl,rk->pqkl", step, c)
    step = np.einsum("pqkl,qj->pjkl", step, c)
    mo = np.einsum("pjkl,pi->ijkl", step, c)
    path, report = np.einsum_path("pi,qj,pqrs,rk,sl->ijkl", c, c, eri, c, c, optimize="greedy")

    q = rng.standard_normal((n, HEADS, SEQ, HEAD_DIM), dtype=np.float32)
    k = rng.standard_normal((n, HEADS, SEQ, HEAD_DIM), dtype=np.float32)
    v = rng.standard_normal((n, HEADS, SEQ, HEAD_DIM), dtype=np.float32)
    logits = np.einsum("bhqd,bhkd->bhqk", q, k, optimize=True) / np.sqrt(HEAD_DIM)
    logits -= logits.max(axis=-1, keepdims=True)
    weights = np.exp(logits)
    weights /= weights.sum(axis=-1, keepdims=True)
    attended = np.einsum("bhqk,bhkd->bqhd", weights, v, optimize=True)

    a = rng.standard_normal((n * 8, 12, 12))
    u = rng.standard_normal((n * 8, 12))
    forms = np.einsum("bi,bij,bj->b", u, a, u, optimize="greedy")
    traces = np.einsum("bii->b", a)

    cores = [rng.standard_normal((1 if i == 0 else BOND, PHYS, 1 if i == SITES - 1 else BOND))
             for i in range(SITES)]
    state = cores[0]
    for core in cores[1:]:
        state = np.einsum("...a,apb->...pb", state, core, optimize=True)
    norm = np.sqrt(np.einsum("...,...", state, state))
    td = np.tensordot(eri, c, axes=([3], [0]))
    chain = np.linalg.multi_dot([c, c.T, c, c.T])
    return mo_opt, mo, path, report, attended, forms, traces, norm, td, chain


if __name__ == "__main__":
    import sys
    main(int(sys.argv[1]))
