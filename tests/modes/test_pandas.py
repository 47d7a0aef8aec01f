"""pandas with fakes: DataDependentError naming the pandas call, in a mode or not; pandas on
real data inside a mode runs for real.

pandas keeps values in NumPy blocks and indexes and inspects them on construction (dtype
inference, missing values), so a fake never fits. Where pandas first touches a fake (its
``np.asarray``/``np.array`` or another patched NumPy function called from pandas' code, an
ndarray conversion asking the fake for its data, iterating it as a list) the error names
the pandas entry point the program called (faketensor/_paths.HOSTS).
"""
from __future__ import annotations

import io
import sys

import numpy as np
import pytest

import faketensor as ft

pd = pytest.importorskip("pandas")


def _frame():
    return pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4, 5, 6]})


def _loc_set(df, v):
    df.loc[:, "a"] = v


# name -> (call on a 3x4 fake m and a length-3 fake v, the pandas entry point named)
CASES = {
    "DataFrame": (lambda m, v: pd.DataFrame(m), "DataFrame.__init__"),
    "DataFrame columns": (lambda m, v: pd.DataFrame(m.T, columns=list("abc")), "DataFrame.__init__"),
    "DataFrame dict": (lambda m, v: pd.DataFrame({"a": v}), "DataFrame.__init__"),
    "DataFrame dict mixed": (lambda m, v: pd.DataFrame({"a": v, "b": [1, 2, 3]}), "DataFrame.__init__"),
    "DataFrame rows": (lambda m, v: pd.DataFrame([v, v]), "DataFrame.__init__"),
    "Series": (lambda m, v: pd.Series(v), "Series.__init__"),
    "Series index": (lambda m, v: pd.Series(v, index=[7, 8, 9]), "Series.__init__"),
    "Index": (lambda m, v: pd.Index(v), "Index.__new__"),
    "array": (lambda m, v: pd.array(v), "array"),
    "assign": (lambda m, v: _frame().assign(c=v), "DataFrame.assign"),
    "setitem": (lambda m, v: _frame().__setitem__("c", v), "DataFrame.__setitem__"),
    "loc setitem": (lambda m, v: _loc_set(_frame(), v), "_LocationIndexer.__setitem__"),
    "Series + fake": (lambda m, v: _frame()["a"] + v, "new_method"),
    "DataFrame + fake": (lambda m, v: _frame()[["a"]] + m[:, :1], "new_method"),
    "isna": (lambda m, v: pd.isna(v), "isna"),
    "concat": (lambda m, v: pd.concat([_frame(), pd.DataFrame(m)]), "DataFrame.__init__"),
    "to_datetime": (lambda m, v: pd.to_datetime(v), "to_datetime"),
    "MultiIndex": (lambda m, v: pd.MultiIndex.from_arrays([v, v]), "from_arrays"),
    "Categorical": (lambda m, v: pd.Categorical(v), "Categorical.__init__"),
    "cut": (lambda m, v: pd.cut(v, 3), "cut"),
    "isin": (lambda m, v: _frame()["a"].isin(v), "isin"),
}


@pytest.mark.parametrize("made", ["outside", "inside"])
@pytest.mark.parametrize("name", list(CASES))
def test_fake_in_pandas_raises_data_dependent_error(name, made):
    """Fakes made outside a mode and used outside it, or made inside a mode by the program
    (``np.zeros``) and used there: the error names pandas, the call and why, under a
    recursion limit well below the default."""
    fn, entry = CASES[name]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        if made == "outside":
            m, v = ft.empty((3, 4)), ft.empty((3,))
            with pytest.raises(ft.DataDependentError, match=f"pandas .*{entry}.* needs the values "
                               "of a fake array: pandas keeps values in NumPy blocks"):
                fn(m, v)
        else:
            with ft.FakeMode():
                m, v = np.zeros((3, 4)), np.zeros(3)
                with pytest.raises(ft.DataDependentError, match=f"pandas .*{entry}"):
                    fn(m, v)
    finally:
        sys.setrecursionlimit(old)


def test_fakes_made_outside_used_inside_a_mode():
    m = ft.empty((3, 4), np.float32)
    with ft.FakeMode():
        for name, (fn, entry) in CASES.items():
            with pytest.raises(ft.DataDependentError, match=f"pandas .*{entry}"):
                fn(m, m[:, 0])


