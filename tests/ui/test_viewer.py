"""The "Full details" viewer: bounded pages of a capture, by bytes or lines, and search."""

from __future__ import annotations

import contextlib
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from tersh.errors import TershError
from tersh.recording import calls, ledger
from tersh.recording import captures as capture
from tersh.ui import viewer

from .conftest import TOKEN

BIG_LINES = 1_000_000  # 1,000,000 lines of ~52 bytes: a little over 50 MB


def _page(client: TestClient, capture_id: str, **params: Any) -> Any:
    response = client.get(f"/api/captures/{capture_id}", params=params,
                          headers={"X-Tersh-Token": TOKEN})
    assert response.status_code == 200, response.text
    return response.json()


def _line(number: int) -> bytes:
    return b"%07d log line of a long build, nothing to see here ....\n" % number


@pytest.fixture
def big_capture() -> Iterator[capture.Capture]:
    """A 50 MB capture with one marker line in the middle."""
    body = bytearray()
    for number in range(1, BIG_LINES + 1):
        body += b"error: MARKER-7f3a found here\n" if number == 654_321 else _line(number)
    yield capture.store_bytes("make everything", {"combined": bytes(body)}, 2)


@contextlib.contextmanager
def _peak_memory() -> Iterator[list[int]]:
    peak: list[int] = []
    tracemalloc.start()
    try:
        yield peak
    finally:
        peak.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()


