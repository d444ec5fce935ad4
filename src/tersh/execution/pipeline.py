"""The compaction stage of SPEC §1: a finished capture becomes the model's text and the call's record.

:func:`process` picks the path (empty, machine-readable, too large, RTK-filtered, plain, or
cleaned and compacted by a rule) and returns a :class:`~tersh.result.Result` whose ``text`` is
exactly what the model receives. ``tersh.execution.orchestrate`` runs a live command through every
stage; :func:`compact` takes output recorded elsewhere (it is stored as a capture too).
"""

from __future__ import annotations

from tersh._startup.lazyre import lazy
from tersh.command import parsed as parsing
from tersh.command import policy
from tersh.recording import captures as capture_store
from tersh.result import Result, utf8_len

TYPE_CHECKING = False  # start-up path: see tersh._startup
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, BinaryIO

    from tersh.compaction.kit.base import Invocation, Outcome
    from tersh.compaction.preview import Preview
    from tersh.settings import Settings

# Imported where used (preview, report, compact.clean, compact.detect, pathlib): a command
# with no output, the commonest case, needs none of them.

#: Notes the preview adds when the bytes were not plain UTF-8 text.
NOT_UTF8 = "[tersh] output is not valid UTF-8: shown with replacement characters (capture is byte-exact)"
BINARY = "[tersh] output contains NUL bytes (binary?): control bytes hidden here (capture is byte-exact)"


def _bounds(conf: Settings, reserve: bool) -> tuple[int, int]:
    from tersh.compaction import report

    lines = conf.int("preview.max_lines")
    size = conf.int("preview.max_bytes")
    if reserve:
        lines = max(1, lines - report.RESERVE_LINES)
        size = max(256, size - report.RESERVE_BYTES)
    return lines, size


# Words, short digit groups, and runs of one punctuation mark: close to how BPE vocabularies
# split program output (a row of `^~~~~` carets is a token or two, not one per character).
_TOKENISH = lazy(r"[A-Za-z]+|\d{1,3}|([^\sA-Za-z\d])\1*")
_COSTLY = lazy("[\u2800-\u28ff]")


#: The last few texts estimated, and their estimates: a call prices its source against each
#: proposal, so the same texts are estimated more than once.
_ESTIMATED: dict[str, int] = {}
ESTIMATES_KEPT = 4


def estimate_tokens(text: str) -> int:
    """A cheap, tokenizer-free estimate of a text's token count (for decisions, not reports):
    the matches of ``_TOKENISH``, and two more for each braille character (spinner frames cost
    ~3 tokens a character)."""
    count = _ESTIMATED.get(text)
    if count is None:
        count = len(_TOKENISH.findall(text))  # one item a match, counted in C
        if not text.isascii():
            count += 2 * len(_COSTLY.findall(text))
        if len(_ESTIMATED) >= ESTIMATES_KEPT:
            _ESTIMATED.clear()
        _ESTIMATED[text] = count
    return count


#: Estimated ratios this close to the floor are settled by exact o200k counts (the tokenizer
#: loads in ~0.15 s, so only a close call pays for it).
CLOSE_CALL = 0.06


def saves_enough(candidate: str, source: str, floor: float) -> bool:
    """Whether ``candidate`` has at most ``floor`` times the tokens of ``source``.

    Decided on the estimate when it is clear, on exact o200k counts when it is a close call.
    """
    estimated_source = estimate_tokens(source)
    if not estimated_source:
        return False
    ratio = estimate_tokens(candidate) / estimated_source
    if abs(ratio - floor) > CLOSE_CALL:
        return ratio <= floor
    from tersh import tokens

    return tokens.count(candidate) <= floor * tokens.count(source)


def _finish(text: str, complete: bool, cap: capture_store.Capture, base: dict[str, Any],
            *, total_lines: int | None = None, note: str = "") -> Result:
    refs = cap.refs()
    if not complete:
        from tersh.compaction import report

        text = f"{text}\n{report.capture_report(refs, total_lines=total_lines, note=note)}"
    return Result(
        text=text,
        complete=complete,
        output_bytes=utf8_len(text),
        input_bytes=cap.sizes["combined"],
        capture_id=cap.id,
        captures=refs,
        **base,
    )


