"""WARC records (plain or gzip) as corpus rows, every record accounted for.

Records are cut out of the file by :mod:`prescient.corpus.warc_records`, which counts
cut, damaged and malformed stretches; each complete record is read here. A block whose
WARC-Block-Digest does not match is ``corrupt_record``. Complete response records are
parsed with warcio and their HTML extracted with trafilatura. An optional allow-list of
hosts is checked on the record's WARC-Target-URI first, so a record of another site
costs only its framing (``host_not_allowed``): no digest, no HTTP parsing, no
extraction.

How trafilatura extracts a page is :class:`Extraction` (``ingest.extraction``): with
``favor_precision`` it leaves out text it is unsure of, and ``prune_xpath`` removes page
furniture (advertisement labels, teasers, captions, related-article, newsletter and share
boxes) before it reads the page, and with ``drop_repeated_paragraphs`` a paragraph that
repeats an earlier one of the same page word for word (a lead shown twice, as a
standfirst and as the first paragraph) is kept once. All of it is a function of the page alone, never of pages read before.

The publication date is the page's own when trafilatura finds one, otherwise the
WARC-Date, noted as ``date_from_warc``. Each row carries its crawl day (the WARC-Date),
so the ingest checks can drop a page dated after it was fetched (``future_date``). No
date depends on the day the stage runs.
"""

from __future__ import annotations

import base64
import hashlib
import io
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from prescient.corpus import physical
from prescient.corpus.physical import Digest
from prescient.corpus.units import RawRow, Unit
from prescient.corpus.warc_records import MALFORMED_RECORD, TRAILER, Framed, Framer
from prescient.dates import parse_date

logger = logging.getLogger(__name__)

NOT_A_RESPONSE = "not_a_response"
HOST_NOT_ALLOWED = "host_not_allowed"
CORRUPT_RECORD = "corrupt_record"

# The date extractor (htmldate) discards dates after its ``max_date``, which defaults to
# the day it runs. A fixed bound far beyond any crawl keeps dates a function of the page
# alone; dates after the crawl are then dropped, visibly, by the ingest checks.
_EXTRACTOR_MAX_DATE = "2099-12-31"


@dataclass(frozen=True)
class Extraction:
    """How trafilatura reads a page (``ingest.extraction``; module docstring).

    Attributes:
        favor_precision: trafilatura's option: leave out text it is unsure of.
        prune_xpath: XPath expressions of elements removed before extraction.
        drop_repeated_paragraphs: a paragraph that repeats an earlier one of the page
            word for word is kept once.
    """

    favor_precision: bool = False
    prune_xpath: tuple[str, ...] = ()
    drop_repeated_paragraphs: bool = False


PLAIN = Extraction()
"""trafilatura's own defaults."""


def _digest_ok(value: str | None, block: bytes) -> bool:
    """Whether a WARC-Block-Digest (``algo:base32`` or ``algo:hex``) matches the block;
    True when absent or in a form this reader does not know."""
    if not value or ":" not in value:
        return True
    algo, _, encoded = value.partition(":")
    algo = algo.strip().lower().replace("-", "")
    if algo not in ("sha1", "sha256", "md5"):
        return True
    digest = hashlib.new(algo, block).digest()
    encoded = encoded.strip()
    if len(encoded) == 2 * len(digest):
        return encoded.lower() == digest.hex()
    return encoded.upper().rstrip("=") == base64.b32encode(digest).decode().rstrip("=")


def read_warc(
    path: Path,
    *,
    max_bytes: int,
    file_no: int = 0,
    hosts: Sequence[str] | None = None,
    digest: Digest | None = None,
    extraction: Extraction = PLAIN,
) -> Iterator[Unit]:
    """Every record of a WARC/WARC.gz file as a row (see the module docstring).

    Args:
        path: the file.
        max_bytes: bound on a record's content (larger ones are counted, never held).
        file_no: index of the file in the corpus.
        hosts: allow-list of target hosts (lower case, without ``www.``); None: all.
        digest: fed every byte of the file as stored (for the crawl manifest's sha256).
        extraction: how pages are extracted (:class:`Extraction`).
    """
    framer = Framer(path, file_no, max_bytes, digest)
    allowed = None if hosts is None else frozenset(hosts)
    for item in framer.records():
        if not isinstance(item, Framed):
            yield item
            continue
        yield _record_row(framer, item, max_bytes, allowed, extraction)


def host_allowed(uri: str | None, hosts: frozenset[str]) -> bool:
    """Whether the URI's host is one of ``hosts`` or a subdomain of one (``www.`` and
    ``edition.`` of ``cnn.com`` both are)."""
    try:
        host = (urlsplit(uri or "").hostname or "").rstrip(".")
    except ValueError:  # a malformed URI (bad port, brackets): no host to allow
        return False
    host = host.removeprefix("www.")
    while host:
        if host in hosts:
            return True
        _, _, host = host.partition(".")
    return False


