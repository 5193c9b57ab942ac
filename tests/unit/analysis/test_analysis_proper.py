"""Proper scores in the analysis (beyond the papers): the forecasts read from a scores
table, the per-row scores, the monthly Brier, the reliability bins and the paired model
comparisons, each against values computed by hand in the comments."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from prescient.analysis import proper
from prescient.analysis.forecasts import forecast_frame
from prescient.analysis.proper import MonthRows, item_scores, monthly_brier, proper_scores_table
from prescient.analysis.proper_calibration import reliability_table
from prescient.analysis.proper_paired import model_pairs, paired_table
from prescient.analysis.schema import ScoresSchemaError
from prescient.evaluation.forecasts import UNIFORM_FILL, row_scores
from prescient.kept import KeptStore
from tests.fixtures.analysis.forecasts import (
    NO_REPS,
    REPS,
    frame_of,
    paired_rows,
    questions_of,
    row,
    tf_mc_rows,
)
from tests.fixtures.analysis.settings import SEED, analysis_settings, run_analysis, shipped


def by_type(table: pd.DataFrame) -> dict[str, dict[str, Any]]:
    return {str(r["qtype"]): r for r in table.to_dict("records")}


def test_scores_of_a_tf_mc_table_by_hand() -> None:
    rows, outcomes = tf_mc_rows()
    table = by_type(proper_scores_table(frame_of(rows, outcomes), 10, NO_REPS, SEED))
    tf, mc, every = table["tf"], table["mc"], table["all"]
    # TF: Brier (0.01 + 0.16 + 0.09 + 0.16) / 4; log -(ln .9 + ln .6 + ln .7 + ln .6) / 4
    assert tf["n"] == 4 and tf["accuracy"] == pytest.approx(1.0)  # every argmax resolved
    assert tf["brier"] == pytest.approx(0.105)
    assert tf["log_score"] == pytest.approx(-(math.log(0.9 * 0.6 * 0.7 * 0.6)) / 4)
    # uninformed 0.25; base rate 3/4 Yes: 0.75 * 0.25 = 0.1875
    assert tf["brier_uniform"] == pytest.approx(0.25)
    assert tf["skill_uniform"] == pytest.approx(1 - 0.105 / 0.25)
    assert tf["brier_base"] == pytest.approx(0.1875)
    assert tf["skill_base"] == pytest.approx(1 - 0.105 / 0.1875)
    # bins {0.3}: 0 Yes, {0.6, 0.6}: 2 Yes, {0.9}: 1 Yes -> (0.3 + 2 * 0.4 + 0.1) / 4
    assert tf["calibration"] == "p_yes"
    assert tf["ece"] == pytest.approx(0.3)
    # Murphy: reliability (0.09 + 2 * 0.16 + 0.01) / 4, resolution = uncertainty = 0.1875
    assert tf["reliability"] == pytest.approx(0.105)
    assert tf["resolution"] == pytest.approx(0.1875)
    assert tf["uncertainty"] == pytest.approx(0.1875)
    assert tf["within_bin"] == pytest.approx(0.0, abs=1e-12)
    assert tf["murphy_brier"] == pytest.approx(tf["brier"])
    # MC: Brier 0.09 + 3 * 0.01 = 0.12 and 0.16 + 0.09 + 0.64 + 0.01 = 0.90
    assert mc["brier"] == pytest.approx(0.51)
    assert mc["log_score"] == pytest.approx(-(math.log(0.7) + math.log(0.2)) / 2)
    assert mc["brier_uniform"] == pytest.approx(0.75)
    # base rate by position [0.5, 0, 0.5, 0]: each question's Brier is 0.5
    assert mc["brier_base"] == pytest.approx(0.5)
    assert mc["skill_base"] == pytest.approx(1 - 0.51 / 0.5)
    # top label: 0.7 (right) and 0.4 (wrong): ECE (0.3 + 0.4) / 2, binary Brier 0.125
    assert mc["calibration"] == "top_label"
    assert mc["accuracy"] == pytest.approx(0.5)
    assert mc["ece"] == pytest.approx(0.35)
    assert mc["murphy_brier"] == pytest.approx(0.125)
    assert mc["resolution"] == pytest.approx(0.25)
    parts = mc["reliability"] - mc["resolution"] + mc["uncertainty"] + mc["within_bin"]
    assert parts == pytest.approx(mc["murphy_brier"])
    # all: six questions, (0.42 + 1.02) / 6; references (4 * 0.25 + 2 * 0.75) / 6 and
    # (0.75 + 1.0) / 6
    assert every["n"] == 6
    assert every["brier"] == pytest.approx(0.24)
    assert every["skill_uniform"] == pytest.approx(1 - 0.24 / (2.5 / 6))
    assert every["skill_base"] == pytest.approx(1 - 0.24 / (1.75 / 6))
    # no replicates, no intervals; accuracy keeps its Wilson interval
    assert math.isnan(tf["brier_low"]) and math.isnan(tf["ece_high"])
    assert 0 < mc["accuracy_low"] < 0.5 < mc["accuracy_high"] < 1


def test_equal_mass_bins_by_hand() -> None:
    rows, outcomes = tf_mc_rows()
    tf = by_type(proper_scores_table(frame_of(rows, outcomes), 2, NO_REPS, SEED))["tf"]
    # edges at the quantiles [0.3, 0.6, 0.9]: {0.3, 0.6, 0.6} mean 0.5, 2/3 Yes; {0.9} Yes
    assert tf["ece_mass"] == pytest.approx((3 * (2 / 3 - 0.5) + 0.1) / 4)
    # equal width [0, 0.5), [0.5, 1]: {0.3} 0 Yes; {0.6, 0.6, 0.9} mean 0.7, all Yes
    assert tf["ece"] == pytest.approx((0.3 + 3 * 0.3) / 4)


def test_bootstrap_intervals_are_seeded_and_bracket_the_estimate() -> None:
    rows, outcomes = tf_mc_rows()
    forecasts = frame_of(rows, outcomes)
    first = proper_scores_table(forecasts, 10, REPS, SEED)
    again = proper_scores_table(forecasts, 10, REPS, SEED)
    other = proper_scores_table(forecasts, 10, REPS, SEED + 1)
    pd.testing.assert_frame_equal(first, again)
    assert not first["brier_low"].equals(other["brier_low"]) or not first["log_low"].equals(
        other["log_low"]
    )
    for name, low, high in (("brier", "brier_low", "brier_high"), ("ece", "ece_low", "ece_high")):
        assert (first[low] <= first[name] + 1e-12).all()
        assert (first[name] <= first[high] + 1e-12).all()


def test_a_table_from_before_the_columns_scores_labels_and_fills_refusals() -> None:
    rows = [
        row("t0", "tf", [1.0, 0.0], 0, elicitation=None),
        row("t1", "tf", [0.0, 1.0], 0, elicitation=None),
        row("t2", "tf", None, 1, elicitation=None, refused=True),
        row("t3", "tf", None, 1, elicitation=None, error="timeout"),
    ]
    raw = pd.DataFrame(rows).drop(columns=["elicitation", "probs"])
    questions = questions_of(rows, {"t0": 0, "t1": 0, "t2": 1, "t3": 1})
    found = forecast_frame(raw, questions, {}, analysis_settings())
    f = found.frame.set_index("question_id")
    assert not found.has_probs and found.dropped["failed_call"] == 1
    assert list(f.index) == ["t0", "t1", "t2"]
    assert set(f["elicitation"]) == {"label"}
    assert f.loc["t0", "probs"] == (1.0, 0.0) and f.loc["t1", "probs"] == (0.0, 1.0)
    assert f.loc["t2", "probs"] == (0.5, 0.5) and f.loc["t2", "prob_source"] == UNIFORM_FILL
    tf = by_type(proper_scores_table(found.frame, 10, NO_REPS, SEED))["tf"]
    # Brier 0, 1 and 0.25 (the refusal is the uniform forecast); the refusal is wrong
    assert tf["brier"] == pytest.approx(1.25 / 3)
    assert tf["accuracy"] == pytest.approx(1 / 3)
    assert tf["n_uniform_fill"] == 1
    assert tf["log_score"] == pytest.approx((-math.log(1e-6) + math.log(2)) / 3)


def test_outcomes_are_read_off_the_scores_without_a_questions_table() -> None:
    rows = [
        row("t0", "tf", [0.8, 0.2], 0),  # correct: Yes resolved
        row("t1", "tf", [0.8, 0.2], 1),  # wrong TF: the other answer, No
        row("c0", "mc", [0.1, 0.7, 0.1, 0.1], 1),  # correct MC: option (b)
        row("c1", "mc", [0.1, 0.7, 0.1, 0.1], 3),  # wrong MC: unknown
    ]
    found = forecast_frame(pd.DataFrame(rows), None, {}, analysis_settings())
    outcome = dict(zip(found.frame["question_id"], found.frame["outcome"], strict=True))
    assert outcome == {"t0": 0, "t1": 1, "c0": 1}
    assert found.dropped["no_outcome"] == 1


def test_bad_forecasts_are_refused_naming_the_row() -> None:
    rows = [row("t0", "tf", [0.7, 0.2], 0)]
    with pytest.raises(ScoresSchemaError, match=r"row 0 \(question_id t0\).*sums to 0.9"):
        frame_of(rows, {"t0": 0})
    rows = [row("c0", "mc", [0.5, 0.5], 0)]
    with pytest.raises(ScoresSchemaError, match="2 values for a question of 4 options"):
        frame_of(rows, {"c0": 0})
    rows = [row("t0", "tf", [0.5, 0.5], 0, elicitation="vibes")]
    with pytest.raises(ScoresSchemaError, match="unknown values"):
        frame_of(rows, {"t0": 0})


def test_monthly_brier_keeps_gaps_and_averages_defined_months() -> None:
    rows = [
        row("a", "tf", [0.9, 0.1], 0, day="2024-01-03"),
        row("b", "tf", [0.6, 0.4], 0, day="2024-01-20"),
        row("c", "tf", [0.3, 0.7], 0, day="2024-03-05"),
    ]
    forecasts = frame_of(rows, {"a": 0, "b": 0, "c": 0})
    ma = shipped("moving_average", window=2, kind="trailing", min_periods=1)
    months = (int(forecasts["month"].min()), int(forecasts["month"].max()))
    table = monthly_brier(forecasts, ma, months, NO_REPS, SEED)
    assert list(table["month"]) == ["2024-01", "2024-02", "2024-03"]
    assert list(table["n"]) == [2, 0, 1]
    # January (0.01 + 0.16) / 2; February a gap; March (0.3 - 1)^2 = 0.49
    assert table["brier"].iloc[0] == pytest.approx(0.085)
    assert math.isnan(table["brier"].iloc[1])
    assert table["brier"].iloc[2] == pytest.approx(0.49)
    # trailing window of 2: February averages January alone, March itself alone
    assert list(table["brier_ma"]) == pytest.approx([0.085, 0.085, 0.49])
    with_ci = monthly_brier(forecasts, ma, months, REPS, SEED)
    assert with_ci["ci_low"].iloc[0] <= 0.085 <= with_ci["ci_high"].iloc[0]
    assert math.isnan(with_ci["ci_low"].iloc[2])  # one question: no interval


def test_monthly_rows_kept_are_the_rows_computed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Month rows are kept by what they were computed from: a second run reads every
    month back, a month with another question is resampled, and the table is the same
    floats as without a store; a damaged part is computed again."""
    days = ["2024-01-03", "2024-01-20", "2024-01-25", "2024-02-02", "2024-02-14", "2024-03-05"]
    probs = [[0.9, 0.1], [0.6, 0.4], [0.2, 0.8], [0.7, 0.3], [0.55, 0.45], [0.3, 0.7]]
    rows = [
        row(f"q{i}", "tf", p, 0, day=d) for i, (p, d) in enumerate(zip(probs, days, strict=True))
    ]
    outcomes = {f"q{i}": i % 2 for i in range(len(rows))}
    forecasts = frame_of(rows, outcomes)
    ma = shipped("moving_average", window=2, kind="trailing", min_periods=1)
    months = (int(forecasts["month"].min()), int(forecasts["month"].max()))
    plain = monthly_brier(forecasts, ma, months, REPS, SEED)
    store = KeptStore(tmp_path)
    pd.testing.assert_frame_equal(monthly_brier(forecasts, ma, months, REPS, SEED, store), plain)
    memo = MonthRows(store, REPS)
    assert len(memo.known) == 2  # January and February: March has one question, no draws
    computed: list[int] = []
    month_row = proper._month_row

    def counted(g: pd.DataFrame, *args: Any) -> dict[str, Any]:
        computed.append(len(g))
        return month_row(g, *args)

    monkeypatch.setattr(proper, "_month_row", counted)
    pd.testing.assert_frame_equal(monthly_brier(forecasts, ma, months, REPS, SEED, store), plain)
    assert computed == [1]  # March alone: January and February read back
    grown = frame_of(
        [*rows, row("q9", "tf", [0.4, 0.6], 0, day="2024-02-20")], {**outcomes, "q9": 1}
    )
    again = MonthRows(store, REPS)
    table = monthly_brier(grown, ma, months, REPS, SEED, store)
    pd.testing.assert_frame_equal(table, monthly_brier(grown, ma, months, REPS, SEED))
    assert again.known.keys() - MonthRows(store, REPS).known.keys()  # February's old row
    for part in tmp_path.rglob("*"):
        if part.is_file():
            part.write_bytes(b"damaged")
    pd.testing.assert_frame_equal(monthly_brier(grown, ma, months, REPS, SEED, store), table)


