"""Daily Oracle (Dai et al., ICML 2025): question construction from the day's news, the
evaluation of models on the questions (closed book, RAG, gold article), and the analysis
of accuracy over time, with its figures and tables.

Import the modules themselves; this package file stays empty so importing one module
does not load (and make a stage depend on) the others.
"""
