"""A torn ``dvc.lock``: detect it, restore the last committed version, or say the fix.

DVC rewrites ``dvc.lock`` in place after each stage (it opens the file for writing,
which empties it, then dumps the YAML of every stage). Dumping this project's lock takes
a second or more, so a process killed in that window leaves the file empty or cut, and
from then on every ``dvc repro`` fails ("'./dvc.lock' validation failed") until the
file is fixed. :func:`check` tells such a lock apart; :func:`repair` puts back the
version git has (the staged one when it is valid and differs from the last commit,
otherwise ``HEAD:dvc.lock``).

What a repair costs: stages whose entries are older in the restored lock than in the
workspace are re-run by the next ``dvc repro``. Their outputs of the lost runs are still
in the workspace and DVC's cache, and every response ledger (``data/llm``) is a
persistent output that keeps every reply appended since, so the re-run asks no model
again; it pays only the local compute of those stages. Run ``dvc repro``, not
``dvc checkout``, after a repair: a checkout would put back the ledgers of the restored
lock and drop the replies appended since (they stay in DVC's cache, unreferenced).

A lock cut exactly at a line end can still parse and validate; it is then an older,
shorter record of the same stages, and DVC re-runs the stages it no longer matches. A
lock that does not end with a newline is reported as torn (DVC's dump always ends one).

``python -m prescient lock check`` exits 1 on a torn lock and prints the fix;
``python -m prescient lock repair`` restores it. Both cover every lock of the project: its
own ``dvc.lock`` and that of each pipeline below it (:func:`lock_paths`, e.g. the crawl's
``pipelines/crawl/dvc.lock``). :mod:`prescient.plumbing.dvc_atomic` makes DVC's
writes atomic, so they cannot tear the file: in every ``dvc`` of the project's
environment (:mod:`prescient.plumbing.dvc_hook`), and in the runs of ``make repro`` and
``prescient update`` in any environment.
"""

from __future__ import annotations

import logging
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prescient import io

logger = logging.getLogger(__name__)

LOCK_NAME = "dvc.lock"
REPAIR_COMMAND = "python -m prescient lock repair"


class LockError(RuntimeError):
    """A torn lock that cannot be repaired here; the message says what to do instead."""


@dataclass(frozen=True)
class LockState:
    """What :func:`check` found.

    Attributes:
        path: the lock file.
        torn: the file exists but DVC cannot use it.
        problem: why it is torn (one line), None when it is fine.
        stages: stages the lock records (0 when torn or absent).
    """

    path: Path
    torn: bool
    problem: str | None
    stages: int

    def fix(self) -> str:
        """The command that repairs a torn lock, and what it costs."""
        return (
            f"run `{REPAIR_COMMAND}` (it restores {LOCK_NAME} from git; stages run since "
            "that commit re-run on the next `dvc repro`, their model replies come from "
            "the ledgers)"
        )


def problem_with(text: str) -> tuple[str | None, int]:
    """Why lock text ``text`` is unusable (None when DVC can use it), and its stages.

    The text must be non-empty, end with a newline, parse as YAML and pass DVC's own
    lock file schema.
    """
    from dvc.schema import COMPILED_LOCKFILE_SCHEMA
    from dvc.utils.serialize import YAMLFileCorruptedError, parse_yaml
    from voluptuous import Invalid

    if not text.strip():
        return "the file is empty", 0
    try:
        data: Any = parse_yaml(text, LOCK_NAME)
    except YAMLFileCorruptedError as exc:
        cause = str(exc.__cause__ or exc).splitlines()
        return f"not YAML ({' '.join(line.strip() for line in cause[:3])})", 0
    try:
        COMPILED_LOCKFILE_SCHEMA(data)
    except Invalid as exc:
        return f"not a DVC lock file ({exc})", 0
    if not text.endswith("\n"):
        return "the file ends mid-line (cut while DVC was writing it)", 0
    return None, len(data.get("stages") or {})


_NOT_PROJECT_DIRS = frozenset({".venv", "venv", "node_modules", "__pycache__"})


