"""Null calibration of the verdict (issue 60): fresh samples of real people must answer "release".

A fresh sample is a "synthetic" table of real people from the same population as the real table, drawn
independently of it: no generator touched anyone, so nothing leaks, and every metric that moves the answer should
read it against a reference that says so. For each table drawn here (a shape family, a size, a synthetic-to-holdout
ratio), the verdict is computed under the ``quick`` preset and under ``all`` metrics, with the holdout given and
without it. Beside the fresh samples, the same tables with a planted leak (a share of the synthetic rows replaced by
exact copies of training rows) say whether the leaks are still caught.

Families:

- ``adult``: rows of the UCI Adult census (the demo's population, 32,561 people), real, holdout and synthetic
  disjoint;
- ``small``: 4 columns (age in 5-year steps, sex, region, income band) from a fixed joint distribution: few
  distinct rows, many repeated;
- ``wide``: 24 columns (12 numerical, 12 categorical) from a correlated Gaussian population;
- ``missing``: Adult rows with missing values planted (5 % of a categorical column, 2 % of a numerical one);
- ``highcard``: a categorical column with 300 values (a town, Zipf-distributed), beside age, sex and an income band
  (needs main's fix of category codes above 127, 821ac7c).

Rates per family, preset and path: the share answered "release with caution" or worse (target at most 5 % with a
holdout), "do not release" (target at most 0.5 %), and the share where a piece of evidence (not the missing holdout
alone) pushes the answer down. Without a holdout the answer is "release with caution" by rule (no attack can be
weighed, metrics.md §5), so the share that matters there is the evidence share and "do not release".

    python bench/bench_null_calibration.py [--tables 60] [--max-rows 3000] [--minutes 40] [--families a,b]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before LightGBM loads (metrics.md §2, MIR)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privcore import evaluate  # noqa: E402
from privcore.data import Schema  # noqa: E402
from privcore.demo import ADULT_TYPES, SENSITIVE, load_adult  # noqa: E402
from privcore.evaluation import CAUTION, DO_NOT_RELEASE, RELEASE  # noqa: E402
from privcore.evaluation.verdict import verdict  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "null_calibration.json"
FAMILIES = ("adult", "small", "wide", "missing", "highcard")
RATIOS = (1, 2, 5, 10)
PRESETS = ("quick", "all")
#: Share of synthetic rows replaced by copies of training rows in the planted leak.
LEAK_SHARE = 0.1
ORDER = {RELEASE: 0, CAUTION: 1, DO_NOT_RELEASE: 2}
#: Keys written by hand into the results after a pass (why it stopped, what it measured): an --append keeps them.
ANNOTATIONS = ("stopped", "note", "before", "false_alarm_causes", "remaining", "rechecked")
SHORT = {RELEASE: "R", CAUTION: "C", DO_NOT_RELEASE: "X"}


def cpu() -> dict:
    """Model name, family and model of the CPU (``lscpu``), and the cores."""
    out = {"cores": os.cpu_count()}
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except Exception:  # pragma: no cover - no lscpu
        return out
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("Model name", "CPU family", "Model"):
            out[key.strip()] = value.strip()
    return out


def commit() -> str | None:
    """The checkout's commit (``git rev-parse HEAD``), so each pass says which code it measured."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=ROOT).stdout.strip()
    except Exception:  # pragma: no cover - not a git checkout
        return None


# ---------------------------------------------------------------------------------------------- populations
def small_population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` people of a 4-column population with few distinct rows (age in 5-year steps, sex, region, income)."""
    region = rng.choice(["north", "south", "east", "west", "centre"], size=n, p=[0.3, 0.25, 0.2, 0.15, 0.1])
    sex = rng.choice(["f", "m"], size=n)
    age = np.clip(np.round(rng.normal(45, 14, size=n) / 5) * 5, 20, 85)
    score = (age - 45) / 20 + (sex == "m") * 0.4 + (region == "centre") * 0.5 + rng.normal(0, 1, size=n)
    income = np.where(score < -0.4, "low", np.where(score < 0.8, "mid", "high"))
    return pd.DataFrame({"age": age.astype(float), "sex": sex, "region": region, "income": income})


SMALL_TYPES = {"age": "numerical", "sex": "binary", "region": "categorical", "income": "categorical"}


def wide_population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` people of a 24-column population: 12 numerical and 12 categorical columns from correlated Gaussians."""
    k = 24
    base = np.random.default_rng(12345)  # the population's own parameters, the same for every draw
    loading = base.normal(0, 1, size=(k, 4))
    latent = rng.normal(size=(n, 4)) @ loading.T + rng.normal(size=(n, k))
    out = {}
    for j in range(12):
        out[f"x{j}"] = np.round(latent[:, j] * 10 + 50, 1)
    for j in range(12, k):
        levels = 3 + (j % 4)
        cuts = np.quantile(base.normal(size=20_000) * np.sqrt(1 + (loading[j] ** 2).sum()),
                           np.linspace(0, 1, levels + 1)[1:-1])
        out[f"c{j}"] = np.array([f"v{v}" for v in np.searchsorted(cuts, latent[:, j])])
    return pd.DataFrame(out)


WIDE_TYPES = {**{f"x{j}": "numerical" for j in range(12)}, **{f"c{j}": "categorical" for j in range(12, 24)}}


def highcard_population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` people with a 300-value categorical column (a town), beside age, sex and an income band."""
    town = rng.zipf(1.3, size=n) % 300
    age = rng.integers(18, 90, size=n).astype(float)
    sex = rng.choice(["f", "m"], size=n)
    income = np.where(rng.normal(size=n) + (age - 50) / 30 > 0, "high", "low")
    return pd.DataFrame({"town": [f"t{t}" for t in town], "age": age, "sex": sex, "income": income})


