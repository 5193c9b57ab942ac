"""What each transport and each batch API serves, declared without importing them.

A transport's module may pull in a network client (aiohttp, litellm) or a model runtime
(llama.cpp), so what it serves is declared here, in plain data the gateway can read for
every request at no import cost: a :class:`Route` per transport, a :class:`BatchAPIRoute`
per batch API. Each transport class names its declaration (its ``route`` attribute), and
:data:`prescient.llm.transports.TRANSPORT_MODULES` names each declaration's class, so the
two cannot disagree unnoticed (a unit test compares them).
:mod:`prescient.llm.transports` routes requests by these declarations and
:mod:`prescient.llm.batch_route` picks a model's batch API by them; adding a transport
or a batch API is one module and one declaration here.

A route declares, per request kind (``chat``, ``logprobs``, ``answer_logprobs``), which
models it serves (a predicate on the model's entry) and, where it is the kind's server
for models it does not serve, why no transport can serve them (the refusal a user
reads); the batch APIs its models can be asked through (none: ``no_batch`` says why);
and, by its name, the ``llm.transport`` value that prefers it. A batch API declares the
request kinds it carries and the provider's limits on one batch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from prescient.llm.answer_logprobs import ANSWER_LOGPROBS
from prescient.llm.logprobs import CHAT, LOGPROBS
from prescient.llm.registry import ModelSpec

Serves = Callable[[ModelSpec], bool]
"""Whether a transport (or batch API) serves a model."""

Explains = Callable[[ModelSpec], str | None]
"""Why a model cannot be served (None: no reason to give)."""


@dataclass(frozen=True)
class Route:
    """One transport's declaration.

    Attributes:
        name: the transport's name (``llm.transport`` set to it prefers it; its class is
            :data:`prescient.llm.transports.TRANSPORT_MODULES` of it).
        serves: request kind -> which models the transport answers requests of that kind
            for; the keys are the kinds it serves.
        refuses: request kind -> why a model no transport serves cannot be asked
            requests of that kind (the text :func:`prescient.llm.transports.refusal`
            returns), for the kinds this transport is the server of.
        batch_apis: names of the :data:`BATCH_API_ROUTES` its chat models may be asked
            through (in order of preference).
        no_batch: why its models cannot set ``batch: true`` when it offers no batch API.
    """

    name: str
    serves: Mapping[str, Serves]
    refuses: Mapping[str, Explains] = field(default_factory=dict)
    batch_apis: tuple[str, ...] = ()
    no_batch: str | None = None

    @property
    def kinds(self) -> frozenset[str]:
        """The request kinds the transport serves."""
        return frozenset(self.serves)

    def accepts(self, spec: ModelSpec, kind: str) -> bool:
        """True when the transport answers ``spec``'s requests of ``kind``."""
        predicate = self.serves.get(kind)
        return predicate is not None and predicate(spec)


@dataclass(frozen=True)
class BatchAPIRoute:
    """One batch API's declaration.

    Attributes:
        name: the batch API's name (what a :class:`Route` lists in ``batch_apis``).
        target: ``module:Class`` of its client
            (:class:`prescient.llm.batch.BatchAPI`), imported when a batch is sent.
        serves: which models' batches it takes.
        base: where a model's batches go (None: unknown).
        kinds: the request kinds a batch carries (others travel one by one).
        max_requests: the most requests the provider takes in one batch.
        max_bytes: the largest batch the provider takes, in bytes of its request lines.
        refuses: why a model it might serve cannot use it (None: not its model).
    """

    name: str
    target: str
    serves: Serves
    base: Callable[[ModelSpec], str | None]
    kinds: frozenset[str] = frozenset({CHAT})
    max_requests: int = 10_000
    max_bytes: int = 100_000_000
    refuses: Explains = lambda spec: None


# -- which models -------------------------------------------------------------------------

DIRECT_BASES: Mapping[str, str | None] = {
    "openai": "https://api.openai.com/v1",
    "hosted_vllm": None,  # an api_base is required
}
"""Providers served directly, with their default base URL (None: the entry must set one)."""

COMPLETIONS_PROVIDERS = frozenset({"hosted_vllm", "openai", "text-completion-openai"})
"""Providers whose models are scored through a completions server, given an api_base."""

TEXT_SCORING_IN_PROCESS = frozenset({"local", "scripted"})
"""In-process providers that assign probabilities to text (not the baselines)."""

ANTHROPIC_BASE = "https://api.anthropic.com"
"""Anthropic's API, where ``anthropic/`` models' batches go without an ``api_base``."""


def in_process(spec: ModelSpec) -> bool:
    """A model answered in this process (``local/``, ``baseline/``, ``scripted/``)."""
    return spec.in_process


def scores_text_in_process(spec: ModelSpec) -> bool:
    """An in-process model that gives the log-probabilities of a text."""
    return spec.provider in TEXT_SCORING_IN_PROCESS


def remote(spec: ModelSpec) -> bool:
    """A model behind a provider's API (litellm knows them all)."""
    return not spec.in_process


def direct_supported(spec: ModelSpec) -> bool:
    """True when the model's provider speaks the OpenAI wire format and has a base URL."""
    if spec.provider not in DIRECT_BASES:
        return False
    return bool(spec.endpoints[0] or DIRECT_BASES[spec.provider])


def completions_supported(spec: ModelSpec) -> bool:
    """True when the model is served by a self-hosted completions server."""
    return spec.provider in COMPLETIONS_PROVIDERS and bool(spec.endpoints[0])


