"""Stage ``lrae``: open-ended forecasts judged against gold labels and later news
(OpenForecast, COLING 2025, section 5 and appendix B.3).

For STF and LTF, per prediction:

1. split into atomic predictions; near-duplicates are marked and not judged
   (:mod:`.split`);
2. the judge matches each atomic prediction to one numbered gold label (TP) or to none;
   a label already matched makes a ``repeat`` (:mod:`.judge`, :mod:`.metrics`);
3. an unmatched prediction is checked against the top chunks of the articles dated in
   the evidence window (:mod:`.evidence`): supported, it is a missed true positive (MTP),
   otherwise a false positive (FP); with no chunk in the window it is an FP without a
   call;
4. P, R and F1 per sample (formula 2), macro-averaged (:mod:`.metrics`).

AQA takes one judge call (the predicted answer against the gold answer) and no evidence.
Every atomic prediction becomes one row of the judgements table with its verdict, the
matched label, the evidence chunks and dates, and the ledger keys of the judge calls, so
every number can be traced to the replies that made it. A prediction whose call failed is
left out of the scores and counted; an empty one scores 0.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.lrae.evidence import (
    EvidenceIndex,
    format_evidence,
    horizon_days,
)
from prescient.benchmarks.openforecast.lrae.judge import parse_match, parse_yes_no
from prescient.benchmarks.openforecast.lrae.split import split_predictions
from prescient.benchmarks.openforecast.metrics import (
    DUPLICATE,
    FP,
    MTP,
    NOT_JUDGED,
    REPEAT,
    TP,
    TRUNCATED,
    Counts,
    count,
    macro,
)
from prescient.benchmarks.openforecast.settings import LraeSettings
from prescient.benchmarks.openforecast.tasks import AQA
from prescient.benchmarks.openforecast.text import near_duplicates
from prescient.dates import as_date
from prescient.llm.steps import template_request
from prescient.llm.types import Complete, LLMRequest, LLMResult, count_calls
from prescient.prompts import PromptTemplate
from prescient.seeds import derive_seed

logger = logging.getLogger(__name__)

JUDGEMENT_SCHEMA: dict[str, str] = {
    "sample_id": "string",
    "model": "string",
    "task": "string",
    "split": "string",
    "item": "int32",
    "text": "string",
    "verdict": "string",
    "matched_label": "Int64",
    "matched_label_text": "string",
    "duplicate_of": "Int64",
    "evidence_chunk_ids": "object",
    "evidence_dates": "object",
    "judge_key": "string",
    "judge_response": "string",
    "evidence_key": "string",
    "evidence_response": "string",
    "note": "string",
}
"""``data/processed/lrae_judgements.parquet``: one row per atomic prediction (``item``
counts from 0 within the prediction; ``matched_label`` from 1 within the sample's
labels)."""

SCORE_SCHEMA: dict[str, str] = {
    "sample_id": "string",
    "model": "string",
    "task": "string",
    "split": "string",
    "n_labels": "int32",
    "n_atomic": "int32",
    "tp": "int32",
    "mtp": "int32",
    "fp": "int32",
    "fn": "int32",
    "precision": "float64",
    "recall": "float64",
    "f1": "float64",
    "precision_gold": "float64",
    "recall_gold": "float64",
    "f1_gold": "float64",
    "empty": "bool",
    "error": "string",
}
"""``data/processed/lrae_scores.parquet``: one row per sample and model. ``*_gold``
score the labels alone (an MTP counts as an FP: the paper's evaluation without retrieval
augmentation); ``error`` is set when the prediction call failed (then no score)."""

_ANSWER = re.compile(r"answer\s*[:：]\s*(.+)", re.I)


def aqa_answer(text: str | None) -> str:
    """The answer of an AQA reply: after the last "Answer:", else the whole reply."""
    if not text:
        return ""
    found = _ANSWER.findall(text)
    answer = found[-1] if found else text
    return " ".join(answer.split())[:300]


@dataclass
class Atom:
    """One atomic prediction and what the judge made of it."""

    sample: Mapping[str, Any]
    model: str
    item: int
    text: str
    duplicate_of: int | None = None
    verdict: str | None = None
    label: int | None = None
    note: str | None = None
    judge_key: str | None = None
    judge_response: str | None = None
    evidence_ids: list[str] = field(default_factory=list)
    evidence_dates: list[str] = field(default_factory=list)
    evidence_key: str | None = None
    evidence_response: str | None = None

    @property
    def task(self) -> str:
        return str(self.sample["task"])

    @property
    def labels(self) -> list[str]:
        return [str(t) for t in self.sample["targets"]]


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


def _atoms(
    sample: Mapping[str, Any], model: str, response: str, cut: bool, s: LraeSettings
) -> list[Atom]:
    """Atomic predictions of a reply; ``cut``: the reply hit its token limit, so its last
    item is incomplete and not judged."""
    if sample["task"] == AQA:
        answer = aqa_answer(response)
        return [Atom(sample, model, 0, answer)] if answer else []
    items = split_predictions(response)
    dup = near_duplicates(items, s.dedupe_similarity)
    atoms = [Atom(sample, model, i, t, d) for i, (t, d) in enumerate(zip(items, dup, strict=True))]
    for a in atoms:
        if a.duplicate_of is not None:
            a.verdict, a.note = DUPLICATE, f"near-duplicate of item {a.duplicate_of}"
    if cut and atoms:
        atoms[-1].verdict, atoms[-1].note = TRUNCATED, "the reply was cut at its token limit"
    return atoms


def judgements_frame(atoms: Sequence[Atom]) -> pd.DataFrame:
    return io.typed_records(JUDGEMENT_SCHEMA, (_judgement_row(a) for a in atoms))


def _judgement_row(a: Atom) -> dict[str, Any]:
    return {
        "sample_id": a.sample["sample_id"],
        "model": a.model,
        "task": a.task,
        "split": a.sample["split"],
        "item": a.item,
        "text": a.text,
        "verdict": a.verdict,
        "matched_label": a.label,
        "matched_label_text": a.labels[a.label - 1] if a.label else None,
        "duplicate_of": a.duplicate_of,
        "evidence_chunk_ids": list(a.evidence_ids),
        "evidence_dates": list(a.evidence_dates),
        "judge_key": a.judge_key,
        "judge_response": a.judge_response,
        "evidence_key": a.evidence_key,
        "evidence_response": a.evidence_response,
        "note": a.note,
    }


def _score_row(
    sample: Mapping[str, Any], model: str, atoms: list[Atom], error: str | None, s: LraeSettings
) -> dict[str, Any]:
    n_labels = 1 if sample["task"] == AQA else len(sample["targets"])
    row: dict[str, Any] = {
        "sample_id": sample["sample_id"],
        "model": model,
        "task": sample["task"],
        "split": sample["split"],
        "n_labels": n_labels,
        "n_atomic": sum(a.verdict not in NOT_JUDGED for a in atoms),
        "empty": not atoms and error is None,
        "error": error,
    }
    if error is not None:
        return {
            **row,
            **dict.fromkeys(("tp", "mtp", "fp", "fn"), 0),
            **dict.fromkeys(
                ("precision", "recall", "f1", "precision_gold", "recall_gold", "f1_gold"), None
            ),
        }
    judged = [a for a in atoms if a.verdict not in NOT_JUDGED]
    verdicts = [a.verdict or FP for a in judged]  # a failed judge call counts as unsupported
    c = count(verdicts, [a.label for a in judged], n_labels, s.repeat_match)
    gold = Counts(tp=c.tp, mtp=0, fp=c.fp + c.mtp, fn=c.fn)
    return {
        **row,
        "tp": c.tp,
        "mtp": c.mtp,
        "fp": c.fp,
        "fn": c.fn,
        "precision": c.precision,
        "recall": c.recall,
        "f1": c.f1,
        "precision_gold": gold.precision,
        "recall_gold": gold.recall,
        "f1_gold": gold.f1,
    }


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
            [] if failed else _atoms(by_id[p["sample_id"]], p["model"], p["response"] or "", cut, s)
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
        score_rows.append(_score_row(by_id[p["sample_id"]], p["model"], atoms, error, s))
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
