"""Daily updates: advance ``base.through``, and publish a dated release of the question set.

``python -m prescient update --through DAY`` (:mod:`prescient.plumbing.update_cli`) sets
``base.through`` in ``conf/config.yaml`` (the one line, comments kept), composes
params.yaml, runs ``dvc repro`` and writes a release of the question set:
``questions-DAY.parquet`` (the pipeline's question table, byte for byte) and
``questions-DAY.json`` (counts per type and day range, its sha256, and how it differs
from the previous release: questions added, and questions of earlier days that changed
or vanished, which must both be 0 since adding days never changes an earlier day).

The manifest is a function of the question table and the previous release alone (no
clock, no host), so a peer re-running the update gets the same bytes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import math
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd

from prescient import io
from prescient.plumbing.llm_cli import runs_in

logger = logging.getLogger(__name__)

RELEASE_PREFIX = "questions-"
_THROUGH_LINE = re.compile(r"^(  through:)[ \t]*[^#\n]*?([ \t]+#.*)?$")
_PARTITIONS_LINE = re.compile(r"^(partitions:)[ \t]*\[[^\]#\n]*\]([ \t]+#.*)?$")


class UpdateError(ValueError):
    """The update cannot proceed; the message names the file and the fix."""


def set_through(config: Path, day: dt.date) -> str | None:
    """Rewrite the ``through:`` line of the ``base:`` section of ``config``.

    Returns:
        The value the line held before (``None`` for null), as text.

    Raises:
        UpdateError: the file has no ``base:`` section with exactly one ``through:`` line.
    """
    lines = config.read_text(encoding="utf-8").split("\n")
    try:
        start = lines.index("base:")
    except ValueError:
        raise UpdateError(f"{config}: no top-level `base:` section") from None
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i] and not lines[i][0].isspace()),
        len(lines),
    )
    hits = [i for i in range(start + 1, end) if _THROUGH_LINE.match(lines[i])]
    if len(hits) != 1:
        raise UpdateError(
            f"{config}: expected one `through:` line in the base section, found {len(hits)}; "
            "add `  through: null` under `base:`"
        )
    i = hits[0]
    old = lines[i].split(":", 1)[1].split("#", 1)[0].strip().strip("\"'")
    match = _THROUGH_LINE.match(lines[i])
    assert match is not None
    lines[i] = f'{match.group(1)} "{day.isoformat()}"{match.group(2) or ""}'
    mode = config.stat().st_mode & 0o777
    with io.atomic_open(config) as fh:
        fh.write("\n".join(lines))
    config.chmod(mode)
    return None if old in ("null", "~", "") else old


def set_partitions(config: Path, labels: tuple[str, ...]) -> None:
    """Rewrite the top-level ``partitions: [...]`` line of the eval section's file
    (``conf/eval/default.yaml``) to list ``labels``, comments kept.

    Raises:
        UpdateError: the file has no such one-line list.
    """
    lines = config.read_text(encoding="utf-8").split("\n")
    hits = [i for i, line in enumerate(lines) if _PARTITIONS_LINE.match(line)]
    if len(hits) != 1:
        raise UpdateError(
            f"{config}: expected one `partitions: [...]` line (a one-line list), found "
            f"{len(hits)}; write eval.partitions there as one line, or add the months "
            f"{list(labels)} by hand"
        )
    match = _PARTITIONS_LINE.match(lines[hits[0]])
    assert match is not None
    lines[hits[0]] = f"{match.group(1)} [{', '.join(labels)}]{match.group(2) or ''}"
    mode = config.stat().st_mode & 0o777
    with io.atomic_open(config) as fh:
        fh.write("\n".join(lines))
    config.chmod(mode)


def run_log_offset(log: Path | None) -> int:
    """The run log's size now: where the runs of what comes next start."""
    try:
        return 0 if log is None else log.stat().st_size
    except FileNotFoundError:
        return 0


def calls_sent(log: Path | None, offset: int) -> dict[str, int]:
    """Requests sent to models per stage ledger by the runs logged after ``offset`` in the
    response store's run log (:mod:`prescient.llm.store`), non-zero only."""
    if log is None or not log.exists():
        return {}
    with open(log, "rb") as fh:
        fh.seek(offset)
        data = fh.read()
    sent: dict[str, int] = {}
    skipped: list[str] = []
    for run in runs_in(data, skipped):
        n = int(run.get("sent") or 0) if math.isfinite(run.get("sent") or 0) else 0
        if n:
            name = str(run.get("ledger"))
            sent[name] = sent.get(name, 0) + n
    for line in skipped:
        logger.warning("%s (after byte %d): %s; not counted", log, offset, line)
    return dict(sorted(sent.items()))


