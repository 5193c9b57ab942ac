"""The whole analysis on sparse, empty and switched inputs, under both FreshBench rules."""

from __future__ import annotations

import json
import math

import pytest

from prescient.analysis.pipeline import table_names
from tests.fixtures.analysis.frames import score_rows, scores_frame, sparse_demo
from tests.fixtures.analysis.settings import SEED, analysis_settings, parts, run_analysis

SETTINGS = analysis_settings()


def test_sparse_demo_gives_numbers_and_labelled_gaps() -> None:
    scores, questions, articles = sparse_demo()
    result = run_analysis(scores, questions, articles, {}, SETTINGS, SEED)
    assert set(table_names(parts())) - set(result.tables) == {"notes", "provenance"}
    cb = result.metrics["accuracy"]["smollm2_135m"]["closed_book"]
    # TF outcomes c w | c r | c c: 4 of 6 correct, 1 refusal, 4 of 5 answered correct
    assert cb["tf"]["n"] == 6
    assert cb["tf"]["accuracy"] == pytest.approx(100 * 4 / 6, abs=1e-4)
    assert cb["tf"]["refusal_rate"] == pytest.approx(100 / 6, abs=1e-4)
    assert cb["tf"]["accuracy_excl_refusals"] == pytest.approx(80.0)
    assert cb["mc"]["accuracy"] == pytest.approx(100 * 2 / 3, abs=1e-4)
    assert cb["all"]["n"] == 9
    # two months only: a moving average of the months there are (the paper's curves),
    # no slope, no YoY: None in metrics, notes say why
    monthly = result.tables["monthly_accuracy"]
    tf = monthly.query("model == 'smollm2_135m' and cell == 'closed_book' and qtype == 'tf'")
    # March: c w c r (2 of 4), April: c c
    assert tf["accuracy_ma"].tolist() == pytest.approx([0.5, (0.5 + 1.0) / 2])
    assert cb["tf"]["yoy_all"] is None
    assert "last_slope_pp_per_month" not in cb["tf"]
    notes = " ".join(result.notes)
    assert "Fig. 6 slopes need 10 months" in notes
    assert "1 scored rows had a failed model call" in notes
    assert "FreshBench tests skipped for smollm2_135m (release_date)" in notes
    assert result.metrics["failed_calls"] == 1
    assert result.metrics["months_span"] == 2
    # the model known only from the table gets its release date from it
    models = result.tables["models"].set_index("model")
    assert models.loc["outside_model", "release_date"] == "2023-06-01"
    assert models.loc["outside_model", "source"] == "scores table"
    assert "outside_model" in set(result.tables["freshbench_decline"]["model"])
    json.dumps(result.metrics, allow_nan=False)  # valid JSON for DVC


def test_switching_a_rag_cutoff_changes_the_metric_keys() -> None:
    scores, questions, articles = sparse_demo()
    before = run_analysis(scores, questions, articles, {}, SETTINGS, SEED).metrics
    switched = scores.assign(rag_cutoff=scores["rag_cutoff"].replace({"2024-03-01": "2024-04-01"}))
    after = run_analysis(switched, questions, articles, {}, SETTINGS, SEED).metrics
    cells_before = set(before["accuracy"]["smollm2_135m"])
    cells_after = set(after["accuracy"]["smollm2_135m"])
    assert cells_before - cells_after == {"rag_2024-03-01"}
    assert cells_after - cells_before == {"rag_2024-04-01"}


def test_empty_scores_do_not_crash() -> None:
    result = run_analysis(scores_frame([]), None, None, {}, SETTINGS, SEED)
    assert result.metrics["scored_rows"] == 0 and result.metrics["accuracy"] == {}
    assert all(result.tables[n].empty for n in ("monthly_accuracy", "table3", "slopes"))
    assert any("no scored rows" in n for n in result.notes)
    described = "No questions table: the scores table's own columns describe its 0"
    assert any(described in n for n in result.notes)


