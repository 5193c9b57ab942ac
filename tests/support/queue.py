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
        Every named experiment it reports ``Success`` is listed by ``dvc exp list`` by
        then: DVC marks an experiment done before its worker has collected the result
        into the repository, so a busy machine could otherwise query it too early.
    """
    try:
        # The workers outlive the command: they get /dev/null, never the pipes ``sh``
        # reads its output from, or ``sh`` would wait for them as well.
        sh(root, "sh", "-c", f'"{DVC}" queue start -j {jobs} >/dev/null 2>&1 </dev/null')
        deadline = time.monotonic() + timeout_s
        while True:
            status = sh(root, DVC, "queue", "status")
            if "Queued" not in status and "Running" not in status:
                break
            assert time.monotonic() < deadline, status
            time.sleep(1)
        done = _succeeded(status)
        while done:
            listed = set(sh(root, DVC, "exp", "list", "--all-commits", "--name-only").split())
            missing = done - listed
            if not missing:
                break
            assert time.monotonic() < deadline, f"not collected: {sorted(missing)}\n{status}"
            time.sleep(1)
        return status
    finally:
        sh(root, DVC, "queue", "stop")


def _succeeded(status: str) -> set[str]:
    """The names of the experiments ``dvc queue status`` reports ``Success``, read from
    its aligned columns (Task, Name, Created, Status; an unnamed experiment's name is
    blank and is not waited for)."""
    lines = status.splitlines()
    header = next((i for i, line in enumerate(lines) if line.split()[:2] == ["Task", "Name"]), None)
    if header is None:
        return set()
    at, until = lines[header].index("Name"), lines[header].index("Created")
    names = set()
    for line in lines[header + 1 :]:
        if line.rstrip().endswith("Success") and line[at:until].strip():
            names.add(line[at:until].strip())
    return names
