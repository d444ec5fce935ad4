"""What a stored command line may hold: everything but the well-known shapes of a secret.

Captures keep what a command printed (the user's own data, private to the profile), but the
command line itself is also written to the capture index, the capture's ``meta`` file, the
ledger (with ``ledger.record_arguments``) and the page's capture list, so every store takes it
through :func:`command_line` first. What is replaced by ``[REDACTED]``:

- HTTP credential headers: ``Authorization: …``, ``Proxy-Authorization``, ``Cookie``,
  ``X-Api-Key``, ``Api-Key``, ``X-Auth-Token``, ``Private-Token`` (the value up to the quote);
- ``Bearer …`` / ``Basic …`` credentials anywhere;
- assignments and options whose name says secret: ``API_KEY=…``, ``GITHUB_TOKEN=…``,
  ``DB_PASSWORD=…``, ``--password=…``, ``--token …``, ``--api-key …``, ``--client-secret …``;
- the password of ``user:password@`` in URLs and of ``-u user:password`` / ``--user``;
- ``-p<password>`` of the MySQL/MariaDB clients (``-p`` alone prompts) and ``sshpass -p``;
- token shapes providers document: GitHub ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` and
  ``github_pat_``, GitLab ``glpat-``, Slack ``xox?-``, AWS access key ids ``AKIA…``, and
  ``sk-…`` API keys.
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

MARK = "[REDACTED]"

# Cheap test first: `re` is not imported on the start-up path for the usual command line.
_HINTS = ("=", "@", "-p", "-u", "auth", "bearer", "basic", "token", "key", "secret", "pass",
          "cookie", "gh", "xox", "akia", "sk-", "glpat")


def command_line(text: str) -> str:
    """``text`` with every secret shape this module knows replaced by ``[REDACTED]``."""
    lowered = text.lower()
    if not any(hint in lowered for hint in _HINTS):
        return text
    for pattern, replacement in _patterns():
        text = pattern.sub(replacement, text)
    return text


_COMPILED: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = []


def expansion(template: str) -> Callable[[re.Match[str]], str]:
    r"""What ``re``'s ``sub`` puts in place of a match for ``template``: its ``\N`` group references
    (a group that did not take part: nothing) and literal text. A function does this without the
    ``re`` module, which a template with a backslash would import (milliseconds of every call that
    stores a command line). Only ``\1``-``\9`` references and text without other backslashes."""
    pieces: list[str | int] = []
    rest = template
    while "\\" in rest:
        text, _, rest = rest.partition("\\")
        if not rest[:1].isdigit() or rest[:1] == "0":
            raise ValueError(f"unsupported template {template!r}")
        pieces.extend([text, int(rest[0])] if text else [int(rest[0])])
        rest = rest[1:]
    if rest:
        pieces.append(rest)

    def expand(match: re.Match[str]) -> str:
        return "".join(piece if isinstance(piece, str) else match.group(piece) or ""
                       for piece in pieces)

    return expand


def _patterns() -> list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]]:
    """The patterns and their replacements (compiled on first use, without importing ``re``)."""
    if not _COMPILED:
        _COMPILED.extend((lazy(pattern), expansion(template)) for pattern, template in SHAPES)
    return _COMPILED


_VALUE = r"""(?:'[^']*'|"[^"]*"|[^\s'"]+)"""
_SECRET_NAME = (r"(?:[\w.-]*[_.-])?(?:key|token|secret|passw(?:or)?d|pass|credentials?|auth)"
                r"(?:[_.-][\w.-]*)?")  # a whole part of the name: KEYBOARD, --author stay
_MYSQL = r"(?:mysql\w*|mariadb\w*)"

#: (pattern, ``re.sub`` template) of every secret shape, in the order they are replaced.
SHAPES: tuple[tuple[str, str], ...] = (
    (r"(?i)\b((?:proxy-)?authorization|cookie|x-api-key|api-key|x-auth-token"
     r"|private-token)(\s*:\s*)([^'\"\n]+)", rf"\1\2{MARK}"),
    (r"(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]{6,})", rf"\1\2{MARK}"),
    (rf"(?i)(?<![\w-])(--?{_SECRET_NAME})(=|\s+)(?!-){_VALUE}", rf"\1\2{MARK}"),
    (rf"(?i)(?<![\w-])({_SECRET_NAME})=({_VALUE})", rf"\1={MARK}"),
    (r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@'\"]*:)([^@\s/'\"]+)@", rf"\1{MARK}@"),
    (rf"(?<!\S)(-u|--user)(\s+|=)([^\s:'\"]+):{_VALUE}", rf"\1\2\3:{MARK}"),
    (rf"(?i)(\b{_MYSQL}\b[^|;&]*?\s-p)[^\s]+", rf"\1{MARK}"),  # `-p x`: a prompt
    (r"(?i)(\bsshpass\s+-p)(\s*)(?!-)\S+", rf"\1\2{MARK}"),
    (r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{20,}"
     r"|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,})\b", MARK),
)
