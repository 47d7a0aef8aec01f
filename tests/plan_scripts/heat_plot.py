"""A 2-D heat simulation that logs and draws every few steps:
python heat_plot.py N STEPS EVERY OUTDIR (a PNG frame per drawing, written to OUTDIR)."""
import gc
import logging
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

log = logging.getLogger("heat")


def snapshot(u, step, path):
    """A preview of the grid (at most about 32 x 32 cells) and its middle row and column."""
    n = u.shape[0]
    stride = max(1, n // 32)
    fig, (ax, side) = plt.subplots(1, 2, figsize=(4, 2), dpi=40)
    im = ax.imshow(u[::stride, ::stride], cmap="inferno")  # SINK IMSHOW
    fig.colorbar(im, ax=ax)
    ax.set_title(f"step {step}")
    line, = side.plot(u[n // 2], lw=1)  # SINK PLOT
    line.set_ydata(u[:, n // 2])  # SINK SET_YDATA
    side.set_ylim(0, 1)
    fig.savefig(path)  # SINK SAVEFIG
    plt.close(fig)


def main():
    n, steps, every = (int(a) for a in sys.argv[1:4])
    outdir = sys.argv[4]
    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(message)s")
    u = np.zeros((n, n))
    u[n // 4:n // 2, n // 4:n // 2] = 1.0
    alpha = 0.2
    for step in range(steps):
        lap = np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u
        u = u + alpha * lap
        del lap
        if step % every == 0:
            total = u.sum()
            print(f"step {step:4d}: heat {total:10.4f}, max {u.max():.3e}")  # SINK FORMAT
            log.info("step %d: heat %.4f", step, total)  # SINK LOGGING
            snapshot(u, step, os.path.join(outdir, f"heat_{step:04d}.png"))
            gc.collect()  # a figure holds reference cycles: free it now, not steps later
    print("done", u.shape)


main()
