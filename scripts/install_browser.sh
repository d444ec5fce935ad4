#!/bin/sh
# Install Debian's chromium for the settings page's browser tests, when it is missing.
# Idempotent and quiet: prints one line only when it installs something or cannot.
# Never downloads a browser through Playwright (`playwright install` is not used).
set -eu

if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_browser: no apt-get here; install chromium yourself to run the browser tests" >&2
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo -n"
    else
        echo "install_browser: not root and no sudo; browser tests will be skipped" >&2
        exit 0
    fi
fi
echo "install_browser: installing Debian's chromium (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq >/dev/null && \
       $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; then
    echo "install_browser: apt-get could not install chromium; browser tests will be skipped" >&2
fi
exit 0
