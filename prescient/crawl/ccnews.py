"""How CC-NEWS publishes its files, and which of them a date range needs.

Common Crawl News lists each month's WARC files in
``crawl-data/CC-NEWS/YYYY/MM/warc.paths.gz`` (gzip text, one path per line). A file's
name carries the UTC time its crawler started writing it,
``CC-NEWS-YYYYMMDDhhmmss-NNNNN.warc.gz``, so the files a publication-date range needs
can be chosen from the listings alone, before anything large is downloaded. Pages are
crawled after they are published (hours to days), so the window runs
``margin_days`` past the range's last day.
"""

from __future__ import annotations

import datetime as dt
import gzip
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from prescient.dates import month_index, month_start

PREFIX = "crawl-data/CC-NEWS"
LISTING_NAME = "warc.paths.gz"

_NAME = re.compile(r"^CC-NEWS-(\d{14})-(\d{5})\.warc\.gz$")


class ListingError(ValueError):
    """A listing that cannot be read (not gzip, not text); names the listing."""


@dataclass(frozen=True, order=True)
class WarcFile:
    """One CC-NEWS WARC file; orders by crawl time, then serial number.

    Attributes:
        crawled_at: UTC time its crawler started writing it (from the file name).
        source: its path under the base URL (``crawl-data/CC-NEWS/...``).
    """

    crawled_at: dt.datetime
    source: str

    @property
    def name(self) -> str:
        """The file name, also its name on disk."""
        return self.source.rsplit("/", 1)[-1]


@dataclass
class Listing:
    """One month's listing: its recognised files and the lines that were not files."""

    source: str
    files: list[WarcFile] = field(default_factory=list)
    unrecognised: list[str] = field(default_factory=list)


def listing_source(year: int, month: int) -> str:
    """Path of a month's listing under the base URL."""
    return f"{PREFIX}/{year:04d}/{month:02d}/{LISTING_NAME}"


def crawl_window(start: dt.date, end: dt.date, margin_days: int) -> tuple[dt.date, dt.date]:
    """Inclusive days whose files can hold pages published in ``[start, end]``.

    Raises:
        ValueError: ``end`` before ``start`` or a negative margin.
    """
    if end < start:
        raise ValueError(f"date_end {end} is before date_start {start}")
    if margin_days < 0:
        raise ValueError(f"margin_days must be >= 0, got {margin_days}")
    return start, end + dt.timedelta(days=margin_days)


def months_covering(first: dt.date, last: dt.date) -> list[tuple[int, int]]:
    """(year, month) of every calendar month that has a day in ``[first, last]``."""
    days = [month_start(i) for i in range(month_index(first), month_index(last) + 1)]
    return [(d.year, d.month) for d in days]


def file_crawled_at(name: str) -> dt.datetime | None:
    """UTC crawl start time a CC-NEWS file name carries; None for other names."""
    match = _NAME.match(name)
    if not match:
        return None
    try:
        stamp = dt.datetime.strptime(match.group(1), "%Y%m%d%H%M%S")
    except ValueError:  # 14 digits that are no time (month 13...)
        return None
    return stamp.replace(tzinfo=dt.UTC)


def parse_listing(data: bytes, source: str) -> Listing:
    """The files a ``warc.paths.gz`` lists.

    Lines that are not CC-NEWS WARC paths are kept in ``unrecognised`` (the caller
    counts and reports them) rather than dropped silently.

    Raises:
        ListingError: the data is not gzip-compressed UTF-8 text.
    """
    try:
        text = gzip.decompress(data).decode("utf-8")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:
        raise ListingError(f"{source}: not a gzip-compressed list of paths ({exc})") from None
    listing = Listing(source)
    for line in text.splitlines():
        path = line.strip()
        if not path:
            continue
        crawled_at = file_crawled_at(path.rsplit("/", 1)[-1])
        if crawled_at is None or not path.startswith(PREFIX + "/"):
            listing.unrecognised.append(path)
        else:
            listing.files.append(WarcFile(crawled_at, path))
    return listing


def select_files(
    files: Iterable[WarcFile], first: dt.date, last: dt.date, max_files: int | None
) -> list[WarcFile]:
    """Files crawled on a day in ``[first, last]`` (UTC), in crawl order.

    A file listed twice (in two months' listings) counts once. With ``max_files`` only
    the earliest that many are kept: a trial that is a prefix of the full crawl.
    """
    chosen = sorted({f for f in files if first <= f.crawled_at.date() <= last})
    return chosen if max_files is None else chosen[:max_files]


def count_by_month(files: Sequence[WarcFile]) -> dict[str, int]:
    """Files per crawl month (``YYYY-MM``), for the metrics."""
    out: dict[str, int] = {}
    for f in files:
        key = f"{f.crawled_at.year:04d}-{f.crawled_at.month:02d}"
        out[key] = out.get(key, 0) + 1
    return out
