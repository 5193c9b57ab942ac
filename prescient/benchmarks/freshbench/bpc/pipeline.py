"""The ``bpc`` stage's library entry point: sample, score every model, tabulate.

Pure except for the model calls, which go through the gateway over one ledger per model
in the directory the stage names: articles and settings in, tables and metrics out.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from prescient import io
from prescient.benchmarks.freshbench.bpc import tables
from prescient.benchmarks.freshbench.bpc.documents import (
    Sample,
    read_for_sample,
    sample_documents,
)
from prescient.benchmarks.freshbench.bpc.run import STAGE, DocResult, score_documents
from prescient.benchmarks.freshbench.bpc.scorers import method_params, skip_reason
from prescient.benchmarks.freshbench.bpc.settings import BpcSettings
from prescient.benchmarks.freshbench.bpc.tbi import (
    ModelInfo,
    bucket_rows,
    release_change_rows,
    segment_start,
    tbi_rows,
)
from prescient.dates import optional_date
from prescient.llm.failures import FailureReport
from prescient.llm.gateway import Gateway
from prescient.llm.registry import ModelSpec
from prescient.llm.settings import GatewaySettings
from prescient.llm.store import CacheDir, open_stage_ledger

logger = logging.getLogger(__name__)


class ScorerConfigError(ValueError):
    """A model cannot be scored as configured (stops the stage)."""


@dataclass(frozen=True)
class BpcResult:
    """Everything the stage writes besides the ledgers.

    Attributes:
        docs: the per-document table (:data:`prescient.benchmarks.freshbench.bpc.tables.DOCS`).
        tables: the report tables by file stem (:data:`prescient.benchmarks.freshbench.bpc.tables.REPORT_TABLES`).
        metrics: counts and headline numbers per model (DVC metrics).
        failed: documents whose scoring failed, over all models.
        calls: the scoring requests of every model against ``llm.max_failed_share``
            (:mod:`prescient.llm.failures`).
    """

    docs: pd.DataFrame
    tables: dict[str, pd.DataFrame]
    metrics: dict[str, Any]
    failed: int
    calls: FailureReport


def check_models(settings: BpcSettings, registry: Mapping[str, ModelSpec]) -> None:
    """Fail before any scoring: every listed model is registered and has its key.

    Raises:
        ScorerConfigError: naming the model and the fix.
    """
    for name in settings.models:
        if name not in registry:
            raise ScorerConfigError(
                f"bpc.models lists {name!r}, which is not in the model registry: add "
                f"conf/model/{name}.yaml and its line in conf/config.yaml's defaults"
            )
        spec = registry[name]
        if skip_reason(spec) is None and spec.api_key_env and not os.environ.get(spec.api_key_env):
            raise ScorerConfigError(
                f"model {name!r} needs an API key: set the environment variable {spec.api_key_env}"
            )


@dataclass
class _CallTally:
    """The scoring requests of every model summed into one report, so the stage judges
    ``llm.max_failed_share`` over all its calls rather than model by model."""

    requests: int = 0
    failed: int = 0
    not_sent: int = 0
    spending: list[str] = field(default_factory=list)
    failed_by_model: Counter[str] = field(default_factory=Counter)
    first_errors: list[str] = field(default_factory=list)

    def add(self, name: str, report: FailureReport) -> None:
        """Count one model's report."""
        self.requests += report.requests
        self.failed += report.failed
        self.not_sent += report.not_sent
        self.spending += [f"{name}: {report.spending}"] if report.not_sent else []
        self.failed_by_model.update(report.failed_by_model)
        self.first_errors += [e for e in report.first_errors if e not in self.first_errors]

    def report(self, max_failed_share: float) -> FailureReport:
        """The report over every model counted (its first five distinct errors)."""
        return FailureReport(
            self.requests,
            self.failed,
            max_failed_share,
            dict(sorted(self.failed_by_model.items())),
            tuple(self.first_errors[:5]),
            self.not_sent,
            "; ".join(self.spending),
        )