def _record_row(
    framer: Framer,
    rec: Framed,
    max_bytes: int,
    hosts: frozenset[str] | None,
    extraction: Extraction,
) -> RawRow:
    uri = rec.headers.get("warc-target-uri")
    if rec.headers.get("warc-type", "").lower() != "response":
        return framer.row(rec.offset, NOT_A_RESPONSE, rec.headers.get("warc-type", "?"))
    if hosts is not None and not host_allowed(uri, hosts):
        return framer.row(rec.offset, HOST_NOT_ALLOWED, "", uri)
    fetched = parse_date(rec.headers.get("warc-date"))
    if fetched is None:
        return framer.row(rec.offset, MALFORMED_RECORD, "no readable WARC-Date", uri)
    if rec.block is None:
        return framer.row(rec.offset, physical.RECORD_TOO_LARGE, "content over the bound", uri)
    if not _digest_ok(rec.headers.get("warc-block-digest"), rec.block):
        return framer.row(rec.offset, CORRUPT_RECORD, "WARC-Block-Digest does not match", uri)
    row = framer.row(rec.offset, "", uri=uri)
    row.members = rec.members
    row.fetched = fetched
    reason, detail, fields, notes = _extract(rec, uri, max_bytes, extraction)
    row.reason = reason
    row.detail = detail
    row.fields = fields
    row.notes = notes
    return row


def _extract(
    rec: Framed, uri: str | None, max_bytes: int, extraction: Extraction
) -> tuple[str | None, str, dict[str, object], tuple[str, ...]]:
    """(reason, detail, fields, notes) of a complete response record."""
    from warcio.archiveiterator import ArchiveIterator

    assert rec.block is not None
    try:
        parsed = next(iter(ArchiveIterator(io.BytesIO(rec.header_bytes + rec.block + TRAILER))))
        http = parsed.http_headers
        status = http.get_statuscode() if http else None
        ctype = (http.get_header("Content-Type") if http else "") or ""
        if status and not str(status).startswith("2"):
            return "http_error_status", str(status), {}, ()
        if "html" not in ctype.lower():
            return "non_html_response", ctype[:60], {}, ()
        body = parsed.content_stream().read(max_bytes + 1)
    except Exception as exc:  # warcio raises many types on a broken HTTP block
        return MALFORMED_RECORD, f"HTTP block: {str(exc)[:100]}", {}, ()
    if len(body) > max_bytes:
        return "html_too_large", f"over {max_bytes} bytes", {}, ()
    page = extract_page(body, uri, extraction)
    if page is None:
        return "unparseable_html", "", {}, ()
    title, text, found = page
    date: object = found
    notes: tuple[str, ...] = ()
    if not date:
        date = parse_date(rec.headers.get("warc-date"))
        notes = ("date_from_warc",)
    fields = {"date": date, "title": title, "text": text, "url": uri, "source_domain": None}
    return None, "", fields, notes


def extract_page(
    body: bytes, uri: str | None, extraction: Extraction = PLAIN
) -> tuple[str, str, str | None] | None:
    """A page's (title, text, date or None) as the ingest reads it; None when it holds
    no text."""
    data = _trafilatura(body, uri, extraction)
    if data is None:
        return None
    title = str(data.get("title") or "")
    text = _strip_leading_title(str(data.get("text") or ""), title)
    if extraction.drop_repeated_paragraphs:
        text = _once(text)
    date = data.get("date")
    return title, text, str(date) if date else None


def _once(text: str) -> str:
    """The text with a paragraph that repeats an earlier one word for word left out."""
    seen: set[str] = set()
    kept = []
    for line in text.split("\n"):
        key = " ".join(line.split())
        if key and key in seen:
            continue
        seen.add(key)
        kept.append(line)
    return "\n".join(kept)


def _trafilatura(body: bytes, uri: str | None, extraction: Extraction) -> dict[str, object] | None:
    import trafilatura

    try:
        doc = trafilatura.bare_extraction(
            body,
            url=uri,
            with_metadata=True,
            include_comments=False,
            include_tables=False,
            favor_precision=extraction.favor_precision,
            prune_xpath=list(extraction.prune_xpath) or None,
            date_extraction_params={
                "extensive_search": False,
                "original_date": True,
                "max_date": _EXTRACTOR_MAX_DATE,
            },
        )
    except Exception:  # trafilatura raises many things on broken pages
        logger.debug("trafilatura failed", exc_info=True)
        return None
    data = doc.as_dict() if doc is not None and hasattr(doc, "as_dict") else doc
    if not isinstance(data, dict) or not (data.get("text") or "").strip():
        return None
    return data


def _strip_leading_title(text: str, title: str) -> str:
    """trafilatura often repeats the headline as the first line of the body."""
    first, _, rest = text.partition("\n")
    if title and first.strip() == title.strip():
        return rest
    return text
