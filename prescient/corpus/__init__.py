"""The news corpus: readers for each source format, normalisation, and ingest."""
