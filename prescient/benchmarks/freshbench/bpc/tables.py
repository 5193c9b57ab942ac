"""The schemas of the stage's outputs: one home for every column name and type.

``bpc_docs`` is the per-document Parquet table; the others are CSV files under
``reports/bpc/`` named by their key (``bpc_buckets.csv``, ...), which the report and
:func:`prescient.benchmarks.freshbench.figures.draw_bpc` read.
"""

from __future__ import annotations

from collections.abc import Mapping

DOCS: Mapping[str, str] = {
    "model": "string",
    "article_id": "string",
    "date": "date32[day][pyarrow]",
    "source_domain": "string",
    "bucket": "string",
    "bucket_index": "int64",
    "sample_rank": "int64",
    "status": "string",
    "error": "string",
    "text_chars": "int64",
    "truncated": "boolean",
    "n_text_tokens": "Int64",
    "n_tokens": "Int64",
    "n_segments": "Int64",
    "segment_start": "string",
    "n_chars": "Int64",
    "n_bytes": "Int64",
    "nll_nats": "float64",
    "bits": "float64",
    "bpc": "float64",
    "bpb": "float64",
    "ledger_key": "string",
}
"""One row per model x drawn document. ``status`` is ``ok`` or ``failed`` (``error``
says why). ``text_chars``: characters of the article's text; ``truncated``: only its
first ``bpc.max_text_chars`` characters were scored (never, with the paper's null).
Counts and sums cover the scored span: ``n_text_tokens`` tokens of the text scored,
``n_tokens`` of them with a prediction, read in ``n_segments`` windows of
``bpc.context_tokens``, the windows after the first read as ``segment_start`` says
(``lead`` or ``document_start``, as the score records it:
:attr:`prescient.llm.logprobs.DocScore.segment_start`); ``n_chars`` characters and ``n_bytes`` UTF-8 bytes they spell,
``nll_nats = -sum(ln p)``, ``bits = nll_nats / ln 2``, ``bpc = bits / n_chars``,
``bpb = bits / n_bytes``."""

BUCKETS: Mapping[str, str] = {
    "model": "string",
    "display_name": "string",
    "segment_start": "string",
    "bucket": "string",
    "bucket_start": "string",
    "bucket_end": "string",
    "i": "int64",
    "n_docs": "int64",
    "n_failed": "int64",
    "bpc": "float64",
    "bpc_lo": "float64",
    "bpc_hi": "float64",
    "bpc_pooled": "float64",
    "bpb": "float64",
    "tokens": "int64",
    "chars": "int64",
}
"""Per model and bucket (every bucket of the range, empty ones with ``n_docs = 0`` and
empty BPC): ``bpc`` the mean of the documents' BPC with its bootstrap interval
``[bpc_lo, bpc_hi]``, ``bpc_pooled`` all bits over all characters, ``bpb`` the mean
bits per byte; ``segment_start`` how the model's documents read their windows after the
first (:func:`prescient.benchmarks.freshbench.bpc.tbi.segment_start`); ``i`` the time point of the Temporal Bias Index; ``bucket_end`` is
exclusive."""

TBI: Mapping[str, str] = {
    "model": "string",
    "display_name": "string",
    "release_date": "string",
    "span": "string",
    "first_bucket": "string",
    "last_bucket": "string",
    "n_points": "int64",
    "n_gaps": "int64",
    "tbi": "float64",
    "tbi_lo": "float64",
    "tbi_hi": "float64",
    "intercept": "float64",
    "note": "string",
}
"""Per model and span (``all`` buckets, ``pre_release``: buckets ending on or before the
release date, ``post_release``: buckets starting on or after it): the least-squares
slope ``tbi`` of ``BPC_i = tbi * i + intercept`` in BPC per bucket over the buckets
with documents (``n_points``; ``n_gaps`` empty ones are left out, the others keep
their ``i``), with its bootstrap interval. ``note`` says why a value is empty."""

RELEASE_CHANGES: Mapping[str, str] = {
    "model": "string",
    "display_name": "string",
    "release_date": "string",
    "months_after": "int64",
    "base_start": "string",
    "base_end": "string",
    "base_n": "int64",
    "base_bpc": "float64",
    "bucket": "string",
    "n_docs": "int64",
    "bpc": "float64",
    "change": "float64",
    "change_lo": "float64",
    "change_hi": "float64",
    "change_pct": "float64",
    "change_pct_lo": "float64",
    "change_pct_hi": "float64",
    "note": "string",
}
"""Per model with a release date and per ``months_after``: the base BPC (mean over the
documents dated in ``[base_start, base_end)``, the months before the release), the BPC
of the bucket holding ``release_date + months_after``, their difference ``change`` and
``change_pct = 100 * change / base_bpc`` (FreshBench's Table 6), with bootstrap
intervals."""

SKIPPED: Mapping[str, str] = {
    "model": "string",
    "what": "string",
    "reason": "string",
}
"""Models (or parts of their analysis) left out, and why: ``what`` is ``scoring`` (no
scorer for the model) or ``release_changes`` (no release date)."""

REPORT_TABLES: Mapping[str, Mapping[str, str]] = {
    "bpc_buckets": BUCKETS,
    "bpc_tbi": TBI,
    "bpc_release_changes": RELEASE_CHANGES,
    "bpc_skipped": SKIPPED,
}
"""CSV tables under reports/bpc/, by file stem."""
