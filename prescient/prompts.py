"""The one prompt template format: versioned YAML files under ``conf/prompts/``.

Every model prompt of the project (question construction, evaluation, OpenForecast, and
any benchmark added later) is one file read by :func:`load_template` into a
:class:`PromptTemplate` and checked, before any request is made, against the
:class:`PromptSpec` of its caller: the values the caller fills in and the pieces it
renders. A file holds:

- ``name`` and ``version`` (required): ``name@version`` is recorded with every request
  in the ledger and in every output row, so bump ``version`` whenever the text changes;
- ``system`` (optional): the system message; when empty, only user turns are sent;
- ``examples`` (optional): worked examples sent as earlier chat turns, a list of
  ``{user: <text>, assistant: <text>}`` (literal text, no placeholders);
- ``user`` (required): the user message, or, for a caller that renders variants (e.g.
  one per question type), a mapping ``variant -> user message``;
- ``parts`` (optional): named fragments the caller fills separately and inserts into
  the message (e.g. one line per retrieved article), each with its own placeholders;
- ``data_from`` (optional): the stem of a template in the same directory whose data keys
  (below) this file takes where it lacks them, so two variants share one text;
- data keys: whatever else the caller reads (e.g. a rubric), only the keys its spec
  names.

``system``, ``user`` and ``parts`` are Python format strings: ``{name}`` is filled in,
a literal brace is written double (``{{``, ``}}``). Values are inserted as they are,
never formatted again, so a brace inside a question or an article is inert.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, ValidationError

__all__ = [
    "PromptSpec",
    "PromptTemplate",
    "TemplateError",
    "Turn",
    "load_template",
    "load_templates",
]

CORE_KEYS = frozenset({"name", "version", "system", "examples", "user", "parts"})
"""The keys of the format itself; ``data_from`` and the caller's data keys are the rest."""


class TemplateError(ValueError):
    """A template file is missing or malformed, or does not fit what its caller fills."""


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _none_is_empty(value: Any) -> Any:
    return "" if value is None else value


Text = Annotated[str, AfterValidator(_not_blank)]
"""Text that is not blank."""


def _version_text(value: Any) -> Any:
    """``version: 1`` and ``version: "1"`` are the same version, recorded as text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


class Turn(BaseModel):
    """One worked example: a user turn and the assistant's answer, literal text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user: Text
    assistant: Text


