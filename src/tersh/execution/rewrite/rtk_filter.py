"""RTK's filters held to tersh's verifier: ``rtk pipe -f FILTER`` over the complete capture.

RTK 1.1 keeps the full output of a run it filtered only when the run failed with at least 500
bytes of output (``rtk recall``; a passing ``rtk pytest`` leaves nothing to recall, in tee mode
with ``tee_on_success`` too). A command run in its RTK form would lose its full output whenever it
succeeds, and tersh never runs a command twice. So tersh runs the requested command itself — the
capture holds every byte — and has RTK filter that capture with the filter of the RTK form RTK
offered (``rtk pytest -q`` -> ``rtk pipe -f pytest``). The verifier then checks RTK's text against
the capture like any rule's proposal; a refused text gives way to tersh's own compaction.

An RTK form with no pipe filter (``rtk git branch``, ``rtk ls``, ``rtk read``) is not used: RTK
could not give its full output. RTK's own chatter (``[rtk] …`` notes such as the hook warning,
the telemetry notice, recovery hints into RTK's store) never reaches the model text: every call
runs with RTK's warnings, telemetry and recall store switched off, and such lines are removed.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import subprocess

    from tersh.compaction.kit.base import Invocation

#: How long ``rtk pipe`` may take over one capture (the command has run already).
PIPE_TIMEOUT_S = 5.0
#: The words after ``rtk`` in an RTK form -> its ``rtk pipe -f`` filter (RTK 1.1.0's list, from
#: ``rtk pipe -f unknown``). Search and lossy git forms are absent on purpose: the policy never
#: lets them near RTK, and they stay out of this table too.
PIPE_FILTERS: dict[tuple[str, ...], str] = {
    ("pytest",): "pytest",
    ("cargo", "test"): "cargo-test",
    ("go", "test"): "go-test",
    ("go", "build"): "go-build",
    ("ctest",): "ctest",
    ("tsc",): "tsc",
    ("vitest",): "vitest",
    ("mypy",): "mypy",
    ("ruff", "check"): "ruff-check",
    ("ruff", "format"): "ruff-format",
    ("git", "status"): "git-status",
    ("prettier",): "prettier",
    ("sqlfluff", "lint"): "sqlfluff-lint",
    ("phpunit",): "phpunit",
    ("pest",): "pest",
    ("paratest",): "paratest",
    ("phpstan",): "phpstan",
    ("pint",): "pint",
    ("ecs",): "ecs",
}
#: Variables that keep RTK quiet and local: no hook warning, no telemetry, no recall store
#: (tersh's capture is the store). Names from RTK 1.1.0's own messages and sources.
QUIET_ENV = {
    "RTK_SUPPRESS_HOOK_WARNING": "1",
    "RTK_TELEMETRY_DISABLED": "1",
    "RTK_RECALL": "0",
}
_CHATTER_PREFIXES = ("[rtk] ", "[full output: ", "Telemetry enabled. ")


class Filtered(NamedTuple):
    """What became of RTK's text for one capture.

    ``outcome`` is ``accepted`` (``text`` is RTK's, verified), ``refused`` (the verifier said
    no; ``reason`` says why) or ``failed`` (RTK gave no usable text).
    """

    outcome: str
    text: str
    reason: str
    rtk_bytes: int


def quiet_env() -> dict[str, str]:
    """The environment for every call of RTK: the caller's, with :data:`QUIET_ENV` on top."""
    return {**os.environ, **QUIET_ENV}


def filter_for(candidate: str) -> str:
    """The pipe filter for RTK's answer ``candidate`` ('' when it has none or runs rtk twice)."""
    from tersh.command import classify, shell

    script = shell.parse(candidate)
    if script.problems:
        return ""
    forms = [c.words for c in script.commands if c.words and classify.basename(c.words[0]) == "rtk"]
    if len(forms) != 1:
        return ""
    words = tuple(forms[0][1:])
    return PIPE_FILTERS.get(words[:2]) or PIPE_FILTERS.get(words[:1]) or ""


def is_chatter(line: str) -> bool:
    """Whether ``line`` is RTK talking about itself rather than the command's output."""
    if line.startswith(_CHATTER_PREFIXES):
        return True
    stripped = line.strip()
    return stripped.startswith("[+") and " hidden: rtk recall " in stripped


def without_chatter(text: str) -> str:
    """``text`` without RTK's own notes (see :func:`is_chatter`)."""
    return "\n".join(line for line in text.split("\n") if not is_chatter(line))


def run_pipe(
    rtk_path: str, name: str, data: bytes, timeout_s: float = PIPE_TIMEOUT_S
) -> tuple[str | None, str]:
    """``(text, '')`` from ``rtk pipe -f NAME`` over ``data``, or ``(None, problem)``."""
    import subprocess

    try:
        proc = subprocess.Popen(
            [rtk_path, "pipe", "-f", name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=quiet_env(),
            start_new_session=sys.platform != "win32",
        )
    except OSError as exc:
        return None, f"rtk pipe could not start ({exc.strerror or exc})"
    try:
        out, _ = proc.communicate(data, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill(proc)
        return None, f"rtk pipe timed out after {timeout_s:g} s"
    except OSError as exc:  # RTK closed its input early (a crash mid-read)
        proc.kill()
        proc.wait()
        return None, f"rtk pipe failed ({exc.strerror or exc})"
    if proc.returncode != 0:
        return None, f"rtk pipe -f {name} exited {proc.returncode}"
    try:
        return out.decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "rtk pipe answered bytes that are not UTF-8"


def kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc`` and everything it started, then reap it without waiting on its pipes."""
    import signal

    try:
        if sys.platform != "win32":
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows only
            proc.kill()
    except OSError:
        pass
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    import contextlib

    with contextlib.suppress(Exception):  # a child we cannot reap is the kernel's business
        proc.wait(timeout=1.0)


def check(source: str, rtk_text: str, inv: Invocation) -> Filtered:
    """Hold RTK's text to the verifier against ``source`` (the cleaned complete output)."""
    from tersh.compaction.clean import clean
    from tersh.compaction.verify import holds as verify

    text = without_chatter(clean(rtk_text)).strip("\n")
    size = len(text.encode("utf-8", "surrogateescape"))
    if not text.strip():
        return Filtered("refused", "", "rtk's text is empty", size)
    reason = verify.refusal(source, text, inv)
    if reason:
        return Filtered("refused", "", reason, size)
    return Filtered("accepted", text, "", size)


def apply(rtk_path: str, name: str, data: bytes, source: str, inv: Invocation) -> Filtered:
    """Filter ``data`` (the complete output) through RTK and verify the text against ``source``."""
    text, problem = run_pipe(rtk_path, name, data)
    if text is None:
        return Filtered("failed", "", problem, 0)
    return check(source, text, inv)
