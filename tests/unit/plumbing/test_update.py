"""The pieces of a daily update: the one conf line it rewrites, the window bound every
stage applies, the release and its manifest, the count of calls an update made."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from prescient.crawl.settings import CrawlSettings
from prescient.plumbing import params
from prescient.plumbing.update import (
    UpdateError,
    calls_sent,
    published,
    run_log_offset,
    set_partitions,
    set_through,
    write_release,
)
from prescient.settings import ParamsError, load_settings
from prescient.through import capped, read_through
from tests.conftest import ROOT

D = dt.date


def test_the_shipped_config_has_the_line_and_only_it_changes(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    shutil.copytree(ROOT / "conf", tmp_path / "conf", dirs_exist_ok=True)
    config = tmp_path / "conf" / "config.yaml"
    before = config.read_text().split("\n")
    assert set_through(config, D(2025, 2, 25)) is None
    after = config.read_text().split("\n")
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert changed == [("  through: null", '  through: "2025-02-25"')]
    assert set_through(config, D(2025, 3, 4)) == "2025-02-25"
    composed = params.compose(tmp_path)
    assert read_through(composed) == D(2025, 3, 4)
    assert composed["base"]["seed"] == params.compose(ROOT)["base"]["seed"]


def test_a_list_of_months_gains_the_new_days_month_and_only_that_line_changes(
    tmp_path: Path,
) -> None:
    from prescient.plumbing.update_cli import _extend_partitions

    shutil.copytree(ROOT / "conf", tmp_path / "conf")
    ev = tmp_path / "conf/eval/default.yaml"
    before = ev.read_text()
    set_partitions(ev, ("2024-11", "2024-12"))
    params.compose_to_file(tmp_path)
    _extend_partitions(tmp_path, D(2024, 12, 31))  # inside them: nothing changes
    assert params.compose(tmp_path)["eval"]["partitions"] == ["2024-11", "2024-12"]
    _extend_partitions(tmp_path, D(2025, 2, 3))
    assert params.load(tmp_path / "params.yaml")["eval"]["partitions"] == [
        "2024-11",
        "2024-12",
        "2025-01",
        "2025-02",
    ]
    changed = [
        (a, b)
        for a, b in zip(before.split("\n"), ev.read_text().split("\n"), strict=True)
        if a != b
    ]
    assert changed == [("partitions: [all]", "partitions: [2024-11, 2024-12, 2025-01, 2025-02]")]
    # a list written another way is named, with the fix
    ev.write_text(
        ev.read_text().replace(
            "partitions: [2024-11, 2024-12, 2025-01, 2025-02]", "partitions:\n- 2024-11"
        )
    )
    with pytest.raises(UpdateError, match="one-line list"):
        set_partitions(ev, ("2024-11", "2024-12"))


def test_a_comment_on_the_line_is_kept_and_other_sections_are_left_alone(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        "other:\n  through: keep\nbase:\n  seed: 1\n\n  # the bound\n"
        "  through: '2024-01-01'  # advanced daily\nnext:\n  through: keep\n"
    )
    assert set_through(config, D(2024, 1, 2)) == "2024-01-01"
    assert config.read_text() == (
        "other:\n  through: keep\nbase:\n  seed: 1\n\n  # the bound\n"
        '  through: "2024-01-02"  # advanced daily\nnext:\n  through: keep\n'
    )
    config.write_text("base:\n  seed: 1\nthrough: null\n")
    with pytest.raises(UpdateError, match="found 0; add `  through: null` under `base:`"):
        set_through(config, D(2024, 1, 2))
    config.write_text("seed: 1\n")
    with pytest.raises(UpdateError, match="no top-level `base:` section"):
        set_through(config, D(2024, 1, 2))


def test_windows_end_at_the_earlier_bound() -> None:
    assert capped(None, None) is None
    assert capped(D(2024, 5, 1), None) == D(2024, 5, 1)
    assert capped(None, D(2024, 5, 1)) == D(2024, 5, 1)
    assert capped(D(2024, 5, 1), D(2024, 4, 1)) == D(2024, 4, 1)
    assert capped(D(2024, 3, 1), D(2024, 4, 1)) == D(2024, 3, 1)
    with pytest.raises(ParamsError, match="base.through: 'soon' is not a day"):
        read_through({"base": {"through": "soon"}})


def test_the_crawl_follows_the_bound_or_needs_a_last_day() -> None:
    p = params.compose(ROOT, ["crawl.date_end=null"])
    crawl = load_settings(CrawlSettings, p, "crawl")
    assert crawl.bounded(D(2024, 12, 20)).last_day == D(2024, 12, 20)
    with pytest.raises(ParamsError, match="both null"):
        crawl.bounded(None)
    with pytest.raises(ParamsError, match="before crawl.date_start"):
        crawl.bounded(D(2024, 11, 1))
    shipped = load_settings(CrawlSettings, params.compose(ROOT), "crawl")
    assert shipped.bounded(None).last_day == shipped.date_end
    assert shipped.bounded(D(2025, 6, 1)).last_day == shipped.date_end  # the earlier one


def questions(ids: list[str], days: list[str], texts: list[str] | None = None) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "question_id": ids,
            "qtype": ["tf" if i % 2 else "mc" for i in range(len(ids))],
            "question": texts or [f"Will {i} happen?" for i in ids],
            "choices": [["Yes", "No"]] * len(ids),
            "resolution_date": [D.fromisoformat(d) for d in days],
        }
    )


def test_a_release_copies_the_table_and_compares_it_with_the_previous_one(tmp_path: Path) -> None:
    table, releases = tmp_path / "questions.parquet", tmp_path / "releases"
    questions(["a", "b"], ["2025-01-14", "2025-01-28"]).to_parquet(table)
    first = write_release(table, releases, D(2025, 1, 31))
    assert first == {
        "through": "2025-01-31",
        "file": "questions-2025-01-31.parquet",
        "sha256": hashlib.sha256(table.read_bytes()).hexdigest(),
        "questions": 2,
        "by_qtype": {"mc": 1, "tf": 1},
        "days": 2,
        "first_day": "2025-01-14",
        "last_day": "2025-01-28",
        "previous": None,
        "new_questions": 2,
        "changed": 0,
        "removed": 0,
    }
    assert json.loads((releases / "questions-2025-01-31.json").read_text()) == first
    assert (releases / "questions-2025-01-31.parquet").read_bytes() == table.read_bytes()

    # A later day: one question added, one changed, one gone.
    questions(
        ["a", "c", "d"], ["2025-01-14", "2025-01-28", "2025-02-04"], ["Will a happen?", "x?", "y?"]
    ).to_parquet(table)
    questions(["a", "b"], ["2025-01-14", "2025-01-29"]).to_parquet(
        releases / "questions-2025-02-01.parquet"
    )
    second = write_release(table, releases, D(2025, 2, 4))
    assert (second["previous"], second["new_questions"], second["changed"], second["removed"]) == (
        "questions-2025-02-01.parquet",
        2,
        0,
        1,
    )
    questions(["a"], ["2025-01-15"]).to_parquet(table)
    third = write_release(table, releases, D(2025, 2, 5))
    assert (third["previous"], third["changed"], third["removed"]) == (
        "questions-2025-02-04.parquet",
        1,
        2,
    )


def test_a_release_is_readable_like_any_new_file(tmp_path: Path) -> None:
    """Not private to whoever ran the update: 0666 less the umask (0644 under 022),
    as the table it copies got."""
    table, releases = tmp_path / "questions.parquet", tmp_path / "releases"
    old = os.umask(0o022)
    try:
        questions(["a"], ["2025-01-14"]).to_parquet(table)
        write_release(table, releases, D(2025, 1, 31))
        os.umask(0o027)
        write_release(table, releases, D(2025, 2, 1))
    finally:
        os.umask(old)
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in releases.iterdir()}
    assert modes == {
        "questions-2025-01-31.parquet": "0o644",
        "questions-2025-01-31.json": "0o644",
        "questions-2025-02-01.parquet": "0o640",
        "questions-2025-02-01.json": "0o640",
    }


def test_a_release_refuses_questions_after_its_day(tmp_path: Path) -> None:
    table = tmp_path / "questions.parquet"
    questions(["a"], ["2025-03-01"]).to_parquet(table)
    with pytest.raises(UpdateError, match="after base.through 2025-02-01"):
        write_release(table, tmp_path / "releases", D(2025, 2, 1))
    with pytest.raises(UpdateError, match="no question table"):
        write_release(tmp_path / "none.parquet", tmp_path / "releases", D(2025, 2, 1))


def test_calls_are_what_the_runs_logged_after_the_offset_sent(tmp_path: Path) -> None:
    log = tmp_path / "runs.jsonl"
    assert calls_sent(log, 0) == {}
    log.write_text('{"ledger": "data/llm/construct.jsonl", "sent": 5}\n')
    offset = run_log_offset(log)
    with open(log, "a") as fh:
        fh.write('{"ledger": "data/llm/construct.jsonl", "sent": 3}\n')
        fh.write('{"ledger": "data/llm/evaluate/a.jsonl", "sent": 0}\n')
        fh.write("not json\n")
        fh.write('{"ledger": "data/llm/evaluate/b.jsonl", "sent": 2}\n')
        fh.write('{"ledger": "data/llm/evaluate/b.jsonl", "sent": 1}\n')
    assert calls_sent(log, offset) == {
        "data/llm/construct.jsonl": 3,
        "data/llm/evaluate/b.jsonl": 3,
    }
    assert run_log_offset(None) == 0 and calls_sent(None, 0) == {}


def test_a_second_update_on_the_same_day_writes_nothing(tmp_path: Path) -> None:
    table, releases = tmp_path / "questions.parquet", tmp_path / "releases"
    questions(["a", "b"], ["2025-01-14", "2025-01-28"]).to_parquet(table)
    write_release(table, releases, D(2025, 1, 29))
    questions(["a", "b", "c"], ["2025-01-14", "2025-01-28", "2025-01-30"]).to_parquet(table)
    first = write_release(table, releases, D(2025, 1, 31))
    files = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in releases.iterdir()}
    assert published(table, releases, D(2025, 1, 31)) == first
    again = write_release(table, releases, D(2025, 1, 31))
    assert again == first and again["previous"] == "questions-2025-01-29.parquet"
    assert again["new_questions"] == 1
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in releases.iterdir()} == files
    assert published(table, releases, D(2025, 2, 1)) is None


def test_a_published_release_never_changes(tmp_path: Path) -> None:
    table, releases = tmp_path / "questions.parquet", tmp_path / "releases"
    questions(["a"], ["2025-01-14"]).to_parquet(table)
    write_release(table, releases, D(2025, 1, 31))
    before = (releases / "questions-2025-01-31.json").read_bytes()
    questions(["a", "b"], ["2025-01-14", "2025-01-15"]).to_parquet(table)
    with pytest.raises(UpdateError, match=r"already published.*never changes.*delete"):
        write_release(table, releases, D(2025, 1, 31))
    assert (releases / "questions-2025-01-31.json").read_bytes() == before
