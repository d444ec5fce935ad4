"""``tersh status``: enabled?, the per-class switches, RTK, and the session's savings.

RTK comes from the status file's ``rtk`` section (published by the rewrite provider) and, when
that is absent, from the probe cache ``state/rtk-probe.json``. Savings come from the status
file's ``savings`` section (published by the session after each call); ``--session`` reads them
from the ledger instead.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any, TextIO

from tersh import settings
from tersh.execution.rewrite.rtk_probe import rtk_status
from tersh.recording import status


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``--format text|json`` and ``--session``."""
    parser.add_argument(
        "--format", choices=["text", "json"], default="text", help="text: for reading; json: every field"
    )
    parser.add_argument(
        "--session", help="savings of this session id from the ledger ('current': the caller's)"
    )


def main(args: argparse.Namespace, name: str) -> int:
    """Print the status."""
    report = build_report(args.session)
    if args.format == "json":
        json.dump(report, sys.stdout, indent=2, sort_keys=True, default=str)
        sys.stdout.write("\n")
    else:
        write_text(report, sys.stdout)
    return 0


def build_report(session: str | None = None) -> dict[str, Any]:
    """Everything ``tersh status`` shows, as plain data."""
    conf, problem = settings.load_or_defaults()
    published = status.read()
    savings = published.get("savings") if isinstance(published.get("savings"), dict) else {}
    if session is not None:
        savings = _ledger_savings(session)
    return {
        "enabled": conf.flag("enabled"),
        "settings_problem": problem,
        "switches": {name: conf.class_enabled(name) for name in settings.CLASSES},
        "ledger": {
            "enabled": conf.flag("ledger.enabled"),
            "record_arguments": conf.flag("ledger.record_arguments"),
        },
        "rtk": rtk_status(published),
        "savings": savings,
        "status_file": str(status.status_path()),
    }


def _ledger_savings(session: str) -> dict[str, Any]:
    from tersh.recording import ledger

    key = ledger.session_id() if session == "current" else session
    if not ledger.ledger_path().exists():
        return {"session": key, **ledger.totals_empty()._asdict()}
    with contextlib.closing(ledger.connect()) as db:
        return {"session": key, **ledger.totals(db, session=key)._asdict()}


def write_text(report: dict[str, Any], stream: TextIO) -> None:
    """The human form of the status."""
    stream.write(f"tersh: {'enabled' if report['enabled'] else 'disabled'}\n")
    if report["settings_problem"]:
        stream.write(f"  settings: {report['settings_problem']}\n")
    switches = ", ".join(f"{k} {'on' if v else 'off'}" for k, v in report["switches"].items())
    stream.write(f"switches: {switches}\n")
    ledger_state = report["ledger"]
    stream.write(
        f"ledger: {'on' if ledger_state['enabled'] else 'off'}"
        f"{', with arguments' if ledger_state['record_arguments'] else ''}\n"
    )
    stream.write(_rtk_line(report["rtk"]) + "\n")
    try:
        stream.write(_savings_line(report["savings"]) + "\n")
    except (TypeError, ValueError, KeyError):  # a hand-edited status file: show, don't crash
        stream.write(f"savings: unreadable entry in {report['status_file']}\n")


def _rtk_line(rtk: dict[str, Any]) -> str:
    """Whether RTK is used, what it is, and (when it is not used) how to get it."""
    from tersh.commands.rtk import ABOUT, HOW_TO_GET

    about = f"\n  {ABOUT}"
    if rtk.get("found") and rtk.get("verified"):
        return f"rtk: {rtk.get('version') or '?'} at {rtk.get('path') or '?'} (verified), in use{about}"
    if rtk.get("found"):
        state = f"found, not verified, so not in use: {rtk.get('reason') or 'no reason given'}"
    else:
        state = f"not in use: {rtk.get('reason') or 'no reason given'}"
    return f"rtk: {state}{about}\n  Get it: {HOW_TO_GET}"


def _savings_line(savings: dict[str, Any]) -> str:
    from tersh.commands.gain import percent, size

    if not savings or not savings.get("calls"):
        return "savings: no calls recorded in this session yet"
    unmeasured = savings["calls"] - savings.get("measured_calls", 0)
    return (
        f"savings (session {savings.get('session', '?')}): {savings['calls']} calls"
        + (f" ({unmeasured} unmeasured)" if unmeasured else "")
        + f", {size(savings.get('input_bytes', 0))} -> {size(savings.get('output_bytes', 0))}, "
        f"saved {percent(savings.get('saving'))}"
        + (
            f", net of read-backs {percent(savings.get('net_saving'))}"
            if savings.get("retrieved_bytes")
            else ""
        )
    )
