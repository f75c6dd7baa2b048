"""Related tables at scale: people with their rows evaluated per person, against the same tables joined into one.

Cases, each in a fresh process so that its peak memory (``ru_maxrss``) is its own, on the built-in league
(:func:`privcore.demo.related.league`: players and their seasons) of ``--players`` players per role with careers of up
to ``--seasons`` seasons (about ``players × seasons / 2`` child rows):

- ``per_person``: :func:`privcore.evaluate_related` (quick preset, with the holdout), one record per player;
- ``joined``: today's path for such data, the seasons joined with their players into one table of one row per
  season, evaluated by :func:`privcore.evaluate` (quick preset, with the holdout).

Each for a fresh league (other real players) and a leaking one (every synthetic player carries a training player's
career): the answer, the strongest attack's excess, wall time and peak memory. A case that runs past ``--timeout``
seconds is stopped and recorded as such.

Run: ``.venv/bin/python bench/bench_related_tables.py [--players 10000] [--seasons 19] [--timeout 1800]`` →
``bench/results/related_tables.json`` (each run appended to its ``runs``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_priveval import lscpu  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "related_tables.json"

CASE = r'''
import json, resource, sys, time
import numpy as np
from privcore import evaluate, evaluate_related, infer_schema
from privcore.demo.related import RELATION, joined, league
from privcore.evaluation.verdict import verdict

path, kind, players, seasons = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(0)

def draw(first):
    return league(players, rng, first, longest=seasons)

real, holdout, synthetic = draw(0), draw(10**7), draw(2 * 10**7)
if kind == "leak":
    owner = dict(zip(rng.permutation(real["players"]["id"].to_numpy()), synthetic["players"]["id"].to_numpy()))
    copied = real["seasons"].copy()
    copied["player_id"] = copied["player_id"].map(owner)
    synthetic = {"players": synthetic["players"], "seasons": copied}
started = time.perf_counter()
if path == "per_person":
    report = evaluate_related(real, synthetic, [RELATION], holdout=holdout, metrics="quick")
else:
    table = joined(real)
    report = evaluate(table, joined(synthetic), infer_schema(table), metrics="quick", holdout=joined(holdout))
seconds = time.perf_counter() - started
answer = verdict(report)
best = report.results.get("mia_best")
print(json.dumps({"seconds": round(seconds, 1), "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                  "rows": {"real": report.rows["real"], "child_rows": int(len(real["seasons"]))},
                  "answer": answer.level, "mia_best_excess": None if best is None or best.risk is None
                  else round(float(best.risk), 4),
                  "whole_sets_reproduced": None if "reproduced_identifiers" not in report.results
                  else report.results["reproduced_identifiers"].risk,
                  "failed": [m for m, r in report.items() if r.failed]}))
'''


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--seasons", type=int, default=19, help="longest career (mean about half)")
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--paths", default="per_person,joined", help="which of per_person, joined to run")
    args = parser.parse_args(argv)
    cases = {}
    for kind in ("fresh", "leak"):
        for path in args.paths.split(","):
            started = time.perf_counter()
            try:
                done = subprocess.run([sys.executable, "-c", CASE, path, kind, str(args.players), str(args.seasons)],
                                      capture_output=True, text=True, timeout=args.timeout, cwd=ROOT, check=True)
                cases[f"{kind}/{path}"] = json.loads(done.stdout.strip().splitlines()[-1])
            except subprocess.TimeoutExpired:
                cases[f"{kind}/{path}"] = {"stopped_after_seconds": args.timeout}
            except subprocess.CalledProcessError as exc:
                cases[f"{kind}/{path}"] = {"error": exc.stderr[-2000:]}
            print(f"{kind}/{path}: {cases[f'{kind}/{path}']} ({time.perf_counter() - started:.0f} s)", flush=True)
    run = {"cpu": lscpu(), "players": args.players, "seasons": args.seasons, "cases": cases,
           "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                    cwd=ROOT).stdout.strip()}
    out = Path(args.out)
    earlier = json.loads(out.read_text()).get("runs", []) if out.exists() else []
    document = {"what": __doc__.split("\n\n")[0], "runs": [*earlier, run]}
    out.write_text(json.dumps(document, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
