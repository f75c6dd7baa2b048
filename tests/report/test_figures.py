"""Figure builders: every one returns a figure with data, a caption and alt text, in Okabe–Ito colours."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation.outcome import Report
from privcore.metrics import registry
from privcore.metrics.results import MetricOutput, MetricResult
from privcore.report import figures as F

ALLOWED = {c.upper() for c in F.OKABE_ITO.values()}
#: The only non-palette colour: the zero end of the overlap heatmap's scale (white background).
HEATMAP_ZERO = "#FFFFFF"
HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")


def _colours(obj) -> set[str]:
    """Every colour string in a trace description (recursively)."""
    found: set[str] = set()
    if isinstance(obj, dict):
        for value in obj.values():
            found |= _colours(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            found |= _colours(value)
    elif isinstance(obj, str) and (HEX.match(obj) or obj.startswith("rgb")):
        found.add(obj.upper())
    return found


def check(figure: F.Figure, *, allow_white: bool = False) -> None:
    assert isinstance(figure, F.Figure)
    assert isinstance(figure.fig, go.Figure)
    assert len(figure.fig.data) > 0
    assert any(_has_values(trace) for trace in figure.fig.data), "figure has no data points"
    assert figure.caption.strip() and figure.caption.strip().endswith(".")
    assert figure.alt.strip() and len(figure.alt) > 30
    colours = set()
    for trace in figure.fig.to_plotly_json()["data"]:
        colours |= _colours(trace)
    allowed = ALLOWED | ({HEATMAP_ZERO} if allow_white else set())
    assert colours, "every trace sets its colours explicitly"
    assert colours <= allowed, colours - allowed
    assert list(figure.fig.layout.colorway) == list(F.PALETTE)


def _has_values(trace) -> bool:
    for attr in ("x", "y", "z"):
        values = getattr(trace, attr, None)
        if values is not None and len(values):
            return True
    return False


@pytest.fixture(scope="module")
def report() -> Report:
    demo = load_scenario("noisy_copy", n=200)
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive)
    return evaluate(demo.real, demo.synthetic, schema, metrics="all", holdout=demo.holdout)


def test_palette_is_okabe_ito():
    assert set(F.PALETTE) == set(F.OKABE_ITO.values())
    assert len(F.OKABE_ITO) == 8
    assert set(F.ROLE_COLOURS.values()) <= set(F.OKABE_ITO.values())


def test_distance_histogram_with_markers():
    rng = np.random.default_rng(0)
    fig = F.distance_histogram({"a": rng.random(500), "b": rng.random(300) + 0.5, "empty": [np.inf]},
                               markers={"cut": 0.2, "missing": None})
    check(fig)
    names = [t.name for t in fig.fig.data]
    assert any(n.startswith("a (n=500)") for n in names) and not any(n.startswith("empty") for n in names)
    assert any(n.startswith("cut: 0.2") for n in names)
    # binned here: a trace carries a few dozen numbers, not the data
    assert all(len(t.x) <= F.BINS for t in fig.fig.data if t.name.startswith(("a", "b")))


def test_distance_histogram_without_finite_values_is_an_explained_empty_figure():
    fig = F.distance_histogram({"a": [np.inf, np.nan]})
    assert "No finite distances" in fig.caption and fig.alt


@pytest.mark.parametrize("baseline", [None, np.r_[np.zeros(90), np.ones(10)]])
def test_per_record_distribution_indicator(baseline):
    fig = F.per_record_distribution(np.r_[np.zeros(70), np.ones(30)], baseline, name="CRP")
    check(fig)
    assert "30 of 100" in fig.alt
    if baseline is not None:
        assert "10 of 100" in fig.alt


def test_per_record_distribution_continuous_and_nan():
    rng = np.random.default_rng(1)
    fig = F.per_record_distribution(np.r_[rng.random(200), np.nan], rng.random(200), name="DCR", cutoff=0.7)
    check(fig)
    assert "200 real people" in fig.alt and "baseline" in fig.alt
    assert len(fig.fig.data) == 2


def test_a_risk_on_a_bin_edge_lands_in_the_bin_that_starts_there_on_every_machine():
    """0.3 and 0.6 computed a few ulps either side (as two CPUs' BLAS kernels do) count in "0.3–0.4" and
    "0.6–0.7", the bins their labels name, not in the one below by the accident of linspace's 0.30000000000000004."""
    ulp = np.finfo(float).eps
    for values in ([0.3 * (1 - 2 * ulp), 0.6 * (1 - 2 * ulp)], [0.3, 0.6], [0.3 * (1 + 2 * ulp), 0.6 * (1 + 2 * ulp)]):
        fig = F.per_record_distribution(np.array(values + [0.05, 0.95]))
        shares = np.asarray(fig.fig.data[0].y, dtype=float)
        np.testing.assert_allclose(shares, [0.25, 0, 0, 0.25, 0, 0, 0.25, 0, 0, 0.25], err_msg=str(values))


def test_attack_intervals_and_risk_row():
    fig = F.attack_intervals({"main": (0.6, 0.5, 0.7), "baseline": (0.1, 0.05, 0.15), "control": (0.3, None, None)},
                             name="Singling out", risk=(0.43, 0.3, 0.55))
    check(fig)
    assert len(fig.fig.data) == 4
    assert "main 0.600" in fig.alt and "control 0.300" in fig.alt


@pytest.mark.parametrize("log_x", [False, True])
def test_roc_curves(log_x):
    fpr = np.linspace(0, 1, 5000)
    fig = F.roc_curves({"distance": (fpr, np.sqrt(fpr))}, name="MIA", log_x=log_x)
    check(fig)
    assert "AUC 0.667" in fig.alt
    assert max(len(t.x) for t in fig.fig.data) <= F.MAX_POINTS + 2


def test_epsilon_curve_fold_scores_narrowing_rare_values():
    check(F.epsilon_curve({"SD-IDR": {0: 0.2, 1.0: 0.3, "2": 0.35}}, name="SD-IDR", threshold=0.09))
    check(F.fold_scores([0.5, 0.55, 0.6], name="D-MLP"))
    check(F.narrowing([("everyone", 1000), ("+ age", 20), ("+ job", 1)]))
    check(F.rare_values([{"column": "age", "rare": 5, "copied": 3}, {"column": "job", "rare": 0, "copied": 0}]))


def test_scores_overview_with_intervals_and_baselines():
    rows = [
        {"table": "A", "metric": "CRP", "risk": 0.9, "baseline": 0.01},
        {"table": "B", "metric": "CRP", "risk": 0.1, "baseline": 0.01},
        {"table": "A", "metric": "Singling out", "risk": 0.4, "low": 0.3, "high": 0.5},
        {"table": "A", "metric": "skipped", "risk": None},
    ]
    fig = F.scores_overview(rows)
    check(fig)
    assert "2 metrics and 2 synthetic table(s)" in fig.alt


def test_flag_counts_and_overlap():
    flags = pd.DataFrame({"A (a)": [True, True, False, False], "B (b)": [True, False, True, False],
                          "C (c)": [False, False, False, True]})
    counts = F.flag_counts(flags)
    check(counts)
    overlap = F.flag_overlap(flags)
    check(overlap, allow_white=True)
    z = np.asarray(overlap.fig.data[0].z)
    assert z[0, 1] == 1 and z[1, 0] == 1 and z[2, 0] == 1  # flagged by row, not by column


def test_narrowing_steps_and_rare_values_copied():
    real = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 2, 1, 1], "c": ["p", "q", "r", "r"]})
    row, steps = F.narrowing_steps(real, ["a", "b"])
    assert steps[0] == ("nothing (everyone)", 4)
    assert [s[1] for s in steps][-1] == 1 and row in (0, 1)
    table = F.rare_values_copied(real, pd.DataFrame({"a": ["x"], "b": [2], "c": ["q"]}), ["b", "c"])
    assert set(table["value"].astype(str)) == {"2", "p", "q"}
    assert dict(zip(table["value"].astype(str), table["synthetic rows"])) == {"2": 1, "p": 0, "q": 1}


