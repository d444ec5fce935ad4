#!/bin/sh
# Install the pinned agent hosts (Claude Code, OpenCode, Gemini CLI, Codex) from npm into
# tests/e2e/node_modules, for the tests that drive the real host binaries. Idempotent: does
# nothing when the installed tree already matches tests/e2e/package-lock.json.
set -eu
cd "$(dirname "$0")/../tests/e2e"
if [ -f node_modules/.installed-lock ] && cmp -s package-lock.json node_modules/.installed-lock; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "install_hosts: npm not found; the real-host tests need node and npm" >&2
    exit 1
fi
echo "install_hosts: installing the pinned agent hosts (npm)" >&2
npm install --no-save --no-audit --no-fund --loglevel=error >/dev/null
cp package-lock.json node_modules/.installed-lock
