"""Issue 60: privcore's four Anonymeter-style attacks against Anonymeter itself, on the same tables and settings.

Cases (real, synthetic and holdout tables; the holdout is the control of both tools):

- ``adult_fresh``: three disjoint random samples of ``--adult-rows`` (1,000) rows of the Adult table (the demo data
  in ``privcore/demo``), seeds ``--adult-seeds``: a synthetic table that is a fresh sample of real people.
- ``small_domain``: the 4-column kind of issue 60 (age 18–79, sex, five regions, income on a grid of 10,000
  depending on age and sex; 1,500 rows each, many repeated rows), real, synthetic and holdout drawn independently
  from one population, seeds ``--small-seeds``.
- planted leaks: ``adult_half_copy`` (the synthetic table is 50 % copies of training rows, 50 % a fresh sample),
  ``adult_copy`` (an exact copy) and ``small_domain_half_copy``.

Settings, identical for both tools: ``n_attacks`` 500, singling out with ``n_cols`` 3 and ``max_attempts`` 200,000
(privcore's default; Anonymeter's is 10,000,000, far too slow on a coarse table), linkability with ``n_neighbors`` 1
and the auxiliary columns ``[age, region]`` / ``[sex]`` (small domain) or the key columns dealt alternately
(Adult, privcore's default split), inference of ``income`` from every other column (small domain: age, sex, region).
Missing categorical values of Adult are written as ``"?"`` for both (Anonymeter counts two missing values as
different, privcore as equal). Anonymeter runs in its own virtualenv (``--anonymeter-python``, default
``/work/anon-venv/bin/python``: ``python3 -m venv /work/anon-venv && /work/anon-venv/bin/pip install
anonymeter==1.1.0``), through ``bench/_anonymeter_peer.py``, on the same CSV files privcore reads; nothing of it is
imported here.

Both tools read the same CSV files and settings (``meta.json``); privcore runs in a fresh process of this checkout
and, as ``privcore_before``, of ``--baseline`` (default 08524bc, the last commit before issue 60's fix; a detached
git worktree in the temporary folder). Anonymeter draws its own targets (``DataFrame.sample``, numpy's global
generator seeded with the case's seed) and an unseeded baseline, so its risks and privcore's are two estimates from
different samples of targets.

For each case and attack: both tools' risk and 95 % interval, their main, control and baseline rates and counts,
and whether each risk lies within the other's interval (and whether the intervals overlap). Writes
``bench/results/anonymeter_agreement.json`` with ``lscpu``.

    .venv/bin/python bench/bench_anonymeter.py --anonymeter-python /work/anon-venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from _adult import worktree  # noqa: E402
from bench_priveval import lscpu  # noqa: E402

from privcore.demo import ADULT_TYPES, SENSITIVE, load_adult  # noqa: E402

OUT = BENCH / "results" / "anonymeter_agreement.json"
ATTACKS = ("singling_out_univariate", "singling_out_multivariate", "linkability", "inference")
N_ATTACKS, N_COLS, MAX_ATTEMPTS = 500, 3, 200_000
#: The last commit before issue 60's fix, measured beside this checkout on the same tables.
DEFAULT_BASELINE = "08524bc"

REGIONS = ["north", "south", "east", "west", "centre"]
SMALL_TYPES = {"age": "numerical", "sex": "binary", "region": "categorical", "income": "numerical"}


def small_domain(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """The 4-column table of issue 60: few distinct values per column, so many rows repeat."""
    age = rng.integers(18, 80, n)
    sex = rng.choice(["F", "M"], n)
    region = rng.choice(REGIONS, n, p=[0.35, 0.25, 0.2, 0.15, 0.05])
    level = np.clip((age - 18) // 12 + (sex == "M") + rng.integers(0, 3, n), 1, 8)
    return pd.DataFrame({"age": age, "sex": sex, "region": region, "income": (level * 10_000).astype(float)})


def half_copy(real: pd.DataFrame, fresh: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Half the rows copied from ``real`` (distinct rows, at random), the other half from ``fresh``."""
    k = len(real) // 2
    copied = real.iloc[rng.choice(len(real), size=k, replace=False)]
    return pd.concat([copied, fresh.iloc[: len(real) - k]], ignore_index=True).sample(frac=1.0, random_state=1)


