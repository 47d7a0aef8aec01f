"""The type check: mypy on the package and on a user's typed program (tests/typing/).

The package installs from four folders (pyproject's package-dir), which mypy cannot map, so
it runs on a tree of symlinks laid out as installed: faketensor/{kernels,modes,meta_utils}.
Its configuration is pyproject's [tool.mypy]."""
from __future__ import annotations

import importlib
import io
import pathlib
import subprocess
import sys
import tokenize
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TYPING = pathlib.Path(__file__).resolve().parent / "typing"
pytest.importorskip("mypy")

# the mypy runs share one cache (the package is analysed once), on one worker
pytestmark = pytest.mark.xdist_group("mypy")

# The package names whose exports are the public API; every module defining one of them
# must be in pyproject's strict (disallow_untyped_defs) override.
PUBLIC = ("faketensor", "faketensor.modes", "faketensor.meta_utils")


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _installed_tree(dest: pathlib.Path) -> pathlib.Path:
    """Symlinks laid out as the package installs (the source files themselves, so mypy's
    messages name lines of the real files)."""
    for pkg, folder in _config()["tool"]["setuptools"]["package-dir"].items():
        target = dest.joinpath(*pkg.split("."))
        if pkg == "faketensor":
            target.mkdir(parents=True)
            for f in (ROOT / folder).iterdir():
                if f.name != "__pycache__":
                    (target / f.name).symlink_to(f)
        else:
            target.symlink_to(ROOT / folder, target_is_directory=True)
    return dest


def _mypy(cwd: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(cwd / ".mypy_cache"), "--no-error-summary", "--show-error-codes",
         *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return _installed_tree(tmp_path_factory.mktemp("typed"))


def test_the_package_type_checks(tree: pathlib.Path) -> None:
    run = _mypy(tree, "-p", "faketensor")
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert run.stdout == "", run.stdout[-6000:]


def test_user_code_type_checks_against_the_api(tree: pathlib.Path) -> None:
    """A typed program using FakeMode, plan, explain and FakeArray's attributes passes
    ``mypy --strict``, and its assert_type lines hold (faketensor's own modules are read,
    not reported: the test above checks them)."""
    prog = tree / "user_program.py"
    prog.write_text((TYPING / "user_program.py").read_text())
    run = _mypy(tree, "--strict", "--follow-imports=silent", str(prog))
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


def test_a_wrong_type_fails_the_check(tree: pathlib.Path) -> None:
    """The check can fail: a false assert_type and a missing annotation are reported."""
    bad = tree / "bad_program.py"
    bad.write_text("from typing_extensions import assert_type\nimport faketensor as ft\n"
                   "assert_type(ft.empty((2,)).shape, list[int])\n"
                   "def f(x):\n    return x\n")
    run = _mypy(tree, "--strict", "--follow-imports=silent", str(bad))
    assert run.returncode == 1
    assert "[assert-type]" in run.stdout and "[no-untyped-def]" in run.stdout, run.stdout


def _strict_modules() -> set[str]:
    out: set[str] = set()
    for o in _config()["tool"]["mypy"]["overrides"]:
        if o.get("disallow_untyped_defs") and o.get("disallow_incomplete_defs"):
            out.update(o["module"])
    return out


def test_every_module_of_the_public_api_is_checked_strictly() -> None:
    """What faketensor, faketensor.modes and faketensor.meta_utils export is defined in
    modules whose every function and method must be annotated."""
    strict = _strict_modules()
    missing = {}
    for name in PUBLIC:
        pkg = importlib.import_module(name)
        names = getattr(pkg, "__all__", None) or [n for n in vars(pkg) if not n.startswith("_")]
        for n in names:
            obj = getattr(pkg, n)
            mod = getattr(obj, "__module__", None)
            if callable(obj) and mod and mod.startswith("faketensor") and mod not in strict:
                missing[f"{name}.{n}"] = mod
    assert set(PUBLIC) <= strict
    assert not missing, f"public names defined outside the strict modules: {missing}"


def _ignores() -> list[tuple[str, int, str]]:
    found = []
    for folder in ("faketensor", "kernels", "modes", "meta_utils"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            src = path.read_text()
            for tok in tokenize.generate_tokens(io.StringIO(src).readline):
                if tok.type == tokenize.COMMENT and "type: ignore" in tok.string:
                    found.append((f"{folder}/{path.relative_to(ROOT / folder)}", tok.start[0],
                                  tok.string))
    return found


def test_each_type_ignore_names_its_code_and_reason() -> None:
    """``# type: ignore[code]  # why``: an ignore says what it silences and why, and there
    are few of them."""
    bad = [f"{f}:{n}: {c}" for f, n, c in _ignores()
           if not c.startswith("# type: ignore[") or "]  # " not in c]
    assert not bad, "\n".join(bad)
    assert len(_ignores()) <= 12, "\n".join(f"{f}:{n}" for f, n, _ in _ignores())


def test_the_typed_program_runs() -> None:
    """The program the checker reads is a real one: it runs (under the mode, on fakes)."""
    run = subprocess.run([sys.executable, str(TYPING / "user_program.py")],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
