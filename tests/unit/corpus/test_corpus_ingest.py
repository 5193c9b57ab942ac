from __future__ import annotations

import csv
import datetime as dt
import gzip
import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prescient.corpus.accounting import DROP_REASONS, IngestStopError, check_drops, summarize
from prescient.corpus.ingest import ingest_rows
from prescient.corpus.readers import RawRow
from prescient.corpus.settings import CorpusSettings, IngestSettings
from prescient.corpus.sources import CorpusConfigError, input_files
from prescient.settings import ParamsError, load_settings
from tests.support.corpus import BODY, corpus_settings, ingest_settings
from tests.support.corpus import article as art
from tests.support.corpus import run as run_file


def run(
    rows: list[dict[str, object]], *overrides: str, fetched: dt.date | None = None
) -> tuple[pd.DataFrame, dict[str, object]]:
    raw = [RawRow(f"mem:{i}", dict(r), fetched=fetched) for i, r in enumerate(rows, 1)]
    df, report = ingest_rows(raw, ingest_settings(*overrides), date_format=None)
    return df, summarize(df, report, "x")


def english(n: int) -> str:
    """English text of exactly ``n`` characters (none of them trailing white space)."""
    text = (BODY * 10)[:n]
    return text[:-1] + "." if text.endswith(" ") else text


def test_filters_follow_the_paper_defaults() -> None:
    df, m = run(
        [
            art(url="https://g.example/ok"),
            art(url="https://g.example/short", text=english(800)),  # len must be > 800
            art(url="https://g.example/long", text=english(10_000)),  # len must be < 10,000
            art(url="https://g.example/op", title="Opinion: we need the bridge", text=BODY + "b"),
            art(url="https://g.example/edge1", text=english(801)),
            art(url="https://g.example/edge2", text=english(9_999)),
        ]
    )
    assert sorted(df["url"]) == [
        "https://g.example/edge1",
        "https://g.example/edge2",
        "https://g.example/ok",
    ]
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    assert dropped["text_too_short"] == 1
    assert dropped["text_too_long"] == 1
    assert dropped["title_prefix"] == 1
    assert m["rows_read"] == 6 and m["rows_kept"] == 3


def test_bad_rows_are_counted_under_named_reasons() -> None:
    df, m = run(
        [
            art(url="https://g.example/1", text="   "),
            art(url="https://g.example/2", title=""),
            art(url="https://g.example/3", date=None),
            art(url="https://g.example/4", date="sometime soon"),
            art(url="https://g.example/5", date="2031-01-01"),  # after ingest.max_date
            art(url="https://g.example/6", title={"nested": 1}),
            art(url="https://g.example/7", text=BODY + "unique"),
        ],
        "ingest.max_date=2025-06-30",
    )
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    assert [dropped[r] for r in ("empty_text", "missing_title", "missing_date")] == [1, 1, 1]
    assert [dropped[r] for r in ("unparseable_date", "future_date", "invalid_field_type")] == [
        1,
        1,
        1,
    ]
    assert list(df["url"]) == ["https://g.example/7"]


def test_dedup_keeps_the_earliest_copy_by_url_and_by_text() -> None:
    df, m = run(
        [
            art(
                date="2024-03-05", url="https://www.g.example/story/?utm_source=tw", text=BODY + "1"
            ),
            art(date="2024-03-02", url="http://g.example/story", text=BODY + "2"),
            art(date="2024-03-04", url="https://other.example/copy", text=BODY + "2"),
            art(date="2024-03-01", url="https://third.example/copy", text=BODY + "3"),
            art(date="2024-03-01", url="https://fourth.example/copy", text=BODY + "3"),
        ]
    )
    # The URL group keeps 03-02 (earliest); its text then also claims the 03-04 copy.
    # Equal dates keep the first in input order.
    assert list(df["url"]) == ["https://third.example/copy", "http://g.example/story"]
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    assert dropped["duplicate_url"] == 1 and dropped["duplicate_text"] == 2


def test_domain_allow_list_and_date_range() -> None:
    df, m = run(
        [
            art(url="https://www.cnn.com/a", source_domain=None, text=BODY + "a"),
            art(url="https://npr.org/b", source_domain="npr.org", text=BODY + "b"),
            art(
                url="https://npr.org/c", source_domain="npr.org", date="2019-12-31", text=BODY + "c"
            ),
            art(
                url="https://npr.org/d", source_domain="npr.org", date="2024-07-01", text=BODY + "d"
            ),
        ],
        "ingest.source_domains=[cnn.com]",
        "ingest.date_start=2020-01-01",
        "ingest.date_end=2024-06-30",
    )
    assert list(df["source_domain"]) == ["cnn.com"]
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    # Date checks run before the domain check: each row counts under its first failure.
    assert dropped["before_date_start"] == 1
    assert dropped["after_date_end"] == 1
    assert dropped["source_not_allowed"] == 1


