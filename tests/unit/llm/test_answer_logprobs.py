"""Answer log-probability requests (prescient.llm.answer_logprobs): the reply format and
its distribution, the reading of a chat server's top tokens, the baselines' and test
scripts' answers through the gateway, the refusal of models that cannot answer, and the
random baseline's draw per question."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from prescient.llm.answer_logprobs import (
    ANSWER_LOGPROBS,
    TOP_LOGPROBS,
    AnswerLogprobs,
    AnswerLogprobsError,
    answer_core,
    answer_distribution,
    read_top_logprobs,
    request_answers,
)
from prescient.llm.baselines import baseline_answer
from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.llama_eval import pieces
from prescient.llm.registry import ModelConfigError
from prescient.llm.scripted import register_answer_script
from prescient.llm.transports import refusal
from prescient.llm.types import LLMRequest
from tests.support.llm import llm_settings, model_spec

TF = [{"role": "user", "content": "Will the bridge reopen by 1 May 2024?"}]
MC = [{"role": "user", "content": "Which team will win?\n(a) Red\n(b) Blue\n(c) Green\n(d) None"}]
YES_NO = ["Yes", "No"]
ABCD = ["(a)", "(b)", "(c)", "(d)"]


def gateway(tmp_path: Path, **models: str) -> Gateway:
    specs = {n: model_spec(n, m, concurrency=4) for n, m in models.items()}
    return Gateway(specs, tmp_path / "l.jsonl", stage="t", settings=llm_settings(progress=False))


def ask(model: str, messages: list[dict[str, str]], answers: list[str], **tags: Any) -> LLMRequest:
    return LLMRequest(model, messages, params={"answers": answers}, tags=tags, kind=ANSWER_LOGPROBS)


# -- the reply and its distribution ---------------------------------------------------


def test_reply_is_canonical_json_and_reads_back() -> None:
    got = AnswerLogprobs(("Yes", "No"), (-0.2, None), "sequence", {"tokens": [[1], [2]]})
    text = got.to_json()
    assert text == (
        '{"answers":["Yes","No"],"logprobs":[-0.2,null],"method":"sequence","tokens":[[1],[2]]}'
    )
    assert AnswerLogprobs.from_json(text) == got


def test_distribution_renormalises_over_the_answers_with_a_log_probability() -> None:
    # e^-0.2 / (e^-0.2 + e^-1.7) by hand: 1 / (1 + e^-1.5) = 0.8175744761936437
    p = answer_distribution(AnswerLogprobs(("Yes", "No"), (-0.2, -1.7), "x").to_json())
    assert p[0] == pytest.approx(1 / (1 + math.exp(-1.5)), abs=1e-15)
    assert math.fsum(p) == pytest.approx(1.0, abs=1e-15)
    # An answer without a log-probability gets 0; the rest share all the mass.
    q = AnswerLogprobs(tuple(ABCD), (math.log(0.1), None, math.log(0.3), None), "x")
    assert q.distribution() == pytest.approx([0.25, 0.0, 0.75, 0.0], abs=1e-12)
    # Very unlikely answers still renormalise (no underflow to 0/0).
    far = AnswerLogprobs(("Yes", "No"), (-900.0, -901.0), "x").distribution()
    assert far == pytest.approx([1 / (1 + math.exp(-1)), 1 / (1 + math.exp(1))], abs=1e-12)


def test_a_reply_without_any_answer_log_probability_is_a_clear_failure() -> None:
    with pytest.raises(AnswerLogprobsError, match=r"no allowed answer \(Yes, No\)"):
        answer_distribution(AnswerLogprobs(("Yes", "No"), (None, None), "x").to_json())
    with pytest.raises(AnswerLogprobsError, match="not an answer_logprobs reply"):
        answer_distribution("Yes")
    with pytest.raises(AnswerLogprobsError, match="not a finite number <= 0"):
        AnswerLogprobs(("Yes", "No"), (0.5, -1.0), "x")


@pytest.mark.parametrize(
    "answers", [None, ["Yes"], ["Yes", "Yes"], ["Yes", ""], "Yes,No", ["Yes", 1]]
)
def test_the_allowed_answers_must_be_named(answers: Any) -> None:
    with pytest.raises(AnswerLogprobsError, match="at least two distinct non-empty"):
        request_answers({"answers": answers})


def test_pieces_never_leave_a_single_token() -> None:
    """The embedded model's evaluations: no logits used come from a one-token micro-batch."""
    assert pieces(0, 128) == []
    assert pieces(1, 128) == [(0, 1)]
    assert pieces(128, 128) == [(0, 128)]
    assert pieces(129, 128) == [(0, 127), (127, 129)]
    assert pieces(257, 128) == [(0, 128), (128, 255), (255, 257)]
    assert pieces(130, 128) == [(0, 128), (128, 130)]


