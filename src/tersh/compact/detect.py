"""Find the real program behind a command line: wrappers, env prefixes, chains and runners.

``python -m pytest -q`` -> ``pytest``; ``uv run pytest`` -> ``pytest``; ``npx tsc`` -> ``tsc``;
``env X=1 timeout 60 cargo test`` -> ``cargo``; ``cd web && npm test`` -> ``npm``. For a chain,
the last simple command decides (its output is usually the one that matters).
"""

from __future__ import annotations

import os
import re
import shlex

from tersh.compact.base import Invocation

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_CHAIN = re.compile(r"\s*(?:&&|\|\||;|\|&|\|)\s*")
# Wrappers whose own options are skipped before the wrapped program.
_WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "sudo": frozenset({"-u", "--user", "-g", "--group", "-C", "-D", "-h", "-p", "-U", "-r", "-t"}),
    "command": frozenset(),
    "exec": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xvfb-run": frozenset({"-a", "-s", "--server-args", "-n"}),
    "npx": frozenset({"-p", "--package", "-c"}),
    "bunx": frozenset(),
    "pnpx": frozenset(),
    "uvx": frozenset({"--from", "--with", "-p", "--python"}),
    "pipx": frozenset(),
}
_RUNNERS = {("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"), ("hatch", "run"),
            ("pnpm", "exec"), ("yarn", "exec"), ("npm", "exec"), ("bundle", "exec"),
            ("pipx", "run"), ("rye", "run"), ("conda", "run")}
_RUNNER_OPTS_WITH_VALUE = frozenset({"--with", "-p", "--python", "--project", "--directory",
                                     "-n", "--name", "--env", "-e", "--package", "--from"})
_PYTHONS = re.compile(r"^(?:python|pypy)(?:\d+(?:\.\d+)?)?$")
_TIMEOUT_DURATION = re.compile(r"^\d+(?:\.\d+)?[smhd]?$")


def _split(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return command.split()


def last_simple_command(command: str) -> list[str]:
    """The words of the last simple command of a chain or pipeline (best effort)."""
    words = _split(command)
    current: list[str] = []
    for word in words:
        if word in {"&&", "||", ";", "|", "|&", "&"}:
            current = [] if word != "|" else current
            if word == "|":
                # In a pipeline the first stage produces the interesting output.
                return current or _first_after_pipe(words)
            continue
        current.append(word)
    return [w for w in current if w not in {"(", ")", "{", "}"}] or words


def _first_after_pipe(words: list[str]) -> list[str]:
    return [w for w in words if w not in {"|"}]


def unwrap(words: list[str]) -> list[str]:
    """Strip env assignments, wrappers and runners until the real program leads."""
    index = 0
    while index < len(words):
        word = words[index]
        base = os.path.basename(word)
        if _ASSIGNMENT.match(word):
            index += 1
            continue
        if base in _WRAPPERS:
            index += 1
            options = _WRAPPERS[base]
            while index < len(words) and (words[index].startswith("-") or _ASSIGNMENT.match(words[index])):
                index += 2 if words[index] in options else 1
            if base == "timeout" and index < len(words) and _TIMEOUT_DURATION.match(words[index]):
                index += 1
            continue
        if index + 1 < len(words) and (base, words[index + 1]) in _RUNNERS:
            index += 2
            while index < len(words) and words[index].startswith("-"):
                index += 2 if words[index] in _RUNNER_OPTS_WITH_VALUE else 1
            if index < len(words) and words[index] == "--":
                index += 1
            continue
        if _PYTHONS.match(base) and index + 2 < len(words) and words[index + 1] == "-m":
            return [words[index + 2], *words[index + 3 :]]
        return words[index:]
    return []


def invocation(command: str, exit_code: int) -> Invocation:
    """The Invocation for ``command``: real program (base name, lower case) and its arguments."""
    words = unwrap(last_simple_command(command))
    if not words:
        return Invocation(command, "", (), exit_code)
    program = os.path.basename(words[0]).lower()
    if program.endswith(".exe"):
        program = program[:-4]
    return Invocation(command, program, tuple(words[1:]), exit_code)
