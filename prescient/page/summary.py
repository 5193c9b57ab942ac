"""The report's first screen: the leaderboard, what was run, and the headline accuracy
table.

A newcomer opening ``reports/index.html`` should see, without scrolling, how the models
forecast (the leaderboard of proper scores) and whether the numbers mean anything (the
demo corpus is fictional), and just below it which corpus and question sources the run
read, which models answered in which settings, and the accuracy of each model in each
setting. Everything here is read from the tables and params; nothing is computed
that the analysis did not compute (the headline is the ``accuracy`` table, pivoted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from prescient.analysis.proper_report import leaderboard_display
from prescient.analysis.schema import cell_order, setting_label
from prescient.evaluation.settings import CLOSED_BOOK
from prescient.report import tables as fmt
from prescient.report.parts import ReportInputs, ReportPart
from prescient.vocab import QTYPES

DEMO_CORPUS = "demo"
"""conf/corpus/demo.yaml's name: the fictional corpus that ships with the project."""
DEMO_LINE = (
    "The demo corpus is fictional, written for this project: the numbers below mean "
    "nothing about any model; they show every part of the method working."
)
HEADLINE_NOTE = (
    "Accuracy (%) over the resolution months of the analysis period (all of them unless "
    "analysis.date_start or date_end is set), [Wilson 95% interval] and n, the questions "
    "scored (failed calls left out; refusals and unparseable answers count as wrong)."
)

Facts = tuple[tuple[str, tuple[str, ...]], ...]
"""(label, lines) pairs of the run summary."""


def _kv(df: pd.DataFrame | None) -> dict[str, str]:
    if df is None or df.empty or "key" not in df.columns:
        return {}
    return {str(k): str(v) for k, v in zip(df["key"], df["value"], strict=True)}


def has_corpus(tables: Mapping[str, pd.DataFrame]) -> bool:
    """The analysis read a corpus (not a scores table analysed alone)."""
    return bool(_kv(tables.get("provenance")).get("corpus_checksum"))


