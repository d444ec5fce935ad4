"""What tersh may do with a command string (SPEC §1 "Policy"); nothing is executed here.

``decide(command)`` answers four questions: did the user bypass tersh (``# no-opt``)? does the
command ask for machine-readable output (then nothing is filtered)? may a rewrite provider be
asked (not for searches, lossy git forms, a pipe on Windows, or anything the lexer cannot model)?
which per-class switches does it touch? ``analyze`` is the same walk, reused for RTK's answers.
"""

from __future__ import annotations

import sys

from tersh._startup.lazyre import IGNORECASE, lazy
from tersh.command import classify, shell
from tersh.settings import CLASSES

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NamedTuple

    from tersh.settings import Settings
else:
    from tersh._startup.lean import NamedTuple

BYPASS_MARKER = "# no-opt"

#: Git subcommands whose RTK forms drop commit messages or hunks: never rewritten.
LOSSY_GIT = frozenset({"log", "diff", "show", "whatchanged", "range-diff", "difftool"})
#: The order classes are reported in.
CLASS_ORDER = CLASSES

_MACHINE_FLAGS = frozenset(
    {"--json", "--porcelain", "-json", "--jq", "--xml", "--ndjson", "--jsonl", "--json-lines",
     "--yaml", "--sarif", "--json-output", "--machine-readable", "--machine", "--raw-json"}
)
_MACHINE_PREFIXES = ("--json=", "--porcelain=", "--jq=", "-json=")
_FORMAT_OPTIONS = frozenset(
    {"--format", "--output", "--output-format", "--out-format", "--reporter", "--message-format",
     "--error-format", "--log-format", "--report-format", "--formatter", "--outputformat",
     "--output-type", "--format-type", "--pretty", "-o", "--printer", "--emit"}
)
_SHORT_FORMAT_OPTIONS = {"-f": frozenset({"eslint", "stylelint", "rubocop", "ansible-lint",
                                          "tflint", "phpcs", "phpstan", "golangci-lint"}),
                         "-R": frozenset({"mocha"}), "-F": frozenset({"hadolint"}),
                         "-O": frozenset({"mypy"})}
#: Build tools whose ``--output`` names a format (mypy's ``--output json``), not a file.
_OUTPUT_IS_A_FORMAT = frozenset({"mypy", "dmypy"})
#: Programs that use ``-o``/``--output`` for an output file, not a format.
_OUTPUT_IS_A_FILE = frozenset(
    {"curl", "wget", "sort", "tar", "zip", "unzip", "ssh", "scp", "rsync", "ffmpeg", "pandoc",
     "convert", "magick", "openssl", "gpg", "dd", "split", "xxd", "base64"}
)
_MACHINE_VALUE = (
    r"^(?:json\w*|jsonl|ndjson|json-[\w-]+|jsonpath[\w-]*|yaml|yml|xml|junit[\w-]*|checkstyle"
    r"|sarif|csv|tsv|go-template[\w-]*|template|custom-columns[\w-]*|tformat|format)(?:[=:,].*)?$"
)
_machine_value = lazy(_MACHINE_VALUE, IGNORECASE)  # compiled on first use, without ``re``


def _is_machine_value(value: str) -> bool:
    """A format name that makes output a document (``json``, ``yaml``, ``jsonpath=…``…)."""
    return _machine_value.match(value) is not None
#: Programs whose output is always a document (JSON…).
_MACHINE_PROGRAMS = frozenset({"jq", "yq", "gojq", "jaq", "jc", "json_pp", "json.tool", "jo"})
_MACHINE_SUBCOMMANDS = frozenset(
    {("pip", "inspect"), ("pip3", "inspect"), ("cargo", "metadata"), ("cargo", "read-manifest"),
     ("docker", "inspect"), ("podman", "inspect"), ("gh", "api"), ("npm", "query"),
     ("kubectl", "get-raw"), ("terraform", "output")}
)


class Decision(NamedTuple):
    """The policy's answer for one command string."""

    command: str  # the command to execute (the marker stripped when that is safe)
    bypass: bool  # the user asked for no optimisation (`# no-opt`)
    machine_readable: bool  # output is a document: no filtering at all
    rewritable: bool  # a rewrite provider may be asked
    reason: str  # why not rewritable / why bypassed ('' when nothing applies)
    classes: tuple[str, ...] = ()  # the per-class switch names the command touches
    programs: tuple[str, ...] = ()  # the real programs found (after wrappers), in source order


class Analysis(NamedTuple):
    """Everything the policy reads off a command string."""

    script: shell.Script
    classes: tuple[str, ...]
    programs: tuple[str, ...]
    machine: str  # the machine-readable request found ('' if none)
    search: str  # the search program found ('' if none)
    lossy_git: str  # e.g. 'git log' ('' if none)
    runs_rtk: bool
    problems: tuple[str, ...]
    compound: tuple[str, ...]


