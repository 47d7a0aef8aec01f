"""The published JSON Schema of a plan report (docs/schema/plan-report.schema.json) and the
check every report the suite makes goes through (tests/conftest.py): in-process
``Plan.to_json()`` results, and the ``--json`` files ``faketensor run`` writes under a
test's ``tmp_path``."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "schema" / "plan-report.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text())

try:
    import jsonschema
except ImportError:  # the test extra installs it; tests/test_docs.py skips saying so
    jsonschema = None
    VALIDATOR = None
else:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

#: how many reports were checked in this process (tests/test_docs.py reads it)
CHECKED = {"reports": 0, "files": 0}


def is_plan_report(data: Any) -> bool:
    """A JSON document that claims to be a plan report (a version and devices)."""
    return isinstance(data, dict) and "version" in data and "devices" in data and "status" in data


def validate(report: Any) -> None:
    """Raise ``jsonschema.ValidationError`` naming the first field that breaks the schema.
    The report goes through a JSON round trip first, as a reader of ``--json`` sees it."""
    if VALIDATOR is None:
        return
    doc = json.loads(json.dumps(report))
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        raise jsonschema.ValidationError(
            f"plan report breaks docs/schema/plan-report.schema.json at "
            f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))
    CHECKED["reports"] += 1


def validate_files(folder: str | os.PathLike) -> int:
    """Check every plan report among the ``*.json`` files under ``folder``; how many."""
    n = 0
    for path in Path(folder).rglob("*.json"):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        if is_plan_report(data):
            validate(data)
            n += 1
    CHECKED["files"] += n
    return n
