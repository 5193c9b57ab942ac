"""``prescient ledger stats|export|verify|runs|texts``: audit response ledgers (files or
directories; by default the project's response store) and the store's run log; add the
texts of tables to the store's text pool."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, NamedTuple

from prescient.jsonl import LineError, parse_json
from prescient.llm.ledger import (
    RESPONSE_HASH,
    escape_surrogates,
    has_surrogate,
    is_success,
    iter_lines,
    key_problem,
    read_entries,
    response_problem,
)
from prescient.llm.text_pool import TextPool
from prescient.llm.types import served_model

JSON_COLUMNS = ("messages", "params", "usage", "tags", "provenance")
"""Entry fields exported as JSON text (one cell each)."""


def _files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(p.rglob("*.jsonl")) if p.is_dir() else [p])
    return out


def project_pool(root: str | Path = ".") -> TextPool | None:
    """The text pool of the response store of the project at ``root`` (None: no DVC
    project), where the lines of the store and of the stages' ledgers find their texts."""
    from prescient.llm.store import text_pool
    from prescient.plumbing.locations import dvc_cache_dir

    return text_pool(dvc_cache_dir(root))


def stats(paths: list[str], pool: TextPool | None = None) -> dict[str, Any]:
    """Per model: entries, successes, failures by reason, tokens, cost, what its entries
    asked for (``litellm_models``, entries per registry ``litellm_model``) and the served
    models that answered (``served_models``: the id each reply's server named, or an
    in-process model's weights file, with its count of answers).

    ``failed`` counts recorded failures (a rerun that then succeeded leaves its failure
    in the audit trail); ``unresolved`` counts requests that have no success yet.
    ``pool``: where pooled texts are read (:func:`prescient.llm.ledger_read.iter_lines`).
    """
    per: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "entries": 0,
            "ok": 0,
            "failed": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cost_usd": 0.0,
            "failures": Counter(),
            "served_models": Counter(),
            "litellm_models": Counter(),
        }
    )
    answered: set[tuple[str, str]] = set()
    failed: set[tuple[str, str]] = set()
    for f in _files(paths):
        for e in read_entries(f, pool):
            m = per[str(e.get("model"))]
            (failed if e.get("error") else answered).add((str(e.get("model")), str(e["key"])))
            m["entries"] += 1
            m["litellm_models"][str(e.get("litellm_model") or "")] += 1
            if e.get("error"):
                m["failed"] += 1
                m["failures"][str(e["error"]).split(":", 1)[0]] += 1
            else:
                m["ok"] += 1
                named = served_model(e.get("provenance"))
                if named:
                    m["served_models"][named] += 1
            usage = e.get("usage") or {}
            m["prompt_tokens"] += int(usage.get("prompt_tokens", 0))
            m["completion_tokens"] += int(usage.get("completion_tokens", 0))
            m["cost_usd"] += float(e.get("cost") or 0.0)
    unresolved = Counter(model for model, key in failed - answered)
    return {
        k: {
            **v,
            "failures": dict(v["failures"]),
            "served_models": dict(sorted(v["served_models"].items())),
            "litellm_models": dict(sorted(v["litellm_models"].items())),
            "unresolved": unresolved[k],
        }
        for k, v in sorted(per.items())
    }


class Audit(NamedTuple):
    """What :func:`audit` found.

    Attributes:
        checked: entries read (lines that are ledger entries).
        problems: one line per problem, naming file and line.
        changed: entries whose answer no longer matches their ``response_sha256``.
        unverifiable: entries written before ``response_sha256`` existed: their key is
            checked, their answer cannot be (not a problem).
    """

    checked: int
    problems: list[str]
    changed: int
    unverifiable: int


def audit(paths: list[str], pool: TextPool | None = None) -> Audit:
    """Re-hash every entry, request and answer, and look for damage.

    A problem names its file and line: a line that is not a ledger entry (not UTF-8,
    not JSON, a field of the wrong type), an entry whose key is not the hash of its own
    request (edited by hand, forged, or written by a different key rule; never served),
    an entry whose answer (response, finish reason, usage, error) no longer hashes to the
    ``response_sha256`` written with it ("changed answer": edited after it was written;
    never served), a second answer to an answered request that differs from the first
    (the first is served), or a torn last line (harmless: readers skip it and the next
    write cuts it, but worth knowing). Entries without ``response_sha256`` are counted
    as unverifiable, not as problems. A line whose pooled texts cannot be read back
    (``pool`` lacks one, or its bytes changed) is a problem too.
    """
    problems: list[str] = []
    n = changed = unverifiable = 0
    for f in _files(paths):
        served: dict[str, tuple[int, str]] = {}
        for line in iter_lines(f, pool):
            where = f"{f}:{line.number}"
            if line.entry is None:
                problems.append(f"{where}: {line.problem}")
                continue
            n += 1
            e = line.entry
            problem = key_problem(e)
            if problem is not None:
                problems.append(f"{where}: {problem}")
                continue
            if RESPONSE_HASH not in e:
                unverifiable += 1
            else:
                problem = response_problem(e)
                if problem is not None:
                    changed += 1
                    problems.append(f"{where}: {problem}")
                    continue
            if not is_success(e):
                continue
            first = served.setdefault(str(e["key"]), (line.number, str(e["response"])))
            if first[0] != line.number and first[1] != e["response"]:
                problems.append(
                    f"{where}: a different answer to the request answered on line "
                    f"{first[0]} (that one is served)"
                )
    return Audit(n, problems, changed, unverifiable)


