"""Token counters of the registry's models, for fitting prompts to their context windows.

:func:`context_window` gives a model entry's window (``context_tokens``) with the counter
of :func:`token_counter`: exact for the embedded llama.cpp models, the conservative
estimate of :func:`prescient.llm.fit.estimate_tokens` for every other (the counting rule
is part of the fitting rule described in :mod:`prescient.llm.fit`).
"""

from __future__ import annotations

import atexit
import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from prescient.llm.fit import (
    ContextWindow,
    Fitting,
    Messages,
    TokenCounter,
    estimate_tokens,
    reply_budget,
)
from prescient.llm.registry import ModelSpec
from prescient.llm.transport_base import ProviderError


class LlamaTokenCounter:
    """Exact prompt tokens of a GGUF model as llama-cpp-python's chat completion counts them.

    The model's chat template (the GGUF's ``tokenizer.chat_template``, which llama.cpp
    uses for the embedded models) renders the messages with the generation prompt, and
    the model's tokenizer tokenizes the result, special tokens parsed: the number of
    tokens llama.cpp evaluates before its first generated token. Only the vocabulary is
    loaded (no weights).

    Args:
        gguf: the model file.
    """

    def __init__(self, gguf: Path) -> None:
        from llama_cpp import Llama, llama_chat_format
        from llama_cpp._logger import set_verbose

        set_verbose(False)
        self.gguf = gguf
        self._llm = Llama(model_path=str(gguf), vocab_only=True, verbose=False)
        # Freed before the interpreter tears llama_cpp down (as the in-process provider
        # does), not by a finaliser that finds its library already gone.
        atexit.register(self._llm.close)
        template = self._llm.metadata.get("tokenizer.chat_template")
        if self._llm.chat_format != "chat_template.default" or not template:
            raise ValueError(
                f"{gguf.name}: llama.cpp formats its chats as {self._llm.chat_format!r}, not "
                "with the template stored in the file; exact token counts need that template"
            )
        model = self._llm._model

        def text(token: int) -> str:
            return model.token_get_text(token) if token != -1 else ""

        self._format = llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=text(self._llm.token_eos()),
            bos_token=text(self._llm.token_bos()),
            stop_token_ids=[self._llm.token_eos()],
        )

    def __call__(self, messages: Messages) -> int:
        chat: list[Any] = [dict(m) for m in messages]  # as the provider passes them
        result = self._format(messages=chat)
        tokens = self._llm.tokenize(
            result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
        )
        return len(tokens)


@functools.cache
def local_counter(name: str) -> LlamaTokenCounter:
    """The exact counter of the embedded model ``local/<name>`` (loaded once a process)."""
    from prescient.llm.embedded import LocalLlamaProvider

    if name not in LocalLlamaProvider.GGUF:
        raise ProviderError(
            status_code=404,
            message=f"unknown local model {name!r}; known: {sorted(LocalLlamaProvider.GGUF)}",
        )
    return LlamaTokenCounter(LocalLlamaProvider.GGUF[name]())


def token_counter(spec: ModelSpec) -> TokenCounter:
    """How prompts of ``spec``'s model are counted: exact for the embedded llama.cpp
    models, :func:`estimate_tokens` for every other."""
    if spec.provider == "local":
        return local_counter(spec.litellm_model.split("/", 1)[1])
    return estimate_tokens


def fitting(spec: ModelSpec, params: Mapping[str, Any] | None) -> Fitting | None:
    """A model's context window and the reply budget of requests with ``params`` (None:
    its window is unknown)."""
    window = context_window(spec)
    return None if window is None else (window, reply_budget(spec.params, params))


def step_windows(
    spec_of: Callable[[str], ModelSpec],
    models: Mapping[str, str],
    gen: Mapping[str, Mapping[str, Any] | None],
) -> dict[str, Fitting]:
    """Per step of a multi-step builder: its model's context window and the reply budget
    of its requests, for the steps whose model has a known window.

    Args:
        spec_of: registry name -> entry (``Gateway.spec``).
        models: step -> model registry name.
        gen: step -> the step's generation parameters (None: the model's defaults).
    """
    out: dict[str, Fitting] = {}
    for step, name in models.items():
        found = fitting(spec_of(name), gen.get(step))
        if found is not None:
            out[step] = found
    return out


def context_window(spec: ModelSpec) -> ContextWindow | None:
    """The context window of a registry entry; None when its ``context_tokens`` is null."""
    if spec.context_tokens is None:
        return None
    counter = token_counter(spec)
    return ContextWindow(spec.name, spec.context_tokens, counter, counter is not estimate_tokens)