def run_bpc(
    articles: pd.DataFrame | str | Path,
    settings: BpcSettings,
    registry: Mapping[str, ModelSpec],
    seed: int,
    ledger_dir: str | os.PathLike[str],
    llm: GatewaySettings,
    cache_dir: CacheDir,
) -> BpcResult:
    """Score the sample under every model of ``bpc.models`` and build the tables.

    Args:
        articles: the ingested corpus, as a frame or as its parquet file (then only the
            drawn documents' texts are ever held, :func:`read_for_sample`).
        settings: the ``bpc`` section.
        registry: the model registry (``params.models``).
        seed: ``base.seed``.
        ledger_dir: directory of the per-model ledgers (``<model>.jsonl``), each a
            stage ledger over the response store (:mod:`prescient.llm.store`).
        llm: the gateway's settings (retries, timeouts, progress, failure tolerance).
        cache_dir: DVC's cache directory, where the response store lives (None: each
            ledger is its own store).

    Raises:
        ScorerConfigError: a model cannot be used as configured (nothing is scored).
    """
    check_models(settings, registry)
    if isinstance(articles, pd.DataFrame):
        sample = sample_documents(articles, settings, seed)
    else:
        table, texts = read_for_sample(articles)
        sample = sample_documents(table, settings, seed, texts)
    logger.info(
        "%d documents drawn in %d buckets of %d months (%s)",
        sample.counts["drawn"],
        len(sample.buckets),
        settings.bucket_months,
        ", ".join(f"{k} {v}" for k, v in sample.counts.items()),
    )
    scored = sample.documents.assign(
        text=[settings.scored_text(str(t)) for t in sample.documents["text"]]
    )
    doc_frames: list[pd.DataFrame] = []
    names: list[str] = []
    skipped: list[dict[str, Any]] = []
    tally = _CallTally()
    options = {"n_ubatch": settings.local.n_ubatch}
    with contextlib.ExitStack() as stack:
        pool = None
        if settings.engine == "ray" and any(
            registry[n].litellm_model.startswith("local/") for n in settings.models
        ):
            from prescient.llm.embedded import scoring_pool
            from prescient.llm.llama_ray import RayScoringPool

            pool = stack.enter_context(RayScoringPool(settings.ray))
            stack.enter_context(scoring_pool(pool))
        for name in settings.models:
            spec = registry[name]
            reason = skip_reason(spec)
            if reason is not None:
                logger.warning("%s skipped: %s", name, reason)
                skipped.append({"model": name, "what": "scoring", "reason": reason})
                continue
            if pool is not None and spec.litellm_model.startswith("local/"):
                # As many texts in flight as the pool has actors (not part of any key).
                spec = spec.model_copy(update={"concurrency": pool.size})
            path = Path(ledger_dir) / f"{name}.jsonl"
            with Gateway(
                {**registry, name: spec},
                path,
                stage=STAGE,
                settings=llm,
                ledger=open_stage_ledger(path, cache_dir, compression=llm.ledger_compression),
            ) as gateway:
                params = method_params(spec, settings)
                results = score_documents(gateway, spec, scored, params, options)
                gateway.finish()
                report = gateway.failure_report()
            tally.add(name, report)
            doc_frames.append(doc_rows(spec, sample.documents, results, settings.max_text_chars))
            names.append(name)
    docs = (
        pd.concat(doc_frames, ignore_index=True)
        if doc_frames
        else io.typed_records(tables.DOCS, [])
    )
    calls = tally.report(llm.max_failed_share)
    return _tabulate(docs, sample, settings, [registry[n] for n in names], seed, skipped, calls)


def doc_rows(
    spec: ModelSpec,
    documents: pd.DataFrame,
    results: Sequence[DocResult],
    max_text_chars: int | None,
) -> pd.DataFrame:
    """One model's rows of the documents table (``documents`` with their whole texts)."""
    rows = []
    for doc, res in zip(documents.to_dict("records"), results, strict=True):
        s = res.score
        chars = len(str(doc["text"]))
        rows.append(
            {
                "model": spec.name,
                "article_id": doc["article_id"],
                "date": doc["date"],
                "source_domain": doc["source_domain"],
                "bucket": doc["bucket"],
                "bucket_index": doc["bucket_index"],
                "sample_rank": doc["sample_rank"],
                "status": "ok" if s is not None else "failed",
                "error": res.error,
                "text_chars": chars,
                "truncated": max_text_chars is not None and chars > max_text_chars,
                "n_text_tokens": None if s is None else s.n_text_tokens,
                "n_tokens": None if s is None else s.n_tokens,
                "n_segments": None if s is None else s.n_segments,
                "segment_start": None if s is None else s.segment_start,
                "n_chars": None if s is None else s.n_chars,
                "n_bytes": None if s is None else s.n_bytes,
                "nll_nats": math.nan if s is None else s.nll_nats,
                "bits": math.nan if s is None else s.bits,
                "bpc": math.nan if s is None else s.bpc,
                "bpb": math.nan if s is None else s.bpb,
                "ledger_key": res.key,
            }
        )
    return io.typed_records(tables.DOCS, rows)


