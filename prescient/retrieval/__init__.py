"""Leakage-free BM25 retrieval: the visibility rule (``visibility``), the tokenizer
(``tokenize``), exact per-cutoff BM25 (``bm25``) and the article index (``search``).

Import the modules themselves; this package file stays empty so importing one module
does not load (and make a stage depend on) the others.
"""
