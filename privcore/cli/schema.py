"""``python -m privcore schema``: the JSON Schema of the report that ``evaluate --json`` writes.

It loads the lab's and the audit's schemas too, which ``metrics`` does not need.
"""

from __future__ import annotations

import argparse
import json

from privcore.cli.parsers import EXIT_OK
from privcore.report import report_schema


def run_schema(args: argparse.Namespace) -> int:
    """Print the JSON Schema of the report that ``evaluate --json`` writes."""
    print(json.dumps(report_schema(), indent=2, ensure_ascii=False))
    return EXIT_OK
