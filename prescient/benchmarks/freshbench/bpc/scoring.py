"""One document's score and the segments of context it is read in.

Scores come from the gateway's log-probability requests (:mod:`prescient.llm.logprobs`
defines them: the segments of context, the accounting of a text's characters, the
score's JSON in the ledger); this module names what the ``bpc`` stage uses of them.
FreshBench (NAACL 2025, appendix "Model selection and Experimental Setting") reads a
text longer than the model's context in segments of a 2048-token context and sums their
negative log-likelihoods; BPC is ``-sum(ln p) / ln 2 / characters`` (equation 1).
"""

from __future__ import annotations

from prescient.llm.logprobs import (
    LN2,
    DocScore,
    ScoringError,
    Segmenting,
    SegmentingRule,
    account,
    windows,
)

__all__ = [
    "LN2",
    "DocScore",
    "ScorerConfigError",
    "ScoringError",
    "Segmenting",
    "SegmentingRule",
    "account",
    "windows",
]


class ScorerConfigError(ValueError):
    """A model cannot be scored as configured (stops the stage)."""
