"""Draw the human-evaluation sample and lay it out as annotation packets.

The sample is drawn from the candidates the LLM filter scored, stratified by question
type and by the filter's decision, so the humans see both questions the filter kept
and questions it dropped: only then can its decisions be checked in both directions.
Selection ranks candidates by a hash of (seed, stratum, question_id), which makes it
reproducible and independent of the row order of the input table.

Packets carry the article, the question and answer (with the choices of an MC question)
but never the LLM's scores, so annotators are not anchored by them.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from prescient.annotation.principles import PRINCIPLES
from prescient.annotation.ratings import check_annotator_name
from prescient.vocab import accepted

logger = logging.getLogger(__name__)

QTYPES: tuple[str, ...] = ("tf", "mc")

# Columns of the spreadsheet packet, in order; the seven score columns are left blank.
CSV_COLUMNS: tuple[str, ...] = (
    "position",
    "item_id",
    "qtype",
    "resolution_date",
    "question",
    "choices",
    "answer",
    "article_title",
    "article_date",
    "article_url",
    "article_text",
    *PRINCIPLES,
)


@dataclass(frozen=True)
class SampleSettings:
    """How many questions to draw and how (``annotation`` params section).

    Attributes:
        n_per_qtype: requested sample size per question type (paper: 30 TF and 30 MC).
        accepted_share: share of each type's sample drawn from questions the filter
            accepted (the rest from rejected ones); None draws uniformly from all scored
            candidates, i.e. in the filter's own proportions.
        accept_threshold: a candidate is accepted by the filter when its total is at
            least this (paper: 13 of 14); the rule itself is ``prescient.qa.parse.accepted``.
        annotators: one packet per name.
        shuffle_per_annotator: give each annotator the items in their own seeded order,
            so that fatigue and order effects do not hit the same items for everyone.
        seed: derived from ``base.seed``.
    """

    n_per_qtype: Mapping[str, int]
    accepted_share: float | None
    accept_threshold: int
    annotators: tuple[str, ...]
    shuffle_per_annotator: bool
    seed: int

    def __post_init__(self) -> None:
        for q, n in self.n_per_qtype.items():
            if q not in QTYPES or int(n) < 0:
                raise ValueError(f"sample size for {q!r} must be a qtype in {QTYPES} and >= 0")
        if self.accepted_share is not None and not 0.0 <= self.accepted_share <= 1.0:
            raise ValueError("accepted_share must lie in [0, 1] or be null")
        if not self.annotators:
            raise ValueError("at least one annotator is needed")
        if len(set(self.annotators)) != len(self.annotators):
            raise ValueError(f"duplicate annotator names in {list(self.annotators)}")
        for name in self.annotators:
            check_annotator_name(name)

    @classmethod
    def from_params(cls, annotation: Mapping[str, Any], seed: int) -> SampleSettings:
        sample = annotation["sample"]
        share = sample.get("accepted_share")
        return cls(
            n_per_qtype={"tf": int(sample["n_tf"]), "mc": int(sample["n_mc"])},
            accepted_share=None if share is None else float(share),
            accept_threshold=int(annotation["accept_threshold"]),
            annotators=tuple(str(a) for a in annotation["annotators"]),
            shuffle_per_annotator=bool(sample["shuffle_per_annotator"]),
            seed=int(seed),
        )


@dataclass
class SampleReport:
    """What was requested, what was available and what was drawn, per stratum."""

    requested: dict[str, int]
    available: dict[str, dict[str, int]] = field(default_factory=dict)
    drawn: dict[str, dict[str, int]] = field(default_factory=dict)
    shortfall: dict[str, int] = field(default_factory=dict)
    candidates_total: int = 0
    candidates_scored: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "requested": self.requested,
            "available": self.available,
            "drawn": self.drawn,
            "shortfall": self.shortfall,
            "candidates_total": self.candidates_total,
            "candidates_scored": self.candidates_scored,
            "n_items": sum(sum(d.values()) for d in self.drawn.values()),
        }


def stable_key(seed: int, stratum: str, item_id: str) -> str:
    """The sort key that decides selection: a hash, so input row order does not matter."""
    return hashlib.sha256(f"{seed}/{stratum}/{item_id}".encode()).hexdigest()


def scored_candidates(candidates: pd.DataFrame) -> pd.DataFrame:
    """Candidates the LLM filter scored: all seven principle scores present.

    Raises:
        ValueError: when columns are missing or a question id repeats.
    """
    needed = ["question_id", "qtype", *PRINCIPLES]
    missing = [c for c in needed if c not in candidates.columns]
    if missing:
        raise ValueError(f"qa_candidates lacks column(s) {missing}")
    scored = candidates[candidates[list(PRINCIPLES)].notna().all(axis=1)].copy()
    dupes = scored["question_id"][scored["question_id"].duplicated()].unique().tolist()
    if dupes:
        raise ValueError(f"question_id repeats among scored candidates: {dupes[:10]}")
    for k in PRINCIPLES:
        scored[k] = scored[k].astype(int)
    llm_total = scored[list(PRINCIPLES)].sum(axis=1)
    if "filter_total" in scored.columns:
        differs = scored["filter_total"].notna() & (scored["filter_total"] != llm_total)
        if differs.any():
            logger.warning(
                "%d candidate(s) have filter_total != the sum of their seven scores; "
                "the sum is used",
                int(differs.sum()),
            )
    scored["llm_total"] = llm_total.astype(int)
    return scored


def _split(n: int, share: float) -> tuple[int, int]:
    accepted = math.floor(n * share + 0.5)
    return accepted, n - accepted


def draw_sample(
    candidates: pd.DataFrame, settings: SampleSettings
) -> tuple[pd.DataFrame, SampleReport]:
    """Draw the seeded, stratified sample from the filter-scored candidates.

    Per question type: ``accepted_share`` of the requested size from accepted
    candidates and the rest from rejected ones; when a stratum runs short, the other
    stratum makes up the difference; when a type has fewer scored candidates than
    requested, all of them are taken and the shortfall is reported (never padded).

    Returns:
        The sample (candidate rows plus ``llm_accepted`` and ``stratum``), ordered by
        type then selection key, and the report of what was drawn.
    """
    scored = scored_candidates(candidates)
    scored["llm_accepted"] = scored["llm_total"].map(
        lambda t: accepted(int(t), settings.accept_threshold)
    )
    report = SampleReport(
        requested=dict(settings.n_per_qtype),
        candidates_total=len(candidates),
        candidates_scored=len(scored),
    )
    parts: list[pd.DataFrame] = []
    for qtype in QTYPES:
        n = int(settings.n_per_qtype.get(qtype, 0))
        pool = scored[scored["qtype"] == qtype]
        strata = {
            "accepted": pool[pool["llm_accepted"]],
            "rejected": pool[~pool["llm_accepted"]],
        }
        ranked = {
            name: frame.assign(
                _key=[stable_key(settings.seed, f"{qtype}/{name}", i) for i in frame["question_id"]]
            ).sort_values("_key")
            for name, frame in strata.items()
        }
        report.available[qtype] = {name: len(f) for name, f in strata.items()}
        if settings.accepted_share is None:
            everything = pd.concat(
                [
                    f.assign(_key=[stable_key(settings.seed, qtype, i) for i in f["question_id"]])
                    for f in strata.values()
                ]
            ).sort_values("_key")
            taken = everything.head(n)
            counts = {
                "accepted": int(taken["llm_accepted"].sum()),
                "rejected": int((~taken["llm_accepted"]).sum()),
            }
            chosen = {
                "accepted": taken[taken["llm_accepted"]],
                "rejected": taken[~taken["llm_accepted"]],
            }
        else:
            want_acc, want_rej = _split(n, settings.accepted_share)
            have_acc, have_rej = len(strata["accepted"]), len(strata["rejected"])
            take_acc = min(have_acc, want_acc + max(0, want_rej - have_rej))
            take_rej = min(have_rej, n - take_acc)
            counts = {"accepted": take_acc, "rejected": take_rej}
            chosen = {name: ranked[name].head(counts[name]) for name in ranked}
        report.drawn[qtype] = counts
        drawn = sum(counts.values())
        if drawn < n:
            report.shortfall[qtype] = n - drawn
            logger.warning(
                "only %d scored %s candidate(s) available for %d requested: all taken",
                drawn,
                qtype.upper(),
                n,
            )
        for name, frame in chosen.items():
            parts.append(frame.assign(stratum=f"{qtype}/{name}"))
    sample = pd.concat(parts) if parts else scored.head(0)
    sample = sample.sort_values(["qtype", "_key"], key=_qtype_first).drop(columns="_key")
    return sample.reset_index(drop=True), report


def _qtype_first(col: pd.Series) -> pd.Series:
    if col.name == "qtype":
        return col.map({q: i for i, q in enumerate(QTYPES)})
    return col


def _iso(value: Any) -> str:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, pd.Timestamp):
        return value.date().isoformat()
    return str(value)


def _clean(value: Any) -> Any:
    """None for missing scalars (None, NaN, pd.NA), so the packet stays valid JSON."""
    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return None
    return value


def build_items(sample: pd.DataFrame, articles: pd.DataFrame) -> list[dict[str, Any]]:
    """Join each sampled question with its article: the packet records, without scores.

    Raises:
        ValueError: listing sampled questions whose article is missing.
    """
    needed = set(sample["article_id"])
    by_id = {
        str(a["article_id"]): a
        for a in articles[articles["article_id"].isin(needed)].to_dict(orient="records")
    }
    missing = sorted(needed - set(by_id))
    if missing:
        raise ValueError(f"sampled questions cite unknown article id(s): {missing[:10]}")
    items: list[dict[str, Any]] = []
    for rec in sample.to_dict(orient="records"):
        art = by_id[str(rec["article_id"])]
        raw_choices = rec.get("choices")
        choices = [str(c) for c in raw_choices] if raw_choices is not None else []
        items.append(
            {
                "item_id": str(rec["question_id"]),
                "qtype": str(rec["qtype"]),
                "question": str(rec["question"]),
                "choices": choices,
                "answer": str(rec["answer"]),
                "resolution_date": _iso(rec["resolution_date"]),
                "article": {
                    "article_id": str(art["article_id"]),
                    "title": str(art["title"]),
                    "date": _iso(art["date"]),
                    "url": _clean(art.get("url")),
                    "source_domain": _clean(art.get("source_domain")),
                    "text": str(art["text"]),
                },
            }
        )
    return items


def packet_order(
    items: Sequence[Mapping[str, Any]], annotator: str, settings: SampleSettings
) -> list[Mapping[str, Any]]:
    """The order in which ``annotator`` sees the items (seeded per annotator)."""
    if not settings.shuffle_per_annotator:
        return list(items)
    return sorted(
        items, key=lambda it: stable_key(settings.seed, f"order/{annotator}", it["item_id"])
    )


def packet_jsonl(items: Sequence[Mapping[str, Any]]) -> str:
    """One JSON object per item, with its 1-based ``position`` in the packet."""
    lines = [
        json.dumps({"position": i, **item}, ensure_ascii=False, sort_keys=False)
        for i, item in enumerate(items, 1)
    ]
    return "".join(line + "\n" for line in lines)


def format_choices(choices: Sequence[str]) -> str:
    """MC choices as ``A) ...`` lines (empty for TF, whose choices are Yes/No)."""
    return "\n".join(f"{chr(65 + i)}) {c}" for i, c in enumerate(choices))


def packet_csv(items: Sequence[Mapping[str, Any]]) -> str:
    """The spreadsheet packet: one row per item, blank score columns to fill with 0/1/2."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for i, item in enumerate(items, 1):
        art = item["article"]
        writer.writerow(
            [
                i,
                item["item_id"],
                item["qtype"],
                item["resolution_date"],
                item["question"],
                format_choices(item["choices"]) if item["qtype"] == "mc" else "",
                item["answer"],
                art["title"],
                art["date"],
                art.get("url") or "",
                art["text"],
                *([""] * len(PRINCIPLES)),
            ]
        )
    return buf.getvalue()


def read_packet(path: Path) -> list[dict[str, Any]]:
    """Load a packet's items (JSON Lines), in packet order."""
    items = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                items.append(json.loads(line))
    return items


def manifest(
    items: Sequence[Mapping[str, Any]],
    report: SampleReport,
    settings: SampleSettings,
    rubric: Mapping[str, str],
    candidates_checksum: str,
) -> dict[str, Any]:
    """The packets' index: which items, for whom, drawn how (read by the agreement stage)."""
    return {
        "item_ids": [it["item_id"] for it in items],
        "qtype": {it["item_id"]: it["qtype"] for it in items},
        "annotators": list(settings.annotators),
        "packets": {a: {"jsonl": f"{a}.jsonl", "csv": f"{a}.csv"} for a in settings.annotators},
        "sample": report.to_dict(),
        "accept_threshold": settings.accept_threshold,
        "accepted_share": settings.accepted_share,
        "shuffle_per_annotator": settings.shuffle_per_annotator,
        "seed": settings.seed,
        "rubric": dict(rubric),
        "candidates_checksum": candidates_checksum,
    }
