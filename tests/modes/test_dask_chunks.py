"""Fakes as first-class dask chunks: ``dask.sizeof`` reports what it reports for the real
array, tokens are deterministic (equal after a pickle round trip) and name which bytes a fake
views, and fakes pickle through dask's paths (protocol 5 with out-of-band buffers,
cloudpickle) as metadata, sharing storage within one message."""
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import faketensor as ft

dask = pytest.importorskip("dask")
cloudpickle = pytest.importorskip("cloudpickle")
from dask.base import tokenize  # noqa: E402
from dask.sizeof import sizeof  # noqa: E402
from test_pickle_copy import LAYOUTS  # noqa: E402

LAYOUTS = dict(LAYOUTS, **{
    "bcast-2d": lambda xp: xp.broadcast_to(xp.zeros((4, 1)), (3, 4, 2)),
    "bcast-empty": lambda xp: xp.broadcast_to(xp.zeros(3), (0, 3)),
    "row-view": lambda xp: xp.zeros((5, 6))[2],
    "uint8": lambda xp: xp.zeros((7, 3), np.uint8)[::3],
})


def _both(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real = LAYOUTS[name](np)
        with ft.FakeMode():
            fake = LAYOUTS[name](np)
    return real, fake


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_sizeof_matches_real(name):
    real, fake = _both(name)
    assert type(fake) is ft.FakeArray
    assert sizeof(fake) == sizeof(real)


def test_sizeof_python_number_and_cuda():
    with ft.FakeMode():
        f = np.float64(1.5) * np.zeros(3).sum()
    assert sizeof(f) == sizeof(np.float64(0))
    cuda = ft.empty((4, 5), np.float32, device="cuda:0")
    assert sizeof(cuda) == 80 and sizeof(cuda.T[::2]) == 3 * 4 * 4  # sizeof_cupy_ndarray: nbytes


def test_sizeof_registered_whichever_is_imported_first():
    code = ("import dask.sizeof, faketensor as ft, numpy as np\n"
            "print(dask.sizeof.sizeof(ft.empty((10, 10))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "800"
    code = "import faketensor, sys; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"  # import faketensor never imports dask


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_tokenize_deterministic(name):
    """dask's own determinism check (dask/tests/test_tokenize.py check_tokenize): the same
    object twice, and a pickle / cloudpickle round trip, give the same token."""
    _, fake = _both(name)
    with dask.config.set({"tokenize.ensure-deterministic": True}):
        tok = tokenize(fake)
        assert tokenize(fake) == tok
        assert tokenize(pickle.loads(pickle.dumps(fake))) == tok
        assert tokenize(cloudpickle.loads(cloudpickle.dumps(fake))) == tok
        assert tokenize(ft.unpickle(pickle.dumps(fake, protocol=5))) == tok


def test_tokens_name_the_bytes_viewed():
    with ft.FakeMode():
        a = np.zeros((4, 6))
        b = np.zeros((4, 6))
        c = np.zeros((4, 6), np.float32)
    assert tokenize(a) != tokenize(b)  # same metadata, different (unknown) content
    assert tokenize(a[1:]) == tokenize(a[1:])  # two views of the same bytes
    assert tokenize(a[1:]) != tokenize(a[:3]) and tokenize(a) != tokenize(a.T)
    assert tokenize(a) != tokenize(a.view(np.int64))
    assert tokenize(a) != tokenize(c)
    assert tokenize(a) != tokenize(a.reshape(6, 4))
    s = ft.empty((4, 6), "i8")
    assert tokenize(s) != tokenize(ft.empty((4, 6), "i8"))


def test_tokenize_is_metadata():
    """A fake's token comes from ``__dask_tokenize__`` (metadata), never from dask's pickle
    fallback: an array no machine could hold tokenizes."""
    from dask.tokenize import normalize_token
    huge = ft.empty((1 << 30, 1 << 28), np.float64)  # 2 EiB
    assert normalize_token(huge) == huge.__dask_tokenize__()
    assert normalize_token(huge)[0] == "faketensor.FakeArray"
    assert tokenize(huge) == tokenize(huge)


@pytest.mark.parametrize("dumps", [
    lambda o: pickle.dumps(o, protocol=5, buffer_callback=_no_buffer),
    lambda o: cloudpickle.dumps(o, protocol=5, buffer_callback=_no_buffer),
    lambda o: pickle.dumps(o, protocol=4),
])
def test_pickle_paths_keep_aliasing(dumps):
    """distributed's pickle serializer uses protocol 5 with out-of-band buffers for NumPy
    data: a fake has none, so it goes in-band as its metadata."""
    with ft.FakeMode():
        a = np.zeros((3, 4))
        parts = (a, a.T, a[1:, ::2], np.zeros(2))
    loaded = pickle.loads(dumps(parts))
    for x, y in zip(parts, loaded):
        assert (x.shape, x.strides, x.dtype, x.storage_offset) == \
               (y.shape, y.strides, y.dtype, y.storage_offset)
    assert np.shares_memory(loaded[0], loaded[1]) and np.shares_memory(loaded[0], loaded[2])
    assert not np.shares_memory(loaded[0], loaded[3])
    assert [tokenize(x) for x in loaded] == [tokenize(x) for x in parts]


def _no_buffer(buf):
    raise AssertionError(f"a fake handed pickle an out-of-band buffer: {buf!r}")


def test_malformed_content_key_refused():
    fake = ft.empty(3)
    data = pickle.dumps(fake, protocol=2)
    key = fake.storage._key.encode()
    with pytest.raises(ValueError, match="malformed"):
        ft.unpickle(data.replace(key, b"Z" * 32))
