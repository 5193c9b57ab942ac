"""Chain source ``demo``: the demo corpus's story arcs, from the generator's timelines.

``scripts/make_demo_corpus.py`` tells thirteen developing stories in dated episodes and
writes their timelines beside the news, one JSON object per atomic event:
``chain_id``, ``chain_title``, ``category``, ``seq`` (0-based), ``date`` (YYYY-MM-DD),
``date_precision`` (``day``), ``text`` (one sentence) and ``source_urls`` (the demo
articles reporting it). The URLs are mapped to ingested article ids with the ingest
stage's own id rule; URLs of articles the ingest stage dropped are counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prescient.benchmarks.openforecast.chains import (
    AtomicEvent,
    BadRow,
    ChainError,
    parse_event_date,
    raise_bad_rows,
    url_article_ids,
)
from prescient.jsonl import json_lines

FIELDS: tuple[str, ...] = (
    "chain_id",
    "chain_title",
    "category",
    "seq",
    "date",
    "date_precision",
    "text",
    "source_urls",
)
"""Keys of every line of the timelines file."""


def _check(obj: Any) -> str | None:
    """Why a line cannot be used, or None."""
    if not isinstance(obj, dict):
        return "not a JSON object"
    missing = [k for k in FIELDS if k not in obj]
    if missing:
        return f"missing {missing}"
    for key in ("chain_id", "chain_title", "text"):
        if not isinstance(obj[key], str) or not obj[key].strip():
            return f"empty {key}"
    if not isinstance(obj["seq"], int) or isinstance(obj["seq"], bool) or obj["seq"] < 0:
        return f"seq {obj['seq']!r} is not a non-negative integer"
    if obj["date_precision"] not in ("day", "month", "year"):
        return f"date_precision {obj['date_precision']!r} is not day, month or year"
    if parse_event_date(obj["date"], obj["date_precision"]) is None:
        return f"date {obj['date']!r} is not a {obj['date_precision']} date"
    if not isinstance(obj["source_urls"], list):
        return "source_urls is not a list"
    return None


def read_timelines(
    path: str | Path, known_ids: Mapping[str, Any] | set[str]
) -> tuple[list[AtomicEvent], dict[str, int]]:
    """Atomic events of the demo timelines file.

    Args:
        path: the timelines file (JSON Lines).
        known_ids: ids of the ingested articles.

    Returns:
        (events, counts: ``lines``, ``source_urls``, ``source_urls_not_ingested``).

    Raises:
        ChainError: the file is missing, or lists every line that is not valid JSON or
            lacks a field, has an empty text or an unreadable date.
    """
    path = Path(path)
    if not path.exists():
        raise ChainError(
            f"{path}: the demo timelines file does not exist; regenerate the demo corpus "
            "(python scripts/make_demo_corpus.py) or set chains.demo.path"
        )
    events: list[AtomicEvent] = []
    bad: list[BadRow] = []
    urls = not_ingested = 0
    for line in json_lines(path):
        where = f"{path}:{line.number}"
        problem = f"not JSON ({line.error})" if line.error is not None else _check(line.value)
        if problem:
            bad.append(BadRow(where, problem))
            continue
        obj = line.value
        ids, missing = url_article_ids(obj["source_urls"], known_ids)
        urls += len(obj["source_urls"])
        not_ingested += missing
        date = parse_event_date(obj["date"], obj["date_precision"])
        assert date is not None  # _check parsed it
        events.append(
            AtomicEvent(
                chain_id=obj["chain_id"].strip(),
                chain_title=" ".join(obj["chain_title"].split()),
                category=obj["category"] or None,
                date=date,
                text=obj["text"],
                source_article_ids=ids,
                order=obj["seq"] * 1_000_000 + line.number,
            )
        )
    raise_bad_rows(bad, str(path), "fix or regenerate the timelines file")
    return events, {
        "lines": len(events),
        "source_urls": urls,
        "source_urls_not_ingested": not_ingested,
    }
