"""The ingest stage end to end: a WARC written in the test, the shared corpus, the CLI."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from prescient import params as params_mod
from stages import ingest as ingest_stage
from tests.conftest import ROOT, SHARED_NEWS

PARA = (
    "The harbour authority of Port Velden voted on Tuesday to extend the northern "
    "breakwater, a project first proposed after the storms of 2021. Engineers said the "
    "work would begin in the spring and finish by the end of 2025, at a cost of about "
    "40 million euros. "
)


def page(title: str, paragraphs: int, date: str | None) -> bytes:
    meta = f'<meta property="article:published_time" content="{date}">' if date else ""
    body = "".join(
        f"<p>{title}: {PARA} Paragraph {i} adds detail number {i * 7}.</p>"
        for i in range(paragraphs)
    )
    return (
        f"<html><head><title>{title}</title>{meta}</head><body><article><h1>{title}</h1>"
        f"{body}</article></body></html>"
    ).encode()


def write_warc(path: Path) -> None:
    with open(path, "wb") as out:
        w = WARCWriter(out, gzip=True)

        def response(
            uri: str,
            payload: bytes,
            ctype: str = "text/html; charset=utf-8",
            status: str = "200 OK",
            warc_date: str = "2024-05-03T10:00:00Z",
        ) -> None:
            http = StatusAndHeaders(status, [("Content-Type", ctype)], protocol="HTTP/1.1")
            rec = w.create_warc_record(
                uri,
                "response",
                payload=io.BytesIO(payload),
                http_headers=http,
                warc_headers_dict={"WARC-Date": warc_date},
            )
            w.write_record(rec)

        w.write_record(w.create_warcinfo_record("test.warc.gz", {"software": "test"}))
        response(
            "https://velden-post.example/2024/05/02/breakwater",
            page("Breakwater vote passes", 6, "2024-05-02"),
        )
        w.write_record(
            w.create_warc_record(
                "https://velden-post.example/x",
                "request",
                payload=io.BytesIO(b"GET / HTTP/1.1\r\n\r\n"),
            )
        )
        response("https://velden-post.example/logo.png", b"\x89PNG....", ctype="image/png")
        response("https://velden-post.example/undated", page("Ferry timetable changes", 6, None))
        response("https://velden-post.example/empty", b"<html><body></body></html>")
        response("https://velden-post.example/gone", b"<html>gone</html>", status="404 Not Found")
        response("https://velden-post.example/brief", page("Short note", 1, "2024-05-02"))
        response(
            "https://www.velden-post.example/2024/05/02/breakwater/?utm_source=feed",
            page("Breakwater vote passes again", 6, "2024-05-04"),
        )


def write_params(tmp: Path, corpus: dict[str, object]) -> Path:
    p = params_mod.compose(ROOT)
    p["corpus"] = corpus
    p["ingest"]["max_date"] = "2025-12-31"
    out = tmp / "params.yaml"
    out.write_text(yaml.safe_dump(p))
    return out


def run_stage(tmp: Path, params_path: Path) -> tuple[int, pd.DataFrame | None, dict[str, object]]:
    out, metrics = tmp / "articles.parquet", tmp / "ingest.json"
    rc = ingest_stage.main(
        ["--params", str(params_path), "--out", str(out), "--metrics", str(metrics)]
    )
    if rc:
        return rc, None, {}
    return rc, pd.read_parquet(out), json.loads(metrics.read_text())


def test_warc_ingest(tmp_path: Path) -> None:
    warc_dir = tmp_path / "warc"
    warc_dir.mkdir()
    write_warc(warc_dir / "CC-NEWS-test.warc.gz")
    corpus = {
        "name": "warc",
        "format": "warc",
        "path": str(warc_dir),
        "glob": "*.warc.gz",
        "columns": None,
        "date_format": None,
    }
    rc, df, m = run_stage(tmp_path, write_params(tmp_path, corpus))
    assert rc == 0 and df is not None
    assert m["rows_read"] == 7  # response records only
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    assert dropped["non_html_response"] == 1
    assert dropped["http_error_status"] == 1
    assert dropped["unparseable_html"] == 1
    assert dropped["text_too_short"] == 1
    assert dropped["duplicate_url"] == 1
    assert m["notes"] == {"date_from_warc": 1}
    assert sorted(df["title"]) == ["Breakwater vote passes", "Ferry timetable changes"]
    by_title = dict(zip(df["title"], df["date"], strict=True))
    assert str(by_title["Breakwater vote passes"]) == "2024-05-02"
    assert str(by_title["Ferry timetable changes"]) == "2024-05-03"  # the WARC-Date
    assert not any(t.startswith("Breakwater vote passes\n") for t in df["text"])
    assert set(df["source_domain"]) == {"velden-post.example"}
    assert m["rows_kept"] + sum(dropped.values()) == m["rows_read"]


def test_missing_input_is_one_clear_error(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    corpus = {
        "name": "jsonl",
        "format": "jsonl",
        "path": str(tmp_path / "absent.jsonl.gz"),
        "glob": None,
        "columns": {f: f for f in ("date", "title", "text", "url", "source_domain")},
        "date_format": None,
    }
    rc, _, _ = run_stage(tmp_path, write_params(tmp_path, corpus))
    assert rc == 2
    assert "absent.jsonl.gz" in caplog.text and "corpus.path" in caplog.text


def test_demo_corpus_ingests_with_complete_accounting(tmp_path: Path) -> None:
    p = params_mod.load(ROOT / "params.yaml")
    corpus = dict(p["corpus"], path=str(ROOT / p["corpus"]["path"]))
    rc, df, m = run_stage(tmp_path, write_params(tmp_path, corpus))
    assert rc == 0 and df is not None and len(df) > 100
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    assert m["rows_kept"] + sum(dropped.values()) == m["rows_read"]
    assert df["article_id"].is_unique


@pytest.mark.shared
@pytest.mark.skipif(not SHARED_NEWS.exists(), reason="../shared news corpus is absent")
def test_shared_news_accounting_matches_the_file(tmp_path: Path) -> None:
    with gzip.open(SHARED_NEWS, "rt", encoding="utf-8") as fh:
        lines = sum(1 for line in fh if line.strip())
    p = params_mod.compose(ROOT, ["corpus=shared_news"])
    corpus = dict(p["corpus"], path=str(SHARED_NEWS))
    rc, df, m = run_stage(tmp_path, write_params(tmp_path, corpus))
    assert rc == 0 and df is not None
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    assert m["rows_read"] == lines == 16_217
    assert m["rows_kept"] + sum(dropped.values()) == lines
    assert m["rows_kept"] == len(df) > 15_000
    assert df["text"].str.len().between(801, 9_999).all()
    assert not df["title"].str.startswith("Opinion").any()
    assert df["article_id"].is_unique
