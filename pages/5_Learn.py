"""Learn page: guided lessons on the built-in demo scenarios.

Each lesson runs a few metrics on a small demo sample, caches the result in this session and shows short text,
one figure and a takeaway (lessons 3 and 5 use :mod:`dashboard.learn_lab`). Works without uploaded data.
"""

import streamlit as st

from dashboard import components as C
from dashboard import learn_lab as L
from dashboard import learn_reconstruction as RL
from dashboard import learn_related as RT
from dashboard import learn_tradeoff as T
from dashboard import membership_view as MV
from dashboard.lab.view import COMPARE_PAGE
from dashboard.page_setup import AUDIT_PAGE, DATA_PAGE, setup_page
from privcore import Schema, evaluate
from privcore.demo import SCENARIOS, load_scenario
from privcore.evaluation import interpret as R
from privcore.metrics import registry
from privcore.report import figures as F
from privcore.report import lab_figures as LF
from privcore.report import reconstruction_figures as RF
from privcore.report import tradeoff_figures as TF

N = 1000  # people per demo table: small enough for a few seconds per lesson
setup_page("Learn", icon=":material/school:")
state = st.session_state
cache = state.setdefault("learn_cache", {})


def run(scenario: str, metric_ids: list[str]):
    """Evaluate the registered ones of ``metric_ids`` on a demo scenario, once per session."""
    ids = [m for m in metric_ids if m in registry.metric_ids()]
    key = (scenario, tuple(ids))
    if key not in cache:
        with st.spinner(f"Running {len(ids)} metrics on the “{SCENARIOS[scenario].title}” demo…"):
            demo = load_scenario(scenario, n=N)
            schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive, seed=demo.seed)
            cache[key] = (demo, evaluate(demo.real, demo.synthetic, schema, metrics=ids, holdout=demo.holdout))
    return cache[key]


def cached(key: tuple, message: str, compute):
    """``compute()`` once per session under ``key`` (a lab-based lesson), with a spinner the first time."""
    if key not in cache:
        with st.spinner(message):
            cache[key] = compute()
    return cache[key]


def takeaway(text: str) -> None:
    """Show a lesson's takeaway ``text`` in a green box with a light bulb."""
    st.success(f"**Takeaway.** {text}", icon=":material/lightbulb:")


st.title("Learn: how privacy attacks on synthetic data work")
st.markdown(
    f"Eight short lessons on the built-in demo: samples of {N:,} people from the public UCI Adult census "
    "table, synthetic tables made by deliberately simple generators, and a holdout of people the generators "
    "never saw. Every number below is computed live by the same code as the Results page."
)
if not state["tables"].ready:
    st.info("These lessons need no data of your own. To evaluate your own tables, load them on the Data page.",
            icon=":material/upload_file:")
    st.page_link(DATA_PAGE, label="Go to the Data page", icon=":material/arrow_forward:")

LESSONS = [
    "1 · What an attacker knows",
    "2 · Why an exact copy is caught by everything",
    "3 · Rare values slip past distance metrics",
    "4 · Passing a distance test is not privacy",
    "5 · Which metric would have caught this?",
    "6 · Private because useless",
    "7 · Reconstruction, or inference from the population?",
    "8 · People, not rows",
]
lesson = st.radio("Lesson", LESSONS, horizontal=True, key="learn_lesson")
st.divider()

