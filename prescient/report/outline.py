"""The report's outline: its parts in page order, read from ``page/outline.yaml``.

The outline is content, so it lives in a data file; this module validates it once on
load (unique ids that are valid anchors, text in every title and explanation) so a typo
fails the report's tests rather than producing a page with a dead link. Figures and
tables name the part they belong to; :func:`check_parts` verifies each name exists.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from importlib import resources
from typing import Annotated

import yaml
from pydantic import BaseModel, ConfigDict, Field

PAGE_PACKAGE = "prescient.report.page"
OUTLINE_FILE = "outline.yaml"

Text = Annotated[str, Field(min_length=1)]


class Part(BaseModel):
    """One part of the page.

    Attributes:
        id: its anchor (``index.html#<id>``).
        title: heading and contents entry.
        about: one line saying what its numbers are.
        demo: one line shown on the demo corpus only: what the numbers are worth there.
        children: sub-parts, in page order.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")]
    title: Text
    about: Text
    demo: str | None = None
    children: tuple[Part, ...] = ()


class Outline(BaseModel):
    """The whole outline file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    parts: tuple[Part, ...] = Field(min_length=1)

    def walk(self) -> Iterator[tuple[Part, int]]:
        """Every part with its depth (0: top level), in page order."""

        def visit(parts: Iterable[Part], depth: int) -> Iterator[tuple[Part, int]]:
            for part in parts:
                yield part, depth
                yield from visit(part.children, depth + 1)

        return visit(self.parts, 0)

    def ids(self) -> list[str]:
        return [part.id for part, _ in self.walk()]


def parse_outline(text: str) -> Outline:
    """An outline from YAML text; ids must be unique across the page."""
    outline = Outline.model_validate(yaml.safe_load(text))
    ids = outline.ids()
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ValueError(f"{OUTLINE_FILE}: part ids must be unique, repeated: {repeated}")
    return outline


@functools.cache
def outline() -> Outline:
    """The shipped outline (``prescient/report/page/outline.yaml``)."""
    text = resources.files(PAGE_PACKAGE).joinpath(OUTLINE_FILE).read_text(encoding="utf-8")
    return parse_outline(text)


def check_parts(named: Iterable[tuple[str, str]]) -> None:
    """Fail when a figure or table names a part the outline lacks.

    Args:
        named: (figure or table name, part id) pairs.
    """
    known = set(outline().ids())
    unknown = sorted(f"{name} -> {part}" for name, part in named if part not in known)
    if unknown:
        raise ValueError(f"parts missing from {OUTLINE_FILE}: {unknown}")
