"""A small bash lexer: the simple commands of a command string, wherever they sit.

``parse(text)`` never executes anything. It understands quoting (``'…'``, ``"…"``, ``$'…'``,
backslashes, line continuations), the operators ``| |& && || ; &`` and newlines, redirections
(``2>&1``, ``&>``, here-strings, here-documents), subshells ``( )``, groups ``{ }``, command
substitutions ``$( )`` and backticks, process substitutions, comments, leading assignments and the
compound keywords (``if``, ``for``, ``while``, ``case … ;;``, ``[[ ]]``, ``(( ))``, functions).

It returns every simple command it found (also those inside substitutions and here-document
bodies) with its words after quote removal. Expansions (``$HOME``, globs) are kept as written.
Whatever it cannot model is listed in ``Script.problems``; callers treat such a command as not
rewritable (it can still be compacted).
"""

from __future__ import annotations

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from tersh._startup.lean import NamedTuple

#: Contexts a simple command can sit in.
TOP = "top"
SUBSHELL = "subshell"
GROUP = "group"
SUBSTITUTION = "substitution"
CASE = "case"

_RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "select",
     "case", "esac", "function", "{", "}", "!", "[[", "coproc", "in"}
)
_SEPARATING_KEYWORDS = frozenset({"then", "else", "elif", "fi", "do", "done", "!"})
_OPERATORS = (
    ";;&", "&>>", "<<<", "<<-", ";;", ";&", "||", "|&", "&&", "&>", "<<", "<>", "<&", ">>",
    ">&", ">|", "|", "&", ";", "(", ")", "<", ">",
)
_OPERATOR_SET = frozenset(_OPERATORS)
_REDIRECTS = frozenset({"<", ">", ">>", "<>", "<&", ">&", ">|", "&>", "&>>", "<<<", "<<", "<<-"})
_LIST_SEPARATORS = frozenset({"&&", "||", ";", "&", "\n"})


class _Patterns:
    """The lexer's regular expressions, compiled on first use (without importing ``re``)."""

    def __init__(self) -> None:
        from tersh._startup.lazyre import lazy

        self.plain = lazy(r"[^\s|&;()<>\\'\"$`]+")
        self.blanks = lazy(r"[ \t]+")
        self.name = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
        self.assignment = lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
        self.fd_word = lazy(r"\d+|\{[A-Za-z_][A-Za-z0-9_]*\}")
        self.function_body = lazy(
            r"[({]|(?:if|for|while|until|case|select|\[\[)(?=[\s;(]|$)"
        )


_compiled: list[_Patterns] = []


def _patterns() -> _Patterns:
    if not _compiled:
        _compiled.append(_Patterns())
    return _compiled[0]


#: Keywords that end a compound command (an operator may follow them).
_CLOSING_KEYWORDS = frozenset({"fi", "done", "esac", "{", "case", "[["})
#: Reserved words that start a command: after a compound command they need an operator first.
_OPENING_KEYWORDS = frozenset(
    {"if", "while", "until", "for", "select", "case", "function", "{", "[[", "coproc"}
)
_NEEDS_COMMAND = frozenset({"&&", "||", ";", "&", "|", "|&"})
_METACHARS = frozenset(" \t\n|&;()<>")
#: Inputs made only of these characters are plain words and spaces: split without the lexer.
_SIMPLE_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./:,+@%^= "
)
_SAFE_WORD_CHARS = _SIMPLE_CHARS - {" "}
_ANSI_C_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
    "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}


class SimpleCommand(NamedTuple):
    """One simple command: leading assignments, words (program first) and redirections."""

    words: tuple[str, ...]
    assignments: tuple[str, ...] = ()
    redirects: tuple[str, ...] = ()
    context: str = TOP
    nested: bool = False  # inside a substitution or here-document: its output is not shown
    pipeline: int = 0  # commands of one pipeline share this number
    stage: int = 0  # position inside its pipeline (0 = first)
    first_span: tuple[int, int] | None = None  # source offsets of the program word, if known


