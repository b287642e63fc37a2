"""Measure what the bundle changes in the code an assistant writes, by running that code.

Each task under evals/answers/<id>/ is a real user's request, the interface the answer must provide
(task.toml) and a grader (grader.py, pytest) that imports the answer and checks what it does on the
pinned libraries, on the CPU with 8 virtual devices. An answers folder holds one sub-folder per task
id with the task's `<module>.py` in it; see evals/answers/README.md.

Grade a folder of answers written by anything (a client, a person); no credentials needed. Each task
is graded in its own process, in an empty working directory:

    python dev/answer_eval.py --grade evals/answers/_reference
    python dev/answer_eval.py --grade evals/answers/_wrong --expect fail
    python dev/answer_eval.py --grade my-answers --task loss-history-append-jit

Measure the lift (credentials needed, as for dev/trigger_eval.py: ANTHROPIC_API_KEY with a fresh,
empty HOME, or --home DIR where Claude Code is logged in). For every task the pinned Claude Code CLI
answers twice, each time in a fresh empty directory outside this repository: once with the plugin
(`--plugin-dir REPO`), once without (the baseline):

    claude -p PROMPT [--plugin-dir REPO] --model MODEL --output-format stream-json --verbose
           --permission-mode acceptEdits --permission-prompts none --disallowedTools ...

`--mode oneshot` (default) forbids running code (Bash is denied): the answer shows what the model
knows. `--mode agentic` allows Bash, with the pinned virtualenv first on PATH, so the model can run
and fix its code. Web tools are denied in both modes. The transcripts (stream-json), the answers and
the grades are kept under --out; the table shows per task whether each answer passed and whether the
task's skill loaded, then in total the pass rates with and without the bundle and their difference,
and the tasks the baseline fails. Every task costs two client sessions of paid API calls.

    ANTHROPIC_API_KEY=... python dev/answer_eval.py --model sonnet
    python dev/answer_eval.py --home ~ --model haiku --mode agentic --task loss-history-append-jit

Offline: --list prints the tasks; --check-client runs the exact client command lines of both arms and
both modes without credentials and checks what the client sets up (plugin skills, allowed tools).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "dev")]

from docsite.anchors import anchors  # noqa: E402
from docsite.records import pins  # noqa: E402
from trigger_eval import (  # noqa: E402  (the client pieces both evals share)
    EvalError,
    choose_home,
    claude_binary,
    client_env,
    client_version,
    invoked_component,
    print_table,
    stream_events,
)

ANSWERS = REPO / "evals" / "answers"
AGENT = "jax-pro"  # the plugin's agent, which an agent-kind task may name as what should load
SKILLS = ("python-jax", "jax-core-programming", "jax-optimization-pro", "jax-optimization", "agent")
REQUIRED_KEYS = ("id", "skill", "libraries", "module", "request", "interface", "source", "bundle", "grading")
TABLE_KEYS = {"source": ("url", "title", "maintainers_answer"), "bundle": ("skill", "section"), "grading": ("checks", "wrong")}
SOURCE_HOSTS = ("github.com", "stackoverflow.com", "forum.pyro.ai")  # and any *.stackexchange.com
LIBRARIES = ("jax", "flax", "optax", "orbax-checkpoint", "numpyro")  # the pins the prompt states
SHARED = ("conftest.py", "grading.py", "pytest.ini")  # every grading depends on these
MODES = ("oneshot", "agentic")
ARMS = ("bundle", "baseline")
DEVICE_ENV = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
FAILING = ("failed", "error", "timeout")  # statuses of an answer that ran and was rejected
OFFLINE = "use --grade DIR, --list or --check-client to work offline"


@dataclasses.dataclass(frozen=True)
class Task:
    """One task folder and its parsed task.toml; `error` says why a task cannot be graded at all."""

    path: Path
    meta: dict
    error: str = ""

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def module(self) -> str:
        return str(self.meta.get("module", ""))

    @property
    def skill(self) -> str:
        return str(self.meta.get("skill", "?"))

    def prompt(self) -> str:
        """What the client is asked: the user's request, the pinned versions, the file and its interface."""
        versions = ", ".join(f"{name} {pins()[name]}" for name in LIBRARIES)
        return (
            f"{self.meta['request'].strip()}\n\n"
            f"I use Python 3.12 with {versions}.\n\n"
            f"Write the answer as `{self.module}.py` in the current directory. It must provide:\n\n"
            f"{self.meta['interface'].strip()}\n"
        )

    def digest(self, answer: Path) -> str:
        """A hash of everything a grading of `answer` depends on: the task, the shared files, the answer."""
        files = [*sorted(self.path.rglob("*")), *(ANSWERS / name for name in SHARED)]
        files += sorted(answer.rglob("*")) if answer.is_dir() else []
        sha = hashlib.sha256()
        for file in files:
            if file.is_file() and "__pycache__" not in file.parts:
                sha.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
        return sha.hexdigest()


