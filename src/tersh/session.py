"""Which agent session a call belongs to: ``$TERSH_SESSION``, else the agent process behind tersh."""

from __future__ import annotations

import os

#: Processes skipped when looking for the agent behind ``tersh``: shells and thin wrappers.
WRAPPERS = frozenset(
    {"sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "tcsh", "csh", "busybox", "env",
     "timeout", "nice", "nohup", "stdbuf", "time", "tersh"}
)
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_ID_CHARS = _ALNUM | frozenset("._:@+-")
MAX_ID = 128


def is_plain_id(text: str) -> bool:
    """Whether ``text`` may be used as a session id as it is: 1–128 of ``A-Za-z0-9._:@+-``,
    starting with a letter or digit."""
    return 0 < len(text) <= MAX_ID and text[0] in _ALNUM and _ID_CHARS.issuperset(text)


def session_id() -> str:
    """``$TERSH_SESSION`` when set, else an id of the agent process that runs tersh.

    The agent usually starts each command in a fresh shell, so the nearest ancestor that is not a
    shell or thin wrapper stands for the session; its start time makes the id unique across pid
    reuse. An env value that is not a plain id is replaced by a hash of it.
    """
    given = os.environ.get("TERSH_SESSION", "").strip()
    if given:
        if is_plain_id(given):
            return given
        import hashlib

        return "h" + hashlib.sha256(given.encode("utf-8", "replace")).hexdigest()[:16]
    pid, started = _agent_process()
    return f"p{pid}-{started}" if started else f"p{pid}"


def _agent_process() -> tuple[int, str]:
    pid = os.getppid()
    for _ in range(16):
        info = _proc_stat(pid)
        if info is None:
            return pid, ""
        name, parent, started = info
        if name not in WRAPPERS or parent <= 1:
            return pid, started
        pid = parent
    return pid, ""


def _proc_stat(pid: int) -> tuple[str, int, str] | None:
    """(command name, parent pid, start time in clock ticks) from /proc; None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read().decode("utf-8", "replace")
    except OSError:
        return None
    name = raw[raw.find("(") + 1 : raw.rfind(")")]
    fields = raw[raw.rfind(")") + 2 :].split()
    try:
        return name, int(fields[1]), fields[19]
    except (IndexError, ValueError):
        return None
