"""bench_gpt2.gpt2_forward written with jax.numpy, line by line; plan it with ``jax.eval_shape``.

Returns the final token ids and the parameters, so a caller can check the shapes and the
parameter count against the NumPy program."""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from bench_gpt2 import CTX, D, FF, HEADS, LAYERS, VOCAB


def gpt2_forward(batch: int = 1, seq: int = CTX) -> tuple[jax.Array, list[jax.Array]]:
    key = jax.random.key(0)
    counter = itertools.count()

    def init(*shape):
        k = jax.random.fold_in(key, next(counter))
        return (jax.random.normal(k, shape, dtype=jnp.float32) * 0.02).astype(jnp.float32)

    wte, wpe = init(VOCAB, D), init(CTX, D)
    blocks = [dict(ln1=jnp.ones(D, jnp.float32), attn=init(D, 3 * D), proj=init(D, D),
                   ln2=jnp.ones(D, jnp.float32), fc=init(D, FF), out=init(FF, D))
              for _ in range(LAYERS)]

    def layer_norm(x, g):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / jnp.sqrt(var + 1e-5) * g

    def gelu(x):
        return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))

    ids = jax.random.randint(jax.random.fold_in(key, next(counter)), (batch, seq), 0, VOCAB)
    x = wte[ids] + wpe[:seq]
    mask = jnp.triu(jnp.full((seq, seq), -1e9, jnp.float32), 1)
    hd = D // HEADS
    for w in blocks:
        h = layer_norm(x, w["ln1"])
        q, k, v = jnp.split(h @ w["attn"], 3, axis=-1)
        q, k, v = (t.reshape(batch, seq, HEADS, hd).transpose(0, 2, 1, 3) for t in (q, k, v))
        att = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(hd)) + mask
        att = jnp.exp(att - att.max(-1, keepdims=True))
        att = att / att.sum(-1, keepdims=True)
        o = (att @ v).transpose(0, 2, 1, 3).reshape(batch, seq, D)
        x = x + o @ w["proj"]
        x = x + gelu(layer_norm(x, w["ln2"]) @ w["fc"]) @ w["out"]
    logits = x @ wte.T
    params = [wte, wpe] + [p for w in blocks for p in w.values()]
    return logits.argmax(-1), params
