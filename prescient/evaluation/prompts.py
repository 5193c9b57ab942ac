"""Evaluation prompts: versioned templates in conf/prompts/eval/, rendered to messages.

One file per setting kind (``closed_book.yaml``, ``rag.yaml``, ``gold.yaml``) in the
project's template format (:mod:`prescient.prompts`): a ``name``, a ``version`` (bump it
whenever the wording changes: it is recorded with every prediction and in the ledger),
the ``system`` message, and one user message per question type (``user.tf``,
``user.mc``). The contract, from the paper: the system message casts the model as a
forecasting expert that must not refuse; TF answers are exactly Yes or No; MC answers
exactly one label (a)..(d); retrieved articles are numbered. Each kind's file is checked
against :data:`EVAL_SPECS` when it is loaded. The elicitation ``verbal_probability``
(beyond the paper) has its own three files in ``verbal_probability/``, which ask for a
probability instead of a label (:func:`elicitation_prompts`).

Placeholders a user message may use:

- ``{question}`` (required); ``{choices}``: the options, one per line, ``(a) ...``;
  ``{labels}``: ``(a), (b), (c) or (d)``; ``{n_articles}``;
- rag: ``{articles}`` (required): the part ``articles_header`` followed by one part
  ``article`` per retrieved article (``{number}``, ``{date}``, ``{title}``, ``{text}``;
  an article without a date shows the part ``unknown_date``), or the part
  ``no_articles`` when nothing was visible;
- gold: ``{article}`` (required): the part ``article`` of the gold article.

The layout is also what the gateway's baselines read: a prompt with lines starting
``(a)``, ``(b)``, ... is multiple choice, any other is Yes/No.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prescient.evaluation.settings import (
    CLOSED_BOOK,
    GOLD,
    KINDS,
    RAG,
    SCRATCHPAD,
    VERBAL,
)
from prescient.prompts import PromptSpec, PromptTemplate, load_templates
from prescient.vocab import MC, QTYPES, choice_label


@dataclass(frozen=True)
class ContextArticle:
    """An article shown in a prompt."""

    title: str
    text: str
    date: str | None = None


ARTICLE_FIELDS = frozenset({"number", "date", "title", "text"})
"""Placeholders of the part ``article``: one article shown in a prompt."""

_FIELDS = frozenset({"question", "choices", "labels", "n_articles"})

EVAL_SPECS: Mapping[str, PromptSpec] = {
    CLOSED_BOOK: PromptSpec(
        "the closed-book setting",
        _FIELDS,
        required=frozenset({"question"}),
        variants=QTYPES,
        system=True,
    ),
    RAG: PromptSpec(
        "the rag setting",
        _FIELDS | {"articles"},
        required=frozenset({"question", "articles"}),
        variants=QTYPES,
        parts={
            "articles_header": frozenset({"n_articles"}),
            "article": ARTICLE_FIELDS,
            "no_articles": frozenset(),
            "unknown_date": frozenset(),
        },
        system=True,
    ),
    GOLD: PromptSpec(
        "the gold setting",
        _FIELDS | {"article"},
        required=frozenset({"question", "article"}),
        variants=QTYPES,
        parts={"article": ARTICLE_FIELDS, "unknown_date": frozenset()},
        system=True,
    ),
}
"""What each setting kind fills in and renders: one user message per question type."""


def load_prompts(directory: str | Path) -> dict[str, PromptTemplate]:
    """The three evaluation prompts of ``directory`` (``<kind>.yaml`` for each kind).

    Raises:
        TemplateError: a file is missing or malformed, or does not fit its kind.
    """
    return load_templates(directory, {kind: kind for kind in KINDS}, EVAL_SPECS)


def elicitation_prompts(directory: str | Path, elicitation: str) -> dict[str, PromptTemplate]:
    """The prompts of one elicitation: ``verbal_probability`` and ``scratchpad`` have
    their own, in the subdirectory of that name (the same three files, asking for a
    probability, or for reasoning and then a probability); ``label`` and
    ``token_logprobs`` read the label prompts of ``directory`` itself (the token
    log-probabilities are those of the label answers)."""
    root = Path(directory)
    return load_prompts(root / elicitation if elicitation in (VERBAL, SCRATCHPAD) else root)


def labels_text(n: int) -> str:
    """``(a), (b), (c) or (d)`` for n = 4."""
    labels = [choice_label(i) for i in range(n)]
    return labels[0] if n == 1 else ", ".join(labels[:-1]) + " or " + labels[-1]


def choices_block(choices: Sequence[str]) -> str:
    """One option per line: ``(a) first``, ``(b) second``, ..."""
    return "\n".join(f"{choice_label(i)} {' '.join(str(c).split())}" for i, c in enumerate(choices))


def render_messages(
    prompt: PromptTemplate,
    kind: str,
    question: str,
    qtype: str,
    choices: Sequence[str],
    articles: Sequence[ContextArticle] = (),
) -> list[dict[str, str]]:
    """System and user messages for one question.

    Args:
        prompt: the setting kind's template (checked against :data:`EVAL_SPECS`).
        kind: the setting kind: ``closed_book``, ``rag`` or ``gold``.
        question: the question text.
        qtype: ``tf`` or ``mc``.
        choices: the options (MC); ignored for TF.
        articles: rag: the retrieved articles, best first; gold: exactly one.
    """
    if qtype not in QTYPES:
        raise ValueError(f"qtype must be one of {QTYPES}, not {qtype!r}")
    if kind not in EVAL_SPECS:
        raise ValueError(f"setting kind must be one of {KINDS}, not {kind!r}")

    def line(a: ContextArticle, number: int) -> str:
        values = {
            "number": number,
            "date": a.date or prompt.render_part("unknown_date", {}),
            "title": " ".join(a.title.split()),
            "text": " ".join(a.text.split()),
        }
        return prompt.render_part("article", values)

    fields: dict[str, Any] = {
        "question": " ".join(question.split()),
        "choices": choices_block(choices) if qtype == MC else "",
        "labels": labels_text(len(choices)) if qtype == MC else "",
        "n_articles": len(articles),
    }
    if kind == RAG:
        if articles:
            numbered = [line(a, i) for i, a in enumerate(articles, 1)]
            header = prompt.render_part("articles_header", {"n_articles": len(articles)})
            fields["articles"] = "\n".join([header, *numbered])
        else:
            fields["articles"] = prompt.render_part("no_articles", {})
    elif kind == GOLD:
        if len(articles) != 1:
            raise ValueError(f"the gold setting shows exactly one article, got {len(articles)}")
        fields["article"] = line(articles[0], 1)
    return prompt.render(fields, qtype)
