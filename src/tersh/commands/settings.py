"""``tersh settings [get KEY | set KEY VALUE | reset KEY | path]``: show and change settings."""

from __future__ import annotations

import argparse
import json

from tersh import settings
from tersh.errors import TershError

#: The actions and what each does (the help shows them).
ACTIONS = {
    "show": "every setting, its value and what it does; * marks one you changed (default)",
    "get": "print one setting's value (get KEY)",
    "set": "change one setting (set KEY VALUE), kept in the profile's settings.toml",
    "reset": "put one setting back to its default (reset KEY)",
    "path": "print where the settings file is",
}


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``show`` (default), ``get KEY``, ``set KEY VALUE``, ``reset KEY``, ``path``."""
    parser.add_argument(
        "action",
        nargs="?",
        default="show",
        choices=list(ACTIONS),
        help="; ".join(f"{action}: {text}" for action, text in ACTIONS.items()),
    )
    parser.add_argument("key", nargs="?", help="a setting's dotted name, e.g. preview.max_lines")
    parser.add_argument("value", nargs="?", help="the new value (set): a number, true/false or text")
    parser.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text: one line per setting with its description; json: the values only",
    )


def main(args: argparse.Namespace, name: str) -> int:
    """Dispatch the settings action."""
    if args.action == "path":
        print(settings.settings_path())
        return 0
    if args.action == "show":
        current = settings.load()
        if args.format == "json":
            print(json.dumps(dict(current), indent=2, sort_keys=True))
        else:
            shown = {key: f"{key} = {json.dumps(current[key])}" for key in sorted(current)}
            width = max(map(len, shown.values()))
            for key, assignment in shown.items():
                marker = "*" if key in current.overrides else " "
                print(f"{marker} {assignment:<{width}}  {settings.DESCRIPTIONS.get(key, '')}".rstrip())
        return 0
    if not args.key:
        raise TershError(f"settings {args.action} needs a KEY")
    if args.key not in settings.DEFAULTS:
        raise TershError(f"unknown setting {args.key!r} (see `tersh settings`)")
    if args.action == "get":
        print(json.dumps(settings.load()[args.key]))
        return 0
    if args.action == "reset":
        settings.save({args.key: settings.DEFAULTS[args.key]})
        print(f"{args.key} = {json.dumps(settings.DEFAULTS[args.key])} (default)")
        return 0
    if args.value is None:
        raise TershError("settings set needs KEY and VALUE")
    value = settings.parse_value(args.key, args.value)
    settings.save({args.key: value})
    print(f"{args.key} = {json.dumps(value)}")
    return 0
