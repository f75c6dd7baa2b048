"""The JSON contract: ``python -m privcore schema`` describes every report, and only valid reports."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import jsonschema
import pytest

from privcore import Schema, evaluate
from privcore.demo import list_scenarios, load_scenario
from privcore.metrics import registry
from privcore.report.json_schema import report_schema


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "privcore", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


@pytest.fixture(scope="module")
def schema() -> dict:
    proc = cli("schema")
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    assert printed == json.loads(json.dumps(report_schema()))
    jsonschema.Draft202012Validator.check_schema(printed)
    return printed


def validate(document: dict, schema: dict) -> None:
    jsonschema.Draft202012Validator(schema).validate(document)


@pytest.mark.slow
def test_the_cli_report_of_every_metric_on_the_noisy_copy_validates(schema, tmp_path):
    out = tmp_path / "out.json"
    proc = cli("evaluate", "--demo", "noisy_copy", "--metrics", "all", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    document = json.loads(out.read_text())
    validate(document, schema)
    assert set(document["metrics"]) == set(registry.metric_ids())
    for metric_id, entry in document["metrics"].items():
        if entry["applicable"]:
            assert entry["details"]["kind"] == registry.get(metric_id).details_type.kind
        else:  # HidR: the demo has no pairing; reproduced identifiers: it has no identifier column
            assert entry["details"] is None and entry["reason"], metric_id
    assert sum(entry["applicable"] for entry in document["metrics"].values()) >= len(document["metrics"]) - 2


@pytest.mark.slow
@pytest.mark.parametrize("scenario", [s.name for s in list_scenarios()])
def test_every_demo_report_validates(schema, scenario):
    demo = load_scenario(scenario, n=250)
    report = evaluate(demo.real, demo.synthetic,
                      Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive),
                      metrics="all", holdout=demo.holdout, strict=True)
    validate(json.loads(report.to_json()), schema)
    without_holdout = evaluate(demo.real, demo.synthetic, Schema(types=dict(demo.types)), metrics="all")
    document = json.loads(without_holdout.to_json())
    validate(document, schema)  # metrics that did not run have null details and a reason
    assert any(entry["details"] is None and entry["reason"] for entry in document["metrics"].values())


@pytest.mark.slow
@pytest.mark.parametrize("breakage", [
    lambda d: d["metrics"]["crp"].__setitem__("risk", 1.5),
    lambda d: d["metrics"]["crp"]["details"].__setitem__("invented", 1),
    lambda d: d["metrics"]["crp"]["details"].__setitem__("kind", "membership_scores"),
    lambda d: d["metrics"]["cvp"]["params"].__setitem__("threshold", "high"),
    lambda d: d["metrics"].__setitem__("no_such_metric", d["metrics"]["crp"]),
    lambda d: d["rows"].pop("holdout"),
])
def test_a_broken_report_does_not_validate(schema, breakage):
    demo = load_scenario("exact_copy", n=100)
    report = evaluate(demo.real, demo.synthetic, Schema(types=dict(demo.types)), metrics="crp,cvp")
    document = json.loads(report.to_json())
    validate(document, schema)
    broken = copy.deepcopy(document)
    breakage(broken)
    with pytest.raises(jsonschema.ValidationError):
        validate(broken, schema)


def test_every_registered_metric_declares_its_parameters_details_and_explanation():
    from privcore.data.params import Param
    from privcore.metrics.details import Details

    for info in registry.all_metrics():
        assert isinstance(info.params, tuple) and all(isinstance(p, Param) for p in info.params), info.id
        for param in info.params:
            assert param.label and param.help.endswith(".") and param.describe_range(), (info.id, param.name)
            assert param.default is not None or param.rule or param.kind == "table", (info.id, param.name)
        assert issubclass(info.details_type, Details) and info.details_type is not Details, info.id
        explanation = info.explanation
        assert explanation.attack and explanation.high and explanation.low and explanation.blind_spots, info.id
        assert 2 <= len(explanation.steps) <= 4, info.id


def test_the_strongest_attack_details_are_documented_and_validate(schema):
    # Issue 14: metrics.mia_best.details carries selected_attack, attacks {id: {auc, auc_interval, p_value_holm,
    # tpr_at}}, epsilon_lower_bound and delta, and `python -m privcore schema` says so.
    defs = schema["$defs"]
    battery = defs["MembershipBattery"]
    assert {"selected_attack", "attacks", "epsilon_lower_bound", "delta"} <= set(battery["required"])
    assert battery["properties"]["attacks"]["additionalProperties"] == {"$ref": "#/$defs/BatteryAttack"}
    assert {"auc", "auc_interval", "p_value_holm", "tpr_at"} <= set(defs["BatteryAttack"]["required"])
    assert schema["properties"]["metrics"]["properties"]["mia_best"]["properties"]["details"]["anyOf"][0] == {
        "$ref": "#/$defs/MembershipBattery"}
    demo = load_scenario("noisy_copy", n=300)
    report = evaluate(demo.real, demo.synthetic, Schema(types=dict(demo.types)), metrics="mia_best",
                      holdout=demo.holdout, params={"mia_best": {"n_boot": 50}}, strict=True)
    document = json.loads(report.to_json())
    validate(document, schema)
    details = document["metrics"]["mia_best"]["details"]
    assert details["kind"] == "membership_battery" and details["selected_attack"] in details["attacks"]
    assert set(details["attacks"]["mia_distance"]["tpr_at"]) == {"0.001", "0.01", "0.1"}
    assert details["attacks"]["mia_distance"]["tpr_at"]["0.001"] is None  # 150 non-members cannot show 0.1 %
    broken = copy.deepcopy(document)
    broken["metrics"]["mia_best"]["details"]["attacks"]["mia_distance"].pop("p_value_holm")
    with pytest.raises(jsonschema.ValidationError):
        validate(broken, schema)


# ------------------------------------------------------------------ the membership audit (both designs)
AUDIT_RUNS = {
    "shared": ("--design", "shared", "--models", "8", "--records", "60"),
    "targeted": ("--targets", "1", "--random-targets", "1", "--shadow-models", "4", "--eval-models", "6"),
}


@pytest.fixture(scope="module")
def audit_documents(tmp_path_factory) -> dict:
    out = {}
    for design, extra in AUDIT_RUNS.items():
        path = tmp_path_factory.mktemp(design) / "audit.json"
        proc = cli("audit", "--demo", "exact_copy", "--generator", "exact_copy", *extra, "--json", str(path))
        assert proc.returncode == 0, proc.stderr
        out[design] = json.loads(path.read_text())
    return out


@pytest.mark.slow
@pytest.mark.parametrize("design", sorted(AUDIT_RUNS))
def test_both_audit_designs_validate(schema, audit_documents, design):
    document = audit_documents[design]
    assert document["design"] == design
    validate(document, schema["$defs"]["audit_report"])
    entries = document["records" if design == "shared" else "targets"]
    assert entries and {"row", "auc", "auc_interval", "tpr_at", "epsilon_lower_bound"} <= set(entries[0])


@pytest.mark.slow
@pytest.mark.parametrize("breakage", ["auc above 1", "no verdict", "unknown field", "records under targeted"])
def test_a_broken_audit_document_does_not_validate(schema, audit_documents, breakage):
    shared, targeted = copy.deepcopy(audit_documents["shared"]), copy.deepcopy(audit_documents["targeted"])
    broken = shared
    if breakage == "auc above 1":
        shared["records"][0]["auc"] = 1.2
    elif breakage == "no verdict":
        del shared["summary"]["verdict"]
    elif breakage == "unknown field":
        shared["records"][0]["surprise"] = 1
    else:
        targeted["records"], broken = targeted.pop("targets"), targeted
    with pytest.raises(jsonschema.ValidationError):
        validate(broken, schema["$defs"]["audit_report"])


def test_every_audit_result_field_is_described():
    from dataclasses import fields

    from privcore.audit.contract import RECORD_FIELDS, TARGET_FIELDS
    from privcore.audit.shared import RecordResult
    from privcore.audit.targeted import TargetResult

    assert {f.name for f in fields(RecordResult)} == set(RECORD_FIELDS)
    assert {f.name for f in fields(TargetResult)} - {"eval_scores", "eval_labels"} == set(TARGET_FIELDS)
