"""Typed parameters of the ``corpus`` (the source) and ``ingest`` (the filters) sections.

Values and defaults live in ``conf/ingest/default.yaml`` and ``conf/corpus/*.yaml``; these
models only state types and constraints, checked once when the stage starts.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from prescient.corpus.warc import Extraction
from prescient.ray_cluster import RayCluster
from prescient.settings import Day, Settings, WindowEnd

ARTICLE_FIELDS = ("date", "title", "text", "url", "source_domain")
"""Fields of an article, in the order of the article table."""
REQUIRED_FIELDS = ("date", "title", "text")
"""Fields a column-mapped source must map (url and source_domain may be absent)."""
MAPPED_FIELDS = (*ARTICLE_FIELDS, "arrived")
"""Fields a column-mapped source may map: the article's, and the day it entered the
corpus (:mod:`prescient.arrival`; absent: on its date)."""


class CorpusSettings(Settings):
    """Where the news comes from (params section ``corpus``).

    Attributes:
        name: recorded in logs.
        format: jsonl, csv, parquet (mapped columns) or warc (HTML responses).
        path: a file, or a directory scanned with ``glob``; for warc also a crawl
            manifest (``manifest.jsonl``), whose complete files are read in its order.
        glob: file pattern inside a directory (null: every file).
        columns: article field -> column of the source (null for warc).
        date_format: strptime format of the date column (null: ISO 8601 and common forms).
        hosts: warc only: allow-list of hosts on WARC-Target-URI (a host and its
            subdomains; ``www.`` ignored), checked before any HTML is parsed (null: all).
        chains: the OpenForecast chain source this corpus implies (the default of
            ``chains.source``): ``demo`` for the demo corpus's fictional timelines,
            ``cluster`` (stories linked from its own articles) for real news.
        arrival_grace_days: an article that arrived at most this many days after its
            date still counts for its day's question construction, and a day is
            settled (selected from) once ``base.through`` is this many days past it
            (:mod:`prescient.arrival`).
        crawls: the crawls the corpus is read from; only the pipeline uses it: the crawl
            pipeline (pipelines/crawl/dvc.yaml) defines one stage, ``crawl@NAME``, per
            entry, so a corpus that lists none has no crawl stage at all (``ccnews``
            writes ``data/raw/ccnews/``, where the ``ccnews`` corpus path points).
    """

    name: str
    format: Literal["jsonl", "csv", "parquet", "warc"]
    path: str = Field(min_length=1)
    glob: str | None
    columns: dict[str, str | None] | None
    date_format: str | None
    hosts: tuple[str, ...] | None
    chains: Literal["demo", "cluster", "import"]
    arrival_grace_days: int = Field(ge=0)
    crawls: tuple[Literal["ccnews"], ...]

    @field_validator("hosts")
    @classmethod
    def _lower_hosts(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is None:
            return None
        hosts = tuple(h.strip().lower().rstrip(".").removeprefix("www.") for h in value)
        if not hosts or not all(hosts):
            raise ValueError("must list at least one host name (or be null: every host)")
        return hosts

    @model_validator(mode="after")
    def _columns_fit_the_format(self) -> CorpusSettings:
        if self.hosts is not None and self.format != "warc":
            raise ValueError(
                "corpus.hosts filters WARC records by their target host; set it to null "
                f"for the {self.format} format (ingest.source_domains filters any source)"
            )
        if self.format == "warc":
            return self
        columns = self.columns or {}
        unknown = sorted(set(columns) - set(MAPPED_FIELDS))
        absent = [f for f in REQUIRED_FIELDS if not columns.get(f)]
        if unknown or absent:
            raise ValueError(
                f"corpus.columns must map {', '.join(MAPPED_FIELDS)} to columns of the "
                f"{self.format} source (date, title, text required); unknown fields: "
                f"{unknown}, unmapped: {absent}; set corpus.columns.<field>=<column>"
            )
        return self

    def column_map(self) -> dict[str, str | None]:
        """Every mapped field -> its column (None: not in the source)."""
        columns = self.columns or {}
        return {f: columns.get(f) for f in MAPPED_FIELDS}


class RaySettings(RayCluster):
    """Where the ``ray`` engine runs (params section ``ingest.ray``; ``address`` and
    ``num_cpus`` as :class:`prescient.ray_cluster.RayCluster`).

    Attributes:
        files_in_flight: files read at once (None: twice the cluster's CPUs); results
            of files read ahead wait in Ray's object store until ingest reaches them.
        rows_per_batch: rows per Arrow table a task sends back.
    """

    files_in_flight: int | None = Field(ge=1)
    rows_per_batch: int = Field(ge=1)


class ExtractionSettings(Settings):
    """``ingest.extraction``: how trafilatura reads a WARC page's article
    (:class:`prescient.corpus.warc.Extraction`)."""

    favor_precision: bool
    prune_xpath: tuple[Annotated[str, Field(min_length=1)], ...]
    drop_repeated_paragraphs: bool

    @field_validator("prune_xpath")
    @classmethod
    def _xpaths_compile(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from lxml import etree

        for expr in value:
            try:
                etree.XPath(expr)
            except etree.XPathSyntaxError as exc:
                raise ValueError(f"{expr!r} is not an XPath expression ({exc})") from None
        return value

    def spec(self) -> Extraction:
        return Extraction(self.favor_precision, self.prune_xpath, self.drop_repeated_paragraphs)


class IngestSettings(Settings):
    """Filters and bounds of the ingest stage (params section ``ingest``).

    Attributes:
        min_chars: keep texts strictly longer than this.
        max_chars: keep texts strictly shorter than this.
        drop_title_prefixes: drop titles starting with any of these.
        source_domains: allow-list of source domains (null: all).
        languages: allow-list of languages, as py3langid's model names them (ISO 639-1
            where there is one: en, el, pt), detected from the title and the first
            ``language_chars`` characters of the text (null: all, nothing detected).
        language_chars: characters of the text the language detector reads.
        title_suffix_separators: what separates a masthead from a title's headline.
        title_suffix_min_count: a suffix after a title's last separator that ends at
            least this many titles of one source domain is a masthead, stripped (null:
            titles are kept as read; see :mod:`prescient.corpus.titles`).
        date_start: first publication day kept (null: open).
        date_end: last publication day kept (null: open).
        through: ``base.through``, set by the stage (not a key of the section): an
            article known after it (:func:`prescient.arrival.known_from`) is
            ``after_through``.
        max_date: articles dated after this day are ``future_date`` (null: no bound).
        max_days_after_crawl: a WARC page may be dated at most this many days after its
            record's WARC-Date (time zones); later is ``future_date``.
        max_record_bytes: a line, CSV record or WARC record (and a decoded HTML page)
            larger than this is not an article: counted, never parsed or held.
        max_drop_share: stop when one drop reason that signals a wrong configuration
            takes at least this share of the rows read (null: never).
        examples_per_reason: examples of each drop reason kept for the log.
        extraction: how trafilatura extracts a WARC page's article
            (:class:`ExtractionSettings`).
        engine: where WARC records are read and their HTML extracted: ``local`` (this
            process) or ``ray`` (a Ray task per file); the outputs are byte-identical.
        ray: the Ray engine's cluster and batching.
        reuse: keep each input file's checked rows and the language detector's verdicts
            in DVC's cache between runs (:class:`prescient.corpus.kept_files.KeptFiles`,
            :class:`prescient.corpus.language.KeptLanguages`; the same table).
    """

    min_chars: int = Field(ge=0)
    max_chars: int = Field(gt=0)
    drop_title_prefixes: tuple[str, ...]
    source_domains: tuple[str, ...] | None
    languages: tuple[str, ...] | None
    language_chars: int = Field(ge=1)
    title_suffix_separators: tuple[Annotated[str, Field(min_length=1)], ...]
    title_suffix_min_count: int | None = Field(ge=2)
    date_start: Day | None
    date_end: WindowEnd
    through: Day | None = None
    max_date: Day | None
    max_days_after_crawl: int = Field(ge=0)
    max_record_bytes: int = Field(ge=1024)
    max_drop_share: float | None = Field(gt=0.0, le=1.0)
    examples_per_reason: int = Field(ge=0)
    extraction: ExtractionSettings
    engine: Literal["local", "ray"]
    ray: RaySettings
    reuse: bool

    @field_validator("source_domains")
    @classmethod
    def _lower_domains(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is None:
            return None
        return tuple(d.strip().lower().removeprefix("www.") for d in value)

    @field_validator("languages")
    @classmethod
    def _known_languages(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is None:
            return None
        codes = tuple(c.strip().lower() for c in value)
        if not codes:
            raise ValueError("must list at least one language (or be null: every language)")
        from prescient.corpus.language import languages, unknown_languages

        unknown = unknown_languages(codes)
        if unknown:
            raise ValueError(
                f"unknown language codes {unknown}; the detector knows {', '.join(languages())}"
            )
        return codes

    @model_validator(mode="after")
    def _bounds_in_order(self) -> IngestSettings:
        if self.max_chars <= self.min_chars:
            raise ValueError(
                f"ingest.max_chars ({self.max_chars}) must exceed ingest.min_chars "
                f"({self.min_chars}); no text could be kept"
            )
        return self
