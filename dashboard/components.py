"""Shared pieces of the Results and Learn pages: badges, score cards, explanations, figures, explorer.

Everything here draws; nothing computes a metric. Levels, the three questions and the record flags come
from :mod:`privcore.report.html`, figures from :mod:`privcore.report.figures`, so the dashboard and the exported HTML
report say the same thing. A verdict is always a word and an icon as well as a colour.
"""

from __future__ import annotations

import html
from typing import Mapping

import pandas as pd
import streamlit as st

from dashboard.metric_choice import without_cli_flags
from privcore.evaluation import KIND_WORDS, VERDICT_STYLE, VerdictRule
from privcore.evaluation import interpret as R
from privcore.evaluation.verdict import verdict
from privcore.metrics import (
    InferenceAttack,
    LinkabilityAttack,
    ReproducedIdentifiers,
    SinglingOutAttack,
    battery_ids,
    registry,
)
from privcore.report import figures as F

#: Plotly options for every chart: no Plotly logo link, no "edit in Chart Studio" (nothing leaves the machine).
PLOTLY_CONFIG = {"displaylogo": False, "showLink": False, "showSendToCloud": False, "showEditInChartStudio": False}


def badge_html(word: str, icon: str, colour: str, text_colour: str) -> str:
    """An inline badge: icon + word on a colour-blind-safe background."""
    return (
        f'<span style="display:inline-block;padding:0.1rem 0.6rem;border-radius:0.8rem;background:{colour};'
        f'color:{text_colour};font-weight:600;font-size:0.9rem;white-space:nowrap">'
        f'<span aria-hidden="true">{html.escape(icon)}</span> {html.escape(word)}</span>'
    )


def level_badge(level: R.Level, prefix: str = "") -> str:
    """The HTML badge of a risk level: its icon and word (after ``prefix``), in the level's colours."""
    return badge_html(f"{prefix}{level.word}", level.icon, level.colour, level.text_colour)


def answer_badge(answer: R.Answer) -> str:
    """The HTML badge of an answer: its icon and word in the answer's colours."""
    return badge_html(answer.word, answer.icon, answer.colour, answer.text_colour)


def markdown_html(text: str) -> None:
    """Show ``text`` as Markdown with HTML allowed."""
    st.markdown(text, unsafe_allow_html=True)


def level_legend() -> None:
    """One line explaining the three levels."""
    lo, hi = R.LEVEL_BANDS
    markdown_html(
        " ".join(level_badge(R.LEVELS[k]) for k in ("low", "moderate", "high"))
        + f"&nbsp; A card leads with its risk above the reference: at most {lo:g}, at most {hi:g}, or more "
        "(risk runs from 0, complete privacy, to 1). The reference is a fresh sample: real people the generator "
        "never saw (the holdout, cut to the same size), scored as if they were the synthetic table; without a "
        "holdout, the metric's chance level or 0. A membership attack leads with its AUC (0.5 = a coin flip). A "
        "metric whose fresh sample scores the maximum says it cannot tell on this data. Utility runs the other way "
        "(higher is better): a share of what a fresh sample keeps."
    )


def show_figure(figure: F.Figure, key: str) -> None:
    """A Plotly figure with its one-sentence caption and its text alternative."""
    st.plotly_chart(figure.fig, key=key, alt=figure.alt, config=PLOTLY_CONFIG, theme=None)
    st.caption(figure.caption)
    with st.expander("Text description of this figure"):
        st.write(figure.alt)


def _fmt(x: float | None, digits: int = 3, sign: bool = False) -> str:
    if x is None:
        return "—"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def card_anchor(metric_id: str) -> str:
    """The HTML id of a metric's score card (the verdict links to it)."""
    return f"card-{metric_id}"


