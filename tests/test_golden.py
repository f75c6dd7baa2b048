"""Before/after: every demo scenario reports and draws exactly what it did before the refactoring.

The stored snapshot (``tests/golden/before_declarations.json.gz``) was taken at commit 320299e, before
metric parameters, details and figures were declared per metric. Every metric's JSON-contract fields,
per-record risks and figure data (traces, axis titles, caption, alt text) must still be the same, to 10
significant digits.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from golden.snapshot import read, snapshot

BEFORE = Path(__file__).parent / "golden" / "before_declarations.json.gz"

#: Metrics deliberately changed after the snapshot, → why (their own tests pin the new behaviour).
CHANGED_METRICS = {
    "mia_calibrated": "issue 10: calibrated by the ratio of distances instead of their difference",
    "mia_domias": "issue 10: heavy-tailed kernels in E on every row, bandwidths by held-out likelihood",
}


@pytest.fixture(scope="module")
def now():
    return snapshot()


@pytest.fixture(scope="module")
def before():
    return read(BEFORE)


def test_same_scenarios_and_metrics(now, before):
    """Every scenario and metric of the snapshot is still there. Metrics registered after the snapshot (the
    membership battery of issue 14: mia_gen_lra, mia_classifier, mia_density_count, mia_dpi, mia_best)
    are not in it and are not compared; their own tests pin them."""
    assert sorted(now) == sorted(before)
    for scenario in before:
        missing = set(before[scenario]["metrics"]) - set(now[scenario]["metrics"])
        assert not missing, (scenario, sorted(missing))
        assert now[scenario]["rows"] == before[scenario]["rows"]
        assert now[scenario]["warnings"] == before[scenario]["warnings"]


@pytest.mark.parametrize("part", ["result", "per_record", "figures"])
def test_every_metric_unchanged(now, before, part):
    changed = []
    for scenario, content in before.items():
        for metric_id, old in content["metrics"].items():
            new = now[scenario]["metrics"].get(metric_id, {})
            if metric_id in CHANGED_METRICS:  # other numbers, the same figures
                if part == "figures" and [f["title"] for f in old["figures"]] != [f["title"] for f in new["figures"]]:
                    changed.append(f"{scenario}/{metric_id}: other figures")
                continue
            if part == "figures":
                old_titles = [f["title"] for f in old["figures"]]
                new_titles = [f["title"] for f in new.get("figures", [])]
                if old_titles != new_titles:
                    changed.append(f"{scenario}/{metric_id}: figures {old_titles} → {new_titles}")
                    continue
                for i, (a, b) in enumerate(zip(old["figures"], new["figures"])):
                    for key in a:
                        if a[key] != b.get(key):
                            changed.append(f"{scenario}/{metric_id}: figure {i} ({a['title']}) {key} differs")
            elif old[part] != new.get(part):
                changed.append(f"{scenario}/{metric_id}: {part} differs")
    assert not changed, "\n".join(changed[:40])

