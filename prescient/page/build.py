"""Assemble ``reports/index.html`` from the tables, figures and provenance.

The page follows the outline (:mod:`prescient.report.outline`): the first screen (the
leaderboard, what was run, the headline table, the contents), then each part with its own figures and
tables (:func:`~prescient.page.contents.report_figures`,
:func:`~prescient.page.contents.report_tables`: the shared analysis's and each
benchmark's), grouped by the part they name, not by kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from string import Template
from typing import Any

import pandas as pd

from prescient.analysis.proper_report import LEADERBOARD_NOTE
from prescient.analysis.reading_report import (
    coverage_note,
    failures_line,
)
from prescient.analysis.sources import UNNAMED
from prescient.benchmarks import registry
from prescient.page.contents import (
    optional_inputs,
    outline,
    parts,
    report_figures,
    report_tables,
)
from prescient.page.summary import (
    DEMO_LINE,
    HEADLINE_NOTE,
    first_leaderboard,
    headline,
    is_demo,
    leaderboard_cell,
    run_facts,
)
from prescient.report import tables as fmt
from prescient.report.html import (
    EmbeddedFigure,
    FirstScreen,
    PartSection,
    TableSection,
    render_page,
)
from prescient.report.outline import Part, check_parts
from prescient.report.parts import ReportInputs
from prescient.report.provenance import params_digest

SERIES_PART = "daily-oracle"
"""The part holding the time-series analyses (its title names the sources analysed)."""
TITLE = "Prescient report"


def subtitle(titles: Sequence[str]) -> str:
    """The page's subtitle, naming every benchmark of the registry."""
    names = list(titles)
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)
    return f"Forecasting LLMs over time: {listed}"


def own_sources() -> set[str]:
    """The question sources a benchmark makes itself (its part's ``question_sources``)."""
    return {name for p in parts() for name in p.question_sources}


def _kv(df: pd.DataFrame | None) -> dict[str, str]:
    if df is None or df.empty or "key" not in df.columns:
        return {}
    return {str(k): str(v) for k, v in zip(df["key"], df["value"], strict=True)}


def _count(text: str) -> str:
    """A count of the provenance table as every count of the report (fmt.fmt_int)."""
    return fmt.fmt_int(text) if text.strip().isdigit() else text


def provenance_rows(params: Mapping[str, Any], inputs: ReportInputs) -> list[tuple[str, str]]:
    """Key-value lines identifying the code, configuration and data of this report: the
    inputs are those the analysis read (its provenance table), so a report on a scores
    table from elsewhere names that table, not the project's corpus."""
    tables = inputs.tables
    prov = _kv(tables.get("provenance"))
    corpus = params.get("corpus", {}) if isinstance(params.get("corpus"), Mapping) else {}
    has_corpus = bool(prov.get("corpus_checksum"))
    analysis = params.get("analysis", {}) if isinstance(params.get("analysis"), Mapping) else {}
    optional = [
        (
            f"{source.what} ({source.param})",
            "not part of this run"
            if source.part in inputs.absent
            else str(analysis.get(source.param.split(".")[-1], "")),
        )
        for source in optional_inputs()
    ]
    return [
        ("code", "the commit whose dvc.lock records this page's hash"),
        ("params digest (sha256 of params.yaml)", params_digest(params)),
        ("corpus", str(corpus.get("name", "")) if has_corpus else "none (scores analysed alone)"),
        ("corpus checksum (articles table)", prov.get("corpus_checksum", "")),
        ("articles", _count(prov.get("articles", ""))),
        ("scores table", prov.get("scores_path", "")),
        ("scores checksum", prov.get("scores_checksum", "")),
        ("scored rows", _count(prov.get("scores_rows", ""))),
        ("questions table", prov.get("questions_path", "")),
        ("questions checksum", prov.get("questions_checksum", "")),
        ("question sources", prov.get("sources", "")),
        ("sources in the time series", prov.get("time_series_sources", "")),
        ("retrieval window (articles dated in)", prov.get("retrieval_window", "")),
        ("questions with a forecast date", prov.get("forecast_dates", "")),
        ("duplicate score rows dropped", _count(prov.get("duplicates_dropped", ""))),
        *optional,
        ("random seed (base.seed)", str(params.get("base", {}).get("seed", ""))),
    ]


def series_title(title: str, sources: str) -> str:
    """The heading of the time-series part: the outline's (Daily Oracle) when it analyses
    a benchmark's own questions (:func:`own_sources`); named after the other sources when
    they are analysed (an imported question set is not Daily Oracle's)."""
    names = [s.strip() for s in sources.split(",") if s.strip()]
    own = own_sources()
    others = [n for n in names if n not in own]
    if not others:
        return title
    if others == [UNNAMED] and not own & set(names):
        return "Questions of an unnamed source"
    listed = ", ".join(others)
    if own & set(names):
        return f"{title} and {listed}"
    return f"Question set: {listed}" if len(others) == 1 else f"Question sets: {listed}"


