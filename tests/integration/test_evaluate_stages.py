"""The stages retrieve -> evaluate (every cell) -> score on the fixture corpus, through the
real gateway with the scripted test provider and the baselines, in a scratch project."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from prescient import params
from prescient.evaluation.settings import cell_name, parse_setting
from prescient.llm.providers import register_script
from stages import evaluate as evaluate_stage
from stages import retrieve as retrieve_stage
from stages import score as score_stage
from tests.conftest import ROOT
from tests.fixtures.eval import articles, construct_questions
from tests.support.llm import model_entry

SETTINGS = ["closed_book", "gold", "rag_dynamic", "rag_2024-03-06"]
MODELS = ["oracle", "baseline_always_yes", "baseline_random"]
# The scripted "oracle": right answers in assorted formats, one refusal, counting calls.
ANSWERS = {
    "approve the river bridge": "**Yes**",
    "fully repaired": "I cannot predict the future.",
    "bakery will merge": "Answer: (a) Dalby",
    "How much will repairing": "2 million",
}
CALLS: list[str] = []


def oracle(messages: Sequence[Mapping[str, str]], _params: Mapping[str, Any]) -> str:
    text = messages[-1]["content"]
    CALLS.append(text)
    return next(a for k, a in ANSWERS.items() if k in text)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch project: the shipped params with the fixture data and a scripted model."""
    CALLS.clear()
    p = params.compose(ROOT)
    p["questions"]["path"] = "questions.parquet"
    p["eval"]["models"] = MODELS
    p["eval"]["settings"] = SETTINGS
    p["models"]["oracle"] = model_entry(
        "oracle",
        register_script("eval_oracle", oracle),
        params={"temperature": 0.0, "max_tokens": 16},
        concurrency=2,
    )
    p["llm"]["progress"] = False
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(p))
    articles().to_parquet(tmp_path / "articles.parquet")
    construct_questions().to_parquet(tmp_path / "questions.parquet")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_retrieve() -> int:
    return retrieve_stage.main(
        [
            "--articles",
            "articles.parquet",
            "--questions-out",
            "data/interim/eval_questions.parquet",
            "--retrieval",
            "data/interim/retrieval.parquet",
            "--contexts",
            "data/interim/contexts",
            "--metrics",
            "reports/metrics/retrieve.json",
        ]
    )


def run_score() -> int:
    return score_stage.main(
        [
            "--questions",
            "data/interim/eval_questions.parquet",
            "--predictions",
            "data/processed/predictions",
            "--out",
            "data/processed/scores.parquet",
            "--metrics",
            "reports/metrics/evaluate.json",
        ]
    )


def run_cell(model: str, setting: str) -> int:
    name = f"{model}-{setting}"  # cell_name(model, parse_setting(setting)) for valid ones
    return evaluate_stage.main(
        [
            "--model",
            model,
            "--setting",
            setting,
            "--questions",
            "data/interim/eval_questions.parquet",
            "--contexts",
            f"data/interim/contexts/{setting}.parquet",
            "--prompts",
            str(ROOT / "conf" / "prompts" / "eval"),
            "--out",
            f"data/processed/predictions/{name}.parquet",
            "--ledger",
            f"data/llm/evaluate/{name}.jsonl",
        ]
    )


