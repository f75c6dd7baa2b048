"""A finished evaluation can be pickled: the dashboard computes in worker processes and sends the reports
back to the server, where figures and the per-record explorer read them."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.report.figures import metric_figures


@pytest.mark.slow
def test_a_pickled_report_keeps_every_result_and_draws_the_same_figures():
    demo = load_scenario("noisy_copy", n=300)
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive)
    reuse: dict = {}
    report = evaluate(demo.real, demo.synthetic, schema, metrics="quick", holdout=demo.holdout,
                      progress=lambda fraction, message: None, reuse=reuse)
    copy = pickle.loads(pickle.dumps(report))
    assert list(copy) == list(report)
    for metric_id in report:
        a, b = report[metric_id], copy[metric_id]
        assert (a.risk == b.risk) or (a.risk is None and b.risk is None) or (np.isnan(a.risk) and np.isnan(b.risk))
        if a.per_record is not None:
            np.testing.assert_array_equal(a.per_record, b.per_record)
        before = [(f.fig.to_json(), f.caption, f.alt) for f in metric_figures(report, metric_id)]
        after = [(f.fig.to_json(), f.caption, f.alt) for f in metric_figures(copy, metric_id)]
        assert before == after, metric_id
    # Neither the progress callback nor the caller's reuse dict travels with it.
    assert copy.shared.progress is None and copy.shared._reuse is None
    assert report.shared.progress is not None and report.shared._reuse is reuse
