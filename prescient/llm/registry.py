"""The model registry: ``conf/model/<name>.yaml`` entries, composed into ``params["models"]``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class ModelConfigError(ValueError):
    """A model entry is missing, malformed, or needs a key that is not in the environment."""


@dataclass(frozen=True)
class ModelSpec:
    """One registered model.

    Attributes:
        name: registry name (the file stem), used everywhere in the project.
        litellm_model: the litellm model string, ``provider/model``.
        params: default generation parameters (temperature, max_tokens, seed, ...).
        api_base: endpoint for self-hosted or OpenAI-compatible servers.
        api_key_env: name of the environment variable holding the key (never the key).
        concurrency: requests in flight at once for this model.
        rpm: requests per minute (None: unlimited).
        timeout_s: per-request timeout.
        knowledge_cutoff / release_date: ISO dates or None when unknown.
    """

    name: str
    litellm_model: str
    display_name: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    api_base: str | None = None
    api_key_env: str | None = None
    concurrency: int = 4
    rpm: float | None = None
    timeout_s: float = 120.0
    knowledge_cutoff: str | None = None
    release_date: str | None = None

    @classmethod
    def from_dict(cls, name: str, d: Mapping[str, Any]) -> ModelSpec:
        if not d.get("litellm_model"):
            raise ModelConfigError(f"conf/model/{name}.yaml: litellm_model is required")
        return cls(
            name=name,
            litellm_model=str(d["litellm_model"]),
            display_name=str(d.get("display_name") or name),
            params=dict(d.get("params") or {}),
            api_base=d.get("api_base"),
            api_key_env=d.get("api_key_env"),
            concurrency=max(1, int(d.get("concurrency") or 1)),
            rpm=float(d["rpm"]) if d.get("rpm") else None,
            timeout_s=float(d.get("timeout_s") or 120.0),
            knowledge_cutoff=_iso(d.get("knowledge_cutoff")),
            release_date=_iso(d.get("release_date")),
        )


def _iso(value: Any) -> str | None:
    return None if value is None else str(value)


def load_registry(params: Mapping[str, Any]) -> dict[str, ModelSpec]:
    """All models of ``params["models"]`` (the composed conf/model/*.yaml entries)."""
    models = params.get("models") or {}
    return {name: ModelSpec.from_dict(name, d) for name, d in models.items()}