def test_reliability_bins_by_hand() -> None:
    rows, outcomes = tf_mc_rows()
    table = reliability_table(frame_of(rows, outcomes), 10)
    tf = table.loc[(table["qtype"] == "tf") & (table["strategy"] == "uniform")]
    assert list(tf["bin"]) == [2, 5, 8]
    assert list(tf["count"]) == [1, 2, 1]
    assert list(tf["forecast"]) == pytest.approx([0.3, 0.6, 0.9])
    assert list(tf["observed"]) == pytest.approx([0.0, 1.0, 1.0])
    assert list(tf["bin_low"]) == pytest.approx([0.2, 0.5, 0.8])
    mc = table.loc[(table["qtype"] == "mc") & (table["strategy"] == "uniform")]
    assert list(mc["forecast"]) == pytest.approx([0.4, 0.7])
    assert list(mc["observed"]) == pytest.approx([0.0, 1.0])
    assert set(table["calibration"]) == {"p_yes", "top_label"}


def test_paired_comparisons_mcnemar_holm_and_the_crowd() -> None:
    rows, outcomes = paired_rows()
    table = paired_table(frame_of(rows, outcomes), REPS, SEED, 0.05)
    pairs = list(zip(table["model_a"], table["model_b"], strict=True))
    assert pairs == [("a", "b"), ("a", "crowd"), ("b", "crowd")]
    t = table.set_index(["model_a", "model_b"])
    # a vs b: only a right on 6, only b on 1 -> p = 2 * (1 + 7) / 2^7 = 0.125
    assert (t.loc[("a", "b"), "only_a"], t.loc[("a", "b"), "only_b"]) == (6, 1)
    assert t.loc[("a", "b"), "mcnemar_p"] == pytest.approx(0.125)
    # a vs crowd: 0 and 2 -> 0.5; b vs crowd: 0 and 7 -> 2 / 128
    assert t.loc[("a", "crowd"), "mcnemar_p"] == pytest.approx(0.5)
    assert t.loc[("b", "crowd"), "mcnemar_p"] == pytest.approx(2 / 128)
    # Holm: 3 * 2/128, then 2 * 0.125, then 0.5
    assert list(table["mcnemar_p_holm"]) == pytest.approx([0.25, 0.5, 3 * 2 / 128])
    assert list(table["accuracy_better"]) == ["", "", "crowd"]
    # Brier: a 2/10 wrong one-hots = 0.2, b 0.7, crowd 0.4^2 = 0.16
    assert t.loc[("a", "b"), "brier_diff"] == pytest.approx(0.2 - 0.7)
    assert t.loc[("a", "crowd"), "brier_diff"] == pytest.approx(0.2 - 0.16)
    assert t.loc[("a", "b"), "accuracy_diff"] == pytest.approx(0.8 - 0.3)
    assert (table["n"] == 10).all()
    assert (table["brier_diff_low"] <= table["brier_diff"]).all()
    assert (table["brier_diff"] <= table["brier_diff_high"]).all()
    pd.testing.assert_frame_equal(table, paired_table(frame_of(rows, outcomes), REPS, SEED, 0.05))


