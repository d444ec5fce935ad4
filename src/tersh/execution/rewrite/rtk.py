"""The pinned RTK provider: find ``rtk``, verify it, cache the probe, ask ``rtk rewrite CMD``.

Discovery: the ``rtk.path`` setting, else ``PATH``. Verification: the resolved real path is a
regular executable file that others cannot write, ``rtk --version`` lies in the pinned range
``[rtk.min_version, rtk.max_version)``, and its sha256 matches ``rtk.sha256`` when that is set.
The probe (found, version, path, verified, reason, checked_at) is cached in
``state/rtk-probe.json`` and re-run only when the settings or the executable change, or on
``retry``; each fresh probe is published to the status file.

Exit codes of ``rtk rewrite``: 0 and 3 offer a candidate (stdout, one line), 1 means no
equivalent, 2 means declined; anything else, a timeout, a crash, an empty or multi-line answer
means no rewrite. An offer is checked by binding it to the verified path (it may run no command
the request did not), then used only when its RTK form has a pipe filter: the command runs
unchanged and RTK filters its complete capture, verified (``tersh.execution.rewrite.rtk_filter``).
"""

from __future__ import annotations

import os
import sys
import time

from tersh.command import classify, shell
from tersh.execution.rewrite import Proposal
from tersh.execution.rewrite.rtk_probe import PROBE_FILE as PROBE_FILE
from tersh.execution.rewrite.rtk_probe import Probe as Probe
from tersh.execution.rewrite.rtk_probe import cached as _cached
from tersh.execution.rewrite.rtk_probe import fingerprint as _fingerprint
from tersh.execution.rewrite.rtk_probe import locate as locate
from tersh.execution.rewrite.rtk_probe import probe_path as probe_path

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import subprocess
    from typing import NamedTuple

    from tersh.settings import Settings
else:
    from tersh._startup.lean import NamedTuple

NAME = "rtk"
#: How long ``rtk --version`` may take during a probe.
VERSION_TIMEOUT_S = 3.0
_CANDIDATE = 0
_NO_EQUIVALENT = 1
_DECLINED = 2
_ASK = 3


class Answer(NamedTuple):
    """What ``rtk rewrite`` said, before tersh binds it to the verified path."""

    verdict: str
    candidate: str
    reason: str


# --------------------------------------------------------------- verification


def parse_version(text: str) -> tuple[int, ...] | None:
    """``(major, minor, patch)`` from ``rtk 0.28.2`` / ``0.28.2-beta``, or None."""
    import re

    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if match is None:
        return None
    return tuple(int(part or 0) for part in match.groups())


def _unsafe_location(real: str) -> str:
    """Why ``real`` is not a trustworthy executable ('' when it is)."""
    try:
        info = os.stat(real)
    except OSError as exc:
        return f"cannot stat {real}: {exc.strerror}"
    import stat

    if not stat.S_ISREG(info.st_mode):
        return f"{real} is not a regular file"
    if not os.access(real, os.X_OK):
        return f"{real} is not executable"
    if sys.platform != "win32":
        if info.st_mode & stat.S_IWOTH:
            return f"{real} is writable by every user"
        folder = os.stat(os.path.dirname(real))
        if folder.st_mode & stat.S_IWOTH and not folder.st_mode & stat.S_ISVTX:
            return f"the folder of {real} is writable by every user"
    return ""


