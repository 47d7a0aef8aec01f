"""One SGD training step of a two-layer CNN with im2col convolutions and manual backprop.

conv3x3 -> relu -> conv3x3 -> relu -> global average pool -> linear -> softmax
cross-entropy; gradients by hand (col2im by shifted slice adds), then in-place SGD.
``n`` is the batch size.
"""
import numpy as np

C_IN, C1, C2, HW, K, CLASSES, LR = 3, 8, 16, 16, 3, 10, 0.01


def im2col(x):
    """(B, C, H, W) -> (B*Ho*Wo, C*K*K) for a valid KxK convolution."""
    b, c, h, w = x.shape
    win = np.lib.stride_tricks.sliding_window_view(x, (K, K), axis=(2, 3))
    return win.transpose(0, 2, 3, 1, 4, 5).reshape(b * (h - K + 1) * (w - K + 1), c * K * K)


def col2im(cols, shape):
    """The adjoint of im2col: scatter-add columns back into a (B, C, H, W) gradient."""
    b, c, h, w = shape
    ho, wo = h - K + 1, w - K + 1
    cols = cols.reshape(b, ho, wo, c, K, K)
    dx = np.zeros(shape, dtype=cols.dtype)
    for i in range(K):
        for j in range(K):
            dx[:, :, i:i + ho, j:j + wo] += cols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dx


def conv(x, w, bias):
    b, _, h, wd = x.shape
    cols = im2col(x)
    out = cols @ w.reshape(w.shape[0], -1).T + bias
    return out.reshape(b, h - K + 1, wd - K + 1, w.shape[0]).transpose(0, 3, 1, 2), cols


def conv_backward(dout, cols, x_shape, w):
    f = w.shape[0]
    d = dout.transpose(0, 2, 3, 1).reshape(-1, f)
    dw = (d.T @ cols).reshape(w.shape)
    db = d.sum(axis=0)
    dx = col2im(d @ w.reshape(f, -1), x_shape)
    return dx, dw, db


def main(n):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, C_IN, HW, HW), dtype=np.float32)
    y = rng.integers(0, CLASSES, size=n)
    params = {
        "w1": rng.standard_normal((C1, C_IN, K, K), dtype=np.float32) * 0.1,
        "b1": np.zeros(C1, np.float32),
        "w2": rng.standard_normal((C2, C1, K, K), dtype=np.float32) * 0.1,
        "b2": np.zeros(C2, np.float32),
        "wf": rng.standard_normal((C2, CLASSES), dtype=np.float32) * 0.1,
        "bf": np.zeros(CLASSES, np.float32),
    }
    # forward
    z1, cols1 = conv(x, params["w1"], params["b1"])
    a1 = np.maximum(z1, 0)
    z2, cols2 = conv(a1, params["w2"], params["b2"])
    a2 = np.maximum(z2, 0)
    pooled = a2.mean(axis=(2, 3))
    logits = pooled @ params["wf"] + params["bf"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    probs /= probs.sum(axis=1, keepdims=True)
    loss = -np.log(probs[np.arange(n), y]).mean()
    # backward
    dlogits = probs.copy()
    dlogits[np.arange(n), y] -= 1
    dlogits /= n
    grads = {"wf": pooled.T @ dlogits, "bf": dlogits.sum(axis=0)}
    dpooled = dlogits @ params["wf"].T
    da2 = np.broadcast_to(dpooled[:, :, None, None] / (a2.shape[2] * a2.shape[3]), a2.shape)
    dz2 = da2 * (z2 > 0)
    da1, grads["w2"], grads["b2"] = conv_backward(dz2, cols2, a1.shape, params["w2"])
    dz1 = da1 * (z1 > 0)
    _, grads["w1"], grads["b1"] = conv_backward(dz1, cols1, x.shape, params["w1"])
    # SGD
    for name, g in grads.items():
        params[name] -= LR * g
    return loss, params
