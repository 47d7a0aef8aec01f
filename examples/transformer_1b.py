"""A decoder-only transformer in plain NumPy, about 1.07 billion parameters: the forward
pass over a batch of token ids, with the next-token loss.

Unmodified NumPy code: run it for real at a tiny size (``--layers 2 --d-model 64 --seq 16``),
or plan it at full size without allocating anything:

    faketensor run examples/transformer_1b.py
"""
import argparse

import numpy as np

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--layers", type=int, default=20)
ap.add_argument("--d-model", type=int, default=2048)
ap.add_argument("--heads", type=int, default=16)
ap.add_argument("--vocab", type=int, default=32000)
ap.add_argument("--seq", type=int, default=2048)
ap.add_argument("--batch", type=int, default=4)
args = ap.parse_args()
L, D, H, V, S, B = args.layers, args.d_model, args.heads, args.vocab, args.seq, args.batch
FF = 4 * D
rng = np.random.default_rng(0)


def init(*shape):
    return rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)


def rms_norm(x, g):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + np.float32(1e-6)) * g


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def attention(x, w, mask):
    qkv = x @ w["qkv"]                                    # (B, S, 3D)
    q, k, v = np.split(qkv.reshape(B, S, 3, H, D // H), 3, axis=2)
    q, k, v = (t[:, :, 0].transpose(0, 2, 1, 3) for t in (q, k, v))
    scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(D // H)) + mask
    out = softmax(scores) @ v                             # (B, H, S, D/H)
    return out.transpose(0, 2, 1, 3).reshape(B, S, D) @ w["proj"]


def mlp(x, w):
    h = x @ w["up"]
    h = h * (1 / (1 + np.exp(-h)))                        # SiLU
    return h @ w["down"]


def forward(ids, params):
    x = params["embed"][ids]                              # (B, S, D)
    mask = np.triu(np.full((S, S), -np.inf, np.float32), 1)
    for w in params["layers"]:
        x = x + attention(rms_norm(x, w["g1"]), w, mask)
        x = x + mlp(rms_norm(x, w["g2"]), w)
    return rms_norm(x, params["g"]) @ params["embed"].T   # tied output embedding


def loss(logits, targets):
    logits = logits - logits.max(-1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    return -np.take_along_axis(logp, targets[..., None], -1).mean()


params = {"embed": init(V, D), "g": np.ones(D, np.float32),
          "layers": [{"qkv": init(D, 3 * D), "proj": init(D, D), "up": init(D, FF),
                      "down": init(FF, D), "g1": np.ones(D, np.float32),
                      "g2": np.ones(D, np.float32)} for _ in range(L)]}
n_params = sum(a.size for a in [params["embed"], params["g"]]
               + [a for w in params["layers"] for a in w.values()])
ids = rng.integers(0, V, (B, S + 1))
out = loss(forward(ids[:, :-1], params), ids[:, 1:])
print(f"{n_params / 1e9:.2f} B parameters; loss computed: {out.shape} {out.dtype}")