def test_pairs_use_the_questions_both_answered() -> None:
    rows, outcomes = paired_rows()
    rows = [r for r in rows if not (r["model"] == "b" and r["question_id"] in ("q2", "q3"))]
    table = paired_table(frame_of(rows, outcomes), NO_REPS, SEED, 0.05)
    t = table.set_index(["model_a", "model_b"])
    assert t.loc[("a", "b"), "n"] == 8 and t.loc[("a", "crowd"), "n"] == 10
    assert (t.loc[("a", "b"), "only_a"], t.loc[("a", "b"), "only_b"]) == (4, 1)
    assert math.isnan(t.loc[("a", "b"), "brier_diff_low"])  # no replicates


def test_a_bootstrap_p_value_is_bounded_by_the_replicates() -> None:
    # a is right with certainty on every question, the crowd says 0.6: the Brier
    # difference is -0.16 on each, so no replicate reaches 0 and p reads 1 / reps
    rows = [row(f"q{i}", "tf", [1.0, 0.0], 0, "a", "label") for i in range(5)]
    rows += [row(f"q{i}", "tf", [0.6, 0.4], 0, "crowd", "label") for i in range(5)]
    table = paired_table(frame_of(rows, {f"q{i}": 0 for i in range(5)}), REPS, SEED, 0.05)
    assert table["brier_diff"].iloc[0] == pytest.approx(-0.16)
    assert table["brier_p"].iloc[0] == pytest.approx(1 / REPS.reps)
    assert table["brier_better"].iloc[0] == "a"


