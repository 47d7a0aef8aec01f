"""NumPy's rules, one module per NumPy namespace or source file they mirror."""
from . import umath, creation, overlap  # noqa: F401
# random.py and fft.py register their rules when numpy.random and numpy.fft load (their
# ``register_all``; NumPy loads both lazily): imported then (modes/installer.py,
# ``kernels.load_all``), not here
from . import shape_base, products, misc, sorting, twodim_base, numeric  # noqa: F401
from . import polynomial  # noqa: F401
from . import datetime_busday  # noqa: F401
from . import linalg  # noqa: F401
from . import reductions  # noqa: F401
from . import ufunc_object  # noqa: F401
from . import function_base, type_check, histograms, nanfunctions, arraysetops  # noqa: F401
from . import views  # noqa: F401
from . import indexing  # noqa: F401
from . import manipulation, index_tricks  # noqa: F401
from . import queries  # noqa: F401
from . import subclasses  # noqa: F401
from . import npyio  # noqa: F401
from . import strings  # noqa: F401
