"""``python -m tersh`` runs the command-line interface."""

from tersh.cli import main

raise SystemExit(main())
