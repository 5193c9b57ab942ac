"""``prescient pull``: ``dvc pull``, with the fix named when the remote folder is missing.

DVC's own message for a remote folder that does not exist is "Checkout failed ... Is
your cache up to date?"; after a failed pull this command checks the remote
(:mod:`prescient.plumbing.remote`) and, when it is a folder that is not there, names the folder,
the config file that points at it and the fix. A pull that needs nothing from the remote
(everything already in the cache) succeeds as ``dvc pull`` does.

After a pull, the texts of the evaluation's context tables go into the response store's
text pool, where the pulled evaluation ledgers find the articles their prompts quoted
(:mod:`prescient.llm.text_pool`), so ``prescient ledger verify`` and ``trace`` read them
at once.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
from pathlib import Path

from prescient.plumbing.llm_cli import CONTEXTS, add_table_texts
from prescient.plumbing.remote import local_remote, missing_folder_message

logger = logging.getLogger(__name__)


def _pull(args: argparse.Namespace) -> int:
    from dvc.exceptions import DvcException

    argv = [sys.executable, "-m", "dvc", "pull", *args.targets]
    if args.remote:
        argv += ["--remote", args.remote]
    if args.jobs is not None:
        argv += ["--jobs", str(args.jobs)]
    rc = subprocess.run(argv, check=False).returncode
    if rc:
        root = Path(os.getcwd())
        try:
            remote = local_remote(root, args.remote)
        except DvcException as exc:  # DVC's own error is already printed
            logger.debug("could not read the DVC remote: %s", exc)
            return rc
        if remote is not None and not remote.path.is_dir():
            logger.error("dvc pull failed: %s", missing_folder_message(remote, root))
        return rc
    if Path(CONTEXTS).is_dir():
        pool, added, tables = add_table_texts([CONTEXTS])
        logger.info("%d texts of %d context tables added to %s", added, tables, pool.path)
    return rc


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "pull",
        help="dvc pull from the project's remote; names the fix when its folder is missing",
    )
    p.add_argument("targets", nargs="*", help="outputs or stages to pull (default: all)")
    p.add_argument("-r", "--remote", default=None, help="remote name (default: core.remote)")
    p.add_argument("-j", "--jobs", type=int, default=None, help="parallel downloads")
    p.set_defaults(func=_pull)
