"""Per-bucket BPC, the Temporal Bias Index and the change in BPC after release.

FreshBench (NAACL 2025, section 3.2.1, Definition 3.1): with ``BPC_i`` the BPC at time
point ``i = 1..n`` (two months apart), the Temporal Bias Index is the slope ``a`` of the
least-squares line ``BPC_i = a * i + b``; a positive slope means the model compresses
later text worse. The base BPC is taken over the six months before the model's release,
and the change in BPC is measured 3, 6, 9 and 12 months after it (Appendix H, Table 6,
in percent of the base).

Here a time point's BPC is the mean of its documents' BPC. A bucket without documents
is a gap: it has no value (never 0) and is left out of the fit, while the other buckets
keep their own ``i``, so a gap does not pull later points closer in time.

Intervals are percentile bootstrap intervals over documents: each bucket's documents
are resampled with replacement (a generator seeded by ``base.seed``, the model and the
bucket), the statistic recomputed per replicate, and the ``(1 - confidence) / 2``
quantiles taken. The slope's replicates refit the line to the replicated bucket means.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from prescient.benchmarks.freshbench.bpc.documents import Bucket, bucket_of
from prescient.benchmarks.freshbench.bpc.settings import BpcSettings
from prescient.dates import add_months
from prescient.seeds import derive_seed

NAN = float("nan")
SPANS = ("all", "pre_release", "post_release")


def least_squares(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Slope and intercept of ``y = a x + b`` over the points where ``y`` is finite.

    Returns ``(nan, nan)`` with fewer than two such points.
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = np.isfinite(y)
    if keep.sum() < 2:
        return NAN, NAN
    xs, ys = x[keep], y[keep]
    dx = xs - xs.mean()
    a = float((dx * (ys - ys.mean())).sum() / (dx * dx).sum())
    return a, float(ys.mean() - a * xs.mean())


def slopes(x: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Least-squares slopes of every row of ``ys`` (replicates x points) against ``x``."""
    dx = np.asarray(x, dtype=np.float64) - np.mean(x)
    centred = ys - ys.mean(axis=1, keepdims=True)
    return np.asarray(centred @ dx / (dx * dx).sum())


def interval(replicates: np.ndarray | None, confidence: float) -> tuple[float, float]:
    """Percentile interval of bootstrap replicates; NaNs without replicates."""
    if replicates is None or len(replicates) == 0:
        return NAN, NAN
    q = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(replicates, [q, 1.0 - q])
    return float(lo), float(hi)


def resampled_means(values: np.ndarray, reps: int, seed: int) -> np.ndarray | None:
    """Means of ``reps`` resamples (with replacement) of ``values``; None when reps is 0."""
    if reps == 0 or len(values) == 0:
        return None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(values), size=(reps, len(values)))
    return np.asarray(values[idx].mean(axis=1))


@dataclass(frozen=True)
class ModelInfo:
    """What the analysis needs of a model's registry entry."""

    name: str
    display_name: str
    release_date: dt.date | None


def _round(x: float) -> float:
    return x if not math.isfinite(x) else round(x, 9)


def segment_start(docs: pd.DataFrame, settings: BpcSettings) -> str:
    """How a model's documents read their windows after the first: the ``segment_start``
    its scores record (one value, its requests sharing their params; several joined by
    ``+`` when ledger entries of another reading answered some), or ``bpc.segment_start``
    when no document was scored.

    Args:
        docs: this model's rows of the documents table (any status).
    """
    seen = sorted(set(docs.loc[docs["status"] == "ok", "segment_start"].dropna().astype(str)))
    return "+".join(seen) if seen else settings.segment_start


def bucket_rows(
    model: ModelInfo,
    docs: pd.DataFrame,
    buckets: list[Bucket],
    settings: BpcSettings,
    seed: int,
) -> tuple[list[dict[str, Any]], dict[int, np.ndarray | None]]:
    """One row per bucket (table ``bpc_buckets``) and each bucket's replicate means.

    Args:
        docs: this model's rows of the documents table (any status).
    """
    ok = docs[docs["status"] == "ok"]
    method = segment_start(docs, settings)
    rows: list[dict[str, Any]] = []
    replicates: dict[int, np.ndarray | None] = {}
    for b in buckets:
        mine = ok[ok["bucket_index"] == b.index]
        values = mine["bpc"].to_numpy(dtype=np.float64)
        reps = resampled_means(
            values, settings.bootstrap.reps, derive_seed(seed, "bpc_bootstrap", model.name, b.label)
        )
        replicates[b.index] = reps
        lo, hi = interval(reps, settings.bootstrap.confidence)
        chars = int(mine["n_chars"].sum())
        rows.append(
            {
                "model": model.name,
                "display_name": model.display_name,
                "segment_start": method,
                "bucket": b.label,
                "bucket_start": b.start.isoformat(),
                "bucket_end": b.end.isoformat(),
                "i": b.index,
                "n_docs": len(mine),
                "n_failed": int(
                    ((docs["bucket_index"] == b.index) & (docs["status"] != "ok")).sum()
                ),
                "bpc": _round(float(values.mean())) if len(values) else NAN,
                "bpc_lo": _round(lo),
                "bpc_hi": _round(hi),
                "bpc_pooled": _round(math.fsum(mine["bits"]) / chars) if chars else NAN,
                "bpb": _round(float(mine["bpb"].mean())) if len(mine) else NAN,
                "tokens": int(mine["n_tokens"].sum()),
                "chars": chars,
            }
        )
    return rows, replicates


