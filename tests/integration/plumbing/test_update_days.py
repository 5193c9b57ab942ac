"""Daily updates on the demo corpus split into two halves: the pipeline run through the
middle day, then through the last day, with the same ledgers. Between the two, the crawl
brings late articles: copies of first-half stories, dated in the first half, that arrived
after the middle day. The first half's questions, retrievals and predictions stay
byte-identical, only the second half costs model calls, and the result equals a run
through the last day from empty ledgers on the grown corpus. The stages run in process,
with a scripted construction model and the random baseline, through the real gateway.
"""

from __future__ import annotations

import datetime as dt
import gzip
import io as stdio
import json
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from prescient.dates import parse_date
from prescient.llm.ledger import read_entries
from prescient.llm.scripted import register_script
from prescient.plumbing import params
from prescient.plumbing.update import write_release
from stages import construct, evaluate, ingest, questions, retrieve, select
from tests.conftest import ROOT
from tests.support.construct_script import script
from tests.support.llm import model_entry

SETTINGS = ("closed_book", "rag_dynamic")
MODEL = "baseline_random"
LEDGER = f"llm/evaluate/{MODEL}.jsonl"


def ledger_entries(directory: Path) -> dict[str, int]:
    """Lines per ledger file under ``directory``: outside a DVC project a ledger is its own
    append-only store, so every model call adds one."""
    return {
        str(p.relative_to(directory)): len(p.read_bytes().splitlines())
        for p in sorted(directory.rglob("*.jsonl"))
    }


