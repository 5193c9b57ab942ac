"""Answers that count as wrong without being a forecast, and the question sets compared.

A reply that is a refusal, or that no parsing rule reads as one of the options, is
scored as wrong (Daily Oracle, ICML 2025, section 4: accuracy is over every question
asked). :func:`answer_failures` gives their rates per model, setting and question type,
over the same scored rows as the headline accuracy, so a reader sees how much of a low
accuracy is format rather than forecast.

Rows of one table compare fairly only over the same questions: a model evaluated on a
seeded sample (``eval.max_questions``) scores fewer, and a gold cell lacks the questions
without a gold article. :func:`question_sets` counts, per question type, each row's
questions and those every row shares, so the report can say where rows differ.
"""

from __future__ import annotations

import pandas as pd

from prescient.analysis.schema import ALL, CELL_KEYS, cells_of
from prescient.evaluation.settings import ELICITATIONS, LABEL
from prescient.vocab import QTYPES

FAILURE_COLUMNS = [
    *CELL_KEYS,
    "elicitation",
    "qtype",
    "n",
    "n_parse_failed",
    "parse_failure_rate",
    "n_refused",
    "refusal_rate",
    "n_counted_wrong",
    "counted_wrong_rate",
]
"""Columns of ``answer_failures``."""

QUESTION_SET_COLUMNS = [*CELL_KEYS, "qtype", "n", "n_common", "n_any", "n_rows"]
"""Columns of ``question_sets``: per row of the accuracy table (model, cell, type), its
questions, those scored in every row of the type (``n_common``), those scored in any
(``n_any``) and the number of rows compared (``n_rows``)."""

TYPE_ORDER = {**{q: i for i, q in enumerate(QTYPES)}, ALL: len(QTYPES)}


def answer_failures(scores: pd.DataFrame) -> pd.DataFrame:
    """Parse failures and refusals per cell, elicitation and question type (``all``
    pools TF and MC).

    Args:
        scores: normalised scores (``refused``, ``parse_failed``; failed calls already
            left out as the analysis settings say), with an ``elicitation`` column or
            all of them ``label`` replies.
    """
    if scores.empty:
        return pd.DataFrame(columns=FAILURE_COLUMNS)
    if "elicitation" not in scores.columns:
        scores = scores.assign(elicitation=LABEL)
    both = pd.concat([scores, scores.assign(qtype=ALL)], ignore_index=True)
    both = both.assign(
        wrong_unread=both["refused"].astype(bool) | both["parse_failed"].astype(bool)
    )
    g = both.groupby(["model", "cell", "elicitation", "qtype"], as_index=False, sort=False).agg(
        n=("question_id", "size"),
        n_parse_failed=("parse_failed", "sum"),
        n_refused=("refused", "sum"),
        n_counted_wrong=("wrong_unread", "sum"),
    )
    for count, rate in (
        ("n_parse_failed", "parse_failure_rate"),
        ("n_refused", "refusal_rate"),
        ("n_counted_wrong", "counted_wrong_rate"),
    ):
        g[count] = g[count].astype(int)
        g[rate] = g[count] / g["n"]
    cells = cells_of(scores)
    cells = cells.assign(_cell=range(len(cells)))
    out = cells.merge(g, on=["model", "cell"])
    return _by_cell(out, out["_cell"].tolist())


def with_elicited(labels: pd.DataFrame, elicited: pd.DataFrame) -> pd.DataFrame:
    """One ``answer_failures`` table: the label rows (over the headline's questions) and
    those of the other elicitations (over the proper scores' questions), each model and
    cell's rows together (in the label rows' order), elicitations in the order of
    :data:`~prescient.evaluation.settings.ELICITATIONS`."""
    if elicited.empty:
        return labels
    if labels.empty:
        return elicited
    both = pd.concat([labels, elicited], ignore_index=True)
    pairs = list(zip(both["model"], both["cell"], strict=True))
    place = {p: i for i, p in enumerate(dict.fromkeys(pairs))}
    return _by_cell(both, [place[p] for p in pairs])


ASKED_ORDER = {e: i for i, e in enumerate(ELICITATIONS)}
"""Elicitations in table order (an unknown one last)."""


def _by_cell(rows: pd.DataFrame, cell: list[int]) -> pd.DataFrame:
    """``rows`` by their model and cell's position (``cell``), then elicitation, then
    question type, as ``answer_failures`` lists them."""
    order = rows.assign(
        _cell=cell,
        _asked=rows["elicitation"].map(ASKED_ORDER).fillna(len(ASKED_ORDER)),
        _type=rows["qtype"].map(TYPE_ORDER),
    ).sort_values(["_cell", "_asked", "_type"], kind="stable")
    return rows.loc[order.index, FAILURE_COLUMNS].reset_index(drop=True)


def question_sets(scores: pd.DataFrame) -> pd.DataFrame:
    """Each (model, cell, type)'s questions against those every row of the type shares."""
    if scores.empty:
        return pd.DataFrame(columns=QUESTION_SET_COLUMNS)
    rows = []
    cells = cells_of(scores)
    for qtype in QTYPES:
        part = scores.loc[scores["qtype"] == qtype]
        if part.empty:
            continue
        sets = {
            (str(m), str(c)): frozenset(g["question_id"].astype(str).unique())
            for (m, c), g in part.groupby(["model", "cell"], sort=False)
        }
        common = frozenset.intersection(*sets.values())
        union = frozenset.union(*sets.values())
        for cell in cells.to_dict("records"):
            ids = sets.get((str(cell["model"]), str(cell["cell"])))
            if ids is None:
                continue
            rows.append(
                {
                    **{k: cell[k] for k in CELL_KEYS},
                    "qtype": qtype,
                    "n": len(ids),
                    "n_common": len(common),
                    "n_any": len(union),
                    "n_rows": len(sets),
                }
            )
    return pd.DataFrame(rows, columns=QUESTION_SET_COLUMNS)
