"""Benchmark: the memory a stage ledger needs to serve a large response store.

An evaluate stage at the paper's size serves and snapshots about 280,000 answers per
model whose prompts hold five retrieved articles (a line of about 12 KB). This writes a
response store of N such entries (seeded, made-up words), then, in a fresh process,
opens a stage ledger over it, serves every answer and writes the snapshot, and reports
that process's peak RSS and time. The ledger's index and the stage ledger keep where
each line is, not the line (:mod:`prescient.llm.ledger`), so the peak should stay near
the interpreter's own whatever N is.

    .venv/bin/python bench/bench_ledger_memory.py --entries 50000
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prescient.llm.ledger import Ledger, request_key  # noqa: E402
from prescient.llm.store import StageLedger  # noqa: E402

WORDS = 2400
"""Words per prompt: about 12 KB, a RAG prompt of five 512-word articles."""


def write_store(path: Path, n: int) -> None:
    rnd = random.Random(0)
    vocabulary = [f"w{i}" for i in range(5000)]
    ledger = Ledger(path)
    batch: list[dict[str, object]] = []
    for i in range(n):
        content = f"q{i} " + " ".join(rnd.choice(vocabulary) for _ in range(WORDS))
        messages = [{"role": "user", "content": content}]
        batch.append(
            {
                "key": request_key("openai/x", messages, {}),
                "model": "x",
                "litellm_model": "openai/x",
                "messages": messages,
                "params": {},
                "response": "Yes",
                "error": None,
                "tags": {"i": i},
            }
        )
        if len(batch) == 1000:
            ledger.append_many(batch)
            batch = []
    if batch:
        ledger.append_many(batch)
    ledger.close()


def serve(store: Path, snapshot: Path) -> None:
    """Serve every answer of ``store`` through a stage ledger and write its snapshot."""
    start = time.perf_counter()
    ledger = StageLedger(snapshot, store)
    keys = list(ledger.store)
    for key in keys:
        ledger.get(key)
    n = ledger.write_snapshot()
    ledger.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{n} answers served and snapshotted in {time.perf_counter() - start:.1f} s; "
        f"peak RSS {peak:.0f} MiB"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=50_000)
    ap.add_argument("--serve", nargs=2, metavar=("STORE", "SNAPSHOT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), Path(args.serve[1]))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        store, snapshot = Path(tmp) / "store.jsonl", Path(tmp) / "snapshot.jsonl"
        write_store(store, args.entries)
        print(f"store: {args.entries} entries, {store.stat().st_size / 2**20:.0f} MiB")
        here = [sys.executable, __file__, "--serve", str(store), str(snapshot)]
        return subprocess.run(here, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