def _encoding_notes(data: bytes) -> list[str]:
    notes = []
    if b"\x00" in data:
        notes.append(BINARY)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        notes.append(NOT_UTF8)
    return notes


def _structured(cap: capture_store.Capture, conf: Settings, base: dict[str, Any]) -> Result:
    """Machine-readable output: the exact document when it fits, else a marked bounded preview."""
    from tersh.compaction import preview, report

    max_lines, max_bytes = _bounds(conf, reserve=True)
    document = "stdout" if cap.sizes["stdout"] or not cap.sizes["combined"] else "combined"
    stdout_path = cap.file(document)  # output recorded as one stream: the combined file
    size = cap.sizes[document]
    data = b""
    if size <= max_bytes:
        with open(stdout_path, "rb") as handle:  # no pathlib (it imports ``re``)
            data = handle.read()
    fits = size <= max_bytes and data.count(b"\n") <= max_lines
    details = dict(base.pop("details"), mode="structured")
    stderr_note = ""
    if cap.sizes["stderr"] and document == "stdout":
        err = preview.bound_file(cap.file("stderr"), 40, 4096, clean=True)
        stderr_note = f"\n[tersh] stderr ({report.human_bytes(cap.sizes['stderr'])}):\n{err.text}"
    if fits:
        text = preview.decode(data)
        complete = not stderr_note or cap.sizes["stderr"] <= 4096
        return _finish(text + stderr_note, complete, cap, {**base, "details": details})
    head = (
        f"[tersh] INCOMPLETE: machine-readable output of {report.human_bytes(size)} does not fit "
        f"the preview; the stdout capture holds the whole document: {stdout_path}"
    )
    # The head line and the stderr preview share the bounds with the document's preview.
    extra = f"{head}\n{stderr_note}"
    bounded = preview.bound_file(stdout_path, max(1, max_lines - extra.count("\n") - 1),
                                 max(256, max_bytes - utf8_len(extra) - 1), clean=False,
                                 filler_bytes=conf.int("preview.filler_bytes"))
    return _finish(f"{head}\n{bounded.text}{stderr_note}", False, cap,
                   {**base, "details": details}, total_lines=bounded.total_lines)


def _collapse_repeats(lines: list[str]) -> tuple[list[str], int]:
    """Runs of 3+ identical lines become one line plus a count; returns (lines, lines removed)."""
    from itertools import islice

    if not any(map(str.__eq__, lines, islice(lines, 1, None))):  # no line repeats: one C-speed pass
        return lines, 0
    out: list[str] = []
    removed = 0
    index = 0
    while index < len(lines):
        end = index + 1
        while end < len(lines) and lines[end] == lines[index]:
            end += 1
        run = end - index
        out.append(lines[index])
        if run >= 3 and lines[index].strip():
            out.append(f"[tersh: previous line repeated {run - 1:,} more times]")
            removed += run - 1
        else:
            out.extend(lines[index + 1 : end])
        index = end
    return out, removed


#: Output at most this long may take the plain path (:func:`_plain`).
PLAIN_MAX_BYTES = 8192
#: ...and at most this many lines: fewer than the generic compactor needs to propose anything
#: (``generic.MIN_RUN``; tests/test_sniff_hints.py holds the two in that order).
PLAIN_MAX_LINES = 3
#: Output is checked for the bytes the clean-up acts on (none: no clean-up) this many at a time.
CLEAN_CHECK_SLICE = 1 << 20
#: Bytes the clean-up acts on: C0 controls but tab and newline (escape and carriage return among
#: them), DEL. No byte of a UTF-8 character past ASCII is one, nor of the replacement character.
_NEEDS_CLEANING = bytes([*range(9), *range(11, 32), 127])
#: Bytes that send a text down the full path: those and non-ASCII.
_NOT_PLAIN = _NEEDS_CLEANING + bytes(range(128, 256))


