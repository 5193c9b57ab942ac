"""Annotators' rating files: the JSON Lines format, atomic appends, validation, CSV import.

One file per annotator, ``<ratings_dir>/<annotator>.jsonl``, one JSON object per rated
item::

    {"item_id": ..., "annotator": ..., "scores": {<seven principle keys>: 0|1|2},
     "saved_at": <ISO 8601 time>}

A later line for the same item replaces an earlier one, so a correction is an append
and the file is a complete history of what was saved. Every check reports *all*
offending rows at once (file, line, item), so an annotator fixes a file in one pass.
"""

from __future__ import annotations

import csv
import fcntl
import json
import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prescient.io import atomic_path, clean_stale_temps
from prescient.jsonl import json_lines
from prescient.vocab import PRINCIPLES, SCORE_VALUES

logger = logging.getLogger(__name__)

ANNOTATOR_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
RATINGS_SUFFIX = ".jsonl"


@dataclass(frozen=True)
class Problem:
    """One offending row: where it is and what is wrong with it.

    Attributes:
        source: the file.
        line: the line of a JSON Lines file, or the spreadsheet row of a CSV (header = 1,
            as a spreadsheet numbers it; a CSV row can span several physical lines).
        item_id: the item the row rates, when known.
        message: what is wrong.
        unit: ``"line"`` or ``"row"``.
    """

    source: str
    line: int | None
    item_id: str | None
    message: str
    unit: str = "line"

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f" row {self.line}" if self.unit == "row" else f":{self.line}"
        item = f" item {self.item_id}" if self.item_id else ""
        return f"{where}{item}: {self.message}"


class AnnotationError(ValueError):
    """Invalid annotation input; ``problems`` lists every offending row."""

    def __init__(self, summary: str, problems: Sequence[Problem]) -> None:
        self.summary = summary
        self.problems = list(problems)
        detail = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{summary}\n{detail}" if detail else summary)


@dataclass(frozen=True)
class Rating:
    """One annotator's seven scores for one item."""

    item_id: str
    annotator: str
    scores: Mapping[str, int]
    saved_at: str

    def to_json(self) -> str:
        obj = {
            "item_id": self.item_id,
            "annotator": self.annotator,
            "scores": {k: int(self.scores[k]) for k in PRINCIPLES},
            "saved_at": self.saved_at,
        }
        return json.dumps(obj, ensure_ascii=False)


@dataclass
class AnnotatorRatings:
    """The effective ratings of one annotator (last line per item wins)."""

    annotator: str
    path: Path
    ratings: dict[str, Rating] = field(default_factory=dict)
    lines: int = 0


def check_annotator_name(name: str) -> str:
    """Annotator names become file names: letters, digits, ``_ . -`` only.

    Every entry point that takes a name (the packets' params, ``annotate serve`` and
    ``annotate import``, the ratings files' stems) checks it here, with a full match: a
    trailing newline is not a name character.
    """
    if not isinstance(name, str) or not ANNOTATOR_NAME.fullmatch(name):
        raise ValueError(
            f"annotator name {name!r} must start with a letter or digit and use only "
            "letters, digits, '_', '.' and '-' (at most 64 characters)"
        )
    return name


