"""How the report shows the proper-score tables (beyond the three papers): the scores
per model, setting, elicitation and question type, and the paired model comparisons.
``proper_monthly`` and ``proper_reliability`` are drawn (:mod:`..proper_figures`) and
stay CSV tables beside them. The scores' columns and headings come from the declared
measures (:mod:`prescient.proper_metrics`) as this module is imported."""

from __future__ import annotations

import pandas as pd

from prescient import proper_metrics as declared
from prescient.report import tables as fmt

PART_SCORES = "proper-scores"
PART_PAIRED = "model-comparisons"


def _score_columns() -> tuple[fmt.Column, ...]:
    """The report's columns of ``proper_scores``: the declared measures
    (:mod:`prescient.proper_metrics`) between accuracy and the uniform fills, those with
    an interval written with it."""
    out: list[fmt.Column] = [
        ("model", "Model", fmt.fmt_text),
        ("cell", "Setting", fmt.fmt_text),
        ("elicitation", "Elicitation", fmt.fmt_text),
        ("qtype", "Type", fmt.upper),
        ("n", "n", fmt.fmt_int),
        ("accuracy", "Accuracy (%)", fmt.fmt_text),
    ]
    out += [(s.name, s.label or s.name, fmt.fmt_text) for s in declared.item_scores()]
    out += [(k.name, k.label or k.name, fmt.fmt_text) for k in declared.skills()]
    out.append(("calibration", "Calibration of", fmt.fmt_text))
    for c in declared.calibration_measures():
        for i, (column, heading) in enumerate(zip(c.columns, c.headings(), strict=True)):
            with_interval = i == 0 and c.replicates is not None
            out.append((column, heading, fmt.fmt_text if with_interval else fmt.digits(3)))
    out.append(("n_uniform_fill", "Uniform fills", fmt.fmt_int))
    return tuple(out)


def _score_intervals() -> dict[str, fmt.Interval]:
    """Where each interval of ``proper_scores`` is shown: in its measure's column."""
    out: dict[str, fmt.Interval] = {
        "accuracy": ("accuracy", "accuracy_low", "accuracy_high", 2, 100.0, "n")
    }
    for s in declared.item_scores():
        out[s.name] = (s.name, f"{s.interval}_low", f"{s.interval}_high", 3, 1.0, "n")
    for k in declared.skills():
        out[k.name] = (k.name, f"{k.name}_low", f"{k.name}_high", 3, 1.0, "n")
    for c in declared.calibration_measures():
        if c.replicates is not None:
            head = c.columns[0]
            out[head] = (head, f"{head}_low", f"{head}_high", 3, 1.0, "n")
    return out


SCORES_COLUMNS = _score_columns()
SCORES_INTERVALS = _score_intervals()
SCORES_NOTE = (
    "Lower is better for every score but the skills. Brier: on TF questions (p - y)^2 on "
    "P(Yes), from 0 to 1, 0.25 for always saying 0.5; on MC questions the sum over the "
    "options of (p - 1 if the option resolved, else p)^2, from 0 to 2, 0.75 for the "
    "uniform forecast over four options; 'all' averages both. Log score: -ln of the "
    "probability given to the answer that resolved, clipped at 1e-6 (at most 13.8); 0.693 "
    "for always 0.5, 1.386 for uniform over four options. Skill: 1 - Brier / the Brier of "
    "a reference forecast, the uninformed one (0.5, uniform over the options) or the base "
    "rate of the row's own questions (TF: the share of Yes; MC: each position's share of "
    "answers); 0 is no better than the reference, 1 a perfect forecast. ECE: the "
    "question-weighted mean of |observed frequency - mean forecast| over bins "
    "(analysis.proper.bins) of equal width or of equal mass. Murphy: Brier = reliability "
    "- resolution + uncertainty + the within-bin remainder, over the equal-width bins. "
    "Calibration of TF rows is P(Yes) against the answer being Yes; of MC and 'all' rows "
    "the chosen answer's probability against it being correct (top-label), whose Brier "
    "the Murphy parts add up to. A label elicitation forecasts the one-hot of its label; "
    "a reply without a readable forecast is scored as the uniform forecast (uniform "
    "fills) and counts as wrong for accuracy, as in the papers. Accuracy reads a "
    "forecast's most probable answer; on a tie, the answer the reply names (the random "
    "baseline names its draw, so its accuracy is the same under every elicitation), else "
    "the first of the tied answers. Intervals: Wilson 95% for accuracy, percentile bootstrap over questions "
    "(analysis.proper.bootstrap) for the scores, skills and equal-width ECE. n is each row's own question set: rows "
    "differ where models answered different questions."
)

