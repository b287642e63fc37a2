"""One client session answering one task, in the bundle arm (the plugin loaded) or the baseline arm.

`oneshot` sessions may not run code (Bash is denied): the answer shows what the model knows. `agentic`
sessions may run Bash, with the pinned virtualenv first on PATH and the grader's CPU devices. Web
tools are denied in both.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from jaxpro.evals import EvalError, client
from jaxpro.evals.grading import DEVICE_ENV
from jaxpro.evals.tasks import AGENT, Task
from jaxpro.repo import REPO, shown

MODES = ("oneshot", "agentic")
ARMS = ("bundle", "baseline")


@dataclasses.dataclass(frozen=True)
class SessionOptions:
    """How the client is run for every task."""

    mode: str = "oneshot"
    model: str | None = None
    max_turns: int = 30
    budget_usd: float | None = None
    timeout: float = 600.0


@dataclasses.dataclass
class Session:
    """One client session: which arm, what it invoked, how it ended."""

    task: str
    arm: str
    invoked: list[str]
    result: str
    transcript: str


def client_command(task: Task, arm: str, options: SessionOptions) -> list[str]:
    """The CLI invocation for one task: the plugin only in the bundle arm, Bash only in agentic mode."""
    command = [str(client.claude_binary()), "-p", task.prompt(), "--output-format", "stream-json", "--verbose",
               "--no-session-persistence", "--max-turns", str(options.max_turns),
               "--permission-mode", "acceptEdits", "--permission-prompts", "none"]
    if arm == "bundle":
        command += ["--plugin-dir", str(REPO)]
    if options.model:
        command += ["--model", options.model]
    if options.budget_usd is not None:
        command += ["--max-budget-usd", f"{options.budget_usd:g}"]
    denied = ["WebFetch", "WebSearch"] + (["Bash"] if options.mode == "oneshot" else [])
    command += ["--disallowedTools", ",".join(denied)]
    if options.mode == "agentic":
        command += ["--allowedTools", "Bash"]
    return command


def session_env(home: Path, mode: str, with_key: bool = True) -> dict[str, str]:
    """The client's environment; in agentic mode the pinned virtualenv's `python` comes first on PATH,
    with the grader's CPU devices."""
    env = client.client_env(home)
    if not with_key:
        env.pop("ANTHROPIC_API_KEY", None)
    if mode == "agentic":  # the model's own runs see what the grader sees
        env["PATH"] = f"{REPO / '.venv' / 'bin'}{os.pathsep}{env['PATH']}"
        env.update(DEVICE_ENV)
    return env


def run_session(task: Task, arm: str, options: SessionOptions, home: Path, out: Path) -> Session:
    """Ask the client once, in a fresh directory outside the repository (with the task's start files);
    keep its transcript under out/transcripts/<arm>/ and its files under out/answers/<arm>/<task>/."""
    transcript = out / "transcripts" / arm / f"{task.id}.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    answer = out / "answers" / arm / task.id
    with tempfile.TemporaryDirectory(prefix=f"answer-eval-{arm}-") as cwd:
        start = task.path / "start"  # optional: files the client finds in its working directory
        if start.is_dir():
            shutil.copytree(start, cwd, dirs_exist_ok=True)
        with transcript.open("w", encoding="utf-8") as stream:
            process = subprocess.Popen(client_command(task, arm, options), cwd=cwd, env=session_env(home, options.mode),
                                       stdout=stream, stderr=subprocess.DEVNULL, text=True)
            try:
                process.wait(timeout=options.timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if answer.exists():
            shutil.rmtree(answer)
        shutil.copytree(cwd, answer, ignore=shutil.ignore_patterns(".*", "__pycache__"))
    events = list(client.stream_events(transcript.read_text(encoding="utf-8").splitlines()))
    invoked = [name for name in map(client.invoked_component, events) if name]
    final = next((e for e in reversed(events) if e.get("type") == "result"), None)
    if final is None:
        outcome = f"no result event (timed out after {options.timeout:g} s?)"
    elif final.get("is_error") and final.get("terminal_reason") == "api_error":
        raise EvalError(f"the client could not call the API: {final.get('result')}")
    else:
        outcome = str(final.get("subtype", "done"))
    return Session(task.id, arm, invoked, outcome, shown(transcript))


def skill_loaded(task: Task, session: Session) -> bool:
    """Whether the bundle arm invoked the skill the task names (or the agent, for agent tasks)."""
    wanted = {f"jax-pro:{task.meta['bundle']['skill']}", f"jax-pro:{AGENT}"}
    return bool(wanted & set(session.invoked))


def check_client(task: Task) -> list[str]:
    """Run each arm's and mode's real command line offline; return what the client set up, or raise."""
    lines = []
    for mode in MODES:
        for arm in ARMS:
            with tempfile.TemporaryDirectory(prefix="answer-eval-home-") as home:
                options = SessionOptions(mode=mode, max_turns=1)
                event = client.init_event(client_command(task, arm, options), session_env(Path(home), mode, with_key=False))
            skills = sorted(s for s in event.get("skills", []) if s.startswith("jax-pro:"))
            tools = set(event.get("tools", []))
            expected_skills = arm == "bundle"
            if bool(skills) != expected_skills:
                raise EvalError(f"{arm}/{mode}: plugin skills {skills or 'none'}; expected {'some' if expected_skills else 'none'}")
            if ("Bash" in tools) != (mode == "agentic") or tools & {"WebFetch", "WebSearch"}:
                raise EvalError(f"{arm}/{mode}: the client offers {sorted(tools)}")
            lines.append(f"{arm:8} {mode:8} plugin skills: {', '.join(skills) or 'none'}; "
                         f"Bash {'allowed' if 'Bash' in tools else 'denied'}; web denied; "
                         f"permission mode {event.get('permissionMode')}")
    return lines
