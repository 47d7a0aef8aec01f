"""bench_gpt2.gpt2_forward written with PyTorch, line by line; run it under FakeTensorMode.

Returns the final token ids and the parameters, so a caller can check the shapes and the
parameter count against the NumPy program."""
from __future__ import annotations

import math

import torch

from bench_gpt2 import CTX, D, FF, HEADS, LAYERS, VOCAB


def gpt2_forward(batch: int = 1, seq: int = CTX) -> tuple[torch.Tensor, list[torch.Tensor]]:
    torch.manual_seed(0)

    def init(*shape):
        return (torch.randn(shape, dtype=torch.float32) * 0.02).to(torch.float32)

    wte, wpe = init(VOCAB, D), init(CTX, D)
    blocks = [dict(ln1=torch.ones(D, dtype=torch.float32), attn=init(D, 3 * D), proj=init(D, D),
                   ln2=torch.ones(D, dtype=torch.float32), fc=init(D, FF), out=init(FF, D))
              for _ in range(LAYERS)]

    def layer_norm(x, g):
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) ** 2).mean(-1, keepdim=True)
        return (x - mu) / torch.sqrt(var + 1e-5) * g

    def gelu(x):
        return 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))

    ids = torch.randint(0, VOCAB, (batch, seq))
    x = wte[ids] + wpe[:seq]
    mask = torch.triu(torch.full((seq, seq), -1e9, dtype=torch.float32), 1)
    hd = D // HEADS
    for w in blocks:
        h = layer_norm(x, w["ln1"])
        q, k, v = torch.split(h @ w["attn"], D, dim=-1)
        q, k, v = (t.reshape(batch, seq, HEADS, hd).permute(0, 2, 1, 3) for t in (q, k, v))
        att = q @ k.permute(0, 1, 3, 2) / math.sqrt(hd) + mask
        att = torch.exp(att - att.amax(-1, keepdim=True))
        att = att / att.sum(-1, keepdim=True)
        o = (att @ v).permute(0, 2, 1, 3).reshape(batch, seq, D)
        x = x + o @ w["proj"]
        x = x + gelu(layer_norm(x, w["ln2"]) @ w["fc"]) @ w["out"]
    logits = x @ wte.T
    params = [wte, wpe] + [p for w in blocks for p in w.values()]
    return logits.argmax(-1), params
