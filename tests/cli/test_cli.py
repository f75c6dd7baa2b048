"""The command line: JSON contract, exit codes and one-line messages on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "privcore", *args], capture_output=True, text=True, cwd=cwd or REPO,
                          timeout=300)


@pytest.mark.slow
def test_evaluate_demo_writes_valid_json(tmp_path):
    out = tmp_path / "report.json"
    proc = run_cli("evaluate", "--demo", "exact_copy", "--metrics", "crp", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert set(report) == {"verdict", "metrics", "warnings", "rows", "dp_epsilon", "columns"}
    assert report["verdict"]["level"] == "release with caution"  # CRP alone is a proxy: it never decides
    crp = report["metrics"]["crp"]
    assert set(crp) >= {"risk", "raw", "applicable", "reason", "baseline", "interval", "seconds", "params"}
    assert crp["applicable"] and crp["risk"] > 0.95  # an exact copy
    assert crp["baseline"] is not None and crp["baseline"] < 0.1  # a fresh sample shares few rows
    assert report["rows"] == {"real": 3000, "synthetic": 3000, "holdout": 3000}


def test_evaluate_files_with_types_and_roles(tmp_path):
    real = pd.DataFrame({"age": [30, 40, 50, 60], "sex": ["M", "F", "M", "F"], "dx": ["a", "b", "a", "c"]})
    real.to_csv(tmp_path / "real.csv", index=False)
    real.iloc[[0, 1]].to_csv(tmp_path / "synth.csv", index=False)
    proc = run_cli("evaluate", "--real", "real.csv", "--synthetic", "synth.csv", "--categorical", "age",
                   "--sensitive", "dx", "--metrics", "crp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["metrics"]["crp"]["risk"] == pytest.approx(0.5)


@pytest.mark.slow
@pytest.mark.parametrize(
    "files, args, fragment",
    [
        ({"real.csv": "a,b\n1,2\n3,4\n", "synth.csv": "a,c\n1,2\n"}, [], "synth.csv"),
        ({"real.csv": "", "synth.csv": "a\n1\n"}, [], "real.csv"),
        ({"real.csv": "a,b\n1,x\n2,y\n", "synth.csv": "a,b\n1,x\n"}, ["--numerical", "b"], "'b'"),
        ({"real.csv": "a,b\n1,x\n2,y\n", "synth.csv": "a,b\n1,x\n"}, ["--metrics", "nope"], "nope"),
        ({"real.csv": "a,b\n1,x\n2,y\n", "synth.csv": "a,b\n1,x\n"}, ["--sensitive", "zz"], "zz"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, files, args, fragment):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    proc = run_cli("evaluate", "--real", "real.csv", "--synthetic", "synth.csv", *args, cwd=tmp_path)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error:") and fragment in lines[-1]
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


@pytest.mark.slow
def test_missing_file_and_usage_errors_exit_2(tmp_path):
    proc = run_cli("evaluate", "--real", "missing.csv", "--synthetic", "missing2.csv", cwd=tmp_path)
    assert proc.returncode == 2 and "missing.csv" in proc.stderr
    assert run_cli("evaluate", "--seed", "x").returncode == 2
    assert run_cli("evaluate").returncode == 2


def test_metrics_lists_ids_with_descriptions():
    proc = run_cli("metrics")
    assert proc.returncode == 0
    first = {line.split()[0]: line for line in proc.stdout.splitlines()}
    assert "crp" in first and len(first["crp"].split()) > 3


@pytest.mark.slow
def test_demo_subcommand_lists_and_writes(tmp_path):
    proc = run_cli("demo")
    assert proc.returncode == 0 and "column_resampler" in proc.stdout
    proc = run_cli("demo", "noisy_copy", "--out", str(tmp_path), "--rows", "200")
    assert proc.returncode == 0, proc.stderr
    assert len(pd.read_csv(tmp_path / "real.csv")) == 200
    assert set(p.name for p in tmp_path.iterdir()) == {"real.csv", "synthetic.csv", "holdout.csv"}


@pytest.mark.slow
def test_reference_table_calibrates_membership_attacks(tmp_path):
    assert run_cli("demo", "exact_copy", "--out", str(tmp_path), "--rows", "300").returncode == 0
    pd.read_csv(tmp_path / "holdout.csv").iloc[:150].to_csv(tmp_path / "reference.csv", index=False)
    proc = run_cli("evaluate", "--real", "real.csv", "--synthetic", "synthetic.csv", "--holdout", "holdout.csv",
                   "--reference", "reference.csv", "--sensitive", "income", "--metrics", "mia_calibrated",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(proc.stdout)["metrics"]["mia_calibrated"]
    assert entry["params"]["reference"] == "user reference table (150 rows)"
    assert entry["risk"] > 0.5  # an exact copy is exposed


@pytest.mark.slow
def test_param_changes_a_metrics_parameters_and_risk(tmp_path):
    assert run_cli("demo", "noisy_copy", "--out", str(tmp_path), "--rows", "300").returncode == 0
    files = ["--real", "real.csv", "--synthetic", "synthetic.csv", "--metrics", "cvp,linkability"]
    default = run_cli("evaluate", *files, cwd=tmp_path)
    changed = run_cli("evaluate", *files, "--param", "cvp.threshold=0.1", "--param",
                      'linkability.aux_cols=[["age", "gender"], ["race"]]', "--param", "linkability.n_attacks=50",
                      cwd=tmp_path)
    assert default.returncode == 0 and changed.returncode == 0, (default.stderr, changed.stderr)
    before, after = (json.loads(p.stdout)["metrics"] for p in (default, changed))
    assert before["cvp"]["params"]["threshold"] == 0.2 and after["cvp"]["params"]["threshold"] == 0.1
    assert after["cvp"]["risk"] < before["cvp"]["risk"]  # fewer records count as close
    assert after["linkability"]["params"]["aux_cols"] == [["age", "gender"], ["race"]]
    assert after["linkability"]["params"]["n_attacks"] == 50


@pytest.mark.slow
@pytest.mark.parametrize(
    "param, fragments",
    [
        ("nope.threshold=0.1", ["unknown metric id 'nope'", "cvp", "linkability"]),
        ("cvp.tresh=0.1", ["has no parameter 'tresh'", "valid names: threshold"]),
        ("crp.x=1", ["'crp' has no parameter 'x'", "no parameters"]),
        ("cvp.threshold", ["ID.NAME=VALUE"]),
        ("mia_domias.reference=r.csv", ["--reference"]),
        ("cvp.threshold=2", ["Closeness threshold (cvp.threshold) must be between 0 and 1; got 2."]),
        ('linkability.aux_cols=[["a"],["a"]]', ["must not share a column; a is in both"]),
        ("linkability.n_attacks=many", ["Number of attacks (linkability.n_attacks) must be a whole number"]),
    ],
)
def test_bad_param_exits_2_with_one_line(param, fragments):
    proc = run_cli("evaluate", "--demo", "exact_copy", "--metrics", "cvp", "--param", param)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:")
    assert all(fragment in lines[0] for fragment in fragments), lines[0]
    assert proc.stdout == "" and "Traceback" not in proc.stderr


def test_param_values_are_json_or_text():
    from privcore.cli.args import parse_params

    assert parse_params(["nnaa.repeats=3", "nnaa.repeats=1e1", "sd_idr.epsilons=[0, 0.5]",
                         "inference.aux_cols=age"]) == {
        "nnaa": {"repeats": 10}, "sd_idr": {"epsilons": [0, 0.5]}, "inference": {"aux_cols": ["age"]}}


@pytest.mark.slow
def test_reference_without_holdout_does_not_print_its_rows(tmp_path):
    assert run_cli("demo", "noisy_copy", "--out", str(tmp_path), "--rows", "200").returncode == 0
    proc = run_cli("evaluate", "--real", "real.csv", "--synthetic", "synthetic.csv", "--reference", "holdout.csv",
                   "--metrics", "mia_domias", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(proc.stdout)["metrics"]["mia_domias"]
    assert not entry["applicable"]  # no holdout
    assert entry["params"]["reference"] == "table of 200 rows × 14 columns"  # described, rows never printed


@pytest.mark.slow
def test_html_report_is_written_and_self_contained(tmp_path):
    out = tmp_path / "report.html"
    proc = run_cli("evaluate", "--demo", "rare_leak", "--metrics", "crp,cvp", "--html", str(out), "--json",
                   str(tmp_path / "r.json"))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert "Common Row Proportion" in text and "Close Value Probability" in text
    assert '<script src="http' not in text and '<link href="http' not in text  # nothing fetched from outside


@pytest.mark.slow
def test_famd_components_flag(tmp_path):
    proc = run_cli("evaluate", "--demo", "noisy_copy", "--metrics", "dcr", "--famd-components", "2")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["metrics"]["dcr"]["params"]["k"] == 2
    bad = run_cli("evaluate", "--demo", "noisy_copy", "--metrics", "dcr", "--famd-components", "0")
    assert bad.returncode == 2 and "at least 1" in bad.stderr


@pytest.mark.parametrize("item, metric_id, name, value", [
    ("cvp.threshold=2", "cvp", "threshold", 2),
    ("sd_idr.epsilons=[-1]", "sd_idr", "epsilons", [-1]),
    ('linkability.aux_cols=[["age"],["age"]]', "linkability", "aux_cols", [["age"], ["age"]]),
])
def test_a_bad_parameter_gets_the_sentence_the_metrics_page_shows(item, metric_id, name, value):
    # One declaration, one check: the command line prints exactly what the dashboard's Metrics page shows.
    from dashboard.metric_choice import check_param
    from privcore.data.schema import infer_schema
    from privcore.demo import load_scenario
    from privcore.metrics import registry

    demo = load_scenario("noisy_copy", n=50)
    schema = infer_schema(demo.real, overrides=demo.types, sensitive=demo.sensitive)
    _, page_sentence = check_param(metric_id, registry.get(metric_id).param(name), value, schema)
    proc = run_cli("evaluate", "--demo", "noisy_copy", "--metrics", metric_id, "--param", item)
    assert proc.returncode == 2
    assert page_sentence and page_sentence in proc.stderr, (page_sentence, proc.stderr)


# ------------------------------------------------------------------ hardening (issue 11, items 2–4 and 1)


def _one_error_line(proc) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    return lines[0]


@pytest.fixture(scope="module")
def demo_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo")
    assert run_cli("demo", "noisy_copy", "--out", str(folder), "--rows", "300").returncode == 0
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--json", "--html"])
@pytest.mark.parametrize("where, fragments", [
    ("missing/dir/out", ["does not exist", "mkdir -p"]),
    ("real.csv/out", ["which is a file, not a folder"]),
    ("", ["is a folder, not a file", "add a file name"]),
])
def test_unusable_report_path_exits_2_before_any_computation(demo_files, monkeypatch, option, where, fragments):
    path = str(demo_files / f"{where}.{option[2:]}") if where else str(demo_files)
    # Fail fast: the path is refused before a table is read, so a missing --real does not matter either.
    proc = run_cli("evaluate", "--real", "nowhere.csv", "--synthetic", "synthetic.csv", option, path, cwd=demo_files)
    line = _one_error_line(proc)
    assert f"{option} {path}" in line and all(f in line for f in fragments), line


@pytest.mark.slow
def test_report_that_cannot_be_written_exits_2_naming_the_path(demo_files):
    # /dev/full passes the checks made beforehand (it exists and is writable) but every write fails.
    proc = run_cli("evaluate", "--real", "real.csv", "--synthetic", "synthetic.csv", "--metrics", "crp",
                   "--json", "/dev/full", cwd=demo_files)
    line = _one_error_line(proc)
    assert "--json /dev/full could not be written" in line and "No space left" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_report_in_a_read_only_folder_exits_2(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        proc = run_cli("evaluate", "--demo", "exact_copy", "--metrics", "crp", "--html", str(folder / "r.html"))
    finally:
        folder.chmod(0o700)
    assert "cannot be written" in _one_error_line(proc)


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--real", "--synthetic", "--holdout", "--reference"])
def test_a_directory_given_as_a_table_is_called_a_directory(demo_files, option):
    files = {"--real": "real.csv", "--synthetic": "synthetic.csv"}
    args = [a for flag, name in files.items() if flag != option for a in (flag, name)]
    proc = run_cli("evaluate", *args, option, ".", "--metrics", "crp", cwd=demo_files)
    line = _one_error_line(proc)
    assert "'.' is a directory, not a table file" in line and "not found" not in line


@pytest.mark.parametrize("seed", ["-5", "2147483648"])
def test_a_seed_outside_0_to_2_31_exits_2(seed):
    line = _one_error_line(run_cli("evaluate", "--demo", "exact_copy", "--metrics", "crp", "--seed", seed))
    assert f"--seed {seed}" in line and "whole number from 0 to 2147483647" in line


def test_overlapping_linkability_column_sets_exit_2():
    line = _one_error_line(run_cli("evaluate", "--demo", "noisy_copy", "--metrics", "linkability", "--param",
                                   'linkability.aux_cols=[["age"],["age"]]'))
    assert "linkability.aux_cols" in line and "must not share a column" in line


@pytest.mark.parametrize("values, missing, fragment", [
    (["inf", "-inf", "Infinity"], "drop", "an infinite value in row 4"),
    (["inf"], "impute", "an infinite value in row 4"),  # not a missing value: refused under either policy
    (["1e309"], "drop", "an infinite value in row 4"),  # beyond float range: read as inf, not as text
    (["1e308", "-1e308"], "drop", "a number beyond ±1e100 in row 4"),
])
def test_infinite_and_huge_numbers_exit_2_naming_file_column_and_row(demo_files, values, missing, fragment):
    real = pd.read_csv(demo_files / "real.csv", dtype=str)
    for offset, value in enumerate(values):
        real.loc[3 + 7 * offset, "age"] = value
    real.to_csv(demo_files / "real_extreme.csv", index=False)
    proc = run_cli("evaluate", "--real", "real_extreme.csv", "--synthetic", "synthetic.csv", "--metrics",
                   "crp,dcr,cvp", "--missing", missing, cwd=demo_files)
    line = _one_error_line(proc)
    assert "Column 'age' of real_extreme.csv" in line and fragment in line, line
    assert "RuntimeWarning" not in proc.stderr


@pytest.mark.parametrize("workers", ["0", "-1", "1.5", "two", ""])
def test_workers_other_than_a_whole_number_of_at_least_one_exit_2(workers):
    line = _one_error_line(run_cli("evaluate", "--demo", "exact_copy", "--metrics", "crp", "--workers", workers))
    assert f"--workers {workers}:" in line and "whole number of at least 1" in line


@pytest.mark.slow
def test_workers_flag_gives_the_same_report(tmp_path):
    reports = []
    for workers in ("1", "2"):
        proc = run_cli("evaluate", "--demo", "noisy_copy", "--metrics", "cvp,auth,dcr,mir", "--workers", workers)
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        for entry in report["metrics"].values():
            entry.pop("seconds", None)
        reports.append(report)
    assert reports[0] == reports[1]


@pytest.mark.slow
def test_reconstruction_writes_schema_valid_json_and_draws_its_figure_in_the_html(tmp_path):
    """``--metrics recon_best`` (issue 40 item 5): the details kind in the JSON validates against the schema, and the
    HTML report's card draws the per-column figure."""
    import jsonschema

    from privcore.report.json_schema import report_schema

    assert run_cli("demo", "noisy_copy", "--out", str(tmp_path), "--rows", "400").returncode == 0
    proc = run_cli("evaluate", "--real", "real.csv", "--synthetic", "synthetic.csv", "--holdout", "holdout.csv",
                   "--sensitive", "income", "--key", "age,gender,race,marital-status,native-country,relationship",
                   "--metrics", "recon_best", "--param", "recon_best.n_boot=100", "--json", "report.json", "--html",
                   "report.html", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    document = json.loads((tmp_path / "report.json").read_text())
    jsonschema.Draft202012Validator(report_schema()).validate(document)
    details = document["metrics"]["recon_best"]["details"]
    assert details["kind"] == "reconstruction" and details["columns"][0]["kind"] == "column_reconstruction"
    assert len(details["secret"]) == 8 and details["advantage_interval"][0] > 0  # the noisy copy leaks
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Each row is a column the attacker did not know" in page  # the figure's caption
    assert '"name":"population reference"' in page and '"name":"advantage, 95 % interval"' in page  # its traces
