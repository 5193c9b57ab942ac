"""Where a report came from: git commit, parameter digest, input checksums.

A reader of ``reports/index.html`` must be able to tell which code, configuration and
data produced it without access to the machine that built it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class GitState:
    """The commit checked out and whether the work tree differs from it."""

    commit: str
    dirty: bool

    def describe(self) -> str:
        return self.commit + (" (with uncommitted changes)" if self.dirty else "")


def git_state(root: str | Path = ".") -> GitState:
    """HEAD's sha and the dirty flag; ``unknown`` outside a git work tree."""

    def run(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=True, timeout=30
        ).stdout.strip()

    try:
        commit = run("rev-parse", "HEAD")
        dirty = bool(run("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError) as exc:
        logger.warning("git state unavailable: %s", exc)
        return GitState("unknown", False)
    return GitState(commit, dirty)


def params_digest(params: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the composed parameters (key order irrelevant)."""
    canonical = json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()
