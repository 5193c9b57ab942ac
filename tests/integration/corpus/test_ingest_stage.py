"""The ingest stage end to end: a WARC written in the test, the demo and shared corpora,
the CLI, and outputs that do not depend on the day the stage runs."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from prescient.plumbing import params as params_mod
from stages import ingest as ingest_stage
from tests.conftest import ROOT, SHARED_NEWS
from tests.support.corpus import Warc, articles, gzip_bytes, jsonl_bytes, page, table_bytes


def write_warc(path: Path) -> None:
    w = Warc(gz=True)
    w.info()
    w.response(
        "https://velden-post.example/2024/05/02/breakwater",
        page("Breakwater vote passes", 6, "2024-05-02"),
    )
    w.request("https://velden-post.example/x")
    w.response("https://velden-post.example/logo.png", b"\x89PNG....", ctype="image/png")
    w.response("https://velden-post.example/undated", page("Ferry timetable changes", 6, None))
    w.response("https://velden-post.example/empty", b"<html><body></body></html>")
    w.response("https://velden-post.example/gone", b"<html>gone</html>", status="404 Not Found")
    w.response("https://velden-post.example/brief", page("Short note", 1, "2024-05-02"))
    w.response(
        "https://www.velden-post.example/2024/05/02/breakwater/?utm_source=feed",
        page("Breakwater vote passes again", 6, "2024-05-04"),
    )
    # Dated six days after it was fetched (2024-05-03): not a publication date.
    w.response("https://velden-post.example/preview", page("Tram opening preview", 6, "2024-05-09"))
    path.write_bytes(w.bytes())


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


def warc_corpus(warc_dir: Path) -> dict[str, object]:
    return {
        "name": "warc",
        "format": "warc",
        "path": str(warc_dir),
        "glob": "*.warc.gz",
        "columns": None,
        "date_format": None,
        "hosts": None,
        "chains": "cluster",
        "arrival_grace_days": 0,
        "crawls": [],
    }


def test_warc_ingest(tmp_path: Path) -> None:
    warc_dir = tmp_path / "warc"
    warc_dir.mkdir()
    write_warc(warc_dir / "CC-NEWS-test.warc.gz")
    rc, df, m = run_stage(tmp_path, write_params(tmp_path, warc_corpus(warc_dir)))
    assert rc == 0 and df is not None
    assert m["rows_read"] == 10  # every record: warcinfo, request and eight responses
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    assert {k: v for k, v in dropped.items() if v} == {
        "not_a_response": 2,
        "non_html_response": 1,
        "http_error_status": 1,
        "unparseable_html": 1,
        "text_too_short": 1,
        "duplicate_url": 1,
        "future_date": 1,
    }
    assert m["notes"] == {"date_from_warc": 1}
    assert m["damage"] == []
    assert sorted(df["title"]) == ["Breakwater vote passes", "Ferry timetable changes"]
    by_title = dict(zip(df["title"], df["date"], strict=True))
    assert str(by_title["Breakwater vote passes"]) == "2024-05-02"
    assert str(by_title["Ferry timetable changes"]) == "2024-05-03"  # the WARC-Date
    assert not any(t.startswith("Breakwater vote passes\n") for t in df["text"])
    assert set(df["source_domain"]) == {"velden-post.example"}
    assert m["rows_kept"] + sum(dropped.values()) == m["rows_read"]


# --- no clock: the same inputs give the same bytes on any day --------------------------

_REAL_DATE, _REAL_DATETIME = dt.date, dt.datetime


class _FakeClockMeta(type):
    """isinstance/issubclass against a fake class answer for the real one."""

    _real: type

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls._real)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, cls._real)


def _frozen(day: dt.date) -> tuple[type, type]:
    class FakeDate(_REAL_DATE, metaclass=_FakeClockMeta):
        _real = _REAL_DATE

        @classmethod
        def today(cls) -> dt.date:
            return _REAL_DATE(day.year, day.month, day.day)

    class FakeDatetime(_REAL_DATETIME, metaclass=_FakeClockMeta):
        _real = _REAL_DATETIME

        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> dt.datetime:  # type: ignore[override]
            return _REAL_DATETIME(day.year, day.month, day.day, 12, tzinfo=tz)

        @classmethod
        def today(cls) -> dt.datetime:
            return cls.now()

        @classmethod
        def utcnow(cls) -> dt.datetime:
            return cls.now()

    return FakeDate, FakeDatetime


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Set the day every module sees (``datetime.date``/``datetime.datetime``, also where
    a module imported the classes by name), freezegun-style."""

    def set_day(day: dt.date) -> None:
        fake_date, fake_datetime = _frozen(day)
        monkeypatch.setattr(dt, "date", fake_date)
        monkeypatch.setattr(dt, "datetime", fake_datetime)
        for module in list(sys.modules.values()):
            for name, value in list(getattr(module, "__dict__", {}).items()):
                if value is _REAL_DATE or isinstance(value, type) and value.__name__ == "FakeDate":
                    monkeypatch.setattr(module, name, fake_date)
                elif (
                    value is _REAL_DATETIME
                    or isinstance(value, type)
                    and value.__name__ == "FakeDatetime"
                ):
                    monkeypatch.setattr(module, name, fake_datetime)

    yield set_day


