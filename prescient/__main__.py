"""``python -m prescient``: the project's command line (see prescient.plumbing.cli)."""

from prescient.plumbing.cli import main

raise SystemExit(main())
