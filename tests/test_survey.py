"""``faketensor coverage`` (meta_utils/survey.py): the measurement itself, run once, and its
classification of a few callables whose status is known."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils import cli
from faketensor.meta_utils.survey import STATUSES, Callee, T, X, measure, not_exact, t


@pytest.fixture(scope="module")
def report() -> dict:
    """One full measurement, through the command's --json output."""
    out = io.StringIO()
    assert cli.show_coverage("numpy", as_json=True, out=out) == 0
    return json.loads(out.getvalue())


def _rows(report: dict) -> dict:
    return {r["name"]: r for r in report["callables"]}


def test_known_callables_are_classified(report):
    rows = _rows(report)
    exact = rows["numpy.transpose"]
    assert exact["status"] == "exact" and not exact["value_dependent"]
    assert exact["samples"] >= 20 and exact["agree"] == exact["samples"]
    dd = rows["numpy.unique"]  # its output's length is the number of distinct values
    assert dd["status"] == "data-dependent" and dd["value_dependent"] and dd["refused"] > 0
    assert "distinct values" in dd["detail"]  # the reason, as the kernel words it
    un = rows["numpy.datetime_as_string"]
    assert un["status"] == "unsupported" and "datetime_as_string" in un["detail"]
    assert rows["numpy.save"]["status"] == "untested" and rows["numpy.save"]["samples"] == 0


def test_the_numbers_add_up(report):
    rows = report["callables"]
    spaces = dict(report["namespaces"])
    total = spaces.pop("total")
    assert set(spaces) == {"numpy", "numpy.linalg", "numpy.fft", "numpy.random", "numpy.strings",
                           "numpy.char", "ndarray", "ufunc"}
    for ns, c in list(spaces.items()) + [("total", total)]:
        mine = [r for r in rows if ns == "total" or r["namespace"] == ns]
        assert c["callables"] == len(mine) == sum(c[s] for s in STATUSES), ns
        for s in STATUSES:
            assert c[s] == sum(r["status"] == s for r in mine), (ns, s)
        assert c["value_independent"] + c["value_dependent"] == c["callables"], ns
        assert c["exact_of_independent"] == sum(r["status"] == "exact" and not r["value_dependent"] for r in mine)
        assert c["share_exact"] == pytest.approx(c["exact_of_independent"] / c["value_independent"])
        assert c["samples"] == sum(r["samples"] for r in mine)
    for key in ("callables", "samples", *STATUSES, "value_independent", "value_dependent"):
        assert total[key] == sum(c[key] for c in spaces.values()), key
    assert total["callables"] > 550 and total["samples"] > 10000
    for r in rows:  # agreeing and rightly refused samples never outnumber the samples
        assert r["agree"] + r["refused"] <= r["samples"]
        assert (r["status"] == "exact") == (r["samples"] > 0 and r["agree"] == r["samples"]), r["name"]
        assert (r["status"] == "untested") == (r["samples"] == 0), r["name"]
    assert report["goal"]["met"] == (total["share_exact"] >= report["goal"]["target"]
                                     and total["refusing_of_dependent"] == total["value_dependent"])


def _copy_on_fakes(x):
    """Right on real arrays (x itself), wrong on fakes (a copy): the survey must say so."""
    return x.copy() if ft.is_fake(x) else x


def test_a_wrong_answer_names_the_first_difference():
    c = Callee("example.identity", "example", None, None, lambda seed=0: _copy_on_fakes)
    import faketensor.meta_utils.survey as survey
    survey.RECIPES["example.identity"] = (t(X, _on="few"),)
    try:
        row = measure(c)
    finally:
        del survey.RECIPES["example.identity"]
    assert row.status == "wrong" and row.samples == 9 and row.agree < row.samples
    assert row.detail == "flags.owndata fake True real False"  # the copy owns its data
    assert row.first == "C.f8.3x4~arange"


def test_value_dependence_is_measured_by_refilling():
    import faketensor.meta_utils.survey as survey
    c = next(c for c in survey.callees() if c.name == "numpy.nonzero")
    assert survey.value_dependent(c, T((X,), {}).expand()[0])
    c = next(c for c in survey.callees() if c.name == "numpy.sum")
    assert not survey.value_dependent(c, T((X,), {}).expand()[0])


def test_random_draws_returned_as_python_numbers_are_exact(report):
    rows = _rows(report)
    for name in ("numpy.random.Generator.normal", "numpy.random.normal", "numpy.random.binomial",
                 "numpy.random.Generator.zipf", "numpy.random.rand", "numpy.random.randint"):
        r = rows[name]  # a fake Python float/int stands for the draw: not a value to refuse
        assert r["status"] == "exact" and not r["value_dependent"], (name, r)
    assert rows["numpy.random.bytes"]["value_dependent"]  # bytes are values


def test_text_output_lists_what_is_not_exact(report):
    rows = [_row_of(r) for r in report["callables"]]
    groups = not_exact(rows)
    listed = {r.name for g in groups.values() for r in g}
    assert "numpy.datetime_as_string" in listed and "numpy.transpose" not in listed
    assert all(r.status != "exact" or r.value_dependent for r in rows if r.name in listed)
    table = cli.coverage_table(report["namespaces"])
    assert table[0].startswith("namespace") and table[-1].startswith("total")


def _row_of(d: dict):
    from faketensor.meta_utils.survey import Row
    return Row(**d)


def test_cupy_is_not_measured_without_a_gpu():
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            pytest.skip("a GPU is present: CuPy is measured there")
    except Exception:  # no cupy or no device: the case under test
        pass
    out = io.StringIO()
    assert cli.show_coverage("cupy", as_json=False, out=out) == 0
    assert "not measured" in out.getvalue()
    assert cli.show_coverage("cupy", as_json=False, check=True, out=io.StringIO()) == 1


def test_only_measures_the_callables_named():
    out = io.StringIO()
    assert cli.show_coverage("numpy", as_json=True, out=out, only=["numpy.sum", "numpy.ndarray.conj"]) == 0
    doc = json.loads(out.getvalue())
    assert [r["name"] for r in doc["callables"]] == ["numpy.sum", "numpy.ndarray.conj"]
    assert doc["namespaces"]["total"]["callables"] == 2
    assert cli.show_coverage("numpy", as_json=False, out=io.StringIO(), only=["numpy.no_such"]) == 1


def test_global_state_is_left_as_it_was():
    """The samples of np.random.seed, set_state, seterrcall and set_printoptions run for real:
    the survey puts the state back."""
    from faketensor.meta_utils.survey import survey

    def callback(*args):
        return None

    np.random.seed(5)
    key = np.random.get_state()[1].copy()
    opts = np.get_printoptions()
    old = np.seterrcall(callback)
    try:
        rows = survey(names=["numpy.random.seed", "numpy.random.set_state", "numpy.seterrcall",
                             "numpy.set_printoptions"])["rows"]
        assert len(rows) == 4 and all(r.samples > 0 for r in rows)
        assert np.array_equal(np.random.get_state()[1], key)
        assert np.get_printoptions() == opts and np.geterrcall() is callback
    finally:
        np.seterrcall(old)
