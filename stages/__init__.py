"""One module per DVC stage (``python -m stages.<name>``).

Importing the ``prescient`` package here, before any stage module imports numpy or
pandas, puts its environment defaults (offline, machine-independent numerics) in place
for every stage.
"""

import prescient  # noqa: F401