def test_one_model_one_month_one_setting() -> None:
    raw = scores_frame(score_rows("solo", "gold", None, "2022-02-02", "mc", "cwc"))
    registry = {"solo": {"knowledge_cutoff": "2021-09-30"}}
    result = run_analysis(raw, None, None, registry, SETTINGS, SEED)
    monthly = result.tables["monthly_accuracy"]
    assert len(monthly) == 1  # MC with data; no TF series: the table has no TF question
    mc = monthly.query("qtype == 'mc'").iloc[0]
    assert mc["accuracy"] == pytest.approx(2 / 3) and mc["accuracy_ma"] == pytest.approx(2 / 3)
    full = analysis_settings("analysis.moving_average.min_periods=5")
    alone = run_analysis(raw, None, None, registry, full, SEED).tables["monthly_accuracy"]
    assert math.isnan(alone["accuracy_ma"].iloc[0])
    t3 = result.tables["table3"].query("qtype == 'mc'").iloc[0]
    assert t3["acc_2022"] == pytest.approx(200 / 3)
    assert t3["yoy_pre_pairs"] == 0 and math.isnan(t3["yoy_post"])
    assert result.metrics["accuracy"]["solo"]["gold"]["mc"]["accuracy"] == pytest.approx(
        200 / 3, abs=1e-4
    )


def test_every_freshbench_table_names_the_rules_it_used() -> None:
    scores, questions, articles = sparse_demo()
    for overrides, rules in (
        ((), ("calendar", "anchored", "present")),
        (("analysis=freshbench",), ("freshbench", "calendar", "pre_anchor")),
    ):
        settings = analysis_settings(*overrides)
        tables = run_analysis(
            scores, questions, articles, {}, settings, SEED, overrides=overrides
        ).tables
        month_rule, period_rule, reference = rules
        for name in ("freshbench_bias", "freshbench_degeneration", "freshbench_decline"):
            assert not tables[name].empty, name
            assert set(tables[name]["month_rule"]) == {month_rule}, name
        for name in ("freshbench_degeneration", "freshbench_decline"):
            assert set(tables[name]["period_rule"]) == {period_rule}, name
            assert set(tables[name]["reference"]) == {reference}, name


def test_an_entry_served_by_two_models_is_analysed_as_two() -> None:
    rows = score_rows("local_server", "closed_book", None, "2024-03-04", "tf", "ccwe")
    served = ["model-a", "model-a", "model-b", None]  # the failed call had no server reply
    for row, name in zip(rows, served, strict=True):
        row["served_model"] = name
    rows += score_rows("solo", "closed_book", None, "2024-03-04", "tf", "cw", prefix="s")
    for row in rows[4:]:
        row["served_model"] = "solo.gguf"
    raw = scores_frame(rows).assign(served_model=[r["served_model"] for r in rows])
    registry = {
        "local_server": {"knowledge_cutoff": "2023-10-01", "litellm_model": "openai/served"}
    }
    result = run_analysis(raw, None, None, registry, SETTINGS, SEED)
    accuracy = result.metrics["accuracy"]
    a, b = "local_server [model-a]", "local_server [model-b]"
    assert set(accuracy) == {a, b, "solo"}
    # the failed call, which no model answered, stays the entry's own, in plain sight
    cells = result.tables["cells"].set_index("model")
    assert cells.loc["local_server", "n_errors"] == 1
    assert accuracy[a]["closed_book"]["tf"]["n"] == 2
    assert accuracy[a]["closed_book"]["tf"]["accuracy"] == pytest.approx(100.0)
    assert accuracy[b]["closed_book"]["tf"]["accuracy"] == pytest.approx(0.0)
    models = result.tables["models"].set_index("model")
    assert models.loc[a, "served_model"] == "model-a"
    assert models.loc[b, "served_model"] == "model-b"
    assert models.loc[b, "litellm_model"] == "openai/served"
    # each served model keeps the entry's registry dates; one served model keeps its name
    assert models.loc[a, "knowledge_cutoff"] == "2023-10-01"
    assert models.loc[a, "source"] == "registry"
    assert models.loc["solo", "served_model"] == "solo.gguf"
    assert set(result.tables["leaderboard"]["model"]) >= {a, b}
    assert any("one model per served model" in n for n in result.notes)
