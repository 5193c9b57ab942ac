"""A crawl of CC-NEWS: listings -> selection -> concurrent resumable downloads -> manifest.

The directory is the state: a final file name means a whole, verified file
(:mod:`prescient.crawl.download`), and the manifest is rewritten after each file
completes, so a crawl killed at any moment and started again downloads only what is
missing (partial files resume). Complete files already recorded in the manifest with
their size are trusted without re-reading them; complete files the manifest does not
know yet (a kill between rename and manifest write) are re-checked and recorded.
Each complete row records the validator (ETag, Last-Modified) of the version fetched.
A file that fails after every retry is recorded as failed with its reason; the crawl
goes on with the others and reports the failures at the end. The downloads run
concurrently in :mod:`prescient.crawl.downloads`.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from prescient.crawl.ccnews import (
    Listing,
    WarcFile,
    count_by_month,
    crawl_window,
    listing_source,
    months_covering,
    parse_listing,
    select_files,
)
from prescient.crawl.download import (
    PART_SUFFIX,
    VALIDATOR_SUFFIX,
    DownloadFailed,
    Validator,
    download,
    part_path,
    read_validator,
    validator_path,
)
from prescient.crawl.downloads import Progress, download_all
from prescient.crawl.fetch import FetchError, Sleep, get_bytes
from prescient.crawl.manifest import (
    COMPLETE,
    FAILED,
    MANIFEST_NAME,
    MISSING,
    ManifestError,
    ManifestRow,
    read_manifest,
    summarize,
    write_manifest,
)
from prescient.crawl.settings import CrawlSettings
from prescient.crawl.verify import CorruptData, check_file

logger = logging.getLogger(__name__)


class CrawlError(RuntimeError):
    """The crawl cannot start (a listing that cannot be fetched or read)."""


@dataclass
class CrawlReport:
    """What a crawl selected and where every file ended.

    Attributes:
        first, last: the crawl-day window (UTC, inclusive).
        listings: per month ``YYYY-MM``: files listed and unrecognised lines.
        rows: the manifest rows, in crawl order.
        reused: files complete before this run.
        fetched_bytes: bytes received over the network in this run.
        seconds: wall time of the download phase.
        selected_by_month: selected files per crawl month ``YYYY-MM``.
    """

    first: str
    last: str
    listings: dict[str, dict[str, int]]
    rows: list[ManifestRow]
    reused: int = 0
    fetched_bytes: int = 0
    seconds: float = 0.0
    selected_by_month: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> list[ManifestRow]:
        return [r for r in self.rows if r.status != COMPLETE]

    def metrics(self) -> dict[str, Any]:
        """The run-independent summary (no timings, no resume counts): a finished crawl
        of the same range gives the same metrics anywhere."""
        return {
            "window": {"first": self.first, "last": self.last},
            "listings": {
                month: {**counts, "selected": self.selected_by_month.get(month, 0)}
                for month, counts in self.listings.items()
            },
            "files": summarize(self.rows),
            "failed": [{"file": r.file, "reason": r.reason or r.status} for r in self.failed],
        }


def fetch_listings(
    settings: CrawlSettings, first: dt.date, last: dt.date, sleep: Sleep
) -> dict[str, Listing]:
    """The listings of every month the window touches, by month (``YYYY-MM``).

    Raises:
        CrawlError: a listing that cannot be fetched (after retries) or read.
    """
    listings: dict[str, Listing] = {}
    for year, month in months_covering(first, last):
        source = listing_source(year, month)
        url = settings.url(source)
        try:
            listing = parse_listing(get_bytes(url, settings.retry_policy(), sleep), source)
        except FetchError as exc:
            raise CrawlError(
                f"{url}: {exc.reason}. CC-NEWS has listings from 2016-08 up to the current "
                "month; check crawl.date_start/date_end and crawl.base_url"
            ) from None
        except ValueError as exc:
            raise CrawlError(str(exc)) from None
        if listing.unrecognised:
            logger.warning(
                "%s: %d lines are not CC-NEWS WARC paths (e.g. %s); skipped",
                source,
                len(listing.unrecognised),
                listing.unrecognised[:3],
            )
        listings[f"{year:04d}-{month:02d}"] = listing
    return listings


def _row(f: WarcFile, status: str = MISSING, **values: Any) -> ManifestRow:
    base: dict[str, Any] = {"size": None, "sha256": None, "reason": None}
    base.update(values)
    return ManifestRow(
        file=f.name,
        source=f.source,
        crawled_at=f.crawled_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        status=status,
        **base,
    )


def _previous_rows(path: Path) -> dict[str, ManifestRow]:
    if not path.exists():
        return {}
    try:
        return {r.file: r for r in read_manifest(path)}
    except ManifestError as exc:
        logger.warning("%s; files on disk will be re-checked", exc)
        return {}


def _adopt(dest: Path, verify_gzip: bool, chunk_bytes: int) -> tuple[int, str, Validator] | None:
    """(size, sha256, validator) of a complete file the manifest does not know (its
    validator from the side file its download left, if any); None when damaged."""
    side = validator_path(dest)
    validator = read_validator(side) or Validator()
    try:
        check = check_file(dest, verify_gzip and dest.name.endswith(".gz"), chunk_bytes)
        adopted = check.size, check.finish(), validator
    except CorruptData as exc:
        logger.warning("%s is damaged (%s); downloading it again", dest, exc)
        dest.unlink()
        return None
    side.unlink(missing_ok=True)
    return adopted


def _fetch_one(
    f: WarcFile,
    out_dir: Path,
    settings: CrawlSettings,
    progress: Progress,
    stop: threading.Event,
    sleep: Sleep,
) -> ManifestRow:
    dest = out_dir / f.name
    if dest.exists():
        adopted = _adopt(dest, settings.verify_gzip, settings.chunk_bytes)
        if adopted is not None:
            size, sha256, validator = adopted
            progress.expect(f.name, size)
            return _row(
                f,
                COMPLETE,
                size=size,
                sha256=sha256,
                etag=validator.etag,
                last_modified=validator.last_modified,
            )
    try:
        got = download(
            settings.url(f.source),
            dest,
            settings.download_options(),
            advance=progress.advance,
            expect=lambda size: progress.expect(f.name, size),
            stop=stop,
            sleep=sleep,
        )
    except DownloadFailed as exc:
        logger.error("%s: failed: %s", f.name, exc.reason)
        return _row(f, FAILED, reason=exc.reason)
    return _row(
        f,
        COMPLETE,
        size=got.size,
        sha256=got.sha256,
        etag=got.validator.etag,
        last_modified=got.validator.last_modified,
    )


def _initial_state(
    selected: Iterable[WarcFile], out_dir: Path, previous: Mapping[str, ManifestRow]
) -> tuple[dict[str, ManifestRow], list[WarcFile], dict[str, int], int]:
    """Rows of files already complete, the files still to fetch, known sizes, and the
    bytes already on disk (complete and partial) for the progress bar."""
    rows: dict[str, ManifestRow] = {}
    todo: list[WarcFile] = []
    sizes: dict[str, int] = {}
    on_disk = 0
    for f in selected:
        dest = out_dir / f.name
        prev = previous.get(f.name)
        if (
            prev is not None
            and prev.status == COMPLETE
            and prev.source == f.source
            and dest.is_file()
            and dest.stat().st_size == prev.size
        ):
            rows[f.name] = replace(prev, reason=None)
            sizes[f.name] = dest.stat().st_size
            on_disk += sizes[f.name]
            continue
        rows[f.name] = _row(f)
        todo.append(f)
        if part_path(dest).is_file():
            on_disk += part_path(dest).stat().st_size
    return rows, todo, sizes, on_disk


def _tidy(out_dir: Path, selected: Iterable[WarcFile]) -> None:
    """After a finished crawl: drop partial files no selected file needs (and their
    validators), and the temp files of interrupted manifest writes; report complete
    files outside the selection."""
    names = {f.name for f in selected}
    for p in sorted(out_dir.glob(f"*{PART_SUFFIX}")):
        logger.info("removing a partial file outside the selection: %s", p.name)
        p.unlink()
    for p in sorted(out_dir.glob(f"*{VALIDATOR_SUFFIX}")):
        p.unlink()
    for p in out_dir.glob(f".{MANIFEST_NAME}.*.tmp"):
        p.unlink()
    extra = [
        p.name
        for p in out_dir.iterdir()
        if p.is_file() and p.name != MANIFEST_NAME and p.name not in names
    ]
    if extra:
        logger.info(
            "%d complete files outside the selection are kept but not in the manifest (e.g. %s)",
            len(extra),
            sorted(extra)[:3],
        )


def crawl(
    settings: CrawlSettings,
    out_dir: Path,
    sleep: Sleep = time.sleep,
    stop: threading.Event | None = None,
) -> CrawlReport:
    """Bring ``out_dir`` to the state the settings ask for and return the report.

    Raises:
        CrawlError: a listing could not be fetched or read (nothing was downloaded).
        KeyboardInterrupt: after recording what completed (partial files stay).
    """
    first, last = crawl_window(settings.date_start, settings.last_day, settings.margin_days)
    listings = fetch_listings(settings, first, last, sleep)
    selected = select_files(
        (f for listing in listings.values() for f in listing.files),
        first,
        last,
        settings.max_files,
    )
    report = CrawlReport(
        first.isoformat(),
        last.isoformat(),
        {
            month: {"listed": len(listing.files), "unrecognised": len(listing.unrecognised)}
            for month, listing in listings.items()
        },
        [],
        selected_by_month=count_by_month(selected),
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest = out_dir / MANIFEST_NAME
    rows, todo, sizes, on_disk = _initial_state(selected, out_dir, _previous_rows(manifest))
    report.reused = len(selected) - len(todo)
    logger.info(
        "%d files crawled %s..%s selected (%d already complete, %d to fetch)",
        len(selected),
        first,
        last,
        report.reused,
        len(todo),
    )

    def save() -> None:
        write_manifest(manifest, (rows[f.name] for f in selected))

    save()
    stop = stop or threading.Event()
    progress = Progress(len(selected), sizes, on_disk, settings.progress)
    started = time.perf_counter()
    try:
        download_all(
            todo,
            lambda f: _fetch_one(f, out_dir, settings, progress, stop, sleep),
            settings.concurrency,
            progress,
            stop,
            rows,
            save,
        )
    finally:
        report.seconds = time.perf_counter() - started
        report.fetched_bytes = progress.fetched
        progress.close()
        save()
    report.rows = [rows[f.name] for f in selected]
    if not report.failed:
        _tidy(out_dir, selected)
    return report
