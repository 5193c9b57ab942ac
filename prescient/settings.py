"""Typed stage settings, validated once at the edge.

Every stage reads its parameters into a :class:`Settings` model (pydantic) with
:func:`load_settings`. The models state types and constraints only: every value and
default lives in ``conf/`` (composed into params.yaml), never in code, and a section with
an unknown key, a missing key or a value of the wrong type stops the stage with one
:class:`ParamsError` line per problem, naming the parameter and how to set it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
)

__all__ = ["Bootstrap", "Day", "ParamsError", "Settings", "WindowEnd", "load_settings", "section"]


class ParamsError(ValueError):
    """Parameters a stage cannot use; the message names each parameter and the fix."""


class Settings(BaseModel):
    """Base of every settings model: frozen, no unknown keys, no defaults in code."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


class Bootstrap(Settings):
    """A section's percentile bootstrap, spelt alike everywhere (``<section>.bootstrap``).

    Attributes:
        reps: replicates; 0 turns the intervals off where the section allows it.
        confidence: two-sided level of the intervals.
    """

    reps: Annotated[int, Field(ge=0)]
    confidence: Annotated[float, Field(gt=0.0, lt=1.0)]


def _day(value: Any) -> Any:
    """Only a date or ``YYYY-MM-DD`` text is a day (pydantic would take 20240101 as a
    Unix time)."""
    if value is None or (isinstance(value, dt.date) and not isinstance(value, dt.datetime)):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValueError(f"expected a day as YYYY-MM-DD, got {value!r}")


Day = Annotated[dt.date, BeforeValidator(_day)]
"""A calendar day in configuration: a date or ``YYYY-MM-DD`` text."""


def _window_end(end: dt.date | None, info: ValidationInfo) -> dt.date | None:
    start = info.data.get("date_start")
    if start and end and start > end:
        raise ValueError(f"is before date_start {start}: the window would hold no day")
    return end


WindowEnd = Annotated[Day | None, AfterValidator(_window_end)]
"""The last day of an inclusive ``date_start`` .. ``date_end`` window (None: open): a
:data:`Day` not before the model's ``date_start``, which must be declared before it."""

S = TypeVar("S", bound=Settings)


def section(params: Mapping[str, Any], path: str) -> Any:
    """The value at dotted ``path`` of params (``"eval.generation"``).

    Raises:
        ParamsError: a key on the way is missing.
    """
    node: Any = params
    walked: list[str] = []
    for key in path.split("."):
        walked.append(key)
        if not isinstance(node, Mapping) or key not in node:
            raise ParamsError(
                f"params: {'.'.join(walked)} is missing; set it in conf/ and run `make params`"
            )
        node = node[key]
    return node


def _describe(path: str, error: Mapping[str, Any]) -> str:
    loc = ".".join(str(x) for x in (path, *error.get("loc", ())) if str(x))
    kind = error.get("type", "")
    if kind == "missing":
        return f"{loc} is missing: state it in conf/ (every default lives there)"
    if kind == "extra_forbidden":
        return f"{loc} is not a parameter of this stage: check the spelling in conf/ or -S"
    message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    got = error.get("input")
    return f"{loc}: {message} (got {got!r}); fix it in conf/ or with -S '{loc}=...'"


def validate(cls: type[S], value: Any, path: str) -> S:
    """``value`` (a params mapping) as ``cls``.

    Raises:
        ParamsError: one line per invalid, missing or unknown parameter, each named by
            its full dotted path.
    """
    try:
        return cls.model_validate(value)
    except ValidationError as exc:
        lines = [_describe(path, e) for e in exc.errors()]
        raise ParamsError("; ".join(lines)) from None


def load_settings(cls: type[S], params: Mapping[str, Any], path: str) -> S:
    """Validate the params section at dotted ``path`` into ``cls``."""
    return validate(cls, section(params, path), path)
