"""The support window as a test matrix (docs/guide/install.md, CONTRIBUTING.md "Versions").

- ``compat(<python>-np<x.y>)``: every Python x NumPy of the window except the main one
  (Python 3.11 + NumPy 2.4, the full suite in ``.venv``), each in a light venv (numpy, wrapt,
  scipy, pytest, pytest-xdist, hypothesis) running the compatibility subset (COMPAT) against
  that venv's real NumPy.
- ``package``: the sdist and the wheel built, the wheel installed (not the checkout) with
  only its declared dependencies, ``faketensor run`` planning an example from outside the
  checkout; every extra resolved (``pip install --dry-run``).

``nox`` runs them all; ``nox -s "compat(3.12-np2.3)"`` one (``nox -l`` lists them);
``FT_MATRIX_CI=1 nox -t ci`` the subset ``make test`` runs (``CI`` below). With uv present (``pip install
uv``) the venvs are made by uv, which also fetches a Python the machine lacks; without it by
virtualenv, from the interpreters on PATH or under pyenv.
"""
from __future__ import annotations

import glob
import os
import shutil
import sys

import nox

nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True
nox.needs_version = ">=2024.4.15"

HAVE_UV = shutil.which("uv") is not None or os.path.exists(
    os.path.join(os.path.dirname(sys.executable), "uv"))
if HAVE_UV and not shutil.which("uv"):  # uv installed beside nox (the Makefile's venv)
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
nox.options.default_venv_backend = "uv" if HAVE_UV else "virtualenv"

PYTHONS = ["3.11", "3.12", "3.13"]
NUMPYS = ["2.2", "2.3", "2.4"]
MAIN = ("3.11", "2.4")  # the full suite's combination: make test's .venv
COMBOS = [(py, np_) for py in PYTHONS for np_ in NUMPYS if (py, np_) != MAIN]

# Interpreters pyenv has, first on PATH (nox and uv look for pythonX.Y there; pyenv's shims
# answer only for the versions it has selected).
for _py in PYTHONS:
    for _d in sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{_py}.*/bin")),
                     reverse=True):
        os.environ["PATH"] = _d + os.pathsep + os.environ["PATH"]
        break

# SciPy below 1.18 in the compat venvs: SciPy 1.18 (Python 3.12+) replaced scipy.linalg's LAPACK
# layer, whose byte models follow 1.17 (on 1.18 its calls are flagged unmodelled); the main
# .venv has 1.17 too. ``scipy_next`` tests what is exact on 1.18 (scipy.fft).
TEST_TOOLS = ["pytest", "pytest-xdist", "hypothesis"]
LIGHT = ["wrapt", "scipy<1.18", *TEST_TOOLS]

# The compatibility subset: what must be exact on every combination, against its NumPy.
COMPAT = [
    "tests/core/test_versions.py",
    "tests/kernels/numpy/test_opinfo.py::test_numpy",
    "tests/kernels/numpy/test_memory_ops.py",
    "tests/planner/test_memory_programs.py::test_predicted_peak_equals_real_peak",
    # the README example (examples/transformer_1b.py) at a small size, real vs planned peak
    "tests/planner/test_plan.py::test_predicted_cpu_peak_equals_real_peak[target5]",
]
# What a Python version (rather than a NumPy version) can change: imports and the import
# hook, the version module, planning whole programs (frames, tracebacks, sysconfig).
PYTHON_SUBSET = [
    "tests/core/test_versions.py",
    "tests/planner/test_memory_programs.py::test_predicted_peak_equals_real_peak",
    "tests/planner/test_plan.py::test_predicted_cpu_peak_equals_real_peak[target5]",
]
# The rest of the window in CI: the import and the version module, and the README example
# planned at a small size against its real peak.
SMOKE = [
    "tests/core/test_versions.py",
    "tests/planner/test_plan.py::test_predicted_cpu_peak_equals_real_peak[target5]",
]

# ``make test`` (and so CI) runs the sessions tagged "ci": each NumPy of the window with the
# whole compatibility subset on the oldest Python, each Python with the Python subset on the
# newest NumPy, the far corner (newest Python, oldest NumPy) with the Python subset too, and
# the smoke subset on the other three. ``nox`` runs all of them,
# each with the whole subset (``make test-matrix-full``).
CI = {("3.11", "2.2"): COMPAT, ("3.11", "2.3"): COMPAT, ("3.12", "2.4"): PYTHON_SUBSET,
      ("3.13", "2.4"): PYTHON_SUBSET, ("3.13", "2.2"): PYTHON_SUBSET,
      ("3.12", "2.2"): SMOKE, ("3.12", "2.3"): SMOKE, ("3.13", "2.3"): SMOKE}
assert set(CI) <= set(COMBOS)
# ``make test-matrix`` runs the CI sessions in two lanes at once, each pytest on one worker
# (the two cores stay busy through each session's serial start: venv, imports, collection):
# tags "ci-a" and "ci-b", about equal in time.
LANE_B = {("3.11", "2.3"), ("3.13", "2.2"), ("3.13", "2.3"), "scipy_next"}
# combinations that run without the compiled accelerator (its pure-Python fallback,
# docs/internals/accelerator.md): the whole compatibility subset through the Python patches
PURE_PYTHON = {("3.11", "2.3")}


