"""Daily Oracle's own analysis (ICML 2025, sections 4.1-4.3): Table 3 and the yearly
accuracies, the headline decline, the Fig. 6 slopes and the construction funnel, run
after the shared analysis (:mod:`prescient.analysis`) on its monthly series."""
