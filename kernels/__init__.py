"""Metadata rules per operation ("meta kernels"), laid out like the namespaces they mirror:
``kernels/numpy/<NumPy source file>.py`` and ``kernels/cupy/<CuPy module>.py``. Importing
this package registers every kernel in ``registry.REGISTRY``."""
from . import registry  # noqa: F401
from . import numpy, cupy  # noqa: F401  (register their kernels)
from .registry import REGISTRY, Kernel, lookup, register  # noqa: F401