if lesson == LESSONS[0]:
    st.header("What an attacker knows")
    demo, report = run("noisy_copy", ["cvp"])
    columns = ["gender", "age", "race", "marital-status", "occupation", "native-country", "education"]
    row, steps = F.narrowing_steps(demo.real, columns)
    person = demo.real.iloc[row]
    facts = [s[0].removeprefix("+ ") for s in steps[1:]]
    st.markdown(
        "Attacks on synthetic data need no names. They start from what someone could plausibly know about a "
        "person (a neighbour's age, job, country of birth) and ask what the synthetic table adds to it. "
        f"Take person **{row}** of the training data:"
    )
    st.dataframe(demo.real.iloc[[row]], width="stretch")
    C.show_figure(F.narrowing(steps, title=f"How knowing more about person {row} narrows the crowd"),
                  key="learn-narrowing")
    unique_after = next(i for i, s in enumerate(steps) if s[1] == 1)
    st.markdown(
        f"**Singling out.** Knowing {', '.join(facts[:unique_after])}, only one of {N:,} people in the training data "
        "fits. If the synthetic data lets an attacker write down a description that fits exactly one real "
        "person, that person is *singled out*, even without a name: whoever later learns those facts about "
        "them learns everything else in the record."
    )
    st.markdown(
        f"**Linkability.** Suppose one source (say, a sports club list) gives this person's age ({person['age']}), "
        f"gender and race, and another (a job site) gives their occupation ({person['occupation']}) and "
        f"education ({person['education']}). The attacker finds the synthetic record closest to each piece; if "
        "both pieces point to the same synthetic record, they conclude that the two pieces belong to one "
        "person: the records are *linked*."
    )
    near = R.nearest_records(report, row, "E")
    nearest_syn = near.columns[1]
    guess, truth = near.loc["income", nearest_syn], near.iloc[:, 0]["income"]
    st.markdown(
        f"**Inference.** The attacker knows everything about person {row} except their income, and looks up the "
        f"closest record in a *noisy copy* of the training data: {nearest_syn}. It says income **{guess}**; the "
        f"person's true income is **{truth}**, so the guess is {'right' if guess == truth else 'wrong'}. An "
        "inference attack repeats this for many people and counts the right guesses, then compares with "
        "guessing from the most common income alone."
    )
    st.markdown(
        "**What \"closest\" means.** The distance is measured over *every* column, not only the few an eye "
        "goes to first. Each number is scaled by its range in the real table (so 10 years of age count "
        "as much as 10 % of the age range), and a different category or yes/no value counts in full. The "
        "table shows, for the two closest synthetic records, how much each column adds to the squared distance; "
        "the distance is the square root of the sum."
    )
    breakdown = R.distance_breakdown(report, row, "E")
    st.dataframe(breakdown, width="stretch", height=35 * (len(breakdown) + 1) + 3)
    st.caption(L.closest_sentence(breakdown))
    takeaway("An attacker needs no name: a few ordinary facts can single a person out, link two records about "
             "them, or reveal a hidden value. Each attack only counts as a risk when it beats a baseline: random "
             "guessing, and the same attack against people who were not in the training data.")

elif lesson == LESSONS[1]:
    st.header("Why an exact copy is caught by everything")
    ids = ["crp", "cvp", "auth", "dcr", "nndr", "hitr", "ims_test", "dcr_test", "mia_distance",
           "singling_out_univariate", "inference"]
    _, copy = run("exact_copy", ids)
    _, fresh = run("fresh_sample", ids)
    st.markdown(
        f"**{SCENARIOS['exact_copy'].title}.** {SCENARIOS['exact_copy'].description} For comparison, "
        f"**{SCENARIOS['fresh_sample'].title.lower()}**: real people who were in neither the training data nor "
        "the holdout, which is what a perfect generator would produce."
    )
    C.show_figure(F.scores_chart({"Exact copy": copy, "Fresh sample (ideal)": fresh}), key="learn-copy")
    high = [F.metric_name(m) for m in copy if copy[m].risk is not None and copy[m].risk >= 0.5]
    scored = [m for m in copy if copy[m].risk is not None]
    st.markdown(
        f"{len(high)} of the {len(scored)} metrics give the exact copy a risk of 0.5 or more. Each sees the copy "
        "its own way: every real person has a synthetic record at distance 0 (DCR, CVP, NNDR), every row is "
        "repeated verbatim (CRP, IMS), and a membership attacker who finds a record at distance 0 knows the "
        "person was in the training data. The fresh sample stays low on the metrics that compare against a "
        "baseline; on the others, its score is the level any data about similar people would reach."
    )
    takeaway("Copying training records gives no privacy, and any metric that misses an exact copy is broken. But "
             "catching a copy is the easy case: the next lessons show leaks that are much harder to see.")

