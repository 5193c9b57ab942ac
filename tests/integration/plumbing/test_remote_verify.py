"""A damaged file in the DVC remote never reaches a peer's workspace.

A scratch repository with the shipped .dvc/config (its remote beside the repository)
runs a one-stage pipeline whose output is a directory, like the predictions, and pushes
it. One byte of one file of that directory is then flipped in the remote's storage ("No"
becomes "Yes" in an answer). A fresh clone's `dvc pull` must fail, naming the output,
and leave no damaged bytes in the workspace: the shipped remote has `verify = true`, so
DVC re-hashes what it downloads and drops a file whose md5 is not its name. The same
pull with `verify` switched off succeeds with the damaged bytes in the workspace and
`dvc status` calls them up to date, which is why the setting is shipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

DVC = Path(sys.executable).parent / "dvc"

MAKE = """\
import pathlib
out = pathlib.Path("out/predictions/m")
out.mkdir(parents=True, exist_ok=True)
(out / "closed_book.jsonl").write_text(
    '{"question": 1, "answer": "No"}\\n{"question": 2, "answer": "Yes"}\\n'
)
(out / "open_book.jsonl").write_text('{"question": 1, "answer": "Yes"}\\n')
"""

DVC_YAML = """\
stages:
  predict:
    cmd: python make.py
    deps:
      - make.py
    outs:
      - out/predictions
"""

ANSWERS = "out/predictions/m/closed_book.jsonl"


def run(cwd: Path, *cmd: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{DVC.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if ok:
        assert out.returncode == 0, f"{' '.join(cmd)}\n{out.stdout}\n{out.stderr}"
    return out


def publish(root: Path) -> str:
    """A committed, pushed repository; returns the original bytes of :data:`ANSWERS`."""
    root.mkdir()
    (root / "make.py").write_text(MAKE)
    (root / "dvc.yaml").write_text(DVC_YAML)
    run(root, "git", "init", "-q")
    run(root, "git", "config", "user.email", "test@example.org")
    run(root, "git", "config", "user.name", "test")
    run(root, str(DVC), "init", "-q")
    shutil.copy(ROOT / ".dvc" / "config", root / ".dvc" / "config")  # the shipped remote
    run(root, str(DVC), "repro", "-q")
    run(root, "git", "add", "-A")
    run(root, "git", "commit", "-qm", "results")
    run(root, str(DVC), "push", "-q")
    return (root / ANSWERS).read_text()


def remote_file(remote: Path, directory_md5: str, relpath: str) -> Path:
    """The remote's file for ``relpath`` inside the directory output ``directory_md5``."""
    listing = remote / "files" / "md5" / directory_md5[:2] / directory_md5[2:]
    md5 = next(e["md5"] for e in json.loads(listing.read_text()) if e["relpath"] == relpath)
    return remote / "files" / "md5" / md5[:2] / md5[2:]


@pytest.mark.skipif(not DVC.exists(), reason="dvc is not installed in this environment")
def test_a_flipped_byte_in_the_remote_fails_the_pull(tmp_path: Path) -> None:
    original = publish(tmp_path / "publisher")
    remote = tmp_path / "prescient-dvc-remote"  # the shipped url: beside the repository
    lock = yaml.safe_load((tmp_path / "publisher" / "dvc.lock").read_text())
    directory_md5 = lock["stages"]["predict"]["outs"][0]["md5"]  # the output's listing
    assert directory_md5.endswith(".dir")
    damaged = remote_file(remote, directory_md5, "m/closed_book.jsonl")
    data = damaged.read_bytes()
    assert data == original.encode()
    damaged.chmod(0o644)
    damaged.write_bytes(data.replace(b'"No"', b'"Ye"'))  # two bytes of one answer
    assert len(damaged.read_bytes()) == len(data)

    peer = tmp_path / "peer"
    run(tmp_path, "git", "clone", "-q", str(tmp_path / "publisher"), str(peer))
    assert run(peer, str(DVC), "config", "remote.storage.verify").stdout.strip() == "true"
    pulled = run(peer, str(DVC), "pull", ok=False)
    assert pulled.returncode != 0, pulled.stdout + pulled.stderr
    assert "out/predictions" in pulled.stderr
    answers = peer / ANSWERS
    assert not answers.exists() or answers.read_text() == original
    assert run(peer, str(DVC), "status", ok=False).stdout.count("not in cache") == 1

    # Without verify the same pull succeeds and the changed answer reaches the workspace.
    unchecked = tmp_path / "unchecked"
    run(tmp_path, "git", "clone", "-q", str(tmp_path / "publisher"), str(unchecked))
    run(unchecked, str(DVC), "remote", "modify", "--local", "storage", "verify", "false")
    run(unchecked, str(DVC), "pull")
    assert '"answer": "Ye"' in (unchecked / ANSWERS).read_text()
    assert "up to date" in run(unchecked, str(DVC), "status").stdout
