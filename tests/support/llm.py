"""Gateway settings and model entries built from the shipped config, and a fake clock.

Tests shrink the real composed ``llm`` section and registry entries instead of writing
their own, so what is tested is what ships::

    settings = llm_settings(max_tries=2, progress=False)
    spec = model_spec("fake", "openai/fake-model", api_base=server.url, concurrency=4)
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
from typing import Any

from prescient.llm.registry import ModelSpec
from prescient.llm.settings import GatewaySettings
from prescient.plumbing import params
from tests.conftest import ROOT


@functools.cache
def _composed() -> dict[str, Any]:
    return params.compose(ROOT)


def composed() -> dict[str, Any]:
    """The shipped params (a fresh copy: tests may change it)."""
    import copy

    return copy.deepcopy(_composed())


def llm_settings(**overrides: Any) -> GatewaySettings:
    """The shipped ``llm`` section with ``overrides``, validated."""
    return GatewaySettings.model_validate({**_composed()["llm"], **overrides})


def model_entry(name: str, litellm_model: str, **overrides: Any) -> dict[str, Any]:
    """A complete registry entry (the shipped local-server entry, renamed and changed)."""
    base = dict(_composed()["models"]["local_openai_server"])
    base.update(name=name, display_name=name, litellm_model=litellm_model, api_base=None)
    base.update(overrides)
    return base


def model_spec(name: str, litellm_model: str, **overrides: Any) -> ModelSpec:
    """``model_entry`` validated as a ModelSpec."""
    return ModelSpec.from_dict(name, model_entry(name, litellm_model, **overrides))


class FakeClock:
    """A clock that only moves when someone sleeps on it, and remembers every sleep.

    Concurrent sleepers each wake at their own deadline; the clock shows the latest
    deadline reached. Tests assert on ``now_s`` and ``sleeps`` instead of wall time.
    """

    def __init__(self) -> None:
        self.now_s = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now_s

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        wake = self.now_s + seconds
        await asyncio.sleep(0)
        self.now_s = max(self.now_s, wake)

    def now(self) -> dt.datetime:
        return dt.datetime(2024, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=self.now_s)
