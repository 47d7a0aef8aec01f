"""numpy.ma on fakes (modes/masked.py): the survey table against real numpy.ma, a masked
sensor script against the same script run for real (metadata and peak memory to the byte),
``faketensor run`` on it, and the entry points."""
import os
import subprocess
import sys

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils.surveys import ma_survey
from faketensor.modes import masked
from memtools import measure_peak

from locations import TESTS  # tests/ and the checkout
HERE = str(TESTS)
EXAMPLE = os.path.join(os.path.dirname(HERE), "examples", "masked_sensors.py")
sys.path.insert(0, os.path.dirname(EXAMPLE))
import masked_sensors  # noqa: E402

# test_survey_figure reuses the rows test_survey measured, on one worker
pytestmark = pytest.mark.xdist_group("ma_survey")

np.random.default_rng(0)  # NumPy's first Generator caches bytes for good: not in a measurement

# Known gaps of the survey, by callable (strict: a fixed one fails until removed here)
_NOMASK_VALUES = ("numpy.ma drops a mask computed from the values to nomask when nothing is "
                  "masked (``invalid.any()`` of the data, ``mask.all(axis)``, the mask of a "
                  "product); on fakes whose values are not known the mask is kept (a fake "
                  "mask is taken to hold a masked element)")
_REAL_MASK = ("an all-False mask given as a real array of several elements: its values are "
              "not read (that would be work proportional to its size), so numpy.ma's "
              "shrinking to nomask is not followed")
KNOWN = {
    "ma:median": "numpy.ma's median asks whether the middle elements are masked (is_masked)",
    "ma:std": ("std of a full reduction is sqrt's domain check on the variance (masked for a "
               "NaN or negative variance): the survey's values never make it masked"),
    "method:std": ("std of a full reduction is sqrt's domain check on the variance (masked "
                   "for a NaN or negative variance): the survey's values never make it masked"),
    "ma:var": _NOMASK_VALUES, "method:var": _NOMASK_VALUES, "ma:dot": _NOMASK_VALUES,
    "method:dot": _NOMASK_VALUES, "ma:fix_invalid": _NOMASK_VALUES, "ma:power": _NOMASK_VALUES,
    "ma:make_mask": _REAL_MASK, "ma:mask_or": _REAL_MASK,
    "ma:round": ("np.round(bool masked array, 1): MaskedArray.round raises, and NumPy's "
                 "fallback (fromnumeric._wrapit) converts the array with np.asarray"),
    "ma:bool_": "np.bool_(fake masked array) reads the data",
}


_NO_FORM = "the survey has no argument form for it (RECIPES)"
KNOWN.update({f"ma:{n}": _NO_FORM for n in (
    "choose", "flatten_structured_array", "fromflex", "ids", "ndenumerate", "polyfit")})
KNOWN.update({f"method:{n}": _NO_FORM for n in (
    "choose", "dump", "dumps", "ids", "setfield", "tofile")})
KNOWN.update({"ma:apply_along_axis": "numpy.ma's apply_along_axis keeps an object array "
              "of the partial results and reads it (tolist)"})


def _rows():
    return [pytest.param(kind, name, marks=pytest.mark.xfail(strict=True, reason=KNOWN[key]))
            if (key := f"{kind}:{name}") in KNOWN else pytest.param(kind, name)
            for kind, name in ma_survey.callables()]


@pytest.mark.parametrize("kind,name", _rows())
def test_survey(kind, name):
    """Each public callable of numpy.ma and method of MaskedArray on awkward masked arrays:
    exact, or DataDependentError exactly where the real result depends on the values
    (a callable with no argument form is untested: a known gap)."""
    row = _MEASURED[(kind, name)] = ma_survey.measure(kind, name)
    assert row.status in ("exact", "data-dependent"), row.detail


_MEASURED: dict = {}  # (kind, name): the row test_survey measured in this process


def _survey() -> list:
    """``ma_survey.survey()``, its rows measured by test_survey reused (the same measurement:
    test_survey_figure runs after them, on the same worker)."""
    order = ma_survey.callables()
    missing = {name for kind, name in order if (kind, name) not in _MEASURED}
    fresh = {(r.kind, r.name): r for r in ma_survey.survey(names=missing)} if missing else {}
    return [_MEASURED.get(key) or fresh[key] for key in order]