HIGHCARD_TYPES = {"town": "categorical", "age": "numerical", "sex": "binary", "income": "categorical"}


def draw_tables(family: str, n_real: int, n_hold: int, n_syn: int, rng: np.random.Generator, adult: pd.DataFrame):
    """Real, holdout and fresh synthetic tables of one family, their types and sensitive column."""
    total = n_real + n_hold + n_syn
    if family in ("adult", "missing"):
        if total > len(adult):
            raise ValueError(f"{total} rows > Adult's {len(adult)}")
        rows = adult.iloc[rng.choice(len(adult), size=total, replace=False)].reset_index(drop=True)
        if family == "missing":
            rows = rows.copy()
            cat = "occupation" if "occupation" in rows else [c for c, t in ADULT_TYPES.items() if t == "categorical"][0]
            num = "hours-per-week" if "hours-per-week" in rows else [c for c, t in ADULT_TYPES.items()
                                                                     if t == "numerical"][0]
            rows.loc[rng.random(total) < 0.05, cat] = np.nan
            rows.loc[rng.random(total) < 0.02, num] = np.nan
        types, sensitive = dict(ADULT_TYPES), SENSITIVE
    else:
        make, types, sensitive = {"small": (small_population, SMALL_TYPES, "income"),
                                  "wide": (wide_population, WIDE_TYPES, "c12"),
                                  "highcard": (highcard_population, HIGHCARD_TYPES, "income")}[family]
        rows = make(total, rng)
    real = rows.iloc[:n_real].reset_index(drop=True)
    holdout = rows.iloc[n_real:n_real + n_hold].reset_index(drop=True)
    synthetic = rows.iloc[n_real + n_hold:].reset_index(drop=True)
    return real, holdout, synthetic, types, sensitive


