"""Stage ``lrae``: open-ended forecasts judged against gold labels and later news
(OpenForecast, COLING 2025, section 5 and appendix B.3).

For STF and LTF, per prediction:

1. split into atomic predictions; near-duplicates are marked and not judged
   (:mod:`.split`, :mod:`.atoms`);
2. the judge matches each atomic prediction to one numbered gold label (TP) or to none;
   a label already matched makes a ``repeat`` (:mod:`.judge`, :mod:`.metrics`);
3. an unmatched prediction is checked against the top chunks of the articles dated in
   the evidence window (:mod:`.evidence`): supported, it is a missed true positive (MTP),
   otherwise a false positive (FP); with no chunk in the window it is an FP without a
   call;
4. P, R and F1 per sample (formula 2), macro-averaged (:mod:`.metrics`), in the tables
   of :mod:`.tables`.

AQA takes one judge call (the predicted answer against the gold answer) and no evidence.
Every atomic prediction becomes one row of the judgements table with its verdict, the
matched label, the evidence chunks and dates, and the ledger keys of the judge calls, so
every number can be traced to the replies that made it. A prediction whose call failed is
left out of the scores and counted; an empty one scores 0.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.lrae.atoms import Atom, atomize
from prescient.benchmarks.openforecast.lrae.evidence import (
    EvidenceIndex,
    format_evidence,
    horizon_days,
)
from prescient.benchmarks.openforecast.lrae.judge import parse_match, parse_yes_no
from prescient.benchmarks.openforecast.lrae.tables import (
    SCORE_SCHEMA,
    judgements_frame,
    score_row,
)
from prescient.benchmarks.openforecast.metrics import FP, MTP, REPEAT, TP, macro
from prescient.benchmarks.openforecast.settings import LraeSettings
from prescient.benchmarks.openforecast.tasks import AQA
from prescient.dates import as_date
from prescient.llm.steps import template_request
from prescient.llm.types import Complete, LLMRequest, LLMResult, count_calls
from prescient.prompts import PromptTemplate
from prescient.seeds import derive_seed

logger = logging.getLogger(__name__)


class Judge:
    """Runs the judge's two stages over the atomic predictions of a batch."""

    def __init__(
        self,
        templates: Mapping[str, PromptTemplate],
        s: LraeSettings,
        complete: Complete,
        evidence: EvidenceIndex | None,
    ) -> None:
        self.t = templates
        self.s = s
        self.complete = complete
        self.evidence = evidence
        self.calls: Counter[str] = Counter()

    def _request(self, role: str, values: Mapping[str, str], atom: Atom) -> LLMRequest:
        return template_request(
            self.t[role],
            self.s.judge_model,
            values,
            self.s.generation,
            {"sample_id": atom.sample["sample_id"], "model": atom.model, "item": atom.item},
        )

    def _run(self, role: str, atoms: list[Atom], values: list[dict[str, str]]) -> list[LLMResult]:
        if not atoms:
            return []
        reqs = [self._request(role, v, a) for v, a in zip(values, atoms, strict=True)]
        results = self.complete(reqs, f"lrae:{role}")
        count_calls(self.calls, results, prefix=f"{role}_")
        return results

    def match(self, atoms: list[Atom]) -> None:
        """Stage 1: each atomic prediction against the numbered gold labels (AQA: the
        predicted answer against the gold answer)."""
        todo = [a for a in atoms if a.verdict is None]
        values = []
        for a in todo:
            if a.task == AQA:
                values.append(
                    {
                        "question": str(a.sample["question"]),
                        "label": str(a.sample["answer"]),
                        "prediction": a.text,
                    }
                )
            else:
                labels = "\n".join(f"({i}) {t}" for i, t in enumerate(a.labels, start=1))
                values.append(
                    {"labels": labels, "prediction": a.text, "n_labels": str(len(a.labels))}
                )
        aqa = [i for i, a in enumerate(todo) if a.task == AQA]
        other = [i for i, a in enumerate(todo) if a.task != AQA]
        results: dict[int, LLMResult] = {}
        for role, idx in (("aqa_judge", aqa), ("match", other)):
            got = self._run(role, [todo[i] for i in idx], [values[i] for i in idx])
            results.update(zip(idx, got, strict=True))
        taken: dict[tuple[str, str], set[int]] = {}
        for i, a in enumerate(todo):  # in item order within each prediction
            r = results[i]
            a.judge_key, a.judge_response = r.key, r.text
            if not r.ok:
                a.note = f"judge call failed: {r.error}"
                continue
            if a.task == AQA:
                yes = parse_yes_no(r.text)
                a.verdict, a.label = (TP, 1) if yes else (FP, None)
                a.note = None if yes is not None else "neither yes nor no"
                continue
            m = parse_match(r.text, len(a.labels))
            a.note = m.note
            if m.matched and m.label is not None:
                seen = taken.setdefault((str(a.sample["sample_id"]), a.model), set())
                a.verdict = REPEAT if m.label in seen else TP
                a.label = m.label
                seen.add(m.label)

    def check_evidence(self, atoms: list[Atom]) -> None:
        """Stage 2: unmatched STF/LTF predictions against chunks of later articles."""
        todo: list[Atom] = []
        values: list[dict[str, str]] = []
        for a in atoms:
            if a.verdict is not None or a.task == AQA:
                continue
            chunks: list[Any] = []
            if self.evidence is not None:
                t_k = as_date(a.sample["split_date"])
                h = horizon_days(a.task, t_k, as_date(a.sample["chain_end"]), self.s.evidence)
                chunks = self.evidence.search(a.text, t_k, h)
            a.evidence_ids = [c.chunk_id for c in chunks]
            a.evidence_dates = [c.date.isoformat() for c in chunks]
            if not chunks:
                a.verdict = FP
                a.note = "; ".join(x for x in (a.note, "no evidence in the window") if x)
                continue
            todo.append(a)
            values.append(
                {
                    "evidence": format_evidence(chunks, self.s.evidence.max_chunk_chars),
                    "prediction": a.text,
                }
            )
        for a, r in zip(todo, self._run("evidence", todo, values), strict=True):
            a.evidence_key, a.evidence_response = r.key, r.text
            if not r.ok:
                a.verdict = FP
                a.note = "; ".join(x for x in (a.note, f"evidence call failed: {r.error}") if x)
                continue
            a.verdict = MTP if parse_yes_no(r.text) else FP