def test_output_schema_and_order() -> None:
    df, _ = run(
        [
            art(date="2024-03-02", url="https://g.example/b", text=BODY + "b"),
            art(date="2024-03-01", url="https://g.example/a", text=BODY + "a"),
            art(date="2024-03-02", url="https://g.example/c", text=BODY + "c"),
        ]
    )
    assert list(df.columns) == [
        *("article_id", "date", "title", "text", "url", "source_domain", "arrived", "text_sha256")
    ]
    assert df["text_sha256"].tolist() == [
        hashlib.sha256(t.encode("utf-8")).hexdigest() for t in df["text"]
    ]
    assert df["date"].tolist() == sorted(df["date"].tolist())
    same_day = df[df["date"] == dt.date(2024, 3, 2)]
    assert list(same_day["article_id"]) == sorted(same_day["article_id"])
    assert isinstance(df["date"].iloc[0], dt.date)


# --- the accounting invariant, on arbitrary mixes of good and bad rows --------------

row_strategy = st.fixed_dictionaries(
    {
        "date": st.one_of(
            st.none(),
            st.sampled_from(["2024-03-01", "2024-03-02", "2030-01-01", "bad", "", "2019-05-05"]),
        ),
        "title": st.sampled_from(["A title", "", "Opinion: x", "Another"]),
        "text": st.sampled_from(["", "short", BODY, BODY + "x", "z" * 12_000, BODY + "y"]),
        "url": st.sampled_from(
            [None, "https://a.example/1", "https://a.example/1/", "https://b.example/2"]
        ),
        "source_domain": st.sampled_from([None, "a.example"]),
    }
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            row_strategy.map(lambda r: ("ok", r)),
            st.sampled_from([("bad", "malformed_json"), ("bad", "invalid_utf8")]),
        ),
        max_size=30,
    )
)
def test_every_row_is_kept_or_counted_under_exactly_one_reason(
    rows: list[tuple[str, object]],
) -> None:
    raw = [
        RawRow(f"mem:{i}", dict(r)) if kind == "ok" else RawRow(f"mem:{i}", reason=str(r))  # type: ignore[call-overload]
        for i, (kind, r) in enumerate(rows)
    ]
    df, report = ingest_rows(raw, ingest_settings(), date_format=None)
    m = summarize(df, report, "x")
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    assert m["rows_read"] == len(rows)
    assert m["rows_kept"] + sum(dropped.values()) == len(rows)
    assert set(dropped) == set(DROP_REASONS)
    assert df["article_id"].is_unique


# --- dates: no clock, an optional pinned bound, the crawl time for WARC pages ------


def test_without_max_date_there_is_no_upper_bound() -> None:
    df, m = run([art(date="2031-01-01")])
    assert m["rows_kept"] == 1 and m["future_after"] is None
    df, m = run([art(date="2031-01-01")], "ingest.max_date=2030-12-31")
    assert m["dropped"]["future_date"] == 1 and m["future_after"] == "2030-12-31"  # type: ignore[index]
    df, m = run([art(date="2030-12-31")], "ingest.max_date=2030-12-31")
    assert m["rows_kept"] == 1  # the pinned day itself is kept


def test_a_page_dated_after_its_crawl_plus_the_margin_is_future() -> None:
    fetched = dt.date(2024, 5, 3)
    rows = [
        art(url="https://g.example/same", text=BODY + "a", date="2024-05-03"),
        art(url="https://g.example/next", text=BODY + "b", date="2024-05-04"),  # margin 1
        art(url="https://g.example/later", text=BODY + "c", date="2024-05-05"),
    ]
    df, m = run(rows, fetched=fetched)
    assert sorted(df["url"]) == ["https://g.example/next", "https://g.example/same"]
    assert m["dropped"]["future_date"] == 1  # type: ignore[index]
    df, m = run(rows, "ingest.max_days_after_crawl=0", fetched=fetched)
    assert list(df["url"]) == ["https://g.example/same"]


# --- values that are not text ---------------------------------------------------------


