"""The prompt templates of question construction (conf/prompts/construct/*.yaml).

Each LLM step of construction (Daily Oracle, ICML 2025, section 3.1) has one template in
the project's template format (:mod:`prescient.prompts`), checked against the step's
:class:`~prescient.prompts.PromptSpec` (:data:`STEP_SPECS`): the placeholders the step
fills and the data keys it reads (the filter's ``principles`` and ``scale``, the
summary's ``reply_is_keypoint``, the one-question-per-request ``slots``). The stage
reads the files directly and lists the directory as a DVC dependency, rather than
composing them into params.yaml: the prompt texts would swamp params.yaml, and the
human-evaluation stage reads the filter rubric from the same file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prescient.prompts import (
    PromptSpec,
    PromptTemplate,
    TemplateError,
    Turn,
    load_template,
    load_templates,
)

__all__ = [
    "STEPS",
    "STEP_SPECS",
    "load_step_template",
    "load_step_templates",
    "render_slot",
    "slots",
]

STEPS: tuple[str, ...] = ("summary", "generate", "distract", "filter", "categorize")
"""The LLM steps of question construction, in pipeline order."""

_ARTICLE = frozenset({"title", "date", "date_long", "month_year", "text"})

SLOT_NUMBERS = (1, 2, 3, 4)
"""The question slots a template with ``slots`` defines, one request each."""


def slots(template: PromptTemplate) -> dict[int, dict[str, str]]:
    """Per-question prompts (``slots`` in the file: slot -> ``{instruction, example}``).

    A template with slots asks for one question per request: the request for slot
    ``k`` fills ``{slot_instruction}`` with slot ``k``'s instruction, after one worked
    example per slot (``example_user`` plus each slot's instruction, answered with
    its example). Small models follow one focused request far better than a
    four-part one, and since the examples come first and the instruction last,
    every request of a stage shares the examples and the four requests of an
    article share the article too: a local model reads them once.
    """
    return {int(k): dict(v) for k, v in (template.extras.get("slots") or {}).items()}


def render_slot(
    template: PromptTemplate, values: Mapping[str, Any], slot: int
) -> list[dict[str, str]]:
    """Chat messages asking for the question of ``slot`` (see :func:`slots`)."""
    by_slot = slots(template)
    examples = [
        Turn(
            user=f"{template.extras['example_user']}\n{spec['instruction']}",
            assistant=spec["example"],
        )
        for _, spec in sorted(by_slot.items())
    ]
    return template.render(
        {**values, "slot_instruction": by_slot[slot]["instruction"]}, None, examples
    )


def _check_slots(template: PromptTemplate) -> None:
    """``slots`` and ``{slot_instruction}`` come together, with ``example_user``."""
    raw = template.extras.get("slots")
    if raw is None:
        if "slot_instruction" in template.fields():
            raise TemplateError(f"{template.where}: {{slot_instruction}} needs `slots`")
        return
    good = (
        isinstance(raw, dict)
        and sorted(int(k) for k in raw) == list(SLOT_NUMBERS)
        and all(
            isinstance(v, dict)
            and set(v) == {"instruction", "example"}
            and all(isinstance(x, str) and x.strip() for x in v.values())
            for v in raw.values()
        )
    )
    if not good:
        raise TemplateError(
            f"{template.where}: `slots` must map 1, 2, 3 and 4 to "
            "{instruction: <text>, example: <text>}"
        )
    if not str(template.extras.get("example_user") or "").strip():
        raise TemplateError(f"{template.where}: a template with `slots` needs `example_user`")
    if "slot_instruction" not in template.fields():
        raise TemplateError(
            f"{template.where}: a template with `slots` must use {{slot_instruction}}"
        )


STEP_SPECS: Mapping[str, PromptSpec] = {
    "summary": PromptSpec("step 'summary'", _ARTICLE, data=frozenset({"reply_is_keypoint"})),
    "generate": PromptSpec(
        "step 'generate'",
        _ARTICLE | {"keypoint", "slot_instruction"},
        data=frozenset({"slots", "example_user"}),
        check=_check_slots,
    ),
    "distract": PromptSpec("step 'distract'", _ARTICLE | {"question", "answer"}),
    "filter": PromptSpec(
        "step 'filter'",
        _ARTICLE | {"question", "answer", "rubric", "output_format"},
        data=frozenset({"principles", "scale"}),
    ),
    "categorize": PromptSpec("step 'categorize'", frozenset({"question", "categories"})),
}
"""What each step fills in (every value the stage supplies for it) and reads.

``reply_is_keypoint`` (summary): the reply is the key point alone, with no summary and
no label; ``principles`` and ``scale`` (filter): the rubric, rendered into the prompt and
shown to the human annotators (:mod:`prescient.rubric`); ``slots`` and
``example_user``: one request per question slot (:func:`slots`)."""


def load_step_template(path: str | Path, step: str) -> PromptTemplate:
    """Read one construction template and check it against ``step``'s spec.

    Raises:
        TemplateError: the file is missing or malformed, or does not fit the step.
    """
    if step not in STEP_SPECS:
        raise TemplateError(f"unknown construction step {step!r}; steps are {STEPS}")
    return load_template(path, STEP_SPECS[step])


def load_step_templates(
    prompt_dir: str | Path, names: Mapping[str, str]
) -> dict[str, PromptTemplate]:
    """The template of every step: ``names`` maps step -> file stem in ``prompt_dir``."""
    return load_templates(prompt_dir, names, STEP_SPECS)
