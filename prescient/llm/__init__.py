"""The LLM gateway: one way to call any model, behind an auditable response ledger."""

from prescient.llm.gateway import Gateway, GatewaySettings
from prescient.llm.registry import ModelConfigError, ModelSpec, load_registry
from prescient.llm.types import LLMRequest, LLMResult

__all__ = [
    "Gateway",
    "GatewaySettings",
    "LLMRequest",
    "LLMResult",
    "ModelConfigError",
    "ModelSpec",
    "load_registry",
]
