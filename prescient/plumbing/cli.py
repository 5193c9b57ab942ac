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
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="prescient", description=__doc__)
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