def test_survey_figure():
    """The share docs/guide/masked-arrays.md states: exact numpy.ma functions of those tested whose output
    metadata do not depend on values."""
    rows = _survey()
    ma_rows = [r for r in rows if r.kind == "ma" and r.status != "untested"]
    indep = [r for r in ma_rows if r.status != "data-dependent"]
    share = sum(r.status == "exact" for r in indep) / len(indep)
    assert share >= 0.90, ma_survey.summary(rows)  # 196 of 209


def _result_rows(real: dict, fake: dict, real_in: list, fake_in: list) -> None:
    for key in real:
        ma_survey.compare_masked(real[key], fake[key], real_in, fake_in, key)


def test_sensor_script_metadata_and_peak():
    """examples/masked_sensors.py under FakeMode against the same run for real: every
    result's data and mask metadata, and NumPy's data peak to the byte."""
    n = 4000
    real = masked_sensors.main(n)
    with ft.FakeMode() as mode:
        fake = masked_sensors.main(n)
    _result_rows(real, fake, [], [])
    assert any(p["message"] == masked.ASSUMED for p in mode.placeholders)
    del real, fake
    peak, live = measure_peak(lambda: masked_sensors.main(n))
    with ft.FakeMode() as mode:
        masked_sensors.main(n)
    assert mode.memory.peak["cpu"] == peak
    assert mode.memory.live.get("cpu", 0) == live


