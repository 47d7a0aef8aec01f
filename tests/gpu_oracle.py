"""Shared by the GPU-only differential tests: real CuPy (when a device is present) and the
metadata compared between a CuPy result and its fake. Skipped, never faked, without a GPU."""
import pytest

cupy = pytest.importorskip("cupy")
try:
    HAVE_GPU = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # no driver / no device
    HAVE_GPU = False
needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU")

# the comparison is the package's (one definition, used by faketensor coverage --backend cupy too)
from faketensor.meta_utils.surveys.oracle import cupy_meta as meta, cupy_metas as metas  # noqa: E402,F401
from faketensor.meta_utils.surveys.oracle import compare_cupy_outcome  # noqa: E402


def compare_with_cupy(fn, args, kwargs=None, may_refuse=False):
    """fn on real CuPy inputs and on their fakes (one memo, so aliasing between inputs is
    kept): the same metadata (``metas``), the same aliasing with each input (shares_memory,
    byte offset, identity), or the same exception type. With ``may_refuse`` a refusal
    (DataDependentError / UnsupportedOperationError) passes; answering differently never does."""
    import warnings

    import faketensor as ft
    from opinfo import leaves

    kwargs = kwargs or {}
    fargs, fkwargs = ft.to_fake((tuple(args), kwargs))
    real_in = [x for x in leaves((args, kwargs)) if isinstance(x, cupy.ndarray)]
    fake_in = [x for x in leaves((fargs, fkwargs)) if ft.is_fake(x)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got, got_exc = fn(*fargs, **fkwargs), None
        except (ft.DataDependentError, ft.UnsupportedOperationError):
            if may_refuse:
                return
            raise
        except Exception as e:  # compared with CuPy's exception below
            got, got_exc = None, e
        try:
            want, want_exc = fn(*args, **kwargs), None
        except (NameError, UnboundLocalError):
            raise  # a broken test, not CuPy's answer
        except Exception as e:  # compared with the fake's exception
            want, want_exc = None, e
    compare_cupy_outcome(want, want_exc, got, got_exc, real_in, fake_in)
