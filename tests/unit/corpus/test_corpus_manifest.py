"""Ingest reads a crawl through its manifest, checks each file's sha256 while reading it,
and can keep only some hosts before any HTML is parsed."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from prescient.corpus import physical, warc
from prescient.corpus.readers import read_rows
from prescient.corpus.settings import CorpusSettings
from prescient.corpus.sources import ChecksumError, CorpusConfigError, corpus_files
from prescient.crawl.manifest import COMPLETE, FAILED, MISSING, ManifestRow, write_manifest
from prescient.settings import ParamsError, validate
from stages import ingest as ingest_stage
from tests.support.corpus import Warc, corpus_settings, ingest_settings, page, run


def crawl_dir(tmp: Path, names: list[str]) -> list[Path]:
    """One small WARC.gz per name (distinct pages) and a manifest listing them in the
    given order, every one complete."""
    files = []
    for n, name in enumerate(names):
        w = Warc(gz=True)
        w.info()
        for i in range(2):
            w.response(
                f"https://velden-post.example/{name}/{i}",
                page(f"Story {n}-{i}", 5, f"2024-05-0{i + 1}"),
            )
        path = tmp / name
        path.write_bytes(w.bytes())
        files.append(path)
    write_manifest(tmp / "manifest.jsonl", [row(p) for p in files])
    return files


def row(path: Path, status: str = COMPLETE, reason: str | None = None) -> ManifestRow:
    data = path.read_bytes() if status == COMPLETE else b""
    return ManifestRow(
        file=path.name,
        source=f"crawl-data/CC-NEWS/2024/05/{path.name}",
        crawled_at="2024-05-03T10:00:00Z",
        status=status,
        size=len(data) if status == COMPLETE else None,
        sha256=hashlib.sha256(data).hexdigest() if status == COMPLETE else None,
        reason=reason,
    )


def test_the_manifest_s_files_are_read_in_its_order(tmp_path: Path) -> None:
    # Name order would read a before b; the manifest lists b first.
    b, a = crawl_dir(tmp_path, ["CC-NEWS-2-b.warc.gz", "CC-NEWS-1-a.warc.gz"])
    corpus = corpus_settings("ccnews", tmp_path / "manifest.jsonl")
    files = corpus_files(corpus)
    assert [f.path for f in files] == [b, a]
    assert files[0].sha256 == hashlib.sha256(b.read_bytes()).hexdigest()
    # The test's pages are on velden-post.example: every host (ccnews keeps the paper's five).
    df, report, m = run("ccnews", tmp_path / "manifest.jsonl", None, "corpus.hosts=null")
    assert m["rows_read"] == 6 and m["rows_kept"] == 4
    assert sorted(df["title"]) == ["Story 0-0", "Story 0-1", "Story 1-0", "Story 1-1"]
    assert report.examples["not_a_response"] == [
        f"{b}:record 1 in the gzip member at byte 0: warcinfo",
        f"{a}:record 1 in the gzip member at byte 0: warcinfo",
    ]


def test_an_unfinished_crawl_names_every_file_that_is_not_complete(tmp_path: Path) -> None:
    done, failed, missing = crawl_dir(tmp_path, ["c1.warc.gz", "c2.warc.gz", "c3.warc.gz"])
    write_manifest(
        tmp_path / "manifest.jsonl",
        [row(done), row(failed, FAILED, "HTTP 503 after 8 tries"), row(missing, MISSING)],
    )
    with pytest.raises(CorpusConfigError) as err:
        list(
            read_rows(
                corpus_settings("ccnews", tmp_path / "manifest.jsonl"), max_record_bytes=10**6
            )
        )
    text = str(err.value)
    assert "2 of 3 files are not complete" in text
    assert "c2.warc.gz is failed (HTTP 503 after 8 tries)" in text
    assert "c3.warc.gz is missing" in text
    assert "run the crawl stage again" in text


def test_a_listed_file_that_is_absent_or_shorter_is_named(tmp_path: Path) -> None:
    first, second = crawl_dir(tmp_path, ["c1.warc.gz", "c2.warc.gz"])
    first.unlink()
    second.write_bytes(second.read_bytes()[:-5])
    with pytest.raises(CorpusConfigError, match="c1.warc.gz is listed but absent; c2.warc.gz has"):
        corpus_files(corpus_settings("ccnews", tmp_path / "manifest.jsonl"))


def test_a_manifest_with_a_glob_or_without_files_is_a_configuration_error(tmp_path: Path) -> None:
    crawl_dir(tmp_path, ["c1.warc.gz"])
    corpus = corpus_settings("ccnews", tmp_path / "manifest.jsonl")
    with pytest.raises(CorpusConfigError, match=r"corpus.glob='\*.warc.gz'.*-S corpus.glob=null"):
        corpus_files(corpus.model_copy(update={"glob": "*.warc.gz"}))
    write_manifest(tmp_path / "manifest.jsonl", [])
    with pytest.raises(CorpusConfigError, match="lists no file"):
        corpus_files(corpus)
    with pytest.raises(CorpusConfigError, match="no crawl manifest here"):
        corpus_files(corpus.model_copy(update={"path": str(tmp_path / "other.jsonl")}))


def test_a_file_whose_bytes_changed_stops_ingest_after_reading_it(tmp_path: Path) -> None:
    first, second = crawl_dir(tmp_path, ["c1.warc.gz", "c2.warc.gz"])
    data = bytearray(second.read_bytes())
    data[-3] ^= 0x01  # same size: only the checksum can tell (the gzip trailer is hit too)
    second.write_bytes(bytes(data))
    units = read_rows(
        corpus_settings("ccnews", tmp_path / "manifest.jsonl"), max_record_bytes=10**6
    )
    read = []
    with pytest.raises(ChecksumError) as err:
        for unit in units:
            read.append(unit)
    assert len(read) >= 3  # the first file whole, then the second until its end
    sha = hashlib.sha256(bytes(data)).hexdigest()
    assert str(err.value).startswith(f"{second}: its sha256 is {sha}, the crawl manifest")
    assert "delete it and run the crawl stage again" in str(err.value)


@pytest.mark.parametrize("damage", ["none", "trailing_bytes", "cut", "flipped", "plain"], ids=str)
def test_the_digest_is_the_file_s_sha256_whatever_the_damage(tmp_path: Path, damage: str) -> None:
    (path,) = crawl_dir(tmp_path, ["c1.warc.gz"])
    data = path.read_bytes()
    if damage == "trailing_bytes":
        data += b"\x00" * 7
    elif damage == "cut":
        data = data[:-40]
    elif damage == "flipped":
        data = data[:200] + bytes([data[200] ^ 0xFF]) + data[201:]
    elif damage == "plain":
        data = gzip.decompress(data)
        path = path.with_suffix("")
    path.write_bytes(data)
    digest = hashlib.sha256()
    chunks = list(physical.chunks(path, 0, digest))
    assert digest.hexdigest() == hashlib.sha256(data).hexdigest()
    assert any(isinstance(c, physical.Damage) for c in chunks) == (damage not in ("none", "plain"))


def test_the_stage_exits_2_naming_the_changed_file(tmp_path: Path) -> None:
    import yaml

    from prescient.plumbing import params as params_mod
    from tests.conftest import ROOT

    (only,) = crawl_dir(tmp_path, ["c1.warc.gz"])
    only.write_bytes(only.read_bytes()[::-1])
    p = params_mod.compose(ROOT, ["corpus=ccnews"])
    p["corpus"]["path"] = str(tmp_path / "manifest.jsonl")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(p))
    out = tmp_path / "articles.parquet"
    rc = ingest_stage.main(
        [
            "--params",
            str(tmp_path / "params.yaml"),
            "--out",
            str(out),
            "--metrics",
            str(tmp_path / "m.json"),
        ]
    )
    assert rc == 2 and not out.exists()


# --- the host allow-list --------------------------------------------------------------


def test_hosts_outside_the_allow_list_are_counted_before_any_html_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = Warc(gz=True)
    w.info()
    uris = [
        "https://www.cnn.com/2024/05/01/a",
        "https://edition.cnn.com/2024/05/01/b",
        "https://www.npr.org/2024/05/01/c",
        "https://notcnn.com/2024/05/01/d",
        "https://gazette.example/2024/05/01/e",
        "https://npr.org:8443/2024/05/01/f",
    ]
    for i, uri in enumerate(uris):
        w.response(uri, page(f"Story {i}", 5, "2024-05-01"))
    w.request("https://www.cnn.com/2024/05/01/a")
    p = tmp_path / "cc.warc.gz"
    p.write_bytes(w.bytes())
    parsed: list[str | None] = []
    real = warc._trafilatura

    def spy(body: bytes, uri: str | None, extraction: warc.Extraction) -> dict[str, object] | None:
        parsed.append(uri)
        return real(body, uri, extraction)

    monkeypatch.setattr(warc, "_trafilatura", spy)
    corpus = corpus_settings("warc", p, "corpus.hosts=[CNN.com,www.npr.org]")
    assert corpus.hosts == ("cnn.com", "npr.org")
    units = list(read_rows(corpus, max_record_bytes=10**6))
    reasons = [getattr(u, "reason", None) for u in units]
    assert reasons == [
        "not_a_response",
        None,
        None,
        None,
        "host_not_allowed",
        "host_not_allowed",
        None,
        "not_a_response",  # a request of an allowed host is still not a page
    ]
    assert parsed == [uris[0], uris[1], uris[2], uris[5]]
    from prescient.corpus.accounting import summarize
    from prescient.corpus.ingest import ingest_rows

    df, report = ingest_rows(iter(units), ingest_settings(), date_format=None)
    m = summarize(df, report, "x")
    assert m["dropped"]["host_not_allowed"] == 2
    assert (
        list(m["dropped"]).index("host_not_allowed")
        == list(m["dropped"]).index("not_a_response") + 1
    )
    assert m["rows_read"] == 8 and m["rows_kept"] == 4
    assert report.examples["host_not_allowed"][0].endswith("(https://notcnn.com/2024/05/01/d)")


GREEK = (
    "Το λιμάνι της πόλης άνοιξε ξανά την Τρίτη μετά τις εργασίες στον κυματοθραύστη, "
    "είπαν οι μηχανικοί του δήμου. "
)


def test_ccnews_keeps_the_paper_s_outlets_in_english_by_default(tmp_path: Path) -> None:
    w = Warc(gz=True)
    uris = [
        "https://www.cbsnews.com/news/a",
        "https://www.cnbc.com/2024/05/01/b",
        "https://edition.cnn.com/2024/05/01/c",
        "https://www.forbes.com/sites/d",
        "https://www.npr.org/2024/05/01/e",
        "https://www.reuters.com/world/f",
    ]
    for i, uri in enumerate(uris):
        w.response(uri, page(f"Story {i}", 5, "2024-05-01"))
    greek = "".join(f"<p>{GREEK * 3} ({i})</p>" for i in range(4))
    w.response(
        "https://www.cnn.com/greek/g",
        f"<html><head><title>Λιμάνι | Alpha Πάτρας</title>"
        f'<meta property="article:published_time" content="2024-05-01"></head>'
        f"<body><article><h1>Λιμάνι</h1>{greek}</article></body></html>".encode(),
    )
    (path,) = [tmp_path / "c1.warc.gz"]
    path.write_bytes(w.bytes())
    write_manifest(tmp_path / "manifest.jsonl", [row(path)])
    corpus = corpus_settings("ccnews", tmp_path / "manifest.jsonl")
    assert corpus.hosts == ("cbsnews.com", "cnbc.com", "cnn.com", "forbes.com", "npr.org")
    df, report, m = run("ccnews", tmp_path / "manifest.jsonl")
    assert sorted(df["source_domain"]) == [
        "cbsnews.com",
        "cnbc.com",
        "edition.cnn.com",
        "forbes.com",
        "npr.org",
    ]
    assert m["dropped"]["host_not_allowed"] == 1
    assert m["dropped"]["language_not_allowed"] == 1
    assert report.examples["language_not_allowed"][0].endswith(
        "(https://www.cnn.com/greek/g): el: Λιμάνι"
    )
    assert m["rows_read"] == 7 == m["rows_kept"] + m["dropped_total"]


def test_host_matching_takes_subdomains_and_refuses_malformed_uris() -> None:
    hosts = frozenset({"cnn.com"})
    assert warc.host_allowed("http://CNN.com./x", hosts)
    assert warc.host_allowed("https://a.b.cnn.com/x", hosts)
    assert not warc.host_allowed("https://cnn.com.evil.example/x", hosts)
    assert not warc.host_allowed("https://[::1/x", hosts)
    assert not warc.host_allowed(None, hosts)


def test_hosts_are_a_warc_setting() -> None:
    base = json.loads(corpus_settings("jsonl", Path("x.jsonl")).model_dump_json())
    with pytest.raises(ParamsError, match="corpus.hosts filters WARC records"):
        validate(CorpusSettings, {**base, "hosts": ["cnn.com"]}, "corpus")
    with pytest.raises(ParamsError, match="at least one host"):
        validate(CorpusSettings, {**base, "format": "warc", "hosts": []}, "corpus")