LEADERBOARD_COLUMNS: tuple[fmt.Column, ...] = (
    ("model", "Model", fmt.fmt_text),
    ("cell", "Setting", fmt.fmt_text),
    ("elicitation", "Asked for", fmt.fmt_text),
    ("brier_tf", "Brier TF", fmt.fmt_text),
    ("brier_mc", "Brier MC", fmt.fmt_text),
    ("accuracy", "Accuracy (%)", fmt.fmt_text),
    ("unreadable", "Unreadable", fmt.fmt_text),
    ("n", "n", fmt.fmt_int),
    ("log_score", "Log score", fmt.fmt_text),
)
LEADERBOARD_INTERVALS: dict[str, fmt.Interval] = {
    "brier_tf": ("brier_tf", "brier_tf_low", "brier_tf_high", 3, 1.0, "n_tf"),
    "brier_mc": ("brier_mc", "brier_mc_low", "brier_mc_high", 3, 1.0, "n_mc"),
    "log_score": ("log_score", "log_low", "log_high", 3, 1.0, "n"),
    "accuracy": ("accuracy", "accuracy_low", "accuracy_high", 1, 100.0, "n"),
}
LEADERBOARD_NOTE = (
    "Ranked within each setting by the Brier score on TF questions (lower is better; 0.25 "
    "for always saying 0.5), then on MC questions, which has its own scale (0 to 2; 0.75 "
    "for the uniform forecast over four options) and is never pooled with TF; rows where "
    "most forecasts are unreadable come last, since they measure parsing more than "
    "forecasting. Log score and accuracy over all questions. Asked for: label (one "
    "answer, scored as certain), verbal probability (stated), token logprobs (the "
    "model's probabilities of the answers), scratchpad (reasoning, then a stated "
    "forecast after 'Final forecast:'; often asked of a nested sample, so its n is "
    "smaller). Unreadable: forecasts of the n with no readable answer (a refusal or a "
    "parse failure), scored as the uniform forecast and counted wrong. Intervals: "
    "percentile bootstrap over questions for the scores, Wilson 95% for accuracy."
)


def unreadable(count: object, n: object) -> str:
    """How many of ``n`` forecasts were unreadable, with their share when there are any."""
    k, total = int(count), int(n)  # type: ignore[call-overload]
    if not k:
        return "0"
    return f"{k} ({100.0 * k / total:.0f}%)" if total else str(k)


def leaderboard_display(df: pd.DataFrame) -> pd.DataFrame:
    """The ``leaderboard`` table as the report shows it: intervals joined, unreadable
    forecasts counted with their share, the elicitation in words (so the column wraps)."""
    shown = df.assign(
        unreadable=[unreadable(k, n) for k, n in zip(df["n_uniform_fill"], df["n"], strict=True)],
        elicitation=df["elicitation"].astype(str).str.replace("_", " "),
    )
    return fmt.interval_columns(LEADERBOARD_COLUMNS, LEADERBOARD_INTERVALS)(shown)


