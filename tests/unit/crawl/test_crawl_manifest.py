"""The crawl manifest: stable bytes, strict reading, and what a reader may trust."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from prescient.crawl.manifest import (
    COMPLETE,
    FAILED,
    MISSING,
    ManifestError,
    ManifestRow,
    complete_files,
    read_manifest,
    summarize,
    write_manifest,
)

ROW = ManifestRow(
    file="CC-NEWS-20240101000000-00001.warc.gz",
    source="crawl-data/CC-NEWS/2024/01/CC-NEWS-20240101000000-00001.warc.gz",
    crawled_at="2024-01-01T00:00:00Z",
    status=COMPLETE,
    size=5,
    sha256="ab" * 32,
    reason=None,
    etag='"5d41402abc4b2a76b9719d911017c592"',
    last_modified="Mon, 01 Jan 2024 00:10:00 GMT",
)


def test_round_trip_with_sorted_keys_in_the_given_order(tmp_path: Path) -> None:
    second = replace(
        ROW, file="b.warc.gz", status=FAILED, size=None, sha256=None, reason="HTTP 404"
    )
    path = tmp_path / "manifest.jsonl"
    write_manifest(path, [ROW, second])
    lines = path.read_text().splitlines()
    assert lines[0] == (
        '{"crawled_at": "2024-01-01T00:00:00Z", "etag": "\\"5d41402abc4b2a76b9719d911017c592\\"", '
        '"file": "CC-NEWS-20240101000000-00001.warc.gz", '
        '"last_modified": "Mon, 01 Jan 2024 00:10:00 GMT", '
        '"reason": null, "sha256": "' + "ab" * 32 + '", "size": 5, '
        '"source": "crawl-data/CC-NEWS/2024/01/CC-NEWS-20240101000000-00001.warc.gz", '
        '"status": "complete"}'
    )
    assert read_manifest(path) == [ROW, second]
    assert summarize([ROW, second]) == {"complete": 1, "missing": 0, "failed": 1, "bytes": 5}
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.jsonl"]  # no temp files left


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "manifest.jsonl:2: not JSON"),
        ("[1, 2]", "manifest.jsonl:2: not a JSON object"),
        (json.dumps({"file": "x"}), "manifest.jsonl:2: expected the keys"),
        (json.dumps({**ROW.__dict__, "status": "done"}), "status 'done' is not one of"),
        (json.dumps({**ROW.__dict__, "sha256": None}), "needs its size and sha256"),
        (json.dumps({**ROW.__dict__, "file": "../x"}), "must be a plain file name"),
        (json.dumps({**ROW.__dict__, "etag": 5}), "etag must be text or null"),
        (json.dumps(ROW.__dict__), "is listed twice"),
    ],
)
def test_bad_lines_are_named(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "manifest.jsonl"
    path.write_text(json.dumps(ROW.__dict__) + "\n" + line + "\n")
    with pytest.raises(ManifestError, match=message):
        read_manifest(path)


def test_complete_files_checks_status_and_sizes_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "manifest.jsonl"
    with pytest.raises(ManifestError, match="run the crawl stage first"):
        complete_files(path)
    (tmp_path / ROW.file).write_bytes(b"12345")
    write_manifest(path, [ROW])
    assert complete_files(path) == [(tmp_path / ROW.file, ROW)]

    missing = replace(ROW, file="m.warc.gz", status=MISSING, size=None, sha256=None)
    failed = replace(
        ROW, file="f.warc.gz", status=FAILED, size=None, sha256=None, reason="HTTP 503"
    )
    absent = replace(ROW, file="a.warc.gz")
    write_manifest(path, [ROW, missing, failed, absent])
    (tmp_path / ROW.file).write_bytes(b"1234")
    with pytest.raises(ManifestError) as info:
        complete_files(path)
    assert str(info.value) == (
        f"{path}: 4 of 4 files are not complete ({ROW.file} has 4 bytes, manifest 5; "
        "m.warc.gz is missing; f.warc.gz is failed (HTTP 503); a.warc.gz is listed but "
        "absent). Fix: run the crawl stage again (it resumes)."
    )


def test_a_manifest_of_an_older_crawl_without_validators_still_reads(tmp_path: Path) -> None:
    old = {k: v for k, v in ROW.__dict__.items() if k not in {"etag", "last_modified"}}
    path = tmp_path / "manifest.jsonl"
    path.write_text(json.dumps(old) + "\n")
    assert read_manifest(path) == [replace(ROW, etag=None, last_modified=None)]
