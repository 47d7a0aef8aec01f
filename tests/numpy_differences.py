"""Where the fakes are not exact yet on an older NumPy of the window (faketensor/_numpy_version.py
decides what differs; these are the differences it does not model yet). Each entry is a strict
xfail on that NumPy only, so a fix fails until its line is removed, and the list only shrinks.
Measured against NumPy 2.2.6 and 2.3.5 (the same on Python 3.11, 3.12 and 3.13).
"""
from __future__ import annotations

from faketensor._numpy_version import VERSION

# Before 2.4 a ufunc given Python or NumPy scalars makes 0-d arrays of them (and of its result)
# where 2.4 takes its scalar paths; the fakes count 2.4's figure.
_SCALAR_0D = "0-d arrays of NumPy < 2.4's ufunc calls on scalars (8-byte buffers) not counted"
_ALL_LAYOUTS = ("f64", "f32", "F", "i64", "T", "neg")

# tests/kernels/numpy/test_memory_ops.py: case label -> reason
MEMORY_OPS: dict[tuple[int, int], dict[str, str]] = {
    (2, 3): {
        **{f"rot90_2[{k}]": _SCALAR_0D + " (rot90's absolute(axes[0] - axes[1]): +16)"
           for k in _ALL_LAYOUTS},
        **{f"norm_fro[{k}]": _SCALAR_0D + " (norm's sqrt of the sum)" for k in _ALL_LAYOUTS},
        "norm[i8 1-d strided]": _SCALAR_0D + " (norm's sqrt of the sum)",
        "cond[one matrix]": "np.linalg.cond before 2.4: asarray(r), then r[()] (numpy/linalg/"
                            "_linalg.py cond) not replayed",
        "pad_minimum[i8 F stat pairs]": "np.pad's statistic before 2.4: the temporaries of its "
                                        "minimum reductions differ (-22 bytes) and are not "
                                        "replayed",
    },
}
MEMORY_OPS[(2, 2)] = {
    **MEMORY_OPS[(2, 3)],
    **{f"cross_cols[{k}]": "np.cross before 2.3: its temporaries (moveaxis, broadcast copies) "
       "differ and are not replayed" for k in _ALL_LAYOUTS},
    **{f"sinc[{k}]": "np.sinc before 2.3: where(x == 0, 1.0e-20, x) allocates differently, "
       "not replayed" for k in _ALL_LAYOUTS + ("big", "f32 big")},
    "cross": "np.cross before 2.3: its temporaries differ and are not replayed",
    "cross[empty]": "np.cross before 2.3: its temporaries differ and are not replayed",
    "cond[c64 fro stack neg]": "np.linalg.cond before 2.4: asarray(r), then r[()] not replayed",
}

# tests/kernels/numpy/test_opinfo.py (the numpy way): op name -> {sample id: reason}
_TRIM_1D = {"neg.f8.5-axis=()": "np.trim_zeros before 2.4 ignores axis for a 1-d input and "
                                "trims by the values: the fake raises DataDependentError"}
OPINFO: dict[tuple[int, int], dict[str, dict[str, str]]] = {
    (2, 3): {"trim_zeros": _TRIM_1D},
    (2, 2): {"trim_zeros": _TRIM_1D},
}

# tests/planner/test_memory_programs.py::test_predicted_peak_equals_real_peak: program -> reason
PROGRAMS: dict[tuple[int, int], dict[str, str]] = {}


def memory_ops() -> dict[str, str]:
    """The memory_ops cases not exact on the running NumPy, with why."""
    return {k: f"NumPy {VERSION[0]}.{VERSION[1]}: {v}" for k, v in MEMORY_OPS.get(VERSION, {}).items()}


def opinfo(op_name: str) -> dict[str, str]:
    """The op-table samples of ``op_name`` not exact on the running NumPy, with why."""
    return {k: f"NumPy {VERSION[0]}.{VERSION[1]}: {v}"
            for k, v in OPINFO.get(VERSION, {}).get(op_name, {}).items()}


def programs() -> dict[str, str]:
    """The benchmark programs whose planned peak is not exact on the running NumPy."""
    return {k: f"NumPy {VERSION[0]}.{VERSION[1]}: {v}" for k, v in PROGRAMS.get(VERSION, {}).items()}


# tests/kernels/numpy/test_memory_ops.py test_small_results_exact: the measured cases, listed in
# tests/small_results_versions.txt, with the reason of their family
_SMALL_REASONS = {
    "round": "np.round of integers before 2.4 allocates otherwise (a copy, or none for empty "
             "input, where 2.4's path is replayed)",
    "apply_along_axis": "np.apply_along_axis before 2.4: its Python steps allocate otherwise "
                        "(not replayed)",
    "sinc": "np.sinc before 2.3: where(x == 0, 1.0e-20, x) allocates differently, not replayed",
    "linalg.norm": _SCALAR_0D + " (norm's sqrt of the sum)",
    "linalg.vector_norm": _SCALAR_0D + " (vector_norm's sqrt of the sum)",
}


def small_results() -> dict[str, str]:
    """This NumPy's not-exact small-result cases: label -> reason."""
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_results_versions.txt")
    here = f"{VERSION[0]}.{VERSION[1]}"
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            minor, label = line.rstrip("\n").split("\t")
            if minor == here:
                out[label] = f"NumPy {here}: " + _SMALL_REASONS[label.split("-", 1)[0]]
    return out
