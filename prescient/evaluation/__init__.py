"""Evaluation: the questions a run evaluates, the settings (closed book, RAG, gold
article) they are asked under, the prompts, and the scoring of the replies."""
