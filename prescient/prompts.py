"""Versioned prompt templates for question construction (conf/prompts/construct/*.yaml).

A template file holds ``name``, ``version``, ``system`` and ``user`` (Python format
strings with ``{placeholders}``; literal braces are doubled) and may hold worked
``examples`` (earlier chat turns, literal text) and step-specific data such as the
filter's ``principles``. The stage reads the files directly and lists
the directory as a DVC dependency, rather than composing them into params.yaml: the
prompt texts would swamp params.yaml, and the human-evaluation stage reads the filter
rubric from the same file. ``name@version`` is recorded in every ledger entry and output
row, so a changed prompt is visible in the data as well as in the ledger key.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STEPS: tuple[str, ...] = ("summary", "generate", "distract", "filter", "categorize")
"""The LLM steps of question construction, in pipeline order."""

STEP_FIELDS: Mapping[str, frozenset[str]] = {
    "summary": frozenset({"title", "date", "date_long", "month_year", "text"}),
    "generate": frozenset(
        {"title", "date", "date_long", "month_year", "text", "keypoint", "slot_instruction"}
    ),
    "distract": frozenset(
        {"title", "date", "date_long", "month_year", "text", "question", "answer"}
    ),
    "filter": frozenset(
        {
            "title",
            "date",
            "date_long",
            "month_year",
            "text",
            "question",
            "answer",
            "rubric",
            "output_format",
        }
    ),
    "categorize": frozenset({"question", "categories"}),
}
"""Placeholders each step may use (all values the stage supplies for it)."""


class TemplateError(ValueError):
    """A template file is missing, malformed, or uses a placeholder its step lacks."""


@dataclass(frozen=True)
class PromptTemplate:
    """One prompt template.

    Attributes:
        name: template name (recorded with each request and output row).
        version: template version; bump it when the text changes.
        system: system message (may be empty: then only a user message is sent).
        user: user message.
        extras: any other keys of the file (e.g. the filter's ``principles``).
        source: the file it was read from.
    """

    name: str
    version: str
    system: str
    user: str
    extras: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""

    @property
    def label(self) -> str:
        """``name@version``, the template's identity in output rows."""
        return f"{self.name}@{self.version}"

    @property
    def examples(self) -> list[dict[str, str]]:
        """Worked examples sent as earlier chat turns (``examples`` in the file: a list of
        ``{user, assistant}``; literal text, no placeholders). Small models follow a
        format they have seen answered far better than one they are told about."""
        return list(self.extras.get("examples") or [])

    def fields(self) -> set[str]:
        """The placeholders the template uses."""
        names: set[str] = set()
        for text in (self.system, self.user):
            for _, name, _, _ in string.Formatter().parse(text):
                if name is not None:
                    if not name.isidentifier():
                        raise TemplateError(
                            f"{self.source or self.name}: placeholder {{{name}}} is not a plain name"
                        )
                    names.add(name)
        return names

    @property
    def slots(self) -> dict[int, dict[str, str]]:
        """Per-question prompts (``slots`` in the file: slot -> ``{instruction, example}``).

        A template with slots asks for one question per request: the request for slot
        ``k`` fills ``{slot_instruction}`` with slot ``k``'s instruction, after one worked
        example per slot (``example_user`` plus each slot's instruction, answered with
        its example). Small models follow one focused request far better than a
        four-part one, and since the examples come first and the instruction last,
        every request of a stage shares the examples and the four requests of an
        article share the article too: a local model reads them once.
        """
        return {int(k): dict(v) for k, v in (self.extras.get("slots") or {}).items()}

    def render_slot(self, values: Mapping[str, Any], slot: int) -> list[dict[str, str]]:
        """Chat messages asking for the question of ``slot`` (see :attr:`slots`)."""
        examples = [
            {
                "user": f"{self.extras['example_user']}\n{spec['instruction']}",
                "assistant": spec["example"],
            }
            for _, spec in sorted(self.slots.items())
        ]
        return self.render(
            {**values, "slot_instruction": self.slots[slot]["instruction"]}, examples
        )

    def render(
        self, values: Mapping[str, Any], examples: list[dict[str, str]] | None = None
    ) -> list[dict[str, str]]:
        """Chat messages with the placeholders filled in (``examples``: instead of the
        template's own worked examples).

        Raises:
            TemplateError: a placeholder has no value.
        """
        missing = self.fields() - set(values)
        if missing:
            raise TemplateError(f"{self.label}: no value for {sorted(missing)}")
        messages = []
        if self.system.strip():
            messages.append({"role": "system", "content": self.system.format_map(values)})
        for ex in self.examples if examples is None else examples:
            messages.append({"role": "user", "content": ex["user"]})
            messages.append({"role": "assistant", "content": ex["assistant"]})
        messages.append({"role": "user", "content": self.user.format_map(values)})
        return messages


def load_template(path: str | Path, step: str | None = None) -> PromptTemplate:
    """Read and check one template file.

    Raises:
        TemplateError: the file lacks a field, or uses a placeholder ``step`` cannot fill.
    """
    import yaml

    path = Path(path)
    try:
        obj = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise TemplateError(f"{path}: cannot read template: {exc}") from exc
    if not isinstance(obj, dict):
        raise TemplateError(f"{path}: expected a mapping")
    missing = [k for k in ("name", "version", "user") if not obj.get(k)]
    if missing:
        raise TemplateError(f"{path}: missing {missing}")
    source = obj.pop("principles_from", None)
    if source is not None:
        # A variant of the filter (e.g. a compact one for small models) reuses another
        # template's rubric, so the principles, which annotators also see, stay one text.
        other = path.with_name(f"{source}.yaml")
        if other == path:
            raise TemplateError(f"{path}: `principles_from` names the file itself")
        base = load_template(other)
        for key in ("principles", "scale"):
            if key in base.extras and key not in obj:
                obj[key] = base.extras[key]
    template = PromptTemplate(
        name=str(obj["name"]),
        version=str(obj["version"]),
        system=str(obj.get("system") or ""),
        user=str(obj["user"]),
        extras={k: v for k, v in obj.items() if k not in {"name", "version", "system", "user"}},
        source=str(path),
    )
    examples = obj.get("examples") or []
    if not isinstance(examples, list) or not all(
        isinstance(ex, dict)
        and set(ex) == {"user", "assistant"}
        and all(isinstance(v, str) and v.strip() for v in ex.values())
        for ex in examples
    ):
        raise TemplateError(
            f"{path}: `examples` must be a list of {{user: <text>, assistant: <text>}} turns"
        )
    _check_slots(template, path)
    if step is not None:
        check_fields(template, STEP_FIELDS[step], f"step {step!r}")
    return template


def check_fields(template: PromptTemplate, available: frozenset[str], user: str) -> None:
    """Stop on a placeholder that ``user`` (a step or role) does not fill, before any call
    is made; a literal brace written single is the usual cause.

    Raises:
        TemplateError: naming the file, the unknown placeholders and the available ones.
    """
    unknown = template.fields() - available
    if unknown:
        raise TemplateError(
            f"{template.source}: placeholders {sorted(unknown)} are not available to {user} "
            f"(available: {sorted(available)}); double literal braces"
        )


def _check_slots(template: PromptTemplate, path: Path) -> None:
    raw = template.extras.get("slots")
    if raw is None:
        if "slot_instruction" in template.fields():
            raise TemplateError(f"{path}: {{slot_instruction}} needs `slots`")
        return
    good = (
        isinstance(raw, dict)
        and sorted(int(k) for k in raw) == [1, 2, 3, 4]
        and all(
            isinstance(v, dict)
            and set(v) == {"instruction", "example"}
            and all(isinstance(x, str) and x.strip() for x in v.values())
            for v in raw.values()
        )
    )
    if not good:
        raise TemplateError(
            f"{path}: `slots` must map 1, 2, 3 and 4 to {{instruction: <text>, example: <text>}}"
        )
    if not str(template.extras.get("example_user") or "").strip():
        raise TemplateError(f"{path}: a template with `slots` needs `example_user`")
    if "slot_instruction" not in template.fields():
        raise TemplateError(f"{path}: a template with `slots` must use {{slot_instruction}}")


def load_templates(prompt_dir: str | Path, names: Mapping[str, str]) -> dict[str, PromptTemplate]:
    """The template of every step: ``names`` maps step -> file stem in ``prompt_dir``."""
    unknown = set(names) - set(STEPS)
    if unknown:
        raise TemplateError(f"unknown construction steps {sorted(unknown)}; steps are {STEPS}")
    absent = [s for s in STEPS if s not in names]
    if absent:
        raise TemplateError(f"no template named for steps {absent}")
    return {step: load_template(Path(prompt_dir) / f"{names[step]}.yaml", step) for step in STEPS}
