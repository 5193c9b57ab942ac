"""Answer log-probability requests: how likely each allowed answer is as a model's reply.

A request of kind :data:`ANSWER_LOGPROBS` (beside ``chat`` and ``logprobs``, see
:mod:`prescient.llm.logprobs`) holds chat messages, as a chat request does, and its
params name the allowed answers (``"answers": ["Yes", "No"]``, or ``["(a)", "(b)",
"(c)", "(d)"]``) beside the generation parameters, so the answers are part of the
ledger key. The model's default generation parameters apply as for chat (a server
generates its reply with them); the embedded model's values are those of its own
next-token distribution, which temperature, sampling and penalties do not enter. Its
reply's text is canonical JSON (:meth:`AnswerLogprobs.to_json`)::

    {"answers": ["Yes", "No"], "logprobs": [-0.2, -1.7], "method": "sequence", ...}

``logprobs`` holds ``ln p`` of each allowed answer (null where the provider gave none)
and ``method`` says how it was read; any further keys keep the provider's raw detail
for the audit (the tokens scored, the top tokens at the position read).
:func:`answer_distribution` turns a reply into a distribution over the allowed answers.

Methods, one per kind of transport:

- ``sequence`` (the embedded ``local/`` models, :mod:`prescient.llm.llama_eval`): the
  messages rendered with the model's chat template and the assistant turn's opening,
  exactly as its chat completions are; each answer's log-probability is the sum of the
  log-probabilities of its tokens (the answer tokenized on its own) as the continuation
  of that prompt. Exact, and the same on every run.
- ``top_logprobs`` (OpenAI-compatible chat servers, :mod:`prescient.llm.direct`): a chat
  completion asked with ``logprobs`` and the :data:`TOP_LOGPROBS` most likely tokens of
  every generated position (OpenAI's maximum); the position read is the first whose
  top tokens (or generated token) include an allowed answer, compared by
  :func:`answer_core` (spaces, parentheses and case ignored, so ``" yes"`` is ``Yes``
  and ``"b"`` or ``"(b"`` is ``(b)``). Each answer gets the log-probability of its
  best-matching token there (the highest among the tokens of the same core), null when
  none of the top tokens is that answer. An approximation: the tokens outside the top
  list, and answers spelled over several tokens, are not seen.
- ``baseline`` (``baseline/`` reference floors, :mod:`prescient.llm.baselines`): the
  uniform distribution for ``random``, all mass (``ln p = 0``, the others null) on the
  baseline's answer for ``always-yes`` and ``first-choice``.
- ``scripted``: test scripts (:func:`prescient.llm.scripted.register_answer_script`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

ANSWER_LOGPROBS = "answer_logprobs"
"""Request kind: the log-probabilities of the allowed answers (module docstring)."""

ANSWERS_PARAM = "answers"
"""The request param naming the allowed answers (keyed; never sent to a server)."""

SEQUENCE = "sequence"
TOP_LOGPROBS_METHOD = "top_logprobs"
BASELINE = "baseline"
SCRIPTED = "scripted"
METHODS = (SEQUENCE, TOP_LOGPROBS_METHOD, BASELINE, SCRIPTED)
METHOD_WORDS = {
    SEQUENCE: "whole answer sequence",
    TOP_LOGPROBS_METHOD: "top tokens at one position",
    BASELINE: "baseline's fixed forecast",
    SCRIPTED: "test script",
}
"""Each method in a few words, as the report names it (module docstring)."""

TOP_LOGPROBS = 20
"""Top tokens asked per generated position of a chat server (OpenAI's maximum)."""


class AnswerLogprobsError(RuntimeError):
    """A request cannot be answered, or a reply read, as answer log-probabilities (the
    request fails, or the caller counts the reply as holding no forecast)."""


def request_answers(params: Mapping[str, Any]) -> list[str]:
    """The allowed answers a request's params name.

    Raises:
        AnswerLogprobsError: ``answers`` is missing, not a list of at least two distinct
            non-empty strings.
    """
    answers = params.get(ANSWERS_PARAM)
    if (
        not isinstance(answers, (list, tuple))
        or len(answers) < 2
        or not all(isinstance(a, str) and a.strip() for a in answers)
        or len(set(answers)) != len(answers)
    ):
        raise AnswerLogprobsError(
            f"an {ANSWER_LOGPROBS} request names its allowed answers in params "
            f"{ANSWERS_PARAM!r}: a list of at least two distinct non-empty strings, such "
            f'as ["Yes", "No"] or ["(a)", "(b)", "(c)", "(d)"]; got {answers!r}'
        )
    return list(answers)


def generation_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The params a chat server is sent: the request's, without the allowed answers."""
    return {k: v for k, v in params.items() if k != ANSWERS_PARAM}


def top_logprobs_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI chat-completion body asking for the ``top_logprobs`` method's detail:
    the allowed answers left out, ``logprobs`` and :data:`TOP_LOGPROBS` asked for.
    What the direct client posts and what a Batch API line carries are this body."""
    return {**generation_params(body), "logprobs": True, "top_logprobs": TOP_LOGPROBS}


def top_logprobs_text(answers: Sequence[str], choice: Mapping[str, Any]) -> str:
    """The reply text of an answer log-probability request from an OpenAI chat
    completion's first choice (:func:`read_top_logprobs`), the generated text kept as
    ``reply`` for the audit.

    Raises:
        AnswerLogprobsError: as :func:`read_top_logprobs`.
    """
    message = choice.get("message") or {}
    content = (choice.get("logprobs") or {}).get("content")
    got = read_top_logprobs(answers, content)
    return replace(got, detail={**got.detail, "reply": message.get("content") or ""}).to_json()


@dataclass(frozen=True)
class AnswerLogprobs:
    """The log-probabilities of a request's allowed answers.

    Attributes:
        answers: the allowed answers, in the request's order.
        logprobs: ``ln p`` of each (None: the provider gave none).
        method: how they were read (:data:`METHODS`).
        detail: the provider's raw detail, kept for the audit.
    """

    answers: tuple[str, ...]
    logprobs: tuple[float | None, ...]
    method: str
    detail: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.answers) != len(self.logprobs):
            raise AnswerLogprobsError(
                f"{len(self.answers)} answers but {len(self.logprobs)} log-probabilities"
            )
        for lp in self.logprobs:
            if lp is not None and not (math.isfinite(lp) and lp <= 0.0):
                raise AnswerLogprobsError(f"log-probability {lp!r} is not a finite number <= 0")

    def to_json(self) -> str:
        """The reply's text: canonical JSON (sorted keys, no spaces)."""
        if set(self.detail) & {"answers", "logprobs", "method"}:
            raise ValueError("detail must not reuse the keys answers, logprobs, method")
        body = {
            **self.detail,
            "answers": list(self.answers),
            "logprobs": list(self.logprobs),
            "method": self.method,
        }
        return json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> AnswerLogprobs:
        """Read a reply's text back.

        Raises:
            AnswerLogprobsError: the text is not an answer log-probability reply.
        """
        try:
            d = json.loads(text)
            answers = tuple(str(a) for a in d.pop("answers"))
            logprobs = tuple(None if v is None else float(v) for v in d.pop("logprobs"))
            method = str(d.pop("method"))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise AnswerLogprobsError(
                f"not an {ANSWER_LOGPROBS} reply ({type(exc).__name__}: {exc}): {text[:120]!r}"
            ) from exc
        return cls(answers, logprobs, method, d)

    def distribution(self) -> list[float]:
        """The probabilities of the allowed answers, renormalised over them (an answer
        without a log-probability gets 0).

        Raises:
            AnswerLogprobsError: no answer has a log-probability.
        """
        known = [lp for lp in self.logprobs if lp is not None]
        if not known:
            raise AnswerLogprobsError(
                f"no allowed answer ({', '.join(self.answers)}) has a log-probability "
                f"(method {self.method})"
            )
        top = max(known)
        weights = [0.0 if lp is None else math.exp(lp - top) for lp in self.logprobs]
        total = math.fsum(weights)
        return [w / total for w in weights]


def answer_distribution(text: str) -> list[float]:
    """The distribution over the allowed answers that a reply's text holds, in the
    answers' order (:meth:`AnswerLogprobs.distribution`).

    Raises:
        AnswerLogprobsError: the text is no such reply, or no answer has a log-probability.
    """
    return AnswerLogprobs.from_json(text).distribution()


def answer_core(text: str) -> str:
    """What an answer or token says, for matching: without whitespace or parentheses,
    lower-cased (``"(a)"``, ``" (a"``, ``"A"`` -> ``"a"``; ``" Yes"`` -> ``"yes"``)."""
    return "".join(ch for ch in text if not ch.isspace() and ch not in "()").lower()


def read_top_logprobs(answers: Sequence[str], content: Any) -> AnswerLogprobs:
    """The allowed answers' log-probabilities from a chat completion's
    ``choices[0].logprobs.content`` (the ``top_logprobs`` method, module docstring).

    Args:
        answers: the allowed answers.
        content: one entry per generated position, each ``{"token", "logprob",
            "top_logprobs": [{"token", "logprob"}, ...]}`` (OpenAI's format).

    Raises:
        AnswerLogprobsError: the reply carries no token log-probabilities (the server
            ignored ``logprobs``), or no generated position has an allowed answer among
            its top tokens.
    """
    if not isinstance(content, list) or not content:
        raise AnswerLogprobsError(
            "the reply carries no token log-probabilities (logprobs.content): the server "
            "does not report them for chat completions"
        )
    cores = [answer_core(a) for a in answers]
    if len(set(cores)) != len(cores) or not all(cores):
        raise AnswerLogprobsError(
            f"the answers {list(answers)} are not told apart once spaces, parentheses and "
            "case are ignored"
        )
    generated: list[str] = []
    for position, entry in enumerate(content):
        try:
            chosen = (str(entry["token"]), float(entry["logprob"]))
            top = [(str(t["token"]), float(t["logprob"])) for t in entry.get("top_logprobs") or []]
        except (KeyError, TypeError, ValueError) as exc:
            raise AnswerLogprobsError(f"malformed logprobs.content[{position}]: {exc}") from exc
        generated.append(chosen[0])
        # A -inf (or NaN) log-probability says nothing; a rounding error above 0 is 0.
        candidates = [(tok, min(lp, 0.0)) for tok, lp in [*top, chosen] if math.isfinite(lp)]
        best: list[float | None] = []
        for core in cores:
            matching = [lp for tok, lp in candidates if answer_core(tok) == core]
            best.append(max(matching) if matching else None)
        if any(lp is not None for lp in best):
            return AnswerLogprobs(
                tuple(answers),
                tuple(best),
                TOP_LOGPROBS_METHOD,
                {
                    "position": position,
                    "generated": generated,
                    "top_logprobs": [[tok, lp] for tok, lp in top],
                },
            )
    raise AnswerLogprobsError(
        f"no allowed answer ({', '.join(answers)}) is among the top tokens of any of the "
        f"{len(content)} generated positions (generated: {''.join(generated)[:80]!r})"
    )
