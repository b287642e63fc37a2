#!/usr/bin/env bash
# Install everything jax-pro needs into this checkout: a Python 3.12 virtualenv at .venv with the
# pinned packages from pyproject.toml, and Claude Code's CLI (pinned) under .tools/ for the bundle checks.
# Safe to re-run: it only installs what is missing or out of date.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE_VERSION="2.1.330"

find_python() {
  # Honour an explicit choice, then a python3.12 on PATH, then pyenv's 3.12.x.
  if [[ -n "${JAXPRO_PYTHON:-}" ]]; then echo "$JAXPRO_PYTHON"; return; fi
  for candidate in python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      command -v "$candidate"; return
    fi
  done
  if command -v pyenv >/dev/null 2>&1; then
    local version
    version=$(pyenv versions --bare | grep -E '^3\.1[23]\.' | tail -n 1 || true)
    if [[ -n "$version" ]]; then echo "$(pyenv root)/versions/$version/bin/python"; return; fi
  fi
  echo "error: jax-pro needs Python >= 3.12 (jax 0.12 does not support 3.11)." >&2
  echo "       Install one (e.g. 'pyenv install 3.12') or set JAXPRO_PYTHON=/path/to/python3.12." >&2
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
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test,compare]"
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
echo "setup: ready (.venv/bin/python, $(.venv/bin/python -c 'import jax; print("jax", jax.__version__)'))"
