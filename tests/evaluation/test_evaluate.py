"""evaluate() end to end: registry metadata, JSON contract, baselines, shared passes, progress, reasons."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privcore import evaluate
from privcore.base.errors import InputError
from privcore.base.jsonvalues import without_timings
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.metrics import registry


@pytest.fixture(scope="module")
def full_report(demo, demo_schema):
    seen = []
    report = evaluate(demo.real, demo.synthetic, demo_schema, metrics="all", holdout=demo.holdout, seed=0,
                      progress=lambda f, m: seen.append((f, m)), strict=True)
    return report, seen


def test_every_metric_has_complete_metadata():
    infos = registry.all_metrics()
    assert infos, "no metric registered"
    for info in infos:
        assert info.family in registry.FAMILIES
        assert info.per_record_unit in ("real", "synthetic", "none")
        for text in (info.name, info.summary, info.attacker_knows, info.reference, info.raw_meaning,
                     info.explanation.attack, info.explanation.high, info.explanation.low,
                     info.explanation.blind_spots):
            assert text and text.strip(), f"{info.id}: empty explanation text"
        assert 2 <= len(info.explanation.steps) <= 4, f"{info.id}: the attack in 2–4 steps"


@pytest.mark.slow
def test_json_contract_for_all_metrics(full_report):
    report, _ = full_report
    data = json.loads(report.to_json())
    assert set(data) == {"verdict", "metrics", "warnings", "rows", "dp_epsilon", "columns"}
    assert data["rows"] == {"real": len(report.data.real), "synthetic": len(report.data.synthetic),
                            "holdout": len(report.data.holdout)}
    assert list(data["metrics"]) == registry.metric_ids()
    for mid, entry in data["metrics"].items():
        assert {"risk", "raw", "applicable", "reason", "baseline", "interval", "seconds", "params"} <= set(entry)
        if entry["applicable"]:
            assert entry["risk"] is None or 0.0 <= entry["risk"] <= 1.0, mid
            assert entry["reason"] is None
        else:
            assert entry["reason"], f"{mid}: not applicable without a reason"
    assert not report.errors


@pytest.mark.slow
def test_baseline_present_for_review_metrics_with_holdout(full_report):
    report, _ = full_report
    for mid in report:
        info = registry.get(mid)
        result = report[mid]
        if result.applicable and info.baseline and "pairing" not in info.needs:
            if registry.is_utility(info):  # no risk, so no risk baseline: the fresh sample's utility instead
                assert result.baseline is None and 0.0 <= result.utility.reference <= 1.0, mid
                continue
            assert result.baseline is not None and 0.0 <= result.baseline <= 1.0, mid


def test_no_neighbour_pass_is_computed_twice(full_report):
    report, _ = full_report
    passes = report.shared.passes
    assert len(passes) == len(set(passes)), passes


def test_progress_is_monotone_and_ends_at_one(full_report):
    _, seen = full_report
    fractions = [f for f, _ in seen]
    assert fractions[-1] == 1.0
    assert all(b >= a - 1e-12 for a, b in zip(fractions, fractions[1:]))


@pytest.mark.slow
def test_not_applicable_reasons(demo):
    schema = Schema(types=dict(demo.types))  # no sensitive column, no holdout, no pairing
    report = evaluate(demo.real, demo.synthetic, schema, metrics="all", strict=True)
    for mid, result in report.items():
        needs = registry.get(mid).needs
        if "sensitive" in needs or "categorical_sensitive" in needs:
            assert not result.applicable and "sensitive column" in result.reason
        elif "holdout" in needs:
            assert not result.applicable and "holdout" in result.reason
        elif "pairing" in needs:
            assert not result.applicable and "pairing" in result.reason


@pytest.mark.slow
def test_numerical_sensitive_column_is_explained(demo):
    schema = Schema(types=dict(demo.types), sensitive="age")
    report = evaluate(demo.real, demo.synthetic, schema, metrics="all", strict=True)
    for mid, result in report.items():
        if "categorical_sensitive" in registry.get(mid).needs:
            assert not result.applicable and "'age' is numerical" in result.reason


def test_unknown_metric_is_input_error(demo):
    with pytest.raises(InputError, match="Unknown metric id"):
        evaluate(demo.real, demo.synthetic, metrics="crp,nope")


def test_schema_is_inferred_when_omitted():
    real = pd.DataFrame({"a": np.arange(10.0), "b": list("xyxyxyxyxy")})
    report = evaluate(real, real.copy(), metrics="crp", strict=True)
    assert report["crp"].risk == pytest.approx(1.0)


@pytest.mark.slow
def test_same_seed_same_result(demo, demo_schema):
    ids = [m for m in registry.presets()["quick"]]
    a = evaluate(demo.real, demo.synthetic, demo_schema, metrics=ids, holdout=demo.holdout, seed=3, strict=True)
    b = evaluate(demo.real, demo.synthetic, demo_schema, metrics=ids, holdout=demo.holdout, seed=3, strict=True)
    for mid in ids:
        assert a[mid].risk == b[mid].risk and a[mid].baseline == b[mid].baseline


@pytest.mark.slow
def test_reuse_shares_passes_not_involving_the_synthetic_table(demo, demo_schema):
    ids = ["cvp", "auth", "idscore", "dcr", "nndr", "nnaa"]
    other = load_scenario("gaussian_copula", n=300).synthetic
    reuse = {}
    first = evaluate(demo.real, demo.synthetic, demo_schema, metrics=ids, holdout=demo.holdout, strict=True,
                     reuse=reuse)
    second = evaluate(demo.real, other, demo_schema, metrics=ids, holdout=demo.holdout, strict=True, reuse=reuse)
    alone = evaluate(demo.real, other, demo_schema, metrics=ids, holdout=demo.holdout, strict=True)
    assert ("E", "real", "real") in first.shared.passes
    # Passes on the pooled synthetic table and holdout (the size-matched comparison's spread) involve it too; the
    # whole tables' candidates its subsets are read from ("holdout (12 nearest)") are kept like the other passes.
    assert all(any(role.split("@")[0].split(" (")[0] in ("synthetic", "pool") for role in p[1:])
               for p in second.shared.passes), second.shared.passes
    assert any(p[2] == "holdout (12 nearest)" for p in first.shared.passes)
    assert len(second.shared.passes) < len(alone.shared.passes)
    for mid in ids:
        assert second[mid].risk == pytest.approx(alone[mid].risk, abs=1e-12)
        assert second[mid].baseline == pytest.approx(alone[mid].baseline, abs=1e-12)


def test_reuse_empties_itself_for_another_real_table(demo, demo_schema):
    reuse = {}
    evaluate(demo.real, demo.synthetic, demo_schema, metrics="auth", strict=True, reuse=reuse)
    changed = demo.real.iloc[::-1].reset_index(drop=True)
    again = evaluate(changed, demo.synthetic, demo_schema, metrics="auth", strict=True, reuse=reuse)
    assert ("E", "real", "real") in again.shared.passes


def test_a_metric_returning_a_risk_outside_0_1_is_its_own_internal_error(monkeypatch):
    # The range check guards against a metric's bug; like any other bug it must stay with that metric
    # (an "internal error" result and a log entry), not end the whole evaluation.
    import dataclasses

    from privcore.metrics.results import MetricOutput

    broken = dataclasses.replace(registry.get("crp"), compute=lambda ctx: MetricOutput(risk=float("nan")))
    monkeypatch.setitem(registry._REGISTRY, "crp", broken)
    real = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "x"]})
    report = evaluate(real, real.copy(), metrics="crp,cvp")
    assert not report["crp"].applicable and "internal error" in report["crp"].reason
    assert report["cvp"].applicable
    assert len(report.errors) == 1 and report.errors[0].startswith("crp:")
    with pytest.raises(AssertionError, match="outside"):
        evaluate(real, real.copy(), metrics="crp", strict=True)


def test_a_table_left_without_rows_by_the_missing_value_policy_is_bad_input():
    # Dropping rows with a missing number can empty a table; evaluating nothing is not a result.
    real = pd.DataFrame({"a": [np.nan, 1.0, np.nan], "b": [2.0, np.nan, 3.0], "c": ["x", "y", "z"]})
    schema = Schema({"a": "numerical", "b": "numerical", "c": "categorical"})
    complete = real.fillna(0.0)
    with pytest.raises(InputError, match="real.csv.*'a', 'b'.*median imputation") as raised:
        evaluate(real, complete, schema, metrics="crp", names={"real": "real.csv"})
    assert raised.value.file == "real.csv" and raised.value.column == "a"
    with pytest.raises(InputError, match="synthetic"):
        evaluate(complete, real, schema, metrics="crp")
    report = evaluate(real, complete, schema.with_changes(missing="impute"), metrics="crp")
    assert report.rows["real"] == 3


def test_out_of_range_baseline_is_dropped_not_reported(demo, demo_schema, monkeypatch):
    from dataclasses import replace

    from privcore.metrics.details import CopyCounts
    from privcore.metrics.results import MetricOutput

    info = registry.get("crp")

    def broken(ctx):
        return MetricOutput(risk=2.0 if ctx.is_baseline else 0.5, details=CopyCounts(0, 0, 0))

    monkeypatch.setitem(registry._REGISTRY, "crp", replace(info, compute=broken))
    report = evaluate(demo.real, demo.synthetic, demo_schema, metrics="crp", holdout=demo.holdout)
    assert report["crp"].risk == 0.5 and report["crp"].baseline is None
    assert any("baseline" in e for e in report.errors)
    with pytest.raises(AssertionError):
        evaluate(demo.real, demo.synthetic, demo_schema, metrics="crp", holdout=demo.holdout, strict=True)


# ----------------------------------------------------------------- non-finite and extreme values (issue 11)


def _with_values(table: pd.DataFrame, column: str, rows: dict[int, float]) -> pd.DataFrame:
    out = table.copy()
    out[column] = out[column].astype(np.float64)
    for row, value in rows.items():
        out.loc[row, column] = value
    return out


@pytest.mark.parametrize("role", ["real", "synthetic", "holdout"])
@pytest.mark.parametrize("missing", ["drop", "impute"])
@pytest.mark.parametrize("values, fragment", [
    ({5: np.inf, 9: -np.inf}, "an infinite value in row 6"),
    ({5: -np.inf}, "an infinite value in row 6"),
    ({5: 1e308}, "a number beyond ±1e100 in row 6"),
    ({5: 1e308, 9: -1e308}, "a number beyond ±1e100 in row 6"),  # max − min would overflow too
])
def test_infinite_or_huge_numbers_are_named_input_errors(demo, demo_schema, role, missing, values, fragment):
    from privcore.base.errors import ExtremeValueError

    tables = {"real": demo.real, "synthetic": demo.synthetic, "holdout": demo.holdout}
    tables[role] = _with_values(tables[role], "age", values)
    schema = demo_schema.with_changes(missing=missing)
    with np.errstate(all="raise"):  # no floating-point warning on the way to the error
        with pytest.raises(ExtremeValueError) as caught:
            evaluate(tables["real"], tables["synthetic"], schema, metrics="crp,dcr,cvp", holdout=tables["holdout"],
                     names={role: f"{role}.csv"})
    error = caught.value
    assert error.file == f"{role}.csv" and error.column == "age"
    assert f"Column 'age' of {role}.csv holds {fragment}" in str(error)
    assert "empty" in str(error) or "rescale" in str(error)  # says what to do


def test_largest_allowed_magnitude_still_gives_finite_scores(demo, demo_schema):
    real = _with_values(demo.real, "age", {5: 1e100, 9: -1e100})
    report = evaluate(real, demo.synthetic, demo_schema, metrics="crp,dcr,cvp,nndr", strict=True)
    for metric_id in ("crp", "dcr", "cvp", "nndr"):
        assert 0.0 <= report[metric_id].risk <= 1.0


def test_a_value_too_far_outside_the_real_spread_is_a_named_error_not_a_wrong_score():
    # Every number is within ±1e100, but the real column spans 1e-200: scaled by that span, or standardised
    # (its standard deviation underflows to 0), the synthetic value cannot be represented.
    from privcore.base.errors import ExtremeValueError

    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.choice([0.0, 1e-200, 2e-200], 60), "c": rng.choice(list("abc"), 60)})
    synthetic = real.copy()
    synthetic.loc[0, "x"] = 1e50
    for metric in ("cvp", "dcr"):  # E (min–max) and Φk (FAMD)
        with pytest.raises(ExtremeValueError, match="Column 'x'"):
            evaluate(real, synthetic, Schema({"x": "numerical", "c": "categorical"}), metrics=metric)


@pytest.mark.parametrize("seed", [-5, 2**31, 1.5, True, "3"])
def test_a_seed_outside_0_to_2_31_is_an_input_error(demo, demo_schema, seed):
    with pytest.raises(InputError, match="whole number from 0 to 2147483647"):
        evaluate(demo.real, demo.synthetic, demo_schema, metrics="crp", seed=seed)
    with pytest.raises(InputError, match="whole number from 0 to 2147483647"):
        evaluate(demo.real, demo.synthetic, demo_schema.with_changes(seed=seed), metrics="crp")


@pytest.mark.slow
def test_the_report_is_the_same_for_any_number_of_workers(demo, demo_schema):
    # Small chunks (13 query rows of 300) so that two workers really split every neighbour pass between
    # them; the classifiers' folds and repeats run side by side too.
    reports = [evaluate(demo.real, demo.synthetic, demo_schema, metrics="all", holdout=demo.holdout, seed=0,
                        chunk_elements=4096, workers=workers, strict=True) for workers in (1, 2)]
    one, two = (without_timings(json.loads(r.to_json())) for r in reports)
    assert one == two
    compared = 0
    for metric_id in reports[0]:
        a, b = reports[0][metric_id].per_record, reports[1][metric_id].per_record
        if a is not None:
            np.testing.assert_array_equal(a, b, err_msg=metric_id)
            compared += 1
    assert compared >= 17
    assert reports[0].shared.workers == 1 and reports[1].shared.workers == 2


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_workers_must_be_a_whole_number_of_at_least_one(demo, demo_schema, workers):
    with pytest.raises(InputError, match=r"Workers \(evaluate\.workers\) must be (a whole number|at least 1)"):
        evaluate(demo.real, demo.synthetic, demo_schema, metrics="crp", workers=workers)


# ----------------------------------------------------------- classifiers beside the other metrics (issue 24)
def test_classifiers_run_beside_the_others_and_give_the_same_report(demo, demo_schema, monkeypatch):
    """With two workers D-MLP and MIR run on a thread of their own while the distance metrics run; the
    report is the one computed metric after metric (every risk, per-record value and detail), and BLAS's
    thread limit is back to what it was."""
    import threading

    from threadpoolctl import threadpool_info

    from privcore.evaluation import evaluate as evaluation

    real, synthetic, holdout = demo.real, demo.synthetic, demo.holdout
    ids = ["dcr", "dmlp", "auth", "mir", "nnaa"]
    threads: dict[str, str] = {}
    run_metric = evaluation._run_metric

    def spying(info, *args, **kwargs):
        threads[info.id] = threading.current_thread().name
        return run_metric(info, *args, **kwargs)

    def blas_threads():
        return [(pool["filepath"], pool["num_threads"]) for pool in threadpool_info() if pool["user_api"] == "blas"]

    before = blas_threads()
    monkeypatch.setattr(evaluation, "_run_metric", spying)
    beside = evaluate(real, synthetic, demo_schema, metrics=ids, holdout=holdout, seed=0, workers=2, strict=True)
    # Every BLAS library loaded before has its limit back (one loaded meanwhile, such as SciPy's when this test
    # runs alone, starts at its own default).
    after = dict(blas_threads())
    assert all(after[path] == count for path, count in before)
    main = threading.current_thread().name
    assert threads["dmlp"] != main
    assert {threads[m] for m in ("dcr", "auth", "nnaa")} == {main}  # MIR: whichever thread came to it first

    monkeypatch.setattr(evaluation, "background_ids", lambda *args: [])
    threads.clear()
    in_turn = evaluate(real, synthetic, demo_schema, metrics=ids, holdout=holdout, seed=0, workers=2, strict=True)
    assert set(threads.values()) == {main}
    assert without_timings(json.loads(beside.to_json())) == without_timings(json.loads(in_turn.to_json()))
    for metric in ids:
        np.testing.assert_array_equal(beside[metric].per_record, in_turn[metric].per_record)


def test_the_other_metrics_do_not_wait_for_the_background(demo, demo_schema, monkeypatch):
    """The background metrics are collected after every other metric: a metric listed after D-MLP starts while
    D-MLP still runs (here D-MLP waits until it has), the report keeps the order asked for, progress never goes
    back, and D-MLP gets one thread beside the others while MIR, in turn, gets the evaluation's two."""
    import threading

    from privcore.evaluation import evaluate as evaluation

    ids = ["dcr", "dmlp", "auth", "mir", "nnaa"]
    nnaa_started = threading.Event()
    seen_workers: dict[str, int] = {}
    run_metric = evaluation._run_metric

    def spying(info, shared, *args, **kwargs):
        if info.id == "nnaa":
            nnaa_started.set()
        if info.id == "dmlp":
            assert nnaa_started.wait(timeout=20), "the main thread waited for D-MLP before running NNAA"
        seen_workers[info.id] = kwargs.get("workers") or shared.workers
        return run_metric(info, shared, *args, **kwargs)

    monkeypatch.setattr(evaluation, "_run_metric", spying)
    fractions = []
    report = evaluate(demo.real, demo.synthetic, demo_schema, metrics=ids, seed=0, workers=2, strict=True,
                      progress=lambda fraction, message: fractions.append(fraction))
    assert list(report.results) == ids
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert seen_workers["dmlp"] == 1 and seen_workers["mir"] == 2 and seen_workers["dcr"] == 2


