"""The model registry: ``conf/model/<name>.yaml`` entries, composed into ``params["models"]``.

Requests name models by their registry name; the registry says which litellm model
string that is, where it is served, which environment variable holds its key, its
default generation parameters, its limits, and the dates the analysis needs
(``knowledge_cutoff``, ``release_date``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Providers implemented in this process by prescient.llm.providers (no network, no key,
# no price). ``scripted`` is for tests only and never appears in conf/model.
IN_PROCESS_PROVIDERS = frozenset({"local", "baseline", "scripted"})


class ModelConfigError(ValueError):
    """A model entry is missing, malformed, or needs a key that is not in the environment."""


@dataclass(frozen=True)
class ModelSpec:
    """One registered model.

    Attributes:
        name: registry name (the file stem), used everywhere in the project.
        litellm_model: the litellm model string, ``provider/model``.
        display_name: the name tables and figures show.
        params: default generation parameters (temperature, max_tokens, seed, ...);
            part of the ledger key.
        api_base: endpoint for self-hosted or OpenAI-compatible servers.
        api_key_env: name of the environment variable holding the key (never the key).
        concurrency: requests in flight at once for this model.
        rpm: requests per minute (None: unlimited).
        timeout_s: per-attempt timeout (None: the gateway's ``llm.timeout_s``).
        knowledge_cutoff: ISO date (YYYY-MM-DD) or None when unknown.
        release_date: ISO date or None when unknown.
    """

    name: str
    litellm_model: str
    display_name: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    api_base: str | None = None
    api_key_env: str | None = None
    concurrency: int = 4
    rpm: float | None = None
    timeout_s: float | None = None
    knowledge_cutoff: str | None = None
    release_date: str | None = None

    @property
    def provider(self) -> str:
        """The litellm provider prefix (``openai``, ``local``, ``baseline``, ...)."""
        return self.litellm_model.split("/", 1)[0]

    @classmethod
    def from_dict(cls, name: str, d: Mapping[str, Any]) -> ModelSpec:
        """Validate one ``conf/model/<name>.yaml`` entry.

        Raises:
            ModelConfigError: naming the file and the field at fault.
        """
        where = f"conf/model/{name}.yaml"
        if d.get("name") not in (None, name):
            raise ModelConfigError(f"{where}: name {d['name']!r} differs from its key {name!r}")
        model = str(d.get("litellm_model") or "")
        if "/" not in model:
            raise ModelConfigError(
                f"{where}: litellm_model must be 'provider/model' (got {model!r})"
            )
        concurrency = int(d["concurrency"]) if d.get("concurrency") is not None else 1
        if concurrency < 1:
            raise ModelConfigError(f"{where}: concurrency must be >= 1")
        rpm = d.get("rpm")
        if rpm is not None and float(rpm) <= 0:
            raise ModelConfigError(f"{where}: rpm must be positive or null")
        timeout = d.get("timeout_s")
        return cls(
            name=name,
            litellm_model=model,
            display_name=str(d.get("display_name") or name),
            params=dict(d.get("params") or {}),
            api_base=d.get("api_base") or None,
            api_key_env=d.get("api_key_env") or None,
            concurrency=concurrency,
            rpm=float(rpm) if rpm is not None else None,
            timeout_s=float(timeout) if timeout is not None else None,
            knowledge_cutoff=_iso_date(d.get("knowledge_cutoff"), where, "knowledge_cutoff"),
            release_date=_iso_date(d.get("release_date"), where, "release_date"),
        )


def _iso_date(value: Any, where: str, what: str) -> str | None:
    if value is None:
        return None
    text = value.isoformat() if isinstance(value, dt.date) else str(value)
    try:
        dt.date.fromisoformat(text)
    except ValueError as exc:
        raise ModelConfigError(
            f"{where}: {what} must be YYYY-MM-DD or null (got {value!r})"
        ) from exc
    return text


def load_registry(params: Mapping[str, Any]) -> dict[str, ModelSpec]:
    """All models of ``params["models"]`` (the composed conf/model/*.yaml entries)."""
    models = params.get("models") or {}
    return {name: ModelSpec.from_dict(name, d) for name, d in models.items()}
