"""The seven QA-filter principles as the human evaluation shows them to annotators.

Human annotators must judge with the rubric the LLM filter was given, otherwise a
disagreement could be an artefact of different instructions. So the rubric is read
from the construction stage's filter template (``conf/prompts/construct/filter.yaml``,
its ``principles`` and ``scale``), never restated here, and the packets also carry the
rubric text exactly as ``prescient.rubric`` renders it into the filter prompt. The
principle keys, labels and score scale are the project's vocabulary (``prescient.vocab``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prescient.prompts import TemplateError
from prescient.rubric import filter_sections
from prescient.step_templates import load_step_template
from prescient.vocab import PRINCIPLES

logger = logging.getLogger(__name__)


class RubricError(ValueError):
    """The filter template cannot be read as a rubric."""


@dataclass(frozen=True)
class Principle:
    """One principle as shown to an annotator.

    Attributes:
        key: the project-wide principle key (score column).
        name: its name in the filter prompt.
        description: what the principle asks.
        points: what 2, 1 and 0 points mean, as ``(points, text)`` pairs.
        examples: zero-point examples (question and reasoning) from the prompt.
    """

    key: str
    name: str
    description: str
    points: tuple[tuple[int, str], ...] = ()
    examples: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "description": self.description,
            "points": {str(p): text for p, text in self.points},
            "examples": list(self.examples),
        }

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> Principle:
        points = obj.get("points") or {}
        return cls(
            key=str(obj["key"]),
            name=str(obj["name"]),
            description=str(obj["description"]),
            points=tuple((int(p), str(t)) for p, t in points.items()),
            examples=tuple(str(e) for e in obj.get("examples") or ()),
        )


@dataclass(frozen=True)
class Rubric:
    """The instructions annotators score against, with where they came from.

    Attributes:
        principles: the seven principles, in ``PRINCIPLES`` order.
        scale: how the 0/1/2 scale reads.
        source: the template file the rubric was read from.
        template: the template's ``name@version``.
        llm_text: the rubric exactly as rendered into the LLM filter's prompt.
    """

    principles: tuple[Principle, ...]
    scale: str
    source: str
    template: str
    llm_text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "principles": [p.to_dict() for p in self.principles],
            "scale": self.scale,
            "source": self.source,
            "template": self.template,
            "llm_text": self.llm_text,
        }

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> Rubric:
        principles = tuple(Principle.from_dict(p) for p in obj["principles"])
        if tuple(p.key for p in principles) != PRINCIPLES:
            raise RubricError(f"rubric principles must be {PRINCIPLES}")
        return cls(
            principles=principles,
            scale=str(obj["scale"]),
            source=str(obj["source"]),
            template=str(obj.get("template", "")),
            llm_text=str(obj.get("llm_text", "")),
        )

    def to_markdown(self) -> str:
        """The rubric as a page a spreadsheet annotator keeps open beside the CSV."""
        lines = [
            "# Rubric for the annotation packets",
            "",
            "Score every question-answer pair on each of the seven principles below, using "
            "the article; its publication date is the question's resolution date. Fill the "
            "seven score columns of your CSV (named by the keys in backticks) with 0, 1 or 2.",
            "",
            f"Scale: {self.scale}",
            "",
        ]
        for i, p in enumerate(self.principles, 1):
            lines += [f"## {i}. {p.name} (`{p.key}`)", "", p.description, ""]
            lines += [f"- {pts} point{'s' if pts != 1 else ''}: {text}" for pts, text in p.points]
            lines += [f"- Example of 0 points: {ex}" for ex in p.examples]
            lines.append("")
        lines += [
            f"_Rubric of the LLM filter, from {self.source} ({self.template})._",
            "",
            "## The rubric as the LLM filter reads it",
            "",
            "```text",
            self.llm_text,
            "```",
            "",
        ]
        return "\n".join(lines)


def load_rubric(path: str | Path) -> Rubric:
    """The filter's rubric, read from its prompt template.

    Uses the construction stage's own loader and renderer, so the packets cannot drift
    from what the LLM filter is shown.

    Raises:
        RubricError: the file is missing or its ``principles`` are not the seven keys.
    """
    try:
        template = load_step_template(path, "filter")
        llm_text = filter_sections(template)["rubric"]
    except (TemplateError, ValueError, KeyError, TypeError) as exc:
        raise RubricError(f"cannot read the filter rubric from {path}: {exc}") from exc
    raw = template.extras["principles"]
    principles = []
    for key in PRINCIPLES:
        p = raw[key]
        points = p.get("points") or {}
        principles.append(
            Principle(
                key=key,
                name=str(p["name"]),
                description=" ".join(str(p["description"]).split()),
                points=tuple((pts, str(points[pts])) for pts in (2, 1, 0) if points.get(pts)),
                examples=tuple(
                    f"{ex['question']} (Reasoning: {ex['reasoning']})"
                    for ex in p.get("zero_examples") or ()
                ),
            )
        )
    scale = str(template.extras.get("scale") or "0, 1 or 2 points")
    logger.info("rubric read from %s (%s)", path, template.label)
    return Rubric(tuple(principles), scale, str(path), template.label, llm_text)