def lock_paths(root: Path) -> list[Path]:
    """Every ``dvc.lock`` of the project at ``root``: its own, then the one beside each
    ``dvc.yaml`` below it (a pipeline of its own, e.g. ``pipelines/crawl/``), whether
    DVC has written it yet or not. Hidden directories and environments are not searched."""
    found = [root / LOCK_NAME]
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_PROJECT_DIRS)
        if "dvc.yaml" in files and Path(here) != root:
            found.append(Path(here) / LOCK_NAME)
    return found


def check_all(root: Path) -> list[LockState]:
    """:func:`check` of every lock of :func:`lock_paths`."""
    return [check(root, path) for path in lock_paths(root)]


def check(root: Path, path: Path | None = None) -> LockState:
    """The state of the lock ``path`` (default ``root/dvc.lock``; an absent lock is not
    torn: DVC creates one)."""
    path = root / LOCK_NAME if path is None else path
    if not path.exists():
        return LockState(path, False, None, 0)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return LockState(path, True, "not UTF-8 text", 0)
    problem, stages = problem_with(text)
    return LockState(path, problem is not None, problem, stages)


def _git_show(root: Path, spec: str) -> str | None:
    """``git show SPEC`` in ``root``, or None when git has no such object."""
    try:
        done = subprocess.run(
            ["git", "show", spec],
            cwd=root,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError:  # no git on PATH
        return None
    if done.returncode:
        return None
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def committed_lock(root: Path, path: Path | None = None) -> tuple[str, str] | None:
    """(where, text) of the version git holds of the lock ``path`` (default
    ``root/dvc.lock``) that DVC can use: the staged one when it is valid and differs from
    ``HEAD``'s, else ``HEAD``'s; None when neither is usable."""
    rel = (root / LOCK_NAME if path is None else path).relative_to(root).as_posix()
    head = _git_show(root, f"HEAD:./{rel}")  # ./: relative to root, not to git's top
    staged = _git_show(root, f":./{rel}")
    for where, text in (("the git index", staged), ("HEAD", head)):
        if text is not None and problem_with(text)[0] is None:
            if where == "the git index" and text == head:
                continue
            return where, text
    return None


def repair_all(root: Path) -> list[tuple[Path, str]]:
    """:func:`repair` every lock of :func:`lock_paths`; the locks restored, each with
    where its version came from.

    Raises:
        LockError: a torn lock git has no usable version of (the others are repaired
            first; the message names each such lock and its fix).
    """
    restored: list[tuple[Path, str]] = []
    errors: list[str] = []
    for path in lock_paths(root):
        try:
            where = repair(root, path)
        except LockError as exc:
            errors.append(str(exc))
            continue
        if where is not None:
            restored.append((path, where))
    if errors:
        raise LockError("; ".join(errors))
    return restored


def repair(root: Path, path: Path | None = None) -> str | None:
    """Restore a torn lock (``path``, default ``root/dvc.lock``) from git; leave a usable
    one untouched.

    Returns:
        Where the restored lock came from (``HEAD``, ``the git index``), None when the
        lock was not torn.

    Raises:
        LockError: the lock is torn and git has no usable version of it; the message
            says how to start it afresh.
    """
    state = check(root, path)
    if not state.torn:
        return None
    found = committed_lock(root, state.path)
    if found is None:
        raise LockError(
            f"{state.path}: {state.problem}, and git has no committed {LOCK_NAME} to restore. "
            f"Fix: delete {state.path} and run `dvc repro` (every stage runs again; model "
            "replies come from the ledgers in data/llm, so no model is asked twice)"
        )
    where, text = found
    mode = state.path.stat().st_mode & 0o777
    with io.atomic_open(state.path) as fh:
        fh.write(text)
    state.path.chmod(mode)
    logger.warning(
        "%s: %s; restored the version of %s (stages: %d). Stages run since then re-run on "
        "the next `dvc repro` (their outputs are in DVC's cache, their model replies in "
        "the ledgers); run `dvc repro`, not `dvc checkout`",
        state.path,
        state.problem,
        where,
        problem_with(text)[1],
    )
    return where
