"""The report's outline: its parts in page order, from YAML data files.

The outline is content, so it lives in data files: the page's own
(``prescient/page/outline.yaml``) and each benchmark's fragment, whose parts say where
they go (:class:`PlacedPart`: after or before a part, or last under one). This module
validates them on load (unique ids that are valid anchors, text in every title and
explanation, places that exist), so a typo fails the report's tests rather than
producing a page with a dead link. Figures and tables name the part they belong to;
:func:`check_parts` verifies each name exists.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Annotated

import yaml
from pydantic import BaseModel, ConfigDict, Field

OUTLINE_FILE = "outline.yaml"

Text = Annotated[str, Field(min_length=1)]
PartId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")]


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

    id: PartId
    title: Text
    about: Text
    demo: str | None = None
    children: tuple[Part, ...] = ()


class PlacedPart(Part):
    """A part of a benchmark's outline fragment and where it goes on the page.

    Attributes:
        after: the id of the part it follows (its sibling).
        before: the id of the part it precedes (its sibling).
        under: the id of the part it ends (its last child). With none of the three, it
            ends the page's top level.
    """

    after: PartId | None = None
    before: PartId | None = None
    under: PartId | None = None


class Outline(BaseModel):
    """The whole outline."""

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


class Fragment(BaseModel):
    """A benchmark's outline fragment file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    parts: tuple[PlacedPart, ...] = Field(min_length=1)


def _unique(outline: Outline, where: str) -> Outline:
    ids = outline.ids()
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ValueError(f"{where}: part ids must be unique, repeated: {repeated}")
    return outline


def parse_outline(text: str) -> Outline:
    """An outline from YAML text; ids must be unique across the page."""
    return _unique(Outline.model_validate(yaml.safe_load(text)), OUTLINE_FILE)


def parse_fragment(text: str) -> tuple[PlacedPart, ...]:
    """A benchmark's outline fragment from YAML text."""
    return Fragment.model_validate(yaml.safe_load(text)).parts


def _plain(part: PlacedPart) -> Part:
    return Part.model_validate(part.model_dump(exclude={"after", "before", "under"}))


def _insert(parts: tuple[Part, ...], placed: PlacedPart) -> tuple[tuple[Part, ...], bool]:
    """``parts`` with ``placed`` inserted where it says, searched depth-first."""
    part = _plain(placed)
    for i, sibling in enumerate(parts):
        if sibling.id == placed.after:
            return (*parts[: i + 1], part, *parts[i + 1 :]), True
        if sibling.id == placed.before:
            return (*parts[:i], part, *parts[i:]), True
        if sibling.id == placed.under:
            grown = sibling.model_copy(update={"children": (*sibling.children, part)})
            return (*parts[:i], grown, *parts[i + 1 :]), True
        children, done = _insert(sibling.children, placed)
        if done:
            grown = sibling.model_copy(update={"children": children})
            return (*parts[:i], grown, *parts[i + 1 :]), True
    return parts, False


def merge(base: Outline, fragments: Sequence[tuple[str, Sequence[PlacedPart]]]) -> Outline:
    """``base`` with every fragment's parts placed, fragment by fragment, in order.

    Args:
        base: the page's own outline.
        fragments: (whose fragment, its parts) pairs, for the error messages.
    """
    parts = base.parts
    for owner, placed_parts in fragments:
        for placed in placed_parts:
            anchors = [a for a in (placed.after, placed.before, placed.under) if a]
            if len(anchors) > 1:
                raise ValueError(f"{owner}: part {placed.id} names more than one place")
            if not anchors:
                parts = (*parts, _plain(placed))
                continue
            parts, done = _insert(parts, placed)
            if not done:
                raise ValueError(
                    f"{owner}: part {placed.id} is placed at {anchors[0]!r}, "
                    "which the outline lacks"
                )
    return _unique(Outline(parts=parts), "the merged outline")


def check_parts(outline: Outline, named: Iterable[tuple[str, str]]) -> None:
    """Fail when a figure or table names a part the outline lacks.

    Args:
        outline: the page's outline.
        named: (figure or table name, part id) pairs.
    """
    known = set(outline.ids())
    unknown = sorted(f"{name} -> {part}" for name, part in named if part not in known)
    if unknown:
        raise ValueError(f"parts missing from the outline: {unknown}")
