"""Every generation section is checked key by key and handed on exactly as written."""

from __future__ import annotations

import pytest

from prescient.benchmarks.daily_oracle.construct_settings import ConstructSettings
from prescient.benchmarks.openforecast.settings import (
    ChainsSettings,
    LraeSettings,
    PredictSettings,
)
from prescient.evaluation.settings import EvalSettings
from prescient.plumbing import params
from prescient.settings import ParamsError, Settings, load_settings
from tests.support.llm import ROOT

SECTIONS: list[tuple[type[Settings], str, str]] = [
    (EvalSettings, "eval", "generation"),
    (ConstructSettings, "construct", "generation.summary"),
    (PredictSettings, "openforecast.predict", "generation.stf"),
    (LraeSettings, "openforecast.lrae", "generation"),
    (ChainsSettings, "chains", "cluster.keypoints.generation"),
]


def _node(p: dict[str, object], dotted: str) -> dict[str, object]:
    node: object = p
    for key in dotted.split("."):
        assert isinstance(node, dict)
        node = node[key]
    assert isinstance(node, dict)
    return node


@pytest.mark.parametrize(("cls", "path", "gen"), SECTIONS)
def test_a_misspelt_key_stops_naming_it(cls: type[Settings], path: str, gen: str) -> None:
    p = params.compose(ROOT)
    section = _node(p, f"{path}.{gen}")
    section["temprature"] = 0.3
    with pytest.raises(ParamsError, match=rf"^{path}\.{gen}\.temprature is not a parameter"):
        load_settings(cls, p, path)


@pytest.mark.parametrize(("cls", "path", "gen"), SECTIONS)
def test_the_shipped_sections_are_handed_on_unchanged(
    cls: type[Settings], path: str, gen: str
) -> None:
    p = params.compose(ROOT)
    shipped = _node(p, f"{path}.{gen}")
    loaded: object = load_settings(cls, p, path)
    for key in gen.split("."):
        loaded = loaded[key] if isinstance(loaded, dict) else getattr(loaded, key)
    assert isinstance(loaded, dict)
    assert loaded == shipped and list(loaded) == list(shipped)
    assert [repr(v) for v in loaded.values()] == [repr(v) for v in shipped.values()]
