#!/usr/bin/env bash
# Creates (once) the Python virtual environment the MCP end-to-end tests drive
# `askuser mcp` from, with the official MCP Python SDK at a pinned version, and
# prints the interpreter's path as its last line:
#
#   export ASKUSER_TEST_PYTHON="$(scripts/mcp-venv.sh | tail -n 1)"
#   cargo test -p askuser-mcp
#
# ASKUSER_VENV picks the directory (default .venv). Running it again reuses the
# environment, and only installs when the pinned version is missing.
set -euo pipefail

MCP_VERSION=2.3.0
venv="${ASKUSER_VENV:-.venv}"

if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" >&2; then
        rm -rf "$venv"
        echo "mcp-venv: python3 -m venv failed; on Debian install python3-venv (apt-get install -y python3-venv) and run this again" >&2
        exit 1
    fi
fi
python="$(cd "$venv/bin" && pwd)/python"
if ! "$python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP_VERSION')" 2>/dev/null; then
    "$python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_VERSION" >&2
fi
echo "$python"