def _span_buckets(span: str, buckets: list[Bucket], release: dt.date | None) -> list[Bucket]:
    if span == "all":
        return buckets
    assert release is not None
    if span == "pre_release":
        return [b for b in buckets if b.end <= release]
    return [b for b in buckets if b.start >= release]


def tbi_rows(
    model: ModelInfo,
    buckets_table: list[dict[str, Any]],
    replicates: Mapping[int, np.ndarray | None],
    buckets: list[Bucket],
    settings: BpcSettings,
) -> list[dict[str, Any]]:
    """The Temporal Bias Index per span (table ``bpc_tbi``)."""
    bpc = {int(r["i"]): float(r["bpc"]) for r in buckets_table}
    out = []
    for span in SPANS:
        base: dict[str, Any] = {
            "model": model.name,
            "display_name": model.display_name,
            "release_date": model.release_date.isoformat() if model.release_date else "",
            "span": span,
        }
        if span != "all" and model.release_date is None:
            out.append(_empty_tbi(base, [], 0, "no release_date in the model's registry entry"))
            continue
        chosen = _span_buckets(span, buckets, model.release_date)
        points = [b for b in chosen if math.isfinite(bpc.get(b.index, NAN))]
        if len(points) < 2:
            note = f"{len(points)} bucket(s) with documents; a slope needs 2"
            out.append(_empty_tbi(base, chosen, len(points), note))
            continue
        x = np.array([b.index for b in points], dtype=np.float64)
        a, b0 = least_squares(x, np.array([bpc[b.index] for b in points]))
        reps = [replicates.get(b.index) for b in points]
        lo, hi = NAN, NAN
        if all(r is not None for r in reps):
            ys = np.column_stack([r for r in reps if r is not None])
            lo, hi = interval(slopes(x, ys), settings.bootstrap.confidence)
        out.append(
            {
                **base,
                "first_bucket": chosen[0].label,
                "last_bucket": chosen[-1].label,
                "n_points": len(points),
                "n_gaps": len(chosen) - len(points),
                "tbi": _round(a),
                "tbi_lo": _round(lo),
                "tbi_hi": _round(hi),
                "intercept": _round(b0),
                "note": "",
            }
        )
    return out


def _empty_tbi(
    base: dict[str, Any], chosen: list[Bucket], n_points: int, note: str
) -> dict[str, Any]:
    return {
        **base,
        "first_bucket": chosen[0].label if chosen else "",
        "last_bucket": chosen[-1].label if chosen else "",
        "n_points": n_points,
        "n_gaps": len(chosen) - n_points,
        "tbi": NAN,
        "tbi_lo": NAN,
        "tbi_hi": NAN,
        "intercept": NAN,
        "note": note,
    }


def release_change_rows(
    model: ModelInfo,
    docs: pd.DataFrame,
    buckets_table: list[dict[str, Any]],
    replicates: Mapping[int, np.ndarray | None],
    buckets: list[Bucket],
    settings: BpcSettings,
    seed: int,
) -> list[dict[str, Any]]:
    """Change in BPC after the release relative to the months before (``bpc_release_changes``).

    Only for a model with a release date; the caller lists the others as skipped.
    """
    release = model.release_date
    assert release is not None
    base_start = add_months(release, -settings.release.base_months)
    ok = docs[docs["status"] == "ok"]
    dates = pd.to_datetime(ok["date"]).dt.date
    base_values = ok["bpc"][(dates >= base_start) & (dates < release)].to_numpy(dtype=np.float64)
    base = float(base_values.mean()) if len(base_values) else NAN
    base_reps = resampled_means(
        base_values, settings.bootstrap.reps, derive_seed(seed, "bpc_bootstrap_base", model.name)
    )
    by_index = {int(r["i"]): r for r in buckets_table}
    out = []
    for k in settings.release.after_months:
        day = add_months(release, k)
        bucket = bucket_of(day, buckets)
        row = by_index.get(bucket.index) if bucket else None
        point = float(row["bpc"]) if row else NAN
        change = point - base
        note = ""
        if not len(base_values):
            note = f"no documents dated {base_start} to {release} (the base)"
        elif bucket is None:
            note = f"{day} is outside the buckets analysed"
        elif not math.isfinite(point):
            note = f"bucket {bucket.label} has no documents"
        point_reps = replicates.get(bucket.index) if bucket else None
        lo = hi = lo_pct = hi_pct = NAN
        if not note and point_reps is not None and base_reps is not None:
            diffs = point_reps - base_reps
            lo, hi = interval(diffs, settings.bootstrap.confidence)
            lo_pct, hi_pct = interval(100.0 * diffs / base_reps, settings.bootstrap.confidence)
        out.append(
            {
                "model": model.name,
                "display_name": model.display_name,
                "release_date": release.isoformat(),
                "months_after": k,
                "base_start": base_start.isoformat(),
                "base_end": release.isoformat(),
                "base_n": len(base_values),
                "base_bpc": _round(base),
                "bucket": bucket.label if bucket else "",
                "n_docs": int(row["n_docs"]) if row else 0,
                "bpc": _round(point),
                "change": _round(change) if not note else NAN,
                "change_lo": _round(lo),
                "change_hi": _round(hi),
                "change_pct": _round(100.0 * change / base) if not note else NAN,
                "change_pct_lo": _round(lo_pct),
                "change_pct_hi": _round(hi_pct),
                "note": note,
            }
        )
    return out