def now_iso() -> str:
    """The current UTC time, ISO 8601 with seconds (``saved_at``)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def score_problems(scores: Any) -> list[str]:
    """What is wrong with a ``scores`` object (empty when it is valid)."""
    if not isinstance(scores, Mapping):
        return ["scores must be an object with the seven principle keys"]
    out: list[str] = []
    missing = [k for k in PRINCIPLES if k not in scores]
    extra = sorted(str(k) for k in scores if k not in PRINCIPLES)
    if missing:
        out.append(f"missing score(s) for {missing}")
    if extra:
        out.append(f"unknown principle key(s) {extra}")
    for k in PRINCIPLES:
        if k in scores:
            v = scores[k]
            if isinstance(v, bool) or not isinstance(v, int) or v not in SCORE_VALUES:
                out.append(f"score {k}={v!r} is outside 0-2")
    return out


def parse_rating(obj: Any, source: str, line: int | None) -> tuple[Rating | None, list[Problem]]:
    """Validate one decoded JSON object as a rating."""
    if not isinstance(obj, dict):
        return None, [Problem(source, line, None, "not a JSON object")]
    item_id = obj.get("item_id")
    item = item_id if isinstance(item_id, str) else None
    problems = []
    for key in ("item_id", "annotator", "saved_at"):
        if not isinstance(obj.get(key), str) or not obj.get(key):
            problems.append(Problem(source, line, item, f"missing or non-string {key!r}"))
    problems += [Problem(source, line, item, m) for m in score_problems(obj.get("scores"))]
    if problems:
        return None, problems
    scores = {k: int(obj["scores"][k]) for k in PRINCIPLES}
    return Rating(obj["item_id"], obj["annotator"], scores, obj["saved_at"]), []


def read_ratings_file(
    path: Path, known_items: Iterable[str] | None = None
) -> tuple[AnnotatorRatings, list[Problem]]:
    """Read one annotator's file; later lines for an item replace earlier ones.

    Args:
        path: ``<annotator>.jsonl``; the stem is the annotator's name and every line's
            ``annotator`` must equal it (a line from someone else's file would otherwise
            silently count twice or under the wrong name).
        known_items: the packet's item ids; other ids are reported.
    """
    annotator = (
        path.name[: -len(RATINGS_SUFFIX)] if path.name.endswith(RATINGS_SUFFIX) else path.stem
    )
    known = set(known_items) if known_items is not None else None
    result = AnnotatorRatings(annotator=annotator, path=path)
    problems: list[Problem] = []
    source = str(path)
    for line in json_lines(path):
        result.lines += 1
        lineno, obj = line.number, line.value
        if line.error is not None:
            problems.append(Problem(source, lineno, None, f"not valid JSON ({line.error})"))
            continue
        rating, errs = parse_rating(obj, source, lineno)
        problems += errs
        item = obj.get("item_id") if isinstance(obj, dict) else None
        if known is not None and isinstance(item, str) and item not in known:
            problems.append(Problem(source, lineno, item, "unknown item id (not in the packets)"))
            continue
        if rating is None:
            continue
        bad = False
        if rating.annotator != annotator:
            problems.append(
                Problem(
                    source,
                    lineno,
                    rating.item_id,
                    f"annotator {rating.annotator!r} in the file of {annotator!r}",
                )
            )
            bad = True
        if not bad:
            result.ratings[rating.item_id] = rating
    return result, problems


def ratings_files(ratings_dir: Path) -> list[Path]:
    """The annotators' files in ``ratings_dir``, sorted by name."""
    if not ratings_dir.is_dir():
        return []
    return sorted(
        p for p in ratings_dir.iterdir() if p.is_file() and p.name.endswith(RATINGS_SUFFIX)
    )


_APPEND_LOCK = threading.Lock()


def append_rating(path: Path, rating: Rating) -> None:
    """Append one rating line to ``path`` atomically (see :func:`append_ratings`)."""
    append_ratings(path, [rating])


def temp_dir(ratings_dir: Path) -> Path:
    """Where rating files are written before they are renamed into ``ratings_dir``: its
    parent (same file system), so the git-tracked ratings directory never holds a
    temporary file, not even one a killed writer left behind."""
    return ratings_dir.resolve().parent


def clean_ratings_dir(ratings_dir: Path) -> None:
    """Remove temporary files that killed writers left in ``ratings_dir`` (writers of
    earlier versions wrote them there) and beside it; live writers' files are kept."""
    if ratings_dir.is_dir():
        clean_stale_temps(ratings_dir)
        for path in ratings_files(ratings_dir):
            clean_stale_temps(temp_dir(ratings_dir), path.name)