def plant_leak(real: pd.DataFrame, synthetic: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """The synthetic table with :data:`LEAK_SHARE` of its rows replaced by exact copies of training rows."""
    out = synthetic.copy()
    k = max(1, int(round(LEAK_SHARE * len(out))))
    where = rng.choice(len(out), size=k, replace=False)
    copies = real.iloc[rng.choice(len(real), size=k, replace=len(real) < k)].to_numpy()
    out.iloc[where] = copies
    return out


def answer(real, synthetic, holdout, schema, preset: str, seed: int) -> dict:
    started = time.perf_counter()
    report = evaluate(real, synthetic, schema, metrics=preset, holdout=holdout, seed=seed)
    v = verdict(report)
    pushing = [e.metric for e in v.evidence if e.pushes_to != RELEASE]
    # Every piece of evidence, not only the three shown: recompute which metrics push.
    return {"level": v.level, "pushing_shown": pushing, "evidence_pushes": bool(pushing),
            "seconds": round(time.perf_counter() - started, 2), "errors": len(report.errors)}


def rates(rows: list[dict]) -> dict:
    n = len(rows)
    if not n:
        return {"tables": 0}
    caution = sum(ORDER[r["level"]] >= 1 for r in rows)
    dnr = sum(r["level"] == DO_NOT_RELEASE for r in rows)
    pushed = sum(r["evidence_pushes"] for r in rows)
    return {"tables": n, "caution_or_worse": round(caution / n, 4), "do_not_release": round(dnr / n, 4),
            "evidence_pushes": round(pushed / n, 4), "caution_or_worse_count": caution, "do_not_release_count": dnr,
            "evidence_pushes_count": pushed}


def summarise(runs: list[dict]) -> dict:
    out: dict = {}
    for kind in ("fresh", "leak"):
        for family in sorted({r["family"] for r in runs}):
            for preset in PRESETS:
                for path in ("holdout", "no_holdout"):
                    chosen = [r for r in runs if r["kind"] == kind and r["family"] == family and r["preset"] == preset
                              and r["path"] == path]
                    if chosen:
                        out.setdefault(kind, {}).setdefault(family, {}).setdefault(preset, {})[path] = rates(chosen)
        for preset in PRESETS:
            for path in ("holdout", "no_holdout"):
                chosen = [r for r in runs if r["kind"] == kind and r["preset"] == preset and r["path"] == path]
                if chosen:
                    out.setdefault(kind, {}).setdefault("all families", {}).setdefault(preset, {})[path] = rates(chosen)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=60, help="fresh-sample tables to draw (target: 300+)")
    parser.add_argument("--max-rows", type=int, default=3000, help="largest table (the synthetic one) in rows")
    parser.add_argument("--min-rows", type=int, default=500)
    parser.add_argument("--minutes", type=float, default=40.0, help="stop drawing new tables after this wall time")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--leak-every", type=int, default=2, help="plant a leak in every k-th table (0: never)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--append", action="store_true",
                        help="continue the tables and runs already in --out (another --seed draws other tables)")
    args = parser.parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    rng = np.random.default_rng(args.seed)
    adult = load_adult()
    started = time.perf_counter()
    runs: list[dict] = []
    tables: list[dict] = []
    out = Path(args.out)
    passes: list[dict] = []
    notes: dict = {}  # what earlier passes said of themselves (note, before, remaining...), kept as written
    if args.append and out.exists():  # an earlier pass: its tables and runs are kept as they ran
        earlier = json.loads(out.read_text())
        notes = {k: v for k, v in earlier.items() if k in ANNOTATIONS}
        tables, runs = earlier["tables"], earlier["runs"]
        passes = earlier.get("passes") or [{"settings": earlier["settings"], "wall_seconds": earlier["wall_seconds"],
                                             "tables": earlier["tables_run"]}]
    first = len(tables)

    def write(done: bool) -> None:
        document = {
            "what": "Null calibration of the verdict (issue 60): fresh samples of real people under the quick preset "
                    "and all metrics, with and without a holdout; planted leaks (10 % exact copies) beside them.",
            "targets": {"caution_or_worse_with_holdout": 0.05, "do_not_release": 0.005},
            "reading": "Without a holdout the level is 'release with caution' by rule for every table (no attack "
                       "can be weighed: metrics.md §5); evidence_pushes is the share where a metric's evidence, not "
                       "the missing holdout, pushes the answer down.",
            "settings": {k: v for k, v in vars(args).items()},
            "cpu": cpu(), "python": platform.python_version(), "finished": done,
            "wall_seconds": round(time.perf_counter() - started, 1) + sum(p["wall_seconds"] for p in passes),
            "passes": passes + [{"settings": {k: v for k, v in vars(args).items()}, "commit": commit(),
                                 "wall_seconds": round(time.perf_counter() - started, 1),
                                 "tables": len(tables) - first}],
            "tables_run": len(tables), "evaluations": len(runs),
            "rows_range": [min((t["real"] for t in tables), default=None),
                           max((t["synthetic"] for t in tables), default=None)],
            "summary": summarise(runs), "tables": tables, "runs": runs, **notes,
        }
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(document, indent=1, default=str))

    for index in range(first, first + args.tables):
        if time.perf_counter() - started > args.minutes * 60:
            break
        family = families[index % len(families)]
        ratio = int(RATIOS[(index // len(families)) % len(RATIOS)])
        top = args.max_rows // ratio
        if family in ("adult", "missing"):
            top = min(top, 32_561 // (ratio + 2))
        n_hold = int(np.exp(rng.uniform(np.log(args.min_rows), np.log(max(args.min_rows, top)))))
        n_real = n_hold
        n_syn = ratio * n_hold
        seed = int(rng.integers(0, 2**31 - 1))
        table_rng = np.random.default_rng(seed)
        real, holdout, synthetic, types, sensitive = draw_tables(family, n_real, n_hold, n_syn, table_rng, adult)
        schema = Schema(types=types, sensitive=sensitive)
        table = {"index": index, "family": family, "real": n_real, "holdout": n_hold, "synthetic": n_syn,
                 "ratio": ratio, "seed": seed, "columns": len(types)}
        tables.append(table)
        leak = plant_leak(real, synthetic, table_rng) if args.leak_every and index % args.leak_every == 0 else None
        for kind, syn in (("fresh", synthetic), ("leak", leak)):
            if syn is None:
                continue
            for preset in PRESETS:
                for path, hold in (("holdout", holdout), ("no_holdout", None)):
                    try:
                        result = answer(real, syn, hold, schema, preset, seed=0)
                    except Exception as exc:  # recorded, never hidden
                        result = {"level": None, "error": f"{type(exc).__name__}: {exc}"}
                    runs.append({"table": index, "family": family, "kind": kind, "preset": preset, "path": path,
                                 "ratio": ratio, "rows": n_real, **result})
                    if result.get("level") is None:
                        runs.pop()
                        table.setdefault("errors", []).append(result["error"])
        write(False)
        print(f"[{time.perf_counter() - started:6.0f}s] table {index} {family} {n_real}/{n_hold}/{n_syn}: "
              + ", ".join(f"{r['kind'][0]}:{r['preset'][0]}:{r['path'][0]}={SHORT[r['level']]}" for r in runs
                          if r["table"] == index), flush=True)
    write(True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