def verdict_panel(table: str, report, rule: VerdictRule) -> None:
    """The answer for one synthetic table: verdict badge, headline, evidence and what was not tested.

    The evidence is the three strongest pieces, with links to their cards.
    """
    v = verdict(report, rule)
    word, icon, colour, text_colour = VERDICT_STYLE[v.level]
    with st.container(border=True):
        markdown_html(f"<strong>{html.escape(table)}</strong> &nbsp; {badge_html(word, icon, colour, text_colour)}")
        st.markdown(v.headline)
        if v.next_step:
            st.markdown(f":material/upload_file: **{v.next_step}**")
        if v.guarantee is not None:
            st.markdown(f":material/verified_user: {v.guarantee.text}")
        if v.utility is not None:
            icon = ":material/warning:" if v.utility.keeps_little else ":material/insights:"
            st.markdown(f"{icon} {v.utility.text}")
        for e in v.evidence:
            weight = KIND_WORDS.get(e.kind, e.weight)
            st.markdown(f"- {e.text} *({weight}; [see its card](#{card_anchor(e.metric)}))*")
        if v.not_tested:
            with st.expander(f"Not tested ({len(v.not_tested)})", icon=":material/help:"):
                for line in v.not_tested:
                    st.write(without_cli_flags(line))
        columns_panel(getattr(report, "columns", None) or [])


def columns_panel(entries) -> None:
    """Every uploaded column: analysed with its kind, checked for copied values, or left out with the reason."""
    if not entries:
        return
    counts = {status: sum(e.status == status for e in entries) for status in ("analysed", "checked", "left out")}
    title = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
    with st.expander(f"Columns ({title})", icon=":material/view_column:"):
        lines = []
        for e in entries:
            if e.status == "analysed":
                said = f"{e.kind}, {e.role}" + (f" ({e.reason})" if e.reason else "")
            elif e.status == "checked":
                said = f"{e.kind}: {e.reason}"
            else:
                said = f"left out: {e.reason}" + (" (to include it, tick Analyse on the Configure page and choose "
                                                  "its kind)" if e.include else "")
            lines.append(f"- **{e.column}** — {said}")
        st.markdown("\n".join(lines))


def verdict_rule_form(state, key: str = "verdict_rule") -> VerdictRule:
    """The rule behind the verdict, in words, with its thresholds editable; returns the rule in use.

    Its four privacy thresholds and two utility thresholds are editable.
    """
    default = VerdictRule()
    with st.expander("How the answer is reached (and its thresholds)", icon=":material/gavel:"):
        for line in VerdictRule(**state.get(key, {})).describe():
            st.markdown(f"- {line}")
        cols = st.columns(4)
        values = {}
        for col, (name, label) in zip(cols, (("decisive_at", "Attack: do not release above"),
                                             ("caution_at", "Attack: caution above"),
                                             ("supporting_at", "Member proxy test: caution above"),
                                             ("similarity_at", "Similarity: caution above"))):
            values[name] = col.number_input(label, min_value=-1.0, max_value=1.0, step=0.01,
                                            value=float(state.get(key, {}).get(name, getattr(default, name))),
                                            key=f"{key}::{name}", help="An excess over the metric's reference.")
        cols = st.columns(2)
        for col, (name, label) in zip(cols, (("useful_at", "Utility: keeps it at or above"),
                                             ("keeps_little_below", "Utility: keeps little below"))):
            values[name] = col.number_input(label, min_value=0.0, max_value=2.0, step=0.05,
                                            value=float(state.get(key, {}).get(name, getattr(default, name))),
                                            key=f"{key}::{name}",
                                            help="A share of what a fresh sample of real people keeps (1 = all). "
                                                 "Utility never changes the privacy answer.")
        state[key] = values
    return VerdictRule(**values)


