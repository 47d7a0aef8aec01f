"""Metadata rules per operation ("meta kernels"), laid out like the namespaces they mirror:
``kernels/numpy/<NumPy source file>.py`` and ``kernels/cupy/<CuPy module>.py``. Importing
this package registers every kernel in ``registry.REGISTRY``."""
from . import registry  # noqa: F401
from . import numpy, cupy  # noqa: F401  (register their kernels)
from .registry import REGISTRY, Kernel, lookup, register  # noqa: F401


def load_all() -> None:
    """Register the rules of NumPy's lazily loaded namespaces too (numpy.random): import them
    (as NumPy does on their first use) and register their rules, so ``REGISTRY`` holds every
    rule; for what enumerates it (``faketensor ops``, the surveys). ``import faketensor``
    leaves them unloaded, as ``import numpy`` does (issue 30)."""
    from .numpy import random
    random.register_all()