elif lesson == LESSONS[2]:
    st.header("Rare values slip past distance metrics; singling out can catch them")
    ids = ["dcr", "cvp", "auth", "dcr_test", "mia_distance", "singling_out_univariate"]
    demo, report = run("column_resampler", ids)
    st.markdown(f"**{SCENARIOS['column_resampler'].title}.** {SCENARIOS['column_resampler'].description}")
    rare = F.rare_values_copied(demo.real, demo.synthetic, list(demo.types), max_count=1)
    per_column = [{"column": c, "rare": int(len(g)), "copied": int((g["synthetic rows"] > 0).sum())}
                  for c, g in rare.groupby("column", sort=False)]
    C.show_figure(F.rare_values(per_column, title="Values only one real person has, and how many reappear"),
                  key="learn-rare")
    copied = rare[rare["synthetic rows"] > 0]
    st.markdown(
        f"{len(copied)} values that exactly one real person has reappear in the synthetic table. For example:")
    st.dataframe(copied.head(8), hide_index=True, width="stretch")
    rows = [{"metric": F.metric_name(m), "risk": report[m].risk, "fresh-sample baseline": report[m].baseline,
             "level": f"{R.assess(m, report[m]).level.icon} {R.assess(m, report[m]).level.word}"}
            for m in report if report[m].risk is not None]
    st.markdown("What the metrics say about this table:")
    st.dataframe(rows, hide_index=True, width="stretch")
    st.markdown(
        "Distance metrics compare whole records. A synthetic row that carries one person's unusual capital gain "
        "is, in every other column, a random mix of other people, so it sits far from that person and the "
        "distance metrics call it safe. Singling out looks at one column at a time: a description such as "
        "*capital-gain = 34095* that fits exactly one real person is enough."
    )
    if "singling_out_univariate" in report and report["singling_out_univariate"].applicable:
        queries = [q for q in report["singling_out_univariate"].details.queries if q["real_success"]]
        st.markdown(f"The univariate singling-out attack wrote {len(queries)} description(s) from the synthetic "
                    "data that fit exactly one training record; the first few:")
        st.dataframe([{"description": q["query"], "singles out real row": q["real_row"],
                       "also fits exactly one holdout person": q["control_success"]} for q in queries[:6]],
                     hide_index=True, width="stretch")
    else:
        st.info("The singling-out attack is not available in this installation; the table of copied rare values "
                "above shows what it would find.")
    st.markdown("#### Is that more than chance?")
    draws = cached(("resampler_draws", N), "Comparing several draws of the resampler with fresh real samples…",
                   lambda: L.resampler_draws(N))
    some = next(iter(draws.values()))
    st.markdown(
        f"One synthetic table is one draw, and a score moves from draw to draw. Here are {len(some.resampler)} draws "
        f"of the resampler (generator seeds 0 to {len(some.resampler) - 1}) next to {len(some.fresh)} fresh samples "
        f"of {N:,} real people the generator never saw:")
    st.markdown("\n".join(f"- {L.draws_sentence(F.metric_name(m), d)}" for m, d in draws.items()))
    st.markdown(
        "How much the resampler leaks this way depends on the size of the synthetic table: every synthetic row is "
        "another chance to copy a rare value. Lesson 5 makes the same per-column resampling on synthetic tables a "
        "third as large as the training data; see whether singling out still notices it there.")
    takeaway("No copied rows does not mean no leak: a rare value can single a person out on its own, and "
             "distance-based metrics, which average over all columns, do not see it. Before trusting an effect, "
             "check that it is more than chance: compare several draws with fresh real samples.")

