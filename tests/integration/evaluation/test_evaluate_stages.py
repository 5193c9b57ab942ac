"""The stages questions -> retrieve -> evaluate (every model) -> score on the fixture corpus,
through the real gateway with the scripted test provider and the baselines, in a scratch
project: Daily Oracle's own table, an imported file with forecast dates and gold URLs,
several sources together, and per-model samples."""

from __future__ import annotations

import datetime as dt
import json
import logging
import math
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from prescient.llm.failures import FAILED_CALLS_EXIT
from prescient.llm.ledger import read_entries
from prescient.llm.scripted import register_answer_script, register_script
from prescient.llm.text_pool import TextPool
from prescient.plumbing import params
from prescient.plumbing.cli import main as cli_main
from prescient.plumbing.llm_cli import verify
from stages import evaluate as evaluate_stage
from stages import questions as questions_stage
from stages import retrieve as retrieve_stage
from stages import score as score_stage
from tests.conftest import ROOT
from tests.fixtures.eval import articles, construct_questions
from tests.support.fake_batches import FakeBatches
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
FAILING: set[str] = set()  # the oracle fails on prompts holding one of these


def oracle(messages: Sequence[Mapping[str, str]], _params: Mapping[str, Any]) -> str:
    text = messages[-1]["content"]
    CALLS.append(text)
    if any(word in text for word in FAILING):
        raise RuntimeError("scripted outage")
    return next(a for k, a in ANSWERS.items() if k in text)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch project: the shipped params with the fixture data and a scripted model."""
    CALLS.clear()
    FAILING.clear()
    # Daily Oracle's questions alone, and the paper's five articles per question (the
    # retrieval values below were worked out for five; the demo shows three).
    p = params.compose(ROOT, ["questions=daily_oracle", "retrieval.top_k=5"])
    p["questions"]["sources"]["daily_oracle"]["path"] = "questions.parquet"
    p["eval"]["models"] = MODELS
    p["eval"]["settings"] = SETTINGS
    p["eval"]["elicitation"] = ["label"]  # the papers' grid; every elicitation: below
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
    """Stage questions for every configured source, then retrieve (as dvc repro would)."""
    sources = yaml.safe_load(Path("params.yaml").read_text())["questions"]["sources"]
    for name in sources:
        out = f"data/interim/questions/{name}.parquet"
        rc = questions_stage.main(["--source", name, "--out", out])
        if rc:
            return rc
    return retrieve_stage.main(
        [
            "--articles",
            "articles.parquet",
            "--questions",
            "data/interim/questions",
            "--questions-out",
            "data/interim/eval_questions.parquet",
            "--retrieval",
            "data/interim/retrieval.parquet",
            "--partitions",
            "data/interim/partitions",
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


def run_model(model: str) -> int:
    """The model's evaluate stage (every setting of eval.settings), as dvc.yaml runs it."""
    return evaluate_stage.main(
        [
            "--model",
            model,
            "--questions",
            "data/interim/eval_questions.parquet",
            "--contexts",
            "data/interim/partitions/all/contexts",
            "--prompts",
            str(ROOT / "conf" / "prompts" / "eval"),
            "--out",
            f"data/processed/predictions/{model}/all",
            "--ledger",
            f"data/llm/evaluate/{model}/all.jsonl",
        ]
    )


def set_eval(**values: Any) -> None:
    p = yaml.safe_load(Path("params.yaml").read_text())
    p["eval"].update(values)
    Path("params.yaml").write_text(yaml.safe_dump(p))


