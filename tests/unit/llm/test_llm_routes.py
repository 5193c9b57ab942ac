"""The transports' and batch APIs' declarations: each class names its own, the routing
table imports no transport, and a model's batch API follows its provider."""

from __future__ import annotations

import importlib

import pytest

from prescient.llm.batch_route import batch_api_route, batch_refusal
from prescient.llm.logprobs import KINDS
from prescient.llm.routes import BATCH_API_ROUTES, ROUTES
from prescient.llm.transports import ROUTES_BY_NAME, TRANSPORT_MODULES
from tests.support.llm import model_spec


def _class(target: str) -> type:
    module, _, name = target.partition(":")
    cls: type = getattr(importlib.import_module(module), name)
    return cls


def test_every_transport_class_carries_the_declaration_it_is_routed_by() -> None:
    assert sorted(TRANSPORT_MODULES) == sorted(ROUTES_BY_NAME)
    for name, target in TRANSPORT_MODULES.items():
        assert _class(target).route is ROUTES_BY_NAME[name], name  # type: ignore[attr-defined]
    assert all(route.kinds <= set(KINDS) for route in ROUTES)
    assert set().union(*(route.kinds for route in ROUTES)) == set(KINDS)


def test_every_batch_api_is_one_module_offered_by_a_transport() -> None:
    offered = {name for route in ROUTES for name in route.batch_apis}
    assert offered == set(BATCH_API_ROUTES)
    for api in BATCH_API_ROUTES.values():
        cls = _class(api.target)
        assert all(hasattr(cls, m) for m in ("submit", "poll", "results", "find", "aclose"))


@pytest.mark.parametrize(
    ("litellm_model", "api_base", "batch_api"),
    [
        ("anthropic/claude-3-5-haiku", None, "anthropic"),
        ("anthropic/claude-3-5-haiku", "http://127.0.0.1:9", "anthropic"),
        ("openai/gpt-4o-mini", None, "openai"),
        ("hosted_vllm/m", "http://127.0.0.1:9/v1", "openai"),
        ("together_ai/x/y", "http://127.0.0.1:9/v1", "openai"),
    ],
)
def test_a_models_batches_go_to_the_api_its_provider_speaks(
    litellm_model: str, api_base: str | None, batch_api: str
) -> None:
    spec = model_spec("m", litellm_model, api_base=api_base, batch=True)
    found = batch_api_route(spec)
    assert found is not None and found.name == batch_api and batch_refusal(spec) is None
    assert found.base(spec) == api_base or api_base is None


def test_anthropic_batches_go_to_anthropics_api_without_an_api_base() -> None:
    spec = model_spec("m", "anthropic/claude-3-5-haiku", batch=True)
    found = batch_api_route(spec)
    assert found is not None and found.base(spec) == "https://api.anthropic.com"


@pytest.mark.parametrize(
    ("litellm_model", "reason"),
    [
        ("baseline/always-yes", "in-process model answers at once"),
        ("together_ai/x/y", "set api_base"),
        ("hosted_vllm/m", "set api_base"),
    ],
)
def test_models_without_a_batch_api_are_refused(litellm_model: str, reason: str) -> None:
    spec = model_spec("m", litellm_model, batch=True, api_key_env=None)
    assert batch_api_route(spec) is None
    assert reason in str(batch_refusal(spec))
    assert batch_refusal(model_spec("m", litellm_model, batch=False)) is None
