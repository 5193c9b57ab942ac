"""What model replies cost when they were paid, from prediction or score rows.

Every prediction row carries its reply's ``prompt_tokens``, ``completion_tokens`` and
``cost_usd`` as the reply's ledger entry records them (:mod:`prescient.evaluation.run`),
so these sums are properties of the results: the same on every machine, whether a run
sent the requests or was served them from the response store.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

COST_COLUMNS = ("prompt_tokens", "completion_tokens", "cost_usd")
"""The per-row columns the sums read."""


def paid_for(rows: pd.DataFrame) -> dict[str, Any]:
    """Tokens and USD of the answered replies in ``rows`` (failed calls cost nothing).

    Returns:
        ``prompt_tokens``, ``completion_tokens``, ``cost_usd`` (rounded to 6 places; the
        replies with a known price) and ``unpriced`` (answered rows without one: an
        in-process model, or a provider litellm has no price for).
    """
    answered = rows.loc[rows["error"].isna().to_numpy(bool)]
    costs = pd.to_numeric(answered["cost_usd"], errors="coerce")
    return {
        "prompt_tokens": int(pd.to_numeric(answered["prompt_tokens"]).fillna(0).sum()),
        "completion_tokens": int(pd.to_numeric(answered["completion_tokens"]).fillna(0).sum()),
        "cost_usd": round(float(costs.fillna(0.0).sum()), 6),
        "unpriced": int(costs.isna().sum()),
    }


def model_costs(rows: pd.DataFrame) -> pd.DataFrame:
    """Per model, each distinct request once (a prompt two settings share counts once).

    Args:
        rows: predictions or scores with ``model``, ``error``, ``ledger_key`` and
            :data:`COST_COLUMNS`; rows without a key made no request.

    Returns:
        Columns ``model``, ``distinct_requests``, ``failed``, ``prompt_tokens``,
        ``completion_tokens``, ``cost_usd``, ``unpriced``; no rows when ``rows`` lacks
        the columns (a scores table imported from elsewhere).
    """
    columns = ["model", "distinct_requests", "failed", *COST_COLUMNS, "unpriced"]
    if rows.empty or not {"ledger_key", *COST_COLUMNS} <= set(rows.columns):
        return pd.DataFrame(columns=columns)
    asked = rows.loc[rows["ledger_key"].notna().to_numpy(bool)]
    distinct = asked.drop_duplicates(["model", "ledger_key"])
    out = [
        {
            "model": str(model),
            "distinct_requests": len(group),
            "failed": int(group["error"].notna().sum()),
            **paid_for(group),
        }
        for model, group in distinct.groupby("model", sort=True)
    ]
    return pd.DataFrame(out, columns=columns)