def score_card(metric_id: str, result) -> None:
    """A bordered card that leads with the excess over the reference and its level.

    The reference is the fresh sample, else the chance level; the level is shown as word + icon + colour. The raw risk,
    baseline and interval come second. A metric that cannot tell on this data (its fresh sample scores the maximum) says
    so, with the reason, instead of a level.
    """
    a = R.assess(metric_id, result)
    with st.container(border=True):
        markdown_html(f'<span id="{card_anchor(metric_id)}"></span><strong>{html.escape(a.name)}</strong>')
        if not a.applicable:
            markdown_html(level_badge(a.level))
            st.caption(f"Not computed: {without_cli_flags(a.reason) if a.reason else 'no reason given'}")
            return
        if a.utility is not None:  # a utility measure: higher is better, read against a fresh sample
            markdown_html(f"{level_badge(a.level, 'Utility: ')} &nbsp; <span style='font-size:1.5rem;"
                          f"font-weight:700'>{html.escape(a.excess_text)}</span> {html.escape(a.against)}")
            st.caption(a.utility.describe())
            if result.warnings:
                with st.expander(f"{len(result.warnings)} warning(s)", icon=":material/warning:"):
                    for w in result.warnings:
                        st.write(w)
            return
        if a.cannot_tell:
            markdown_html(level_badge(a.level))
            st.markdown(f"Cannot tell on this data: {a.cannot_tell}")
        else:
            # "of real people" is said once, in the legend above the cards, not on each of them.
            against = a.against.replace(FRESH_SAMPLE_WORDS, "above a fresh sample", 1)
            markdown_html(f"{level_badge(a.level, 'Risk level: ')} &nbsp; <span style='font-size:1.5rem;"
                          f"font-weight:700'>{html.escape(a.excess_text)}</span> {html.escape(against)}")
        lines = [f"Risk {_fmt(a.risk)}"]
        if a.baseline is not None:
            lines.append(f"fresh-sample baseline {_fmt(a.baseline)}")
        elif R.reference_level(metric_id) is not None:
            lines.append(f"chance level {R.reference_level(metric_id):g} (no holdout baseline)")
        if result.interval is not None:
            lines.append(f"95% interval {_fmt(result.interval[0])} – {_fmt(result.interval[1])}")
        compared = a.size_match is not None and not a.cannot_tell
        if compared and a.excess_interval is not None:
            half = (a.excess_interval[1] - a.excess_interval[0]) / 2
            lines.append(f"chance alone reaches ±{half:.3f}")
        # The raw numbers, the comparison and the warnings on demand: one line when closed, its label the raw risk.
        label = " · ".join([f"Risk {_fmt(a.risk)}", DETAILS]
                           + ([f"{len(result.warnings)} warning(s)"] if result.warnings else []))
        with st.expander(label, icon=":material/warning:" if result.warnings else ":material/info:"):
            st.caption(" · ".join(lines))
            if compared:
                st.caption(f"Sizes compared: {a.size_match.describe()}")
            for w in result.warnings:
                st.write(w)


#: How a card's reference starts when it is a fresh sample (interpret.Assessment.against); the cards shorten it.
FRESH_SAMPLE_WORDS = "above a fresh sample of real people"
#: The label of a card's raw numbers, comparison and warnings (behind one expander, after the raw risk).
DETAILS = "details"


def score_cards(report, columns: int = 3) -> None:
    """Every metric's card, grouped by family in registry order."""
    by_family: dict[str, list[str]] = {}
    for mid in report:
        try:
            family = registry.get(mid).family
        except KeyError:
            family = "Other"
        by_family.setdefault(family, []).append(mid)
    for family in [*registry.FAMILIES, "Other"]:
        ids = by_family.get(family)
        if not ids:
            continue
        st.subheader(registry.family_heading(family))
        # The strongest membership attack speaks for the attacks it is chosen from (as in the answer): their cards
        # come on demand, so that the page leads with one number per finding.
        chosen_from = [m for m in ids if m in battery_ids()] if "mia_best" in ids and report["mia_best"].applicable \
            else []
        _card_grid([m for m in ids if m not in chosen_from], report, columns)
        if chosen_from:
            with st.expander(f"The {len(chosen_from)} membership attacks the strongest one is chosen from",
                             icon=":material/stacks:"):
                _card_grid(chosen_from, report, columns)


def _card_grid(ids: list[str], report, columns: int) -> None:
    for start in range(0, len(ids), columns):
        cols = st.columns(columns)
        for col, mid in zip(cols, ids[start:start + columns]):
            with col:
                score_card(mid, report[mid])


def side_by_side(reports: Mapping[str, object]) -> pd.DataFrame:
    """Metrics × synthetic tables: excess over the reference, level word, risk and baseline, for a table view."""
    ids = list(dict.fromkeys(mid for rep in reports.values() for mid in rep))
    rows = []
    for mid in ids:
        row = {"metric": F.metric_name(mid)}
        for name, rep in reports.items():
            if mid not in rep:
                continue
            a = R.assess(mid, rep[mid])
            if a.utility is not None:  # a utility measure: its score relative to a fresh sample, in the same columns
                row[f"{name}: excess"] = a.utility.relative
                row[f"{name}: level"] = f"{a.level.icon} {a.level.word}"
                row[f"{name}: risk"] = None
                row[f"{name}: utility"] = a.utility.score
                continue
            row[f"{name}: excess"] = a.adjusted
            row[f"{name}: level"] = f"{a.level.icon} {a.level.word}"
            row[f"{name}: risk"] = a.risk
            if a.baseline is not None:
                row[f"{name}: baseline"] = a.baseline
        rows.append(row)
    return pd.DataFrame(rows)


