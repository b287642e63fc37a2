"""Shared by the answer-eval tests: the runner (dev/answer_eval.py) run as a user runs it, and one grading of a set."""

from __future__ import annotations

import json
import subprocess
import sys

from bundle import REPO
from jaxpro.evals.tasks import task_folders

RUNNER = REPO / "dev" / "answer_eval.py"
RESULTS = REPO / "build" / "answer_evals"  # the site's answer-evals page shows the latest gradings

TASK_IDS = [folder.name for folder in task_folders()]


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The runner as a user runs it, from the repository root."""
    return subprocess.run([sys.executable, str(RUNNER), *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env=env)


def grade_set(name: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], dict[str, dict]]:
    """Grade evals/answers/<name> one task at a time (the test run's other worker has the other core);
    the grades are recorded under build/answer_evals/<name without its underscore>.json."""
    result = run("--grade", f"evals/answers/{name}", "--workers", "1", "--json",
                 "--record", str(RESULTS / f"{name.strip('_')}.json"), *extra, timeout=3600)
    grades = {grade["task"]: grade for grade in json.loads(result.stdout)} if result.stdout.strip() else {}
    return result, grades