def test_model_pairs_put_the_crowd_last() -> None:
    assert model_pairs(["z", "crowd", "a"]) == [("a", "z"), ("a", "crowd"), ("z", "crowd")]
    assert model_pairs(["crowd"]) == []


def test_the_papers_analyses_read_the_label_rows() -> None:
    rows, outcomes = tf_mc_rows()
    labels = [{**r, "elicitation": "label"} for r in rows]
    raw = pd.DataFrame(rows + labels)
    result = run_analysis(raw, questions_of(rows, outcomes), None, None, analysis_settings(), SEED)
    accuracy = result.tables["accuracy"]
    assert int(accuracy.loc[accuracy["qtype"] == "all", "n"].iloc[0]) == 6
    scores = result.tables["proper_scores"]
    assert list(dict.fromkeys(scores["elicitation"])) == ["label", "verbal_probability"]
    assert any("read the label answers" in n for n in result.notes)
    # The first screen's model calls count every elicitation's requests.
    keyed = [
        {**r, "ledger_key": f"k{i}", "prompt_tokens": 10, "completion_tokens": 1, "cost_usd": None}
        for i, r in enumerate(rows + labels)
    ]
    calls = run_analysis(
        pd.DataFrame(keyed), questions_of(rows, outcomes), None, None, analysis_settings(), SEED
    ).tables["model_calls"]
    assert calls.set_index("model").at["m", "distinct_requests"] == len(keyed)
    assert result.metrics["proper_scores"]["models"]["m"]["closed_book"]["verbal_probability"][
        "brier"
    ] == pytest.approx(0.24)


