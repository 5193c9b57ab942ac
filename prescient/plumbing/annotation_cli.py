"""``prescient annotate serve|import``: the human side of the filter evaluation.

``serve`` opens the local annotation page for one annotator's packet; ``import`` turns a
filled spreadsheet packet into the same JSON Lines ratings file the page writes.

The packets and ratings directories are said once, in dvc.yaml (the ``annotation_sample``
stage's ``--out`` and the ``agreement`` stage's ``--ratings``); run from the project
root, the commands read them from there, and ``--packets`` / ``--ratings`` override them.
"""

from __future__ import annotations

import argparse
import json
import logging
import shlex
import sys
from pathlib import Path

import yaml

from prescient.annotation.ratings import (
    AnnotationError,
    append_ratings,
    check_annotator_name,
    clean_ratings_dir,
    import_csv,
    read_ratings_file,
)

logger = logging.getLogger(__name__)

PIPELINE_FILE = "dvc.yaml"
# Where each directory is said in dvc.yaml: (stage, option of its command).
PACKETS_OPTION = ("annotation_sample", "--out")
RATINGS_OPTION = ("agreement", "--ratings")


def stage_option(dvc_yaml: Path, stage: str, option: str) -> str | None:
    """The value of ``option`` in ``stage``'s command in dvc.yaml (None if not found)."""
    try:
        doc = yaml.safe_load(dvc_yaml.read_text(encoding="utf-8"))
        words = shlex.split(" ".join(str(doc["stages"][stage]["cmd"]).split()))
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError):
        return None
    for i, word in enumerate(words[:-1]):
        if word == option:
            return words[i + 1]
    return None


def _directories(args: argparse.Namespace) -> tuple[Path, Path]:
    """``--packets`` and ``--ratings``, or the directories dvc.yaml names.

    Raises:
        ValueError: neither given nor found in dvc.yaml.
    """
    found = []
    for given, (stage, option), flag in (
        (args.packets, PACKETS_OPTION, "--packets"),
        (args.ratings, RATINGS_OPTION, "--ratings"),
    ):
        value = given or stage_option(Path(PIPELINE_FILE), stage, option)
        if value is None:
            raise ValueError(
                f"{flag} is not given and no {PIPELINE_FILE} in {Path.cwd()} names it "
                f"(stage {stage}, {option}): run from the project root or pass {flag}"
            )
        found.append(Path(value))
    return found[0], found[1]


def _serve(args: argparse.Namespace) -> int:
    from prescient.annotation.server import make_server, serve

    try:
        check_annotator_name(args.annotator)
        packets, ratings = _directories(args)
        server = make_server(packets, ratings, args.annotator, port=args.port)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # The first line on stdout is the address (scripts and tests read it).
    print(f"Annotation page for {args.annotator}: {server.url} (Ctrl-C to stop)", flush=True)
    print(f"Ratings are saved to {server.session.ratings_path}", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(server.url)
    serve(server)
    return 0


def _import(args: argparse.Namespace) -> int:
    try:
        check_annotator_name(args.annotator)
        packets, ratings_dir = _directories(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    manifest_path = packets / "manifest.json"
    try:
        item_ids = json.loads(manifest_path.read_text(encoding="utf-8"))["item_ids"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: cannot read the packets' manifest {manifest_path}: {exc}", file=sys.stderr)
        return 2
    try:
        ratings = import_csv(Path(args.csv), args.annotator, item_ids)
    except (AnnotationError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = ratings_dir / f"{args.annotator}.jsonl"
    before = read_ratings_file(out, item_ids)[0].ratings if out.exists() else {}
    replaced = sum(1 for r in ratings if r.item_id in before)
    if args.dry_run:
        print(f"{args.csv}: {len(ratings)} valid ratings (dry run, nothing written)")
        return 0
    clean_ratings_dir(ratings_dir)
    append_ratings(out, ratings)
    print(
        f"imported {len(ratings)} ratings of {args.annotator} into {out}"
        + (f" ({replaced} replace earlier ratings of the same items)" if replaced else "")
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("annotate", help="annotate the human-evaluation packets")
    asub = p.add_subparsers(dest="annotate_command", required=True)
    packets_help = "the packets directory (default: as dvc.yaml's annotation_sample --out)"
    ratings_help = "the ratings directory (default: as dvc.yaml's agreement --ratings)"

    s = asub.add_parser("serve", help="start the local annotation page on 127.0.0.1")
    s.add_argument("--annotator", required=True, help="your name as in the packets (file stem)")
    s.add_argument("--packets", help=packets_help)
    s.add_argument("--ratings", help=ratings_help)
    s.add_argument("--port", type=int, default=8765, help="0 picks a free port (default: 8765)")
    s.add_argument("--open", action="store_true", help="open the page in the default browser")
    s.set_defaults(func=_serve)

    i = asub.add_parser("import", help="validate a filled packet CSV and convert it to JSONL")
    i.add_argument("--annotator", required=True)
    i.add_argument("--csv", required=True, help="the filled <annotator>.csv")
    i.add_argument("--packets", help=packets_help)
    i.add_argument("--ratings", help=ratings_help)
    i.add_argument("--dry-run", action="store_true", help="validate only")
    i.set_defaults(func=_import)
