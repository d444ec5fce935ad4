"""tersh's shell prefix wraps hooks and stdio MCP servers too: they must pass through untouched.

Inside the real Claude Code, with tersh installed and enabled, a user's own hook and a user's
stdio MCP server (arguments with spaces, quotes and shell characters) must run exactly as they
would without tersh: the same argv, the same stdin, their own output and exit code.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.e2e import anthropic, anthropic_claude

SERVER = r"""
import json, sys
open(sys.argv[1], "w").write(json.dumps(sys.argv[2:]))
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message["method"]
    if method == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "probe", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "description": "echo", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "probe says " + " | ".join(sys.argv[2:])}]}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""
ARGS = ["a b", "$HOME;x", "it's", '"q"', "*"]


def test_hooks_and_mcp_servers_run_as_without_tersh(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    server = tmp_path / "server.py"
    server.write_text(SERVER)
    argv_file, hook_file, stdin_file = tmp_path / "argv.json", tmp_path / "hook.txt", tmp_path / "stdin.json"
    hook = f"cat > {stdin_file}; printf '%s' \"$((6*7))\" > {hook_file}"
    settings = {
        "permissions": {"defaultMode": "bypassPermissions"},
        "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]},
    }
    config = {
        "mcpServers": {"probe": {"command": sys.executable, "args": [str(server), str(argv_file), *ARGS]}}
    }
    calls = [anthropic.bash("echo from bash"), anthropic.ToolCall("mcp__probe__echo", {})]
    run = anthropic_claude.run_claude(
        workdir,
        calls,
        settings=settings,
        tersh=True,
        home=tmp_path / "home",
        before=["--mcp-config", json.dumps(config)],
        extra_env={"ENABLE_TOOL_SEARCH": "false"},  # MCP tools offered directly, not deferred
    )
    assert run.code == 0, run.stderr[-2000:]
    installed = json.loads((tmp_path / "home" / ".claude" / "settings.json").read_text())
    assert installed["env"]["CLAUDE_CODE_SHELL_PREFIX"].endswith("tersh-shell-prefix")
    assert json.loads(argv_file.read_text()) == ARGS  # the server's argv, byte for byte
    assert hook_file.read_text() == "42"  # the hook ran in a shell, as the host runs it
    payload = json.loads(stdin_file.read_text())  # the hook's stdin reached it whole
    assert payload["tool_name"] == "Bash" and payload["tool_input"]["command"] == "echo from bash"
    assert run.results() == ["from bash", "probe says " + " | ".join(ARGS)]
