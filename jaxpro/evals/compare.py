"""Both arms on every task: a client session each, both answers graded, and the difference."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import sys
from pathlib import Path

from jaxpro.evals import EvalError
from jaxpro.evals.grading import Grade, grade_all
from jaxpro.evals.sessions import ARMS, Session, SessionOptions, run_session, skill_loaded
from jaxpro.evals.tasks import SKILLS, Task


@dataclasses.dataclass
class Comparison:
    """The sessions and grades of both arms on the same tasks."""

    tasks: list[Task]
    sessions: dict[tuple[str, str], Session]  # (task id, arm) -> session
    grades: dict[str, dict[str, Grade]]  # arm -> task id -> grade

    def task_rows(self) -> list[list[object]]:
        """Per task: its skill, each arm's grade (with `clean` for a clean pass), and whether the bundle arm
        loaded the task's skill."""
        return [[task.id, task.skill, *(verdict(self.grades[arm][task.id]) for arm in ARMS),
                 "yes" if skill_loaded(task, self.sessions[(task.id, "bundle")]) else "no"] for task in self.tasks]

    def skill_rows(self) -> list[list[object]]:
        """Per skill with tasks: how many, passes and clean passes with and without the bundle, and the differences."""
        rows = []
        for skill in SKILLS:
            ids = [task.id for task in self.tasks if task.skill == skill]
            if ids:
                passes = [sum(self.grades[arm][i].passed for i in ids) for arm in ARMS]
                cleans = [sum(self.grades[arm][i].clean for i in ids) for arm in ARMS]
                rows.append([skill, len(ids), passes[0], passes[1], f"{passes[0] - passes[1]:+d}",
                             cleans[0], cleans[1], f"{cleans[0] - cleans[1]:+d}"])
        return rows

    def pass_rate(self, clean: bool = False) -> dict[str, float]:
        """Per arm, the share of tasks passed (or clean-passed)."""
        return {arm: sum(g.clean if clean else g.passed for g in self.grades[arm].values()) / len(self.tasks)
                for arm in ARMS}

    def baseline_fails(self) -> list[str]:
        return [task.id for task in self.tasks if not self.grades["baseline"][task.id].passed]

    def summary(self) -> dict:
        """Everything as JSON-ready data: pass rates, the tasks the baseline fails, each task's grades and sessions."""
        return {
            "pass_rate": self.pass_rate(), "clean_pass_rate": self.pass_rate(clean=True),
            "baseline_fails": self.baseline_fails(),
            "tasks": [{"task": t.id, "skill": t.skill,
                       **{arm: dataclasses.asdict(self.grades[arm][t.id]) for arm in ARMS},
                       "sessions": {arm: dataclasses.asdict(self.sessions[(t.id, arm)]) for arm in ARMS}}
                      for t in self.tasks],
        }


def verdict(grade: Grade) -> str:
    """A grade's status, `passed, clean` for a clean pass and `passed, not clean` when the checker found something."""
    if not grade.passed:
        return grade.status
    return "passed, clean" if grade.clean else "passed, not clean"


def measure(tasks: list[Task], options: SessionOptions, home: Path, out: Path, workers: int,
            grade_timeout: float) -> Comparison:
    """Run both arms' sessions, `workers` at a time, then grade every answer they left under `out`."""
    sessions: dict[tuple[str, str], Session] = {}
    jobs = [(task, arm) for task in tasks for arm in ARMS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(run_session, task, arm, options, home, out): (task.id, arm) for task, arm in jobs}
        for done, future in enumerate(concurrent.futures.as_completed(futures), start=1):
            try:
                sessions[futures[future]] = future.result()
            except EvalError:
                pool.shutdown(wait=False, cancel_futures=True)  # the same error would repeat for every task
                raise
            print(f"\r{done}/{len(jobs)} client sessions", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    grades = {arm: {g.task: g for g in grade_all(tasks, out / "answers" / arm, workers, grade_timeout)} for arm in ARMS}
    return Comparison(tasks, sessions, grades)
