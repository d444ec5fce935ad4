"""Whether a large text may hold a fact line, asked of the system's grep (C speed, in its own
process) before the bulk scan is made to find them.

The generic compactor leaves a flood of lines with no diagnostic and no location to the preview;
finding that it holds none costs the bulk scan (``verify.scan.fact_lines``) tens of millions of
instructions a megabyte. grep with the preview's candidate pattern (``preview._GREP_FACTS``: every
line that may be a fact line, and more) says at C speed that no line may be one; when it finds a
line, or cannot answer, the scan decides. grep stops at the first line it finds (``-q``).

The last text grep cleared is handed to the preview (``preview.note_cleared``): the preview of
that same text then knows grep would print no fact line of it and does not start grep again.
"""

from __future__ import annotations

import os

#: Under this many characters the scan costs less than starting a grep (preview.GREP_MIN_BYTES).
MIN_CHARS = 256 << 10



def may_hold_fact_lines(text: str) -> bool:
    """False only when grep finds no line of ``text`` that may be a fact line (a diagnostic or a
    location, as ``verify.scan.fact_lines`` reads them): then ``fact_lines(text)`` is empty.
    True when grep finds one, or cannot answer (none on PATH, no ``memfd_create``, an error)."""
    from tersh.compaction import preview

    grep = preview._grep()
    memfd_create = getattr(os, "memfd_create", None)
    if grep is None or memfd_create is None:
        return True
    try:
        fd = memfd_create("tersh-screen")
    except OSError:
        return True
    try:
        preview._write_all(fd, text.encode("utf-8", "surrogatepass"))
        os.lseek(fd, 0, os.SEEK_SET)
        argv = [grep.encode(), b"-q", b"-a", b"-E", b"-i", b"--", preview._GREP_FACTS, b"-"]
        process = preview._Grep(grep, argv, {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")}, fd)
        try:
            process.output.read()
            found = process.finish()
        finally:
            process.stop()
    except OSError:
        return True
    finally:
        os.close(fd)
    if found == 1:
        preview.note_cleared(text)
    return found != 1  # 0: a line found; 1: none; else an error (grep -q: 0 even after one)
