"""Atomic writes leave no temporary file behind: a killed writer's leftovers are removed
by the next write of the same target, a live writer's are not. What they write has the
modes of any new file under the umask."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from prescient.io import (
    atomic_dir,
    atomic_open,
    atomic_path,
    clean_stale_temps,
    write_json,
    write_parquet,
)
from tests.conftest import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

# Writes ``target`` with atomic_path: prints the temporary path, then waits for a line on
# stdin; "kill" makes it die there (SIGKILL, as a killed stage), anything else finishes.
WRITER = """
import os, signal, sys
from prescient.io import atomic_path
with atomic_path(sys.argv[1]) as tmp:
    tmp.write_text(sys.argv[2])
    print(tmp, flush=True)
    if sys.stdin.readline().strip() == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
"""


def _writer(target: Path, text: str) -> tuple[subprocess.Popen[str], Path]:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(target), text],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def _finish(proc: subprocess.Popen[str], line: str) -> int:
    assert proc.stdin is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    return proc.wait(30)


def test_a_killed_writers_temp_file_goes_with_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "articles.parquet"
    proc, tmp = _writer(target, "half")
    assert tmp.parent == tmp_path and tmp.name.startswith(".articles.parquet.")
    assert _finish(proc, "kill") == -signal.SIGKILL
    assert tmp.exists() and not target.exists()
    other = tmp_path / ".other.csv.abc123.tmp"  # another target's: not touched
    other.write_text("x")
    with atomic_open(target) as fh:
        fh.write("whole")
    assert target.read_text() == "whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "articles.parquet"]


def test_a_live_writers_temp_file_is_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "scores.parquet"
    proc, tmp = _writer(target, "from the other writer")
    try:
        with atomic_open(target) as fh:  # a concurrent write of the same target
            fh.write("first")
        assert target.read_text() == "first"
        assert clean_stale_temps(tmp_path) == []
        assert tmp.read_text() == "from the other writer"
    finally:
        assert _finish(proc, "go") == 0
    assert target.read_text() == "from the other writer"
    assert [p.name for p in tmp_path.iterdir()] == ["scores.parquet"]


def test_a_failed_write_keeps_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "t.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("new")
        raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]


def test_temp_dir_keeps_the_target_directory_clean(tmp_path: Path) -> None:
    target = tmp_path / "ratings" / "ann_a.jsonl"
    with atomic_path(target, temp_dir=tmp_path) as tmp:
        assert tmp.parent == tmp_path
        assert list((tmp_path / "ratings").iterdir()) == []
        tmp.write_text("line\n")
    assert target.read_text() == "line\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ratings"]


def _set_umask(mask: int) -> Iterator[int]:
    old = os.umask(mask)
    try:
        yield mask
    finally:
        os.umask(old)


@pytest.fixture
def umask_022() -> Iterator[int]:
    yield from _set_umask(0o022)


@pytest.fixture(params=[0o022, 0o027, 0o002], ids=["022", "027", "002"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    yield from _set_umask(request.param)


def _mode(path: Path) -> str:
    return oct(path.stat().st_mode & 0o777)


def test_atomic_writes_get_the_modes_of_new_files_under_the_umask(
    tmp_path: Path, umask: int
) -> None:
    file_mode, dir_mode = {0o022: (0o644, 0o755), 0o027: (0o640, 0o750), 0o002: (0o664, 0o775)}[
        umask
    ]
    plain = tmp_path / "plain.txt"
    plain.write_text("written in place")
    assert _mode(plain) == oct(file_mode)  # what any file the user creates gets
    with atomic_open(tmp_path / "a.txt") as fh:
        fh.write("a")
    with atomic_path(tmp_path / "b.bin") as tmp:
        assert _mode(tmp) == oct(file_mode)  # already while it is written
        tmp.write_bytes(b"b")
    write_json(tmp_path / "c.json", {"c": 1})
    write_parquet(tmp_path / "d.parquet", pd.DataFrame({"d": [1]}))
    with atomic_path(tmp_path / "sub" / "e.txt", temp_dir=tmp_path) as tmp:
        tmp.write_text("e")
    for name in ("a.txt", "b.bin", "c.json", "d.parquet", "sub/e.txt"):
        assert _mode(tmp_path / name) == oct(file_mode), name
    (tmp_path / "f.txt").write_text("old, with its own mode")
    (tmp_path / "f.txt").chmod(0o600)
    with atomic_open(tmp_path / "f.txt") as fh:  # a replaced file: the new file's mode
        fh.write("new")
    assert _mode(tmp_path / "f.txt") == oct(file_mode)
    with atomic_dir(tmp_path / "packets") as tmp:
        (tmp / "p.jsonl").write_text("p")
    assert _mode(tmp_path / "packets") == oct(dir_mode)
    assert _mode(tmp_path / "packets" / "p.jsonl") == oct(file_mode)


def test_atomic_dir_replaces_the_whole_directory(tmp_path: Path, umask_022: int) -> None:
    out = tmp_path / "packets"
    out.mkdir()
    (out / "old.csv").write_text("old")
    stale = tmp_path / ".packets.dead00.tmp"  # left by a killed run
    stale.mkdir()
    (stale / "half.csv").write_text("half")
    with atomic_dir(out) as tmp:
        (tmp / "a.jsonl").write_text("a")
        assert (out / "old.csv").exists()  # readers still see the old packets
    assert [p.name for p in out.iterdir()] == ["a.jsonl"]
    assert oct(out.stat().st_mode & 0o777) == oct(0o755)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["packets"]
    with pytest.raises(RuntimeError), atomic_dir(out) as tmp:
        (tmp / "b.jsonl").write_text("b")
        raise RuntimeError("killed half way")
    assert [p.name for p in out.iterdir()] == ["a.jsonl"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["packets"]


def test_typed_records_write_exactly_the_schema() -> None:
    import pandas as pd

    from prescient.io import typed_frame, typed_records

    schema = {"id": "string", "n": "int64", "x": "float64"}
    rows = [{"id": "a", "n": 1, "x": 0.5, "extra": "dropped"}, {"id": "b", "n": 2, "x": None}]
    frame = typed_records(schema, iter(rows))
    assert list(frame.columns) == ["id", "n", "x"]
    assert [str(t) for t in frame.dtypes] == ["string", "int64", "float64"]
    assert frame["id"].tolist() == ["a", "b"] and frame["n"].tolist() == [1, 2]
    assert frame["x"].iloc[0] == 0.5 and pd.isna(frame["x"].iloc[1])
    pd.testing.assert_frame_equal(typed_records(schema, []), typed_frame(schema))
    with pytest.raises(KeyError, match="'x'"):
        typed_records(schema, [{"id": "a", "n": 1}])
