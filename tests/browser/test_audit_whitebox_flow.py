"""The Audit page's white-box attack in a real browser (issue 38 item 6): TabDDPM chosen with tiny settings in the
shared design, the white-box option shown and ticked, the audit run; its section states the threat model and
draws the per-model figure beside the records' one. PrivBayes, which has no loss, shows no such option."""

from __future__ import annotations

import re

import pytest
from browser_support import assert_clean, button, choose_option, screenshot, wait_idle
from test_audit_flow import open_audit_on_the_demo, set_number

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

#: The option's label (dashboard.audit.whitebox_view.OPTION_LABEL, repeated: the browser sees the words).
OPTION = "Also attack with the model's loss (white box)"


@pytest.mark.slow
def test_a_tiny_white_box_audit_of_tabddpm(server, page, guard):
    pytest.importorskip("torch", reason="privcore[tabddpm] (torch) is installed by requirements-dev.txt")
    main = open_audit_on_the_demo(server, page)
    assert OPTION not in main.inner_text()  # the page opens on PrivBayes: no loss, no option
    choose_option(page, "Generator to audit", "TabDDPM (diffusion)")
    main.get_by_text(re.compile(r"Estimated run time")).first.wait_for(timeout=120_000)
    # Tiny settings: each change is timed again on the table, so the cheapest first.
    for label, value in [("Training steps", 10), ("Diffusion steps", 4), ("Layer width", 16), ("Layers", 1),
                         ("Models", 8), ("Records audited", 40)]:
        set_number(page, label, value)
    option = page.locator("[data-testid=stCheckbox]").filter(has_text=OPTION)
    assert option.count() == 1 and option.locator("input[type=checkbox]").is_checked()
    main.get_by_text(re.compile(r"black-box and white-box attacks on every record")).first.wait_for(timeout=60_000)

    button(page, "Run audit").click()
    main.get_by_text("White-box attack: the model's loss", exact=True).wait_for(timeout=120_000)
    wait_idle(page)
    assert_clean(page)
    text = main.inner_text()
    assert "Threat model." in text and "the attacker has each trained model" in text
    assert "without one false accusation" in text
    charts = main.locator("[data-testid=stPlotlyChart]")
    charts.nth(2).wait_for()
    # Every record's AUC, every attack per trained model, then the white-box attack's TPR at FPR 0 per model.
    assert charts.count() == 3
    assert "Per trained model" in text
    screenshot(page, "audit-whitebox-tabddpm")
    guard.assert_local()
