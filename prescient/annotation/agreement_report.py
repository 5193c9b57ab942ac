"""Table 4's numbers as a result, and the result as a table, Markdown and metrics
(Daily Oracle, ICML 2025, section 3.3 and appendix A.4).

:mod:`prescient.annotation.agreement` computes the statistics; this module only lays
them out, so the wording and formatting of the report change without touching the
statistics, and the report for the time before any annotation exists
(:func:`awaiting_report`) shares the table's rows and columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from prescient.annotation.settings import TableSettings
from prescient.annotation.stats import Interval
from prescient.vocab import PRINCIPLE_LABELS, PRINCIPLES

TABLE_COLUMNS: tuple[str, ...] = (
    "row",
    "metric",
    "fleiss_kappa",
    "fleiss_kappa_ci_low",
    "fleiss_kappa_ci_high",
    "krippendorff_alpha",
    "accuracy_pct",
    "accuracy_ci_low_pct",
    "accuracy_ci_high_pct",
    "n_items_kappa",
    "n_items_accuracy",
)


def _fmt(x: float | None, digits: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{round(x, digits) + 0.0:.{digits}f}"  # + 0.0 turns -0.00 into 0.00


def _num(x: float) -> float | None:
    """JSON-safe number: NaN becomes null (no invented value)."""
    return None if math.isnan(x) else float(x)


@dataclass
class AgreementResult:
    """Everything Table 4 and the metrics report; NaN marks an undefined statistic."""

    annotators: list[str]
    n_items: int
    n_items_complete: int
    ratings_per_annotator: dict[str, int]
    kappa: dict[str, float]
    kappa_ci: dict[str, Interval]
    kappa_average: float
    kappa_average_ci: Interval
    alpha: dict[str, float]
    accuracy: dict[str, float]
    accuracy_n: dict[str, int]
    accuracy_ci: dict[str, Interval]
    accuracy_average: float
    accuracy_average_ci: Interval
    decision_accuracy: float
    decision_accuracy_ci: Interval
    decision_n: int
    confusion: dict[str, dict[str, int]]
    settings: TableSettings

    def table(self) -> pd.DataFrame:
        """Table 4 as rows: the seven principles, their average, the accept decision."""
        rows: list[dict[str, Any]] = []
        for k in PRINCIPLES:
            rows.append(
                {
                    "row": k,
                    "metric": PRINCIPLE_LABELS[k],
                    "fleiss_kappa": self.kappa[k],
                    "fleiss_kappa_ci_low": self.kappa_ci[k].low,
                    "fleiss_kappa_ci_high": self.kappa_ci[k].high,
                    "krippendorff_alpha": self.alpha[k],
                    "accuracy_pct": 100 * self.accuracy[k],
                    "accuracy_ci_low_pct": 100 * self.accuracy_ci[k].low,
                    "accuracy_ci_high_pct": 100 * self.accuracy_ci[k].high,
                    "n_items_kappa": self.n_items_complete,
                    "n_items_accuracy": self.accuracy_n[k],
                }
            )
        rows.append(
            {
                "row": "average",
                "metric": "Average",
                "fleiss_kappa": self.kappa_average,
                "fleiss_kappa_ci_low": self.kappa_average_ci.low,
                "fleiss_kappa_ci_high": self.kappa_average_ci.high,
                "krippendorff_alpha": math.nan,
                "accuracy_pct": 100 * self.accuracy_average,
                "accuracy_ci_low_pct": 100 * self.accuracy_average_ci.low,
                "accuracy_ci_high_pct": 100 * self.accuracy_average_ci.high,
                "n_items_kappa": self.n_items_complete,
                "n_items_accuracy": min(self.accuracy_n.values()) if self.accuracy_n else 0,
            }
        )
        rows.append(
            {
                "row": "accept_decision",
                "metric": f"Accept decision (total >= {self.settings.accept_threshold})",
                "fleiss_kappa": math.nan,
                "fleiss_kappa_ci_low": math.nan,
                "fleiss_kappa_ci_high": math.nan,
                "krippendorff_alpha": math.nan,
                "accuracy_pct": 100 * self.decision_accuracy,
                "accuracy_ci_low_pct": 100 * self.decision_accuracy_ci.low,
                "accuracy_ci_high_pct": 100 * self.decision_accuracy_ci.high,
                "n_items_kappa": None,
                "n_items_accuracy": self.decision_n,
            }
        )
        return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))

    def markdown(self) -> str:
        """Table 4 in the paper's layout, with intervals, alpha and the confusion matrix."""
        s = self.settings.agreement
        threshold = self.settings.accept_threshold
        pct = round(100 * s.bootstrap.confidence)
        lines = [
            "# Table 4: human agreement and human vs LLM filter",
            "",
            f"{len(self.annotators)} annotators ({', '.join(self.annotators)}), "
            f"{self.n_items} items in the packets, {self.n_items_complete} rated by all "
            "annotators.",
            "",
            f"| Metric | Human agreement: Fleiss' kappa [{pct}% CI] | Human vs LLM: "
            f"accuracy % [{pct}% CI] | Krippendorff's alpha ({s.krippendorff_level}) |",
            "| --- | --- | --- | --- |",
        ]
        for k in PRINCIPLES:
            lines.append(
                f"| {PRINCIPLE_LABELS[k]} | {_cell(self.kappa[k], self.kappa_ci[k], 2)} | "
                f"{_cell(100 * self.accuracy[k], self.accuracy_ci[k], 2, 1, 100)} | "
                f"{_fmt(self.alpha[k], 2)} |"
            )
        lines.append(
            f"| **Average** | **{_fmt(self.kappa_average, 2)}** {_ci(self.kappa_average_ci, 2)} | "
            f"**{_fmt(100 * self.accuracy_average, 2)}** "
            f"{_ci(self.accuracy_average_ci, 1, 100)} | |"
        )
        lines.append(
            f"| Accept decision (total >= {threshold}) | | "
            f"{_fmt(100 * self.decision_accuracy, 2)} {_ci(self.decision_accuracy_ci, 1, 100)} | |"
        )
        c = self.confusion
        lines += [
            "",
            f"Accept decision, {self.decision_n} items (rows: human consensus, columns: LLM filter):",
            "",
            "| | LLM accepts | LLM rejects |",
            "| --- | --- | --- |",
            f"| Humans accept | {c['human_accept']['llm_accept']} | {c['human_accept']['llm_reject']} |",
            f"| Humans reject | {c['human_reject']['llm_accept']} | {c['human_reject']['llm_reject']} |",
            "",
            "Notes: kappa over the items rated by every annotator; the average is the mean "
            "over principles with a defined kappa (n/a: every rating of that principle was "
            "the same). Consensus = mean of the human scores rounded "
            f"{s.consensus_rounding.replace('_', ' ')}, from at least {s.consensus_min_raters} "
            "rating(s). Intervals: percentile bootstrap over items, "
            f"{s.bootstrap.reps} resamples.",
            "",
        ]
        return "\n".join(lines)

    def metrics(self) -> dict[str, Any]:
        """The metrics JSON (NaN -> null)."""

        def ci(iv: Interval) -> dict[str, Any]:
            return {"low": _num(iv.low), "high": _num(iv.high), "n_valid": iv.n_valid}

        s = self.settings.agreement
        return {
            "status": "ok",
            "annotators": self.annotators,
            "n_annotators": len(self.annotators),
            "n_items": self.n_items,
            "n_items_rated_by_all": self.n_items_complete,
            "ratings_per_annotator": self.ratings_per_annotator,
            "fleiss_kappa": {k: _num(v) for k, v in self.kappa.items()},
            "fleiss_kappa_ci": {k: ci(v) for k, v in self.kappa_ci.items()},
            "fleiss_kappa_average": _num(self.kappa_average),
            "fleiss_kappa_average_ci": ci(self.kappa_average_ci),
            "krippendorff_alpha": {k: _num(v) for k, v in self.alpha.items()},
            "krippendorff_level": s.krippendorff_level,
            "accuracy": {k: _num(v) for k, v in self.accuracy.items()},
            "accuracy_n": self.accuracy_n,
            "accuracy_ci": {k: ci(v) for k, v in self.accuracy_ci.items()},
            "accuracy_average": _num(self.accuracy_average),
            "accuracy_average_ci": ci(self.accuracy_average_ci),
            "accept_decision": {
                "threshold": self.settings.accept_threshold,
                "accuracy": _num(self.decision_accuracy),
                "accuracy_ci": ci(self.decision_accuracy_ci),
                "n": self.decision_n,
                "confusion": self.confusion,
            },
            "consensus_rounding": s.consensus_rounding,
            "consensus_min_raters": s.consensus_min_raters,
            "bootstrap": {"reps": s.bootstrap.reps, "confidence": s.bootstrap.confidence},
        }


