"""Baselines: reference floors for evaluation prompts, answered without any model.

``baseline/random``, ``baseline/always-yes``, ``baseline/first-choice`` sit behind the
in-process transport (:mod:`prescient.llm.providers`) like any model, so the ledger,
limits and result handling apply to them alike. They answer answer log-probability
requests too (method ``baseline``): over the request's allowed answers, ``random`` the
uniform distribution, ``always-yes`` and ``first-choice`` all mass on the answer they
give. They assign no probability to text, so log-probability requests are refused.

Baseline prompt convention (what the evaluation prompts must follow for baselines to
mean anything): the offered choices are read from the last user message. A
multiple-choice question lists its options on lines of their own that start with a
lower-case letter in parentheses, ``(a) ...``, ``(b) ...`` (at least two); the baseline
answers with the label, e.g. ``(c)``. A message without such lines is a true/false
question and the offered answers are ``Yes`` and ``No``. This matches the answer
formats of the evaluation prompts (Daily Oracle, ICML 2025, appendix D: exactly Yes/No,
exactly (a)/(b)/(c)/(d)).
``random`` picks uniformly, seeded by a hash of the request's ``seed`` parameter and,
with its ``draw`` parameter ``question`` (the default, and the registry entry's), the
question's identity: the ``question_id`` tag of the request (:class:`LLMRequest.tags
<prescient.llm.types.LLMRequest>`). One question then gets the same pick whatever its
prompt (closed-book, retrieval or gold-article), so a setting's accuracy does not move
with the draws. A request without that tag, or with ``draw: prompt``, is seeded by its
messages instead: the same prompt always gets the same pick. ``draw`` is a keyed
parameter, so answers drawn one way are never served for the other, and with ``draw``
``question`` the question's identity is keyed too (:func:`keyed_params`): requests with
the same ledger key share one answer, as for any model, so two questions worded alike
must not share a key. Its answer log-probability reply keeps the pick beside the
uniform distribution (``pick``): one draw serves every elicitation.
``always-yes`` answers Yes to a true/false question and the first option otherwise;
``first-choice`` answers the first offered choice (Yes for true/false, (a) for multiple
choice).

A request tagged ``elicitation: verbal_probability`` (a prompt asking for a probability
rather than a label; ``scratchpad``: the same after a ``Final forecast:`` line) gets
each baseline's forecast stated as probabilities: ``random``
the uniform one (``P(Yes) = 50%``, or ``(a) 25%`` on a line per option), ``always-yes``
and ``first-choice`` all of it on their answer; so a baseline is the same forecaster
whichever way it is asked. A stated reply names the baseline's answer on a last line,
``Answer: (c)``, so a uniform forecast's label is the baseline's own draw under every
elicitation (:func:`prescient.evaluation.probability.stated_choice`).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from prescient.llm.answer_logprobs import BASELINE, AnswerLogprobs
from prescient.llm.ledger_format import canonical_json
from prescient.llm.transport_base import Messages, ProviderError

_CHOICE_LINE = re.compile(r"^[ \t]*\(([a-z])\)[ \t]+\S", re.M)


def offered_choices(messages: Messages) -> list[str]:
    """The answers a prompt offers: ``(a)``.. labels for multiple choice, else Yes/No.

    See the module docstring for the convention.
    """
    user = next((str(m["content"]) for m in reversed(messages) if m.get("role") == "user"), "")
    letters = list(dict.fromkeys(_CHOICE_LINE.findall(user)))
    if len(letters) >= 2:
        return [f"({x})" for x in letters]
    return ["Yes", "No"]


BASELINES = ("random", "always-yes", "first-choice")


DRAWS = ("question", "prompt")
"""What seeds the random baseline's pick besides ``seed`` (its ``draw`` parameter)."""


