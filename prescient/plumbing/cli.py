"""The ``prescient`` command line.

Each command group lives next to the code it drives and exposes ``register(subparsers)``;
this module only lists them, so the CLI imports a heavy dependency (litellm, llama.cpp)
only when that command runs.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

DESCRIPTION = """\
Prescient: continuous evaluation of LLMs as forecasters (Daily Oracle, FreshBench,
OpenForecast). The pipeline itself runs with `dvc repro` (`make repro` on a fresh
clone); these commands compose its parameters, check its wiring, plan, audit and trace
its model calls, annotate, pull, and advance it by a day."""

EPILOG = """\
examples:
  python -m prescient params compose        write params.yaml from conf/
  python -m prescient plan                  what a run would send, and its worst case
  python -m prescient ledger runs           what each run sent, and what it cost
  python -m prescient trace --help          a report cell down to its raw responses
  python -m prescient update --through YYYY-MM-DD
see README.md and docs/ for the rest."""

# module path -> it defines register(subparsers) adding one top-level command.
COMMAND_MODULES: tuple[str, ...] = (
    "prescient.plumbing.params_cli",
    "prescient.plumbing.dag_cli",
    "prescient.plumbing.llm_cli",
    "prescient.plumbing.annotation_cli",
    "prescient.plumbing.update_cli",
    "prescient.plumbing.lockfile_cli",
    "prescient.plumbing.trace_cli",
    "prescient.plumbing.remote_cli",
    "prescient.plumbing.plan_cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="prescient",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a command group not installed in this checkout
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
