"""The downloads of a crawl: the selected files fetched concurrently, one progress bar.

Each file ends as one manifest row: complete (with its size, sha256 and validator) or
failed (with its reason). A complete file already on disk that the manifest does not
know (a kill between rename and manifest write) is re-checked and adopted instead of
downloaded again. :mod:`prescient.crawl.run` decides what to fetch and keeps the
manifest; this module only turns files to fetch into rows, so the threads, the
progress bar and the stop on an interrupt stay in one place.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from tqdm import tqdm

from prescient.crawl.ccnews import WarcFile
from prescient.crawl.download import (
    DownloadFailed,
    Validator,
    download,
    read_validator,
    validator_path,
)
from prescient.crawl.fetch import Sleep
from prescient.crawl.manifest import COMPLETE, FAILED, MISSING, ManifestRow
from prescient.crawl.settings import CrawlSettings
from prescient.crawl.verify import CorruptData, check_file

# The crawl stage's log lines have always been named after its run module; the downloads
# keep that name so the log reads the same wherever the line is written.
logger = logging.getLogger("prescient.crawl.run")


def file_row(f: WarcFile, status: str = MISSING, **values: Any) -> ManifestRow:
    """The manifest row of a selected file (``values``: size, sha256, reason, validator),
    so a row looks the same whether the crawl plans it or a download ends it."""
    base: dict[str, Any] = {"size": None, "sha256": None, "reason": None}
    base.update(values)
    return ManifestRow(
        file=f.name,
        source=f.source,
        crawled_at=f.crawled_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        status=status,
        **base,
    )


class Progress:
    """One byte progress bar for all files (rate, ETA); the total is the known sizes
    plus the mean size for files whose size is not known yet."""

    def __init__(self, n_files: int, sizes: Mapping[str, int], initial: int, on: bool) -> None:
        self._lock = threading.Lock()
        self._sizes = dict(sizes)
        self._n = n_files
        self._done = self._failed = 0
        self.fetched = 0
        self.bar = tqdm(
            total=self._estimate(),
            initial=initial,
            desc="crawl",
            unit="B",
            unit_scale=True,
            unit_divisor=1024,
            smoothing=0.1,
            mininterval=1.0,
            disable=not on,
        )

    def _estimate(self) -> int | None:
        if not self._sizes:
            return None
        known = sum(self._sizes.values())
        return known + (known // len(self._sizes)) * (self._n - len(self._sizes))

    def expect(self, name: str, size: int) -> None:
        with self._lock:
            if self._sizes.get(name) != size:
                self._sizes[name] = size
                self.bar.total = self._estimate()
                self.bar.refresh()

    def advance(self, n: int) -> None:
        with self._lock:
            self.fetched += n
            self.bar.update(n)

    def finished(self, ok: bool) -> None:
        with self._lock:
            self._done += ok
            self._failed += not ok
            self.bar.set_postfix(files=f"{self._done}/{self._n}", failed=self._failed)

    def close(self) -> None:
        self.bar.close()


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
            return file_row(
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
        return file_row(f, FAILED, reason=exc.reason)
    return file_row(
        f,
        COMPLETE,
        size=got.size,
        sha256=got.sha256,
        etag=got.validator.etag,
        last_modified=got.validator.last_modified,
    )


def download_all(
    todo: list[WarcFile],
    out_dir: Path,
    settings: CrawlSettings,
    progress: Progress,
    stop: threading.Event,
    sleep: Sleep,
    rows: dict[str, ManifestRow],
    save: Callable[[], None],
) -> None:
    """Run the downloads ``settings.concurrency`` at a time, saving the manifest as each
    file ends; on an interrupt, let running downloads stop at their next chunk."""
    with ThreadPoolExecutor(settings.concurrency, thread_name_prefix="crawl") as pool:
        pending: set[Future[ManifestRow]] = {
            pool.submit(_fetch_one, f, out_dir, settings, progress, stop, sleep) for f in todo
        }
        try:
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in done:
                    row = fut.result()
                    rows[row.file] = row
                    progress.finished(row.status == COMPLETE)
                    save()
        except BaseException:
            stop.set()
            for fut in pending:
                fut.cancel()
            raise