def verify(paths: list[str], pool: TextPool | None = None) -> tuple[int, list[str]]:
    """``(entries checked, problems)`` of :func:`audit`."""
    found = audit(paths, pool)
    return found.checked, found.problems


def _stats(args: argparse.Namespace) -> int:
    print(json.dumps(stats(_store_or(args.paths), project_pool()), indent=2))
    return 0


def export_row(entry: dict[str, Any], ledger: str) -> dict[str, Any]:
    """One table row of an entry: :data:`JSON_COLUMNS` as JSON text, ``ledger`` its file.

    CSV and Parquet text is UTF-8, which cannot carry a lone surrogate (a reply may hold
    one; the ledger keeps it as a JSON escape). A text cell holding one is written as
    its JSON string literal with the surrogate escaped, quotes included, and the row's
    ``escaped`` column names those cells (comma-separated; empty for almost every row),
    so ``json.loads`` of a named cell gives the exact text back. JSON columns escape it
    the same way and stay JSON.
    """
    row: dict[str, Any] = {}
    escaped: list[str] = []
    for name, value in entry.items():
        if name in JSON_COLUMNS:
            value = (
                escape_surrogates(json.dumps(value, ensure_ascii=False, sort_keys=True))
                if isinstance(value, dict | list)
                else None
            )
        elif isinstance(value, str) and has_surrogate(value):
            value = escape_surrogates(json.dumps(value, ensure_ascii=False))
            escaped.append(name)
        row[name] = value
    row["ledger"] = ledger
    row["escaped"] = ",".join(escaped)
    return row