def calls_made(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """Ledger entries added per ledger, non-zero only."""
    added = {name: n - before.get(name, 0) for name, n in after.items()}
    return {name: n for name, n in sorted(added.items()) if n}


def halves() -> tuple[dt.date, dt.date]:
    """The middle and the last day of the demo corpus inside the shipped construction
    window (whatever it is tuned to)."""
    p = params.compose(ROOT)
    start = parse_date(p["construct"]["date_start"]) or dt.date.min
    with gzip.open(ROOT / p["corpus"]["path"], "rt", encoding="utf-8") as fh:
        days = sorted(
            {
                d
                for line in fh
                if line.strip()
                and isinstance(obj := json.loads(line), dict)
                and (d := parse_date(obj.get("date"))) is not None
                and d >= start
            }
        )
    assert len(days) >= 4, days
    return days[len(days) // 2 - 1], days[-1]


def demo_rows() -> list[dict[str, Any]]:
    p = params.compose(ROOT)
    with gzip.open(ROOT / p["corpus"]["path"], "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def write_corpus(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
    return path


def late_copies(rows: list[dict[str, Any]], mid: dt.date, n: int = 12) -> list[dict[str, Any]]:
    """Copies of first-half stories, still dated in the first half, that arrived the day
    after the middle one: on topic for first-half questions, were they ever shown."""
    early = [r for r in rows if (d := parse_date(r.get("date"))) is not None and d <= mid]
    arrived = (mid + dt.timedelta(days=1)).isoformat()
    return [
        {
            **r,
            "url": f"https://late.example/{i}",
            "title": f"{r['title']} (updated)",
            "text": f"{r['text']} This report was updated with further detail.",
            "arrived": arrived,
        }
        for i, r in enumerate(early[-n:])
    ]


def write_params(work: Path, through: dt.date, corpus: Path) -> Path:
    p = params.compose(ROOT, [f"base.through={through.isoformat()}", "questions=daily_oracle"])
    p["corpus"]["path"] = str(corpus)
    p["corpus"]["columns"]["arrived"] = "arrived"
    name = register_script("update_construct", script)
    p["models"]["scripted_construct"] = model_entry(
        "scripted_construct", name, params={}, concurrency=4
    )
    p["construct"]["models"] = dict.fromkeys(p["construct"]["models"], "scripted_construct")
    p["questions"]["sources"]["daily_oracle"]["path"] = str(work / "questions.parquet")
    p["eval"]["models"] = [MODEL]
    p["eval"]["settings"] = list(SETTINGS)
    p["eval"]["elicitation"] = ["label"]  # one request per question and setting
    p["llm"]["progress"] = False
    work.mkdir(parents=True, exist_ok=True)
    out = work / "params.yaml"
    out.write_text(yaml.safe_dump(p))
    return out


def pipeline(work: Path, through: dt.date, corpus: Path) -> None:
    """ingest -> select -> construct -> questions -> retrieve -> evaluate, as dvc.yaml
    wires them."""
    pp = ["--params", str(write_params(work, through, corpus))]
    w = {name: str(work / name) for name in ("articles.parquet", "selected.parquet")}
    assert (
        ingest.main([*pp, "--out", w["articles.parquet"], "--metrics", str(work / "i.json")]) == 0
    )
    assert (
        select.main(
            [*pp, "--articles", w["articles.parquet"], "--out", w["selected.parquet"]]
            + ["--metrics", str(work / "s.json")]
        )
        == 0
    )
    args = [
        *pp,
        "--selected",
        w["selected.parquet"],
        "--articles",
        w["articles.parquet"],
        "--prompts",
        str(ROOT / "conf/prompts/construct"),
        "--questions",
        str(work / "questions.parquet"),
        "--candidates",
        str(work / "candidates.parquet"),
        "--ledger",
        str(work / "llm/construct.jsonl"),
        "--metrics",
        str(work / "c.json"),
    ]
    assert construct.main(args) == 0
    out = ["--out", str(work / "sources/daily_oracle.parquet")]
    assert questions.main([*pp, "--source", "daily_oracle", *out]) == 0
    args = [*pp, "--articles", w["articles.parquet"], "--questions", str(work / "sources")]
    args += ["--questions-out"]
    args += [str(work / "eval_questions.parquet"), "--retrieval", str(work / "r.parquet")]
    args += ["--partitions", str(work / "partitions"), "--metrics", str(work / "r.json")]
    assert retrieve.main(args) == 0
    part = work / "partitions/all"
    args = [*pp, "--model", MODEL, "--questions", str(part / "questions.parquet")]
    args += ["--contexts", str(part / "contexts"), "--prompts", str(ROOT / "conf/prompts/eval")]
    args += ["--out", str(work / "pred"), "--ledger", str(work / LEDGER)]
    assert evaluate.main(args) == 0


def parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = stdio.BytesIO()
    df.reset_index(drop=True).to_parquet(buf, index=False)
    return buf.getvalue()


def snapshot(work: Path) -> dict[str, Any]:
    return {
        "questions": pd.read_parquet(work / "questions.parquet"),
        "articles": pd.read_parquet(work / "articles.parquet"),
        "retrieval": pd.read_parquet(work / "r.parquet"),
        "evaluated": pd.read_parquet(work / "eval_questions.parquet"),
        **{s: pd.read_parquet(work / f"pred/{s}.parquet") for s in SETTINGS},
    }


def test_updating_through_the_last_day_pays_only_for_the_new_days(tmp_path: Path) -> None:
    mid, end = halves()
    rows = demo_rows()
    late = late_copies(rows, mid)
    before = write_corpus(tmp_path / "corpus/before.jsonl.gz", rows)
    grown = write_corpus(tmp_path / "corpus/grown.jsonl.gz", rows + late)
    work = tmp_path / "project"
    pipeline(work, mid, before)
    first = snapshot(work)
    entries_mid = ledger_entries(work / "llm")
    release_mid = write_release(work / "questions.parquet", work / "releases", mid)
    q1 = first["questions"]
    assert len(q1) > 0 and max(q1["resolution_date"]) <= mid
    assert max(first["articles"]["date"]) <= mid  # ingest respects base.through

    pipeline(work, end, grown)
    second = snapshot(work)
    q2 = second["questions"]
    assert max(q2["resolution_date"]) > mid and len(q2) > len(q1)

    # The late articles are in the corpus, known from the day they arrived.
    arts = second["articles"]
    brought = arts[arts["url"].str.startswith("https://late.example/")]
    assert len(brought) == len(late) and (brought["arrived"] > mid).all()
    assert (brought["date"] <= mid).all()

    # The first half, byte for byte: questions, retrievals and every cell's predictions.
    old = q2["resolution_date"] <= mid
    assert parquet_bytes(q2[old]) == parquet_bytes(q1)
    # the evaluated table's rows too, but for the checksum of the source file they were
    # read from (a grown file has a new one)
    e1, e2 = (t.drop(columns="source_checksum") for t in (first["evaluated"], second["evaluated"]))
    assert parquet_bytes(e2[e2["question_id"].isin(e1["question_id"])]) == parquet_bytes(e1)
    r1, r2 = first["retrieval"], second["retrieval"]
    kept = r2[r2["question_id"].isin(q1["question_id"])]
    assert len(r1) > 0 and parquet_bytes(kept) == parquet_bytes(r1)
    assert not kept["article_id"].isin(brought["article_id"]).any()
    for s in SETTINGS:
        kept = second[s][second[s]["question_id"].isin(q1["question_id"])]
        assert parquet_bytes(kept) == parquet_bytes(first[s])

    # Only the new days cost model calls: every ledger entry the update added is about
    # an article or a question of the second half.
    calls = calls_made(entries_mid, ledger_entries(work / "llm"))
    assert set(calls) == {"construct.jsonl", f"evaluate/{MODEL}.jsonl"}
    day_of_article = dict(
        zip(second["articles"]["article_id"], second["articles"]["date"], strict=True)
    )
    new_construct = list(read_entries(work / "llm/construct.jsonl"))[
        entries_mid["construct.jsonl"] :
    ]
    assert len(new_construct) == calls["construct.jsonl"]
    assert all(day_of_article[e["tags"]["article_id"]] > mid for e in new_construct)
    day_of_question = dict(zip(q2["question_id"], q2["resolution_date"], strict=True))
    new = list(read_entries(work / LEDGER))[entries_mid[f"evaluate/{MODEL}.jsonl"] :]
    assert new and all(day_of_question[e["tags"]["question_id"]] > mid for e in new)
    for s in SETTINGS:  # a prompt repeated across settings or questions costs one call
        in_setting = [e for e in new if e["tags"]["setting"] == s]
        assert 0 < len(in_setting) <= (q2["resolution_date"] > mid).sum()

    # The releases: the second names the first and adds exactly the new questions.
    release_end = write_release(work / "questions.parquet", work / "releases", end)
    assert release_mid["previous"] is None and release_mid["questions"] == len(q1)
    assert release_end == {
        **release_end,
        "previous": f"questions-{mid.isoformat()}.parquet",
        "new_questions": len(q2) - len(q1),
        "changed": 0,
        "removed": 0,
        "through": end.isoformat(),
        "last_day": max(q2["resolution_date"]).isoformat(),
    }
    assert (work / f"releases/questions-{end.isoformat()}.parquet").read_bytes() == (
        work / "questions.parquet"
    ).read_bytes()

    # Updating equals building through the last day at once, from empty ledgers.
    fresh = tmp_path / "fresh"
    pipeline(fresh, end, grown)
    again = snapshot(fresh)
    assert parquet_bytes(again["questions"]) == parquet_bytes(q2)
    # ... and the two steps together paid exactly what the one run paid: nothing twice.
    paid = {k: entries_mid.get(k, 0) + calls.get(k, 0) for k in ledger_entries(work / "llm")}
    assert paid == ledger_entries(fresh / "llm")
    for s in SETTINGS:
        assert parquet_bytes(again[s]) == parquet_bytes(second[s])