elif lesson == LESSONS[3]:
    st.header("Passing a distance test is not privacy")
    ids = ["dcr_test", "nndr_test", "ims_test", "mia_distance"]
    demo, report = run("rare_leak", ids)
    description = SCENARIOS["rare_leak"].description.replace("(30 of 3,000)", f"({N // 100} of {N:,} here)")
    st.markdown(f"**{SCENARIOS['rare_leak'].title}.** {description}")
    if "dcr_test" in report and report["dcr_test"].applicable:
        details = report["dcr_test"].details
        C.show_figure(F.metric_figures(report, "dcr_test")[0], key="learn-proxy")
        st.markdown(
            f"The **DCR test** compares the {details.percentile:g}th percentile of the distances from synthetic "
            f"records to their closest training record ({details.p_synthetic:.3g}) with the same percentile for "
            f"the holdout ({details.p_holdout:.3g}). The copied rows are too few to move a percentile, so the "
            f"test **{'passes' if details.passes else 'fails'}**."
        )
    if "mia_distance" in report and report["mia_distance"].applicable:
        d = report["mia_distance"].details
        members, non = d.member_scores, d.nonmember_scores
        exposed = int((members > non.max()).sum())
        st.markdown(
            f"Yet a **membership-inference attack** that scores each person by how close the nearest synthetic "
            f"record is picks out {exposed} of {len(members):,} training members with a score higher than every one "
            f"of the {len(non):,} non-members: it accuses them and is never wrong. Averaged over everyone, its "
            f"ROC AUC is only {d.auc:.2f}, close to a coin flip; the damage is done to a few people, the "
            "rarest and easiest to re-identify."
        )
    st.markdown(
        "**Stronger evidence: attack the generator.** The test and the attack above look at one synthetic table. A "
        "*shadow-model* attack looks at the generator itself: it trains the generator many times with and without "
        "one real person, learns what that person's presence changes in the output, and is then scored on fresh "
        "outputs. It does not assume a leak shows up as a short distance, so it also finds the leaks that "
        "distance metrics let through. The “DCR delusion” study (Yao et al., 2025) ran it on thousands of "
        "synthetic tables that distance tests called private and still told whether unusual people were in the "
        "training data; passing the DCR test made no difference to how well the attack did."
    )
    st.page_link(AUDIT_PAGE, label="Run this attack on your own data: the Audit page", icon=":material/policy:")
    st.subheader(MV.LEARN_LOW_FPR_TITLE)
    st.markdown(MV.LEARN_LOW_FPR)
    takeaway("A passing proxy test is not evidence of privacy. Judge the worst-off individuals, with attacks "
             "measured at low false-positive rates, not only averages.")

elif lesson == LESSONS[4]:
    st.header("Which metric would have caught this?")
    st.markdown(
        "The earlier lessons each showed one leak and a few metrics. The **metric lab** asks the question the other "
        "way round: it makes synthetic tables that leak on purpose, from no leak (fresh real people) to a strong "
        "leak, and checks which metric notices each leak, from which strength. Here it runs on the demo's "
        f"{N:,} real people with three leak types: *partial copies* (a share of the synthetic rows are real "
        "training rows, as in lesson 2), the *rare-record leak* (the most unusual training people copied into "
        "otherwise fresh data, as in lesson 4) and a *negative control* (each column resampled from the training "
        f"data on its own, as in lesson 3). Levels {', '.join(f'{v:g}' for v in L.LESSON_LEVELS)}; "
        f"{L.LESSON_SEEDS} seeds per level, and a level only counts as noticed when every seed beats every fresh "
        "sample of real people.")
    result = cached(("lesson_lab", N), "Running a small metric lab on the demo (a few seconds)…",
                    lambda: L.lesson_lab(N))
    C.show_figure(LF.detection_heatmap(result.to_dict()), key="learn-lab-detection")
    st.markdown("**Reading the heatmap, one leak at a time**")
    st.markdown("\n".join(f"- {line}" for line in L.walkthrough(result)))
    draws = cached(("resampler_draws", N), "Comparing several draws of the resampler with fresh real samples…",
                   lambda: L.resampler_draws(N))
    if draws["singling_out_univariate"].detected and \
            result.detection["singling_out_univariate"]["column_resample"] is None:
        st.markdown(
            "Notice the last line: singling out, which caught the per-column resampler in lesson 3, does not notice "
            "per-column resampling here. The lab's synthetic tables are a third as large as the training data, so "
            "fewer rare values are copied, and singling out's score on fresh real samples swings from seed to "
            "seed. A metric's verdict on one table is a single draw; the lab shows how reliably it notices a leak.")
    st.page_link(COMPARE_PAGE, label="Run the lab on your own table: the Compare-metrics page",
                 icon=":material/compare_arrows:")
    takeaway("No single metric catches every leak. Choose metrics for the leaks you fear, and test them on your own "
             "data: a metric that never notices a leak at full strength cannot vouch for its absence.")