def test_the_background_takes_mir_when_it_is_free_first(demo, demo_schema, monkeypatch):
    """MIR goes to whichever thread comes to it first: here the main thread waits in Auth until the background
    thread, done with D-MLP, has started MIR; the main thread then skips it, and the report (order, results)
    is the one of every metric in turn, with progress that never goes back. On the background thread MIR gets
    the evaluation's threads, as on the main thread; D-MLP starts on one."""
    import threading

    from privcore.evaluation import evaluate as evaluation

    ids = ["dcr", "dmlp", "auth", "mir", "nnaa"]
    main = threading.current_thread().name
    mir_started = threading.Event()
    threads: dict[str, list[str]] = {}
    workers: dict[str, int | None] = {}
    run_metric = evaluation._run_metric

    def spying(info, shared, *args, **kwargs):
        threads.setdefault(info.id, []).append(threading.current_thread().name)
        workers[info.id] = kwargs.get("workers")  # None: the evaluation's own
        if info.id == "mir":
            mir_started.set()
        if info.id == "auth":
            assert mir_started.wait(timeout=30), "the background thread did not take MIR"
        return run_metric(info, shared, *args, **kwargs)

    monkeypatch.setattr(evaluation, "_run_metric", spying)
    fractions = []
    # Without a holdout the similarity metrics also run in a second evaluation, on halves of the real table (the
    # split reference); left out here, where the subject is how one evaluation shares its threads.
    beside = evaluate(demo.real, demo.synthetic, demo_schema, metrics=ids, seed=0, workers=2, strict=True,
                      progress=lambda fraction, message: fractions.append(fraction), split_reference=False)
    assert threads["mir"] == threads["dmlp"] and threads["mir"] != [main]  # once, on the background thread
    assert threads["auth"] == threads["nnaa"] == [main]
    assert workers["dmlp"] == 1 and workers["mir"] is None
    assert list(beside.results) == ids
    assert fractions == sorted(fractions) and fractions[-1] == 1.0

    monkeypatch.setattr(evaluation, "_run_metric", run_metric)
    monkeypatch.setattr(evaluation, "background_ids", lambda *args: [])
    in_turn = evaluate(demo.real, demo.synthetic, demo_schema, metrics=ids, seed=0, workers=2, strict=True,
                       split_reference=False)
    assert without_timings(json.loads(beside.to_json())) == without_timings(json.loads(in_turn.to_json()))


