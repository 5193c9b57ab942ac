"""``prescient trace`` on real stage outputs: a scratch evaluation (questions -> retrieve
-> evaluate -> score, the scripted oracle through the real gateway) where two questions
share a prompt and two settings share prompts, traced from a report cell back to every
one of its responses."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd
import pytest

from prescient.analysis.trace import cell_rows, parse_cell, trace_rows
from prescient.llm.ledger import read_entries
from prescient.plumbing import cli
from tests.fixtures.eval import construct_questions
from tests.integration.evaluation.test_evaluate_stages import (  # noqa: F401 (the fixture)
    CALLS,
    project,
    run_model,
    run_retrieve,
    run_score,
    set_eval,
)

SETTINGS = ["closed_book", "rag_dynamic", "rag_2024-03-10"]
TWIN = "q_tf_bridge_twin"
LEDGER = "data/llm/evaluate/oracle/all.jsonl"


@pytest.fixture
def evaluated(project: Path) -> Path:  # noqa: F811
    """The oracle in three settings; q_tf_bridge asked twice under two ids (the same
    question, date and gold article: the same prompt in every setting), and rag_dynamic
    and rag_2024-03-10 sharing the prompts of the questions resolved on 10 March and of
    the bridge (see test_evaluate_stages)."""
    q = construct_questions()
    twin = q.loc[q["question_id"] == "q_tf_bridge"].assign(question_id=TWIN)
    pd.concat([q, twin], ignore_index=True).to_parquet("questions.parquet")
    set_eval(models=["oracle"], settings=SETTINGS)
    assert run_retrieve() == 0
    assert run_model("oracle") == 0
    assert run_score() == 0
    return project


def _trace(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = cli.main(["trace", *args])
    return rc, capsys.readouterr().out


def test_a_cell_leads_to_exactly_its_responses_shared_prompts_included(
    evaluated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 5 + 5 + 5 rows; the twin shares the bridge's prompt in every setting (3 requests
    # saved) and rag_2024-03-10 shares 3 more with rag_dynamic (the bridge's pair, the
    # harbour, the cost): 15 - 3 - 3 = 9 prompts, each asked once.
    assert len(CALLS) == 9
    entries = list(read_entries(LEDGER))
    assert len(entries) == 9
    scores = pd.read_parquet("data/processed/scores.parquet")
    assert scores["ledger_key"].notna().all() and len(scores) == 15
    by_key = {e["key"]: e for e in entries}
    for row in scores.itertuples():
        assert by_key[row.ledger_key]["response"] == row.raw_response
    # Tags alone cannot find these: the twin's answer is tagged with the bridge's id,
    # the cutoff cell's shared answers with rag_dynamic.
    tagged = [(e["tags"]["question_id"], e["tags"]["setting"]) for e in entries]
    for setting in ("closed_book", "rag_dynamic"):
        assert sum(t in tagged for t in [("q_tf_bridge", setting), (TWIN, setting)]) == 1
    assert not any(s == "rag_2024-03-10" and q != "q_mc_merger" for q, s in tagged)

    metrics = json.loads(Path("reports/metrics/evaluate.json").read_text())["cells"]["oracle"]
    cell = metrics["rag_2024-03-10"]["all"]
    assert (cell["n_correct"], cell["n"]) == (4, 5)  # the harbour answer is a refusal

    rc, out = _trace("oracle", "rag_2024-03-10", capsys=capsys)
    assert rc == 0
    lines = out.splitlines()
    assert lines[0] == "oracle rag_2024-03-10 all: 4/5 correct (accuracy 0.8000)"
    blocks = [line for line in lines if line.startswith("== ")]
    assert [b.split()[1] for b in blocks] == [
        "q_mc_cost",
        "q_mc_merger",
        "q_tf_bridge",
        TWIN,
        "q_tf_harbour",
    ]
    assert out.count("    **Yes**") == 2 and "    I cannot predict the future." in out
    assert out.count("approve the river bridge") >= 4  # question + prompt

    # The same cell, spelt as the evaluation names it, as JSON Lines.
    rc, out = _trace("oracle", "rag_2024-03-10", "--format", "jsonl", capsys=capsys)
    assert rc == 0
    records = [json.loads(x) for x in out.splitlines()]
    assert len(records) == 5
    got = {r["question_id"]: r for r in records}
    assert got["q_tf_bridge"]["ledger_key"] == got[TWIN]["ledger_key"]
    assert len({r["ledger_key"] for r in records}) == 4
    harbour = got["q_tf_harbour"]
    assert harbour["response"] == "I cannot predict the future."
    assert harbour["refused"] and not harbour["correct"]
    assert harbour["gold_answer"] == "(b) No"
    assert got["q_mc_merger"]["parsed_answer"] == got["q_mc_merger"]["gold_answer"]
    assert got["q_mc_merger"]["parsed_answer"].startswith("(a) ")
    for r in records:
        assert r["setting"] == "rag_2024-03-10"
        assert r["question"] in r["messages"][-1]["content"]
        assert "news search" in r["messages"][-1]["content"]
        assert by_key[r["ledger_key"]]["messages"] == r["messages"]

    # A type and a month narrow the cell, as the report's per-type, per-month tables.
    rc, out = _trace("oracle", "closed_book", "--type", "TF", "--month", "2024-03", capsys=capsys)
    assert rc == 0 and out.splitlines()[0] == "oracle closed_book tf 2024-03: 2/3 correct " + (
        "(accuracy 0.6667)"
    )
    rc, out = _trace("oracle", "closed_book", "--month", "2023-03", capsys=capsys)
    assert (
        rc == 0
        and out.splitlines()[0] == "oracle closed_book all 2023-03: 0/0 correct (accuracy n/a)"
    )


def test_a_key_missing_from_the_ledger_is_an_error_naming_it(
    evaluated: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    scores = pd.read_parquet("data/processed/scores.parquet")
    gone = scores.set_index(["setting", "question_id"]).loc[("closed_book", TWIN), "ledger_key"]
    kept = [e for e in read_entries(LEDGER) if e["key"] != gone]
    Path("partial.jsonl").write_text("".join(json.dumps(e) + "\n" for e in kept))
    caplog.set_level(logging.ERROR)
    rc, out = _trace("oracle", "closed_book", "--ledger", "partial.jsonl", capsys=capsys)
    assert rc == 2 and out == ""
    assert "no entry for the ledger key of 2 rows" in caplog.text
    assert f"q_tf_bridge (key {gone})" in caplog.text and f"{TWIN} (key {gone})" in caplog.text
    # The other settings' rows do not need that entry.
    rc, _ = _trace("oracle", "rag_dynamic", "--ledger", "partial.jsonl", capsys=capsys)
    assert rc == 0

    # Another run's ledger (same prompts, other answers) is refused, not shown.
    other = [{**e, "response": "No"} for e in read_entries(LEDGER)]
    Path("other.jsonl").write_text("".join(json.dumps(e) + "\n" for e in other))
    cell = parse_cell("oracle", "closed_book")
    rows = cell_rows(scores, cell)
    questions = pd.read_parquet("data/interim/eval_questions.parquet")
    with pytest.raises(ValueError, match="holds another response than the scores"):
        trace_rows(rows, questions, "other.jsonl")
