"""The tables that help a reader weigh the accuracies, on small hand-built inputs: chance
levels and their lines in the accuracy figures, unparseable answers and refusals,
question sets that differ between rows, the construction funnel, the leakage audit and
the example questions."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from prescient.analysis.chance import chance_levels, option_counts
from prescient.analysis.examples import pick_examples
from prescient.analysis.failures import question_sets
from prescient.analysis.reading_report import (
    ANSWER_FAILURES,
    EXAMPLES,
    coverage_note,
    failures_line,
)
from prescient.benchmarks.daily_oracle.analysis.construction import (
    construction_funnel,
    leakage_audit,
)
from prescient.benchmarks.daily_oracle.figures import (
    fig3_closed_book,
    fig9_refusals_closed_book,
)
from prescient.benchmarks.daily_oracle.report import CONSTRUCTION_FUNNEL
from prescient.benchmarks.daily_oracle.time_panel import chance_level
from prescient.report.table_files import read_tables
from tests.fixtures.analysis.frames import score_rows, scores_frame
from tests.fixtures.analysis.settings import SEED, analysis_settings, run_analysis

SETTINGS = analysis_settings()


def _questions(scores: pd.DataFrame) -> pd.DataFrame:
    q = scores.drop_duplicates("question_id")[["question_id", "qtype", "resolution_date"]]
    q = q.reset_index(drop=True)
    q["question"] = [f"Will the <b>board</b> & council agree on item {i}?" for i in range(len(q))]
    q["choices"] = [
        ["Yes", "No"] if t == "tf" else ["Red", "Green", "Blue", "Grey"] for t in q["qtype"]
    ]
    q["answer_index"] = 0
    q["source"] = "daily_oracle"
    return q


def _scores() -> pd.DataFrame:
    """Model m: closed book TF c p w r, MC c p; gold TF c c c c, MC c c. Model small:
    closed book on the first two TF questions only (a sampled model)."""
    rows = score_rows("m", "closed_book", None, "2024-03-04", "tf", "cpwr")
    rows += score_rows("m", "closed_book", None, "2024-03-04", "mc", "cp")
    rows += score_rows("m", "gold", None, "2024-03-04", "tf", "cccc")
    rows += score_rows("m", "gold", None, "2024-03-04", "mc", "cc")
    rows += score_rows("small", "closed_book", None, "2024-03-04", "tf", "cw")
    frame = scores_frame(rows)
    frame["context_article_ids"] = [["a1"] if s == "gold" else [] for s in frame["setting"]]
    return frame


def _result():  # type: ignore[no-untyped-def]
    scores = _scores()
    articles = pd.DataFrame(
        {
            "article_id": ["a1"],
            "date": [dt.date(2024, 3, 1)],
            "title": ["Board <i>meets</i> council"],
        }
    )
    return run_analysis(scores, _questions(scores), articles, {}, SETTINGS, SEED)


def test_options_come_from_choices_then_probs_and_tf_has_two() -> None:
    raw = pd.DataFrame(
        {
            "question_id": ["t", "a", "b", "c"],
            "qtype": ["tf", "mc", "mc", "mc"],
            "probs": [None, None, [0.2, 0.3, 0.5], None],
        }
    )
    counts = option_counts(raw, None)
    assert counts["t"] == 2 and counts["b"] == 3
    assert pd.isna(counts["a"]) and pd.isna(counts["c"])
    with_choices = raw.assign(choices=[None, ["x"] * 5, ["x"] * 4, ["x"] * 3])
    assert option_counts(raw, with_choices).tolist() == [2, 5, 4, 3]


def test_chance_is_the_mean_of_one_over_the_options() -> None:
    scores = pd.DataFrame({"question_id": ["t", "a", "b"], "qtype": ["tf", "mc", "mc"]})
    options = pd.Series([2, 4, 3], index=["t", "a", "b"], dtype="Int64")
    levels = chance_levels(scores, options).set_index("qtype")
    assert levels.loc["tf", "chance"] == 0.5
    assert levels.loc["mc", "chance"] == pytest.approx((1 / 4 + 1 / 3) / 2)
    assert (levels.loc["mc", "min_options"], levels.loc["mc", "max_options"]) == (3, 4)
    unknown = chance_levels(scores, options.astype("Int64").where(options.index != "b"))
    assert np.isnan(unknown.set_index("qtype").loc["mc", "chance"])


def test_mc_questions_without_options_draw_no_line_and_say_so() -> None:
    scores = _scores()
    questions = _questions(scores).drop(columns="choices")
    result = run_analysis(scores, questions, None, {}, SETTINGS, SEED)
    assert chance_level(result.tables, "tf") == (0.5, "chance 50% (a guess among 2 options)")
    assert chance_level(result.tables, "mc") is None
    assert any(n.startswith("2 of the 2 MC questions have no choices") for n in result.notes)


def test_the_accuracy_figures_draw_the_labelled_chance_level() -> None:
    tables = _result().tables
    assert chance_level(tables, "tf") == (0.5, "chance 50% (a guess among 2 options)")
    assert chance_level(tables, "mc") == (0.25, "chance 25% (a guess among 4 options)")

    def horizontal(ax):  # type: ignore[no-untyped-def]
        return [
            float(line.get_ydata()[0])
            for line in ax.get_lines()
            if len(set(map(float, line.get_ydata()))) == 1 and len(line.get_ydata()) == 2
        ]

    fig = fig3_closed_book(tables)
    tf_ax, mc_ax = fig.axes[:2]
    assert 50.0 in horizontal(tf_ax) and 25.0 in horizontal(mc_ax)
    labels = [t.get_text() for t in tf_ax.get_legend().get_texts()]
    assert "chance 50% (a guess among 2 options)" in labels
    refusals = fig9_refusals_closed_book(tables)
    # the accuracy panels carry the line, the refusal-rate panels do not
    assert 50.0 in horizontal(refusals.axes[0]) and 25.0 in horizontal(refusals.axes[1])
    assert 50.0 not in horizontal(refusals.axes[2])


def test_unparseable_answers_and_refusals_are_counted_per_cell() -> None:
    failures = _result().tables["answer_failures"]
    cb = failures.query("model == 'm' and cell == 'closed_book'").set_index("qtype")
    # TF c p w r: one unparseable, one refusal, both wrong: 2 of 4
    assert cb.loc["tf", ["n", "n_parse_failed", "n_refused", "n_counted_wrong"]].tolist() == [
        4,
        1,
        1,
        2,
    ]
    assert cb.loc["tf", "counted_wrong_rate"] == 0.5
    assert cb.loc["mc", "parse_failure_rate"] == 0.5
    assert cb.loc["all", ["n", "n_counted_wrong"]].tolist() == [6, 3]
    gold = failures.query("model == 'm' and cell == 'gold'")
    assert (gold["n_counted_wrong"] == 0).all()
    line = failures_line({"answer_failures": failures})
    assert "m 0.0-50.0%" in line and "none for small" in line


def test_rows_over_different_questions_are_named_with_their_n() -> None:
    tables = _result().tables
    sets = tables["question_sets"]
    small = sets.query("model == 'small'").iloc[0]
    assert (small["n"], small["n_common"], small["n_any"]) == (2, 2, 4)
    note = coverage_note(tables)
    assert "TF rows cover different questions" in note
    assert "small closed book n=2" in note and "m gold article n=4" in note
    assert "2 of the 4 questions" in note
    assert "MC rows" not in note  # both MC rows hold the same two questions
    same = pd.DataFrame(
        {
            "model": ["m", "m", "k"],
            "setting": ["closed_book", "gold", "closed_book"],
            "rag_cutoff": "",
            "cell": ["closed_book", "gold", "closed_book"],
            "question_id": ["x", "x", "x"],
            "qtype": "tf",
        }
    )
    assert question_sets(same)["n_common"].tolist() == [1, 1, 1]
    assert coverage_note({"question_sets": question_sets(same)}) == ""


def _candidates() -> pd.DataFrame:
    """Two articles (one without questions: no new event), five candidates: two
    accepted (one flagged), one filtered out, one invalid, one dropped for leakage."""
    base = {"resolution_date": dt.date(2024, 1, 2), "leakage_flagged": None}
    rows = [
        {**base, "kind": "article", "article_id": "a", "status": "generated", "step": "generate"},
        {
            **base,
            "kind": "article",
            "article_id": "b",
            "status": "no_new_event",
            "step": "summary",
            "reason": "no_new_event: nothing new",
        },
    ]
    questions = [
        ("q1", "tf", "accepted", "filter", None, False, False),
        ("q2", "mc", "accepted", "filter", None, True, True),
        ("q3", "mc", "filtered_out", "filter", "below_threshold: total 9 < 13", None, None),
        ("q4", "tf", "invalid", "validate", "missing_answer", None, None),
        ("q5", "tf", "leakage_dropped", "leakage", "leakage: near_duplicate", False, True),
    ]
    for qid, qtype, status, step, reason, answer_leak, flagged in questions:
        rows.append(
            {
                **base,
                "kind": "question",
                "article_id": "a",
                "question_id": qid,
                "qtype": qtype,
                "status": status,
                "step": step,
                "reason": reason,
                "leak_answer_in_article_sibling": answer_leak,
                "leak_answer_in_day_sibling": False if flagged is not None else None,
                "leak_near_duplicate": qid == "q5" if flagged is not None else None,
                "leak_exact_duplicate": False if flagged is not None else None,
                "leak_contradictory_duplicate": False if flagged is not None else None,
                "leak_phrase": False if flagged is not None else None,
                "leakage_flagged": flagged,
            }
        )
    return pd.DataFrame(rows)


def test_the_funnel_counts_every_candidate_once() -> None:
    funnel = construction_funnel(_candidates(), 10, {"q1", "q9"}).set_index("stage", drop=False)
    by = {
        (r.stage, r.status, r.reason): (r.n, r.n_tf, r.n_mc) for r in funnel.itertuples(index=False)
    }
    assert by[("corpus", "", "")][0] == 10
    assert by[("articles", "", "")][0] == 2
    assert by[("article_outcome", "no_new_event", "no_new_event")][0] == 1
    assert by[("candidates", "", "")] == (5, 3, 2)
    assert by[("rejected", "filtered_out", "below_threshold")] == (1, 0, 1)
    assert by[("rejected", "invalid", "missing_answer")] == (1, 1, 0)
    assert by[("passed", "", "")] == (3, 2, 1)
    assert by[("leakage_dropped", "leakage_dropped", "")] == (1, 1, 0)
    assert by[("published", "accepted", "")] == (2, 1, 1)
    assert by[("evaluated", "", "")] == (1, 1, 0)  # q9 is another source's question
    shown = CONSTRUCTION_FUNNEL.display(funnel)
    row = shown.loc[shown["Reason"] == "below_threshold"].iloc[0]
    assert row["Stage"] == "candidates rejected: filtered_out at filter"
    assert row["Example"] == "total 9 < 13"  # the message without its reason kind
    assert shown.loc[shown["Reason"] == "missing_answer", "Example"].iloc[0] == ""


def test_the_leakage_audit_counts_each_flag_over_what_it_could_flag() -> None:
    audit = leakage_audit(_candidates()).set_index("flag")
    # audited: q1, q2, q5 (passed the filter); the answer flags over MC (q2) alone
    assert audit.loc["answer_in_article_sibling", ["n", "n_mc", "audited"]].tolist() == [1, 1, 1]
    assert audit.loc["answer_in_article_sibling", "share"] == 1.0
    assert audit.loc["near_duplicate", ["n", "n_tf", "audited"]].tolist() == [1, 1, 3]
    assert audit.loc["any", ["n", "audited"]].tolist() == [2, 3]
    assert audit.loc["any", "share"] == pytest.approx(2 / 3)
    none = _candidates().assign(leakage_flagged=None)
    assert leakage_audit(none).empty


def test_examples_are_a_seeded_draw_of_the_fullest_questions() -> None:
    scores = pd.DataFrame(
        {
            "question_id": ["x", "x", "y", "y", "z", "w"],
            "qtype": ["tf"] * 4 + ["tf", "mc"],
            "model": "m",
            "cell": ["closed_book", "gold"] * 2 + ["closed_book", "gold"],
        }
    )
    picked = pick_examples(scores, 1, SEED)
    assert picked[0] in {"x", "y"} and picked[1] == "w"  # z is in one cell only
    assert pick_examples(scores, 1, SEED) == picked
    # z (one row) comes after x and y (two rows each), whatever the seed
    assert pick_examples(scores, 5, SEED)[2:] == ["z", "w"]
    assert pick_examples(scores, 5, SEED + 1)[2:] == ["z", "w"]
    assert pick_examples(scores, 0, SEED) == []


def test_examples_show_answers_titles_and_unreadable_replies() -> None:
    table = _result().tables["examples"]
    assert set(table["qtype"]) == {"tf", "mc"}
    # three TF (the two small also answered first) and both MC (analysis.examples)
    assert table["example"].nunique() == 5
    first_two = table.loc[table["example"] <= 2, "question_id"]
    assert set(first_two) == {"q-tf-2024-03-04-0", "q-tf-2024-03-04-1"}
    again = _result().tables["examples"]
    pd.testing.assert_frame_equal(table, again)
    gold_titles = table.query("row == 'articles' and cell == 'gold'")["shown"]
    assert set(gold_titles) == {"1. Board <i>meets</i> council"}
    answers = table.query("row == 'answer' and model == 'm' and cell == 'closed_book'")
    parse = answers.loc[answers["shown"].str.startswith("unreadable")]
    assert set(parse["shown"]) == {"unreadable: “??”"} and not parse["correct"].any()
    mc = answers.loc[answers["qtype"] == "mc"]
    assert "(a) Red" in set(mc["shown"])
    shown = EXAMPLES.display(table)
    first = shown.iloc[0]
    assert first["Model"] == "articles in the prompt" and first["closed book"] == "none"
    assert "Options: Yes / No. Answer: Yes." in first["Question"]
    small = shown.loc[shown["Model"] == "small"]
    assert set(small["gold article"]) == {"not scored"}


def test_the_tables_read_back_as_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    tables = _result().tables
    for name in ("construction_funnel", "examples"):
        frame = (
            tables[name]
            if name != "construction_funnel"
            else construction_funnel(_candidates(), 10, {"q1"})
        )
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    back = read_tables(tmp_path)
    assert back["construction_funnel"]["status"].tolist()[0] == ""
    assert back["examples"]["answer"].iloc[0] in {"Yes", "(a) Red"}


def test_every_elicitation_has_its_unreadable_replies_counted_and_the_headline_reads_labels() -> (
    None
):
    scores = _scores()
    stated = scores.loc[(scores["model"] == "m") & (scores["setting"] == "closed_book")].copy()
    stated["elicitation"] = "verbal_probability"
    stated["raw_response"] = "no idea"
    stated["parse_failed"], stated["refused"], stated["correct"] = True, False, False
    stated["probs"] = [[0.5, 0.5] if t == "tf" else [0.25] * 4 for t in stated["qtype"]]
    stated["prob_source"] = "uniform_fill"
    both = pd.concat([scores.assign(elicitation="label"), stated], ignore_index=True)
    result = run_analysis(both, _questions(scores), None, {}, SETTINGS, SEED)
    failures = result.tables["answer_failures"]
    cb = failures.query("model == 'm' and cell == 'closed_book'")
    assert list(dict.fromkeys(cb["elicitation"])) == ["label", "verbal_probability"]
    said = cb.set_index(["elicitation", "qtype"])
    assert said.loc[("verbal_probability", "all"), ["n", "n_parse_failed"]].tolist() == [6, 6]
    assert said.loc[("label", "all"), ["n", "n_counted_wrong"]].tolist() == [6, 3]
    # the headline's line reads the label replies, as before
    line = failures_line({"answer_failures": failures})
    assert "m 0.0-50.0%" in line
    shown = ANSWER_FAILURES.display(failures)
    assert "verbal probability" in set(shown["Asked for"])
