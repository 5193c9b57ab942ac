"""The annotation sample, the packets and the rubric."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from prescient.annotation.principles import Rubric, RubricError, load_rubric
from prescient.annotation.ratings import import_csv
from prescient.annotation.sample import (
    CSV_COLUMNS,
    build_items,
    draw_sample,
    packet_csv,
    packet_jsonl,
    packet_order,
    selection_keys,
)
from prescient.annotation.settings import PacketSettings, TableSettings, load_annotation_settings
from prescient.rubric import filter_sections
from prescient.seeds import derive_seed
from prescient.settings import ParamsError
from prescient.step_templates import load_step_template
from prescient.vocab import PRINCIPLES
from tests.conftest import ROOT
from tests.fixtures.annotation.build import (
    XSS_TEXT,
    articles,
    candidates,
    packet_settings,
    shipped_params,
)

SEED = 1


def _settings(n_tf: int = 4, n_mc: int = 4, share: float | None = 0.5) -> PacketSettings:
    """The shipped ``annotation`` params (threshold 13, per-annotator order) shrunk to the
    fixture: two annotators and a few questions per type."""
    return packet_settings(n_tf, n_mc, share)


def _draw(
    cands: pd.DataFrame, settings: PacketSettings, seed: int = SEED
) -> tuple[pd.DataFrame, Any]:
    return draw_sample(cands, settings, seed)


def test_sample_is_stratified_by_type_and_filter_decision() -> None:
    sample, report = _draw(candidates(), _settings(4, 6))
    assert report.drawn == {
        "tf": {"accepted": 2, "rejected": 2},
        "mc": {"accepted": 3, "rejected": 3},
    }
    assert report.shortfall == {}
    assert report.candidates_scored == 24 and report.candidates_total == 30
    assert (sample["qtype"] == "tf").sum() == 4 and (sample["qtype"] == "mc").sum() == 6
    accepted = sample["llm_total"] >= 13
    assert list(accepted) == list(sample["llm_accepted"])
    assert (sample.groupby(["qtype", "llm_accepted"]).size() > 0).all()
    assert sample["correctness"].notna().all()  # only scored candidates


def test_sample_is_seeded_and_independent_of_row_order() -> None:
    cands = candidates()
    a, _ = _draw(cands, _settings())
    b, _ = _draw(cands.sample(frac=1.0, random_state=3), _settings())
    c, _ = _draw(cands, _settings(), seed=2)
    assert list(a["question_id"]) == list(b["question_id"])
    assert list(a["question_id"]) != list(c["question_id"])


def test_selection_ranks_by_the_one_seed_derivation() -> None:
    """The two accepted TF questions drawn are the two with the smallest derived seeds."""
    sample, _ = _draw(candidates(), _settings(4, 0))
    tf_accepted = [f"tf{k:02d}" for k in range(6)]  # the fixture's totals 14, 13, 14, ...
    ranked = sorted(
        tf_accepted, key=lambda q: derive_seed(SEED, "annotation_sample", "tf/accepted", q)
    )
    drawn = sample[sample["stratum"] == "tf/accepted"]["question_id"]
    assert list(drawn) == ranked[:2]
    keys = selection_keys(SEED, "tf/accepted", tf_accepted)
    assert keys.dtype == np.uint64
    assert [int(k) for k in keys] == [
        derive_seed(SEED, "annotation_sample", "tf/accepted", q) for q in tf_accepted
    ]


def test_shortfall_takes_everything_and_reports_it() -> None:
    sample, report = _draw(candidates(), _settings(30, 30))
    assert len(sample) == 24
    assert report.shortfall == {"tf": 18, "mc": 18}
    assert report.to_dict()["n_items"] == 24


def test_a_short_stratum_is_made_up_from_the_other() -> None:
    cands = candidates()
    # Keep only one rejected TF candidate: 6 TF requested -> 5 accepted + 1 rejected.
    rejected_tf = cands[(cands["qtype"] == "tf") & (cands["filter_total"] < 13)]
    cands = cands.drop(index=rejected_tf.index[1:])
    _, report = _draw(cands, _settings(6, 2))
    assert report.drawn["tf"] == {"accepted": 5, "rejected": 1}
    assert report.shortfall == {}


def test_share_none_draws_in_the_filters_proportions() -> None:
    sample, report = _draw(candidates(), _settings(12, 0, share=None))
    assert report.drawn["tf"] == {"accepted": 6, "rejected": 6}  # all of them
    assert report.drawn["mc"] == {"accepted": 0, "rejected": 0}
    assert len(sample) == 12


def test_missing_score_columns_are_reported() -> None:
    with pytest.raises(ValueError, match="not_obvious"):
        _draw(candidates().drop(columns=["not_obvious"]), _settings())


def test_packets_carry_article_and_question_but_no_llm_scores() -> None:
    sample, _ = _draw(candidates(), _settings(12, 12))
    items = build_items(sample, articles())
    text = packet_jsonl(items)
    for key in (*PRINCIPLES, "filter_total", "llm_total", "llm_accepted", "status", "stratum"):
        assert f'"{key}"' not in text
    first = json.loads(text.splitlines()[0])
    assert first["position"] == 1
    assert set(first) == {
        "position",
        "item_id",
        "qtype",
        "question",
        "choices",
        "answer",
        "resolution_date",
        "article",
    }
    assert set(first["article"]) == {"article_id", "title", "date", "url", "source_domain", "text"}
    xss = [it for it in items if it["article"]["text"] == XSS_TEXT]
    assert xss and xss[0]["article"]["date"] == "2024-03-01"
    mc = next(it for it in items if it["qtype"] == "mc")
    assert len(mc["choices"]) == 4 and mc["answer"] in mc["choices"]
    no_url = [it for it in items if it["article"]["article_id"] == "art03"]
    assert no_url and no_url[0]["article"]["url"] is None


def test_unknown_article_is_an_error() -> None:
    sample, _ = _draw(candidates(), _settings())
    with pytest.raises(ValueError, match="unknown article"):
        build_items(sample, articles().iloc[:1])


def test_each_annotator_gets_the_same_items_in_their_own_order() -> None:
    sample, _ = _draw(candidates(), _settings(12, 12))
    items = build_items(sample, articles())
    s = _settings()
    a, b = packet_order(items, "ann_a", s, SEED), packet_order(items, "ann_b", s, SEED)
    assert sorted(i["item_id"] for i in a) == sorted(i["item_id"] for i in b)
    assert [i["item_id"] for i in a] != [i["item_id"] for i in b]
    again = packet_order(items, "ann_a", s, SEED)
    assert [i["item_id"] for i in a] == [i["item_id"] for i in again]
    assert [i["item_id"] for i in a] == sorted(
        (i["item_id"] for i in items),
        key=lambda q: derive_seed(SEED, "annotation_order", "ann_a", q),
    )


def test_packet_csv_round_trips_through_import(tmp_path: Path) -> None:
    sample, _ = _draw(candidates(), _settings(3, 3))
    items = build_items(sample, articles())
    text = packet_csv(items)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert all(r[k] == "" for r in rows for k in PRINCIPLES)
    mc = next(r for r in rows if r["qtype"] == "mc")
    assert mc["choices"].startswith("A) ") and "\nD) " in mc["choices"]
    # An annotator fills two rows in a spreadsheet and saves (Excel writes a BOM).
    rows[0].update(dict.fromkeys(PRINCIPLES, "2"))
    rows[2].update(dict.fromkeys(PRINCIPLES, "1"))
    filled = tmp_path / "ann_a.csv"
    with open(filled, "w", encoding="utf-8-sig", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(CSV_COLUMNS))
        w.writeheader()
        w.writerows(rows)
    ratings = import_csv(filled, "ann_a", [it["item_id"] for it in items])
    assert [(r.item_id, r.scores["objectivity"]) for r in ratings] == [
        (rows[0]["item_id"], 2),
        (rows[2]["item_id"], 1),
    ]


@pytest.mark.parametrize(
    "annotators, sample, message",
    [
        (("a", "a"), {}, "annotation.annotators: duplicate annotator names"),
        (("ann", "ANN"), {}, "annotation.annotators: duplicate annotator names"),
        (("../evil",), {}, "annotation.annotators.0: annotator name '../evil'"),
        (("ann_a\n",), {}, "annotation.annotators.0: annotator name 'ann_a\\n'"),
        ((), {}, "annotation.annotators: "),
        (("a",), {"accepted_share": 1.5}, "annotation.sample.accepted_share: "),
        (("a",), {"n_tf": -1}, "annotation.sample.n_tf: "),
        (("a",), {"n_mc": "thirty"}, "annotation.sample.n_mc: "),
        (("a",), {"oops": 1}, "annotation.sample.oops is not a parameter"),
    ],
)
def test_settings_name_the_bad_parameter(
    annotators: tuple[str, ...], sample: dict[str, Any], message: str
) -> None:
    with pytest.raises(ParamsError) as err:
        load_annotation_settings(PacketSettings, shipped_params(annotators, sample))
    assert message in str(err.value)


def test_a_missing_parameter_is_named() -> None:
    p = shipped_params()
    del p["annotation"]["sample"]["n_tf"]
    with pytest.raises(ParamsError, match=r"annotation\.sample\.n_tf is missing"):
        load_annotation_settings(PacketSettings, p)
    del p["annotation"]["accept_threshold"]
    with pytest.raises(ParamsError, match=r"annotation\.accept_threshold is missing"):
        load_annotation_settings(TableSettings, p)


def test_settings_from_the_shipped_config() -> None:
    s = load_annotation_settings(PacketSettings, shipped_params())
    assert s.sample.n_per_qtype == {"tf": 30, "mc": 30}
    assert s.accept_threshold == 13 and s.sample.accepted_share == 0.5
    assert s.annotators == ("annotator_1", "annotator_2", "annotator_3", "annotator_4")
    t = load_annotation_settings(TableSettings, shipped_params())
    assert t.agreement.consensus_rounding == "half_up" and t.agreement.bootstrap.reps == 2000


FILTER_TEMPLATE = ROOT / "conf" / "prompts" / "construct" / "filter.yaml"


def test_rubric_is_the_llm_filters_rubric() -> None:
    template = load_step_template(FILTER_TEMPLATE, "filter")
    rubric = load_rubric(FILTER_TEMPLATE)
    assert [p.key for p in rubric.principles] == list(PRINCIPLES)
    assert [p.name for p in rubric.principles] == [
        template.extras["principles"][k]["name"] for k in PRINCIPLES
    ]
    assert rubric.llm_text == filter_sections(template)["rubric"]
    assert rubric.template == template.label
    assert rubric.scale == template.extras["scale"]
    for p in rubric.principles:
        assert p.description in rubric.llm_text
        assert [pts for pts, _ in p.points] == [2, 1, 0]
        assert all(text in rubric.llm_text for _, text in p.points)
    md = rubric.to_markdown()
    assert md.count("\n## ") == 8  # seven principles and the LLM's version
    assert "`clear_time_element`" in md and rubric.llm_text in md


def test_rubric_round_trips_through_json() -> None:
    rubric = load_rubric(FILTER_TEMPLATE)
    assert Rubric.from_dict(json.loads(json.dumps(rubric.to_dict()))) == rubric


def _template(path: Path, keys: tuple[str, ...]) -> Path:
    body = "".join(
        f"  {k}:\n    name: N{i}\n    description: D{i}\n    points:\n      2: top{i}\n      0: low{i}\n"
        for i, k in enumerate(keys)
    )
    path.write_text(
        "name: filter\nversion: '9'\nscale: zero one two\nprinciples:\n"
        + body
        + "user: |-\n  {rubric}\n  {question} {answer}\n  {output_format}\n"
    )
    return path


def test_rubric_from_another_filter_template(tmp_path: Path) -> None:
    rubric = load_rubric(_template(tmp_path / "f.yaml", PRINCIPLES))
    assert rubric.template == "filter@9" and rubric.scale == "zero one two"
    assert rubric.principles[3].name == "N3" and rubric.principles[3].description == "D3"
    assert rubric.principles[3].points == ((2, "top3"), (0, "low3"))


def test_rubric_errors_are_loud(tmp_path: Path) -> None:
    with pytest.raises(RubricError, match="cannot read"):
        load_rubric(tmp_path / "missing.yaml")
    with pytest.raises(RubricError, match="principles"):
        load_rubric(_template(tmp_path / "f.yaml", PRINCIPLES[:6]))


def test_choices_column_survives_parquet(tmp_path: Path) -> None:
    path = tmp_path / "c.parquet"
    candidates().to_parquet(path, index=False)
    sample, _ = _draw(pd.read_parquet(path), _settings(2, 2))
    items = build_items(sample, articles())
    assert all(isinstance(c, str) for it in items for c in it["choices"])


def test_fixture_and_sample_use_the_construction_stages_columns() -> None:
    """The columns this stage reads exist in qa_candidates.parquet as construct writes it."""
    from prescient.benchmarks.daily_oracle.construct_settings import CANDIDATE_COLUMNS

    needed = {
        "question_id",
        "qtype",
        "question",
        "choices",
        "answer",
        "resolution_date",
        "article_id",
        "status",
        "filter_total",
        *PRINCIPLES,
    }
    assert needed <= set(CANDIDATE_COLUMNS)
    assert set(candidates().columns) <= set(CANDIDATE_COLUMNS)


def test_annotation_does_not_import_the_construction_orchestrator() -> None:
    """The rubric comes from the leaf module qa.rubric: no model gateway in the stages."""
    from prescient.plumbing.dag import closure

    for stage in ("stages.annotation_sample", "stages.agreement"):
        files = {p.relative_to(ROOT).as_posix() for p in closure(ROOT, stage)}
        assert "prescient/rubric.py" in files
        assert not [f for f in files if f.startswith("prescient/llm/")], stage
        assert "prescient/benchmarks/daily_oracle/construct.py" not in files, stage
