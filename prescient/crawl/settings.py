"""Settings of the crawl stage (params section ``crawl``; values in conf/crawl/)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field, field_validator

from prescient.crawl.download import DownloadOptions
from prescient.crawl.fetch import RetryPolicy
from prescient.settings import Day, ParamsError, Settings, WindowEnd
from prescient.through import capped


class CrawlSettings(Settings):
    """What to crawl and how hard to try.

    Attributes:
        base_url: where ``crawl-data/CC-NEWS/...`` paths are served from.
        date_start: first publication day wanted (inclusive).
        date_end: last publication day wanted (inclusive); None: up to ``base.through``
            (:meth:`bounded` applies it).
        margin_days: days after ``date_end`` whose files are also fetched, because
            pages are crawled after they are published.
        max_files: keep only the first files in crawl order (a trial); None: all.
        concurrency: files downloaded at once.
        max_tries: attempts in a row without progress before a file fails.
        backoff_base_s: first wait between attempts (doubles per failure).
        backoff_max_s: cap on one wait, also on a server's Retry-After.
        timeout_s: socket timeout; a body stalled this long counts as dropped.
        chunk_bytes: bytes per read and write.
        verify_gzip: check that every gzip member of a file is complete.
        progress: show a progress bar (bytes/s, ETA).
    """

    base_url: str
    date_start: Day
    date_end: WindowEnd
    margin_days: Annotated[int, Field(ge=0)]
    max_files: Annotated[int, Field(ge=1)] | None
    concurrency: Annotated[int, Field(ge=1)]
    max_tries: Annotated[int, Field(ge=1)]
    backoff_base_s: Annotated[float, Field(ge=0)]
    backoff_max_s: Annotated[float, Field(ge=0)]
    timeout_s: Annotated[float, Field(gt=0)]
    chunk_bytes: Annotated[int, Field(ge=4096)]
    verify_gzip: bool
    progress: bool

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("expected an http:// or https:// URL")
        return value.rstrip("/") + "/"

    def bounded(self, through: dt.date | None) -> CrawlSettings:
        """These settings with ``date_end`` bounded by ``base.through`` (daily updates).

        Raises:
            ParamsError: neither gives a last day, or the bound falls before date_start.
        """
        end = capped(self.date_end, through)
        if end is None:
            raise ParamsError(
                "crawl.date_end and base.through are both null: the crawl needs a last day; "
                "set one (e.g. -S base.through=2024-12-31)"
            )
        if end < self.date_start:
            raise ParamsError(
                f"base.through ({through}) is before crawl.date_start ({self.date_start}): "
                "nothing to crawl; move one of them"
            )
        return self.model_copy(update={"date_end": end})

    @property
    def last_day(self) -> dt.date:
        """The last publication day wanted (after :meth:`bounded`).

        Raises:
            ParamsError: the settings were not bounded and have no date_end.
        """
        if self.date_end is None:
            raise ParamsError("crawl.date_end is null: bound it with base.through first")
        return self.date_end

    def url(self, source: str) -> str:
        """Full URL of a path under the base URL."""
        return self.base_url + source.lstrip("/")

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(self.max_tries, self.backoff_base_s, self.backoff_max_s, self.timeout_s)

    def download_options(self) -> DownloadOptions:
        return DownloadOptions(self.retry_policy(), self.chunk_bytes, self.verify_gzip)
