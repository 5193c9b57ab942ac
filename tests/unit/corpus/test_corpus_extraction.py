"""Extraction of WARC pages keeps the article and leaves the page furniture: the shipped
``ingest.extraction`` against trafilatura's defaults, on pages written with captions,
leads shown twice, teasers, related-article, advertisement, newsletter and share boxes
(tests/support/news_pages.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prescient.corpus.settings import ExtractionSettings
from prescient.corpus.units import RawRow
from prescient.corpus.warc import PLAIN, Extraction, read_warc
from tests.support.corpus import Warc, ingest_settings
from tests.support.news_pages import MIN_CHARS, PAGES


def _read(tmp_path: Path, extraction: Extraction) -> list[RawRow]:
    w = Warc(gz=True)
    for p in PAGES:
        w.response(p.url, p.html.encode(), warc_date=f"{p.date}T12:00:00Z")
    path = tmp_path / "pages.warc.gz"
    path.write_bytes(w.bytes())
    rows = [u for u in read_warc(path, max_bytes=1 << 20, extraction=extraction)]
    assert all(isinstance(r, RawRow) and not r.reason for r in rows)
    return [r for r in rows if isinstance(r, RawRow)]


def test_the_shipped_extraction_reads_every_article_and_nothing_else(tmp_path: Path) -> None:
    shipped = ingest_settings().extraction.spec()
    assert shipped.favor_precision and shipped.prune_xpath and shipped.drop_repeated_paragraphs
    for page, row in zip(PAGES, _read(tmp_path, shipped), strict=True):
        assert row.fields["text"] == page.text, page.name
        assert row.fields["title"] == page.title and row.fields["date"] == page.date
        assert (len(row.fields["text"]) > MIN_CHARS) == page.keep, page.name
        assert not row.notes  # the page's own date, not the crawl's


def test_trafilatura_s_defaults_keep_furniture_that_lifts_a_page_over_the_floor(
    tmp_path: Path,
) -> None:
    got = {p.name: r.fields["text"] for p, r in zip(PAGES, _read(tmp_path, PLAIN), strict=True)}
    page = next(p for p in PAGES if p.name == "inline_teaser_and_advertisement")
    assert not page.keep and len(got[page.name]) > MIN_CHARS
    assert "Advertisement" in got[page.name]


def test_repeated_paragraphs_are_kept_once_and_xpaths_are_checked() -> None:
    from prescient.corpus.warc import extract_page

    lead = "The port reopened on Friday after a five-day strike ended with a pay deal."
    html = (
        "<html><head><title>T</title></head><body><article><h1>T</h1>"
        f"<p>{lead}</p>"
        + "".join(f"<p>Paragraph {i} of the story says something new.</p>" for i in range(6))
        + f"<p>{lead}</p></article></body></html>"  # the lead again, as a closing summary
    ).encode()
    twice = extract_page(html, None, PLAIN)
    once = extract_page(html, None, Extraction(drop_repeated_paragraphs=True))
    assert twice is not None and twice[1].count(lead) == 2
    assert once is not None and once[1].count(lead) == 1
    assert once[1].split("\n")[0] == lead  # the first is kept, in its place
    with pytest.raises(ValueError, match="is not an XPath expression"):
        ExtractionSettings(
            favor_precision=True, prune_xpath=("//*[",), drop_repeated_paragraphs=True
        )
