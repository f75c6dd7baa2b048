"""The Audit page in a real browser: the demo from the home page; the default audit (PrivBayes, the shared design)
as a newcomer runs it, its answer naming the generator in words; a tiny audit of an exact copy in the targeted design
(both chosen explicitly: the page opens on the shared design and PrivBayes), the verdict and the figure."""

from __future__ import annotations

import re
import time

import pytest
from browser_support import (
    assert_clean,
    button,
    choose_option,
    go_to,
    missing_page_xfail,
    open_app,
    screenshot,
    wait_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(180)]

#: The generator the page opens on, as the page lists it, and its machine name (never in the answer).
DEFAULT_LABEL, DEFAULT_ID = "Bayesian network (PrivBayes)", "privbayes"
#: ms: the default audit of the demo must answer within this. It takes about 17 s in one process on an idle 2-core
#: machine (the target, under a minute, is measured there, not here); 45 s was seen with the cores shared 3 ways.
DEFAULT_AUDIT_TIMEOUT = 120_000


def choose_design(page, label: str) -> None:
    """Click the Design radio's option ``label`` and wait for the rerun."""
    design = page.locator("[data-testid=stRadio]").filter(
        has=page.locator("[data-testid=stWidgetLabel]", has_text="Design"))
    assert design.count() == 1, f"expected one Design radio, found {design.count()}"
    design.get_by_text(label, exact=True).click()
    wait_idle(page)
    assert design.locator("input[type=radio]:checked").count() == 1


def open_audit_on_the_demo(server, page):
    """The demo from the home page, then the Audit page once its run-time estimate is shown; its main part."""
    open_app(page, server, "Home")
    button(page, "Start with demo data").click()
    page.wait_for_url(re.compile(r"/Results/?(\?.*)?$"))
    wait_idle(page)
    go_to(page, "Audit")
    assert_clean(page)
    main = page.locator("[data-testid=stMain]")
    # The estimate is measured on the table (trial fits in the worker pool): wait for it rather than read at once.
    main.get_by_text(re.compile(r"Estimated run time")).first.wait_for()
    return main


def set_number(page, label: str, value: int) -> None:
    """Type ``value`` into the ``st.number_input`` labelled ``label`` and wait for the rerun."""
    box = page.locator("[data-testid=stNumberInput]").filter(
        has=page.locator("[data-testid=stWidgetLabel]", has_text=label))
    assert box.count() == 1, f"expected one number input labelled {label!r}, found {box.count()}"
    field = box.locator("input")
    field.fill(str(value))
    field.press("Enter")
    wait_idle(page)
    assert field.input_value() == str(value)


@missing_page_xfail("Audit")
@pytest.mark.timeout(240)
def test_the_default_audit_is_privbayes_and_its_answer_names_it_in_words(server, page, guard):
    main = open_audit_on_the_demo(server, page)
    text = main.inner_text()
    assert "Every record at once (shared models)" in text and "Models" in text  # the shared design, its budget
    generator = main.locator("[data-testid=stSelectbox] input[role=combobox]").first
    assert generator.input_value() == DEFAULT_LABEL  # a real generator, listed by its name in words

    started = time.monotonic()
    button(page, "Run audit").click()  # the default budget, as a newcomer runs it
    answer = main.locator("[data-testid=stAlert]").filter(has_text=DEFAULT_LABEL).filter(
        has_text=re.compile(r"not private|may leak|leaks membership|could not train"))
    answer.first.wait_for(timeout=DEFAULT_AUDIT_TIMEOUT)
    seconds = time.monotonic() - started
    wait_idle(page)
    assert_clean(page)
    verdict = answer.first.locator("[data-testid=stMarkdownContainer]").inner_text()  # without the icon's name
    assert verdict.strip().startswith(DEFAULT_LABEL) and DEFAULT_ID not in verdict, verdict
    assert "The attack says" in main.inner_text()
    screenshot(page, "audit-default-privbayes")
    print(f"default audit answered in {seconds:.1f} s")
    guard.assert_local()


@missing_page_xfail("Audit")
def test_tiny_audit_of_an_exact_copy_on_the_demo(server, page, guard):
    main = open_audit_on_the_demo(server, page)
    assert "Every record at once (shared models)" in main.inner_text() and "Models" in main.inner_text()
    choose_design(page, "A few targets (shadow models per target)")
    choose_option(page, "Generator to audit", "Exact copy (worst case)")  # listed by its name in words
    for label, value in [("Most vulnerable targets", 1), ("Random targets", 1), ("Shadow models per side", 4),
                         ("Evaluation models", 4)]:
        set_number(page, label, value)
    main.get_by_text(re.compile(r"Estimated run time: (under|about) [^.]+ for 24 generator fits")).wait_for()

    button(page, "Run audit").click()
    main.get_by_text(re.compile(r"Exact copy \(worst case\) is not private")).wait_for()
    wait_idle(page)
    assert_clean(page)
    chart = main.locator("[data-testid=stPlotlyChart]")
    chart.wait_for()
    assert chart.count() == 1 and chart.locator(".main-svg").count() >= 1
    text = main.inner_text()
    for expected in ("The proxy says", "The attack says", "Targets with AUC above 0.6", "The person at risk"):
        assert expected in text, expected
    # Under load the browser may draw the download button after the script has gone idle: wait for it.
    download = main.locator("[data-testid=stDownloadButton]").filter(has_text="JSON")
    download.first.wait_for()
    assert download.count() == 1
    screenshot(page, "audit-after-run")
    guard.assert_local()
