"""``tersh gain``: what tersh saved — totals, by program, by category, by day, and a daily chart.

Byte savings follow SPEC §1 (removed bytes / measured input bytes). Beside them: the same after
bytes read back from captures, exact o200k token counts (counted here, off the hot path, for
calls recorded since the last report) and the saving against what each agent host would have
shown anyway.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import re
import sqlite3
import sys
import time
from datetime import datetime
from typing import Any, TextIO

from tersh.errors import TershError
from tersh.recording import ledger

HOST_LABELS = {"claude_code": "Claude Code", "opencode": "OpenCode", "codex": "Codex CLI"}
BREAKDOWNS = ("program", "category", "day")
_AGE = re.compile(r"^(\d+)\s*([dhm])$")
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60}


#: One line per figure of the report: the text form prints them under the figures, the JSON
#: form carries them as ``explained``.
EXPLAINED = {
    "calls": "calls: commands and tool outputs tersh handled; measured ones had their whole output"
    " captured, so their sizes are exact (the others are left out of the figures below)",
    "bytes": "bytes: the output as the command printed it -> what the model was given; saved ="
    " the share removed",
    "net": "net: the same, counting what the agent later read back from captures as given",
    "tokens": "tokens: the same in o200k tokens, counted here after the fact (off the command's path)",
    "vs_host": "vs host: against what that agent host would have shown without tersh (every host"
    " cuts long output itself, e.g. Claude Code keeps a 2 KB preview of 30,000+ characters);"
    " negative: tersh's text plus what was read back from captures is more than the host's own"
    " cut, because tersh keeps every error, path and line number where a host cuts blindly",
    "rtk": "rtk: calls the optional RTK filtered; RTK's text is used only where the verifier"
    " proves it kept every fact",
}


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``--format``, ``--since``, ``--session``, ``--days``, ``--no-count``."""
    parser.epilog = "The figures: " + " | ".join(EXPLAINED.values())
    parser.add_argument(
        "--format",
        choices=["text", "json", "csv"],
        default="text",
        help="text: figures, tables and a chart; json: the whole report; csv: one row per group",
    )
    parser.add_argument("--since", help="a date (YYYY-MM-DD), 'today', or an age: 7d, 12h, 30m")
    parser.add_argument("--session", help="only this session id ('current': the caller's)")
    parser.add_argument("--days", type=int, default=14, help="days shown in the chart (text)")
    parser.add_argument(
        "--no-count", action="store_true", help="do not count tokens for newly recorded calls"
    )


def main(args: argparse.Namespace, name: str) -> int:
    """Print the savings report in the chosen format."""
    where = ledger.Filter(since=parse_since(args.since), session=_session(args.session))
    report = build_report(where, count=not args.no_count)
    if args.format == "json":
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.format == "csv":
        write_csv(report, sys.stdout)
    else:
        write_text(report, sys.stdout, days=args.days)
    return 0


def parse_since(text: str | None, now: float | None = None) -> float | None:
    """A start time from ``YYYY-MM-DD`` (local midnight), ``today`` or an age like ``7d``."""
    if text is None:
        return None
    now = time.time() if now is None else now
    value = text.strip().lower()
    if value == "today":
        midnight = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
        return midnight.timestamp()
    age = _AGE.match(value)
    if age:
        return now - int(age.group(1)) * _UNIT_SECONDS[age.group(2)]
    try:
        return datetime.strptime(value, "%Y-%m-%d").timestamp()
    except ValueError as exc:
        raise TershError(f"--since takes YYYY-MM-DD, 'today' or an age like 7d, not {text!r}") from exc


def _session(value: str | None) -> str | None:
    if value is None:
        return None
    return ledger.session_id() if value == "current" else value


def build_report(where: ledger.Filter, *, count: bool = True) -> dict[str, Any]:
    """The whole report as plain data (what ``--format json`` prints)."""
    report: dict[str, Any] = {
        "filter": {"since": where.since, "session": where.session},
        "total": _as_dict(ledger.totals_empty()),
        "vs_host": [],
        "uncounted_calls": 0,
        "inputs_too_large_to_count": 0,
        **{f"by_{key}": [] for key in BREAKDOWNS},
    }
    if not ledger.ledger_path().exists():
        return report
    with contextlib.closing(ledger.connect()) as db:
        if count:
            count_with_progress(db)
        report["total"] = _as_dict(ledger.totals(db, since=where.since, session=where.session))
        for key in BREAKDOWNS:
            report[f"by_{key}"] = [_as_dict(row) for row in ledger.breakdown(db, key, where)]
        report["vs_host"] = [row._asdict() for row in ledger.versus_hosts(db, where)]
        report["uncounted_calls"] = ledger.deferred_count(db)
        report["rtk"] = ledger.rtk_summary(db, where)._asdict()
        report["inputs_too_large_to_count"] = _inputs_too_large(db, where)
    report["explained"] = dict(EXPLAINED)
    return report


