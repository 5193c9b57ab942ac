"""Scored columns kept between runs of the ``score`` stage (``eval.reuse_scores``).

Reading a forecast off a reply (:mod:`.forecasts`, :mod:`.parsing`) is most of what
``score`` costs, and a daily update would read every reply of the archive again for the
few thousand its new day added. A part's scored columns (:data:`.scoring.SCORED_TYPES`)
are a function of its rows' question ids, predicted question types, raw responses,
errors and elicitations, of the question table's entries for those ids (type, choices,
answer) and of the code; so they are kept (:mod:`prescient.kept`) under the digest of
exactly those, and a part whose inputs are the same bytes is read back instead of
parsed. The stage's parts are a model's predictions of one partition
(``eval.partitions``), so a day re-reads only its month.

The columns are kept as JSON (every value a None, bool, int, float or string, or a list
of floats; JSON writes a float so that it reads back the same float), and a part that
does not read back as exactly the columns of its rows is computed again: the scores
table is the same bytes with, without or with part of the store.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from prescient.evaluation.scoring import SCORED_TYPES, QuestionTable, RowInputs, scored_columns
from prescient.kept import KeptStore, digest
from prescient.proper_metrics import item_scores

logger = logging.getLogger(__name__)

STORE = "score"
"""The store's name under DVC's cache directory (:meth:`prescient.kept.KeptStore.in_cache`)."""
_KIND = "parts"


_PACKAGES = ("evaluation", "llm")
_MODULES = ("proper_metrics.py", "proper_scores.py", "vocab.py")


def _code() -> bytes:
    """The source of the code a scored column comes from: this package's ``evaluation``
    and ``llm`` packages, its proper scores and vocabulary, and the module of every
    declared item score's rule (a study's own included); and the numerical libraries'
    versions."""
    root = Path(__file__).resolve().parents[1]
    files = [f for d in _PACKAGES for f in sorted((root / d).rglob("*.py"))]
    files += [root / m for m in _MODULES]
    rules = sorted({s.rule.__module__ for s in item_scores()})
    files += [Path(str(getattr(sys.modules.get(m), "__file__", None))) for m in rules]
    parts = [f"numpy {np.__version__} pandas {pd.__version__}".encode()]
    for f in dict.fromkeys(f.resolve() for f in files if f.is_file()):
        parts += [str(f.relative_to(root) if f.is_relative_to(root) else f.name).encode()]
        parts += [f.read_bytes()]
    return digest(*parts)


def _as_json(value: Any) -> Any:
    """``value`` where JSON keeps it exactly; raises TypeError for anything else."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return float(value)
    if isinstance(value, list) and all(type(v) is float for v in value):
        return value
    raise TypeError(f"{type(value).__name__} is not kept")


class KeptScores:
    """:func:`~prescient.evaluation.scoring.scored_columns`, kept between runs (module
    docstring); a :class:`~prescient.evaluation.scoring.ScoredColumns`.

    Args:
        store: the kept store (``<DVC cache>/prescient/score``).
    """

    def __init__(self, store: KeptStore) -> None:
        self.store = store
        self.reused = self.computed = 0
        self._code = _code()

    def _name(self, rows: RowInputs, table: QuestionTable) -> bytes:
        qids, qtypes, texts, errors, elicitations = rows
        seen = dict.fromkeys(qids)
        entries = [
            [q, table.qtype[q], [str(c) for c in table.choices[q]], table.answer[q]]
            for q in seen
            if q in table.qtype
        ]
        inputs = [
            qids,
            qtypes,
            [None if pd.isna(t) else str(t) for t in texts],
            [e if isinstance(e, str) and e else None for e in errors],
            [str(e) for e in elicitations],
            entries,
        ]
        return digest(b"score-part", self._code, json.dumps(inputs).encode("utf-8"))

    def __call__(self, rows: RowInputs, table: QuestionTable) -> dict[str, list[Any]]:
        name = self._name(rows, table)
        n = len(rows[0])
        stored = self.store.read(_KIND, name)
        if stored is not None and len(stored) == 1:
            try:
                cols = json.loads(stored[0].tobytes().decode("utf-8"))
                if (
                    isinstance(cols, dict)
                    and list(cols) == list(SCORED_TYPES)
                    and all(isinstance(v, list) and len(v) == n for v in cols.values())
                ):
                    self.reused += 1
                    return cols
            except (ValueError, UnicodeDecodeError):
                pass
            logger.warning("kept work: a scored part does not hold its rows; scoring it again")
        cols = scored_columns(rows, table)
        self.computed += 1
        try:
            blob = json.dumps({c: [_as_json(v) for v in cols[c]] for c in SCORED_TYPES})
        except TypeError as exc:
            logger.debug("kept work: part not kept (%s)", exc)
            return cols
        self.store.write(_KIND, name, [np.frombuffer(blob.encode("utf-8"), dtype=np.uint8)])
        return cols
