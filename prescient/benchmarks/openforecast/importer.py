"""Chain source ``import``: timelines from a JSON, JSON Lines or CSV file.

Two layouts, mapped by ``chains.import.columns``:

- ``chain``: one record per complex event, with parallel lists of event texts and dates,
  as OpenForecast's own release writes them (``title``, ``type``, ``event_list`` and
  ``time``, dates ``yyyy``, ``yyyy-MM`` or ``yyyy-MM-dd``; OpenForecast, COLING 2025,
  section 4.2 and appendix A.1);
- ``event``: one record per atomic event, grouped into chains by an id or title column,
  as a Wikipedia Current Events Portal export lists them (a story heading, a date, a
  one-sentence summary, the reporting URLs).

Chains without an id column get a stable id from the source name and the title. Every
bad row (no date, an unreadable date, empty text, lists of unequal length, a chain id
used by two records) is listed in one error.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from prescient.benchmarks.openforecast.chains import (
    AtomicEvent,
    BadRow,
    ChainError,
    EventDate,
    parse_event_date,
    raise_bad_rows,
    stable_id,
    url_article_ids,
)
from prescient.benchmarks.openforecast.settings import ImportChains
from prescient.dates import is_missing
from prescient.jsonl import json_lines

_FIX = (
    "give every event a text and a date written yyyy, yyyy-MM or yyyy-MM-dd "
    "(or fix the column mapping chains.import.columns)"
)


def _records(path: Path, fmt: str) -> Iterator[tuple[str, Any]]:
    """``(where, record)`` for every record of the file, in file order."""
    if fmt == "jsonl":
        for line in json_lines(path):
            record = line.value if line.error is None else ChainError(f"not JSON ({line.error})")
            yield f"{path}:{line.number}", record
    elif fmt == "json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ChainError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
        if not isinstance(data, list):
            raise ChainError(f"{path}: expected a JSON list of records at the top level")
        for i, obj in enumerate(data):
            yield f"{path}[{i}]", obj
    else:
        with open(path, encoding="utf-8", newline="") as fh:
            for lineno, row in enumerate(csv.DictReader(fh), start=2):
                yield f"{path}:{lineno}", row


def _as_list(value: Any, separator: str) -> list[Any] | None:
    """A list cell: a list, a JSON list in text, or separated text; None when missing."""
    if isinstance(value, list | tuple):
        return list(value)
    if is_missing(value):
        return None
    text = str(value).strip()
    if text.startswith("["):
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError:
            loaded = None
        if isinstance(loaded, list):
            return loaded
    return [part.strip() for part in text.split(separator)]


def _text(value: Any) -> str | None:
    return None if is_missing(value) else " ".join(str(value).split()) or None


def _date_problem(value: Any) -> tuple[EventDate | None, str | None]:
    if is_missing(value):
        return None, "no date"
    date = parse_event_date(value)
    if date is None:
        return None, f"unreadable date {value!r}"
    return date, None


class _Importer:
    """Reads records into atomic events, collecting every bad row."""

    def __init__(self, s: ImportChains, known_ids: Mapping[str, Any] | set[str]) -> None:
        self.s = s
        self.known = known_ids
        self.events: list[AtomicEvent] = []
        self.bad: list[BadRow] = []
        self.chain_owner: dict[str, str] = {}
        self.urls = 0
        self.not_ingested = 0

    def _get(self, record: Mapping[str, Any], key: str) -> Any:
        column = getattr(self.s.columns, key)
        return None if column is None else record.get(column)

    def _chain(self, record: Mapping[str, Any]) -> tuple[str | None, str | None]:
        cid = _text(self._get(record, "chain_id"))
        title = _text(self._get(record, "chain_title"))
        if cid is None and title is not None:
            cid = stable_id("chain", self.s.name, title)
        return cid, title or cid

    def _urls(self, value: Any) -> tuple[str, ...]:
        urls = _as_list(value, self.s.list_separator) or []
        ids, missing = url_article_ids(urls, self.known)
        self.urls += len(urls)
        self.not_ingested += missing
        return ids

    def _add(
        self,
        cid: str,
        title: str,
        category: str | None,
        date: EventDate,
        text: str,
        urls: Any,
        order: int,
    ) -> None:
        self.events.append(AtomicEvent(cid, title, category, date, text, self._urls(urls), order))

    def chain_record(self, where: str, index: int, record: Mapping[str, Any]) -> None:
        cid, title = self._chain(record)
        if cid is None or title is None:
            self.bad.append(BadRow(where, "no chain id or title"))
            return
        if cid in self.chain_owner:
            self.bad.append(
                BadRow(where, f"chain {cid!r} is also {self.chain_owner[cid]}; map a chain_id")
            )
            return
        self.chain_owner[cid] = where
        sep = self.s.list_separator
        texts = _as_list(self._get(record, "events"), sep)
        dates = _as_list(self._get(record, "dates"), sep)
        if not texts:
            self.bad.append(BadRow(where, "no events"))
            return
        if dates is None or len(dates) != len(texts):
            n = "no" if dates is None else len(dates)
            self.bad.append(BadRow(where, f"{len(texts)} events but {n} dates"))
            return
        url_lists = (
            _as_list(self._get(record, "source_urls"), sep) if self.s.columns.source_urls else None
        )
        if url_lists is not None and len(url_lists) != len(texts):
            self.bad.append(BadRow(where, f"{len(texts)} events but {len(url_lists)} URL lists"))
            return
        category = _text(self._get(record, "category"))
        for k, (raw_text, raw_date) in enumerate(zip(texts, dates, strict=True)):
            text = _text(raw_text)
            date, problem = _date_problem(raw_date)
            if text is None:
                problem = "empty text" if problem is None else f"{problem}, empty text"
            if problem:
                self.bad.append(BadRow(f"{where} event {k}", problem))
                continue
            assert date is not None and text is not None
            urls = url_lists[k] if url_lists is not None else None
            self._add(cid, title, category, date, text, urls, index * 1_000_000 + k)

    def event_record(self, where: str, index: int, record: Mapping[str, Any]) -> None:
        cid, title = self._chain(record)
        text = _text(self._get(record, "text"))
        date, problem = _date_problem(self._get(record, "date"))
        problems = [p for p in (problem,) if p]
        if cid is None or title is None:
            problems.append("no chain id or title")
        if text is None:
            problems.append("empty text")
        if problems:
            self.bad.append(BadRow(where, ", ".join(problems)))
            return
        assert cid is not None and title is not None and date is not None and text is not None
        category = _text(self._get(record, "category"))
        self._add(cid, title, category, date, text, self._get(record, "source_urls"), index)


def read_import(
    s: ImportChains, known_ids: Mapping[str, Any] | set[str], root: str | Path = "."
) -> tuple[list[AtomicEvent], dict[str, int]]:
    """Atomic events of an imported timelines file.

    Args:
        s: ``chains.import``.
        known_ids: ids of the ingested articles (URLs are mapped to them).
        root: directory a relative ``s.path`` is read from.

    Returns:
        (events, counts: ``records``, ``source_urls``, ``source_urls_not_ingested``).

    Raises:
        ChainError: the file is missing or unreadable, or lists every bad row.
    """
    if not s.path:
        raise ChainError("chains.import.path is not set: -S chains.import.path=<file>")
    path = Path(root) / s.path
    if not path.exists():
        raise ChainError(f"{path}: no such file (chains.import.path)")
    imp = _Importer(s, known_ids)
    n = 0
    for index, (where, record) in enumerate(_records(path, s.format)):
        n += 1
        if isinstance(record, ChainError):
            imp.bad.append(BadRow(where, str(record)))
        elif not isinstance(record, Mapping):
            imp.bad.append(BadRow(where, "not an object"))
        elif s.layout == "chain":
            imp.chain_record(where, index, record)
        else:
            imp.event_record(where, index, record)
    raise_bad_rows(imp.bad, str(path), _FIX)
    return imp.events, {
        "records": n,
        "source_urls": imp.urls,
        "source_urls_not_ingested": imp.not_ingested,
    }
