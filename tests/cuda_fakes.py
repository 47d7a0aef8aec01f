"""CUDA fakes for the CuPy rule tests (no GPU needed): a factory and a table of awkward layouts."""
import numpy as np

import faketensor as ft


def cuda(shape, dtype=np.float64, order="C", dev=0):
    """A fresh fake on cuda:dev."""
    return ft.empty(shape, dtype, order=order, device=f"cuda:{dev}")


def _broadcast(x, shape):
    import cupy
    return cupy.broadcast_to(x, shape)


AWKWARD = {
    "C": lambda: cuda((2, 3, 4)),
    "F": lambda: cuda((2, 3, 4), order="F"),
    "T": lambda: cuda((4, 3, 2)).T,
    "strided": lambda: cuda((4, 6, 4))[::2, ::2],
    "neg": lambda: cuda((2, 3, 4))[:, ::-1],
    "bcast": lambda: _broadcast(cuda((4,)), (2, 3, 4)),
    "size1": lambda: cuda((1, 1, 1)),
    "empty": lambda: cuda((0, 3, 4)),
}


def c_st(shape, itemsize):
    """CuPy's C strides of a fresh array (all zeros when it is empty)."""
    if 0 in shape:
        return (0,) * len(shape)
    st, s = [], itemsize
    for n in reversed(shape):
        st.append(s)
        s *= n
    return tuple(reversed(st))
