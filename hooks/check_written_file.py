"""Claude Code hook: check the JAX code the assistant just wrote, and tell it what to write instead.

PostToolUse (Write, Edit, MultiEdit): when the file written is a `.py` file inside the project that
imports jax, jaxlib, flax, optax, orbax or numpyro, run the currency checker
(`scripts/jax_currency_check.py`) on it, in this process, which check_written_file.sh starts with the
project's interpreter (an active virtualenv, then the project's `.venv`, then `python3`), because the
checker judges code against the installed libraries. Findings of the kinds listed in `reported_kinds.json` (those whose precision measured on the
checker's held-out corpus is at least 0.97 over at least 10 labelled findings) go back to the assistant as `additionalContext`, each with
its replacement. A clean file, or a file that is not JAX code, gives nothing.

Stop: names the files written in this conversation that still hold such findings, once (never while
`stop_hook_active` is set, and never twice for the same findings), so the assistant can fix them.

It never harms the session: a crash, a timeout or a missing interpreter gives no output (it is logged in
`${XDG_CACHE_HOME:-~/.cache}/jax-pro/hook/hook.log`), it writes nothing in the project, and it leaves
files outside the project alone. JAX_PRO_HOOK=off turns it off. Standard library only; the checker is
imported only for a JAX file (and check_written_file.sh answers most other writes without Python).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

PLUGIN_ROOT = Path(__file__).resolve().parents[1]
CHECKER = PLUGIN_ROOT / "scripts" / "jax_currency_check.py"
REPORTED_KINDS = Path(__file__).with_name("reported_kinds.json")
JAX_IMPORT = re.compile(rb"^[ \t]*(?:import|from)[ \t]+(?:jax|jaxlib|flax|optax|orbax|numpyro)\b", re.MULTILINE)
CHECK_TIMEOUT_S = 25
MAX_LISTED = 20


def state_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "jax-pro" / "hook"


def log(message: str) -> None:
    """Append one line to the hook's log (outside the project); never raises."""
    try:
        folder = state_dir()
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "hook.log", "a", encoding="utf-8") as file:
            file.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {message}\n")
    except OSError:
        pass


def project_root(event: dict[str, Any]) -> Path:
    return Path(os.environ.get("CLAUDE_PROJECT_DIR") or event.get("cwd") or os.getcwd()).resolve()


def jax_file(path: Path, root: Path) -> bool:
    """A .py file inside the project that imports one of the checked libraries."""
    if path.suffix != ".py" or not path.is_relative_to(root) or not path.is_file():
        return False
    try:
        return JAX_IMPORT.search(path.read_bytes()) is not None
    except OSError:
        return False


def run_checker(path: Path) -> tuple[list[dict[str, Any]], str] | None:
    """The checker's findings on `path` and its note (jax not importable, ...); None when it failed or
    took longer than CHECK_TIMEOUT_S. Runs in this process, whose interpreter check_written_file.sh chose."""
    import signal

    def give_up(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no answer in {CHECK_TIMEOUT_S} s")
    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(CHECK_TIMEOUT_S)
    try:
        sys.path.insert(0, str(CHECKER.parent))
        sys.dont_write_bytecode = False  # the checker's bytecode is kept in the plugin's own scripts/__pycache__
        import jax_currency_check as checker
        index, note = checker.build_index(checker.DEFAULT_DATA)
        return [vars(f) for f in checker.check([path], index)], note
    except BaseException as exc:  # the checker's own usage errors included: log, say nothing
        log(f"checker failed on {path} with {sys.executable}: {type(exc).__name__}: {exc}")
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def reported(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kinds = set(json.loads(REPORTED_KINDS.read_text(encoding="utf-8"))["kinds"])
    return [f for f in findings if f.get("kind") in kinds]


def finding_line(finding: dict[str, Any]) -> str:
    new = finding.get("new") or "no direct replacement"
    detail = finding.get("message") or ""
    return f"- line {finding['line']}: {finding['kind']} {finding['old']} -> {new}" + (f" ({detail})" if detail else "")


def session_file(event: dict[str, Any]) -> Path:
    session = re.sub(r"[^A-Za-z0-9_-]", "_", str(event.get("session_id") or "none"))[:100]
    return state_dir() / "sessions" / f"{session}.json"


def load_state(event: dict[str, Any]) -> dict[str, Any]:
    try:
        return json.loads(session_file(event).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def save_state(event: dict[str, Any], state: dict[str, Any]) -> None:
    try:
        path = session_file(event)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(state), encoding="utf-8")
    except OSError as exc:
        log(f"cannot save session state: {exc}")


def check(path: Path, root: Path, state: dict[str, Any]) -> list[str] | None:
    """Lines to show for `path` (empty when clean); None when the checker could not run."""
    result = run_checker(path)
    if result is None:
        return None
    findings, notes = result
    lines = [finding_line(f) for f in reported(findings)]
    if "jax is not importable" in notes and not state.get("said_no_jax"):
        state["said_no_jax"] = True
        lines.append("(jax does not import with this project's Python, so only the recorded API changes were "
                     "checked, not the installed libraries)")
    return lines


def on_write(event: dict[str, Any]) -> dict[str, Any] | None:
    root = project_root(event)
    tool_input = event.get("tool_input") or {}
    path = Path(str(tool_input.get("file_path") or tool_input.get("notebook_path") or ""))
    path = (root / path if not path.is_absolute() else path).resolve()
    if not jax_file(path, root):
        return None
    state = load_state(event)
    lines = check(path, root, state)
    if lines is None:
        return None
    written = state.setdefault("files", {})
    has_findings = any(line.startswith("- ") for line in lines)
    if has_findings:
        written[str(path)] = True
    else:
        written.pop(str(path), None)
    save_state(event, state)
    if not lines:
        return None
    shown = [*lines[:MAX_LISTED], *([f"- ... and {len(lines) - MAX_LISTED} more"] if len(lines) > MAX_LISTED else [])]
    text = (f"jax-pro checked {path.relative_to(root)} against the installed libraries:\n" + "\n".join(shown)
            + (f"\nFix these, or run `python {CHECKER} {path}` for the full report "
               f"(`--fix` rewrites the pure renames)." if has_findings else ""))
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}


def on_stop(event: dict[str, Any]) -> dict[str, Any] | None:
    if event.get("stop_hook_active"):
        return None
    root = project_root(event)
    state = load_state(event)
    remaining: list[str] = []
    for name in sorted(state.get("files", {})):
        path = Path(name)
        lines = check(path, root, state) if jax_file(path, root) else []
        if lines and any(line.startswith("- ") for line in lines):
            remaining.append(f"{path.relative_to(root)}:\n" + "\n".join(l for l in lines if l.startswith("- ")))
    digest = hashlib.sha256("\n".join(remaining).encode()).hexdigest()
    if not remaining or state.get("stopped_on") == digest:
        return None
    state["stopped_on"] = digest
    save_state(event, state)
    return {"decision": "block",
            "reason": "jax-pro: files written in this conversation still use forms the installed libraries removed "
                      "or deprecated. Fix them, or say why they stay:\n" + "\n\n".join(remaining)}


def main() -> None:
    if os.environ.get("JAX_PRO_HOOK", "").lower() in ("0", "off", "false", "no"):
        return
    try:
        event = json.load(sys.stdin)
        handler = on_stop if event.get("hook_event_name") == "Stop" else on_write
        if (output := handler(event)) is not None:
            print(json.dumps(output))
    except Exception as exc:  # never disturb the session: log it and say nothing
        log(f"hook failed: {type(exc).__name__}: {exc}")


if __name__ == "__main__":
    main()
