"""OpenForecast (COLING 2025): complex event chains, the six forecasting tasks built on
them, and the LLM-based retrieval-augmented evaluation (LRAE) of open-ended answers.

Import the modules themselves; this package file stays empty so importing one module
does not load (and make a stage depend on) the others.
"""