def is_demo(tables: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> bool:
    """The run read the fictional demo corpus."""
    corpus = params.get("corpus")
    name = corpus.get("name") if isinstance(corpus, Mapping) else None
    return has_corpus(tables) and name == DEMO_CORPUS


def _settings(acc: pd.DataFrame) -> pd.DataFrame:
    """The distinct settings of the scored cells, in the paper's order."""
    cells = acc[["setting", "rag_cutoff", "cell"]].drop_duplicates().assign(model="")
    return cell_order(cells)


def _corpus_line(tables: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> str:
    prov = _kv(tables.get("provenance"))
    if not has_corpus(tables):
        return f"none: the scores table {prov.get('scores_path', '')} analysed alone"
    corpus = params.get("corpus")
    name = corpus.get("name", "") if isinstance(corpus, Mapping) else ""
    articles = prov.get("articles", "")
    count = f"{fmt.fmt_int(articles)} articles" if articles.isdigit() else "articles not counted"
    return f"{name}: {count}"


def _source_lines(tables: Mapping[str, pd.DataFrame]) -> tuple[str, ...]:
    sources = tables.get("dataset_sources", pd.DataFrame())
    if sources.empty:
        return ("no evaluated questions",)
    series = set(_kv(tables.get("provenance")).get("time_series_sources", "").split(", "))
    lines = []
    for r in sources.to_dict("records"):
        line = (
            f"{r['source']}: {fmt.fmt_int(r['n'])} questions ({fmt.fmt_int(r['n_tf'])} TF, "
            f"{fmt.fmt_int(r['n_mc'])} MC), resolving {r['first_date']} to {r['last_date']}"
        )
        if r["source"] not in series:
            line += "; not in the headline or the time series"
        lines.append(line)
    return tuple(lines)


def _model_lines(tables: Mapping[str, pd.DataFrame]) -> tuple[str, ...]:
    models = tables.get("models", pd.DataFrame())
    if models.empty:
        return ("none scored",)
    parts = []
    for r in models.to_dict("records"):
        dates = [
            f"{label} {r[col]}"
            for col, label in (
                ("knowledge_cutoff", "knowledge cutoff"),
                ("release_date", "released"),
            )
            if r.get(col)
        ]
        served = str(r.get("served_model") or "")
        if served and served != "nan":
            dates.append(f"served as {served}")
        parts.append(f"{r['model']} ({', '.join(dates)})" if dates else str(r["model"]))
    return ("; ".join(parts),)


def call_lines(tables: Mapping[str, pd.DataFrame]) -> tuple[str, ...]:
    """Per model: the distinct requests behind its results and what their replies cost
    when they were paid (the ``model_calls`` table). "no price" where no reply has one:
    a model run in process costs nothing, and litellm knows no price for some servers."""
    calls = tables.get("model_calls", pd.DataFrame())
    if calls.empty:
        return ("not recorded in the scores table",)
    lines = []
    for r in calls.to_dict("records"):
        answered = int(r["distinct_requests"]) - int(r["failed"])
        unpriced = int(r["unpriced"])
        if unpriced >= answered:
            cost = "no price"
        else:
            cost = f"${float(r['cost_usd']):,.4f}"
            cost += f" (+{fmt.fmt_int(unpriced)} unpriced)" if unpriced else ""
        lines.append(
            f"{r['model']}: {fmt.fmt_int(r['distinct_requests'])} requests, "
            f"{fmt.fmt_int(r['failed'])} failed; {fmt.fmt_int(r['prompt_tokens'])} prompt + "
            f"{fmt.fmt_int(r['completion_tokens'])} completion tokens; {cost}"
        )
    return tuple(lines)


def _setting_lines(
    tables: Mapping[str, pd.DataFrame], params: Mapping[str, Any]
) -> tuple[str, ...]:
    acc = tables.get("accuracy", pd.DataFrame())
    if acc.empty:
        return ("none scored",)
    settings = _settings(acc)
    line = ", ".join(
        setting_label(s, c)
        for s, c in zip(settings["setting"], settings["rag_cutoff"], strict=True)
    )
    generation = params.get("eval", {}).get("generation") if has_corpus(tables) else None
    if isinstance(generation, Mapping) and generation:
        line += " (generation: " + ", ".join(f"{k} {v}" for k, v in generation.items()) + ")"
    proper = tables.get("proper_scores", pd.DataFrame())
    if not proper.empty and "elicitation" in proper.columns:
        asked = list(dict.fromkeys(str(e) for e in proper["elicitation"]))
        if asked != ["label"]:
            line += "; elicitations: " + ", ".join(e.replace("_", " ") for e in asked)
    return (line,)


def budget_line(params: Mapping[str, Any]) -> str:
    """The budget the stages ran with (conf/budget/<name>.yaml): its name and note."""
    budget = params.get("budget")
    if not isinstance(budget, Mapping) or not budget.get("name"):
        return "not recorded"
    note = budget.get("note")
    return f"{budget['name']}: {note}" if note else str(budget["name"])


def run_facts(
    inputs: ReportInputs, params: Mapping[str, Any], parts: Sequence[ReportPart]
) -> Facts:
    """What was run: corpus, budget, question sources, models, settings, and each
    benchmark's line on its own part (``parts``, in page order).

    A scores table analysed alone has no budget line: no stage of this run made it.
    """
    tables = inputs.tables
    budget = (("Budget", (budget_line(params),)),) if has_corpus(tables) else ()
    return (
        ("Corpus", (_corpus_line(tables, params),)),
        *budget,
        ("Questions", _source_lines(tables)),
        ("Models", _model_lines(tables)),
        ("Settings", _setting_lines(tables, params)),
        ("Model calls", call_lines(tables)),
        ("Other parts", tuple(line for p in parts if p.facts for line in p.facts(inputs, params))),
    )


def leaderboard_cell(board: pd.DataFrame) -> str | None:
    """The setting the first screen's leaderboard shows: closed book (the papers'
    headline setting) when the run has it, else the first."""
    if board.empty:
        return None
    cells = list(dict.fromkeys(str(c) for c in board["cell"]))
    return CLOSED_BOOK if CLOSED_BOOK in cells else cells[0]


def first_leaderboard(board: pd.DataFrame) -> pd.DataFrame:
    """The ``leaderboard`` table's rows of :func:`leaderboard_cell`, as the report shows
    them (without the setting column: the heading names it)."""
    cell = leaderboard_cell(board)
    if cell is None:
        return pd.DataFrame()
    shown = leaderboard_display(board.loc[board["cell"] == cell].reset_index(drop=True))
    return shown.drop(columns=["Setting"])


def _cell_text(row: Mapping[Any, Any] | None) -> str:
    if row is None:
        return fmt.MISSING
    acc = fmt.fmt_interval(row["accuracy"], row["ci_low"], row["ci_high"], 1, 100.0, row["n"])
    if fmt.too_few_for_interval(row["n"]):
        return acc  # "value (n=3: too few for an interval)" names its n
    return f"{acc} n={fmt.fmt_int(row['n'])}"


def headline(acc: pd.DataFrame) -> pd.DataFrame:
    """The ``accuracy`` table pivoted: a row per model and question type (TF, MC), a
    column per setting, each cell ``accuracy [low, high] n=k``."""
    if acc.empty:
        return pd.DataFrame()
    settings = _settings(acc)
    by_key = {(r["model"], r["cell"], r["qtype"]): r for r in acc.to_dict("records")}
    qtypes = [q for q in QTYPES if q in set(acc["qtype"])]
    rows = []
    for model in dict.fromkeys(acc["model"]):
        for qtype in qtypes:
            if not any((model, c, qtype) in by_key for c in settings["cell"]):
                continue
            row = {"Model": model, "Type": qtype.upper()}
            for r in settings.to_dict("records"):
                label = setting_label(r["setting"], r["rag_cutoff"])
                row[label] = _cell_text(by_key.get((model, r["cell"], qtype)))
            rows.append(row)
    return pd.DataFrame(rows)
