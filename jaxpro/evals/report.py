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
    print_table(["task", "skill", "result", "tests", "seconds", "first failure"],
                [[g.task, skills[g.task], g.status, g.tests, g.seconds, g.message] for g in grades])
    print(f"\n{sum(g.passed for g in grades)}/{len(grades)} passed")


def print_comparison(comparison: Comparison) -> None:
    """Per task both arms' grades, per skill the passes with and without, then the rates and their difference."""
    print_table(["task", "skill", "with bundle", "baseline", "skill loaded"], comparison.task_rows())
    print()
    print_table(["skill", "tasks", "passed with bundle", "passed without", "difference"], comparison.skill_rows())
    rate, count = comparison.pass_rate(), len(comparison.tasks)
    print(f"\npass rate with the bundle {rate['bundle']:.0%}, without {rate['baseline']:.0%}, "
          f"difference {100 * (rate['bundle'] - rate['baseline']):+.0f} points ({count} task{'s' * (count != 1)})")
    print("tasks the baseline fails: " + (", ".join(comparison.baseline_fails()) or "none"))