def test_a_claimable_metric_runs_once_on_the_thread_that_takes_it_first():
    from concurrent.futures import Future

    from privcore.evaluation.background import Beside, claimable_ids

    assert claimable_ids(["dcr", "dmlp", "mir"], ["dmlp"]) == ["mir"]
    assert claimable_ids(["dcr", "dmlp", "mir"], []) == []  # nothing in the background: MIR in turn
    here = Beside(claimed={"mir": Future()})
    assert here.take("dcr") and here.take("dcr")  # not claimable: always runs where asked
    assert here.take("mir") and not here.take("mir")
    ran: list[str] = []
    here.run_claimable(ran.append)  # the background comes to it later: taken already
    assert ran == [] and here.collected() == {}
    there = Beside(claimed={"mir": Future()})
    there.run_claimable(lambda metric_id: ran.append(metric_id) or "result")
    assert ran == ["mir"] and not there.take("mir")
    assert {m: f.result() for m, f in there.collected().items()} == {"mir": "result"}
    closed = Beside(claimed={"mir": Future()})
    closed.close()  # leaving early: the background thread takes nothing after this
    closed.run_claimable(ran.append)
    assert ran == ["mir"] and closed.collected() == {}


def test_classifiers_run_in_turn_on_one_worker_or_alone(demo, demo_schema):
    from privcore.evaluation.background import background_ids

    assert background_ids(["dcr", "dmlp", "mir"], 2, None, None) == ["dmlp"]  # MIR: claimable, not its own
    assert background_ids(["dcr", "dmlp", "mir"], 1, None, None) == []
    assert background_ids(["dmlp"], 4, None, None) == []  # nothing to run beside it
    assert background_ids(["dcr", "dmlp"], 4, object(), None) == []  # a Dask cluster runs the fits
    assert background_ids(["dcr", "dmlp"], 4, None, {}) == []  # the lab runs evaluations side by side
    # The membership attacks' kernel densities use BLAS on every core: with them, metric after metric.
    assert background_ids(["dcr", "dmlp", "mia_domias"], 4, None, None) == []


@pytest.mark.slow
def test_the_default_choice_with_membership_attacks_does_not_depend_on_workers(demo, demo_schema):
    """The quick preset with a holdout (membership battery included) gives the same report on one worker
    and on two: the classifiers then run in turn, since BLAS's rounding depends on its thread count."""
    reports = [json.loads(evaluate(demo.real, demo.synthetic, demo_schema, metrics="quick", holdout=demo.holdout,
                                   seed=0, workers=w).to_json()) for w in (1, 2)]
    assert without_timings(reports[0]) == without_timings(reports[1])
