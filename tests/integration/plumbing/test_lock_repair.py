"""A torn dvc.lock in a scratch git + DVC project: plain ``dvc repro`` is wedged by it;
``prescient lock check`` names the fix, and ``prescient update`` restores the committed
lock and finishes (or, without a committed lock, stops with the fix)."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from prescient.plumbing.lockfile import check, lock_paths
from tests.conftest import ROOT

BIN = Path(sys.executable).parent
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
ENV = {
    **os.environ,
    "PYTHONPATH": str(ROOT),
    "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
}


def questions(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "question_id": [f"q{i}" for i in range(n)],
            "qtype": ["tf"] * n,
            "resolution_date": [dt.date(2024, 1, 1 + i) for i in range(n)],
        }
    )


def run(root: Path, *cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(cmd), cwd=root, env=ENV, capture_output=True, text=True, timeout=300, check=False
    )


def prescient(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(root, sys.executable, "-m", "prescient", *args)


def scratch(root: Path, git: bool) -> None:
    """A one-stage project (copy the question table), run once; committed when ``git``."""
    if not (BIN / "dvc").exists() or shutil.which("git") is None:
        pytest.skip("dvc or git is not installed in this environment")
    root.mkdir()
    shutil.copytree(ROOT / "conf", root / "conf", ignore=shutil.ignore_patterns("__pycache__"))
    questions(3).to_parquet(root / "src.parquet")
    stage = {
        "cmd": "python -c \"import shutil; shutil.copyfile('src.parquet', 'questions.parquet')\"",
        "deps": ["src.parquet"],
        "outs": ["questions.parquet"],
    }
    (root / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"copy": stage}}))
    if git:
        assert run(root, "git", "init", "-q").returncode == 0
    init = ["dvc", "init", "-q"] + ([] if git else ["--no-scm"])
    assert run(root, *init).returncode == 0
    assert run(root, "dvc", "repro", "-q").returncode == 0
    if git:
        assert run(root, "git", "add", "-A").returncode == 0
        assert run(root, *GIT, "commit", "-q", "-m", "first run").returncode == 0


def tear(lock: Path) -> None:
    data = lock.read_bytes()
    lock.write_bytes(data[: len(data) * 2 // 5])


def update(root: Path, day: str) -> subprocess.CompletedProcess[str]:
    return prescient(
        root, "update", "--through", day, "--questions", "questions.parquet", "--no-dvc-add"
    )


def test_update_restores_a_torn_lock_from_git_and_finishes(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    scratch(root, git=True)
    committed = (root / "dvc.lock").read_text()
    # A later run, not committed, whose lock write is killed midway.
    questions(5).to_parquet(root / "src.parquet")
    assert run(root, "dvc", "repro", "-q").returncode == 0
    tear(root / "dvc.lock")

    wedged = run(root, "dvc", "repro")
    assert wedged.returncode != 0 and "dvc.lock" in wedged.stdout + wedged.stderr
    checked = prescient(root, "lock", "check")
    assert checked.returncode == 1
    assert "Fix: run `python -m prescient lock repair`" in checked.stderr

    done = update(root, "2024-01-10")
    assert done.returncode == 0, done.stderr
    assert "restored the version of HEAD" in done.stderr
    assert "release questions-2024-01-10.parquet: 5 questions" in done.stderr
    lock = check(root)
    assert not lock.torn and lock.stages == 1
    assert (root / "dvc.lock").read_text() != committed  # the stage re-ran and was recorded
    assert run(root, "dvc", "status", "-q").returncode == 0
    assert prescient(root, "lock", "check").returncode == 0


def test_lock_repair_restores_the_committed_lock_byte_for_byte(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    scratch(root, git=True)
    committed = (root / "dvc.lock").read_bytes()
    (root / "dvc.lock").write_bytes(b"")
    repaired = prescient(root, "lock", "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "the file is empty; restored the version of HEAD (stages: 1)" in repaired.stderr
    assert (root / "dvc.lock").read_bytes() == committed
    again = prescient(root, "lock", "repair")
    assert again.returncode == 0 and "nothing to repair" in again.stderr


def test_without_a_committed_lock_the_update_stops_with_the_fix(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    scratch(root, git=False)
    tear(root / "dvc.lock")
    config = (root / "conf/config.yaml").read_text()
    stopped = update(root, "2024-01-10")
    assert stopped.returncode == 2
    assert "git has no committed dvc.lock to restore" in stopped.stderr
    assert "Fix: delete" in stopped.stderr and "run `dvc repro`" in stopped.stderr
    assert (root / "conf/config.yaml").read_text() == config  # nothing changed
    assert prescient(root, "lock", "repair").returncode == 1
    # The fix it names works.
    (root / "dvc.lock").unlink()
    assert update(root, "2024-01-10").returncode == 0


def test_dvc_runs_by_hand_and_the_update_s_replace_the_lock(tmp_path: Path) -> None:
    """DVC itself rewrites dvc.lock in place; in the project's environment (its import
    hook) a ``dvc repro`` typed by hand, like the update's runs, renames a whole new file
    over it, so no kill can leave it half written."""
    root = tmp_path / "proj"
    scratch(root, git=False)
    lock = root / "dvc.lock"
    questions(4).to_parquet(root / "src.parquet")
    inode = lock.stat().st_ino
    assert run(root, "dvc", "repro", "-q").returncode == 0
    assert lock.stat().st_ino != inode
    inode = lock.stat().st_ino
    questions(5).to_parquet(root / "src.parquet")
    assert update(root, "2024-01-10").returncode == 0
    assert lock.stat().st_ino != inode
    assert check(root).stages == 1 and "size: " in lock.read_text()


def test_a_staged_lock_newer_than_head_is_the_one_restored(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    scratch(root, git=True)
    questions(5).to_parquet(root / "src.parquet")
    assert run(root, "dvc", "repro", "-q").returncode == 0
    assert run(root, "git", "add", "dvc.lock").returncode == 0
    staged = (root / "dvc.lock").read_bytes()
    tear(root / "dvc.lock")
    repaired = prescient(root, "lock", "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "restored the version of the git index" in repaired.stderr
    assert (root / "dvc.lock").read_bytes() == staged
    assert run(root, "dvc", "status", "-q").returncode == 0  # nothing to re-run


def test_check_and_repair_cover_every_pipeline_s_lock(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    scratch(root, git=True)
    sub = root / "pipelines" / "side"
    sub.mkdir(parents=True)
    stage = {
        "cmd": "python -c \"import shutil; shutil.copyfile('../../src.parquet', 'side.parquet')\"",
        "deps": ["../../src.parquet"],
        "outs": ["side.parquet"],
    }
    (sub / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"side": stage}}))
    assert run(root, "dvc", "repro", "-q", "pipelines/side/dvc.yaml").returncode == 0
    assert run(root, "git", "add", "-A").returncode == 0
    assert run(root, *GIT, "commit", "-q", "-m", "side pipeline").returncode == 0
    side_lock = sub / "dvc.lock"
    committed = side_lock.read_bytes()
    assert [p.relative_to(root).as_posix() for p in lock_paths(root)] == [
        "dvc.lock",
        "pipelines/side/dvc.lock",
    ]
    tear(side_lock)
    assert check(root).torn is False  # the root lock is whole
    checked = prescient(root, "lock", "check")
    assert checked.returncode == 1
    assert "pipelines/side/dvc.lock is torn" in checked.stderr
    repaired = prescient(root, "lock", "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert side_lock.read_bytes() == committed
    assert prescient(root, "lock", "check").returncode == 0
    assert run(root, "dvc", "status", "-q", "pipelines/side/dvc.yaml").returncode == 0
