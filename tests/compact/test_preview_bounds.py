"""The preview holds its bounds in every mode, machine-readable output with stderr included."""

from __future__ import annotations

from pathlib import Path

import pytest

from tersh import settings
from tersh.execution import pipeline


@pytest.mark.parametrize("stderr_lines", [0, 40, 5000])
def test_machine_readable_output_and_stderr_stay_within_the_bounds(
    stderr_lines: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERSH_HOME", str(tmp_path))
    conf = settings.Settings()
    document = b"[\n" + b"".join(b'  {"id": %d, "name": "item-%d"},\n' % (i, i) for i in range(4000)) + b"]\n"
    errors = b"".join(b"warning: slow response from shard %d after 1200ms\n" % i for i in range(stderr_lines))
    result = pipeline.compact(
        "tool list --json", 0, stdout=document, stderr=errors, combined=document + errors, conf=conf
    )
    assert result.details.get("mode") == "structured"
    assert len(result.text.encode()) <= conf.int("preview.max_bytes")
    assert result.text.count("\n") + 1 <= conf.int("preview.max_lines")
    assert not result.complete and "tersh retrieve" in result.text
