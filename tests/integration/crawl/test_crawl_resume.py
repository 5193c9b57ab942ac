"""Resuming only the same bytes: a file that changes on the loopback server between two
attempts, cut exactly at a gzip member boundary (where the gzip check alone cannot see a
splice), ends as the whole new version, never as the old head and the new tail; a
server without validators gets no range request at all."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from prescient.crawl.download import DownloadOptions, Validator, download
from prescient.crawl.fetch import RetryPolicy
from tests.support.fake_ccnews import FakeCCNews, etag_of, last_modified_of, replace_file


def member(byte: bytes) -> bytes:
    return gzip.compress(byte * 5000, mtime=0)


V1 = member(b"a") + member(b"b")
V2 = member(b"c") + member(b"d")
CUT = len(member(b"a"))  # a member boundary of both versions
SOURCE = "crawl-data/CC-NEWS/2024/01/CC-NEWS-20240130063000-00001.warc.gz"
OPTIONS = DownloadOptions(
    policy=RetryPolicy(max_tries=4, backoff_base_s=1.0, backoff_max_s=30.0, timeout_s=1.0),
    chunk_bytes=4096,
    verify_gzip=True,
)


@pytest.fixture
def served(tmp_path: Path) -> Path:
    """The served file (version 1) under ``tmp_path/srv``."""
    path = tmp_path / "srv" / SOURCE
    path.parent.mkdir(parents=True)
    path.write_bytes(V1)
    return path


def changing(path: Path) -> Callable[[float], None]:
    """A sleep between attempts during which the server's file becomes version 2."""
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        if not waits:
            replace_file(path, V2)
        waits.append(seconds)

    return sleep


def test_the_splice_the_crawl_must_never_produce_is_valid_gzip() -> None:
    assert len(member(b"c")) == CUT and len(V1) == len(V2)
    spliced = V1[:CUT] + V2[CUT:]
    assert gzip.decompress(spliced) == b"a" * 5000 + b"d" * 5000  # passes a gzip check


@pytest.mark.parametrize("validators", ["etag,last_modified", "last_modified"])
def test_a_file_changed_between_attempts_is_fetched_whole_from_byte_0(
    served: Path, tmp_path: Path, validators: str
) -> None:
    started_with = etag_of(V1) if "etag" in validators else last_modified_of(served)
    dest = tmp_path / "out" / served.name
    dest.parent.mkdir()
    with FakeCCNews(tmp_path / "srv", validators=validators) as server:
        server.fault(SOURCE, f"drop:{CUT}")
        got = download(server.url + SOURCE, dest, OPTIONS, sleep=changing(served))
        # The resume asked for the rest only if the file was still the one it started.
        assert server.ranges[SOURCE] == [None, f"bytes={CUT}-"]
        assert server.if_ranges[SOURCE] == [None, started_with]
        assert server.sent[SOURCE] == CUT + len(V2)  # the 200 sent the new version whole
    assert dest.read_bytes() == V2
    assert got.sha256 == hashlib.sha256(V2).hexdigest() and got.size == len(V2)
    new = Validator(etag_of(V2) if "etag" in validators else None, last_modified_of(served))
    assert got.validator == new
    assert sorted(p.name for p in dest.parent.iterdir()) == [dest.name]  # no side file left


def test_a_server_that_ignores_if_range_is_caught_by_the_changed_etag(
    served: Path, tmp_path: Path
) -> None:
    """It answers the resume with 206 and the new file's tail; the new ETag on that reply
    gives it away, and the download starts over."""
    dest = tmp_path / served.name
    waits: list[float] = []
    sleep = changing(served)
    with FakeCCNews(tmp_path / "srv", honour_if_range=False) as server:
        server.fault(SOURCE, f"drop:{CUT}")
        got = download(
            server.url + SOURCE, dest, OPTIONS, sleep=lambda s: (sleep(s), waits.append(s))
        )
        assert server.ranges[SOURCE] == [None, f"bytes={CUT}-", None]
    assert len(waits) == 2
    assert dest.read_bytes() == V2
    assert got.validator.etag == etag_of(V2)


@pytest.mark.parametrize("validators", ["none", "weak_etag"])
def test_without_a_validator_a_break_restarts_from_byte_0(
    served: Path, tmp_path: Path, validators: str
) -> None:
    dest = tmp_path / served.name
    with FakeCCNews(tmp_path / "srv", validators=validators) as server:
        server.fault(SOURCE, f"drop:{CUT}")
        got = download(server.url + SOURCE, dest, OPTIONS, sleep=changing(served))
        assert server.ranges[SOURCE] == [None, None]  # no Range is trusted
        assert server.sent[SOURCE] == CUT + len(V2)
    assert dest.read_bytes() == V2
    assert got.validator == Validator() and got.resumed_from == 0


class Killed(Exception):
    """The crawl process dies while waiting to retry."""


def kill(seconds: float) -> None:
    raise Killed


@pytest.mark.parametrize("changed", [False, True])
def test_a_killed_download_resumes_with_the_validator_it_started_with(
    served: Path, tmp_path: Path, changed: bool
) -> None:
    dest = tmp_path / served.name
    with FakeCCNews(tmp_path / "srv") as server:
        server.fault(SOURCE, f"drop:{CUT}")
        with pytest.raises(Killed):
            download(server.url + SOURCE, dest, OPTIONS, sleep=kill)
        assert (tmp_path / (served.name + ".part")).read_bytes() == V1[:CUT]
        side = json.loads((tmp_path / (served.name + ".part.json")).read_text())
        assert side == {"etag": etag_of(V1), "last_modified": last_modified_of(served)}
        if changed:
            replace_file(served, V2)
        got = download(server.url + SOURCE, dest, OPTIONS, sleep=pytest.fail)  # a new run
        assert server.ranges[SOURCE] == [None, f"bytes={CUT}-"]
        assert server.if_ranges[SOURCE] == [None, etag_of(V1)]
        assert server.sent[SOURCE] == CUT + (len(V2) if changed else len(V1) - CUT)
    assert dest.read_bytes() == (V2 if changed else V1)
    assert got.resumed_from == CUT
    assert got.validator.etag == etag_of(V2 if changed else V1)
    assert sorted(p.name for p in tmp_path.iterdir()) == [dest.name, "srv"]


def test_a_partial_file_without_its_validator_is_started_over(served: Path, tmp_path: Path) -> None:
    """A partial file of a crawl that recorded no validator (or lost its side file)."""
    dest = tmp_path / served.name
    (tmp_path / (served.name + ".part")).write_bytes(V1[:CUT])
    with FakeCCNews(tmp_path / "srv") as server:
        got = download(server.url + SOURCE, dest, OPTIONS, sleep=pytest.fail)
        assert server.ranges[SOURCE] == [None]
        assert server.sent[SOURCE] == len(V1)
    assert dest.read_bytes() == V1 and got.resumed_from == 0