def adult_tables(rows: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    adult = load_adult()
    cats = [c for c, t in ADULT_TYPES.items() if t != "numerical"]
    adult = adult.assign(**{c: adult[c].astype(object).where(adult[c].notna(), "?") for c in cats})
    pos = np.random.default_rng(seed).permutation(len(adult))[: 3 * rows]
    return tuple(adult.iloc[pos[i * rows:(i + 1) * rows]].reset_index(drop=True) for i in range(3))


def cases(adult_rows: int, adult_seeds: list[int], small_seeds: list[int]) -> list[dict]:
    keys = [c for c in ADULT_TYPES if c != SENSITIVE]
    adult = {"types": dict(ADULT_TYPES), "link_aux": [list(keys[0::2]), list(keys[1::2])],  # privcore's default split: keys dealt alternately
             "secret": SENSITIVE, "inference_aux": keys, "regression": False}
    small = {"types": dict(SMALL_TYPES), "link_aux": [["age", "region"], ["sex"]], "secret": "income",
             "inference_aux": ["age", "sex", "region"], "regression": True}
    out = []
    for seed in adult_seeds:
        real, syn, hold = adult_tables(adult_rows, seed)
        out.append({"case": "adult_fresh", "group": "a_fresh_adult", "seed": seed, "tables": (real, syn, hold),
                    **adult})
    for seed in small_seeds:
        rng = np.random.default_rng(seed)
        real, syn, hold = (small_domain(1500, rng) for _ in range(3))
        out.append({"case": "small_domain", "group": "b_small_domain", "seed": seed, "tables": (real, syn, hold),
                    **small})
    real, syn, hold = adult_tables(adult_rows, 100)
    out.append({"case": "adult_half_copy", "group": "c_planted_leak", "seed": 100,
                "tables": (real, half_copy(real, syn, np.random.default_rng(100)), hold), **adult})
    out.append({"case": "adult_copy", "group": "c_planted_leak", "seed": 100, "tables": (real, real.copy(), hold),
                **adult})
    rng = np.random.default_rng(100)
    real, syn, hold = (small_domain(1500, rng) for _ in range(3))
    out.append({"case": "small_domain_half_copy", "group": "c_planted_leak", "seed": 100,
                "tables": (real, half_copy(real, syn, rng), hold), **small})
    return out


PRIVCORE_RUN = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import pandas as pd
import privcore
from privcore.metrics.attacks import inference, linkability, singling_out

folder = Path(sys.argv[2])
meta = json.loads((folder / "meta.json").read_text())
real, syn, hold = (pd.read_csv(folder / f"{name}.csv") for name in ("real", "synthetic", "holdout"))
types, seed, n_attacks = meta["types"], meta["seed"], meta["n_attacks"]
out = {}
for mode in ("univariate", "multivariate"):
    out[f"singling_out_{mode}"] = singling_out(real, syn, hold, column_types=types, mode=mode, n_attacks=n_attacks,
                                               n_cols=meta["n_cols"], max_attempts=meta["max_attempts"], seed=seed)
aux = meta["link_aux"]
out["linkability"] = linkability(real, syn, hold, column_types={c: types[c] for c in aux[0] + aux[1]},
                                 aux_cols=(aux[0], aux[1]), n_attacks=n_attacks, seed=seed)
cols = meta["inference_aux"] + [meta["secret"]]
out["inference"] = inference(real, syn, hold, column_types={c: types[c] for c in cols}, secret=meta["secret"],
                             aux_cols=meta["inference_aux"], n_attacks=n_attacks, seed=seed)
result = {"privcore": privcore.__file__}
for name, o in out.items():
    result[name] = {
        "risk": o.risk, "interval": list(o.interval),
        "main": {"value": o.main.value, "error": o.main.error},
        "control": None if o.control is None else {"value": o.control.value, "error": o.control.error},
        "baseline": {"value": o.baseline.value, "error": o.baseline.error},
        "n_main": o.n_main, "n_control": o.n_control, "n_baseline": o.n_baseline,
        "n_total": None if o.result is None else o.result.n_main_total, "seconds": o.seconds,
    }
    if name.startswith("singling_out"):
        result[name]["n_queries_built"] = o.details["n_queries_generated"]
print(json.dumps(result))
"""


def write_case(case: dict, folder: Path) -> None:
    """The three tables as CSV and the settings as ``meta.json``: what both tools read."""
    for name, table in zip(("real", "synthetic", "holdout"), case["tables"]):
        table.to_csv(folder / f"{name}.csv", index=False)
    meta = {"n_attacks": N_ATTACKS, "n_cols": N_COLS, "max_attempts": MAX_ATTEMPTS, "seed": case["seed"],
            "types": case["types"], "link_aux": case["link_aux"], "secret": case["secret"],
            "inference_aux": case["inference_aux"], "regression": case["regression"]}
    (folder / "meta.json").write_text(json.dumps(meta))


def run_json(command: list[str], timeout: float, what: str) -> dict:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError(f"{what} failed: {done.stderr[-2000:]}")


def run_privcore(source: Path, folder: Path, timeout: float) -> dict:
    """privcore's four attacks from the source tree ``source`` (this checkout or the baseline's worktree)."""
    return run_json([sys.executable, "-c", PRIVCORE_RUN, str(source), str(folder)], timeout, f"privcore ({source})")


def run_anonymeter(python: str, folder: Path, timeout: float) -> dict:
    return run_json([python, str(BENCH / "_anonymeter_peer.py"), str(folder)], timeout, "anonymeter")


def within(value: float, interval) -> bool:
    return interval[0] - 1e-9 <= value <= interval[1] + 1e-9


def compare(ours: dict, theirs: dict, before: dict | None) -> dict:
    out = {}
    for name in ATTACKS:
        a, b = ours[name], theirs[name]
        out[name] = {
            "privcore": a, "anonymeter": b, "privcore_before": None if before is None else before[name],
            "privcore_risk_in_anonymeter_interval": within(a["risk"], b["interval"]),
            "anonymeter_risk_in_privcore_interval": within(b["risk"], a["interval"]),
            "intervals_overlap": a["interval"][0] <= b["interval"][1] + 1e-9
            and b["interval"][0] <= a["interval"][1] + 1e-9,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anonymeter-python", default="/work/anon-venv/bin/python")
    parser.add_argument("--adult-rows", type=int, default=1000)
    parser.add_argument("--adult-seeds", default="0,1")
    parser.add_argument("--small-seeds", default="0,1,2,3,4,5,6,7,8,9,10,11")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--baseline", default=DEFAULT_BASELINE,
                        help="privcore commit measured beside (before issue 60); '' to skip")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    seeds = [int(s) for s in args.adult_seeds.split(",") if s]
    small_seeds = [int(s) for s in args.small_seeds.split(",") if s]
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    baseline = worktree(args.baseline) if args.baseline else None
    results = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases(args.adult_rows, seeds, small_seeds):
            write_case(case, Path(tmp))
            ours = run_privcore(ROOT, Path(tmp), args.timeout)
            theirs = run_anonymeter(args.anonymeter_python, Path(tmp), args.timeout)
            before = run_privcore(baseline, Path(tmp), args.timeout) if baseline else None
            row = {"case": case["case"], "group": case["group"], "seed": case["seed"],
                   "rows": [len(t) for t in case["tables"]],
                   "duplicated_real_rows": int(case["tables"][0].duplicated().sum()),
                   "anonymeter_versions": {k: theirs.pop(k) for k in ("anonymeter", "pandas", "numpy")},
                   "attacks": compare(ours, theirs, before)}
            results.append(row)
            brief = {n: tuple(round(v[who]["risk"], 3) for who in ("privcore", "anonymeter", "privcore_before")
                              if v.get(who)) for n, v in row["attacks"].items()}
            print(case["case"], case["seed"], brief, flush=True)
    agree = {name: sum(r["attacks"][name]["intervals_overlap"] for r in results) for name in ATTACKS}
    inside = {name: sum(r["attacks"][name]["privcore_risk_in_anonymeter_interval"] for r in results)
              for name in ATTACKS}
    document = {
        "what": "issue 60: privcore's Anonymeter-style attacks against anonymeter 1.1.0 on the same tables and "
                "settings (see bench/bench_anonymeter.py)",
        "privcore_commit": commit,
        "privcore_before_commit": args.baseline or None,
        "settings": {"n_attacks": N_ATTACKS, "n_cols": N_COLS, "max_attempts": MAX_ATTEMPTS, "n_neighbors": 1,
                     "confidence": 0.95, "adult_rows": args.adult_rows, "small_domain_rows": 1500},
        "cpu": lscpu(),
        "seconds": time.perf_counter() - started,
        "intervals_overlap_count": {name: f"{n} of {len(results)}" for name, n in agree.items()},
        "privcore_risk_in_anonymeter_interval_count": {name: f"{n} of {len(results)}" for name, n in inside.items()},
        "cases": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=1) + "\n")
    print(json.dumps(document["intervals_overlap_count"]))


if __name__ == "__main__":
    main()