@pytest.mark.parametrize("title", [float("nan"), float("inf"), 7.0, 7, True, ["a"]])
def test_a_title_that_is_not_text_is_dropped_never_kept_as_text(title: object) -> None:
    df, m = run([art(title=title), art(url="https://g.example/ok", text=BODY + "ok")])
    assert m["dropped"]["invalid_field_type"] == 1  # type: ignore[index]
    assert list(df["title"]) == ["Council approves plan"]


def test_a_lone_surrogate_is_invalid_utf8_not_a_crash_at_write_time() -> None:
    df, m = run([art(text=BODY + "\ud800")])
    assert m["dropped"]["invalid_utf8"] == 1 and m["rows_kept"] == 0  # type: ignore[index]


# --- a configuration that drops (nearly) everything stops ------------------------------


def test_nothing_kept_stops_with_the_parameter_to_fix() -> None:
    raw = [RawRow(f"mem:{i}", art(date="01.03.2024")) for i in range(3)]
    df, report = ingest_rows(raw, ingest_settings(), date_format=None)
    with pytest.raises(
        IngestStopError, match=r"no article kept: unparseable_date: 3 of 3.*corpus.date_format"
    ):
        check_drops(report, 0.9)


def test_one_reason_over_the_share_stops_but_selection_reasons_do_not() -> None:
    rows = [art(url=f"https://g.example/{i}", text=BODY + str(i)) for i in range(10)]
    short = [dict(r, text="short") for r in rows[:9]] + rows[9:]
    _, report = ingest_rows(
        [RawRow(f"mem:{i}", r) for i, r in enumerate(short)], ingest_settings(), date_format=None
    )
    with pytest.raises(
        IngestStopError, match=r"at least 90%.*text_too_short: 9 of 10.*ingest.min_chars"
    ):
        check_drops(report, 0.9)
    check_drops(report, None)  # null: only an empty result stops
    eight = [dict(r, text="short") for r in rows[:8]] + rows[8:]
    _, report = ingest_rows(
        [RawRow(f"mem:{i}", r) for i, r in enumerate(eight)], ingest_settings(), date_format=None
    )
    check_drops(report, 0.9)  # 80% < 90%
    allow = ingest_settings("ingest.source_domains=[gazette.example]")
    elsewhere = [dict(r, source_domain="other.example") for r in rows[:9]] + rows[9:]
    _, report = ingest_rows(
        [RawRow(f"mem:{i}", r) for i, r in enumerate(elsewhere)], allow, date_format=None
    )
    assert report.dropped["source_not_allowed"] == 9
    check_drops(report, 0.9)  # an allow-list selects: 90% is not a mistake
    _, report = ingest_rows(
        [RawRow(f"mem:{i}", dict(r, source_domain="other.example")) for i, r in enumerate(rows)],
        allow,
        date_format=None,
    )
    with pytest.raises(IngestStopError, match="no article kept: source_not_allowed: 10 of 10"):
        check_drops(report, 0.9)  # but an empty result always stops


def test_the_wrong_date_format_on_the_demo_corpus_stops(tmp_path: Path) -> None:
    from prescient.corpus.ingest import ingest_corpus
    from tests.conftest import ROOT

    corpus = corpus_settings(
        "demo", ROOT / "data/raw/demo/news.jsonl.gz", "corpus.date_format=%d/%m/%Y"
    )
    with pytest.raises(IngestStopError, match=r"unparseable_date: 369 of 371.*corpus.date_format"):
        ingest_corpus(corpus, ingest_settings())


# --- settings ---------------------------------------------------------------------------


def test_settings_errors_name_the_parameter() -> None:
    from prescient.plumbing.params import compose
    from tests.conftest import ROOT

    with pytest.raises(ParamsError, match=r"ingest.max_chars \(500\) must exceed ingest.min_chars"):
        ingest_settings("ingest.max_chars=500")
    with pytest.raises(ParamsError, match=r"ingest.max_date: expected a day"):
        ingest_settings("ingest.max_date=soon")
    with pytest.raises(ParamsError, match=r"ingest.max_drop_share"):
        ingest_settings("ingest.max_drop_share=1.5")
    params = compose(ROOT)
    del params["ingest"]["max_days_after_crawl"]
    with pytest.raises(ParamsError, match=r"ingest.max_days_after_crawl is missing"):
        load_settings(IngestSettings, params, "ingest")
    params = compose(ROOT, ["corpus.columns.date=null"])
    with pytest.raises(ParamsError, match=r"corpus.*unmapped: \['date'\]"):
        load_settings(CorpusSettings, params, "corpus")
    assert ingest_settings("ingest.source_domains=[WWW.CNN.com]").source_domains == ("cnn.com",)