def _plain(cap: capture_store.Capture, conf: Settings, base: dict[str, Any],
           bypass: bool, parsed: parsing.Parsed) -> Result | None:
    """Short printable ASCII output that no rule claims and that fits the preview: the text as
    it is, decided without loading the preview, the clean-up or any rule (``echo``, ``ls``).

    None sends the output down the full path; when this answers, the answer is the one
    :func:`_compacted` gives (tests/test_pipeline.py holds the two equal).
    """
    if cap.sizes["combined"] > PLAIN_MAX_BYTES:
        return None
    with open(cap.file(), "rb") as handle:
        data = handle.read(PLAIN_MAX_BYTES + 1)
    if len(data) != cap.sizes["combined"] or len(data.translate(None, _NOT_PLAIN)) != len(data):
        return None
    text = data.decode("ascii")
    if text.endswith("\n"):
        text = text[:-1]
    max_lines, max_bytes = _bounds(conf, reserve=True)
    if text.endswith("\n"):
        return None  # trailing blank lines: the full path's clean-up decides what they become
    lines = text.split("\n") if text else []
    if len(lines) > min(max_lines, PLAIN_MAX_LINES) or len(text) > max_bytes:
        return None  # more lines: the generic compactor may shorten them (a run, chatter)
    details: dict[str, Any] = base["details"]
    if not bypass and text:
        from tersh.command.classify import subcommand
        from tersh.compaction import may_claim_any, rule_names_for

        if rule_names_for(parsed.program, subcommand(parsed.args, parsed.program)) or may_claim_any(text):
            return None
        if _collapse_repeats(lines)[1]:
            return None
    base.pop("details")
    details["preview_lines"] = len(lines)
    return _finish(text, True, cap, {**base, "category": None, "rule": None, "details": details})


