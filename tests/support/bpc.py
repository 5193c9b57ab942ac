"""Helpers for tests of the ``bpc`` stage: a small articles table, composed params
with a scripted model, and the stage run in-process."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd
import yaml

from prescient.plumbing import params
from stages import bpc as stage
from tests.conftest import ROOT
from tests.support.llm import model_entry

DAYS = ["2024-01-05", "2024-01-20", "2024-02-11", "2024-03-03", "2024-07-30", "2024-08-02"]


def articles(path: Path, days: list[str] = DAYS) -> Path:
    """An ingested-articles table, one article per day plus one too short to score."""
    rows = []
    for k, day in enumerate(days):
        body = " ".join(["The committee met again on the matter of the harbour."] * (2 + k % 3))
        rows.append(
            {
                "article_id": f"a{k:02d}",
                "date": dt.date.fromisoformat(day),
                "title": f"Story {k}",
                "text": f"Story {k} ({day}). {body}",
                "url": f"https://news.example/{k}",
                "source_domain": "news.example",
            }
        )
    rows.append({**rows[0], "article_id": "short", "text": "Too short."})
    pd.DataFrame(rows).to_parquet(path, index=False)
    return path


def params_file(tmp: Path, *overrides: str) -> Path:
    """params.yaml composed from conf/ with the scripted model ``scripted_words`` (its
    script is registered by the tests that use it), shrunk, plus ``overrides``."""
    p = params.compose(
        ROOT,
        [
            "bpc.models=[scripted_words,gpt_4o]",
            "bpc.docs_per_bucket=2",
            "bpc.bootstrap.reps=50",
            "bpc.context_tokens=8",
            "bpc.max_text_chars=150",
            "llm.progress=false",
            *overrides,
        ],
    )
    p["models"]["scripted_words"] = model_entry(
        "scripted_words", "scripted/words", display_name="Words", release_date="2024-05-01"
    )
    path = tmp / "params.yaml"
    path.write_text(yaml.safe_dump(p))
    return path


def run(tmp: Path, out: str, articles: Path, params_file: Path) -> int:
    """The stage, in-process, writing under ``tmp/out`` and ledgers to ``tmp/ledger``."""
    o = tmp / out
    return stage.main(
        [
            "--params",
            str(params_file),
            "--articles",
            str(articles),
            "--ledger-dir",
            str(tmp / "ledger"),
            "--docs",
            str(o / "bpc_docs.parquet"),
            "--tables",
            str(o / "tables"),
            "--metrics",
            str(o / "bpc.json"),
        ]
    )


def outputs(tmp: Path, out: str) -> dict[str, bytes]:
    """Every file the stage wrote under ``tmp/out``, by name."""
    return {p.name: p.read_bytes() for p in sorted((tmp / out).rglob("*")) if p.is_file()}