def random_draw(
    n: int,
    messages: Messages,
    seed: int = 0,
    tags: Mapping[str, Any] | None = None,
    draw: str = "question",
) -> int:
    """The random baseline's pick among ``n`` choices (an index): a hash of ``seed`` and
    the question's identity, ``tags["question_id"]`` (``draw`` ``question``), or of
    ``seed`` and the messages (``draw`` ``prompt``, or no such tag); module docstring.

    Raises:
        ProviderError: an unknown ``draw``.
    """
    if draw not in DRAWS:
        raise ProviderError(
            status_code=400, message=f"random baseline draw {draw!r}; known: {', '.join(DRAWS)}"
        )
    qid = (tags or {}).get(QUESTION_ID) if draw == "question" else None
    identity: dict[str, Any] = (
        {"messages": [dict(m) for m in messages]} if qid is None else {QUESTION_ID: str(qid)}
    )
    payload = canonical_json({"seed": seed, **identity})
    digest = hashlib.sha256(payload.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n


RANDOM = "baseline/random"
"""The random baseline's ``litellm_model``: the one baseline whose answer is drawn."""
QUESTION_ID = "question_id"
"""The request tag, and keyed parameter, naming the question a pick is drawn for."""
VERSION = 2
"""The version of the baselines' answers, keyed as the parameter ``baseline_version``:
raised whenever a baseline answers a request differently (version 2: the random baseline
keys the question and names its pick in a stated reply), so an answer stored under an
older rule is never served, and a workspace with history writes what a fresh clone does."""


def keyed_params(
    litellm_model: str, gen: Mapping[str, Any], tags: Mapping[str, Any]
) -> dict[str, Any]:
    """The generation params of a request (``gen``, the entry's defaults under the
    request's own), with what a baseline's answer depends on made part of its key: the
    :data:`VERSION` of every baseline's answers, and for the random baseline drawing per
    question the request's ``question_id`` tag. Other models' params are returned as
    they are."""
    out = dict(gen)
    if not litellm_model.startswith("baseline/"):
        return out
    out["baseline_version"] = VERSION
    qid = tags.get(QUESTION_ID)
    draw = str(out.get("draw") or "question")
    if litellm_model == RANDOM and draw == "question" and qid is not None:
        out[QUESTION_ID] = str(qid)
    return out


def _unknown_baseline(kind: str) -> ProviderError:
    return ProviderError(
        status_code=404, message=f"unknown baseline {kind!r}; known: {', '.join(BASELINES)}"
    )


def baseline_answer(
    kind: str,
    messages: Messages,
    seed: int = 0,
    tags: Mapping[str, Any] | None = None,
    draw: str = "question",
) -> str:
    """A reference answer without a model (see the module docstring)."""
    choices = offered_choices(messages)
    asked = (tags or {}).get("elicitation")
    if asked in (STATED, REASONED):
        stated = _stated(baseline_answer_logprobs(kind, choices, messages, seed, tags, draw))
        return stated if asked == STATED else f"{REASONING}\nFinal forecast:\n{stated}"
    if kind == "random":
        return choices[random_draw(len(choices), messages, seed, tags, draw)]
    if kind == "always-yes":
        return "Yes" if choices == ["Yes", "No"] else choices[0]
    if kind == "first-choice":
        return choices[0]
    raise _unknown_baseline(kind)


def baseline_answer_logprobs(
    kind: str,
    answers: Sequence[str],
    messages: Messages,
    seed: int = 0,
    tags: Mapping[str, Any] | None = None,
    draw: str = "question",
) -> AnswerLogprobs:
    """A baseline's log-probabilities of the allowed ``answers`` (module docstring):
    uniform for ``random`` (with its pick, :func:`random_draw`, as ``pick``), all mass on
    Yes (else the first answer) for ``always-yes``, on the first answer for
    ``first-choice``."""
    n = len(answers)
    if kind == "random":
        pick = answers[random_draw(n, messages, seed, tags, draw)]
        return AnswerLogprobs(tuple(answers), (-math.log(n),) * n, BASELINE, {"pick": pick})
    if kind == "always-yes":
        chosen = answers.index("Yes") if "Yes" in answers else 0
    elif kind == "first-choice":
        chosen = 0
    else:
        raise _unknown_baseline(kind)
    logprobs = tuple(0.0 if i == chosen else None for i in range(n))
    return AnswerLogprobs(tuple(answers), logprobs, BASELINE, {"pick": answers[chosen]})


STATED = "verbal_probability"
"""The ``elicitation`` tag of requests that ask for a stated probability."""
REASONED = "scratchpad"
"""The ``elicitation`` tag of requests that ask for reasoning, then a stated probability
after a ``Final forecast:`` line: a baseline writes one line instead of reasoning, then
its stated forecast."""
REASONING = "A baseline does not reason: its forecast is fixed by its rule."


def _stated(forecast: AnswerLogprobs) -> str:
    """A baseline's forecast written as a reply to a stated-probability prompt:
    ``P(Yes) = 50%``, or one ``(a) 25%`` line per option, then the answer it picks
    (``Answer: No``)."""
    percent = [0.0 if lp is None else round(100.0 * math.exp(lp), 4) for lp in forecast.logprobs]
    if list(forecast.answers) == ["Yes", "No"]:
        lines = [f"P(Yes) = {percent[0]:g}%"]
    else:
        lines = [f"{a} {p:g}%" for a, p in zip(forecast.answers, percent, strict=True)]
    return "\n".join([*lines, f"Answer: {forecast.detail['pick']}"])