def test_retrieve_evaluate_score(project: Path) -> None:
    assert run_retrieve() == 0
    retrieval = pd.read_parquet("data/interim/retrieval.parquet")
    questions = pd.read_parquet("data/interim/eval_questions.parquet")
    res = questions.set_index("question_id")["resolution_date"]
    gold = questions.set_index("question_id")["article_id"]
    # Never the future, hence never the gold article (dated on the resolution day); the
    # window is the documented one.
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

    contexts = {
        s: pd.read_parquet(f"data/interim/partitions/all/contexts/{s}.parquet") for s in SETTINGS
    }
    assert contexts["closed_book"].empty
    assert contexts["gold"].set_index("question_id")["article_id"].to_dict() == gold.to_dict()
    assert (
        contexts["rag_dynamic"]["article_id"].tolist()
        == dyn.sort_values(["question_id", "rank"])["article_id"].tolist()
    )
    metrics = json.loads(Path("reports/metrics/retrieve.json").read_text())
    assert metrics["leakage_violations"] == 0 and metrics["questions"]["n"] == 4
    assert metrics["sources"]["daily_oracle"]["n"] == 4
    assert metrics["gold"]["daily_oracle"]["article_id_in_corpus"] == 4
    assert metrics["visibility"] == {
        "rule": "[corpus start, min(resolution date - 1 day(s), RAG cutoff, forecast date))",
        "gap_days": 1,
        "questions_with_forecast_date": 0,
        "forecast_date_ends_window": 0,
        # Each gold article is dated on its question's resolution day, past the window.
        "exclude_gold": False,
        "gold_visible": 0,
        "gold_retrieved": 0,
    }

    for model in MODELS:
        assert run_model(model) == 0
    assert len(CALLS) == 4 * len(SETTINGS)  # no two settings share a prompt here
    gold_prompt = next(c for c in CALLS if "approve the river bridge" in c and "may help you" in c)
    assert "five votes to two" in gold_prompt  # the gold article's text is in the gold prompt
    rag_prompts = [c for c in CALLS if "news search" in c]
    assert len(rag_prompts) == 8 and all("five votes to two" not in c for c in rag_prompts)
    assert all(re.search(r"^Article 1 \(published 2024-03-\d\d\): ", c, re.M) for c in rag_prompts)

    for model in MODELS:
        files = sorted(p.name for p in Path(f"data/processed/predictions/{model}/all").iterdir())
        assert files == sorted(f"{s}.parquet" for s in SETTINGS)
    pred = pd.read_parquet("data/processed/predictions/oracle/all/rag_2024-03-06.parquet")
    assert list(pred.columns[:9]) == [
        "model",
        "elicitation",
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
    closed = pd.read_parquet("data/processed/predictions/oracle/all/closed_book.parquet")
    assert closed["rag_cutoff"].isna().all() and set(closed["setting"]) == {"closed_book"}

    # A rerun answers from the ledger: no model call, the same predictions.
    before = {
        s: pd.read_parquet(f"data/processed/predictions/oracle/all/{s}.parquet") for s in SETTINGS
    }
    assert run_model("oracle") == 0
    assert len(CALLS) == 4 * len(SETTINGS)
    for setting, frame in before.items():
        again = pd.read_parquet(f"data/processed/predictions/oracle/all/{setting}.parquet")
        pd.testing.assert_frame_equal(again, frame)

    assert run_score() == 0
    scores = pd.read_parquet("data/processed/scores.parquet")
    assert len(scores) == len(MODELS) * len(SETTINGS) * 4
    assert set(scores["source"]) == {"daily_oracle"} and scores["forecast_date"].isna().all()
    m = json.loads(Path("reports/metrics/evaluate.json").read_text())["cells"]
    for cell in ("closed_book", "gold", "rag_dynamic", "rag_2024-03-06"):
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


def test_the_response_store_keeps_each_shown_article_once(project: Path) -> None:
    # A DVC project (its cache holds the store), and articles long enough to pool.
    (project / ".dvc").mkdir()
    (project / ".dvc" / "config").write_text("[core]\n    analytics = false\n")
    long = articles()
    long["text"] = [f"{t} " * 4 for t in long["text"]]
    long.to_parquet("articles.parquet")
    assert run_retrieve() == 0
    assert run_model("oracle") == 0
    shown = set()
    for setting in ("gold", "rag_dynamic", "rag_2024-03-06"):
        shown |= set(
            pd.read_parquet(f"data/interim/partitions/all/contexts/{setting}.parquet")["text"]
        )
    store = project / ".dvc/cache/prescient/responses/data/llm/evaluate/oracle/all.jsonl"
    pool = project / ".dvc/cache/prescient/texts.jsonl"
    texts = [json.loads(line)["text"] for line in pool.read_text().splitlines()]
    # every article shown is in the pool, once; no store line holds one
    assert sorted(texts) == sorted(shown) and len(shown) > 5
    raw = store.read_text()
    written = [json.dumps(t, ensure_ascii=False)[1:-1] for t in shown]  # as a line holds it
    assert raw.count('"pooled":[[') == 12 and not any(w in raw for w in written)
    # the stage's ledger refers to them too, and reads back as the store's entries
    snapshot_path = Path("data/llm/evaluate/oracle/all.jsonl")
    snapshot = snapshot_path.read_bytes()
    assert snapshot.count(b'"pooled":[[') == 12
    assert not any(w.encode() in snapshot for w in written)
    pool_of = TextPool(pool)
    entries = list(read_entries(snapshot_path, pool_of))
    assert [e["messages"] for e in entries] == [
        e["messages"] for e in sorted(read_entries(store), key=lambda e: e["key"])
    ]
    assert verify([str(snapshot_path)], pool_of) == (16, [])
    # a rerun is answered from the store and writes the same snapshot
    calls = len(CALLS)
    snapshot_path.unlink()
    assert run_model("oracle") == 0
    assert len(CALLS) == calls and snapshot_path.read_bytes() == snapshot
    # A clone that pulled the ledger has no store and no pool: the stage finds the
    # texts in the contexts, asks nothing, and writes the same bytes.
    shutil.rmtree(project / ".dvc/cache")
    checked, problems = verify([str(snapshot_path)], TextPool(pool))
    assert checked == 4 and len(problems) == 12  # closed-book lines quote nothing
    assert "ledger texts data/interim/partitions" in problems[0]
    assert run_model("oracle") == 0
    assert len(CALLS) == calls and snapshot_path.read_bytes() == snapshot
    assert verify([str(snapshot_path)], TextPool(pool)) == (16, [])
    # ... and `ledger texts` fills the pool for the audit without running the stage
    shutil.rmtree(project / ".dvc/cache")
    assert cli_main(["ledger", "texts", "data/interim/partitions/all/contexts"]) == 0
    assert verify([str(snapshot_path)], TextPool(pool)) == (16, [])


def test_a_question_without_gold_article_is_an_error_not_a_closed_book_answer(
    project: Path,
) -> None:
    q = construct_questions()
    q.loc[0, "article_id"] = "not-in-corpus"
    q.to_parquet("questions.parquet")
    assert run_retrieve() == 0
    assert run_model("baseline_always_yes") == 0
    pred = pd.read_parquet("data/processed/predictions/baseline_always_yes/all/gold.parquet")
    bad = pred.set_index("question_id").loc["q_tf_bridge"]
    assert bad["error"].startswith("no gold article") and pd.isna(bad["raw_response"])
    assert pred["error"].notna().sum() == 1


# Resolved on 10 March, q_tf_harbour and q_mc_cost see the articles before 9 March under
# both settings (the cutoff 10 March lies after their window's end), so their prompts are
# the same. q_tf_bridge and q_mc_merger (12 March) see the articles of 10 March only under
# rag_dynamic: one of them, a09 (the bakery merger's terms), is among the merger
# question's top five, while the bridge question's top five are older under both.
SHARING = ["rag_dynamic", "rag_2024-03-10"]
SHARED = ["q_mc_cost", "q_tf_bridge", "q_tf_harbour"]


def _context_ids(setting: str) -> dict[str, list[str]]:
    table = pd.read_parquet(f"data/interim/partitions/all/contexts/{setting}.parquet")
    return table.sort_values("rank").groupby("question_id")["article_id"].agg(list).to_dict()


def test_settings_sharing_prompts_ask_each_distinct_prompt_once(project: Path) -> None:
    set_eval(models=["oracle"], settings=SHARING)
    assert run_retrieve() == 0
    dynamic, cutoff = (_context_ids(s) for s in SHARING)
    assert sorted(q for q in dynamic if dynamic[q] == cutoff[q]) == SHARED
    assert run_model("oracle") == 0
    # 4 + 4 requests, 3 of them the same: 5 prompts, each asked once.
    assert len(CALLS) == 5 and len(set(CALLS)) == 5
    assert sum("bakery will merge" in c for c in CALLS) == 2
    ids = ["q_mc_cost", "q_mc_merger", "q_tf_bridge", "q_tf_harbour"]
    pred = {
        s: pd.read_parquet(f"data/processed/predictions/oracle/all/{s}.parquet") for s in SHARING
    }
    for setting, label in zip(SHARING, ["dynamic", "2024-03-10"], strict=True):
        frame = pred[setting]
        assert sorted(frame["question_id"]) == ids and frame["error"].isna().all()
        assert set(frame["setting"]) == {"rag"} and set(frame["rag_cutoff"]) == {label}
    answers = {s: f.set_index("question_id")["raw_response"].to_dict() for s, f in pred.items()}
    expected = {
        "q_tf_bridge": "**Yes**",
        "q_tf_harbour": "I cannot predict the future.",
        "q_mc_merger": "Answer: (a) Dalby",
        "q_mc_cost": "2 million",
    }
    assert answers == {"rag_dynamic": expected, "rag_2024-03-10": expected}
    entries = list(read_entries("data/llm/evaluate/oracle/all.jsonl"))
    assert len(entries) == 5 and len({e["key"] for e in entries}) == 5
    # The shared requests were paid under the first setting, and say so.
    tags = sorted((e["tags"]["question_id"], e["tags"]["setting"]) for e in entries)
    assert tags == [
        ("q_mc_cost", "rag_dynamic"),
        ("q_mc_merger", "rag_2024-03-10"),
        ("q_mc_merger", "rag_dynamic"),
        ("q_tf_bridge", "rag_dynamic"),
        ("q_tf_harbour", "rag_dynamic"),
    ]


def plan_model(model: str, out: Path) -> dict[str, Any]:
    """The model's evaluate stage with --plan (as `prescient plan` runs it)."""
    argv = [
        "--model", model,
        "--questions", "data/interim/eval_questions.parquet",
        "--contexts", "data/interim/partitions/all/contexts",
        "--prompts", str(ROOT / "conf" / "prompts" / "eval"),
        "--out", f"data/processed/predictions/{model}/all",
        "--ledger", f"data/llm/evaluate/{model}/all.jsonl",
        "--plan", str(out),
    ]  # fmt: skip
    assert evaluate_stage.main(argv) == 0
    plan: dict[str, Any] = json.loads(out.read_text())
    return plan


def test_the_plan_counts_what_the_run_then_sends(project: Path) -> None:
    set_eval(models=["oracle"], settings=SHARING)
    assert run_retrieve() == 0
    before = plan_model("oracle", project / "plan.json")
    # planning sends nothing, writes no predictions and records no answer
    assert CALLS == [] and not Path("data/processed/predictions/oracle/all").exists()
    assert list(read_entries("data/llm/evaluate/oracle/all.jsonl")) == []
    assert run_model("oracle") == 0
    # 4 + 4 requests, 3 shared between the settings: 5 sent, as planned
    assert (before["requests"], before["answered"], before["repeated"]) == (8, 0, 3)
    assert before["to_send"] == len(CALLS) == 5
    assert before["prompt_tokens"] > 0 and before["max_completion_tokens"] == 5 * 16
    after = plan_model("oracle", project / "again.json")
    assert (after["requests"], after["answered"], after["repeated"], after["to_send"]) == (
        8,
        5,
        3,
        0,
    )
    # a new elicitation: only its requests are new
    set_eval(elicitation=["label", "verbal_probability"])
    more = plan_model("oracle", project / "more.json")
    CALLS.clear()
    assert run_model("oracle") == 0
    assert more["to_send"] == len(CALLS) == 5 and more["answered"] == 5


def top_tokens(messages: list[dict[str, Any]]) -> list[tuple[str, float, list[tuple[str, float]]]]:
    """The fake batch server's top tokens: (b) over (a) for options, Yes over No else."""
    if "(a)" in messages[-1]["content"]:
        return [("(b", -0.4, [("(b", -0.4), ("(a", -1.5)])]
    return [("Yes", -0.2, [("Yes", -0.2), ("No", -1.8)])]


def test_a_batch_model_sends_every_cell_in_jobs_submitted_together(project: Path) -> None:
    set_eval(models=["bm"], settings=SHARING, elicitation=["label", "token_logprobs"])
    assert run_retrieve() == 0
    with FakeBatches(answer=lambda m: oracle(m, {}), chat_logprobs=top_tokens, hold=3) as s:
        p = yaml.safe_load(Path("params.yaml").read_text())
        p["models"]["bm"] = model_entry(
            "bm",
            "openai/bm",
            api_base=s.url,
            batch=True,
            params={"temperature": 0.0, "max_tokens": 16},
            price={"prompt_usd_per_mtok": 0.0, "completion_usd_per_mtok": 0.0},
        )
        p["llm"].update(batch_poll_s=0.01, batch_max_requests=3, batch_max_in_flight=3)
        Path("params.yaml").write_text(yaml.safe_dump(p))
        plan = plan_model("bm", project / "plan.json")
        assert s.created == 0, "planning submits nothing"
        assert run_model("bm") == 0
        # 2 settings x 4 questions x 2 elicitations: 10 distinct requests (3 label and 3
        # token prompts shared by the settings), cut into 4 jobs, 3 of them out at once
        assert (s.created, s.open_peak) == (4, 3)
        assert (plan["to_send"], plan["batched"], plan["batch_jobs"]) == (10, 10, 4)
        assert plan["batch_in_flight"] == 3
        lines = [
            json.loads(x)
            for b in s.batches.values()
            for x in s.files[b["input_file_id"]].decode().splitlines()
        ]
        assert len(lines) == 10 and sum(bool(x["body"].get("logprobs")) for x in lines) == 5
        assert run_model("bm") == 0 and s.created == 4, "the rerun is served from the ledger"
    for setting in SHARING:
        frame = pd.read_parquet(f"data/processed/predictions/bm/all/{setting}.parquet")
        assert len(frame) == 8 and frame["error"].isna().all()
        assert set(frame["served_model"]) == {"bm"}
        assert set(frame["litellm_model"]) == {"openai/bm"}
        tokens = frame[frame["elicitation"] == "token_logprobs"].set_index("question_id")
        merger = json.loads(tokens.at["q_mc_merger", "raw_response"])
        assert merger["method"] == "top_logprobs" and merger["logprobs"][:2] == [-1.5, -0.4]
        label = frame[frame["elicitation"] == "label"].set_index("question_id")
        assert label.at["q_tf_bridge", "raw_response"] == "**Yes**"


def test_an_expensive_elicitation_is_asked_of_a_nested_sample(project: Path) -> None:
    set_eval(
        models=["oracle"],
        settings=SHARING,
        elicitation=["label", "scratchpad"],
        elicitation_max_questions={"scratchpad": 2},
    )
    assert run_retrieve() == 0
    assert run_model("oracle") == 0
    for setting in SHARING:
        frame = pd.read_parquet(f"data/processed/predictions/oracle/all/{setting}.parquet")
        label = frame.loc[frame["elicitation"] == "label", "question_id"].tolist()
        reasoned = frame.loc[frame["elicitation"] == "scratchpad", "question_id"].tolist()
        assert len(label) == 4 and len(reasoned) == 2
        # the first two of the sample order: the same two in every setting
        order = pd.read_parquet("data/interim/eval_questions.parquet")
        first = order.sort_values("sample_key", kind="stable")["question_id"].tolist()[:2]
        assert sorted(reasoned) == sorted(first)
    asked = [c for c in CALLS if "Final forecast:" in c]
    assert len(asked) == len({c for c in asked}) <= 4  # shared prompts asked once


def test_a_failed_request_two_settings_share_is_sent_once_and_the_model_fails(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    set_eval(models=["oracle"], settings=["closed_book", *SHARING])
    assert run_retrieve() == 0
    set_eval(settings=["closed_book"])
    assert run_model("oracle") == 0 and len(CALLS) == 4
    out = Path("data/processed/predictions/oracle/all")
    assert sorted(p.name for p in out.iterdir()) == ["closed_book.parquet"]

    # A cutoff is added during an outage on the harbour question: closed_book comes from
    # the ledger, the five RAG prompts are asked once each, the failing one included.
    set_eval(settings=["closed_book", *SHARING])
    FAILING.add("fully repaired")
    caplog.set_level(logging.INFO)
    assert run_model("oracle") == FAILED_CALLS_EXIT
    new = CALLS[4:]
    assert len(new) == 5 and len(set(new)) == 5
    assert sum("fully repaired" in c for c in new) == 1
    assert "evaluate oracle: 2 of 12 model calls failed" in caplog.text
    assert not out.exists()  # no earlier predictions look current
    entries = list(read_entries("data/llm/evaluate/oracle/all.jsonl"))
    assert len(entries) == 9 and sum(e["error"] is not None for e in entries) == 1

    # The outage is over: the rerun pays for the failure only.
    FAILING.clear()
    assert run_model("oracle") == 0
    assert len(CALLS) == 10 and "fully repaired" in CALLS[-1] and "news search" in CALLS[-1]
    for setting in SHARING:
        frame = pd.read_parquet(out / f"{setting}.parquet").set_index("question_id")
        assert frame["error"].isna().all() and len(frame) == 4
        assert frame.loc["q_tf_harbour", "raw_response"] == "I cannot predict the future."


def test_score_names_missing_predictions_and_the_stage_that_writes_them(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    set_eval(models=["oracle", "baseline_always_yes"], settings=["closed_book", "gold"])
    assert run_retrieve() == 0
    assert run_model("oracle") == 0
    caplog.set_level(logging.ERROR)
    assert run_score() == 2
    (error,) = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert "data/processed/predictions/baseline_always_yes/all/closed_book.parquet" in error
    assert "data/processed/predictions/baseline_always_yes/all/gold.parquet" in error
    assert "oracle" not in error and error.endswith("(dvc repro evaluate@baseline_always_yes-all)")
    assert not Path("data/processed/scores.parquet").exists()


def test_bad_configuration_stops_with_exit_code_2(project: Path) -> None:
    assert run_retrieve() == 0
    assert run_model("no_such_model") == 2
    set_eval(settings=["closed_book", "rag_2024-03-08"])  # a cutoff retrieve has not run
    assert run_model("oracle") == 2
    set_eval(settings=["closed_book", "rag_last_week"])
    assert run_model("oracle") == 2
    assert not CALLS and not Path("data/processed/predictions").exists()
    p = yaml.safe_load(Path("params.yaml").read_text())
    p["questions"]["sources"]["daily_oracle"]["columns"]["question"] = "missing_column"
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


IMPORT_CSV = """id,text,outcome,opened,closed,link,topic
m1,Will the Harwick council approve the river bridge?,1,2024-03-04,2024-03-12,http://www.harwick-ledger.example/a11/?utm_source=feed,Politics
m2,Will the Harwick harbour piers be repaired soon?,0,2024-03-07,2024-03-10,https://harwick-ledger.example/a08#top,Environment
m3,Will the bakery merger be approved by regulators?,1,2024-03-12,2024-03-12,https://harwick-ledger.example/missing,Business
"""
IMPORT = "questions.sources.imported"


def _import_params(project: Path, **changes: Any) -> None:
    """The shipped `file` preset pointed at IMPORT_CSV (forecast date, gold URL, binary)."""
    (project / "markets.csv").write_text(IMPORT_CSV)
    p = yaml.safe_load((project / "params.yaml").read_text())
    fresh = params.compose(
        ROOT,
        [
            "questions=file",
            f"{IMPORT}.path=markets.csv",
            f"{IMPORT}.columns.question_id=id",
            f"{IMPORT}.columns.question=text",
            f"{IMPORT}.columns.answer=outcome",
            f"{IMPORT}.answer_format=binary",
            f"{IMPORT}.columns.resolution_date=closed",
            f"{IMPORT}.columns.forecast_date=opened",
            f"{IMPORT}.columns.gold_url=link",
            f"{IMPORT}.columns.category=topic",
        ],
    )
    p["questions"] = fresh["questions"]
    for key, value in changes.items():
        p["eval"][key] = value
    (project / "params.yaml").write_text(yaml.safe_dump(p))


def test_an_imported_file_with_forecast_dates_and_gold_urls(project: Path) -> None:
    _import_params(project, models=["baseline_always_yes"])
    assert run_retrieve() == 0
    q = pd.read_parquet("data/interim/eval_questions.parquet").set_index("question_id")
    assert q["answer"].to_dict() == {"m1": "Yes", "m2": "No", "m3": "Yes"}
    assert set(q["source"]) == {"imported"} and q.loc["m1", "category"] == "Politics"
    # gold URLs match on the normalised URL (scheme, www., tracking, fragment, slash)
    assert q.loc["m1", "article_id"] == "a11" and q.loc["m2", "article_id"] == "a08"
    assert pd.isna(q.loc["m3", "article_id"])
    metrics = json.loads(Path("reports/metrics/retrieve.json").read_text())
    assert metrics["gold"]["imported"] == {
        "article_id_in_corpus": 0,
        "article_id_not_in_corpus": 0,
        "gold_url_matched": 2,
        "gold_url_unmatched": 1,
        "gold_text_inline": 0,
        "no_gold_article": 1,
    }
    assert metrics["visibility"]["questions_with_forecast_date"] == 3
    # m1, m2 are asked more than the gap before they resolve; m3 on the day it resolves
    assert metrics["visibility"]["forecast_date_ends_window"] == 2
    # the gold articles are dated on or after their questions' forecast dates (a08: 10 March)
    assert metrics["visibility"]["gold_visible"] == 0
    # retrieval never reaches the forecast date: m1 was asked on 4 March
    retrieval = pd.read_parquet("data/interim/retrieval.parquet")
    dyn = retrieval.loc[retrieval["rag_cutoff"] == "dynamic"]
    ends = dyn.groupby("question_id")["window_end"].first().to_dict()
    assert ends == {
        "m1": dt.date(2024, 3, 4),
        "m2": dt.date(2024, 3, 7),
        "m3": dt.date(2024, 3, 11),
    }
    m1 = set(dyn.loc[dyn["question_id"] == "m1", "article_id"])
    assert m1 <= {"a01", "a02", "a03"} and "a01" in m1
    assert (dyn["article_date"] < dyn["question_id"].map(q["forecast_date"])).all()
    gold = pd.read_parquet("data/interim/partitions/all/contexts/gold.parquet")
    assert gold.set_index("question_id")["article_id"].to_dict() == {"m1": "a11", "m2": "a08"}
    assert run_model("baseline_always_yes") == 0
    assert run_score() == 0
    scores = pd.read_parquet("data/processed/scores.parquet")
    yes = scores.loc[scores["setting"] == "closed_book"].set_index("question_id")["correct"]
    assert yes.to_dict() == {"m1": True, "m2": False, "m3": True}  # always-yes = share of Yes
    assert scores.loc[scores["question_id"] == "m1", "forecast_date"].iloc[0] == dt.date(2024, 3, 4)


def test_sources_together_and_per_model_samples(project: Path) -> None:
    """Daily Oracle's questions and OpenForecast-shaped ones go through one path; a model
    with a budget answers the first questions of the sample order, nested in the others'."""
    of = pd.DataFrame(
        {
            "question_id": ["of-1", "of-2"],
            "question": ["What will the council do next on the bridge?", "Will the vote pass?"],
            "qtype": ["mc", "tf"],
            "choices": [["Approve it", "Delay it", "Sell it", "Flood it"], ["Yes", "No"]],
            "answer_index": [0, 0],
            "resolution_date": [dt.date(2024, 3, 9), dt.date(2024, 3, 11)],
            "category": ["Politics & Governance"] * 2,
            "article_id": [None, None],
            "task": ["MCNC", "VQA"],
            "chain_id": ["c1", "c1"],
            "split": ["test", "test"],
        }
    )
    of.to_parquet("of_questions.parquet")
    p = yaml.safe_load(Path("params.yaml").read_text())
    combined = params.compose(ROOT, ["questions=daily_oracle_openforecast"])["questions"]
    combined["sources"]["daily_oracle"]["path"] = "questions.parquet"
    combined["sources"]["openforecast"]["path"] = "of_questions.parquet"
    p["questions"] = combined
    p["eval"]["models"] = ["oracle", "baseline_always_yes"]
    p["eval"]["settings"] = ["closed_book", "rag_dynamic"]
    p["eval"]["max_questions"] = {"oracle": 3}
    Path("params.yaml").write_text(yaml.safe_dump(p))
    ANSWERS["council do next"] = "(a)"
    ANSWERS["vote pass"] = "Yes"
    try:
        assert run_retrieve() == 0
        q = pd.read_parquet("data/interim/eval_questions.parquet")
        assert q.groupby("source").size().to_dict() == {"daily_oracle": 4, "openforecast": 2}
        assert len(q) == 6 and q["sample_key"].is_unique
        for model in ("oracle", "baseline_always_yes"):
            assert run_model(model) == 0
        assert run_score() == 0
    finally:
        del ANSWERS["council do next"], ANSWERS["vote pass"]
    scores = pd.read_parquet("data/processed/scores.parquet")
    first3 = set(q.nsmallest(3, "sample_key")["question_id"])
    by_model = {m: set(g["question_id"]) for m, g in scores.groupby("model")}
    assert by_model["oracle"] == first3 and by_model["baseline_always_yes"] == set(q["question_id"])
    assert len(scores.loc[scores["model"] == "oracle"]) == 3 * 2
    assert dict(zip(scores["question_id"], scores["source"], strict=True))["of-1"] == "openforecast"
    # OpenForecast's questions are retrieved under the same rule, at T_k - gap
    retrieval = pd.read_parquet("data/interim/retrieval.parquet")
    of1 = retrieval.loc[retrieval["question_id"] == "of-1"]
    assert set(of1["window_end"]) == {dt.date(2024, 3, 8)} and of1["article_date"].max() < dt.date(
        2024, 3, 8
    )


def test_prompts_too_long_for_the_context_window_are_fitted_counted_and_reported(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A window of the gold prompts' size: the longer ones are fitted by the rule (their
    article cut to the most words that fit, by the estimate), the others are the very
    requests sent without a window; the rows, the log and the score metrics say which."""
    from prescient.llm.fit import CONTEXT_EXCEEDED, FITTED, estimate_tokens

    set_eval(settings=["gold"], models=["oracle", "baseline_random"])
    assert run_retrieve() == 0
    assert run_model("oracle") == 0 and run_model("baseline_random") == 0
    plain = {
        e["tags"]["question_id"]: e for e in read_entries("data/llm/evaluate/oracle/all.jsonl")
    }
    sizes = {q: estimate_tokens(e["messages"]) for q, e in plain.items()}
    assert len(set(sizes.values())) == 4  # four gold prompts of four sizes
    max_tokens = 16
    second = sorted(sizes.values())[1]
    window = second + max_tokens  # the two shortest fit (one exactly), the others do not
    p = yaml.safe_load(Path("params.yaml").read_text())
    p["models"]["oracle"]["context_tokens"] = window
    Path("params.yaml").write_text(yaml.safe_dump(p))
    Path("data/llm/evaluate/oracle/all.jsonl").unlink()
    CALLS.clear()
    with caplog.at_level(logging.WARNING):
        assert run_model("oracle") == 0
    fitted = {
        e["tags"]["question_id"]: e for e in read_entries("data/llm/evaluate/oracle/all.jsonl")
    }
    pred = pd.read_parquet("data/processed/predictions/oracle/all/gold.parquet")
    words = dict(zip(pred["question_id"], pred["context_words_kept"], strict=True))
    for qid, size in sizes.items():
        if size <= second:
            assert pd.isna(words[qid]) and fitted[qid]["key"] == plain[qid]["key"]
            continue
        # Cut to fit: the uncut prompt but for the article's line, which is cut after
        # its first W words; with the next word too it would not fit.
        messages = fitted[qid]["messages"]
        assert estimate_tokens(messages) + max_tokens <= window < size + max_tokens
        assert messages[0] == plain[qid]["messages"][0]  # the system message
        lines = str(messages[-1]["content"]).split("\n")
        uncut = str(plain[qid]["messages"][-1]["content"]).split("\n")
        changed = [i for i, (a, b) in enumerate(zip(lines, uncut, strict=True)) if a != b]
        assert len(changed) == 1
        line, whole = lines[changed[0]], uncut[changed[0]]
        assert whole.startswith(line) and whole[len(line)] == " "
        lines[changed[0]] = f"{line} {whole[len(line) :].split()[0]}"
        longer = [messages[0], {**messages[-1], "content": "\n".join(lines)}]
        assert estimate_tokens(longer) + max_tokens > window
    n_fitted = sum(s > second for s in sizes.values())
    assert int(pred["context_words_kept"].notna().sum()) == n_fitted == 2
    assert pred["error"].isna().all()
    assert f"oracle gold: 2 prompts {FITTED}" in caplog.text
    assert run_score() == 0
    m = json.loads(Path("reports/metrics/evaluate.json").read_text())
    got = m["context_fit"]["oracle"]["gold"]
    assert (got[FITTED], got[CONTEXT_EXCEEDED]) == (2, 0)
    assert got["min_words_kept"] == int(pred["context_words_kept"].min())
    assert m["context_fit"]["baseline_random"]["gold"] == {FITTED: 0, CONTEXT_EXCEEDED: 0}


def test_a_reply_holding_a_lone_surrogate_is_stored_and_written_out(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(ANSWERS, "approve the river bridge", "**Yes**\ud800")
    set_eval(models=["oracle"], settings=["closed_book"])
    assert run_retrieve() == 0
    assert run_model("oracle") == 0 and len(CALLS) == 4
    frame = pd.read_parquet("data/processed/predictions/oracle/all/closed_book.parquet")
    answers = frame.set_index("question_id")
    # The predictions hold what UTF-8 can: the lone surrogate as U+FFFD; it still parses.
    assert answers.loc["q_tf_bridge", "raw_response"] == "**Yes**\ufffd"
    assert pd.isna(answers.loc["q_tf_bridge", "error"])
    # The ledger keeps the exact reply, and a rerun is answered from it.
    ledger = Path("data/llm/evaluate/oracle/all.jsonl")
    assert "**Yes**\ud800" in [e["response"] for e in read_entries(ledger)]
    assert run_model("oracle") == 0 and len(CALLS) == 4
    again = pd.read_parquet("data/processed/predictions/oracle/all/closed_book.parquet")
    pd.testing.assert_frame_equal(again, frame)
    assert run_score() == 0


def test_an_unwritable_ledger_or_a_misspelt_generation_key_stops_before_any_call(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    set_eval(models=["oracle"], settings=["closed_book"])
    assert run_retrieve() == 0
    Path("data/llm/evaluate/oracle/all.jsonl").mkdir(parents=True)  # a directory, not a file
    caplog.set_level(logging.ERROR)
    assert run_model("oracle") == 2 and CALLS == []
    assert "cannot write the response ledger data/llm/evaluate/oracle/all.jsonl" in caplog.text
    Path("data/llm/evaluate/oracle/all.jsonl").rmdir()
    set_eval(generation={"temprature": 0.3, "max_tokens": 16})
    assert run_model("oracle") == 2 and CALLS == []
    assert "eval.generation.temprature is not a parameter" in caplog.text


def test_an_empty_settings_list_stops_retrieve(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    set_eval(settings=[])
    caplog.set_level(logging.ERROR)
    assert run_retrieve() == 2
    assert "eval.settings: is empty: list at least one setting" in caplog.text


STATED = {
    "approve the river bridge": "P(Yes) = 80%",
    "fully repaired": "P(Yes) = 120%",
    "bakery will merge": "(a) 50%\n(b) 30%\n(c) 10%",
    "How much will repairing": "No idea.",
}


def test_every_elicitation_is_asked_read_as_a_forecast_and_scored(project: Path) -> None:
    """Label, stated probabilities and answer-token probabilities, in one grid: each
    asked once per question and setting, read as a forecast, scored, and a label derived
    from it; the random baseline draws once per question, whatever the setting."""

    def stated(messages: Sequence[Mapping[str, str]], _params: Mapping[str, Any]) -> str:
        text = messages[-1]["content"]
        CALLS.append(text)
        table = STATED if "P(Yes) = NN%" in text or "(a) NN%" in text else ANSWERS
        return next(a for k, a in table.items() if k in text)

    def tokens(messages: Sequence[Mapping[str, str]], answers: Sequence[str]) -> list[float]:
        # Yes/No: 0.9 on Yes; options: 0.7 on the second.
        if list(answers) == ["Yes", "No"]:
            return [math.log(0.9), math.log(0.1)]
        return [math.log(0.1), math.log(0.7), math.log(0.1), math.log(0.1)]

    p = yaml.safe_load(Path("params.yaml").read_text())
    p["eval"]["elicitation"] = ["label", "verbal_probability", "token_logprobs"]
    p["eval"]["settings"] = ["closed_book", "rag_dynamic"]
    register_script("eval_oracle", stated)
    register_answer_script("eval_oracle", tokens)
    Path("params.yaml").write_text(yaml.safe_dump(p))
    assert run_retrieve() == 0
    for model in MODELS:
        assert run_model(model) == 0
    assert run_score() == 0
    scores = pd.read_parquet("data/processed/scores.parquet")
    oracle = scores.loc[scores["model"] == "oracle"].set_index(
        ["elicitation", "setting", "question_id"]
    )
    verbal = oracle.loc[("verbal_probability", "closed_book")]
    assert list(verbal.loc["q_tf_bridge", "probs"]) == pytest.approx([0.8, 0.2])
    # 120% is clamped: P(Yes) = 1, and said so.
    assert list(verbal.loc["q_tf_harbour", "probs"]) == pytest.approx([1.0, 0.0])
    assert verbal.loc["q_tf_harbour", "prob_adjusted"] == "clamped"
    assert verbal.loc["q_tf_harbour", "brier"] == pytest.approx(1.0)  # the answer is No
    # (d) left out gets what the others leave: 10%.
    assert list(verbal.loc["q_mc_merger", "probs"]) == pytest.approx([0.5, 0.3, 0.1, 0.1])
    assert verbal.loc["q_mc_cost", "prob_source"] == "uniform_fill"
    assert bool(verbal.loc["q_mc_cost", "parse_failed"])
    token = oracle.loc[("token_logprobs", "rag")]
    assert list(token.loc["q_tf_bridge", "probs"]) == pytest.approx([0.9, 0.1])
    assert token.loc["q_tf_bridge", "brier"] == pytest.approx(0.01)
    assert list(token.loc["q_mc_cost", "probs"]) == pytest.approx([0.1 / 1.0, 0.7, 0.1, 0.1])
    # The label of a forecast is its most probable answer.
    assert token["parsed_answer"].to_dict() == {
        "q_mc_cost": 1,
        "q_mc_merger": 1,
        "q_tf_bridge": 0,
        "q_tf_harbour": 0,
    }
    assert token["correct"].to_dict() == {
        "q_mc_cost": True,
        "q_mc_merger": False,
        "q_tf_bridge": True,
        "q_tf_harbour": False,
    }
    # The random baseline: one draw per question, the same in every setting, and a
    # uniform forecast when asked for token probabilities.
    rand = scores.loc[(scores["model"] == "baseline_random") & (scores["elicitation"] == "label")]
    picks = rand.groupby("question_id")["parsed_answer"].nunique()
    assert (picks == 1).all()
    rtok = scores.loc[
        (scores["model"] == "baseline_random") & (scores["elicitation"] == "token_logprobs")
    ]
    for probs in rtok["probs"]:
        assert list(probs) == pytest.approx([1 / len(probs)] * len(probs))
    metrics = json.loads(Path("reports/metrics/evaluate.json").read_text())
    # The papers' cells read the label rows alone.
    assert metrics["cells"]["oracle"]["closed_book"]["all"]["n"] == 4
    cell = metrics["elicitations"]["verbal_probability"]["oracle"]["closed_book"]["all"]
    assert cell["n"] == 4 and cell["n_uniform_fill"] == 1
    # A rerun asks nothing: every elicitation's answers are in the ledger.
    n = len(CALLS)
    assert run_model("oracle") == 0 and len(CALLS) == n
