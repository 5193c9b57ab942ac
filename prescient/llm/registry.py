"""The model registry: ``conf/model/<name>.yaml`` entries, composed into ``params["models"]``.

Requests name models by their registry name; the registry says which litellm model
string that is, where it is served, which environment variable holds its key, its
default generation parameters, its limits, and the dates the analysis needs
(``knowledge_cutoff``, ``release_date``). Entries are typed settings
(:class:`prescient.settings.Settings`): every field is stated in the entry's file, none
is defaulted here except the two optional ones (``batch``, ``price``: absent means off
and litellm's price table), and an entry is validated when a stage first uses its
model, so a broken entry of a model the stage never calls does not stop it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import Field, field_validator

from prescient.settings import Day, ParamsError, Settings, validate

IN_PROCESS_PROVIDERS = frozenset({"local", "baseline", "scripted"})
"""Providers answered inside this process by :mod:`prescient.llm.providers` (no network,
no key, no price). ``scripted`` is for tests only and never appears in conf/model."""


class ModelConfigError(ParamsError):
    """A model entry is missing, malformed, or needs a key that is not in the environment."""


class Price(Settings):
    """A model's price in USD per million tokens, where litellm's price table has none
    (a self-hosted server: 0) or has another (a negotiated rate).

    Attributes:
        prompt_usd_per_mtok: USD per million prompt tokens.
        completion_usd_per_mtok: USD per million completion tokens.
        batch_discount: the share taken off both rates for requests sent through the
            Batch API (``batch: true``; OpenAI's is 0.5); 0 prices a batch as the
            requests sent one by one.
    """

    prompt_usd_per_mtok: float = Field(ge=0)
    completion_usd_per_mtok: float = Field(ge=0)
    batch_discount: float = Field(default=0.0, ge=0, lt=1)


class ModelSpec(Settings):
    """One registered model (the fields of ``conf/model/<name>.yaml``).

    Attributes:
        name: registry name (the file stem), used everywhere in the project.
        display_name: the name tables and figures show.
        litellm_model: the litellm model string, ``provider/model``.
        api_base: endpoint for self-hosted or OpenAI-compatible servers (None: the
            provider's default), or a list of endpoints serving the same model (vLLM
            replicas) that requests are spread over (:mod:`prescient.llm.endpoints`).
        api_key_env: name of the environment variable holding the key (never the key).
        params: default generation parameters (temperature, max_tokens, seed, ...);
            part of the ledger key.
        knowledge_cutoff: training-data cutoff, or None when unknown.
        release_date: release day, or None when unknown.
        context_tokens: the context window in tokens, prompt and reply together (None:
            unknown, nothing is fitted); prompts that carry article text are fitted to
            it (:mod:`prescient.llm.fit`).
        concurrency: requests in flight at once for this model.
        rpm: requests per minute (None: unlimited).
        timeout_s: per-attempt timeout (None: the gateway's ``llm.timeout_s``).
        batch: send the chat requests neither the ledger nor the store answers as one
            job of the provider's OpenAI-style Batch API (:mod:`prescient.llm.batch_route`);
            optional, absent means false.
        price: the model's price (:class:`Price`), which the ledger's cost and
            ``llm.max_cost_usd`` use instead of litellm's price table; optional, absent
            means litellm's table.
    """

    name: str = Field(min_length=1)
    display_name: str
    litellm_model: str
    api_base: str | tuple[str, ...] | None
    api_key_env: str | None
    params: dict[str, Any]
    knowledge_cutoff: Day | None
    release_date: Day | None
    context_tokens: int | None = Field(ge=1)
    concurrency: int = Field(ge=1)
    rpm: float | None = Field(gt=0)
    timeout_s: float | None = Field(gt=0)
    batch: bool = False
    price: Price | None = None

    @field_validator("litellm_model")
    @classmethod
    def _provider_model(cls, value: str) -> str:
        provider, _, model = value.partition("/")
        if not provider or not model:
            raise ValueError("must be 'provider/model', e.g. openai/gpt-4o-mini")
        return value

    @field_validator("api_base")
    @classmethod
    def _endpoints(cls, value: str | tuple[str, ...] | None) -> str | tuple[str, ...] | None:
        if not isinstance(value, tuple):
            return value
        if not value or not all(value):
            raise ValueError("list at least one endpoint URL (or null: the provider's default)")
        if len(set(value)) != len(value):
            raise ValueError("lists an endpoint twice; list each replica once")
        return value[0] if len(value) == 1 else value

    @property
    def endpoints(self) -> tuple[str | None, ...]:
        """Where the model is served, in the entry's order (``(None,)``: the provider's
        default endpoint)."""
        return self.api_base if isinstance(self.api_base, tuple) else (self.api_base,)

    @property
    def provider(self) -> str:
        """The provider prefix (``openai``, ``hosted_vllm``, ``local``, ``baseline``, ...)."""
        return self.litellm_model.split("/", 1)[0]

    @property
    def in_process(self) -> bool:
        """True when this process answers (the embedded model, baselines, test scripts)."""
        return self.provider in IN_PROCESS_PROVIDERS

    @classmethod
    def from_dict(cls, name: str, entry: Any) -> ModelSpec:
        """Validate one entry, composed under ``models.<name>``.

        Raises:
            ModelConfigError: naming the file and every field at fault.
        """
        where = f"conf/model/{name}.yaml"
        try:
            spec = validate(cls, entry, f"models.{name}")
        except ParamsError as exc:
            raise ModelConfigError(f"{where}: {exc}") from None
        if spec.name != name:
            raise ModelConfigError(
                f"{where}: name {spec.name!r} differs from its key {name!r}; use the file stem"
            )
        return spec


class ModelRegistry(Mapping[str, ModelSpec]):
    """The models of ``params["models"]``, each validated on first use.

    Args:
        entries: name -> raw entry (a params mapping) or an already built ModelSpec.
    """

    def __init__(self, entries: Mapping[str, Any]) -> None:
        self._raw = dict(entries)
        self._specs: dict[str, ModelSpec] = {
            n: e for n, e in self._raw.items() if isinstance(e, ModelSpec)
        }

    def __getitem__(self, name: str) -> ModelSpec:
        if name not in self._specs:
            if name not in self._raw:
                raise ModelConfigError(
                    f"model {name!r} is not in the registry (params.models); known: "
                    f"{sorted(self._raw)}. Add conf/model/{name}.yaml and list it in "
                    "conf/config.yaml's defaults."
                )
            self._specs[name] = ModelSpec.from_dict(name, self._raw[name])
        return self._specs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __contains__(self, name: object) -> bool:
        return name in self._raw

    def key_variables(self) -> set[str]:
        """Names of the key variables every entry names (validated or not), for scrubbing."""
        names = set()
        for entry in self._raw.values():
            var = entry.api_key_env if isinstance(entry, ModelSpec) else None
            if isinstance(entry, Mapping):
                var = entry.get("api_key_env")
            if isinstance(var, str) and var:
                names.add(var)
        return names


def load_registry(params: Mapping[str, Any]) -> dict[str, ModelSpec]:
    """Every model of ``params["models"]``, validated now (for audits and tests).

    Raises:
        ModelConfigError: the first malformed entry, naming its file and fields.
    """
    registry = ModelRegistry(params.get("models") or {})
    return {name: registry[name] for name in registry}
