"""Sweeps as the README documents them: `dvc exp run --queue` with a Hydra sweep queues one
experiment per value, `dvc queue start -j 2` runs them in parallel workers, and each
experiment's params and metrics come back in `dvc exp show`. On a tiny scratch project
(git + DVC with Hydra composition, like this one) so it stays quick."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.queue import run_queue

BIN = Path(sys.executable).parent
DVC = BIN / "dvc"

STAGE = """\
import json

import yaml

x = yaml.safe_load(open("params.yaml"))["sweep"]["x"]
with open("square.json", "w") as fh:
    json.dump({"square": x * x}, fh)
"""

DVC_YAML = """\
stages:
  square:
    cmd: python square.py
    deps: [square.py]
    params: [sweep]
    metrics:
      - square.json:
          cache: false
"""


def sh(root: Path, *args: str) -> str:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    out = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"{args}: {out.stdout}{out.stderr}"
    return out.stdout


def experiments(root: Path) -> dict[str, dict[str, Any]]:
    """Experiment name -> its params and metrics, from `dvc exp show --json`."""
    shown = json.loads(sh(root, str(DVC), "exp", "show", "--json"))
    found = {}
    for commit in shown:
        for exp in commit.get("experiments") or []:
            data = exp["revs"][0]["data"]
            found[exp["name"]] = {
                "x": data["params"]["params.yaml"]["data"]["sweep"]["x"],
                "metrics": data["metrics"]["square.json"]["data"],
            }
    return found


@pytest.mark.slow
def test_a_queued_sweep_runs_two_experiments_in_parallel_workers(tmp_path: Path) -> None:
    if not DVC.exists() or shutil.which("git") is None:
        pytest.skip("dvc or git is not installed")
    root = tmp_path / "proj"
    (root / "conf").mkdir(parents=True)
    (root / "conf" / "config.yaml").write_text("sweep:\n  x: 0\n")
    (root / "params.yaml").write_text("sweep:\n  x: 0\n")
    (root / "square.py").write_text(STAGE)
    (root / "dvc.yaml").write_text(DVC_YAML)
    sh(root, "git", "init", "-q")
    sh(root, "git", "config", "user.email", "test@example.org")
    sh(root, "git", "config", "user.name", "test")
    sh(root, str(DVC), "init", "-q")
    sh(root, str(DVC), "config", "core.analytics", "false")
    sh(root, str(DVC), "config", "hydra.enabled", "true")
    sh(root, "git", "add", "-A")
    sh(root, "git", "commit", "-qm", "init")

    out = sh(root, str(DVC), "exp", "run", "--queue", "-S", "sweep.x=2,3")
    assert out.count("Queued experiment") == 2
    status = run_queue(sh, root, 2, 240)
    assert status.count("Success") == 2, status
    found = experiments(root)
    assert sorted((e["x"], e["metrics"]["square"]) for e in found.values()) == [(2, 4), (3, 9)]
    # The workspace is untouched: the experiments ran in their own copies.
    assert (root / "params.yaml").read_text() == "sweep:\n  x: 0\n"
    assert not (root / "square.json").exists()
