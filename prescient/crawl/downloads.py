"""The crawl's concurrent downloads and their one progress bar.

:mod:`prescient.crawl.run` decides what to fetch, how one file is fetched and what the
manifest records; this module only runs those fetches ``crawl.concurrency`` at a time,
hands each row back as its file ends and stops the running downloads on an interrupt,
so the threads and their shared progress bar stay in one place.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from tqdm import tqdm

from prescient.crawl.ccnews import WarcFile
from prescient.crawl.manifest import COMPLETE, ManifestRow


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


def download_all(
    todo: list[WarcFile],
    fetch_one: Callable[[WarcFile], ManifestRow],
    concurrency: int,
    progress: Progress,
    stop: threading.Event,
    rows: dict[str, ManifestRow],
    save: Callable[[], None],
) -> None:
    """Run ``fetch_one`` on the files ``concurrency`` at a time, saving the manifest as
    each file ends; on an interrupt, let running downloads stop at their next chunk."""
    with ThreadPoolExecutor(concurrency, thread_name_prefix="crawl") as pool:
        pending: set[Future[ManifestRow]] = {pool.submit(fetch_one, f) for f in todo}
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
