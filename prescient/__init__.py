"""Prescient: Daily Oracle, FreshBench and OpenForecast as one reproducible pipeline.

Importing the package first pins environment defaults that libraries read when they are
imported, so they must be set before numpy, litellm or matplotlib load (stage modules
import this package first, through ``stages/__init__.py``):

- offline: nothing reaches for the network (litellm's price map, Hugging Face) or a
  display (matplotlib);
- the same numerics on every x86-64 machine: numpy picks its SIMD kernels at run time,
  and its AVX-512 kernels round some sums differently from its AVX2 ones, so they are
  turned off (:data:`NUMERIC_DEFAULTS`); OpenBLAS is pinned to one kernel family for the
  same reason. The embedded model is fixed the same way at build time (Makefile).

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

NUMERIC_DEFAULTS: dict[str, str] = {
    # numpy >= 2.4 dispatches x86-64-v3 (AVX2/FMA) or v4 (AVX-512) kernels: keep v3 so an
    # AVX-512 machine computes what an AVX2 one does.
    "NPY_DISABLE_CPU_FEATURES": "X86_V4,AVX512_ICL,AVX512_SPR",
    # OpenBLAS (bundled with numpy and scipy) likewise picks kernels per CPU.
    "OPENBLAS_CORETYPE": "Haswell",
}

for _key, _value in {**OFFLINE_DEFAULTS, **NUMERIC_DEFAULTS}.items():
    os.environ.setdefault(_key, _value)

__version__ = "0.1.0"
