"""Real NumPy programs of different kinds, each a module with ``main(n)`` (n: problem size).

They are written as ordinary NumPy code, run unmodified for real and under ``FakeMode``
(no Python control flow on array values; fixed iteration counts), and draw their inputs
from ``np.random.default_rng(0)``. ``PROGRAMS`` maps a name to (module, small n, large n):
the small size is what the tests run, the large one what the memory benchmark runs.
``MODE_OPTIONS``: the FakeMode options a program is planned with (a program that needs a
value, such as ``Polynomial.fit``'s domain test, runs with placeholders).
"""
from . import (cfd, clustering, cnn, curvefit, gray_scott, imaging, llm, masked, montecarlo, nbody,
               records, scipy_pipeline, signal, sparse, stats, tensors)

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
