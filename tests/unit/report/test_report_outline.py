"""The report's outline (prescient/page/outline.yaml with the benchmarks' fragments): parts in the order a
reader meets them, ids that are unique anchors, and every figure and table in a part."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from prescient.page.contents import outline, report_figures, report_tables
from prescient.report.outline import check_parts, parse_outline

PART = "- id: {id}\n    title: T\n    about: A\n"


def test_the_shipped_outline_in_page_order() -> None:
    shipped = outline()
    assert [p.title for p in shipped.parts] == [
        "Daily Oracle",
        "Beyond the papers: probabilistic forecasts and proper scores",
        "FreshBench",
        "OpenForecast",
        "Dataset",
        "Provenance",
    ]
    assert shipped.ids() == [
        "daily-oracle", "accuracy-over-time", "rag-cutoffs", "yearly", "decline-slopes",
        "refusals", "horizon", "examples", "beyond-the-papers", "proper-scores",
        "brier-over-time", "calibration", "model-comparisons", "freshbench", "bias-tests", "bpc",
        "open-forecast", "dataset", "construction", "sources", "categories", "anderson-schooler",
        "provenance",
    ]  # fmt: skip
    # every top-level part but provenance says what its numbers are worth on the demo
    assert [p.id for p in shipped.parts if p.demo] == [
        "daily-oracle", "beyond-the-papers", "freshbench", "open-forecast", "dataset",
    ]  # fmt: skip


def test_every_figure_and_table_names_a_part_and_every_leaf_holds_some() -> None:
    named = [(f.name, f.part) for f in report_figures()] + [
        (t.name, t.part) for t in report_tables()
    ]
    check_parts(outline(), named)
    used = {part for _, part in named}
    leaves = {p.id for p, _ in outline().walk() if not p.children}
    assert leaves - used == set()
    with pytest.raises(ValueError, match=r"fig_x -> nowhere"):
        check_parts(outline(), [*named, ("fig_x", "nowhere")])


def test_ids_are_unique_anchors() -> None:
    one = "parts:\n  " + PART.format(id="a")
    assert parse_outline(one).ids() == ["a"]
    twice = "parts:\n  " + PART.format(id="a") + "  " + PART.format(id="a")
    with pytest.raises(ValueError, match=r"repeated: \['a'\]"):
        parse_outline(twice)
    with pytest.raises(ValidationError):
        parse_outline("parts:\n  " + PART.format(id="Not An Anchor"))
    with pytest.raises(ValidationError):  # a key the outline does not know
        parse_outline("parts:\n  " + PART.format(id="a") + "    colour: red\n")
