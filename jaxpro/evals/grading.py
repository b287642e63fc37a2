"""Grading an answer: the task's grader under pytest, in its own process and an empty directory, on the
pinned libraries and 8 virtual CPU devices; and the JSON record of a set's gradings.

Each grading is a process forked from one server process that has already imported pytest and the
libraries (`multiprocessing`'s forkserver with PRELOAD), so a grading pays no Python start-up and no
import of jax, flax, optax, numpyro or orbax: it starts from a copy of that clean state, imports the
answer, and exits. The server imports them with the grader's device settings and starts no backend.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime
import functools
import json
import multiprocessing
import os
import platform
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from jaxpro.evals import EvalError
from jaxpro.evals.tasks import ANSWERS, LIBRARIES, Task
from jaxpro.repo import REPO, pins, shown

DEVICE_ENV = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
FAILING = ("failed", "error", "timeout")  # statuses of an answer that ran and was rejected
CHECKER = REPO / "scripts" / "jax_currency_check.py"  # old forms and version hedges: a clean pass has none
PRELOAD = ["pytest", "jax", "jax.numpy", "flax.nnx", "optax", "numpyro", "numpyro.infer", "orbax.checkpoint"]


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
    findings: list[str] = dataclasses.field(default_factory=list)  # the currency checker's, one line each

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def clean(self) -> bool:
        """A clean pass: the grader passes and the answer holds no old API form and no version hedge."""
        return self.passed and not self.findings


def grading_env(answer: Path) -> dict[str, str]:
    """The grader's environment: the answer's folder, 8 virtual CPU devices, no inherited warning filters."""
    dropped = ("PYTHONWARNINGS", "PYTHONPATH", "XLA_FLAGS", "ANTHROPIC_API_KEY")  # the answer is untrusted code
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    # No plugin autoload: scanning every installed plugin's entry point took half of pytest's start in
    # each grading; the graders need only pytest-timeout, which `grade` names.
    env.update(JAXPRO_ANSWER_DIR=str(answer), PYTHONDONTWRITEBYTECODE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
               **DEVICE_ENV)
    return env


def grade(task: Task, answers: Path, timeout: float) -> Grade:
    """Grade one answer: the task's grader under pytest, in its own process and an empty directory."""
    answer = (answers / task.id).resolve()
    digest = task.digest(answer)
    if task.error:
        return Grade(task.id, "error", message=task.error, digest=digest)
    if not (answer / f"{task.module}.py").is_file():
        return Grade(task.id, "no-answer", message=f"no answer: {shown(answer / task.module)}.py is missing", digest=digest)
    with tempfile.TemporaryDirectory(prefix="answer-eval-grade-") as cwd:
        report, log = Path(cwd) / "junit.xml", Path(cwd) / "output.log"
        arguments = ["-c", str(ANSWERS / "pytest.ini"), "--rootdir", str(ANSWERS), str(task.path / "grader.py"),
                     f"--junitxml={report}", "-p", "pytest_timeout", f"--timeout={timeout:g}"]
        start = datetime.datetime.now()
        process = _server().Process(target=_run_grader, args=(arguments, cwd, grading_env(answer), str(log)))
        process.start()
        process.join(timeout + 60)
        if process.is_alive():
            process.kill()
            process.join()
            return Grade(task.id, "timeout", seconds=timeout + 60, message=f"grading took over {timeout + 60:g} s", digest=digest)
        seconds = (datetime.datetime.now() - start).total_seconds()
        output = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
        outcome = _from_junit(task.id, report, subprocess.CompletedProcess(arguments, process.exitcode, output, ""))
    outcome.seconds, outcome.digest = round(seconds, 2), digest
    return outcome


@functools.cache
def _server() -> multiprocessing.context.ForkServerContext:
    """The forkserver the gradings fork from; it imports PRELOAD once, with the grader's device settings
    (this process's environment is where it takes them from, so they are set here first)."""
    os.environ.update(DEVICE_ENV)
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def _run_grader(arguments: list[str], cwd: str, env: dict[str, str], log: str) -> None:
    """In the forked grading process: the grader's directory, environment and output file, then pytest."""
    import gc

    import pytest

    gc.freeze()  # the preloaded libraries: the collector's full passes need not walk them (nor copy their pages)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.dont_write_bytecode = True  # what PYTHONDONTWRITEBYTECODE does at start-up
    output = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(output, 1)
    os.dup2(output, 2)
    code = pytest.main(arguments)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))


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


def grade_all(tasks: list[Task], answers: Path, workers: int, timeout: float) -> list[Grade]:
    """Grade every task's answer, `workers` gradings at a time, in task order, each with the currency
    checker's findings in its answer folder."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        grades = list(pool.map(lambda task: grade(task, answers, timeout), tasks))
    found = currency(answers, [task.id for task in tasks])
    for g in grades:
        g.findings = found.get(g.task, [])
    return grades


def currency(answers: Path, task_ids: list[str]) -> dict[str, list[str]]:
    """Per task id, what scripts/jax_currency_check.py finds in its answer folder: old forms of the API
    delta and version-probing hedges (its `review` notes on changed defaults are not counted). One run
    of the checker covers every folder."""
    folders = [answers / task_id for task_id in task_ids if (answers / task_id).is_dir()]
    if not folders:
        return {}
    result = subprocess.run([sys.executable, str(CHECKER), "--json", *map(str, folders)], capture_output=True,
                            text=True, timeout=600)
    if result.returncode not in (0, 1):
        raise EvalError(f"the currency checker failed (exit {result.returncode}): {_tail(result.stderr)}")
    found: dict[str, list[str]] = {}
    root = answers.resolve()
    for finding in json.loads(result.stdout):
        if finding["kind"] == "review":
            continue
        path = Path(finding["path"]).resolve()
        task_id, file = path.relative_to(root).parts[0], "/".join(path.relative_to(root).parts[1:])
        found.setdefault(task_id, []).append(f"{file}:{finding['line']}: {finding['kind']} {finding['old']} -> {finding['new']}")
    return found


def record(grades: list[Grade], answers: Path, path: Path) -> None:
    """Write the gradings as JSON (the documentation site shows the latest ones)."""
    data = {
        "answers": shown(answers),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "versions": {name: pins()[name] for name in ("jax", "jaxlib", *LIBRARIES[1:])},
        "grades": [dataclasses.asdict(g) for g in grades],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)