def _table_section(spec: fmt.ReportTable, tables: Mapping[str, pd.DataFrame]) -> TableSection:
    df = tables.get(spec.name, pd.DataFrame())
    frame = spec.display(df) if not df.empty else pd.DataFrame()
    note = spec.full_note(tables)
    return TableSection(spec.section_id, spec.title, frame, note, spec.scroll, spec.empty)


def _part_section(
    part: Part,
    depth: int,
    inputs: ReportInputs,
    figures: Mapping[str, bytes | None],
    demo: bool,
    words: Mapping[str, str],
    pairs: Mapping[str, list[tuple[str, str]]],
) -> PartSection:
    """One part: its lines, figures and tables, or the one line replacing them."""
    children = tuple(
        _part_section(c, depth + 1, inputs, figures, demo, words, pairs) for c in part.children
    )
    title = part.title
    if part.id == SERIES_PART:
        title = series_title(
            title, _kv(inputs.tables.get("provenance")).get("time_series_sources", "")
        )
    if part.id in inputs.absent:
        return PartSection(part.id, title, depth, status=inputs.absent[part.id])
    tables = inputs.tables
    embedded = tuple(
        EmbeddedFigure(f.name, f.caption, figures.get(f.name), f.why_empty(tables))
        for f in report_figures()
        if f.part == part.id
    )
    sections = tuple(_table_section(t, tables) for t in report_tables() if t.part == part.id)
    reasons = [f.empty for f in embedded if f.empty] + [t.empty for t in sections if t.frame.empty]
    # nothing at all to show: the first reason, in one line
    status = reasons[0] if reasons and len(reasons) == len(embedded) + len(sections) else ""
    lines = [part.about] + ([part.demo] if demo and part.demo else [])
    return PartSection(
        part.id,
        title,
        depth,
        tuple(Template(line).safe_substitute(words) for line in lines),
        status,
        embedded,
        sections,
        tuple(pairs.get(part.id, ())),
        children,
    )


def fitted_line(cells: pd.DataFrame | None) -> str:
    """The cells whose prompts were fitted to the model's context window, with counts
    (empty when none was)."""
    if cells is None or cells.empty or "n_fitted" not in cells.columns:
        return ""
    n = pd.to_numeric(cells["n_fitted"], errors="coerce").fillna(0).astype(int)
    fitted = cells.assign(n_fitted=n).loc[n > 0]
    if fitted.empty:
        return ""
    per = fitted.groupby(["model", "cell"], sort=False, as_index=False)["n_fitted"].sum()
    parts = ", ".join(
        f"{m} {c} {int(k)}"
        for m, c, k in zip(per["model"], per["cell"], per["n_fitted"], strict=True)
    )
    return (
        f" Prompts fitted to the model's context window (articles cut to the most words "
        f"that fit): {parts}."
    )


def _leaderboard(tables: Mapping[str, pd.DataFrame]) -> TableSection | None:
    board = tables.get("leaderboard", pd.DataFrame())
    cell = leaderboard_cell(board)
    if cell is None:
        return None
    return TableSection(
        "leaderboard",
        f"Leaderboard: {cell.replace('_', ' ')}",
        first_leaderboard(board),
        LEADERBOARD_NOTE + " Every setting: the leaderboard table under Proper scores; the papers' "
        "accuracy per setting follows.",
    )


def _headline(tables: Mapping[str, pd.DataFrame]) -> TableSection:
    sources = _kv(tables.get("provenance")).get("time_series_sources", "")
    note = HEADLINE_NOTE + (f" Question sources: {sources}." if sources else "")
    note += fitted_line(tables.get("cells"))
    for line in (failures_line(tables), coverage_note(tables)):
        note += f" {line}" if line else ""
    return TableSection(
        "headline",
        "Accuracy per model and setting",
        headline(tables.get("accuracy", pd.DataFrame())),
        note,
        empty="No scored questions: nothing to report.",
    )


def build_report(
    inputs: ReportInputs,
    figures: Mapping[str, bytes | None],
    params: Mapping[str, Any],
) -> str:
    """The HTML page: the first screen, every part of the outline, the notes."""
    page = outline()
    check_parts(
        page,
        [(f.name, f.part) for f in report_figures()] + [(t.name, t.part) for t in report_tables()],
    )
    tables = inputs.tables
    notes_df = tables.get("notes", pd.DataFrame())
    notes = [str(n) for n in notes_df["note"]] if "note" in notes_df.columns else []
    demo = is_demo(tables, params)
    words = {k: v for p in parts() if p.words for k, v in p.words(params).items()}
    pairs = {"provenance": provenance_rows(params, inputs)}
    sections = [_part_section(part, 0, inputs, figures, demo, words, pairs) for part in page.parts]
    facts = run_facts(inputs, params, parts())
    first = FirstScreen(facts, DEMO_LINE if demo else "", _headline(tables), _leaderboard(tables))
    titles = [b.title for b in registry.benchmarks()]
    return render_page(TITLE, subtitle(titles), first, sections, notes)