class Script(NamedTuple):
    """What the lexer found in a command string."""

    commands: tuple[SimpleCommand, ...]
    pipes: int  # pipe operators outside quotes (any nesting)
    operators: frozenset[str]  # the list/pipe operators used (``&&``, ``|``, ``\\n``…)
    compound: tuple[str, ...]  # compound constructs seen (``for``, ``case``, ``function``…)
    heredocs: int
    comment: str | None  # text of the last comment (without ``#``), if the input ends with one
    comment_start: int  # offset of that comment's ``#`` (-1 when there is none)
    problems: tuple[str, ...]  # what could not be modelled


class _Token(NamedTuple):
    kind: str  # "word", "op", "eof"
    value: str
    start: int
    end: int
    quoted: bool


_NEW_TOKEN = tuple.__new__  # builds a _Token without the Python-level __new__ (hot path)


class _Heredoc(NamedTuple):
    delimiter: str
    strip_tabs: bool
    expands: bool


class _Builder:
    """Collects the parts of the simple command being read."""

    __slots__ = ("assignments", "first_span", "redirects", "words")

    def __init__(self) -> None:
        self.words: list[str] = []
        self.assignments: list[str] = []
        self.redirects: list[str] = []
        self.first_span: tuple[int, int] | None = None

    @property
    def at_start(self) -> bool:
        return not self.words and not self.assignments and not self.redirects