# -- a chat server's top tokens ---------------------------------------------------------


def test_answer_core_ignores_spaces_parentheses_and_case() -> None:
    assert [answer_core(t) for t in ["(a)", " (a", "A", "a)", " Yes", "YES\n", "("]] == [
        "a",
        "a",
        "a",
        "a",
        "yes",
        "yes",
        "",
    ]


def position(token: str, lp: float, *top: tuple[str, float]) -> dict[str, Any]:
    return {
        "token": token,
        "logprob": lp,
        "top_logprobs": [{"token": t, "logprob": v} for t, v in top],
    }


def test_top_logprobs_read_the_first_position_naming_an_answer() -> None:
    content = [
        position("(", -0.01, ("(", -0.01), ("The", -5.0)),  # no answer here
        position("b", -0.4, ("b", -0.4), ("a", -1.3), ("B", -2.0), (" c", -3.5), ("x", -4.0)),
        position(")", -0.001, (")", -0.001), ("a", -0.2)),  # later positions are not read
    ]
    got = read_top_logprobs(ABCD, content)
    # (b): the best of "b" and "B"; (d) is not among the top tokens.
    assert got.logprobs == (-1.3, -0.4, -3.5, None)
    assert got.method == "top_logprobs" and got.detail["position"] == 1
    assert got.detail["generated"] == ["(", "b"]
    p = got.distribution()
    z = math.exp(-1.3) + math.exp(-0.4) + math.exp(-3.5)
    assert p == pytest.approx([math.exp(-1.3) / z, math.exp(-0.4) / z, math.exp(-3.5) / z, 0.0])


def test_top_logprobs_count_the_generated_token_and_clip_rounding_above_zero() -> None:
    content = [position(" Yes", 1e-9, (" No", -21.0))]  # the chosen token not in its top list
    got = read_top_logprobs(YES_NO, content)
    assert got.logprobs == (0.0, -21.0)


def test_top_logprobs_failures_are_named() -> None:
    with pytest.raises(AnswerLogprobsError, match="no token log-probabilities"):
        read_top_logprobs(YES_NO, None)
    with pytest.raises(AnswerLogprobsError, match=r"no allowed answer \(Yes, No\).*'Maybe'"):
        read_top_logprobs(YES_NO, [position("Maybe", -0.1, ("Perhaps", -2.0))])
    with pytest.raises(AnswerLogprobsError, match="not told apart"):
        read_top_logprobs(["(a)", "A"], [position("a", -0.1)])
    with pytest.raises(AnswerLogprobsError, match=r"malformed logprobs.content\[0\]"):
        read_top_logprobs(YES_NO, [{"token": "Yes"}])


# -- in-process answers through the gateway --------------------------------------------


