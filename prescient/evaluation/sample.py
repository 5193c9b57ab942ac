"""The seeded sample order of an evaluated question set.

A question's place follows from ``derive_seed(seed, "sample", question_id)``: a key of
the question alone, so adding questions never reorders the old ones among themselves, a
sample of m < n questions is a subset of the sample of n, and a row carrying its key
never changes when questions are added.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from prescient.seeds import derive_seed


def sample_keys(question_ids: Iterable[Any], seed: int) -> list[int]:
    """Each question's key in the seeded sample order: ``derive_seed(seed, "sample",
    question_id)``, a function of the question alone (:func:`first_in_sample`)."""
    return [derive_seed(seed, "sample", str(q)) for q in question_ids]


def sample_order(question_ids: Iterable[Any], seed: int) -> list[int]:
    """Each question's place (1 = first) in the seeded sample order: by
    :func:`sample_keys`, ties by id. Adding questions never reorders the old ones among
    themselves, and a sample of m < n questions is a subset of the sample of n."""
    ids = [str(q) for q in question_ids]
    keys = sample_keys(ids, seed)
    order = sorted(range(len(ids)), key=lambda i: (keys[i], ids[i]))
    ranks = [0] * len(ids)
    for place, i in enumerate(order, 1):
        ranks[i] = place
    return ranks


def first_in_sample(frame: pd.DataFrame, n: int) -> pd.Series:
    """The rows among the first ``n`` of the seeded sample order (``sample_key``, ties by
    question id). A sample of the whole set: a question added later can displace one,
    so a budget is for a fixed question set, not for one that grows every day."""
    keys = [int(k) for k in frame["sample_key"].tolist()]
    ids = [str(q) for q in frame["question_id"].tolist()]
    order = sorted(range(len(frame)), key=lambda i: (keys[i], ids[i]))
    keep = np.zeros(len(frame), dtype=bool)
    keep[order[:n]] = True
    return pd.Series(keep, index=frame.index)
