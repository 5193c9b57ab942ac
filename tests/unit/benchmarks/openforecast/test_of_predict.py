"""Open-form prompts: numbered dated background, no chain title, and the cutoff filter."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import pandas as pd

from prescient.benchmarks.openforecast.predict import predict
from prescient.benchmarks.openforecast.prompts import load_role_template
from prescient.llm.types import LLMRequest, LLMResult
from prescient.plumbing import params
from tests.conftest import ROOT

PROMPTS = ROOT / "conf" / "prompts" / "openforecast" / "predict"


def samples() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "sample_id": ["a", "b", "c"],
            "task": ["stf", "stf", "ltf"],
            "status": ["ok", "ok", "ok"],
            "chain_title": ["2024 invasion of Somewhere"] * 3,
            "split_date": [dt.date(2023, 10, 1), dt.date(2024, 2, 1), dt.date(2024, 2, 1)],
            "background": [["2023-01-02: Troops massed at the border.", "2023-05: Talks failed."]]
            * 3,
            "question": [None] * 3,
        }
    )


def test_prompts_and_the_cutoff_filter() -> None:
    seen: list[LLMRequest] = []

    def complete(reqs: Sequence[LLMRequest], desc: str) -> list[LLMResult]:
        seen.extend(reqs)
        return [LLMResult(r, "k" * 64, ok=True, text="1. X", finish_reason="length") for r in reqs]

    gen = params.compose(ROOT)["openforecast"]["predict"]["generation"]["stf"]
    t = load_role_template(PROMPTS, "stf", "stf")
    out = predict(samples(), "m", "stf", t, gen, complete)
    assert out["sample_id"].tolist() == ["a", "b"] and (out["finish_reason"] == "length").all()
    prompt = seen[0].messages[-1]["content"]
    assert "1. 2023-01-02: Troops massed at the border.\n2. 2023-05: Talks failed." in prompt
    assert "2023-10-01" in prompt and "invasion" not in prompt
    assert len(seen[0].messages) == 4  # system, the worked example (two turns), the question
    later = predict(samples(), "m", "stf", t, gen, complete, after=dt.date(2023, 12, 31))
    assert later["sample_id"].tolist() == ["b"]
