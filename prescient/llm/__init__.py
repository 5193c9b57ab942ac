"""The LLM gateway: one way to call any model, behind an auditable response ledger.

Stages build ``LLMRequest`` objects and call ``Gateway.from_params(params, stage,
ledger_path).complete_many(requests)``; see ``prescient.llm.gateway``.
"""

from prescient.llm.gateway import Gateway, GatewaySettings, GatewayStats
from prescient.llm.ledger import Ledger, read_entries, request_key
from prescient.llm.registry import ModelConfigError, ModelSpec, load_registry
from prescient.llm.types import LLMRequest, LLMResult

__all__ = [
    "Gateway",
    "GatewaySettings",
    "GatewayStats",
    "LLMRequest",
    "LLMResult",
    "Ledger",
    "ModelConfigError",
    "ModelSpec",
    "load_registry",
    "read_entries",
    "request_key",
]