def _sha256(path: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def examine(candidate: str, why_missing: str, settings: Settings) -> Probe:
    """Verify ``candidate`` (runs ``rtk --version``); a missing one keeps ``why_missing``."""
    if not candidate:
        return Probe(False, "", "", False, why_missing, _now())
    real = os.path.realpath(candidate)
    unsafe = _unsafe_location(real)
    if unsafe:
        return Probe(True, "", real, False, unsafe, _now())
    pinned_sha = str(settings["rtk.sha256"]).strip().lower()
    if pinned_sha:
        try:
            actual = _sha256(real)
        except OSError as exc:
            return Probe(True, "", real, False, f"cannot read {real}: {exc.strerror}", _now())
        if actual != pinned_sha:
            return Probe(True, "", real, False, f"sha256 {actual} does not match rtk.sha256",
                         _now())
    return _check_version(real, settings)


def _check_version(real: str, settings: Settings) -> Probe:
    code, out, problem = _run([real, "--version"], VERSION_TIMEOUT_S)
    if problem:
        return Probe(True, "", real, False, f"`rtk --version` {problem}", _now())
    text = out.decode("utf-8", "replace").strip()
    first = text.splitlines()[0] if text else ""
    version = parse_version(first)
    if code != 0 or version is None:
        return Probe(True, "", real, False, f"`rtk --version` gave no version (exit {code})",
                     _now())
    shown = ".".join(map(str, version))
    low = parse_version(str(settings["rtk.min_version"])) or (0, 0, 0)
    high = parse_version(str(settings["rtk.max_version"])) or (999999, 0, 0)
    if not low <= version < high:
        pinned = f"[{settings['rtk.min_version']}, {settings['rtk.max_version']})"
        return Probe(True, shown, real, False, f"version {shown} is outside the pinned range "
                     f"{pinned}", _now())
    return Probe(True, shown, real, True, "verified", _now())


# ---------------------------------------------------------------- probe cache


def _store(probe: Probe, key: str) -> None:
    """Cache ``probe`` and publish it; failures to write never change what runs."""
    import contextlib
    import json
    from pathlib import Path

    from tersh.fsutil import atomic_write
    from tersh.settings import ensure_private_dir, state_dir

    with contextlib.suppress(Exception):  # a read-only or odd profile still runs commands
        ensure_private_dir(state_dir())
        atomic_write(Path(probe_path()), json.dumps({**probe._asdict(), "key": key}).encode())
    publish(probe)


def publish(probe: Probe) -> None:
    """Merge ``probe`` into the ``rtk`` section of the status file (when that module exists)."""
    try:
        from tersh.recording import status
    except ImportError:
        return
    import contextlib

    with contextlib.suppress(Exception):  # the status file informs; it never fails a command
        status.update("rtk", probe._asdict())


def current(settings: Settings) -> Probe:
    """The probe for the present settings and executable: cached when still valid."""
    candidate, why = locate(settings)
    key = _fingerprint(candidate, settings)
    cached = _cached(key, why)
    if cached is not None:
        return cached
    fresh = examine(candidate, why, settings)
    _store(fresh, key)
    return fresh


def retry(settings: Settings) -> Probe:
    """Probe again now, whatever the cache says (``tersh rtk retry``)."""
    candidate, why = locate(settings)
    key = _fingerprint(candidate, settings)
    fresh = examine(candidate, why, settings)
    _store(fresh, key)
    return fresh


# --------------------------------------------------------------------- asking


def _run(argv: list[str], timeout_s: float) -> tuple[int, bytes, str]:
    """Run ``argv``; return (exit code, stdout, problem) — problem is '' when it completed."""
    import subprocess

    from tersh.execution.rewrite.rtk_filter import kill

    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_quiet_env(),
            start_new_session=sys.platform != "win32",
        )
    except OSError as exc:
        return -1, b"", f"could not start ({exc.strerror or exc})"
    out, problem = _read_bounded(proc, timeout_s)
    if problem:
        kill(proc)
        return -1, b"", problem
    try:
        proc.wait(timeout=max(0.0, timeout_s))
    except subprocess.TimeoutExpired:
        kill(proc)
        return -1, b"", f"timed out after {int(timeout_s * 1000)} ms"
    if proc.returncode < 0:
        return proc.returncode, out, f"crashed (signal {-proc.returncode})"
    return proc.returncode, out, ""


def _quiet_env() -> dict[str, str]:
    from tersh.execution.rewrite.rtk_filter import quiet_env

    return quiet_env()


#: The most ``rtk`` may print for one answer (one command line); more is not an answer.
MAX_ANSWER_BYTES = 64 * 1024


def _read_bounded(proc: subprocess.Popen[bytes], timeout_s: float) -> tuple[bytes, str]:
    """``proc``'s stdout to its end: (bytes, '') or (b'', problem) past the deadline or past
    MAX_ANSWER_BYTES (a flooding provider costs tersh no memory)."""
    import select
    import time

    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + timeout_s
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(int(left * 1000) + 1):
            return b"", f"timed out after {int(timeout_s * 1000)} ms"
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks), ""
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            return b"", f"answered more than {MAX_ANSWER_BYTES} bytes"
        chunks.append(chunk)


