"""``prescient lock check|repair|install-hook``: find a torn ``dvc.lock`` and restore it
from git, and keep DVC from tearing one.

Every lock of the project is covered: its own and each pipeline's below it.
``install-hook`` makes every ``dvc`` of this Python environment write its locks
atomically (:mod:`prescient.plumbing.dvc_hook`); ``check`` warns when it is missing.

``check`` exits 0 when DVC can use the lock (or there is none yet) and 1 when it is torn,
printing the fix; ``repair`` restores a torn lock from git (:mod:`prescient.plumbing.lockfile`)
and exits 0, or exits 1 with the fix when git has no usable version of it.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from prescient.plumbing import dvc_hook
from prescient.plumbing.lockfile import LockError, check_all, repair_all

logger = logging.getLogger(__name__)


def _check(args: argparse.Namespace) -> int:
    torn = 0
    for state in check_all(Path(args.root)):
        if state.torn:
            torn += 1
            logger.error("%s is torn: %s. Fix: %s", state.path, state.problem, state.fix())
        elif state.stages:
            logger.info("%s is whole (%d stages)", state.path, state.stages)
        else:
            logger.info("%s: no lock yet (DVC writes one on the first `dvc repro`)", state.path)
    if not dvc_hook.installed():
        logger.warning(
            "a dvc of this environment killed while it writes a lock can tear it (%s is "
            "missing). Fix: python -m prescient lock install-hook",
            dvc_hook.pth_path(),
        )
    return 1 if torn else 0


def _repair(args: argparse.Namespace) -> int:
    try:
        restored = repair_all(Path(args.root))
    except LockError as exc:
        logger.error("%s", exc)
        return 1
    if not restored:
        logger.info("no lock of %s is torn; nothing to repair", Path(args.root).resolve())
    return 0


def _install_hook(args: argparse.Namespace) -> int:
    path = dvc_hook.install_pth()
    logger.info("every dvc of this environment writes its locks atomically (%s)", path)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("lock", help="check dvc.lock, or restore a torn one from git")
    psub = p.add_subparsers(dest="lock_command", required=True)
    for name, func, text in (
        ("check", _check, "exit 1 when a dvc.lock is torn (empty, cut, not a DVC lock)"),
        ("repair", _repair, "restore every torn dvc.lock from git (the index or HEAD)"),
        (
            "install-hook",
            _install_hook,
            "make every dvc of this environment write locks atomically",
        ),
    ):
        c = psub.add_parser(name, help=text)
        c.add_argument("--root", default=".", help="project root (default: .)")
        c.set_defaults(func=func)
