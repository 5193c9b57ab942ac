"""Generation parameters a configuration may send with a request, typed.

A ``generation`` (or ``gen``) section of the configuration is sent with every request of
its stage and is part of every ledger key, so a misspelt key (``temprature``) would be
sent to the model and change every key without changing anything the model does. A
section is therefore validated against :class:`GenerationParams`: the sampling keys the
transports pass on (the OpenAI chat-completion names, which litellm translates for other
providers and the embedded model reads: temperature, top_p, max_tokens, seed, stop) and
the two penalties. Any other key stops the stage naming it
(``eval.generation.temprature is not a parameter ...``).

A valid section is handed on exactly as written, same keys, same order, same values
(``0`` stays ``0``, ``0.0`` stays ``0.0``), so the requests and ledger keys of every
valid configuration are what they were before the check. A key left out is not sent:
the model's own default (its registry entry, then the server's) applies; ``null`` sends
nothing either.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import ConfigDict, PlainValidator, WrapValidator
from typing_extensions import TypedDict

__all__ = ["Generation", "GenerationParams"]


def _number(lo: float | None, hi: float | None, *, whole: bool = False) -> PlainValidator:
    """A number in ``[lo, hi]`` (a whole one when ``whole``), or null; kept as written."""
    kind = "a whole number" if whole else "a number"
    bounds = " and ".join(
        part
        for part in (f">= {lo:g}" if lo is not None else "", f"<= {hi:g}" if hi is not None else "")
        if part
    )
    expected = f"expected {kind}{' ' + bounds if bounds else ''}"

    def check(value: Any) -> Any:
        if value is None:
            return value
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and (isinstance(value, int) or (not whole and math.isfinite(value)))
        ok = ok and (lo is None or value >= lo) and (hi is None or value <= hi)
        if not ok:
            raise ValueError(expected)
        return value

    return PlainValidator(check)


def _stop(value: Any) -> Any:
    """A stop sequence, a list of them, or null; kept as written."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise ValueError("expected a stop sequence (text) or a list of them")


class GenerationParams(TypedDict, total=False):
    """The keys a generation section may set (all optional; none has a default here).

    Attributes:
        temperature: sampling temperature, >= 0 (0: greedy).
        top_p: nucleus sampling mass, 0-1.
        max_tokens: the most tokens of a reply, >= 1.
        seed: the sampling seed (providers that take one).
        stop: a stop sequence or a list of them.
        presence_penalty: -2 to 2 (OpenAI-format servers).
        frequency_penalty: -2 to 2 (OpenAI-format servers).
    """

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]

    temperature: Annotated[float | None, _number(0, None)]
    top_p: Annotated[float | None, _number(0, 1)]
    max_tokens: Annotated[int | None, _number(1, None, whole=True)]
    seed: Annotated[int | None, _number(None, None, whole=True)]
    stop: Annotated[str | list[str] | None, PlainValidator(_stop)]
    presence_penalty: Annotated[float | None, _number(-2, 2)]
    frequency_penalty: Annotated[float | None, _number(-2, 2)]


def _as_written(value: Any, handler: Callable[[Any], Any]) -> Any:
    """Validate against :class:`GenerationParams`, then hand on the section as written."""
    handler(value)
    return dict(value)


Generation = Annotated[GenerationParams, WrapValidator(_as_written)]
"""A generation section in a settings model: checked key by key (errors name
``<section>.<key>``), handed on unchanged."""
