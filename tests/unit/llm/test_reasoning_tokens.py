"""A reasoning model's hidden reasoning tokens are kept in a reply's usage where the
provider reports them, as a dict (the direct client) or as objects (litellm)."""

from __future__ import annotations

from types import SimpleNamespace

from prescient.llm.transport_base import reasoning_tokens


def test_reasoning_tokens_are_read_from_either_shape_and_absent_when_not_reported() -> None:
    raw = {"completion_tokens": 900, "completion_tokens_details": {"reasoning_tokens": 768}}
    assert reasoning_tokens(raw) == {"reasoning_tokens": 768}
    obj = SimpleNamespace(completion_tokens_details=SimpleNamespace(reasoning_tokens=64))
    assert reasoning_tokens(obj) == {"reasoning_tokens": 64}
    assert reasoning_tokens({"completion_tokens": 5}) == {}
    assert reasoning_tokens({"completion_tokens_details": {"reasoning_tokens": 0}}) == {}
    assert reasoning_tokens(None) == {}
