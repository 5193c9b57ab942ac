"""Calendar buckets and the seeded sample of documents each model reads.

A bucket is ``bucket_months`` calendar months starting in January (two months, as
FreshBench spaces its time points, gives January-February, March-April, ...). The
buckets run from the first to the last eligible document's bucket (or the configured
dates), every one of them listed, so a bucket without documents is a gap, never a zero.

Within a bucket, documents are ordered by ``derive_seed(base.seed, "bpc", article_id)``
and the first ``docs_per_bucket`` are read. Each document's place depends only on its
own id: adding articles to a bucket changes its sample only where a new article sorts
before one already drawn, and never touches other buckets.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from prescient import io
from prescient.benchmarks.freshbench.bpc.settings import BpcSettings
from prescient.dates import is_missing, month_index, month_label, month_start, optional_date
from prescient.seeds import derive_seed

SAMPLE_COLUMNS = (
    "article_id",
    "date",
    "source_domain",
    "text",
    "bucket",
    "bucket_index",
    "sample_rank",
)
"""Columns of the sample, sorted by bucket_index then sample_rank."""


@dataclass(frozen=True)
class Bucket:
    """One time point.

    Attributes:
        index: 1-based position in the analysed range (the ``i`` of FreshBench's
            ``BPC_i = a * i + b``); gaps keep their index.
        label: first month, ``YYYY-MM``.
        start: first day (inclusive).
        end: first day of the next bucket (exclusive).
    """

    index: int
    label: str
    start: dt.date
    end: dt.date


def bucket_month(day: dt.date, months: int) -> int:
    """Month index (``prescient.dates.month_index``) of the first month of day's bucket."""
    return month_index(day) // months * months


def bucket_range(first: dt.date, last: dt.date, months: int) -> list[Bucket]:
    """Every bucket from the one holding ``first`` to the one holding ``last``."""
    lo, hi = bucket_month(first, months), bucket_month(last, months)
    return [
        Bucket(i + 1, month_label(m), month_start(m), month_start(m + months))
        for i, m in enumerate(range(lo, hi + 1, months))
    ]


def bucket_of(day: dt.date, buckets: list[Bucket]) -> Bucket | None:
    """The bucket holding ``day``, or None outside the range."""
    for b in buckets:
        if b.start <= day < b.end:
            return b
    return None


@dataclass(frozen=True)
class Sample:
    """The documents every model reads, their buckets and what was left out.

    Attributes:
        documents: one row per drawn document (:data:`SAMPLE_COLUMNS`).
        buckets: the analysed range, empty buckets included.
        counts: articles read and, under one reason each, left out or drawn:
            ``no_date``, ``outside_dates``, ``other_source``, ``too_short``,
            ``not_drawn`` (beyond ``docs_per_bucket``) and ``drawn``.
    """

    documents: pd.DataFrame
    buckets: list[Bucket]
    counts: dict[str, int]