def append_ratings(path: Path, ratings: Sequence[Rating]) -> None:
    """Append rating lines to ``path`` atomically.

    The file is rewritten (existing bytes + the new lines) into a temporary file outside
    the ratings directory, fsynced and renamed over the original, under a thread lock
    and an advisory lock, so a server killed mid-write leaves either the old file or the
    new one, never a torn line, and two writers never lose each other's lines. Rating
    files are small (one line per answer), so the copy is cheap.

    Raises:
        ValueError: the file's stem is not a valid annotator name.
    """
    check_annotator_name(path.name.removesuffix(RATINGS_SUFFIX))
    path.parent.mkdir(parents=True, exist_ok=True)
    # Lock the directory, not the file: the file is replaced by rename, and a lock file
    # would litter the git-tracked ratings directory.
    dir_fd = os.open(path.parent, os.O_RDONLY)
    with _APPEND_LOCK:
        fcntl.flock(dir_fd, fcntl.LOCK_EX)
        try:
            clean_stale_temps(path.parent)
            old = path.read_bytes() if path.exists() else b""
            if old and not old.endswith(b"\n"):
                old += b"\n"
            with atomic_path(path, temp_dir=temp_dir(path.parent)) as tmp:
                with open(tmp, "wb") as fh:
                    fh.write(old)
                    for rating in ratings:
                        fh.write(rating.to_json().encode("utf-8") + b"\n")
                tmp.chmod(0o644)  # a file people edit and commit, not a private temp file
            os.fsync(dir_fd)
        finally:
            fcntl.flock(dir_fd, fcntl.LOCK_UN)
            os.close(dir_fd)


_SCORE_CELL = re.compile(r"^\s*([012])(?:\.0*)?\s*$")


def _row_scores(
    cells: Mapping[str, str], source: str, line: int, item_id: str
) -> tuple[dict[str, int], list[Problem]]:
    """The seven scores of one rated spreadsheet row, or what is wrong with its cells."""
    scores: dict[str, int] = {}
    problems: list[Problem] = []
    for k, cell in cells.items():
        m = _SCORE_CELL.match(cell)
        if not cell:
            message = f"score {k} is empty (row partly filled)"
        elif m is None:
            message = f"score {k}={cell!r} is outside 0-2"
        else:
            scores[k] = int(m.group(1))
            continue
        problems.append(Problem(source, line, item_id, message, unit="row"))
    return scores, problems


def import_csv(
    csv_path: Path, annotator: str, known_items: Iterable[str], saved_at: str | None = None
) -> list[Rating]:
    """Validate a filled packet CSV and convert its rated rows into ratings.

    Rows whose seven score cells are all empty are items not rated yet and are skipped.
    Spreadsheets may write ``2.0`` for ``2``; that is accepted.

    Raises:
        AnnotationError: listing every offending row: missing columns, unknown or
            duplicate item ids, partly filled rows and scores outside 0-2, or no rated row.
    """
    check_annotator_name(annotator)
    known = set(known_items)
    stamp = saved_at or now_iso()
    source = str(csv_path)
    problems: list[Problem] = []
    ratings: list[Rating] = []
    seen: dict[str, int] = {}
    with open(csv_path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        missing_cols = [c for c in ("item_id", *PRINCIPLES) if c not in header]
        if missing_cols:
            raise AnnotationError(
                f"{csv_path}: not a packet CSV",
                [Problem(source, 1, None, f"missing column(s) {missing_cols}", unit="row")],
            )
        for line, row in enumerate(reader, 2):  # spreadsheet row numbers (header = 1)
            item_id = (row.get("item_id") or "").strip()
            cells = {k: (row.get(k) or "").strip() for k in PRINCIPLES}
            if not any(cells.values()):
                continue  # not rated (yet)
            if item_id not in known:
                problems.append(
                    Problem(
                        source,
                        line,
                        item_id or None,
                        "unknown item id (not in the packets)",
                        unit="row",
                    )
                )
                continue
            if item_id in seen:
                problems.append(
                    Problem(
                        source,
                        line,
                        item_id,
                        f"duplicate ratings: item already rated in row {seen[item_id]}",
                        unit="row",
                    )
                )
                continue
            seen[item_id] = line
            scores, errs = _row_scores(cells, source, line, item_id)
            problems += errs
            if not errs:
                ratings.append(Rating(item_id, annotator, scores, stamp))
    if problems:
        raise AnnotationError(f"{csv_path}: invalid ratings", problems)
    if not ratings:
        raise AnnotationError(
            f"{csv_path}: annotator {annotator!r} rated nothing (all score cells are empty)", []
        )
    return ratings
