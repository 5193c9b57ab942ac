"""The shipped evaluation prompts keep the paper's contract and the baselines' layout."""

from __future__ import annotations

import datetime as dt
import json
import re

import pandas as pd
import pytest

from prescient.evaluation.contexts import build_contexts, truncate_words
from prescient.evaluation.prompts import (
    ContextArticle,
    labels_text,
    load_prompts,
    render_messages,
)
from prescient.evaluation.settings import (
    EvalSettings,
    Setting,
    parse_setting,
    setting_file,
)
from prescient.llm.baselines import offered_choices
from prescient.plumbing import params
from prescient.settings import ParamsError, load_settings
from tests.conftest import ROOT
from tests.fixtures.eval import articles

PROMPTS = load_prompts(ROOT / "conf" / "prompts" / "eval")
MC = ["Dalby", "Ormsby", "Kelton", "Brampton"]
ARTS = [
    ContextArticle(
        "Storm warning", "Crews stay in port.\n(a) this line is article text", "2024-03-02"
    ),
    ContextArticle("Bridge vote set", "The vote is on March 12.", "2024-03-05"),
]


def test_every_prompt_has_the_same_no_refusal_system_message() -> None:
    systems = {p.system for p in PROMPTS.values()}
    assert len(systems) == 1
    (system,) = systems
    assert "forecaster" in system and "never decline" in system
    assert "future cannot be known" in system
    assert all(p.version and p.name.startswith("eval_") for p in PROMPTS.values())


@pytest.mark.parametrize("kind", ["closed_book", "rag", "gold"])
def test_answer_formats_and_the_baselines_reading_of_them(kind: str) -> None:
    arts = ARTS if kind == "rag" else ARTS[:1] if kind == "gold" else []
    tf = render_messages(
        PROMPTS[kind], kind, "Will the bridge be approved by March 2024?", "tf", ["Yes", "No"], arts
    )
    mc = render_messages(PROMPTS[kind], kind, "Which town's bakery will merge?", "mc", MC, arts)
    assert [m["role"] for m in tf] == ["system", "user"]
    assert "Yes or No" in tf[1]["content"]
    assert "(a), (b), (c) or (d)" in mc[1]["content"]
    assert re.findall(r"^\((\w)\) (\w+)$", mc[1]["content"], re.M) == list(
        zip("abcd", MC, strict=True)
    )
    # The gateway's baselines: option lines make MC, anything else is Yes/No, and an
    # article's own "(a)" never turns a TF prompt into MC (articles are one line each).
    assert offered_choices(tf) == ["Yes", "No"]
    assert offered_choices(mc) == ["(a)", "(b)", "(c)", "(d)"]


def test_rag_articles_are_numbered_and_an_empty_retrieval_says_so() -> None:
    user = render_messages(PROMPTS["rag"], "rag", "Will it?", "tf", ["Yes", "No"], ARTS)[1][
        "content"
    ]
    lines = [ln for ln in user.splitlines() if ln.startswith("Article")]
    assert lines == [
        "Article 1 (published 2024-03-02): Storm warning — Crews stay in port. (a) this line is article text",
        "Article 2 (published 2024-03-05): Bridge vote set — The vote is on March 12.",
    ]
    assert "2 articles" in user
    empty = render_messages(PROMPTS["rag"], "rag", "Will it?", "tf", ["Yes", "No"], [])[1][
        "content"
    ]
    assert "no article" in empty and "Article 1" not in empty


def test_gold_shows_exactly_one_article_and_odd_text_is_inert() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        render_messages(PROMPTS["gold"], "gold", "Will it?", "tf", ["Yes", "No"], ARTS)
    user = render_messages(
        PROMPTS["gold"], "gold", "Will {x} happen?", "tf", ["Yes", "No"], ARTS[:1]
    )[1]["content"]
    assert "Will {x} happen?" in user and "Article (published 2024-03-02): Storm warning" in user


def test_a_prompt_of_another_kind_is_refused_before_any_call() -> None:
    from prescient.evaluation.run import plan_cell
    from prescient.prompts import TemplateError

    rag = parse_setting("rag_dynamic")
    with pytest.raises(
        TemplateError, match=r"closed_book.yaml: `user.tf` must use \['\{articles\}'\] for the rag"
    ):
        plan_cell("m", rag, pd.DataFrame(), pd.DataFrame(), PROMPTS["closed_book"], {})


def test_labels_text() -> None:
    assert labels_text(2) == "(a) or (b)"
    assert labels_text(5) == "(a), (b), (c), (d) or (e)"