@dataclasses.dataclass
class Grade:
    """The outcome of grading one answer: passed, failed, error (it did not import, the grader broke),
    timeout, or no-answer (the answer file is missing)."""

    task: str
    status: str
    tests: int = 0
    failures: int = 0
    seconds: float = 0.0
    message: str = ""
    digest: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def task_folders() -> list[Path]:
    """Every task folder: the sub-folders of evals/answers/ not starting with `_` or `.`."""
    return sorted(p for p in ANSWERS.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def load_tasks(ids: list[str] | None = None) -> list[Task]:
    """The tasks, all or the named ones, in id order."""
    folders = {folder.name: folder for folder in task_folders()}
    unknown = sorted(set(ids or []) - set(folders))
    if unknown:
        raise EvalError(f"no such task: {', '.join(unknown)} (see --list)")
    chosen = sorted(set(ids)) if ids else sorted(folders)
    tasks = []
    for name in chosen:
        meta, unusable = read_meta(folders[name])
        tasks.append(Task(folders[name], meta, "; ".join(unusable)))
    return tasks


def read_meta(folder: Path) -> tuple[dict, list[str]]:
    """A task folder's parsed task.toml, and what keeps it from being used at all (unreadable, keys missing)."""
    name = f"evals/answers/{folder.name}/task.toml"
    try:
        meta = tomllib.loads((folder / "task.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        return {}, [f"{name}: {error}"]
    return meta, [f"{name}: no `{key}`" for key in REQUIRED_KEYS if key not in meta]


def readable(tasks: list[Task]) -> list[Task]:
    """The tasks, or an EvalError naming each one whose task.toml cannot be used."""
    broken = [task.error for task in tasks if task.error]
    if broken:
        raise EvalError("; ".join(broken))
    return tasks


def problems(folder: Path) -> list[str]:
    """What is wrong with a task folder's metadata and files; empty when it is complete."""
    name = f"evals/answers/{folder.name}"
    meta, found = read_meta(folder)
    if not meta:
        return found
    for table, keys in TABLE_KEYS.items():
        value = meta.get(table, {})
        found += [f"{name}/task.toml: no `[{table}].{key}`" for key in keys if not str(value.get(key, "")).strip()]
    if found:
        return found
    if meta["id"] != folder.name:
        found.append(f"{name}/task.toml: id {meta['id']!r} is not the folder name")
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", folder.name):
        found.append(f"{name}: the id is not kebab-case")
    if meta["skill"] not in SKILLS:
        found.append(f"{name}/task.toml: skill {meta['skill']!r} is not one of {', '.join(SKILLS)}")
    if meta["bundle"]["skill"] not in (*SKILLS[:-1], AGENT):
        found.append(f"{name}/task.toml: [bundle].skill {meta['bundle']['skill']!r} is not one of the four skills or {AGENT}")
    if not re.fullmatch(r"[A-Za-z_]\w*", str(meta["module"])):
        found.append(f"{name}/task.toml: module {meta['module']!r} is not a Python module name")
    if not isinstance(meta["libraries"], list) or not meta["libraries"]:
        found.append(f"{name}/task.toml: libraries must be a non-empty list of import names")
    url = urlparse(str(meta["source"]["url"]))
    host = url.hostname or ""
    if url.scheme != "https" or not (host in SOURCE_HOSTS or host.endswith(".stackexchange.com")) or len(url.path) < 2:
        found.append(f"{name}/task.toml: [source].url {meta['source']['url']!r} is not an https URL of a thread "
                     f"on {', '.join(SOURCE_HOSTS)} or *.stackexchange.com")
    found += section_problems(name, str(meta["bundle"]["section"]))
    if not (folder / "grader.py").is_file():
        found.append(f"{name}/grader.py: missing")
    found += [f"{name}/{p.name}: a grader must not be named test_*.py" for p in folder.glob("test_*.py")]
    for answers in ("_reference", "_wrong"):
        if not (ANSWERS / answers / folder.name / f"{meta['module']}.py").is_file():
            found.append(f"evals/answers/{answers}/{folder.name}/{meta['module']}.py: missing")
    return found


def section_problems(name: str, section: str) -> list[str]:
    """A [bundle].section must be `references/<file>.md#<anchor>` naming an existing heading."""
    file, _, anchor = section.partition("#")
    if not re.fullmatch(r"references/\w+\.md", file) or not anchor:
        return [f"{name}/task.toml: [bundle].section {section!r} is not references/<file>.md#<anchor>"]
    if not (REPO / file).is_file():
        return [f"{name}/task.toml: [bundle].section names {file}, which does not exist"]
    if anchor not in anchors(REPO / file):
        return [f"{name}/task.toml: [bundle].section: {file} has no heading with anchor #{anchor}"]
    return []


def grading_env(answer: Path) -> dict[str, str]:
    """The grader's environment: the answer's folder, 8 virtual CPU devices, no inherited warning filters."""
    dropped = ("PYTHONWARNINGS", "PYTHONPATH", "XLA_FLAGS", "ANTHROPIC_API_KEY")  # the answer is untrusted code
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(JAXPRO_ANSWER_DIR=str(answer), PYTHONDONTWRITEBYTECODE="1", **DEVICE_ENV)
    return env


def grade(task: Task, answers: Path, timeout: float) -> Grade:
    """Grade one answer: the task's grader under pytest, in its own process and an empty directory."""
    answer = (answers / task.id).resolve()
    digest = task.digest(answer)
    if task.error:
        return Grade(task.id, "error", message=task.error, digest=digest)
    if not (answer / f"{task.module}.py").is_file():
        return Grade(task.id, "no-answer", message=f"no answer: {_shown(answer / task.module)}.py is missing", digest=digest)
    with tempfile.TemporaryDirectory(prefix="answer-eval-grade-") as cwd:
        report = Path(cwd) / "junit.xml"
        command = [sys.executable, "-m", "pytest", "-c", str(ANSWERS / "pytest.ini"), "--rootdir", str(ANSWERS),
                   str(task.path / "grader.py"), f"--junitxml={report}", f"--timeout={timeout:g}"]
        start = datetime.datetime.now()
        try:
            result = subprocess.run(command, cwd=cwd, env=grading_env(answer), capture_output=True, text=True,
                                    timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            return Grade(task.id, "timeout", seconds=timeout + 60, message=f"grading took over {timeout + 60:g} s", digest=digest)
        seconds = (datetime.datetime.now() - start).total_seconds()
        outcome = _from_junit(task.id, report, result)
    outcome.seconds, outcome.digest = round(seconds, 2), digest
    return outcome


def _from_junit(task_id: str, report: Path, result: subprocess.CompletedProcess[str]) -> Grade:
    """Read pytest's junit report: counts, and the first failure or error with its message."""
    output = (result.stdout + result.stderr).strip()
    if not report.is_file():
        return Grade(task_id, "error", message=f"pytest exited {result.returncode} without a report: {_tail(output)}")
    suite = ElementTree.parse(report).getroot().find("testsuite")
    tests = int(suite.get("tests", 0))
    first = next((c for case in suite.iter("testcase") for c in case if c.tag in ("failure", "error")), None)
    failures = sum(1 for case in suite.iter("testcase") if any(c.tag in ("failure", "error") for c in case))
    skipped = sum(1 for case in suite.iter("testcase") if case.find("skipped") is not None)
    if first is not None:
        timed_out = "Timeout" in (first.get("message") or "")
        message = _first_line(first.get("message") or first.text or "")
        return Grade(task_id, "timeout" if timed_out else first.tag.replace("failure", "failed"), tests, failures,
                     message=message)
    if result.returncode != 0 or tests - skipped == 0:
        return Grade(task_id, "error", tests, message=f"pytest exited {result.returncode}, {tests - skipped} tests ran: {_tail(output)}")
    return Grade(task_id, "passed", tests)


def _first_line(text: str) -> str:
    """The line that says what went wrong: the first `SomeError: ...` line, else the first line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"[\w.]*(Error|Exception|Warning)\b", line)]
    index = lines.index(errors[0]) if errors else 0
    line = " ".join(lines[index : index + 2]) if lines and lines[index].endswith(":") else (lines or [""])[index]
    return line if len(line) <= 240 else line[:237] + "..."


def _tail(text: str) -> str:
    return _first_line("\n".join(reversed(text.splitlines()[-5:])))


def _shown(path: Path) -> str:
    """A path relative to the repository when it is inside it."""
    return str(path.relative_to(REPO)) if path.resolve().is_relative_to(REPO) else str(path)


def grade_all(tasks: list[Task], answers: Path, workers: int, timeout: float) -> list[Grade]:
    """Grade every task's answer, `workers` gradings at a time, in task order."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda task: grade(task, answers, timeout), tasks))


def record(grades: list[Grade], answers: Path, path: Path) -> None:
    """Write the gradings as JSON (the documentation site shows the latest ones)."""
    data = {
        "answers": _shown(answers),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "versions": {name: pins()[name] for name in ("jax", "jaxlib", *LIBRARIES[1:])},
        "grades": [dataclasses.asdict(g) for g in grades],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)


def print_grades(tasks: list[Task], grades: list[Grade]) -> None:
    skills = {task.id: task.skill for task in tasks}
    print_table(["task", "skill", "result", "tests", "seconds", "first failure"],
                [[g.task, skills[g.task], g.status, g.tests, g.seconds, g.message] for g in grades])
    passed = sum(g.passed for g in grades)
    print(f"\n{passed}/{len(grades)} passed")


# --- the live run ------------------------------------------------------------------------------


@dataclasses.dataclass
class Session:
    """One client session: which arm, what it invoked, how it ended."""

    task: str
    arm: str
    invoked: list[str]
    result: str
    transcript: str


def client_command(task: Task, arm: str, mode: str, model: str | None, max_turns: int,
                   budget: float | None = None) -> list[str]:
    """The CLI invocation for one task: the plugin only in the bundle arm, Bash only in agentic mode."""
    command = [str(claude_binary()), "-p", task.prompt(), "--output-format", "stream-json", "--verbose",
               "--no-session-persistence", "--max-turns", str(max_turns),
               "--permission-mode", "acceptEdits", "--permission-prompts", "none"]
    if arm == "bundle":
        command += ["--plugin-dir", str(REPO)]
    if model:
        command += ["--model", model]
    if budget is not None:
        command += ["--max-budget-usd", f"{budget:g}"]
    denied = ["WebFetch", "WebSearch"] + (["Bash"] if mode == "oneshot" else [])
    command += ["--disallowedTools", ",".join(denied)]
    if mode == "agentic":
        command += ["--allowedTools", "Bash"]
    return command


def session_env(home: Path, mode: str, with_key: bool = True) -> dict[str, str]:
    """The client's environment; in agentic mode the pinned virtualenv's `python` comes first on PATH,
    with the grader's CPU devices."""
    env = client_env(home)
    if not with_key:
        env.pop("ANTHROPIC_API_KEY", None)
    if mode == "agentic":  # the model's own runs see what the grader sees
        env["PATH"] = f"{REPO / '.venv' / 'bin'}{os.pathsep}{env['PATH']}"
        env.update(DEVICE_ENV)
    return env


def run_session(task: Task, arm: str, args: argparse.Namespace, home: Path, out: Path) -> Session:
    """Ask the client once, in a fresh directory outside the repository; keep its transcript and files."""
    transcript = out / "transcripts" / arm / f"{task.id}.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    answer = out / "answers" / arm / task.id
    with tempfile.TemporaryDirectory(prefix=f"answer-eval-{arm}-") as cwd:
        start = task.path / "start"  # optional: files the client finds in its working directory
        if start.is_dir():
            shutil.copytree(start, cwd, dirs_exist_ok=True)
        command = client_command(task, arm, args.mode, args.model, args.max_turns, args.max_budget_usd)
        with transcript.open("w", encoding="utf-8") as stream:
            process = subprocess.Popen(command, cwd=cwd, env=session_env(home, args.mode), stdout=stream,
                                       stderr=subprocess.DEVNULL, text=True)
            try:
                process.wait(timeout=args.timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if answer.exists():
            shutil.rmtree(answer)
        shutil.copytree(cwd, answer, ignore=shutil.ignore_patterns(".*", "__pycache__"))
    events = list(stream_events(transcript.read_text(encoding="utf-8").splitlines()))
    invoked = [name for name in map(invoked_component, events) if name]
    final = next((e for e in reversed(events) if e.get("type") == "result"), None)
    if final is None:
        outcome = f"no result event (timed out after {args.timeout:g} s?)"
    elif final.get("is_error") and final.get("terminal_reason") == "api_error":
        raise EvalError(f"the client could not call the API: {final.get('result')}")
    else:
        outcome = str(final.get("subtype", "done"))
    return Session(task.id, arm, invoked, outcome, _shown(transcript))


def skill_loaded(task: Task, session: Session) -> bool:
    """Whether the bundle arm invoked the skill the task names (or the agent, for agent tasks)."""
    wanted = {f"jax-pro:{task.meta['bundle']['skill']}", f"jax-pro:{AGENT}"}
    return bool(wanted & set(session.invoked))


def live(tasks: list[Task], args: argparse.Namespace) -> int:
    """Both arms for every task, graded; prints the table and writes summary.json under --out."""
    out = args.out.resolve()
    readable(tasks)
    home, scratch = choose_home(args.home, OFFLINE)
    sessions: dict[tuple[str, str], Session] = {}
    try:
        jobs = [(task, arm) for task in tasks for arm in ARMS]
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.workers) as pool:
            futures = {pool.submit(run_session, task, arm, args, home, out): (task.id, arm) for task, arm in jobs}
            for done, future in enumerate(concurrent.futures.as_completed(futures), start=1):
                try:
                    sessions[futures[future]] = future.result()
                except EvalError:
                    pool.shutdown(wait=False, cancel_futures=True)  # the same error would repeat for every task
                    raise
                print(f"\r{done}/{len(jobs)} client sessions", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    finally:
        if scratch is not None:
            scratch.cleanup()
    grades = {arm: {g.task: g for g in grade_all(tasks, out / "answers" / arm, args.workers, args.grade_timeout)} for arm in ARMS}
    rows = []
    for task in tasks:
        bundle, baseline = grades["bundle"][task.id], grades["baseline"][task.id]
        loaded = "yes" if skill_loaded(task, sessions[(task.id, "bundle")]) else "no"
        rows.append([task.id, task.skill, bundle.status, baseline.status, loaded])
    print_table(["task", "skill", "with bundle", "baseline", "skill loaded"], rows)
    print()
    by_skill = []
    for skill in SKILLS:
        ids = [task.id for task in tasks if task.skill == skill]
        if ids:
            passes = [sum(grades[arm][i].passed for i in ids) for arm in ARMS]
            by_skill.append([skill, len(ids), passes[0], passes[1], f"{passes[0] - passes[1]:+d}"])
    print_table(["skill", "tasks", "passed with bundle", "passed without", "difference"], by_skill)
    rate = {arm: sum(g.passed for g in grades[arm].values()) / len(tasks) for arm in ARMS}
    print(f"\npass rate with the bundle {rate['bundle']:.0%}, without {rate['baseline']:.0%}, "
          f"difference {100 * (rate['bundle'] - rate['baseline']):+.0f} points ({len(tasks)} task{'s' * (len(tasks) != 1)})")
    failing = [task.id for task in tasks if not grades["baseline"][task.id].passed]
    print("tasks the baseline fails: " + (", ".join(failing) or "none"))
    version = client_version()
    print(f"client: Claude Code {version}, model {args.model or 'default'}, mode {args.mode}; "
          f"transcripts, answers and summary.json under {_shown(out)}")
    summary = {
        "client": version, "model": args.model or "default", "mode": args.mode,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "pass_rate": rate, "baseline_fails": failing,
        "tasks": [{"task": t.id, "skill": t.skill,
                   **{arm: dataclasses.asdict(grades[arm][t.id]) for arm in ARMS},
                   "sessions": {arm: dataclasses.asdict(sessions[(t.id, arm)]) for arm in ARMS}} for t in tasks],
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0


def init_event(command: list[str], env: dict[str, str]) -> dict:
    """The client's `init` event for a command, run without credentials (the client stops before the API)."""
    with tempfile.TemporaryDirectory(prefix="answer-eval-cwd-") as cwd:
        result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    for event in stream_events(result.stdout.splitlines()):
        if event.get("type") == "system" and event.get("subtype") == "init":
            return event
    raise EvalError(f"the client printed no init event (exit {result.returncode}): {result.stderr.strip()[:200]}")


def check_client(task: Task) -> list[str]:
    """Run each arm's and mode's real command line offline; return what the client set up, or raise."""
    lines = []
    for mode in MODES:
        for arm in ARMS:
            with tempfile.TemporaryDirectory(prefix="answer-eval-home-") as home:
                event = init_event(client_command(task, arm, mode, None, 1), session_env(Path(home), mode, with_key=False))
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


def list_tasks(tasks: list[Task]) -> None:
    print_table(["task", "skill", "module", "bundle section"],
                [[t.id, t.skill, f"{t.module}.py", t.error or t.meta["bundle"]["section"]] for t in tasks])
    counts = {skill: sum(t.skill == skill for t in tasks) for skill in SKILLS}
    print(f"\n{len(tasks)} tasks: " + ", ".join(f"{skill} {n}" for skill, n in counts.items()))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", action="append", metavar="ID", help="a task id (repeatable; default: every task)")
    parser.add_argument("--workers", type=int, default=2, help="gradings or client sessions at a time (default: 2)")
    parser.add_argument("--grade-timeout", type=float, default=120.0, help="seconds per grading (default: 120)")
    parser.add_argument("--json", action="store_true", help="with --grade: print the grades as JSON")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--grade", type=Path, metavar="DIR", help="grade the answers in DIR (one sub-folder per task id)")
    mode.add_argument("--list", action="store_true", help="print the tasks and exit")
    mode.add_argument("--check-client", action="store_true",
                      help="run both arms' and modes' client command lines offline and check their setup")
    parser.add_argument("--expect", choices=("pass", "fail"), default="pass",
                        help="with --grade: exit 0 only if every answer passes (default), or only if every one fails")
    parser.add_argument("--record", type=Path, metavar="FILE", help="with --grade: also write the grades as JSON to FILE")
    live_options = parser.add_argument_group("live run (without --grade)")
    live_options.add_argument("--model", help="model for the client, e.g. sonnet, haiku (default: the client's default)")
    live_options.add_argument("--mode", choices=MODES, default="oneshot",
                              help="oneshot: no code execution (default); agentic: Bash allowed")
    live_options.add_argument("--home", help="a HOME where Claude Code is logged in (default: a fresh HOME with ANTHROPIC_API_KEY)")
    live_options.add_argument("--out", type=Path, default=REPO / "build" / "answer_runs",
                              help="where transcripts, answers and summary.json go (default: build/answer_runs)")
    live_options.add_argument("--timeout", type=float, default=600.0, help="seconds per client session (default: 600)")
    live_options.add_argument("--max-turns", type=int, default=30, help="turns per client session (default: 30)")
    live_options.add_argument("--max-budget-usd", type=float, help="the client's spending cap per session")
    args = parser.parse_args(argv)
    if min(args.workers, args.max_turns) < 1 or min(args.timeout, args.grade_timeout) <= 0:
        parser.error("--workers, --max-turns, --timeout and --grade-timeout must be positive")
    if args.grade is not None and not args.grade.is_dir():
        parser.error(f"--grade {args.grade}: no such directory")
    if (args.record or args.json or args.expect != "pass") and args.grade is None:
        parser.error("--record, --json and --expect go with --grade")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tasks = load_tasks(args.task)
    if not tasks:
        raise EvalError("no tasks under evals/answers/")
    if args.list:
        list_tasks(tasks)
        return 0
    if args.check_client:
        usable = [task for task in tasks if not task.error] or readable(tasks)  # any readable task's prompt will do
        for line in check_client(usable[0]):
            print(line)
        return 0
    if args.grade is None:
        return live(tasks, args)
    answers = args.grade.resolve()
    grades = grade_all(tasks, answers, args.workers, args.grade_timeout)
    if args.record:
        record(grades, answers, args.record)
    if args.json:
        print(json.dumps([dataclasses.asdict(g) for g in grades], indent=1))
    else:
        print_grades(tasks, grades)
    if args.expect == "pass":
        return 0 if all(g.passed for g in grades) else 1
    wrongly_passed = [g.task for g in grades if g.status not in FAILING]
    if wrongly_passed and not args.json:
        print("expected every answer to fail; these did not: " + ", ".join(wrongly_passed))
    return 1 if wrongly_passed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except EvalError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