class PromptTemplate(BaseModel):
    """One prompt template (the file format is in the module docstring).

    Attributes:
        name: template name (recorded with each request and output row).
        version: template version; bump it when the text changes.
        system: system message (empty: only user turns are sent).
        user: the user message, or variant -> user message.
        examples: worked examples, sent as earlier chat turns.
        parts: fragment name -> format string, filled by :meth:`render_part`.
        extras: the caller's data keys of the file (e.g. the filter's ``principles``).
        source: the file it was read from (empty for a template built in code).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Text
    version: Annotated[Text, BeforeValidator(_version_text)]
    system: Annotated[str, BeforeValidator(_none_is_empty)] = ""
    user: Text | dict[str, Text]
    examples: tuple[Turn, ...] = ()
    parts: dict[str, str] = {}
    extras: dict[str, Any] = {}
    source: str = ""

    @property
    def label(self) -> str:
        """``name@version``, the template's identity in output rows."""
        return f"{self.name}@{self.version}"

    @property
    def where(self) -> str:
        """The file, or the label of a template built in code, for messages."""
        return self.source or self.label

    @property
    def variants(self) -> tuple[str, ...]:
        """The user-message variants (empty: ``user`` is one text)."""
        return tuple(self.user) if isinstance(self.user, dict) else ()

    def user_text(self, variant: str | None = None) -> str:
        """The user message template of ``variant`` (None: the one user message).

        Raises:
            TemplateError: the variant does not exist, or one is needed and none given.
        """
        if isinstance(self.user, str):
            if variant is not None:
                raise TemplateError(f"{self.where}: `user` is one text, it has no {variant!r}")
            return self.user
        if variant not in self.user:
            raise TemplateError(
                f"{self.where}: `user` has no variant {variant!r} (variants: {sorted(self.user)})"
            )
        return self.user[variant]

    def fields(self, variant: str | None = None) -> set[str]:
        """The placeholders of the messages: ``system`` and the user message of
        ``variant`` (None: of every variant).

        Raises:
            TemplateError: a placeholder is not a plain name, or a brace is unmatched.
        """
        texts = [self.system]
        if variant is None and isinstance(self.user, dict):
            texts += list(self.user.values())
        else:
            texts.append(self.user_text(variant))
        names: set[str] = set()
        for text in texts:
            names |= placeholders(text, self.where)
        return names

    def part_fields(self, part: str) -> set[str]:
        """The placeholders of one part."""
        return placeholders(self._part(part), f"{self.where}, part {part!r}")

    def render(
        self,
        values: Mapping[str, Any],
        variant: str | None = None,
        examples: Sequence[Turn] | None = None,
    ) -> list[dict[str, str]]:
        """Chat messages with the placeholders filled in: the system message (when not
        blank), the worked examples as earlier turns (``examples``: instead of the
        template's own), then the user message of ``variant``.

        Raises:
            TemplateError: a placeholder has no value, or the variant does not exist.
        """
        user = self.user_text(variant)
        missing = self.fields(variant) - set(values)
        if missing:
            raise TemplateError(f"{self.label}: no value for {sorted(missing)}")
        messages = []
        if self.system.strip():
            messages.append({"role": "system", "content": self.system.format_map(values)})
        for turn in self.examples if examples is None else examples:
            messages.append({"role": "user", "content": turn.user})
            messages.append({"role": "assistant", "content": turn.assistant})
        messages.append({"role": "user", "content": user.format_map(values)})
        return messages

    def text(self, values: Mapping[str, Any], variant: str | None = None) -> str:
        """The user message of ``variant`` alone, filled in (for a caller that wraps it
        into a prompt of its own).

        Raises:
            TemplateError: a placeholder has no value.
        """
        user = self.user_text(variant)
        missing = placeholders(user, self.where) - set(values)
        if missing:
            raise TemplateError(f"{self.label}: no value for {sorted(missing)}")
        return user.format_map(values)

    def render_part(self, part: str, values: Mapping[str, Any]) -> str:
        """One part filled in.

        Raises:
            TemplateError: the template has no such part, or a placeholder has no value.
        """
        text = self._part(part)
        missing = self.part_fields(part) - set(values)
        if missing:
            raise TemplateError(f"{self.label}, part {part!r}: no value for {sorted(missing)}")
        return text.format_map(values)

    def _part(self, part: str) -> str:
        if part not in self.parts:
            raise TemplateError(
                f"{self.where}: no part {part!r} (parts: {sorted(self.parts)}); add it under `parts`"
            )
        return self.parts[part]


def placeholders(text: str, where: str) -> set[str]:
    """The ``{names}`` of a format string.

    Raises:
        TemplateError: naming ``where``: a placeholder that is not a plain name (``{}``,
            ``{0}``, ``{a.b}``), or a single brace that does not open or close one.
    """
    names: set[str] = set()
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise TemplateError(f"{where}: {exc}; write a literal brace double ({{{{ or }}}})") from exc
    for _, name, _, _ in parsed:
        if name is not None:
            if not name.isidentifier():
                raise TemplateError(
                    f"{where}: placeholder {{{name}}} is not a plain name; "
                    "write a literal brace double ({{ or }})"
                )
            names.add(name)
    return names


