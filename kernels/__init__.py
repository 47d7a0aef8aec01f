"""Metadata rules per operation ("meta kernels"), laid out like the namespaces they mirror:
``kernels/numpy/<NumPy source file>.py`` and ``kernels/cupy/<CuPy module>.py``. Importing
this package registers NumPy's rules in ``registry.REGISTRY``; ``load_all`` registers the rest
(CuPy's, and those of NumPy's lazily loaded namespaces), each also registered on first need."""
from . import registry  # noqa: F401
from . import numpy  # noqa: F401  (registers NumPy's rules)
# CuPy's rules (kernels/cupy/) register when that package is first imported: by the first call
# on a CUDA fake or through cupy (faketensor/_backends.py), the first rule not found
# (faketensor/_runner.py ``resolve``), CuPy's import (modes/cupy_patching.py) or ``load_all``
from .registry import REGISTRY, Kernel, lookup, register  # noqa: F401


def load_all() -> None:
    """Register CuPy's rules and those of NumPy's lazily loaded namespaces (numpy.random, numpy.fft): import them
    (as NumPy does on their first use) and register their rules, so ``REGISTRY`` holds every
    rule; for what enumerates it (``faketensor ops``, the surveys). ``import faketensor``
    leaves them unloaded, as ``import numpy`` does (issue 30)."""
    from . import cupy  # noqa: F401  (registers CuPy's rules)
    from .numpy import fft, random
    random.register_all()
    fft.register_all()