def test_baselines_answer_their_distributions(tmp_path: Path) -> None:
    gw = gateway(
        tmp_path, rnd="baseline/random", yes="baseline/always-yes", first="baseline/first-choice"
    )
    out = gw.complete_many(
        [ask(m, q, a) for m in ("rnd", "yes", "first") for q, a in ((TF, YES_NO), (MC, ABCD))]
    )
    assert all(r.ok for r in out), [r.error for r in out]
    dists = [answer_distribution(r.text or "") for r in out]
    assert dists[0] == [0.5, 0.5] and dists[1] == [0.25] * 4
    assert dists[2:] == [[1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0], [1.0, 0.0, 0.0, 0.0]]
    replies = [json.loads(r.text or "") for r in out]
    assert replies[0]["logprobs"] == [-math.log(2)] * 2 and replies[0]["method"] == "baseline"
    assert replies[3]["logprobs"] == [0.0, None, None, None]
    # The random baseline's reply keeps its pick: the answer its chat reply gives.
    assert replies[0]["pick"] == baseline_answer("random", TF)
    assert replies[1]["pick"] == baseline_answer("random", MC)
    # always-yes on answers without Yes: the first one, as its chat answer.
    (no_yes,) = gw.complete_many([ask("yes", TF, ["No", "Yes"]), ask("yes", TF, ["A", "B"])])[1:]
    assert json.loads(no_yes.text or "")["logprobs"] == [0.0, None]


def test_the_answers_are_part_of_the_key_and_the_kind_is_stored(tmp_path: Path) -> None:
    gw = gateway(tmp_path, rnd="baseline/random")
    chat = LLMRequest("rnd", TF)
    tf = ask("rnd", TF, YES_NO)
    other = ask("rnd", TF, ["No", "Yes"])
    keys = {gw.key_for(r) for r in (chat, tf, other)}
    assert len(keys) == 3
    out = gw.complete_many([chat, tf, other])
    assert out[0].text in YES_NO and answer_distribution(out[2].text or "") == [0.5, 0.5]
    gw.close()
    again = gateway(tmp_path, rnd="baseline/random").complete_many([tf])
    assert again[0].from_ledger and again[0].text == out[1].text
    assert len(list(read_entries(tmp_path / "l.jsonl"))) == 3


def test_scripted_answer_log_probabilities_and_their_failures(tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def script(messages: Any, answers: Any) -> list[float | None]:
        seen.append(list(answers))
        if "fail" in messages[-1]["content"]:
            raise ValueError("no forecast")
        return [math.log(0.7), math.log(0.2), None, math.log(0.1)][: len(answers)]

    model = register_answer_script("answers", script)
    gw = gateway(tmp_path, s=model, u="scripted/unregistered")
    out = gw.complete_many(
        [
            ask("s", MC, ABCD),
            ask("s", [{"role": "user", "content": "fail"}], YES_NO),
            ask("u", TF, YES_NO),
            LLMRequest("s", TF, params={"answers": ["Yes"]}, kind=ANSWER_LOGPROBS),
        ]
    )
    assert answer_distribution(out[0].text or "") == pytest.approx([0.7, 0.2, 0.0, 0.1])
    assert json.loads(out[0].text or "")["method"] == "scripted"
    assert [r.ok for r in out] == [True, False, False, False]
    assert out[1].error == "AnswerLogprobsError: ValueError: no forecast"
    assert "no answer log-probability script 'unregistered'" in (out[2].error or "")
    assert "at least two distinct non-empty strings" in (out[3].error or "")
    assert seen == [ABCD, YES_NO]


# -- refusal ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("litellm_model", "api_base", "reason"),
    [
        ("anthropic/claude-3-5-sonnet", None, "served through litellm"),
        ("hosted_vllm/m", None, "without an api_base"),
        ("text-completion-openai/m", "http://127.0.0.1:9/v1", "served through litellm"),
    ],
)
def test_models_that_cannot_give_answer_log_probabilities_are_refused(
    tmp_path: Path, litellm_model: str, api_base: str | None, reason: str
) -> None:
    spec = model_spec("chatty", litellm_model, api_base=api_base)
    assert reason in (refusal(spec, ANSWER_LOGPROBS) or "")
    gw = Gateway(
        {"chatty": spec}, tmp_path / "l.jsonl", stage="t", settings=llm_settings(progress=False)
    )
    with (
        gw,
        pytest.raises(
            ModelConfigError, match=f"'chatty' .*cannot answer answer_logprobs requests: .*{reason}"
        ),
    ):
        gw.complete_many([ask("chatty", TF, YES_NO)])
    assert gw.stats.calls == 0