@dataclass(frozen=True)
class PromptSpec:
    """What a caller of templates fills in and renders: the contract a template file is
    checked against when it is loaded (:meth:`check`).

    Attributes:
        role: what the template is for, as error messages name it (e.g.
            ``"construction step 'summary'"``).
        fields: placeholders the messages (``system`` and ``user``) may use: every value
            the caller supplies.
        required: placeholders every user message must use (e.g. the question).
        variants: the user-message variants the caller renders; empty: ``user`` is one
            text.
        parts: the parts the caller renders: part name -> placeholders it may use.
        data: the data keys the caller reads from the file (absent keys are allowed).
        system: whether a system message is required.
        check: a further check of the caller's own (e.g. of its data keys); it raises
            :class:`TemplateError` or ``ValueError`` with the fix, and the file is named.
    """

    role: str
    fields: frozenset[str]
    required: frozenset[str] = frozenset()
    variants: tuple[str, ...] = ()
    parts: Mapping[str, frozenset[str]] = field(default_factory=dict)
    data: frozenset[str] = frozenset()
    system: bool = False
    check: Callable[[PromptTemplate], None] | None = None

    def validate(self, template: PromptTemplate) -> None:
        """Stop on a template this caller cannot fill or render, before any request is
        made; a literal brace written single is the usual cause of an unknown placeholder.

        Raises:
            TemplateError: naming the file, what is wrong and the fix.
        """
        where = template.where
        if self.system and not template.system.strip():
            raise TemplateError(f"{where}: {self.role} needs a `system` message")
        if tuple(sorted(template.variants)) != tuple(sorted(self.variants)):
            want = (
                f"a mapping of {list(self.variants)} to their messages"
                if self.variants
                else "one text"
            )
            raise TemplateError(f"{where}: `user` must be {want} for {self.role}")
        unknown = template.fields() - self.fields
        if unknown:
            raise TemplateError(
                f"{where}: placeholders {sorted(unknown)} are not available to {self.role} "
                f"(available: {sorted(self.fields)}); double literal braces"
            )
        for variant in self.variants or (None,):
            absent = self.required - placeholders(template.user_text(variant), where)
            if absent:
                which = f"`user.{variant}`" if variant else "`user`"
                raise TemplateError(
                    f"{where}: {which} must use {sorted('{' + f + '}' for f in absent)} "
                    f"for {self.role}"
                )
        if set(template.parts) != set(self.parts):
            raise TemplateError(
                f"{where}: `parts` must hold exactly {sorted(self.parts)} for {self.role}, "
                f"not {sorted(template.parts)}"
            )
        for part, allowed in self.parts.items():
            unknown = template.part_fields(part) - allowed
            if unknown:
                raise TemplateError(
                    f"{where}: part {part!r} uses placeholders {sorted(unknown)}, not "
                    f"available to it (available: {sorted(allowed)}); double literal braces"
                )
        stray = set(template.extras) - self.data
        if stray:
            raise TemplateError(
                f"{where}: unknown keys {sorted(stray)} for {self.role}; a template holds "
                f"{sorted(CORE_KEYS | {'data_from'})}"
                + (f" and its data keys {sorted(self.data)}" if self.data else "")
            )
        if self.check is not None:
            try:
                self.check(template)
            except TemplateError:
                raise
            except ValueError as exc:
                raise TemplateError(f"{where}: {exc}") from exc


def _read(path: Path) -> dict[str, Any]:
    try:
        obj = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise TemplateError(f"{path}: cannot read template: {exc}") from exc
    if not isinstance(obj, dict):
        raise TemplateError(f"{path}: expected a mapping of `name`, `version`, `user`, ...")
    return obj


def load_template(path: str | Path, spec: PromptSpec) -> PromptTemplate:
    """Read one template file and check it against its caller's ``spec``.

    Raises:
        TemplateError: the file is missing or malformed, or does not fit ``spec``; the
            message names the file and the fix.
    """
    path = Path(path)
    obj = _read(path)
    base = obj.pop("data_from", None)
    if base is not None:
        other = path.with_name(f"{base}.yaml")
        if other == path:
            raise TemplateError(f"{path}: `data_from` names the file itself")
        for key, value in load_template(other, spec).extras.items():
            obj.setdefault(key, value)
    core = {k: v for k, v in obj.items() if k in CORE_KEYS}
    extras = {k: v for k, v in obj.items() if k not in CORE_KEYS}
    try:
        template = PromptTemplate.model_validate({**core, "extras": extras, "source": str(path)})
    except ValidationError as exc:
        problems = "; ".join(
            f"`{'.'.join(str(p) for p in err['loc']) or '(file)'}`: {err['msg']}"
            for err in exc.errors()
        )
        raise TemplateError(
            f"{path}: {problems} (a template holds `name`, `version`, `user` and optionally "
            "`system`, `examples` as a list of {user: <text>, assistant: <text>} turns, "
            "`parts`)"
        ) from exc
    spec.validate(template)
    return template


def load_templates(
    directory: str | Path, names: Mapping[str, str], specs: Mapping[str, PromptSpec]
) -> dict[str, PromptTemplate]:
    """A caller's templates: ``names`` maps each role of ``specs`` to a file stem in
    ``directory``; every role must be named, and no other.

    Raises:
        TemplateError: a role is unknown or unnamed, or a file fails :func:`load_template`.
    """
    unknown = sorted(set(names) - set(specs))
    if unknown:
        raise TemplateError(f"templates named for unknown roles {unknown}; roles are {list(specs)}")
    absent = [role for role in specs if role not in names]
    if absent:
        raise TemplateError(f"no template named for {absent}")
    return {
        role: load_template(Path(directory) / f"{names[role]}.yaml", spec)
        for role, spec in specs.items()
    }