class _Lexer:
    """Tokeniser and light parser over one source string (shared by nested constructs)."""

    def __init__(self, source: str, base: int = 0, nested: bool = False, depth: int = 0) -> None:
        self.src = source
        self.re = _patterns()
        self.pos = 0
        self.base = base  # offset of ``source`` in the original text, -1 when not mappable
        self.nested = nested
        self.depth = depth
        self.commands: list[SimpleCommand] = []
        self.problems: list[str] = []
        self.compound: list[str] = []
        self.operators: set[str] = set()
        self.pipes = 0
        self.heredocs = 0
        self.pending: list[_Heredoc] = []
        self.comment: str | None = None
        self.comment_start = -1
        self.pipeline_counter = 0
        self.nesting = 0  # > 0 while inside $( ), ( ), { }…
        self.dangling = ""  # the last list/pipe operator when no word has followed it yet
        self.content = False  # whether the current command has anything yet
        self.blocks: list[str] = []  # the closing keywords (fi, done) still expected
        self.units = 0  # words and redirections read so far (an empty ( ) or { } is an error)
        self.after_compound = False  # only operators and redirections may follow `)`, `}`, `fi`…

    # ----------------------------------------------------------------- tokens

    def problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    def skip_blanks(self) -> None:
        src, n = self.src, len(self.src)
        while self.pos < n:
            char = src[self.pos]
            if char in " \t":
                self.pos += 1
            elif char == "\\" and src.startswith("\\\n", self.pos):
                self.pos += 2
            elif char == "#":
                end = src.find("\n", self.pos)
                end = n if end < 0 else end
                self.comment = src[self.pos + 1 : end]
                self.comment_start = self.pos + self.base if self.base >= 0 else -1
                self.pos = end
            else:
                return

    def next_token(self) -> _Token:
        src = self.src
        blanks = self.re.blanks.match(src, self.pos)
        if blanks is not None:
            self.pos = blanks.end()
        if self.pos < len(src) and src[self.pos] in "#\\":
            self.skip_blanks()
        if self.pos >= len(src):
            return _NEW_TOKEN(_Token, ("eof", "", self.pos, self.pos, False))
        start = self.pos
        char = src[start]
        if char == "\n":
            self.pos += 1
            self.comment = None
            self.comment_start = -1
            self.read_heredoc_bodies()
            return _NEW_TOKEN(_Token, ("op", "\n", start, self.pos, False))
        if char in "|&;()<>":
            if char in "<>" and src.startswith("(", start + 1):
                return self.read_word()  # process substitution <( ) / >( )
            for size in (3, 2, 1):  # longest operator first
                op = src[start : start + size]
                if op in _OPERATOR_SET:
                    self.pos += size
                    return _NEW_TOKEN(_Token, ("op", op, start, self.pos, False))
        self.comment = None
        self.comment_start = -1
        plain = self.re.plain.match(src, start)
        if plain is not None:  # fast path: a word with no quoting, up to a blank or operator
            end = plain.end()
            if end == len(src) or (src[end] in _METACHARS and not src.startswith(
                ("<(", ">("), end
            )):
                self.pos = end
                return _NEW_TOKEN(_Token, ("word", plain.group(), start, end, False))
        return self.read_word()

    def read_word(self) -> _Token:
        src, n = self.src, len(self.src)
        start = self.pos
        parts: list[str] = []
        quoted = False
        while self.pos < n:
            char = src[self.pos]
            if char in _METACHARS:
                if char in "<>" and src.startswith("(", self.pos + 1):
                    parts.append(self.read_substitution(self.pos + 2, self.pos))
                    continue
                break
            if char == "\\":
                quoted = True
                if self.pos + 1 >= n:
                    parts.append("\\")
                    self.pos += 1
                elif src[self.pos + 1] == "\n":
                    self.pos += 2
                else:
                    parts.append(src[self.pos + 1])
                    self.pos += 2
            elif char == "'":
                quoted = True
                end = src.find("'", self.pos + 1)
                if end < 0:
                    self.problem("unterminated single quote")
                    parts.append(src[self.pos + 1 :])
                    self.pos = n
                else:
                    parts.append(src[self.pos + 1 : end])
                    self.pos = end + 1
            elif char == '"':
                quoted = True
                self.pos += 1
                parts.append(self.read_double_quoted())
            elif char == "$":
                quoted = self.read_dollar(parts) or quoted
            elif char == "`":
                parts.append(self.read_backticks())
            else:
                match = self.re.plain.match(src, self.pos)
                if match is None:  # a lone non-space blank such as \r: ordinary in bash
                    parts.append(char)
                    self.pos += 1
                else:
                    parts.append(match.group())
                    self.pos = match.end()
        return _NEW_TOKEN(_Token, ("word", "".join(parts), start, self.pos, quoted))

    def read_double_quoted(self) -> str:
        src, n = self.src, len(self.src)
        parts: list[str] = []
        while self.pos < n:
            char = src[self.pos]
            if char == '"':
                self.pos += 1
                return "".join(parts)
            if char == "\\" and self.pos + 1 < n:
                following = src[self.pos + 1]
                if following == "\n":
                    self.pos += 2
                    continue
                if following in '$`"\\':
                    parts.append(following)
                    self.pos += 2
                    continue
                parts.append("\\")
                self.pos += 1
            elif char == "$":
                self.read_dollar(parts, in_double=True)
            elif char == "`":
                parts.append(self.read_backticks())
            else:
                end = self.pos + 1
                while end < n and src[end] not in '"\\$`':
                    end += 1
                parts.append(src[self.pos : end])
                self.pos = end
        self.problem("unterminated double quote")
        return "".join(parts)

    def read_dollar(self, parts: list[str], in_double: bool = False) -> bool:
        """Read a ``$`` construct at ``pos``; return True when it was a quoting form."""
        src = self.src
        following = src[self.pos + 1 : self.pos + 2]
        if following == "'" and not in_double:
            self.pos += 2
            parts.append(self.read_ansi_c())
            return True
        if following == '"' and not in_double:
            self.pos += 2
            parts.append(self.read_double_quoted())
            return True
        if src.startswith("$((", self.pos):
            start = self.pos
            self.skip_balanced(self.pos + 3, "((", "))")
            parts.append(src[start : self.pos])
        elif following == "(":
            parts.append(self.read_substitution(self.pos + 2, self.pos))
        elif following == "{":
            start = self.pos
            self.skip_braces(self.pos + 2)
            parts.append(src[start : self.pos])
        else:
            match = self.re.name.match(src, self.pos + 1)
            special = bool(following) and following in "@*#?$!-0123456789"
            end = match.end() if match else self.pos + (2 if special else 1)
            parts.append(src[self.pos : end])
            self.pos = end
        return False

    def read_ansi_c(self) -> str:
        src, n = self.src, len(self.src)
        out: list[str] = []
        truncated = False
        while self.pos < n:
            char = src[self.pos]
            if char == "'":
                self.pos += 1
                return "".join(out)
            if char != "\\" or self.pos + 1 >= n:
                if not truncated:
                    out.append(char)
                self.pos += 1
                continue
            decoded, self.pos = _ansi_c_escape(src, self.pos + 1)
            if decoded == "\0":
                truncated = True  # bash ends the string at a NUL
            elif not truncated:
                out.append(decoded)
        self.problem("unterminated $'…' quote")
        return "".join(out)

    def read_substitution(self, inner_start: int, start: int) -> str:
        """Parse ``$( … )`` / ``<( … )`` from ``inner_start``; return its source text."""
        self.pos = inner_start
        saved_comment = (self.comment, self.comment_start)
        saved_nested = self.nested
        self.nested = True
        self.nesting += 1
        closer = self.parse_list(SUBSTITUTION, frozenset({")"}))
        self.nesting -= 1
        self.nested = saved_nested
        self.comment, self.comment_start = saved_comment
        if closer != ")":
            self.problem("unterminated command substitution")
        return self.src[start : self.pos]

    def read_backticks(self) -> str:
        src, n = self.src, len(self.src)
        start = self.pos
        self.pos += 1
        inner: list[str] = []
        while self.pos < n and src[self.pos] != "`":
            if src[self.pos] == "\\" and self.pos + 1 < n and src[self.pos + 1] in "\\`$":
                inner.append(src[self.pos + 1])
                self.pos += 2
            else:
                inner.append(src[self.pos])
                self.pos += 1
        if self.pos >= n:
            self.problem("unterminated backquote")
        else:
            self.pos += 1
        self.absorb(_lex("".join(inner), -1, True, self.depth + 1))
        return src[start : self.pos]

    def skip_balanced(self, pos: int, opener: str, closer: str) -> None:
        """Skip an arithmetic ``(( … ))`` body starting at ``pos`` (parentheses balanced)."""
        src, n = self.src, len(self.src)
        depth = 0
        while pos < n:
            char = src[pos]
            if char == "(":
                depth += 1
            elif char == ")":
                if depth == 0 and src.startswith("))", pos):
                    self.pos = pos + 2
                    return
                depth -= 1
            elif char in "'\"":
                end = src.find(char, pos + 1)
                pos = n - 1 if end < 0 else end
            pos += 1
        self.problem(f"unterminated {opener} … {closer}")
        self.pos = n

    def skip_braces(self, pos: int) -> None:
        src, n = self.src, len(self.src)
        depth = 0
        while pos < n:
            char = src[pos]
            if char == "\\":
                pos += 2
                continue
            if char == "{":
                depth += 1
            elif char == "}":
                if depth == 0:
                    self.pos = pos + 1
                    return
                depth -= 1
            elif char in "'\"":
                end = src.find(char, pos + 1)
                pos = n - 1 if end < 0 else end
            elif char == "$" and src.startswith("$(", pos):
                self.pos = pos
                holder: list[str] = []
                self.read_dollar(holder)
                pos = self.pos
                continue
            pos += 1
        self.problem("unterminated ${…}")
        self.pos = n

    # ------------------------------------------------------------ heredocs

    def read_heredoc_bodies(self) -> None:
        src, n = self.src, len(self.src)
        pending, self.pending = self.pending, []
        for doc in pending:
            body_start = self.pos
            found = False
            while self.pos < n:
                end = src.find("\n", self.pos)
                line_end = n if end < 0 else end
                line = src[self.pos : line_end]
                self.pos = n if end < 0 else end + 1
                if (line.lstrip("\t") if doc.strip_tabs else line) == doc.delimiter:
                    found = True
                    body_end = line_end - len(line)
                    break
            else:
                body_end = n
            if not found:
                self.problem("unterminated here-document")
            if doc.expands and any(c in src[body_start:body_end] for c in "$`"):
                base = body_start + self.base if self.base >= 0 else -1
                self.absorb(_lex_expansions(src[body_start:body_end], base, self.depth + 1))

    def absorb(self, inner: Script) -> None:
        """Take the commands and findings of a nested lexer run."""
        self.commands.extend(c._replace(nested=True) for c in inner.commands)
        for text in inner.problems:
            self.problem(text)
        self.compound.extend(inner.compound)
        self.operators.update(inner.operators)
        self.pipes += inner.pipes
        self.heredocs += inner.heredocs

    # --------------------------------------------------------------- parser

    def emit(self, builder: _Builder, context: str, pipeline: int, stage: int) -> None:
        if builder.words:
            self.commands.append(
                SimpleCommand(
                    tuple(builder.words),
                    tuple(builder.assignments),
                    tuple(builder.redirects),
                    context,
                    self.nested,
                    pipeline,
                    stage,
                    builder.first_span,
                )
            )

    def new_pipeline(self) -> int:
        self.pipeline_counter += 1
        return self.pipeline_counter + 1000 * self.depth

    def parse_list(self, context: str, closers: frozenset[str]) -> str:
        """Read commands until one of ``closers`` (an operator or keyword); return it ('' at end)."""
        builder = _Builder()
        pipeline, stage = self.new_pipeline(), 0
        self.content = False
        while True:
            token = self.next_token()
            if token.kind == "eof":
                if builder.at_start and self.dangling:
                    self.problem(f"command ends with {self.dangling}")
                self.emit(builder, context, pipeline, stage)
                return ""
            if token.kind == "op":
                value = token.value
                if value == "\n" and self.dangling:
                    continue  # `a &&` / `a |` go on on the next line
                previous = self.dangling
                self.dangling = value if value in ("&&", "||", "|", "|&") else ""
                if value in closers:
                    if previous and builder.at_start:
                        self.problem(f"{previous!r} without a command after it")
                    self.emit(builder, context, pipeline, stage)
                    return value
                if value in _NEEDS_COMMAND and not self.content:
                    self.problem(f"{value!r} without a command before it")
                self.content = value in _REDIRECTS or value == "("
                self.units += self.content
                follows_compound = self.after_compound
                if value not in _REDIRECTS:
                    self.after_compound = False
                if value in ("|", "|&"):
                    self.emit(builder, context, pipeline, stage)
                    self.pipes += 1
                    self.operators.add(value)
                    builder, stage = _Builder(), stage + 1
                elif value in _LIST_SEPARATORS:
                    self.emit(builder, context, pipeline, stage)
                    self.operators.add(value)
                    builder, pipeline, stage = _Builder(), self.new_pipeline(), 0
                elif value in _REDIRECTS:
                    self.read_redirect(builder, value, token)
                elif value == "(":
                    if follows_compound:
                        self.problem("'(' after a compound command")
                    opens = builder.at_start
                    self.open_paren(builder)
                    self.content = True
                    self.after_compound = opens
                else:
                    self.problem(f"unexpected {value!r}")
                continue
            if not token.quoted and builder.at_start and token.value in _RESERVED:
                keyword = token.value
                if self.after_compound and keyword in _OPENING_KEYWORDS:
                    self.problem(f"{keyword!r} after a compound command")
                if keyword in closers:
                    if self.dangling:
                        self.problem(f"{self.dangling!r} without a command after it")
                    return keyword
                self.content = self.keyword(keyword) or keyword in _CLOSING_KEYWORDS
                self.after_compound = keyword in _CLOSING_KEYWORDS
                continue
            if not token.quoted and builder.at_start and token.value == "]]":
                self.problem("unexpected ]]")
                continue
            if self.after_compound:
                self.problem(f"{token.value!r} after a compound command")
            self.dangling = ""
            self.content = True
            self.units += 1
            self.add_word(builder, token)

    def add_word(self, builder: _Builder, token: _Token) -> None:
        src = self.src
        if (
            token.end < len(src)
            and src[token.end] in "<>"
            and not token.quoted
            and self.re.fd_word.fullmatch(token.value)
        ):
            op_token = self.next_token()
            if op_token.kind == "op" and op_token.value in _REDIRECTS:
                self.read_redirect(builder, op_token.value, op_token, prefix=token.value)
                return
            self.problem("unexpected redirection")
            return
        if not builder.words and "=" in token.value and self.re.assignment.match(src, token.start):
            builder.assignments.append(token.value)
            return
        if not builder.words and self.base >= 0:
            builder.first_span = (token.start + self.base, token.end + self.base)
        builder.words.append(token.value)

    def read_redirect(self, builder: _Builder, op: str, token: _Token, prefix: str = "") -> None:
        target = self.next_token()
        if target.kind != "word":
            self.problem(f"redirection {op} without a target")
            return
        builder.redirects.append(f"{prefix}{op}{target.value}")
        if op in ("<<", "<<-"):
            self.heredocs += 1
            raw = self.src[target.start : target.end]
            expands = not any(c in raw for c in "'\"\\")
            self.pending.append(_Heredoc(target.value, op == "<<-", expands))

    def open_paren(self, builder: _Builder) -> None:
        src = self.src
        if builder.at_start and src.startswith("(", self.pos):
            self.compound.append("((")
            self.skip_balanced(self.pos + 1, "((", "))")
            return
        if builder.at_start:
            before = self.units
            self.nesting += 1
            closer = self.parse_list(SUBSHELL, frozenset({")"}))
            self.nesting -= 1
            if closer != ")":
                self.problem("unterminated subshell")
            elif self.units == before:
                self.problem("empty subshell")
            return
        if len(builder.words) == 1 and not builder.assignments:
            after = self.next_token()
            if after.kind == "op" and after.value == ")":
                self.compound.append("function")
                builder.words.clear()
                builder.first_span = None
                self.expect_body()
                return
        self.problem("unexpected '('")

    def keyword(self, keyword: str) -> bool:
        """Handle a reserved word at command position; True when it completes a command."""
        if keyword in _SEPARATING_KEYWORDS:
            self.check_block(keyword)
            return False
        if keyword in ("if", "while", "until"):
            self.compound.append(keyword)
            self.blocks.append("fi" if keyword == "if" else "done")
        elif keyword == "{":
            self.compound.append("{")
            before = self.units
            self.nesting += 1
            closer = self.parse_list(GROUP, frozenset({"}"}))
            self.nesting -= 1
            if closer != "}":
                self.problem("unterminated { group")
            elif self.units == before:
                self.problem("empty { group")
        elif keyword in ("for", "select"):
            self.compound.append(keyword)
            self.blocks.append("done")
            self.skip_blanks()
            if self.src.startswith("((", self.pos):
                self.skip_balanced(self.pos + 2, "((", "))")
                return True
            self.skip_header()
        elif keyword == "case":
            self.compound.append("case")
            self.read_case()
        elif keyword == "function":
            self.compound.append("function")
            name = self.next_token()
            if name.kind != "word":
                self.problem("function without a name")
            self.skip_blanks()
            if self.src.startswith("()", self.pos):
                self.pos += 2
            self.expect_body()
        elif keyword == "[[":
            self.compound.append("[[")
            self.skip_test()
        elif keyword == "coproc":
            self.problem("coproc")
        else:  # '}', 'esac', 'in' out of place
            self.problem(f"unexpected {keyword!r}")
        return False

    def expect_body(self) -> None:
        """A function definition must be followed by a compound command."""
        src, n = self.src, len(self.src)
        self.skip_blanks()
        while self.pos < n and src[self.pos] == "\n":
            self.pos += 1
            self.skip_blanks()
        if not self.re.function_body.match(src, self.pos):
            self.problem("function without a body")

    def check_block(self, keyword: str) -> None:
        """Keep ``if … fi`` and ``do … done`` balanced."""
        expected = "fi" if keyword in ("then", "elif", "else", "fi") else "done"
        if keyword == "!":
            return
        if not self.blocks or self.blocks[-1] != expected:
            self.problem(f"unexpected {keyword!r}")
        elif keyword in ("fi", "done"):
            self.blocks.pop()

    def skip_header(self) -> None:
        """Skip a ``for NAME in WORDS`` header up to ``;``, a newline or ``do``."""
        while True:
            token = self.next_token()
            if token.kind == "eof":
                self.problem("unterminated for loop")
                return
            if token.kind == "op" and token.value in (";", "\n"):
                return
            if token.kind == "word" and token.value == "do" and not token.quoted:
                return

    def skip_test(self) -> None:
        while True:
            token = self.next_token()
            if token.kind == "eof":
                self.problem("unterminated [[")
                return
            if token.kind == "word" and token.value == "]]" and not token.quoted:
                return

    def read_case(self) -> None:
        subject = self.next_token()
        if subject.kind != "word":
            self.problem("case without a subject")
            return
        token = self.next_token()
        while token.kind == "op" and token.value == "\n":
            token = self.next_token()
        if token.kind != "word" or token.value != "in":
            self.problem("case without 'in'")
            return
        closers = frozenset({";;", ";&", ";;&", "esac"})
        while True:
            token = self.next_token()
            while token.kind == "op" and token.value in ("\n", ";;", ";&", ";;&"):
                token = self.next_token()
            if token.kind == "eof":
                self.problem("unterminated case")
                return
            if token.kind == "word" and token.value == "esac" and not token.quoted:
                return
            if token.kind == "op" and token.value == "(":
                token = self.next_token()
            while not (token.kind == "op" and token.value == ")"):
                if token.kind == "eof" or (token.kind == "op" and token.value != "|"):
                    self.problem("malformed case pattern")
                    return
                token = self.next_token()
            self.nesting += 1
            closer = self.parse_list(CASE, closers)
            self.nesting -= 1
            if closer == "esac":
                return
            if closer == "":
                self.problem("unterminated case")
                return


