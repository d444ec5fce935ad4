"""The settings page's web app (Starlette) and the loopback server that runs it (uvicorn).

Routes: the page itself (``/``, ``/app.js``, ``/app.css``, ``/icon.svg``) and a small JSON API
under ``/api/``. Every request passes :class:`tersh.ui.guard.Guard` (Host, origin, token, JSON
content type). Handlers that touch files or SQLite are plain functions, which Starlette runs in a
worker thread.
"""

from __future__ import annotations

import socket
from importlib import resources
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tersh.errors import TershError
from tersh.ui import forms, guard, rtk_retry, viewer, views

if TYPE_CHECKING:
    from collections.abc import Callable

HOST = "127.0.0.1"
MAX_BODY_BYTES = 64 * 1024
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
    "/icon.svg": ("icon.svg", "image/svg+xml"),
}


def _static(request: Request) -> Response:
    name, media_type = STATIC[request.url.path]
    data = resources.files("tersh.ui").joinpath("static", name).read_bytes()
    return Response(data, media_type=media_type)


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _int_param(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise TershError(f"{name} must be a whole number") from exc


def _guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Response]:
    """Turn a handler's TershError into a 400 with its message (never a traceback)."""

    def endpoint(request: Request) -> Response:
        try:
            return JSONResponse(handler(request))
        except TershError as exc:
            return _error(str(exc))

    return endpoint


def _overview(request: Request) -> Any:
    return views.overview()


def _daily(request: Request) -> Any:
    days = max(1, min(_int_param(request, "days", 30), 366))
    return views.daily(days)


def _results(request: Request) -> Any:
    return views.recent_results(max(1, min(_int_param(request, "limit", 30), 200)))


def _captures(request: Request) -> Any:
    return views.recent_captures(max(1, min(_int_param(request, "limit", 50), 500)))


def _capture_page(request: Request) -> Any:
    params = request.query_params
    limit = params.get("limit")
    return viewer.page(
        request.path_params["capture_id"],
        mode=params.get("mode", "bytes"),
        offset=_int_param(request, "offset", 0),
        limit=None if not limit else _int_param(request, "limit", 0),
        stream=params.get("stream", "combined"),
        query=params.get("query") or None,
    )


async def _change_settings(request: Request) -> Response:
    from starlette.concurrency import run_in_threadpool

    body = await _json_body(request)
    if isinstance(body, Response):
        return body
    try:
        await run_in_threadpool(forms.apply, body.get("changes") if isinstance(body, dict) else None)
    except TershError as exc:
        return _error(str(exc))
    return JSONResponse(await run_in_threadpool(views.overview))


async def _retry_rtk(request: Request) -> Response:
    from starlette.concurrency import run_in_threadpool

    body = await _json_body(request)
    if isinstance(body, Response):
        return body
    return JSONResponse({"rtk": await run_in_threadpool(rtk_retry.retry)})


async def _json_body(request: Request) -> Any:
    """The request's JSON document, or an error response (too large, not JSON)."""
    import json

    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        return _error("request too large", 413)
    try:
        return json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        return _error("the body is not JSON")


def create_app(*, token: str, port: int) -> Starlette:
    """The page and its API for a server on ``127.0.0.1:port`` guarded by ``token``."""
    routes = [Route(path, _static, methods=["GET", "HEAD"]) for path in STATIC]
    routes += [
        Route("/api/overview", _guarded(_overview), methods=["GET"]),
        Route("/api/savings/daily", _guarded(_daily), methods=["GET"]),
        Route("/api/results", _guarded(_results), methods=["GET"]),
        Route("/api/captures", _guarded(_captures), methods=["GET"]),
        Route("/api/captures/{capture_id}", _guarded(_capture_page), methods=["GET"]),
        Route("/api/settings", _change_settings, methods=["POST"]),
        Route("/api/rtk/retry", _retry_rtk, methods=["POST"]),
    ]
    middleware = [Middleware(guard.Guard, token=token, port=port)]
    return Starlette(routes=routes, middleware=middleware, max_body_size=MAX_BODY_BYTES)


def bind(port: int = 0) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` 0 picks a free one); TershError when taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        raise TershError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}") from exc
    sock.set_inheritable(True)
    return sock


def url(port: int, token: str) -> str:
    """The address to open: the token travels in the fragment, which is never sent to a server."""
    return f"http://{HOST}:{port}/#token={token}"


def serve(sock: socket.socket, token: str) -> None:
    """Serve the page on ``sock`` until interrupted."""
    import uvicorn

    port = int(sock.getsockname()[1])
    config = uvicorn.Config(
        create_app(token=token, port=port), log_level="warning", access_log=False,
        server_header=False, proxy_headers=False, lifespan="off",
    )
    uvicorn.Server(config).run(sockets=[sock])