def _export(args: argparse.Namespace) -> int:
    import pandas as pd

    pool = project_pool()
    rows = [
        export_row(e, str(f)) for f in _files(_store_or(args.paths)) for e in read_entries(f, pool)
    ]
    df = pd.DataFrame(rows)
    if args.out.endswith(".csv"):
        df.to_csv(args.out, index=False)
    else:
        df.to_parquet(args.out, index=False)
    print(f"wrote {len(df)} entries to {args.out}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    found = audit(_store_or(args.paths), project_pool())
    for p in found.problems:
        print(p, file=sys.stderr)
    print(
        f"{found.checked} entries checked, {len(found.problems)} problems "
        f"({found.changed} changed answers); "
        f"{found.unverifiable} unverifiable (no response hash)"
    )
    return 1 if found.problems else 0


RUN_FIELDS = (
    "sent",
    "served",
    "sent_failed",
    "not_sent",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
)
"""The run log's counts that :func:`run_totals` adds up."""


def read_runs(path: str | Path, skipped: list[str] | None = None) -> list[dict[str, Any]]:
    """The run log's lines (:data:`prescient.llm.store.RUN_LOG`).

    A line that is not a run (:func:`prescient.jsonl.parse_json`'s failures: invalid
    UTF-8, not JSON, nested too deeply, a lone surrogate, not an object; or a count of :data:`RUN_FIELDS` that is not a number) is skipped, and named in
    ``skipped`` (``line N: why``) when a list is given; the others are read as they are.
    """
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    return runs_in(raw, skipped)


def runs_in(raw: bytes, skipped: list[str] | None = None) -> list[dict[str, Any]]:
    """The runs of run-log bytes (the whole log or a tail of it): :func:`read_runs`."""
    out: list[dict[str, Any]] = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        why = None
        try:
            obj = parse_json(line, surrogates=False, want_object=True)
        except LineError as exc:
            why = str(exc)
        else:
            bad = [
                f
                for f in RUN_FIELDS
                if obj.get(f) is not None
                and (isinstance(obj[f], bool) or not isinstance(obj[f], int | float))
            ]
            if bad:
                why = f"{', '.join(bad)} not a number"
        if why is None:
            out.append(obj)
        elif skipped is not None:
            skipped.append(f"line {number}: {why}")
    return out


def run_totals(runs: list[dict[str, Any]], by: str = "stage") -> dict[str, dict[str, Any]]:
    """Per ``by`` (a run log field: ``stage``, ``experiment``, ``ledger``): runs, and the
    sum of each of :data:`RUN_FIELDS`."""
    totals: dict[str, dict[str, Any]] = {}
    for run in runs:
        group = str(run.get(by) or "(none)")
        t = totals.setdefault(group, {"runs": 0, **dict.fromkeys(RUN_FIELDS, 0)})
        t["runs"] += 1
        for name in RUN_FIELDS:
            value = run.get(name)
            if isinstance(value, int | float):
                t[name] += value
    for t in totals.values():
        t["cost_usd"] = round(t["cost_usd"], 6)
    return dict(sorted(totals.items()))


def _runs(args: argparse.Namespace) -> int:
    from prescient.llm.store import run_log_path
    from prescient.plumbing.locations import dvc_cache_dir

    path = Path(args.log) if args.log else run_log_path(dvc_cache_dir("."))
    if path is None:
        print("not a DVC project (no .dvc here): pass --log", file=sys.stderr)
        return 2
    skipped: list[str] = []
    runs = read_runs(path, skipped)
    for line in skipped:
        print(f"{path}: {line}; skipped", file=sys.stderr)
    for run in runs[-args.last :] if args.last else []:
        experiment = f"  experiment {run['experiment']}" if run.get("experiment") else ""
        print(
            f"{run.get('finished')}  {run.get('stage')}  {run.get('ledger')}{experiment}: "
            f"sent {run.get('sent')} ({run.get('sent_failed')} failed"
            + (f", {run['not_sent']} not sent: cost ceiling" if run.get("not_sent") else "")
            + "), "
            f"served {run.get('served')}, tokens {run.get('prompt_tokens')}+"
            f"{run.get('completion_tokens')}, ${run.get('cost_usd')}  [{run.get('workspace')}]"
        )
        served = run.get("served_models")
        if isinstance(served, dict) and served:
            print("    answered by " + ", ".join(f"{k} ({v})" for k, v in served.items()))
    print(json.dumps({"log": str(path), f"by_{args.by}": run_totals(runs, args.by)}, indent=2))
    return 0


def _store_or(paths: list[str]) -> list[str]:
    """``paths``, or the project's response store when none are given."""
    if paths:
        return paths
    from prescient.llm.store import store_dir
    from prescient.plumbing.locations import dvc_cache_dir

    found = store_dir(dvc_cache_dir("."))
    if found is None:
        raise SystemExit("no ledger given and no DVC project here: name ledger files or folders")
    return [str(found)]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ledger", help="audit LLM response ledgers and the response store")
    psub = p.add_subparsers(dest="ledger_command", required=True)
    for name, func, helptext in (
        ("stats", _stats, "per-model counts, tokens, cost and failure reasons"),
        ("verify", _verify, "re-hash every entry; list damaged, forged, changed and torn lines"),
        ("export", _export, "write all entries as one CSV or Parquet table"),
    ):
        c = psub.add_parser(name, help=helptext)
        c.add_argument(
            "paths",
            nargs="*",
            help="ledger files or directories (e.g. data/llm); default: the response store",
        )
        if name == "export":
            c.add_argument("--out", required=True, help="output .csv or .parquet")
        c.set_defaults(func=func)
    c = psub.add_parser("runs", help="what each stage run sent and was served (the run log)")
    c.add_argument("--last", type=int, default=10, help="list the last N runs (0: none)")
    c.add_argument("--log", help="a run log file (default: this project's)")
    c.add_argument(
        "--by", choices=("stage", "experiment", "ledger"), default="stage", help="totals per"
    )
    c.set_defaults(func=_runs)
    c = psub.add_parser(
        "texts",
        help="add the article texts of Parquet tables (e.g. data/interim/partitions) to the "
        "response store's text pool, where ledgers pulled from a peer find their prompts' texts",
    )
    c.add_argument("paths", nargs="+", help="Parquet files or directories with a text column")
    c.set_defaults(func=_texts)


CONTEXTS = "data/interim/partitions"
"""Where the evaluation's context tables are (dvc.yaml's ``retrieve`` writes them, in
each partition's ``contexts`` directory): the texts the evaluation ledgers' lines refer
to."""


def add_table_texts(paths: list[str], root: str | Path = ".") -> tuple[TextPool, int, int]:
    """Add the texts of the Parquet tables at ``paths`` (files, or directories searched
    for the tables with a ``text`` column) to the text pool of the project at ``root``;
    returns the pool, the texts added and the tables read.

    Raises:
        SystemExit: no DVC project, a path that does not exist, a file without a
            ``text`` column.
    """
    import pyarrow.parquet as pq

    from prescient.evaluation.contexts import shown_texts

    pool = project_pool(root)
    if pool is None:
        raise SystemExit("no DVC project here: the text pool lives in its cache directory")
    files: list[Path] = []
    for p in map(Path, paths):
        if not p.exists():
            raise SystemExit(f"{p}: no such file or directory")
        if p.is_dir():
            files.extend(
                f for f in sorted(p.rglob("*.parquet")) if "text" in pq.read_schema(f).names
            )
        elif "text" not in pq.read_schema(p).names:
            raise SystemExit(f"{p}: no text column (a context table has one)")
        else:
            files.append(p)
    return pool, pool.add_texts(shown_texts(files)), len(files)


def _texts(args: argparse.Namespace) -> int:
    pool, added, tables = add_table_texts(args.paths)
    print(f"{added} texts added to {pool.path} from {tables} tables ({len(pool)} in all)")
    return 0
