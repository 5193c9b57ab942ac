"""``prescient update --through YYYY-MM-DD``: bring the benchmark up to a day.

1. set ``base.through`` in conf/config.yaml (the bound of the crawl, ingest, selection
   and construction windows) and compose params.yaml; when the evaluation is split by
   month (``eval.partitions``, :mod:`prescient.evaluation.partitions`), add the day's
   month to the list in conf/eval/default.yaml, so its questions have a partition;
2. ``dvc repro`` (the whole pipeline, or ``--target`` stages and what they depend on):
   the stages that read ``base.through`` run again, every model reply of an earlier day
   comes from the response store, so only the new days cost model calls, and the
   ``evaluate`` stages of partitions the new days leave unchanged are skipped;
3. write the dated release of the question set (``questions-DAY.parquet`` and its
   manifest, :mod:`prescient.plumbing.update`) and ``dvc add`` the releases directory, so
   ``dvc push`` publishes it.

It logs the model calls the update made, per stage ledger (from the response store's
run log, ``python -m prescient ledger runs``). A failed ``dvc repro``
leaves ``base.through`` set: run the command again (or ``dvc repro``) to finish; work
already done is not repeated. Run it from the project root.

``dvc repro`` runs through :mod:`prescient.plumbing.dvc_atomic`, so a kill while DVC writes
``dvc.lock`` cannot tear it. A lock torn by some other run (a ``dvc repro`` by hand
killed mid-write) is found before anything changes and restored from git
(:mod:`prescient.plumbing.lockfile`; stages run since that commit re-run, their model replies
come from the response store); when git has no usable version the update stops with the fix.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import logging
import shutil
import subprocess
import sys
from pathlib import Path

from prescient.dates import parse_day
from prescient.evaluation.partitions import extended
from prescient.llm.store import run_log_path
from prescient.plumbing import params
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.lockfile import LockError, check_all, repair_all
from prescient.plumbing.update import (
    UpdateError,
    calls_sent,
    published,
    run_log_offset,
    set_partitions,
    set_through,
    write_release,
)
from prescient.settings import ParamsError, section

logger = logging.getLogger(__name__)

PARTITIONS = "eval.partitions"
"""How the evaluation is split into stages (a list of months grows with the days)."""

DAILY_ORACLE_QUESTIONS = "questions.sources.daily_oracle.path"
"""Where the constructed question set is (the release's default source)."""


def _dvc() -> str:
    beside = Path(sys.executable).parent / "dvc"
    return str(beside) if beside.exists() else (shutil.which("dvc") or "dvc")


def _dvc_atomic() -> list[str]:
    """``dvc`` with atomic writes of dvc.lock when DVC is importable here, else plain."""
    if importlib.util.find_spec("dvc") is not None:
        return [sys.executable, "-m", "prescient.plumbing.dvc_atomic"]
    return [_dvc()]


def _repair_lock(root: Path) -> bool:
    """Restore every torn dvc.lock from git; False (logged with the fix) when one cannot be."""
    try:
        repair_all(root)
    except LockError as exc:
        logger.error("%s", exc)
        return False
    return True


def _extend_partitions(root: Path, day: dt.date) -> None:
    """Append ``day``'s month to ``eval.partitions`` when they are months that end
    before it (``conf/eval/default.yaml``), and compose again.

    Raises:
        UpdateError: the list is set somewhere the update does not edit.
    """
    listed = tuple(section(params.load(root / params.PARAMS_FILE), PARTITIONS) or ())
    wanted = extended(listed, day)
    if wanted == listed:
        return
    set_partitions(root / params.CONF_DIR / "eval" / "default.yaml", wanted)
    params.compose_to_file(root)
    got = tuple(section(params.load(root / params.PARAMS_FILE), PARTITIONS) or ())
    if got != wanted:
        raise UpdateError(
            f"{PARTITIONS} is set outside conf/eval/default.yaml: add "
            f"{sorted(set(wanted) - set(got))} where it is set, then run the update again"
        )
    logger.info("%s: %s added", PARTITIONS, ", ".join(wanted[len(listed) :]))


def _update(args: argparse.Namespace) -> int:
    root = Path(args.root)
    try:
        day = parse_day(args.through, "--through")
        log = run_log_path(dvc_cache_dir(root))
        before = run_log_offset(log)
        if not _repair_lock(root):
            return 2
        old = set_through(root / params.CONF_DIR / f"{params.CONFIG_NAME}.yaml", day)
    except (ValueError, OSError) as exc:  # UpdateError, a bad day, an unreadable conf
        logger.error("%s", exc)
        return 2
    logger.info("base.through: %s -> %s", old or "null", day)
    params.compose_to_file(root)
    try:
        _extend_partitions(root, day)
    except (ValueError, OSError) as exc:  # UpdateError, PartitionError
        logger.error("%s", exc)
        return 2
    rc = subprocess.run([*_dvc_atomic(), "repro", *args.target], cwd=root, check=False).returncode
    if rc:
        torn = [lock for lock in check_all(root) if lock.torn]
        logger.error(
            "dvc repro failed (exit %d); base.through stays %s: run the update again to "
            "finish (completed work and model replies are kept)%s",
            rc,
            day,
            "".join(
                f"; {lock.path} is torn ({lock.problem}): the update restores it from git, "
                f"or {lock.fix()}"
                for lock in torn
            ),
        )
        return rc
    try:
        composed = params.load(root / params.PARAMS_FILE)
        questions = root / (args.questions or str(section(composed, DAILY_ORACLE_QUESTIONS)))
        before_release = published(questions, root / args.releases, day)
        manifest = write_release(questions, root / args.releases, day)
    except ParamsError as exc:
        logger.error("%s; or name the question table to release with --questions", exc)
        return 2
    except UpdateError as exc:
        logger.error("%s", exc)
        return 1
    if before_release is not None:
        logger.info(
            "release %s is already published with these %d questions: nothing written; "
            "%d model calls",
            manifest["file"],
            manifest["questions"],
            sum(calls_sent(log, before).values()),
        )
        return 0
    if not args.no_dvc_add:
        rc = subprocess.run(
            [*_dvc_atomic(), "add", "-q", args.releases], cwd=root, check=False
        ).returncode
        if rc:
            logger.error(
                "`dvc add %s` failed (exit %d); the release is written but not tracked",
                args.releases,
                rc,
            )
            return rc
    calls = calls_sent(log, before)
    logger.info(
        "release %s: %d questions over %d days (%d new, %d changed, %d removed); "
        "%d model calls (%s)",
        manifest["file"],
        manifest["questions"],
        manifest["days"],
        manifest["new_questions"],
        manifest["changed"],
        manifest["removed"],
        sum(calls.values()),
        ", ".join(f"{k}: {v}" for k, v in calls.items()) or "all from the response store",
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "update", help="advance base.through to a day, run the pipeline, release the questions"
    )
    p.add_argument("--through", required=True, help="the last day of news (YYYY-MM-DD)")
    p.add_argument(
        "--target",
        action="append",
        default=[],
        help="stage to reproduce (repeatable; default: the whole pipeline)",
    )
    p.add_argument("--root", default=".", help="project root (default: .)")
    p.add_argument(
        "--questions",
        default=None,
        help=f"the question table to release (default: params {DAILY_ORACLE_QUESTIONS})",
    )
    p.add_argument(
        "--releases", default="data/releases", help="releases directory (default: data/releases)"
    )
    p.add_argument(
        "--no-dvc-add", action="store_true", help="do not track the releases with `dvc add`"
    )
    p.set_defaults(func=_update)
