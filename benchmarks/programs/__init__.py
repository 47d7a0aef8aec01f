"""Real NumPy programs of different kinds, each a module with ``main(n)`` (n: problem size).

They are written as ordinary NumPy code, run unmodified for real and under ``FakeMode``
(no Python control flow on array values; fixed iteration counts), and draw their inputs
from ``np.random.default_rng(0)``. ``PROGRAMS`` maps a name to (module, small n, large n):
the small size is what the tests run, the large one what the memory benchmark runs. The
newer programs also run as scripts (``python PROGRAM.py N``, ``faketensor run PROGRAM.py N``);
``FULL`` is the size benchmarks/bench_programs.py plans them at.
``MODE_OPTIONS``: the FakeMode options a program is planned with (a program that needs a
value, such as ``Polynomial.fit``'s domain test, runs with placeholders).
"""
from . import (cfd, clustering, cnn, curvefit, gray_scott, imaging, llm, masked, montecarlo, nbody,
               records, relax, scipy_pipeline, signal, sparse, stats, tensors)

PROGRAMS = {
    "llm": (llm, 8, 128),
    "cnn": (cnn, 4, 32),
    "cfd": (cfd, 16, 256),
    "nbody": (nbody, 16, 400),
    "gray_scott": (gray_scott, 16, 256),
    "signal": (signal, 1024, 2**18),
    "stats": (stats, 500, 200_000),
    "imaging": (imaging, 32, 256),
    "clustering": (clustering, 200, 20_000),
    "montecarlo": (montecarlo, 200, 20_000),
    "curvefit": (curvefit, 200, 20_000),
    "sparse": (sparse, 200, 20_000),
    "tensors": (tensors, 6, 16),
    "masked": (masked, 240, 24_000),
    "scipy_pipeline": (scipy_pipeline, 64, 512),
}

MODE_OPTIONS: dict = {"curvefit": {"data_dependent": "placeholder"}}

# Programs that stop where they need a value a plan cannot have (module, small n, the line's
# text, what the DataDependentError says). relax's loop ends when its update is small.
STOPS: dict = {"relax": (relax, 120, "if delta < tol", "bool() needs the values")}

# Programs that make a data-dependent length (faketensor/_sizes.py): planned at each end of
# its bounds, the real peak lies in the range (module, small n). records counts distinct
# station names with np.unique(return_counts=True).
BOUNDED = {"records": (records, 2000)}

# full sizes for planning (gigabytes of arrays; planned only, never run for real)
FULL = {"stats": 20_000_000, "imaging": 8192, "clustering": 2_000_000, "montecarlo": 1_000_000,
        "curvefit": 10_000_000, "sparse": 10_000_000, "tensors": 64, "masked": 10_000_000,
        "scipy_pipeline": 8192, "records": 1_000_000}
