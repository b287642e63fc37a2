"""Every task's wrong answer fails its grader: a grader that passes a plausible wrong answer is a failing test.

`python dev/answer_eval.py --grade evals/answers/_wrong --expect fail`, as the README gives it.
"""

from __future__ import annotations

import subprocess

import pytest

from answer_evals import TASK_IDS, grade_set
from jaxpro.evals.grading import FAILING
from jaxpro.evals.tasks import load_tasks

pytestmark = pytest.mark.timeout(3600)  # the first test waits for every grading


@pytest.fixture(scope="module")
def graded() -> tuple[subprocess.CompletedProcess[str], dict[str, dict]]:
    return grade_set("_wrong", "--expect", "fail")


def test_the_runner_fails_every_wrong_answer(graded):
    result, grades = graded
    assert sorted(grades) == sorted(TASK_IDS), result.stderr
    assert result.returncode == 0, "these wrong answers were not rejected: " + ", ".join(
        g["task"] for g in grades.values() if g["status"] not in FAILING)


@pytest.mark.parametrize("task", TASK_IDS)
def test_wrong_answer_is_rejected_by_the_grader(graded, task: str):
    """Rejected means it ran and a check failed (or it did not import): a missing file proves nothing."""
    grade = graded[1][task]
    assert grade["status"] in FAILING, f"the grader passes the wrong answer: {grade}"
    assert grade["tests"] >= 1, f"the grader ran no test: {grade['message']}"
    (meta,) = load_tasks([task])
    for slip in (f"module '{meta.module}' has no attribute", "SyntaxError", "IndentationError"):
        assert slip not in grade["message"], f"the wrong answer fails by a slip, not by the mistake it shows: {grade['message']}"
