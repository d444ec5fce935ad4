"""Full-line comment stripping by file type, for the "minimal" read strategy.

Only unambiguous comment lines go: a line whose first non-blank text starts a line comment
(``#``, ``//``, ``--``, ``;``, ``%``) or that lies wholly inside a block comment (``/* … */``,
``<!-- … -->``, ``--[[ … ]]``). Kept on purpose: doc comments (``///``, ``//!``, ``/** … */``),
a shebang, tool directives (``# type: ignore``, ``//go:build``, ``# syntax=…``, ``// eslint-…``),
and any line inside a string that only looks like a comment (Python triple quotes, JS/Go
backtick strings, shell here-documents, YAML block scalars). Unknown file types are not touched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple


class Style(NamedTuple):
    """How one family of languages writes comments and verbatim text."""

    line: tuple[str, ...]
    blocks: tuple[tuple[str, str], ...] = ()
    doc: tuple[str, ...] = ()
    verbatim: str = ""  # "python" | "backtick" | "heredoc" | "yaml" | ""


HASH = Style(line=("#",))
PYTHON = Style(line=("#",), verbatim="python")
SHELL = Style(line=("#",), verbatim="heredoc")
YAML = Style(line=("#",), verbatim="yaml")
C_LIKE = Style(line=("//",), blocks=(("/*", "*/"),), doc=("///", "//!", "/**"))
JS_LIKE = C_LIKE._replace(verbatim="backtick")
CSS = Style(line=(), blocks=(("/*", "*/"),), doc=("/**",))
SCSS = Style(line=("//",), blocks=(("/*", "*/"),), doc=("///", "/**"))
PHP = Style(line=("//", "#"), blocks=(("/*", "*/"),), doc=("/**",))
SQL = Style(line=("--",), blocks=(("/*", "*/"),))
LUA = Style(line=("--",), blocks=(("--[[", "]]"),), doc=("---",))
HASKELL = Style(line=("--",), blocks=(("{-", "-}"),), doc=("-- |", "-- ^", "{-|"))
LISP = Style(line=(";",), doc=(";;;",))
INI = Style(line=(";", "#"))
PERCENT = Style(line=("%",), doc=("%%",))
MARKUP = Style(line=(), blocks=(("<!--", "-->"),))

_BY_EXTENSION: dict[str, Style] = {
    **dict.fromkeys(("py", "pyi", "pyw"), PYTHON),
    **dict.fromkeys(("sh", "bash", "zsh", "ksh", "fish", "bats"), SHELL),
    **dict.fromkeys(("yaml", "yml"), YAML),
    **dict.fromkeys(
        ("rb", "pl", "pm", "r", "toml", "cmake", "nix", "tf", "tfvars", "hcl", "ps1", "psm1",
         "mk", "mak", "make", "dockerfile", "containerfile", "bzl", "star", "cfg", "conf",
         "properties", "gitignore", "dockerignore", "gitattributes", "editorconfig", "env",
         "jl", "cr", "ex", "exs", "nim", "coffee", "tcl", "awk", "sed", "gn", "gni"),
        HASH,
    ),
    **dict.fromkeys(
        ("c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx", "ino", "cs", "java", "kt", "kts",
         "scala", "sc", "groovy", "gradle", "rs", "swift", "dart", "proto", "zig", "v", "sv",
         "glsl", "hlsl", "cu", "m", "mm", "sol", "jsonc", "json5", "fs", "fsx"),
        C_LIKE,
    ),
    **dict.fromkeys(("js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "go", "vue",
                     "svelte"), JS_LIKE),
    "css": CSS,
    **dict.fromkeys(("scss", "sass", "less"), SCSS),
    "php": PHP,
    **dict.fromkeys(("sql", "psql", "pgsql", "mysql"), SQL),
    "lua": LUA,
    **dict.fromkeys(("hs", "lhs", "elm", "purs", "agda", "idr"), HASKELL),
    **dict.fromkeys(("lisp", "lsp", "cl", "el", "clj", "cljs", "cljc", "edn", "scm", "ss",
                     "rkt", "asm", "s"), LISP),
    **dict.fromkeys(("ini", "cnf", "reg"), INI),
    **dict.fromkeys(("tex", "sty", "cls", "bib", "erl", "hrl"), PERCENT),
    **dict.fromkeys(("html", "htm", "xhtml", "xml", "xsd", "xsl", "svg", "plist", "md",
                     "markdown"), MARKUP),
}

#: Files known by their name (lower case), with no telling extension.
_BY_NAME: dict[str, Style] = {
    **dict.fromkeys(("dockerfile", "containerfile"), HASH),
    **dict.fromkeys(("makefile", "gnumakefile", "bsdmakefile"), HASH),
    **dict.fromkeys(("gemfile", "rakefile", "vagrantfile", "podfile", "brewfile", "guardfile",
                     "capfile", "fastfile", "dangerfile"), HASH),
    **dict.fromkeys(("cmakelists.txt", "build", "build.bazel", "workspace", "workspace.bazel",
                     "module.bazel", "tiltfile", "procfile", "pipfile", "requirements.txt",
                     "codeowners", ".gitignore", ".dockerignore", ".gitattributes", ".env",
                     ".editorconfig", ".npmrc", ".flake8", ".pylintrc", "setup.cfg"), HASH),
    **dict.fromkeys((".bashrc", ".bash_profile", ".zshrc", ".profile", ".zprofile",
                     "pkgbuild", "apkbuild"), SHELL),
    "jenkinsfile": C_LIKE,
}

#: Comment bodies that are instructions to a tool, not prose: always kept.
_DIRECTIVE = re.compile(
    r"\s*(?:!|-\*-|type:|noqa|pragma|fmt:|pylint:|mypy:|ruff:|isort:|pyright:|syntax=|escape="
    r"|check=|shellcheck\b|eslint|prettier|@ts-|@flow|@jsx|@license|@preserve|go:|\+build|"
    r"nolint|NOLINT|clang-format|c8\b|istanbul\b|#?region\b|#?endregion\b|SPDX-|vim?:|"
    r"cython:|language=|@generated|swiftlint|rubocop:|frozen_string_literal|"
    r"encoding[:=]|coding[:=])"
)
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_YAML_BLOCK = re.compile(r"(?:^|[:\-]\s*)[|>][-+0-9]*\s*(?:#.*)?$")
_TRIPLE = re.compile(r'"""|\'\'\'')