def test_the_same_inputs_give_the_same_bytes_on_any_day(tmp_path: Path, clock: Any) -> None:
    warc_dir = tmp_path / "warc"
    warc_dir.mkdir()
    write_warc(warc_dir / "CC-NEWS-test.warc.gz")
    news = tmp_path / "news.jsonl.gz"
    news.write_bytes(
        gzip_bytes(jsonl_bytes([*articles(3), {**articles(4)[3], "date": "2031-01-01"}]))
    )
    jsonl = {
        "name": "jsonl",
        "format": "jsonl",
        "path": str(news),
        "glob": None,
        "columns": {f: f for f in ("date", "title", "text", "url", "source_domain")},
        "date_format": None,
        "hosts": None,
        "chains": "cluster",
        "arrival_grace_days": 0,
        "crawls": [],
    }
    for name, corpus in (("warc", warc_corpus(warc_dir)), ("jsonl", jsonl)):
        params = tmp_path / f"{name}.yaml"
        p = params_mod.compose(ROOT)
        p["corpus"] = corpus
        params.write_text(yaml.safe_dump(p))  # the shipped ingest section: max_date null
        outputs = []
        # Before the pages' dates, after them, and years later.
        for day in (dt.date(2024, 5, 4), dt.date(2024, 5, 10), dt.date(2033, 3, 1)):
            clock(day)
            assert dt.date.today() == day
            out = tmp_path / f"{name}-{day}"
            rc = ingest_stage.main(
                ["--params", str(params), "--out", f"{out}.parquet", "--metrics", f"{out}.json"]
            )
            assert rc == 0
            outputs.append((table_bytes(Path(f"{out}.parquet")), Path(f"{out}.json").read_bytes()))
        assert outputs[0] == outputs[1] == outputs[2], name
    kept = json.loads(Path(f"{tmp_path}/jsonl-2024-05-04.json").read_text())
    assert kept["rows_kept"] == 4 and kept["future_after"] is None  # no bound: 2031 kept


# --- stops and damage -------------------------------------------------------------------


def test_a_wrong_date_format_stops_with_the_parameter_to_fix(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    p = params_mod.load(ROOT / "params.yaml")
    corpus = dict(p["corpus"], path=str(ROOT / p["corpus"]["path"]), date_format="%d.%m.%Y")
    rc, _, _ = run_stage(tmp_path, write_params(tmp_path, corpus))
    assert rc == 2
    assert "unparseable_date: 369 of 371" in caplog.text and "corpus.date_format" in caplog.text
    assert not (tmp_path / "articles.parquet").exists()
    assert "Traceback" not in caplog.text


def test_a_damaged_file_is_listed_and_the_rest_is_kept(tmp_path: Path) -> None:
    packed = gzip_bytes(jsonl_bytes(articles(40)))
    news = tmp_path / "news.jsonl.gz"
    news.write_bytes(packed[: len(packed) - 100])
    corpus = {
        "name": "jsonl",
        "format": "jsonl",
        "path": str(news),
        "glob": None,
        "columns": {f: f for f in ("date", "title", "text", "url", "source_domain")},
        "date_format": None,
        "hosts": None,
        "chains": "cluster",
        "arrival_grace_days": 0,
        "crawls": [],
    }
    rc, df, m = run_stage(tmp_path, write_params(tmp_path, corpus))
    assert rc == 0 and df is not None
    assert m["dropped"]["truncated_record"] == 1  # type: ignore[index]
    assert m["rows_read"] == len(df) + 1
    assert [d["reason"] for d in m["damage"]] == ["truncated_gzip"]  # type: ignore[union-attr]


def test_paths_are_required_arguments() -> None:
    with pytest.raises(SystemExit) as exc:
        ingest_stage.main(["--out", "x.parquet"])
    assert exc.value.code == 2


def test_missing_input_is_one_clear_error(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    corpus = {
        "name": "jsonl",
        "format": "jsonl",
        "path": str(tmp_path / "absent.jsonl.gz"),
        "glob": None,
        "columns": {f: f for f in ("date", "title", "text", "url", "source_domain")},
        "date_format": None,
        "hosts": None,
        "chains": "cluster",
        "arrival_grace_days": 0,
        "crawls": [],
    }
    rc, _, _ = run_stage(tmp_path, write_params(tmp_path, corpus))
    assert rc == 2
    assert "absent.jsonl.gz" in caplog.text and "corpus.path" in caplog.text


@pytest.mark.parametrize("name", ["empty.jsonl", "empty.csv"])
def test_an_empty_corpus_file_stops_naming_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    corpus = {
        "name": "x",
        "format": name.rsplit(".", 1)[1],
        "path": str(path),
        "glob": None,
        "columns": {f: f for f in ("date", "title", "text", "url", "source_domain")},
        "date_format": None,
        "hosts": None,
        "chains": "cluster",
        "arrival_grace_days": 0,
        "crawls": [],
    }
    rc, _, _ = run_stage(tmp_path, write_params(tmp_path, corpus))
    assert rc == 2 and not (tmp_path / "articles.parquet").exists()
    assert f"no article kept: {path} holds no row to read" in caplog.text


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
