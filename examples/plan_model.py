"""Plan a transformer block's memory and layouts under FakeMode, with no data allocated.

A 4096-wide, 32-head block on a batch of 8 x 2048 tokens: the weights alone would
need ~805 MB in float32 and the activations several GB; here everything is metadata.
"""
import numpy as np

import faketensor as ft

D, HEADS, FF, BATCH, SEQ = 4096, 32, 11008, 8, 2048


def layer_norm(x, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def block(x, w):
    b, s, d = x.shape
    h = layer_norm(x)
    q = (h @ w["wq"]).reshape(b, s, HEADS, d // HEADS).transpose(0, 2, 1, 3)
    k = (h @ w["wk"]).reshape(b, s, HEADS, d // HEADS).transpose(0, 2, 3, 1)
    v = (h @ w["wv"]).reshape(b, s, HEADS, d // HEADS).transpose(0, 2, 1, 3)
    att = softmax((q @ k) / np.sqrt(d // HEADS))
    o = (att @ v).transpose(0, 2, 1, 3).reshape(b, s, d)
    x = x + o @ w["wo"]
    h = layer_norm(x)
    up = np.maximum(h @ w["w1"], 0) * (h @ w["w3"])
    return x + up @ w["w2"], {"q": q, "k": k, "att": att, "o": o, "up": up}


def main() -> None:
    with ft.FakeMode(record=True) as mode:
        rng = np.random.default_rng(0)
        w = {name: rng.standard_normal(shape, dtype=np.float32) * 0.02
             for name, shape in [("wq", (D, D)), ("wk", (D, D)), ("wv", (D, D)), ("wo", (D, D)),
                                 ("w1", (D, FF)), ("w3", (D, FF)), ("w2", (FF, D))]}
        x = np.zeros((BATCH, SEQ, D), dtype=np.float32)
        y, acts = block(x, w)

    print(f"{'array':8} {'shape':24} {'dtype':8} {'strides':28} {'contig':6} {'MiB':>9}")
    for name, a in list(w.items()) + list(acts.items()) + [("out", y)]:
        contig = "C" if a.flags.c_contiguous else "F" if a.flags.f_contiguous else "-"
        print(f"{name:8} {str(a.shape):24} {str(a.dtype):8} {str(a.strides):28} {contig:6} "
              f"{a.nbytes / 2**20:9.1f}")
    weights = sum(a.nbytes for a in w.values())
    allocated = sum(e.nbytes for e in mode.trace)
    print(f"\nops run: {len(mode.trace)}; views among them: "
          f"{sum(1 for e in mode.trace if any(k != 'fresh' and k[0] == 'view' for k in e.alias))}")
    print(f"weights: {weights / 2**30:.2f} GiB; bytes allocated in total: {allocated / 2**30:.2f} GiB")
    print(f"peak memory (NumPy's allocator, hidden copies included): "
          f"{mode.memory.peak['cpu'] / 2**30:.2f} GiB; "
          f"live at the end: {mode.memory.live['cpu'] / 2**30:.2f} GiB")
    print(f"C-heap scratch at its largest (LAPACK, sort and fft buffers; not in the peak): "
          f"{mode.memory.scratch_peak.get('cpu', 0) / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
