"""``faketensor coverage`` (meta_utils/surveys/survey.py): the measurement itself, run once, and its
classification of a few callables whose status is known."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils.planner import cli
from faketensor.meta_utils.surveys.survey import STATUSES, Callee, T, X, measure, not_exact, t

# the full coverage measurement (`report`) is made once, on one worker
pytestmark = pytest.mark.xdist_group("survey")


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
    dd = rows["numpy.allclose"]  # a Python bool computed from the values
    assert dd["status"] == "data-dependent" and dd["value_dependent"] and dd["refused"] > 0
    assert "computed from the values" in dd["detail"]  # the reason, as the kernel words it
    assert rows["numpy.nested_iters"]["status"] == "untested"
    assert rows["numpy.nested_iters"]["samples"] == 0
    save = rows["numpy.save"]  # written in the survey's temporary directory
    assert save["status"] == "exact" and save["samples"] > 10
    out = rows["numpy.show_config"]  # takes and returns no array: outside both shares
    assert out["status"] == "no array" and not out["value_dependent"]


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
        assert c["value_independent"] + c["value_dependent"] + c["no array"] == c["callables"], ns
        assert c["exact_of_independent"] == sum(r["status"] == "exact" and not r["value_dependent"] for r in mine)
        assert c["share_exact"] == pytest.approx(c["exact_of_independent"] / c["value_independent"])
        assert c["samples"] == sum(r["samples"] for r in mine)
    for key in ("callables", "samples", *STATUSES, "value_independent", "value_dependent"):
        assert total[key] == sum(c[key] for c in spaces.values()), key
    assert total["callables"] > 550 and total["samples"] > 10000
    for r in rows:  # agreeing and rightly refused samples never outnumber the samples
        assert r["agree"] + r["refused"] <= r["samples"]
        assert (r["status"] == "exact") == (r["samples"] > 0 and r["agree"] == r["samples"]), r["name"]
        assert (r["status"] in ("untested", "no array")) == (r["samples"] == 0), r["name"]
    assert report["goal"]["met"] == (total["share_exact"] >= report["goal"]["target"]
                                     and total["refusing_of_dependent"] == total["value_dependent"])


def _copy_on_fakes(x):
    """Right on real arrays (x itself), wrong on fakes (a copy): the survey must say so."""
    return x.copy() if ft.is_fake(x) else x


def test_a_wrong_answer_names_the_first_difference():
    c = Callee("example.identity", "example", None, None, lambda seed=0: _copy_on_fakes)
    import faketensor.meta_utils.surveys.survey as survey
    survey.RECIPES["example.identity"] = (t(X, _on="few"),)
    try:
        row = measure(c)
    finally:
        del survey.RECIPES["example.identity"]
    assert row.status == "wrong" and row.samples == 9 and row.agree < row.samples
    assert row.detail == "flags.owndata fake True real False"  # the copy owns its data
    assert row.first == "C.f8.3x4~arange"


def test_value_dependence_is_measured_by_refilling():
    import faketensor.meta_utils.surveys.survey as survey
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
    for name in ("numpy.random.bytes", "numpy.random.Generator.bytes"):
        r = rows[name]  # a FakeBytes of the real length stands for the bytes, as a fake number
        assert r["status"] == "exact" and not r["value_dependent"], (name, r)


def test_text_output_lists_what_is_not_exact(report):
    rows = [_row_of(r) for r in report["callables"]]
    groups = not_exact(rows)
    listed = {r.name for g in groups.values() for r in g}
    assert "numpy.nested_iters" in listed and "numpy.transpose" not in listed
    assert all(r.status != "exact" or r.value_dependent for r in rows if r.name in listed)
    table = cli.coverage_table(report["namespaces"])
    assert table[0].startswith("namespace") and table[-1].startswith("total")


def _row_of(d: dict):
    from faketensor.meta_utils.surveys.survey import Row
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
    from faketensor.meta_utils.surveys.survey import survey

    def callback(*args):
        return None

    np.random.seed(5)
    key = np.random.get_state()[1].copy()
    opts = np.get_printoptions()
    old = np.seterrcall(callback)
    try:
        bitgen = np.random.get_bit_generator()
        rows = survey(names=["numpy.random.seed", "numpy.random.set_state", "numpy.seterrcall",
                             "numpy.set_printoptions", "numpy.random.set_bit_generator"])["rows"]
        assert len(rows) == 5 and all(r.samples > 0 for r in rows)
        assert np.random.get_bit_generator() is bitgen
        assert np.array_equal(np.random.get_state()[1], key)
        assert np.get_printoptions() == opts and np.geterrcall() is callback
    finally:
        np.seterrcall(old)


def test_values_numpy_refuses_are_left_out():
    """hypergeometric(ngood, nbad, 3) with fake ngood, nbad: NumPy raises for some values
    (ngood + nbad < nsample) and accepts others; the fake answers for the accepted ones."""
    import faketensor.meta_utils.surveys.survey as survey
    c = next(c for c in survey.callees() if c.name == "numpy.random.hypergeometric")
    from faketensor.meta_utils.surveys.samples import A, Sample
    s = Sample((A("F", (3, 4), "i4", "arange"), A("C", (3, 4), "i4", "arange"), 3))
    assert survey.run_sample(c, s).verdict == "wrong"  # the arange filling: NumPy refuses
    assert survey._refused_for_values(c, s)            # another filling: accepted and equal
    row = measure(c)
    assert row.status == "exact" and row.samples < 24


def test_fillings_find_the_dependence_on_values():
    """The dtype's extreme value: min_scalar_type of a 0-d array, real_if_close of complex
    data, polydiv's remainder length depend on values; sum's metadata does not."""
    import faketensor.meta_utils.surveys.survey as survey
    rows = survey.survey(names=["numpy.min_scalar_type", "numpy.real_if_close", "numpy.polydiv",
                                "numpy.sum"])["rows"]
    by = {r.name: r for r in rows}
    for name in ("numpy.min_scalar_type", "numpy.real_if_close", "numpy.polydiv"):
        assert by[name].value_dependent and by[name].status == "data-dependent", by[name]
    assert not by["numpy.sum"].value_dependent


def test_file_samples_live_in_a_removed_directory():
    import os
    import faketensor.meta_utils.surveys.survey as survey
    rows = survey.survey(names=["numpy.load", "numpy.save", "numpy.loadtxt"])["rows"]
    assert [r.status for r in rows] == ["exact"] * 3
    assert not os.path.exists(survey._FILES)
