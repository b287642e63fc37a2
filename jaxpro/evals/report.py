"""The plain fixed-width tables the evaluation tools print."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxpro.evals.compare import Comparison
    from jaxpro.evals.grading import Grade
    from jaxpro.evals.tasks import Task


def print_table(header: list[str], rows: list[list[object]]) -> None:
    """A plain fixed-width table; floats with two decimals."""
    text = [[f"{v:.2f}" if isinstance(v, float) else str(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in text)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in text:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())


def print_grades(tasks: list[Task], grades: list[Grade]) -> None:
    """One row per graded answer, then how many passed."""
    skills = {task.id: task.skill for task in tasks}
    print_table(["task", "skill", "result", "clean", "tests", "seconds", "first failure or finding"],
                [[g.task, skills[g.task], g.status, _clean(g), g.tests, g.seconds, g.message or "; ".join(g.findings)]
                 for g in grades])
    print(f"\n{sum(g.passed for g in grades)}/{len(grades)} passed, {sum(g.clean for g in grades)}/{len(grades)} "
          "clean-passed (passed, and no old API form or version hedge)")


def _clean(grade: Grade) -> str:
    """`yes` for a clean pass, `no` when the checker found something, `-` when the grader did not pass."""
    return "yes" if grade.clean else ("no" if grade.findings else "-")


def print_comparison(comparison: Comparison) -> None:
    """Per task both arms' grades, per skill the passes with and without, then the rates and their difference."""
    print_table(["task", "skill", "with bundle", "baseline", "skill loaded"], comparison.task_rows())
    print()
    print_table(["skill", "tasks", "passed with bundle", "passed without", "difference", "clean with", "clean without",
                 "difference"], comparison.skill_rows())
    count = len(comparison.tasks)
    for name, rate in (("pass", comparison.pass_rate()), ("clean-pass", comparison.pass_rate(clean=True))):
        print(f"\n{name} rate with the bundle {rate['bundle']:.0%}, without {rate['baseline']:.0%}, "
              f"difference {100 * (rate['bundle'] - rate['baseline']):+.0f} points ({count} task{'s' * (count != 1)})", end="")
    print("\ntasks the baseline fails: " + (", ".join(comparison.baseline_fails()) or "none"))
