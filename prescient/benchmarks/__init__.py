"""One folder per benchmark, holding what only that benchmark does (its part of the
report included); what several share lives outside ``benchmarks/``."""