def _ansi_c_escape(src: str, pos: int) -> tuple[str, int]:
    """Decode the escape after a backslash at ``pos - 1`` in ``$'…'``; return (text, next pos)."""
    char = src[pos]
    if char in _ANSI_C_SIMPLE:
        return _ANSI_C_SIMPLE[char], pos + 1
    if char in "01234567":
        end = pos
        while end < len(src) and end < pos + 3 and src[end] in "01234567":
            end += 1
        return chr(int(src[pos:end], 8) & 0xFF), end
    limits = {"x": 2, "u": 4, "U": 8}
    if char in limits:
        end = pos + 1
        while end < len(src) and end < pos + 1 + limits[char] and src[end] in "0123456789abcdefABCDEF":
            end += 1
        if end == pos + 1:
            return "\\" + char, pos + 1
        value = int(src[pos + 1 : end], 16)
        return (chr(value) if value < 0x110000 else "\ufffd"), end
    if char == "c" and pos + 1 < len(src):
        return chr(ord(src[pos + 1]) & 0x1F), pos + 2
    return "\\" + char, pos + 1


def _lex(source: str, base: int, nested: bool, depth: int) -> Script:
    lexer = _Lexer(source, base, nested, depth)
    if depth > 8:
        lexer.problem("nesting too deep")
        return _finish(lexer)
    closer = lexer.parse_list(TOP, frozenset())
    if closer:
        lexer.problem(f"unexpected {closer!r}")
    if lexer.pending:
        lexer.problem("unterminated here-document")
    if lexer.blocks:
        lexer.problem(f"missing {lexer.blocks[-1]!r}")
    return _finish(lexer)


