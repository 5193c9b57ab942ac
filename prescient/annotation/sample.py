"""Draw the human-evaluation sample and lay it out as annotation packets.

The sample is drawn from the candidates the LLM filter scored, stratified by question
type and by the filter's decision, so the humans see both questions the filter kept
and questions it dropped: only then can its decisions be checked in both directions
(Daily Oracle, ICML 2025, section 3.3 and appendix A.4). Selection ranks candidates by
``derive_seed(seed, "annotation_sample", stratum, question_id)``, which makes it
reproducible and independent of the row order of the input table.

Packets carry the article, the question and answer (with the choices of an MC question)
but never the LLM's scores, so annotators are not anchored by them.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from prescient.annotation.principles import Rubric
from prescient.annotation.settings import PacketSettings
from prescient.io import atomic_dir, frame_checksum
from prescient.seeds import derive_seed
from prescient.vocab import CHOICE_LETTERS, MC, PRINCIPLES, QTYPES, accepted

logger = logging.getLogger(__name__)

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


def selection_keys(seed: int, stratum: str, item_ids: Iterable[str]) -> NDArray[np.uint64]:
    """The sort keys that decide selection (seeded; independent of the input's row order).

    Kept as uint64 so frames of keys concatenate without a lossy cast to float.
    """
    keys = [derive_seed(seed, "annotation_sample", stratum, str(i)) for i in item_ids]
    return np.asarray(keys, dtype=np.uint64)


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


def _ranked(frame: pd.DataFrame, seed: int, stratum: str) -> pd.DataFrame:
    return frame.assign(_key=selection_keys(seed, stratum, frame["question_id"])).sort_values(
        "_key", kind="stable"
    )


def _draw_type(
    pool: pd.DataFrame, qtype: str, n: int, share: float | None, seed: int
) -> dict[str, pd.DataFrame]:
    """One question type's draw: ``accepted`` and ``rejected`` frames (with ``_key``).

    With a share, each stratum gives its part and a short stratum is made up from the
    other; without one, the type's candidates are drawn together, in the filter's own
    proportions.
    """
    strata = {"accepted": pool[pool["llm_accepted"]], "rejected": pool[~pool["llm_accepted"]]}
    if share is None:
        taken = _ranked(pool, seed, qtype).head(n)
        return {
            "accepted": taken[taken["llm_accepted"]],
            "rejected": taken[~taken["llm_accepted"]],
        }
    want_acc, want_rej = _split(n, share)
    have_acc, have_rej = len(strata["accepted"]), len(strata["rejected"])
    take_acc = min(have_acc, want_acc + max(0, want_rej - have_rej))
    take = {"accepted": take_acc, "rejected": min(have_rej, n - take_acc)}
    return {
        name: _ranked(frame, seed, f"{qtype}/{name}").head(take[name])
        for name, frame in strata.items()
    }


def draw_sample(
    candidates: pd.DataFrame, settings: PacketSettings, seed: int
) -> tuple[pd.DataFrame, SampleReport]:
    """Draw the seeded, stratified sample from the filter-scored candidates.

    Per question type: ``accepted_share`` of the requested size from accepted
    candidates and the rest from rejected ones; when a stratum runs short, the other
    stratum makes up the difference; when a type has fewer scored candidates than
    requested, all of them are taken and the shortfall is reported (never padded).

    Args:
        candidates: qa_candidates (the construction stage's table).
        settings: the annotation params of the sample stage.
        seed: ``base.seed``.

    Returns:
        The sample (candidate rows plus ``llm_accepted`` and ``stratum``), ordered by
        type then selection key, and the report of what was drawn.
    """
    scored = scored_candidates(candidates)
    scored["llm_accepted"] = scored["llm_total"].map(
        lambda t: accepted(int(t), settings.accept_threshold)
    )
    requested = settings.sample.n_per_qtype
    report = SampleReport(
        requested=dict(requested),
        candidates_total=len(candidates),
        candidates_scored=len(scored),
    )
    parts: list[pd.DataFrame] = []
    for qtype in QTYPES:
        n = requested[qtype]
        pool = scored[scored["qtype"] == qtype]
        report.available[qtype] = {
            "accepted": int(pool["llm_accepted"].sum()),
            "rejected": int((~pool["llm_accepted"]).sum()),
        }
        chosen = _draw_type(pool, qtype, n, settings.sample.accepted_share, seed)
        report.drawn[qtype] = {name: len(frame) for name, frame in chosen.items()}
        drawn = sum(report.drawn[qtype].values())
        if drawn < n:
            report.shortfall[qtype] = n - drawn
            logger.warning(
                "only %d scored %s candidate(s) available for %d requested: all taken",
                drawn,
                qtype.upper(),
                n,
            )
        parts += [frame.assign(stratum=f"{qtype}/{name}") for name, frame in chosen.items()]
    sample = pd.concat(parts).sort_values(["qtype", "_key"], key=_qtype_first)
    return sample.drop(columns="_key").reset_index(drop=True), report


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
    items: Sequence[Mapping[str, Any]], annotator: str, settings: PacketSettings, seed: int
) -> list[Mapping[str, Any]]:
    """The order in which ``annotator`` sees the items (seeded per annotator)."""
    if not settings.sample.shuffle_per_annotator:
        return list(items)
    return sorted(
        items,
        key=lambda it: derive_seed(seed, "annotation_order", annotator, str(it["item_id"])),
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
    return "\n".join(f"{CHOICE_LETTERS[i].upper()}) {c}" for i, c in enumerate(choices))


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
                format_choices(item["choices"]) if item["qtype"] == MC else "",
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
    settings: PacketSettings,
    seed: int,
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
        "accepted_share": settings.sample.accepted_share,
        "shuffle_per_annotator": settings.sample.shuffle_per_annotator,
        "seed": seed,
        "rubric": dict(rubric),
        "candidates_checksum": candidates_checksum,
    }


def packet_files(
    items: Sequence[Mapping[str, Any]],
    report: SampleReport,
    settings: PacketSettings,
    seed: int,
    rubric: Rubric,
    candidates: pd.DataFrame,
) -> dict[str, str]:
    """Every file of the packets directory, by name: per annotator ``<name>.jsonl`` and
    ``<name>.csv``, the rubric (``rubric.json``, ``rubric.md``) and ``manifest.json``."""
    files: dict[str, str] = {}
    for annotator in settings.annotators:
        ordered = packet_order(items, annotator, settings, seed)
        files[f"{annotator}.jsonl"] = packet_jsonl(ordered)
        files[f"{annotator}.csv"] = packet_csv(ordered)
    files["rubric.json"] = json.dumps(rubric.to_dict(), indent=2, ensure_ascii=False) + "\n"
    files["rubric.md"] = rubric.to_markdown()
    # Checksum of the columns the sample depends on (frame_checksum cannot hash the list
    # column ``choices``): ties the packets, and so the ratings, to the scored candidates.
    scored_cols = [c for c in ("question_id", "qtype", *PRINCIPLES) if c in candidates.columns]
    rubric_ref = {"source": rubric.source, "template": rubric.template}
    checksum = frame_checksum(candidates[scored_cols])
    index = manifest(items, report, settings, seed, rubric_ref, checksum)
    files["manifest.json"] = json.dumps(index, indent=2, sort_keys=True, ensure_ascii=False)
    files["manifest.json"] += "\n"
    return files


def write_packets(out: Path, files: Mapping[str, str]) -> None:
    """Write the packet files as one directory that replaces ``out`` as a whole.

    A killed run leaves the previous packets untouched (never a mix of old and new). The
    CSVs get a UTF-8 byte-order mark so spreadsheet programs detect the encoding.
    """
    with atomic_dir(out) as tmp:
        for name, text in files.items():
            encoding = "utf-8-sig" if name.endswith(".csv") else "utf-8"
            with open(tmp / name, "w", encoding=encoding, newline="") as fh:
                fh.write(text)
