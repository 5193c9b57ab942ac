"""Benchmark: the memory a stage ledger needs to serve a large response store.

An evaluate stage at the paper's size serves and snapshots about 280,000 answers per
model whose prompts hold five retrieved articles (a line of about 12 KB). This writes a
response store of N such entries (seeded, made-up words), then, in a fresh process,
opens a stage ledger over it, serves every answer and writes the snapshot, and reports
that process's peak RSS and time. The ledger's index and the stage ledger keep where
each line is, not the line (:mod:`prescient.llm.ledger`), so the peak should stay near
the interpreter's own whatever N is.

With ``--pooled`` the prompts quote five of N / 10 shared 480-word articles, named as
quoted, in a store laid out as in DVC's cache: the store keeps each article once in its
text pool (:mod:`prescient.llm.text_pool`), and the snapshot refers to them as an
evaluation ledger does; the sizes of the store, the pool and the snapshot are reported.

    .venv/bin/python bench/bench_ledger_memory.py --entries 50000 [--pooled]
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


def articles(n: int) -> list[str]:
    """``n`` made-up articles of 480 words (seeded)."""
    rnd = random.Random(1)
    vocabulary = [f"w{i}" for i in range(5000)]
    return [
        f"a{i} " + " ".join(rnd.choice(vocabulary) for _ in range(WORDS // 5)) for i in range(n)
    ]


def write_store(path: Path, n: int, pooled: bool) -> None:
    rnd = random.Random(0)
    vocabulary = [f"w{i}" for i in range(5000)]
    shared = articles(max(n // 10, 5)) if pooled else []
    ledger = Ledger(path)
    batch: list[dict[str, object]] = []
    quoted: list[list[str]] = []
    for i in range(n):
        if pooled:
            shown = rnd.sample(shared, 5)
            content = f"q{i}\n" + "\n".join(f"Article {j}: {a}" for j, a in enumerate(shown))
            quoted.append(shown)
        else:
            content = f"q{i} " + " ".join(rnd.choice(vocabulary) for _ in range(WORDS))
            quoted.append([])
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
            ledger.append_many(batch, quoted)
            batch, quoted = [], []
    if batch:
        ledger.append_many(batch, quoted)
    ledger.close()


def serve(store: Path, snapshot: Path) -> None:
    """Serve every answer of ``store`` through a stage ledger and write its snapshot (the
    texts a pooled store's entries quote noted as an evaluation notes them)."""
    start = time.perf_counter()
    ledger = StageLedger(snapshot, store, texts=lambda: [])
    keys = list(ledger.store)
    for key in keys:
        entry = ledger.get(key)
        assert entry is not None
        content = str(entry["messages"][0]["content"])
        shown = [line.split(": ", 1)[1] for line in content.split("\n")[1:]]
        ledger.note_request(key, {}, shown)
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
    ap.add_argument("--pooled", action="store_true", help="prompts quote shared articles")
    ap.add_argument("--serve", nargs=2, metavar=("STORE", "SNAPSHOT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), Path(args.serve[1]))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        # where a project's store is: its text pool is beside it
        store = Path(tmp) / ".dvc/cache/prescient/responses/data/llm/evaluate/x.jsonl"
        snapshot = Path(tmp) / "data/llm/evaluate/x.jsonl"
        write_store(store, args.entries, args.pooled)
        pool = store.parents[4] / "texts.jsonl"
        print(
            f"store: {args.entries} entries, {store.stat().st_size / 2**20:.0f} MiB; text pool "
            f"{(pool.stat().st_size if pool.exists() else 0) / 2**20:.0f} MiB"
        )
        here = [sys.executable, __file__, "--serve", str(store), str(snapshot)]
        rc = subprocess.run(here, check=False).returncode
        print(f"snapshot: {snapshot.stat().st_size / 2**20:.0f} MiB")
        return rc


if __name__ == "__main__":
    sys.exit(main())
