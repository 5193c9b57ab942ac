"""``prescient ledger stats|export|verify``: audit the response ledgers under data/llm/."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from prescient.llm.ledger import read_entries, request_key


def _files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths or ["data/llm"]):
        out.extend(sorted(p.rglob("*.jsonl")) if p.is_dir() else [p])
    return out


def stats(paths: list[str]) -> dict[str, Any]:
    """Per model: entries, successes, failures by reason, tokens and cost."""
    per: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "entries": 0,
            "ok": 0,
            "failed": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cost_usd": 0.0,
            "failures": Counter(),
        }
    )
    for f in _files(paths):
        for e in read_entries(f):
            m = per[str(e.get("model"))]
            m["entries"] += 1
            if e.get("error"):
                m["failed"] += 1
                m["failures"][str(e["error"]).split(":", 1)[0]] += 1
            else:
                m["ok"] += 1
            usage = e.get("usage") or {}
            m["prompt_tokens"] += int(usage.get("prompt_tokens", 0))
            m["completion_tokens"] += int(usage.get("completion_tokens", 0))
            m["cost_usd"] += float(e.get("cost") or 0.0)
    return {k: {**v, "failures": dict(v["failures"])} for k, v in sorted(per.items())}


def verify(paths: list[str]) -> tuple[int, list[str]]:
    """Re-hash every entry; returns (entries checked, problems)."""
    problems, n = [], 0
    for f in _files(paths):
        for i, e in enumerate(read_entries(f), start=1):
            n += 1
            expected = request_key(
                e.get("litellm_model", ""), e.get("messages", []), e.get("params", {})
            )
            if expected != e.get("key"):
                problems.append(
                    f"{f} entry {i}: key {e.get('key')} does not match its request ({expected})"
                )
        raw = f.read_bytes()
        if raw and not raw.endswith(b"\n"):
            problems.append(
                f"{f}: ends with a partial line (an interrupted write; the next run repairs it)"
            )
    return n, problems


def _stats(args: argparse.Namespace) -> int:
    print(json.dumps(stats(args.paths), indent=2))
    return 0


def _export(args: argparse.Namespace) -> int:
    import pandas as pd

    rows = [dict(e, ledger=str(f)) for f in _files(args.paths) for e in read_entries(f)]
    df = pd.DataFrame(rows)
    for col in ("messages", "params", "usage", "tags"):
        if col in df:
            df[col] = df[col].map(lambda v: json.dumps(v, ensure_ascii=False, sort_keys=True))
    if args.out.endswith(".csv"):
        df.to_csv(args.out, index=False)
    else:
        df.to_parquet(args.out, index=False)
    print(f"wrote {len(df)} entries to {args.out}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    n, problems = verify(args.paths)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{n} entries checked, {len(problems)} problems")
    return 1 if problems else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ledger", help="audit LLM response ledgers (data/llm)")
    psub = p.add_subparsers(dest="ledger_command", required=True)
    for name, func, helptext in (
        ("stats", _stats, "per-model counts, tokens, cost and failure reasons"),
        ("verify", _verify, "re-hash every entry and check for torn lines"),
        ("export", _export, "write all entries as one CSV or Parquet table"),
    ):
        c = psub.add_parser(name, help=helptext)
        c.add_argument("paths", nargs="*", help="ledger files or directories (default: data/llm)")
        if name == "export":
            c.add_argument("--out", required=True, help="output .csv or .parquet")
        c.set_defaults(func=func)
