"""``python -m prescient pull`` in a git + DVC project with the shipped .dvc/config: when the
remote folder beside the repository does not exist, the failed pull names that folder, the
config file and the fix (DVC alone says "Is your cache up to date?"); a per-machine url in
.dvc/config.local is the one named; with the remote there, it pulls like `dvc pull`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from prescient.llm.text_pool import TextPool, text_digest
from prescient.plumbing.remote import local_remote
from tests.conftest import ROOT

BIN = Path(sys.executable).parent
DVC = BIN / "dvc"


def run(cwd: Path, *cmd: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def ok(cwd: Path, *cmd: str) -> str:
    out = run(cwd, *cmd)
    assert out.returncode == 0, f"{cmd}: {out.stdout}{out.stderr}"
    return out.stdout + out.stderr


def pull(cwd: Path) -> subprocess.CompletedProcess[str]:
    return run(cwd, sys.executable, "-m", "prescient", "pull")


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A committed project with one DVC-tracked file, its cache emptied (a fresh clone)."""
    if not DVC.exists() or shutil.which("git") is None:
        pytest.skip("dvc or git is not installed")
    root = tmp_path / "prescient"
    root.mkdir()
    git = ("git", "-c", "user.name=Test", "-c", "user.email=test@example.org")
    ok(root, "git", "init", "-q")
    ok(root, str(DVC), "init", "-q")
    shutil.copy(ROOT / ".dvc/config", root / ".dvc/config")
    (root / "table.csv").write_text("a,b\n1,2\n")
    ok(root, str(DVC), "add", "-q", "table.csv")
    ok(root, *git, "add", "-A")
    ok(root, *git, "commit", "-qm", "table")
    shutil.rmtree(root / ".dvc/cache")
    (root / "table.csv").unlink()
    return root


def test_a_missing_remote_folder_is_named_with_the_fix(clone: Path, tmp_path: Path) -> None:
    folder = tmp_path / "prescient-dvc-remote"  # ../../prescient-dvc-remote from .dvc/
    remote = local_remote(clone)
    assert remote is not None
    assert (remote.name, remote.path, remote.config_file) == (
        "storage",
        folder,
        clone / ".dvc/config",
    )
    dvc_alone = run(clone, str(DVC), "pull")
    assert dvc_alone.returncode == 1 and "Is your cache up to date?" in dvc_alone.stderr
    assert str(folder) not in dvc_alone.stderr

    out = pull(clone)
    assert out.returncode == 1
    assert (
        f"the DVC remote 'storage' is the folder {folder}, which does not exist "
        "(its url is set in .dvc/config;" in out.stderr
    )
    assert "`dvc remote modify --local storage url /path/to/remote`" in out.stderr
    assert not (clone / "table.csv").exists()

    # A per-machine url wins, and is the one named.
    elsewhere = tmp_path / "mounted" / "remote"
    ok(clone, str(DVC), "remote", "modify", "--local", "storage", "url", str(elsewhere))
    out = pull(clone)
    assert out.returncode == 1
    assert f"is the folder {elsewhere}, which does not exist" in out.stderr
    assert "(its url is set in .dvc/config.local;" in out.stderr


def test_with_the_remote_there_it_pulls(clone: Path, tmp_path: Path) -> None:
    folder = tmp_path / "prescient-dvc-remote"
    (clone / "table.csv").write_text("a,b\n1,2\n")  # the publisher's push fills the remote
    ok(clone, str(DVC), "add", "-q", "table.csv")
    # a context table: the pull puts its article texts in the response store's pool
    article = "The council approved the harbour plan after a long debate. " * 8
    # (beside a partition's questions, which have no text column)
    (clone / "data/interim/partitions/all/contexts").mkdir(parents=True)
    pd.DataFrame({"question_id": ["q"], "text": [article]}).to_parquet(
        clone / "data/interim/partitions/all/contexts/rag.parquet"
    )
    pd.DataFrame({"question_id": ["q"]}).to_parquet(
        clone / "data/interim/partitions/all/questions.parquet"
    )
    ok(clone, str(DVC), "add", "-q", "data/interim/partitions")
    ok(clone, str(DVC), "push", "-q")
    assert (folder / "files" / "md5").is_dir()
    shutil.rmtree(clone / ".dvc/cache")
    (clone / "table.csv").unlink()
    shutil.rmtree(clone / "data/interim/partitions")
    out = pull(clone)
    assert out.returncode == 0, out.stderr
    assert (clone / "table.csv").read_text() == "a,b\n1,2\n"
    assert "does not exist" not in out.stderr
    assert TextPool(clone / ".dvc/cache/prescient/texts.jsonl").text(
        text_digest(" ".join(article.split()))
    ) == " ".join(article.split())
    # Nothing to fetch: succeeds with the folder gone, as `dvc pull` does.
    shutil.rmtree(folder)
    assert pull(clone).returncode == 0