# -- why not ------------------------------------------------------------------------------


def _baseline_scores_no_text(spec: ModelSpec) -> str | None:
    if not spec.in_process:
        return None
    return "a baseline is not a language model: it assigns no probability to text"


def _no_answer_logprobs(spec: ModelSpec) -> str | None:
    if spec.in_process:
        return None
    if spec.provider == "hosted_vllm":
        return "hosted_vllm/ without an api_base: no server to ask"
    return (
        f"provider {spec.provider!r} is served through litellm, which does not report token "
        "log-probabilities for every provider; the answers' log-probabilities are read "
        "from an OpenAI-format chat server (openai/ or hosted_vllm/)"
    )


def _no_text_logprobs(spec: ModelSpec) -> str | None:
    if spec.in_process:
        return None
    if spec.provider in COMPLETIONS_PROVIDERS:
        return (
            f"{spec.provider}/ without an api_base is a hosted chat-completions API: it returns "
            "no log-probabilities of the prompt (set api_base to a self-hosted "
            "OpenAI-compatible server to score it)"
        )
    return (
        f"provider {spec.provider!r} serves chat completions only (through litellm): no "
        "log-probabilities of the prompt, which bits per character need"
    )


# -- the declarations ---------------------------------------------------------------------

IN_PROCESS = Route(
    name="in_process",
    serves={CHAT: in_process, ANSWER_LOGPROBS: in_process, LOGPROBS: scores_text_in_process},
    refuses={LOGPROBS: _baseline_scores_no_text},
    no_batch="an in-process model answers at once: batch: true is for remote providers",
)
"""Models answered in this process: chat and answer log-probabilities for all,
log-probabilities for ``local/`` models and test scripts."""

DIRECT = Route(
    name="direct",
    serves={CHAT: direct_supported, ANSWER_LOGPROBS: direct_supported},
    refuses={ANSWER_LOGPROBS: _no_answer_logprobs},
    batch_apis=("openai",),
)
"""The lean client for the plain OpenAI wire format (``openai/``, ``hosted_vllm/``)."""

COMPLETIONS = Route(
    name="completions",
    serves={LOGPROBS: completions_supported},
    refuses={LOGPROBS: _no_text_logprobs},
)
"""Texts' log-probabilities from a self-hosted OpenAI-compatible completions server."""

LITELLM = Route(
    name="litellm",
    serves={CHAT: remote},
    batch_apis=("anthropic", "openai"),
)
"""Chat with any provider litellm knows."""

ROUTES: tuple[Route, ...] = (IN_PROCESS, DIRECT, COMPLETIONS, LITELLM)
"""Every transport, in the order a request is offered to them (the first that serves it
answers, unless ``llm.transport`` names another that serves it too)."""


def _openai_base(spec: ModelSpec) -> str | None:
    return spec.endpoints[0] or DIRECT_BASES.get(spec.provider)


def _no_openai_base(spec: ModelSpec) -> str | None:
    return (
        f"no Batch API endpoint is known for provider {spec.provider!r}: set api_base to "
        "its OpenAI-compatible base URL (the one serving /files and /batches)"
    )


def _is_anthropic(spec: ModelSpec) -> bool:
    return spec.provider == "anthropic"


OPENAI_BATCHES = BatchAPIRoute(
    name="openai",
    target="prescient.llm.batch_openai:OpenAIBatchAPI",
    serves=lambda spec: _openai_base(spec) is not None,
    base=_openai_base,
    kinds=frozenset({CHAT, ANSWER_LOGPROBS}),
    max_requests=50_000,
    max_bytes=200_000_000,
    refuses=_no_openai_base,
)
"""OpenAI's Batch API (files and batches endpoints), which Together, Groq and vLLM's
batch runner speak too: any provider given its OpenAI-compatible base URL. A batch line
is a chat completion, so answer log-probability requests (asked with ``logprobs`` and
``top_logprobs``, as the direct client asks them) travel in batches too. OpenAI's limits
on one batch: 50,000 requests and an input file of 200 MB."""

ANTHROPIC_BATCHES = BatchAPIRoute(
    name="anthropic",
    target="prescient.llm.batch_anthropic:AnthropicBatchAPI",
    serves=_is_anthropic,
    base=lambda spec: spec.endpoints[0] or ANTHROPIC_BASE,
    max_requests=100_000,
    max_bytes=256_000_000,
)
"""Anthropic's Message Batches API, for ``anthropic/`` models: chat only (the Messages
API reports no token log-probabilities). Its limits on one batch: 100,000 requests and
256 MB."""

BATCH_API_ROUTES: Mapping[str, BatchAPIRoute] = {
    b.name: b for b in (ANTHROPIC_BATCHES, OPENAI_BATCHES)
}
"""Every batch API by name."""


def batch_api_route(spec: ModelSpec) -> BatchAPIRoute | None:
    """The batch API ``spec``'s batches go to: the first, among those the transports
    serving its chat requests offer, that takes it (None: none does)."""
    for route in ROUTES:
        if route.accepts(spec, CHAT):
            for name in route.batch_apis:
                if BATCH_API_ROUTES[name].serves(spec):
                    return BATCH_API_ROUTES[name]
    return None


def batch_kinds(spec: ModelSpec) -> frozenset[str]:
    """The request kinds of ``spec`` that travel in its batches (none: it has no batch
    API); its other requests travel one by one."""
    declared = batch_api_route(spec)
    return frozenset() if declared is None else declared.kinds
