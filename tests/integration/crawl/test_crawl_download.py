"""The crawl against a real loopback "CC-NEWS" server with injected faults: every file
ends complete and verified (size and sha256 equal to the served file), or is reported
failed with its reason. Waits are recorded by a fake sleep, never slept."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from prescient.crawl.manifest import COMPLETE, FAILED, MANIFEST_NAME, read_manifest
from prescient.crawl.run import CrawlError, crawl
from prescient.crawl.settings import CrawlSettings
from prescient.plumbing import params
from prescient.settings import load_settings
from tests.conftest import ROOT
from tests.support.fake_ccnews import (
    FakeCCNews,
    ServedFile,
    etag_of,
    last_modified_of,
    write_month,
)

# Crawl days 2024-01-28 .. 2024-02-03, three records per file except the last of January.
JAN = [(dt.datetime(2024, 1, d, 6, 30, 0), 3) for d in (28, 29, 30)] + [
    (dt.datetime(2024, 1, 31, 23, 59, 59), 40)
]
FEB = [(dt.datetime(2024, 2, d, 0, 0, 0), 3) for d in (1, 2, 3)]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[ServedFile]]:
    root = tmp_path_factory.mktemp("ccnews")
    files = write_month(root, 2024, 1, JAN) + write_month(root, 2024, 2, FEB)
    return root, files


def settings(server: FakeCCNews, *overrides: str) -> CrawlSettings:
    p = params.compose(
        ROOT,
        [
            f"crawl.base_url={server.url}",
            "crawl.date_start=2024-01-29",
            "crawl.date_end=2024-01-31",
            "crawl.margin_days=2",
            "crawl.max_files=null",
            "crawl.concurrency=3",
            "crawl.max_tries=4",
            "crawl.backoff_base_s=1.0",
            "crawl.backoff_max_s=30.0",
            "crawl.timeout_s=1.0",
            "crawl.chunk_bytes=4096",
            "crawl.progress=false",
            *overrides,
        ],
    )
    return load_settings(CrawlSettings, p, "crawl")


def selected(files: Sequence[ServedFile]) -> list[ServedFile]:
    """Crawled 2024-01-29 .. 2024-02-02 (the range plus two days)."""
    return files[1:6]


def write_partial(out: Path, root: Path, f: ServedFile, data: bytes) -> None:
    """A partial download a killed run left: its bytes and the validator it started with."""
    (out / (f.name + ".part")).write_bytes(data)
    validator = {"etag": etag_of(f.data), "last_modified": last_modified_of(root / f.source)}
    (out / (f.name + ".part.json")).write_text(json.dumps(validator))


def assert_complete_and_verified(out: Path, expected: Sequence[ServedFile]) -> None:
    rows = read_manifest(out / MANIFEST_NAME)
    assert [r.file for r in rows] == [f.name for f in expected]
    for row, f in zip(rows, expected, strict=True):
        assert row.status == COMPLETE and row.reason is None
        assert row.size == len(f.data)
        assert row.sha256 == hashlib.sha256(f.data).hexdigest()
        assert row.etag == etag_of(f.data)
        assert (out / f.name).read_bytes() == f.data
    assert not list(out.glob("*.part")) and not list(out.glob("*.part.json"))


def test_a_clean_crawl_fetches_the_window_and_a_rerun_fetches_nothing(
    tree: tuple[Path, list[ServedFile]], tmp_path: Path
) -> None:
    root, files = tree
    with FakeCCNews(root) as server:
        report = crawl(settings(server), tmp_path, sleep=pytest.fail)
        assert_complete_and_verified(tmp_path, selected(files))
        assert report.metrics() == {
            "window": {"first": "2024-01-29", "last": "2024-02-02"},
            "listings": {
                "2024-01": {"listed": 4, "unrecognised": 0, "selected": 3},
                "2024-02": {"listed": 3, "unrecognised": 0, "selected": 2},
            },
            "files": {
                "complete": 5,
                "missing": 0,
                "failed": 0,
                "bytes": sum(len(f.data) for f in selected(files)),
            },
            "failed": [],
        }
        assert report.reused == 0
        first = (tmp_path / MANIFEST_NAME).read_bytes()
        again = crawl(settings(server), tmp_path, sleep=pytest.fail)
        assert again.reused == 5 and again.fetched_bytes == 0
        assert (tmp_path / MANIFEST_NAME).read_bytes() == first
        assert all(server.requests[f.source] == 1 for f in selected(files))
        assert server.requests[files[0].source] == server.requests[files[6].source] == 0


def test_every_fault_ends_in_a_complete_verified_file(
    tree: tuple[Path, list[ServedFile]], tmp_path: Path
) -> None:
    root, files = tree
    a, b, c, d, e = selected(files)
    waits: list[float] = []
    with FakeCCNews(root, retry_after="7", stall_s=2.5) as server:
        server.fault(a.source, "drop", "503", "429")  # dropped mid-body, then busy
        server.fault(b.source, "reset", "stall", "slow")  # RST, stalled body, slow body
        server.fault(c.source, "truncated_gzip")  # cut inside the last gzip member
        server.fault(d.source, "drop", "ignore_range")  # resume answered with 200
        server.fault(e.source, "500", "500", "500")  # three errors: within max_tries=4
        report = crawl(settings(server), tmp_path, sleep=waits.append)
        assert_complete_and_verified(tmp_path, [a, b, c, d, e])
        assert report.failed == []
        # Resumes ask for the rest of the file from where the last body stopped.
        half_a, half_d = len(a.data) // 2, len(d.data) // 2
        assert server.ranges[a.source] == [None] + [f"bytes={half_a}-"] * 3
        assert server.ranges[d.source] == [None, f"bytes={half_d}-"]
        assert server.sent[d.source] == half_d + len(d.data)  # the 200 re-sent it all
        assert server.requests[c.source] == 2  # truncated copy discarded, fetched again
        assert server.requests[e.source] == 4
        # One wait per failed attempt (a 3, b 2, c 1, d 1, e 3); Retry-After: 7 is
        # honoured exactly; other waits are backoff with jitter.
        assert len(waits) == 10
        assert waits.count(7.0) == 1
        backoffs = [w for w in waits if w != 7.0]
        assert all(0.5 <= w < 6.0 for w in backoffs)


def test_failures_are_reported_with_reasons_after_the_rest_completes(
    tree: tuple[Path, list[ServedFile]], tmp_path: Path
) -> None:
    root, files = tree
    a, b, c, d, e = selected(files)
    with FakeCCNews(root) as server:
        server.fault(a.source, *["503"] * 10)  # busy beyond max_tries
        server.fault(b.source, "404")  # final at once
        server.fault(c.source, *["truncated_gzip"] * 10)  # broken at the source
        report = crawl(settings(server), tmp_path, sleep=lambda s: None)
        assert server.requests[a.source] == 4 and server.requests[b.source] == 1
    rows = {r.file: r for r in read_manifest(tmp_path / MANIFEST_NAME)}
    assert [r.file for r in report.failed] == [a.name, b.name, c.name]
    assert rows[a.name].reason == "HTTP 503 Service Unavailable (after 4 attempts)"
    assert rows[b.name].reason == "HTTP 404 Not Found (after 1 attempts)"
    reason_c = rows[c.name].reason or ""
    assert reason_c.startswith("truncated gzip member") and reason_c.endswith("(after 4 attempts)")
    assert all(rows[f.name].status == FAILED for f in (a, b, c))
    for f in (d, e):
        assert rows[f.name].status == COMPLETE
        assert rows[f.name].sha256 == hashlib.sha256(f.data).hexdigest()
    assert not (tmp_path / a.name).exists() and not (tmp_path / c.name).exists()
    assert report.metrics()["files"] == {
        "complete": 2,
        "missing": 0,
        "failed": 3,
        "bytes": len(d.data) + len(e.data),
    }
    # The next run retries only the failed files.
    with FakeCCNews(root) as server:
        again = crawl(settings(server), tmp_path, sleep=pytest.fail)
        assert again.failed == [] and again.reused == 2
        assert server.requests[d.source] == server.requests[e.source] == 0
    assert_complete_and_verified(tmp_path, selected(files))


def test_a_server_that_ignores_ranges_restarts_partial_files(
    tree: tuple[Path, list[ServedFile]], tmp_path: Path
) -> None:
    root, files = tree
    big = files[3]  # 40 records
    write_partial(tmp_path, root, big, big.data[: len(big.data) // 3])
    with FakeCCNews(root, ignore_range=True) as server:
        report = crawl(
            settings(server, "crawl.date_start=2024-01-31", "crawl.margin_days=0"),
            tmp_path,
            sleep=pytest.fail,
        )
        assert server.ranges[big.source] == [f"bytes={len(big.data) // 3}-"]
        assert server.sent[big.source] == len(big.data)
    assert report.failed == []
    assert_complete_and_verified(tmp_path, [big])


def test_left_over_states_of_a_killed_run_are_recovered_without_refetching(
    tree: tuple[Path, list[ServedFile]], tmp_path: Path
) -> None:
    """A whole file left as .part (416 on resume), a complete file the manifest does not
    know (killed between rename and manifest write; its validator is still beside it), a partial file with a damaged tail,
    and a partial file longer than the file (416 naming a smaller size) are each
    recovered; only the last two are fetched again."""
    root, files = tree
    whole_part, unrecorded, damaged, too_long, _ = selected(files)
    write_partial(tmp_path, root, whole_part, whole_part.data)
    write_partial(tmp_path, root, unrecorded, unrecorded.data)  # and renamed, then killed
    (tmp_path / (unrecorded.name + ".part")).rename(tmp_path / unrecorded.name)
    write_partial(tmp_path, root, damaged, damaged.data[:100] + b"\0" * 400)
    longer = too_long.data + files[0].data  # valid gzip, but not this file
    write_partial(tmp_path, root, too_long, longer)
    waits: list[float] = []
    with FakeCCNews(root) as server:
        report = crawl(settings(server), tmp_path, sleep=waits.append)
        assert server.ranges[whole_part.source] == [f"bytes={len(whole_part.data)}-"]
        assert server.sent[whole_part.source] == 0
        assert server.requests[unrecorded.source] == 0
        assert server.ranges[damaged.source] == [None]
        assert server.ranges[too_long.source] == [f"bytes={len(longer)}-", None]
    assert len(waits) == 1
    assert report.failed == []
    assert_complete_and_verified(tmp_path, selected(files))


def test_max_files_and_a_missing_listing(
    tree: tuple[Path, list[ServedFile]], tmp_path: Path
) -> None:
    root, files = tree
    with FakeCCNews(root) as server:
        report = crawl(settings(server, "crawl.max_files=2"), tmp_path, sleep=pytest.fail)
        assert [r.file for r in report.rows] == [f.name for f in selected(files)[:2]]
        assert server.requests[listing := "crawl-data/CC-NEWS/2024/02/warc.paths.gz"] == 1
        with pytest.raises(CrawlError, match=r"2024/03/warc.paths.gz: HTTP 404 Not Found"):
            crawl(
                settings(server, "crawl.date_end=2024-03-01"),
                tmp_path / "other",
                sleep=lambda s: None,
            )
        assert server.requests[listing] == 2
        assert not (tmp_path / "other").exists()  # nothing written before the listings
