"""The crawl manifest: one JSON line per selected file, with its state, size and sha256.

The manifest lives beside the files (``manifest.jsonl``) and is the crawl's contract
with ingest: it lists every file the configured range selected, in crawl order, and
only a manifest whose every row is ``complete`` describes a finished crawl. It is
rewritten atomically after each file completes, so a killed crawl leaves a manifest that
is true of the files on disk. Its bytes depend only on the selection, the files'
contents and the validators the server gave them (no times of the run), so a finished
crawl of the same range gives the same manifest on any machine.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from prescient.io import atomic_open
from prescient.jsonl import json_lines

MANIFEST_NAME = "manifest.jsonl"
COMPLETE, MISSING, FAILED = "complete", "missing", "failed"
STATUSES = (COMPLETE, MISSING, FAILED)


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class ManifestRow:
    """One selected file.

    Attributes:
        file: its name in the manifest's directory.
        source: its path under the crawl's base URL (``crawl-data/CC-NEWS/...``).
        crawled_at: UTC crawl start its name carries, ``YYYY-MM-DDThh:mm:ssZ``.
        status: ``complete`` (whole, verified), ``missing`` (not downloaded yet) or
            ``failed`` (the last run gave up on it; see ``reason``).
        size: bytes, for complete files.
        sha256: hex digest, for complete files.
        reason: why the last run failed on it, for failed files.
        etag: the strong ``ETag`` the server gave the downloaded version, if any.
        last_modified: the ``Last-Modified`` date the server gave it, if any.
    """

    file: str
    source: str
    crawled_at: str
    status: str
    size: int | None
    sha256: str | None
    reason: str | None
    etag: str | None = None
    last_modified: str | None = None


_FIELDS = tuple(ManifestRow.__dataclass_fields__)
_OPTIONAL = frozenset({"etag", "last_modified"})  # absent from manifests of older crawls


def _row(obj: Mapping[str, Any], where: str) -> ManifestRow:
    keys = set(obj)
    if not set(_FIELDS) - _OPTIONAL <= keys <= set(_FIELDS):
        raise ManifestError(
            f"{where}: expected the keys {', '.join(_FIELDS)}, got {', '.join(sorted(keys))}"
        )
    row = ManifestRow(**obj)
    for key in ("etag", "last_modified"):
        if not (getattr(row, key) is None or isinstance(getattr(row, key), str)):
            raise ManifestError(f"{where}: {key} must be text or null")
    if row.status not in STATUSES:
        raise ManifestError(f"{where}: status {row.status!r} is not one of {STATUSES}")
    if row.status == COMPLETE and (not isinstance(row.size, int) or not row.sha256):
        raise ManifestError(f"{where}: a complete file needs its size and sha256")
    if "/" in row.file or row.file in {"", ".", ".."}:
        raise ManifestError(f"{where}: file {row.file!r} must be a plain file name")
    return row


def read_manifest(path: Path) -> list[ManifestRow]:
    """The rows of a manifest, in file order.

    Raises:
        ManifestError: missing file, a line that is not a manifest row (names the line),
            or a file listed twice.
    """
    if not path.is_file():
        raise ManifestError(f"{path}: no crawl manifest here; run the crawl stage first")
    rows: list[ManifestRow] = []
    seen: set[str] = set()
    for line in json_lines(path):
        where = f"{path}:{line.number}"
        if line.error is not None:
            raise ManifestError(f"{where}: not JSON ({line.error})")
        if not isinstance(line.value, dict):
            raise ManifestError(f"{where}: not a JSON object")
        row = _row(line.value, where)
        if row.file in seen:
            raise ManifestError(f"{where}: {row.file} is listed twice")
        seen.add(row.file)
        rows.append(row)
    return rows


def write_manifest(path: Path, rows: Iterable[ManifestRow]) -> None:
    """Replace the manifest atomically (rows in the given order, keys sorted)."""
    with atomic_open(path) as fh:
        for row in rows:
            fh.write(json.dumps(asdict(row), sort_keys=True, ensure_ascii=False) + "\n")


def complete_files(path: Path) -> list[tuple[Path, ManifestRow]]:
    """Every file of a finished crawl, checked against the disk by size.

    For readers of the crawl (ingest): the content check is the sha256, best computed
    while the file is read anyway.

    Raises:
        ManifestError: a row that is not complete, or a file absent or of another size,
            naming the first few and the fix.
    """
    rows = read_manifest(path)
    problems: list[str] = []
    out: list[tuple[Path, ManifestRow]] = []
    for row in rows:
        file = path.parent / row.file
        if row.status != COMPLETE:
            detail = f" ({row.reason})" if row.reason else ""
            problems.append(f"{row.file} is {row.status}{detail}")
        elif not file.is_file():
            problems.append(f"{row.file} is listed but absent")
        elif os.path.getsize(file) != row.size:
            problems.append(f"{row.file} has {os.path.getsize(file)} bytes, manifest {row.size}")
        out.append((file, row))
    if problems:
        shown = "; ".join(problems[:5]) + ("; ..." if len(problems) > 5 else "")
        raise ManifestError(
            f"{path}: {len(problems)} of {len(rows)} files are not complete ({shown}). "
            "Fix: run the crawl stage again (it resumes)."
        )
    return out


def summarize(rows: Sequence[ManifestRow]) -> dict[str, int]:
    """Files per status and bytes of complete files."""
    out = {status: sum(r.status == status for r in rows) for status in STATUSES}
    out["bytes"] = sum(r.size or 0 for r in rows if r.status == COMPLETE)
    return out
