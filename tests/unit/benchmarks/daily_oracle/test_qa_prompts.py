"""The shipped construction templates load, render, and keep one rubric."""

from __future__ import annotations

from pathlib import Path

import pytest

from prescient.prompts import TemplateError
from prescient.rubric import filter_sections
from prescient.step_templates import (
    STEP_SPECS,
    STEPS,
    load_step_template,
    load_step_templates,
    render_slot,
    slots,
)
from prescient.vocab import PRINCIPLES
from tests.conftest import ROOT

PROMPTS = ROOT / "conf" / "prompts" / "construct"


def _values(step: str) -> dict[str, str]:
    return {name: f"<{name}>" for name in STEP_SPECS[step].fields}


@pytest.mark.parametrize("path", sorted(PROMPTS.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_template_loads_and_renders(path: Path) -> None:
    step = next(s for s in STEPS if path.stem.startswith(s))
    t = load_step_template(path, step)
    assert t.label == f"{t.name}@{t.version}" and t.name == path.stem
    values = _values(step)
    if step == "filter":
        values.update(filter_sections(t))
    messages = t.render(values)
    assert messages[-1]["role"] == "user"
    roles = [m["role"] for m in messages if m["role"] != "system"]
    assert roles == ["user", "assistant"] * len(t.examples) + ["user"]
    # Every placeholder the template uses was filled in.
    assert not any("{" + f + "}" in m["content"] for m in messages for f in t.fields())


def test_compact_filter_shares_the_paper_filters_rubric() -> None:
    paper = load_step_template(PROMPTS / "filter.yaml", "filter")
    compact = load_step_template(PROMPTS / "filter_compact.yaml", "filter")
    assert compact.extras["principles"] == paper.extras["principles"]
    assert tuple(compact.extras["principles"]) == PRINCIPLES


def test_configured_templates_load() -> None:
    from prescient.plumbing import params

    names = params.compose(ROOT)["construct"]["templates"]
    assert set(load_step_templates(PROMPTS, names)) == set(STEPS)


def test_malformed_examples_are_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "summary_bad.yaml"
    bad.write_text("name: x\nversion: '1'\nuser: '{text}'\nexamples:\n  - user: only a question\n")
    with pytest.raises(TemplateError, match="examples"):
        load_step_template(bad, "summary")


def test_unknown_placeholder_is_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "categorize_bad.yaml"
    bad.write_text("name: x\nversion: '1'\nuser: '{question} {text}'\n")
    with pytest.raises(TemplateError, match="not available"):
        load_step_template(bad, "categorize")


def test_slot_template_renders_one_focused_request_per_slot() -> None:
    t = load_step_template(PROMPTS / "generate_slots.yaml", "generate")
    by_slot = slots(t)
    assert sorted(by_slot) == [1, 2, 3, 4]
    values = {"date": "2024-05-02", "keypoint": "The port reopened on 2024-05-01."}
    one, three = render_slot(t, values, 1), render_slot(t, values, 3)
    # system, one worked example per slot (user, assistant), the request
    assert [m["role"] for m in one] == ["system"] + ["user", "assistant"] * 4 + ["user"]
    assert one[-1]["content"].endswith(by_slot[1]["instruction"])
    assert three[-1]["content"].endswith(by_slot[3]["instruction"])
    examples = [one[2 * k]["content"] for k in (1, 2, 3, 4)]
    assert examples == [by_slot[k]["example"] for k in (1, 2, 3, 4)]
    assert one[1]["content"].startswith(t.extras["example_user"])
    # Requests differ only after the key point: the examples and the article are a
    # shared prefix.
    assert one[:-1] == three[:-1]
    assert one[-1]["content"].split("\n")[:2] == three[-1]["content"].split("\n")[:2]


def test_slot_templates_are_checked_on_load(tmp_path) -> None:
    base = "name: x\nversion: '1'\nuser: '{keypoint} {slot_instruction}'\nexample_user: e\n"
    bad = tmp_path / "bad.yaml"
    bad.write_text(base + "slots:\n  1: {instruction: a, example: b}\n")
    with pytest.raises(TemplateError, match="`slots` must map 1, 2, 3 and 4"):
        load_step_template(bad, "generate")
    lone = tmp_path / "lone.yaml"
    lone.write_text("name: x\nversion: '1'\nuser: '{slot_instruction}'\n")
    with pytest.raises(TemplateError, match="needs `slots`"):
        load_step_template(lone, "generate")


def test_steps_and_roles_refuse_placeholders_they_do_not_fill(tmp_path: Path) -> None:
    from prescient.benchmarks.openforecast.prompts import load_role_template

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nversion: '1'\nuser: '{question} {text}'\n")
    with pytest.raises(TemplateError) as step:
        load_step_template(bad, "categorize")
    assert str(step.value) == (
        f"{bad}: placeholders ['text'] are not available to step 'categorize' "
        "(available: ['categories', 'question']); double literal braces"
    )
    with pytest.raises(TemplateError) as role:
        load_role_template(tmp_path, "bad", "aqa_judge")
    assert str(role.value) == (
        f"{bad}: placeholders ['text'] are not available to role 'aqa_judge' "
        "(available: ['label', 'prediction', 'question']); double literal braces"
    )


def test_a_request_names_its_template_and_copies_params_and_tags() -> None:
    from prescient.llm.steps import template_request
    from prescient.llm.types import LLMRequest

    t = load_step_template(PROMPTS / "summary.yaml", "summary")
    values = _values("summary")
    gen = {"max_tokens": 64}
    tags = {"step": "summary", "article_id": "a1"}
    one = template_request(t, "m", values, gen, tags)
    assert one == LLMRequest(
        model="m",
        messages=t.render(values),
        template="summary",
        template_version=t.version,
        params={"max_tokens": 64},
        tags={"step": "summary", "article_id": "a1"},
    )
    assert one.params is not gen and one.tags is not tags
    slotted = load_step_template(PROMPTS / "generate_slots.yaml", "generate")
    values = {"date": "2024-05-02", "keypoint": "The port reopened."}
    slot = template_request(slotted, "m", values, None, tags, slot=3)
    assert slot.messages == render_slot(slotted, values, 3) and slot.params == {}
    assert slot.template == "generate_slots"