def _lex_expansions(body: str, base: int, depth: int) -> Script:
    """Find the command substitutions of an expanding here-document body."""
    lexer = _Lexer(body, base, True, depth)
    src, n = body, len(body)
    while lexer.pos < n:
        char = src[lexer.pos]
        if char == "\\":
            lexer.pos += 2
        elif char == "$":
            holder: list[str] = []
            lexer.read_dollar(holder, in_double=True)
        elif char == "`":
            lexer.read_backticks()
        else:
            lexer.pos += 1
    return _finish(lexer)


def _finish(lexer: _Lexer) -> Script:
    return Script(
        tuple(lexer.commands),
        lexer.pipes,
        frozenset(lexer.operators),
        tuple(lexer.compound),
        lexer.heredocs,
        lexer.comment,
        lexer.comment_start,
        tuple(lexer.problems),
    )


def parse(text: str) -> Script:
    """Lex ``text`` as bash would read it (nothing is executed)."""
    if set(text) <= _SIMPLE_CHARS:  # fast path: plain words and spaces only
        words = text.split()
        if not words:
            return Script((), 0, frozenset(), (), 0, None, -1, ())
        if words[0] in _RESERVED or words[0] == "]]" or "=" in words[0]:
            return _lex(text, 0, False, 0)
        start = len(text) - len(text.lstrip())
        command = SimpleCommand(tuple(words), pipeline=1, first_span=(start, start + len(words[0])))
        return Script((command,), 0, frozenset(), (), 0, None, -1, ())
    return _lex(text, 0, False, 0)


def split(text: str) -> list[str]:
    """The words of ``text`` after quote removal, as bash would pass them to a single command."""
    return [word for command in parse(text).commands for word in command.words]


def quote(word: str) -> str:
    """Quote ``word`` for bash so that it reads back as exactly ``word``."""
    if word and set(word) <= _SAFE_WORD_CHARS:
        return word
    return "'" + word.replace("'", "'\\''") + "'"