def style_for(path: str) -> Style | None:
    """The comment style of the file at ``path`` (by name, then extension), or None."""
    name = re.split(r"[\\/]", path.strip())[-1].lower()
    if not name:
        return None
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.startswith(("dockerfile.", "containerfile.")) or name.endswith(".dockerfile"):
        return HASH
    if name.startswith("makefile."):
        return HASH
    stem, dot, extension = name.rpartition(".")
    if not dot:
        return None
    if not stem:  # ".gitignore" style dot-files not listed above
        return _BY_EXTENSION.get(extension)
    return _BY_EXTENSION.get(extension)


class _Verbatim:
    """Tracks whether the next line is inside a string that may contain comment look-alikes."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.delimiter = ""  # python triple quote, heredoc word, or "`"
        self.yaml_indent = -1

    def delimiter_is_a_word(self) -> bool:
        """True inside a here-document, whose end line has no marker of its own."""
        return self.kind == "heredoc" and bool(self.delimiter)

    def inside(self, line: str) -> bool:
        """Whether ``line`` is verbatim text (checked before the line is consumed)."""
        if self.kind == "yaml" and self.yaml_indent >= 0:
            if not line.strip():
                return True
            if _indent(line) > self.yaml_indent:
                return True
            self.yaml_indent = -1
            return False
        return bool(self.delimiter)

    def consume(self, line: str) -> None:
        """Update the state after ``line``."""
        if self.kind == "python":
            self._python(line)
        elif self.kind == "backtick":
            if (line.count("`") - line.count("\\`")) % 2:
                self.delimiter = "" if self.delimiter else "`"
        elif self.kind == "heredoc":
            self._heredoc(line)
        elif self.kind == "yaml" and self.yaml_indent < 0 and _YAML_BLOCK.search(line):
            self.yaml_indent = _indent(line)

    def _python(self, line: str) -> None:
        for match in _TRIPLE.finditer(line):
            if not self.delimiter:
                self.delimiter = match.group()
            elif match.group() == self.delimiter:
                self.delimiter = ""

    def _heredoc(self, line: str) -> None:
        if self.delimiter:
            if line.strip() == self.delimiter:
                self.delimiter = ""
            return
        match = _HEREDOC.search(line)
        if match and not line.lstrip().startswith("#"):
            self.delimiter = match.group(2)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _is_directive(body: str) -> bool:
    return bool(_DIRECTIVE.match(body))


_VERBATIM_TOKENS = {"python": ('"""', "'''"), "backtick": ("`",), "heredoc": ("<<",)}


@cache
def _interesting(style: Style) -> re.Pattern[str]:
    """Any text that could change a line's verdict or the state: markers and quotes."""
    tokens = {*style.line, *style.doc, *_VERBATIM_TOKENS.get(style.verbatim, ())}
    for opener, closer in style.blocks:
        tokens.update((opener, closer))
    tokens.add("#!")
    return re.compile("|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True)))


def comment_lines(lines: Sequence[str], style: Style) -> list[bool]:
    """One flag per line: True when that line is a comment that may be dropped."""
    flags = [False] * len(lines)
    verbatim = _Verbatim(style.verbatim)
    closing = ""  # the close marker of the block comment we are inside, if any
    keep_block = False
    interesting = _interesting(style).search
    # Plain code lines (no marker, no quote) cannot change anything: skip them cheaply, except
    # where every line matters (YAML indentation, the end word of a here-document).
    always_slow = style.verbatim == "yaml"
    for index, line in enumerate(lines):
        fast = not closing and not always_slow and not verbatim.delimiter_is_a_word()
        if fast and interesting(line) is None:
            continue
        text = line.strip()
        if closing:
            if closing in text:
                flags[index] = not keep_block and text.endswith(closing)
                closing = ""
            else:
                flags[index] = not keep_block
            continue
        if verbatim.inside(line):
            verbatim.consume(line)
            continue
        if text:
            flags[index], closing, keep_block = _classify(text, style, index)
        if not flags[index] and not closing:
            verbatim.consume(line)
    return flags


def _classify(text: str, style: Style, index: int) -> tuple[bool, str, bool]:
    """(drop this line?, block close marker now open, is that block kept?)."""
    if index == 0 and text.startswith("#!"):
        return False, "", False
    doc = any(text.startswith(marker) for marker in style.doc)
    for opener, closer in style.blocks:
        if text.startswith(opener):
            keep = doc or _is_directive(text[len(opener) :])
            rest = text[len(opener) :]
            if closer in rest:
                return (not keep and text.endswith(closer) and rest.count(closer) == 1), "", False
            return not keep, closer, keep
    if doc:
        return False, "", False
    for marker in style.line:
        if text.startswith(marker):
            return not _is_directive(text[len(marker) :]), "", False
    return False, "", False
