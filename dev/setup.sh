#!/usr/bin/env bash
# Install everything jax-pro needs for this checkout: a Python 3.12 virtualenv with the pinned packages
# from pyproject.toml, a second small one with only what a user has (the installed-plugin test),
# Claude Code's CLI (pinned) for the bundle checks, and two other Agent Skills clients (Gemini CLI and
# OpenCode, pinned) for the exported skills.
#
# They live outside the checkout, in ${JAXPRO_ENV_HOME:-${XDG_CACHE_HOME:-~/.cache}/jax-pro}/<checkout
# name>-<hash of its real path>/, with .venv and .tools here as symlinks to them: installing the plugin
# from this checkout copies the folder but not symlinks, so the installed plugin stays small. Each
# checkout gets its own environment because the editable install of mdexec points at its tree.
# Safe to re-run: it only installs what is missing or out of date.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE_VERSION="2.1.330"
GEMINI_CLI_VERSION="0.61.0"
OPENCODE_VERSION="1.18.33"

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

checkout=$(pwd -P)
key=$(printf '%s' "$checkout" | { sha256sum 2>/dev/null || shasum -a 256; } | cut -c1-12)
env_dir="${JAXPRO_ENV_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/jax-pro}/$(basename "$checkout")-$key"

link_into_env() {
  # Make ./$1 a symlink to $env_dir/$2. A real directory that an older setup left in the checkout is
  # moved out (.tools) or deleted and rebuilt (.venv: a virtualenv's scripts hold absolute paths);
  # a directory this script did not make is left alone, and setup stops.
  local name=$1 target="$env_dir/$2" ours=$3
  if [[ -L "$name" && "$(readlink "$name")" == "$target" ]]; then return; fi
  if [[ -L "$name" ]]; then
    rm "$name"
  elif [[ -e "$name" ]]; then
    if [[ ! -e "$name/$ours" ]]; then
      echo "error: ./$name is a directory that dev/setup.sh did not create (no $name/$ours)." >&2
      echo "       Move or delete it, then re-run: setup makes ./$name a symlink to $target." >&2
      exit 1
    fi
    mkdir -p "$env_dir"
    if [[ "$name" == .tools && ! -e "$target" ]]; then
      echo "setup: moving the old in-checkout ./$name to $target"
      mv "$name" "$target"
    else
      echo "setup: deleting the old in-checkout ./$name; it is rebuilt in $target"
      rm -rf "$name"
    fi
  fi
  mkdir -p "$env_dir"
  ln -s "$target" "$name"
}

link_into_env .venv venv .jaxpro-installed
link_into_env .tools tools .claude-version

if [[ ! -x .venv/bin/python ]]; then
  python=$(find_python)
  echo "setup: creating $env_dir/venv with $("$python" --version)"
  "$python" -m venv "$env_dir/venv"
fi

stamp=.venv/.jaxpro-installed
if [[ ! -f "$stamp" || pyproject.toml -nt "$stamp" ]]; then
  echo "setup: installing pinned packages (pyproject.toml)"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test,compare,docs,chart]"
  touch "$stamp"
fi

# What a user of the installed plugin has: jax and the libraries the examples import, at the same
# pins, and not rich (flax needs rich, so the two flax examples run in .venv instead).
user_venv="$env_dir/user-venv"
if [[ ! -f "$user_venv/.jaxpro-installed" || pyproject.toml -nt "$user_venv/.jaxpro-installed" ]]; then
  echo "setup: creating $user_venv (jax, optax, numpyro, orbax-checkpoint; no rich)"
  rm -rf "$user_venv"
  .venv/bin/python -m venv "$user_venv"
  .venv/bin/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"], sep="\n")' \
    > "$env_dir/pins.txt"
  "$user_venv/bin/python" -m pip install --quiet --disable-pip-version-check -c "$env_dir/pins.txt" \
    jax jaxlib optax numpyro orbax-checkpoint
  touch "$user_venv/.jaxpro-installed"
fi

install_npm_tool() {
  # install_npm_tool <label> <package> <version> <skip variable>: npm-install the pinned package into
  # $env_dir/tools unless the skip variable is 1 or that version is already there.
  local label=$1 package=$2 version=$3 skip=$4
  local stamp=".tools/.${label}-version"
  if [[ "${!skip:-0}" == 1 || "$(cat "$stamp" 2>/dev/null || true)" == "$version" ]]; then return; fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "error: npm not found. It installs $package, which the bundle checks run." >&2
    echo "       Install Node.js with npm, or set $skip=1 to go without (see README.md)." >&2
    exit 1
  fi
  echo "setup: installing $package@$version into $env_dir/tools"
  if ! npm install --no-audit --no-fund --save-exact --prefix "$env_dir/tools" "$package@$version"; then
    echo "error: npm could not install $package@$version (its output is above)." >&2
    echo "       Check that npm can reach its registry, then re-run; or set $skip=1." >&2
    exit 1
  fi
  echo "$version" > "$stamp"
}
# Claude Code runs the plugin checks; Gemini CLI and OpenCode, two other Agent Skills clients, are
# run on the exported skill folders (tests/test_second_client.py). None of the three needs a login.
install_npm_tool claude @anthropic-ai/claude-code "$CLAUDE_CODE_VERSION" JAXPRO_SKIP_CLAUDE
install_npm_tool gemini @google/gemini-cli "$GEMINI_CLI_VERSION" JAXPRO_SKIP_GEMINI
install_npm_tool opencode opencode-ai "$OPENCODE_VERSION" JAXPRO_SKIP_OPENCODE

# The documentation site's browser test drives Debian's chromium through Playwright (never Playwright's
# own browser download). Installing it needs root; JAXPRO_SKIP_BROWSER=1 skips it (and that test).
install_chromium() {
  if [[ "${JAXPRO_SKIP_BROWSER:-0}" == 1 || -x /usr/bin/chromium ]]; then return; fi
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Debian's chromium for the site's browser test (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
  else
    echo "setup: warning: /usr/bin/chromium is missing, so the site's browser test will fail." >&2
    echo "       Install it as root ('apt-get install -y chromium'), or set JAXPRO_SKIP_BROWSER=1 to skip that test." >&2
  fi
}
install_chromium

echo "setup: ready (.venv/bin/python, $(.venv/bin/python -c 'import jax; print("jax", jax.__version__)'); environment in $env_dir)"
