"""LRAE, the LLM-based retrieval-augmented evaluation of open-ended forecasts
(OpenForecast, COLING 2025, section 5 and appendix B.3): the splitter of predictions into
atomic predictions (``split``), a reply's atomic predictions and their verdicts
(``atoms``), the judge's replies (``judge``), the evidence from later articles
(``evidence``), the open precision/recall/F1 (``metrics``), the judgements and scores
tables (``tables``) and the stage's orchestration (``run``).

Import the modules themselves; this package file stays empty.
"""
