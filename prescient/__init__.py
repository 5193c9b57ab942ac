"""Prescient: the Daily Oracle continuous forecasting benchmark as a reproducible pipeline.

Importing the package first pins the offline defaults that litellm, Hugging Face and
matplotlib read at import time, so nothing later reaches for the network or a display.
Values already set in the environment win.
"""

from __future__ import annotations

import os

OFFLINE_DEFAULTS: dict[str, str] = {
    # litellm otherwise downloads its model cost map at import.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "MPLBACKEND": "Agg",
    "TOKENIZERS_PARALLELISM": "false",
}

for _key, _value in OFFLINE_DEFAULTS.items():
    os.environ.setdefault(_key, _value)

__version__ = "0.1.0"
