"""FreshBench (Zhu et al., NAACL 2025): bits per character of dated text and the Temporal
Bias Index (``bpc/``), the temporal bias tests on the evaluation's scores
(:mod:`.analysis`), and their figures and tables.

Import the modules themselves; this package file stays empty so importing one module
does not load (and make a stage depend on) the others.
"""
