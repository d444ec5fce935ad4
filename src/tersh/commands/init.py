"""``tersh init HOST`` / ``tersh uninit HOST`` / ``tersh init --show``: host settings.

Edits are idempotent (a second ``init`` changes nothing), keep every other setting and the
file's layout, back the file up first and replace it atomically; every change is printed.
OpenCode is installed by ``tersh.hosts.opencode`` (shipped separately, imported lazily).
"""

from __future__ import annotations

import argparse
import inspect
import sys
from typing import Any

from tersh.errors import TershError


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``HOST``, the scope, ``--dry-run``; ``--show`` and ``--with-hook`` for ``init``."""
    parser.add_argument("host", nargs="?", help="claude-code, codex, gemini or opencode")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument(
        "--global",
        dest="scope",
        action="store_const",
        const="global",
        help="the user's settings (default)",
    )
    scope.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help="this project's settings (current folder)",
    )
    parser.set_defaults(scope="global")
    parser.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")
    if name == "init":
        parser.add_argument("--show", action="store_true", help="where each host stands")
        parser.add_argument(
            "--with-hook",
            action="store_true",
            help="codex only: also add the PreToolUse shell rewrite (see docs/hosts.md)",
        )


def main(args: argparse.Namespace, name: str) -> int:
    """Install, remove or show; print one line per change."""
    from tersh import hosts

    if name == "init" and args.show:
        for line in _show_all():
            print(line)
        return 0
    if not args.host:
        raise TershError(f"{name} needs a HOST ({', '.join(hosts.HOST_MODULES)})")
    canonical = hosts.canonical_name(args.host)
    if canonical is None:
        raise TershError(f"unknown host {args.host!r} (known: {', '.join(hosts.HOST_MODULES)})")
    if getattr(args, "with_hook", False) and canonical != "codex":
        raise TershError("--with-hook is for codex only (other hosts always get their hooks)")
    if canonical == "opencode":
        lines = _opencode(name, args.scope, args.dry_run)
    else:
        lines = _native(canonical, name, args)
    for line in lines:
        print(line)
    return 0


def _native(canonical: str, name: str, args: argparse.Namespace) -> list[str]:
    from tersh import hosts

    host = hosts.load(canonical)
    if name == "uninit":
        return host.uninstall(args.scope, args.dry_run)
    tersh = hosts.tersh_command()
    lines = host.install(args.scope, tersh, args.dry_run)
    if args.with_hook:
        from tersh.hosts import codex

        lines += codex.install_hook(args.scope, tersh, args.dry_run)
    if not _enabled():
        lines.append(
            "note: tersh is disabled for this profile; hooks pass everything through until `tersh enable`"
        )
    return lines


def _opencode(name: str, scope: str, dry_run: bool) -> list[str]:
    import importlib

    try:
        opencode = importlib.import_module("tersh.hosts.opencode")
    except ImportError as exc:
        raise TershError("OpenCode support is not available in this tersh build") from exc
    action: Any = opencode.uninstall if name == "uninit" else opencode.install
    parameters = inspect.signature(action).parameters
    options: dict[str, Any] = {}
    if "tersh" in parameters:
        from tersh import hosts

        options["tersh"] = hosts.tersh_command()
    if "dry_run" in parameters:
        options["dry_run"] = dry_run
    elif dry_run:
        return ["(dry run) OpenCode: a dry run is not supported; nothing was changed"]
    return list(action(scope, **options))


def _show_all() -> list[str]:
    from tersh import hosts

    lines = [
        f"tersh {'enabled' if _enabled() else 'disabled'}; hook command: {hosts.tersh_command()} hook HOST"
    ]
    for canonical in hosts.HOST_MODULES:
        lines.append(f"{canonical}:")
        try:
            host = hosts.load(canonical)
        except ImportError:
            lines.append("  not available in this tersh build")
            continue
        try:
            shown = host.show() if hasattr(host, "show") else ["installed by `tersh init opencode`"]
        except TershError as exc:
            shown = [str(exc)]
        lines += [f"  {line}" for line in shown]
    return lines


def _enabled() -> bool:
    from tersh import settings

    current, problem = settings.load_or_defaults()
    if problem:
        print(f"tersh: {problem}", file=sys.stderr)
    return current.flag("enabled")
