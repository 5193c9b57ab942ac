"""``prescient dag check|sync``: keep dvc.yaml's code deps equal to the stages' imports."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from prescient.plumbing import dag


def _check(args: argparse.Namespace) -> int:
    root = Path(args.root).resolve()
    bad = [
        sc
        for path in dag.pipeline_files(root)
        for sc in dag.stage_code(root, dag.load_dvc_yaml(root, path))
        if not sc.in_sync
    ]
    for sc in bad:
        extra = sorted(set(sc.declared) - set(sc.derived))
        print(f"stage {sc.stage} ({sc.module}):", file=sys.stderr)
        for d in sc.uncovered:
            print(f"  missing: {d}", file=sys.stderr)
        for d in extra:
            print(f"  not imported: {d}", file=sys.stderr)
    if bad:
        print("run `python -m prescient dag sync` and commit dvc.yaml", file=sys.stderr)
        return 1
    print("every stage's code deps match its imports")
    return 0


def _sync(args: argparse.Namespace) -> int:
    changed = dag.sync(Path(args.root).resolve())
    print(f"updated {', '.join(changed)}" if changed else "dvc.yaml already in sync")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("dag", help="check or derive stage code dependencies in dvc.yaml")
    psub = p.add_subparsers(dest="dag_command", required=True)
    for name, func, text in (
        ("check", _check, "fail when a stage's code deps differ from its imports"),
        ("sync", _sync, "rewrite the code deps of dvc.yaml from the stages' imports"),
    ):
        c = psub.add_parser(name, help=text)
        c.add_argument("--root", default=".", help="project root (default: .)")
        c.set_defaults(func=func)
