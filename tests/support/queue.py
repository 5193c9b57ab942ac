"""Running a DVC experiment queue to its end, as the README's sweep recipe does."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

DVC = str(Path(sys.executable).parent / "dvc")


def run_queue(sh: Callable[..., str], root: Path, jobs: int, timeout_s: float = 240) -> str:
    """Start ``jobs`` workers, wait until no experiment is queued or running, stop them.

    Args:
        sh: runs a command in ``root`` and returns its stdout (fails the test otherwise).
        root: the project.
        jobs: workers (``dvc queue start -j``).
        timeout_s: how long the queue may take.

    Returns:
        The last ``dvc queue status`` (one line per experiment: ``Success``, ``Failed``).
    """
    try:
        # The workers outlive the command: they get /dev/null, never the pipes ``sh``
        # reads its output from, or ``sh`` would wait for them as well.
        sh(root, "sh", "-c", f'"{DVC}" queue start -j {jobs} >/dev/null 2>&1 </dev/null')
        deadline = time.monotonic() + timeout_s
        while True:
            status = sh(root, DVC, "queue", "status")
            if "Queued" not in status and "Running" not in status:
                return status
            assert time.monotonic() < deadline, status
            time.sleep(1)
    finally:
        sh(root, DVC, "queue", "stop")
