"""The report page: gathers the shared analysis's tables and figures and every
benchmark's part (found through :mod:`prescient.benchmarks.registry`) into
``reports/index.html``. It sits above the benchmarks; the drawing and formatting
toolkit below them is :mod:`prescient.report`."""
