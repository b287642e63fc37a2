#!/bin/sh
# The command hooks.json runs. A fast path in plain sh: a write of anything but a .py file that imports
# jax, jaxlib, flax, optax, orbax or numpyro, and a Stop in a conversation that wrote no such file with
# findings, end here without starting Python. Everything else goes to check_written_file.py, run by the
# project's interpreter (a path this cannot read, e.g. one with escaped characters in the JSON, goes there too).
[ "${JAX_PRO_HOOK:-on}" = off ] || [ "${JAX_PRO_HOOK:-on}" = 0 ] && exit 0
input=$(cat)
field() { printf '%s' "$input" | sed -n "s/.*\"$1\" *: *\"\([^\"\\\\]*\)\".*/\1/p" | head -n 1; }
case "$(field hook_event_name)" in
  Stop)
    session=$(field session_id)
    state="${XDG_CACHE_HOME:-$HOME/.cache}/jax-pro/hook/sessions/$session.json"
    if [ -n "$session" ] && [ "$session" = "$(printf '%s' "$session" | tr -cd 'A-Za-z0-9_-')" ] \
        && ! grep -q '"files": {"' "$state" 2>/dev/null; then
      exit 0
    fi ;;
  PostToolUse)
    path=$(field file_path)
    case "$path" in
      /*.py) [ -f "$path" ] || exit 0
             grep -qE '^[[:space:]]*(import|from)[[:space:]]+(jax|jaxlib|flax|optax|orbax|numpyro)([^A-Za-z0-9_]|$)' "$path" || exit 0 ;;
      /*) exit 0 ;;
    esac ;;
esac
# The project's interpreter, since the checker judges code against the libraries installed there.
python=python3
if [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then python="$VIRTUAL_ENV/bin/python"
elif [ -x "${CLAUDE_PROJECT_DIR:-$PWD}/.venv/bin/python" ]; then python="${CLAUDE_PROJECT_DIR:-$PWD}/.venv/bin/python"
fi
status=0
printf '%s' "$input" | "$python" "$(dirname "$0")/check_written_file.py" || status=$?
if [ "$status" != 0 ]; then  # never disturb the session: log it, exit 0, say nothing
  log="${XDG_CACHE_HOME:-$HOME/.cache}/jax-pro/hook"
  mkdir -p "$log" 2>/dev/null && echo "$(date +%Y-%m-%dT%H:%M:%S) $python exited with $status" >> "$log/hook.log"
fi
exit 0
