"""Data entering during a plan becomes fakes (modes/loading.py), charged as NumPy charges it.

Each program loads data (pickle, gzip'd pickle, np.load of a pickle, np.frombuffer,
np.fromfile, a PIL image) and computes on it; it is run for real (NumPy's data peak,
tests/memtools.py) and planned with ``ft.plan``: the loaded arrays must be fakes, the
arithmetic on them planned (ops and FLOPs counted), and the peaks equal to the byte.
"""
from __future__ import annotations

import gzip
import os
import pickle

import numpy as np
import pytest

import faketensor as ft
from memtools import measure_peak

np.random.default_rng(0)  # NumPy's first Generator caches 16 bytes for good

# small arrays (at most 1000 bytes: NumPy copies them when unpickling) and large ones (NumPy
# keeps pointing into the pickle's bytes), C and F order, byte-swapped, several dtypes
DATA = {
    "small": np.arange(10.0),
    "labels": np.arange(30, dtype=np.int64) % 10,
    "large": np.arange(3000.0).reshape(60, 50),
    "large_f": np.asfortranarray(np.arange(600, dtype=np.float32).reshape(20, 30)),
    "swapped": np.arange(200, dtype=">f8"),
    "bytes1000": np.zeros(1000, np.uint8),
    "empty": np.zeros((0, 3)),
}


def _compute(d: dict) -> list:
    """Arithmetic on every loaded array (kept, so the peak holds the results)."""
    return [d["small"] * 2, d["labels"] + 1, d["large"] @ d["large"].T, d["large_f"].sum(0),
            d["swapped"] - 1.0, d["bytes1000"] + 1, d["empty"] + 1]


def _check(fn, *, fakes=lambda r: r) -> ft.Plan:
    """Real peak of fn() == planned peak, and what the plan's fn returned is all fakes."""
    real, _ = measure_peak(fn)
    plan = ft.plan(fn)
    assert plan.status == "completed", plan.stopped_at
    assert plan.peak["cpu"] == real > 0
    out = fakes(plan.result)
    assert out and all(ft.is_fake(x) for x in out)
    return plan


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_pickle_load_of_a_gzipped_data_set(tmp_path, protocol):
    path = str(tmp_path / "data.pkl.gz")
    with gzip.open(path, "wb") as f:
        pickle.dump(DATA, f, protocol=protocol)

    def program():
        with gzip.open(path, "rb") as f:
            d = pickle.load(f)
        return _compute(d)
    plan = _check(program)
    assert plan.ops >= len(DATA) and plan.flops > 60 * 60 * 50  # the matmul is planned


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_pickle_loads_keeps_the_containers_and_counts_ops(protocol):
    blob = pickle.dumps((DATA["small"], [DATA["large"], {"y": DATA["labels"]}]), protocol=protocol)

    def program():
        small, (large, d) = pickle.loads(blob)
        x = small + 1  # was run for real, uncounted, on the unpickled array
        return [small, large, d["y"], x, large * 2]
    plan = _check(program)
    assert plan.flops >= 10 + 3000


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_a_large_array_unpickled_alone(protocol):
    """NumPy points a large array into the pickle's bytes (nothing of its own), after making
    and freeing a one-byte array in protocols before 5: the peak is that byte."""
    blob = pickle.dumps(DATA["large"], protocol=protocol)
    real, _ = measure_peak(lambda: pickle.loads(blob))
    plan = ft.plan(lambda: pickle.loads(blob))
    assert ft.is_fake(plan.result) and plan.result.shape == (60, 50)
    assert plan.peak.get("cpu", 0) == real == (0 if protocol == 5 else 1)


def test_python_unpickler_and_unpickler_subclasses(tmp_path):
    """pickle._Unpickler with latin1 (MNIST-style loaders) and a Unpickler subclass."""
    blob = pickle.dumps((DATA["labels"], DATA["large"]), protocol=2)

    class Loader(pickle.Unpickler):
        pass

    def program():
        import io
        u = pickle._Unpickler(io.BytesIO(blob))
        u.encoding = "latin1"
        a, b = u.load()
        c, d = Loader(io.BytesIO(blob)).load()
        return [a + 1, b + 1, c * 2, d * 2]
    _check(program)