@dataclass
class LraeResult:
    judgements: pd.DataFrame
    scores: pd.DataFrame
    calls: dict[str, int]


def evaluate(
    samples: pd.DataFrame,
    predictions: pd.DataFrame,
    templates: Mapping[str, PromptTemplate],
    s: LraeSettings,
    complete: Complete,
    evidence: EvidenceIndex | None,
) -> LraeResult:
    """Judge every prediction (see the module docstring).

    Args:
        samples: the samples table (``sample_id`` unique).
        predictions: rows of :data:`prescient.benchmarks.openforecast.predict.PREDICTION_SCHEMA`.
        templates: ``match``, ``evidence`` and ``aqa_judge`` templates.
        s: LRAE settings.
        complete: ``Gateway.complete_many`` of the judge's ledger.
        evidence: the chunk index (None: no evidence, every unmatched prediction is FP).
    """
    records: list[dict[str, Any]] = samples.to_dict("records")  # type: ignore[assignment]
    by_id = {r["sample_id"]: r for r in records}
    preds: list[dict[str, Any]] = predictions.sort_values(["model", "task", "sample_id"]).to_dict(
        "records"
    )  # type: ignore[assignment]
    missing = sorted({p["sample_id"] for p in preds} - set(by_id))
    if missing:
        raise ValueError(f"predictions name samples that do not exist: {missing[:5]}")
    per_pred: list[tuple[dict[str, Any], list[Atom]]] = []
    for p in preds:
        failed = p["error"] is not None and not pd.isna(p["error"])
        cut = p.get("finish_reason") == "length"
        atoms = (
            []
            if failed
            else atomize(by_id[p["sample_id"]], p["model"], p["response"] or "", cut, s)
        )
        per_pred.append((p, atoms))
    all_atoms = [a for _, atoms in per_pred for a in atoms]
    judge = Judge(templates, s, complete, evidence)
    judge.match(all_atoms)
    judge.check_evidence(all_atoms)
    score_rows = []
    for p, atoms in per_pred:
        failed = p["error"] is not None and not pd.isna(p["error"])
        error = str(p["error"]) if failed else None
        score_rows.append(score_row(by_id[p["sample_id"]], p["model"], atoms, error, s))
    scores = io.typed_records(SCORE_SCHEMA, score_rows)
    return LraeResult(judgements_frame(all_atoms), scores, dict(judge.calls))


def summarize(
    scores: pd.DataFrame, judgements: pd.DataFrame, s: LraeSettings, base_seed: int
) -> dict[str, Any]:
    """Macro P/R/F1 with bootstrap intervals per model and task, and verdict counts."""
    out: dict[str, Any] = {}
    for (model, task), group in scores.groupby(["model", "task"], sort=True):
        ok = group[group["error"].isna()]
        cell: dict[str, Any] = {
            "samples": int(len(group)),
            "failed_predictions": int(group["error"].notna().sum()),
            "empty_predictions": int(ok["empty"].sum()),
        }
        for metric in ("precision", "recall", "f1", "f1_gold"):
            seed = derive_seed(base_seed, "lrae", str(model), str(task), metric)
            m = macro(ok[metric].tolist(), s.bootstrap.reps, s.bootstrap.confidence, seed)
            # JSON null, not NaN, where there is no value or no interval (one sample)
            cell[metric] = {
                k: None if math.isnan(v) else v
                for k, v in (("value", m.value), ("low", m.low), ("high", m.high))
            }
        verdicts = judgements[(judgements["model"] == model) & (judgements["task"] == task)]
        cell["verdicts"] = {
            str(k): int(v)
            for k, v in verdicts["verdict"].fillna("none").value_counts().sort_index().items()
        }
        out.setdefault(str(model), {})[str(task)] = cell
    return out
