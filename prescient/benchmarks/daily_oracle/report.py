"""Daily Oracle's part of the report (ICML 2025): Table 3 and the headline decline, the
Fig. 6 slopes, its figures, how its questions were made (the construction funnel and the
leakage audit), and its parts of the page's outline (``outline.yaml`` beside this file).
"""

from __future__ import annotations

import pandas as pd

from prescient.analysis.reading_report import blank, count_or_blank
from prescient.benchmarks.daily_oracle.figures import FIGURES
from prescient.report import tables as fmt
from prescient.report.parts import ReportPart, read_outline


def table3_display(t3: pd.DataFrame) -> pd.DataFrame:
    """Table 3 as in the paper: yearly accuracy (%) with its questions, average YoY change
    (%) with its bootstrap interval and the months averaged, and the cutoff windows."""
    years = sorted(c[4:] for c in t3.columns if c.startswith("acc_"))
    cols: list[fmt.Column] = [*fmt.KEY_COLUMNS, ("knowledge_cutoff", "K-cutoff", fmt.fmt_text)]
    out = fmt.display_frame(t3, cols)
    for y in years:
        counts = t3.get(f"n_{y}", pd.Series([None] * len(t3)))
        out[y] = [
            _with_n(fmt.fmt_number(v), n) for v, n in zip(t3[f"acc_{y}"], counts, strict=True)
        ]
    for regime, header in (
        ("pre", "Pre-cutoff YoY"),
        ("post", "Post-cutoff YoY"),
        ("all", "Avg YoY"),
    ):
        flags = t3.get(f"yoy_{regime}_ci_excludes", pd.Series([False] * len(t3)))
        pairs = t3.get(f"yoy_{regime}_pairs", pd.Series([None] * len(t3)))
        status = t3.get(f"yoy_{regime}_status", pd.Series([""] * len(t3)))
        out[header] = [
            fmt.in_place_of(_with_n(_with_ci(v, lo, hi, flag), n), why)
            for v, lo, hi, flag, n, why in zip(
                t3.get(f"yoy_{regime}", []),
                t3.get(f"yoy_{regime}_low", []),
                t3.get(f"yoy_{regime}_high", []),
                flags,
                pairs,
                status,
                strict=True,
            )
        ]
    out["YoY months (pre; post; avg)"] = [
        "; ".join(_span(row, r) for r in ("pre", "post", "all")) for _, row in t3.iterrows()
    ]
    return out


def headline_display(df: pd.DataFrame) -> pd.DataFrame:
    """The headline table with the reason a change below its floor is left out in the
    change's place."""
    out = fmt.display_frame(df, HEADLINE_COLUMNS)
    status = df.get("change_status", pd.Series([""] * len(df)))
    out["Change (%)"] = [
        fmt.in_place_of(t, w) for t, w in zip(out["Change (%)"], status, strict=True)
    ]
    return out


def _with_n(text: str, n: object) -> str:
    """``text n=k``: the count behind a displayed number (the missing mark stays alone)."""
    count = fmt.fmt_int(n)
    return text if fmt.MISSING in (text, count) else f"{text} n={count}"


def _span(row: pd.Series, regime: str) -> str:
    first, last = (
        fmt.fmt_text(row.get(f"yoy_{regime}_from")),
        fmt.fmt_text(row.get(f"yoy_{regime}_to")),
    )
    return fmt.MISSING if fmt.MISSING in (first, last) else f"{first}..{last}"


def _with_ci(value: object, low: object, high: object, excludes: object = False) -> str:
    v = fmt.fmt_number(value)
    if v == fmt.MISSING:
        return v
    lo, hi = fmt.fmt_number(low), fmt.fmt_number(high)
    if lo == fmt.MISSING:
        return v
    return f"{v} [{lo}, {hi}]" + (f" {fmt.EXCLUDES_MARK}" if fmt.is_true(excludes) else "")


HEADLINE_COLUMNS: tuple[fmt.Column, ...] = (
    ("qtype", "Type", fmt.upper),
    ("first_month", "First month", fmt.fmt_text),
    ("first_accuracy", "Accuracy first (%)", fmt.fmt_number),
    ("n_first", "n first", fmt.fmt_int),
    ("last_month", "Last month", fmt.fmt_text),
    ("last_accuracy", "Accuracy last (%)", fmt.fmt_number),
    ("n_last", "n last", fmt.fmt_int),
    ("change_pct", "Change (%)", fmt.fmt_number),
    ("n_models", "Models (n)", fmt.fmt_int),
    ("models", "Models", fmt.fmt_text),
    ("left_out", "Left out", fmt.fmt_text),
)
"""The headline table's displayed columns."""

