"""The records every stage exchanges with the LLM gateway.

This is the contract between stages and ``prescient.llm.gateway``: a stage builds
``LLMRequest`` objects, calls ``Gateway.complete_many`` and gets one ``LLMResult`` per
request, in order, with failures marked rather than raised. ``Reply`` is the contract
between the gateway and its transports: what any provider answered, in one shape.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LLMRequest:
    """One request to make: a chat completion, or the log-probabilities of a text.

    Attributes:
        model: registry name of the model (a key of ``params["models"]``, i.e. a file
            ``conf/model/<name>.yaml``), not the litellm string.
        messages: OpenAI-style chat messages, ``{"role": ..., "content": ...}``.
        template: name of the prompt template that produced the messages (audit only).
        template_version: its version (audit only).
        params: generation parameters overriding the model's defaults for this request
            (temperature, max_tokens, seed, stop, ...). Part of the ledger key.
        tags: caller's identifiers (question id, article id, step); stored in the ledger
            for auditing, never part of the key. The random baseline draws its answer
            per ``question_id`` tag (:mod:`prescient.llm.baselines`).
        kind: ``chat`` (a chat completion), ``logprobs``: the log-probabilities of the
            text that is the one message (:mod:`prescient.llm.logprobs`; its params say
            how the text is read, and the model's default generation parameters, which
            are for chat, do not apply), or ``answer_logprobs``: the log-probabilities
            of the allowed answers (``params["answers"]``) as the reply to the chat
            messages (:mod:`prescient.llm.answer_logprobs`; the model's defaults apply
            as for chat). Not part of the key: the messages and params of the kinds
            differ anyway.
        options: how the answer is computed, never what is asked (llama.cpp's
            micro-batch ``n_ubatch``, which leaves the logits unchanged): neither keyed
            nor stored.
        quoted: long texts the messages quote word for word that many requests share
            (the articles a RAG or gold prompt shows). The response store keeps each
            once and its line refers to it (:mod:`prescient.llm.text_pool`); the entry
            read back is the same. Not part of the key.
    """

    model: str
    messages: Sequence[Mapping[str, str]]
    template: str = ""
    template_version: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    tags: Mapping[str, Any] = field(default_factory=dict)
    kind: str = "chat"
    options: Mapping[str, Any] = field(default_factory=dict)
    quoted: tuple[str, ...] = ()


@dataclass(frozen=True)
class LLMResult:
    """The outcome of one request.

    Attributes:
        request: the request this answers.
        key: the ledger key (sha256 of the canonical request).
        ok: True when the model returned a response.
        text: the response text (None when the call failed); for a log-probability
            request, the score's JSON (:meth:`prescient.llm.logprobs.DocScore.from_json`);
            for an answer log-probability request, the answers' JSON
            (:func:`prescient.llm.answer_logprobs.answer_distribution`).
        error: why it failed, after the last retry (None when ok).
        finish_reason: as reported by the provider.
        usage: token counts (prompt_tokens, completion_tokens, total_tokens).
        cost: USD when litellm knows the price, else None.
        latency_s: wall time of the successful attempt.
        from_ledger: True when served from the ledger without calling the model.
        served_model: the model that answered as the server named it (its reply's
            ``model``; an in-process model's weights file), None when unknown
            (:func:`served_model`).
        litellm_model: the model string the request was keyed and sent under (the
            entry's ``litellm_model``; None where no entry names it).
    """

    request: LLMRequest
    key: str
    ok: bool
    text: str | None
    error: str | None = None
    finish_reason: str | None = None
    usage: Mapping[str, int] = field(default_factory=dict)
    cost: float | None = None
    latency_s: float | None = None
    from_ledger: bool = False
    served_model: str | None = None
    litellm_model: str | None = None


Complete = Callable[[Sequence[LLMRequest], str], list[LLMResult]]
"""A batch completion function: ``Gateway.complete_many(requests, desc)``. Library code
takes this instead of the gateway, so tests can answer requests without one."""


def count_calls(counter: Counter[str], results: Sequence[LLMResult], prefix: str = "") -> None:
    """Add a batch to a stage's call accounting: ``<prefix>requests`` and
    ``<prefix>failed``.

    One rule for every stage's metrics, so the counts mean the same thing everywhere.
    How many answers came from the ledger is logged (by the gateway) but not counted
    here: metrics are DVC outputs, and a resumed run must write the same bytes as an
    uninterrupted one.
    """
    counter[f"{prefix}requests"] += len(results)
    counter[f"{prefix}failed"] += sum(not r.ok for r in results)


@dataclass(frozen=True)
class Reply:
    """What a transport got back from a model, whatever the provider or wire format.

    Attributes:
        text: the response text ("" when the model said nothing).
        finish_reason: as reported by the provider.
        usage: token counts (prompt_tokens, completion_tokens, total_tokens).
        cost: USD when the price is known, else None.
        provenance: where the answer was computed, for the audit (the embedded model
            records its library versions and build features); never part of the key.
    """

    text: str
    finish_reason: str | None
    usage: Mapping[str, int]
    cost: float | None = None
    provenance: Mapping[str, Any] | None = None


SERVED_MODEL = "served_model"
"""The provenance key of the model id a server reports in its reply (``model``)."""


def served_model(provenance: Mapping[str, Any] | None) -> str | None:
    """The served model an entry's provenance names: what the server reported, or an
    in-process model's weights file; None when it names none."""
    if not provenance:
        return None
    named = provenance.get(SERVED_MODEL)
    if isinstance(named, str) and named:
        return named
    weights = provenance.get("weights")
    if isinstance(weights, Mapping) and isinstance(weights.get("file"), str):
        return str(weights["file"])
    return None
