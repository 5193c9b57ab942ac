"""The in-process transport: models answered inside this process, which never travel.

- ``local/``: the embedded SmolLM2 run by llama.cpp (:mod:`prescient.llm.embedded`);
- ``baseline/``: reference floors, no model at all (:mod:`prescient.llm.baselines`);
- ``scripted/<name>``: rules registered by tests (:mod:`prescient.llm.scripted`).

All of them sit behind :class:`InProcessTransport`, one of the gateway's transports, so
the gateway's ledger, limits and result handling apply as to any API model; litellm is
not involved (nor imported). Chat and answer log-probability requests go to all three;
log-probability requests to ``local/`` models and test scripts (a baseline assigns no
probability to text: the gateway refuses those requests before any call,
:mod:`prescient.llm.transports`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, ClassVar

from prescient.llm.answer_logprobs import ANSWER_LOGPROBS, request_answers
from prescient.llm.baselines import baseline_answer, baseline_answer_logprobs
from prescient.llm.embedded import LOCAL, LOCAL_EVAL, scoring
from prescient.llm.llama_machine import llama_provenance
from prescient.llm.logprobs import LOGPROBS, DocScore, request_text
from prescient.llm.routes import IN_PROCESS, Route
from prescient.llm.scripted import scripted_answer, scripted_answer_logprobs, scripted_score
from prescient.llm.transport_base import Call, ProviderError, token_usage
from prescient.llm.types import Reply


def _logprob_reply(score: DocScore, provenance: Mapping[str, Any] | None) -> Reply:
    read = score.n_text_tokens
    return Reply(
        text=score.to_json(),
        finish_reason=None,
        usage=token_usage(read, 0),
        provenance=None if provenance is None else dict(provenance),
    )


class InProcessTransport:
    """The transport of ``local/``, ``baseline/`` and ``scripted/`` models.

    Chat and answer log-probability requests go to all three; log-probability requests
    to ``local/`` models (:mod:`prescient.llm.llama_eval`) and test scripts (baselines
    are no language models: the gateway refuses those requests before any call).
    Failures are deterministic (a missing file, an unknown script), so they are not
    retried.
    """

    route: ClassVar[Route] = IN_PROCESS
    """What it serves (:mod:`prescient.llm.routes`)."""

    retries = False

    async def complete(self, call: Call) -> Reply:
        provider, _, name = call.spec.litellm_model.partition("/")
        if call.kind == LOGPROBS:
            return await self._logprobs(provider, name, call)
        if call.kind == ANSWER_LOGPROBS:
            return await self._answer_logprobs(provider, name, call)
        if provider == "local":
            return await LOCAL.agenerate(call.spec.litellm_model, call.messages, call.gen)
        if provider == "baseline":
            seed, draw = int(call.gen.get("seed") or 0), str(call.gen.get("draw") or "question")
            text = baseline_answer(name, call.messages, seed, call.tags, draw)
            return Reply(text=text, finish_reason="stop", usage=token_usage(0, 1))
        if provider == "scripted":
            text = scripted_answer(name, call.messages, call.gen)
            return Reply(text=text, finish_reason="stop", usage=token_usage(0, len(text.split())))
        raise ProviderError(status_code=404, message=f"no in-process provider {provider!r}")

    async def _logprobs(self, provider: str, name: str, call: Call) -> Reply:
        text = request_text(call.messages)
        if provider == "local":
            loop = asyncio.get_running_loop()
            executor, evals = scoring()
            score, provenance = await loop.run_in_executor(
                executor, evals.score, name, text, call.gen, call.options
            )
            return _logprob_reply(score, {**llama_provenance(), **provenance})
        if provider == "scripted":
            return _logprob_reply(scripted_score(name, text, call.gen), None)
        raise ProviderError(
            status_code=400,
            message=f"{call.spec.litellm_model} assigns no probability to text: no "
            "log-probabilities to give",
        )

    async def _answer_logprobs(self, provider: str, name: str, call: Call) -> Reply:
        answers = request_answers(call.gen)
        if provider == "local":
            loop = asyncio.get_running_loop()
            executor, evals = scoring()
            got, provenance = await loop.run_in_executor(
                executor,
                evals.answer_logprobs,
                name,
                call.messages,
                answers,
                LOCAL.n_ctx,
                call.options,
            )
            prompt = int(got.detail.get("prompt_tokens", 0))
            return Reply(
                text=got.to_json(),
                finish_reason=None,
                usage=token_usage(prompt, 0),
                provenance={**llama_provenance(), **provenance},
            )
        if provider == "baseline":
            seed, draw = int(call.gen.get("seed") or 0), str(call.gen.get("draw") or "question")
            got = baseline_answer_logprobs(name, answers, call.messages, seed, call.tags, draw)
            return Reply(text=got.to_json(), finish_reason=None, usage=token_usage(0, 0))
        if provider == "scripted":
            got = scripted_answer_logprobs(name, call.messages, answers)
            return Reply(text=got.to_json(), finish_reason=None, usage=token_usage(0, 0))
        raise ProviderError(status_code=404, message=f"no in-process provider {provider!r}")

    async def aclose(self) -> None:
        """Free the scoring instance (its logits buffer is large); the chat model stays
        loaded for the process."""
        LOCAL_EVAL.close()
