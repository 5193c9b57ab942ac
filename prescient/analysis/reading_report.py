"""How the report shows the tables of :mod:`.reading`: answers counted as wrong, the
construction funnel and leakage audit, the example questions, and a note beside a
table whose rows cover different question sets (:func:`coverage_note`)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from prescient.analysis.schema import setting_label
from prescient.evaluation.settings import LABEL
from prescient.report import tables as fmt
from prescient.vocab import QTYPES

CORRECT_MARK = "✓"
WRONG_MARK = "✗"


def blank(value: object) -> str:
    """Text as written, a blank for nothing (a cell that does not apply, not a gap)."""
    text = "" if value is None else str(value)
    return "" if text in ("", "nan", "<NA>") else text


def count_or_blank(value: object) -> str:
    text = fmt.fmt_int(value)
    return "" if text == fmt.MISSING else text


def coverage_note(tables: Mapping[str, pd.DataFrame]) -> str:
    """A sentence per question type whose rows cover different questions (a model
    evaluated on a sample, a gold cell without the questions lacking a gold article),
    with each row's n and the questions every row shares; "" when all rows cover the
    same questions."""
    sets = tables.get("question_sets", pd.DataFrame())
    if sets.empty:
        return ""
    lines = []
    for qtype in QTYPES:
        part = sets.loc[sets["qtype"] == qtype]
        if part.empty or (part["n"] == part["n_common"]).all():
            continue
        rows = ", ".join(
            f"{m} {setting_label(str(s), str(c))} n={fmt.fmt_int(n)}"
            for m, s, c, n in zip(
                part["model"], part["setting"], part["rag_cutoff"], part["n"], strict=True
            )
        )
        common = fmt.fmt_int(part["n_common"].iloc[0])
        total = fmt.fmt_int(part["n_any"].iloc[0])
        lines.append(
            f"{qtype.upper()} rows cover different questions ({rows}): {common} of the "
            f"{total} questions are scored in every row, so rows with another n are not "
            "compared on the same questions."
        )
    return " ".join(lines)


def failures_line(tables: Mapping[str, pd.DataFrame]) -> str:
    """One sentence for the headline: per model, the share of its replies (over its
    settings, lowest to highest) counted as wrong because they were unparseable or a
    refusal; "" without the table."""
    failures = tables.get("answer_failures", pd.DataFrame())
    if failures.empty:
        return ""
    pooled = failures.loc[failures["qtype"] == "all"]
    if "elicitation" in pooled.columns:  # the headline reads the label replies
        pooled = pooled.loc[pooled["elicitation"].fillna(LABEL) == LABEL]
    parts, clean = [], []
    for model, rows in pooled.groupby("model", sort=True):
        rates = rows["counted_wrong_rate"].astype(float)
        if (rates == 0).all():
            clean.append(str(model))
            continue
        low, high = fmt.fmt_pct(rates.min(), 1), fmt.fmt_pct(rates.max(), 1)
        parts.append(f"{model} {low}%" if low == high else f"{model} {low}-{high}%")
    if not parts:
        return "No reply was unparseable or a refusal."
    line = "Unparseable replies and refusals, counted as wrong, per setting: " + ", ".join(parts)
    if clean:
        line += f"; none for {', '.join(clean)}"
    return line + " (Refusals and unparseable answers)."


FAILURE_COLUMNS: tuple[fmt.Column, ...] = (
    ("model", "Model", fmt.fmt_text),
    ("setting", "Setting", fmt.fmt_text),
    ("elicitation", "Asked for", fmt.fmt_text),
    ("qtype", "Type", fmt.upper),
    ("n", "n", fmt.fmt_int),
    ("n_parse_failed", "Unparseable", fmt.fmt_int),
    ("parse_failure_rate", "Unparseable (%)", fmt.fmt_pct),
    ("n_refused", "Refused", fmt.fmt_int),
    ("refusal_rate", "Refused (%)", fmt.fmt_pct),
    ("counted_wrong_rate", "Counted wrong (%)", fmt.fmt_pct),
)


def failures_display(df: pd.DataFrame) -> pd.DataFrame:
    asked = df["elicitation"] if "elicitation" in df.columns else pd.Series(LABEL, index=df.index)
    named = df.assign(
        setting=[
            setting_label(str(s), str(c))
            for s, c in zip(df["setting"], df["rag_cutoff"], strict=True)
        ],
        elicitation=asked.fillna(LABEL).astype(str).str.replace("_", " "),
    )
    return fmt.display_frame(named, FAILURE_COLUMNS)


ANSWER_FAILURES = fmt.ReportTable(
    "answer_failures",
    "answer-failures",
    "Unparseable answers and refusals",
    FAILURE_COLUMNS,
    "A reply that no parsing rule reads as one of the options (unparseable) and a refusal "
    "both count as wrong in every accuracy of this report: accuracy is over every question "
    "asked (Daily Oracle, ICML 2025, section 4). Every elicitation: label replies over the "
    "questions of the headline table, stated probabilities and token probabilities over "
    "those of the proper scores, where an unreadable reply is scored as the uniform "
    "forecast (failed calls are left out; the cells table counts them); all pools TF and "
    "MC.",
    scroll=True,
    render=failures_display,
    part="refusals",
    empty="No scored questions.",
    context_note=coverage_note,
)


def _answer_text(shown: object, correct: object) -> str:
    text = blank(shown)
    flag = str(correct).strip().lower()
    if flag in ("true", "1"):
        return f"{text} {CORRECT_MARK}"
    if flag in ("false", "0"):
        return f"{text} {WRONG_MARK}"
    return text


def examples_display(df: pd.DataFrame) -> pd.DataFrame:
    """One block per example: a line with the question, its options, gold answer and the
    titles of the articles each setting put in the prompt, then a line per model with its
    answer in each setting (✓ right, ✗ wrong)."""
    cells = list(dict.fromkeys(df["cell"].astype(str)))
    first = df.drop_duplicates("cell").set_index(df.drop_duplicates("cell")["cell"].astype(str))
    headers = {
        c: setting_label(str(first.loc[c, "setting"]), blank(first.loc[c, "rag_cutoff"]))
        for c in cells
    }
    out: list[dict[str, str]] = []
    for _, block in df.groupby("example", sort=True):
        q = block.iloc[0]
        options = blank(q["options"])
        question = (
            f"{int(q['example'])}. [{str(q['qtype']).upper()}, resolves "
            f"{blank(q['resolution_date'])}] {blank(q['question'])}"
            + (f" Options: {options}." if options else "")
            + f" Answer: {blank(q['answer'])}."
        )
        context = block.loc[block["row"] == "articles"]
        line = {"Question": question, "Model": "articles in the prompt"}
        for c in cells:
            shown = context.loc[context["cell"].astype(str) == c, "shown"]
            text = blank(shown.iloc[0]) if len(shown) else ""
            line[headers[c]] = text or "none"
        out.append(line)
        answers = block.loc[block["row"] == "answer"]
        for model, rows in answers.groupby("model", sort=True):
            line = {"Question": "", "Model": str(model)}
            for c in cells:
                mine = rows.loc[rows["cell"].astype(str) == c]
                line[headers[c]] = (
                    _answer_text(mine["shown"].iloc[0], mine["correct"].iloc[0])
                    if len(mine)
                    else "not scored"
                )
            out.append(line)
    return pd.DataFrame(out, columns=["Question", "Model", *headers.values()])


EXAMPLES = fmt.ReportTable(
    "examples",
    "example-questions",
    "Example questions",
    note="A seeded draw (analysis.examples.per_type of each type, base.seed) among the "
    "questions scored in the most cells: each with its gold answer, the articles each "
    "setting put in the prompt (titles by retrieval rank; the gold article for gold) "
    "and every model's answer (✓ right, ✗ wrong; an unparseable reply is quoted).",
    render=examples_display,
    part="examples",
    empty="No scored questions to show.",
)

READING_REPORT_TABLES: tuple[fmt.ReportTable, ...] = (
    ANSWER_FAILURES,
    EXAMPLES,
)
"""The report's tables of :mod:`.reading`, each in its part."""