def test_missing_file_and_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(CorpusConfigError, match="does not exist.*corpus.path"):
        input_files(tmp_path / "nope.jsonl", None)
    with pytest.raises(CorpusConfigError, match="corpus.glob"):
        input_files(tmp_path, "*.warc.gz")


def test_jsonl_column_mapping(tmp_path: Path) -> None:
    p = tmp_path / "news.jsonl"
    obj = {"published": "2024-03-01", "headline": "H", "body": BODY, "link": "https://g.example/x"}
    p.write_text(json.dumps(obj) + "\n")
    corpus = corpus_settings(
        "jsonl",
        p,
        "corpus.columns.date=published",
        "corpus.columns.title=headline",
        "corpus.columns.text=body",
        "corpus.columns.url=link",
        "corpus.columns.source_domain=null",
    )
    from prescient.corpus.readers import read_rows

    s = ingest_settings()
    units = read_rows(corpus, max_record_bytes=s.max_record_bytes)
    df, _ = ingest_rows(units, s, date_format=None)
    assert df.loc[0, "title"] == "H" and df.loc[0, "source_domain"] == "g.example"


def test_wrong_mapping_is_a_clear_config_error(tmp_path: Path) -> None:
    p = tmp_path / "news.jsonl"
    p.write_text(json.dumps(art()) + "\n")
    from prescient.corpus.readers import read_rows

    corpus = corpus_settings("jsonl", p, "corpus.columns.date=published_at")
    with pytest.raises(CorpusConfigError, match=r"news.jsonl.*published_at.*corpus.columns"):
        list(read_rows(corpus, max_record_bytes=10_000))


def test_csv_reader(tmp_path: Path) -> None:
    p = tmp_path / "news.csv"
    with open(p, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["date", "title", "text", "url", "source_domain"])
        w.writerow(
            ["2024-03-01", "Multi\nline title", BODY + "\n\nsecond para", "https://g.example/1", ""]
        )
        w.writerow(["2024-03-02", "too few"])
        w.writerow(["2024-03-02", "t", BODY + "3", "https://g.example/3", "g.example", "extra"])
        w.writerow(["2024-03-03", "ok", BODY + "4", "https://g.example/4", "g.example"])
    df, report, m = run_file("csv", p)
    assert report.rows_read == 4 and m["dropped"]["malformed_row"] == 2
    assert report.examples["malformed_row"] == [
        f"{p}:6: 2 fields, the header has 5",  # record 1 spans lines 2-5
        f"{p}:7: 6 fields, the header has 5",
    ]
    assert df.loc[0, "title"] == "Multi line title"
    assert df.loc[0, "source_domain"] == "g.example"  # derived from the url when empty
    from prescient.corpus.readers import read_rows

    with pytest.raises(CorpusConfigError, match="headline"):
        list(
            read_rows(
                corpus_settings("csv", p, "corpus.columns.title=headline"),
                max_record_bytes=10_000,
            )
        )


def test_parquet_reader(tmp_path: Path) -> None:
    p = tmp_path / "news.parquet"
    pd.DataFrame(
        [art(url=f"https://g.example/{i}", text=BODY + str(i)) for i in range(5)]
    ).to_parquet(p)
    df, report, _ = run_file("parquet", p)
    assert len(df) == 5 and report.rows_read == 5
    from prescient.corpus.readers import read_rows

    with pytest.raises(CorpusConfigError, match="body"):
        list(
            read_rows(
                corpus_settings("parquet", p, "corpus.columns.text=body"),
                max_record_bytes=10_000,
            )
        )


def test_jsonl_gzip_with_malformed_and_non_utf8_lines(tmp_path: Path) -> None:
    p = tmp_path / "news.jsonl.gz"
    with gzip.open(p, "wb") as fh:
        fh.write((json.dumps(art(url="https://g.example/1")) + "\n").encode())
        fh.write(b'{"date": "2024-03-01", "title": "broken\n')
        fh.write(b"\n")
        fh.write(
            json.dumps(art(url="https://g.example/2", text=BODY + "2")).encode()[:-2]
            + b'\xff\xfe"}\n'
        )
        fh.write(b"[1, 2, 3]\n")
        fh.write((json.dumps(art(url="https://g.example/3", text=BODY + "3")) + "\n").encode())
    df, report, m = run_file("jsonl", p)
    dropped = {k: v for k, v in m["dropped"].items() if v}
    assert dropped == {"malformed_json": 2, "blank_line": 1, "invalid_utf8": 1}
    assert report.rows_read == 6 and len(df) == 2
    assert report.examples["invalid_utf8"][0].startswith(f"{p}:4:")
