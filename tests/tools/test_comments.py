"""Full-line comment stripping per language; look-alikes inside strings stay."""

from __future__ import annotations

import pytest

from tersh.tools import comments


def dropped(path: str, source: str) -> list[str]:
    style = comments.style_for(path)
    assert style is not None, path
    lines = source.split("\n")
    return [line for line, flag in zip(lines, comments.comment_lines(lines, style), strict=True) if flag]


def test_python_comments_go_docstrings_and_directives_stay() -> None:
    source = '''#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# a plain comment
import os  # trailing comment stays with its code
    # indented comment
# type: ignore
def f():
    """Docstring.
    # not a comment: inside the docstring
    """
    text = \'\'\'
# also inside a string
\'\'\'
    return text'''
    assert dropped("tool.py", source) == ["# a plain comment", "    # indented comment"]


@pytest.mark.parametrize("path", ["a.ts", "b.js", "c.go", "d.rs", "e.java", "f.c", "g.cpp"])
def test_c_like_comments(path: str) -> None:
    source = """// license line
/* block
 * continues
 */
/** doc comment
 * kept
 */
/// rust doc kept
//go:build linux
// eslint-disable-next-line no-var
int x = 1; // trailing kept
/* inline */ int y = 2;
/* one-line block */"""
    assert dropped(path, source) == [
        "// license line",
        "/* block",
        " * continues",
        " */",
        "/* one-line block */",
    ]


def test_js_template_literals_are_verbatim() -> None:
    source = "const s = `\n// not a comment\n`\n// a comment"
    assert dropped("x.js", source) == ["// a comment"]


def test_shell_heredoc_is_verbatim() -> None:
    source = "# comment\ncat <<EOF\n# inside heredoc\nEOF\n# after"
    assert dropped("run.sh", source) == ["# comment", "# after"]


def test_yaml_block_scalar_is_verbatim() -> None:
    source = "# top\nscript: |\n  # shell comment in a block\n  echo hi\nname: x\n# bottom"
    assert dropped("ci.yml", source) == ["# top", "# bottom"]


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        ("Dockerfile", "# syntax=docker/dockerfile:1\n# build stage\nFROM x", ["# build stage"]),
        ("Containerfile", "# c\nRUN a", ["# c"]),
        ("Dockerfile.dev", "# c\nRUN a", ["# c"]),
        ("Makefile", "# targets\nall:\n\techo # kept", ["# targets"]),
        ("GNUmakefile", "# t\nall:", ["# t"]),
        ("Gemfile", "# gems\ngem 'x'", ["# gems"]),
        ("CMakeLists.txt", "# cmake\nproject(x)", ["# cmake"]),
        ("q.sql", "-- query\nSELECT 1; -- kept\n/* b */", ["-- query", "/* b */"]),
        ("m.lua", "--[[ a\nb ]]\n-- line\n--- doc\nlocal x = 1", ["--[[ a", "b ]]", "-- line"]),
        ("p.html", "<!-- n -->\n<p>x</p>\n<!-- multi\nline -->", ["<!-- n -->", "<!-- multi", "line -->"]),
        ("s.css", "/* c */\na { color: red }", ["/* c */"]),
        ("cfg.ini", "; semi\n# hash\nkey=1", ["; semi", "# hash"]),
        ("x.hs", "-- c\n-- | doc\nmain = x", ["-- c"]),
        ("x.clj", "; c\n;;; doc\n(x)", ["; c"]),
    ],
)
def test_languages(path: str, source: str, expected: list[str]) -> None:
    assert dropped(path, source) == expected


@pytest.mark.parametrize("path", ["README", "notes.txt", "data.json", "x.unknown", ""])
def test_unknown_types_are_not_touched(path: str) -> None:
    assert comments.style_for(path) is None
