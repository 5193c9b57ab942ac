"""The QA filter's rubric, rendered from the filter template's ``principles``.

One renderer for the two readers of the rubric: question construction puts it into the
LLM filter's prompt, and the human evaluation shows annotators exactly the same text, so
a disagreement between them cannot come from different instructions (Daily Oracle, ICML
2025, sections 3.2 and 3.3). A leaf module: it imports the template type and the
vocabulary, nothing of the construction orchestrator or the model gateway.
"""

from __future__ import annotations

from collections.abc import Mapping

from prescient.prompts import PromptTemplate
from prescient.vocab import PRINCIPLES


def filter_sections(template: PromptTemplate) -> dict[str, str]:
    """``rubric`` and ``output_format`` text rendered from the filter's ``principles``.

    The rubric lists each principle with its description, the meaning of 2, 1 and 0
    points and any zero-point examples; the output format has one block per principle
    (heading, one-sentence reasoning, points), in the paper's layout.

    Raises:
        ValueError: ``principles`` is not a mapping of exactly the seven principle keys,
            in the paper's order.
    """
    principles = template.extras.get("principles")
    if not isinstance(principles, Mapping) or tuple(principles) != PRINCIPLES:
        raise ValueError(
            f"{template.source}: `principles` must map exactly {PRINCIPLES}, in that order"
        )
    rubric: list[str] = []
    output: list[str] = []
    for i, key in enumerate(PRINCIPLES, 1):
        p = principles[key]
        rubric.append(f"{i}. {p['name']}: {' '.join(str(p['description']).split())}")
        for pts in (2, 1, 0):
            text = (p.get("points") or {}).get(pts)
            if text:
                rubric.append(f"   - {pts} point{'s' if pts != 1 else ''}: {text}")
        for ex in p.get("zero_examples") or []:
            rubric.append(
                f"   - Example of 0 points: {ex['question']} (Reasoning: {ex['reasoning']})"
            )
        output += [f"## {p['name']}", "- Reasoning: <one sentence>", "- Point: <0, 1 or 2>"]
    return {"rubric": "\n".join(rubric), "output_format": "\n".join(output)}
