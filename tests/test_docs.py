"""The documentation: the site builds with warnings as errors, every code example in it runs,
the README stays a short page that starts with the two commands, and plan reports validate
against the published JSON Schema (docs/schema/plan-report.schema.json)."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import doc_examples
import report_schema
import faketensor as ft

ROOT = doc_examples.ROOT
PLAN_SCRIPTS = Path(__file__).resolve().parent / "plan_scripts"
needs_sphinx = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("sphinx", "myst_parser", "pydata_sphinx_theme")),
    reason="needs the docs extra (pip install -e '.[docs]'; make test installs it)")
needs_jsonschema = pytest.mark.skipif(report_schema.VALIDATOR is None,
                                      reason="needs jsonschema (the test extra)")


# --- the site -------------------------------------------------------------------------------

@pytest.mark.slow
@needs_sphinx
def test_docs_build_without_warnings(tmp_path):
    """``make docs``'s command: any warning (a broken link or reference, a docstring autodoc
    cannot read, a page in no toctree) fails the build."""
    out = tmp_path / "html"
    r = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                        "-d", str(tmp_path / "doctrees"), "docs", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (out / "index.html").exists()
    assert (out / "plan-report.schema.json").exists()  # published beside the pages
    for page in ("getting-started", "reference/api", "reference/json-report", "internals/contributing"):
        assert (out / f"{page}.html").exists(), page
    guide = (out / "guide" / "index.html").read_text(encoding="utf-8")
    for md in (ROOT / "docs" / "guide").glob("*.md"):  # the glob picks up every guide page
        if md.stem != "index":
            assert f'href="{md.stem}.html"' in guide, md.name


def test_guide_toctree_is_a_glob():
    """Pages added under docs/guide/ join the guide without editing its index."""
    text = (ROOT / "docs" / "guide" / "index.md").read_text()
    toctree = text[text.index("```{toctree}"):]
    toctree = toctree[:toctree.index("\n```\n")]
    assert ":glob:" in toctree and toctree.split("\n")[-1] == "*", toctree


# --- the examples ---------------------------------------------------------------------------

PYTHON = doc_examples.examples("python")
CONSOLE = doc_examples.examples("console")
RUN_PYTHON = sorted(p for p, bs in PYTHON.items() if any(b.notest is None for b in bs))
RUN_CONSOLE = sorted(p for p, bs in CONSOLE.items() if any(b.notest is None for b in bs))


def test_every_skipped_example_says_why():
    for bs in [*PYTHON.values(), *CONSOLE.values()]:
        for b in bs:
            assert b.notest is None or len(b.notest.split()) >= 2, f"{b.page}:{b.line}"
    assert sum(b.notest is None for bs in PYTHON.values() for b in bs) >= 20  # the guide has examples


@pytest.mark.parametrize("page", RUN_PYTHON)
def test_python_examples_run(page, tmp_path):
    bs = PYTHON[page]
    runnable = [b for b in bs if b.notest is None]
    prog = tmp_path / "examples.py"
    prog.write_text(doc_examples.python_program(bs))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FT_DOCS_TMP": str(tmp_path),
           "MPLBACKEND": "Agg"}
    r = subprocess.run([sys.executable, "-W", "error", str(prog)], cwd=ROOT, capture_output=True,
                       text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-6000:]
    assert f"ran {len(runnable)} examples" in r.stdout


VOLATILE = [(re.compile(r"planned in [\d.]+ s"), "planned in <t> s"),
            (re.compile(r"available memory [\d.]+ \w+"), "available memory <m>")]


def normalized(line: str) -> str:
    """A line of output with what differs between runs and machines (times, the machine's
    free memory) replaced by placeholders."""
    for pattern, repl in VOLATILE:
        line = pattern.sub(repl, line)
    return line.rstrip()


def check_output(shown: str, out: str, where: str) -> None:
    """Every line the docs show is in the output (in any order; ``...`` stands for lines
    left out), times and the machine's memory aside."""
    lines = {normalized(ln) for ln in out.split("\n")}
    for ln in shown.split("\n"):
        if ln.strip() in ("", "...") or ln.strip().startswith("..."):
            continue
        assert normalized(ln) in lines, f"{where}: shown line not in the output: {ln!r}\n{out}"


def run_command(argv: str, tmp_path: Path) -> subprocess.CompletedProcess:
    words = argv.split()
    if words[0] == "faketensor":
        cmd = [sys.executable, "-m", "faketensor", *words[1:]]
    elif words[0] == "python":
        cmd = [sys.executable, *words[1:]]
    else:
        raise AssertionError(f"not a command the docs test runs: {argv!r} (mark it notest)")
    cmd = [str(tmp_path / w[len("$TMP/"):]) if w.startswith("$TMP/") else w for w in cmd]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MPLBACKEND": "Agg"})


