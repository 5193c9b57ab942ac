"""Human evaluation of the QA filter (SPEC.md 1.4, paper Table 4).

- ``sample``: the seeded, stratified sample and the annotation packets;
- ``principles``: the seven principle keys, Table 4 labels and the rubric;
- ``ratings``: annotators' JSON Lines files, validation and spreadsheet import;
- ``server`` and ``web_assets``: the local annotation page;
- ``stats``: Fleiss' kappa, Krippendorff's alpha, rounding and the bootstrap;
- ``agreement``: consensus, accuracy and Table 4 itself.
"""
