"""Atomic writes leave no temporary file behind: a killed writer's leftovers are removed
by the next write of the same target, a live writer's are not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from prescient.io import atomic_dir, atomic_open, atomic_path, clean_stale_temps
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


def test_atomic_dir_replaces_the_whole_directory(tmp_path: Path) -> None:
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
