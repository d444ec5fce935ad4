"""A model server on 127.0.0.1 for driving the real agent hosts in tests.

Each host module gives it a ``reply`` function for its own wire protocol (Anthropic Messages,
OpenAI Chat Completions / Responses, Gemini generateContent); the server records every request
it receives, so a test can assert on exactly what the model would have been sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple


class Request(NamedTuple):
    """One request the host sent to the model server."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it is not JSON


class Reply(NamedTuple):
    """What the server answers: a status, a content type and the body's pieces (streamed)."""

    status: int
    content_type: str
    chunks: Iterable[bytes]


Responder = Callable[[Request], Reply]


def json_reply(document: object, status: int = 200) -> Reply:
    """A complete JSON answer."""
    return Reply(status, "application/json", [json.dumps(document).encode()])


def sse_reply(events: Iterable[tuple[str | None, object]]) -> Reply:
    """A server-sent-events stream of ``(event name or None, JSON data)`` pairs."""

    def chunks() -> Iterator[bytes]:
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            text = data if isinstance(data, str) else json.dumps(data)
            yield f"{head}data: {text}\n\n".encode()

    return Reply(200, "text/event-stream", chunks())


class FakeModel:
    """A threaded HTTP server on 127.0.0.1 (an ephemeral port) that records every request."""

    def __init__(self, respond: Responder) -> None:
        self.respond = respond
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` of the running server."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeModel:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()

    def record(self, request: Request) -> None:
        """Keep ``request`` (thread-safe)."""
        with self._lock:
            self.requests.append(request)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return  # quiet: the recorded requests are the log

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                text = raw.decode("utf-8", "replace")
                try:
                    body: Any = json.loads(text) if text else None
                except ValueError:
                    body = text
                headers = {key.lower(): value for key, value in self.headers.items()}
                request = Request(self.command, self.path, headers, body)
                model.record(request)
                try:
                    reply = model.respond(request)
                except Exception as error:  # a broken script must show, not hang the host
                    reply = json_reply({"error": {"message": f"fake model: {error!r}"}}, 500)
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                for chunk in reply.chunks:
                    if chunk:
                        self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                        self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            do_POST = _serve
            do_GET = _serve
            do_PUT = _serve

        return Handler


@contextmanager
def serving(respond: Responder) -> Iterator[FakeModel]:
    """A running :class:`FakeModel` for the ``with`` block."""
    model = FakeModel(respond).start()
    try:
        yield model
    finally:
        model.stop()
