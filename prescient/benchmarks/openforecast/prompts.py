"""OpenForecast prompt templates and their values.

The files are ``conf/prompts/openforecast/<step>/<stem>.yaml``, one folder per stage that
reads them: ``samples``, ``predict`` and ``lrae``.

Templates use the project's template format and loader (:mod:`prescient.prompts`:
``name``, ``version``, ``system``, ``user``, optional worked ``examples`` sent as earlier
chat turns). Each template plays one role, and a role allows only the placeholders its
caller fills (:data:`ROLE_FIELDS`, checked through :data:`ROLE_SPECS`), so a typo in a
template stops the stage before any call. Backgrounds are numbered, oldest first, each
event with its date as precisely as the chain knows it. Chain titles never reach a
forecasting prompt: an imported title ("2022 invasion of ...") can name the outcome.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from prescient.benchmarks.openforecast.chains import DAY, MONTH, EventDate
from prescient.benchmarks.openforecast.tasks import Event
from prescient.prompts import PromptSpec, PromptTemplate, load_template

ROLE_FIELDS: Mapping[str, frozenset[str]] = {
    # of_samples: model-written parts of the closed forms and AQA
    "argument": frozenset({"background", "event", "date", "argument", "argument_hint"}),
    "distract_event": frozenset({"background", "event", "later_events", "date"}),
    "distract_argument": frozenset({"background", "event", "question", "answer", "argument"}),
    # of_samples: the question text of the closed forms (the evaluation prompt wraps it)
    "question_mcnc": frozenset({"background", "date"}),
    "question_mcac": frozenset({"background", "date", "question"}),
    "question_vqa": frozenset({"background", "date", "candidate"}),
    # of_predict: the open forms
    "stf": frozenset({"background", "date"}),
    "ltf": frozenset({"background", "date"}),
    "aqa": frozenset({"background", "date", "question"}),
    # lrae: the judge
    "match": frozenset({"labels", "prediction", "n_labels"}),
    "evidence": frozenset({"evidence", "prediction"}),
    "aqa_judge": frozenset({"question", "label", "prediction"}),
}
"""Placeholders each template role may use."""

ROLE_SPECS: Mapping[str, PromptSpec] = {
    role: PromptSpec(f"role {role!r}", fields) for role, fields in ROLE_FIELDS.items()
}
"""The spec each role's template is checked against: its placeholders, one user message,
no data keys."""

NO_BACKGROUND = "(no earlier events are known)"


def load_role_template(prompt_dir: str | Path, stem: str, role: str) -> PromptTemplate:
    """Read ``<prompt_dir>/<stem>.yaml`` and check it against ``role``'s placeholders.

    Raises:
        TemplateError: the file is missing or malformed, or uses a placeholder the role
            does not fill.
    """
    return load_template(Path(prompt_dir) / f"{stem}.yaml", ROLE_SPECS[role])


def load_role_templates(
    prompt_dir: str | Path, names: Mapping[str, str]
) -> dict[str, PromptTemplate]:
    """A stage's templates: role -> template, ``names`` mapping each role to its file stem
    (``openforecast.samples.templates``, ``openforecast.lrae.templates``).

    Raises:
        TemplateError: a file is missing or malformed, or uses a placeholder its role
            does not fill.
    """
    return {role: load_role_template(prompt_dir, stem, role) for role, stem in names.items()}


def format_date(date: EventDate) -> str:
    """``2023-05-10``, ``2023-05`` or ``2023``, as precisely as the chain knows it."""
    if date.precision == DAY:
        return date.start.isoformat()
    if date.precision == MONTH:
        return date.start.strftime("%Y-%m")
    return str(date.start.year)


def format_event(event: Event) -> str:
    """``2023-05-10: <text>``."""
    return f"{format_date(event.date)}: {event.text}"


def numbered(lines: Sequence[str], empty: str = NO_BACKGROUND) -> str:
    """``1. ...`` one per line, or ``empty`` when there are none."""
    if not lines:
        return empty
    return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))


def format_background(events: Sequence[Event]) -> str:
    """The numbered background X, oldest first, each event dated."""
    return numbered([format_event(e) for e in events])
