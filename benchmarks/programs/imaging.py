"""Image processing on a batch of grayscale images.

Synthetic images (smooth blobs plus noise) are blurred with a 5x5 Gaussian by a
sliding-window convolution, sharpened by an FFT-domain filter, edge-detected with Sobel
kernels, thresholded into masks with np.where, downsampled by strided indexing and
upsampled by nearest-neighbour fancy indexing. ``n`` is the image side.
"""
import numpy as np

BATCH, KS = 4, 5


def gaussian_kernel(size, sigma):
    ax = np.arange(size) - (size - 1) / 2.0
    g = np.exp(-0.5 * (ax / sigma) ** 2)
    k = np.outer(g, g)
    return k / k.sum()


def convolve2d(img, kernel):
    """'same' convolution of (B, H, W) images by zero padding and sliding windows."""
    kh, kw = kernel.shape
    padded = np.pad(img, ((0, 0), (kh // 2, kh // 2), (kw // 2, kw // 2)))
    win = np.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(1, 2))
    return np.einsum("bhwij,ij->bhw", win, kernel[::-1, ::-1])


def main(n):
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:n, 0:n] / n
    centers = rng.uniform(0.2, 0.8, size=(BATCH, 2))
    imgs = np.exp(-((xx - centers[:, 0, None, None]) ** 2 + (yy - centers[:, 1, None, None]) ** 2) / 0.02)
    imgs = imgs + 0.1 * rng.standard_normal((BATCH, n, n))
    imgs = imgs.astype(np.float32)
    blurred = convolve2d(imgs, gaussian_kernel(KS, 1.2).astype(np.float32))
    spec = np.fft.rfft2(blurred)
    fy = np.fft.fftfreq(n)[:, None]
    fx = np.fft.rfftfreq(n)[None, :]
    boost = 1.0 + 4.0 * np.sqrt(fx ** 2 + fy ** 2)
    sharp = np.fft.irfft2(spec * boost, s=(n, n))
    sobel = np.array([[1, 0, -1], [2, 0, -2], [1, 0, -1]], dtype=np.float32)
    gx = convolve2d(blurred, sobel)
    gy = convolve2d(blurred, sobel.T)
    mag = np.hypot(gx, gy)
    edges = np.where(mag > mag.mean(axis=(1, 2), keepdims=True) * 2, 1.0, 0.0)
    mask = np.where(sharp > 0.5, sharp, 0.0)
    small = blurred[:, ::2, ::2]
    rows = np.arange(n) // 2
    upsampled = small[:, rows][:, :, rows]
    residual = np.abs(upsampled - blurred).mean(axis=(1, 2))
    u8 = (np.clip(sharp, 0, 1) * 255).astype(np.uint8)
    return edges, mask, residual, u8


if __name__ == "__main__":
    import sys
    main(int(sys.argv[1]))
