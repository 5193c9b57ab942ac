"""``python -m prescient``: the project's command line (see prescient.cli)."""

from prescient.cli import main

raise SystemExit(main())