def explanation_panel(metric_id: str) -> None:
    """"What this score means", the attack in numbered steps, blind spots and the note, verbatim."""
    try:
        info = registry.get(metric_id)
    except KeyError:
        st.info("No explanation is registered for this metric.")
        return
    e = info.explanation
    st.markdown("#### What this score means")
    st.markdown(f"**High:** {e.high}  \n**Low:** {e.low}")
    if registry.is_utility(info):  # a utility measure imitates no attack
        st.markdown(f"**What it measures.** {e.attack}")
        st.markdown(f"**What it compares.** {info.attacker_knows}")
    else:
        st.markdown(f"**The attack it imitates.** {e.attack}")
        st.markdown(f"**What the attacker is assumed to know.** {info.attacker_knows}")
    st.markdown("\n".join(f"{i}. {step}" for i, step in enumerate(e.steps, start=1)))
    st.markdown(f"**Blind spots.** {e.blind_spots}")
    if e.note:
        st.markdown(f"**Note.** {e.note}")
    st.caption(f"Raw value: {info.raw_meaning} Reference: {info.reference}")


def question(title: str, answer: R.Answer) -> None:
    """One of the three questions, answered with word + icon + colour and the reasoning."""
    with st.container(border=True):
        st.markdown(f"**{title}**")
        markdown_html(answer_badge(answer))
        st.caption(answer.text)
        marks = {"ok": "✓", "warn": "⚠", "fail": "✖"}
        if answer.checks:
            st.markdown("\n".join(f"- {marks[c.status]} {c.text}" for c in answer.checks))


def three_questions(report, metric_id: str, row: int, threshold: float) -> None:
    """Three answers side by side, for a person, for the dataset and for the metric.

    They answer "Is this person at risk?", "Is the dataset shareable?" and "Does this metric apply here?"; for a utility
    measure the same three, rephrased ("What does it lose most?", "Is the table useful?", "Does this measure apply
    here?").
    """
    cols = st.columns(3)
    if R.assess(metric_id, report[metric_id]).is_utility:
        with cols[0]:
            question("What does the synthetic table lose most?", R.what_it_loses(report, metric_id))
        with cols[1]:
            question("Is the table useful for this?", R.table_useful(metric_id, report[metric_id]))
        with cols[2]:
            question("Does this measure apply here?", R.metric_applies(report, metric_id))
        return
    with cols[0]:
        question(f"Is this person (real row {row}) at risk?", R.person_at_risk(report, metric_id, row))
    with cols[1]:
        question("Is the dataset shareable?", R.dataset_shareable(metric_id, report[metric_id], threshold))
    with cols[2]:
        question("Does this metric apply here?", R.metric_applies(report, metric_id))


def record_flag_table(report, row: int) -> pd.DataFrame:
    """For one real record: each per-person metric's value and whether it flags the record."""
    rows = []
    for mid in report:
        res = report[mid]
        if not res.applicable or res.per_record is None:
            continue
        answer = R.person_at_risk(report, mid, row)
        if answer.verdict == "unknown":
            continue
        rows.append({"metric": F.metric_name(mid), "verdict": f"{answer.icon} {answer.word}", "how": answer.text})
    return pd.DataFrame(rows)


def disagreement_panel(report, key: str) -> None:
    """Which metrics flag which records: counts, the overlap heatmap and the most common patterns."""
    flags = R.record_flags(report)
    cannot_tell = R.cannot_tell_metrics(report)
    if cannot_tell:
        st.caption("Left out because they cannot tell on this data (a fresh sample of real people would be flagged "
                   "as much): " + "; ".join(f"{F.metric_name(m)}" for m in cannot_tell) + ".")
    if flags.shape[1] < 2:
        st.info("At least two metrics with per-person values are needed to compare them.")
        return
    st.caption("A person counts as flagged by a metric when its own per-person value says so (the rule is shown for "
               "each metric in the table above). The attacks test a sample of people, so they cannot flag the others.")
    totals = flags.sum().sort_values(ascending=False)
    st.markdown("People flagged by each metric: " + ", ".join(f"{name} **{int(n):,}**" for name, n in totals.items()))
    show_figure(F.flag_counts(flags), key=f"{key}-counts")
    show_figure(F.flag_overlap(flags), key=f"{key}-overlap")
    patterns = R.disagreements(flags)
    if patterns.empty:
        st.success("Every metric agrees on every person.", icon=":material/check_circle:")
    else:
        st.markdown("**Most common disagreements** (people flagged by some metrics and not others)")
        st.dataframe(patterns.head(15), hide_index=True, width="stretch")


