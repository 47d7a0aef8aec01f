"""``ft.explain`` on an attention block at full size (8 x 4096 tokens, width 2048: the scores
alone are 8 GiB in float64), planned in a fraction of a second with no data.

``np.sqrt(head_dim)`` is a float64 NumPy scalar, so the float32 scores become float64;
splitting the heads transposes a view, which is no longer C-contiguous; merging them back
reshapes a transposed array, which no strides can express, so NumPy copies.

    python examples/explain_attention.py                  # 8 x 4096 tokens, width 2048
    python examples/explain_attention.py 2 16 64 4        # batch, tokens, width, heads
"""
import sys

import numpy as np

import faketensor as ft


def attention(x, wq, wk, wv, heads):
    """One attention block's heads: (q, scores, o)."""
    batch, seq, d = x.shape
    hd = d // heads

    def split(t):
        return t.reshape(batch, seq, heads, hd).transpose(0, 2, 1, 3)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    o = (p @ v).transpose(0, 2, 1, 3).reshape(batch, seq, d)
    return q, scores, o


def inputs(batch, seq, d, seed=0):
    """float32 activations and three float32 weight matrices."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, seq, d), dtype=np.float32)
    return x, [rng.standard_normal((d, d), dtype=np.float32) for _ in range(3)]


if __name__ == "__main__":
    batch, seq, d, heads = (int(a) for a in sys.argv[1:5]) if len(sys.argv) > 4 else (
        8, 4096, 2048, 16)
    with ft.FakeMode(record=True):
        x, (wq, wk, wv) = inputs(batch, seq, d)
        q, scores, o = attention(x, wq, wk, wv, heads)
    for name, a in (("scores", scores), ("q", q), ("o", o)):
        print(f">>> print(ft.explain({name}))")
        print(ft.explain(a))