def _tabulate(
    docs: pd.DataFrame,
    sample: Sample,
    settings: BpcSettings,
    models: Sequence[ModelSpec],
    seed: int,
    skipped: list[dict[str, Any]],
    calls: FailureReport,
) -> BpcResult:
    buckets_rows: list[dict[str, Any]] = []
    tbi: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    per_model: dict[str, Any] = {}
    for spec in models:
        name = spec.name
        info = ModelInfo(name, spec.display_name or name, optional_date(spec.release_date))
        mine = docs[docs["model"] == name]
        rows, replicates = bucket_rows(info, mine, sample.buckets, settings, seed)
        model_tbi = tbi_rows(info, rows, replicates, sample.buckets, settings)
        buckets_rows += rows
        tbi += model_tbi
        if info.release_date is None:
            skipped.append(
                {
                    "model": name,
                    "what": "release_changes",
                    "reason": f"no release_date in conf/model/{name}.yaml",
                }
            )
        else:
            changes += release_change_rows(
                info, mine, rows, replicates, sample.buckets, settings, seed
            )
        per_model[name] = _model_metrics(spec, settings, mine, model_tbi)
    out = {
        "bpc_buckets": io.typed_records(tables.BUCKETS, buckets_rows),
        "bpc_tbi": io.typed_records(tables.TBI, tbi),
        "bpc_release_changes": io.typed_records(tables.RELEASE_CHANGES, changes),
        "bpc_skipped": io.typed_records(tables.SKIPPED, skipped),
    }
    failed = int((docs["status"] != "ok").sum())
    metrics = {
        "documents": sample.counts,
        "buckets": len(sample.buckets),
        "buckets_without_documents": len(sample.buckets)
        - int(sample.documents["bucket_index"].nunique()),
        "bucket_months": settings.bucket_months,
        "docs_per_bucket": settings.docs_per_bucket,
        "context_tokens": settings.context_tokens,
        "segmenting": settings.segmenting,
        "stride_tokens": settings.stride_tokens if settings.segmenting == "stride" else None,
        "segment_start": settings.segment_start,
        "max_text_chars": settings.max_text_chars,
        "truncated": int(docs["truncated"].sum()) if len(docs) else 0,
        "failed": failed,
        "model_calls": calls.metrics(),
        "models": per_model,
        "skipped": {f"{r['model']}/{r['what']}": r["reason"] for r in skipped},
    }
    return BpcResult(docs, out, metrics, failed, calls)


def _num(x: float) -> float | None:
    return None if not math.isfinite(x) else round(float(x), 6)


def _model_metrics(
    spec: ModelSpec, settings: BpcSettings, docs: pd.DataFrame, tbi: list[dict[str, Any]]
) -> dict[str, Any]:
    ok = docs[docs["status"] == "ok"]
    chars = int(ok["n_chars"].sum())
    by_span = {r["span"]: float(r["tbi"]) for r in tbi}
    return {
        "scorer": method_params(spec, settings)["scorer"],
        "segment_start": segment_start(docs, settings),
        "documents": len(docs),
        "scored": len(ok),
        "failed": len(docs) - len(ok),
        "tokens": int(ok["n_tokens"].sum()),
        "segments": int(ok["n_segments"].sum()),
        "max_segments": int(ok["n_segments"].max()) if len(ok) else 0,
        "chars": chars,
        "bpc_mean": _num(float(np.mean(ok["bpc"]))) if len(ok) else None,
        "bpc_pooled": _num(math.fsum(ok["bits"]) / chars) if chars else None,
        "tbi": _num(by_span.get("all", math.nan)),
        "tbi_pre_release": _num(by_span.get("pre_release", math.nan)),
        "tbi_post_release": _num(by_span.get("post_release", math.nan)),
    }
