"""An attention block whose float32 activations quietly become float64.

``np.sqrt(head_dim)`` is a float64 NumPy scalar, so dividing the float32 scores by it gives
float64 scores (NEP 50: NumPy scalars are not weak); everything downstream follows, and the
matmuls with float32 operands copy those operands to float64 first. Merging the heads back
reshapes a transposed array, which no strides can express: a copy.

    faketensor run examples/attention_findings.py            # 8 x 4096 tokens, d=2048: 1.2 TB
    faketensor run --fail-on upcast examples/attention_findings.py   # exits 4
    python examples/attention_findings.py 2 16 64 4          # the same code for real, small
"""
import sys

import numpy as np

batch, seq, d, heads = (int(a) for a in sys.argv[1:5]) if len(sys.argv) > 4 else (8, 4096, 2048, 16)
hd = d // heads
rng = np.random.default_rng(0)
x = rng.standard_normal((batch, seq, d), dtype=np.float32)
wq, wk, wv, wo = (rng.standard_normal((d, d), dtype=np.float32) for _ in range(4))


def split(t):
    return t.reshape(batch, seq, heads, hd).transpose(0, 2, 1, 3)


q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
scores -= scores.max(axis=-1, keepdims=True)
p = np.exp(scores)
p /= p.sum(axis=-1, keepdims=True)
o = (p @ v).transpose(0, 2, 1, 3)
o = o.reshape(batch, seq, d)
out = o @ wo
print(out.dtype, out.shape)
