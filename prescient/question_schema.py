"""The columns every question table shares, ours and imported ones alike.

Question construction writes them (with its own provenance columns after them) and the
evaluation's question importer reads and normalises them (with gold-article columns and
the source name after them); the default ``questions.columns`` mapping in conf/ maps each
to the column of the same name in the construction output. One list, so a renamed or
added column cannot drift apart between the table that is written and the one that is
read.
"""

from __future__ import annotations

QUESTION_SCHEMA: dict[str, str] = {
    "question_id": "string",
    "qtype": "string",
    "question": "string",
    "choices": "object",
    "answer_index": "int64",
    "answer": "string",
    "resolution_date": "date32[pyarrow]",
    "article_id": "string",
    "category": "string",
}
"""Shared column -> pandas dtype of the evaluated question table.

- ``question_id``: unique id; ``qtype``: ``tf`` or ``mc``; ``question``: the text;
- ``choices``: list of option texts (``["Yes", "No"]`` for TF); ``answer_index``: the
  right option, 0-based; ``answer``: its text;
- ``resolution_date``: the day the answer became known;
- ``article_id``: the source (gold) article, when it is in the corpus;
- ``category``: the question's category (nullable).
"""

QUESTION_FIELDS: tuple[str, ...] = tuple(QUESTION_SCHEMA)
"""The shared column names, in table order."""