def test_excluded_sources_and_the_period_are_counted_out() -> None:
    rows = [
        row("t0", "tf", [0.8, 0.2], 0, day="2024-01-10"),
        row("t1", "tf", [0.8, 0.2], 0, day="2024-02-10"),
        row("t2", "tf", [0.8, 0.2], 0, day="2024-03-10"),
    ]
    settings = analysis_settings("analysis.date_start=2024-02-01")
    raw, questions = pd.DataFrame(rows), questions_of(rows, {"t0": 0, "t1": 0, "t2": 0})
    found = forecast_frame(raw, questions, {"t2": "openforecast"}, settings)
    assert list(found.frame["question_id"]) == ["t1"]
    assert found.frame["source"].iloc[0] == "unnamed"
    assert (found.dropped["period"], found.dropped["excluded_source"]) == (1, 1)


def test_item_scores_agree_with_the_score_stage() -> None:
    cases = [
        ([0.9, 0.1], 0, "tf"),
        ([0.3, 0.7], 0, "tf"),
        ([0.0, 1.0], 0, "tf"),  # the clipped log score
        ([0.7, 0.1, 0.1, 0.1], 2, "mc"),
        ([0.6, 0.4], 1, "mc"),  # an MC question of two options: summed, not halved
        ([0.2, 0.3, 0.5], 2, "mc"),
    ]
    brier, log = item_scores([c[0] for c in cases], [c[1] for c in cases], [c[2] for c in cases])
    expected = [row_scores(p, y, t) for p, y, t in cases]
    assert list(brier) == pytest.approx([b for b, _ in expected], abs=1e-12)
    assert list(log) == pytest.approx([g for _, g in expected], abs=1e-12)
    assert brier[4] == pytest.approx(2 * 0.6**2)