def interpret(code: int, out: bytes) -> Answer:
    """Turn the exit code and stdout of ``rtk rewrite`` into an answer (no binding yet)."""
    if code == _NO_EQUIVALENT:
        return Answer("none", "", "rtk has no equivalent")
    if code == _DECLINED:
        return Answer("declined", "", "rtk declined the command")
    if code not in (_CANDIDATE, _ASK):
        return Answer("none", "", f"rtk rewrite exited {code}")
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError:
        return Answer("none", "", "rtk answered bytes that are not UTF-8")
    text = text.removesuffix("\n").removesuffix("\r")
    if not text.strip():
        return Answer("none", "", "rtk answered nothing")
    if any(ch in text for ch in "\n\r\0"):
        return Answer("none", "", "rtk answered more than one line")
    if any(ord(ch) < 32 and ch != "\t" for ch in text):
        return Answer("none", "", "rtk answered control characters")
    note = "rtk offered a rewrite" if code == _CANDIDATE else (
        "rtk offered a rewrite (exit 3: the host still decides permissions)")
    return Answer("rewritten", text, note)


def bind(candidate: str, requested: str, rtk_path: str) -> tuple[str, str]:
    """Point every ``rtk`` of ``candidate`` at ``rtk_path``: (executed, '') or ('', reason).

    Refused: an answer the lexer cannot model, an ``rtk`` it cannot locate in the text, or any
    other command the request did not contain (RTK picks a form; it never adds commands).
    """
    script = shell.parse(candidate)
    if script.problems:
        return "", f"rtk's answer cannot be modelled: {script.problems[0]}"
    allowed = {c.words for c in shell.parse(requested).commands}
    spans: list[tuple[int, int]] = []
    for command in script.commands:
        if command.words and classify.basename(command.words[0]) == "rtk":
            if command.first_span is None or command.nested:
                return "", "rtk's answer runs rtk where tersh cannot pin it"
            spans.append(command.first_span)
        elif command.words not in allowed:
            return "", f"rtk's answer runs {command.words[0]!r}, which the request did not"
    if not spans:
        return "", "rtk's answer does not run rtk"
    executed = candidate
    for start, end in sorted(spans, reverse=True):
        executed = executed[:start] + shell.quote(rtk_path) + executed[end:]
    return executed, ""


def ask(command: str, probe: Probe, timeout_ms: int) -> Answer:
    """Run ``rtk rewrite COMMAND`` through the verified path with a timeout."""
    code, out, problem = _run([probe.path, "rewrite", command], max(timeout_ms, 1) / 1000)
    if problem:
        return Answer("none", "", f"rtk rewrite {problem}")
    return interpret(code, out)


def propose(command: str, settings: Settings) -> Proposal:
    """The provider entry point: probe (cached), ask, bind to the verified path."""
    probe = current(settings)
    if not probe.verified:
        return Proposal("skipped", reason=f"rtk unavailable: {probe.reason}")
    answer = ask(command, probe, settings.int("rtk.timeout_ms"))
    if answer.verdict != "rewritten":
        return Proposal(answer.verdict, reason=answer.reason)
    if answer.candidate.strip() == command.strip():
        return Proposal("none", reason="rtk answered the command unchanged")
    _, refusal = bind(answer.candidate, command, probe.path)  # RTK may add no command
    if refusal:
        return Proposal("failed", reason=refusal)
    from tersh.execution.rewrite import rtk_filter

    pipe_filter = rtk_filter.filter_for(answer.candidate)
    if not pipe_filter:  # RTK 1.1 could not give the full output of its form: not used
        return Proposal("none", answer.candidate, reason=f"rtk offered {answer.candidate!r}, which has "
                        "no pipe filter: its full output could not be kept, so tersh compacts it")
    return Proposal("filtered", answer.candidate, command,
                    f"{answer.reason}; tersh runs it unchanged and verifies `rtk pipe -f {pipe_filter}`",
                    pipe_filter)