class _Whole:
    """What :func:`preview.bound_text` answers for a text that fits (see :func:`_bound_text`)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.complete = True
        self.total_lines = text.count("\n") + 1 if text else 0
        self.omitted_lines = 0


def _fits(body: str, max_lines: int, max_bytes: int) -> bool:
    """Whether ``body`` (no final newline) is shown whole within the bounds."""
    return len(body) <= max_bytes and body.count("\n") < max_lines and utf8_len(body) <= max_bytes


def _bound_text(text: str, max_lines: int, max_bytes: int, *, filler_bytes: int,
                whole_text: bool = True) -> _Whole | Preview:
    """``preview.bound_text``; a text that fits is answered here, without importing the
    preview (its patterns cost milliseconds to compile: most outputs fit)."""
    body = text[:-1] if text.endswith("\n") else text
    if _fits(body, max_lines, max_bytes):
        return _Whole(body)
    from tersh.compaction import preview

    return preview.bound_text(text, max_lines, max_bytes, filler_bytes=filler_bytes,
                              whole_text=whole_text)


def _needs_cleaning(data: bytes) -> bool:
    """Whether ``data`` holds a byte of ``_NEEDS_CLEANING`` (else its decoded text is its clean
    text), looked for a slice at a time (no copy of the whole output)."""
    for start in range(0, len(data), CLEAN_CHECK_SLICE):
        piece = data[start : start + CLEAN_CHECK_SLICE]
        if len(piece.translate(None, _NEEDS_CLEANING)) != len(piece):
            return True
    return False


def _cleaned(text: str) -> str:
    """``compaction.clean.clean(text)``."""
    from tersh.compaction import clean as cleaning

    return cleaning.clean(text)


def _compacted(cap: capture_store.Capture, conf: Settings, base: dict[str, Any],
               bypass: bool, parsed: parsing.Parsed) -> Result:
    """Clean, pick and verify a rule, bound, report."""
    with open(cap.file(), "rb") as handle:  # cap.file(): a str path, no pathlib import
        data = handle.read()
    notes = _encoding_notes(data)
    raw = data.decode("utf-8", "replace")  # as preview.decode, without importing the preview
    # Text without escapes, carriage returns and controls holds nothing the clean-up changes:
    # it is not asked (nor imported, for short output) to find that out at several times the cost.
    cleaned = raw if bypass or not _needs_cleaning(data) else _cleaned(raw)
    text = cleaned[:-1] if cleaned.endswith("\n") else cleaned
    details: dict[str, Any] = base.pop("details")
    pricing = _Pricing(cap, conf, base, notes, cleaned)
    if bypass or not text:
        return pricing.settled(text, None, details)
    from tersh.compaction import compact_text

    inv = _invocation(parsed, base["exit_code"])
    min_saving = float(conf["tools.min_saving"])
    outcome = compact_text(text, inv, min_saving, pricing.affordable)
    result = pricing.settled(text, outcome, dict(details))
    if pricing.skipped and not pricing.is_source(result):
        # A proposal refused unverified might have been accepted, and then the source would have
        # been the answer: only the verifier can say, so the call is decided with it.
        result = pricing.settled(text, compact_text(text, inv, min_saving), details)
    return result


class _Pricing:
    """Whether a compaction pays for its capture report (SPEC §3), for one call's output.

    A compaction that does not is replaced by the plain source. :meth:`affordable` answers that
    for a proposal before the verifier is asked (``compaction.apply``): when every proposal
    refused so is followed by the source anyway, the verifier's answer could not change the
    text, and :func:`_compacted` keeps it; otherwise it decides again with the verifier.
    """

    def __init__(self, cap: capture_store.Capture, conf: Settings, base: dict[str, Any],
                 notes: list[str], cleaned: str) -> None:
        self.cap, self.base, self.notes, self.cleaned = cap, base, notes, cleaned
        self.max_lines, self.max_bytes = _bounds(conf, reserve=True)
        self.full_lines, self.full_bytes = _bounds(conf, reserve=False)
        self.filler = conf.int("preview.filler_bytes")
        self.floor = 1.0 - float(conf["tools.min_saving"])  # SPEC §3: a saving under 10% is not applied
        self.skipped = 0
        self._plain: _Whole | Preview | None = None
        self._whole_fits: bool | None = None

    def plain(self) -> _Whole | Preview:
        """The cleaned source, bounded as a complete answer (no report to make room for)."""
        if self._plain is None:
            self._plain = _bound_text(self.cleaned.rstrip("\n"), self.full_lines, self.full_bytes,
                                      filler_bytes=self.filler)
        return self._plain

    def source_fits(self) -> bool:
        """Whether :meth:`plain` is complete: the source fits the bounds whole (a preview of a
        text that does not is always cut, tests/test_preview.py), so a source too large is
        never bounded here only to be found incomplete."""
        if self._whole_fits is None:
            self._whole_fits = (self._plain.complete if self._plain is not None
                          else _fits(self.cleaned.rstrip("\n"), self.full_lines, self.full_bytes))
        return self._whole_fits

    def shown(self, text: str, whole_text: bool) -> _Whole | Preview:
        """``text`` (after the encoding notes) bounded to leave room for a report."""
        return _bound_text("\n".join([*self.notes, text]) if self.notes else text, self.max_lines,
                           self.max_bytes, filler_bytes=self.filler, whole_text=whole_text)

    def source_instead(self, shown: str, details: dict[str, Any]) -> bool:
        """Whether ``shown``, a compaction that fits, saves too little to pay for its report."""
        if not self.source_fits():
            return False
        candidate = _finish(shown, False, self.cap, {**self.base, "details": dict(details)})
        return not saves_enough(candidate.text, self.plain().text, self.floor)

    def affordable(self, proposal: str) -> bool:
        """False when ``proposal``, accepted, would give way to the plain source."""
        body = "\n".join([*self.notes, proposal]) if self.notes else proposal
        if not _fits(body[:-1] if body.endswith("\n") else body, self.max_lines, self.max_bytes):
            return True  # bounded, it is shown with its report whatever it saves
        if not self.source_instead(self.shown(proposal, whole_text=False).text, {}):
            return True
        self.skipped += 1
        return False

    def is_source(self, result: Result) -> bool:
        """Whether ``result`` is the plain source exactly, as a complete answer."""
        return result.complete and self.source_fits() and result.text == self.plain().text

    def settled(self, text: str, outcome: Outcome | None, details: dict[str, Any]) -> Result:
        """The model's text for ``text`` given the registry's ``outcome`` (None: not compacted)."""
        category = rule = None
        omitted = False
        if outcome is not None:
            if outcome.rule:
                details["rule"] = outcome.rule
                details["rule_applied"] = outcome.applied
                if outcome.refused:
                    details["refused"] = outcome.refused
            if outcome.applied:
                text, category, rule, omitted = outcome.text, outcome.category, outcome.rule, True
            else:
                lines, removed = _collapse_repeats(text.split("\n"))
                if removed:
                    text, omitted = "\n".join(lines), True
                    details["collapsed_repeats"] = removed
        bounded = self.shown(text, whole_text=rule is None)
        complete = bounded.complete and not omitted and not self.notes
        if omitted and bounded.complete and self.source_instead(bounded.text, details):
            # The compaction must pay for its own report, or the cleaned source is used instead.
            details["kept_source"] = "compaction saved too little to pay for its report"
            return _finish(self.plain().text, True, self.cap, {**self.base, "details": details})
        details["preview_lines"] = bounded.total_lines - bounded.omitted_lines
        if not bounded.complete:
            details["preview_omitted_lines"] = bounded.omitted_lines
        return _finish(bounded.text, complete, self.cap,
                       {**self.base, "category": category, "rule": rule, "details": details},
                       total_lines=None)


def _streamed(cap: capture_store.Capture, conf: Settings, base: dict[str, Any],
              bypass: bool) -> Result:
    """Too large for the rules: a bounded preview read straight from the capture file."""
    from tersh.compaction import preview

    max_lines, max_bytes = _bounds(conf, reserve=True)
    bounded = preview.bound_file(cap.file(), max_lines, max_bytes, clean=not bypass,
                                 filler_bytes=conf.int("preview.filler_bytes"))
    details = dict(base.pop("details"), mode="streamed")
    return _finish(bounded.text, bounded.complete, cap, {**base, "details": details},
                   total_lines=bounded.total_lines)


def _rtk_filtered(cap: capture_store.Capture, conf: Settings, base: dict[str, Any],
                  rtk_pipe: tuple[str, str], parsed: parsing.Parsed) -> Result | None:
    """RTK's text for a filtered call when the verifier accepts it, else None (tersh compacts).

    RTK filters the complete capture (``rtk pipe -f``); its text must keep every protected fact,
    must not contradict the exit code and must pay for its capture report, like a rule's.
    ``details["rtk"]`` records the outcome either way.
    """
    from tersh.compaction import clean as cleaning
    from tersh.compaction import preview
    from tersh.execution.rewrite import rtk_filter

    path, name = rtk_pipe
    info: dict[str, Any] = {"filter": name}
    base["details"]["rtk"] = info
    data = cap.path().read_bytes()
    if _encoding_notes(data):
        info.update(outcome="failed", rtk_bytes=0, reason="output is not plain UTF-8 text")
        return None
    source = cleaning.clean(preview.decode(data)).rstrip("\n")
    inv = _invocation(parsed, base["exit_code"])
    try:
        verdict = rtk_filter.apply(path, name, data, source, inv)
    except Exception as exc:  # fail open: tersh's own compaction
        verdict = rtk_filter.Filtered("failed", "", f"rtk filter raised {type(exc).__name__}", 0)
    info.update(outcome=verdict.outcome, rtk_bytes=verdict.rtk_bytes)
    if verdict.reason:
        info["reason"] = verdict.reason
    if verdict.outcome != "accepted":
        return None
    max_lines, max_bytes = _bounds(conf, reserve=True)
    bounded = preview.bound_text(verdict.text, max_lines, max_bytes)
    candidate = _finish(bounded.text, False, cap, {**base, "category": "rtk", "rule": f"rtk:{name}",
                                                   "details": dict(base["details"])})
    full_lines, full_bytes = _bounds(conf, reserve=False)
    plain = preview.bound_text(source, full_lines, full_bytes)
    floor = 1.0 - float(conf["tools.min_saving"])  # SPEC §3, as for a rule's compaction
    if plain.complete and not saves_enough(candidate.text, plain.text, floor):
        info.update(outcome="refused", reason="saved too little to pay for its report")
        return None
    return candidate


#: Output of more lines than this goes to the streaming preview (:func:`_streamed`): rules, the
#: verifier and the generic compactor read a text line by line in Python, a few microseconds a
#: line, and hold each line as an object (about 60 bytes of it), so a flood of short lines would
#: cost seconds and hundreds of MB. The largest real outputs of the corpus have about 18,000.
MAX_INPUT_LINES = 25_000


def _fits_in_memory(cap: capture_store.Capture, conf: Settings) -> bool:
    """Whether the output is small enough, in bytes and in lines, to be compacted as one text
    (``compact.max_input_bytes``, :data:`MAX_INPUT_LINES`); the lines are counted in chunks,
    stopping at the bound."""
    size = cap.sizes["combined"]
    if size > conf.int("compact.max_input_bytes"):
        return False
    if size <= MAX_INPUT_LINES:  # fewer bytes than the bound has lines
        return True
    lines = 0
    with open(cap.file(), "rb") as handle:
        while chunk := handle.read(1 << 20):
            lines += chunk.count(b"\n")
            if lines > MAX_INPUT_LINES:
                return False
    return True


def process(cap: capture_store.Capture, *, requested: str, executed: str, exit_code: int,
            conf: Settings, decision: policy.Decision, duration_s: float = 0.0,
            details: Mapping[str, Any] | None = None,
            rtk_pipe: tuple[str, str] | None = None,
            parsed: parsing.Parsed | None = None) -> Result:
    """Turn a finished capture into the model's text and the call's record.

    ``rtk_pipe`` (RTK's verified path, a pipe filter) asks RTK to filter the capture first; its
    text is used only when the verifier accepts it. ``parsed`` is ``requested`` lexed already
    (``tersh.command.parsed``; lexed here when not given).
    """
    base: dict[str, Any] = {
        "exit_code": exit_code,
        "requested_command": requested,
        "executed_command": executed,
        "duration_s": duration_s,
        "details": dict(details or {}),
    }
    if decision.bypass:
        base["details"]["bypass"] = decision.reason
    if cap.sizes["combined"] == 0:
        return Result(text="", input_bytes=0, output_bytes=0, capture_id=cap.id, **base)
    if decision.machine_readable:
        return _structured(cap, conf, base)
    if not _fits_in_memory(cap, conf):
        return _streamed(cap, conf, base, decision.bypass)
    parsed = parsed or parsing.parse(requested)
    if rtk_pipe is not None and not decision.bypass:
        filtered = _rtk_filtered(cap, conf, base, rtk_pipe, parsed)
        if filtered is not None:
            return filtered
    return (_plain(cap, conf, base, decision.bypass, parsed)
            or _compacted(cap, conf, base, decision.bypass, parsed))


def compact(command: str, exit_code: int, *, combined: bytes | None = None,
            stdout: bytes | None = None, stderr: bytes | None = None,
            conf: Settings | None = None, executed: str | None = None,
            rtk_pipe: tuple[str, str] | None = None) -> Result:
    """Compact output recorded elsewhere (it is stored as a capture too); ``rtk_pipe`` as for
    :func:`process`."""
    import io

    sources = {name: io.BytesIO(data) for name, data in
               (("combined", combined), ("stdout", stdout), ("stderr", stderr)) if data is not None}
    return compact_files(command, exit_code, sources, conf=conf, executed=executed, rtk_pipe=rtk_pipe)


def compact_files(command: str, exit_code: int, sources: Mapping[str, BinaryIO], *,
                  conf: Settings | None = None, executed: str | None = None,
                  rtk_pipe: tuple[str, str] | None = None) -> Result:
    """Like :func:`compact`, reading the streams from open files in chunks (bounded memory)."""
    from tersh import settings as settings_mod
    from tersh.recording import calls as recording

    conf = conf or settings_mod.load()
    cap = capture_store.store_files(command, dict(sources), exit_code)
    parsed = parsing.parse(command)
    decision = policy.decide(command, script=parsed.script)
    result = process(cap, requested=command, executed=executed or command, exit_code=exit_code,
                     conf=conf, decision=decision, rtk_pipe=rtk_pipe, parsed=parsed)
    recording.after_call(result, conf, program=parsed.program or "?", klass=parsed.klass)
    return result


def _invocation(parsed: parsing.Parsed, exit_code: int) -> Invocation:
    """What the rules read of a call: ``tersh.compaction.kit.base.Invocation``."""
    from tersh.compaction.kit.base import Invocation

    return Invocation(parsed.command, parsed.program, parsed.args, exit_code)
