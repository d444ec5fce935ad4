"""The gate of the settings page: token, Host header, origin, JSON content type, headers."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from tersh.ui import guard, server
from tersh.ui.server import create_app

from .conftest import ORIGIN, PORT, TOKEN, Served

READS = ["/api/overview", "/api/savings/daily", "/api/results", "/api/captures",
         "/api/captures/c0123456789ab"]
WRITES = ["/api/settings", "/api/rtk/retry"]


@pytest.mark.parametrize("path", READS)
def test_a_read_without_the_token_is_refused(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 401
    assert "token" in response.json()["error"]


@pytest.mark.parametrize("path", WRITES)
def test_a_write_without_the_token_is_refused_and_changes_nothing(
    client: TestClient, path: str, tersh_home: Path
) -> None:
    response = client.post(path, json={"changes": {"enabled": True}})
    assert response.status_code == 401
    assert not (tersh_home / "settings.toml").exists()
    assert not (tersh_home / "state").exists()


@pytest.mark.parametrize("token", ["", "wrong", TOKEN[:-1], TOKEN + "x", TOKEN.upper()])
def test_a_wrong_token_is_refused(client: TestClient, token: str) -> None:
    assert client.get("/api/overview", headers={"X-Tersh-Token": token}).status_code == 401


def test_the_token_in_a_query_or_cookie_is_not_enough(client: TestClient) -> None:
    assert client.get(f"/api/overview?token={TOKEN}").status_code == 401
    client.cookies.set("X-Tersh-Token", TOKEN)
    assert client.get("/api/overview").status_code == 401


def test_the_right_token_is_accepted(client: TestClient, auth: dict[str, str]) -> None:
    assert client.get("/api/overview", headers=auth).status_code == 200


@pytest.mark.parametrize(
    "host",
    ["evil.example", f"evil.example:{PORT}", "127.0.0.1", f"127.0.0.1:{PORT + 1}",
     f"localhost:{PORT}.evil.example", f"0.0.0.0:{PORT}", f"[::1]:{PORT}", ""],
)
def test_a_bad_host_is_refused_for_the_page_and_the_api(
    client: TestClient, auth: dict[str, str], host: str
) -> None:
    for path in ("/", "/app.js", "/api/overview"):
        response = client.get(path, headers={**auth, "Host": host})
        assert response.status_code == 421, (path, host)


@pytest.mark.parametrize("host", [f"127.0.0.1:{PORT}", f"localhost:{PORT}"])
def test_the_loopback_names_of_this_port_are_accepted(
    client: TestClient, auth: dict[str, str], host: str
) -> None:
    assert client.get("/api/overview", headers={**auth, "Host": host}).status_code == 200


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=40))
def test_no_other_host_value_gets_through(host: str) -> None:
    refused = guard.Guard(_unused_app, token=TOKEN, port=PORT).refusal(
        {"type": "http", "path": "/api/overview", "method": "GET",
         "headers": [(b"host", host.encode()), (b"x-tersh-token", TOKEN.encode())]}
    )
    assert (refused is None) == (host in {f"127.0.0.1:{PORT}", f"localhost:{PORT}"})


async def _unused_app(scope: object, receive: object, send: object) -> None:
    raise AssertionError("not reached")


@pytest.mark.parametrize("origin", ["http://evil.example", f"http://127.0.0.1:{PORT + 1}", "null"])
def test_another_origin_is_refused_even_with_the_token(
    client: TestClient, auth: dict[str, str], origin: str, tersh_home: Path
) -> None:
    response = client.post("/api/settings", headers={**auth, "Origin": origin},
                           json={"changes": {"enabled": True}})
    assert response.status_code == 403
    assert not (tersh_home / "settings.toml").exists()


def test_a_cross_site_fetch_is_refused(client: TestClient, auth: dict[str, str]) -> None:
    response = client.get("/api/overview", headers={**auth, "Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403


def test_its_own_origin_is_accepted(client: TestClient, auth: dict[str, str]) -> None:
    response = client.post("/api/settings", headers={**auth, "Origin": ORIGIN},
                           json={"changes": {"enabled": True}})
    assert response.status_code == 200


@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
def test_a_state_change_needs_a_json_content_type(
    client: TestClient, auth: dict[str, str], content_type: str | None, tersh_home: Path
) -> None:
    headers = dict(auth)
    if content_type:
        headers["Content-Type"] = content_type
    body = json.dumps({"changes": {"enabled": True}}).encode()
    response = client.post("/api/settings", headers=headers, content=body)
    assert response.status_code == 415
    assert not (tersh_home / "settings.toml").exists()


def test_no_cors_header_is_ever_sent(client: TestClient, auth: dict[str, str]) -> None:
    preflight = client.options(
        "/api/settings",
        headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "x-tersh-token,content-type"},
    )
    answers = [preflight, client.get("/api/overview", headers=auth), client.get("/")]
    for response in answers:
        assert not any(name.lower().startswith("access-control-") for name in response.headers)


def test_every_response_carries_a_strict_policy(client: TestClient) -> None:
    for response in (client.get("/"), client.get("/api/overview"), client.get("/", headers={"Host": "x"})):
        policy = response.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cache-control"] == "no-store"


def test_the_page_itself_holds_no_secret_and_loads_nothing_remote(client: TestClient) -> None:
    for path in ("/", "/app.js", "/app.css", "/icon.svg"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert TOKEN not in response.text
        assert "https://" not in response.text and "//cdn" not in response.text, path


def test_unknown_paths_are_not_served(client: TestClient, auth: dict[str, str]) -> None:
    for path in ("/settings.toml", "/index.html", "/static/app.js", "/api/nothing", "/app.js.map"):
        assert client.get(path, headers=auth).status_code == 404, path


def test_bind_listens_on_loopback_only() -> None:
    sock = server.bind(0)
    try:
        host, port = sock.getsockname()
        assert host == "127.0.0.1" and port > 0
    finally:
        sock.close()


def test_bind_reports_a_taken_port() -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        with pytest.raises(Exception, match="cannot listen"):
            server.bind(taken.getsockname()[1])
    finally:
        taken.close()


def test_each_launch_gets_its_own_long_token() -> None:
    tokens = {guard.new_token() for _ in range(50)}
    assert len(tokens) == 50
    assert all(len(token) >= 40 for token in tokens)


def test_the_real_command_prints_its_url_and_guards_its_api(served: Served) -> None:
    assert served.url.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(served.base + "/", timeout=10) as response:
        assert response.status == 200
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(served.base + "/api/overview", timeout=10)
    assert refused.value.code == 401
    request = urllib.request.Request(served.base + "/api/overview",
                                     headers={"X-Tersh-Token": served.token})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.loads(response.read())["enabled"] is False


def test_the_real_command_refuses_a_rebound_host_name(served: Served) -> None:
    request = urllib.request.Request(served.base + "/api/overview",
                                     headers={"X-Tersh-Token": served.token,
                                              "Host": f"attacker.example:{served.port}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 421


def test_an_app_for_another_port_refuses_this_ones_host() -> None:
    other = TestClient(create_app(token=TOKEN, port=PORT + 7), base_url=ORIGIN)
    assert other.get("/api/overview", headers={"X-Tersh-Token": TOKEN}).status_code == 421


def test_the_command_takes_a_port_and_refuses_a_bad_one() -> None:
    from tests.clihelp import tersh

    refused = tersh(["ui", "--no-open", "--port", "70000"])
    assert refused.returncode == 2 and b"--port" in refused.stderr
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        busy = tersh(["ui", "--no-open", "--port", str(taken.getsockname()[1])])
    finally:
        taken.close()
    assert busy.returncode == 2 and b"cannot listen" in busy.stderr


def test_the_command_listens_on_the_port_it_is_given(tersh_home: Path) -> None:
    import os
    import subprocess
    import sys

    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    process = subprocess.Popen([sys.executable, "-m", "tersh", "ui", "--no-open", "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=dict(os.environ))
    try:
        assert process.stdout is not None
        assert f"http://127.0.0.1:{port}/#token=" in process.stdout.readline()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.status == 200
    finally:
        process.terminate()
        process.wait(timeout=10)