@pytest.mark.slow
def test_report_builders(report):
    check(F.distance_comparison(report, "E"))
    check(F.distance_comparison(report, "phi"))
    check(F.normalised_distance_histogram(report))
    check(F.scores_chart({"one": report, "two": report}))


@pytest.mark.slow
def test_famd_map_samples_points_and_links(report):
    fig = F.famd_map(report, max_points=100, max_links=20)
    check(fig)
    links, real, synthetic = fig.fig.data
    assert len(real.x) == 50 and len(synthetic.x) == 50
    assert sum(x is None for x in links.x) <= 20
    assert "FAMD" in fig.fig.layout.xaxis.title.text


def test_famd_map_uses_the_shared_pass_without_recomputing(report):
    before = list(report.shared.passes)
    F.famd_map(report)
    assert report.shared.passes.count(("phi", "real", "synthetic")) <= 1
    assert len(report.shared.passes) == len(before)


@pytest.mark.slow
def test_every_registered_metric_has_figures(report):
    for metric_id in registry.metric_ids():
        figures = F.metric_figures(report, metric_id)
        assert figures, metric_id
        for figure in figures:
            if report[metric_id].applicable:
                check(figure, allow_white=True)
            else:
                assert "not applicable" in figure.caption


def test_known_details_get_their_specific_figure(report):
    titles = lambda mid: " | ".join(f.title for f in F.metric_figures(report, mid))  # noqa: E731
    if "mia_distance" in report:
        assert "ROC curve" in titles("mia_distance")
    if "singling_out_univariate" in report:
        assert "attack success" in titles("singling_out_univariate")
    if "sd_idr" in report:
        assert "tolerance ε" in titles("sd_idr")
    if "dcr" in report:
        assert "Map of real and synthetic" in titles("dcr")
    if "cvp" in report:
        assert "normalised distance" in titles("cvp")


