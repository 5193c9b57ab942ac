"""Scripted models for tests: ``scripted/<name>`` answers computed by rules registered in
this process, never listed in conf/model.

Chat requests are answered by :func:`register_script` (or :func:`register_rules`),
log-probability requests by :func:`register_logprob_script` and answer log-probability
requests by :func:`register_answer_script`. A script that raises makes its request fail
(an ``ok=False`` result, not retried: the in-process transport,
:mod:`prescient.llm.providers`, fails deterministically), which is how tests exercise a
stage's failure handling.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from prescient.llm.answer_logprobs import SCRIPTED, AnswerLogprobs, AnswerLogprobsError
from prescient.llm.logprobs import (
    DocScore,
    ScoringError,
    account,
    segmenting_from_params,
    windows,
)
from prescient.llm.transport_base import Messages, ProviderError

# Test-only scripts: name -> function(messages, params) -> response text.
Script = Callable[[Messages, Mapping[str, Any]], str]
SCRIPTS: dict[str, Script] = {
    "echo": lambda messages, params: str(messages[-1]["content"]),
}


def register_script(name: str, script: Script) -> str:
    """Make ``scripted/<name>`` answer with ``script(messages, params)``; returns the model string.

    A script that raises makes the call fail (an ``ok=False`` result, not retried), which
    is how tests exercise a stage's failure handling.
    """
    SCRIPTS[name] = script
    return f"scripted/{name}"


def register_rules(name: str, rules: Sequence[tuple[str, str]], default: str = "") -> str:
    """``scripted/<name>`` answering by the first rule whose regex matches the last message.

    Args:
        name: script name.
        rules: ``(regex, answer)`` pairs, tried in order (``re.search``, DOTALL).
        default: answer when no rule matches.
    """
    compiled = [(re.compile(pattern, re.S), answer) for pattern, answer in rules]

    def script(messages: Messages, params: Mapping[str, Any]) -> str:
        text = str(messages[-1]["content"])
        return next((answer for rx, answer in compiled if rx.search(text)), default)

    return register_script(name, script)


def scripted_answer(name: str, messages: Messages, params: Mapping[str, Any]) -> str:
    """Test-only: the answer of ``SCRIPTS[name]`` (its exception makes the call fail)."""
    if name not in SCRIPTS:
        raise ProviderError(status_code=404, message=f"no script registered as {name!r}")
    return SCRIPTS[name](messages, params)


# Test-only log-probability scripts: name -> function(text) -> (token text, ln p or None)
# pairs that spell the text.
LogprobScript = Callable[[str], Sequence[tuple[str, float | None]]]
LOGPROB_SCRIPTS: dict[str, LogprobScript] = {}


def register_logprob_script(name: str, script: LogprobScript) -> str:
    """Make ``scripted/<name>`` answer log-probability requests with ``script(text)``
    (tests); returns the model string. A script that raises makes that request fail.

    A script's log-probabilities do not depend on context; the segments are counted as
    the model would read the tokens (the first token is the sequence's position 0 when
    the script gives it no log-probability, else a condition token precedes it).
    """
    LOGPROB_SCRIPTS[name] = script
    return f"scripted/{name}"


def scripted_score(name: str, text: str, params: Mapping[str, Any]) -> DocScore:
    """Test-only: the score of ``text`` under ``LOGPROB_SCRIPTS[name]``."""
    if name not in LOGPROB_SCRIPTS:
        raise ProviderError(status_code=404, message=f"no log-probability script {name!r}")
    segmenting = segmenting_from_params(params)
    try:
        pairs = list(LOGPROB_SCRIPTS[name](text))
    except Exception as exc:  # a failing script is a failed request
        raise ScoringError(f"{type(exc).__name__}: {exc}") from exc
    lead = 0 if pairs and pairs[0][1] is None else 1
    n_segments = len(windows(len(pairs) + lead, segmenting))
    return account(
        text,
        [t.encode("utf-8") for t, _ in pairs],
        [lp for _, lp in pairs],
        n_segments,
        segment_start=segmenting.segment_start,
    )


# Test-only answer log-probability scripts: name -> function(messages, answers) -> ln p
# (or None) per answer.
AnswerScript = Callable[[Messages, Sequence[str]], Sequence[float | None]]
ANSWER_SCRIPTS: dict[str, AnswerScript] = {}


def register_answer_script(name: str, script: AnswerScript) -> str:
    """Make ``scripted/<name>`` answer answer log-probability requests with
    ``script(messages, answers)``, one ``ln p`` (or None) per allowed answer (tests);
    returns the model string. A script that raises makes that request fail."""
    ANSWER_SCRIPTS[name] = script
    return f"scripted/{name}"


def scripted_answer_logprobs(
    name: str, messages: Messages, answers: Sequence[str]
) -> AnswerLogprobs:
    """Test-only: the answer log-probabilities of ``ANSWER_SCRIPTS[name]``."""
    if name not in ANSWER_SCRIPTS:
        raise ProviderError(status_code=404, message=f"no answer log-probability script {name!r}")
    try:
        values = [None if v is None else float(v) for v in ANSWER_SCRIPTS[name](messages, answers)]
    except Exception as exc:  # a failing script is a failed request
        raise AnswerLogprobsError(f"{type(exc).__name__}: {exc}") from exc
    return AnswerLogprobs(tuple(answers), tuple(values), SCRIPTED)