def _editable(session: nox.Session) -> None:
    """The checkout, editable, without dependencies. Its compiled accelerator is built in
    place, one file per Python; when this Python's is newer than its source it is kept
    (``FAKETENSOR_BUILD_EXT=0``): not rebuilt per session, nor rewritten under interpreters
    that have it loaded (``make test`` installs these venvs while the main suite runs)."""
    tag = str(session.python).replace(".", "")
    built = glob.glob(f"faketensor/_speedups.cpython-{tag}-*.so")
    fresh = built and os.path.getmtime(built[0]) >= max(
        os.path.getmtime(c) for c in glob.glob("faketensor/_speedups*.c"))
    session.install("--no-deps", "-e", ".", env={"FAKETENSOR_BUILD_EXT": "0"} if fresh else {})


def _params() -> list:
    return [nox.param(py, np_, id=f"{py}-np{np_}", tags=_tags((py, np_)) if (py, np_) in CI else [])
            for py, np_ in COMBOS]


def _tags(session: object) -> list[str]:
    return ["ci", "ci-b" if session in LANE_B else "ci-a"]


@nox.session(name="compat")
@nox.parametrize("python,numpy", _params())
def compat(session: nox.Session, numpy: str) -> None:
    """The compatibility subset on one Python x NumPy (``FT_MATRIX_CI=1``: the CI subset)."""
    session.install(f"numpy=={numpy}.*", *LIGHT)
    _editable(session)
    session.run("python", "-c", "import numpy, sys, faketensor; "
                "print('faketensor on NumPy', numpy.__version__, 'Python', sys.version.split()[0])")
    workers = os.environ.get("FT_MATRIX_WORKERS", "2")
    tests = COMPAT
    if os.environ.get("FT_MATRIX_CI"):
        tests = CI[(str(session.python), numpy)]
    env = {"FAKETENSOR_PURE_PYTHON": "1"} if (str(session.python), numpy) in PURE_PYTHON else {}
    session.run("python", "-c", "import faketensor._accel as a; print('compiled accelerator:', "
                "a.PATCH is not None)", env=env)
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers,
                "--dist", "loadgroup", *tests, *session.posargs, env=env)


@nox.session(python=MAIN[0], tags=_tags("package"))
def package(session: nox.Session) -> None:
    """The distributions as users install them."""
    tmp = os.path.abspath(session.create_tmp())
    dist = os.path.join(tmp, "dist")
    shutil.rmtree(dist, ignore_errors=True)
    session.install("build")
    if session.run("python", "-c", "", silent=True) is None:
        return  # --install-only (make test's first pass): nothing to build yet
    session.run("python", "-m", "build", "--sdist", "--wheel", "--outdir", dist,
                *(["--installer", "uv"] if HAVE_UV else []))
    wheel = glob.glob(os.path.join(dist, "faketensor-*.whl"))[0]
    assert glob.glob(os.path.join(dist, "faketensor-*.tar.gz")), "no sdist"
    # the wheel alone, with its declared dependencies only, in a venv of its own
    venv = os.path.join(tmp, "wheel-venv")
    shutil.rmtree(venv, ignore_errors=True)
    vpy = os.path.join(venv, "bin", "python")
    if HAVE_UV:
        session.run("uv", "venv", "-q", "--seed", "-p", str(session.python),
                    venv, external=True)
        session.run("uv", "pip", "install", "-q", "-p", vpy, wheel, external=True)
    else:
        session.run("python", "-m", "venv", venv)
        session.run(vpy, "-m", "pip", "install", "-q", wheel, external=True)
    example = os.path.abspath("examples/transformer_1b.py")
    session.chdir(tmp)  # not the checkout: the installed package must be the one imported
    session.run(vpy, "-c", "import faketensor, os; assert 'site-packages' in faketensor.__file__, "
                "faketensor.__file__", external=True)
    session.run(os.path.join(venv, "bin", "faketensor"), "run", example, "--layers", "2",
                "--d-model", "64", "--heads", "4", "--seq", "16", "--vocab", "100", external=True)
    # every extra resolves (metadata only: nothing heavy is downloaded or installed); uv's
    # resolver takes seconds where pip's took minutes (it fetched whole wheels for metadata)
    extras = "cupy,report,scipy,ml_dtypes,dask,distributed,test"
    if HAVE_UV:
        session.run("uv", "pip", "install", "-q", "--dry-run", "--reinstall", "-p", vpy,
                    f"{wheel}[{extras}]", external=True)
    else:
        session.run(vpy, "-m", "pip", "install", "-q", "--dry-run", "--ignore-installed",
                    f"{wheel}[{extras}]", external=True)


@nox.session(python="3.13", tags=_tags("scipy_next"))
def scipy_next(session: nox.Session) -> None:
    """scipy.fft on SciPy 1.18 (its ducc0 core) against the real calls, on the newest NumPy."""
    session.install(f"numpy=={MAIN[1]}.*", "scipy>=1.18", "wrapt", *TEST_TOOLS)
    _editable(session)
    workers = os.environ.get("FT_MATRIX_WORKERS", "2")
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers,
                "tests/kernels/scipy/test_scipy.py", "-k", "fft", *session.posargs)