def machine_request(words: Sequence[str]) -> str:
    """The argument that asks ``words`` (an unwrapped command) for a document, or ''."""
    if not words:
        return ""
    program = classify.basename(words[0])
    if program in _MACHINE_PROGRAMS:
        return program
    sub = classify.subcommand(words[1:], program)
    if (program, sub) in _MACHINE_SUBCOMMANDS:
        return f"{program} {sub}"
    output_is_file = program in _OUTPUT_IS_A_FILE or (
        classify.classify(words) == classify.BUILDS and program not in _OUTPUT_IS_A_FORMAT)
    args = words[1:]
    for position, arg in enumerate(args):
        if arg[:1] != "-":
            continue
        if arg in _MACHINE_FLAGS or arg.startswith(_MACHINE_PREFIXES):
            return arg
        if program == "git" and arg in {"-z", "--null"}:
            return arg
        option, eq, value = arg.partition("=")
        if not eq and arg.startswith("-o") and len(arg) > 2 and not arg.startswith("--"):
            option, value = "-o", arg[2:]
        elif not eq:
            value = args[position + 1] if position + 1 < len(args) else ""
        if option in ("-o", "--output") and output_is_file:
            continue
        if option in _FORMAT_OPTIONS or program in _SHORT_FORMAT_OPTIONS.get(option, ()):
            if "{{" in value or _is_machine_value(value):
                return f"{option} {value}"
            if option in ("--format", "--pretty") and "%" in value:
                return f"{option} {value}"
    return ""


class _Findings:
    """Mutable collector for one ``analyze`` walk."""

    __slots__ = ("classes", "compound", "lossy_git", "machine", "problems", "programs",
                 "runs_rtk", "search")

    def __init__(self, script: shell.Script) -> None:
        self.classes: set[str] = set()
        self.programs: list[str] = []
        self.machine = ""
        self.search = ""
        self.lossy_git = ""
        self.runs_rtk = False
        self.problems: list[str] = list(script.problems)
        self.compound: list[str] = list(script.compound)

    def add(self, words: list[str], downstream: bool) -> None:
        program = classify.basename(words[0])
        self.programs.append(program)
        cls = "" if downstream and program in classify.FILTERS else classify.classify(words)
        if cls:
            self.classes.add(cls)
        if not self.search:
            self.search = classify.search_program(words) or ""
        if program == "git" and not self.lossy_git:
            sub, rest = classify.git_subcommand(words[1:])
            if sub in LOSSY_GIT or (sub == "stash" and rest[:1] == ["show"]):
                self.lossy_git = f"git {sub}"
        if not self.machine:
            self.machine = machine_request(words)


def _walk(script: shell.Script, found: _Findings, depth: int) -> None:
    for command in script.commands:
        crossed: list[str] = []
        words = classify.unwrap(command.words, crossed)
        if "rtk" in crossed:
            found.runs_rtk = True
        if not words:
            continue
        script_text = classify.inline_script(words)
        if script_text is not None and depth < 4:
            inner = shell.parse(script_text)
            found.problems.extend(inner.problems)
            found.compound.extend(inner.compound)
            _walk(inner, found, depth + 1)
            continue
        found.add(words, command.stage > 0)


def analyze(command: str, script: shell.Script | None = None) -> Analysis:
    """Lex ``command`` (unless ``script`` is its lexed form already) and read off classes,
    programs, searches, lossy git and documents."""
    if script is None:
        script = shell.parse(command)
    found = _Findings(script)
    _walk(script, found, 0)
    return Analysis(
        script,
        tuple(name for name in CLASS_ORDER if name in found.classes),
        tuple(found.programs),
        found.machine,
        found.search,
        found.lossy_git,
        found.runs_rtk,
        tuple(found.problems),
        tuple(found.compound),
    )


def _bypass(command: str, script: shell.Script) -> tuple[bool, str]:
    """Whether ``command`` ends with the bypass marker, and the command to run."""
    if script.comment is not None and script.comment.strip().lower() == "no-opt":
        start = script.comment_start
        if start > 0 and not script.problems and not script.heredocs:
            stripped = command[:start].rstrip()
            if stripped and shell.parse(stripped).commands == script.commands:
                return True, stripped
        return True, command
    if script.problems and command.rstrip().endswith(BYPASS_MARKER):
        return True, command  # cannot tell a comment from text: honour the request
    return False, command


def _not_rewritable(found: Analysis, platform: str) -> str:
    """Why no rewrite provider may be asked ('' when one may)."""
    script = found.script
    if not script.commands:
        return "empty command"
    if found.problems:
        return f"cannot model the command: {found.problems[0]}"
    if found.search:
        return f"search command ({found.search}): matches must stay whole"
    if found.lossy_git:
        return f"lossy git form ({found.lossy_git}) is never rewritten"
    if platform.startswith(("win", "cygwin", "msys")) and script.pipes:
        return "pipe on Windows: never rewritten"
    if script.heredocs:
        return "here-document: not rewritable"
    if "\n" in script.operators:
        return "multi-line command: not rewritable"
    if found.compound:
        return f"compound command ({found.compound[0]}): not rewritable"
    if found.runs_rtk:
        return "already runs rtk"
    return ""


def decide(
    command: str, *, settings: Settings | None = None, platform: str | None = None,
    script: shell.Script | None = None,
) -> Decision:
    """Classify ``command`` (never executes anything).

    ``settings`` adds the per-class switches (a command touching a switched-off class is not
    rewritable); ``platform`` defaults to ``sys.platform`` (Windows: no rewrite of a pipe);
    ``script`` is ``command`` lexed already (``tersh.command.parsed``), so it is not lexed again.
    """
    found = analyze(command, script)
    bypass, runnable = _bypass(command, found.script)
    if bypass:
        return Decision(runnable, True, False, False, "bypass marker", found.classes,
                        found.programs)
    if found.machine:
        reason = f"machine-readable output requested ({found.machine})"
        return Decision(command, False, True, False, reason, found.classes, found.programs)
    reason = _not_rewritable(found, platform or sys.platform)
    if not reason and settings is not None:
        off = [name for name in found.classes if not settings.class_enabled(name)]
        if off:
            reason = f"class switched off: {', '.join(off)}"
    return Decision(command, False, False, not reason, reason, found.classes, found.programs)
