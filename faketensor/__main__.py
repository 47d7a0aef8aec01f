"""``python -m faketensor ...``: the ``faketensor`` command (meta_utils/planner/cli.py)."""
import sys

from faketensor.meta_utils.planner.cli import main

sys.exit(main())
