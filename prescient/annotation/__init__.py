"""Human evaluation of the QA filter (Daily Oracle, ICML 2025, section 3.3 and Table 4).

- ``settings``: the typed ``annotation`` params of the two stages;
- ``sample``: the seeded, stratified sample and the annotation packets;
- ``principles``: the rubric annotators score against (the LLM filter's own);
- ``ratings``: annotators' JSON Lines files, validation and spreadsheet import;
- ``server`` (with the page's files in ``web/``) and ``cli``: the local annotation page;
- ``stats``: Fleiss' kappa, Krippendorff's alpha, rounding and the bootstrap;
- ``agreement``: consensus, accuracy and Table 4 itself.
"""
