"""How the report shows the tables of FreshBench's tests on the analysis's scores (NAACL
2025, section 4.1: the bias tests, temporal degeneration and the decline table), in the
report's bias-tests part.
"""

from __future__ import annotations

import pandas as pd

from prescient.benchmarks.freshbench.analysis import TOO_FEW_DECLINE
from prescient.report import tables as fmt

FLOOR_NOTE = (
    "No test is run, and no mark printed, where a compared group has fewer questions than "
    "analysis.freshbench.min_n, or fewer correct or wrong answers than min_outcomes "
    "(status: too few questions)."
)


DECLINE_COLUMNS: tuple[fmt.Column, ...] = (
    *fmt.KEY_COLUMNS,
    ("anchor", "Anchor", fmt.fmt_text),
    ("anchor_date", "Date", fmt.fmt_text),
    ("reference", "Reference", fmt.fmt_text),
    ("pre_accuracy", "Pre-release acc. (%)", fmt.fmt_pct),
    ("n_pre", "n pre", fmt.fmt_int),
    ("post_accuracy", "First post-release acc. (%)", fmt.fmt_pct),
    ("n_post", "n post", fmt.fmt_int),
    ("post_start", "Post from", fmt.fmt_text),
    ("post_end", "Post to (excl.)", fmt.fmt_text),
    ("n_post_periods", "Periods", fmt.fmt_int),
    ("decline", "Decline (pp)", fmt.fmt_pct),
    ("pct_decline", "Decline (%)", fmt.fmt_number),
    ("status", "Status", fmt.fmt_text),
)
"""The decline table's displayed columns."""


def decline_display(df: pd.DataFrame) -> pd.DataFrame:
    """The decline table, with "too few" in place of a decline one side of which holds
    fewer than ``analysis.freshbench.min_n`` questions (its status names the side)."""
    out = fmt.display_frame(df, DECLINE_COLUMNS)
    few = [str(v).endswith(TOO_FEW_DECLINE) for v in df.get("status", [""] * len(df))]
    for header in ("Decline (pp)", "Decline (%)"):
        out[header] = [
            t if t == fmt.MISSING else fmt.in_place_of(t, "too few" if f else "")
            for f, t in zip(few, out[header], strict=True)
        ]
    return out


FRESHBENCH_TABLES: tuple[fmt.ReportTable, ...] = (
    fmt.ReportTable(
        "freshbench_bias",
        "freshbench-bias",
        "FreshBench bias tests: each past window against the present window",
        (
            *fmt.KEY_COLUMNS,
            ("anchor", "Anchor", fmt.fmt_text),
            ("anchor_date", "Date", fmt.fmt_text),
            ("month_rule", "Months", fmt.fmt_text),
            ("window", "Months before", fmt.fmt_text),
            ("window_start", "From", fmt.fmt_text),
            ("window_end", "To (excl.)", fmt.fmt_text),
            ("acc_past", "Acc. past (%)", fmt.fmt_pct),
            ("n_past", "n past", fmt.fmt_int),
            ("acc_present", "Acc. present (%)", fmt.fmt_pct),
            ("n_present", "n present", fmt.fmt_int),
            ("p_neophilia", "p Neophilia", fmt.fmt_p),
            ("p_nostalgia", "p Nostalgia", fmt.fmt_p),
            ("verdict", "Bias", fmt.fmt_text),
            ("status", "Status", fmt.fmt_text),
        ),
        "One-sided two-proportion z-tests, p = 1 - Phi(z). Neophilia: past < present; "
        "Nostalgia: past > present. * p < 0.05, ** p < 0.01, *** p < 0.001. Months: "
        "calendar (calendar months before the anchor) or freshbench (FreshBench's 30-day "
        "months, the present window reaching 15 days past the anchor). " + FLOOR_NOTE,
        scroll=True,
        markdown=True,
        part="bias-tests",
        empty="No model with an anchor date has questions in a past and the present window.",
    ),
    fmt.ReportTable(
        "freshbench_degeneration",
        "freshbench-degeneration",
        "FreshBench temporal degeneration: periods after the anchor date against the "
        "reference accuracy",
        (
            *fmt.KEY_COLUMNS,
            ("anchor", "Anchor", fmt.fmt_text),
            ("period_rule", "Periods", fmt.fmt_text),
            ("period_start", "From", fmt.fmt_text),
            ("period_end", "To (excl.)", fmt.fmt_text),
            ("acc_future", "Acc. (%)", fmt.fmt_pct),
            ("n_future", "n", fmt.fmt_int),
            ("reference", "Reference", fmt.fmt_text),
            ("acc_reference", "Acc. reference (%)", fmt.fmt_pct),
            ("n_reference", "n reference", fmt.fmt_int),
            ("z", "z", fmt.fmt_number),
            ("p", "p", fmt.fmt_p),
            ("mark", "Sig.", fmt.fmt_text),
            ("status", "Status", fmt.fmt_text),
        ),
        "H1: accuracy in the period is lower than the reference: the present window "
        "(present) or every question resolved before the anchor date (pre_anchor). " + FLOOR_NOTE,
        scroll=True,
        markdown=True,
        part="bias-tests",
        empty="No model with an anchor date has questions after it.",
    ),
    fmt.ReportTable(
        "freshbench_decline",
        "freshbench-decline",
        "FreshBench decline table",
        DECLINE_COLUMNS,
        "Pre-release accuracy is the reference's; the first post-release accuracy is the "
        "mean accuracy of the first periods after the anchor date that have questions. "
        "Where either side holds fewer than analysis.freshbench.min_n questions the "
        "decline says too few in its place (the status says which side).",
        markdown=True,
        render=decline_display,
        part="bias-tests",
        empty="No model with an anchor date has questions before and after it.",
    ),
    fmt.ReportTable(
        "freshbench_skipped",
        "freshbench-skipped",
        "Models skipped by the FreshBench tests",
        (
            ("model", "Model", fmt.fmt_text),
            ("anchor", "Anchor", fmt.fmt_text),
            ("reason", "Reason", fmt.fmt_text),
        ),
        part="bias-tests",
        empty="Every model has the dates the tests need.",
    ),
)
"""FreshBench's analysis tables, in page order."""
