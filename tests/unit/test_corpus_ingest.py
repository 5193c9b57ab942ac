from __future__ import annotations

import csv
import datetime as dt
import gzip
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prescient.corpus.ingest import DROP_REASONS, IngestSettings, ingest_rows, summarize
from prescient.corpus.readers import CorpusConfigError, RawRow, read_rows

COLS = {f: f for f in ("date", "title", "text", "url", "source_domain")}
TODAY = dt.date(2025, 6, 30)
BODY = "The council approved the plan after a long debate. " * 20  # ~1,000 chars


def art(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "date": "2024-03-01",
        "title": "Council approves plan",
        "text": BODY,
        "url": "https://gazette.example/a",
        "source_domain": "gazette.example",
    }
    base.update(kw)
    return base


def run(rows: list[dict[str, object]], **kw: object) -> tuple[pd.DataFrame, dict[str, object]]:
    raw = [RawRow(f"mem:{i}", dict(r)) for i, r in enumerate(rows, 1)]
    df, report = ingest_rows(raw, IngestSettings(**kw), today=TODAY)  # type: ignore[arg-type]
    return df, summarize(df, report, "x")


def test_filters_follow_the_paper_defaults() -> None:
    df, m = run(
        [
            art(url="https://g.example/ok"),
            art(url="https://g.example/short", text="x" * 800),  # len must be > 800
            art(url="https://g.example/long", text="y" * 10_000),  # len must be < 10,000
            art(url="https://g.example/op", title="Opinion: we need the bridge", text=BODY + "b"),
            art(url="https://g.example/edge1", text="z" * 801),
            art(url="https://g.example/edge2", text="w" * 9_999),
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
            art(url="https://g.example/5", date="2031-01-01"),
            art(url="https://g.example/6", title={"nested": 1}),
            art(url="https://g.example/7", text=BODY + "unique"),
        ]
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
        source_domains=("cnn.com",),
        date_start=dt.date(2020, 1, 1),
        date_end=dt.date(2024, 6, 30),
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
    assert list(df.columns) == ["article_id", "date", "title", "text", "url", "source_domain"]
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
    df, report = ingest_rows(raw, IngestSettings(), today=TODAY)
    m = summarize(df, report, "x")
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    assert m["rows_read"] == len(rows)
    assert m["rows_kept"] + sum(dropped.values()) == len(rows)
    assert set(dropped) == set(DROP_REASONS)
    assert df["article_id"].is_unique


# --- readers ----------------------------------------------------------------------


def test_jsonl_reader_counts_malformed_and_non_utf8_lines(tmp_path: Path) -> None:
    p = tmp_path / "news.jsonl.gz"
    with gzip.open(p, "wb") as fh:
        fh.write((json.dumps(art(url="https://g.example/1")) + "\n").encode())
        fh.write(b'{"date": "2024-03-01", "title": "broken\n')
        fh.write(b"\n")  # blank lines are not rows
        fh.write(
            json.dumps(art(url="https://g.example/2", text=BODY + "2")).encode()[:-2]
            + b'\xff\xfe"}\n'
        )
        fh.write(b"[1, 2, 3]\n")
        fh.write((json.dumps(art(url="https://g.example/3", text=BODY + "3")) + "\n").encode())
    rows = list(read_rows(p, "jsonl", COLS))
    assert [r.reason for r in rows] == [
        None,
        "malformed_json",
        "invalid_utf8",
        "malformed_json",
        None,
    ]
    assert rows[2].where.endswith(":4")
    df, report = ingest_rows(rows, IngestSettings(), today=TODAY)
    assert len(df) == 2 and report.rows_read == 5


def test_jsonl_column_mapping(tmp_path: Path) -> None:
    p = tmp_path / "news.jsonl"
    obj = {"published": "2024-03-01", "headline": "H", "body": BODY, "link": "https://g.example/x"}
    p.write_text(json.dumps(obj) + "\n")
    cols = {
        "date": "published",
        "title": "headline",
        "text": "body",
        "url": "link",
        "source_domain": None,
    }
    df, _ = ingest_rows(read_rows(p, "jsonl", cols), IngestSettings(), today=TODAY)
    assert df.loc[0, "title"] == "H" and df.loc[0, "source_domain"] == "g.example"


def test_wrong_mapping_is_a_clear_config_error(tmp_path: Path) -> None:
    p = tmp_path / "news.jsonl"
    p.write_text(json.dumps(art()) + "\n")
    cols = dict(COLS, date="published_at")
    with pytest.raises(CorpusConfigError, match=r"news.jsonl.*published_at.*corpus.columns"):
        list(read_rows(p, "jsonl", cols))


def test_missing_file_and_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(CorpusConfigError, match="does not exist.*corpus.path"):
        list(read_rows(tmp_path / "nope.jsonl", "jsonl", COLS))
    (tmp_path / "x.txt").write_text("")
    with pytest.raises(CorpusConfigError, match="not supported"):
        list(read_rows(tmp_path / "x.txt", "xml", COLS))


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
    rows = list(read_rows(p, "csv", COLS))
    assert [r.reason for r in rows] == [None, "malformed_row", "malformed_row", None]
    df, _ = ingest_rows(rows, IngestSettings(), today=TODAY)
    assert df.loc[0, "title"] == "Multi line title"
    assert df.loc[0, "source_domain"] == "g.example"  # derived from the url when empty
    with pytest.raises(CorpusConfigError, match="headline"):
        list(read_rows(p, "csv", dict(COLS, title="headline")))


def test_parquet_reader(tmp_path: Path) -> None:
    p = tmp_path / "news.parquet"
    pd.DataFrame(
        [art(url=f"https://g.example/{i}", text=BODY + str(i)) for i in range(5)]
    ).to_parquet(p)
    df, report = ingest_rows(read_rows(p, "parquet", COLS), IngestSettings(), today=TODAY)
    assert len(df) == 5 and report.rows_read == 5
    with pytest.raises(CorpusConfigError, match="body"):
        list(read_rows(p, "parquet", dict(COLS, text="body")))