def sample_documents(
    articles: pd.DataFrame,
    settings: BpcSettings,
    seed: int,
    texts: Callable[[list[str]], Mapping[str, str]] | None = None,
) -> Sample:
    """Filter, bucket and draw the documents (see the module docstring).

    Args:
        articles: the ingested corpus (``article_id``, ``date``, ``text``,
            ``source_domain``), or, with ``texts``, the same without ``text`` and with
            ``text_chars``, each text's length in characters (:func:`read_for_sample`).
        settings: the ``bpc`` section.
        seed: ``base.seed``.
        texts: the texts of the drawn documents by article id (None: from ``articles``).

    Raises:
        ValueError: a required column is missing or an article id repeats.
    """
    length = "text" if texts is None else "text_chars"
    missing = {"article_id", "date", length, "source_domain"} - set(articles.columns)
    if missing:
        raise ValueError(f"articles lack column(s) {sorted(missing)}: run the ingest stage")
    dupes = articles["article_id"][articles["article_id"].duplicated()]
    if len(dupes):
        raise ValueError(f"article_id {dupes.iloc[0]!r} occurs more than once in the articles")

    counts: Counter[str] = Counter(articles=len(articles))
    keep: list[dict[str, object]] = []
    domains = set(settings.source_domains) if settings.source_domains is not None else None
    for row in articles[["article_id", "date", length, "source_domain"]].itertuples(index=False):
        day = optional_date(row.date)
        n_chars = (
            int(row.text_chars)  # type: ignore[arg-type]
            if texts is not None
            else (0 if is_missing(row.text) else len(str(row.text)))
        )
        source = "" if is_missing(row.source_domain) else str(row.source_domain)
        if day is None:
            counts["no_date"] += 1
        elif (settings.date_start and day < settings.date_start) or (
            settings.date_end and day > settings.date_end
        ):
            counts["outside_dates"] += 1
        elif domains is not None and source not in domains:
            counts["other_source"] += 1
        elif n_chars < settings.min_chars:
            counts["too_short"] += 1
        else:
            keep.append({"article_id": str(row.article_id), "date": day, "source_domain": source})
    buckets = _buckets(keep, settings)
    drawn = _draw(keep, buckets, settings, seed)
    ids = drawn["article_id"].astype(str).tolist()
    if ids:  # only the drawn documents' texts are read
        if texts is None:
            wanted = set(ids)
            found: Mapping[str, Any] = {
                str(a): t
                for a, t in zip(articles["article_id"], articles["text"], strict=True)
                if str(a) in wanted
            }
        else:
            found = texts(ids)
        text = ["" if is_missing(found.get(a)) else str(found[a]) for a in ids]
        drawn = drawn.assign(text=pd.Series(text, index=drawn.index))[list(SAMPLE_COLUMNS)]
    counts["drawn"] = len(drawn)
    counts["not_drawn"] = len(keep) - len(drawn)
    reasons = ("no_date", "outside_dates", "other_source", "too_short", "not_drawn", "drawn")
    return Sample(
        drawn, buckets, {"articles": counts["articles"], **{r: counts[r] for r in reasons}}
    )


def _buckets(keep: list[dict[str, object]], settings: BpcSettings) -> list[Bucket]:
    days = [d for d in (r["date"] for r in keep) if isinstance(d, dt.date)]
    first = settings.date_start or (min(days) if days else None)
    last = settings.date_end or (max(days) if days else None)
    if first is None or last is None:
        return []
    return bucket_range(first, last, settings.bucket_months)


def _draw(
    keep: list[dict[str, object]], buckets: list[Bucket], settings: BpcSettings, seed: int
) -> pd.DataFrame:
    by_month = {month_index(b.start): b for b in buckets}
    rows = []
    for r in keep:
        day = r["date"]
        assert isinstance(day, dt.date)
        b = by_month[bucket_month(day, settings.bucket_months)]
        key = derive_seed(seed, "bpc", str(r["article_id"]))
        rows.append({**r, "bucket": b.label, "bucket_index": b.index, "_key": key})
    if not rows:
        frame = pd.DataFrame({c: [] for c in SAMPLE_COLUMNS})
        return frame.astype({"bucket_index": "int64", "sample_rank": "int64"})
    df = pd.DataFrame(rows).sort_values(["bucket_index", "_key", "article_id"], kind="stable")
    df["sample_rank"] = df.groupby("bucket_index").cumcount() + 1
    df = df[df["sample_rank"] <= settings.docs_per_bucket]
    return df[[c for c in SAMPLE_COLUMNS if c != "text"]].reset_index(drop=True)


SAMPLE_READS = ("article_id", "date", "source_domain")
"""The article columns the sample is drawn from (with each text's length)."""


def read_for_sample(path: str | Path) -> tuple[pd.DataFrame, Callable[[list[str]], dict[str, str]]]:
    """An article table on disk as :func:`sample_documents` takes it without holding the
    texts: :data:`SAMPLE_READS` and ``text_chars`` (read a row group at a time), and a
    function reading the drawn documents' texts back by id."""
    import pyarrow.compute as pc

    with io.ParquetTable(path) as table:
        columns = [c for c in SAMPLE_READS if c in table.schema_arrow.names]
        parts = []
        # The lengths are taken on the Arrow column, so no text becomes a Python string.
        for batch in table.iter_batches(columns=[*columns, "text"]):
            chars = pc.fill_null(pc.utf8_length(batch.column("text")), 0).to_numpy()
            parts.append(batch.select(columns).to_pandas().assign(text_chars=chars))
        frame = (
            pd.concat(parts, ignore_index=True)
            if parts
            else table.schema_arrow.empty_table().select(columns).to_pandas().assign(text_chars=0)
        )

    def texts(ids: list[str]) -> dict[str, str]:
        rows = io.read_parquet_where(path, "article_id", ids)
        return dict(zip(rows["article_id"].astype(str), rows["text"], strict=True))

    return frame, texts