def test_the_kinds_that_can_answer() -> None:
    for model, base in [
        ("openai/gpt-4o-mini", None),
        ("openai/m", "http://127.0.0.1:9/v1"),
        ("hosted_vllm/m", "http://127.0.0.1:9/v1"),
        ("local/smollm2-135m-q8_0", None),
        ("baseline/random", None),
        ("scripted/x", None),
    ]:
        assert refusal(model_spec("m", model, api_base=base), ANSWER_LOGPROBS) is None, model
    assert "unknown request kind" in (refusal(model_spec("m", "baseline/random"), "votes") or "")
    assert "answer_logprobs" in (refusal(model_spec("m", "baseline/random"), "votes") or "")
    assert TOP_LOGPROBS == 20


# -- the random baseline draws per question ----------------------------------------------


def settings_prompts(i: int) -> dict[str, list[dict[str, str]]]:
    """One question's prompts in three settings: the same question, different context."""
    question = f"Will the dam on river {i} be finished by 2025?\nAnswer Yes or No."
    if i % 2:
        question = (
            f"Which city will host event {i}?\n(a) Oslo\n(b) Lima\n(c) Pune\n(d) Kyiv\n"
            "Answer with the letter."
        )
    return {
        "closed_book": [{"role": "user", "content": question}],
        "rag": [{"role": "user", "content": f"Articles: flood news {i}.\n\n{question}"}],
        "gold": [{"role": "user", "content": f"Article: the report on {i}.\n\n{question}"}],
    }


def test_random_baseline_gives_one_question_the_same_answer_in_every_setting(
    tmp_path: Path,
) -> None:
    gw = gateway(tmp_path, rnd="baseline/random")
    requests, forecasts = [], []
    for i in range(60):
        answers = ABCD if i % 2 else YES_NO
        for setting, messages in settings_prompts(i).items():
            tags = {"question_id": f"q{i}", "setting": setting}
            requests.append(LLMRequest("rnd", messages, tags=tags))
            forecasts.append(ask("rnd", messages, answers, **tags))
    chat = gw.complete_many(requests)
    probs = gw.complete_many(forecasts)
    assert all(r.ok for r in chat + probs)
    by_question: dict[str, set[str]] = {}
    for r, f in zip(chat, probs, strict=True):
        qid = str(r.request.tags["question_id"])
        by_question.setdefault(qid, set()).add(r.text or "")
        assert json.loads(f.text or "")["pick"] == r.text  # one draw serves both kinds
    assert all(len(picks) == 1 for picks in by_question.values()), by_question
    # Draws still differ between questions, over every offered choice.
    picks = Counter(next(iter(p)) for p in by_question.values())
    assert set(picks) == {"Yes", "No", *ABCD}, picks
    # draw: prompt (a keyed parameter) seeds by the prompt: settings' picks differ.
    by_prompt = gw.complete_many(
        [LLMRequest("rnd", r.messages, params={"draw": "prompt"}, tags=r.tags) for r in requests]
    )
    assert not {r.key for r in by_prompt} & {r.key for r in chat}
    per_prompt: dict[str, set[str]] = {}
    for r in by_prompt:
        per_prompt.setdefault(str(r.request.tags["question_id"]), set()).add(r.text or "")
    assert sum(len(p) > 1 for p in per_prompt.values()) > 20
    (odd,) = gw.complete_many([LLMRequest("rnd", TF, params={"draw": "dice"})])
    assert not odd.ok and "random baseline draw 'dice'; known: question, prompt" in (
        odd.error or ""
    )
    # Without a question_id the prompt seeds the draw (the same prompt, the same pick),
    # and the seed parameter moves the draw.
    prompt = settings_prompts(1)["closed_book"]
    assert baseline_answer("random", prompt) == baseline_answer("random", prompt)
    by_seed = {
        baseline_answer("random", prompt, seed=s, tags={"question_id": "q"}) for s in range(40)
    }
    assert by_seed == set(ABCD)


