#!/bin/sh
# What Claude Code does after a Write or Edit: the plugin's PostToolUse hook with the event on stdin; prints
# the context the client would hand to the assistant.
file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
event=$(printf '{"session_id":"arm","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s"}}' "$(dirname "$file")" "$file")
printf '%s' "$event" | VIRTUAL_ENV=/root/.cache/jax-pro/main-f2af6c097ab8/venv CLAUDE_PROJECT_DIR="$(dirname "$file")" sh /tmp/arms/sf2-bundle/plugin/hooks/check_written_file.sh | /root/.cache/jax-pro/main-f2af6c097ab8/venv/bin/python -c '
import json, sys
out = sys.stdin.read()
print(json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else "hook: nothing to report")'
