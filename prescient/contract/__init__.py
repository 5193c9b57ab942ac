"""The contract a benchmark fills (:mod:`prescient.contract.benchmark`), apart from the
benchmarks that fill it and from the registry that finds them, so that each imports it
and it imports none of them."""
