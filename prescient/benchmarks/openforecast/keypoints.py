"""Atomic events of linked stories: each article's key point, through the gateway.

The key point is written by the construction stage's summary step (Daily Oracle's "key
point" of an article): the same model, template, generation parameters and article cut
(``chains.cluster.keypoints`` interpolates ``construct.*`` in conf), built by the same
function (:func:`prescient.llm.steps.article_values`), so an article's request is
byte for byte the one construction makes and has the same ledger key. Before calling,
the successful answers of the construction ledger for exactly these keys are copied into
the chains ledger (marked ``copied_from``): an article summarised once is never paid for
twice, and the chains ledger alone still answers every key point of its output.

Articles whose key point says "no new event", cannot be parsed or failed are counted and
contribute no event; key points of one chain and day that say the same thing
(:func:`prescient.benchmarks.openforecast.text.near_duplicates`) become one event reported by all
their articles.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from prescient.benchmarks.openforecast.chains import DAY, AtomicEvent, EventDate, stable_id
from prescient.benchmarks.openforecast.linking import Story
from prescient.benchmarks.openforecast.settings import KeypointSettings
from prescient.benchmarks.openforecast.text import near_duplicates
from prescient.dates import as_date
from prescient.llm.fit import FITTED, Fitting, fit_request
from prescient.llm.ledger import Ledger, is_success, read_entries
from prescient.llm.steps import article_values, template_request
from prescient.llm.store import StageLedger
from prescient.llm.types import Complete, LLMRequest, LLMResult
from prescient.prompts import PromptTemplate
from prescient.replies import parse_summary

logger = logging.getLogger(__name__)


def keypoint_request(
    row: dict[str, Any],
    template: PromptTemplate,
    s: KeypointSettings,
    fitting: Fitting | None = None,
) -> tuple[LLMRequest, bool]:
    """The construction summary request for one article, fitted to the model's context
    window as construction fits it (:func:`prescient.llm.fit.fit_request`), and whether
    it was fitted."""
    values = article_values(
        str(row["title"]), str(row["text"]), as_date(row["date"]), s.article_max_chars
    )
    tags = {"step": "summary", "article_id": str(row["article_id"])}
    return fit_request(
        lambda v: template_request(template, s.model, v, s.generation, tags),
        values,
        fitting,
        f"key point of {row['article_id']} ({s.model})",
    )


def copy_paid_entries(keys: Iterable[str], source: str | Path, target: Ledger | StageLedger) -> int:
    """Append to ``target`` the successful entries of ``source`` for ``keys`` it lacks.

    Returns:
        The number of entries copied (0 when ``source`` does not exist).
    """
    source = Path(source)
    wanted = {k for k in keys if k not in target}
    if not wanted or not source.exists():
        return 0
    copied = 0
    for entry in read_entries(source):
        key = str(entry.get("key"))
        if key in wanted and is_success(entry):
            target.append({**entry, "copied_from": str(source)})
            wanted.discard(key)
            copied += 1
    return copied


def story_events(
    frame: pd.DataFrame,
    kept: Sequence[Story],
    template: PromptTemplate,
    s: KeypointSettings,
    complete: Complete,
    key_for: Callable[[LLMRequest], str],
    reuse: tuple[str | Path, Ledger | StageLedger] | None,
    min_dates: int,
    fitting: Fitting | None = None,
) -> tuple[list[AtomicEvent], dict[str, int]]:
    """Atomic events of the kept stories (see the module docstring).

    Args:
        frame: the linked articles (``link_articles``'s frame: positions = rows).
        kept: stories to turn into chains.
        template: the construction summary template.
        s: ``chains.cluster.keypoints``.
        complete: ``Gateway.complete_many``.
        key_for: ``Gateway.key_for`` (the ledger key of a request).
        reuse: (the construction ledger, the chains ledger) to copy paid answers between.
        min_dates: a chain left with fewer distinct dates of events is dropped (counted).
        fitting: the model's context window and reply budget (None: unknown); prompts
            fitted to it are counted under ``fitted_to_context``.
    """
    records: list[dict[str, Any]] = frame.to_dict("records")  # type: ignore[assignment]
    members = [i for st in kept for i in st.members]
    made = [keypoint_request(records[i], template, s, fitting) for i in members]
    requests = [r for r, _ in made]
    counts: Counter[str] = Counter(requests=len(requests))
    if fitting is not None:
        counts[FITTED] = sum(f for _, f in made)
        if counts[FITTED]:
            logger.warning(
                "key points: %d prompts %s: their article text cut to fit %s's context window (%s)",
                counts[FITTED],
                FITTED,
                s.model,
                fitting[0].describe(),
            )
    if reuse is not None:  # logged, not counted: a resumed run copies fewer
        copied = copy_paid_entries([key_for(r) for r in requests], reuse[0], reuse[1])
        logger.info("key points: %d answers copied from %s", copied, reuse[0])
    results = (
        dict(zip(members, complete(requests, "chains:keypoints"), strict=True)) if requests else {}
    )
    bare = bool(template.extras.get("reply_is_keypoint"))
    events: list[AtomicEvent] = []
    for st in kept:
        by_day = _points_by_day(st, records, results, bare, counts)
        if len(by_day) < min_dates:
            counts["chains_too_few_dates_after_keypoints"] += 1
            continue
        first = records[st.members[0]]
        _add_events(
            events,
            stable_id("cluster", first["article_id"]),
            str(first["clean_title"]),
            by_day,
            s.dedupe_similarity,
            counts,
        )
    for key in (
        "llm_error",
        "parse_error",
        "no_new_event",
        "merged_duplicates",
        "chains_too_few_dates_after_keypoints",
    ):
        counts.setdefault(key, 0)
    return events, dict(counts)


def _points_by_day(
    story: Story,
    records: Sequence[dict[str, Any]],
    results: Mapping[int, LLMResult],
    bare: bool,
    counts: Counter[str],
) -> dict[Any, list[tuple[str, str]]]:
    """A story's usable key points by day, each with its article; the replies that give
    no event (failed, unreadable, "no new event") are counted in ``counts`` instead."""
    by_day: dict[Any, list[tuple[str, str]]] = {}
    for i in story.members:
        res = results[i]
        if not res.ok:
            counts["llm_error"] += 1
            continue
        parsed = parse_summary(res.text, bare)
        if not parsed.ok or parsed.keypoint is None:
            counts["parse_error"] += 1
        elif parsed.no_new_event:
            counts["no_new_event"] += 1
        else:
            by_day.setdefault(as_date(records[i]["date"]), []).append(
                (parsed.keypoint, str(records[i]["article_id"]))
            )
    return by_day


def _add_events(
    events: list[AtomicEvent],
    cid: str,
    title: str,
    by_day: Mapping[Any, Sequence[tuple[str, str]]],
    similarity: float,
    counts: Counter[str],
) -> None:
    """Append one chain's events to ``events``: one per day and distinct key point, its
    near duplicates of the same day merged into it (their articles report it too)."""
    for day, points in by_day.items():
        dup = near_duplicates([p for p, _ in points], similarity)
        for k, (text, _) in enumerate(points):
            if dup[k] is not None:
                counts["merged_duplicates"] += 1
                continue
            ids = tuple(a for j, (_, a) in enumerate(points) if j == k or dup[j] == k)
            event = AtomicEvent(cid, title, None, EventDate(day, DAY), text, ids, len(events))
            events.append(event)
