"""Stages chains -> of_samples -> of_predict -> lrae -> of_tables, through the real gateway
and ledgers, with scripted models: an oracle forecaster scores F1 = 1, an empty one 0,
and a mixed one gets its evidence from the window [T_k, T_k + H] only."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from prescient import io
from prescient.benchmarks.openforecast.chains import chain_frame
from prescient.benchmarks.openforecast.demo import read_timelines
from prescient.corpus.normalize import article_id, normalize_url
from prescient.llm.scripted import register_script
from prescient.plumbing import params
from stages import chains as chains_stage
from stages import lrae as lrae_stage
from stages import of_predict as predict_stage
from stages import of_samples as samples_stage
from stages import of_tables as tables_stage
from tests.conftest import ROOT
from tests.support.llm import model_entry

FIX = ROOT / "tests" / "fixtures" / "openforecast"
PROMPTS = ROOT / "conf" / "prompts" / "openforecast"
TIMELINES = FIX / "demo_timelines.jsonl"
MODELS = ("oracle", "empty", "mixed")
CIDER = "Cider makers in Calder raised their prices."
ALIENS = "A meteor shower was seen over Calder."

EVENTS, _ = read_timelines(TIMELINES, set())
CHAINS: dict[str, pd.DataFrame] = {"current": chain_frame(EVENTS, "demo")[0]}
"""The chains of the run in progress: what the oracle forecaster knows."""


def _field(text: str, label: str) -> str:
    found = re.findall(rf"{label}(.*)", text)
    return found[-1].strip() if found else ""


def _chain_of(prompt: str) -> pd.DataFrame:
    first = re.search(r"^1\. [\d-]+: (.*)$", prompt, re.M)
    assert first is not None, prompt
    chains = CHAINS["current"]
    cid = chains.loc[chains["text"] == first.group(1), "chain_id"].iloc[0]
    return chains[chains["chain_id"] == cid]


def writer(messages: Sequence[Mapping[str, Any]], _p: Mapping[str, Any]) -> str:
    text = str(messages[-1]["content"])
    if "Reply in two lines" in text:
        event = _field(text, r"Event on \d{4}-\d{2}-\d{2}: ")
        head = " ".join(event.split()[:3])
        return f"Question: What will happen with {head}?\nAnswer: {head}"
    return "- A storm closed the island port.\n- The ministry cut all farm aid.\n- A new mayor was elected."


def forecaster(kind: str) -> Any:
    def script(messages: Sequence[Mapping[str, Any]], _p: Mapping[str, Any]) -> str:
        text = str(messages[-1]["content"])
        if kind == "empty":
            return ""
        if "Question:" in text:  # AQA
            return f"Answer: {_field(text, 'What will happen with ').rstrip('?')}"
        chain = _chain_of(text)
        day = re.search(r"(?:happen on|develop from) (\d{4}-\d{2}-\d{2})", text)
        assert day is not None
        t_k = dt.date.fromisoformat(day.group(1))
        if "happen on" in text:
            gold = chain[chain["date"] == t_k]["text"].tolist()
        else:
            gold = chain[chain["date"] >= t_k]["text"].tolist()
        if kind == "mixed" and chain["chain_id"].iloc[0] == "orchard":
            gold = [*gold, CIDER, ALIENS, gold[0]]  # the repeat of item 1 is a near-duplicate
        return "Here is my forecast:\n" + "\n".join(f"{i}. {g}" for i, g in enumerate(gold, 1))

    return script


def judge(messages: Sequence[Mapping[str, Any]], _p: Mapping[str, Any]) -> str:
    text = str(messages[-1]["content"])
    prediction = _field(text, "Forecast: ").lower()
    if "Predicted answer:" in text:
        same = _field(text, "Predicted answer: ") == _field(text, "Correct answer: ")
        return "Yes" if same else "No"
    if "News excerpts" in text:
        excerpts = text.split("Forecast: ")[0].lower()
        return "Yes, it came true." if prediction.rstrip(".") in excerpts else "No."
    labels = re.findall(r"^\((\d+)\) (.*)$", text, re.M)
    for k, label in labels:
        if label.lower() == prediction:
            return f"According to the labels, the answer is Yes, and the index is: ({k})"
    return "No, yesterday's labels do not say that."  # "yesterday" is not a yes


def articles() -> pd.DataFrame:
    rows = [
        (
            f"https://fixture.example/{e.chain_id}/{e.date.start}/{i}",
            e.date.start,
            e.chain_id,
            e.text,
        )
        for i, e in enumerate(EVENTS)
    ]
    extra = [
        ("https://fixture.example/cider", dt.date(2022, 10, 6), "Cider", f"In other news. {CIDER}"),
        ("https://fixture.example/meteor-early", dt.date(2022, 10, 3), "Sky", ALIENS),
        ("https://fixture.example/meteor-late", dt.date(2022, 10, 9), "Sky", ALIENS),
    ]
    rows += extra
    return pd.DataFrame(
        {
            "article_id": [article_id(normalize_url(u), "", d) for u, d, _, _ in rows],
            "date": pd.Series([d for _, d, _, _ in rows], dtype="date32[pyarrow]"),
            "title": [f"{t} news" for _, _, t, _ in rows],
            "text": [f"{x}\n\nMore reporting follows." for _, _, _, x in rows],
            "url": [u for u, _, _, _ in rows],
            "source_domain": ["fixture.example"] * len(rows),
        }
    )


def project(tmp: Path, *extra: str) -> tuple[Path, dict[str, Any]]:
    p = params.compose(
        ROOT,
        [
            f"chains.demo.path={TIMELINES}",
            *extra,
            "openforecast.split.train_end=2020-06-30",
            "openforecast.split.dev_start=2020-07-01",
            "openforecast.split.dev_end=2020-12-31",
            "openforecast.split.test_start=2021-01-01",
            "openforecast.split.test_end=2025-12-31",
            *[
                f"openforecast.samples.max_samples.{t}=null"
                for t in ("stf", "ltf", "aqa", "mcnc", "mcac", "vqa")
            ],
            "llm.progress=false",
            "openforecast.lrae.bootstrap.reps=200",
        ],
    )
    register_script("of_writer", writer)
    register_script("of_judge", judge)
    p["models"]["writer"] = model_entry("writer", "scripted/of_writer", params={}, concurrency=4)
    p["models"]["judge"] = model_entry("judge", "scripted/of_judge", params={}, concurrency=4)
    for kind in MODELS:
        register_script(f"of_{kind}", forecaster(kind))
        p["models"][kind] = model_entry(kind, f"scripted/of_{kind}", params={}, concurrency=4)
    for step in ("argument", "distract_event", "distract_argument"):
        p["openforecast"]["samples"]["models"][step] = "writer"
    p["openforecast"]["predict"]["models"] = list(MODELS)
    p["openforecast"]["lrae"]["judge_model"] = "judge"
    (tmp / "params.yaml").write_text(yaml.safe_dump(p))
    io.write_parquet(tmp / "articles.parquet", articles())
    (tmp / "construct.jsonl").touch()
    return tmp / "params.yaml", p


def run_all(tmp: Path, pfile: Path) -> None:
    a = ["--params", str(pfile)]
    assert (
        chains_stage.main(
            [
                *a,
                "--articles",
                str(tmp / "articles.parquet"),
                "--prompts",
                str(ROOT / "conf/prompts/construct"),
                "--reuse-ledger",
                str(tmp / "construct.jsonl"),
                "--ledger",
                str(tmp / "llm/chains.jsonl"),
                "--out",
                str(tmp / "chains.parquet"),
                "--metrics",
                str(tmp / "chains.json"),
            ]
        )
        == 0
    )
    CHAINS["current"] = pd.read_parquet(tmp / "chains.parquet")
    assert (
        samples_stage.main(
            [
                *a,
                "--chains",
                str(tmp / "chains.parquet"),
                "--prompts",
                str(PROMPTS / "samples"),
                "--samples",
                str(tmp / "samples.parquet"),
                "--questions",
                str(tmp / "of_questions.parquet"),
                "--ledger",
                str(tmp / "llm/of_samples.jsonl"),
                "--metrics",
                str(tmp / "of_samples.json"),
            ]
        )
        == 0
    )
    for model in MODELS:
        for task in ("stf", "ltf", "aqa"):
            assert (
                predict_stage.main(
                    [
                        *a,
                        "--model",
                        model,
                        "--task",
                        task,
                        "--samples",
                        str(tmp / "samples.parquet"),
                        "--prompts",
                        str(PROMPTS / "predict"),
                        "--out",
                        str(tmp / f"pred/{model}-{task}.parquet"),
                        "--ledger",
                        str(tmp / f"llm/of_predict/{model}-{task}.jsonl"),
                    ]
                )
                == 0
            )
    assert (
        lrae_stage.main(
            [
                *a,
                "--samples",
                str(tmp / "samples.parquet"),
                "--predictions",
                str(tmp / "pred"),
                "--articles",
                str(tmp / "articles.parquet"),
                "--prompts",
                str(PROMPTS / "lrae"),
                "--judgements",
                str(tmp / "judgements.parquet"),
                "--scores",
                str(tmp / "lrae_scores.parquet"),
                "--ledger",
                str(tmp / "llm/lrae.jsonl"),
                "--metrics",
                str(tmp / "lrae.json"),
            ]
        )
        == 0
    )


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("of")
    pfile, _ = project(tmp)
    run_all(tmp, pfile)
    return tmp


def test_oracle_scores_one_and_empty_scores_zero(done: Path) -> None:
    scores = pd.read_parquet(done / "lrae_scores.parquet")
    oracle = scores[scores["model"] == "oracle"]
    assert set(oracle["task"]) == {"stf", "ltf", "aqa"}
    assert (oracle["f1"] == 1.0).all() and (oracle["f1_gold"] == 1.0).all()
    empty = scores[scores["model"] == "empty"]
    assert (empty["f1"] == 0.0).all() and empty["empty"].all()
    assert len(oracle) == len(empty) == len(scores) // 3


def test_evidence_comes_from_the_window_only(done: Path) -> None:
    scores = pd.read_parquet(done / "lrae_scores.parquet")
    judgements = pd.read_parquet(done / "judgements.parquet")
    orchard = scores[(scores["model"] == "mixed") & (scores["task"] == "stf")]
    samples = pd.read_parquet(done / "samples.parquet").set_index("sample_id")
    orchard = orchard[orchard["sample_id"].map(samples["chain_id"]) == "orchard"]
    (row,) = orchard.to_dict("records")
    # label matched (TP), cider supported by a 2022-10-06 article (MTP), the meteor
    # articles are dated 2022-10-03 and 2022-10-09, outside [2022-10-04, 2022-10-07] (FP).
    assert (row["tp"], row["mtp"], row["fp"], row["fn"]) == (1, 1, 1, 0)
    assert row["precision"] == pytest.approx(2 / 3) and row["recall"] == 1.0
    assert row["f1"] == pytest.approx(0.8)
    assert row["f1_gold"] == pytest.approx(2 * (1 / 3) * 1 / (1 / 3 + 1))
    mine = judgements[judgements["sample_id"] == row["sample_id"]]
    mine = mine[mine["model"] == "mixed"].sort_values("item")
    assert mine["verdict"].tolist() == ["tp", "mtp", "fp", "duplicate"]
    assert mine["matched_label"].tolist()[0] == 1
    cider = mine.iloc[1]
    assert "2022-10-06" in list(cider["evidence_dates"])
    assert cider["evidence_key"] and len(cider["evidence_key"]) == 64
    meteor = mine.iloc[2]
    assert all("2022-10-04" <= d <= "2022-10-07" for d in meteor["evidence_dates"])
    assert mine["judge_key"].iloc[:3].str.len().eq(64).all()
    assert pd.isna(mine["judge_key"].iloc[3])  # the near-duplicate is never judged


def test_ledgers_make_a_rerun_free_and_identical(done: Path) -> None:
    names = ["chains", "samples", "of_questions", "judgements", "lrae_scores"]
    before = {n: pd.read_parquet(done / f"{n}.parquet") for n in names}
    metrics = {p: p.read_bytes() for p in done.glob("*.json")}
    lines = {p: len(p.read_text().splitlines()) for p in (done / "llm").rglob("*.jsonl")}
    assert sum(lines.values()) > 0
    run_all(done, done / "params.yaml")
    assert {p: len(p.read_text().splitlines()) for p in (done / "llm").rglob("*.jsonl")} == lines
    for n in names:
        pd.testing.assert_frame_equal(pd.read_parquet(done / f"{n}.parquet"), before[n])
    assert metrics and {p: p.read_bytes() for p in done.glob("*.json")} == metrics


def test_tables_and_metrics(done: Path) -> None:
    pfile = done / "params.yaml"
    # A scores table as the evaluation writes it, for two closed-form questions.
    questions = pd.read_parquet(done / "of_questions.parquet")
    assert set(questions["task"]) == {"mcnc", "mcac", "vqa"}
    qids = questions["question_id"].tolist()[:2]
    scores = pd.DataFrame(
        {
            "model": ["m", "m", "m"],
            "setting": ["closed_book"] * 3,
            "rag_cutoff": [None] * 3,
            "question_id": [*qids, "daily-oracle-question"],
            "error": [None, None, None],
            "correct": [True, False, True],
        }
    )
    io.write_parquet(done / "scores.parquet", scores)
    out = done / "tables"

    def tables(scores_path: Path) -> int:
        return tables_stage.main(
            [
                "--params",
                str(pfile),
                "--scores",
                str(scores_path),
                "--questions",
                str(done / "of_questions.parquet"),
                "--samples",
                str(done / "samples.parquet"),
                "--lrae-scores",
                str(done / "lrae_scores.parquet"),
                "--closed",
                str(out / "closed.csv"),
                "--open",
                str(out / "open.csv"),
                "--metrics",
                str(done / "openforecast.json"),
            ]
        )

    assert tables(done / "no-scores.parquet") == 2 and not out.exists()
    assert tables(done / "scores.parquet") == 0
    closed = pd.read_csv(out / "closed.csv")
    assert (
        closed["n"].sum() == 2 and closed["n_correct"].sum() == 1
    )  # the Daily Oracle row is not ours
    open_ = pd.read_csv(out / "open.csv")
    f1 = open_[(open_["metric"] == "f1") & (open_["model"] == "oracle")]
    assert (f1["value"] == 1.0).all()
    metrics = json.loads((done / "openforecast.json").read_text())
    assert metrics["open"]["oracle"]["stf"]["f1"] == 1.0
    assert metrics["open"]["empty"]["ltf"]["f1"] == 0.0


def test_an_openforecast_release_file_runs_end_to_end(tmp_path: Path) -> None:
    pfile, _ = project(
        tmp_path,
        "chains.source=import",
        f"chains.import.path={FIX / 'openforecast_chains.jsonl'}",
    )
    run_all(tmp_path, pfile)
    chains = pd.read_parquet(tmp_path / "chains.parquet")
    assert set(chains["origin"]) == {"import:openforecast"}
    samples = pd.read_parquet(tmp_path / "samples.parquet")
    ok = samples[samples["status"] == "ok"]
    assert set(ok["task"]) == {"stf", "ltf", "aqa", "mcnc", "mcac", "vqa"}
    # The bridge chain's LTF splits on 2022-06-21 (3 of 5 events before it); its
    # month-precision event (March 2022) is background, its year-precision one a target.
    (ltf,) = ok[ok["task"] == "ltf"].to_dict("records")
    assert ltf["split_date"] == dt.date(2022, 6, 21)
    assert (
        list(ltf["background"])[1]
        == "2022-03: The city closed the harbour bridge to heavy lorries."
    )
    assert list(ltf["target_dates"]) == ["2022-06-21", "2023-01-01"]
    scores = pd.read_parquet(tmp_path / "lrae_scores.parquet")
    assert (scores[scores["model"] == "oracle"]["f1"] == 1.0).all()