def test_a_gap_made_by_unreadable_replies_is_marked() -> None:
    rows, outcomes = paired_rows()
    unread = {"parsed_answer": None, "correct": False, "parse_failed": True}
    unread["prob_source"] = UNIFORM_FILL
    rows = [
        row(r["question_id"], "tf", [0.5, 0.5], 0, "b", "label", **unread)
        if r["model"] == "b" and r["question_id"] in {f"q{i}" for i in range(2, 8)}
        else r
        for r in rows
    ]
    table = paired_table(frame_of(rows, outcomes), NO_REPS, SEED, 0.05)
    t = table.set_index(["model_a", "model_b"])
    ab = t.loc[("a", "b")]
    # a right on q0-q7, b on q0, q1, q8 and unreadable on q2-q7: 0.8 - 0.3 over all ten,
    # but over q0, q1, q8, q9 (both read) a 2 of 4 and b 3 of 4
    assert (ab["unreadable_a"], ab["unreadable_b"]) == (0, 6)
    assert ab["accuracy_diff"] == pytest.approx(0.5)
    assert ab["accuracy_diff_readable"] == pytest.approx(-0.25)
    assert bool(ab["unreadable_driven"])
    # a gap that holds over the readable questions is not marked
    assert not bool(t.loc[("a", "crowd"), "unreadable_driven"])
    clean = paired_table(frame_of(paired_rows()[0], outcomes), NO_REPS, SEED, 0.05)
    assert not clean["unreadable_driven"].any()
    assert list(clean["accuracy_diff_readable"]) == pytest.approx(list(clean["accuracy_diff"]))
