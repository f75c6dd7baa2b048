"""``python -m privcore metrics``: every metric id with its summary, needs and parameters."""

from __future__ import annotations

import argparse

from privcore.cli.parsers import EXIT_OK
from privcore.metrics import registry


def run_metrics(args: argparse.Namespace) -> int:
    """Print every metric id with its summary, needs and parameters."""
    for info in registry.all_metrics():
        needs = f" [needs {', '.join(sorted(info.needs))}]" if info.needs else ""
        print(f"{info.id:28s} {info.summary}{needs}")
        for param in info.params:
            how = f"--param {info.id}.{param.name}=VALUE" if param.settable else f"--{param.name} FILE"
            print(f"{'':30s}{param.name} ({param.describe_range()}; default {param.describe_default()}; {how}): "
                  f"{param.help}")
    return EXIT_OK
