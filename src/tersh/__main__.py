"""``python -m tersh`` runs the command-line interface."""

from tersh.cli import entry

entry()
