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
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prescient.llm.registry import ModelSpec
from prescient.llm.settings import GatewaySettings
from prescient.plumbing import params
from tests.conftest import ROOT

if TYPE_CHECKING:
    from prescient.llm.gateway import Gateway


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


def dvc_project(root: Path) -> Path:
    """``root`` made a DVC project (its ``.dvc`` directory): a stage's ledger there works
    over the response store in its cache directory."""
    (root / ".dvc").mkdir(parents=True)
    (root / ".dvc" / "config").write_text("[core]\n    analytics = false\n")
    return root


def stage_gateway(root: Path, ledger: Path, compression: str = "none") -> Gateway:
    """A stage's gateway over the response store of the project at ``root``, with one
    scripted model ``m`` that echoes, and ``llm.ledger_compression`` ``compression``."""
    from prescient.llm.gateway import Gateway
    from prescient.llm.store import open_stage_ledger
    from prescient.plumbing.locations import dvc_cache_dir

    return Gateway(
        {"m": model_spec("m", "scripted/echo", concurrency=1)},
        ledger,
        stage="t",
        settings=llm_settings(progress=False, ledger_compression=compression),
        ledger=open_stage_ledger(ledger, dvc_cache_dir(root), root, compression=compression),  # type: ignore[arg-type]
    )


def ask(
    root: Path, ledger: Path, compression: str, questions: Iterable[int]
) -> tuple[int, list[str]]:
    """Ask question ``i`` for each of ``questions`` through :func:`stage_gateway` and
    write the stage's ledger; returns the calls sent and the replies."""
    from prescient.llm.types import LLMRequest

    requests = [LLMRequest("m", [{"role": "user", "content": f"q{i} " * 40}]) for i in questions]
    with stage_gateway(root, ledger, compression) as gw:
        out = gw.complete_many(requests)
        gw.finish()
        return gw.stats.calls, [r.text or "" for r in out]