@pytest.mark.slow
def test_pages_through_a_50_mb_capture_without_loading_it(
    client: TestClient, big_capture: capture.Capture
) -> None:
    data = big_capture.path().read_bytes()
    size = len(data)
    assert size > 50_000_000
    with _peak_memory() as peak:
        first = _page(client, big_capture.id, mode="bytes")
        second = _page(client, big_capture.id, mode="bytes", offset=first["next_offset"])
        middle = _page(client, big_capture.id, mode="bytes", offset=size // 2, limit=4096)
        last = _page(client, big_capture.id, mode="bytes", offset=size - 1000)
    assert peak[0] < 8_000_000, f"a page should never hold the capture: peak {peak[0]:,} bytes"
    assert first["size"] == size and first["offset"] == 0
    assert first["end_offset"] == first["next_offset"] == 65536
    assert first["text"].encode() == data[:65536]
    assert second["offset"] == 65536 and second["text"].encode() == data[65536:131072]
    assert middle["text"].encode() == data[size // 2 : size // 2 + 4096]
    assert last["next_offset"] is None and last["end_offset"] == size
    assert last["text"].encode() == data[-1000:]


@pytest.mark.slow
def test_finds_and_opens_a_line_deep_in_a_50_mb_capture(
    client: TestClient, big_capture: capture.Capture
) -> None:
    with _peak_memory() as peak:
        found = _page(client, big_capture.id, query="marker-7F3A")
        lines = _page(client, big_capture.id, mode="lines", offset=654_320, limit=3)
    assert peak[0] < 8_000_000
    assert found["mode"] == "search" and found["more"] == 0
    assert found["lines"] == [{"number": 654_321, "text": "error: MARKER-7f3a found here"}]
    assert [line["number"] for line in lines["lines"]] == [654_321, 654_322, 654_323]
    assert lines["lines"][0]["text"] == "error: MARKER-7f3a found here"
    assert lines["total_lines"] == BIG_LINES and lines["next_offset"] == 654_323


def test_a_page_is_bounded_whatever_the_limit(client: TestClient) -> None:
    cap = capture.store_bytes("yes", {"combined": b"y\n" * 400_000}, 0)
    page = _page(client, cap.id, mode="bytes", limit=10_000_000)
    assert len(page["text"]) == 256 * 1024
    lines = _page(client, cap.id, mode="lines", limit=10_000_000)
    assert len(lines["lines"]) == 2000 and lines["next_offset"] == 2000


def test_a_byte_page_never_ends_inside_a_character(client: TestClient) -> None:
    cap = capture.store_bytes("echo", {"combined": "é".encode() * 10}, 0)
    page = _page(client, cap.id, mode="bytes", limit=5)
    assert page["text"] == "éé" and page["next_offset"] == 4 and page["end_offset"] == 4


def test_text_comes_back_as_data_not_markup(client: TestClient) -> None:
    hostile = b"<script>alert(1)</script>\n\x1b[31mred\x1b[0m <img src=x onerror=alert(2)>\n"
    cap = capture.store_bytes("cat evil", {"combined": hostile}, 0)
    page = _page(client, cap.id)
    assert page["text"] == hostile.decode()
    response = client.get(f"/api/captures/{cap.id}", headers={"X-Tersh-Token": TOKEN})
    assert response.headers["content-type"] == "application/json"


def test_streams_can_be_read_apart(client: TestClient) -> None:
    cap = capture.store_bytes("cmd", {"stdout": b"out\n", "stderr": b"err\n"}, 1)
    assert _page(client, cap.id, stream="stdout")["text"] == "out\n"
    assert _page(client, cap.id, stream="stderr")["text"] == "err\n"
    assert _page(client, cap.id)["text"] == "out\nerr\n"


def test_search_reports_what_it_left_out(client: TestClient) -> None:
    cap = capture.store_bytes("log", {"combined": b"warning: w\n" * 500}, 0)
    found = _page(client, cap.id, query="WARNING")
    assert len(found["lines"]) == 200 and found["more"] == 300


@pytest.mark.parametrize(
    ("capture_id", "params", "message"),
    [
        ("cXYZ", {}, "malformed capture id"),
        ("c0123456789ab", {}, "no capture"),
        ("VALID", {"mode": "everything"}, "mode must be"),
        ("VALID", {"stream": "../../etc/passwd"}, "stream must be"),
        ("VALID", {"offset": "-1"}, "negative"),
        ("VALID", {"offset": "ten"}, "whole number"),
        ("VALID", {"limit": "0"}, "positive"),
    ],
)
def test_bad_requests_are_refused_with_a_reason(
    client: TestClient, capture_id: str, params: dict[str, str], message: str
) -> None:
    if capture_id == "VALID":
        capture_id = capture.store_bytes("x", {"combined": b"x\n"}, 0).id
    response = client.get(f"/api/captures/{capture_id}", params=params,
                          headers={"X-Tersh-Token": TOKEN})
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_an_id_is_checked_before_any_path_is_built(tersh_home: Path) -> None:
    for bad in ("../settings", "c0123456789ab/..", "c0123456789AB", "o123"):
        with pytest.raises(TershError, match="malformed"):
            viewer.page(bad)


def test_reading_in_the_browser_does_not_count_against_the_model_saving(
    client: TestClient,
) -> None:
    from tersh.result import Result

    cap = capture.store_bytes("pytest", {"combined": b"x" * 5000}, 0)
    calls.record(Result(text="x", exit_code=0, requested_command="pytest",
                         executed_command="pytest", input_bytes=5000, output_bytes=1,
                         capture_id=cap.id), session="s", host="cli", program="pytest",
                  klass="tests")
    _page(client, cap.id)
    _page(client, cap.id, query="x")
    with contextlib.closing(ledger.connect()) as db:
        assert db.execute("SELECT COUNT(*) FROM retrievals").fetchone()[0] == 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=3000), limit=st.integers(1, 700))
def test_byte_pages_cover_the_capture_exactly_once(
    tersh_home: Path, data: bytes, limit: int
) -> None:
    cap = capture.store_bytes("bin", {"combined": data}, 0)
    offset, pieces = 0, []
    for _ in range(len(data) + 2):
        page = viewer.page(cap.id, mode="bytes", offset=offset, limit=limit)
        assert page["offset"] == offset and page["end_offset"] >= offset
        pieces.append(data[offset : page["end_offset"]])
        if page["next_offset"] is None:
            break
        assert page["next_offset"] > offset
        offset = page["next_offset"]
    assert b"".join(pieces) == data