PAIRED_COLUMNS: tuple[fmt.Column, ...] = (
    # the reading columns first: who is better, by how much, and whether parsing drives it
    ("cell", "Setting", fmt.fmt_text),
    ("elicitation", "Elicitation", fmt.fmt_text),
    ("model_a", "Model A", fmt.fmt_text),
    ("model_b", "Model B", fmt.fmt_text),
    ("n", "n both", fmt.fmt_int),
    ("accuracy_diff", "A - B (pp)", fmt.fmt_text),
    ("accuracy_better", "More accurate", fmt.fmt_text),
    ("mcnemar_p_holm", "McNemar Holm p", fmt.fmt_p),
    ("brier_diff", "Brier A - B", fmt.fmt_text),
    ("brier_better", "Lower Brier", fmt.fmt_text),
    ("brier_p_holm", "Brier Holm p", fmt.fmt_p),
    ("unreadable", "Unreadable A / B", fmt.fmt_text),
    ("accuracy_diff_readable", "A - B readable (pp)", fmt.fmt_text),
    # the parts
    ("accuracy_a", "Acc. A (%)", fmt.fmt_pct),
    ("accuracy_b", "Acc. B (%)", fmt.fmt_pct),
    ("only_a", "Only A right", fmt.fmt_int),
    ("only_b", "Only B right", fmt.fmt_int),
    ("mcnemar_p", "McNemar p", fmt.fmt_p),
    ("brier_a", "Brier A", fmt.digits(3)),
    ("brier_b", "Brier B", fmt.digits(3)),
    ("brier_p", "Bootstrap p", fmt.fmt_p),
)
PAIRED_INTERVALS: dict[str, fmt.Interval] = {
    "accuracy_diff": ("accuracy_diff", "accuracy_diff_low", "accuracy_diff_high", 2, 100.0, "n"),
    "brier_diff": ("brier_diff", "brier_diff_low", "brier_diff_high", 3, 1.0, "n"),
}
PAIRED_NOTE = (
    "Is model A better than model B on this question set? Each pair of models in the "
    "same setting and elicitation, on the questions both answered (all types). "
    "Correctness: McNemar's exact test on the questions only one of them got right. "
    "Accuracy and Brier differences: paired bootstrap over those questions (the same "
    "draws for both models) with percentile intervals and a two-sided p-value, at least "
    "1 / the replicates (no replicate across 0 bounds p, it does not make it 0). Holm's "
    "adjustment runs over all the table's comparisons, McNemar's and the Brier p-values "
    "each as one family; 'More accurate' and 'Lower Brier' name the model ahead where "
    "the Holm p is below 1 - analysis.proper.bootstrap.confidence. The crowd forecast of "
    "an imported question set, where there is one, is model B of every pair it is in. "
    "Unreadable A / B: replies of each model that could not be read (scored as the "
    "uniform forecast, counted wrong); A - B readable: the accuracy difference over the "
    "questions where both replies were read, marked 'unreadable-driven' when the "
    "unreadable replies make the difference (less than half of it, or the other sign, "
    "remains over the readable questions)."
)


def paired_display(df: pd.DataFrame) -> pd.DataFrame:
    """``proper_paired`` as the report shows it: intervals joined, the unreadable
    replies of both models, and the readable-only difference marked where the
    unreadable replies make the difference."""
    shown = df.assign(
        unreadable=[
            f"{int(a)} / {int(b)}"
            for a, b in zip(df["unreadable_a"], df["unreadable_b"], strict=True)
        ],
        accuracy_diff_readable=[
            fmt.fmt_number(100.0 * float(d), 2) + (" (unreadable-driven)" if fmt.is_true(k) else "")
            if not pd.isna(d)
            else fmt.MISSING
            for d, k in zip(df["accuracy_diff_readable"], df["unreadable_driven"], strict=True)
        ],
    )
    return fmt.interval_columns(PAIRED_COLUMNS, PAIRED_INTERVALS)(shown)


PROPER_REPORT_TABLES: tuple[fmt.ReportTable, ...] = (
    fmt.ReportTable(
        "leaderboard",
        "leaderboard-table",
        "Leaderboard: proper scores per model, setting and elicitation",
        LEADERBOARD_COLUMNS,
        LEADERBOARD_NOTE,
        scroll=True,
        render=leaderboard_display,
        part=PART_SCORES,
        empty="No scored forecasts: the leaderboard is empty.",
    ),
    fmt.ReportTable(
        "proper_scores",
        "proper-scores-table",
        "Proper scores per model, setting, elicitation and question type",
        SCORES_COLUMNS,
        SCORES_NOTE,
        scroll=True,
        render=fmt.interval_columns(SCORES_COLUMNS, SCORES_INTERVALS),
        part=PART_SCORES,
        empty="No scored forecasts: the proper scores are empty.",
    ),
    fmt.ReportTable(
        "proper_paired",
        "proper-paired",
        "Paired model comparisons",
        PAIRED_COLUMNS,
        PAIRED_NOTE,
        scroll=True,
        render=paired_display,
        part=PART_PAIRED,
        empty="Fewer than two models (the crowd forecast included) in any setting: nothing to compare.",
    ),
)
"""The proper-score tables of the report, in page order."""
