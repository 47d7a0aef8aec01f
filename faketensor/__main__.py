"""``python -m faketensor ...``: the ``faketensor`` command (meta_utils/cli.py)."""
import sys

from faketensor.meta_utils.cli import main

sys.exit(main())