def test_np_load_allow_pickle(tmp_path):
    path = str(tmp_path / "d.pkl")
    with open(path, "wb") as f:
        pickle.dump({"x": DATA["small"], "w": DATA["large"]}, f)

    def program():
        d = np.load(path, allow_pickle=True)
        return [d["x"] + 1, d["w"].T @ d["w"]]
    _check(program)


def test_np_load_of_an_object_npy_holding_a_dict(tmp_path):
    path = str(tmp_path / "d.npy")
    np.save(path, {"x": DATA["small"], "w": DATA["large"]}, allow_pickle=True)
    with ft.FakeMode():
        d = np.load(path, allow_pickle=True).item()
        assert ft.is_fake(d["x"]) and ft.is_fake(d["w"])
        assert d["w"].shape == (60, 50)


def test_frombuffer_is_a_view_charged_nothing():
    raw = DATA["large"].tobytes()

    def program():
        a = np.frombuffer(raw, np.float64).reshape(60, 50)
        return [a, a * 2, np.frombuffer(bytearray(raw), np.float32)[::2] + 1]
    plan = _check(program)
    assert plan.flops >= 3000
    with ft.FakeMode():
        a = np.frombuffer(raw, np.float64)
        assert not a.flags.writeable and not a.flags.owndata


def test_fromfile(tmp_path):
    path = str(tmp_path / "x.bin")
    DATA["large"].tofile(path)

    def program():
        a = np.fromfile(path, np.float64).reshape(60, 50)
        return [a, a.T @ a]
    _check(program)


@pytest.mark.parametrize("how", ["asarray", "array"])
def test_arrays_from_pil_images(tmp_path, how):
    Image = pytest.importorskip("PIL.Image")
    path = str(tmp_path / "im.png")
    Image.fromarray((np.arange(40 * 50 * 3) % 251).astype(np.uint8).reshape(40, 50, 3)).save(path)

    def program():
        with Image.open(path) as img:
            x = getattr(np, how)(img)
        return [x, x / 255.0, x.mean(axis=(0, 1))]
    _check(program)

    def alone():
        with Image.open(path) as img:
            return getattr(np, how)(img)
    real, _ = measure_peak(alone)
    plan = ft.plan(alone)
    assert ft.is_fake(plan.result)
    assert plan.peak.get("cpu", 0) == real == (0 if how == "asarray" else 40 * 50 * 3)


def test_loaders_outside_a_mode_are_unchanged():
    blob = pickle.dumps(DATA["large"])
    assert type(pickle.loads(blob)) is np.ndarray
    assert pickle.Unpickler.__module__ == "pickle"


def test_hashing_a_fake_scalar_needs_its_value():
    """``table[ix]`` with a fake NumPy scalar (a sampled index) needs the value; a fake
    array is unhashable, as ndarray."""
    with ft.FakeMode():
        p = np.ones(5) / 5
        ix = np.random.choice(range(5), p=p)
        with pytest.raises(ft.DataDependentError, match="hash"):
            {0: "a"}[ix]
        with pytest.raises(TypeError, match="unhashable"):
            hash(np.zeros(3))
    assert hash(np.int64(3)) == 3  # real scalars unchanged


def _frames():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": np.arange(500.0), "b": np.arange(500.0)})
    mixed = pd.DataFrame({"a": np.arange(500.0), "b": np.arange(500, dtype=np.int32)})
    series = df["a"]
    series.values  # pandas caches on first access: outside the measured runs
    return df, mixed, series


@pytest.mark.parametrize("how", ["df.to_numpy", "df.values", "series.values", "series.to_numpy",
                                 "mixed.to_numpy", "mixed.values"])
def test_pandas_data_reaches_the_program_as_fakes(how):
    """A frame's own block handed out (a view) costs nothing; the array pandas interleaves
    for mixed dtypes is NumPy's allocation, charged at the line."""
    df, mixed, series = _frames()
    objs = {"df": df, "mixed": mixed, "series": series}
    name, attr = how.split(".")

    def program():
        x = getattr(objs[name], attr)
        x = x() if callable(x) else x
        return [x, x * 2]
    _check(program)


@pytest.mark.parametrize("how", ["values", "to_numpy"])
def test_xarray_data_reaches_the_program_as_fakes(how):
    xr = pytest.importorskip("xarray")
    da = xr.DataArray(np.arange(600.0).reshape(20, 30), dims=("x", "y"))

    def program():
        x = da.values if how == "values" else da.to_numpy()
        return [x, x @ x.T]
    _check(program)
