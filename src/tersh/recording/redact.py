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

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    import re

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


_COMPILED: list[tuple[re.Pattern[str], str]] = []


def _patterns() -> list[tuple[re.Pattern[str], str]]:
    """The compiled patterns and their replacements (compiled on first use)."""
    import re

    if not _COMPILED:
        value = r"""(?:'[^']*'|"[^"]*"|[^\s'"]+)"""
        secret_name = (r"(?:[\w.-]*[_.-])?(?:key|token|secret|passw(?:or)?d|pass|credentials?|auth)"
                       r"(?:[_.-][\w.-]*)?")  # a whole part of the name: KEYBOARD, --author stay
        mysql = r"(?:mysql\w*|mariadb\w*)"
        _COMPILED.extend([
            (re.compile(r"(?i)\b((?:proxy-)?authorization|cookie|x-api-key|api-key|x-auth-token"
                        r"|private-token)(\s*:\s*)([^'\"\n]+)"), rf"\1\2{MARK}"),
            (re.compile(r"(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]{6,})"), rf"\1\2{MARK}"),
            (re.compile(rf"(?i)(?<![\w-])(--?{secret_name})(=|\s+)(?!-){value}"), rf"\1\2{MARK}"),
            (re.compile(rf"(?i)(?<![\w-])({secret_name})=({value})"), rf"\1={MARK}"),
            (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@'\"]*:)([^@\s/'\"]+)@"), rf"\1{MARK}@"),
            (re.compile(rf"(?<!\S)(-u|--user)(\s+|=)([^\s:'\"]+):{value}"), rf"\1\2\3:{MARK}"),
            (re.compile(rf"(?i)(\b{mysql}\b[^|;&]*?\s-p)[^\s]+"), rf"\1{MARK}"),  # `-p x`: a prompt
            (re.compile(r"(?i)(\bsshpass\s+-p)(\s*)(?!-)\S+"), rf"\1\2{MARK}"),
            (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{20,}"
                        r"|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,})\b"),
             MARK),
        ])
    return _COMPILED