def worked_computation(report, metric_id: str, row: int) -> None:
    """The metric's own numbers for one real record, and its nearest neighbours where distances matter."""
    per_record, constants = R.worked_computation(report, metric_id, row)
    res = report[metric_id]
    if res.per_record_unit == "synthetic":
        st.caption("This metric is computed per synthetic record; the explorer shows the synthetic records nearest "
                   "to this person below.")
    if not per_record.empty:
        st.markdown(f"**This record's numbers in {F.metric_name(metric_id)}'s computation**")
        st.dataframe(per_record, hide_index=True, width="stretch")
    if not constants.empty:
        with st.expander("Constants of the same computation"):
            st.dataframe(constants, hide_index=True, width="stretch")
    space = registry.get(metric_id).space
    if space is not None and report.shared is not None:
        label = {"E": "the encoded space E", "phi": "the FAMD projection Φk",
                 "E_idscore": "IdScore's entropy-weighted space"}.get(space, space)
        try:
            table = R.nearest_records(report, row, space)
        except KeyError:
            return
        st.markdown(f"**Nearest records in {label}** (the distances this metric compares)")
        st.dataframe(table, width="stretch")


def attack_details(report, metric_id: str, limit: int = 10) -> None:
    """What an attack actually did, from its own details.

    That is the singling-out descriptions that worked, the inference guesses, the links made.
    """
    result = report[metric_id]
    if not result.applicable:
        return
    details = result.details
    if isinstance(details, ReproducedIdentifiers):
        st.markdown("**What was searched, and how many were found** (rates weigh each person by how rare their "
                    "values are among real people)")
        st.dataframe(pd.DataFrame({
            "values searched": details.checks, "members found": details.members_found,
            "of members": details.members_checked, "holdout found (chance)": details.holdout_found,
            "of holdout": details.holdout_checked}), hide_index=True, width="stretch")
        if details.examples:
            st.caption("Members found, masked: " + "; ".join(details.examples))
        return
    if isinstance(details, SinglingOutAttack):
        worked = [q for q in details.queries if q.get("real_success")]
        st.markdown(f"**Descriptions written from the synthetic data that fit exactly one real person** "
                    f"({len(worked)} of {len(details.queries)})")
        if worked:
            st.dataframe(
                pd.DataFrame([{"description": q["query"], "singles out real row": q.get("real_row"),
                               "also fits exactly one holdout person": q.get("control_success")}
                              for q in worked[:limit]]),
                hide_index=True, width="stretch")
        return
    main = getattr(details, "attack_main", None)
    if isinstance(details, InferenceAttack) and main:
        st.markdown(f"**The attacker's guesses of '{details.secret}'** (first {limit} attacks on training records)")
        st.dataframe(pd.DataFrame({
            "real row": main["targets"][:limit], "true value": main["secrets"][:limit],
            "guess from the nearest synthetic record": main["guesses"][:limit],
            # share of the equally close synthetic records whose value is right (1 or 0 without ties)
            "chance right": main["success"][:limit]}), hide_index=True, width="stretch")
    elif isinstance(details, LinkabilityAttack) and main:
        aux = details.aux_cols or [[], []]
        st.markdown(f"**Linking attempts** (first {limit}): the attacker knows {', '.join(map(str, aux[0]))} from one "
                    f"source and {', '.join(map(str, aux[1]))} from another")
        st.dataframe(pd.DataFrame({
            # the chance of a correct link over every way of breaking ties (1 or 0 without ties)
            "real row": main["targets"][:limit], "chance linked correctly": main["linked"][:limit]}),
            hide_index=True, width="stretch")
