"""A small llama-style decoder forward pass: float16 weights, float32 activations.

Token embedding, then per layer: RMSNorm, q/k/v projections, rotary position embedding,
causal softmax attention, output projection, SwiGLU MLP, residuals; final norm and logits.
``n`` is the sequence length.
"""
import numpy as np

DIM, HEADS, FFN, VOCAB, LAYERS = 64, 4, 172, 256, 2


def rms_norm(x, w, eps=1e-6):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rotary(x, cos, sin):
    x1, x2 = x[..., ::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., ::2] = x1 * cos - x2 * sin
    out[..., 1::2] = x1 * sin + x2 * cos
    return out


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def silu(x):
    return x / (1.0 + np.exp(-x))


def init(rng):
    def w(*shape):
        return (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float16)
    layers = [dict(attn_norm=np.ones(DIM, np.float16), wq=w(DIM, DIM), wk=w(DIM, DIM),
                   wv=w(DIM, DIM), wo=w(DIM, DIM), mlp_norm=np.ones(DIM, np.float16),
                   w1=w(DIM, FFN), w3=w(DIM, FFN), w2=w(FFN, DIM)) for _ in range(LAYERS)]
    return dict(emb=w(VOCAB, DIM), layers=layers, norm=np.ones(DIM, np.float16), out=w(DIM, VOCAB))


def attention(h, p, cos, sin, mask):
    s = h.shape[0]
    hd = DIM // HEADS
    q = (h @ p["wq"]).reshape(s, HEADS, hd).transpose(1, 0, 2)
    k = (h @ p["wk"]).reshape(s, HEADS, hd).transpose(1, 0, 2)
    v = (h @ p["wv"]).reshape(s, HEADS, hd).transpose(1, 0, 2)
    q, k = rotary(q, cos, sin), rotary(k, cos, sin)
    scores = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(hd)) + mask
    o = softmax(scores) @ v
    return o.transpose(1, 0, 2).reshape(s, DIM) @ p["wo"]


def main(n):
    rng = np.random.default_rng(0)
    params = init(rng)
    tokens = rng.integers(0, VOCAB, size=n)
    hd = DIM // HEADS
    freqs = 1.0 / 10000.0 ** (np.arange(0, hd, 2, dtype=np.float32) / hd)
    angles = np.outer(np.arange(n, dtype=np.float32), freqs)
    cos, sin = np.cos(angles), np.sin(angles)
    mask = np.triu(np.full((n, n), -np.inf, dtype=np.float32), k=1)
    x = params["emb"][tokens].astype(np.float32)
    for p in params["layers"]:
        x = x + attention(rms_norm(x, p["attn_norm"]), p, cos, sin, mask)
        h = rms_norm(x, p["mlp_norm"])
        x = x + (silu(h @ p["w1"]) * (h @ p["w3"])) @ p["w2"]
    logits = rms_norm(x, params["norm"]) @ params["out"]
    return softmax(logits)