elif lesson == LESSONS[5]:
    st.header("Private because useless")
    st.markdown(
        "Every lesson so far asked one question: does the synthetic table leak? A table can pass every privacy test "
        "and still be worthless, because the easiest way not to leak is to keep nothing. Here three demo tables are "
        "set against each other on both halves of the answer: how much an attacker learns about the people in the "
        "training data (across), and how much of what a fresh sample of real people keeps the table keeps too: each "
        "column's shape and the relations between columns (up).")
    reports = {}
    for scenario in T.LESSON_TABLES:
        _, report = run(scenario, T.LESSON_METRICS)
        reports[SCENARIOS[scenario].title] = report
    points = T.lesson_points(reports)
    C.show_figure(TF.tradeoff_figure(points, title="Three tables: what they leak and what they keep"),
                  key="learn-tradeoff")
    st.markdown("\n".join(f"- {line}" for line in T.lesson_lines(reports, points)))
    takeaway("Passing the privacy tests is half of the answer. Ask also what the table keeps: a table that keeps no "
             "relation between columns may be private only because it is useless. The Results page shows both for "
             "your own tables, in its Privacy and utility tab.")

elif lesson == LESSONS[7]:
    st.header("People, not rows: related tables")
    st.markdown(
        "Sensitive data is often a table of people and a table of their rows: patients and their visits, players and "
        "their seasons. Here a league of players: each synthetic league has its own players (birth year, country, "
        "build), and in one of them every player carries the whole career of a training player (each season's year, "
        "team and games). One season on its own is ordinary; a career of several is a combination few players share. "
        "The same quick evaluation runs per person (each player one record, their seasons summarised) and on the "
        "tables joined into one row per season.")
    results = cached(("related", RT.LESSON_PLAYERS), "Evaluating the leagues per person and row by row (about a "
                     "minute the first time)…", RT.lesson_results)
    C.show_figure(RT.lesson_figure(results), key="learn-related")
    st.markdown("\n".join(f"- {line}" for line in RT.lesson_lines(results)))
    takeaway("Evaluate people, not rows. Joined, a person with 40 rows counts 40 times and the attacks learn the "
             "people instead of the generator; per person, a fresh league passes and a copied career is caught. Load "
             "your own people and their rows on the Data page's \"Related tables\" tab.")
    st.page_link(DATA_PAGE, label="Go to the Data page", icon=":material/arrow_forward:")

else:
    st.header("Reconstruction, or inference from the population?")
    details = {}
    for scenario in RL.LESSON_TABLES:
        details[SCENARIOS[scenario].title] = cached(
            (f"reconstruction::{scenario}", N),
            f"Reconstructing the “{SCENARIOS[scenario].title}” demo (a second)…",
            lambda scenario=scenario: RL.lesson_details(scenario, N))
    known = next(iter(details.values())).key
    st.markdown(
        f"An attacker who knows a few facts about a person ({', '.join(known)}: their demographics and where they come "
        "from, the Configure page's preset \"Demographics and location\") looks up the synthetic record nearest to "
        "them on those facts and reads the rest of the record off it: education, occupation, income and so on. "
        "Guessing right is not yet a leak. Part of a record follows from the population (age and marital status "
        "already say something about a person's working hours and income), and a table of *other* real people would "
        "let anyone guess that much. The leak is what the synthetic table tells about the people it was made from "
        "**beyond** what it tells about others: so the same attack is run on the training people (members) and on "
        "real people who were not in the training data (non-members), and the difference is the *advantage*.")
    C.show_figure(RF.tables_figure(details, title="Reconstruction: members against other people"),
                  key="learn-reconstruction")
    st.markdown("\n".join(f"- {line}" for line in RL.lesson_lines(details)))
    takeaway("A good guess about a person is not a leak when anyone could make it from the population. Compare the "
             "people in the training data with people who were not: only the difference is what the synthetic table "
             "gave away. The Results page shows it per column, with the most exposed people, in its Reconstruction "
             "tab.")
