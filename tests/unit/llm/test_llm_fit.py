"""Prompts fitted to a model's context window (prescient.llm.fit) and the evaluation cells
that use the rule, with a scripted tokenizer (one token per whitespace-separated word) so
that every count is worked out by hand."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import pytest

from prescient.evaluation.contexts import context_frame
from prescient.evaluation.predictions import prediction_frame
from prescient.evaluation.run import (
    PlannedCall,
    plan_cell,
)
from prescient.evaluation.scoring import call_failures, context_fits
from prescient.evaluation.settings import parse_setting
from prescient.llm.embedded import smollm2_q8_0_path
from prescient.llm.fit import (
    CONTEXT_EXCEEDED,
    FITTED,
    ContextWindow,
    Fit,
    estimate_tokens,
    first_words,
    fit_prompt,
    reply_budget,
)
from prescient.llm.tokens import LlamaTokenCounter, context_window, local_counter, token_counter
from prescient.prompts import PromptTemplate
from tests.support.llm import model_spec


def words(messages: Sequence[Mapping[str, Any]]) -> int:
    """The scripted tokenizer: one token per whitespace-separated word of every message."""
    return sum(len(str(m["content"]).split()) for m in messages)


def window(tokens: int) -> ContextWindow:
    return ContextWindow("scripted", tokens, words, exact=True)


# System "S" (1 word); user "Q: <question> Articles: [1] <title>: <text> [2] ...".
RAG = PromptTemplate(
    name="rag_test",
    version="1",
    system="S",
    user={"tf": "Q: {question} {articles}", "mc": "Q: {question} {choices} {articles}"},
    parts={
        "article": "[{number}] {title}: {text}",
        "articles_header": "Articles:",
        "no_articles": "None.",
        "unknown_date": "undated",
    },
)
GOLD = PromptTemplate(
    name="gold_test",
    version="1",
    system="S",
    user={"tf": "Q: {question} {article}", "mc": "Q: {question} {choices} {article}"},
    parts={"article": "[{number}] {title}: {text}", "unknown_date": "undated"},
)
TEN = " ".join(f"w{i}" for i in range(1, 11))  # ten words, w1 .. w10
FOUR = "v1 v2 v3 v4"


def questions(*qids: str) -> pd.DataFrame:
    n = len(qids)
    return pd.DataFrame(
        {
            "question_id": list(qids),
            "question": ["Will it rain?"] * n,
            "qtype": ["tf"] * n,
            "choices": [["Yes", "No"]] * n,
            "resolution_date": [dt.date(2024, 5, 1)] * n,
        }
    )


def contexts(rows: list[tuple[str, int, str, str]]) -> pd.DataFrame:
    return context_frame(
        {
            "question_id": [r[0] for r in rows],
            "rank": [r[1] for r in rows],
            "article_id": [f"{r[0]}-a{r[1]}" for r in rows],
            "date": [dt.date(2024, 4, 1)] * len(rows),
            "title": [r[2] for r in rows],
            "text": [r[3] for r in rows],
        }
    )


def user(plan: PlannedCall) -> str:
    assert plan.request is not None
    return str(plan.request.messages[-1]["content"])


def test_a_prompt_that_fits_is_the_prompt_rendered_and_is_not_counted() -> None:
    renders: list[int | None] = []

    def render(w: int | None) -> list[dict[str, str]]:
        renders.append(w)
        return [{"role": "user", "content": first_words(TEN, w)}]

    # 10 tokens + max_tokens 6 = 16 = the window: fits exactly.
    fit = fit_prompt(render, 10, window(16), 6)
    assert fit.messages == [{"role": "user", "content": TEN}]
    assert (fit.words, fit.prompt_tokens, fit.ok, fit.fitted) == (None, 10, True, False)
    assert renders == [None]
    # No window (context_tokens null): sent as rendered, nothing counted.
    assert fit_prompt(render, 10, None, 10**6) == Fit([{"role": "user", "content": TEN}])


def test_every_article_is_cut_to_the_largest_common_length_that_fits() -> None:
    q, ctx = questions("q1"), contexts([("q1", 1, "T1", TEN), ("q1", 2, "T2", FOUR)])
    setting = parse_setting("rag_dynamic")
    # Tokens: "S" 1 + "Q: Will it rain? Articles:" 5 + "[1] T1:" 2 + "[2] T2:" 2 = 10, plus
    # min(10, W) + min(4, W) article words. Uncut: 24.
    plain = plan_cell("m", setting, q, ctx, RAG, {}, None, 0)
    assert words(plain[0].request.messages) == 24  # type: ignore[union-attr]
    # Window 24, max_tokens 0: fits as it is; the request is the very same.
    same = plan_cell("m", setting, q, ctx, RAG, {}, window(24), 0)
    assert same[0].request == plain[0].request and same[0].words_kept is None
    # Window 30 with max_tokens 10 leaves 20: 10 + W + 4 <= 20 gives W = 6 (W = 7: 21).
    fitted = plan_cell("m", setting, q, ctx, RAG, {"max_tokens": 10}, window(30), 10)
    assert fitted[0].words_kept == 6
    assert user(fitted[0]) == (
        "Q: Will it rain? Articles:\n[1] T1: w1 w2 w3 w4 w5 w6\n[2] T2: v1 v2 v3 v4"
    )
    assert words(fitted[0].request.messages) == 20  # type: ignore[union-attr]
    # Room 12: 10 + 2W <= 12 (both articles longer than W) gives W = 1.
    tight = plan_cell("m", setting, q, ctx, RAG, {}, window(22), 10)
    assert tight[0].words_kept == 1
    assert user(tight[0]) == "Q: Will it rain? Articles:\n[1] T1: w1\n[2] T2: v1"


def test_the_gold_article_is_cut_from_its_end_and_a_prompt_that_never_fits_is_not_sent() -> None:
    q = questions("q1", "q2")
    ctx = contexts([("q1", 1, "Gold", TEN), ("q2", 1, "Gold", FOUR)])
    setting = parse_setting("gold")
    # "S" 1 + "Q: Will it rain?" 4 + "[1] Gold:" 2 = 7, plus the article's words; room 12:
    # q1 keeps its first 5 words, q2 (11 tokens) fits whole.
    plans = plan_cell("m", setting, q, ctx, GOLD, {}, window(20), 8)
    assert [p.words_kept for p in plans] == [5, None]
    assert user(plans[0]) == "Q: Will it rain? [1] Gold: w1 w2 w3 w4 w5"
    assert user(plans[1]) == f"Q: Will it rain? [1] Gold: {FOUR}"
    # Room 6 < 7, the prompt without any article text: neither is sent.
    none = plan_cell("m", setting, q, ctx, GOLD, {}, window(14), 8)
    assert [p.request for p in none] == [None, None]
    assert none[0].error == (
        f"{CONTEXT_EXCEEDED}: 7 prompt tokens without any article text + max_tokens 8 > "
        "the context window of 14"
    )


def test_fitted_prompts_are_counted_per_cell_and_unsent_ones_are_not_failed_calls() -> None:
    n = 4
    frame = prediction_frame(
        {
            "model": ["m"] * n,
            "setting": ["gold", "gold", "rag", "rag"],
            "rag_cutoff": [None, None, "dynamic", "dynamic"],
            "question_id": ["q1", "q2", "q1", "q2"],
            "qtype": ["tf"] * n,
            "resolution_date": [dt.date(2024, 5, 1)] * n,
            "raw_response": ["Yes", None, "No", "Yes"],
            "error": [None, f"{CONTEXT_EXCEEDED}: 7 prompt tokens ...", None, None],
            "template": ["t"] * n,
            "template_version": ["1"] * n,
            "context_article_ids": [[]] * n,
            "context_words_kept": [5, None, 6, 9],
        }
    )
    assert context_fits(frame) == {
        "m": {
            "gold": {FITTED: 1, CONTEXT_EXCEEDED: 1, "min_words_kept": 5},
            "rag_dynamic": {FITTED: 2, CONTEXT_EXCEEDED: 0, "min_words_kept": 6},
        }
    }
    gold = call_failures(frame, 0.0)["cells"]["m"]["gold"]
    assert (gold["requests"], gold["failed"], gold["failed_share"]) == (1, 0, 0.0)
    # Predictions written before the column existed count nothing as fitted.
    old = frame.drop(columns=["context_words_kept"]).iloc[[0]]
    assert context_fits(old) == {"m": {"gold": {FITTED: 0, CONTEXT_EXCEEDED: 0}}}


def test_the_estimate_and_the_reply_budget() -> None:
    # 7 bytes + 3 bytes ("é" is two) -> ceil(10 / 3) = 4, plus 8 per message.
    assert estimate_tokens([{"content": "abcdefg"}, {"content": "aé"}]) == 4 + 16
    assert reply_budget({"max_tokens": 512, "seed": 0}, {"max_tokens": 16}) == 16
    assert reply_budget({"max_tokens": 512}, None) == 512
    assert reply_budget({}, {}) == 0
    remote = model_spec("remote", "openai/gpt-x", context_tokens=1000)
    assert token_counter(remote) is estimate_tokens
    got = context_window(remote)
    assert got is not None and (got.tokens, got.exact) == (1000, False)
    assert context_window(model_spec("unknown", "openai/gpt-x", context_tokens=None)) is None


# SmolLM2's chat template (ChatML with its default system prompt when none is given).
CAPITAL = [{"role": "user", "content": "What is the capital city of France? Answer in one word."}]
CAPITAL_PROMPT = (
    "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n<|im_start|>user\nWhat is the capital city of France? Answer in one "
    "word.<|im_end|>\n<|im_start|>assistant\n"
)


def test_the_embedded_model_counts_with_its_own_tokenizer_and_template() -> None:
    spec = model_spec("smol", "local/smollm2-135m-q8_0", context_tokens=8192)
    count = token_counter(spec)
    assert isinstance(count, LlamaTokenCounter) and count is local_counter("smollm2-135m-q8_0")
    got = context_window(spec)
    assert got is not None and got.exact
    from llama_cpp import Llama

    llm = Llama(model_path=str(smollm2_q8_0_path()), vocab_only=True, verbose=False)
    tokens = llm.tokenize(CAPITAL_PROMPT.encode(), add_bos=False, special=True)
    assert count(CAPITAL) == len(tokens) == 43
    with_system = [{"role": "system", "content": "Be brief."}, *CAPITAL]
    assert count(with_system) == len(
        llm.tokenize(
            (
                b"<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWhat is the "
                b"capital city of France? Answer in one word.<|im_end|>\n<|im_start|>assistant\n"
            ),
            add_bos=False,
            special=True,
        )
    )


@pytest.mark.slow
def test_the_exact_count_is_what_llama_cpp_reads() -> None:
    from prescient.llm.embedded import LOCAL

    count = local_counter("smollm2-135m-q8_0")
    messages = [{"role": "system", "content": "Answer Yes or No."}, *CAPITAL]
    reply = LOCAL.generate("local/smollm2-135m-q8_0", messages, {"max_tokens": 1})
    assert reply.usage["prompt_tokens"] == count(messages)


def test_construction_prompts_are_fitted_by_the_same_rule() -> None:
    from prescient.benchmarks.daily_oracle.construct import _Steps
    from prescient.benchmarks.daily_oracle.construct_settings import ConstructSettings
    from prescient.llm.steps import article_values
    from prescient.settings import load_settings
    from prescient.step_templates import load_step_templates
    from tests.conftest import ROOT
    from tests.support.llm import composed

    s = load_settings(ConstructSettings, composed(), "construct")
    s = s.model_copy(update={"article_max_chars": None})
    templates = load_step_templates(ROOT / "conf" / "prompts" / "construct", s.templates)
    text = " ".join(f"word{i}" for i in range(40))
    values = article_values("A title", text, dt.date(2024, 5, 1), None)
    tags = {"article_id": "a1"}
    plain = _Steps(templates, s, 0, lambda r, d: []).request("summary", values, tags)
    n = words(plain.messages)
    # Room for the prompt less 3 words: the article keeps its first 37 of 40 words.
    steps = _Steps(templates, s, 0, lambda r, d: [], {"summary": (window(n - 3 + 60), 60)})
    fitted = steps.request("summary", values, tags)
    assert words(fitted.messages) == n - 3
    assert fitted.tags == {**plain.tags, "context_words_kept": 37}
    content = str(fitted.messages[-1]["content"])
    assert first_words(text, 37) in content and "word37" not in content
    assert fitted.params == plain.params and fitted.template == plain.template
    assert steps.calls["summary"][FITTED] == 1 and steps.calls["generate"][FITTED] == 0
    # A prompt that fits is the very request made without a window.
    roomy = _Steps(templates, s, 0, lambda r, d: [], {"summary": (window(n + 60), 60)})
    assert roomy.request("summary", values, tags) == plain
    assert roomy.calls["summary"] == {FITTED: 0}


def test_a_key_point_request_is_fitted_as_construction_fits_it() -> None:
    from prescient.benchmarks.daily_oracle.construct import _Steps
    from prescient.benchmarks.daily_oracle.construct_settings import ConstructSettings
    from prescient.benchmarks.openforecast.keypoints import keypoint_request
    from prescient.benchmarks.openforecast.settings import KeypointSettings
    from prescient.llm.steps import article_values
    from prescient.settings import load_settings
    from prescient.step_templates import load_step_templates
    from tests.conftest import ROOT
    from tests.support.llm import composed

    p = composed()
    s = load_settings(ConstructSettings, p, "construct")
    kp = load_settings(KeypointSettings, p["chains"]["cluster"], "keypoints")
    templates = load_step_templates(ROOT / "conf" / "prompts" / "construct", s.templates)
    text = " ".join(f"word{i}" for i in range(400))
    day = dt.date(2024, 5, 1)
    row = {"article_id": "a1", "title": "A title", "text": text, "date": day}
    tags = {"article_id": "a1"}
    values = article_values("A title", text, day, s.article_max_chars)
    full = words(_Steps(templates, s, 0, lambda r, d: []).request("summary", values, tags).messages)
    fitting = (window(full - 5 + 60), 60)
    made = _Steps(templates, s, 0, lambda r, d: [], {"summary": fitting})
    built = made.request("summary", values, tags)
    got, fitted = keypoint_request(row, templates["summary"], kp, fitting)
    assert fitted and got == built  # the same request, hence the same ledger key
    assert built.tags["context_words_kept"] == len(values["text"].split()) - 5