def release_name(day: dt.date) -> str:
    return f"{RELEASE_PREFIX}{day.isoformat()}"


def _row_digests(df: pd.DataFrame) -> dict[str, str]:
    """question_id -> sha256 of the row (every column, canonical JSON)."""
    out = {}
    for row in df.to_dict(orient="records"):
        text = json.dumps(row, sort_keys=True, default=str, ensure_ascii=False)
        out[str(row["question_id"])] = hashlib.sha256(text.encode()).hexdigest()
    return out


def previous_release(releases: Path, day: dt.date) -> Path | None:
    """The latest release before ``day`` in ``releases``, if any."""
    if not releases.is_dir():
        return None
    earlier = sorted(
        p
        for p in releases.glob(f"{RELEASE_PREFIX}*.parquet")
        if p.stem[len(RELEASE_PREFIX) :] < day.isoformat()
    )
    return earlier[-1] if earlier else None


def published(questions: Path, releases: Path, day: dt.date) -> dict[str, Any] | None:
    """The manifest of the release of ``day`` when it is already published with exactly
    this question table (a second update on the same day); None when there is none.

    Raises:
        UpdateError: a release of ``day`` exists with other questions: a published
            release never changes.
    """
    name = release_name(day)
    table, manifest = releases / f"{name}.parquet", releases / f"{name}.json"
    if not table.exists() and not manifest.exists():
        return None
    if not questions.is_file():
        raise UpdateError(f"{questions}: no question table; the pipeline did not produce one")
    same = table.is_file() and table.read_bytes() == questions.read_bytes()
    stored: dict[str, Any] | None = None
    if same and manifest.is_file():
        try:
            stored = json.loads(manifest.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            stored = None
    if not same or not isinstance(stored, dict):
        raise UpdateError(
            f"{releases}/{name}.*: a release of {day} is already published, with other "
            f"questions than {questions} (or damaged); a published release never changes. "
            "Fix: restore the pipeline that made it (git checkout), or delete "
            f"{releases}/{name}.parquet and {name}.json to publish this table instead"
        )
    return stored


def write_release(questions: Path, releases: Path, day: dt.date) -> dict[str, Any]:
    """Copy the question table to ``releases/questions-DAY.parquet`` and write its manifest.

    A release of ``day`` already published with the same table is left as it is (its
    manifest returned): a second update on the same day writes nothing.

    Returns:
        The manifest (also written as ``questions-DAY.json``).

    Raises:
        UpdateError: the question table is missing or holds questions after ``day``, or
            a release of ``day`` exists with other questions (:func:`published`).
    """
    if not questions.is_file():
        raise UpdateError(f"{questions}: no question table; the pipeline did not produce one")
    stored = published(questions, releases, day)
    if stored is not None:
        return stored
    df = pd.read_parquet(questions)
    days = sorted({d for d in df["resolution_date"]})
    if days and days[-1] > day:
        raise UpdateError(
            f"{questions}: questions resolve up to {days[-1]}, after base.through {day}; "
            "run the update again (it re-runs the stages that read base.through)"
        )
    name = release_name(day)
    data = questions.read_bytes()
    manifest: dict[str, Any] = {
        "through": day.isoformat(),
        "file": f"{name}.parquet",
        "sha256": hashlib.sha256(data).hexdigest(),
        "questions": len(df),
        "by_qtype": {str(k): int(v) for k, v in df["qtype"].value_counts().sort_index().items()},
        "days": len(days),
        "first_day": days[0].isoformat() if days else None,
        "last_day": days[-1].isoformat() if days else None,
    }
    manifest.update(_compared(df, previous_release(releases, day)))
    releases.mkdir(parents=True, exist_ok=True)
    with io.atomic_path(releases / f"{name}.parquet") as tmp:
        shutil.copyfile(questions, tmp)
    io.write_json(releases / f"{name}.json", manifest)
    return manifest


def _compared(df: pd.DataFrame, previous: Path | None) -> dict[str, Any]:
    """How the question table differs from the previous release."""
    if previous is None:
        return {"previous": None, "new_questions": len(df), "changed": 0, "removed": 0}
    now, before = _row_digests(df), _row_digests(pd.read_parquet(previous))
    changed = sorted(q for q in before.keys() & now.keys() if before[q] != now[q])
    removed = sorted(before.keys() - now.keys())
    if changed or removed:
        logger.warning(
            "%d questions of the previous release changed and %d vanished (e.g. %s): "
            "earlier days should never change",
            len(changed),
            len(removed),
            (changed + removed)[:3],
        )
    return {
        "previous": previous.name,
        "new_questions": len(now.keys() - before.keys()),
        "changed": len(changed),
        "removed": len(removed),
    }
