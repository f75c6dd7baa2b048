"""The command line and the dashboard give the same answer on the same files (issue 43, item 2).

The same four CSV files (real, synthetic, holdout, reference) go once through ``python -m privcore evaluate
--reference`` and once through the Data page's upload handling (:func:`dashboard.uploads.process_uploads`)
and the evaluation behind the Results page's button (:func:`dashboard.runner.evaluate_all`, the function
:func:`dashboard.runner.run` calls, without the Streamlit page). Every membership attack's JSON entry and the
verdict must be equal. Before the fix the command line passed the reference table to ``mia_calibrated`` and
``mia_domias`` only, while the dashboard passed it to every attack that takes one, so ``mia_best`` and the
verdict differed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from privcore.metrics import registry

REPO = Path(__file__).resolve().parents[2]

#: Entries of a metric's JSON compared between the two paths (``seconds`` differs from run to run).
COMPARED = ("risk", "raw", "applicable", "reason", "baseline", "interval", "params", "details")


def run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "privcore", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    """The noisy-copy demo at 400 rows, its holdout split in two: a holdout and a disjoint reference table."""
    folder = tmp_path_factory.mktemp("parity")
    proc = run_cli("demo", "noisy_copy", "--out", str(folder), "--rows", "400", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    fresh = pd.read_csv(folder / "holdout.csv")
    fresh.iloc[:200].to_csv(folder / "holdout.csv", index=False)
    fresh.iloc[200:].to_csv(folder / "reference.csv", index=False)
    return folder


def membership_ids() -> list[str]:
    """Every membership attack the quick preset runs with a holdout, ``mia_best`` and ``mia_stacked`` among them."""
    ids = [m for m in registry.quick_metrics(holdout=True) if m.startswith("mia_")]
    assert {"mia_best", "mia_stacked", "mia_calibrated", "mia_domias"} <= set(ids)
    return ids


def dashboard_report(folder: Path, metric_ids: list[str], monkeypatch) -> dict:
    """The JSON the Results page offers for download after uploading the files as a user would."""
    from dashboard import compute, uploads
    from dashboard.runner import evaluate_all
    from dashboard.session.state import init_state

    monkeypatch.setenv(compute.WORKERS_VARIABLE, "0")  # the page's own thread: the same code, no worker pool
    state: dict = {}
    init_state(state)
    for role, name in (("real", "real.csv"), ("synthetic", "synthetic.csv"), ("holdout", "holdout.csv"),
                       ("reference", "reference.csv")):
        uploads.process_uploads(state, role, [folder / name])
        errors = uploads.upload_errors(state, [folder / name])
        assert not errors, errors
    assert state["reference"] is not None
    state["selected_metrics"] = list(metric_ids)
    reports = evaluate_all(state)
    (report,) = reports.values()
    return json.loads(report.to_json())


@pytest.mark.slow
def test_the_command_line_and_the_dashboard_give_the_same_membership_results(files, monkeypatch):
    ids = membership_ids()
    # The plain command (the files and the metrics); the dashboard with the settings it proposes for the files.
    proc = run_cli("evaluate", "--real", "real.csv", "--synthetic", "synthetic.csv", "--holdout", "holdout.csv",
                   "--reference", "reference.csv", "--metrics", ",".join(ids), "--json", "cli.json", cwd=files)
    assert proc.returncode == 0, proc.stderr
    cli = json.loads((files / "cli.json").read_text())
    dashboard = dashboard_report(files, ids, monkeypatch)

    assert list(cli["metrics"]) == list(dashboard["metrics"]) == ids
    for metric_id in ids:
        on_cli, on_dashboard = cli["metrics"][metric_id], dashboard["metrics"][metric_id]
        assert on_cli["applicable"], (metric_id, on_cli["reason"])
        # Every attack that takes a reference table names it on both paths (none falls back to half the holdout).
        if any(p.name == "reference" and p.kind == "table" for p in registry.get(metric_id).params):
            assert on_cli["params"]["reference"] == on_dashboard["params"]["reference"] == (
                "user reference table (200 rows)"), metric_id
        for field in COMPARED:
            assert on_cli.get(field) == on_dashboard.get(field), (metric_id, field)
    best_cli, best_dashboard = cli["metrics"]["mia_best"], dashboard["metrics"]["mia_best"]
    assert best_cli["risk"] == best_dashboard["risk"] and best_cli["details"] == best_dashboard["details"]
    assert cli["verdict"] == dashboard["verdict"]

    # The Python API's reference table gives the same report as well.
    from privcore import evaluate, infer_schema, load_table

    tables = {role: load_table(files / f"{role}.csv") for role in ("real", "synthetic", "holdout", "reference")}
    api = json.loads(evaluate(tables["real"], tables["synthetic"], infer_schema(tables["real"]),
                              metrics=ids, holdout=tables["holdout"], reference=tables["reference"]).to_json())
    for metric_id in ids:
        for field in COMPARED:
            assert api["metrics"][metric_id].get(field) == cli["metrics"][metric_id].get(field), (metric_id, field)
    assert api["verdict"] == cli["verdict"]
