"""Every task's reference answer clean-passes its grader (passes, and the currency checker finds no old
API form or version hedge in it), each grading in under a minute.

`python dev/answer_eval.py --grade evals/answers/_reference`, as the README gives it; the wrong answers
are graded in test_answer_evals_wrong.py, so that the two gradings run on the two workers at once.
"""

from __future__ import annotations

import subprocess

import pytest

from answer_evals import TASK_IDS, grade_set

MAX_SECONDS = 60
pytestmark = pytest.mark.timeout(3600)  # the first test waits for every grading


@pytest.fixture(scope="module")
def graded() -> tuple[subprocess.CompletedProcess[str], dict[str, dict]]:
    return grade_set("_reference")


def test_the_runner_passes_every_reference_answer(graded):
    result, grades = graded
    assert sorted(grades) == sorted(TASK_IDS), result.stderr
    assert result.returncode == 0, "\n".join(f"{g['task']}: {g['status']}: {g['message']}" for g in grades.values() if g["status"] != "passed")


@pytest.mark.parametrize("task", TASK_IDS)
def test_reference_answer_clean_passes_in_under_a_minute(graded, task: str):
    grade = graded[1][task]
    assert grade["status"] == "passed", f"{grade['status']}: {grade['message']}"
    assert grade["findings"] == [], "the currency checker finds: " + "; ".join(grade["findings"])
    assert grade["tests"] >= 1
    assert grade["seconds"] < MAX_SECONDS, f"grading took {grade['seconds']} s"
