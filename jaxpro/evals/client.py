"""Claude Code's CLI as the evaluations run it: the binary, a clean environment, its stream-json events."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from jaxpro.evals import EvalError
from jaxpro.repo import REPO

PLUGIN = "jax-pro"
SKILL_TOOL = "Skill"
AGENT_TOOLS = ("Agent", "Task")  # the agent tool is named Agent, with the older name Task as an alias


def claude_binary() -> Path:
    """The CLI: $JAXPRO_CLAUDE if set, else the one dev/setup.sh pins under .tools/."""
    if os.environ.get("JAXPRO_CLAUDE"):
        return Path(os.environ["JAXPRO_CLAUDE"])
    candidates = sorted((REPO / ".tools/node_modules/@anthropic-ai").glob("claude-code-*/claude"))
    if not candidates:
        raise EvalError("Claude Code CLI not found under .tools/: run `bash dev/setup.sh` (or set JAXPRO_CLAUDE)")
    return candidates[0]


def client_env(home: Path) -> dict[str, str]:
    """A minimal environment: PATH, the chosen HOME and the API key and proxies if set."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_COLOR": "1"}
    for name in ("ANTHROPIC_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def client_version() -> str:
    """The client's version, e.g. `2.1.330`."""
    with tempfile.TemporaryDirectory(prefix="jaxpro-eval-home-") as home:
        result = subprocess.run([str(claude_binary()), "--version"], env=client_env(Path(home)),
                                capture_output=True, text=True, timeout=60)
    return result.stdout.split()[0] if result.stdout.strip() else "unknown"


def stream_events(lines: Iterable[str]) -> Iterator[dict]:
    """The JSON objects of a stream-json output, skipping anything that is not JSON."""
    for line in lines:
        line = line.strip()
        if line.startswith("{"):
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue


def _tool_calls(event: dict) -> list[dict]:
    """The tool_use blocks of an assistant event."""
    content = event.get("message", {}).get("content", []) if event.get("type") == "assistant" else []
    return [block for block in content if isinstance(block, dict) and block.get("type") == "tool_use"]


def invoked_component(event: dict) -> str | None:
    """The skill or agent name a tool call in this stream event invokes, if it invokes one."""
    for block in _tool_calls(event):
        arguments = block.get("input") or {}
        if block.get("name") == SKILL_TOOL and isinstance(arguments.get("skill"), str):
            return arguments["skill"]
        if block.get("name") in AGENT_TOOLS and isinstance(arguments.get("subagent_type"), str):
            return arguments["subagent_type"]
    return None


def is_agent_call(event: dict) -> bool:
    """True if this stream event holds an Agent/Task tool call."""
    return any(block.get("name") in AGENT_TOOLS for block in _tool_calls(event))


def names_target(name: str, target: str) -> bool:
    """True for `jax-pro:<target>` and for a bare `<target>`."""
    plugin, _, component = name.rpartition(":")
    return component == target and plugin in ("", PLUGIN)


def init_event(command: list[str], env: dict[str, str]) -> dict:
    """The client's `init` event for a command, run in an empty directory (without credentials the
    client stops before calling the API)."""
    with tempfile.TemporaryDirectory(prefix="jaxpro-eval-cwd-") as cwd:
        result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    for event in stream_events(result.stdout.splitlines()):
        if event.get("type") == "system" and event.get("subtype") == "init":
            return event
    raise EvalError(f"the client printed no init event (exit {result.returncode}): {result.stderr.strip()[:200]}")


def choose_home(home: str | None, offline: str) -> tuple[Path, tempfile.TemporaryDirectory | None]:
    """The HOME to run the client in: the given one, or a fresh one when ANTHROPIC_API_KEY is set.

    `offline` ends the no-credentials message: what the user can run instead. The second value is the
    fresh HOME's TemporaryDirectory, for the caller to clean up (None for a given HOME).
    """
    if home:
        path = Path(home).expanduser()
        if not path.is_dir():
            raise EvalError(f"--home {home}: no such directory")
        return path, None
    if os.environ.get("ANTHROPIC_API_KEY"):
        scratch = tempfile.TemporaryDirectory(prefix="jaxpro-eval-home-")
        return Path(scratch.name), scratch
    raise EvalError(f"no credentials: set ANTHROPIC_API_KEY, or pass --home DIR where Claude Code is logged in ({offline})")
