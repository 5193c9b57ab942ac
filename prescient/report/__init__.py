"""The report toolkit: table specifications and number formats, figure drawing, the
outline and the HTML rendering that benchmarks and the page draw with. It imports no
benchmark; the page that gathers every part is :mod:`prescient.page`."""