def _ci(iv: Interval, digits: int, scale: float = 1.0) -> str:
    if iv.n_valid == 0:
        return ""
    return f"[{_fmt(scale * iv.low, digits)}, {_fmt(scale * iv.high, digits)}]"


def _cell(
    x: float, iv: Interval, digits: int, ci_digits: int | None = None, scale: float = 1.0
) -> str:
    """``value [low, high]``, or just ``n/a`` for an undefined value."""
    return f"{_fmt(x, digits)} {_ci(iv, digits if ci_digits is None else ci_digits, scale)}".strip()


def awaiting_report(
    manifest: Mapping[str, Any], ratings_found: Sequence[str], ratings_dir: str
) -> tuple[dict[str, Any], str, pd.DataFrame]:
    """Metrics, Markdown and an empty-valued table for when no annotation exists yet.

    No statistic is computed or guessed: the table keeps the Table 4 rows with empty
    values, and the report says which packets await annotation and where files go.
    """
    annotators = list(manifest.get("annotators", []))
    awaiting = [a for a in annotators if a not in set(ratings_found)]
    n_items = len(manifest.get("item_ids", []))
    metrics = {
        "status": "awaiting_annotations",
        "n_items": n_items,
        "n_packets": len(annotators),
        "n_annotation_files": len(ratings_found),
        "packets_awaiting": awaiting,
        "ratings_dir": ratings_dir,
        "sample": manifest.get("sample", {}),
    }
    lines = [
        "# Table 4: human agreement and human vs LLM filter",
        "",
        f"**Awaiting annotations.** No annotation file in `{ratings_dir}` yet, so no "
        "agreement statistic is reported.",
        "",
        f"{n_items} items in each of {len(annotators)} packets; awaiting: "
        + (", ".join(f"`{a}`" for a in awaiting) or "none")
        + ".",
        "",
        "Annotate with `python -m prescient annotate serve --annotator NAME` (or fill the "
        "packet CSV and run `python -m prescient annotate import`), then `dvc repro`.",
        "",
    ]
    table = pd.DataFrame(
        [{"row": k, "metric": PRINCIPLE_LABELS[k]} for k in PRINCIPLES]
        + [
            {"row": "average", "metric": "Average"},
            {"row": "accept_decision", "metric": "Accept decision"},
        ],
        columns=list(TABLE_COLUMNS),
    )
    return metrics, "\n".join(lines), table
