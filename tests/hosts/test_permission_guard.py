"""The rewrite guard: a rule's program anywhere in a command, or doubt, means no rewrite."""

from __future__ import annotations

from pathlib import Path

import pytest

from tersh.hosts import gemini_policy
from tersh.hosts.permission_guard import ShellRules, allows_rewrite, mentions
from tests.e2e import parity

DENY_RM = ShellRules(guarded=("rm",))

HIDDEN_RM = [
    "rm -f v",
    "/bin/rm -f v",
    "\\rm -f v",
    "'rm' -f v",
    'r""m -f v',
    "RM -f v",
    "timeout 5 rm -f v",
    "echo v | xargs rm -f",
    "find . -name v -exec rm -f {} \\;",
    "bash -c 'rm -f v'",
    "cat <<EOF\nhello\nEOF\nrm -f v",
    "python3 -c \"import os; os.system('rm v')\"",
]
DYNAMIC = ["eval 'r''m' v", "echo $(printf rm)", "X=r; ${X}m v", "echo `true`", ". ./script", "printf x | sh"]


@pytest.mark.parametrize("command", HIDDEN_RM)
def test_a_deny_rule_program_anywhere_blocks_the_rewrite(command: str) -> None:
    assert not allows_rewrite(command, DENY_RM)


@pytest.mark.parametrize("command", DYNAMIC)
def test_dynamic_commands_are_kept_while_deny_rules_exist(command: str) -> None:
    assert not allows_rewrite(command, DENY_RM)
    assert allows_rewrite(command, ShellRules())


def test_commands_no_rule_names_are_rewritten() -> None:
    for command in ("seq 1 300000", "pytest -q tests/", "ls term/ && grep -r firm ."):
        assert allows_rewrite(command, DENY_RM), command


def test_allow_rules_and_opaque_rules_block_the_rewrite() -> None:
    assert not allows_rewrite("seq 1 3", ShellRules(allowed=("seq",)))
    assert allows_rewrite("ls", ShellRules(allowed=("seq",)))
    assert not allows_rewrite("ls", ShellRules(opaque=True))
    assert not allows_rewrite("ls", ShellRules(guarded=("",)))  # a rule on every command


def test_the_wrapper_is_checked_too() -> None:
    assert not allows_rewrite("ls", ShellRules(guarded=("tersh",)), wrapped="/opt/bin/tersh run -c ls")


def test_the_guard_never_raises() -> None:
    class Broken(ShellRules):
        @property
        def opaque(self) -> bool:  # type: ignore[override]
            raise RuntimeError("boom")

    assert allows_rewrite("ls", Broken()) is False


def test_every_rm_case_of_the_parity_table_is_kept() -> None:
    for case in parity.CASES:
        command = case.command()
        if mentions(command.replace('"', "").replace("'", ""), "rm"):
            assert not allows_rewrite(command, DENY_RM), command


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def rules_for(tmp_path: Path) -> ShellRules:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir(exist_ok=True)
    return gemini_policy.shell_rules(str(work), {"HOME": str(home)})


RULE = '[[rule]]\ntoolName = {tool}\n{match}\ndecision = "{decision}"\n'


def test_gemini_policy_files_of_user_workspace_and_extensions(tmp_path: Path) -> None:
    policies = tmp_path / "home" / ".gemini" / "policies"
    write(
        policies / "a.toml",
        RULE.format(tool='"run_shell_command"', match='commandPrefix = "rm -rf"', decision="deny"),
    )
    write(
        tmp_path / "work" / ".gemini" / "policies" / "w.toml",
        RULE.format(
            tool='["run_shell_command", "glob"]', match='commandPrefix = ["git push"]', decision="ask_user"
        ),
    )
    write(
        tmp_path / "home" / ".gemini" / "extensions" / "x" / "policies" / "e.toml",
        RULE.format(tool='"*"', match='commandPrefix = "curl"', decision="deny"),
    )
    write(
        policies / "b.toml",
        RULE.format(tool='"run_shell_command"', match='commandPrefix = "seq"', decision="allow"),
    )
    write(policies / "c.toml", RULE.format(tool='"read_file"', match="", decision="deny"))
    rules = rules_for(tmp_path)
    assert sorted(rules.guarded) == ["curl", "git", "rm"]
    assert rules.allowed == ("seq",) and not rules.opaque


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (
            "home/.gemini/policies/r.toml",
            RULE.format(tool='"run_shell_command"', match='commandRegex = "r.*"', decision="deny"),
        ),
        ("home/.gemini/policies/r.toml", RULE.format(tool='"run_*"', match="", decision="deny")),
        ("home/.gemini/policies/r.toml", "[[rule]\nbroken"),
        ("home/.gemini/settings.json", '{"tools": {"allowed": ["run_shell_command(seq)"]}}'),
        ("home/.gemini/settings.json", '{"tools": {"core": ["read_file"]}}'),
        ("work/.gemini/settings.json", '{"tools": {"exclude": ["run_shell_command"]}}'),
        ("work/.gemini/settings.json", "// a comment\n{}"),
    ],
)
def test_gemini_rules_tersh_cannot_reason_about_are_opaque(tmp_path: Path, path: str, text: str) -> None:
    write(tmp_path / path, text)
    assert rules_for(tmp_path).opaque


def test_policy_paths_replace_the_user_folder(tmp_path: Path) -> None:
    write(tmp_path / "home" / ".gemini" / "settings.json", '{"policyPaths": ["~/mine"]}')
    write(
        tmp_path / "home" / "mine" / "m.toml",
        RULE.format(tool='"run_shell_command"', match='commandPrefix = "dd"', decision="deny"),
    )
    write(
        tmp_path / "home" / ".gemini" / "policies" / "u.toml",
        RULE.format(tool='"run_shell_command"', match='commandPrefix = "rm"', decision="deny"),
    )
    assert rules_for(tmp_path).guarded == ("dd",)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("-p", "go", "--yolo"), True),
        (("--approval-mode", "yolo", "--prompt=go"), True),
        (("-y", "-m", "gemini-2.5-flash", "-p", "--yolo"), True),
        (("-p", "--yolo"), False),  # "--yolo" is the prompt's text
        (("--yolo",), False),  # interactive: the user can leave YOLO at any time
        (("-p", "go"), False),
        (("-p", "go", "--approval-mode=auto_edit"), False),
        (("-p", "go", "-y", "--policy", "x.toml"), False),
        (("-i", "go", "-y"), False),
        (("-yp", "go"), False),
    ],
)
def test_only_headless_yolo_sessions_allow_rewrites(argv: tuple[str, ...], expected: bool) -> None:
    assert gemini_policy.headless_yolo(argv) is expected


def test_no_gemini_ancestor_is_found_under_pytest() -> None:
    assert gemini_policy.find_process() is None