def test_unknown_metric_falls_back_to_per_record_histogram():
    result = MetricResult(id="mystery", applicable=True, risk=0.3, per_record=np.r_[0.1, 0.5, 0.9],
                          details={"something": "unknown"})
    report = Report(results={"mystery": result}, rows={"real": 3, "synthetic": 3, "holdout": None})
    figures = F.metric_figures(report, "mystery")
    assert len(figures) == 1 and "risk of each record" in figures[0].title
    check(figures[0])
    only_score = Report(results={"x": MetricResult(id="x", applicable=True, risk=0.2)}, rows={"real": 1})
    check(F.metric_figures(only_score, "x")[0])


def test_attack_rates_read_the_typed_rates():
    from privcore.metrics.details import AttackRates, Rate

    details = AttackRates(main=Rate(0.5, 0.1), baseline=Rate(0.1, 0.0), control=None, residual=None,
                          confidence=0.95, attack="linkability")
    assert F.attack_rates(details) == {"main": (0.5, 0.4, 0.6), "baseline": (0.1, 0.1, 0.1)}
    assert Rate(0.95, 0.1).interval == (0.85, 1.0)


def test_figures_are_chosen_by_details_type_not_by_metric_id():
    # Any metric whose details are attack rates gets the attack figure, whatever its id; a subclass of a
    # kind gets that kind's figures (dispatch along the MRO).
    from dataclasses import dataclass

    from privcore.metrics.details import AttackRates, Rate

    @dataclass(frozen=True)
    class MyAttack(AttackRates):
        extra: int = 0

    details = MyAttack(main=Rate(0.6, 0.05), baseline=Rate(0.1, 0.02), control=Rate(0.2, 0.05),
                       residual=Rate(0.5, 0.07), confidence=0.95, attack="mine", extra=3)
    result = MetricResult(id="my_attack", applicable=True, risk=0.5, interval=(0.43, 0.57), details=details)
    report = Report(results={"my_attack": result}, rows={"real": 10, "synthetic": 10, "holdout": 10})
    figures = F.metric_figures(report, "my_attack")
    assert [f.title for f in figures] == ["my_attack: attack success with 95% intervals"]
    check(figures[0])
    assert MetricOutput  # imported for the fallback tests' types


def test_figures_of_exact_match_metrics_explain_a_projection_that_cannot_be_built(monkeypatch):
    # CRP and HitR need no distance space, but their figures include the FAMD map: when the projection
    # is refused (an identifier-like column would blow it up), the map says so instead of raising.
    import privcore.engine.encoding
    from privcore.report.html import html_report

    monkeypatch.setattr(privcore.engine.encoding, "MAX_ENCODED_BYTES", 1000)
    real = pd.DataFrame({"a": np.arange(30.0), "id": [f"p{i}" for i in range(30)]})
    report = evaluate(real, real.copy(), Schema({"a": "numerical", "id": "categorical"}), metrics="crp,hitr")
    assert report["crp"].applicable and report["hitr"].applicable
    for metric_id in ("crp", "hitr"):
        maps = [f for f in F.metric_figures(report, metric_id) if "FAMD" in f.title]
        assert len(maps) == 1 and "'id'" in maps[0].caption
    assert "Common Row Proportion" in html_report({"copy": report})


def test_figures_and_html_of_a_table_whose_analysed_columns_are_all_constant():
    # Exact-match metrics still run; the FAMD map has no axis to draw and says so.
    from privcore.evaluation.interpret import nearest_records
    from privcore.report.html import html_report

    real = pd.DataFrame({"a": [1.0] * 300, "b": ["x"] * 300})
    report = evaluate(real, real.copy(), Schema({"a": "numerical", "b": "categorical"}), metrics="crp,hitr")
    assert report["crp"].applicable and report["hitr"].risk == 1.0
    maps = [f for f in F.metric_figures(report, "crp") if "FAMD" in f.title]
    assert len(maps) == 1 and "constant" in maps[0].caption
    assert "Common Row Proportion" in html_report({"copy": report})
    assert nearest_records(report, 0).shape[1] == 4  # the person, two synthetic neighbours, one real