TABLES: tuple[fmt.ReportTable, ...] = (
    fmt.ReportTable(
        "table3",
        "table3",
        "Table 3: yearly accuracy (%) and average YoY change (%)",
        note="A year's accuracy: correct / scored over its n questions "
        "(analysis.table3.yearly: pooled, the paper's) or the mean of its monthly "
        "accuracies (mean_of_months). YoY change at month m is 100 (acc(m) - acc(m-12)) / "
        "acc(m-12), from 12 months after the period's first month; each average is over "
        "the months in the last column (n: months with a YoY value). "
        "analysis.table3.windows: paper (the paper's) averages the pre_months (paper: 24) "
        "months before the knowledge-cutoff month (Pre) and the post_months (7) from it "
        "(Post); all_months every month up "
        "to and including it and every later one. Models without a cutoff have neither. "
        "An average whose months include one of fewer than analysis.table3.min_month_n "
        "questions is left out with the reason (beyond the paper). "
        "Bootstrap 95% intervals in brackets (analysis.bootstrap). "
        f"{fmt.EXCLUDES_MARK}: the interval does not contain its estimate (the YoY statistic is "
        "strongly biased under resampling there); do not read it as an interval.",
        markdown=True,
        render=table3_display,
        part="yearly",
        empty="No series has monthly accuracy to average by year.",
    ),
    fmt.ReportTable(
        "headline_decline",
        "headline-decline",
        "Closed-book accuracy (%) in the first and the last month of the period, mean over models",
        HEADLINE_COLUMNS,
        "The paper's headline (Daily Oracle, section 4.2): each model's monthly accuracy "
        "in the period's first and last month, averaged over the models with questions in "
        "both (n: their questions), and the relative change 100 (last - first) / first. "
        "Left out: models without questions in either month, and baselines under "
        "analysis.headline.exclude_baselines. The change is reported only when each "
        "model's two months hold at least analysis.headline.min_month_n questions "
        "(beyond the paper); otherwise the table says too few in its place.",
        markdown=True,
        render=headline_display,
        part="yearly",
        empty="No closed-book series.",
    ),
    fmt.ReportTable(
        "slopes",
        "slopes",
        "Fig. 6 data: expanding-window slopes",
        (
            *fmt.KEY_COLUMNS,
            ("window_start", "From", fmt.fmt_text),
            ("window_end", "To", fmt.fmt_text),
            ("n_months", "Months", fmt.fmt_int),
            ("n_points", "Defined", fmt.fmt_int),
            ("slope_pp_per_month", "Slope (pp/month)", fmt.digits(3)),
        ),
        scroll=True,
        part="decline-slopes",
        empty="No series has enough months with a defined moving average for a slope.",
    ),
)
"""Table 3, the headline decline and the slopes, in page order within each part."""


def _detail(example: object, reason: object) -> str:
    """The example message without its leading reason kind (blank when it says no more)."""
    text, kind = blank(example), blank(reason)
    if kind and text.startswith(f"{kind}:"):
        text = text[len(kind) + 1 :].strip()
    return "" if text == kind else text


def _funnel_display(df: pd.DataFrame) -> pd.DataFrame:
    what = [
        f"{w}: {st}" + (f" at {sp}" if sp else "")
        if st and stage in ("rejected", "article_outcome")
        else w
        for w, st, sp, stage in zip(
            df["what"].map(blank),
            df["status"].map(blank),
            df["step"].map(blank),
            df["stage"].map(blank),
            strict=True,
        )
    ]
    return pd.DataFrame(
        {
            "Stage": what,
            "Reason": [blank(r) for r in df["reason"]],
            "Example": [_detail(e, r) for e, r in zip(df["example"], df["reason"], strict=True)],
            "n": [fmt.fmt_int(n) for n in df["n"]],
            "TF": [count_or_blank(n) for n in df["n_tf"]],
            "MC": [count_or_blank(n) for n in df["n_mc"]],
        }
    )


CONSTRUCTION_FUNNEL = fmt.ReportTable(
    "construction_funnel",
    "construction-funnel",
    "From articles to evaluated questions",
    note="Daily Oracle's construction (ICML 2025, section 3.1) read from the candidates "
    "table of stage construct: the articles given to question generation, the candidate "
    "questions, each reason a step rejected candidates for (with the most frequent "
    "message as an example), the leakage audit's drops (construct.leakage.drop_flagged) "
    "and how many published questions were evaluated (questions.max_questions samples "
    "them).",
    render=_funnel_display,
    part="construction",
    empty="No candidates table: the questions were not made by this run's construct stage.",
)


LEAKAGE_COLUMNS: tuple[fmt.Column, ...] = (
    ("flag", "Flag", fmt.fmt_text),
    ("what", "Meaning", fmt.fmt_text),
    ("n", "Questions", fmt.fmt_int),
    ("n_tf", "TF", fmt.fmt_int),
    ("n_mc", "MC", fmt.fmt_int),
    ("audited", "Of", fmt.fmt_int),
    ("share", "%", fmt.fmt_pct),
)
LEAKAGE_AUDIT = fmt.ReportTable(
    "leakage_audit",
    "leakage-audit",
    "Leakage audit of the accepted questions",
    LEAKAGE_COLUMNS,
    "Beyond the paper: questions of the same day and article can give each other away. "
    "Each flag over the questions the audit saw (those passing the QA filter; the answer "
    "flags over MC questions alone, a Yes/No answer cannot be spelled out); a question "
    "can carry several flags. Flagged questions are kept and evaluated unless "
    "construct.leakage.drop_flagged is set (the funnel counts the drops).",
    part="construction",
    empty="No leakage audit: the questions were not made by this run's construct stage.",
)


PART = ReportPart(
    "Daily Oracle",
    outline=read_outline("prescient.benchmarks.daily_oracle"),
    tables=(*TABLES, CONSTRUCTION_FUNNEL, LEAKAGE_AUDIT),
    figures=FIGURES,
    question_sources={"daily_oracle": "Daily Oracle"},
)
"""Daily Oracle's part of the report."""