def test_faketensor_run_plans_the_script(tmp_path):
    """``faketensor run`` on the full-size script: a plan, no real allocation of its size."""
    out = tmp_path / "plan.json"
    res = subprocess.run([sys.executable, "-m", "faketensor", "run", "--json", str(out),
                          EXAMPLE], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    import json
    plan = json.loads(out.read_text())
    assert plan["devices"]["cpu"]["peak_bytes"] > 10_000_000 * 16 * 8  # the readings: 1.28 GB


def test_fakes_outside_a_mode():
    """np.ma.masked_array of fakes made outside any mode: a fake masked array whose data is
    a view of the fake and whose mask is the given fake (as for real arrays)."""
    data, mask = ft.empty((3, 4)), ft.empty((3, 4), dtype=bool)
    m = np.ma.masked_array(data, mask=mask)
    assert masked.is_fake_masked(m)
    assert m.shape == (3, 4) and m.dtype == np.float64
    assert m._mask is mask and np.shares_memory(masked.plain(m), data)
    s = (m * 2).sum(axis=0)
    assert masked.is_fake_masked(s) and s.shape == (4,) and s._mask.shape == (4,)


def test_real_inputs_are_converted_and_never_modified():
    """A real masked array given to numpy.ma in a mode: data and mask converted, the real
    one untouched by an in-place operation on the fake."""
    x = np.ma.masked_array(np.arange(6.0), mask=[0, 1, 0, 0, 1, 0])
    before = (x.data.copy(), x.mask.copy())
    with ft.FakeMode():
        y = np.ma.asarray(x)
        y += 1
        y[0] = np.ma.masked
    assert masked.is_fake_masked(y)
    assert np.array_equal(x.data, before[0]) and np.array_equal(x.mask, before[1])


def test_value_dependent_functions_refuse():
    with ft.FakeMode():
        x = np.ma.masked_invalid(np.empty((5, 3)))  # np.ones' mask would be known: nomask
        for fn in (np.ma.flatnotmasked_contiguous, np.ma.is_masked, np.ma.notmasked_edges):
            with pytest.raises(ft.DataDependentError):
                fn(x)


def test_value_dependent_lengths_are_bounded_sizes():
    """The unmasked entries' count (compressed) is a bounded size (faketensor/_sizes.py),
    at its upper bound in a plain mode; np.ma.unique reads values on its way (a masked
    comparison's mask)."""
    with ft.FakeMode() as mode:
        x = np.ma.masked_invalid(np.empty((5, 3)))
        c = np.ma.compressed(x)
        with pytest.raises(ft.DataDependentError):
            np.ma.unique(x)
    assert type(c.shape[0]) is ft.BoundedSize and c.shape == (15,) and mode.sizes.made


def test_known_masks_follow_the_real_branches():
    """Masks known all False (from nomask inputs, np.zeros) and 0-d operands whose values are
    converted with them: numpy.ma's nomask and masked-or-scalar branches as for real, with
    no assumption recorded."""
    calls = {
        "copy": lambda: np.ma.copy(np.ma.masked_array(np.ones((3, 4)))),
        "diff": lambda: np.ma.diff(np.ma.masked_array(np.arange(6.0))),
        "minimum": lambda: np.ma.minimum(np.ones((2, 3)), np.zeros((2, 3))),
        "masked_equal 0-d": lambda: np.ma.masked_equal(np.array(1.0), 1),
        "divide 0-d": lambda: np.ma.divide(np.array(1.0), np.array(0.0)),
        "zeros mask": lambda: np.ma.masked_array(np.ones(4), mask=np.zeros(4, bool)) + 1,
    }
    for name, call in calls.items():
        real = call()
        with ft.FakeMode() as mode:
            fake = call()
        ma_survey.compare_masked(real, fake, [], [], name)
        assert not mode.placeholders, name


def test_numpy_functions_on_fake_masked_arrays():
    """np.mean / np.sum of a masked array call its methods (NumPy's Python implementation),
    np.concatenate gives the subclass (nomask), np.where a plain array: as for real."""
    real = np.ma.masked_array(np.ones((3, 4)), mask=np.eye(3, 4, dtype=bool))
    with ft.FakeMode() as mode:
        fake = masked.to_fake_masked(real, mode._convert)
        results = {"mean": np.mean(fake, axis=0), "sum": np.sum(fake, axis=1),
                   "concatenate": np.concatenate([fake, fake]),
                   "where": np.where(np.ones((3, 4), bool), fake, 0.0)}
    want = {"mean": np.mean(real, axis=0), "sum": np.sum(real, axis=1),
            "concatenate": np.concatenate([real, real]),
            "where": np.where(np.ones((3, 4), bool), real, 0.0)}
    for k in want:
        ma_survey.compare_masked(want[k], results[k], [], [], k)


def test_c_function_without_a_rule_refuses():
    with ft.FakeMode():
        x = np.ma.masked_invalid(np.ones(4))
        with pytest.raises(ft.UnsupportedOperationError):
            np.inner(x, x)


def test_repr_shows_metadata():
    """Printing a fake masked array shows its metadata (numpy.ma's repr reads the values)."""
    with ft.FakeMode():
        x = np.ma.array(np.ones((3, 4)), mask=np.zeros((3, 4), bool), fill_value=5.0)
        text = repr(x)
    assert text == ("FakeMaskedArray(shape=(3, 4), dtype=float64, strides=(32, 8), "
                    "mask=(shape=(3, 4), dtype=bool), fill_value=np.float64(5.0))")
    assert str(x) == text


_MEMORY_CALLS = {
    "average axis": lambda x, y: np.ma.average(x, axis=0),
    "compress list": lambda x, y: np.ma.compress([True, False, True], x, axis=0),
    "maximum of plain arrays": lambda x, y: np.ma.maximum(y, y),
    "copy nomask": lambda x, y: np.ma.copy(np.ma.masked_array(y)),
    "var": lambda x, y: np.ma.var(x, axis=1),
    "unique of one element": lambda x, y: np.ma.unique(x[:1, :1]),
}


_MEMORY_GAPS = {
    "copy nomask": "1 byte low: a 1-byte buffer NumPy allocates and frees while numpy.ma "
                   "builds a MaskedArray of a plain array is not modelled",
    "unique of one element": "17 bytes low: the temporaries of NumPy's _unique1d on one "
                             "element (sort path) are not replayed, only the outputs counted",
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(
    strict=True, reason=_MEMORY_GAPS[n])) if n in _MEMORY_GAPS else n
    for n in sorted(_MEMORY_CALLS)])
def test_newly_exact_calls_charge_numpys_peak(name):
    """NumPy's data peak of calls the known values and the rules above made exact, real
    (tracemalloc) against fake, inputs made beforehand."""
    call = _MEMORY_CALLS[name]
    data = np.arange(200.0).reshape(20, 10)
    x = np.ma.masked_array(data, mask=np.arange(200).reshape(20, 10) % 3 == 0)
    y = np.arange(200.0).reshape(20, 10)
    peak, _ = measure_peak(lambda: call(x, y))
    with ft.FakeMode() as mode:
        fx = masked.to_fake_masked(x, mode._convert)
        fy = mode._convert(y)
        base = mode.memory.peak.get("cpu", 0)
        call(fx, fy)
    assert mode.memory.peak["cpu"] - base == peak
