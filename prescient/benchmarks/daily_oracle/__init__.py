"""Daily Oracle (Dai et al., ICML 2025): question construction, evaluation and the accuracy-over-time analysis."""
