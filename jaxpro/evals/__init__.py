"""The trigger and answer evaluations, one job per module.

- `client`: running Claude Code's CLI (pinned under .tools/) and reading its stream-json events.
- `triggers`: the trigger-eval sets (evals/triggers/) and how often each component loads.
- `tasks`: the answer-eval tasks (evals/answers/) and the checks on their metadata.
- `grading`: grading one answer by running the task's grader in its own process.
- `sessions`: one client session answering a task, in the bundle or the baseline arm.
- `compare`: both CLI arms on every task, graded, and the difference.
- `arms`: helper-run arms (tasks and a brief laid out for any assistant), their recorded grades under
  evals/runs/, and the comparison of two of them.
- `report`: the plain tables the command-line tools print.
- `lift`: the README chart's figures: the latest arms on the tasks the bundle was tuned on and on those
  held out from its tuning (dev/lift_chart.py draws them).

The command-line entry points are dev/trigger_eval.py and dev/answer_eval.py.
"""


class EvalError(Exception):
    """A problem the user must fix (a bad eval file, no credentials, no client); printed as one line."""
