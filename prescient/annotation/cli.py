"""``prescient annotate serve|import``: the human side of the filter evaluation.

``serve`` opens the local annotation page for one annotator's packet; ``import`` turns a
filled spreadsheet packet into the same JSON Lines ratings file the page writes.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from prescient.annotation.ratings import (
    AnnotationError,
    append_ratings,
    import_csv,
    read_ratings_file,
)

logger = logging.getLogger(__name__)

DEFAULT_PACKETS = "data/annotations/packets"
DEFAULT_RATINGS = "data/annotations/ratings"


def _serve(args: argparse.Namespace) -> int:
    from prescient.annotation.server import make_server, serve

    try:
        server = make_server(Path(args.packets), Path(args.ratings), args.annotator, port=args.port)
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
    manifest_path = Path(args.packets) / "manifest.json"
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
    out = Path(args.ratings) / f"{args.annotator}.jsonl"
    before = read_ratings_file(out, item_ids)[0].ratings if out.exists() else {}
    replaced = sum(1 for r in ratings if r.item_id in before)
    if args.dry_run:
        print(f"{args.csv}: {len(ratings)} valid ratings (dry run, nothing written)")
        return 0
    append_ratings(out, ratings)
    print(
        f"imported {len(ratings)} ratings of {args.annotator} into {out}"
        + (f" ({replaced} replace earlier ratings of the same items)" if replaced else "")
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("annotate", help="annotate the human-evaluation packets")
    asub = p.add_subparsers(dest="annotate_command", required=True)

    s = asub.add_parser("serve", help="start the local annotation page on 127.0.0.1")
    s.add_argument("--annotator", required=True, help="your name as in the packets (file stem)")
    s.add_argument("--packets", default=DEFAULT_PACKETS, help=f"default: {DEFAULT_PACKETS}")
    s.add_argument("--ratings", default=DEFAULT_RATINGS, help=f"default: {DEFAULT_RATINGS}")
    s.add_argument("--port", type=int, default=8765, help="0 picks a free port (default: 8765)")
    s.add_argument("--open", action="store_true", help="open the page in the default browser")
    s.set_defaults(func=_serve)

    i = asub.add_parser("import", help="validate a filled packet CSV and convert it to JSONL")
    i.add_argument("--annotator", required=True)
    i.add_argument("--csv", required=True, help="the filled <annotator>.csv")
    i.add_argument("--packets", default=DEFAULT_PACKETS)
    i.add_argument("--ratings", default=DEFAULT_RATINGS)
    i.add_argument("--dry-run", action="store_true", help="validate only")
    i.set_defaults(func=_import)
