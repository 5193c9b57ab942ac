"""The figures, Markdown tables and the self-contained HTML report drawn from the
analysis tables."""