def count_with_progress(db: sqlite3.Connection) -> None:
    """Count the tokens of newly recorded calls, with a progress bar on stderr (a terminal only).

    The first call loads the tokenizer and may read a large capture (seconds), so the bar (a
    pulse with the elapsed time, then how many were counted) shows from the start; counting
    itself runs within ``tokens.REPORT_BUDGET_S`` as without a bar.
    """
    from tersh import tokens

    pending = ledger.deferred_count(db)
    if not pending:
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    columns = (TextColumn("counting tokens of new calls"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("count", total=pending, start=False)  # not started: a pulse
        from tersh.hosts import savings as hostview

        counted = ledger.count_deferred(db, budget_s=tokens.REPORT_BUDGET_S, views=hostview.HOSTS)
        bar.start_task(task)
        bar.update(task, completed=counted)


def _inputs_too_large(db: sqlite3.Connection, where: ledger.Filter) -> int:
    """Measured calls whose model text was counted but whose input was too large to count."""
    clause, params = where.sql()
    query = (
        "SELECT COUNT(*) FROM calls c WHERE " + clause + " AND c.measured AND c.deferred = 0"
        " AND c.input_tokens IS NULL AND c.output_tokens IS NOT NULL"
    )
    return int(db.execute(query, params).fetchone()[0])


def _as_dict(row: ledger.Savings) -> dict[str, Any]:
    return {**row._asdict(), "unmeasured_calls": row.unmeasured_calls}


CSV_FIELDS = (
    "section", "key", "calls", "measured_calls", "unmeasured_calls", "input_bytes",
    "output_bytes", "removed_bytes", "saving", "retrieved_bytes", "net_saving", "counted_calls",
    "input_tokens", "output_tokens", "token_saving",
)  # fmt: skip


def write_csv(report: dict[str, Any], stream: TextIO) -> None:
    """One CSV line per group: the total, then by program, by category and by day."""
    writer = csv.DictWriter(stream, fieldnames=CSV_FIELDS, extrasaction="ignore")
    writer.writeheader()
    writer.writerow({"section": "total", **report["total"]})
    for key in BREAKDOWNS:
        for row in report[f"by_{key}"]:
            writer.writerow({"section": key, **row})


def write_text(report: dict[str, Any], stream: TextIO, *, days: int = 14) -> None:
    """The human report: headline figures, tables and a daily bar chart (rich)."""
    from rich.console import Console  # lazy: only `tersh gain` pays for rich

    console = Console(file=stream, highlight=False, soft_wrap=False)
    total = report["total"]
    for line in headline(report):
        console.print(line, soft_wrap=True)
    if not total["calls"]:
        return
    console.print()
    console.print(_table("By program", report["by_program"]))
    console.print(_table("By category", report["by_category"]))
    console.print(_chart(report["by_day"][-days:]))
    console.print()
    for line in explanations(report):
        console.print(line, soft_wrap=True)


def explanations(report: dict[str, Any]) -> list[str]:
    """What each figure above means, one line each (only for the figures the report shows)."""
    shown = ["calls", "bytes"]
    if report["total"]["retrieved_bytes"]:
        shown.append("net")
    shown.append("tokens")
    if report["vs_host"]:
        shown.append("vs_host")
    if (report.get("rtk") or {}).get("calls"):
        shown.append("rtk")
    return ["What the figures mean:", *(f"  {EXPLAINED[key]}" for key in shown)]


def headline(report: dict[str, Any]) -> list[str]:
    """The summary lines, plain text (no markup)."""
    total = report["total"]
    scope = _scope(report["filter"])
    if not total["calls"]:
        return [f"tersh gain{scope}: no calls recorded yet."]
    lines = [
        f"tersh gain{scope}: {total['calls']} calls, {total['measured_calls']} measured"
        + (f", {total['unmeasured_calls']} unmeasured (excluded)" if total["unmeasured_calls"] else ""),
        f"  bytes   {size(total['input_bytes'])} in -> {size(total['output_bytes'])} to the model, "
        f"saved {percent(total['saving'])} ({size(total['removed_bytes'])} removed)",
    ]
    if total["retrieved_bytes"]:
        lines.append(
            f"          {size(total['retrieved_bytes'])} read back from captures: "
            f"net {percent(total['net_saving'])}"
        )
    counted = f"{total['counted_calls']} of {total['measured_calls']} calls counted"
    lines.append(
        f"  tokens  {total['input_tokens']:,} in -> {total['output_tokens']:,} (o200k), "
        f"saved {percent(total['token_saving'])} ({counted})"
    )
    lines.extend(_counting_notes(report))
    if report["vs_host"]:
        versus = ", ".join(
            f"{HOST_LABELS.get(row['host'], row['host'])} {percent(row['saving'])}"
            for row in report["vs_host"]
        )
        lines.append(
            f"  vs host (what each host would have shown without tersh, net of read-backs): {versus}"
        )
    lines.extend(rtk_lines(report.get("rtk")))
    return lines


def rtk_lines(rtk: dict[str, Any] | None) -> list[str]:
    """The RTK line of the headline: RTK's saving alone, tersh's, and how often RTK was refused."""
    if not rtk or not rtk["calls"]:
        return []
    failed = f", {rtk['failed']} without an RTK text" if rtk["failed"] else ""
    return [
        f"  rtk     {rtk['calls']} calls filtered by RTK: RTK alone would save "
        f"{percent(rtk['rtk_saving'])}, verified {percent(rtk['saving'])}; RTK's text refused "
        f"{rtk['refused']} of {rtk['accepted'] + rtk['refused']} times"
        f" ({percent(rtk['refused_share'])}){failed}"
    ]


def _counting_notes(report: dict[str, Any]) -> list[str]:
    """Why calls are missing from the token figures: too large to count, or not counted yet."""
    from tersh import tokens
    from tersh.compaction.report import human_bytes

    notes = []
    if report.get("inputs_too_large_to_count"):
        notes.append(
            f"          {report['inputs_too_large_to_count']} calls with output over "
            f"{human_bytes(tokens.EXACT_INPUT_BYTES)}: model text counted, output not "
            "(token figures are exact and leave these calls out; their bytes count above)"
        )
    if report.get("uncounted_calls"):
        notes.append(
            f"          {report['uncounted_calls']} calls not counted yet "
            "(each report counts for a moment; run tersh gain again)"
        )
    return notes


def _scope(where: dict[str, Any]) -> str:
    parts = []
    if where["session"]:
        parts.append(f"session {where['session']}")
    if where["since"] is not None:
        parts.append(f"since {datetime.fromtimestamp(where['since']):%Y-%m-%d %H:%M}")
    return f" ({', '.join(parts)})" if parts else ""


def _table(title: str, rows: list[dict[str, Any]]) -> Any:
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for column in ("", "calls", "in", "out", "saved", "tokens in", "tokens out"):
        table.add_column(column, justify="left" if not column else "right")
    for row in sorted(rows, key=lambda r: (-r["removed_bytes"], r["key"])):
        table.add_row(
            row["key"],
            str(row["calls"]),
            size(row["input_bytes"]),
            size(row["output_bytes"]),
            percent(row["saving"]),
            f"{row['input_tokens']:,}",
            f"{row['output_tokens']:,}",
        )
    return table


def _chart(days: list[dict[str, Any]], width: int = 40) -> Any:
    from rich.table import Table

    table = Table(title="Bytes removed per day", title_justify="left", show_edge=False)
    table.add_column("day")
    table.add_column("removed", justify="right")
    table.add_column("", no_wrap=True)
    table.add_column("saved", justify="right")
    peak = max((max(day["removed_bytes"], 0) for day in days), default=0)
    for day in days:
        table.add_row(
            day["key"],
            size(day["removed_bytes"]),
            bar(day["removed_bytes"], peak, width),
            percent(day["saving"]),
        )
    return table


def bar(value: int, peak: int, width: int) -> str:
    """A horizontal bar of ``value`` against ``peak`` in eighths of a character cell."""
    if peak <= 0 or value <= 0:
        return ""
    eighths = round(value / peak * width * 8)
    full, rest = divmod(max(eighths, 1), 8)
    return "█" * full + ("" if not rest else " ▏▎▍▌▋▊▉"[rest])


def size(count: int) -> str:
    """Bytes in a short human form (B, KB, MB, GB; 1 KB = 1024 B)."""
    value = float(count)
    for unit in ("B", "KB", "MB"):
        if abs(value) < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def percent(value: float | None) -> str:
    """A ratio as a percentage, or 'n/a' when nothing was measured."""
    return "n/a" if value is None else f"{value * 100:.1f}%"