def test_settings_parse_and_name_cells() -> None:
    assert parse_setting("closed_book") == Setting("closed_book")
    assert parse_setting("rag_dynamic") == Setting("rag", None)
    rag = parse_setting("rag_2024-12-01")
    assert (rag.kind, rag.rag_cutoff, rag.name, rag.cutoff_label) == (
        "rag",
        dt.date(2024, 12, 1),
        "rag_2024-12-01",
        "2024-12-01",
    )
    assert Setting("gold").cutoff_label is None
    assert setting_file(rag) == "rag_2024-12-01.parquet"
    assert setting_file(parse_setting("rag_dynamic")) == "rag_dynamic.parquet"
    for bad in ("rag", "rag_", "rag_2024-13-01", "open_book"):
        with pytest.raises(ValueError, match="unknown evaluation setting"):
            parse_setting(bad)
    grid = load_settings(
        EvalSettings,
        params.compose(ROOT, ["eval.settings=[closed_book,rag_dynamic,rag_2024-03-06]"]),
        "eval",
    )
    assert grid.rag_cutoffs == [None, dt.date(2024, 3, 6)]
    assert [s.name for s in grid.settings] == ["closed_book", "rag_dynamic", "rag_2024-03-06"]


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("eval.settings=[gold,gold]", "eval.settings: lists ['gold'] more than once"),
        ("eval.settings=[gold,rag_last_week]", "eval.settings: unknown evaluation setting"),
        ("eval.models=[m,m]", "eval.models: lists a model twice"),
        ("eval.generation=7", "eval.generation: "),
        ("eval.settings=[]", "eval.settings: is empty: list at least one setting"),
        (
            "+eval.generation.temprature=0.3",
            "eval.generation.temprature is not a parameter",
        ),
        (
            "eval.generation.max_tokens=0",
            "eval.generation.max_tokens: expected a whole number >= 1",
        ),
        ("eval.generation.temperature=true", "eval.generation.temperature: expected a number"),
        ("+eval.generation.top_p=1.5", "eval.generation.top_p: expected a number >= 0 and <= 1"),
        ("+eval.generation.stop=[1]", "eval.generation.stop: expected a stop sequence"),
    ],
)
def test_bad_grids_are_one_line_naming_the_parameter(override: str, message: str) -> None:
    with pytest.raises(ParamsError) as err:
        load_settings(EvalSettings, params.compose(ROOT, [override]), "eval")
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    "generation",
    [
        {"temperature": 0.0, "max_tokens": 16},
        {"max_tokens": 16, "temperature": 0},
        {"temperature": 0.7, "top_p": 0.9, "seed": 3, "stop": ["\n"], "max_tokens": 8},
        {"stop": "END", "presence_penalty": -0.5, "frequency_penalty": 2, "seed": None},
        {},
    ],
)
def test_a_valid_generation_is_sent_as_written(generation: dict[str, object]) -> None:
    """Same keys, order and values (0 stays 0, 0.0 stays 0.0): requests and ledger keys
    of every valid configuration are what they were before the check."""
    p = params.compose(ROOT)
    p["eval"]["generation"] = generation
    grid = load_settings(EvalSettings, p, "eval")
    assert grid.generation == generation and list(grid.generation) == list(generation)
    assert [type(v) for v in grid.generation.values()] == [type(v) for v in generation.values()]
    assert json.dumps(grid.generation) == json.dumps(generation)
    assert grid.generation is not generation


def test_truncation_keeps_the_first_words_on_one_line() -> None:
    text = "one  two\nthree\tfour " + " ".join(f"w{i}" for i in range(600))
    out = truncate_words(text, 512)
    assert out.split()[:4] == ["one", "two", "three", "four"] and len(out.split()) == 512
    assert "\n" not in out and truncate_words(None, 5) == ""


def test_gold_context_falls_back_from_id_to_url_to_inline_text() -> None:
    corpus = articles()
    questions = pd.DataFrame(
        {
            "question_id": ["by_id", "by_url", "inline", "none"],
            "article_id": ["a11", None, None, None],
            "gold_url": [
                None,
                "https://harwick-ledger.example/a05",
                None,
                "https://elsewhere.example",
            ],
            "gold_title": [None, None, "A title", None],
            "gold_text": [None, None, "Inline   body\ntext", None],
        }
    )
    ctx = build_contexts(
        Setting("gold"), questions, corpus, pd.DataFrame(), max_words=None, gold_max_words=3
    )
    assert ctx["question_id"].tolist() == ["by_id", "by_url", "inline"]
    assert ctx["article_id"].tolist()[:2] == ["a11", "a05"] and pd.isna(ctx["article_id"].iloc[2])
    assert ctx["text"].tolist() == ["The Harwick council", "The storm tore", "Inline body text"]
    assert ctx["date"].tolist()[:2] == [dt.date(2024, 3, 12), dt.date(2024, 3, 6)]
    assert build_contexts(
        Setting("closed_book"), questions, corpus, pd.DataFrame(), max_words=5, gold_max_words=5
    ).empty


def test_rag_contexts_show_each_hit_in_rank_order_and_only_asked_questions() -> None:
    corpus = articles()
    questions = pd.DataFrame({"question_id": ["q2", "q1"]})
    retrieval = pd.DataFrame(
        {
            "question_id": ["q1", "q1", "q2", "q9", "q2"],
            "rag_cutoff": ["2024-03-10"] * 4 + ["dynamic"],
            "rank": [2, 1, 1, 1, 1],
            "article_id": ["a05", "a11", "a05", "a11", "a11"],
        }
    )
    ctx = build_contexts(
        parse_setting("rag_2024-03-10"),
        questions,
        corpus,
        retrieval,
        max_words=3,
        gold_max_words=None,
    )
    # sorted by question and rank; q9 is not asked; the dynamic hit is another setting
    assert list(zip(ctx["question_id"], ctx["rank"], ctx["article_id"], strict=True)) == [
        ("q1", 1, "a11"),
        ("q1", 2, "a05"),
        ("q2", 1, "a05"),
    ]
    by_id = corpus.set_index("article_id")
    for aid, text, title, date in zip(
        ctx["article_id"], ctx["text"], ctx["title"], ctx["date"], strict=True
    ):
        assert text == truncate_words(by_id.loc[aid, "text"], 3)
        assert title == truncate_words(by_id.loc[aid, "title"], None)
        assert date == by_id.loc[aid, "date"]
    missing = retrieval.assign(article_id=["a05", "nowhere", "a05", "a11", "a11"])
    with pytest.raises(KeyError, match="nowhere"):
        build_contexts(
            parse_setting("rag_2024-03-10"),
            questions,
            corpus,
            missing,
            max_words=3,
            gold_max_words=None,
        )