@pytest.mark.parametrize("page", RUN_CONSOLE)
def test_console_examples_run(page, tmp_path):
    """Each command runs; every line of output the docs show is in its output (times and
    the machine's free memory aside), and the exit status is the one ``echo $?`` shows."""
    ran = 0
    for b in CONSOLE[page]:
        if b.notest is not None:
            continue
        last = None
        for c in doc_examples.commands(b):
            if c.argv == "echo $?":
                assert last is not None and str(last.returncode) == c.shown.strip(), \
                    f"{b.page}:{b.line}: exit {last.returncode if last else None}, shown {c.shown!r}"
                continue
            last = run_command(c.argv, tmp_path)
            check_output(c.shown, last.stdout + last.stderr, f"{b.page}:{b.line}")
            ran += 1
    assert ran


# --- the README -----------------------------------------------------------------------------

def test_readme_is_short_and_starts_with_the_two_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").split("\n")
    assert len(lines) <= 300, len(lines)
    assert lines[0] == "# faketensor"
    first_block = lines[lines.index("```bash") + 1:]
    first_block = first_block[:first_block.index("```")]
    assert [ln.split()[:2] for ln in first_block] == [["make", "example"], ["make", "test"]]
    assert lines.index("```bash") < 5


def test_readme_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(((?:docs|examples)/[^)#]+)", text)
    assert links
    missing = [ln for ln in links if not (ROOT / ln).exists()]
    assert not missing, missing


# --- the JSON report's schema ---------------------------------------------------------------

@needs_jsonschema
def test_schema_is_valid_draft_2020_12():
    import jsonschema
    schema = json.loads(report_schema.SCHEMA_PATH.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is True  # keys are added within a version
    keys = set(ft.plan(lambda: np.ones(3)).to_json())
    # every key the schema requires is emitted; keys added later validate as they are
    # (additionalProperties) and are described in the schema when they settle
    assert set(schema["required"]) <= keys, set(schema["required"]) - keys
    assert set(schema["required"]) <= set(schema["properties"])


def _plan_cli(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "faketensor", "run", "--json", str(out), *args],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    data = json.loads(out.read_text())
    report_schema.validate(data)
    data["_stderr"] = r.stderr
    return data


@needs_jsonschema
@pytest.mark.parametrize("args, status", [
    (("examples/transformer_1b.py", "--layers", "2", "--d-model", "64", "--heads", "4",
      "--seq", "16", "--vocab", "100", "--batch", "2"), "completed"),
    ((str(PLAN_SCRIPTS / "data_dependent.py"),), "data_dependent"),
    (("--data-dependent", "placeholder", str(PLAN_SCRIPTS / "train_placeholder.py")), "completed"),
    (("--device", "cuda:1", str(PLAN_SCRIPTS / "cupy_step.py"), "100"), "completed"),
    ((str(PLAN_SCRIPTS / "fails.py"),), "error"),
])
def test_cli_reports_validate(args, status, tmp_path):
    data = _plan_cli(tmp_path, *args)
    assert data["status"] == status, data["_stderr"]
    if status != "completed":
        assert data["stopped_at"]["line"] > 0
    if "placeholder" in args:
        assert data["placeholders"]
    if "--device" in args:
        assert "cuda:1" in data["devices"]


@needs_jsonschema
def test_reports_with_io_findings_and_unmodelled_validate(tmp_path):
    def program():
        a = np.random.rand(64, 64).astype(np.float32)  # unknown values
        b = a.T.reshape(-1)                      # an implicit copy
        c = a / np.sqrt(np.float64(2.0))         # an upcast
        np.save(tmp_path / "never_written.npy", c)
        np.histogram(b, bins=4)                  # bytes depend on values: unmodelled
        return float(c.sum())                    # a value: the plan stops here
    data = ft.plan(program).to_json()            # validated as every to_json is (conftest)
    report_schema.validate(data)
    assert data["status"] == "data_dependent"
    assert {f["kind"] for f in data["findings"]} >= {"upcast", "implicit_copy"}
    assert data["io"] and data["io"][0]["written"] is False
    assert not (tmp_path / "never_written.npy").exists()


@needs_jsonschema
def test_schema_rejects_a_wrong_type():
    import jsonschema
    good = ft.plan(lambda: np.ones(3)).to_json()
    report_schema.validate(good)
    for path, bad in [(("status",), "done"), (("devices", "cpu", "peak_bytes"), "12"),
                      (("timeline",), [[0, "cpu"]]), (("findings",), [{"kind": "upcast"}]),
                      (("version",), 2), (("devices",), {"gpu": good["devices"]["cpu"]})]:
        doc = json.loads(json.dumps(good))
        target = doc
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = bad
        with pytest.raises(jsonschema.ValidationError):
            report_schema.validate(doc)
    report_schema.validate({**good, "sinks": [], "largest_fitting": {"n": 3}})  # new keys pass
