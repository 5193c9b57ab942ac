"""``prescient params compose|check``: keep params.yaml in step with conf/."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from prescient.plumbing import params


def _compose(args: argparse.Namespace) -> int:
    out = params.compose_to_file(args.root, args.overrides)
    print(f"wrote {out}")
    return 0


def _check(args: argparse.Namespace) -> int:
    expected = params.compose(args.root)
    actual = params.load(Path(args.root) / params.PARAMS_FILE)
    if expected != actual:
        print(
            "params.yaml is stale with respect to conf/: run `make params` and commit it.",
            file=sys.stderr,
        )
        return 1
    print("params.yaml matches conf/")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("params", help="compose or check params.yaml from conf/")
    psub = p.add_subparsers(dest="params_command", required=True)
    c = psub.add_parser("compose", help="write params.yaml from conf/ (what dvc exp run does)")
    c.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. corpus=shared_news")
    c.add_argument("--root", default=".", help="project root (default: .)")
    c.set_defaults(func=_compose)
    k = psub.add_parser("check", help="fail when params.yaml differs from conf/")
    k.add_argument("--root", default=".")
    k.set_defaults(func=_check)
