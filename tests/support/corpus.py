"""Corpus test helpers: settings from the shipped config, small files written in tests."""

from __future__ import annotations

import functools
import gzip
import io
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from prescient.corpus.accounting import IngestReport, summarize
from prescient.corpus.ingest import ingest_rows
from prescient.corpus.readers import Unit, read_rows
from prescient.corpus.settings import CorpusSettings, IngestSettings
from prescient.plumbing.params import compose
from prescient.settings import load_settings
from tests.conftest import ROOT

FIELDS = ("date", "title", "text", "url", "source_domain")
BODY = "The council approved the plan after a long debate. " * 20  # 1,020 chars


@functools.cache
def _params(overrides: tuple[str, ...]) -> dict[str, Any]:
    return compose(ROOT, overrides)


def ingest_settings(*overrides: str) -> IngestSettings:
    """The shipped ``ingest`` section with Hydra overrides (``ingest.min_chars=10``)."""
    return load_settings(IngestSettings, _params(tuple(overrides)), "ingest")


def corpus_settings(fmt: str, path: Path, *overrides: str) -> CorpusSettings:
    """The shipped ``corpus=<fmt>`` group pointed at ``path``."""
    params = _params((f"corpus={fmt}", *overrides))
    corpus = dict(params["corpus"], path=str(path))
    if fmt == "warc":
        corpus["glob"] = None
    return load_settings(CorpusSettings, {"corpus": corpus}, "corpus")


def article(**kw: object) -> dict[str, object]:
    """A row every default filter keeps."""
    base: dict[str, object] = {
        "date": "2024-03-01",
        "title": "Council approves plan",
        "text": BODY,
        "url": "https://gazette.example/a",
        "source_domain": "gazette.example",
    }
    base.update(kw)
    return base


def articles(n: int) -> list[dict[str, object]]:
    """``n`` distinct keepable rows."""
    return [
        article(url=f"https://gazette.example/{i}", text=f"{BODY}Story {i}.", title=f"Story {i}")
        for i in range(n)
    ]


def jsonl_bytes(rows: Iterable[dict[str, object]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


def csv_bytes(rows: Sequence[dict[str, object]], quote_all: bool = False) -> bytes:
    frame = pd.DataFrame(list(rows), columns=list(FIELDS))
    buf = io.StringIO()
    frame.to_csv(buf, index=False, quoting=1 if quote_all else 0, lineterminator="\n")
    return buf.getvalue().encode()


def gzip_bytes(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def run(
    fmt: str, path: Path, settings: IngestSettings | None = None, *corpus_overrides: str
) -> tuple[pd.DataFrame, IngestReport, dict[str, Any]]:
    """Read ``path`` as ``fmt`` with the shipped settings (the ``corpus`` group with Hydra
    overrides); the table, report and metrics."""
    settings = settings or ingest_settings()
    corpus = corpus_settings(fmt, path, *corpus_overrides)
    units: Iterable[Unit] = read_rows(
        corpus,
        max_record_bytes=settings.max_record_bytes,
    )
    df, report = ingest_rows(units, settings, date_format=corpus.date_format)
    return df, report, summarize(df, report, "x")


PARA = (
    "The harbour authority of Port Velden voted on Tuesday to extend the northern "
    "breakwater, a project first proposed after the storms of 2021. Engineers said the "
    "work would begin in the spring and finish by the end of 2025, at a cost of about "
    "40 million euros. "
)


def page(title: str, paragraphs: int, date: str | None) -> bytes:
    """An HTML news page trafilatura extracts (``date`` in a published-time meta tag)."""
    meta = f'<meta property="article:published_time" content="{date}">' if date else ""
    body = "".join(
        f"<p>{title}: {PARA} Paragraph {i} adds detail number {i * 7}.</p>"
        for i in range(paragraphs)
    )
    return (
        f"<html><head><title>{title}</title>{meta}</head><body><article><h1>{title}</h1>"
        f"{body}</article></body></html>"
    ).encode()


class Warc:
    """Writes WARC records with fixed ids and remembers where each record starts."""

    def __init__(self, gz: bool) -> None:
        self.out = io.BytesIO()
        self.writer = WARCWriter(self.out, gzip=gz)
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.pages: list[int] = []  # indices of the HTML responses
        self.n = 0

    def _write(self, rec: Any) -> None:
        self.starts.append(self.out.tell())
        self.writer.write_record(rec)
        self.ends.append(self.out.tell())

    def _headers(self, warc_date: str) -> dict[str, str]:
        self.n += 1
        return {
            "WARC-Date": warc_date,
            "WARC-Record-ID": f"<urn:uuid:00000000-0000-0000-0000-{self.n:012d}>",
        }

    def response(
        self,
        uri: str,
        payload: bytes,
        ctype: str = "text/html; charset=utf-8",
        status: str = "200 OK",
        warc_date: str = "2024-05-03T10:00:00Z",
    ) -> None:
        http = StatusAndHeaders(status, [("Content-Type", ctype)], protocol="HTTP/1.1")
        if "html" in ctype and status.startswith("2"):
            self.pages.append(len(self.starts))
        self._write(
            self.writer.create_warc_record(
                uri,
                "response",
                payload=io.BytesIO(payload),
                http_headers=http,
                warc_headers_dict=self._headers(warc_date),
            )
        )

    def request(self, uri: str) -> None:
        self._write(
            self.writer.create_warc_record(
                uri,
                "request",
                payload=io.BytesIO(b"GET / HTTP/1.1\r\n\r\n"),
                warc_headers_dict=self._headers("2024-05-03T10:00:00Z"),
            )
        )

    def info(self) -> None:
        rec = self.writer.create_warcinfo_record("test.warc", {"software": "test"})
        rec.rec_headers.replace_header("WARC-Record-ID", self._headers("")["WARC-Record-ID"])
        rec.rec_headers.replace_header("WARC-Date", "2024-05-03T10:00:00Z")
        self._write(rec)

    def bytes(self) -> bytes:
        return self.out.getvalue()


def small_warc(gz: bool, n: int = 3) -> Warc:
    """A warcinfo record and ``n`` keepable article pages, one day apart."""
    w = Warc(gz)
    w.info()
    for i in range(n):
        w.response(
            f"https://velden-post.example/2024/05/0{i + 1}/story-{i}",
            page(f"Harbour story {i}", 5, f"2024-05-0{i + 1}"),
            warc_date=f"2024-05-0{i + 2}T10:00:00Z",
        )
    return w


def table_bytes(path: Path) -> dict[str, bytes]:
    """The bytes of a table on disk by file name: a file, or a directory of parts and
    its manifest (:mod:`prescient.corpus.table`)."""
    if path.is_dir():
        return {p.name: p.read_bytes() for p in sorted(path.iterdir())}
    return {path.name: path.read_bytes()}