@pytest.mark.xfail(strict=True, reason="pandas takes a 0-d duck array for a scalar of an unknown "
                   "type (is_list_like checks ndim) and stores the fake object in an object "
                   "array; outside a mode no NumPy call of pandas sees it")
def test_zero_d_fake_in_a_series_outside_a_mode():
    with pytest.raises(ft.DataDependentError):
        pd.Series(ft.empty((3,))[0])


def test_zero_d_fake_in_a_series_inside_a_mode():
    with ft.FakeMode():
        with pytest.raises(ft.DataDependentError, match="pandas Series.__init__"):
            pd.Series(np.zeros(3)[0])


def _real_program():
    """pandas on real data only: construction, reading CSV, group-by, merge, rolling windows,
    dates, describe, NumPy ufuncs on a Series."""
    df = pd.read_csv(io.StringIO("k,x,y\na,1,2.5\nb,3,4.5\na,5,6.5\nc,7,8.5\n"))
    df["z"] = df["x"] * df["y"]
    g = df.groupby("k").agg({"x": "sum", "y": "mean"})
    g["y"] = df.groupby("k")["y"].mean()  # pandas' np.r_ (a NumPy entry point in Python)
    m = df.merge(g, left_on="k", right_index=True, suffixes=("", "_g"))
    r = m["y"].rolling(2).mean()
    d = pd.Series(np.log(m["x"]), index=pd.date_range("2024-01-01", periods=len(m)))
    cat = pd.Categorical(df["k"])
    return df, g, m, r, d, m.describe(), cat.codes, pd.Series([1.5, np.nan]).isna(), m.to_numpy()


def test_pandas_on_real_data_runs_for_real_in_a_mode():
    want = _real_program()
    with ft.FakeMode() as mode:
        got = _real_program()
        assert mode.memory.peak.get("cpu", 0) == 0  # pandas' own arrays are real
        arr = got[0]["x"].to_numpy()
        assert ft.is_fake(arr)  # data handed to the program enters as a fake (modes/loading.py)
        assert mode.memory.peak.get("cpu", 0) == 0  # a view of pandas' block: NumPy's 0 bytes
        assert ft.is_fake(arr + np.zeros(4))  # the program's NumPy calls still make fakes
        assert ft.is_fake(np.asarray(got[0]["y"]))  # the program's conversion is a fake
    for w, g in zip(want, got):
        assert type(g) is type(w)
        if isinstance(w, np.ndarray):
            assert g.dtype == w.dtype and g.shape == w.shape
            assert np.array_equal(g, w) or w.dtype == object
        else:
            assert w.equals(g)


def test_numpy_frames_are_never_taken_for_the_program():
    """The patches skip the walk up the stack for modules known to be neither NumPy's nor a
    host's; NumPy's own modules are walked past every time (pandas calls NumPy's Python code,
    which calls the patched functions), so they are never in that table."""
    from faketensor._paths import NOT_HOST
    with ft.FakeMode():
        _real_program()
        with pytest.raises(ft.DataDependentError):
            pd.Series(np.zeros(3))
    assert __name__ in NOT_HOST
    assert not [n for n in NOT_HOST if n.partition(".")[0] in ("numpy", "pandas", "xarray")]


def test_import_and_use_pandas_inside_a_mode_in_a_fresh_process(tmp_path):
    """The first ``import pandas`` inside a mode, then pandas on real data and a fake."""
    import subprocess
    script = tmp_path / "p.py"
    script.write_text(
        "import numpy as np, faketensor as ft\n"
        "with ft.FakeMode():\n"
        "    import pandas as pd\n"
        "    df = pd.DataFrame({'a': [1, 2], 'b': [0.5, 1.5]})\n"
        "    print(df.sum().to_dict())\n"
        "    try:\n"
        "        pd.DataFrame({'c': np.ones(2)})\n"
        "    except ft.DataDependentError as e:\n"
        "        print('refused:', str(e)[:40])\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "{'a': 3.0, 'b': 2.0}"
    assert lines[1].startswith("refused: pandas DataFrame.__init__ needs")
