"""Question construction's metrics (``reports/metrics/construct.json``): what each step
did with its calls, what it passed on, stopped or left empty, the filter's score
distributions, acceptance, categories, MC types and the answers of TF questions, read
from the candidates table :mod:`.construct` writes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import pandas as pd

from prescient import dates
from prescient.benchmarks.daily_oracle.construct_settings import (
    MC_SLOTS,
    TF_EXPECTED,
    TF_SLOTS,
    ConstructSettings,
)
from prescient.prompts import PromptTemplate
from prescient.step_templates import STEPS
from prescient.vocab import (
    ACCEPTED,
    FILTERED_OUT,
    GENERATED,
    INVALID,
    LEAKAGE_DROPPED,
    LLM_ERROR,
    MC,
    N_MC_CHOICES,
    NO_NEW_EVENT,
    PAPER_ACCEPT_THRESHOLD,
    PARSE_ERROR,
    PRINCIPLES,
    SCORE_VALUES,
    TF,
    TF_CHOICES,
)


def _counts(values: pd.Series) -> dict[str, int]:
    return {str(k): int(v) for k, v in values.value_counts(dropna=False).sort_index().items()}


def _reason_kind(reason: Any) -> str:
    text = str(reason or "")
    return text.split(":", 1)[0] if ":" in text else text


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _step_errors(step: str, rows: pd.DataFrame) -> dict[str, int]:
    """Parse errors and failed calls of the rows whose fate ``step`` decided."""
    here = rows[rows["step"] == step]
    return {
        PARSE_ERROR: int((here["status"] == PARSE_ERROR).sum()),
        LLM_ERROR: int((here["status"] == LLM_ERROR).sum()),
    }


def _passed_filter(scored: pd.DataFrame) -> int:
    """Scored questions at or above the threshold (later dropped for leakage included)."""
    return int(scored["status"].isin([ACCEPTED, LEAKAGE_DROPPED]).sum())


def step_metrics(
    candidates: pd.DataFrame, s: ConstructSettings, calls: Mapping[str, Counter[str]]
) -> dict[str, Any]:
    """What each step did: its calls, and what it passed on, stopped or left empty."""
    arts = candidates[candidates["kind"] == "article"]
    qs = candidates[candidates["kind"] == "question"]
    acc = qs[qs["status"] == ACCEPTED]
    scored = qs[qs["filter_total"].notna()]
    in_slots = qs[qs["slot"].isin([*TF_SLOTS, *MC_SLOTS])]
    invalid = qs[qs["status"] == INVALID]
    generated = int((arts["status"] == GENERATED).sum())
    return {
        "summary": {
            **dict(calls["summary"]),
            NO_NEW_EVENT: int((arts["status"] == NO_NEW_EVENT).sum()),
            **_step_errors("summary", arts),
        },
        "generate": {
            **dict(calls["generate"]),
            "articles_with_questions": generated,
            "questions_parsed": len(qs),
            "questions_in_slots_1_4": len(in_slots),
            "slots_left_empty": len((*TF_SLOTS, *MC_SLOTS)) * generated - len(in_slots),
            **_step_errors("generate", arts),
        },
        "validate": {
            "invalid": len(invalid),
            "by_reason": _counts(invalid["reason"].map(_reason_kind)),
        },
        "distract": {
            **dict(calls["distract"]),
            **_step_errors("distract", qs),
            "fallback": s.distractor_fallback,
            "by_source": _counts(qs["distractor_source"].dropna()),
            "accepted_by_source": _counts(acc["distractor_source"].dropna()),
        },
        "filter": {
            **dict(calls["filter"]),
            "scored": len(scored),
            ACCEPTED: _passed_filter(scored),
            FILTERED_OUT: int((qs["status"] == FILTERED_OUT).sum()),
            **_step_errors("filter", qs),
        },
        "categorize": {
            **dict(calls["categorize"]),
            "categorized": int(acc["category"].notna().sum()),
            "uncategorized": int(acc["category"].isna().sum()),
        },
    }


def question_metrics(candidates: pd.DataFrame) -> dict[str, Any]:
    """Questions by status and reason, acceptance rates, and accepted questions per day
    (days without any included) and per month."""
    arts = candidates[candidates["kind"] == "article"]
    qs = candidates[candidates["kind"] == "question"]
    acc = qs[qs["status"] == ACCEPTED]
    scored = qs[qs["filter_total"].notna()]
    per_day = acc.groupby("resolution_date").size()
    days = sorted(set(arts["resolution_date"]))
    per_day_all = per_day.reindex(days, fill_value=0) if days else per_day
    by_month = (
        acc.assign(month=[dates.month_label(dates.month_index(d)) for d in acc["resolution_date"]])
        .groupby("month")
        .size()
    )
    return {
        "candidates": len(qs),
        "by_status": _counts(qs["status"]),
        "by_reason": _counts(qs.loc[qs["reason"].notna(), "reason"].map(_reason_kind)),
        ACCEPTED: len(acc),
        "accepted_by_qtype": _counts(acc["qtype"]),
        "acceptance_rate": _rate(len(acc), len(qs)),
        "acceptance_rate_of_scored": _rate(_passed_filter(scored), len(scored)),
        "per_day": {
            "days": len(days),
            "mean": round(float(per_day_all.mean()), 3) if len(per_day_all) else 0.0,
            "min": int(per_day_all.min()) if len(per_day_all) else 0,
            "max": int(per_day_all.max()) if len(per_day_all) else 0,
            "days_without_questions": int((per_day_all == 0).sum()),
        },
        "by_month": {str(k): int(v) for k, v in by_month.items()},
    }


def score_metrics(candidates: pd.DataFrame, s: ConstructSettings) -> dict[str, Any]:
    """The threshold against the paper's, and the distribution of every principle's score
    and of the total over the scored questions."""
    qs = candidates[candidates["kind"] == "question"]
    scored = qs[qs["filter_total"].notna()]
    return {
        "threshold": {
            "accept_threshold": s.accept_threshold,
            "paper_threshold": PAPER_ACCEPT_THRESHOLD,
            "relaxed": s.accept_threshold < PAPER_ACCEPT_THRESHOLD,
            "scored_at_or_above_paper_threshold": int(
                (scored["filter_total"] >= PAPER_ACCEPT_THRESHOLD).sum()
            ),
        },
        "scores": {
            **{
                k: {
                    "counts": {str(v): int((scored[k] == v).sum()) for v in SCORE_VALUES},
                    "mean": round(float(scored[k].mean()), 3) if len(scored) else None,
                }
                for k in PRINCIPLES
            },
            "filter_total": _counts(scored["filter_total"].astype(int)) if len(scored) else {},
        },
    }


def answer_metrics(candidates: pd.DataFrame) -> dict[str, Any]:
    """Categories and MC types of the accepted questions, where the right MC option
    landed after shuffling, and the TF answers against the slot design."""
    qs = candidates[candidates["kind"] == "question"]
    acc = qs[qs["status"] == ACCEPTED]
    mc_ok = qs[(qs["qtype"] == MC) & qs["choices"].notna()]
    mc_acc = acc[acc["qtype"] == MC]
    tf = qs[(qs["qtype"] == TF) & qs["answer_index"].notna()]
    return {
        "categories": _counts(acc["category"].fillna("(uncategorized)")),
        "mc_types": _counts(mc_acc["mc_type"]),
        "answer_position": {
            "mc": {str(i): int((mc_ok["answer_index"] == i).sum()) for i in range(N_MC_CHOICES)},
            "mc_accepted": {
                str(i): int((mc_acc["answer_index"] == i).sum()) for i in range(N_MC_CHOICES)
            },
        },
        "tf_answers": {
            **{choice: int((tf["answer"] == choice).sum()) for choice in TF_CHOICES},
            "differs_from_slot_design": int(
                sum(
                    TF_EXPECTED.get(int(slot)) != ans
                    for slot, ans in zip(tf["slot"], tf["answer"], strict=True)
                )
            ),
        },
    }


def construct_metrics(
    candidates: pd.DataFrame,
    s: ConstructSettings,
    calls: Mapping[str, Counter[str]],
    leak: Mapping[str, Any],
    outside_window: int,
    templates: Mapping[str, PromptTemplate],
) -> dict[str, Any]:
    """Counts per step and reason, score distributions, acceptance, categories, MC types."""
    arts = candidates[candidates["kind"] == "article"]
    return {
        "window": {
            "date_start": s.date_start.isoformat() if s.date_start else None,
            "date_end": s.date_end.isoformat() if s.date_end else None,
            "selected_outside_window_or_budget": outside_window,
        },
        "articles": {
            "total": len(arts),
            "days": len(set(arts["resolution_date"])),
            "by_status": _counts(arts["status"]),
        },
        "steps": step_metrics(candidates, s, calls),
        "questions": question_metrics(candidates),
        **score_metrics(candidates, s),
        **answer_metrics(candidates),
        "leakage": dict(leak),
        "models": dict(s.models),
        "templates": {st: templates[st].label for st in STEPS},
        "llm_calls": {st: dict(calls[st]) for st in STEPS},
    }
