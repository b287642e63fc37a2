#!/usr/bin/env bash
# Install everything jax-pro needs into this checkout: a Python 3.12 virtualenv at .venv with the
# pinned packages from pyproject.toml, and Claude Code's CLI (pinned) under .tools/ for the bundle checks.
# Safe to re-run: it only installs what is missing or out of date.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE_VERSION="2.1.330"

find_python() {
  # Honour an explicit choice, then a working python3.12 on PATH, then pyenv's newest 3.12.x.
  if [[ -n "${JAXPRO_PYTHON:-}" ]]; then echo "$JAXPRO_PYTHON"; return; fi
  if python3.12 -c 'import sys' >/dev/null 2>&1; then command -v python3.12; return; fi
  if command -v pyenv >/dev/null 2>&1; then
    local version
    version=$(pyenv versions --bare | grep -E '^3\.12\.[0-9]+$' | sort -V | tail -n 1 || true)
    if [[ -n "$version" ]]; then echo "$(pyenv root)/versions/$version/bin/python3.12"; return; fi
  fi
  echo "error: jax-pro needs Python 3.12 (the pinned jax 0.12.0.1 needs >= 3.12; 3.12 is what CI runs)." >&2
  echo "       Install it (e.g. 'pyenv install 3.12') or set JAXPRO_PYTHON=/path/to/python3.12." >&2
  exit 1
}

if [[ ! -x .venv/bin/python ]]; then
  python=$(find_python)
  echo "setup: creating .venv with $("$python" --version)"
  "$python" -m venv .venv
fi

stamp=.venv/.jaxpro-installed
if [[ ! -f "$stamp" || pyproject.toml -nt "$stamp" ]]; then
  echo "setup: installing pinned packages (pyproject.toml)"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test,compare,docs]"
  touch "$stamp"
fi

claude_bin=.tools/node_modules/@anthropic-ai/claude-code-linux-x64/claude
if [[ "${JAXPRO_SKIP_CLAUDE:-0}" != 1 ]] && command -v npm >/dev/null 2>&1; then
  installed=$(cat .tools/.claude-version 2>/dev/null || true)
  if [[ "$installed" != "$CLAUDE_CODE_VERSION" ]]; then
    echo "setup: installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION into .tools/"
    npm install --silent --no-audit --no-fund --prefix .tools \
      "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >/dev/null 2>&1
    echo "$CLAUDE_CODE_VERSION" > .tools/.claude-version
  fi
fi
# The documentation site's browser test drives Debian's chromium through Playwright (never Playwright's
# own browser download). Installing it needs root; JAXPRO_SKIP_BROWSER=1 skips it (and that test).
install_chromium() {
  if [[ "${JAXPRO_SKIP_BROWSER:-0}" == 1 || -x /usr/bin/chromium ]]; then return; fi
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Debian's chromium for the site's browser test (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    echo "setup: warning: /usr/bin/chromium is missing, so the site's browser test will fail." >&2
    echo "       Install it as root ('apt-get install -y chromium'), or set JAXPRO_SKIP_BROWSER=1 to skip that test." >&2
  fi
}
install_chromium

echo "setup: ready (.venv/bin/python, $(.venv/bin/python -c 'import jax; print("jax", jax.__version__)'))"
