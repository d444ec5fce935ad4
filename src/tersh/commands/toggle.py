"""``tersh enable`` / ``tersh disable``: flip the profile switch (read fresh by every command)."""

from __future__ import annotations

import argparse

from tersh import settings


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """No options."""


def main(args: argparse.Namespace, name: str) -> int:
    """Write ``enabled`` to the settings file and say so."""
    enabled = name == "enable"
    settings.save({"enabled": enabled})
    if enabled:
        from tersh import tokens

        tokens.prepare_table()  # the token table the first `tersh gain` needs, built once now
    print(f"tersh {'enabled' if enabled else 'disabled'}: takes effect on the next command")
    return 0
