"""The shared analysis of a scores table, for any question set: accuracy per cell and
over time, proper scores of probabilistic forecasts, paired comparisons, reliability, the
reading and dataset tables, and the trace of a number back to its model call. It imports
no benchmark; each benchmark adds its own analysis through its contract
(:mod:`prescient.analysis.parts`).

Import the modules themselves; this package file stays empty so importing one module
does not load (and make a stage depend on) the others.
"""
