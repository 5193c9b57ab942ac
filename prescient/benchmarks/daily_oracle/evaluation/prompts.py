"""Evaluation prompts: versioned templates in conf/prompts/eval/, rendered to messages.

One YAML file per setting kind (``closed_book.yaml``, ``rag.yaml``, ``gold.yaml``), each
with a ``name``, a ``version`` (bump it whenever the wording changes: it is recorded with
every prediction and in the ledger), the ``system`` message and one user template per
question type. The contract, from the paper: the system message casts the model as a
forecasting expert that must not refuse; TF answers are exactly Yes or No; MC answers
exactly one label (a)..(d); retrieved articles are numbered.

Placeholders a user template may use:

- ``{question}``; ``{choices}``: the options, one per line, ``(a) ...``; ``{labels}``:
  ``(a), (b), (c) or (d)``;
- rag: ``{articles}``: ``articles_header`` followed by one ``article`` line per retrieved
  article (``{number}``, ``{date}``, ``{title}``, ``{text}``), or ``no_articles`` when
  nothing was visible; ``{n_articles}``;
- gold: ``{article}``: the ``article`` line of the gold article.

The layout is also what the gateway's baselines read: a prompt with lines starting
``(a)``, ``(b)``, ... is multiple choice, any other is Yes/No.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from prescient.benchmarks.daily_oracle.evaluation.settings import GOLD, KINDS, RAG
from prescient.vocab import MC, QTYPES, TF, choice_label


@dataclass(frozen=True)
class ContextArticle:
    """An article shown in a prompt."""

    title: str
    text: str
    date: str | None = None


@dataclass(frozen=True)
class EvalPrompt:
    """The templates of one setting kind."""

    kind: str
    name: str
    version: str
    system: str
    tf: str
    mc: str
    article: str = ""
    articles_header: str = ""
    no_articles: str = ""
    unknown_date: str = "date unknown"

    @classmethod
    def from_dict(cls, kind: str, d: Mapping[str, Any], origin: str = "") -> EvalPrompt:
        need = ["name", "version", "system", "tf", "mc"]
        if kind in (RAG, GOLD):
            need.append("article")
        if kind == RAG:
            need += ["articles_header", "no_articles"]
        missing = [k for k in need if not d.get(k)]
        if missing:
            raise ValueError(f"prompt {origin or kind}: missing {missing}")
        return cls(
            kind=kind,
            name=str(d["name"]),
            version=str(d["version"]),
            system=str(d["system"]).strip(),
            tf=str(d["tf"]).strip(),
            mc=str(d["mc"]).strip(),
            article=str(d.get("article") or "").strip(),
            articles_header=str(d.get("articles_header") or "").strip(),
            no_articles=str(d.get("no_articles") or "").strip(),
            unknown_date=str(d.get("unknown_date") or "date unknown"),
        )


def load_prompts(directory: str | Path) -> dict[str, EvalPrompt]:
    """The three evaluation prompts of ``directory`` (``<kind>.yaml`` for each kind)."""
    out = {}
    for kind in KINDS:
        path = Path(directory) / f"{kind}.yaml"
        if not path.exists():
            raise FileNotFoundError(f"evaluation prompt {path} is missing")
        out[kind] = EvalPrompt.from_dict(kind, yaml.safe_load(path.read_text()), str(path))
    return out


def labels_text(n: int) -> str:
    """``(a), (b), (c) or (d)`` for n = 4."""
    labels = [choice_label(i) for i in range(n)]
    return labels[0] if n == 1 else ", ".join(labels[:-1]) + " or " + labels[-1]


def choices_block(choices: Sequence[str]) -> str:
    """One option per line: ``(a) first``, ``(b) second``, ..."""
    return "\n".join(f"{choice_label(i)} {' '.join(str(c).split())}" for i, c in enumerate(choices))


def render_messages(
    prompt: EvalPrompt,
    question: str,
    qtype: str,
    choices: Sequence[str],
    articles: Sequence[ContextArticle] = (),
) -> list[dict[str, str]]:
    """System and user messages for one question.

    Args:
        prompt: the setting's templates.
        question: the question text.
        qtype: ``tf`` or ``mc``.
        choices: the options (MC); ignored for TF.
        articles: rag: the retrieved articles, best first; gold: exactly one.
    """
    if qtype not in QTYPES:
        raise ValueError(f"qtype must be one of {QTYPES}, not {qtype!r}")

    def line(a: ContextArticle, number: int) -> str:
        return prompt.article.format(
            number=number,
            date=a.date or prompt.unknown_date,
            title=" ".join(a.title.split()),
            text=" ".join(a.text.split()),
        )

    fields: dict[str, Any] = {
        "question": " ".join(question.split()),
        "choices": choices_block(choices) if qtype == MC else "",
        "labels": labels_text(len(choices)) if qtype == MC else "",
        "n_articles": len(articles),
    }
    if prompt.kind == RAG:
        if articles:
            numbered = [line(a, i) for i, a in enumerate(articles, 1)]
            header = prompt.articles_header.format(n_articles=len(articles))
            fields["articles"] = "\n".join([header, *numbered])
        else:
            fields["articles"] = prompt.no_articles
    elif prompt.kind == GOLD:
        if len(articles) != 1:
            raise ValueError(f"the gold setting shows exactly one article, got {len(articles)}")
        fields["article"] = line(articles[0], 1)
    template = prompt.tf if qtype == TF else prompt.mc
    return [
        {"role": "system", "content": prompt.system},
        {"role": "user", "content": template.format(**fields)},
    ]
