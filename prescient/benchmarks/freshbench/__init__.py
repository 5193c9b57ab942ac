"""FreshBench (Zhu et al., NAACL 2025): bits per character, the Temporal Bias Index and the temporal bias tests."""
