"""Shared by the answer-eval tests: the runner (dev/answer_eval.py) as a module, and one grading of a set."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from bundle import REPO

RUNNER = REPO / "dev" / "answer_eval.py"
RESULTS = REPO / "build" / "answer_evals"  # the site's answer-evals page shows the latest gradings


def _load_runner():
    if "answer_eval" in sys.modules:
        return sys.modules["answer_eval"]
    spec = importlib.util.spec_from_file_location("answer_eval", RUNNER)
    module = importlib.util.module_from_spec(spec)
    sys.modules["answer_eval"] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


answer_eval = _load_runner()
TASK_IDS = [folder.name for folder in answer_eval.task_folders()]


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
