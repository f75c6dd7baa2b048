"""Anonymeter's four evaluators on one case folder, run under the Python of anonymeter's own virtualenv.

Called by ``bench_anonymeter.py`` (never imported by privcore): ``python _anonymeter_peer.py FOLDER``, where FOLDER
holds ``real.csv``, ``synthetic.csv``, ``holdout.csv`` and ``meta.json`` (the settings: ``n_attacks``, ``n_cols``,
``max_attempts``, ``seed``, ``link_aux`` (two column lists), ``secret``, ``inference_aux``, ``regression``). Prints
one JSON line: per attack the risk and its interval at 95 %, the three success rates with their errors and the
success counts, and the seconds.

Anonymeter draws the linkability and inference targets with ``DataFrame.sample`` (numpy's global generator,
seeded here with ``seed``) and its linkability baseline with an unseeded generator, so only the last is not
reproducible.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd


def _rate(rate) -> dict:
    return {"value": float(rate.value), "error": float(rate.error)}


def _summary(evaluator, seconds: float) -> dict:
    results = evaluator.results(confidence_level=0.95)
    risk = evaluator.risk(confidence_level=0.95)
    return {
        "risk": float(risk.value),
        "interval": [float(risk.ci[0]), float(risk.ci[1])],
        "main": _rate(results.attack_rate),
        "control": None if results.control_rate is None else _rate(results.control_rate),
        "baseline": _rate(results.baseline_rate),
        "n_main": float(results.n_success),
        "n_control": None if results.n_control is None else float(results.n_control),
        "n_baseline": float(results.n_baseline),
        "n_attacks": [int(results.n_attacks_ori), int(results.n_attacks_baseline), int(results.n_attacks_control)],
        "seconds": seconds,
    }


def main() -> None:
    folder = Path(sys.argv[1])
    meta = json.loads((folder / "meta.json").read_text())
    real, synthetic, holdout = (pd.read_csv(folder / f"{name}.csv") for name in ("real", "synthetic", "holdout"))
    warnings.simplefilter("ignore")
    import anonymeter
    from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator

    out: dict = {"anonymeter": getattr(anonymeter, "__version__", None), "pandas": pd.__version__,
                 "numpy": np.__version__}
    for mode in ("univariate", "multivariate"):
        started = time.perf_counter()
        evaluator = SinglingOutEvaluator(ori=real, syn=synthetic, control=holdout, n_attacks=meta["n_attacks"],
                                         n_cols=meta["n_cols"], max_attempts=meta["max_attempts"], seed=meta["seed"])
        evaluator.evaluate(mode=mode)
        out[f"singling_out_{mode}"] = _summary(evaluator, time.perf_counter() - started)
        # Anonymeter keeps only the predicates that single out on the real table (it does not say how many it built)
        out[f"singling_out_{mode}"]["n_queries_singling_out_real"] = len(evaluator.queries())

    np.random.seed(meta["seed"])
    started = time.perf_counter()
    evaluator = LinkabilityEvaluator(ori=real, syn=synthetic, control=holdout, n_attacks=meta["n_attacks"],
                                     aux_cols=tuple(meta["link_aux"]), n_neighbors=1)
    evaluator.evaluate(n_jobs=1)
    out["linkability"] = _summary(evaluator, time.perf_counter() - started)

    np.random.seed(meta["seed"] + 1)
    started = time.perf_counter()
    evaluator = InferenceEvaluator(ori=real, syn=synthetic, control=holdout, aux_cols=meta["inference_aux"],
                                   secret=meta["secret"], regression=meta["regression"], n_attacks=meta["n_attacks"])
    evaluator.evaluate(n_jobs=1)
    out["inference"] = _summary(evaluator, time.perf_counter() - started)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
