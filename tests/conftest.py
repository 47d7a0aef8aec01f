import os
import sys

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))
# the test folders, which mirror the package: a test may import another test module by its
# name (``from test_plan import run_cli``), the name pytest imports it under
for _folder in ("core", "kernels/numpy", "kernels/cupy", "kernels/scipy", "modes", "planner",
                "files", "gpu"):
    sys.path.append(os.path.join(os.path.dirname(__file__), _folder))

# Derandomized, so the suite gives the same verdict on every run; FT_RANDOM=1 explores
# new examples (run it when changing kernels).
settings.register_profile(
    "ci", max_examples=int(os.environ.get("FT_EXAMPLES", "150")), deadline=None,
    derandomize=os.environ.get("FT_RANDOM") != "1", database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much])
settings.load_profile("ci")


# NumPy's lazily loaded namespaces (numpy.random, ...) loaded and set up once here, as a
# program's first use of them does (modes/installer.py's import hook): the tests that enumerate
# every rule (``REGISTRY``, the op tables, the surveys) see them all. A fresh interpreter, where
# they are not loaded yet, is tested in tests/core/test_import_cost.py.
import faketensor.kernels  # noqa: E402

faketensor.kernels.load_all()

GPU_DESELECTED = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Skips in one line, grouped by reason ("N reason; M reason"): the
    addopts in pyproject list failures, errors and xfails one by one, not skips."""
    reasons: dict[str, int] = {}
    for rep in terminalreporter.stats.get("skipped", []):
        if getattr(rep, "wasxfail", None) is not None:
            continue
        longrepr = rep.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    if reasons:
        total = sum(reasons.values())
        parts = "; ".join(f"{n} {r}" for r, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
        terminalreporter.write_line(f"{total} skipped: {parts}")
    gpu = config.stash.get(GPU_DESELECTED, 0)
    if gpu:
        terminalreporter.write_line(f"{gpu} deselected: need a CUDA GPU and CuPy (tests/gpu)")


@pytest.fixture(autouse=True, scope="session")
def _plan_reports_match_schema():
    """Every plan report a test makes validates against the published JSON Schema
    (docs/schema/plan-report.schema.json): each ``Plan.to_json()`` result in this process
    (patched once per worker: a fixture per test cost ~0.25 ms of each of ~38,000 tests), and,
    after each test, every report ``faketensor run --json`` wrote under its tmp_path
    (``pytest_runtest_call`` below)."""
    import report_schema
    if report_schema.VALIDATOR is None:
        yield
        return
    from faketensor.meta_utils.planner.plan import Plan
    to_json = Plan.to_json

    def checked(self):
        data = to_json(self)
        report_schema.validate(data)
        return data

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Plan, "to_json", checked)
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """The reports a passing test wrote under its tmp_path validate (see above)."""
    result = yield
    tmp = getattr(item, "funcargs", {}).get("tmp_path")
    if tmp is not None:
        import report_schema
        report_schema.validate_files(tmp)
    return result


def pytest_collection_modifyitems(config, items) -> None:
    """Tests marked ``slow`` (tens of seconds each) go first, the others keep their order: under
    ``-n 2 --dist loadgroup`` (the Makefile) a long test handed out last would keep one worker
    busy after the other has finished. (loadgroup hands out the ``xdist_group`` groups first,
    largest first, then the other tests in this order.)"""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    if getattr(config.option, "loadgroup", False):  # an xdist worker, --dist loadgroup
        from xdist_scheduling import name_groups
        name_groups(items)
    # Without a GPU the GPU-only tests (tests/gpu, ``gpu_oracle.needs_gpu``) are deselected
    # rather than skipped one by one: the same tests run (none), without ~7,400 skip reports
    # through the xdist controller; the summary says how many and why.
    gpu = sys.modules.get("gpu_oracle")
    if gpu is not None and not gpu.HAVE_GPU:
        mark = gpu.needs_gpu.mark
        drop = [it for it in items if any(m == mark for m in it.iter_markers("skipif"))]
        if drop:
            dropped = set(map(id, drop))
            items[:] = [it for it in items if id(it) not in dropped]
            config.hook.pytest_deselected(items=drop)
            config.stash[GPU_DESELECTED] = len(drop)
            if hasattr(config, "workeroutput"):  # an xdist worker: told to the controller
                config.workeroutput["gpu_deselected"] = len(drop)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """The xdist controller learns from its workers how many GPU-only tests they deselected."""
    n = getattr(node, "workeroutput", {}).get("gpu_deselected", 0)
    node.config.stash[GPU_DESELECTED] = max(n, node.config.stash.get(GPU_DESELECTED, 0))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` (the Makefile's) by tests/xdist_scheduling.py: the same schedule
    without pytest-xdist's bookkeeping, which is quadratic in the number of tests."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist_scheduling import GroupScheduling
    return GroupScheduling(config, log)