def test_retrieve_evaluate_score(project: Path) -> None:
    assert run_retrieve() == 0
    retrieval = pd.read_parquet("data/interim/retrieval.parquet")
    questions = pd.read_parquet("data/interim/eval_questions.parquet")
    res = questions.set_index("question_id")["resolution_date"]
    gold = questions.set_index("question_id")["article_id"]
    # Never the future, never the gold article; the window is the documented one.
    assert (retrieval["article_date"] < retrieval["question_id"].map(res)).all()
    assert (retrieval["article_id"] != retrieval["question_id"].map(gold)).all()
    dyn = retrieval.loc[retrieval["rag_cutoff"] == "dynamic"]
    assert set(dyn.loc[dyn["question_id"] == "q_tf_bridge", "window_end"]) == {dt.date(2024, 3, 11)}
    bridge = set(dyn.loc[dyn["question_id"] == "q_tf_bridge", "article_id"])
    # a10 (11 March, the eve of the vote) is the most relevant article but lies on the
    # day before resolution, outside the window; a07 (9 March) is inside.
    assert "a10" not in bridge and {"a01", "a04", "a07"} <= bridge
    cut = retrieval.loc[retrieval["rag_cutoff"] == "2024-03-06"]
    assert cut["article_date"].max() <= dt.date(2024, 3, 5)
    assert retrieval.groupby(["question_id", "rag_cutoff"]).size().max() == 5
    top = dyn.loc[(dyn["question_id"] == "q_mc_cost") & (dyn["rank"] == 1), "article_id"]
    assert top.tolist() == ["a05"]  # the storm damage report; a08 (gold, same day) is hidden

    contexts = {s: pd.read_parquet(f"data/interim/contexts/{s}.parquet") for s in SETTINGS}
    assert contexts["closed_book"].empty
    assert contexts["gold"].set_index("question_id")["article_id"].to_dict() == gold.to_dict()
    assert (
        contexts["rag_dynamic"]["article_id"].tolist()
        == dyn.sort_values(["question_id", "rank"])["article_id"].tolist()
    )
    metrics = json.loads(Path("reports/metrics/retrieve.json").read_text())
    assert metrics["leakage_violations"] == 0 and metrics["questions"]["n"] == 4

    for model in MODELS:
        for setting in SETTINGS:
            assert run_cell(model, setting) == 0
    assert len(CALLS) == 4 * len(SETTINGS)
    gold_prompt = next(c for c in CALLS if "approve the river bridge" in c and "may help you" in c)
    assert "five votes to two" in gold_prompt  # the gold article's text is in the gold prompt
    rag_prompts = [c for c in CALLS if "news search" in c]
    assert len(rag_prompts) == 8 and all("five votes to two" not in c for c in rag_prompts)
    assert all(re.search(r"^Article 1 \(published 2024-03-\d\d\): ", c, re.M) for c in rag_prompts)

    pred = pd.read_parquet("data/processed/predictions/oracle-rag_2024-03-06.parquet")
    assert list(pred.columns[:8]) == [
        "model",
        "setting",
        "rag_cutoff",
        "question_id",
        "qtype",
        "resolution_date",
        "raw_response",
        "error",
    ]
    assert set(pred["setting"]) == {"rag"} and set(pred["rag_cutoff"]) == {"2024-03-06"}
    assert pred["error"].isna().all()
    closed = pd.read_parquet("data/processed/predictions/oracle-closed_book.parquet")
    assert closed["rag_cutoff"].isna().all() and set(closed["setting"]) == {"closed_book"}

    # A rerun of a cell answers from the ledger: no model call.
    assert run_cell("oracle", "gold") == 0
    assert len(CALLS) == 4 * len(SETTINGS)

    assert run_score() == 0
    scores = pd.read_parquet("data/processed/scores.parquet")
    assert len(scores) == len(MODELS) * len(SETTINGS) * 4
    m = json.loads(Path("reports/metrics/evaluate.json").read_text())["cells"]
    for cell in ("closed_book", "gold", "rag@dynamic", "rag@2024-03-06"):
        oracle_all = m["oracle"][cell]["all"]
        assert (oracle_all["accuracy"], oracle_all["refusal_rate"]) == (0.75, 0.25)
        assert oracle_all["accuracy_excl_refusals"] == 1.0
        # Always-yes: Yes on TF (right on the bridge, wrong on the harbour), (a) on MC
        # (right on the merger, wrong on the cost).
        yes = m["baseline_always_yes"][cell]
        assert (yes["tf"]["accuracy"], yes["mc"]["accuracy"], yes["all"]["accuracy"]) == (
            0.5,
            0.5,
            0.5,
        )
        assert m["baseline_random"][cell]["all"]["parse_failure_rate"] == 0.0
    refused = scores.loc[scores["refused"], ["model", "question_id"]].drop_duplicates()
    assert refused.values.tolist() == [["oracle", "q_tf_harbour"]]


def test_a_question_without_gold_article_is_an_error_not_a_closed_book_answer(
    project: Path,
) -> None:
    q = construct_questions()
    q.loc[0, "article_id"] = "not-in-corpus"
    q.to_parquet("questions.parquet")
    assert run_retrieve() == 0
    assert run_cell("baseline_always_yes", "gold") == 0
    pred = pd.read_parquet("data/processed/predictions/baseline_always_yes-gold.parquet")
    bad = pred.set_index("question_id").loc["q_tf_bridge"]
    assert bad["error"].startswith("no gold article") and pd.isna(bad["raw_response"])
    assert pred["error"].notna().sum() == 1


def test_bad_configuration_stops_with_exit_code_2(project: Path) -> None:
    assert run_retrieve() == 0
    assert run_cell("no_such_model", "closed_book") == 2
    assert run_cell("oracle", "rag_last_week") == 2
    assert cell_name("oracle", parse_setting("rag_2024-03-06")) == "oracle-rag_2024-03-06"
    p = yaml.safe_load(Path("params.yaml").read_text())
    p["questions"]["columns"]["question"] = "missing_column"
    Path("params.yaml").write_text(yaml.safe_dump(p))
    assert run_retrieve() == 2


@pytest.mark.parametrize(
    ("path", "value", "name"),
    [
        (("retrieval", "gap_days"), -1, "retrieval.gap_days: must be 0 or more"),
        (("retrieval", "tokenizer", "pattern"), "[a-z", "retrieval.tokenizer.pattern: not a"),
        (("retrieval", "max_words"), "eight hundred", "retrieval.max_words: "),
        (("questions", "max_questions"), "eight hundred", "questions.max_questions: "),
        (("eval", "settings"), ["gold", "rag_soon"], "eval.settings: unknown evaluation"),
    ],
)
def test_a_bad_parameter_stops_retrieve_with_one_line_naming_it(
    project: Path,
    caplog: pytest.LogCaptureFixture,
    path: tuple[str, ...],
    value: Any,
    name: str,
) -> None:
    p = yaml.safe_load(Path("params.yaml").read_text())
    node = p
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    Path("params.yaml").write_text(yaml.safe_dump(p))
    caplog.set_level(logging.ERROR)
    assert run_retrieve() == 2
    (error,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    message = error.getMessage()
    assert message.startswith(name) and "\n" not in message and error.exc_info is None
    assert not Path("data/interim/retrieval.parquet").exists()
    if path[0] == "eval":
        assert run_score() == 2
