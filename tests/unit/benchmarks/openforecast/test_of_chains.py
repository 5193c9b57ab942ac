"""Chain sources demo and import: ordering, ids, URL mapping, and every bad row listed."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from dataclasses import replace
from pathlib import Path

import pytest

from prescient.benchmarks.openforecast.chains import (
    CHAIN_SCHEMA,
    ChainError,
    EventDate,
    chain_frame,
    chain_stats,
    parse_event_date,
)
from prescient.benchmarks.openforecast.demo import read_timelines
from prescient.benchmarks.openforecast.importer import read_import
from prescient.benchmarks.openforecast.settings import ChainsSettings
from prescient.corpus.normalize import article_id, normalize_url
from prescient.plumbing import params
from prescient.settings import ParamsError, load_settings
from tests.conftest import ROOT

FIX = ROOT / "tests" / "fixtures" / "openforecast"


def settings(*overrides: str) -> ChainsSettings:
    return load_settings(ChainsSettings, params.compose(ROOT, list(overrides)), "chains")


def known(*urls: str) -> set[str]:
    return {article_id(normalize_url(u), "", dt.date(2020, 1, 1)) for u in urls}


def test_event_dates_keep_their_precision() -> None:
    assert parse_event_date("2023") == EventDate(dt.date(2023, 1, 1), "year")
    assert parse_event_date("2023-05") == EventDate(dt.date(2023, 5, 1), "month")
    assert parse_event_date("2023-5-7") == EventDate(dt.date(2023, 5, 7), "day")
    assert parse_event_date("2023-05-07T13:00:00Z") == EventDate(dt.date(2023, 5, 7), "day")
    assert parse_event_date(dt.date(2023, 5, 7)) == EventDate(dt.date(2023, 5, 7), "day")
    assert parse_event_date("2023-05").end == dt.date(2023, 5, 31)  # type: ignore[union-attr]
    assert parse_event_date("2024-02").end == dt.date(2024, 2, 29)  # type: ignore[union-attr]
    assert parse_event_date("2023").end == dt.date(2023, 12, 31)  # type: ignore[union-attr]
    for bad in ("", None, "next spring", "2023-13", "2023-02-30", "May 2023", "20230507"):
        assert parse_event_date(bad) is None, bad
    assert parse_event_date("2023-05", "day") is None  # the stated precision must match


def test_demo_timelines_become_ordered_chains_with_ingested_article_ids() -> None:
    ingested = known(
        "https://tidewater-news.example/2021/03/02/brisk-council-votes-electric-ferry",
        "https://www.harbour-bulletin.example/2021/03/02/ferry-vote/?utm_source=x",
        "https://harbour-bulletin.example/2022/05/10/keel-laid",
    )
    events, counts = read_timelines(FIX / "demo_timelines.jsonl", ingested)
    frame, extra = chain_frame(events, "demo")
    assert list(frame.columns) == list(CHAIN_SCHEMA)
    assert counts == {"lines": 8, "source_urls": 8, "source_urls_not_ingested": 5}
    assert extra["duplicate_events"] == 0
    ferry = frame[frame["chain_id"] == "ferry"]
    assert ferry["seq"].tolist() == [0, 1, 2, 3, 4]
    assert [d.isoformat() for d in ferry["date"]] == [
        "2021-03-02",
        "2021-09-14",
        "2022-05-10",
        "2022-05-10",
        "2023-01-17",
    ]
    # Two events on one day keep the generator's order.
    assert ferry["text"].iloc[2].startswith("Workers at the Kestrel yard")
    # The tracking parameters and www. of a URL do not change the article id.
    assert len(ferry["source_article_ids"].iloc[0]) == 2
    assert len(ferry["source_article_ids"].iloc[1]) == 0
    assert set(frame["date_precision"]) == {"day"}
    stats = chain_stats(frame)
    assert stats["chains"] == 2 and stats["events"] == 8
    assert stats["dates_per_chain"] == {"min": 3, "median": 3.5, "mean": 3.5, "max": 4}
    assert stats["chains_with_at_least_5_dates"] == 0


def test_event_ids_are_stable_when_other_chains_are_added() -> None:
    events, _ = read_timelines(FIX / "demo_timelines.jsonl", set())
    both, _ = chain_frame(events, "demo")
    alone, _ = chain_frame([e for e in events if e.chain_id == "orchard"], "demo")
    assert both[both["chain_id"] == "orchard"]["event_id"].tolist() == alone["event_id"].tolist()
    assert both["event_id"].is_unique


def test_an_order_the_dates_contradict_is_sorted_by_date() -> None:
    events, _ = read_timelines(FIX / "demo_timelines.jsonl", set())
    orchard = [e for e in events if e.chain_id == "orchard"]
    late_first = [replace(e, order=-e.order) for e in orchard]  # source order reversed
    frame, _ = chain_frame(late_first, "demo")
    assert [d.isoformat() for d in frame["date"]] == ["2022-04-05", "2022-06-21", "2022-10-04"]
    coarse = [replace(orchard[0], date=EventDate(dt.date(2022, 1, 1), "year"), order=10**9)]
    frame, _ = chain_frame([*orchard, *coarse], "demo")
    # "2022" may follow 2022-10-04 (it ends on 2022-12-31): the source's order stands.
    assert frame["date_precision"].tolist() == ["day", "day", "day", "year"]


def test_exact_repeats_are_dropped_and_counted() -> None:
    events, _ = read_timelines(FIX / "demo_timelines.jsonl", set())
    frame, extra = chain_frame([*events, events[0]], "demo")
    assert len(frame) == len(events)
    assert extra["duplicate_events"] == 1


def test_openforecast_release_format_imports_with_date_precisions() -> None:
    s = settings(f"chains.import.path={FIX / 'openforecast_chains.jsonl'}")
    events, counts = read_import(s.import_, set())
    frame, _ = chain_frame(events, "import:openforecast")
    assert counts["records"] == 2
    bridge = frame[frame["chain_title"] == "Harbour bridge closure in Velmora"]
    assert bridge["date_precision"].tolist() == ["day", "month", "day", "day", "year"]
    assert bridge["category"].iloc[0] == "Disasters and accidents"
    # "March 2022" may follow 2022-03-08: the source's order stands.
    assert bridge["text"].tolist()[:2] == [
        "Inspectors found cracks in the main span of the Velmora harbour bridge.",
        "The city closed the harbour bridge to heavy lorries.",
    ]
    election = frame[frame["chain_title"].str.startswith("Election")]
    assert election["date"].iloc[-1] == dt.date(2023, 4, 20)
    assert frame["chain_id"].nunique() == 2 and frame["chain_id"].str.len().eq(16).all()


def test_wcep_style_rows_group_into_chains_by_story() -> None:
    s = settings(
        f"chains.import.path={FIX / 'wcep_events.csv'}",
        "chains.import.format=csv",
        "chains.import.layout=event",
        "chains.import.columns.chain_title=story",
        "chains.import.columns.text=summary",
        "chains.import.columns.date=date",
        "chains.import.columns.source_urls=urls",
        "chains.import.columns.category=null",
        "chains.import.columns.events=null",
        "chains.import.columns.dates=null",
    )
    ingested = known("https://tidewater-news.example/2023/03/01/norvik-strike")
    events, counts = read_import(s.import_, ingested)
    frame, _ = chain_frame(events, "import:wcep")
    assert counts == {"records": 6, "source_urls": 2, "source_urls_not_ingested": 1}
    assert frame.groupby("chain_title").size().to_dict() == {
        "Museum theft in Arlen": 2,
        "Strike at the Norvik docks": 4,
    }
    strike = frame[frame["chain_title"] == "Strike at the Norvik docks"]
    assert strike["seq"].tolist() == [0, 1, 2, 3]
    assert strike["text"].iloc[2] == "Union leaders rejected the port authority's offer."
    assert len(strike["source_article_ids"].iloc[0]) == 1


def test_bad_rows_are_all_listed_in_one_error() -> None:
    s = settings(f"chains.import.path={FIX / 'bad_chains.jsonl'}")
    with pytest.raises(ChainError) as err:
        read_import(s.import_, set())
    text = str(err.value)
    assert "5 bad row(s)" in text
    assert "bad_chains.jsonl:1 event 1: empty text" in text
    assert "bad_chains.jsonl:1 event 2: no date" in text
    assert "bad_chains.jsonl:1 event 3: unreadable date 'next spring'" in text
    assert "bad_chains.jsonl:2: 2 events but 1 dates" in text
    assert "bad_chains.jsonl:3: not JSON" in text
    assert ":4" not in text  # the good chain is not listed


def test_demo_timelines_bad_lines_are_listed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    good = json.loads((FIX / "demo_timelines.jsonl").read_text().splitlines()[0])
    lines = [good, {**good, "date": "2021-03"}, {**good, "seq": -1}, {**good, "text": " "}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + "{oops\n")
    with pytest.raises(ChainError) as err:
        read_timelines(path, set())
    text = str(err.value)
    assert "4 bad row(s)" in text
    assert "t.jsonl:2: date '2021-03' is not a day date" in text
    assert "t.jsonl:3: seq -1" in text
    assert "t.jsonl:4: empty text" in text
    assert "t.jsonl:5: not JSON" in text


def test_settings_name_the_missing_path_and_bad_layouts() -> None:
    with pytest.raises(ParamsError, match=r"chains\.import\.path is not set"):
        settings("chains.source=import")
    with pytest.raises(ParamsError, match="needs columns"):
        settings("chains.import.columns.dates=null")
    assert settings().path == "data/raw/demo/timelines.jsonl"


DEMO_TIMELINES = ROOT / "data" / "raw" / "demo" / "timelines.jsonl"


@pytest.mark.skipif(not DEMO_TIMELINES.exists(), reason="the demo timelines file is absent")
def test_the_shipped_demo_timelines_tell_the_generators_13_arcs() -> None:
    """The demo source reads the generator's timelines: 13 chains, every event dated on
    the day of the demo articles that report it."""
    with gzip.open(ROOT / "data" / "raw" / "demo" / "news.jsonl.gz", "rt") as fh:
        news = [json.loads(line) for line in fh]
    day_of: dict[str, str] = {}
    for r in sorted((r for r in news if r.get("url")), key=lambda r: r["date"], reverse=True):
        # ingest keeps the earliest copy of a URL (the corpus has a later duplicate)
        day_of[article_id(normalize_url(r["url"]), "", dt.date.min)] = r["date"]
    events, counts = read_timelines(DEMO_TIMELINES, set(day_of))
    frame, extra = chain_frame(events, "demo")
    assert frame["chain_id"].nunique() == 13 and extra["duplicate_events"] == 0
    assert counts["source_urls_not_ingested"] == 0  # every URL is a demo article
    assert frame["source_article_ids"].map(len).min() >= 1
    for row in frame.itertuples():
        assert {day_of[a] for a in row.source_article_ids} == {row.date.isoformat()}, row.event_id
