"""The coherence of a group of texts: Daily Oracle's hot-topic clusters (ICML 2025,
section 3.1) and the story clusters OpenForecast's event chains are linked from."""

from __future__ import annotations

import numpy as np


def mean_pairwise_similarity(block: np.ndarray) -> float:
    """A cluster's coherence: the mean cosine similarity of its distinct member pairs
    (``block``: the members' similarity matrix, at least two members)."""
    n = block.shape[0]
    return float((block.sum() - np.trace(block)) / (n * (n - 1)))
