"""Metadata rules per operation ("meta kernels"), registered by decorator with their tags."""
from . import registry, layout  # noqa: F401
from . import ufuncs, creation, random, overlap  # noqa: F401
from . import joining, linalg, misc  # noqa: F401
from . import linalg_solve  # noqa: F401
from . import fft  # noqa: F401
from . import reductions  # noqa: F401
from . import statistics  # noqa: F401
from . import views  # noqa: F401
from . import indexing  # noqa: F401
from . import manipulation, index_tricks  # noqa: F401
from . import queries  # noqa: F401
from . import cupy_rules  # noqa: F401
from . import cupy_ops  # noqa: F401
from . import cupy_views  # noqa: F401
from . import cupy_manip  # noqa: F401
from . import cupy_sorting  # noqa: F401
from . import cupy_stats, cupy_select, cupy_linalg, cupy_fft  # noqa: F401
from . import cupy_einsum  # noqa: F401
from . import cupy_creation  # noqa: F401
from .registry import REGISTRY, Kernel, Out, lookup, register  # noqa: F401
