"""Secrets on command lines never reach a store: the capture index and meta files, the ledger
(with or without ledger.record_arguments) and the page's /api/captures. The captured output
itself is the user's data and stays whole."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from tersh.recording import redact
from tersh.recording.redact import SHAPES, command_line, expansion
from tersh.ui.server import create_app
from tests.faults.support import set_mode, tersh

#: (command line, the secret it carries): the shapes the redaction promises to know.
SECRET_COMMANDS = [
    ("curl -s -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.s3cr3tpart' http://127.0.0.1:9/", "s3cr3tpart"),
    ("env API_KEY=k3y-v4lue-0001 true", "k3y-v4lue-0001"),
    ("GITHUB_TOKEN=ghp_0123456789abcdefABCDEF0123 true", "ghp_0123456789abcdefABCDEF0123"),
    ("true mysql -uroot -phunter2pass db", "hunter2pass"),
    ("true --password=pa55w0rd-x", "pa55w0rd-x"),
    ("true --token tok-9988776655", "tok-9988776655"),
    ("true https://alice:pw-in-url-77@example.invalid/repo.git", "pw-in-url-77"),
    ("true -u bob:pw-basic-66 http://x.invalid", "pw-basic-66"),
    ("DB_SECRET='two words' true", "two words"),
    ("true AKIAABCDEFGHIJKLMNOP", "AKIAABCDEFGHIJKLMNOP"),
]


@pytest.mark.parametrize(("command", "secret"), SECRET_COMMANDS)
def test_a_known_secret_shape_is_redacted(command: str, secret: str) -> None:
    redacted = command_line(command)
    assert secret not in redacted and "[REDACTED]" in redacted


@pytest.mark.parametrize(
    "command",
    [
        "ls -la src",
        "make KEYBOARD=us",
        "git log --author=ann",
        "mysql -u root -p shop",
        "ssh -p 2222 host",
        "grep -r token src",
    ],
)
def test_ordinary_command_lines_are_stored_as_they_are(command: str) -> None:
    assert command_line(command) == command


def _plain_redaction(text: str) -> str:
    """What ``command_line`` does, by ``re.sub`` with the shapes' templates."""
    lowered = text.lower()
    if any(hint in lowered for hint in redact._HINTS):
        for pattern, template in SHAPES:
            text = re.sub(pattern, template, text)
    return text


_PIECES = st.sampled_from([
    " ", "=", ":", "@", "'", '"', "-p", "-u ", "--user=", "--token ", "--api-key=", "API_KEY",
    "Authorization: ", "Bearer ", "basic ", "https://", "ann:pw", "mysql ", "sshpass -p ",
    "ghp_0123456789abcdefABCDEF", "AKIAABCDEFGHIJKLMNOP", "sk-", "x" * 21, "value-42", "|", ";",
])


@given(st.lists(_PIECES, max_size=14).map("".join))
def test_the_redaction_equals_re_sub_with_its_templates(command: str) -> None:
    assert command_line(command) == _plain_redaction(command)


@pytest.mark.parametrize("template", [template for _, template in SHAPES] + ["a\\1b\\2", "plain"])
def test_an_expansion_is_what_re_puts_for_its_template(template: str) -> None:
    pattern = re.compile(r"(\w)(\d)?(-)?")
    for text in ("a1-", "b", "c2", "x-y"):
        assert pattern.sub(expansion(template), text) == pattern.sub(template, text)


def _all_stored_bytes(home: Path) -> bytes:
    """Every byte of the profile's stores except the captured output files themselves."""
    data = b""
    for path in home.rglob("*"):
        if path.is_file() and path.name not in ("combined", "stdout", "stderr"):
            data += path.read_bytes()
    return data


@pytest.mark.parametrize("record_arguments", ["false", "true"])
def test_no_store_keeps_a_secret_from_a_command_line(record_arguments: str) -> None:
    home = Path(os.environ["TERSH_HOME"])
    set_mode("enabled")
    assert tersh(["settings", "set", "ledger.record_arguments", record_arguments]).returncode == 0
    for command, _ in SECRET_COMMANDS:
        assert tersh(["run", "-c", command]).returncode in (0, 7)  # curl to a closed port: 7
    assert tersh(["gain"]).returncode == 0  # folds the spool into the ledger
    assert tersh(["retrieve", "c000000000000", "--query", "x"]).returncode != 0  # opens the index
    stored = _all_stored_bytes(home)
    assert b"[REDACTED]" in stored, "nothing was stored: the test proves nothing"
    for _, secret in SECRET_COMMANDS:
        assert secret.encode() not in stored, secret
    with TestClient(create_app(token="t" * 40, port=8123), base_url="http://127.0.0.1:8123") as client:
        listed = client.get("/api/captures", headers={"X-Tersh-Token": "t" * 40}).json()
    assert len(listed) == len(SECRET_COMMANDS)
    for _, secret in SECRET_COMMANDS:
        assert all(secret not in row["command"] for row in listed), secret


def test_the_captured_output_itself_stays_whole() -> None:
    set_mode("enabled")
    done = tersh(["run", "-c", "echo token=visible-output-123"])
    assert b"visible-output-123" in done.stdout
    store = Path(os.environ["TERSH_HOME"]) / "captures"
    (folder,) = [p for p in store.iterdir() if p.is_dir() and not p.name.startswith(".")]
    assert (folder / "combined").read_bytes() == b"token=visible-output-123\n"