def test_baselines_state_their_forecast_when_asked_for_a_probability() -> None:
    from prescient.evaluation.probability import parse_probability
    from prescient.llm.baselines import baseline_answer

    mc = [{"role": "user", "content": "Which?\n(a) x\n(b) y\n(c) z\n(d) w"}]
    tf = [{"role": "user", "content": "Will it?"}]
    asked = {"elicitation": "verbal_probability", "question_id": "q1"}
    # The random baseline states the uniform forecast and names its own draw.
    tf_pick = baseline_answer("random", tf, 0, {"question_id": "q1"})
    mc_pick = baseline_answer("random", mc, 0, {"question_id": "q1"})
    assert baseline_answer("random", tf, 0, asked) == f"P(Yes) = 50%\nAnswer: {tf_pick}"
    assert baseline_answer("random", mc, 0, asked) == (
        f"(a) 25%\n(b) 25%\n(c) 25%\n(d) 25%\nAnswer: {mc_pick}"
    )
    assert baseline_answer("always-yes", tf, 0, asked) == "P(Yes) = 100%\nAnswer: Yes"
    stated = baseline_answer("first-choice", mc, 0, asked)
    assert parse_probability(stated, "mc", ["x", "y", "z", "w"]).probs == (1.0, 0.0, 0.0, 0.0)
    # Asked for a label, the same baselines answer with one.
    assert baseline_answer("first-choice", mc, 0, {"question_id": "q1"}) == "(a)"


def test_questions_worded_alike_draw_apart_and_every_elicitation_labels_the_draw(
    tmp_path: Path,
) -> None:
    from prescient.evaluation.forecasts import read_forecast

    gw = gateway(tmp_path, rnd="baseline/random")
    verbal = "verbal_probability"
    kinds: dict[str, list[LLMRequest]] = {"label": [], verbal: [], "token_logprobs": []}
    for i in range(40):
        # Every question has the same wording: only its id tells them apart.
        messages, answers = (MC, ABCD) if i % 2 else (TF, YES_NO)
        tags = {"question_id": f"q{i}"}
        kinds["label"].append(LLMRequest("rnd", messages, tags=tags))
        stated = [{"role": "user", "content": messages[0]["content"] + "\nHow likely?"}]
        kinds[verbal].append(LLMRequest("rnd", stated, tags={**tags, "elicitation": verbal}))
        kinds["token_logprobs"].append(ask("rnd", messages, answers, **tags))
    got = {kind: gw.complete_many(reqs) for kind, reqs in kinds.items()}
    assert all(r.ok and not r.from_ledger for rs in got.values() for r in rs)
    # One key, and one draw, per question: the question's id is keyed.
    assert len({r.key for r in got["label"]}) == 40
    picks = [r.text for r in got["label"]]
    assert len(set(picks[0::2])) == 2 and len(set(picks[1::2])) == 4, picks
    # Each elicitation reads the same label from its reply: the baseline's draw, not the
    # first of the tied answers.
    for kind, results in got.items():
        labels = []
        for i, r in enumerate(results):
            qtype, choices = ("mc", ["Red", "Blue", "Green", "None"]) if i % 2 else ("tf", YES_NO)
            f = read_forecast(kind, r.text, qtype, choices)
            labels.append((ABCD if i % 2 else YES_NO)[f.index or 0])
        assert labels == picks, kind
    # The same question asked again is served from the ledger, draw and all.
    again = gw.complete_many(kinds["label"][:4])
    assert all(r.from_ledger for r in again) and [r.text for r in again] == picks[:4]
