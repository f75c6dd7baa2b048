"""The DCR holdout test alone on a generator's tables (the first step of ``reproduce_dcr_delusion.py``), to find
the training size at which a generator passes it before paying for an audit.

Usage: ``python bench/dcr_tables_only.py NAME --train-rows 1000 --tables 10 --workers 10 [--gpu] [--out F]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reproduce_dcr_delusion as R  # noqa: E402 (bench/, the script's own folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("--train-rows", type=int, default=1000)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    adult = R.load_adult()
    schema = R.Schema(types=dict(R.ADULT_TYPES), sensitive=R.SENSITIVE)
    settings = {"gpu": 1} if args.gpu else {}
    began = time.perf_counter()
    result = R.dcr_pass_rate(adult, schema, args.name, settings, args.tables, args.train_rows, args.seed, args.workers)
    out = {"generator": args.name, "settings": settings, "train_rows": args.train_rows, **result,
           "seconds": round(time.perf_counter() - began, 1), "machine": R.machine()}
    print(json.dumps({k: v for k, v in out.items() if k != "tables_detail"}))
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
