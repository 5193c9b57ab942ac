"""The report page's content as data: its outline (parts, titles, explanations) and its
style sheet, read by :mod:`prescient.report.outline` and :mod:`prescient.report.html`
with ``importlib.resources``."""
